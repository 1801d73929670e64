//! Spark checkpoints beside Paimon warehouses: parsing, pairing and findings.
//!
//! The zips in `tests/fixtures/spark/` hold REAL Spark 4.3 checkpoint files (`metadata`,
//! `offsets/N`, `commits/N`, Hadoop `.crc` files) written by real streaming queries, next to
//! REAL Java Paimon 0.9 warehouses and their real consumer files (see the README there). The
//! source those queries read is a stand-in: the Paimon Spark connector cannot be installed here
//! (no Maven Central), so a Python data source emits the Paimon source's offset fields exactly as
//! `paimon-format.md` §7.1 describes them. Spark stores a Python source's offset as Python's
//! `json.dumps` output (spaces after `:` and `,`); the JVM connector's compact Jackson form is
//! covered by the unit tests in `src/spark/` and, end to end, by the in-memory artifacts below,
//! whose checkpoint files are written by hand in the JVM form (they say so).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeSet;

use common::zipwriter::Entry;
use common::{analyse, fixture, report, run_cli, zip_artifact};
use prv::findings::{
    Code, Report, Severity, SparkCheckpointVerdict, SparkPairingKind, TableReport,
};
use prv::source::Artifact;
use prv::spark::SparkPairing;
use prv::{analyze, AnalysisOptions};

fn spark(name: &str) -> Report {
    report(&fixture(&format!("spark/{name}.zip")))
}

fn codes(r: &Report) -> BTreeSet<&'static str> {
    r.all_findings().map(|(_, f)| f.code.as_str()).collect()
}

fn only_table(r: &Report) -> &TableReport {
    assert_eq!(r.tables.len(), 1);
    &r.tables[0]
}

const SPARK_CODES: &[Code] = &[
    Code::SparkOffsetExpired,
    Code::SparkBatchUncommitted,
    Code::ConsumerAheadOfCheckpoint,
    Code::ConsumerBehindCheckpoint,
    Code::SparkOffsetLegacy,
    Code::SparkInitialScanUnfenced,
    Code::SparkConsumerShared,
    Code::SparkCheckpointUnpaired,
];

/// Every scenario reports what it was made to show, and nothing it must not.
#[test]
fn scenarios_report_what_they_were_made_to_show() {
    let text = std::fs::read_to_string(fixture("spark/scenarios.json")).unwrap();
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut shown = BTreeSet::new();
    for (name, spec) in all.as_object().unwrap() {
        let r = spark(name);
        let got = codes(&r);
        for want in spec["expect"].as_array().unwrap() {
            let want = want.as_str().unwrap();
            assert!(got.contains(want), "{name}: expected {want}, got {got:?}");
            shown.insert(want.to_string());
        }
        for not in spec["expect_not"].as_array().unwrap() {
            let not = not.as_str().unwrap();
            assert!(
                !got.contains(not),
                "{name}: must not report {not}, got {got:?}"
            );
        }
    }
    // Every Spark finding code is shown on a real checkpoint.
    for code in SPARK_CODES {
        assert!(
            shown.contains(code.as_str()),
            "no scenario shows {}",
            code.as_str()
        );
    }
}

/// Adding a checkpoint changes nothing about the warehouse's own findings.
#[test]
fn warehouse_findings_are_those_of_the_warehouse_alone() {
    let text = std::fs::read_to_string(fixture("spark/scenarios.json")).unwrap();
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (name, spec) in all.as_object().unwrap() {
        let with = spark(name);
        let alone = report(&fixture(&format!(
            "warehouses/{}",
            spec["warehouse"].as_str().unwrap()
        )));
        let strip = |r: &Report| -> Vec<(String, String, Code, Option<i64>)> {
            r.tables
                .iter()
                .flat_map(|t| {
                    t.findings
                        .iter()
                        .filter(|f| !SPARK_CODES.contains(&f.code))
                        .map(|f| (t.path.clone(), t.branch.clone(), f.code, f.snapshot))
                })
                .collect()
        };
        assert_eq!(strip(&with), strip(&alone), "{name}");
        let consumers = |r: &Report| -> Vec<(String, Option<i64>, &'static str)> {
            r.tables
                .iter()
                .flat_map(|t| t.consumers.iter())
                .map(|c| (c.id.clone(), c.next_snapshot, c.verdict.as_str()))
                .collect()
        };
        assert_eq!(consumers(&with), consumers(&alone), "{name}");
    }
}

