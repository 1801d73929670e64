//! Row-level evidence of lost changelog: the keys whose changelog was lost, read from the real
//! Java Paimon 0.9 crash warehouses (`java09_d…`: a lookup table whose COMPACT half of
//! checkpoint 4 was never committed), per key: the lost changelog rows, what later committed
//! changelog delivered, and the batch value now.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

/// Replaces (`Some`) or drops (`None`) an entry's bytes.
type Edit = dyn Fn(&str, Vec<u8>) -> Option<Vec<u8>>;

use common::zipwriter::Entry;
use common::{fixture, open, report, zip_artifact};
use prv::findings::{Code, Finding, Report};
use prv::source::Artifact;
use prv::{analyze, AnalysisOptions};
use serde_json::{json, Value};

const LOST: &str = "bucket-0/changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet";

fn lost(r: &Report) -> &Finding {
    r.all_findings()
        .map(|(_, f)| f)
        .find(|f| f.code == Code::LostChangelog)
        .expect("a lost-changelog finding")
}

fn row(id: i64, v: &str) -> Value {
    json!({"id": id, "v": v})
}

fn lost_rows(rows: &[(&str, i64, &str)]) -> Value {
    Value::Array(
        rows.iter()
            .map(|(k, id, v)| json!({"kind": k, "row": row(*id, v), "file": LOST}))
            .collect(),
    )
}

fn delivered(rows: &[(i64, &str, i64, &str)]) -> Value {
    Value::Array(
        rows.iter()
            .map(|(s, k, id, v)| json!({"snapshot": s, "kind": k, "row": row(*id, v)}))
            .collect(),
    )
}

/// After recovery and two more checkpoints: the intermediate values r4 of keys 5 and 6 were
/// never delivered; snapshot 9's compaction delivered r3 → r5 (key 5) and r5 (key 6) instead,
/// and for key 4 it happened to deliver the same change r3 → r4.
#[test]
fn crash_between_append_and_compact_lost_the_intermediate_values() {
    let r = report(&fixture(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
    ));
    let f = lost(&r);
    assert_eq!(f.snapshot, Some(7));
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["omitted"], 0);
    assert_eq!(rows["batchSnapshot"], 11);
    assert_eq!(rows["batchExact"], true);
    assert_eq!(rows["files"], json!([LOST]));
    assert_eq!(rows["notes"], json!([]));
    let keys = rows["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 3);
    let expected = [
        (
            4,
            "r4",
            delivered(&[(9, "-U", 4, "r3"), (9, "+U", 4, "r4")]),
            lost_rows(&[("-U", 4, "r3"), ("+U", 4, "r4")]),
        ),
        (
            5,
            "r5",
            delivered(&[(9, "-U", 5, "r3"), (9, "+U", 5, "r5")]),
            lost_rows(&[("-U", 5, "r3"), ("+U", 5, "r4")]),
        ),
        (
            6,
            "r6",
            delivered(&[(9, "+I", 6, "r5"), (11, "-U", 6, "r5"), (11, "+U", 6, "r6")]),
            lost_rows(&[("+I", 6, "r4")]),
        ),
    ];
    for (k, (id, batch, d, l)) in keys.iter().zip(expected) {
        assert_eq!(k["bucket"], "bucket-0");
        assert_eq!(k["key"], json!({"id": id}));
        assert_eq!(k["batch"], row(id, batch), "key {id}");
        assert_eq!(k["delivered"], d, "key {id}");
        assert_eq!(k["lost"], l, "key {id}");
        assert!(k.get("tie").is_none());
    }
}

