//! The recovery questions, one module per family of findings.
//!
//! * [`changelog`] — did a commit's changelog get lost (`lost-changelog`,
//!   `pending-changelog`)?
//! * [`consumers`] — is each consumer's position safe (`consumer-*`)?
//! * [`files`] — does every needed file exist, and what is left over (`dangling-reference`,
//!   `orphan-file`, `artifact-incomplete`)?
//! * [`integrity`] — is the snapshot history complete (`snapshot-gap`, `hint-mismatch`,
//!   `snapshot-temp-file`, `unreadable-file`)?
//! * [`options`] — is the table configured so recovery can lose data (`risky-options`)?
//! * [`spark`] — can a Spark streaming query recover from its checkpoint (`spark-*`,
//!   `consumer-*-of-checkpoint`)? Run by the analysis after the table reports are built.
//! * [`ray`] — did a Ray Data checkpoint mark rows done that no snapshot holds
//!   (`checkpoint-ahead-of-commit`), and do unreferenced data files hold rows the latest
//!   snapshot lacks (`rows-only-in-orphan-files`)? Row-level; run by the analysis after the
//!   table reports are built.
//! * [`clock`] — what time is it for this artifact?
//!
//! [`root_reports`] runs them over the timelines of one table root (its main branch and its
//! branches, which share data files and manifests) and assembles their part of the report.

pub mod changelog;
pub mod clock;
pub mod consumers;
pub mod files;
pub mod integrity;
pub mod options;
pub mod ray;
pub mod spark;

use std::collections::HashSet;

use crate::report::model::{
    Clock, CommitGroupSummary, FieldSummary, Hints, IdRange, ManifestLists, SchemaSummary,
    SnapshotFiles as SnapshotFilesSummary, SnapshotSummary, TableReport, TagSummary,
};
use crate::timeline::files::RootFiles;
use crate::timeline::groups::{commit_groups, CommitGroup};
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

/// Files whose owner cannot be known because a snapshot, tag or long-lived changelog that might
/// reference them is unreadable. Such files are neither evidence of a lost commit nor reported
/// as plain orphans.
#[derive(Debug, Default, Clone)]
pub struct Unknowable {
    /// (unreadable snapshot id, window start, window end) in commit time, per branch.
    windows: Vec<(i64, Option<i64>, Option<i64>)>,
    /// A tag or long-lived changelog is unreadable: any unreferenced file might be its.
    everything: bool,
    zip_offset: Option<i64>,
}

impl Unknowable {
    /// From the timelines of one table root.
    pub fn of(timelines: &[&Timeline], clock: &Clock) -> Self {
        Unknowable {
            windows: timelines
                .iter()
                .flat_map(|t| t.unreadable_windows())
                .collect(),
            everything: timelines.iter().any(|t| t.has_unreadable_holders()),
            zip_offset: clock.zip_time_offset_minutes,
        }
    }

    /// The unreadable snapshot a file with this modification time might belong to (`Some(None)`
    /// when any file might belong to an unreadable tag or changelog).
    pub fn owner(&self, modified: Option<crate::source::FileTime>) -> Option<Option<i64>> {
        if self.everything {
            return Some(None);
        }
        let tolerance = 2_000;
        let Some(m) = modified.map(|m| m.to_utc_millis(self.zip_offset)) else {
            return self.windows.first().map(|w| Some(w.0));
        };
        self.windows
            .iter()
            .find(|(_, lo, hi)| {
                lo.is_none_or(|lo| m.saturating_add(tolerance) >= lo)
                    && hi.is_none_or(|hi| m <= hi.saturating_add(tolerance))
            })
            .map(|w| Some(w.0))
    }

    /// Whether nothing is unknowable.
    pub fn is_empty(&self) -> bool {
        !self.everything && self.windows.is_empty()
    }
}