#[test]
fn caught_up_query_in_offset_log_v2_is_safe() {
    let r = spark("b_consumer_caught_up");
    assert_eq!(r.verdict.as_str(), "pass");
    let t = only_table(&r);
    let cp = &t.spark_checkpoints[0];
    assert_eq!(cp.path, "spark-checkpoints/up-to-date-reader");
    assert!(cp.query_id.as_deref().is_some_and(|q| q.len() == 36));
    assert_eq!(
        (cp.last_planned_batch, cp.last_committed_batch),
        (Some(5), Some(5))
    );
    let o = cp.offset.unwrap();
    assert_eq!(
        (o.snapshot_id, o.index, o.scan_snapshot, o.total_splits),
        (6, 0, false, Some(1))
    );
    assert_eq!(cp.resume_snapshot, Some(7));
    assert_eq!(cp.pairing, SparkPairingKind::ConsumerName);
    assert_eq!(cp.consumer.as_deref(), Some("up-to-date-reader"));
    assert_eq!(cp.consumer_next_snapshot, Some(7));
    let e = cp.expected_consumer.unwrap();
    assert_eq!((e.first, e.last), (6, 7));
    assert_eq!(cp.verdict, SparkCheckpointVerdict::Safe);
    // The real file is Spark's v2 offset log with a keyed source line in Python's JSON form.
    let artifact = common::open(&fixture("spark/b_consumer_caught_up.zip"));
    let text = artifact
        .read_text("spark-checkpoints/up-to-date-reader/offsets/5", 1 << 20)
        .unwrap();
    assert!(text.starts_with("v2\n"), "{text}");
    assert!(
        text.contains("\n0:{\"snapshotId\": 6, \"index\": 0"),
        "{text}"
    );
}

#[test]
fn one_batch_of_consumer_lag_is_normal() {
    let r = spark("b_consumer_normal_lag");
    assert_eq!(r.verdict.as_str(), "pass");
    let cp = &only_table(&r).spark_checkpoints[0];
    // Batch 3 ends at snapshot 4 (next 5); its commit callback runs when batch 4 is planned.
    assert_eq!(cp.resume_snapshot, Some(5));
    assert_eq!(cp.consumer_next_snapshot, Some(4));
    assert_eq!(cp.verdict, SparkCheckpointVerdict::Safe);
}

#[test]
fn crash_inside_a_batch_is_an_uncommitted_batch() {
    let r = spark("b_consumer_batch_uncommitted");
    let t = only_table(&r);
    let cp = &t.spark_checkpoints[0];
    assert_eq!(
        (cp.last_planned_batch, cp.last_committed_batch),
        (Some(3), Some(2))
    );
    assert_eq!(cp.planned_offset.unwrap().snapshot_id, 4);
    assert_eq!(cp.verdict, SparkCheckpointVerdict::Uncommitted);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == Code::SparkBatchUncommitted)
        .unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.files, ["spark-checkpoints/lagging-reader/offsets/3"]);
    assert_eq!(f.consumer.as_deref(), Some("lagging-reader"));
}

#[test]
fn offset_below_the_earliest_snapshot_is_expired() {
    let r = spark("b2_offset_expired");
    let t = only_table(&r);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == Code::SparkOffsetExpired)
        .unwrap();
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.snapshot, Some(3));
    assert_eq!(f.related_snapshots, [6]);
    assert!(
        f.message.contains("snapshots 3..5 are never read"),
        "{}",
        f.message
    );
    assert_eq!(
        t.spark_checkpoints[0].verdict,
        SparkCheckpointVerdict::Expired
    );
}

#[test]
fn consumer_ahead_and_behind_the_checkpoint() {
    let r = spark("b_consumer_ahead_of_checkpoint");
    let t = only_table(&r);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == Code::ConsumerAheadOfCheckpoint)
        .unwrap();
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        (f.snapshot, f.related_snapshots.as_slice()),
        (Some(7), &[5][..])
    );
    assert_eq!(
        t.spark_checkpoints[0].verdict,
        SparkCheckpointVerdict::ConsumerAhead
    );

    let r = spark("b_consumer_behind_checkpoint");
    let t = only_table(&r);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == Code::ConsumerBehindCheckpoint)
        .unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        (f.snapshot, f.related_snapshots.as_slice()),
        (Some(4), &[6][..])
    );
}

