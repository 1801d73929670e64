//! Every data and changelog file of the real-writer fixtures (`tests/fixtures/writers/`), read
//! by the core's row reader, gives the rows the fixture's truth records for it (`file_rows`,
//! read back with pyarrow / fastavro): the zstd frames of Java writers (2 MiB and 4 MiB
//! windows), Avro data and changelog files in every codec, Parquet and ORC in every codec.
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
        .map(|f| f.path())
        .find(|p| p.ends_with(&suffix))
        .unwrap_or_else(|| panic!("{rel} is not in the artifact"))
}

#[derive(Debug, Default)]
struct Tally {
    /// Files compared, by (format, codec).
    compared: BTreeMap<(String, String), usize>,
    /// Files whose truth lists a zstd window of at least 2 MiB.
    big_windows: usize,
}

/// Reads every file of the truth's `file_rows` and compares it with the truth.
fn compare_fixture(name: &str, formats: &[&str], tally: &mut Tally) {
    let t = truth(name);
    let a = open(&fixture(&format!("writers/{name}.zip")));
    let spec = ReadSpec {
        keys: KeyColumns::Primary,
        values: true,
        orc_ltz_legacy: true,
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
                orc_ltz_legacy: true,
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
        compare_fixture(name, &["parquet", "avro"], &mut tally);
    }
    assert!(tally.big_windows >= 20, "{tally:?}");
    let avro_zstd = tally.compared[&("avro".to_string(), "zstandard".to_string())];
    assert!(avro_zstd >= 5, "{tally:?}");
    let parquet_zstd = tally.compared[&("parquet".to_string(), "ZSTD".to_string())];
    assert!(parquet_zstd >= 20, "{tally:?}");
}

/// Avro data and changelog files of Java Paimon 0.9 and the 1.0-SNAPSHOT core
/// (`file.format=avro`: zstd, snappy, deflate, null) and of pypaimon 1.3.2-2.1.0 (every codec,
/// `changelog-file.format=avro`), and Parquet in every codec: each file's rows are the truth's.
/// ORC files are refused as unsupported, naming ORC.
#[test]
fn every_parquet_avro_and_orc_file_of_every_writer_gives_the_truths_rows() {
    let mut tally = Tally::default();
    for name in [
        "j09_crash_avro",
        "j10_crash_avro",
        "j09_crash_parquet",
        "j10_crash_parquet",
        "j09_crash_orc",
        "j09_dv_crash",
        "j10_dv_crash",
        "pp132_formats",
        "pp142_formats",
        "pp200_formats",
        "pp210_formats",
    ] {
        compare_fixture(name, &["parquet", "avro", "orc"], &mut tally);
    }
    let count = |f: &str, c: &str| {
        tally
            .compared
            .get(&(f.to_string(), c.to_string()))
            .copied()
            .unwrap_or(0)
    };
    for codec in ["zstandard", "snappy", "deflate", "null"] {
        assert!(count("avro", codec) >= 3, "avro {codec}: {tally:?}");
    }
    for codec in ["ZSTD", "SNAPPY", "GZIP", "UNCOMPRESSED", "LZ4"] {
        assert!(count("parquet", codec) >= 3, "parquet {codec}: {tally:?}");
    }
    let orc: usize = tally
        .compared
        .iter()
        .filter(|((f, _), _)| f == "orc")
        .map(|(_, n)| n)
        .sum();
    assert!(orc >= 10, "orc: {tally:?}");
    eprintln!("{tally:?}");
}

