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
fn orc_regressions() {
    replay("orc", harness::orc);
}

#[test]
fn analysis_regressions() {
    replay("analysis", harness::analysis);
}
