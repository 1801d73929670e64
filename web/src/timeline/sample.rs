//! A synthetic table for tests and demos: `n` snapshots from id 3 with APPEND/COMPACT pairs of
//! `writer-1`, a dedicated compactor, an occasional OVERWRITE and ANALYZE, a lost changelog at
//! snapshot 7, a pending changelog at the last APPEND, two consumers, a tag, a Spark checkpoint,
//! a long-lived changelog range and an EARLIEST hint that disagrees.

use std::collections::BTreeMap;

use prv::report::model::{
    Code, CommitGroupSummary, ConsumerReport, ConsumerVerdict, Finding, Hints, IdRange,
    ManifestLists, Severity, SnapshotSummary, SparkCheckpointReport, SparkCheckpointVerdict,
    SparkOffset, SparkPairingKind, TableReport, TagSummary,
};

/// The first snapshot id of [`table`].
pub const FIRST: i64 = 3;
/// The snapshot whose changelog is lost in [`table`] (when `n >= 5`).
pub const LOST: i64 = 7;

fn snapshot(id: i64, kind: &str, user: &str, identifier: i64) -> SnapshotSummary {
    SnapshotSummary {
        id,
        kind: kind.to_string(),
        commit_user: user.to_string(),
        commit_identifier: identifier,
        time_millis: 1_796_027_473_636 + id * 1000,
        schema_id: 0,
        delta_record_count: Some(3),
        changelog_record_count: Some(if kind == "COMPACT" { 3 } else { 0 }),
        total_record_count: Some(id * 3),
        watermark: None,
        manifest_lists: ManifestLists::default(),
        files: None,
    }
}

/// The synthetic table with `n` snapshots.
pub fn table(n: usize) -> TableReport {
    let mut snapshots = Vec::with_capacity(n);
    let mut groups: Vec<CommitGroupSummary> = Vec::new();
    let mut findings = Vec::new();
    let mut id = FIRST;
    let mut identifier = 1;
    let last = FIRST + n as i64 - 1;
    let mut last_append = None;
    while id <= last {
        if id % 211 == 0 {
            snapshots.push(snapshot(id, "ANALYZE", "analyzer", i64::MAX));
            id += 1;
        } else if id % 97 == 0 {
            snapshots.push(snapshot(id, "OVERWRITE", "batch-job", i64::MAX));
            id += 1;
        } else if id % 10 == 0 {
            snapshots.push(snapshot(id, "COMPACT", "compactor", identifier));
            groups.push(CommitGroupSummary {
                commit_user: "compactor".to_string(),
                commit_identifier: identifier,
                identifier_meaning: "checkpoint".to_string(),
                snapshots: vec![id],
                kinds: vec!["COMPACT".to_string()],
            });
            id += 1;
        } else if id == LOST || id == last {
            // An APPEND whose COMPACT half never came.
            snapshots.push(snapshot(id, "APPEND", "writer-1", identifier));
            groups.push(CommitGroupSummary {
                commit_user: "writer-1".to_string(),
                commit_identifier: identifier,
                identifier_meaning: "checkpoint".to_string(),
                snapshots: vec![id],
                kinds: vec!["APPEND".to_string()],
            });
            let code = if id == LOST {
                Code::LostChangelog
            } else {
                Code::PendingChangelog
            };
            let severity = if id == LOST {
                Severity::Error
            } else {
                Severity::Info
            };
            findings.push(
                Finding::new(code, severity, "changelog", "remedy")
                    .snapshot(id)
                    .commit("writer-1", identifier),
            );
            last_append = Some(id);
            id += 1;
        } else {
            snapshots.push(snapshot(id, "APPEND", "writer-1", identifier));
            let mut ids = vec![id];
            let mut kinds = vec!["APPEND".to_string()];
            if id < last
                && (id + 1) % 10 != 0
                && (id + 1) % 97 != 0
                && (id + 1) % 211 != 0
                && id + 1 != LOST
                && id + 1 != last
            {
                snapshots.push(snapshot(id + 1, "COMPACT", "writer-1", identifier));
                ids.push(id + 1);
                kinds.push("COMPACT".to_string());
                id += 1;
            }
            groups.push(CommitGroupSummary {
                commit_user: "writer-1".to_string(),
                commit_identifier: identifier,
                identifier_meaning: "checkpoint".to_string(),
                snapshots: ids,
                kinds,
            });
            id += 1;
        }
        identifier += 1;
    }
    let _ = last_append;
    groups.sort_by_key(|g| g.snapshots.first().copied());
    let earliest = snapshots.first().map(|s| s.id);
    let latest = snapshots.last().map(|s| s.id);
    TableReport {
        path: "warehouse/db.db/orders".to_string(),
        branch: "main".to_string(),
        options: BTreeMap::new(),
        schema: None,
        earliest,
        latest,
        hints: Hints {
            earliest: Some(FIRST - 1),
            latest,
        },
        snapshots,
        commit_groups: groups,
        consumers: vec![
            ConsumerReport {
                id: "cdc-reader".to_string(),
                next_snapshot: Some(LOST + 2),
                verdict: ConsumerVerdict::PastLostChangelog,
                verdicts: vec![ConsumerVerdict::PastLostChangelog],
                modified_millis: None,
                age_millis: None,
                file: "warehouse/db.db/orders/consumer/consumer-cdc-reader".to_string(),
            },
            ConsumerReport {
                id: "old-job".to_string(),
                next_snapshot: Some(1),
                verdict: ConsumerVerdict::Expired,
                verdicts: vec![ConsumerVerdict::Expired],
                modified_millis: None,
                age_millis: None,
                file: "warehouse/db.db/orders/consumer/consumer-old-job".to_string(),
            },
        ],
        tags: vec![TagSummary {
            name: "release-1".to_string(),
            snapshot: Some(FIRST + 2),
            snapshot_retained: true,
        }],
        long_lived_changelogs: Some(IdRange { first: 1, last: 4 }),
        expiration_fence: None,
        spark_checkpoints: vec![SparkCheckpointReport {
            path: "checkpoints/query-1".to_string(),
            query_id: None,
            last_planned_batch: Some(4),
            last_committed_batch: Some(4),
            offset: Some(SparkOffset {
                snapshot_id: LOST + 1,
                index: 0,
                scan_snapshot: false,
                total_splits: Some(1),
            }),
            committed_time_millis: None,
            planned_offset: None,
            resume_snapshot: Some(LOST + 2),
            consumer: Some("cdc-reader".to_string()),
            consumer_next_snapshot: Some(LOST + 2),
            expected_consumer: None,
            pairing: SparkPairingKind::ConsumerName,
            verdict: SparkCheckpointVerdict::Safe,
            verdicts: vec![SparkCheckpointVerdict::Safe],
        }],
        ray_checkpoints: Vec::new(),
        findings,
    }
}
