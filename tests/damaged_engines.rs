//! Engine checkpoints and the comparisons built on them, against damaged inputs (issue 21,
//! "False claims from damaged inputs" and the whole-run budget of Ray checkpoint ids).
//!
//! Every artifact here is a real fixture (`tests/fixtures/ray/`, `tests/fixtures/spark/`, see
//! their READMEs) with ONE entry damaged BY THIS TEST, by hand: a data file replaced by bytes
//! that are not Parquet, or an `offsets/N` file cut short. Nothing else is changed; zip times
//! are kept where the checks depend on them (orphan ages).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::rc::Rc;

use common::zipwriter::Entry;
use common::{analyse, fixture, open, zip_bytes};
use prv::findings::{Code, Finding, Report, Severity, SparkCheckpointVerdict};
use prv::source::{Artifact, FileTime, Input};
use prv::Limits;

/// Replaces (`Some`) or drops (`None`) an entry's bytes.
type Edit<'a> = dyn Fn(&str, Vec<u8>) -> Option<Vec<u8>> + 'a;

/// The entries of fixture `rel` with `edit` applied (`None` drops an entry), zip times kept,
/// opened with `limits`.
fn rebuild(rel: &str, limits: &Limits, edit: &Edit<'_>) -> Artifact {
    let original = open(&fixture(rel));
    let mut entries = Vec::new();
    for f in original.files() {
        let bytes = original.read(&f.path(), u64::MAX).unwrap();
        if let Some(b) = edit(&f.path(), bytes) {
            let mut e = Entry::new(&f.path(), b);
            if let Some(FileTime::ZipLocal(ms)) = f.modified() {
                e.dos_time = common::zipwriter::dos_time(ms / 1000);
            }
            entries.push(e);
        }
    }
    Artifact::open(
        vec![Input::Zip {
            name: "damaged.zip".into(),
            data: Rc::new(zip_bytes(&entries)),
        }],
        limits,
    )
    .unwrap()
}

/// Fixture `rel` with the entry ending in `file` replaced by `bytes`, default limits.
fn damaged(rel: &str, file: &str, bytes: &[u8]) -> Artifact {
    rebuild(rel, &Limits::default(), &|p, b| {
        Some(if p.ends_with(file) { bytes.to_vec() } else { b })
    })
}

fn find(r: &Report, code: Code) -> Vec<&Finding> {
    r.all_findings()
        .filter(|(_, f)| f.code == code)
        .map(|(_, f)| f)
        .collect()
}

fn all(r: &Report) -> Vec<&Finding> {
    r.all_findings().map(|(_, f)| f).collect()
}

// ---------------------------------------------------------------------------------------------
// Ray: a live data file that cannot be read.
// ---------------------------------------------------------------------------------------------

/// A live data file of snapshot 2 in `C_after_resume_safe.zip`: 25 of the ids the four
/// unreferenced files (the failed commit's) also hold.
const C_LIVE: &str = "data-9ef68c5f-61fe-446a-b6ad-18a730fe7a0a-0.parquet";

#[test]
fn an_unreadable_live_file_makes_orphan_rows_unknown_not_a_warning() {
    let a = damaged("ray/C_after_resume_safe.zip", C_LIVE, b"not parquet at all");
    let r = analyse(&a);
    let f = find(&r, Code::RowsOnlyInOrphanFiles);
    // The ids of the damaged file cannot be told present or absent: never a warning that they
    // exist only in unreferenced files.
    assert!(f.iter().all(|f| f.severity < Severity::Warning), "{f:#?}");
    assert_eq!(
        f.len(),
        1,
        "the comparison is kept, as unknown: {:#?}",
        all(&r)
    );
    let f = f[0];
    assert!(f.message.contains("unknown"), "{}", f.message);
    assert!(f.message.contains(C_LIVE), "names the file: {}", f.message);
    assert!(
        f.message.contains("magic") || f.message.contains("Parquet"),
        "names the problem: {}",
        f.message
    );
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["batchExact"], false);
    assert_eq!(rows["known"], false, "{rows:#}");
    assert!(rows["unknownBecause"][0].as_str().unwrap().contains(C_LIVE));
    assert_eq!(r.verdict.as_str(), "pass", "unknown is not a failure");
    // Every rendering says it: the ids' line is marked unknown, not listed as missing.
    let md = prv::report::markdown::render(&r);
    assert!(
        md.contains("unknown whether the latest snapshot holds them"),
        "{md}"
    );
}

