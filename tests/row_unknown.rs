//! Unknown is never shown as absent (issue 21, item 1): when a file that a key's batch value,
//! its delivered changelog, or the lost changelog itself rests on cannot be read, the evidence
//! says *unknown, because <file>: <problem>*, in the JSON and in every rendering; a damaged
//! `_KEY_` column or a primary key naming no field makes the file unreadable, not its keys
//! absent. Over the real-writer fixtures (`tests/fixtures/writers/`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::zipwriter::Entry;
use common::{fixture, open, zip_artifact};
use prv::findings::{Code, Report};
use prv::source::Artifact;
use prv::{analyze, AnalysisOptions};
use serde_json::{json, Value};

fn truth(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("writers/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Replaces (`Some`) or drops (`None`) an entry's bytes.
type Edit<'a> = dyn Fn(&str, Vec<u8>) -> Option<Vec<u8>> + 'a;

/// The fixture `name` with `edit` applied to each entry (path, bytes).
fn rebuild(name: &str, edit: &Edit<'_>) -> Artifact {
    let original = open(&fixture(&format!("writers/{name}.zip")));
    let mut entries = Vec::new();
    for f in original.files() {
        let bytes = original.read(&f.path(), u64::MAX).unwrap();
        if let Some(b) = edit(&f.path(), bytes) {
            entries.push(Entry::new(&f.path(), b));
        }
    }
    zip_artifact("edited.zip", &entries)
}

/// The `rows` of the lost-changelog finding of the table whose path ends with `table`.
fn lost_rows(r: &Report, table: &str) -> Value {
    r.tables
        .iter()
        .filter(|t| t.path.ends_with(table))
        .flat_map(|t| t.findings.iter())
        .find(|f| f.code == Code::LostChangelog)
        .and_then(|f| f.rows.clone())
        .unwrap_or_else(|| panic!("{table}: no lost-changelog rows"))
}

fn key(rows: &Value, id: i64) -> &Value {
    rows["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"]["id"] == id)
        .unwrap_or_else(|| panic!("no key {id}: {rows:#}"))
}

fn markdown(r: &Report) -> String {
    prv::report::markdown::render(r)
}

fn text(r: &Report) -> String {
    prv::report::text::render(r)
}

/// Lost ORC changelog files cut short (a hand edit by nature: damage in transfer): every
/// crashed ORC table says its keys are unknown because of the named file, never "0 keys" and
/// never `batchExact: true`.
#[test]
fn an_unreadable_lost_changelog_is_unknown_keys_not_zero_keys() {
    let mut tables = 0;
    for name in [
        "j09_crash_orc",
        "j10_crash_orc",
        "j09_crash_zstd",
        "j09_dv_crash",
    ] {
        let cut = |path: &str, mut b: Vec<u8>| {
            if path.ends_with(".orc") && path.contains("/changelog-") {
                b.truncate(b.len() / 2);
            }
            Some(b)
        };
        let r = analyze(
            &rebuild(name, &cut),
            &AnalysisOptions::default(),
            &mut |_| {},
        );
        for t in r.tables.iter().filter(|t| t.path.contains("orc")) {
            let Some(rows) = t
                .findings
                .iter()
                .find(|f| f.code == Code::LostChangelog)
                .and_then(|f| f.rows.as_ref())
            else {
                continue;
            };
            assert_eq!(rows["keysComplete"], false, "{name} {}: {rows:#}", t.path);
            assert_eq!(rows["batchExact"], false, "{name} {}", t.path);
            let unread = rows["lostUnreadable"].as_array().unwrap();
            assert!(
                !unread.is_empty()
                    && unread
                        .iter()
                        .all(|u| u["file"].as_str().unwrap().ends_with(".orc")
                            && !u["problem"].as_str().unwrap().is_empty()),
                "{rows:#}"
            );
            tables += 1;
        }
        for out in [markdown(&r), text(&r)] {
            assert!(!out.contains("0 keys whose changelog was lost"), "{name}");
            assert!(
                out.contains("unknown keys: the lost changelog could not be read"),
                "{name}"
            );
        }
    }
    assert!(tables >= 5 + 5 + 1 + 2, "{tables}");
}

/// A live data file that cannot be read (truncated) makes the batch value of the keys of its
/// bucket unknown, naming the file; a later changelog file that cannot be read makes their
/// delivered changelog unknown. Neither is rendered "absent" or "nothing".
#[test]
fn an_unreadable_live_or_later_file_is_unknown_not_absent_or_nothing() {
    let name = "j09_crash_parquet";
    let table = "db.db/parquet_snappy";
    let t = truth(name);
    let live = t["tables"][table]["branches"]["main"]["batch_latest"]["[4]"]["file"]
        .as_str()
        .unwrap()
        .to_string();
    // A changelog file of snapshot 9 (the one that delivered keys 4-6).
    let files = t["tables"][table]["file_rows"].as_object().unwrap();
    let later = files
        .iter()
        .find(|(p, f)| {
            p.contains("/changelog-")
                && f["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["_KEY_id"] == 6 && r["v"] == "r5" && r["_VALUE_KIND"] == 0)
        })
        .map(|(p, _)| p.rsplit('/').next().unwrap().to_string())
        .unwrap();
    for (damaged, batch_unknown) in [(live.clone(), true), (later.clone(), false)] {
        let a = rebuild(name, &|p, mut b| {
            if p.contains(table) && p.ends_with(&damaged) {
                b.truncate(b.len() / 2);
            }
            Some(b)
        });
        let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
        let rows = lost_rows(&r, table);
        assert_eq!(rows["batchExact"], false, "{damaged}");
        assert_eq!(rows["keysComplete"], true);
        assert_eq!(rows["unknownKeys"], 3, "{damaged}: {rows:#}");
        for id in [4, 5, 6] {
            let k = key(&rows, id);
            if batch_unknown {
                assert_eq!(k["batchState"], "unknown", "{k:#}");
                assert!(k.get("batch").is_none(), "{k:#}");
                let because = k["batchUnknownBecause"][0]["file"].as_str().unwrap();
                assert!(because.ends_with(&damaged), "{k:#}");
                assert_eq!(k["deliveredState"], "known");
            } else {
                assert_eq!(k["batchState"], "known");
                assert_eq!(k["deliveredState"], "unknown", "{k:#}");
                let because = &k["deliveredUnknownBecause"][0];
                assert!(
                    because["file"].as_str().unwrap().ends_with(&damaged),
                    "{k:#}"
                );
                assert_eq!(because["snapshot"], 9);
            }
        }
        let md = markdown(&r);
        let section = md
            .split("Rows: ")
            .find(|s| s.contains("unknown: "))
            .unwrap_or_else(|| panic!("no unknown cell: {md}"));
        assert!(section.contains("not known in full"), "{section}");
        let cell = format!("unknown: {damaged} could not be read");
        assert!(section.contains(&cell), "{section}");
        if batch_unknown {
            assert!(!section.contains("| absent |"), "{section}");
        } else {
            assert!(!section.contains("| nothing |"), "{section}");
        }
        assert!(text(&r).contains(&cell));
    }
}

/// Avro bytes of `rows` under `schema` (codec null): the container written by hand, so the
/// test can damage the key columns the way a broken writer would.
fn avro_file(schema: &str, rows: &[Vec<Datum>]) -> Vec<u8> {
    fn long(v: i64, out: &mut Vec<u8>) {
        let mut n = ((v << 1) ^ (v >> 63)) as u64;
        loop {
            if n < 0x80 {
                out.push(n as u8);
                return;
            }
            out.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
    }
    fn bytes(b: &[u8], out: &mut Vec<u8>) {
        long(b.len() as i64, out);
        out.extend_from_slice(b);
    }
    let sync = [7u8; 16];
    let mut out = b"Obj\x01".to_vec();
    long(2, &mut out);
    bytes(b"avro.schema", &mut out);
    bytes(schema.as_bytes(), &mut out);
    bytes(b"avro.codec", &mut out);
    bytes(b"null", &mut out);
    long(0, &mut out);
    out.extend_from_slice(&sync);
    let mut block = Vec::new();
    for row in rows {
        long(1, &mut block); // the record branch of ["null", record]
        for d in row {
            match d {
                Datum::Long(v) => long(*v, &mut block),
                Datum::Str(s) => bytes(s.as_bytes(), &mut block),
                Datum::OptStr(s) => {
                    long(1, &mut block);
                    bytes(s.as_bytes(), &mut block);
                }
            }
        }
    }
    long(rows.len() as i64, &mut out);
    long(block.len() as i64, &mut out);
    out.extend_from_slice(&block);
    out.extend_from_slice(&sync);
    out
}

enum Datum {
    Long(i64),
    Str(String),
    OptStr(String),
}

/// A live Avro data file whose `_KEY_id` holds text ("1" for a BIGINT key), or that has an
/// extra `_KEY_` column, is unreadable for the evidence: the batch value of its bucket's keys is
/// unknown because of it, never "absent" with `batchExact: true`.
#[test]
fn a_damaged_key_column_is_unknown_not_absent() {
    let name = "j09_crash_avro";
    let table = "db.db/avro_null";
    let t = truth(name);
    let live = t["tables"][table]["branches"]["main"]["batch_latest"]["[4]"]["file"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, f) = t["tables"][table]["file_rows"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(p, _)| p.ends_with(&live))
        .unwrap();
    let rows = f["rows"].as_array().unwrap();
    let fields = |key: &str| {
        format!(
            r#"["null",{{"type":"record","name":"record","fields":[{key},{{"name":"_SEQUENCE_NUMBER","type":"long"}},{{"name":"_VALUE_KIND","type":"int"}},{{"name":"id","type":"long"}},{{"name":"v","type":["null","string"]}}]}}]"#
        )
    };
    let text_key = fields(r#"{"name":"_KEY_id","type":"string"}"#);
    let extra_key = fields(r#"{"name":"_KEY_id","type":"long"},{"name":"_KEY_x","type":"long"}"#);
    let tail = |r: &Value| {
        vec![
            Datum::Long(r["_SEQUENCE_NUMBER"].as_i64().unwrap()),
            Datum::Long(r["_VALUE_KIND"].as_i64().unwrap()),
            Datum::Long(r["id"].as_i64().unwrap()),
            Datum::OptStr(r["v"].as_str().unwrap().to_string()),
        ]
    };
    let as_text: Vec<Vec<Datum>> = rows
        .iter()
        .map(|r| {
            let mut d = vec![Datum::Str(r["_KEY_id"].to_string())];
            d.extend(tail(r));
            d
        })
        .collect();
    let with_extra: Vec<Vec<Datum>> = rows
        .iter()
        .map(|r| {
            let mut d = vec![Datum::Long(r["_KEY_id"].as_i64().unwrap()), Datum::Long(0)];
            d.extend(tail(r));
            d
        })
        .collect();
    for (schema, data, says) in [
        (
            &text_key,
            &as_text,
            "_KEY_id holds text (\"1\") but the table's id is BIGINT",
        ),
        (&extra_key, &with_extra, "_KEY_id, _KEY_x"),
    ] {
        let bytes = avro_file(schema, data);
        let a = rebuild(name, &|p, b| {
            Some(if p.contains(table) && p.ends_with(&live) {
                bytes.clone()
            } else {
                b
            })
        });
        let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
        let rows = lost_rows(&r, table);
        assert_eq!(rows["batchExact"], false);
        let k = key(&rows, 4);
        assert_eq!(k["batchState"], "unknown", "{k:#}");
        let problem = k["batchUnknownBecause"][0]["problem"].as_str().unwrap();
        assert!(problem.contains(says), "{problem}");
    }
    // The undamaged file gives the truth's value (the test above is about the damage).
    let r = common::report(&fixture(&format!("writers/{name}.zip")));
    let k = key(&lost_rows(&r, table), 4).clone();
    assert_eq!(k["batchState"], "known");
    assert_eq!(k["batch"], json!({"id": 4, "v": "r4"}));
}

/// A schema whose primary key names a field it does not have: the row evidence says so (every
/// file of the table unreadable for it, naming the key), the lost-changelog finding stands and
/// the verdict stays fail.
#[test]
fn a_primary_key_naming_no_field_is_said_not_a_silent_pass() {
    let name = "j09_crash_parquet";
    let table = "db.db/parquet_snappy";
    let a = rebuild(name, &|p, b| {
        if p.contains(table) && p.contains("/schema/schema-") {
            let text = String::from_utf8(b).unwrap();
            let mut v: Value = serde_json::from_str(&text).unwrap();
            v["primaryKeys"] = json!(["nope"]);
            return Some(serde_json::to_vec_pretty(&v).unwrap());
        }
        Some(b)
    });
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    let rows = lost_rows(&r, table);
    assert_eq!(rows["keysComplete"], false, "{rows:#}");
    let problem = rows["lostUnreadable"][0]["problem"].as_str().unwrap();
    assert!(problem.contains("primary key names nope"), "{problem}");
    assert_eq!(r.verdict, prv::findings::Verdict::Fail);
}

/// A Ray Data table whose live file cannot be read: ids held by unreferenced files are not
/// called absent from the latest snapshot (the unreadable file may hold them): an info saying
/// it is unknown and naming the file, never the `rows-only-in-orphan-files` warning.
#[test]
fn an_unreadable_live_file_is_no_rows_only_in_orphan_files_warning() {
    let original = open(&fixture("ray/A_after_resume.zip"));
    let r = analyze(&original, &AnalysisOptions::default(), &mut |_| {});
    let live: Vec<String> = {
        let orphans = r
            .all_findings()
            .find(|(_, f)| f.code == Code::RowsOnlyInOrphanFiles)
            .map(|(_, f)| f.files.clone())
            .unwrap();
        assert_eq!(
            r.all_findings()
                .find(|(_, f)| f.code == Code::RowsOnlyInOrphanFiles)
                .unwrap()
                .1
                .severity,
            prv::findings::Severity::Warning
        );
        original
            .files()
            .iter()
            .map(|f| f.path())
            .filter(|p| {
                p.contains("/bucket-")
                    && p.ends_with(".parquet")
                    && !orphans.iter().any(|o| p.ends_with(o))
            })
            .collect()
    };
    assert!(!live.is_empty());
    let damaged = live[0].clone();
    let mut entries = Vec::new();
    for f in original.files() {
        let mut b = original.read(&f.path(), u64::MAX).unwrap();
        if f.path() == damaged {
            b.truncate(b.len() / 2);
        }
        entries.push(Entry::new(&f.path(), b));
    }
    let a = zip_artifact("edited.zip", &entries);
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    let f = r
        .all_findings()
        .find(|(_, f)| f.code == Code::RowsOnlyInOrphanFiles)
        .map(|(_, f)| f)
        .unwrap();
    assert_eq!(f.severity, prv::findings::Severity::Info, "{}", f.message);
    let name = damaged.rsplit('/').next().unwrap();
    assert!(
        f.message.contains("is unknown") && f.message.contains(name),
        "{}",
        f.message
    );
}

/// `max-rows-kept` is a budget for the whole run: each file alone fits in it, together they do
/// not, and what could not be kept is unknown, naming the limit (not absent, not a crash).
#[test]
fn the_rows_kept_budget_is_for_the_whole_run() {
    let name = "j09_crash_parquet";
    let bytes = std::fs::read(fixture(&format!("writers/{name}.zip"))).unwrap();
    let open_with = |max_rows_kept: u64| {
        let limits = prv::Limits {
            max_rows_kept,
            ..prv::Limits::default()
        };
        prv::source::Artifact::open(
            vec![prv::source::Input::Zip {
                name: "w.zip".into(),
                data: std::rc::Rc::new(bytes.clone()),
            }],
            &limits,
        )
        .unwrap()
    };
    // The first table's lost changelog keeps 5 rows (keys 4-6), its later changelog 6 and
    // its live files 3: 14 in all, every file under 7.
    let a = open_with(7);
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    let mut unknown = 0;
    let mut said = false;
    for t in &r.tables {
        let Some(rows) = t
            .findings
            .iter()
            .find(|f| f.code == Code::LostChangelog)
            .and_then(|f| f.rows.as_ref())
        else {
            continue;
        };
        let text = rows.to_string();
        said |= text.contains("max-rows-kept");
        if rows["keysComplete"] == false || rows["unknownKeys"].as_u64() > Some(0) {
            unknown += 1;
        }
        for k in rows["keys"].as_array().unwrap() {
            assert!(
                k["batchState"] == "known" || k.get("batch").is_none(),
                "{k:#}"
            );
        }
    }
    assert!(said, "no evidence names max-rows-kept");
    assert!(unknown >= 4, "{unknown} of 5 tables with unknown evidence");
    assert!(a.rows_kept() <= 7, "{} rows kept", a.rows_kept());
    // With the default budget nothing is unknown.
    let a = open_with(prv::limits::DEFAULT_MAX_ROWS_KEPT);
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    for t in &r.tables {
        for f in t.findings.iter().filter(|f| f.code == Code::LostChangelog) {
            let rows = f.rows.as_ref().unwrap();
            assert_eq!(rows["unknownKeys"], 0, "{}", t.path);
            assert_eq!(rows["keysComplete"], true, "{}", t.path);
        }
    }
}

/// A lost changelog file holding thousands of rows of one key keeps a handful of them (the
/// rows shown), counts the rest, and the run keeps few rows in all (counted, not timed).
#[test]
fn a_changelog_of_one_key_repeated_keeps_only_the_rows_shown() {
    let name = "j09_crash_avro";
    let table = "db.db/avro_null";
    let r = common::report(&fixture(&format!("writers/{name}.zip")));
    let lost_file = lost_rows(&r, table)["files"][0]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let schema = r#"["null",{"type":"record","name":"record","fields":[{"name":"_KEY_id","type":"long"},{"name":"_SEQUENCE_NUMBER","type":"long"},{"name":"_VALUE_KIND","type":"int"},{"name":"id","type":"long"},{"name":"v","type":["null","string"]}]}]"#;
    const N: i64 = 20_000;
    let rows: Vec<Vec<Datum>> = (0..N)
        .map(|i| {
            vec![
                Datum::Long(4),
                Datum::Long(100 + i),
                Datum::Long(2),
                Datum::Long(4),
                Datum::OptStr(format!("x{i}")),
            ]
        })
        .collect();
    let bytes = avro_file(schema, &rows);
    let a = rebuild(name, &|p, b| {
        Some(if p.contains(table) && p.ends_with(&lost_file) {
            bytes.clone()
        } else {
            b
        })
    });
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    let rows = lost_rows(&r, table);
    let k = key(&rows, 4);
    assert_eq!(k["lost"].as_array().unwrap().len(), 8, "{k:#}");
    assert_eq!(k["lostOmitted"], N - 8);
    assert_eq!(k["lost"][0]["row"]["v"], "x0");
    // Every table's evidence together: a few dozen rows, not twenty thousand.
    assert!(a.rows_kept() < 200, "{} rows kept", a.rows_kept());
}

/// Analyses the zip `bytes` opened with `limits`; the report and the evidence bytes the run read.
fn analyse_with(bytes: &[u8], limits: prv::Limits) -> (Report, u64) {
    let a = Artifact::open(
        vec![prv::source::Input::Zip {
            name: "edited.zip".into(),
            data: std::rc::Rc::new(bytes.to_vec()),
        }],
        &limits,
    )
    .unwrap();
    let r = analyze(&a, &AnalysisOptions::default(), &mut |_| {});
    (r, a.evidence_bytes())
}

/// The ids of Ray Data checkpoint files count against the run's `max-rows-kept` all together:
/// each of the three files (25 ids) fits in 60, the three do not; of the file past it only the
/// ids the budget has left are kept, and the limit is named.
#[test]
fn ray_checkpoint_ids_share_the_runs_row_budget() {
    let bytes = std::fs::read(fixture("ray/A_after_taskfail.zip")).unwrap();
    let run = |max_rows_kept: u64| {
        let limits = prv::Limits {
            max_rows_kept,
            ..prv::Limits::default()
        };
        analyse_with(&bytes, limits).0
    };
    let full = run(prv::limits::DEFAULT_MAX_ROWS_KEPT);
    assert_eq!(full.tables[0].ray_checkpoints[0].ids, 75);
    let cut = run(60);
    let cp = &cut.tables[0].ray_checkpoints[0];
    assert_eq!(cp.ids, 60, "{cp:#?}");
    let json = prv::report::json::render(&cut);
    assert!(
        json.contains("limit max-rows-kept"),
        "the limit is not named"
    );
}

/// The row evidence's bytes are budgeted over the whole run (`max-evidence-bytes`): every data
/// and changelog file it opens is charged its size before it is read, across all tables
/// together. With the default budget the evidence of the crashed tables is read; with the
/// budget spent nothing more is read, and the evidence says unknown, naming the limit.
#[test]
fn the_evidence_bytes_budget_is_for_the_whole_run() {
    let bytes = std::fs::read(fixture("writers/j09_dv_crash.zip")).unwrap();
    let run = |max_evidence_bytes: u64| {
        let limits = prv::Limits {
            max_evidence_bytes,
            ..prv::Limits::default()
        };
        let (r, spent) = analyse_with(&bytes, limits);
        (prv::report::json::render(&r), spent)
    };
    let (json, spent) = run(prv::limits::DEFAULT_MAX_EVIDENCE_BYTES);
    assert!(spent > 0, "nothing was charged");
    assert!(
        !json.contains("max-evidence-bytes"),
        "the default budget was reached"
    );
    // Enough for some files, not for all of them: the run stops charging at the budget.
    let (json, cut) = run(spent / 2);
    assert!(
        cut <= spent / 2,
        "{cut} charged past the budget of {}",
        spent / 2
    );
    assert!(
        json.contains("limit max-evidence-bytes"),
        "the limit is not named"
    );
    let (json, none) = run(1);
    assert_eq!(none, 0, "nothing fits in one byte");
    assert!(
        json.contains("limit max-evidence-bytes"),
        "the limit is not named"
    );
}

/// Each distinct deletion-vector range the batch view parses is charged its length to the run's
/// `max-evidence-bytes` before it is parsed (so a million ranges naming one bitmap cannot be
/// parsed a million times for free). `j09_dv_live_crash`'s `dvpad`-like `dvlive_parquet` table
/// (alone here; Java Paimon 0.9) has a committed deletion vector (`index/index-…`, hiding key
/// 2's old row in the top-level file) applied to the batch view of the lost keys. With the
/// default budget the vector is read and applied. With a budget of the lost changelog file and
/// the live files the view reads, and not one byte more, the vector is not read: its note says
/// so, naming the limit, and the batch view is not called exact.
#[test]
fn deletion_vector_ranges_are_charged_to_the_evidence_bytes_budget() {
    let table = "j09_dv_live_crash/db.db/dvlive_parquet/";
    let mut sizes = std::collections::HashMap::new();
    let entries = common::fixture_entries("writers/j09_dv_live_crash.zip", |path, bytes| {
        sizes.insert(path.to_string(), bytes.len() as u64);
        path.starts_with(table).then_some(bytes)
    });
    let bytes = common::zip_bytes(&entries);
    let run = |max_evidence_bytes: u64| {
        let limits = prv::Limits {
            max_evidence_bytes,
            ..prv::Limits::default()
        };
        let (r, _) = analyse_with(&bytes, limits);
        serde_json::from_str::<Value>(&prv::report::json::render(&r)).unwrap()
    };
    let rows_of = |report: &Value| -> Value {
        let f = report["tables"][0]["findings"].as_array().unwrap();
        let lost = f.iter().find(|f| f["code"] == "lost-changelog").unwrap();
        lost["rows"].clone()
    };
    let is_dv_note = |n: &Value| n.as_str().unwrap().starts_with("the deletion vector of ");
    let full = rows_of(&run(prv::limits::DEFAULT_MAX_EVIDENCE_BYTES));
    assert_eq!(full["batchExact"], true, "{full:#}");
    let notes = full["notes"].as_array().unwrap();
    assert!(!notes.iter().any(is_dv_note), "{notes:#?}");
    assert!(
        notes.iter().any(|n| n == "deletion vectors applied"),
        "no live deletion vector in the view: {notes:#?}"
    );
    // The lost changelog files' bytes, and not one byte more.
    let lost_bytes: u64 = full["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| sizes[&format!("{table}{}", f.as_str().unwrap())])
        .sum();
    // Raise the budget by each refused file's bytes (the live data files the batch view reads
    // before it parses their vectors) until the first refusal is a deletion vector's.
    let mut budget = lost_bytes;
    let more = |n: &Value| -> Option<u64> {
        let n = n.as_str()?;
        let (_, rest) = n.split_once(" could not be read: ")?;
        rest.split_once(" more bytes would pass")?.0.parse().ok()
    };
    for _ in 0..10 {
        let cut = rows_of(&run(budget));
        assert_eq!(
            cut["keysComplete"], true,
            "the lost rows were not read: {cut:#}"
        );
        let notes = cut["notes"].as_array().unwrap();
        if notes
            .iter()
            .filter(|n| is_dv_note(n))
            .any(|n| n.as_str().unwrap().contains("max-evidence-bytes"))
        {
            assert_eq!(cut["batchExact"], false, "{cut:#}");
            return;
        }
        match notes.iter().find_map(more) {
            Some(n) => budget += n,
            None => panic!("no deletion vector was cut short: {notes:#?}"),
        }
    }
    panic!("no deletion vector was cut short within ten budgets");
}
