//! Changelog not produced: for the commits whose level-0 files no compaction has merged yet
//! (judged by [`super::changelog`]), does the history say the changelog will still come, or that
//! these writers do not produce it?
//!
//! Under `lookup` and `full-compaction` a commit's changelog exists once a compaction merges its
//! level-0 files (`paimon-format.md` §4.3), and a writer that compacts leaves at most a known
//! number of APPENDs uncompacted in a row: one for `lookup`, `full-compaction.delta-commits` for
//! a Flink full-compaction writer, none with `write-only` (§4.9). So:
//!
//! * no COMPACT at all in the retained history and more uncompacted APPENDs than that, or one
//!   writer with more than that and no COMPACT by anyone from its first on (nor ever by it):
//!   `changelog-not-produced` (warning), with the fix (a compaction job, a writer that compacts);
//! * otherwise `pending-changelog`: a warning when the writer's last commit is among them or they
//!   waited longer than `snapshot.time-retained`, else info; when neither the writer nor anyone
//!   since compacted but there are too few APPENDs to tell, the message says both possibilities;
//! * with `lookup-wait = false` the compaction is asynchronous and the history cannot tell: always
//!   `pending-changelog`.
//!
//! When the artifact holds no bucket directories, nothing can be told: one `artifact-incomplete`.

use std::collections::BTreeMap;

use crate::findings::{Clock, Code, Finding, Severity};
use crate::paimon::schema::{ChangelogProducer, TableOptions};
use crate::paimon::snapshot::CommitKind;
use crate::timeline::files::BranchFiles;
use crate::timeline::Timeline;

/// What the judgement needs of the table and its writers.
pub(super) struct Writers<'a> {
    /// The timeline.
    pub t: &'a Timeline,
    /// The report's clock.
    pub clock: &'a Clock,
    /// Snapshot ids per commit user, ascending.
    pub by_user: &'a BTreeMap<&'a str, Vec<i64>>,
    /// The artifact holds no bucket directory for the table root.
    pub no_data_dirs: bool,
}

/// `pending-changelog` per commit user whose APPENDs are not compacted yet; or, when the
/// artifact holds no data directories, one `artifact-incomplete` instead (nothing can be
/// proven either way).
pub(super) fn findings(w: &Writers<'_>, pending: BTreeMap<&str, Vec<(i64, bool)>>) -> Vec<Finding> {
    let t = w.t;
    let mut out = Vec::new();
    if w.no_data_dirs && !pending.is_empty() {
        let ids: Vec<i64> = pending.values().flatten().map(|(id, _)| *id).collect();
        out.push(
            Finding::new(
                Code::ArtifactIncomplete,
                Severity::Warning,
                format!(
                    "The artifact holds no data directories (bucket-*), so whether the changelog of snapshot{} {} was lost cannot be proven either way.",
                    if ids.len() == 1 { "" } else { "s" },
                    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                ),
                "Capture the whole table directory (all bucket-* directories, manifest/, snapshot/) in the artifact and run the check again.",
            )
            .snapshot(ids.first().copied().unwrap_or(0))
            .related(ids.iter().copied()),
        );
        return out;
    }
    let appends: usize = pending.values().map(Vec::len).sum();
    let no_compact_at_all = !t
        .snapshots
        .values()
        .any(|s| s.snapshot.commit_kind == CommitKind::Compact);
    let expected = compaction_expected_within(&t.options);
    if no_compact_at_all && expected.is_some_and(|n| appends > n) {
        out.push(never_compacted_table(w, &pending));
        return out;
    }
    for (user, ids) in pending {
        let first = ids.first().map_or(0, |(id, _)| *id);
        let compacted_since = t
            .snapshots
            .range(first..)
            .any(|(_, s)| s.snapshot.commit_kind == CommitKind::Compact);
        let user_compacts = w.by_user.get(user).is_some_and(|own| {
            own.iter().any(|id| {
                t.snapshot(*id)
                    .is_some_and(|s| s.commit_kind == CommitKind::Compact)
            })
        });
        let never_seen_compacting = !compacted_since && !user_compacts;
        if never_seen_compacting && expected.is_some_and(|n| ids.len() > n) {
            out.push(writer_never_compacts(w, user, &ids));
        } else {
            out.push(pending_finding(w, user, &ids, never_seen_compacting));
        }
    }
    out
}