/// Runs every check over the timelines of one table root (main first, then branches) and
/// assembles their reports. Root-wide findings (orphan files) go to the first timeline.
pub fn root_reports(timelines: &[&Timeline], root: &RootFiles, clock: &Clock) -> Vec<TableReport> {
    struct Prepared {
        groups: Vec<CommitGroup>,
        temp_findings: Vec<crate::report::model::Finding>,
        incomplete: Vec<crate::report::model::Finding>,
        usable: bool,
        changelog: changelog::ChangelogFindings,
    }
    let unknowable = Unknowable::of(timelines, clock);
    let mut prepared = Vec::new();
    for t in timelines {
        let groups = commit_groups(t);
        let (incomplete, usable) = files::incomplete(t, root);
        let temp_refs: Vec<changelog::TempSnapshot<'_>> = t
            .temp_files
            .iter()
            .filter_map(|tmp| {
                tmp.content
                    .as_ref()
                    .map(|snapshot| changelog::TempSnapshot {
                        path: relative(t, &tmp.path),
                        snapshot,
                    })
            })
            .collect();
        let branch = usable
            .then(|| root.branches.get(&t.location.branch))
            .flatten();
        let changelog = changelog::check(
            t,
            &groups,
            branch,
            usable.then_some(root),
            &temp_refs,
            &unknowable,
            clock,
        );
        let (temp_findings, temp_explained) = integrity::temp_files(t, usable.then_some(root));
        let mut changelog = changelog;
        changelog.explained.extend(temp_explained);
        prepared.push(Prepared {
            groups,
            temp_findings,
            incomplete,
            usable,
            changelog,
        });
    }
    let explained: HashSet<String> = prepared
        .iter()
        .flat_map(|p| p.changelog.explained.iter().cloned())
        .collect();
    let root_usable = prepared.iter().all(|p| p.usable);
    timelines
        .iter()
        .zip(prepared)
        .enumerate()
        .map(|(i, (t, p))| {
            let mut findings = p.incomplete;
            if p.usable {
                if let Some(b) = root.branches.get(&t.location.branch) {
                    findings.extend(files::dangling(t, b));
                    findings.extend(files::unreadable_references(b, root));
                }
            }
            if i == 0 && root_usable {
                findings.extend(files::orphans(
                    timelines,
                    root,
                    &explained,
                    &unknowable,
                    clock,
                ));
            }
            findings.extend(p.temp_findings);
            table_report(
                t,
                &p.groups,
                root.branches.get(&t.location.branch),
                p.changelog,
                findings,
                clock,
            )
        })
        .collect()
}

/// Assembles one timeline's report from its precomputed file-level findings.
fn table_report(
    t: &Timeline,
    groups: &[CommitGroup],
    branch_files: Option<&crate::timeline::files::BranchFiles>,
    changelog: changelog::ChangelogFindings,
    file_findings: Vec<crate::report::model::Finding>,
    clock: &Clock,
) -> TableReport {
    let mut findings = file_findings;
    findings.extend(changelog.findings);
    findings.extend(integrity::unreadable_files(t));
    findings.extend(integrity::snapshot_gaps(t));
    findings.extend(integrity::hint_mismatches(t));
    findings.extend(options::risky_options(t));
    let (consumer_reports, consumer_findings) = consumers::judge(t, clock, &changelog.lost);
    findings.extend(consumer_findings);
    let expiration_fence = consumers::expiration_fence(t, &consumer_reports, clock.now_millis);

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
                files: branch_files
                    .and_then(|b| b.snapshots.get(&s.id))
                    .filter(|f| f.complete)
                    .map(|f| SnapshotFilesSummary {
                        added: f.added().count() as u64,
                        deleted: f.deleted().count() as u64,
                        changelog: f.changelog.len() as u64,
                        added_rows: f.added().map(|e| e.file.row_count.max(0) as u64).sum(),
                    }),
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
        spark_checkpoints: Vec::new(),
        ray_checkpoints: Vec::new(),
        findings,
    }
}
