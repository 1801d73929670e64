//! The ORC reader (`prv::orc`) against real files.
//!
//! * Every ORC data and changelog file of the real-writer fixtures (`tests/fixtures/writers/`:
//!   Java Paimon 0.9 and the 1.0-SNAPSHOT core with ZLIB / SNAPPY / LZ4 / ZSTD / NONE, zstd
//!   level 9, deletion-vector tables; pypaimon 1.3.2 … 2.1.0 through pyarrow's C++ writer) is
//!   read through the row reader's dispatch (`rows::read::read_artifact_file`), and its rows
//!   equal the fixture truth's `file_rows` (pyarrow's read-back of the same file).
//! * `tests/fixtures/orc/types_*.orc` hold every type Paimon writes for keys and values, with
//!   nulls, several stripes, direct and dictionary strings, integer RLE v1 (`file_version`
//!   0.11) and v2 (0.12), in every codec. They and their expectations
//!   (`tests/fixtures/orc/types.json`, pyarrow's read-back) are made by
//!   `tests/fixtures/orc/make_types.py` (`pip install pyarrow`, then
//!   `python3 tests/fixtures/orc/make_types.py`); see that script for what each file holds.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;

use common::{fixture, open};
use prv::orc::OrcFile;
use prv::parquet::Value;
use prv::rows::read::{read_artifact_file, FileRows, KeyColumns, ReadSpec};
use serde_json::{json, Value as J};

fn all_rows() -> ReadSpec {
    ReadSpec {
        keys: KeyColumns::Primary,
        values: true,
        orc_ltz_legacy: true,
    }
}

/// A record as the truth writes it: `_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, values.
fn as_truth(rows: &FileRows) -> Vec<J> {
    rows.records
        .iter()
        .map(|r| {
            let mut m = serde_json::Map::new();
            if let J::Object(k) = rows.key_json(&r.key) {
                for (name, v) in k {
                    m.insert(format!("_KEY_{name}"), v);
                }
            }
            m.insert("_SEQUENCE_NUMBER".into(), json!(r.seq));
            let kind = match r.kind {
                prv::rows::RowKind::Insert => 0,
                prv::rows::RowKind::UpdateBefore => 1,
                prv::rows::RowKind::UpdateAfter => 2,
                prv::rows::RowKind::Delete => 3,
            };
            m.insert("_VALUE_KIND".into(), json!(kind));
            if let J::Object(v) = rows.row_json(&r.values) {
                m.extend(v);
            }
            J::Object(m)
        })
        .collect()
}

/// A timestamp written as the core renders it (`2024-03-10T03:30:00.000456000`, `…Z` for an
/// instant) or as pyarrow's and Paimon's reads print it (`2024-03-10T03:30:00.000456`,
/// `…+00:00`, `2024-03-10T03:30`), as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn` (`…Z` for an instant);
/// other values as they are.
fn timestamps_normalised(v: &J) -> J {
    match v {
        J::Array(a) => J::Array(a.iter().map(timestamps_normalised).collect()),
        J::Object(o) => J::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), timestamps_normalised(v)))
                .collect(),
        ),
        J::String(s) => J::String(normalised_timestamp(s).unwrap_or_else(|| s.clone())),
        v => v.clone(),
    }
}

/// `v` with every string's trailing `Z` removed.
fn zoneless(v: &J) -> J {
    match v {
        J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), zoneless(v))).collect()),
        J::String(s) => J::String(s.trim_end_matches('Z').to_string()),
        v => v.clone(),
    }
}

fn normalised_timestamp(s: &str) -> Option<String> {
    let (s, zone) = match s.strip_suffix('Z').or_else(|| s.strip_suffix("+00:00")) {
        Some(s) => (s, "Z"),
        None => (s, ""),
    };
    let (date, time) = s.split_once('T')?;
    let date_ok = date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-';
    if !date_ok || time.len() < 5 || time.as_bytes()[2] != b':' {
        return None;
    }
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let hms = if hms.len() == 5 {
        format!("{hms}:00")
    } else {
        hms.to_string()
    };
    Some(format!("{date}T{hms}.{frac:0<9}{zone}"))
}