#[test]
fn offsets_without_total_splits_are_legacy_not_behind() {
    let r = spark("b_consumer_legacy_offsets");
    let t = only_table(&r);
    let cp = &t.spark_checkpoints[0];
    assert_eq!(cp.offset.unwrap().total_splits, None);
    assert_eq!(cp.expected_consumer, None);
    assert_eq!(cp.verdicts, [SparkCheckpointVerdict::Legacy]);
}

#[test]
fn unfinished_initial_scan_without_consumer_is_unfenced() {
    let r = spark("a_initial_scan_unfenced");
    let t = only_table(&r);
    let cp = &t.spark_checkpoints[0];
    assert_eq!(cp.pairing, SparkPairingKind::NoConsumer);
    assert_eq!(cp.consumer, None);
    let o = cp.offset.unwrap();
    assert!(o.scan_snapshot);
    assert_eq!((o.snapshot_id, o.index, o.total_splits), (8, 1, Some(4)));
    // A restart must finish snapshot 8's full scan.
    assert_eq!(cp.resume_snapshot, Some(8));
    assert_eq!(cp.verdict, SparkCheckpointVerdict::InitialScanUnfenced);
}

#[test]
fn two_checkpoints_sharing_a_consumer() {
    let r = spark("b_consumer_shared");
    let t = only_table(&r);
    assert_eq!(t.spark_checkpoints.len(), 2);
    let shared: Vec<_> = t
        .findings
        .iter()
        .filter(|f| f.code == Code::SparkConsumerShared)
        .collect();
    assert_eq!(shared.len(), 1);
    assert_eq!(shared[0].files.len(), 2);
    // job-b committed only up to snapshot 4: the shared consumer (7) is past it.
    let b = t
        .spark_checkpoints
        .iter()
        .find(|c| c.path.contains("job-b"))
        .unwrap();
    assert_eq!(
        b.verdicts,
        [
            SparkCheckpointVerdict::ConsumerAhead,
            SparkCheckpointVerdict::Shared
        ]
    );
}

