//! Ray Data checkpoints published before the Paimon commit (the Ray Data issue described in
//! `docs/paimon-format.md` §8.3: a row checkpoint written before the sink's commit): the four real
//! reproductions in `tests/fixtures/ray/` (Ray 2.60 + pypaimon 2.1, see the README there),
//! pairing rules, the CLI flag, and variations built in memory from them.
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
use common::{fixture, open, report, run_cli, zip_artifact};
use prv::findings::{Code, Finding, Report, Severity};
use prv::ray::RayPairing;
use prv::source::{native, Artifact};
use prv::{analyze, AnalysisOptions, Limits};

fn ray(name: &str) -> Report {
    report(&fixture(&format!("ray/{name}.zip")))
}

fn find(r: &Report, code: Code) -> Vec<&Finding> {
    r.all_findings()
        .filter(|(_, f)| f.code == code)
        .map(|(_, f)| f)
        .collect()
}

const ORPHANS: [&str; 3] = [
    "bucket-0/data-8821841e-6b59-4813-a5de-f45ac0b7ee55-0.parquet",
    "bucket-0/data-96ccb234-28a0-446c-bbdb-78a0f11633c4-0.parquet",
    "bucket-0/data-c4b646e0-48aa-4d8e-a7e0-924622a27340-0.parquet",
];

#[test]
fn task_failure_leaves_75_checkpointed_ids_uncommitted() {
    let r = ray("A_after_taskfail");
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f.len(), 1, "{:#?}", r.all_findings().collect::<Vec<_>>());
    let f = f[0];
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.snapshot, Some(1));
    assert_eq!(f.files, ORPHANS);
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["count"], 75);
    assert_eq!(rows["ranges"], serde_json::json!([[0, 74]]));
    assert_eq!(rows["column"], "id");
    assert_eq!(rows["checkpoint"], "ray_checkpoint/ckpt_a");
    assert_eq!(rows["files"].as_array().unwrap().len(), 3);
    let cp = &r.tables[0].ray_checkpoints;
    assert_eq!(cp.len(), 1);
    assert_eq!(
        (
            cp[0].files,
            cp[0].ids,
            cp[0].missing,
            cp[0].pairing.as_str()
        ),
        (3, 75, 75, "only-table")
    );
    assert_eq!(cp[0].generation_marker, None);
    // The orphans are younger than the only snapshot: in flight, not rows-only-in-orphan-files.
    assert!(find(&r, Code::RowsOnlyInOrphanFiles).is_empty());
    assert_eq!(r.verdict.as_str(), "fail");
}

#[test]
fn resume_leaves_75_ids_only_in_unreferenced_files() {
    let r = ray("A_after_resume");
    assert!(find(&r, Code::CheckpointAheadOfCommit).is_empty());
    assert!(
        r.tables[0].ray_checkpoints.is_empty(),
        "the checkpoint was deleted"
    );
    let f = find(&r, Code::RowsOnlyInOrphanFiles);
    assert_eq!(f.len(), 1);
    let f = f[0];
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.snapshot, Some(2));
    assert_eq!(f.files, ORPHANS);
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["count"], 75);
    assert_eq!(rows["ranges"], serde_json::json!([[0, 74]]));
    assert_eq!(rows["batchSnapshot"], 2);
    assert_eq!(rows["batchExact"], true);
}

#[test]
fn a_resume_after_a_failed_commit_is_safe() {
    let r = ray("C_after_resume_safe");
    assert!(find(&r, Code::CheckpointAheadOfCommit).is_empty());
    assert!(find(&r, Code::RowsOnlyInOrphanFiles).is_empty());
    assert!(find(&r, Code::RayCheckpointUnpaired).is_empty());
    assert_eq!(r.verdict.as_str(), "pass");
}

#[test]
fn without_rows_nothing_is_read() {
    let options = AnalysisOptions {
        skip_rows: true,
        ..AnalysisOptions::default()
    };
    let r = analyze(
        &open(&fixture("ray/A_after_taskfail.zip")),
        &options,
        &mut |_| {},
    );
    assert!(find(&r, Code::CheckpointAheadOfCommit).is_empty());
    assert!(r.tables[0].ray_checkpoints.is_empty());
    assert_eq!(r.verdict.as_str(), "pass");
}

fn two() -> Artifact {
    let limits = Limits::default();
    let a = native::open_input(&fixture("ray/A_after_taskfail.zip"), &limits).unwrap();
    let c = native::open_input(&fixture("ray/C_after_resume_safe.zip"), &limits).unwrap();
    Artifact::open(vec![a, c], &limits).unwrap()
}

