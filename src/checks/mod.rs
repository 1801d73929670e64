//! The recovery questions, one module per family of findings.
//!
//! * [`changelog`] — did a commit's changelog get lost (`lost-changelog`,
//!   `pending-changelog`)?
//! * [`consumers`] — is each consumer's position safe (`consumer-*`)?
//! * [`integrity`] — is the snapshot history complete (`snapshot-gap`, `hint-mismatch`,
//!   `snapshot-temp-file`, `unreadable-file`)?
//! * [`options`] — is the table configured so recovery can lose data (`risky-options`)?
//! * [`clock`] — what time is it for this artifact?
//!
//! [`table_report`] runs them over one timeline and assembles its part of the report.

pub mod changelog;
pub mod clock;
pub mod consumers;
pub mod integrity;
pub mod options;

use crate::report::model::{
    Clock, CommitGroupSummary, FieldSummary, Hints, IdRange, ManifestLists, SchemaSummary,
    SnapshotSummary, TableReport, TagSummary,
};
use crate::source::Artifact;
use crate::timeline::groups::commit_groups;
use crate::timeline::Timeline;

/// A path relative to the table root, for findings (the table's path is in the report).
pub fn relative(t: &Timeline, path: &str) -> String {
    let root = &t.location.root;
    if root.is_empty() {
        return path.to_string();
    }
    path.strip_prefix(root.as_str())
        .and_then(|p| p.strip_prefix('/'))
        .unwrap_or(path)
        .to_string()
}

/// Runs every check over one timeline and assembles its report.
pub fn table_report(artifact: &Artifact, t: &Timeline, clock: &Clock) -> TableReport {
    let groups = commit_groups(t);
    let lost: Vec<changelog::LostChangelog> = Vec::new();

    let mut findings = Vec::new();
    findings.extend(integrity::unreadable_files(t));
    findings.extend(integrity::snapshot_gaps(t));
    findings.extend(integrity::hint_mismatches(t));
    findings.extend(integrity::temp_files(t, |p| {
        integrity::read_temp_snapshot(artifact, p)
    }));
    findings.extend(options::risky_options(t));
    let (consumer_reports, consumer_findings) = consumers::judge(t, clock, &lost);
    findings.extend(consumer_findings);
    let expiration_fence = consumers::expiration_fence(t, &consumer_reports);

    let snapshots = t
        .snapshots
        .values()
        .map(|f| {
            let s = &f.snapshot;
            SnapshotSummary {
                id: s.id,
                kind: s.commit_kind.as_str().to_string(),
                commit_user: s.commit_user.clone(),
                commit_identifier: s.commit_identifier,
                time_millis: s.time_millis,
                schema_id: s.schema_id,
                delta_record_count: s.delta_record_count,
                changelog_record_count: s.changelog_record_count,
                total_record_count: s.total_record_count,
                watermark: s.watermark,
                manifest_lists: ManifestLists {
                    base: s.base_manifest_list.clone(),
                    delta: s.delta_manifest_list.clone(),
                    changelog: s.changelog_manifest_list.clone(),
                    index: s.index_manifest.clone(),
                },
                files: None,
            }
        })
        .collect();

    let commit_groups = groups
        .iter()
        .map(|g| CommitGroupSummary {
            commit_user: g.commit_user.clone(),
            commit_identifier: g.commit_identifier,
            identifier_meaning: g.identifier_meaning().to_string(),
            snapshots: g.snapshots.iter().map(|(id, _)| *id).collect(),
            kinds: g
                .snapshots
                .iter()
                .map(|(_, k)| k.as_str().to_string())
                .collect(),
        })
        .collect();

    let tags = t
        .tags
        .iter()
        .map(|tag| {
            let id = tag.tag.as_ref().ok().map(|x| x.snapshot.id);
            TagSummary {
                name: tag.name.clone(),
                snapshot: id,
                snapshot_retained: id.is_some_and(|i| t.present_ids.contains(&i)),
            }
        })
        .collect();

    let long_lived_changelogs = match (
        t.long_lived_changelogs.keys().next(),
        t.long_lived_changelogs.keys().next_back(),
    ) {
        (Some(&first), Some(&last)) => Some(IdRange { first, last }),
        _ => None,
    };

    let schema = t.latest_schema().map(|s| SchemaSummary {
        id: s.id,
        fields: s
            .fields
            .iter()
            .map(|f| FieldSummary {
                name: f.name.clone(),
                data_type: f.data_type.clone(),
            })
            .collect(),
        partition_keys: s.partition_keys.clone(),
        primary_keys: s.primary_keys.clone(),
    });

    TableReport {
        path: t.location.root.clone(),
        branch: t.location.branch.clone(),
        options: t
            .latest_schema()
            .map(|s| s.options.clone())
            .unwrap_or_default(),
        schema,
        earliest: t.earliest(),
        latest: t.latest(),
        hints: Hints {
            earliest: t.earliest_hint.as_ref().and_then(|h| h.value),
            latest: t.latest_hint.as_ref().and_then(|h| h.value),
        },
        snapshots,
        commit_groups,
        consumers: consumer_reports,
        tags,
        long_lived_changelogs,
        expiration_fence,
        findings,
    }
}
