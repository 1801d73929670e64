//! Python writers (pypaimon 2.1, pypaimon-rust 0.4) killed part way through a commit, a
//! rollback or a tag write (`tests/fixtures/sweep/py/`, made by `generator/py/`: the process
//! exits at a chosen file operation): what their files say is told as it is, and the remedy
//! repairs what broke.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::with_code;
use serde_json::Value;

fn table(name: &str) -> Value {
    common::json_report(&format!("sweep/py/{name}.zip"))["tables"][0].clone()
}

fn text(f: &Value, field: &str) -> String {
    f[field].as_str().unwrap().to_string()
}

/// pypaimon's `rollback_to(2)` from snapshot 4 rewrote LATEST to 2, deleted snapshot 3 and died
/// before snapshot 4. Paimon trusts LATEST when snapshot LATEST + 1 is missing: readers see 2.
/// Before: "a writer published snapshot 3 and died before updating the hint … readers are fine",
/// and a gap remedy to restore the deleted snapshot, which would undo the rollback.
#[test]
fn a_rollback_halted_between_its_deletions_is_named_and_not_undone() {
    let t = table("pp210-pk_input-rollback-before6");
    let hint = with_code(&t, "hint-mismatch");
    assert_eq!(hint.len(), 1, "{}", t["findings"]);
    let m = text(hint[0], "message");
    assert!(
        m.starts_with("LATEST says 2, snapshot 3 is missing and snapshots up to 4 exist")
            && m.contains("readers take snapshot 2 as the newest")
            && !m.contains("published snapshot 3"),
        "{m}"
    );
    let gap = with_code(&t, "snapshot-gap");
    assert_eq!(gap.len(), 1, "{}", t["findings"]);
    let r = text(gap[0], "remedy");
    assert!(
        r.starts_with("LATEST says 2, just below the hole: a rollback to 2")
            && r.contains("do not restore the deleted snapshots"),
        "{r}"
    );
}

/// The same rollback halted before any deletion (pypaimon), and paimon-rust's `rollback_to`
/// killed at its first unlink: LATEST lags two snapshots behind, which no single writer crash
/// leaves. Before: "a writer published snapshot 3 (2) and died before updating the hint".
#[test]
fn a_rollback_halted_before_its_deletions_has_not_taken_effect() {
    for (name, v, latest) in [
        ("pp210-pk_input-rollback-before5", 2, 4),
        ("rs040-rollback-kill-unlink1", 1, 3),
    ] {
        let t = table(name);
        let hint = with_code(&t, "hint-mismatch");
        assert_eq!(hint.len(), 1, "{name}: {}", t["findings"]);
        let m = text(hint[0], "message");
        assert!(
            m.contains(&format!(
                "a rollback to {v} rewrote the hint and stopped before deleting"
            )) && m.ends_with(&format!("so readers see snapshot {latest}."))
                && !m.contains("died before updating the hint"),
            "{name}: {m}"
        );
        assert!(text(hint[0], "remedy").starts_with(&format!(
            "If a rollback to {v} ran, it has not taken effect"
        )));
    }
}

/// pypaimon died before renaming `.snapshot-3.<uuid>.tmp` (identifier 3); restarted, the same
/// user committed identifiers 6 and 7 as snapshots 3 and 4. Identifier 3 was never published.
/// Before: an info "another commit won the id, or the rename succeeded and the copy lingered".
#[test]
fn a_temp_file_whose_id_the_restarted_writer_took_is_a_commit_it_moved_past() {
    let t = table("pp210-pk_input-commit-Rw-before9");
    let temp = with_code(&t, "snapshot-temp-file");
    assert_eq!(temp.len(), 1, "{}", t["findings"]);
    assert_eq!(temp[0]["severity"], "error");
    assert!(text(temp[0], "message").contains("moved on to identifier 6 (snapshot 3)"));
}

/// paimon-rust names its temp file `snapshot-<id>.tmp-<uuid>`: killed at the rename, then a new
/// INSERT took id 4. Before: not recognised, nothing said of the file.
#[test]
fn paimon_rusts_temp_snapshot_file_is_recognised() {
    let t = table("rs040-commit-kill-rename-restart");
    let temp = with_code(&t, "snapshot-temp-file");
    assert_eq!(temp.len(), 1, "{}", t["findings"]);
    assert_eq!(temp[0]["severity"], "warning");
    assert!(text(temp[0], "message").starts_with("Snapshot 4 was written to a temp file"));
    assert!(temp[0]["files"][0]
        .as_str()
        .unwrap()
        .starts_with("snapshot/snapshot-4.tmp-"));
}

/// pypaimon overwrites LATEST and writes a tag in place: killed inside those writes, the hint is
/// empty and the tag torn. Each is repaired by itself; before, the remedy was to roll the table
/// back to a snapshot before it.
#[test]
fn a_torn_hint_or_tag_gets_its_own_repair() {
    let t = table("pp210-pk_input-commit-after13");
    let hint = with_code(&t, "unreadable-file");
    assert_eq!(hint.len(), 1, "{}", t["findings"]);
    assert!(
        text(hint[0], "remedy").starts_with("Rewrite snapshot/LATEST with "),
        "{}",
        hint[0]
    );
    let t = table("pp210-pk_input-tag-partial1");
    let tag = with_code(&t, "unreadable-file");
    assert_eq!(tag.len(), 1, "{}", t["findings"]);
    assert!(
        text(tag[0], "remedy").starts_with("Remove the file tag/tag-t3"),
        "{}",
        tag[0]
    );
}