/// Right after the crash: nothing delivered yet; the batch view (snapshot 7, the APPEND's
/// level-0 file merged over the compacted ones) already holds r4.
#[test]
fn state_right_after_the_crash() {
    let r = report(&fixture("warehouses/java09_d0_state_right_after_crash.zip"));
    let rows = lost(&r).rows.clone().unwrap();
    assert_eq!(rows["batchSnapshot"], 7);
    let keys = rows["keys"].as_array().unwrap();
    let ids: Vec<i64> = keys
        .iter()
        .map(|k| k["key"]["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [4, 5, 6]);
    for k in keys {
        assert_eq!(k["delivered"], json!([]));
        assert_eq!(k["batch"]["v"], "r4");
    }
}

/// The page asks for the same rows on demand from a report built without them.
#[test]
fn rows_on_demand_match_the_report() {
    let path = fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let artifact = open(&path);
    let with = prv::run(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let options = AnalysisOptions {
        skip_rows: true,
        ..AnalysisOptions::default()
    };
    let without = prv::run(&artifact, &options, &mut |_| {});
    assert!(lost(&without.report).rows.is_none());
    let table = &without.report.tables[0];
    let on_demand = without
        .lost_changelog_rows(&artifact, &table.path, &table.branch, 7)
        .unwrap();
    assert_eq!(Some(&on_demand), lost(&with.report).rows.as_ref());
    assert!(without
        .lost_changelog_rows(&artifact, &table.path, &table.branch, 8)
        .is_none());
    assert!(without
        .lost_changelog_rows(&artifact, "nowhere", "main", 7)
        .is_none());
}

fn rebuild(name: &str, edit: &Edit) -> Artifact {
    let original = open(&fixture(name));
    let mut entries = Vec::new();
    for f in original.files() {
        let bytes = original.read(&f.path(), u64::MAX).unwrap();
        if let Some(b) = edit(&f.path(), bytes) {
            entries.push(Entry::new(&f.path(), b));
        }
    }
    zip_artifact("edited.zip", &entries)
}

/// A damaged changelog file is a note in `rows`; the file-level finding stands.
#[test]
fn an_unreadable_changelog_file_is_a_note() {
    let artifact = rebuild(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        &|path, bytes| {
            if path.ends_with(LOST) {
                let mut b = bytes;
                b.truncate(b.len() - 3);
                Some(b)
            } else {
                Some(bytes)
            }
        },
    );
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let f = lost(&r);
    assert_eq!(f.snapshot, Some(7));
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["keys"], json!([]));
    let notes = rows["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("{LOST} could not be read")),
        "{notes:?}"
    );
}

/// A live file missing from the artifact makes the batch view approximate, says which, and
/// makes the batch value of its bucket's keys unknown (not the value of an older file).
#[test]
fn a_missing_live_file_makes_the_batch_view_approximate() {
    let artifact = rebuild(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        &|path, bytes| {
            (!path.ends_with("data-9441da9f-6963-462e-8282-2d2d7d05755a-1.parquet"))
                .then_some(bytes)
        },
    );
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let rows = lost(&r).rows.clone().unwrap();
    assert_eq!(rows["batchExact"], false);
    assert!(rows["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .contains("data-9441da9f-6963-462e-8282-2d2d7d05755a-1.parquet")));
    // Key 6's latest value r6 lived in the missing file: reading the rest would say r5, a
    // guess. Key 6 is unknown, because of the named file; keys 4 and 5 lie outside the missing
    // file's key range (its manifest entry's min/max key), so their values are known.
    let keys = rows["keys"].as_array().unwrap();
    let k6 = &keys[2];
    assert_eq!(k6["key"]["id"], 6);
    assert_eq!(k6["batchState"], "unknown", "{k6:#}");
    assert!(k6.get("batch").is_none(), "{k6:#}");
    assert_eq!(
        k6["batchUnknownBecause"][0],
        json!({"file": "bucket-0/data-9441da9f-6963-462e-8282-2d2d7d05755a-1.parquet",
               "problem": "not in the artifact"})
    );
    for (k, v) in keys.iter().zip(["r4", "r5"]) {
        assert_eq!(k["batchState"], "known", "{k:#}");
        assert_eq!(k["batch"]["v"], v, "{k:#}");
    }
    assert_eq!(rows["unknownKeys"], 1);
}

/// The Markdown shows the per-key table in a `<details>`, the text report one line per key.
#[test]
fn reports_show_the_per_key_table() {
    let r = report(&fixture(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
    ));
    let md = prv::report::markdown::render(&r);
    assert!(md.contains("| Key | Batch value now | Changelog delivered | Changelog lost |"));
    assert!(md.contains("| id=5 | v=r5 | snapshot 9: -U v=r3, +U v=r5 | -U v=r3, +U v=r4 |"));
    let text = prv::report::text::render(&r);
    assert!(text.contains(
        "id=6 | batch v=r6 | delivered snapshot 9: +I v=r5; snapshot 11: -U v=r5, +U v=r6 | lost +I v=r4"
    ));
}
