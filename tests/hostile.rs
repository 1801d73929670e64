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
use common::{avro_long, fixture, fixture_entries, read_avro_long};

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

/// `n` central directory records, all pointing at the first entry of `zip` (same local header,
/// same data), named by replacing the name's first two bytes with a two-digit number.
fn overlapping_copies(zip: &[u8], n: usize) -> Vec<u8> {
    let eocd = zip.len() - 22;
    assert_eq!(zip[eocd..eocd + 4], 0x0605_4b50u32.to_le_bytes());
    let le32 = |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()) as usize;
    let (cd_size, cd_offset) = (le32(eocd + 12), le32(eocd + 16));
    let record = &zip[cd_offset..cd_offset + cd_size];
    let mut out = zip[..cd_offset].to_vec();
    for k in 0..n {
        let mut r = record.to_vec();
        r[46..48].copy_from_slice(format!("{k:02}").as_bytes());
        out.extend_from_slice(&r);
    }
    let mut end = zip[eocd..].to_vec();
    end[8..10].copy_from_slice(&(n as u16).to_le_bytes());
    end[10..12].copy_from_slice(&(n as u16).to_le_bytes());
    end[12..16].copy_from_slice(&((record.len() * n) as u32).to_le_bytes());
    out.extend_from_slice(&end);
    out
}

#[test]
fn overlapping_entries_cannot_multiply_a_nested_zip_in_memory() {
    let s = Scratch::new("overlap-nested");
    // A valid 16 MiB zip (one stored entry of zeros with a pseudo-random byte every 512, so it
    // deflates ~100:1, inside max-ratio), deflated into the outer zip once, then listed 40 times
    // by overlapping central directory records: 200 KB that would hold 640 MiB of nested zips
    // (at the default 1 GiB limit the same zip with 64 MiB inside took 1.9 GB and aborted).
    // The nested zips held in memory are bounded in all, not one by one: with 64 MiB allowed,
    // three (16 MiB and a few bytes each) are opened and the rest refused, naming the limit.
    let mut body = vec![0u8; 16 << 20];
    let mut x: u32 = 1;
    for i in (0..body.len()).step_by(512) {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        body[i] = (x >> 24) as u8;
    }
    let mut inner = Vec::new();
    write_zip(&mut inner, &[Entry::new("w/x.bin", body).stored()]).unwrap();
    let mut outer = Vec::new();
    write_zip(&mut outer, &[Entry::new("00.zip", inner)]).unwrap();
    let path = s.bytes("overlap-nested.zip", &overlapping_copies(&outer, 40));
    let out = run_cli(&path, &["--limit", "max-nested-zip-bytes=64M"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    let f = findings(&v);
    let refused = f
        .iter()
        .filter(|(c, files, m)| {
            c == "unreadable-file"
                && files.iter().any(|x| x.ends_with(".zip"))
                && m.contains("limit max-nested-zip-bytes")
        })
        .count();
    assert_eq!(refused, 40 - 3, "{f:#?}");
}

/// A ZIP64 archive (as `zip`, Java and Python write past 65,535 entries: ZIP64 end record and
/// locator between the central directory and the end record) of empty stored entries.
fn zip64_of_empty_entries(names: impl Iterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut local = Vec::new();
    let mut central = Vec::new();
    let mut n = 0u64;
    for name in names {
        let offset = local.len() as u32;
        let fixed = |sig: u32, out: &mut Vec<u8>, central: bool| {
            out.extend_from_slice(&sig.to_le_bytes());
            if central {
                out.extend_from_slice(&20u16.to_le_bytes());
            }
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]); // version, flags, method, time, date
            out.extend_from_slice(&[0; 12]); // crc, sizes
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            if central {
                out.extend_from_slice(&[0; 10]); // comment, disk, attributes
                out.extend_from_slice(&offset.to_le_bytes());
            }
            out.extend_from_slice(&name);
        };
        fixed(0x0403_4b50, &mut local, false);
        fixed(0x0201_4b50, &mut central, true);
        n += 1;
    }
    let mut out = local;
    let cd_offset = out.len() as u64;
    out.extend_from_slice(&central);
    let z64_at = out.len() as u64;
    out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
    out.extend_from_slice(&44u64.to_le_bytes());
    out.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    for v in [n, n, central.len() as u64, cd_offset] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&z64_at.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    out.extend_from_slice(&[0xFF; 8]);
    out.extend_from_slice(&[0, 0]);
    out
}

