//! The `zip` crate as an oracle for the core's own zip reader (`src/source/zip.rs`).
//!
//! Every zip the tests hold — the fixture warehouses, the real-writer fixtures, the fuzz
//! regression inputs (hostile zips) and the small hand-made zips the fuzz seed corpora start
//! from — is listed and read by both readers, and the two must agree: the same files (folders
//! aside: the core lists files only), the same declared sizes and CRC-32s, the same bytes. Where
//! they may differ by design, the difference is named here and checked to be that one:
//!
//! * **nested zips**: the core opens a `.zip` entry as a folder (`outer.zip!/inner/...`); the
//!   oracle recurses into the entry's bytes itself and compares the inner listing the same way.
//! * **zips the oracle refuses**: both must refuse (the core with an error, or by listing the
//!   damage as a problem and keeping nothing), or, where the core recovers entries from their
//!   local headers (a damaged or missing central directory), it lists exactly what the zip
//!   crate's stream reader (`read_zipfile_from_stream`, local headers only) reads, with the same
//!   bytes; the core may not read files the oracle cannot.
//! * **entries whose bytes are not their declared size**: the core refuses to read them (an
//!   error naming the file); the oracle returns whatever bytes are there. Accepted only where the
//!   oracle's bytes really are not the declared size.
//! * **paths**: the core normalises entry names (`./` and duplicate `/` removed) and refuses
//!   hostile ones (`..`, absolute, NUL) as problems; such entries are compared after the same
//!   normalisation or must be among the core's problems.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use prv::source::{Artifact, Input};
use prv::Limits;

mod common;
use common::zipwriter::{extended_timestamp, Entry};

/// What one reader found in one zip: path -> (declared size, CRC-32, bytes or the read error).
type Listing = BTreeMap<String, (u64, u32, Result<Vec<u8>, String>)>;

fn zips_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            zips_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "zip") {
            out.push(p);
        }
    }
}

fn all_zips() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    zips_under(&root, &mut out);
    out.sort();
    out
}

/// The oracle's listing, recursing into nested zips under `prefix`. `None` when it refuses the
/// archive itself.
fn oracle(data: &[u8], prefix: &str, out: &mut Listing) -> Option<()> {
    let mut archive = zip::ZipArchive::new(Cursor::new(data)).ok()?;
    for i in 0..archive.len() {
        let Ok(mut file) = archive.by_index(i) else {
            continue;
        };
        if file.is_dir() {
            continue;
        }
        let Ok(raw_name) = file.name() else { continue };
        let name = normalise(&raw_name);
        let (size, crc) = (file.size(), file.crc32());
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            out.insert(format!("{prefix}{name}"), (size, crc, Err(e.to_string())));
            continue;
        }
        let path = format!("{prefix}{name}");
        if name.to_ascii_lowercase().ends_with(".zip") {
            let mut inner = Listing::new();
            if oracle(&bytes, &format!("{path}!/"), &mut inner).is_some() {
                out.extend(inner);
                continue;
            }
        }
        out.insert(path, (size, crc, Ok(bytes)));
    }
    Some(())
}

