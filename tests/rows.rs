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

use common::{fixture, open, report, table_findings, zip_artifact};
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
    zip_artifact("edited.zip", &common::fixture_entries(name, edit))
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
    // the one reason, without a `{"more": 0}` after it
    assert_eq!(
        k6["batchUnknownBecause"],
        json!([{"file": "bucket-0/data-9441da9f-6963-462e-8282-2d2d7d05755a-1.parquet",
                "problem": "not in the artifact", "reason": "missing"}])
    );
    for (k, v) in keys.iter().zip(["r4", "r5"]) {
        assert_eq!(k["batchState"], "known", "{k:#}");
        assert_eq!(k["batch"]["v"], v, "{k:#}");
    }
    assert_eq!(rows["unknownKeys"], 1);
}

const LONG_RUN: &str = "warehouses/java09_lost_then_long_run.zip";

/// Key 2's evidence in the long run after a loss (`java09_lost_then_long_run`: keys 2-4 lost
/// their changelog at snapshot 5, then 69 COMPACTs, snapshots 7, 9, …, 143, each delivered
/// changelog for them in bucket-0), the section's notes, and the report in Markdown.
fn long_run_key_2(artifact: &Artifact) -> (Value, Vec<String>, String) {
    let r = analyze(artifact, &AnalysisOptions::default(), &mut |_| {});
    let rows = lost(&r).rows.clone().unwrap();
    let notes = rows["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let k = rows["keys"][0].clone();
    assert_eq!(k["key"], json!({"id": 2}));
    (k, notes, prv::report::markdown::render(&r))
}

/// A job that ran long after the loss: the first 64 later changelog files are read, the note
/// says up to which snapshot, and the 5 others are named as not read (past the cap, on
/// purpose), not as unreadable. The key shows its first 8 delivered records and counts the
/// other 120 (64 snapshots × `-U`/`+U`); its batch value is known.
#[test]
fn a_long_run_after_the_loss_reads_the_first_later_changelog_and_names_the_rest() {
    let (k, notes, md) = long_run_key_2(&open(&fixture(LONG_RUN)));
    assert_eq!(
        notes,
        ["69 later changelog files in these buckets: only the first 64 (up to snapshot 133) were read"]
    );
    let delivered = k["delivered"].as_array().unwrap();
    assert_eq!(delivered.len(), 8);
    assert_eq!(
        delivered[..2],
        [
            json!({"snapshot": 7, "kind": "-U", "row": {"id": 2, "v": "r2"}}),
            json!({"snapshot": 7, "kind": "+U", "row": {"id": 2, "v": "r4"}})
        ]
    );
    assert_eq!(k["deliveredOmitted"], 120);
    assert_eq!(k["deliveredState"], "unknown");
    let because = k["deliveredUnknownBecause"].as_array().unwrap();
    assert_eq!(because.len(), 5, "four named, then the count: {because:#?}");
    assert_eq!(because[0]["snapshot"], 135);
    assert_eq!(because[0]["reason"], "capped");
    assert_eq!(
        because[0]["problem"],
        "not read: more than 64 later changelog files"
    );
    assert_eq!(because[4], json!({"more": 1}));
    assert_eq!(
        (k["batchState"].as_str(), &k["batch"]),
        (Some("known"), &json!({"id": 2, "v": "r72"}))
    );
    assert!(md.contains("was not read (+4 more)"), "{md}");
    assert!(!md.contains("could not be read"), "{md}");
}

/// A later changelog file missing from the artifact (an upload that lost it: a hand edit of
/// the real warehouse) makes its bucket's delivered changelog unknown, says the file is not in
/// the artifact, and names it first.
#[test]
fn a_later_changelog_file_missing_from_the_artifact_makes_delivered_unknown() {
    // snapshot 7's changelog file (its changelog manifest list's one entry, read with fastavro),
    // which delivered key 2's first records
    const SEVEN: &str = "bucket-0/changelog-6a1ff326-f5ad-4d7c-bcd5-6e7e90dab3ed-1.parquet";
    let a = rebuild(LONG_RUN, &|path, bytes| {
        (!path.ends_with(SEVEN)).then_some(bytes)
    });
    let (k, notes, md) = long_run_key_2(&a);
    assert_eq!(
        notes[0],
        "changelog file changelog-6a1ff326-f5ad-4d7c-bcd5-6e7e90dab3ed-1.parquet of snapshot 7 is not in the artifact"
    );
    assert_eq!(
        k["deliveredUnknownBecause"][0],
        json!({"snapshot": 7, "file": SEVEN, "problem": "not in the artifact", "reason": "missing"})
    );
    // what the files read delivered is still shown, from snapshot 9 on
    assert_eq!(k["delivered"][0]["snapshot"], 9);
    assert!(
        md.contains("unknown: changelog-6a1ff326-f5ad-4d7c-bcd5-6e7e90dab3ed-1.parquet is not in the artifact (+"),
        "{md}"
    );
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

const ABANDONED: &str = "warehouses/java09_abandoned_rows.zip";

/// A primary-key table whose writer prepared keys 10-15 and halted before its commit; the
/// restarted writer deleted 12-13 and upserted 14-15 (`java09_abandoned_rows`, `db.abandoned`,
/// Java Paimon 0.9). The abandoned files' rows are compared by primary key across both bucket
/// directories: 10-11 exist only there (a warning), 12-13 were deleted since (counted apart),
/// 14-15 are in snapshot 3.
#[test]
fn rows_of_an_abandoned_commit_are_compared_by_primary_key_and_later_deletions_counted() {
    let r = report(&fixture(ABANDONED));
    let found = table_findings(&r, "db.db/abandoned", Code::RowsOnlyInOrphanFiles);
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.severity, prv::findings::Severity::Warning);
    assert!(f.message.starts_with("2 keys (id 10..11) exist only in 2 unreferenced data files written before snapshot 3, which does not hold them"), "{}", f.message);
    assert_eq!(
        f.evidence,
        [
            "2 unreferenced data files written before snapshot 3 hold 6 distinct keys; snapshot 3 lacks 4",
            "rows compared by primary key",
            "2 of them deleted later (the last record of the key is a retraction)",
        ]
    );
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["ranges"], json!([[10, 11]]));
    assert_eq!(rows["deleted"], 2);
    assert!(f.related_snapshots.is_empty(), "no OVERWRITE: {f:#?}");
}