/// The delta manifest list of snapshot 2, the latest of `C_after_resume_safe.zip`.
const C_LATEST_DELTA: &str = "manifest/manifest-list-4fb902c5-76a0-441c-8008-6f419393fa38-1";

/// The one manifest that list names (read with fastavro): the 4 data files snapshot 2 adds.
const C_LATEST_DELTA_MANIFEST: &str = "manifest/manifest-4798185b-cd75-4b8d-bd90-a1657eba6932-0";

/// The one manifest snapshot 2's base list names (read with fastavro): snapshot 1's file.
const C_LATEST_BASE_MANIFEST: &str = "manifest/manifest-23ec2d40-9b81-455c-996c-021462588760-0";

/// When the latest snapshot's file list cannot be read (its delta manifest list, or a manifest
/// its delta or base list names), which files are unreferenced cannot be told either (the list may name
/// them): no rows are said to be only in unreferenced files, not even as unknown; the
/// unreadable file is its own finding.
#[test]
fn an_unreadable_latest_file_list_says_nothing_of_rows_in_unreferenced_files() {
    for damaged in [
        C_LATEST_DELTA,
        C_LATEST_DELTA_MANIFEST,
        C_LATEST_BASE_MANIFEST,
    ] {
        unreadable_latest_file_list(damaged);
    }
}

fn unreadable_latest_file_list(file: &str) {
    let a = damaged("ray/C_after_resume_safe.zip", file, b"not avro");
    let r = analyse(&a);
    assert!(
        find(&r, Code::RowsOnlyInOrphanFiles).is_empty(),
        "{:#?}",
        all(&r)
    );
    assert!(
        find(&r, Code::UnreadableFile)
            .iter()
            .any(|f| f.files.iter().any(|p| p.ends_with(file))),
        "{:#?}",
        all(&r)
    );
    // nor any other claim about the files the unreadable list may name (before this was
    // fixed, snapshot 2's own six data files were "unreferenced" and a warning said its 100
    // rows existed only in them)
    assert!(
        all(&r)
            .iter()
            .all(|f| f.code == Code::UnreadableFile || f.severity < Severity::Warning),
        "{:#?}",
        all(&r)
    );
    // What snapshot 2 itself added is known unless its delta list is what is damaged: a damaged
    // base list hides the live set, not the commit's own files.
    let json: serde_json::Value =
        serde_json::from_str(&prv::report::json::render(&r)).expect("the report's JSON");
    let files = &json["tables"][0]["snapshots"][1]["files"];
    assert_eq!(json["tables"][0]["snapshots"][1]["id"], 2);
    assert_eq!(
        files.is_null(),
        file != C_LATEST_BASE_MANIFEST,
        "{file}: {files}"
    );
}

