//! Assembling the report: each table's from what its timeline and file graph show (snapshots,
//! commit groups, tags, schema) with what the checks judged attached, then the whole.

use crate::checks::TableJudgement;
use crate::findings::{
    Clock, CommitGroupSummary, FieldSummary, Finding, Hints, IdRange, InputInfo, ManifestLists,
    RayCheckpointReport, ReadStats, Report, SchemaSummary, SnapshotFiles as SnapshotFilesSummary,
    SnapshotSummary, SparkCheckpointReport, Summary, TableReport, TagSummary, Tool, Verdict,
    REPORT_SCHEMA,
};
use crate::source::Artifact;
use crate::timeline::files::BranchFiles;
use crate::timeline::groups::CommitGroup;
use crate::timeline::Timeline;

use super::{clock, Judged, Root};

/// The report: every table's (`judged` by table, in the order of `roots` and their
/// timelines), the artifact-level `findings`, and what was read (`manifests`: decoded, cache
/// hits), summarised and sorted.
pub(super) fn report(
    artifact: &Artifact,
    roots: &[Root<'_>],
    judged: Vec<Judged>,
    findings: Vec<Finding>,
    clock: Clock,
    manifests: (u64, u64),
) -> Report {
    let mut tables = Vec::with_capacity(judged.len());
    let mut judged = judged.into_iter();
    for r in roots {
        for t in &r.timelines {
            let Some(j) = judged.next() else {
                break;
            };
            let branch = r.files.branches.get(&t.location.branch);
            tables.push(table_report(t, &j.groups, branch, j.core, j.engines));
        }
    }
    let source = artifact.stats();
    let mut report = Report {
        schema: REPORT_SCHEMA.to_string(),
        tool: Tool::default(),
        input: InputInfo {
            name: artifact.name().to_string(),
            size: artifact.size(),
            files: artifact.files().len() as u64,
            digest: clock::artifact_digest(artifact),
        },
        clock,
        verdict: Verdict::Pass,
        summary: Summary::default(),
        tables,
        findings,
        stats: ReadStats {
            files_listed: source.files_listed,
            files_read: source.files_read,
            bytes_inflated: source.bytes_inflated,
            manifests_decoded: manifests.0,
            manifest_cache_hits: manifests.1,
        },
    };
    report.finish();
    report
}

/// What the engine checkpoint checks added to one table.
#[derive(Debug, Default)]
pub(super) struct Engines {
    /// The Spark checkpoints paired with it, by path.
    pub spark_checkpoints: Vec<SparkCheckpointReport>,
    /// The Ray Data checkpoints paired with it, by path.
    pub ray_checkpoints: Vec<RayCheckpointReport>,
    /// Their findings (Spark's, then Ray's).
    pub findings: Vec<Finding>,
}

/// One timeline's report: its history summarised, and the checks' findings and summaries.
fn table_report(
    t: &Timeline,
    groups: &[CommitGroup],
    branch_files: Option<&BranchFiles>,
    judged: TableJudgement,
    engines: Engines,
) -> TableReport {
    let mut findings = judged.findings;
    findings.extend(engines.findings);
    let long_lived_changelogs = match (
        t.long_lived_changelogs.keys().next(),
        t.long_lived_changelogs.keys().next_back(),
    ) {
        (Some(&first), Some(&last)) => Some(IdRange { first, last }),
        _ => None,
    };
    TableReport {
        path: t.location.root.clone(),
        branch: t.location.branch.clone(),
        options: t
            .latest_schema()
            .map(|s| s.options.clone())
            .unwrap_or_default(),
        schema: schema_summary(t),
        earliest: t.earliest(),
        latest: t.latest(),
        hints: Hints {
            earliest: t.earliest_hint.as_ref().and_then(|h| h.value),
            latest: t.latest_hint.as_ref().and_then(|h| h.value),
        },
        snapshots: snapshot_summaries(t, branch_files),
        commit_groups: groups.iter().map(commit_group_summary).collect(),
        consumers: judged.consumers,
        tags: tag_summaries(t),
        long_lived_changelogs,
        expiration_fence: judged.expiration_fence,
        spark_checkpoints: engines.spark_checkpoints,
        ray_checkpoints: engines.ray_checkpoints,
        findings,
    }
}

/// Every snapshot present, with what its delta and changelog hold when the manifests were read.
fn snapshot_summaries(t: &Timeline, branch_files: Option<&BranchFiles>) -> Vec<SnapshotSummary> {
    t.snapshots
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
                files: branch_files.and_then(|b| {
                    let f = b.snapshots.get(&s.id).filter(|f| f.complete)?;
                    let files = &*b.catalog;
                    Some(SnapshotFilesSummary {
                        added: f.added(files).count() as u64,
                        deleted: f.deleted(files).count() as u64,
                        changelog: f.changelog.len() as u64,
                        added_rows: f
                            .added(files)
                            .map(|e| e.file().row_count().max(0) as u64)
                            .sum(),
                    })
                }),
            }
        })
        .collect()
}

fn commit_group_summary(g: &CommitGroup) -> CommitGroupSummary {
    CommitGroupSummary {
        commit_user: g.commit_user.clone(),
        commit_identifier: g.commit_identifier,
        identifier_meaning: g.identifier_meaning().to_string(),
        snapshots: g.snapshots.iter().map(|(id, _)| *id).collect(),
        kinds: g
            .snapshots
            .iter()
            .map(|(_, k)| k.as_str().to_string())
            .collect(),
    }
}

fn tag_summaries(t: &Timeline) -> Vec<TagSummary> {
    t.tags
        .iter()
        .map(|tag| {
            let id = tag.tag.as_ref().ok().map(|x| x.snapshot.id);
            TagSummary {
                name: tag.name.clone(),
                snapshot: id,
                snapshot_retained: id.is_some_and(|i| t.present_ids.contains(&i)),
            }
        })
        .collect()
}

fn schema_summary(t: &Timeline) -> Option<SchemaSummary> {
    t.latest_schema().map(|s| SchemaSummary {
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
    })
}
