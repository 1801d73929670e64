//! The recovery questions, one module per family of findings.
//!
//! * [`changelog`] — did a commit's changelog get lost (`lost-changelog`)? Its uncompacted
//!   commits go to `pending`: is their changelog not produced yet (`pending-changelog`), or by
//!   writers that do not compact (`changelog-not-produced`)?
//! * [`consumers`] — is each consumer's position safe (`consumer-*`)?
//! * [`dangling`] — which needed files are missing, and which of them Paimon deleted on
//!   purpose (`dangling-reference`)?
//! * [`files`] — what is left over, and what could not be checked (`orphan-file`,
//!   `artifact-incomplete`, `unreadable-file` for referenced metadata)?
//! * [`integrity`] — is the snapshot history complete (`snapshot-gap`, `hint-mismatch`,
//!   `snapshot-temp-file`, `unreadable-file`)?
//! * [`options`] — is the table configured so recovery can lose data (`risky-options`)?
//! * [`producer`] — does the changelog producer over the history leave streaming readers with
//!   less than batch readers (`changelog-not-produced` for `input`,
//!   `changelog-producer-changed`)?
//! * [`spark`] — can a Spark streaming query recover from its checkpoint (`spark-*`,
//!   `consumer-*-of-checkpoint`)? Judges the checkpoints [`crate::spark::load`] loaded.
//! * [`ray`] — did a Ray Data checkpoint mark rows done that no snapshot holds
//!   (`checkpoint-ahead-of-commit`), and do unreferenced data files hold rows the latest
//!   snapshot lacks (`rows-only-in-orphan-files`)? Row-level: judges the checkpoints
//!   [`crate::ray::load`] loaded against the rows [`crate::rows::identities`] read.
//!
//! Checks only judge: they read nothing (the timelines, file graphs, engine checkpoints and
//! row evidence were loaded before them) and return findings and per-table summaries, which the analysis
//! assembles into the report. [`judge_root`] runs the table checks over the timelines of one
//! table root (its main branch and its branches, which share data files and manifests).

pub mod changelog;
pub mod consumers;
pub mod dangling;
pub mod files;
pub mod integrity;
pub mod options;
mod pending;
pub mod producer;
pub mod ray;
pub mod spark;

use std::collections::HashSet;

use crate::findings::{Clock, ConsumerReport, ExpirationFence, Finding};
use crate::timeline::files::RootFiles;
use crate::timeline::groups::CommitGroup;
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

/// `snapshot 4` or `snapshots 4..6`, for findings.
pub fn snapshots(first: i64, last: i64) -> String {
    if first >= last {
        format!("snapshot {first}")
    } else {
        format!("snapshots {first}..{last}")
    }
}

/// `snapshot 4 is` or `snapshots 4..6 are`, for findings.
pub fn snapshots_are(first: i64, last: i64) -> String {
    if first >= last {
        format!("snapshot {first} is")
    } else {
        format!("snapshots {first}..{last} are")
    }
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
        let Some(m) = modified.map(|m| m.to_utc_millis(self.zip_offset)) else {
            return self.windows.first().map(|w| Some(w.0));
        };
        self.windows
            .iter()
            .find(|(_, lo, hi)| crate::time::in_window(m, *lo, *hi))
            .map(|w| Some(w.0))
    }
}

/// What the checks found about one table or branch: its findings and the per-table summaries
/// they judged. The analysis attaches them to the table's report.
#[derive(Debug, Default)]
pub struct TableJudgement {
    /// The findings, in the order the checks produced them (the report sorts them).
    pub findings: Vec<Finding>,
    /// The verdict on each consumer, in the timeline's order.
    pub consumers: Vec<ConsumerReport>,
    /// What pins snapshot expiration, if anything.
    pub expiration_fence: Option<ExpirationFence>,
}