#[test]
fn an_unreadable_live_file_makes_checkpointed_ids_unknown_not_missing() {
    // A_after_taskfail: the checkpoint marks 0..74 done; the seed snapshot's only data file is
    // damaged, so whether snapshot 1 holds them cannot be told.
    let a = damaged(
        "ray/A_after_taskfail.zip",
        "data-b21daf82-4d73-4e20-9752-04d0af36e002-0.parquet",
        b"not parquet at all",
    );
    let r = analyse(&a);
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f.len(), 1);
    let f = f[0];
    assert!(f.severity < Severity::Error);
    assert!(
        !f.message.contains("skips them for good"),
        "no confident claim: {}",
        f.message
    );
    assert!(f.message.contains("unknown"), "{}", f.message);
    assert!(
        f.message
            .contains("data-b21daf82-4d73-4e20-9752-04d0af36e002-0.parquet"),
        "{}",
        f.message
    );
    assert_eq!(f.rows.as_ref().unwrap()["known"], false);
    // The checkpoint's summary does not count them as missing either.
    let cp = &r.tables[0].ray_checkpoints[0];
    assert!(
        cp.missing_unknown_because
            .as_deref()
            .is_some_and(|w| w.contains("data-b21daf82")),
        "{cp:#?}"
    );
    let text = prv::report::text::render(&r);
    assert!(
        text.contains("unknown whether the latest snapshot holds them"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Ray: the whole-run budget of checkpoint ids.
// ---------------------------------------------------------------------------------------------

#[test]
fn checkpoint_ids_are_bounded_over_the_whole_run() {
    // Three checkpoint files of 25 ids each; a budget of 30 ids for the run: the first file is
    // read whole, the second in part, the third not at all. Each file alone is within any
    // per-file limit; only a budget over the union stops it.
    let mut limits = Limits::default();
    limits.set("max-rows-kept", 30).unwrap();
    let a = rebuild("ray/A_after_taskfail.zip", &limits, &|_, b| Some(b));
    let r = analyse(&a);
    let cp = &r.tables[0].ray_checkpoints;
    assert_eq!(cp.len(), 1, "{:#?}", all(&r));
    assert!(cp[0].ids <= 30, "ids kept: {}", cp[0].ids);
    let cut: Vec<&Finding> = all(&r)
        .into_iter()
        .filter(|f| f.message.contains("limit max-rows-kept"))
        .collect();
    assert_eq!(cut.len(), 1, "{:#?}", all(&r));
    assert!(cut[0].message.contains("ray_checkpoint/ckpt_a"));
    assert!(!cut[0].files.is_empty());
    // The comparison says its evidence was cut short.
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert!(
        f[0].evidence.iter().any(|e| e.contains("max-rows-kept")),
        "{:#?}",
        f[0].evidence
    );

    // The default budget leaves the real checkpoint whole.
    let r = analyse(&rebuild(
        "ray/A_after_taskfail.zip",
        &Limits::default(),
        &|_, b| Some(b),
    ));
    assert_eq!(r.tables[0].ray_checkpoints[0].ids, 75);
    assert!(all(&r).iter().all(|f| !f.message.contains("max-rows-kept")));
}

#[test]
fn the_id_budget_is_shared_by_every_checkpoint_of_the_run() {
    // A second checkpoint directory holding copies of the three files (BUILT BY THIS TEST): 150
    // ids read in all without a budget; with 80 for the run, the second checkpoint gets 5.
    let original = open(&fixture("ray/A_after_taskfail.zip"));
    let mut entries = Vec::new();
    for f in original.files() {
        let bytes = original.read(&f.path(), u64::MAX).unwrap();
        if let Some(name) = f.path().strip_prefix("ray_checkpoint/ckpt_a/") {
            entries.push(Entry::new(
                &format!("ray_checkpoint/ckpt_b/{name}"),
                bytes.clone(),
            ));
        }
        let mut e = Entry::new(&f.path(), bytes);
        if let Some(FileTime::ZipLocal(ms)) = f.modified() {
            e.dos_time = common::zipwriter::dos_time(ms / 1000);
        }
        entries.push(e);
    }
    let mut limits = Limits::default();
    limits.set("max-rows-kept", 80).unwrap();
    let a = Artifact::open(
        vec![Input::Zip {
            name: "two-checkpoints.zip".into(),
            data: Rc::new(zip_bytes(&entries)),
        }],
        &limits,
    )
    .unwrap();
    let r = analyse(&a);
    let cps = &r.tables[0].ray_checkpoints;
    assert_eq!(cps.len(), 2, "{:#?}", all(&r));
    let total: u64 = cps.iter().map(|c| c.ids).sum();
    assert!(total <= 80, "ids kept over the run: {total}");
    assert_eq!(cps[0].ids, 75);
    assert!(cps[0].cut_short.is_none());
    assert!(cps[1]
        .cut_short
        .as_deref()
        .is_some_and(|c| c.contains("max-rows-kept")));
    let cut: Vec<&Finding> = all(&r)
        .into_iter()
        .filter(|f| f.message.contains("limit max-rows-kept"))
        .collect();
    assert_eq!(cut.len(), 1);
    assert!(
        cut[0].message.contains("ray_checkpoint/ckpt_b"),
        "{}",
        cut[0].message
    );
}

// ---------------------------------------------------------------------------------------------
// Spark: offsets/N cut short.
// ---------------------------------------------------------------------------------------------

const SPARK: &str = "spark/b_consumer_ahead_of_checkpoint.zip";
const CKPT: &str = "spark-checkpoints/up-to-date-reader";

/// The fixture with the listed offsets files cut 15 bytes short (inside the Paimon line).
fn truncated(batches: &[i64]) -> Report {
    let names: Vec<String> = batches
        .iter()
        .map(|b| format!("{CKPT}/offsets/{b}"))
        .collect();
    analyse(&rebuild(SPARK, &Limits::default(), &|p, mut b| {
        if names.iter().any(|n| n == p) {
            b.truncate(b.len() - 15);
        }
        Some(b)
    }))
}

fn names_damage(r: &Report, file: &str) -> bool {
    all(r).iter().any(|f| {
        f.code == Code::UnreadableFile
            && f.files.iter().any(|x| x == file)
            && f.message.contains("cannot be read")
    })
}

#[test]
fn a_truncated_offsets_file_is_damage_and_the_comparison_is_unknown() {
    // The last committed batch's offsets cut short: the consumer comparison rests on it.
    let r = truncated(&[3]);
    let file = format!("{CKPT}/offsets/3");
    assert!(names_damage(&r, &file), "{:#?}", all(&r));
    let t = &r.tables[0];
    let cp = &t.spark_checkpoints[0];
    assert_ne!(cp.verdict, SparkCheckpointVerdict::Safe, "{cp:#?}");
    assert!(cp.verdicts.contains(&SparkCheckpointVerdict::Unknown));
    let f = find(&r, Code::SparkPositionUnknown);
    assert_eq!(f.len(), 1, "{:#?}", all(&r));
    assert!(f[0].message.contains("unknown"), "{}", f[0].message);
    assert!(f[0].message.contains("offsets/3"), "{}", f[0].message);
    assert!(
        f[0].message.contains("consumer up-to-date-reader"),
        "{}",
        f[0].message
    );
    assert_eq!(f[0].consumer.as_deref(), Some("up-to-date-reader"));
    // Nothing claims there is no committed batch.
    assert!(all(&r)
        .iter()
        .all(|f| f.evidence.iter().all(|e| !e.contains("no committed batch"))));
}

#[test]
fn truncated_offsets_are_not_another_source() {
    // Both offsets files the checks read cut short: no Paimon line is left to read.
    let r = truncated(&[2, 3]);
    for b in [2, 3] {
        assert!(
            names_damage(&r, &format!("{CKPT}/offsets/{b}")),
            "{:#?}",
            all(&r)
        );
    }
    assert!(
        all(&r)
            .iter()
            .all(|f| !f.message.contains("another source")),
        "{:#?}",
        all(&r)
    );
    let f = find(&r, Code::SparkPositionUnknown);
    assert_eq!(f.len(), 1, "{:#?}", all(&r));
    assert!(f[0].message.contains("offsets/3"), "{}", f[0].message);
}

#[test]
fn a_truncated_commit_file_is_damage_and_the_position_unknown() {
    let file = format!("{CKPT}/commits/3");
    let r = analyse(&rebuild(SPARK, &Limits::default(), &|p, mut b| {
        if p == file {
            b.truncate(b.len() - 6);
        }
        Some(b)
    }));
    assert!(names_damage(&r, &file), "{:#?}", all(&r));
    let f = find(&r, Code::SparkPositionUnknown);
    assert_eq!(f.len(), 1, "{:#?}", all(&r));
    assert!(f[0].message.contains("commits/3"), "{}", f[0].message);
    let cp = &r.tables[0].spark_checkpoints[0];
    assert!(cp.verdicts.contains(&SparkCheckpointVerdict::Unknown));
}