#[test]
fn a_central_directory_of_hundreds_of_thousands_of_entries() {
    let s = Scratch::new("many");
    // 100,000 data files, 100,000 names climbing out with '..', 100,000 copies of one name: a
    // ZIP64 archive (it was not read at all before: the ZIP64 end record was taken for part of
    // the central directory). Every problem used to become a finding: a 100 MB report.
    let names = (0..300_000u32).map(|i| match i % 3 {
        0 => format!("w/db.db/t/bucket-0/data-{i}.parquet"),
        1 => format!("../escape-{i}"),
        _ => "w/db.db/t/bucket-0/same-name.parquet".to_string(),
    });
    let path = s.bytes(
        "many.zip",
        &zip64_of_empty_entries(names.map(String::into_bytes)),
    );
    let out = run_cli(&path, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout.len() < 2 << 20,
        "a {} byte report",
        out.stdout.len()
    );
    let v = json(&out);
    assert_eq!(v["input"]["files"], 100_001, "{}", v["input"]);
    let f = findings(&v);
    // 100,000 escaping names and 99,999 duplicates: 1,000 listed, the rest counted.
    assert!(
        f.iter()
            .any(|(_, _, m)| m.contains("198999 more entries had problems")),
        "{:#?}",
        f.iter()
            .filter(|x| x.2.contains("more entries"))
            .collect::<Vec<_>>()
    );
    assert!(f.len() <= prv::source::MAX_LISTED_PROBLEMS + 10);
}

// ---------------------------------------------------------------- damaged zips

/// Every finding of a report, artifact-level and per table.
fn all_findings(v: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out: Vec<serde_json::Value> = v["findings"].as_array().cloned().unwrap_or_default();
    for t in v["tables"].as_array().unwrap() {
        out.extend(t["findings"].as_array().cloned().unwrap_or_default());
    }
    out
}

/// The crash fixture zipped with its snapshot files last, newest last (as `zip -r` may order
/// them), and the offset where the newest snapshot's local header starts.
fn crash_with_snapshots_last(s: &Scratch) -> (Vec<u8>, usize) {
    let id = |name: &[u8]| {
        let name = String::from_utf8_lossy(name);
        name.rsplit_once("/snapshot/snapshot-")
            .and_then(|(_, id)| id.parse::<i64>().ok())
    };
    let mut entries = fixture_entries(CRASH, |_, b| Some(b));
    entries.sort_by_key(|e| id(&e.name));
    let bytes = std::fs::read(s.zip("whole.zip", &entries)).unwrap();
    let last = format!("{TABLE}/snapshot/snapshot-11");
    let at = bytes
        .windows(last.len())
        .position(|w| w == last.as_bytes())
        .unwrap();
    (bytes, at - 30)
}