/// The lost-changelog row evidence of every crashed table, in every format this build reads,
/// against the Java streaming and batch reads recorded in the truth: round 4's COMPACT lost
/// key 4 `-U r3 / +U r4`, key 5 `-U r3 / +U r4`, key 6 `+I r4`; snapshot 9 delivered key 4
/// `-U r3 / +U r4`, key 5 `-U r3 / +U r5`, key 6 `+I r5`, snapshot 11 key 6 `-U r5 / +U r6`; the
/// batch values are the truth's `batch_latest`.
#[test]
fn lost_changelog_evidence_of_every_crash_equals_paimons_reads() {
    let mut checked = BTreeMap::<String, usize>::new();
    for name in [
        "j09_crash_parquet",
        "j10_crash_parquet",
        "j09_crash_avro",
        "j10_crash_avro",
        "j09_crash_zstd",
        "j10_crash_zstd",
        "j09_crash_levels",
        "j09_crash_orc",
        "j10_crash_orc",
    ] {
        let t = truth(name);
        let r = common::report(&fixture(&format!("writers/{name}.zip")));
        let json: Value = serde_json::from_str(&prv::report::json::render(&r)).unwrap();
        for table in json["tables"].as_array().unwrap() {
            let path = table["path"].as_str().unwrap();
            let rel = path.split_once('/').unwrap().1;
            let tv = &t["tables"][rel];
            let lost = table["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["code"] == "lost-changelog")
                .unwrap_or_else(|| panic!("{name} {rel}: no lost-changelog"));
            let rows = &lost["rows"];
            assert_eq!(rows["batchExact"], true, "{name} {rel}: {rows:#}");
            let keys = rows["keys"].as_array().unwrap();
            let got: Vec<Value> = keys
                .iter()
                .map(|k| {
                    json!({
                        "key": k["key"],
                        "batch": k["batch"],
                        "lost": k["lost"].as_array().unwrap().iter()
                            .map(|l| json!([l["kind"], l["row"]["v"]])).collect::<Vec<_>>(),
                        "delivered": k["delivered"].as_array().unwrap().iter()
                            .map(|d| json!([d["snapshot"], d["kind"], d["row"]["v"]]))
                            .collect::<Vec<_>>(),
                    })
                })
                .collect();
            let batch =
                |id: i64| tv["branches"]["main"]["batch_latest"][format!("[{id}]")]["row"].clone();
            let want = vec![
                json!({"key": {"id": 4}, "batch": batch(4),
                       "lost": [["-U", "r3"], ["+U", "r4"]],
                       "delivered": [[9, "-U", "r3"], [9, "+U", "r4"]]}),
                json!({"key": {"id": 5}, "batch": batch(5),
                       "lost": [["-U", "r3"], ["+U", "r4"]],
                       "delivered": [[9, "-U", "r3"], [9, "+U", "r5"]]}),
                json!({"key": {"id": 6}, "batch": batch(6),
                       "lost": [["+I", "r4"]],
                       "delivered": [[9, "+I", "r5"], [11, "-U", "r5"], [11, "+U", "r6"]]}),
            ];
            assert_eq!(got, want, "{name} {rel}: {rows:#}");
            assert_eq!(rows["notes"], json!([]), "{name} {rel}");
            *checked.entry(name.to_string()).or_default() += 1;
        }
    }
    eprintln!("{checked:?}");
    // Every table of these fixtures, ORC ones included.
    assert_eq!(
        checked.values().sum::<usize>(),
        5 + 4 + 5 + 5 + 4 + 4 + 2 + 5 + 5,
        "{checked:?}"
    );
}

/// The format is the file's, not its name's: an Avro changelog file under a `.parquet` name
/// (or no extension) gives the same rows, and a file of no known format is named as such.
#[test]
fn the_format_is_told_by_the_file_not_its_name() {
    let name = "j09_crash_avro";
    let t = truth(name);
    let a = open(&fixture(&format!("writers/{name}.zip")));
    let (rel, f) = t["tables"]["db.db/avro_zstd"]["file_rows"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    let bytes = a.read(&artifact_path(&a, rel), u64::MAX).unwrap();
    let spec = ReadSpec {
        keys: KeyColumns::Primary,
        values: true,
        orc_ltz_legacy: true,
    };
    let entries = vec![
        common::zipwriter::Entry::new("t/bucket-0/changelog-x-0.parquet", bytes.clone()),
        common::zipwriter::Entry::new("t/bucket-0/changelog-x-1", bytes),
        common::zipwriter::Entry::new("t/bucket-0/changelog-x-2.orc", b"junk junk".to_vec()),
    ];
    let z = common::zip_artifact("z.zip", &entries);
    for p in [
        "t/bucket-0/changelog-x-0.parquet",
        "t/bucket-0/changelog-x-1",
    ] {
        let rows = read_artifact_file(&z, p, &spec, &|_| true).unwrap();
        assert_eq!(&as_truth(&rows), f["rows"].as_array().unwrap(), "{p}");
    }
    let e = read_artifact_file(&z, "t/bucket-0/changelog-x-2.orc", &spec, &|_| true).unwrap_err();
    assert!(e.to_string().contains("changelog-x-2.orc"), "{e}");
}

/// The deletion-vector crash tables (Java 0.9 and the 1.0-SNAPSHOT core), Parquet, ORC and
/// Avro: key 1 lost `-U 10 / +U 20`, and a batch read of the latest snapshot returns the stale 10
/// (level 0 skipped under deletion vectors), as Paimon's own batch read does; nothing was
/// delivered later. In the `dvlive_*` tables a committed deletion vector (hiding key 2's old row
/// in the top-level file the view reads) is live beside the lost changelog: it is applied.
#[test]
fn deletion_vector_tables_give_paimons_stale_batch_value_in_every_format_read() {
    let mut checked = 0;
    for name in [
        "j09_dv_crash",
        "j10_dv_crash",
        "j09_dv_live_crash",
        "j10_dv_live_crash",
    ] {
        let r = common::report(&fixture(&format!("writers/{name}.zip")));
        let json: Value = serde_json::from_str(&prv::report::json::render(&r)).unwrap();
        for table in json["tables"].as_array().unwrap() {
            let path = table["path"].as_str().unwrap();
            let live = path.contains("/dvlive_");
            if !(path.contains("/dv2_") || path.contains("/dvpad_") || live) {
                continue;
            }
            let lost = table["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["code"] == "lost-changelog")
                .unwrap_or_else(|| panic!("{path}"));
            let keys = lost["rows"]["keys"].as_array().unwrap();
            assert_eq!(keys.len(), 1, "{path}: {:#}", lost["rows"]);
            let k = &keys[0];
            assert_eq!(k["key"], json!({"id": 1}), "{path}");
            assert_eq!(k["batchState"], "known", "{path}");
            assert_eq!(k["batch"], json!({"id": 1, "v": 10}), "{path}");
            assert_eq!(k["deliveredState"], "known", "{path}");
            assert_eq!(k["delivered"], json!([]), "{path}");
            let lost_v: Vec<Value> = k["lost"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| json!([l["kind"], l["row"]["v"]]))
                .collect();
            assert_eq!(lost_v, vec![json!(["-U", 10]), json!(["+U", 20])], "{path}");
            let applied = lost["rows"]["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == "deletion vectors applied");
            assert_eq!(applied, live, "{path}: {:#}", lost["rows"]["notes"]);
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        2 * 9,
        "dv2/dvpad/dvlive × parquet/avro/orc × two writers"
    );
}