/// `(fixture, path in the warehouse) → (codec, rows)` of every ORC file in the truths.
fn truth_orc_files() -> BTreeMap<(String, String), (String, Vec<J>)> {
    let idx: BTreeMap<String, J> =
        serde_json::from_str(&std::fs::read_to_string(fixture("writers/fixtures.json")).unwrap())
            .unwrap();
    let mut out = BTreeMap::new();
    for name in idx.keys() {
        let t: J = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
        )
        .unwrap();
        for table in t["tables"].as_object().unwrap().values() {
            let Some(files) = table["file_rows"].as_object() else {
                continue;
            };
            for (path, f) in files {
                if f["format"] == "orc" {
                    out.insert(
                        (name.clone(), path.clone()),
                        (
                            f["codec"].as_str().unwrap().to_string(),
                            f["rows"].as_array().unwrap().clone(),
                        ),
                    );
                }
            }
        }
    }
    out
}

#[test]
fn every_orc_file_of_the_real_writers_reads_as_pyarrow_reads_it() {
    let files = truth_orc_files();
    let mut per_codec: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_fixture: BTreeMap<String, usize> = BTreeMap::new();
    let mut artifacts = BTreeMap::new();
    for ((name, path), (codec, expected)) in &files {
        let artifact = artifacts
            .entry(name.clone())
            .or_insert_with(|| open(&fixture(&format!("writers/{name}.zip"))));
        let full = format!("{name}/{path}");
        assert!(artifact.get(&full).is_some(), "{full} is not in the zip");
        // pyarrow reads TIMESTAMP_LTZ columns as the instants stored; Paimon's legacy layout
        // (the crash_zones tables) is compared with Paimon's reads in the evidence test below
        let spec = ReadSpec {
            orc_ltz_legacy: false,
            ..all_rows()
        };
        let rows = read_artifact_file(artifact, &full, &spec, &|_| true)
            .unwrap_or_else(|e| panic!("{full} ({codec}): {e}"));
        assert_eq!(rows.total_rows as usize, expected.len(), "{full}");
        assert_eq!(
            timestamps_normalised(&J::Array(as_truth(&rows))),
            timestamps_normalised(&J::Array(expected.clone())),
            "{full} ({codec})"
        );
        for (i, r) in rows.records.iter().enumerate() {
            assert_eq!(r.position, i as u64, "{full}");
        }
        *per_codec.entry(codec.clone()).or_default() += 1;
        *per_fixture.entry(name.clone()).or_default() += 1;
    }
    // 322 files: Java 0.9 and 1.0 (crash_orc 78 each, crash_zstd 16 each, dv_crash 16 each,
    // dv_live_crash 6 each, crash_zones 42 each), pypaimon (formats: 15, 15, 30, 30).
    assert_eq!(files.len(), 406, "{per_fixture:?}");
    for codec in ["ZLIB", "SNAPPY", "LZ4", "ZSTD", "UNCOMPRESSED"] {
        assert!(
            per_codec.get(codec).copied().unwrap_or(0) >= 10,
            "{per_codec:?}"
        );
    }
}

#[test]
fn a_damaged_orc_file_is_an_error_naming_the_file_never_a_panic() {
    let (name, path) = truth_orc_files()
        .into_keys()
        .find(|(n, p)| n == "j09_crash_orc" && p.contains("orc_zlib") && p.contains("changelog"))
        .unwrap();
    let artifact = open(&fixture(&format!("writers/{name}.zip")));
    let full = format!("{name}/{path}");
    let bytes = artifact.read(&full, 1 << 20).unwrap();
    let limits = prv::Limits::default();
    assert!(OrcFile::open(bytes.as_slice(), &limits).is_ok());
    // Every truncation and every single-byte change of the file: an error or rows, never a
    // panic or a hang.
    for cut in 0..bytes.len() {
        let _ = OrcFile::open(&bytes[..cut], &limits);
    }
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[at] ^= flip;
            if let Ok(f) = OrcFile::open(b.as_slice(), &limits) {
                let names: Vec<String> = f.columns().iter().map(|c| c.name.clone()).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let _ = f.read_columns(&names, &limits);
            }
        }
    }
    // The row reader sends the file to the ORC reader, not the Parquet one.
    let read = read_artifact_file(&artifact, &full, &all_rows(), &|_| true);
    assert!(read.is_ok(), "{read:?}");
    let small = prv::Limits {
        max_entry_bytes: 64,
        ..prv::Limits::default()
    };
    let f = OrcFile::open(bytes.as_slice(), &limits).unwrap();
    let err = f.read_columns(&["v"], &small).unwrap_err();
    assert!(err.to_string().contains("max-entry-bytes"), "{err}");
}