/// A bucket rescale (`ALTER TABLE SET bucket=4`, then INSERT OVERWRITE of keys 0-16) after a
/// writer prepared keys 10-17 in the 2-bucket layout and halted (`java09_abandoned_rows`,
/// `db.rescaled`): keys 10-16 are in snapshot 4, some in bucket directories the abandoned files
/// are not in; only key 17 is missing, and only the OVERWRITE after the files (snapshot 4, not
/// snapshot 3 before them) may have dropped it on purpose: info, not a warning.
#[test]
fn a_key_a_rescale_moved_to_another_bucket_is_not_said_to_be_missing() {
    let r = report(&fixture(ABANDONED));
    let found = table_findings(&r, "db.db/rescaled", Code::RowsOnlyInOrphanFiles);
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.severity, prv::findings::Severity::Info);
    assert!(f.message.starts_with("1 key (id 17) exists only in 1 unreferenced data file written before snapshot 4, which does not hold it:"), "{}", f.message);
    assert_eq!(f.rows.as_ref().unwrap()["ranges"], json!([[17, 17]]));
    assert_eq!(f.related_snapshots, [4]);
    assert!(
        f.evidence.iter().any(|e| e
            == "OVERWRITE snapshot 4 came after these files were written: the rows may have been replaced on purpose"),
        "{:#?}",
        f.evidence
    );
    assert!(
        f.evidence.iter().any(|e| e.starts_with("2 unreferenced data files written before snapshot 4 hold 8 distinct keys; snapshot 4 lacks 1")),
        "{:#?}",
        f.evidence
    );
}
