//! Hostile and broken artifacts: every case finishes in bounded memory with a clear message and
//! exit status 0, 1 or 2 — never a panic (101), a hang or a crash. The archives are built here
//! by the tests (a real fixture, damaged in one precise way, or a crafted zip).
//!
//! Each case runs the real CLI under an address-space limit (`ulimit -v`), and is killed if it
//! does not finish in a minute (a hang detector, not a speed test).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::zipwriter::{write_zip, Entry, EntryData};
use common::{fixture, open};

/// Address space the CLI may use in these tests (KiB). Generous for the process's own
/// mappings, far below what a bomb would need.
const MEMORY_KIB: u64 = 1_500_000;

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_cli(path: &Path, extra: &[&str]) -> Outcome {
    let bin = env!("CARGO_BIN_EXE_paimon-recovery-validator");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(bin)
        .arg("check")
        .arg(path)
        .args(["--format", "json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{}: the CLI hangs (killed after 60 s)", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = Outcome {
        code: status.code().unwrap_or(-1),
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
    };
    assert!(
        matches!(out.code, 0..=2),
        "{}: exit status {:?} (signal or panic); stderr: {}",
        path.display(),
        status,
        out.stderr
    );
    assert!(
        !out.stderr.contains("panicked") && !out.stderr.contains("internal error"),
        "{}: {}",
        path.display(),
        out.stderr
    );
    out
}

fn json(out: &Outcome) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// All findings of a report as (code, files, message).
fn findings(v: &serde_json::Value) -> Vec<(String, Vec<String>, String)> {
    let mut out = Vec::new();
    let mut push = |f: &serde_json::Value| {
        out.push((
            f["code"].as_str().unwrap().to_string(),
            f["files"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
            f["message"].as_str().unwrap().to_string(),
        ))
    };
    for f in v["findings"].as_array().unwrap() {
        push(f);
    }
    for t in v["tables"].as_array().unwrap() {
        for f in t["findings"].as_array().unwrap() {
            push(f);
        }
    }
    out
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("prv-hostile-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn zip(&self, name: &str, entries: &[Entry]) -> PathBuf {
        let path = self.0.join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        write_zip(&mut f, entries).unwrap();
        path
    }

    fn bytes(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const CRASH: &str = "warehouses/java09_d_crash_between_append_and_compact.zip";
const TABLE: &str = "java09_d_crash_between_append_and_compact/db.db/lk_crash";

/// The entries of a real fixture, with `edit` applied to each (path, bytes); `None` drops it.
fn fixture_entries(
    rel: &str,
    mut edit: impl FnMut(&str, Vec<u8>) -> Option<Vec<u8>>,
) -> Vec<Entry> {
    let a = open(&fixture(rel));
    let mut out = Vec::new();
    for f in a.files() {
        let bytes = a.read(&f.path, u64::MAX).unwrap();
        if let Some(b) = edit(&f.path, bytes) {
            out.push(Entry::new(&f.path, b));
        }
    }
    out
}

fn fixture_zip_bytes(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).unwrap()
}

// ---------------------------------------------------------------- zip bombs

#[test]
fn flat_bomb_in_a_metadata_file_is_refused_and_the_rest_analysed() {
    let s = Scratch::new("flat-bomb");
    let mut entries = fixture_entries(CRASH, |p, b| {
        (!p.ends_with("snapshot/snapshot-3")).then_some(b)
    });
    // snapshot-3 replaced by 8 GiB of zeros (deflates to ~4 MiB).
    let mut bomb = Entry::new(&format!("{TABLE}/snapshot/snapshot-3"), Vec::new());
    bomb.data = EntryData::Zeros(8 << 30);
    entries.push(bomb);
    let out = run_cli(&s.zip("bomb.zip", &entries), &[]);
    assert_eq!(out.code, 1);
    let v = json(&out);
    let f = findings(&v);
    assert!(
        f.iter().any(|(c, files, m)| c == "unreadable-file"
            && files.iter().any(|x| x.ends_with("snapshot/snapshot-3"))
            && m.contains("limit")),
        "{f:#?}"
    );
    // The rest of the table is still analysed.
    assert!(f.iter().any(|(c, _, _)| c == "lost-changelog"));
    assert!(v["stats"]["bytesInflated"].as_u64().unwrap() < 10 << 20);
}

#[test]
fn lying_sizes_do_not_inflate_beyond_the_declared_size() {
    let s = Scratch::new("lying");
    let mut entries = fixture_entries(CRASH, |p, b| {
        (!p.ends_with("snapshot/snapshot-2")).then_some(b)
    });
    // Declares 600 bytes, inflates to 512 MiB.
    let mut liar = Entry::new(&format!("{TABLE}/snapshot/snapshot-2"), Vec::new());
    liar.data = EntryData::Zeros(512 << 20);
    liar.declared_size = Some(600);
    entries.push(liar);
    let out = run_cli(&s.zip("liar.zip", &entries), &[]);
    let v = json(&out);
    let f = findings(&v);
    assert!(
        f.iter().any(|(c, files, _)| c == "unreadable-file"
            && files.iter().any(|x| x.ends_with("snapshot-2"))),
        "{f:#?}"
    );
    assert!(v["stats"]["bytesInflated"].as_u64().unwrap() < 1 << 20);
}

#[test]
fn nested_zips_beyond_the_depth_limit_are_refused() {
    let s = Scratch::new("nested");
    let mut inner = fixture_zip_bytes(CRASH);
    for depth in 0..8 {
        let mut buf = Vec::new();
        write_zip(
            &mut buf,
            &[Entry::new(&format!("level{depth}.zip"), inner).stored()],
        )
        .unwrap();
        inner = buf;
    }
    let path = s.bytes("deep.zip", &inner);
    let out = run_cli(&path, &[]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("max-nesting"), "{}", out.stderr);
    // Within the limit the table is found through every level.
    let out = run_cli(&path, &["--limit", "max-nesting=10"]);
    let v = json(&out);
    assert_eq!(v["tables"][0]["latest"], 11, "{}", out.stderr);
    assert!(v["tables"][0]["path"]
        .as_str()
        .unwrap()
        .contains("level0.zip!/"));
}

#[test]
fn a_compressed_nested_zip_is_bounded() {
    let s = Scratch::new("nested-bomb");
    // A deflated nested "zip" that inflates to 2 GiB of zeros.
    let mut e = Entry::new("inner.zip", Vec::new());
    e.data = EntryData::Zeros(2 << 30);
    let out = run_cli(&s.zip("outer.zip", &[e]), &[]);
    assert!(out.code == 1 || out.code == 2);
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(text.contains("inner.zip"), "{text}");
}

// ---------------------------------------------------------------- damaged zips

#[test]
fn a_truncated_download_is_named_as_such() {
    let s = Scratch::new("truncated");
    let bytes = fixture_zip_bytes(CRASH);
    let out = run_cli(&s.bytes("half.zip", &bytes[..bytes.len() / 2]), &[]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("half.zip"), "{}", out.stderr);
    assert!(out.stderr.contains("truncated"), "{}", out.stderr);
}

#[test]
fn damaged_entries_become_unreadable_file_findings() {
    let s = Scratch::new("damaged");
    let mut entries = fixture_entries(CRASH, |_, b| Some(b));
    let pick = |entries: &mut Vec<Entry>, suffix: &str| -> usize {
        entries
            .iter()
            .position(|e| String::from_utf8_lossy(&e.name).ends_with(suffix))
            .unwrap()
    };
    let i = pick(&mut entries, "snapshot/snapshot-4");
    entries[i].declared_crc = Some(0xdead_beef);
    let i = pick(&mut entries, "snapshot/snapshot-5");
    entries[i].flags = 1; // encrypted
    let i = pick(&mut entries, "snapshot/snapshot-6");
    entries[i].method = Some(12); // bzip2
    let out = run_cli(&s.zip("damaged.zip", &entries), &[]);
    let f = findings(&json(&out));
    for (snap, words) in [
        ("snapshot-4", "CRC"),
        ("snapshot-5", "encrypted"),
        ("snapshot-6", "compression method 12"),
    ] {
        assert!(
            f.iter().any(|(c, files, m)| c == "unreadable-file"
                && files.iter().any(|x| x.ends_with(snap))
                && m.contains(words)),
            "{snap}: {f:#?}"
        );
    }
}

#[test]
fn overlapping_and_duplicate_entries_are_reported() {
    let s = Scratch::new("overlap");
    let mut entries = fixture_entries(CRASH, |_, b| Some(b));
    let dup = Entry::new(
        &format!("{TABLE}/snapshot/snapshot-1"),
        b"{\"id\": 99}".to_vec(),
    );
    entries.push(dup);
    let path = s.zip("dup.zip", &entries);
    let out = run_cli(&path, &[]);
    let f = findings(&json(&out));
    assert!(
        f.iter()
            .any(|(c, _, m)| c == "unreadable-file" && m.contains("more than once")),
        "{f:#?}"
    );

    // Point two central directory records at the same local header.
    let mut bytes = std::fs::read(&path).unwrap();
    let cds: Vec<usize> = (0..bytes.len() - 4)
        .filter(|&i| bytes[i..i + 4] == 0x0201_4b50u32.to_le_bytes())
        .collect();
    let first_offset = bytes[cds[0] + 42..cds[0] + 46].to_vec();
    bytes[cds[5] + 42..cds[5] + 46].copy_from_slice(&first_offset);
    let out = run_cli(&s.bytes("overlap.zip", &bytes), &[]);
    let v = json(&out);
    assert!(!findings(&v).is_empty());
}

#[test]
fn not_a_zip_and_an_empty_zip() {
    let s = Scratch::new("notzip");
    let out = run_cli(
        &s.bytes("photo.zip", &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F']),
        &[],
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a zip"), "{}", out.stderr);
    let out = run_cli(&s.zip("empty.zip", &[]), &[]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    let out = run_cli(
        &s.zip("logs.zip", &[Entry::new("logs/job.log", b"ok".to_vec())]),
        &[],
    );
    assert_eq!(out.code, 1);
    let f = findings(&json(&out));
    assert!(f.iter().any(|(c, _, _)| c == "no-table"), "{f:#?}");
}

// ---------------------------------------------------------------- hostile names

#[test]
fn hostile_names_are_skipped_with_a_reason_and_never_touch_the_disk() {
    let s = Scratch::new("names");
    let mut entries = fixture_entries(CRASH, |_, b| Some(b));
    entries.push(Entry::new("../../etc/passwd", b"root:x:0:0".to_vec()));
    entries.push(Entry::new("/etc/shadow", b"x".to_vec()));
    entries.push(Entry::new("ctrl\u{1b}[31mred", b"x".to_vec()));
    let mut latin1 = Entry::new("x", b"x".to_vec());
    latin1.name = b"caf\xe9/snapshot-\xff".to_vec();
    entries.push(latin1);
    entries.push(Entry::new(
        &format!("{}f", "d/".repeat(3000)),
        b"x".to_vec(),
    ));
    let mut link = Entry::new("link-to-root", b"/".to_vec());
    link.external_attrs = 0o120777 << 16;
    entries.push(link);
    entries.push(Entry::new(
        "<img src=x onerror=alert(1)>.txt",
        b"x".to_vec(),
    ));
    let out = run_cli(&s.zip("names.zip", &entries), &["--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    let f = findings(&v);
    let messages: Vec<&str> = f.iter().map(|(_, _, m)| m.as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("'..'")), "{messages:#?}");
    assert!(messages.iter().any(|m| m.contains("control characters")));
    assert!(messages.iter().any(|m| m.contains("max-name-bytes")));
    assert!(messages.iter().any(|m| m.contains("symbolic link")));
    // The absolute name is kept, made relative; the analysis of the table is intact.
    assert!(f.iter().any(|(c, _, _)| c == "lost-changelog"));
    assert!(!Path::new("/etc/shadow-prv").exists());
    // Markdown and text outputs stay inert for the HTML-looking name.
    let md = run_cli(&s.0.join("names.zip"), &["--format", "markdown"]);
    assert!(!md.stdout.contains("<img"), "{}", md.stdout);
    let text = run_cli(&s.0.join("names.zip"), &["--format", "text"]);
    assert!(!text.stdout.contains('\u{1b}'));
}

// ---------------------------------------------------------------- broken Paimon content

#[test]
fn broken_paimon_content_is_reported_per_file() {
    let s = Scratch::new("content");
    let entries = fixture_entries(CRASH, |p, b| {
        if p.ends_with("snapshot/snapshot-2") {
            return Some(b"{\"id\": 2, \"commitKind\": ".to_vec()); // truncated JSON
        }
        if p.ends_with("snapshot/snapshot-3") {
            // 20 MiB JSON, above max-json-bytes (16 MiB).
            let mut big = b"{\"id\": 3, \"pad\": \"".to_vec();
            big.extend(std::iter::repeat_n(b'x', 20 << 20));
            big.extend_from_slice(b"\"}");
            return Some(big);
        }
        if p.ends_with("snapshot/LATEST") {
            return Some(b"99999999999999999999999".to_vec());
        }
        if p.ends_with("consumer/consumer-cdc-reader") {
            return Some(b"{\"nextSnapshot\": 9223372036854775807}".to_vec());
        }
        if p.contains("manifest/manifest-list-86ef48ed-26b5-4142-9e22-bf7d3fca3034-3") {
            // A manifest list whose header lies: valid magic, absurd schema length.
            let mut lie = b"Obj\x01".to_vec();
            lie.extend_from_slice(&[0xfe, 0xff, 0xff, 0xff, 0x0f]);
            return Some(lie);
        }
        Some(b)
    });
    let mut entries = entries;
    // An absurd snapshot id and a deep JSON document.
    entries.push(Entry::new(
        &format!("{TABLE}/snapshot/snapshot-9223372036854775807"),
        b"{\"id\": 9223372036854775807, \"commitIdentifier\": 1, \"commitKind\": \"APPEND\", \"timeMillis\": 9223372036854775807}".to_vec(),
    ));
    entries.push(Entry::new(
        &format!("{TABLE}/consumer/consumer-deep"),
        "[".repeat(100_000).into_bytes(),
    ));
    let out = run_cli(&s.zip("content.zip", &entries), &[]);
    assert_eq!(out.code, 1);
    let v = json(&out);
    let f = findings(&v);
    let has = |code: &str, file_suffix: &str| {
        f.iter()
            .any(|(c, files, _)| c == code && files.iter().any(|x| x.ends_with(file_suffix)))
    };
    assert!(has("unreadable-file", "snapshot/snapshot-2"), "{f:#?}");
    assert!(has("unreadable-file", "snapshot/snapshot-3"), "{f:#?}");
    assert!(
        has("consumer-unreadable", "consumer/consumer-deep"),
        "{f:#?}"
    );
    assert!(f.iter().any(|(c, _, _)| c == "snapshot-gap"), "{f:#?}");
    assert!(
        f.iter().any(|(c, files, _)| c == "dangling-reference"
            && files
                .iter()
                .any(|x| x.contains("manifest-list-86ef48ed-26b5-4142-9e22-bf7d3fca3034-3"))),
        "{f:#?}"
    );
    // The lost changelog is still found: its evidence does not depend on the damaged files.
    assert!(f.iter().any(|(c, _, _)| c == "lost-changelog"));
}

#[test]
fn zstd_frames_claiming_huge_windows_are_refused() {
    let s = Scratch::new("zstd");
    let entries = fixture_entries(CRASH, |p, b| {
        if p.contains("/manifest/manifest-1bd52156-923b-4ded-b131-0c75792f66ec-0") {
            // Keep the Avro header, replace the block with a zstd frame header claiming a
            // window of 2^41 bytes and a content size of 2^40.
            let header_end = b.len() - 200;
            let mut evil = b[..header_end.min(b.len())].to_vec();
            evil.truncate(b.len().min(evil.len()));
            evil.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0xE4, 0xF8]);
            evil.extend_from_slice(&(1u64 << 40).to_le_bytes());
            evil.extend_from_slice(&[0u8; 64]);
            return Some(evil);
        }
        Some(b)
    });
    let out = run_cli(&s.zip("zstd.zip", &entries), &[]);
    let f = findings(&json(&out));
    assert!(
        f.iter().any(|(c, files, _)| c == "dangling-reference"
            && files
                .iter()
                .any(|x| x.contains("manifest-1bd52156-923b-4ded-b131-0c75792f66ec-0"))),
        "{f:#?}"
    );
}

#[test]
fn the_input_is_never_modified() {
    let s = Scratch::new("readonly");
    let original = fixture_zip_bytes(CRASH);
    let path = s.bytes("copy.zip", &original);
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    run_cli(&path, &[]);
    assert_eq!(std::fs::read(&path).unwrap(), original);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_dir(&s.0).unwrap().count(),
        1,
        "the CLI wrote next to the input"
    );
}
