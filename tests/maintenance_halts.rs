//! Table maintenance halted part way or run to completion, on real Java Paimon 0.9 warehouses
//! (`tests/fixtures/sweep/`, `generator/maint/`): what Paimon removed on purpose is not
//! reported as lost, and what its readers will fail on is said.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::with_code;
use serde_json::Value;

fn json_report(name: &str) -> Value {
    common::json_report(&format!("sweep/{name}.zip"))
}

fn main_table(r: &Value) -> &Value {
    r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["branch"] == "main")
        .unwrap()
}

/// (id, verdict) of each consumer of table `t`.
fn verdicts(t: &Value) -> Vec<(&str, &str)> {
    t["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect()
}

/// A rollback to tag `tg` (snapshot 6, expired long before) halted after deleting every
/// snapshot file. The tag's changelog list went with snapshot 6's expiration, by design, as
/// when snapshots are left: before, with none left, it was a dangling-reference error. And the
/// hints still name 24 snapshots that are gone: Paimon's readers fail on LATEST.
#[test]
fn a_rollback_that_deleted_every_snapshot_keeps_the_tags_changelog_by_design_and_says_latest_fails()
{
    let r = json_report("j09_rbtag_data2");
    let t = main_table(&r);
    let dangling = with_code(t, "dangling-reference");
    assert_eq!(dangling.len(), 1, "{}", t["findings"]);
    assert_eq!(dangling[0]["severity"], "info");
    let evidence = dangling[0]["evidence"].to_string();
    assert!(
        evidence.contains("its EARLIEST hint says 11, above snapshot 6"),
        "{evidence}"
    );
    let hint = with_code(t, "hint-mismatch");
    assert_eq!(hint.len(), 1, "{}", t["findings"]);
    assert_eq!(hint[0]["severity"], "warning");
    assert!(hint[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("LATEST says 24 but no snapshot file is left"));
    // Its readers cannot go on: before, both consumers were called "safe".
    assert_eq!(verdicts(t), [("c1", "blocked"), ("c2", "blocked")]);
    let blocked = with_code(t, "consumer-blocked");
    assert_eq!(blocked.len(), 2, "{}", t["findings"]);
    assert!(blocked.iter().all(|f| f["severity"] == "warning"));
}

/// fastForward of branch b1 into main halted at its fifth snapshot deletion (it deletes main's
/// snapshot files in hash-set order): holes at 7, 9, 17 and 21 of main's 1..24. Paimon's reader
/// waits at a missing snapshot at or above the earliest as for one not yet committed: consumer
/// c1 (at 11) reads up to 16 and stops at 17, c2 (at 21) is stopped already. Before, both were
/// "safe".
#[test]
fn a_fast_forward_halted_part_way_blocks_each_consumer_at_the_first_hole_it_reaches() {
    let r = json_report("j09_ff_del5");
    let t = main_table(&r);
    let gaps: Vec<_> = with_code(t, "snapshot-gap")
        .iter()
        .map(|f| f["snapshot"].as_i64().unwrap())
        .collect();
    assert_eq!(gaps, [7, 9, 17, 21]);
    assert_eq!(verdicts(t), [("c1", "blocked"), ("c2", "blocked")]);
    let blocked: Vec<_> = with_code(t, "consumer-blocked")
        .iter()
        .map(|f| {
            (
                f["consumer"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["relatedSnapshots"].clone(),
            )
        })
        .collect();
    assert_eq!(
        blocked,
        [
            ("c1", "error", serde_json::json!([17, 18])),
            ("c2", "error", serde_json::json!([21, 22]))
        ]
    );
}

/// fastForward replaced main's history with branch b1's: main's files of snapshots 11..24 are
/// unreferenced, their rows removed on purpose. Before, "9 keys exist only in 13 unreferenced
/// data files … rows a resumed job skipped", with a remedy to write them again.
#[test]
fn rows_a_fast_forward_removed_are_not_rows_a_job_skipped() {
    let r = json_report("j09_tr_branch");
    let t = main_table(&r);
    assert!(
        with_code(t, "rows-only-in-orphan-files").is_empty(),
        "{}",
        t["findings"]
    );
    // The files are told as left by a rollback or a fast-forward (which never deletes the files
    // of the snapshots it replaces).
    let orphans = with_code(t, "orphan-file");
    assert!(
        orphans.iter().any(|f| {
            let m = f["message"].as_str().unwrap();
            m.contains("left by a rollback or a fast-forward")
                && m.contains("published and later removed")
        }),
        "{}",
        t["findings"]
    );
}

/// After the same fast-forward main keeps its snapshots 1..5 under the branch's EARLIEST (6),
/// which fastForward copied with the branch's snapshot directory. Paimon trusts that hint while
/// snapshot 6 exists: 1..5 are invisible to readers and expiration. Before, "they outlived an
/// expiration … Harmless for readers (Paimon lists snapshot/ when the hint is wrong)", both
/// false.
#[test]
fn an_earliest_hint_a_fast_forward_copied_is_named_and_hides_the_older_snapshots() {
    let r = json_report("j09_tr_branch");
    let t = main_table(&r);
    let hint = with_code(t, "hint-mismatch");
    assert_eq!(hint.len(), 1, "{}", t["findings"]);
    let message = hint[0]["message"].as_str().unwrap();
    assert!(
        message.contains("snapshots 1..5 are invisible to them")
            && message.contains("A fast-forward from branch b1 left this"),
        "{message}"
    );
    assert!(hint[0]["remedy"]
        .as_str()
        .unwrap()
        .starts_with("Rewrite snapshot/EARLIEST to 1"));
}

/// An ALTER TABLE (add column `w`) halted before renaming its schema into place (`ren`) and
/// halfway through writing it (`outhalf`): `schema/.schema-1.<uuid>.tmp` is left, no
/// `schema-1`, and the table still runs under schema 0. Before, nothing was said.
#[test]
fn an_alter_table_halted_before_its_rename_says_its_change_is_not_in_effect() {
    for (name, change) in [
        ("j09_alter_tmp", "it would add column w STRING."),
        (
            "j09_alter_half",
            "its content cannot be read (a write cut short), so what it changed is unknown.",
        ),
    ] {
        let r = json_report(name);
        let t = main_table(&r);
        let temp = with_code(t, "schema-temp-file");
        assert_eq!(temp.len(), 1, "{name}: {}", t["findings"]);
        assert_eq!(temp[0]["severity"], "warning");
        let message = temp[0]["message"].as_str().unwrap();
        assert!(message.starts_with("schema/.schema-1."), "{message}");
        assert!(
            message.contains("the table still runs under schema 0") && message.ends_with(change),
            "{name}: {message}"
        );
        assert_eq!(r["verdict"], "warn", "{name}");
    }
}

/// createBranch of b1 from tag tg halted at its schema copy: the branch holds the tag and the
/// tagged snapshot, no schema. Paimon cannot open it; nothing reads it. Before, an
/// artifact-incomplete warning asked to restore schema-0 "from a backup".
#[test]
fn a_branch_halted_before_its_schema_copy_is_half_created_not_an_incomplete_artifact() {
    let r = json_report("j09_br_copyschema");
    let b1 = r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["branch"] == "b1")
        .unwrap();
    let codes: Vec<_> = b1["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [("branch-incomplete", "info")], "{}", b1["findings"]);
    assert!(b1["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("branch b1 holds tag tg and a copy of its snapshot but no schema"));
}