#[test]
fn two_tables_with_the_id_column_leave_the_checkpoint_unpaired_until_named() {
    let artifact = two();
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let f = find(&r, Code::RayCheckpointUnpaired);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(
        f[0].message.contains("2 tables have a column id"),
        "{}",
        f[0].message
    );
    assert!(find(&r, Code::CheckpointAheadOfCommit).is_empty());

    // Paired with the table it was written for: the 75 ids are missing.
    let options = AnalysisOptions {
        ray_pairings: vec![
            "A_after_taskfail.zip/ray_checkpoint/ckpt_a=A_after_taskfail.zip/warehouse/db.db/events_a"
                .parse::<RayPairing>()
                .unwrap(),
        ],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    assert!(find(&r, Code::RayCheckpointUnpaired).is_empty());
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rows.as_ref().unwrap()["count"], 75);
    assert_eq!(r.tables[0].ray_checkpoints[0].pairing, "user");

    // Paired with the table of the safe run, which holds every id: no finding.
    let options = AnalysisOptions {
        ray_pairings: vec![
            "A_after_taskfail.zip/ray_checkpoint/ckpt_a=C_after_resume_safe.zip/warehouse/db.db/events_c#id"
                .parse::<RayPairing>()
                .unwrap(),
        ],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    assert!(find(&r, Code::CheckpointAheadOfCommit).is_empty());
    let cp = &r.tables[1].ray_checkpoints;
    assert_eq!((cp[0].ids, cp[0].missing), (75, 0));

    // A pairing naming nothing is an error finding, and a wrong id column leaves it unpaired.
    let options = AnalysisOptions {
        ray_pairings: vec![
            "nowhere=A_after_taskfail.zip/warehouse/db.db/events_a".parse().unwrap(),
            "A_after_taskfail.zip/ray_checkpoint/ckpt_a=A_after_taskfail.zip/warehouse/db.db/events_a#nope"
                .parse()
                .unwrap(),
        ],
        ..AnalysisOptions::default()
    };
    let r = analyze(&artifact, &options, &mut |_| {});
    let f = find(&r, Code::RayCheckpointUnpaired);
    assert_eq!(f.len(), 2, "{f:#?}");
    assert!(f
        .iter()
        .any(|f| f.severity == Severity::Error && f.message.contains("nowhere")));
    assert!(f.iter().any(|f| f.message.contains("has no column nope")));
}

/// Rebuilds a fixture zip with some entries replaced (`Some`) or dropped (`None`), and extra
/// entries added.
fn rebuild(name: &str, edit: &Edit, extra: Vec<(String, Vec<u8>)>) -> Artifact {
    let original = open(&fixture(name));
    let mut entries = Vec::new();
    for f in original.files() {
        let bytes = original.read(&f.path(), u64::MAX).unwrap();
        if let Some(b) = edit(&f.path(), bytes) {
            let mut e = Entry::new(&f.path(), b);
            if let Some(prv::source::FileTime::ZipLocal(ms)) = f.modified() {
                e.dos_time = dos(ms);
            }
            entries.push(e);
        }
    }
    for (p, b) in extra {
        entries.push(Entry::new(&p, b));
    }
    zip_artifact("edited.zip", &entries)
}

fn dos(ms: i64) -> (u16, u16) {
    common::zipwriter::dos_time(ms / 1000)
}

#[test]
fn a_generation_marker_is_recognised_when_present() {
    let artifact = rebuild(
        "ray/A_after_taskfail.zip",
        &|path, bytes| {
            if path.ends_with("snapshot/snapshot-1") {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                v["properties"] = serde_json::json!({"ray.data.checkpoint.operation-id": "op-7"});
                Some(serde_json::to_vec_pretty(&v).unwrap())
            } else {
                Some(bytes)
            }
        },
        Vec::new(),
    );
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let cp = &r.tables[0].ray_checkpoints[0];
    assert_eq!(cp.generation_marker.as_deref(), Some("1: op-7"));
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert!(f[0]
        .evidence
        .iter()
        .any(|e| e.contains("ray.data.checkpoint.operation-id = op-7")));
}

#[test]
fn unreadable_checkpoint_or_data_files_are_notes_not_failures() {
    // One checkpoint file damaged: the other two still count (50 ids); the damage is said.
    let artifact = rebuild(
        "ray/A_after_taskfail.zip",
        &|path, bytes| {
            if path.ends_with("4844d34b-9618-4848-9b59-d81961826944.parquet") {
                let mut b = bytes;
                let n = b.len();
                b[n / 2..n - 8].fill(0xAB);
                Some(b)
            } else {
                Some(bytes)
            }
        },
        Vec::new(),
    );
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f.len(), 1);
    let rows = f[0].rows.as_ref().unwrap();
    assert_eq!(rows["count"], 50, "{rows:#}");
    assert!(
        f[0].evidence
            .iter()
            .any(|e| e.contains("could not be read")),
        "{:#?}",
        f[0].evidence
    );

    // The live data file damaged: the ids are still reported (it held none of them), and the
    // batch view says it is approximate, so the finding is a warning.
    let artifact = rebuild(
        "ray/A_after_taskfail.zip",
        &|path, bytes| {
            if path.ends_with("data-b21daf82-4d73-4e20-9752-04d0af36e002-0.parquet") {
                Some(b"not parquet at all".to_vec())
            } else {
                Some(bytes)
            }
        },
        Vec::new(),
    );
    let r = analyze(&artifact, &AnalysisOptions::default(), &mut |_| {});
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f[0].severity, Severity::Warning);
    assert_eq!(f[0].rows.as_ref().unwrap()["batchExact"], false);
}