/// `pending-changelog` (info) for a postpone-bucket table (`bucket = -2`) whose APPENDs' rows
/// are still in `bucket-postpone/`: by design its writers add them there with no changelog
/// (`PostponeBucketWriter`), no reader sees them, and a compaction job moves them into real
/// buckets, which is when readers get them (`paimon-format.md` §4.9). Nothing failed, so the
/// changelog checks leave these commits alone and this says where their rows are.
pub(super) fn postponed_rows(t: &Timeline, b: &BranchFiles) -> Option<Finding> {
    let waiting: Vec<i64> = t
        .snapshots
        .iter()
        .filter(|(_, s)| {
            s.snapshot.commit_kind == CommitKind::Append
                && super::producer::postponed(t, s.snapshot.schema_id)
        })
        .filter(|(id, _)| {
            b.snapshots.get(id).is_some_and(|f| {
                f.added(&b.catalog).any(|e| {
                    e.bucket() == crate::paimon::schema::POSTPONE_BUCKET
                        && b.live_at_latest(e) == Some(true)
                })
            })
        })
        .map(|(id, _)| *id)
        .collect();
    let first = *waiting.first()?;
    let ids = super::producer::id_ranges(&waiting);
    Some(
        Finding::new(
            Code::PendingChangelog,
            Severity::Info,
            format!(
                "bucket = -2 (postpone bucket): the rows of snapshot{} {ids} are still in bucket-postpone/, where no reader sees them, and carry no changelog, by design, until a compaction job moves them into real buckets.",
                plural(waiting.len())
            ),
            "Run the table's compaction (Flink's compact action or CALL sys.compact) to make these rows readable; its commit is what streaming and batch readers then read.",
        )
        .snapshot(first)
        .related(waiting.iter().copied())
        .evidence(format!(
            "the latest snapshot still holds files in bucket -2 that snapshot{} {ids} added",
            plural(waiting.len())
        ))
        .evidence(
            "a postpone-bucket writer commits its files to bucket -2 with no changelog (PostponeBucketWriter.prepareCommit), and they are not available to readers until compacted".to_string(),
        ),
    )
}

/// `changelog-not-produced` for the commits whose level-0 files an OVERWRITE removed before
/// any compaction merged them (`overwritten`: APPEND, OVERWRITE): under `lookup` and
/// `full-compaction` their changelog comes only from that compaction, which can no longer
/// happen, and streaming readers skip OVERWRITE snapshots (`paimon-format.md` §4.7, §4.9).
pub(super) fn overwritten_before_compaction(
    t: &Timeline,
    overwritten: &[(i64, i64)],
) -> Option<Finding> {
    let appends: Vec<i64> = overwritten.iter().map(|(a, _)| *a).collect();
    let mut by: Vec<i64> = overwritten.iter().map(|(_, o)| *o).collect();
    by.sort_unstable();
    by.dedup();
    let first = *appends.first()?;
    let ids = super::producer::id_ranges(&appends);
    let overwrites = super::producer::id_ranges(&by);
    let mut f = Finding::new(
        Code::ChangelogNotProduced,
        Severity::Warning,
        format!(
            "The level-0 files of snapshot{} {ids} were removed by OVERWRITE snapshot{} {overwrites} before any compaction merged them: under changelog-producer = {} their changelog comes only from that compaction, so it was never produced and never will be, and streaming readers got nothing for {}.",
            plural(appends.len()),
            plural(by.len()),
            t.options.changelog_producer.as_str(),
            if appends.len() == 1 { "that commit" } else { "those commits" }
        ),
        "Re-deliver those commits' changes downstream from their source if a streaming reader needs them; for the future, run a compaction (a writer that compacts, or CALL sys.compact) before overwriting.",
    )
    .snapshot(first)
    .related(appends.iter().chain(&by).copied());
    for (a, o) in overwritten {
        f = f.evidence(format!(
            "snapshot {a} (APPEND) added level-0 files that OVERWRITE snapshot {o} deleted, and no snapshot between them compacted them"
        ));
    }
    Some(f.evidence(if t.options.streaming_read_overwrite {
        "streaming-read-overwrite = true: a streaming reader reads the OVERWRITE's data files, the new state, not these commits' changes".to_string()
    } else {
        "a streaming reader skips OVERWRITE snapshots (streaming-read-overwrite is not set) and reads the changelog of COMPACT snapshots under this producer".to_string()
    }))
}