#[test]
fn several_tables_are_not_guessed_and_a_user_pairing_resolves_them() {
    let path = fixture("spark/multi_table_unpaired.zip");
    let r = report(&path);
    assert!(r.tables.iter().all(|t| t.spark_checkpoints.is_empty()));
    let f = r
        .findings
        .iter()
        .find(|f| f.code == Code::SparkCheckpointUnpaired)
        .unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.files, ["spark-checkpoints/orders-etl"]);

    let artifact = common::open(&path);
    let orders = "java09_multi_table_branch_consumer/db.db/orders";
    let options = AnalysisOptions {
        spark_pairings: vec![
            format!("spark-checkpoints/orders-etl={orders}#orders-reader")
                .parse()
                .unwrap(),
        ],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    assert!(
        !codes(&r).contains("spark-checkpoint-unpaired"),
        "{:?}",
        codes(&r)
    );
    assert_eq!(r.verdict.as_str(), "pass");
    let t = r
        .tables
        .iter()
        .find(|t| t.path == orders && t.branch == "main")
        .unwrap();
    let cp = &t.spark_checkpoints[0];
    assert_eq!(cp.pairing, SparkPairingKind::User);
    assert_eq!(
        (cp.resume_snapshot, cp.consumer_next_snapshot),
        (Some(9), Some(9))
    );

    // A branch is named by its directory.
    let options = AnalysisOptions {
        spark_pairings: vec![format!(
            "spark-checkpoints/orders-etl={orders}/branch/branch-audit#audit-reader"
        )
        .parse()
        .unwrap()],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    let t = r.tables.iter().find(|t| t.branch == "audit").unwrap();
    assert_eq!(t.spark_checkpoints.len(), 1);

    // A pairing that names nothing is an error finding (the CLI refuses it before analysing).
    let options = AnalysisOptions {
        spark_pairings: vec!["spark-checkpoints/nope=db.db/none".parse().unwrap()],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    assert!(r
        .findings
        .iter()
        .any(|f| f.code == Code::SparkCheckpointUnpaired && f.severity == Severity::Error));
    let problems = prv::spark::pairing_problems(
        &artifact,
        &["spark-checkpoints/nope=db.db/none"
            .parse::<SparkPairing>()
            .unwrap()],
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
}

// ---------------------------------------------------------------------------------------------
// In-memory artifacts: a real warehouse zip's entries plus checkpoint files. Where the files are
// written here rather than by Spark, the test says so.
// ---------------------------------------------------------------------------------------------

/// The entries of a fixture zip, with their paths.
fn entries_of(rel: &str) -> Vec<(String, Vec<u8>)> {
    let a = common::open(&fixture(rel));
    a.files()
        .iter()
        .map(|f| (f.path(), a.read_entry(f, 1 << 30).unwrap()))
        .collect()
}

fn artifact_of(entries: Vec<(String, Vec<u8>)>) -> Artifact {
    let zip_entries: Vec<Entry> = entries
        .into_iter()
        .map(|(p, b)| Entry::new(&p, b))
        .collect();
    zip_artifact("combined.zip", &zip_entries)
}

/// WRITTEN BY HAND in the JVM connector's form (paimon-format.md §7.1: Jackson's compact JSON, a
/// v1 log, one line per source): a query over db.events that committed batches up to snapshot 6
/// and planned batch 6 (ends at a snapshot the table does not have yet, 7 split 1 of 2).
fn jvm_checkpoint(dir: &str) -> Vec<(String, Vec<u8>)> {
    let meta = r#"{"batchWatermarkMs":0,"batchTimestampMs":1796027500000,"conf":{"spark.sql.shuffle.partitions":"200"}}"#;
    let mut out = vec![(
        format!("{dir}/metadata"),
        br#"{"id":"00000000-0000-0000-0000-00000000jvm1"}"#.to_vec(),
    )];
    for (batch, snapshot) in [(4, 5), (5, 6)] {
        out.push((
            format!("{dir}/offsets/{batch}"),
            format!("v1\n{meta}\n{{\"snapshotId\":{snapshot},\"index\":0,\"scanSnapshot\":false,\"totalSplits\":1}}").into_bytes(),
        ));
        out.push((
            format!("{dir}/commits/{batch}"),
            b"v1\n{\"nextBatchWatermarkMs\":0}".to_vec(),
        ));
    }
    out.push((
        format!("{dir}/offsets/6"),
        format!(
            "v1\n{meta}\n{{\"snapshotId\":7,\"index\":0,\"scanSnapshot\":false,\"totalSplits\":2}}"
        )
        .into_bytes(),
    ));
    out
}

#[test]
fn jvm_form_checkpoint_end_to_end() {
    let mut entries = entries_of("warehouses/java09_b_consumer.zip");
    entries.extend(jvm_checkpoint("ckpt/up-to-date-reader"));
    let r = analyse(&artifact_of(entries));
    let t = only_table(&r);
    let cp = &t.spark_checkpoints[0];
    assert_eq!(
        cp.query_id.as_deref(),
        Some("00000000-0000-0000-0000-00000000jvm1")
    );
    assert_eq!(
        (cp.last_planned_batch, cp.last_committed_batch),
        (Some(6), Some(5))
    );
    assert_eq!(cp.resume_snapshot, Some(7));
    // The planned batch 6 ran the callback of batch 5: consumer 7 is exact.
    assert_eq!(cp.verdicts, [SparkCheckpointVerdict::Uncommitted]);
}

#[test]
fn pairing_rules() {
    let base = entries_of("warehouses/java09_b_consumer.zip");
    let ckpt = |dir: &str| jvm_checkpoint(dir);

    // Several consumers, none named like the directory: the table is paired, the consumer is
    // not guessed, and the report says so.
    let mut e = base.clone();
    e.extend(ckpt("ckpt/etl"));
    let r = analyse(&artifact_of(e));
    let t = only_table(&r);
    assert_eq!(
        t.spark_checkpoints[0].pairing,
        SparkPairingKind::ConsumerUnknown
    );
    assert_eq!(t.spark_checkpoints[0].consumer, None);
    assert!(t
        .findings
        .iter()
        .any(|f| f.code == Code::SparkCheckpointUnpaired && f.severity == Severity::Warning));

    // The only consumer (the other consumer file left out of the artifact BY THIS TEST).
    let mut e: Vec<_> = base
        .iter()
        .filter(|(p, _)| !p.ends_with("consumer-up-to-date-reader"))
        .cloned()
        .collect();
    e.extend(ckpt("ckpt/etl"));
    let r = analyse(&artifact_of(e));
    let cp = &only_table(&r).spark_checkpoints[0];
    assert_eq!(cp.pairing, SparkPairingKind::OnlyConsumer);
    assert_eq!(cp.consumer.as_deref(), Some("lagging-reader"));

    // A consumer named like the directory in one of several tables.
    let mut e = entries_of("warehouses/java09_multi_table_branch_consumer.zip");
    e.extend(ckpt("ckpt/customers-reader"));
    let r = analyse(&artifact_of(e));
    let t = r
        .tables
        .iter()
        .find(|t| !t.spark_checkpoints.is_empty())
        .unwrap();
    assert!(t.path.ends_with("customers"));
    assert_eq!(
        t.spark_checkpoints[0].pairing,
        SparkPairingKind::ConsumerName
    );

    // A query that reads no Paimon source (e.g. Kafka into Paimon) is left alone.
    let mut e = base.clone();
    e.push((
        "ckpt/kafka/offsets/0".into(),
        b"v1\n{}\n{\"events\":{\"0\":17}}".to_vec(),
    ));
    let r = analyse(&artifact_of(e));
    assert!(only_table(&r).spark_checkpoints.is_empty());
    assert!(r
        .findings
        .iter()
        .any(|f| f.code == Code::SparkCheckpointUnpaired && f.severity == Severity::Info));
}

#[test]
fn broken_checkpoint_files_never_panic() {
    let base = entries_of("warehouses/java09_b_consumer.zip");
    let mut e = base.clone();
    for (p, b) in [
        ("ckpt/lagging-reader/metadata", b"{oops".to_vec()),
        ("ckpt/lagging-reader/offsets/0", b"".to_vec()),
        (
            "ckpt/lagging-reader/offsets/1",
            b"v1\n{}\n{\"snapshotId\":\"x\",\"index\":0}".to_vec(),
        ),
        ("ckpt/lagging-reader/offsets/2", vec![0xff, 0xfe]),
        ("ckpt/lagging-reader/commits/0", b"garbage".to_vec()),
        (
            "ckpt/lagging-reader/commits/1",
            b"v1\n{\"nextBatchWatermarkMs\":0}".to_vec(),
        ),
        ("ckpt/lagging-reader/offsets/.1.crc", b"\0\0".to_vec()),
        (
            "ckpt/lagging-reader/offsets/99999999999999999999",
            b"v1".to_vec(),
        ),
    ] {
        e.push((p.to_string(), b));
    }
    let r = analyse(&artifact_of(e));
    let unreadable = r
        .findings
        .iter()
        .filter(|f| f.code == Code::UnreadableFile)
        .count();
    assert!(unreadable >= 3, "{:#?}", r.findings);
}

// ---------------------------------------------------------------------------------------------
// The CLI flag.
// ---------------------------------------------------------------------------------------------

#[test]
fn cli_spark_checkpoint_flag() {
    let zip = fixture("spark/multi_table_unpaired.zip");
    let zip = zip.to_str().unwrap();
    let orders = "java09_multi_table_branch_consumer/db.db/orders";
    let pairing = format!("spark-checkpoints/orders-etl={orders}#orders-reader");
    let (code, out, _) = run_cli(&[
        "check",
        zip,
        "--format",
        "json",
        "--fail-on",
        "warning",
        "--spark-checkpoint",
        &pairing,
    ]);
    assert_eq!(code, 0, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["path"] == orders && t["branch"] == "main")
        .unwrap();
    assert_eq!(t["sparkCheckpoints"][0]["pairing"], "user");
    assert_eq!(t["sparkCheckpoints"][0]["verdict"], "safe");
    // Tables without checkpoints keep the contract's shape: no sparkCheckpoints key at all.
    assert!(json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["path"] != orders || t["branch"] != "main")
        .all(|t| t.get("sparkCheckpoints").is_none()));

    // Without it: warning for the unpaired checkpoint.
    assert_eq!(run_cli(&["check", zip, "--fail-on", "warning"]).0, 1);

    for bad in ["no-equals-sign", "=table", "dir=", "dir=table#"] {
        let (code, _, err) = run_cli(&["check", zip, "--spark-checkpoint", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--spark-checkpoint"), "{bad}: {err}");
    }
    let (code, _, err) = run_cli(&[
        "check",
        zip,
        "--spark-checkpoint",
        "spark-checkpoints/x=db.db/y",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("spark-checkpoints/x is not a Spark checkpoint directory"),
        "{err}"
    );
    assert!(err.contains("spark-checkpoints/orders-etl"), "{err}");
    assert!(err.contains("db.db/y is not a table"), "{err}");
}