/// The expectations of `tests/fixtures/orc/types.json`: the values of every column as pyarrow
/// reads them (the same in every file), rendered as `make_types.py` says; per file its codec
/// and stripes.
#[test]
fn every_type_paimon_writes_reads_as_pyarrow_reads_it() {
    let expected: J =
        serde_json::from_str(&std::fs::read_to_string(fixture("orc/types.json")).unwrap()).unwrap();
    let files = expected["files"].as_object().unwrap();
    let columns = expected["columns"].as_object().unwrap();
    assert!(files.len() >= 15, "{} files", files.len());
    assert!(columns.len() >= 20, "{} columns", columns.len());
    let limits = prv::Limits::default();
    let mut kinds = std::collections::BTreeSet::new();
    for (file, exp) in files {
        let bytes = std::fs::read(fixture(&format!("orc/{file}"))).unwrap();
        let f = OrcFile::open(bytes.as_slice(), &limits).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(f.compression().as_str(), exp["compression"], "{file}");
        assert_eq!(
            f.num_stripes() as u64,
            exp["stripes"].as_u64().unwrap(),
            "{file}"
        );
        for (name, values) in columns {
            let col = f.column(name).unwrap_or_else(|| panic!("{file}: {name}"));
            kinds.insert(col.kind.as_str());
            let got = f
                .read_columns(&[name], &limits)
                .unwrap_or_else(|e| panic!("{file}: {name}: {e}"));
            let rendered: Vec<J> = got[0]
                .iter()
                .map(|v| match v {
                    Value::Null => J::Null,
                    v => J::String(v.render(col.logical.as_ref())),
                })
                .collect();
            assert_eq!(&J::Array(rendered), values, "{file}: column {name}");
        }
    }
    let all = [
        "BOOLEAN",
        "BYTE",
        "SHORT",
        "INT",
        "LONG",
        "FLOAT",
        "DOUBLE",
        "STRING",
        "VARCHAR",
        "CHAR",
        "BINARY",
        "DATE",
        "DECIMAL",
        "TIMESTAMP",
        "TIMESTAMP_INSTANT",
    ];
    assert_eq!(kinds, all.into_iter().collect(), "kinds read");
}

/// The rows of a Paimon-shaped ORC file come out keyed as the Parquet path keys them: `_KEY_id`
/// as the key `id`, row kinds from `_VALUE_KIND`, sequence numbers, values of kept rows only.
#[test]
fn rows_of_a_paimon_shaped_file_are_keyed_and_filtered() {
    let bytes = std::fs::read(fixture("orc/types_v12_zstd_dict.orc")).unwrap();
    let limits = prv::Limits::default();
    let f = OrcFile::open(bytes.as_slice(), &limits).unwrap();
    let keep = |k: &prv::rows::Key| k.as_int().is_some_and(|id| id % 500 == 7);
    let rows = prv::rows::read::read_orc(&f, &all_rows(), &keep, &limits).unwrap();
    assert_eq!(rows.total_rows, 1500);
    assert_eq!(rows.key_names, vec!["id"]);
    let ids: Vec<i64> = rows
        .records
        .iter()
        .map(|r| r.key.as_int().unwrap())
        .collect();
    assert_eq!(ids, vec![7, 507, 1007]);
    assert_eq!(rows.records[1].seq, 1507);
    assert_eq!(rows.records[1].position, 507);
    assert_eq!(rows.records[1].kind, prv::rows::RowKind::Delete); // 507 % 4 == 3
    assert_eq!(rows.value_names.len(), 18);
    let v = rows.row_json(&rows.records[0].values);
    assert_eq!(v["uniq"], json!("row-00007-xx"));
    assert_eq!(v["dec"], json!("-497.41"));
}

