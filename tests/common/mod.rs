//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use prv::report::model::Report;
use prv::source::{native, Artifact};
use prv::{analyze, AnalysisOptions, Limits};

pub mod zipwriter;

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// Opens a path as the CLI does.
pub fn open(path: &Path) -> Artifact {
    let limits = Limits::default();
    let input = native::open_input(path, &limits).expect("open input");
    Artifact::open(vec![input], &limits).expect("open artifact")
}

/// Analyses a path with the default options (clock = capture time).
pub fn report(path: &Path) -> Report {
    let artifact = open(path);
    analyze(&artifact, &AnalysisOptions::default(), &mut |_| {})
}

/// All fixture zips: the shared warehouses, the Ray reproductions and the scenarios.
pub fn all_fixture_zips() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["warehouses", "ray", "spark"] {
        let d = fixture(dir);
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "zip") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
