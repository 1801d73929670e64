//! Every input the fuzz targets (fuzz/, `make fuzz`) ever crashed, hung or ran out of memory
//! on, replayed through the same code path: the target's harness function, shared with the fuzz
//! crate (`fuzz/src/harness.rs`, included here unchanged).
//!
//! The inputs are committed under `tests/fixtures/fuzz-regressions/<target>/`, written by
//! `make_regressions.py` there (inputs of the structure-aware `analysis_mutate` target go under
//! `analysis/` as the zip it built). Each must finish without a panic, with the core's contract
//! intact (every error says what is wrong; read errors name the file) and the outcome its
//! `.expect` file names. A folder that is missing or empty fails its test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::path::{Path, PathBuf};

/// What the harness must report for one input (`<input>.expect`, written beside it by
/// `make_regressions.py`).
struct Expect {
    /// `error`, `ok` or `any`.
    outcome: String,
    /// A phrase one of the errors must contain.
    phrase: Option<String>,
}

/// The committed inputs of `target` with their expectations. A missing or empty folder fails:
/// a regression suite that replays nothing passes whatever the code does.
fn inputs(target: &str) -> Vec<(PathBuf, Expect)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions")
        .join(target);
    let rd = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: the regression inputs are missing ({e})", dir.display()));
    let mut out: Vec<(PathBuf, Expect)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "expect"))
        .map(|p| {
            let mut name = p.file_name().unwrap().to_os_string();
            name.push(".expect");
            let text = std::fs::read_to_string(p.with_file_name(&name))
                .unwrap_or_else(|e| panic!("{}: no .expect file beside it ({e})", p.display()));
            let mut lines = text.lines();
            let outcome = lines.next().unwrap_or_default().trim().to_string();
            assert!(
                ["error", "ok", "any"].contains(&outcome.as_str()),
                "{}: .expect says {outcome:?}, not error, ok or any",
                p.display()
            );
            let phrase = lines
                .next()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from);
            (p, Expect { outcome, phrase })
        })
        .collect();
    assert!(!out.is_empty(), "{}: no regression inputs", dir.display());
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Replays every committed input of `target` through `run`: no panic, no contract violation,
/// every error says something, and the outcome the input's `.expect` names. (A hang shows as a
/// test that does not finish; no wall-clock assertion, the machines are shared.)
fn replay(target: &str, run: fn(&[u8]) -> harness::Outcome) {
    for (path, expect) in inputs(target) {
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&data))
            .unwrap_or_else(|_| panic!("{}: panicked", path.display()));
        assert!(
            outcome.violations.is_empty(),
            "{}: {:#?}",
            path.display(),
            outcome.violations
        );
        for e in &outcome.errors {
            assert!(!e.trim().is_empty(), "{}: an empty error", path.display());
        }
        match expect.outcome.as_str() {
            "error" => assert!(
                !outcome.errors.is_empty(),
                "{}: expected an error, the harness read it ({} reads)",
                path.display(),
                outcome.ok
            ),
            "ok" => assert!(
                outcome.ok > 0,
                "{}: expected a successful read: {:#?}",
                path.display(),
                outcome.errors
            ),
            _ => {}
        }
        if let Some(phrase) = &expect.phrase {
            assert!(
                outcome.errors.iter().any(|e| e.contains(phrase.as_str())),
                "{}: no error says {phrase:?}: {:#?}",
                path.display(),
                outcome.errors
            );
        }
    }
}

#[test]
fn zip_source_regressions() {
    replay("zip_source", harness::zip_source);
}

#[test]
fn json_objects_regressions() {
    replay("json_objects", harness::json_objects);
}

#[test]
fn avro_manifests_regressions() {
    replay("avro_manifests", harness::avro_manifests);
}

#[test]
fn parquet_regressions() {
    replay("parquet", harness::parquet);
}

#[test]
fn orc_regressions() {
    replay("orc", harness::orc);
}

#[test]
fn avro_data_regressions() {
    replay("avro_data", harness::avro_data);
}

/// The `avro_data` harness over real Avro changelog and data files of Java Paimon (every codec)
/// and every truncation of one of them: no panic, no contract violation, and the whole files
/// read.
#[test]
fn avro_data_harness_on_real_files_and_their_truncations() {
    let zip = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/writers/j09_crash_avro.zip"),
    )
    .unwrap();
    let artifact = harness::open_zip(&zip, &prv::Limits::default()).unwrap();
    let files: Vec<String> = artifact
        .files()
        .iter()
        .map(|f| f.path())
        .filter(|p| p.ends_with(".avro"))
        .collect();
    assert!(files.len() >= 20, "{}", files.len());
    for (i, path) in files.iter().enumerate() {
        let bytes = artifact.read(path, u64::MAX).unwrap();
        let whole = harness::avro_data(&bytes);
        assert!(
            whole.violations.is_empty() && whole.errors.is_empty(),
            "{path}: {whole:#?}"
        );
        if i < 5 {
            for cut in (0..bytes.len()).step_by(3) {
                let o = harness::avro_data(&bytes[..cut]);
                assert!(o.violations.is_empty(), "{path} cut at {cut}: {o:#?}");
            }
        }
    }
}

#[test]
fn analysis_regressions() {
    replay("analysis", harness::analysis);
}