#[test]
fn a_truncated_download_is_analysed_as_far_as_it_goes() {
    let s = Scratch::new("truncated");
    let bytes = fixture_zip_bytes(CRASH);
    let out = run_cli(&s.bytes("half.zip", &bytes[..bytes.len() / 2]), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json(&out);
    let found = all_findings(&v);
    let incomplete = found
        .iter()
        .find(|f| f["code"] == "artifact-incomplete" && f["severity"] == "warning")
        .unwrap_or_else(|| panic!("{found:?}"));
    let told = format!("{incomplete}");
    assert!(
        told.contains("half.zip") && told.contains("truncated"),
        "{told}"
    );
    assert!(
        told.contains("recovered from their local headers"),
        "{told}"
    );
    // The table the recovered entries hold is there.
    assert_eq!(v["tables"][0]["path"], TABLE, "{v}");
}

#[test]
fn a_download_cut_before_the_newest_snapshot_claims_no_loss() {
    let s = Scratch::new("cut-snapshot");
    let (bytes, at) = crash_with_snapshots_last(&s);
    // The whole zip: snapshot 11 is the COMPACT of APPEND 10, so only 7's changelog is lost.
    let whole = json(&run_cli(&s.bytes("whole.zip", &bytes), &[]));
    let lost = |v: &serde_json::Value| {
        all_findings(v)
            .iter()
            .filter(|f| f["code"] == "lost-changelog")
            .map(|f| (f["snapshot"].as_i64().unwrap(), f["severity"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(lost(&whole), [(7, "error".into())]);
    // Cut inside snapshot-11's local header: APPEND 10's COMPACT half is no longer in the
    // artifact, but nothing shows it never became durable.
    let out = run_cli(&s.bytes("cut.zip", &bytes[..at + 40]), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json(&out);
    let found = all_findings(&v);
    assert!(
        found.iter().all(|f| f["severity"] != "error"),
        "an error rests on what the cut took: {found:?}"
    );
    assert!(
        found.iter().all(|f| f["code"] != "orphan-file"),
        "{found:?}"
    );
    assert_eq!(lost(&v), [(7, "warning".into()), (10, "warning".into())]);
    // Where the reader stands against the table rests on which snapshots exist: the whole zip
    // proves it read past lost changelog; the cut one cannot tell.
    let verdicts = |v: &serde_json::Value| {
        v["tables"][0]["consumers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["id"].clone(), c["verdict"].clone(), c["verdicts"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        verdicts(&whole),
        [(
            "cdc-reader".into(),
            "past-lost-changelog".into(),
            serde_json::json!(["past-lost-changelog"])
        )]
    );
    assert_eq!(
        verdicts(&v),
        [(
            "cdc-reader".into(),
            "unknown".into(),
            serde_json::json!(["unknown"])
        )]
    );
    for f in found.iter().filter(|f| f["code"] == "lost-changelog") {
        assert!(
            f["message"].as_str().unwrap().starts_with("Unconfirmed"),
            "{f}"
        );
        assert!(
            format!("{}", f["evidence"]).contains("cut.zip lacks entries"),
            "{f}"
        );
    }
    // Cut after the last entry (in the central directory): every entry is recovered, and the
    // report is the whole zip's but for the note that says so.
    let cd = bytes.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
    let out = run_cli(&s.bytes("cut-cd.zip", &bytes[..cd + 10]), &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    let note = |f: &serde_json::Value| f["code"] == "unreadable-file" && f["severity"] == "info";
    assert_eq!(all_findings(&v).iter().filter(|f| note(f)).count(), 1);
    let without_note: Vec<_> = all_findings(&v).into_iter().filter(|f| !note(f)).collect();
    assert_eq!(without_note, all_findings(&whole));
}

#[test]
fn a_damaged_central_directory_is_made_up_for_by_the_local_headers() {
    let s = Scratch::new("damaged-cd");
    let bytes = fixture_zip_bytes(CRASH);
    let whole = json(&run_cli(&s.bytes("whole.zip", &bytes), &[]));
    // The signature of the central directory's 44th record overwritten: before, the 43
    // records before it were all the listing held ("snapshots none", every manifest an
    // orphan "left by a rollback").
    let mut damaged = bytes.clone();
    let mut at = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    for _ in 0..43 {
        at += 4 + bytes[at + 4..]
            .windows(4)
            .position(|w| w == b"PK\x01\x02")
            .unwrap();
    }
    damaged[at..at + 4].copy_from_slice(b"XXXX");
    let out = run_cli(&s.bytes("damaged.zip", &damaged), &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    let (notes, rest): (Vec<_>, Vec<_>) = all_findings(&v)
        .into_iter()
        .partition(|f| f["code"] == "unreadable-file");
    assert_eq!(rest, all_findings(&whole));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["severity"], "info");
    assert!(format!("{}", notes[0]["evidence"]).contains("central directory entry 43"));
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
    entries[i].method = Some(98); // PPMd
    let out = run_cli(&s.zip("damaged.zip", &entries), &[]);
    let f = findings(&json(&out));
    for (snap, words) in [
        ("snapshot-4", "CRC"),
        ("snapshot-5", "encrypted"),
        ("snapshot-6", "compression method 98"),
    ] {
        assert!(
            f.iter().any(|(c, files, m)| c == "unreadable-file"
                && files.iter().any(|x| x.ends_with(snap))
                && m.contains(words)),
            "{snap}: {f:#?}"
        );
    }
}

/// A zip entry that fails its CRC, or that uses a compression method the tool does not decode,
/// says nothing of the warehouse's own file: its content is unknown, a warning, never "Paimon's
/// readers fail too". A file whose own bytes are malformed (cut short, with the zip's CRC of
/// the cut bytes) still is that error.
#[test]
fn a_copy_the_zip_damaged_is_unknown_not_an_error() {
    let s = Scratch::new("copy");
    let mut entries = fixture_entries("warehouses/java09_b_consumer.zip", |path, b| {
        // Cut short in the warehouse itself: the zip holds the short file faithfully.
        Some(if path.ends_with("snapshot/snapshot-4") {
            b[..b.len() / 2].to_vec()
        } else {
            b
        })
    });
    let mut damage = |suffix: &str, edit: &dyn Fn(&mut Entry)| {
        let e = entries
            .iter_mut()
            .find(|e| String::from_utf8_lossy(&e.name).ends_with(suffix))
            .unwrap();
        edit(e);
    };
    let crc = |e: &mut Entry| e.declared_crc = Some(0xdead_beef);
    damage("snapshot/snapshot-5", &crc);
    damage(
        "manifest-list-06064c17-8917-4d07-8023-731ce98b6ea6-16",
        &crc,
    );
    damage("consumer/consumer-lagging-reader", &crc);
    damage("schema/schema-0", &|e: &mut Entry| e.method = Some(98)); // PPMd
    let out = run_cli(&s.zip("copy.zip", &entries), &[]);
    let v = json(&out);
    let mut seen = Vec::new();
    for t in v["tables"].as_array().unwrap() {
        for f in t["findings"].as_array().unwrap() {
            let file = f["files"][0].as_str().unwrap_or_default().to_string();
            let (severity, message) = (
                f["severity"].as_str().unwrap(),
                f["message"].as_str().unwrap(),
            );
            seen.push((
                file,
                f["code"].as_str().unwrap().to_string(),
                severity.to_string(),
                message.to_string(),
            ));
        }
    }
    let find = |suffix: &str| {
        seen.iter()
            .find(|(file, code, ..)| file.ends_with(suffix) && code.contains("unreadable"))
            .unwrap_or_else(|| panic!("{suffix}: {seen:#?}"))
    };
    for (suffix, why) in [
        (
            "snapshot/snapshot-5",
            "the artifact's copy of it is damaged",
        ),
        (
            "manifest-list-06064c17-8917-4d07-8023-731ce98b6ea6-16",
            "the artifact's copy of it is damaged",
        ),
        (
            "consumer/consumer-lagging-reader",
            "the artifact's copy of it is damaged",
        ),
        ("schema/schema-0", "this tool cannot decode it"),
    ] {
        let (_, _, severity, message) = find(suffix);
        assert_eq!(severity, "warning", "{suffix}: {message}");
        assert!(
            message.contains(why) && message.contains("is unknown"),
            "{suffix}: {message}"
        );
        assert!(!message.contains("fail"), "{suffix}: {message}");
    }
    let (_, _, severity, message) = find("snapshot/snapshot-4");
    assert_eq!(severity, "error", "{message}");
    assert!(
        message.contains("Paimon's readers fail on this snapshot too"),
        "{message}"
    );
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
    let snapshot_5 = common::open(&fixture(CRASH))
        .read(&format!("{TABLE}/snapshot/snapshot-5"), u64::MAX)
        .expect("snapshot 5");
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
        if p.ends_with("snapshot/snapshot-4") {
            // A copy of snapshot 5 under snapshot 4's name (a hand-made "repair").
            return Some(snapshot_5.clone());
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
        f.iter().any(|(c, files, m)| c == "unreadable-file"
            && files.iter().any(|x| x.ends_with("snapshot/snapshot-4"))
            && m.contains("the file is named for snapshot 4 but holds snapshot 5")),
        "{f:#?}"
    );
    assert!(
        has("consumer-unreadable", "consumer/consumer-deep"),
        "{f:#?}"
    );
    assert!(f.iter().any(|(c, _, _)| c == "snapshot-gap"), "{f:#?}");
    // A present but undecodable manifest list is an unreadable file (dangling-reference is for
    // a referenced file that is absent), named with the snapshot that needs it.
    assert!(
        f.iter().any(|(c, files, m)| c == "unreadable-file"
            && files
                .iter()
                .any(|x| x.contains("manifest-list-86ef48ed-26b5-4142-9e22-bf7d3fca3034-3"))
            && m.contains("snapshot 9")),
        "{f:#?}"
    );
    // The lost changelog is still found: its evidence does not depend on the damaged files.
    assert!(f.iter().any(|(c, _, _)| c == "lost-changelog"));
}

#[test]
fn avro_blocks_each_under_the_block_limit_cannot_add_up_to_gigabytes() {
    let s = Scratch::new("avro-amp");
    const MANIFEST: &str = "manifest/manifest-1bd52156-923b-4ded-b131-0c75792f66ec-0";
    // The fixture's manifest, rewritten with codec deflate: its first record with a 60 MiB
    // partition (zeros), deflated to ~60 KB, as 40 blocks. Every block is under
    // max-avro-block-bytes (64 MiB); together they would decode to 2.4 GB of entries, kept.
    let entries = fixture_entries(CRASH, |p, b| {
        if !p.ends_with(&format!("/{MANIFEST}")) {
            return Some(b);
        }
        let h = prv::paimon::avro::read_header(&b).unwrap();
        let mut pos = h.data_start;
        let _count = read_avro_long(&b, &mut pos);
        let size = read_avro_long(&b, &mut pos) as usize;
        let mut block = Vec::new();
        let mut src = &b[pos..pos + size];
        std::io::Read::read_to_end(
            &mut ruzstd::decoding::StreamingDecoder::new(&mut src).unwrap(),
            &mut block,
        )
        .unwrap();
        let mut q = 0;
        let version = read_avro_long(&block, &mut q);
        let kind = read_avro_long(&block, &mut q);
        let partition_len = read_avro_long(&block, &mut q) as usize;
        q += partition_len;
        let mut record = Vec::new();
        avro_long(&mut record, version);
        avro_long(&mut record, kind);
        let big = 60usize << 20;
        avro_long(&mut record, big as i64);
        record.resize(record.len() + big, 0);
        // The rest of the first record, and the block's other records, unchanged (so the
        // block holds `_count` records as it says).
        record.extend_from_slice(&block[q..]);
        let deflated = miniz_oxide::deflate::compress_to_vec(&record, 1);
        let mut out = b"Obj\x01".to_vec();
        avro_long(&mut out, 2);
        for (k, v) in [
            ("avro.schema", h.schema.as_bytes()),
            ("avro.codec", b"deflate"),
        ] {
            avro_long(&mut out, k.len() as i64);
            out.extend_from_slice(k.as_bytes());
            avro_long(&mut out, v.len() as i64);
            out.extend_from_slice(v);
        }
        avro_long(&mut out, 0);
        out.extend_from_slice(&h.sync);
        for _ in 0..40 {
            avro_long(&mut out, _count);
            avro_long(&mut out, deflated.len() as i64);
            out.extend_from_slice(&deflated);
            out.extend_from_slice(&h.sync);
        }
        Some(out)
    });
    let out = run_cli(&s.zip("avro-amp.zip", &entries), &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let f = findings(&json(&out));
    assert!(
        f.iter().any(|(c, files, m)| c == "unreadable-file"
            && files.iter().any(|x| x.ends_with(MANIFEST))
            && m.contains("limit max-entry-bytes")),
        "{f:#?}"
    );
    // The rest of the table is analysed.
    assert!(
        f.iter()
            .any(|(c, _, _)| c == "consumer-past-lost-changelog" || c == "lost-changelog"),
        "{f:#?}"
    );
}

#[test]
fn zstd_frames_claiming_huge_windows_are_refused() {
    let s = Scratch::new("zstd");
    const MANIFEST: &str = "manifest/manifest-1bd52156-923b-4ded-b131-0c75792f66ec-0";
    let entries = fixture_entries(CRASH, |p, b| {
        if p.ends_with(&format!("/{MANIFEST}")) {
            // Keep the Avro header; one block holding a zstd frame whose header asks for a
            // window of 2^41 bytes (window descriptor 0xF8) and declares 2^40 bytes of content.
            let h = prv::paimon::avro::read_header(&b).unwrap();
            let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xC4, 0xF8];
            frame.extend_from_slice(&(1u64 << 40).to_le_bytes());
            frame.extend_from_slice(&[0u8; 64]);
            let mut evil = b[..h.data_start].to_vec();
            avro_long(&mut evil, 1);
            avro_long(&mut evil, frame.len() as i64);
            evil.extend_from_slice(&frame);
            evil.extend_from_slice(&h.sync);
            return Some(evil);
        }
        Some(b)
    });
    let out = run_cli(&s.zip("zstd.zip", &entries), &[]);
    let f = findings(&json(&out));
    assert!(
        f.iter().any(|(c, files, m)| c == "unreadable-file"
            && files.iter().any(|x| x.ends_with(MANIFEST))
            && m.contains("2199023255552-byte window")
            && m.contains("RFC 8878")),
        "{f:#?}"
    );
}

/// Row evidence reads the lost changelog's Parquet file; damaged in hostile ways, it becomes a
/// note naming the file, and the finding stands.
#[test]
fn a_hostile_parquet_file_read_for_row_evidence_is_a_note() {
    const LOST: &str = "bucket-0/changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet";
    let s = Scratch::new("parquet");
    type Damage = fn(Vec<u8>) -> Vec<u8>;
    let damages: [(&str, Damage); 4] = [
        // The footer claims 2 GiB.
        ("footer", |mut b| {
            let n = b.len();
            b[n - 8..n - 4].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
            b
        }),
        // Everything between the magic numbers is noise.
        ("noise", |mut b| {
            let n = b.len();
            let mut x: u32 = 7;
            for v in &mut b[4..n - 8] {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                *v = (x >> 24) as u8;
            }
            b
        }),
        // The footer is kept, the column chunks are zeros.
        ("zeros", |mut b| {
            let n = b.len();
            let footer = u32::from_le_bytes(b[n - 8..n - 4].try_into().unwrap()) as usize;
            for v in &mut b[4..n - 8 - footer] {
                *v = 0;
            }
            b
        }),
        // Cut in the middle.
        ("truncated", |mut b| {
            b.truncate(b.len() / 2);
            b
        }),
    ];
    for (name, damage) in damages {
        let entries = fixture_entries(CRASH, |p, b| {
            Some(if p.ends_with(LOST) { damage(b) } else { b })
        });
        let out = run_cli(&s.zip(&format!("{name}.zip"), &entries), &[]);
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
        let v = json(&out);
        let lost = v["tables"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "lost-changelog")
            .unwrap_or_else(|| panic!("{name}: no lost-changelog"));
        let notes = lost["rows"]["notes"].as_array();
        assert!(
            notes.is_some_and(|n| n.iter().any(|n| n.as_str().unwrap().contains(LOST))),
            "{name}: {}",
            lost["rows"]
        );
    }
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

// ---------------------------------------------------------------- every limit, named

/// Every limit of `prv::limits::LIMIT_NAMES`, exceeded on purpose: a limit on the artifact as a
/// whole ends the run with exit status 2 and the limit named on stderr; any other limit gives a
/// finding that names the limit and the file, and the rest is analysed.
#[test]
fn every_limit_is_named_when_exceeded() {
    let s = Scratch::new("limits");
    let crash = fixture(CRASH);
    // A metadata file above the 1 MiB ratio floor that compresses ~1000:1 (for max-ratio).
    let padded = s.zip(
        "padded.zip",
        &fixture_entries(CRASH, |p, mut b| {
            if p.ends_with("snapshot/snapshot-3") {
                b.extend(std::iter::repeat_n(b' ', 2 << 20));
            }
            Some(b)
        }),
    );
    // The fixture as a deflated zip inside a zip (for max-nesting and max-nested-zip-bytes).
    let nested = s.zip(
        "outer.zip",
        &[Entry::new("inner.zip", fixture_zip_bytes(CRASH))],
    );
    // (limit, value, input, whether it ends the run)
    let cases: Vec<(&str, &str, &Path, bool)> = vec![
        ("max-entries", "5", &crash, true),
        ("max-total-entries", "5", &crash, true),
        ("max-nesting", "0", &nested, true),
        ("max-entry-bytes", "100", &crash, false),
        ("max-nested-zip-bytes", "1K", &nested, false),
        ("max-total-bytes", "2K", &crash, false),
        ("max-ratio", "10", &padded, false),
        ("max-json-bytes", "100", &crash, false),
        ("max-avro-blocks", "0", &crash, false),
        ("max-avro-block-bytes", "10", &crash, false),
        ("max-avro-records", "0", &crash, false),
        ("max-name-bytes", "100", &crash, false),
        ("max-rows-kept", "2", &crash, false),
        ("max-evidence-bytes", "100", &crash, false),
    ];
    let mut covered: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let mut all: Vec<&str> = prv::limits::LIMIT_NAMES.iter().map(|l| l.0).collect();
    covered.sort_unstable();
    all.sort_unstable();
    assert_eq!(covered, all, "every limit needs a case here");

    for (name, value, path, fatal) in cases {
        let out = run_cli(path, &["--limit", &format!("{name}={value}")]);
        let named = format!("limit {name}");
        if fatal {
            assert_eq!(out.code, 2, "{name}: {}{}", out.stderr, out.stdout);
            assert!(out.stderr.contains(&named), "{name}: {}", out.stderr);
            continue;
        }
        // 0 or 1 depending on what the refused files leave of the table's findings.
        assert_ne!(out.code, 2, "{name}: {}", out.stderr);
        if name == "max-rows-kept" || name == "max-evidence-bytes" {
            // The row evidence's budgets: the finding stands, its rows say what is unknown.
            let report = json(&out);
            let rows: Vec<&serde_json::Value> = report["tables"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["findings"].as_array().unwrap())
                .filter_map(|f| f.get("rows"))
                .collect();
            assert!(
                rows.iter().any(|r| r.to_string().contains(&named)),
                "{name}: no rows section names the limit: {rows:#?}"
            );
            continue;
        }
        let f = findings(&json(&out));
        assert!(
            f.iter()
                .any(|(_, files, m)| m.contains(&named) && !files.is_empty()),
            "{name}: no finding names the limit and a file: {f:#?}"
        );
    }
}

/// `--help` lists every limit with its default.
#[test]
fn help_lists_every_limit_with_its_default() {
    let bin = env!("CARGO_BIN_EXE_paimon-recovery-validator");
    let out = Command::new(bin)
        .args(["check", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let defaults = prv::Limits::default();
    for (name, _) in prv::limits::LIMIT_NAMES {
        let default = prv::limits::format_size(defaults.get(name).unwrap());
        assert!(
            help.lines()
                .any(|l| l.contains(name) && l.contains(&format!(" {default} "))),
            "{name} ({default}) not in --help:\n{help}"
        );
    }
}