/// TRIAGE rows O1, O2, D5, D6, Z4: in every crashed table whose files are ORC (Java Paimon 0.9
/// and 1.0-SNAPSHOT, every codec, zstd level 9, deletion vectors), the lost-changelog finding's
/// row evidence is read: no file is refused, at least one key is shown, each key's batch value
/// is the truth's `batch_latest`, and each lost row is a row of the orphan changelog file as
/// pyarrow reads it.
#[test]
fn lost_changelog_evidence_is_read_from_orc_files() {
    let mut tables = 0;
    for name in [
        "j09_crash_orc",
        "j10_crash_orc",
        "j09_crash_zstd",
        "j10_crash_zstd",
        "j09_dv_crash",
        "j10_dv_crash",
    ] {
        let t: J = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
        )
        .unwrap();
        let report = common::report(&fixture(&format!("writers/{name}.zip")));
        let json: J = serde_json::from_str(&prv::report::json::render(&report)).unwrap();
        for table in json["tables"].as_array().unwrap() {
            let path = table["path"].as_str().unwrap();
            let rel = path.strip_prefix(&format!("{name}/")).unwrap();
            let truth = &t["tables"][rel];
            let orc = truth["file_rows"]
                .as_object()
                .is_some_and(|f| f.values().any(|f| f["format"] == "orc"));
            if !orc {
                continue;
            }
            for f in table["findings"].as_array().unwrap() {
                if f["code"] != "lost-changelog" {
                    continue;
                }
                tables += 1;
                let rows = &f["rows"];
                for note in rows["notes"].as_array().unwrap() {
                    let note = note.as_str().unwrap();
                    assert!(!note.contains("could not be read"), "{path}: {note}");
                }
                let keys = rows["keys"].as_array().unwrap();
                assert!(!keys.is_empty(), "{path}: no keys: {rows}");
                for k in keys {
                    let id = k["key"]["id"].as_i64().unwrap();
                    let batch = &truth["branches"]["main"]["batch_latest"][format!("[{id}]")];
                    assert_eq!(k["batch"], batch["row"], "{path}: key {id}");
                    for lost in k["lost"].as_array().unwrap() {
                        let file = format!("{rel}/{}", lost["file"].as_str().unwrap());
                        let file_rows = truth["file_rows"][&file]["rows"].as_array().unwrap();
                        assert!(
                            file_rows.iter().any(|r| r["_KEY_id"] == id
                                && r["id"] == lost["row"]["id"]
                                && r["v"] == lost["row"]["v"]),
                            "{path}: key {id}: {lost} not in {file}"
                        );
                    }
                }
            }
        }
    }
    // 5 + 5 tables of crash_orc, 1 + 1 orc_zstd_l9, 2 + 2 DV tables
    assert_eq!(tables, 16);
}

/// A file is ORC by its `.orc` name, or by its magic where the name says no format or another
/// one (`rows::read::DataFormat`, the one dispatch point).
#[test]
fn orc_files_are_recognised_by_name_or_magic() {
    let bytes = std::fs::read(fixture("orc/types_v12_snappy.orc")).unwrap();
    let artifact = common::zip_artifact(
        "named.zip",
        &[
            common::zipwriter::Entry::new("w/a.orc", bytes.clone()),
            common::zipwriter::Entry::new("w/data-1", bytes.clone()),
            common::zipwriter::Entry::new("w/b.parquet", bytes.clone()),
        ],
    );
    use prv::rows::read::DataFormat;
    assert_eq!(DataFormat::from_name("w/a.orc"), Some(DataFormat::Orc));
    assert_eq!(DataFormat::from_name("w/data-1"), None);
    assert_eq!(DataFormat::from_magic(&bytes[..4]), Some(DataFormat::Orc));
    // By name, by magic where the name says nothing, and by magic where the name says another
    // format (the file's own bytes win).
    for path in ["w/a.orc", "w/data-1", "w/b.parquet"] {
        let rows = read_artifact_file(&artifact, path, &all_rows(), &|_| true).unwrap();
        assert_eq!(rows.records.len(), 1500, "{path}");
    }
}

