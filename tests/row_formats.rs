//! Every data and changelog file of the real-writer fixtures (`tests/fixtures/writers/`), read
//! by the core's row reader, gives the rows the fixture's truth records for it (`file_rows`,
//! read back with pyarrow / fastavro): the zstd frames of Java writers (2 MiB and 4 MiB
//! windows), Avro data and changelog files in every codec, Parquet in every codec.
//!
//! ORC files are not read yet (the `orc` reader lands separately); they are counted as skipped,
//! and the reader must say *unsupported*, never return rows or nothing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;

use common::{fixture, open};
use prv::rows::read::{read_artifact_file, FileRows, KeyColumns, ReadSpec, KEY_PREFIX};
use prv::source::Artifact;
use serde_json::{json, Map, Value};

fn truth(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).expect("truth");
    serde_json::from_str(&text).expect("truth is JSON")
}

/// One file's rows as the truth writes them: `_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, values.
fn as_truth(rows: &FileRows) -> Vec<Value> {
    rows.records
        .iter()
        .map(|r| {
            let mut m = Map::new();
            if let Value::Object(k) = rows.key_json(&r.key) {
                for (name, v) in k {
                    m.insert(format!("{KEY_PREFIX}{name}"), v);
                }
            }
            m.insert("_SEQUENCE_NUMBER".into(), json!(r.seq));
            let kind = match r.kind.as_str() {
                "+I" => 0,
                "-U" => 1,
                "+U" => 2,
                _ => 3,
            };
            m.insert("_VALUE_KIND".into(), json!(kind));
            if let Value::Object(v) = rows.row_json(&r.values) {
                m.extend(v);
            }
            Value::Object(m)
        })
        .collect()
}

/// The artifact path of a warehouse-relative path (the zip's root folder is the fixture name).
fn artifact_path(a: &Artifact, rel: &str) -> String {
    let suffix = format!("/{rel}");
    a.files()
        .iter()
        .map(|f| f.path.clone())
        .find(|p| p.ends_with(&suffix))
        .unwrap_or_else(|| panic!("{rel} is not in the artifact"))
}

#[derive(Debug, Default)]
struct Tally {
    /// Files compared, by (format, codec).
    compared: BTreeMap<(String, String), usize>,
    /// Files whose truth lists a zstd window of at least 2 MiB.
    big_windows: usize,
    /// ORC files (not read on this branch) and what the reader said.
    orc_refused: usize,
}

/// Reads every file of the truth's `file_rows` and compares it with the truth.
fn compare_fixture(name: &str, formats: &[&str], tally: &mut Tally) {
    let t = truth(name);
    let a = open(&fixture(&format!("writers/{name}.zip")));
    let spec = ReadSpec {
        keys: KeyColumns::Primary,
        values: true,
    };
    for (table, tv) in t["tables"].as_object().unwrap() {
        let Some(files) = tv["file_rows"].as_object() else {
            continue;
        };
        let pk = tv["primary_keys"].as_array().is_some_and(|k| !k.is_empty());
        let spec = if pk {
            spec.clone()
        } else {
            ReadSpec {
                keys: KeyColumns::AllValues,
                values: true,
            }
        };
        for (rel, f) in files {
            let format = f["format"].as_str().unwrap().to_string();
            let codec = f["codec"].as_str().unwrap_or("").to_string();
            if !formats.contains(&format.as_str()) {
                continue;
            }
            let path = artifact_path(&a, rel);
            let got = read_artifact_file(&a, &path, &spec, &|_| true);
            if format == "orc" {
                let e = got.expect_err("ORC is not read on this branch");
                assert!(e.to_string().contains("ORC"), "{name} {rel}: {e}");
                tally.orc_refused += 1;
                continue;
            }
            let got =
                got.unwrap_or_else(|e| panic!("{name} {table} {rel} ({format} {codec}): {e}"));
            let want = f["rows"].as_array().unwrap();
            let got = if pk {
                as_truth(&got)
            } else {
                values_only(&got)
            };
            assert_eq!(&got, want, "{name} {rel} ({format} {codec})");
            if f["zstd_windows"]
                .as_array()
                .is_some_and(|w| w.iter().any(|w| w.as_u64() >= Some(2 << 20)))
            {
                tally.big_windows += 1;
            }
            *tally.compared.entry((format, codec)).or_default() += 1;
        }
    }
}

/// An append table's rows: the values only.
fn values_only(rows: &FileRows) -> Vec<Value> {
    rows.records
        .iter()
        .map(|r| rows.row_json(&r.values))
        .collect()
}

/// Java's zstd-jni frames declare 2 MiB (Parquet, levels 3 and 9, and some level-1 files of
/// the recovery JVM) and 4 MiB (Avro, level 9) windows for pages of a few dozen bytes: RFC 8878
/// asks every decoder to accept them, and the rows are the truth's.
#[test]
fn java_zstd_frames_with_large_windows_are_read() {
    let mut tally = Tally::default();
    for name in ["j09_crash_zstd", "j10_crash_zstd", "j09_crash_levels"] {
        compare_fixture(name, &["parquet"], &mut tally);
    }
    assert!(tally.big_windows >= 20, "{tally:?}");
    let parquet_zstd = tally.compared[&("parquet".to_string(), "ZSTD".to_string())];
    assert!(parquet_zstd >= 20, "{tally:?}");
}
