//! Commits that have no COMPACT half of their own by design, on real Java Paimon warehouses
//! (`tests/fixtures/sweep/`): a full compaction every N commits, a dedicated compaction job
//! beside write-only writers, a commit in flight when its writer halted. A lost compaction is
//! one commit's; the APPENDs around it that owe no COMPACT are not lost.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use serde_json::Value;

fn json_report(name: &str) -> Value {
    common::json_report(&format!("sweep/{name}.zip"))
}

fn table<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["path"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/db.db/{name}"))
        })
        .unwrap_or_else(|| panic!("no table {name}"))
}

/// (code, severity, snapshot) of each finding of `t` with `code`.
fn said(t: &Value, code: &str) -> Vec<(String, Option<i64>)> {
    t["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["snapshot"].as_i64(),
            )
        })
        .collect()
}

fn finding<'a>(t: &'a Value, code: &str, snapshot: i64) -> &'a Value {
    t["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["snapshot"] == snapshot)
        .unwrap_or_else(|| panic!("no {code} on snapshot {snapshot}: {}", t["findings"]))
}

/// `full-compaction.delta-commits = 3`: snapshots 1, 2, 5, 6 never had a COMPACT half. The
/// lost full compaction is identifier 6's (snapshot 7): its manifest lists delete the level-0
/// files of 5, 6 and 7 and add the changelog. Before, every APPEND of the writer without a
/// COMPACT half claimed the same orphan changelog (its name carries the writer instance's UUID,
/// and the fixture's commits are seconds apart) and the same ghost: four errors for one loss.
#[test]
fn a_lost_full_compaction_is_the_newest_commits_not_every_uncompacted_append() {
    let r = json_report("j09_fullcompact_crash");
    let fc3 = table(&r, "fc3");
    assert_eq!(said(fc3, "lost-changelog"), [("error".into(), Some(7))]);
    let lost = finding(fc3, "lost-changelog", 7);
    let evidence = lost["evidence"].to_string();
    assert!(
        evidence.contains("also compacts the level-0 files of snapshots 5, 6"),
        "{evidence}"
    );
    // 5 and 6 wait for the next full compaction, which will produce their changelog.
    assert_eq!(said(fc3, "pending-changelog"), [("info".into(), Some(5))]);
    assert_eq!(
        finding(fc3, "pending-changelog", 5)["relatedSnapshots"],
        serde_json::json!([5, 6])
    );
}

/// A full compaction that upgrades a level-0 file to the top level in place (DELETE at level 0,
/// ADD of the same name at level 5) compacted it, and produced its changelog in the same
/// COMPACT: only snapshot 9's files, which no compaction has reached, wait. Before, snapshot 1
/// was said not to be compacted yet, its file being live at level 5.
#[test]
fn a_level0_file_upgraded_in_place_was_compacted() {
    let r = json_report("j09_fullcompact_crash");
    let t = table(&r, "fc3_part");
    assert_eq!(said(t, "pending-changelog"), [("warning".into(), Some(9))]);
    assert_eq!(
        finding(t, "pending-changelog", 9)["relatedSnapshots"],
        serde_json::json!([9])
    );
    // Its last commit a COMPACT: nothing waits.
    let r = json_report("j10_fcpart_healthy");
    let t = table(&r, "fc3_part");
    assert!(said(t, "pending-changelog").is_empty(), "{}", t["findings"]);
    assert!(said(t, "lost-changelog").is_empty());
}

/// Write-only writers commit APPENDs only; a dedicated compaction job commits an empty APPEND
/// and a COMPACT. The job's lost COMPACT is no writer's: before, APPENDs 1 and 9 of
/// `cj_lookup-writer` were lost-changelog errors (the job's orphan changelog tied by bucket and
/// time, its unpublished lists by the writer's level-0 files they compact), and the job itself
/// was not seen ("no COMPACT snapshot by another commit user shows one").
#[test]
fn a_compaction_jobs_writers_owe_no_compact_half() {
    let r = json_report("j10_compactjob_crash");
    for name in ["cj_lookup", "cj_fc"] {
        let t = table(&r, name);
        assert!(
            said(t, "lost-changelog").is_empty(),
            "{name}: {}",
            t["findings"]
        );
        let risky: Vec<&Value> = t["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["code"] == "risky-options" && f["message"].to_string().contains("write-only")
            })
            .collect();
        assert_eq!(risky.len(), 1, "{name}");
        assert_eq!(risky[0]["severity"], "info", "{name}");
        assert!(
            risky[0]["message"].to_string().contains("one does"),
            "{name}"
        );
    }
    // After the job's last COMPACT, nothing compacted the writer's APPENDs: a warning, true.
    let lookup = table(&r, "cj_lookup");
    assert_eq!(
        said(lookup, "changelog-not-produced"),
        [("warning".into(), Some(9))]
    );
}

/// The writer halted renaming round 6's APPEND into place (a snapshot temp file): the
/// compaction files it wrote for that commit are unreferenced. They belong to the commit in
/// flight, not to snapshot 6 (identifier 5), which owed no COMPACT half under
/// `full-compaction.delta-commits = 3`; before, snapshot 6 was a lost-changelog error.
#[test]
fn files_written_after_the_last_commit_belong_to_the_commit_in_flight() {
    let r = json_report("j09_midcommit_rename_append");
    for name in ["fc_mid", "dv_mid", "dyn_mid", "pu_mid"] {
        let t = table(&r, name);
        assert!(
            said(t, "lost-changelog").is_empty(),
            "{name}: {}",
            t["findings"]
        );
        assert_eq!(said(t, "snapshot-temp-file").len(), 1, "{name}");
    }
}

/// First-row keeps a key's first row, so a lost COMPACT's changelog holds only the keys not
/// seen before (here 1 of the APPEND's 3 rows), and the table has no deletion vectors for a
/// compaction to write: before, the finding said "the changelog for its 3 rows" and the remedy
/// "writes their deletion vectors".
#[test]
fn first_rows_lost_changelog_is_its_new_keys() {
    let r = json_report("j09_merge_crash");
    let t = table(&r, "me_first");
    let lost = finding(t, "lost-changelog", 7);
    let message = lost["message"].as_str().unwrap();
    assert!(
        message.contains("the changelog for new keys among its 3 rows"),
        "{message}"
    );
    assert!(
        !lost["remedy"]
            .as_str()
            .unwrap()
            .contains("deletion vectors"),
        "{lost}"
    );
    assert_eq!(
        lost["rows"]["keys"].as_array().map(Vec::len),
        Some(1),
        "{}",
        lost["rows"]
    );
    // Other merge engines: every row's changelog.
    let partial = finding(table(&r, "me_partial"), "lost-changelog", 7);
    assert!(partial["message"]
        .as_str()
        .unwrap()
        .contains("the changelog for its 3 rows"));
}