fn normalise(name: &str) -> String {
    name.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// What the zip crate's stream reader reads from the local headers, in order, up to the first
/// entry it cannot read whole (folders aside).
fn stream_oracle(data: &[u8]) -> Listing {
    let mut out = Listing::new();
    let mut cursor = Cursor::new(data);
    while let Ok(Some(mut file)) = zip::read::read_zipfile_from_stream(&mut cursor) {
        let (name, size, crc) = (
            file.name().map(|n| n.to_string()).unwrap_or_default(),
            file.size(),
            file.crc32(),
        );
        let mut bytes = Vec::new();
        if file.read_to_end(&mut bytes).is_err() {
            break;
        }
        if !name.ends_with('/') {
            out.insert(normalise(&name), (size, crc, Ok(bytes)));
        }
    }
    out
}

/// Whether the core, salvaging the zip, says every entry came back (`None`: it refuses the zip
/// or did not salvage it).
fn salvaged_whole(data: &[u8]) -> Option<bool> {
    let input = Input::Zip {
        name: "cut.zip".into(),
        data: Rc::new(data.to_vec()),
    };
    let artifact = Artifact::open(vec![input], &Limits::default()).ok()?;
    artifact.salvaged().first().map(|s| s.whole)
}

/// The core's listing, or `None` when it refuses the archive.
fn core(data: &[u8]) -> Option<(Listing, Vec<String>)> {
    let limits = Limits::default();
    let input = Input::Zip {
        name: "oracle.zip".into(),
        data: Rc::new(data.to_vec()),
    };
    let artifact = Artifact::open(vec![input], &limits).ok()?;
    let mut listing = Listing::new();
    for entry in artifact.files() {
        let bytes = artifact
            .read_entry(entry, entry.size())
            .map_err(|e| e.to_string());
        listing.insert(
            entry.path(),
            (entry.size(), entry.crc32().unwrap_or(0), bytes),
        );
    }
    let problems = artifact
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    Some((listing, problems))
}

/// Compares the two readers on one zip; returns the differences, described.
fn compare(path: &Path) -> Vec<String> {
    compare_bytes(&std::fs::read(path).unwrap())
}

/// [`compare`] on a zip's bytes.
fn compare_bytes(data: &[u8]) -> Vec<String> {
    let data = data.to_vec();
    let mut theirs = Listing::new();
    let oracle_ok = oracle(&data, "", &mut theirs).is_some();
    let mut diffs = Vec::new();
    match (oracle_ok, core(&data)) {
        (false, None) => {}
        (false, Some((ours, _))) if ours.is_empty() => {}
        (false, Some((ours, _))) => {
            let streamed = stream_oracle(&data);
            if ours != streamed {
                diffs.push(format!(
                    "the oracle refuses it; the core recovers {:?}, its stream reader {:?}",
                    ours.keys().collect::<Vec<_>>(),
                    streamed.keys().collect::<Vec<_>>()
                ));
            }
        }
        (true, None) => diffs.push(format!(
            "the core refuses it, the oracle reads {} files",
            theirs.len()
        )),
        (true, Some((ours, problems))) => {
            for (name, (size, crc, bytes)) in &theirs {
                let Ok(bytes) = bytes else {
                    // The oracle cannot read it: the core must not deliver bytes for it either.
                    if let Some((_, _, Ok(_))) = ours.get(name) {
                        diffs.push(format!(
                            "{name}: the oracle cannot read it, the core reads it"
                        ));
                    }
                    continue;
                };
                match ours.get(name) {
                    None if problems.iter().any(|p| p.contains(name.as_str())) => {}
                    None => diffs.push(format!("{name}: only the oracle lists it")),
                    Some(mine) if mine.0 != *size || mine.1 != *crc => diffs.push(format!(
                        "{name}: size/CRC {}/{:08x} against the oracle's {size}/{crc:08x}",
                        mine.0, mine.1
                    )),
                    Some((_, _, Err(e)))
                        if bytes.len() as u64 != *size && e.contains(name.as_str()) => {}
                    Some((_, _, Err(e))) => diffs.push(format!(
                        "{name}: the core cannot read it ({e}), the oracle reads its {size} bytes"
                    )),
                    Some((_, _, Ok(mine))) if mine != bytes => {
                        diffs.push(format!("{name}: other bytes than the oracle's"))
                    }
                    Some(_) => {}
                }
            }
            for name in ours.keys().filter(|n| !theirs.contains_key(*n)) {
                diffs.push(format!("{name}: only the core lists it"));
            }
        }
    }
    diffs
}

#[test]
fn every_zip_of_the_tests_is_listed_and_read_as_the_zip_crate_does() {
    let zips = all_zips();
    // The fixture warehouses, the writers' fixtures and the hostile regression zips at least.
    assert!(
        zips.len() >= 60,
        "only {} zips found under tests/fixtures",
        zips.len()
    );
    let mut failures = Vec::new();
    for path in &zips {
        for d in compare(path) {
            failures.push(format!("{}: {d}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The fuzz seed corpora's hand-made zips (`fuzz/make_corpus.py`'s `tiny_zips`: stored,
/// deflated, empty, with folders, nested stored and deflated, ZIP64) and a stored copy of one
/// fixture, written by that script's own functions (python3, as `make fuzz` runs it).
#[test]
fn the_fuzz_seed_zips_agree() {
    let dir = std::env::temp_dir().join(format!("prv-zip-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let script = format!(
        "import pathlib, sys; sys.path.insert(0, '{root}/fuzz'); import make_corpus as m\n\
         out = pathlib.Path(sys.argv[1])\n\
         for i, z in enumerate(m.tiny_zips()): (out / f'tiny-{{i}}.zip').write_bytes(z)\n\
         fixture = pathlib.Path('{root}/tests/fixtures/warehouses/java09_pending_changelog.zip')\n\
         (out / 'stored-copy.zip').write_bytes(m.stored_copy(fixture.read_bytes()))\n"
    );
    let status = std::process::Command::new("python3")
        .args(["-c", &script])
        .arg(&dir)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "make_corpus.py's functions failed");
    let mut zips = Vec::new();
    zips_under(&dir, &mut zips);
    assert!(zips.len() >= 10, "only {} seed zips written", zips.len());
    let mut failures = Vec::new();
    for path in &zips {
        for d in compare(path) {
            failures.push(format!("{}: {d}", path.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The hostile regression zips: where the oracle refuses one, the core must not read files out
/// of it either; where the oracle reads one, the core must too (checked above); this test only
/// makes sure those inputs are really in the set compared.
#[test]
fn the_hostile_zips_are_compared_too() {
    let zips = all_zips();
    let hostile = zips
        .iter()
        .filter(|p| p.to_string_lossy().contains("fuzz-regressions"))
        .count();
    assert!(hostile >= 10, "only {hostile} hostile zips compared");
}

/// The core reads a central directory a window (1 MiB) at a time: one of 3.4 MB, whose entries
/// (names of 1 to 700 bytes, some with an extra field) end at every offset and cross the
/// window's edges, is listed and read as the oracle does, every file of it.
#[test]
fn a_central_directory_larger_than_the_read_window_agrees() {
    let entries: Vec<Entry> = (0..9_000u32)
        .map(|i| {
            let long = "n".repeat((i as usize * 37) % 700);
            let mut e = Entry::new(
                &format!("t/bucket-{}/{long}-{i}", i % 7),
                i.to_le_bytes().to_vec(),
            );
            if i % 3 == 0 {
                e.extra = extended_timestamp(1_700_000_000 + i64::from(i));
            }
            e
        })
        .collect();
    let data = common::zip_bytes(&entries);
    assert!(data.len() > 3 << 20, "{} bytes", data.len());
    let (ours, problems) = core(&data).expect("the core opens it");
    assert_eq!((ours.len(), problems.len()), (9_000, 0), "{problems:?}");
    let diffs = compare_bytes(&data);
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// What a view of a few files sees: `manifest/` files only, as the CLI's prefetch helpers open
/// the input.
fn is_manifest_dir_file(path: &str) -> bool {
    path.rsplit('/').nth(1) == Some("manifest")
}

/// `Artifact::open_only` (the zip's other files dropped as its central directory is parsed)
/// lists and reads exactly the files `Artifact::open` lists that it keeps, on every zip of the
/// tests, nested ones included; and it meets the artifact-wide file limit as `open` does, the
/// files left out counted.
#[test]
fn a_view_of_a_few_files_is_the_whole_listing_filtered() {
    let limits = Limits::default();
    let open = |data: &[u8], only: bool, limits: &Limits| {
        let input = Input::Zip {
            name: "view.zip".into(),
            data: Rc::new(data.to_vec()),
        };
        if only {
            Artifact::open_only(vec![input], limits, is_manifest_dir_file)
        } else {
            Artifact::open(vec![input], limits)
        }
    };
    let mut kept = 0;
    for path in all_zips() {
        let data = std::fs::read(&path).unwrap();
        let (Ok(all), Ok(view)) = (open(&data, false, &limits), open(&data, true, &limits)) else {
            assert!(open(&data, false, &limits).is_err(), "{}", path.display());
            continue;
        };
        let expected: Vec<_> = all
            .files()
            .iter()
            .filter(|f| is_manifest_dir_file(&f.path()))
            .collect();
        let seen: Vec<_> = view.files().iter().collect();
        assert_eq!(seen.len(), expected.len(), "{}", path.display());
        for (a, b) in expected.iter().zip(&seen) {
            assert_eq!(
                (&a.path(), a.size(), a.crc32()),
                (&b.path(), b.size(), b.crc32())
            );
            assert_eq!(
                all.read_entry(*a, a.size()).ok(),
                view.read_entry(*b, b.size()).ok(),
                "{}: {}",
                path.display(),
                a.path()
            );
        }
        kept += seen.len();
    }
    assert!(kept > 1_000, "only {kept} manifest files compared");

    let fixture = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/warehouses/java09_pending_changelog.zip"),
    )
    .unwrap();
    let files = open(&fixture, false, &limits).unwrap().stats().files_listed;
    let mut tight = Limits {
        max_total_entries: files - 1,
        ..Limits::default()
    };
    assert!(open(&fixture, false, &tight).is_err());
    let refused = open(&fixture, true, &tight).err().map(|e| e.to_string());
    assert!(
        refused
            .as_deref()
            .is_some_and(|e| e.contains("max-total-entries")),
        "{refused:?}"
    );
    tight.max_total_entries = files;
    assert!(open(&fixture, true, &tight).is_ok());
}

/// The same warehouse zipped with bzip2 (method 12), LZMA (14), zstandard (93) and xz (95) by
/// writers independent of the core's decoders (`tests/fixtures/zips/make_zips.py`: Python's
/// zipfile, the zstd and xz tools) gives the deflate zip's report, the lost changelog's row
/// evidence (ranged reads of the data files) included; only the input's name and size differ.
#[test]
fn every_compression_method_gives_the_deflate_zips_report() {
    let report = |path: &Path| -> serde_json::Value {
        let r = common::report(path);
        let mut v: serde_json::Value =
            serde_json::from_str(&prv::report::json::render(&r)).unwrap();
        let input = v["input"].as_object_mut().unwrap();
        input.remove("name");
        input.remove("size");
        v
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let name = "java09_d_crash_between_append_and_compact";
    let deflate = report(&fixtures.join(format!("warehouses/{name}.zip")));
    let rows = deflate["tables"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "lost-changelog" && !f["rows"].is_null());
    assert!(
        rows,
        "the deflate zip's lost changelog carries row evidence"
    );
    // And as streaming writers lay a zip out, sizes in data descriptors: Python's zipfile on
    // an unseekable stream (32- and 64-bit descriptors), Java's ZipOutputStream (`jar`).
    for method in [
        "bzip2",
        "lzma",
        "zstd",
        "xz",
        "streamed",
        "streamed64",
        "jar",
    ] {
        let other = report(&fixtures.join(format!("zips/{name}.{method}.zip")));
        assert_eq!(other, deflate, "{method}");
    }
}

/// A zip cut anywhere (a download that stopped) lists exactly the entries wholly before the
/// cut, the bytes of each up to the next entry's header present, with the whole zip's bytes;
/// the entry the cut falls in and everything after it are left out. Over the deflate fixture
/// and the streaming writers' copies, whose entries end in data descriptors.
#[test]
fn a_zip_cut_anywhere_lists_exactly_the_entries_before_the_cut() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let name = "java09_d_crash_between_append_and_compact";
    let zips = [
        fixtures.join(format!("warehouses/{name}.zip")),
        fixtures.join(format!("zips/{name}.streamed.zip")),
        fixtures.join(format!("zips/{name}.streamed64.zip")),
        fixtures.join(format!("zips/{name}.jar.zip")),
    ];
    let mut failures = Vec::new();
    for path in &zips {
        let data = std::fs::read(path).unwrap();
        // Each file entry of the whole zip: (where its header starts, where the next one does).
        let mut archive = zip::ZipArchive::new(Cursor::new(&data[..])).unwrap();
        let mut spans: Vec<(u64, String)> = (0..archive.len())
            .map(|i| {
                let f = archive.by_index_raw(i).unwrap();
                (f.header_start(), f.name().unwrap().to_string())
            })
            .collect();
        spans.sort();
        let central = archive.central_directory_start();
        let mut whole = Listing::new();
        oracle(&data, "", &mut whole);
        let step = (data.len() / 97).max(1);
        // Anywhere, and exactly where each entry begins (a cut that leaves whole entries only).
        let mut cuts: Vec<usize> = (30..data.len()).step_by(step).collect();
        cuts.extend(spans.iter().map(|s| s.0 as usize).chain([central as usize]));
        for cut in cuts {
            let expected: Listing = spans
                .iter()
                .enumerate()
                .filter(|(i, (_, name))| {
                    let end = spans.get(i + 1).map_or(central, |next| next.0);
                    end <= cut as u64 && !name.ends_with('/')
                })
                .map(|(_, (_, name))| (normalise(name), whole[&normalise(name)].clone()))
                .collect();
            // Whole only where the central directory's first signature shows no entry follows.
            let whole = salvaged_whole(&data[..cut]);
            if whole != Some(cut as u64 >= central + 4) && !expected.is_empty() {
                failures.push(format!(
                    "{} cut at {cut}: said whole {whole:?}",
                    path.display()
                ));
            }
            match core(&data[..cut]) {
                Some((ours, _)) if ours == expected => {}
                None if expected.is_empty() => {}
                got => failures.push(format!(
                    "{} cut at {cut}: {} entries expected, the core lists {:?}",
                    path.display(),
                    expected.len(),
                    got.map(|(l, _)| l.len())
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