/// Issue 21: TIMESTAMP values that Java Paimon 0.9 and 1.0 wrote to ORC from JVMs in New York,
/// Sydney and UTC (`j*_crash_zones`: the edges of daylight saving time in both zones, 1969,
/// 1950, 2038) come out in the lost-changelog evidence as the writer's wall clock, as Paimon's
/// own batch read gives them back (it reads in UTC here), never refused and never shifted by
/// the zone's offset; the New York tables' evidence is the same in ORC, Parquet and Avro.
/// TIMESTAMP_LTZ in Paimon's legacy ORC layout (the default) is the value's epoch taken as a
/// wall clock in the writer's zone: equal to the row's TIMESTAMP (both are the same wall clock
/// written through `Timestamp.valueOf`), and *not* what Paimon's reader in UTC gives, which is
/// off by the writer zone's offset (Paimon's legacy layout reads back right only in the
/// writer's zone).
#[test]
fn timestamps_written_in_daylight_saving_zones_are_the_writers_wall_clock() {
    for name in ["j09_crash_zones", "j10_crash_zones"] {
        let t: J = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap(),
        )
        .unwrap();
        let java = t["paimon_reads"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| k.starts_with("Java"))
            .map(|(_, v)| v)
            .unwrap();
        let report = common::report(&fixture(&format!("writers/{name}.zip")));
        let json: J = serde_json::from_str(&prv::report::json::render(&report)).unwrap();
        let mut evidence: BTreeMap<String, J> = BTreeMap::new();
        for table in json["tables"].as_array().unwrap() {
            let path = table["path"].as_str().unwrap();
            let short = path.rsplit('/').next().unwrap().to_string();
            let rel = path.strip_prefix(&format!("{name}/")).unwrap();
            let finding = table["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["code"] == "lost-changelog")
                .unwrap_or_else(|| panic!("{path}: no lost-changelog finding"));
            let rows = &finding["rows"];
            assert!(
                rows["notes"].as_array().unwrap().is_empty(),
                "{path}: {rows}"
            );
            let keys = rows["keys"].as_array().unwrap();
            assert_eq!(keys.len(), 3, "{path}");
            let batch_read = java[&short]["batch"].as_array().unwrap();
            let orc_legacy = short.starts_with("orc_") && short != "orc_utc";
            for k in keys {
                let id = &k["key"]["id"];
                assert_eq!(k["batchState"], "known", "{path}");
                let ours = timestamps_normalised(&k["batch"]);
                // TIMESTAMP is a local date-time and TIMESTAMP_LTZ an instant in every format
                // (the table's types, not the file's annotations: Paimon's Avro files say the
                // opposite)
                for col in ["ts", "ts6"] {
                    let v = ours[col].as_str().unwrap();
                    assert!(!v.ends_with('Z'), "{path}: key {id}: {col} = {v}");
                }
                assert!(
                    ours["ltz"].as_str().unwrap().ends_with('Z'),
                    "{path}: {ours}"
                );
                let ours = zoneless(&ours);
                let paimon = batch_read.iter().find(|r| &r["row"]["id"] == id).unwrap();
                let paimon = timestamps_normalised(&paimon["row"]);
                for col in ["ts", "ts6", "v"] {
                    assert_eq!(ours[col], paimon[col], "{path}: key {id}: {col}");
                }
                if orc_legacy {
                    assert_eq!(ours["ltz"], ours["ts"], "{path}: key {id}");
                    assert_ne!(ours["ltz"], paimon["ltz"], "{path}: key {id}");
                } else {
                    assert_eq!(ours["ltz"], paimon["ltz"], "{path}: key {id}");
                }
                // each lost row is a row of its changelog file as pyarrow reads it
                for lost in k["lost"].as_array().unwrap() {
                    let file = format!("{rel}/{}", lost["file"].as_str().unwrap());
                    let file_rows = t["tables"][rel]["file_rows"][&file]["rows"]
                        .as_array()
                        .unwrap();
                    // the wall clocks only: fastavro reads Paimon's TIMESTAMP columns as UTC
                    let row = zoneless(&timestamps_normalised(&lost["row"]));
                    let found = file_rows
                        .iter()
                        .map(|r| zoneless(&timestamps_normalised(r)))
                        .any(|r| {
                            r["_KEY_id"] == *id
                                && ["ts", "ts6", "v"].iter().all(|c| r[*c] == row[*c])
                        });
                    assert!(found, "{path}: key {id}: {lost} not in {file}");
                }
            }
            // the evidence without its file names, to compare the formats
            let mut e = timestamps_normalised(&J::Array(keys.clone()));
            for k in e.as_array_mut().unwrap() {
                for lost in k["lost"].as_array_mut().unwrap() {
                    lost.as_object_mut().unwrap().remove("file");
                }
            }
            evidence.insert(short, e);
        }
        let names: Vec<&str> = evidence.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "avro_new_york",
                "orc_new_york",
                "orc_sydney",
                "orc_utc",
                "parquet_new_york"
            ],
            "{name}"
        );
        assert_eq!(
            evidence["orc_new_york"], evidence["parquet_new_york"],
            "{name}"
        );
        assert_eq!(
            evidence["avro_new_york"], evidence["parquet_new_york"],
            "{name}"
        );
        // 2024-10-06 02:30 does not exist in Sydney (Java wrote 03:30), does in New York
        let key4 = |t: &str| evidence[t][0]["batch"]["ts"].clone();
        assert_eq!(
            key4("orc_sydney"),
            "2024-10-06T03:30:00.000000000",
            "{name}"
        );
        assert_eq!(
            key4("orc_new_york"),
            "2024-10-06T02:30:00.000000000",
            "{name}"
        );
    }
}