/// Runs every check over the timelines of one table root (main first, then branches; `groups`
/// are their commit groups, in the same order). Root-wide findings (orphan files) go to the
/// first timeline.
pub fn judge_root(
    timelines: &[&Timeline],
    groups: &[Vec<CommitGroup>],
    root: &RootFiles,
    clock: &Clock,
) -> Vec<TableJudgement> {
    struct Prepared {
        temp_findings: Vec<Finding>,
        incomplete: Vec<Finding>,
        usable: bool,
        changelog: changelog::ChangelogFindings,
    }
    let unknowable = Unknowable::of(timelines, clock);
    let mut prepared = Vec::new();
    for (t, groups) in timelines.iter().zip(groups) {
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
        let mut changelog = changelog::check(
            t,
            groups,
            branch,
            usable.then_some(root),
            &temp_refs,
            &unknowable,
            clock,
        );
        let (temp_findings, temp_explained) = integrity::temp_files(t, usable.then_some(root));
        changelog.explained.extend(temp_explained);
        prepared.push(Prepared {
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
    let mut dangling: Vec<Vec<Finding>> = vec![Vec::new(); timelines.len()];
    for (i, f) in dangling::dangling(timelines, root) {
        if let Some(slot) = dangling.get_mut(i) {
            slot.push(f);
        }
    }
    timelines
        .iter()
        .zip(prepared)
        .enumerate()
        .zip(dangling)
        .map(|((i, (t, p)), dangling)| {
            let mut findings = p.incomplete;
            if p.usable {
                findings.extend(dangling);
                if let Some(b) = root.branches.get(&t.location.branch) {
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
            judge_timeline(t, timelines, p.changelog, findings, clock)
        })
        .collect()
}

/// The checks of one timeline that need nothing root-wide, after its file-level findings.
fn judge_timeline(
    t: &Timeline,
    others: &[&Timeline],
    changelog: changelog::ChangelogFindings,
    file_findings: Vec<Finding>,
    clock: &Clock,
) -> TableJudgement {
    let mut findings = file_findings;
    findings.extend(changelog.findings);
    findings.extend(integrity::unreadable_files(t));
    findings.extend(integrity::snapshot_gaps(t));
    match integrity::half_created_branch(t) {
        // Its missing schema is what the finding says.
        Some(half) => findings.push(half),
        None => findings.extend(integrity::unread_schema(t)),
    }
    findings.extend(integrity::hint_mismatches(t, others));
    findings.extend(integrity::schema_temp_files(t));
    findings.extend(options::risky_options(t));
    findings.extend(producer::judge(t));
    let (consumers, consumer_findings) = consumers::judge(t, clock, &changelog.lost);
    findings.extend(consumer_findings);
    let expiration_fence = consumers::expiration_fence(t, &consumers, clock.now_millis);
    TableJudgement {
        findings,
        consumers,
        expiration_fence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileTime;
    use crate::timeline::testkit::{timeline, timeline_with_files};

    fn clock(zip_offset: Option<i64>) -> Clock {
        Clock {
            zip_time_offset_minutes: zip_offset,
            ..Clock::given(100_000)
        }
    }

    #[test]
    fn finding_paths_are_relative_to_the_table_root() {
        let t = timeline(&[], &[(1, "APPEND", "w", 1, 1_000)], &[]);
        let root = t.location.root.clone();
        assert!(!root.is_empty());
        assert_eq!(
            relative(&t, &format!("{root}/bucket-0/data-1.parquet")),
            "bucket-0/data-1.parquet"
        );
        assert_eq!(relative(&t, "elsewhere/x"), "elsewhere/x");
    }

    #[test]
    fn a_file_written_in_an_unreadable_snapshots_window_may_be_that_snapshots() {
        let t = timeline_with_files(
            &[],
            &[
                (1, "APPEND", "w", 1, 10_000),
                (3, "APPEND", "w", 3, 20_000),
                (4, "APPEND", "w", 4, 30_000),
            ],
            &[],
            &[("snapshot/snapshot-2", "not json")],
        );
        let u = Unknowable::of(&[&t], &clock(None));
        assert_eq!(u.owner(Some(FileTime::Utc(15_000))), Some(Some(2)));
        assert_eq!(u.owner(Some(FileTime::Utc(25_000))), None);
        // Without a modification time it might be any unreadable snapshot's: the first.
        assert_eq!(u.owner(None), Some(Some(2)));
        // Zip times are local: the clock's offset brings them to UTC.
        let zipped = Unknowable::of(&[&t], &clock(Some(60)));
        assert_eq!(
            zipped.owner(Some(FileTime::ZipLocal(15_000 + 60 * 60_000))),
            Some(Some(2))
        );
        assert_eq!(zipped.owner(Some(FileTime::ZipLocal(15_000))), None);
        // Nothing unreadable: every file's owner is known.
        let readable = timeline(&[], &[(1, "APPEND", "w", 1, 10_000)], &[]);
        assert_eq!(Unknowable::of(&[&readable], &clock(None)).owner(None), None);
    }

    #[test]
    fn an_unreadable_snapshots_window_reaches_two_seconds_past_its_neighbours_commits() {
        let u = Unknowable {
            windows: vec![(5, Some(10_000), Some(20_000)), (9, Some(30_000), None)],
            everything: false,
            zip_offset: None,
        };
        let owner = |ms| u.owner(Some(FileTime::Utc(ms)));
        assert_eq!(owner(7_999), None);
        assert_eq!(owner(8_000), Some(Some(5)));
        assert_eq!(owner(15_000), Some(Some(5)));
        assert_eq!(owner(22_000), Some(Some(5)));
        assert_eq!(owner(22_001), None);
        assert_eq!(owner(90_000), Some(Some(9)));
        let everything = Unknowable {
            everything: true,
            ..u.clone()
        };
        assert_eq!(everything.owner(Some(FileTime::Utc(25_000))), Some(None));
    }
}
