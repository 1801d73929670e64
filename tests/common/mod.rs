//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use std::process::Command;
use std::rc::Rc;

use prv::findings::{Code, Finding, Report};
use prv::source::{native, Artifact, Input};
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

/// `entries` written as a zip, in memory.
pub fn zip_bytes(entries: &[zipwriter::Entry]) -> Vec<u8> {
    let mut bytes = Vec::new();
    zipwriter::write_zip(&mut bytes, entries).expect("write zip");
    bytes
}

/// The entries of the fixture `rel`, with `edit` applied to each (path, bytes); `None` drops it.
pub fn fixture_entries(
    rel: &str,
    mut edit: impl FnMut(&str, Vec<u8>) -> Option<Vec<u8>>,
) -> Vec<zipwriter::Entry> {
    let a = open(&fixture(rel));
    let mut out = Vec::new();
    for f in a.files() {
        let bytes = a.read(&f.path(), u64::MAX).expect("read a fixture entry");
        if let Some(b) = edit(&f.path(), bytes) {
            out.push(zipwriter::Entry::new(&f.path(), b));
        }
    }
    out
}

/// Writes every entry of the zip at `zip` under `dir`, byte for byte (read with the library's
/// own reader): the zip as a folder input.
pub fn extract(zip: &Path, dir: &Path) {
    let artifact = open(zip);
    for f in artifact.files() {
        let target = dir.join(f.path());
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("create a folder");
        std::fs::write(
            &target,
            artifact.read(&f.path(), u64::MAX).expect("read an entry"),
        )
        .expect("write a file");
    }
}

/// An artifact made in memory: `entries` written as a zip named `name`, opened with the
/// default limits.
pub fn zip_artifact(name: &str, entries: &[zipwriter::Entry]) -> Artifact {
    let bytes = zip_bytes(entries);
    Artifact::open(
        vec![Input::Zip {
            name: name.into(),
            data: Rc::new(bytes),
        }],
        &Limits::default(),
    )
    .expect("open artifact")
}

/// Runs the CLI with `args`: its exit status, stdout and stderr.
pub fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon-recovery-validator"))
        .args(args)
        .output()
        .expect("run the CLI");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Analyses a path with the default options (clock = capture time).
pub fn report(path: &Path) -> Report {
    analyse(&open(path))
}

/// The findings with `code` of the tables whose path ends in `table`.
pub fn table_findings(r: &Report, table: &str, code: Code) -> Vec<Finding> {
    r.all_findings()
        .filter(|(t, f)| f.code == code && t.is_some_and(|t| t.path.ends_with(table)))
        .map(|(_, f)| f.clone())
        .collect()
}

/// The JSON report of `tests/fixtures/<rel>`, analysed with the default options.
pub fn json_report(rel: &str) -> serde_json::Value {
    serde_json::from_str(&prv::report::json::render(&report(&fixture(rel))))
        .expect("the JSON report parses")
}

/// The findings with `code` of a table of a JSON report.
pub fn with_code<'a>(t: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    t["findings"]
        .as_array()
        .expect("a table's findings")
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// Analyses an artifact with the default options (clock = capture time).
pub fn analyse(artifact: &Artifact) -> Report {
    analyze(artifact, &AnalysisOptions::default(), &mut |_| {})
}

/// All fixture zips: the shared warehouses, the Ray reproductions, the Spark scenarios and the
/// real-writer warehouses.
pub fn all_fixture_zips() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["warehouses", "ray", "spark", "writers"] {
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

/// Appends `n` as an Avro long (zig-zag varint).
pub fn avro_long(out: &mut Vec<u8>, n: i64) {
    let mut v = ((n << 1) ^ (n >> 63)) as u64;
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an Avro long at `pos`, advancing it.
pub fn read_avro_long(b: &[u8], pos: &mut usize) -> i64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let byte = b[*pos];
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return ((v >> 1) as i64) ^ -((v & 1) as i64);
        }
        shift += 7;
    }
}
