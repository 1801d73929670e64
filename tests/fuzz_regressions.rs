//! Every input the fuzz targets (fuzz/, `make fuzz`) ever crashed, hung or ran out of memory
//! on, replayed through the same code path: the target's harness function, shared with the fuzz
//! crate (`fuzz/src/harness.rs`, included here unchanged).
//!
//! The inputs are minimised and committed under `tests/fixtures/fuzz-regressions/<target>/`
//! (inputs of the structure-aware `analysis_mutate` target are committed as the zip it built,
//! under `analysis/`). Each must finish without a panic, in a few seconds, with the core's
//! contract intact (every error says what is wrong; read errors name the file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions")
        .join(target);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"))
        .collect();
    out.sort();
    out
}

/// Replays every committed input of `target` through `run`.
fn replay(target: &str, run: fn(&[u8]) -> harness::Outcome) {
    // Debug builds are several times slower than the fuzz builds that set the 10 s timeout.
    let budget = Duration::from_secs(60);
    for path in inputs(target) {
        let data = std::fs::read(&path).unwrap();
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| run(&data))
            .unwrap_or_else(|_| panic!("{}: panicked", path.display()));
        let took = started.elapsed();
        assert!(
            took < budget,
            "{}: took {took:?} (hang regression)",
            path.display()
        );
        assert!(
            outcome.violations.is_empty(),
            "{}: {:#?}",
            path.display(),
            outcome.violations
        );
        for e in &outcome.errors {
            assert!(!e.trim().is_empty(), "{}: an empty error", path.display());
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
        .map(|f| f.path.clone())
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