#[test]
fn a_directory_of_uuid_named_multi_column_files_is_not_a_checkpoint() {
    // Move a data file (two columns) into a uuid-named file of its own directory.
    let original = open(&fixture("ray/A_after_resume.zip"));
    let data = original
        .read(
            "warehouse/db.db/events_a/bucket-0/data-7ed09ff3-cdc0-4b68-87ff-846e425f4a6d-0.parquet",
            u64::MAX,
        )
        .unwrap();
    let artifact = rebuild(
        "ray/A_after_resume.zip",
        &|_, b| Some(b),
        vec![(
            "exports/0b7c6a8e-2f0d-4c1a-9e55-1d2f3a4b5c6d.parquet".to_string(),
            data,
        )],
    );
    assert!(prv::ray::discover(&artifact).is_empty());
}

#[test]
fn cli_ray_checkpoint_flag() {
    let zip = fixture("ray/A_after_taskfail.zip");
    let zip = zip.to_str().unwrap();
    let (code, out, _) = run_cli(&[
        "check",
        zip,
        "--format",
        "json",
        "--ray-checkpoint",
        "ray_checkpoint/ckpt_a=warehouse/db.db/events_a#id",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tables"][0]["rayCheckpoints"][0]["pairing"], "user");
    assert_eq!(
        v["tables"][0]["findings"][0]["code"],
        "checkpoint-ahead-of-commit"
    );

    // Malformed and unknown pairings: usage errors, exit 2, a clear message.
    let (code, _, err) = run_cli(&["check", zip, "--ray-checkpoint", "no-equals-sign"]);
    assert_eq!(code, 2);
    assert!(err.contains("no '='"), "{err}");
    let (code, _, err) = run_cli(&[
        "check",
        zip,
        "--ray-checkpoint",
        "elsewhere=warehouse/db.db/events_a",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("elsewhere is not a Ray Data checkpoint directory in the artifact (found: ray_checkpoint/ckpt_a)"),
        "{err}"
    );
    let (code, _, err) = run_cli(&[
        "check",
        zip,
        "--ray-checkpoint",
        "ray_checkpoint/ckpt_a=db/t",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("db/t is not a table in the artifact"), "{err}");

    // --no-rows: metadata only, no Ray finding.
    let (code, out, _) = run_cli(&["check", zip, "--format", "json", "--no-rows"]);
    assert_eq!(code, 0, "{out}");
}

/// A checkpoint kept after a successful job (`delete_checkpoint_on_success=False`), then an
/// INSERT OVERWRITE that kept ids 50..99 (`D_overwrite_after_checkpoint.zip`: Ray 2.60 +
/// pypaimon 2.1, `make_overwrite_after_checkpoint.py`): ids 0..49 are not in snapshot 2, and the
/// files OVERWRITE snapshot 2 deleted held them. Info, nothing missing, and no advice to drop
/// the checkpoint or keep unreferenced files (there are none).
#[test]
fn ids_an_overwrite_removed_after_the_checkpoint_are_not_missing() {
    let r = ray("D_overwrite_after_checkpoint");
    let f = find(&r, Code::CheckpointAheadOfCommit);
    assert_eq!(f.len(), 1, "{:#?}", r.all_findings().collect::<Vec<_>>());
    let f = f[0];
    assert_eq!(f.severity, Severity::Info);
    assert_eq!(f.related_snapshots, [2]);
    assert_eq!(
        f.message,
        "Ray Data checkpoint ray_checkpoint marks 50 ids done that snapshot 2 does not hold, all removed later by a DELETE or OVERWRITE: the checkpoint is consistent with the table."
    );
    assert!(f.remedy.starts_with("Nothing to repair"), "{}", f.remedy);
    assert!(
        f.evidence
            .iter()
            .any(|e| e == "50 ids removed later by OVERWRITE snapshot 2: not counted"),
        "{:#?}",
        f.evidence
    );
    let rows = f.rows.as_ref().unwrap();
    assert_eq!(rows["overwritten"], 50);
    assert_eq!(rows["ranges"], serde_json::json!([[0, 49]]));
    let cp = &r.tables[0].ray_checkpoints;
    assert_eq!((cp[0].ids, cp[0].missing), (100, 0));
    assert!(find(&r, Code::RowsOnlyInOrphanFiles).is_empty());
}