/// How many uncompacted APPENDs in a row a writer that compacts can leave: a lookup writer
/// compacts the level-0 files at every commit (`ForceUpLevel0Compaction`), a Flink
/// full-compaction writer every `full-compaction.delta-commits` commits (1 when unset,
/// `FlinkSink`), a write-only writer never (`paimon-format.md` §4.9). `None` when the history
/// cannot tell: with `lookup-wait = false` the compaction runs asynchronously and may land
/// several commits later.
fn compaction_expected_within(o: &TableOptions) -> Option<usize> {
    if o.write_only {
        return Some(0);
    }
    match o.changelog_producer {
        ChangelogProducer::Lookup if !o.lookup_wait => None,
        ChangelogProducer::FullCompaction => Some(
            o.full_compaction_delta_commits
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(1)
                .max(1),
        ),
        _ => Some(1),
    }
}

fn id_list(ids: impl IntoIterator<Item = i64>) -> String {
    ids.into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The evidence lines every finding about uncompacted APPENDs shares: the producer, the
/// full-compaction schedule, write-only, how long the oldest has waited.
fn producing_evidence(mut f: Finding, w: &Writers<'_>, first: i64) -> Finding {
    let t = w.t;
    let o = &t.options;
    f = f.evidence(format!(
        "changelog-producer = {}: changelog is written when level-0 files are compacted, and committed in a COMPACT snapshot",
        o.changelog_producer.as_str()
    ));
    if let Some(ts) = t.snapshot(first).map(|s| s.time_millis) {
        let waited = w.clock.now_millis.saturating_sub(ts);
        f = f.evidence(format!(
            "the oldest of them was committed {}{}",
            crate::time::before_or_after(waited, "the report's clock"),
            if waited < 0 {
                " (a clock set earlier, or a writer's clock ahead of it)"
            } else {
                ""
            }
        ));
    }
    if o.write_only {
        f = f.evidence("write-only = true: this table's writers never compact".to_string());
    }
    if o.changelog_producer == ChangelogProducer::FullCompaction {
        f = f.evidence(match o.full_compaction_delta_commits {
            Some(n) => format!(
                "full-compaction.delta-commits = {n}: a Flink writer runs a full compaction every {n} commit{}; the changelog is produced only by a compaction that reaches the highest level (FullChangelogMergeTreeCompactRewriter), other writers leave it to their automatic compaction",
                plural(usize::try_from(n).unwrap_or(0))
            ),
            None => "full-compaction.delta-commits is not set: a Flink writer then runs a full compaction at every commit; the changelog is produced only by a compaction that reaches the highest level (FullChangelogMergeTreeCompactRewriter), and writers that do not schedule full compactions produce it only when their automatic compaction happens to".to_string(),
        });
    }
    f
}

/// The remedy of `changelog-not-produced` for a compaction-produced changelog.
fn compaction_remedy(o: &TableOptions) -> String {
    let full = if o.changelog_producer == ChangelogProducer::FullCompaction {
        " For changelog-producer = full-compaction the compaction must be a full one: schedule it in the Flink writer (full-compaction.delta-commits) or run CALL sys.compact in batch mode (with compact_strategy => 'full' from Paimon 1.0)."
    } else {
        ""
    };
    format!(
        "Run a dedicated compaction job on this table (Flink `compact` action, or CALL sys.compact), or write with a writer that compacts (a Flink or Spark Paimon writer without write-only = true); writers that write APPEND snapshots only never produce this changelog.{full} Streaming readers receive the changelog when that compaction commits; do not reset consumers past these snapshots before."
    )
}

/// `changelog-not-produced` for a table whose retained history holds no COMPACT at all, with
/// more uncompacted APPENDs than a compacting writer leaves (§4.9).
fn never_compacted_table(w: &Writers<'_>, pending: &BTreeMap<&str, Vec<(i64, bool)>>) -> Finding {
    let t = w.t;
    let mut ids: Vec<i64> = pending.values().flatten().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    let users: Vec<&str> = pending.keys().copied().collect();
    let first = ids.first().copied().unwrap_or(0);
    let range = match (t.earliest(), t.latest()) {
        (Some(e), Some(l)) if e != l => format!("snapshots {e}-{l}"),
        (Some(e), _) => format!("snapshot {e}"),
        _ => "no snapshot".to_string(),
    };
    let mut f = Finding::new(
        Code::ChangelogNotProduced,
        Severity::Warning,
        format!(
            "No COMPACT snapshot in this table's retained history ({range}): nothing compacted the level-0 files {} wrote, so no changelog was produced for snapshot{} {} and streaming readers get nothing for those commits until some job compacts the table.",
            if users.len() == 1 { format!("its writer (user {})", users.first().copied().unwrap_or("")) } else { format!("its {} writers", users.len()) },
            plural(ids.len()),
            id_list(ids.iter().copied())
        ),
        compaction_remedy(&t.options),
    )
    .snapshot(first)
    .related(ids.iter().copied())
    .evidence(match compaction_expected_within(&t.options) {
        Some(n) if n > 0 => format!(
            "no COMPACT snapshot by anyone in the retained history ({range}), while a writer that compacts leaves at most {n} APPEND{} in a row uncompacted",
            plural(n)
        ),
        _ => format!("no COMPACT snapshot by anyone in the retained history ({range})"),
    });
    if let [user] = users.as_slice() {
        f = f.commit(
            user.to_string(),
            t.snapshot(first).map_or(0, |s| s.commit_identifier),
        );
    }
    for (user, own) in pending {
        f = f.evidence(format!(
            "user {user}: {} APPEND{} with rows and no COMPACT (snapshot{} {})",
            own.len(),
            plural(own.len()),
            plural(own.len()),
            id_list(own.iter().map(|(id, _)| *id))
        ));
    }
    producing_evidence(f, w, first)
}

/// `changelog-not-produced` for one writer with more uncompacted APPENDs than a compacting
/// writer leaves, and no compaction by it or by anyone after its first (§4.9).
fn writer_never_compacts(w: &Writers<'_>, user: &str, ids: &[(i64, bool)]) -> Finding {
    let t = w.t;
    let snapshot_ids: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    let first = snapshot_ids.first().copied().unwrap_or(0);
    let f = Finding::new(
        Code::ChangelogNotProduced,
        Severity::Warning,
        format!(
            "User {user} committed {} APPENDs (snapshots {}) and no snapshot from its first on is a COMPACT, by it or anyone else: no changelog was produced for them, and streaming readers get nothing for those commits until some job compacts the table.",
            snapshot_ids.len(),
            id_list(snapshot_ids.iter().copied())
        ),
        compaction_remedy(&t.options),
    )
    .snapshot(first)
    .related(snapshot_ids.iter().copied())
    .commit(user.to_string(), t.snapshot(first).map_or(0, |s| s.commit_identifier))
    .evidence(format!(
        "no COMPACT snapshot by user {user} in the retained history, and none by any user from snapshot {first} on"
    ));
    producing_evidence(f, w, first)
}

/// `pending-changelog` for one writer's uncompacted APPENDs. `never_seen_compacting`: neither
/// it nor anyone after its first APPEND compacted, yet too few APPENDs to tell a writer that
/// never compacts from one that will: the finding says both.
fn pending_finding(
    w: &Writers<'_>,
    user: &str,
    ids: &[(i64, bool)],
    never_seen_compacting: bool,
) -> Finding {
    let (t, clock) = (w.t, w.clock);
    let writer_stopped = ids.iter().any(|(_, last)| *last);
    let snapshot_ids: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    let first = snapshot_ids.first().copied().unwrap_or(0);
    let waited = t
        .snapshot(first)
        .map(|s| clock.now_millis.saturating_sub(s.time_millis));
    let long_wait = waited.is_some_and(|w| w > t.options.snapshot_time_retained_millis);
    let severity = if writer_stopped || long_wait {
        Severity::Warning
    } else {
        Severity::Info
    };
    let n = snapshot_ids.len();
    let list = id_list(snapshot_ids.iter().copied());
    let message = if never_seen_compacting {
        format!(
            "The level-0 files of snapshot{} {list} (user {user}) have not been compacted, so their changelog has not been produced, and the history cannot tell whether it will be: a writer that compacts publishes it with a later COMPACT, but a writer that never compacts (write-only, or one that writes APPEND snapshots only) never will, and then streaming readers get no changelog for these commits until a compaction job runs.",
            plural(n)
        )
    } else {
        format!(
            "The level-0 files of snapshot{} {list} (user {user}) have not been compacted yet, so their changelog has not been produced; nothing shows it was lost{}.",
            plural(n),
            if writer_stopped {
                ", but the writer's last commit is among them: unless a writer or compaction job runs again, streaming readers will not see these changes"
            } else {
                ""
            }
        )
    };
    let f = Finding::new(
        Code::PendingChangelog,
        severity,
        message,
        "Make sure a writer (or a dedicated compaction job: CALL sys.compact) runs on this table so the changelog is produced; with write-only writers, or writers that write APPEND snapshots only, schedule the compaction job. Do not reset consumers past these snapshots until it has.",
    )
    .snapshot(first)
    .related(snapshot_ids.iter().copied())
    .commit(user.to_string(), t.snapshot(first).map_or(0, |s| s.commit_identifier));
    let f = left_by_own_compact(f, t, &snapshot_ids);
    producing_evidence(f, w, first)
}

/// One line per uncompacted APPEND whose own COMPACT (same user and identifier) exists but left
/// its level-0 files at level 0 (§4.9).
fn left_by_own_compact(mut f: Finding, t: &Timeline, appends: &[i64]) -> Finding {
    for &id in appends {
        let Some(a) = t.snapshot(id) else {
            continue;
        };
        let compact = t.snapshots.range(id.saturating_add(1)..).find(|(_, s)| {
            s.snapshot.commit_kind == CommitKind::Compact
                && s.snapshot.commit_user == a.commit_user
                && s.snapshot.commit_identifier == a.commit_identifier
        });
        if let Some((cid, _)) = compact {
            f = f.evidence(format!(
                "snapshot {cid} is the COMPACT of snapshot {id}'s commit (identifier {}), but it left snapshot {id}'s level-0 files at level 0: that compaction merged other files",
                a.commit_identifier
            ));
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::testkit::timeline;

    const HOUR: i64 = 3_600_000;

    /// The findings for a table with `options` whose snapshots are `kinds` (one writer `w`,
    /// an hour apart), when `uncompacted` are its uncompacted APPENDs (the last one the writer's
    /// last commit).
    fn judge(options: &[(&str, &str)], kinds: &[&str], uncompacted: &[i64]) -> Vec<Finding> {
        let snaps: Vec<_> = kinds
            .iter()
            .zip(1..)
            .map(|(k, i)| (i, *k, "w", i, i * HOUR))
            .collect();
        let t = timeline(options, &snaps, &[]);
        let last = uncompacted.last().copied();
        let pending: Vec<(i64, bool)> = uncompacted
            .iter()
            .map(|id| (*id, Some(*id) == last))
            .collect();
        findings_at(&t, (kinds.len() as i64 + 1) * HOUR, pending)
    }

    /// The findings for writer `w`'s uncompacted APPENDs `pending` (id, whether it is the
    /// writer's last commit) of `t`, at the clock `now_millis`.
    fn findings_at(t: &Timeline, now_millis: i64, pending: Vec<(i64, bool)>) -> Vec<Finding> {
        let clock = Clock::given(now_millis);
        let mut by_user: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
        by_user.insert("w", t.snapshots.keys().copied().collect());
        let w = Writers {
            t,
            clock: &clock,
            by_user: &by_user,
            no_data_dirs: false,
        };
        findings(&w, BTreeMap::from([("w", pending)]))
    }

    fn codes(f: &[Finding]) -> Vec<Code> {
        f.iter().map(|f| f.code).collect()
    }

    #[test]
    fn a_lookup_history_without_compaction_is_not_produced_from_the_second_append() {
        let lookup = [("changelog-producer", "lookup")];
        let one = judge(&lookup, &["APPEND"], &[1]);
        assert_eq!(codes(&one), [Code::PendingChangelog]);
        assert!(one[0].message.contains("cannot tell"), "{}", one[0].message);
        let two = judge(&lookup, &["APPEND", "APPEND"], &[1, 2]);
        assert_eq!(codes(&two), [Code::ChangelogNotProduced]);
        assert_eq!(two[0].severity, Severity::Warning);
        assert_eq!(two[0].related_snapshots, [1, 2]);
    }

    #[test]
    fn a_full_compaction_schedule_allows_delta_commits_appends() {
        let opts = [
            ("changelog-producer", "full-compaction"),
            ("full-compaction.delta-commits", "3"),
        ];
        let three = judge(&opts, &["APPEND"; 3], &[1, 2, 3]);
        assert_eq!(codes(&three), [Code::PendingChangelog]);
        let four = judge(&opts, &["APPEND"; 4], &[1, 2, 3, 4]);
        assert_eq!(codes(&four), [Code::ChangelogNotProduced]);
        assert!(four[0]
            .evidence
            .iter()
            .any(|e| e.contains("full-compaction.delta-commits = 3")));
    }

    #[test]
    fn asynchronous_lookup_compaction_never_says_not_produced() {
        let opts = [
            ("changelog-producer", "lookup"),
            ("changelog-producer.lookup-wait", "false"),
        ];
        let f = judge(&opts, &["APPEND"; 4], &[1, 2, 3, 4]);
        assert_eq!(codes(&f), [Code::PendingChangelog]);
    }

    #[test]
    fn a_commit_after_the_clock_is_said_to_be_after_it() {
        let t = timeline(
            &[("changelog-producer", "lookup")],
            &[(1, "APPEND", "w", 1, 5 * HOUR)],
            &[],
        );
        let said = |now: i64| {
            let f = findings_at(&t, now, vec![(1, true)]);
            f[0].evidence
                .iter()
                .find(|e| e.starts_with("the oldest of them"))
                .cloned()
                .unwrap_or_default()
        };
        assert!(
            said(7 * HOUR).ends_with("2 h before the report's clock"),
            "{}",
            said(7 * HOUR)
        );
        assert!(
            said(4 * HOUR).contains("1 h after the report's clock"),
            "{}",
            said(4 * HOUR)
        );
    }

    #[test]
    fn write_only_writers_produce_nothing_from_the_first_append() {
        let opts = [("changelog-producer", "lookup"), ("write-only", "true")];
        let f = judge(&opts, &["APPEND"], &[1]);
        assert_eq!(codes(&f), [Code::ChangelogNotProduced]);
    }

    /// The range a never-compacted table's message names: one snapshot, or the first to the
    /// last.
    #[test]
    fn a_never_compacted_table_names_its_retained_range() {
        let opts = [("changelog-producer", "lookup"), ("write-only", "true")];
        let one = judge(&opts, &["APPEND"], &[1]);
        assert!(
            one[0].message.contains("retained history (snapshot 1)"),
            "{}",
            one[0].message
        );
        let two = judge(&opts, &["APPEND", "APPEND"], &[1, 2]);
        assert!(
            two[0].message.contains("retained history (snapshots 1-2)"),
            "{}",
            two[0].message
        );
    }

    /// A writer still running: its uncompacted APPENDs are an info until they have waited longer
    /// than `snapshot.time-retained` (they may expire before a compaction reaches them), then a
    /// warning.
    #[test]
    fn pending_changelog_warns_only_past_the_retention_time() {
        let kinds = ["APPEND", "COMPACT", "APPEND", "COMPACT"];
        let snaps: Vec<_> = kinds
            .iter()
            .zip(1..)
            .map(|(k, i)| (i, *k, "w", i, i * HOUR))
            .collect();
        let t = timeline(&[("changelog-producer", "lookup")], &snaps, &[]);
        let retained = t.options.snapshot_time_retained_millis;
        let severity_at = |now_millis: i64| {
            let f = findings_at(&t, now_millis, vec![(3, false)]);
            assert_eq!(codes(&f), [Code::PendingChangelog]);
            f[0].severity
        };
        let written = 3 * HOUR;
        assert_eq!(severity_at(written + retained - 1), Severity::Info);
        assert_eq!(severity_at(written + retained), Severity::Info);
        assert_eq!(severity_at(written + retained + 1), Severity::Warning);
    }

    #[test]
    fn a_writer_that_compacted_before_stays_pending() {
        let lookup = [("changelog-producer", "lookup")];
        let f = judge(&lookup, &["APPEND", "COMPACT", "APPEND", "APPEND"], &[3, 4]);
        assert_eq!(codes(&f), [Code::PendingChangelog]);
        assert!(!f[0].message.contains("cannot tell"), "{}", f[0].message);
        assert_eq!(f[0].severity, Severity::Warning, "the writer's last commit");
    }
}
