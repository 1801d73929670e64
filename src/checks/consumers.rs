//! Consumers: is each reader's recorded position safe to recover from?
//!
//! A consumer file (`consumer/consumer-<id>`, `{"nextSnapshot": N}`) is a streaming reader's
//! table-side recovery position and, unless `consumer.changelog-only` is set, a fence for
//! snapshot expiration (`paimon-format.md` §5.2, §5.4, §6.1). Per consumer, the verdicts:
//!
//! * `expired` — N is below the earliest readable snapshot (or long-lived changelog when the
//!   changelog lifecycle is decoupled). On restart Paimon starts from the earliest instead, without
//!   an error: snapshots N..earliest−1 are silently skipped (§5.5,
//!   `ContinuousFromSnapshotStartingScanner`).
//! * `ahead` — N is above latest + 1: the table was recreated or rolled back. A running reader
//!   fails with "The next expected snapshot is too big!"; a restarted one waits for snapshots
//!   that will carry other data (§5.5, `NextSnapshotFetcher.rangeCheck`).
//! * `blocked` — a snapshot the reader needs next is missing while later ones exist: Paimon's
//!   reader takes a missing id at or above the earliest for one not yet committed and waits for
//!   it, with no error, so it never reads the snapshots past the hole (§5.5,
//!   `NextSnapshotFetcher.getNextSnapshot`). With no snapshot file left at all, a 1.0 or later
//!   reader fails to start and a 0.9 one waits (a warning: a capture without `snapshot/` looks
//!   the same).
//! * `past-lost-changelog` — a snapshot below N lost its changelog (see `changelog`): the reader
//!   believes it consumed changes it never received.
//! * `stale` — the file is older than `consumer.expiration-time`: the next commit that expires
//!   consumers deletes it (§5.4, `ConsumerManager.expire` on file modification time: a Paimon
//!   Java writer's, write-only ones only up to 1.3, never pypaimon's or paimon-rust's), the
//!   fence goes with it and the reader restarts from its startup options; commits after it went
//!   stale that left it show writers that do not.
//! * `caught-up` — N = latest + 1; `safe` — inside the retained range; `unreadable` — the file
//!   cannot be parsed (Paimon retries, then the reader fails to start).
//!
//! The consumer with the smallest N pins snapshot expiration; the report names it and how much
//! it holds back.

use crate::error::Error;
use crate::findings::{
    BatchImpact, Clock, Code, ConsumerReport, ConsumerVerdict, ExpirationFence, Finding, Severity,
};
use crate::timeline::{ConsumerFile, Timeline};

use super::changelog::LostChangelog;
use super::integrity::{readers_fail, unreadable_remedy};
use super::{relative, snapshots_are};
use crate::time::format_duration;

/// Judges every consumer of the timeline.
pub fn judge(
    t: &Timeline,
    clock: &Clock,
    lost: &[LostChangelog],
) -> (Vec<ConsumerReport>, Vec<Finding>) {
    let mut reports = Vec::new();
    let mut findings = Vec::new();
    for c in &t.consumers {
        let (report, fs) = judge_consumer(t, c, clock, lost);
        reports.push(report);
        findings.extend(fs);
    }
    (reports, findings)
}

/// One consumer, and the facts it is judged on.
struct Judging<'a> {
    t: &'a Timeline,
    c: &'a ConsumerFile,
    clock: &'a Clock,
    /// Its file, relative to the table root.
    file: String,
    next: i64,
    /// The file's modification time (UTC epoch ms), and its age at the clock.
    modified: Option<i64>,
    age: Option<i64>,
}

impl Judging<'_> {
    /// A finding about this consumer, with its file and position.
    fn base(&self, f: Finding) -> Finding {
        let (file, next) = (&self.file, self.next);
        f.consumer(self.c.id.clone())
            .files([file.clone()])
            .evidence(format!("{file}: nextSnapshot = {next}"))
    }
}

/// Verdicts and findings of one consumer, in the order the checks run.
#[derive(Default)]
struct Outcome {
    verdicts: Vec<ConsumerVerdict>,
    findings: Vec<Finding>,
}

/// Judges one consumer: its report and its findings.
fn judge_consumer(
    t: &Timeline,
    c: &ConsumerFile,
    clock: &Clock,
    lost: &[LostChangelog],
) -> (ConsumerReport, Vec<Finding>) {
    let file = relative(t, &c.path);
    let modified = c
        .modified
        .map(|m| m.to_utc_millis(clock.zip_time_offset_minutes));
    let age = modified.map(|m| clock.now_millis.saturating_sub(m));
    let next = match &c.consumer {
        Ok(consumer) => consumer.next_snapshot,
        Err(e) => return unreadable(c, e, file, modified, age),
    };
    let j = Judging {
        t,
        c,
        clock,
        file,
        next,
        modified,
        age,
    };
    let mut out = Outcome::default();
    expired(&j, &mut out);
    ahead(&j, &mut out);
    blocked(&j, &mut out);
    around_lost_changelog(&j, lost, &mut out);
    stale(&j, &mut out);
    let mut verdicts = out.verdicts;
    verdicts.sort_by(|a, b| b.cmp(a));
    verdicts.dedup();
    if verdicts.is_empty() {
        verdicts.push(ConsumerVerdict::Safe);
    }
    let verdict = verdicts.first().copied().unwrap_or(ConsumerVerdict::Safe);
    let report = ConsumerReport {
        id: c.id.clone(),
        next_snapshot: Some(next),
        verdict,
        verdicts,
        modified_millis: j.modified,
        age_millis: j.age,
        file: j.file,
    };
    (report, out.findings)
}

/// `consumer-unreadable`: the file cannot be parsed (Paimon retries, then the reader fails to
/// start), an error; or this copy of it cannot be read (a damaged zip entry, a limit), a warning
/// that the position is unknown ([`readers_fail`]).
fn unreadable(
    c: &ConsumerFile,
    e: &Error,
    file: String,
    modified: Option<i64>,
    age: Option<i64>,
) -> (ConsumerReport, Vec<Finding>) {
    let (severity, consequence) = readers_fail(
        e,
        Severity::Error,
        "Paimon retries and then fails the reader's start",
    );
    let remedy = if e.kind().is_in_content() {
        format!(
            "Stop the reader, then set a known-good position with \
             CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => '{}', \
             next_snapshot_id => <id>) or delete it (omit next_snapshot_id) and let the \
             reader start from its startup options.",
            c.id
        )
    } else {
        unreadable_remedy(e).to_string()
    };
    let f = Finding::new(
        Code::ConsumerUnreadable,
        severity,
        format!(
            "Consumer {} cannot be read: {}; {consequence}.",
            c.id,
            e.problem()
        ),
        remedy,
    )
    .consumer(c.id.clone())
    .files([file.clone()])
    .evidence(e.to_string());
    let report = ConsumerReport {
        id: c.id.clone(),
        next_snapshot: None,
        verdict: ConsumerVerdict::Unreadable,
        verdicts: vec![ConsumerVerdict::Unreadable],
        modified_millis: modified,
        age_millis: age,
        file,
    };
    (report, vec![f])
}

/// Makes the verdicts of `reports`, judged on a listing that lacks entries (a zip cut short:
/// [`super::integrity::unconfirmed`]), say what the artifact shows: where a consumer stands
/// against the table rests on which snapshots exist, and snapshots may lie past the cut, so
/// every verdict is `unknown` but `unreadable`, which rests on the consumer file's own bytes.
pub fn unconfirmed(reports: &mut [ConsumerReport]) {
    for r in reports {
        if r.verdict != ConsumerVerdict::Unreadable {
            r.verdict = ConsumerVerdict::Unknown;
            r.verdicts = vec![ConsumerVerdict::Unknown];
        }
    }
}

/// `expired`: the position is below the earliest readable snapshot (or long-lived changelog):
/// Paimon silently starts at the earliest instead. The earliest is the one Paimon's readers
/// see: an `EARLIEST` hint above older snapshot files that are still here hides them
/// ([`Timeline::earliest_for_readers`], §1.4), and then they are not lost, only skipped.
fn expired(j: &Judging<'_>, out: &mut Outcome) {
    let (t, next) = (j.t, j.next);
    let Some(e) = t.earliest_readable() else {
        return;
    };
    if next >= e {
        return;
    }
    out.verdicts.push(ConsumerVerdict::Expired);
    // next < e, so an oldest at or below next is below the hint too.
    let hidden_from = t.earliest().filter(|&oldest| oldest <= next);
    let f = match hidden_from {
        Some(oldest) => hidden_below_hint(j, e, oldest),
        None => expired_finding(j, e),
    };
    out.findings.push(f.snapshot(next).related([e]));
}

/// `consumer-expired` for a position whose snapshots are gone.
fn expired_finding(j: &Judging<'_>, e: i64) -> Finding {
    let (t, c, next) = (j.t, j.c, j.next);
    let skipped = e.saturating_sub(next);
    j.base(Finding::new(
        Code::ConsumerExpired,
        Severity::Error,
        format!(
            "Consumer {} will resume at snapshot {next}, which has expired (earliest readable is \
             {e}): Paimon silently starts at {e} and {skipped} snapshot{} of changes are never read.",
            c.id,
            if skipped == 1 { "" } else { "s" }
        ),
        format!(
            "Treat snapshots {next}..{} as lost for this reader: rebuild its downstream state from \
             a full read (e.g. restart with scan.mode latest-full after deleting the consumer: CALL \
             sys.reset_consumer(`table` => '<db>.<table>', consumer_id => '{}')), or replay them \
             from the source system.",
            e.saturating_sub(1),
            c.id
        ),
    ))
    .evidence(format!(
        "earliest readable {} = {e}",
        if t.long_lived_changelogs.is_empty() {
            "snapshot"
        } else {
            "snapshot or long-lived changelog"
        }
    ))
}

/// `consumer-expired` for a position below an `EARLIEST` hint that hides snapshot files still
/// present (from `oldest`): a restarted reader skips them, but they can still be read.
fn hidden_below_hint(j: &Judging<'_>, e: i64, oldest: i64) -> Finding {
    let (c, next) = (j.c, j.next);
    let last = e.saturating_sub(1);
    j.base(Finding::new(
        Code::ConsumerExpired,
        Severity::Error,
        format!(
            "Consumer {} will resume at snapshot {next}, below the EARLIEST hint ({e}): Paimon's \
             readers trust the hint while snapshot {e} exists and look no lower, so a restarted \
             reader silently starts at {e} and never reads snapshots {next}..{last}, though their \
             files are still here.",
            c.id
        ),
        format!(
            "Before the reader restarts, rewrite snapshot/EARLIEST to {oldest} (the oldest snapshot \
             file here; the hint-mismatch finding says what left the hint above it), and it resumes \
             at {next}. If it has restarted since, read what it skipped with an incremental read \
             ('incremental-between' = '{},{last}') and replay that downstream.",
            next.saturating_sub(1)
        ),
    ))
    .evidence(format!(
        "EARLIEST = {e} and snapshot-{e} exists; oldest snapshot file = snapshot-{oldest}"
    ))
}

/// `ahead` (above latest + 1: the table was recreated or rolled back) and `caught-up`
/// (exactly latest + 1).
fn ahead(j: &Judging<'_>, out: &mut Outcome) {
    let (t, c, next) = (j.t, j.c, j.next);
    let latest = t.latest();
    if let Some(l) = latest {
        if next > l.saturating_add(1) {
            out.verdicts.push(ConsumerVerdict::Ahead);
            out.findings.push(
                    j.base(Finding::new(
                        Code::ConsumerAhead,
                        Severity::Error,
                        format!(
                            "Consumer {} expects snapshot {next}, but the table's latest is {l}: the \
                             table was recreated or rolled back, and the reader will wait for (or fail \
                             on) snapshots that mean something else.",
                            c.id
                        ),
                        format!(
                            "Stop the reader and reset it to the snapshot it should read next, e.g. \
                             CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => '{}', \
                             next_snapshot_id => {}), after checking which data it has already seen.",
                            c.id,
                            l.saturating_add(1)
                        ),
                    ))
                    .snapshot(next)
                    .related([l]),
                );
        } else if next == l.saturating_add(1) {
            out.verdicts.push(ConsumerVerdict::CaughtUp);
        }
    }
}

/// `blocked`: the reader cannot pass a missing snapshot. Paimon's reader asks for its next id;
/// when no such snapshot file exists and the id is at or above the earliest, it waits for it as
/// for one not yet committed (`NextSnapshotFetcher.getNextSnapshot`, 0.9 to 1.x, §5.5), so a
/// hole between its position (or the earliest, where an expired reader starts) and the latest
/// stops it for good, silently. With no snapshot file left, a 1.0 or later reader whose position
/// is above 1 fails to start ("The next expected snapshot is too big!") and a 0.9 one waits; the
/// artifact cannot tell that table from a capture without its snapshot files, so that is a
/// warning. A reader at 1 of a table with no snapshot has read everything there is.
fn blocked(j: &Judging<'_>, out: &mut Outcome) {
    let (t, c, next) = (j.t, j.c, j.next);
    let (Some(earliest), Some(latest)) = (t.earliest(), t.latest()) else {
        if next <= 1 {
            out.verdicts.push(ConsumerVerdict::CaughtUp);
        } else {
            out.verdicts.push(ConsumerVerdict::Blocked);
            out.findings.push(no_snapshot_left(j));
        }
        return;
    };
    // A reader starts at its position, or at the earliest when that has expired.
    let start = next.max(earliest);
    let Some((first, last)) = t
        .holes()
        .find(|&(_, last)| last >= start)
        .map(|(first, last)| (first.max(start), last))
    else {
        return;
    };
    out.verdicts.push(ConsumerVerdict::Blocked);
    let after = last.saturating_add(1);
    let missing = snapshots_are(first, last);
    let when = if next >= first {
        "waits at".to_string()
    } else {
        format!(
            "will read up to snapshot {} and then wait at",
            first.saturating_sub(1)
        )
    };
    out.findings.push(
        j.base(Finding::new(
            Code::ConsumerBlocked,
            Severity::Error,
            format!(
                "Consumer {} {when} snapshot {first} for good: {missing} missing while snapshots \
                 {after}..{latest} exist, and Paimon's reader waits for a missing snapshot at or \
                 above the earliest as for one not yet committed, with no error, so it never reads \
                 snapshot {after} or any later one.",
                c.id
            ),
            format!(
                "Restore the missing snapshot files from a backup (the snapshot-gap finding says \
                 what leaves a hole). If they are lost, treat their changes as lost for this \
                 reader, stop it and move it past the hole: CALL sys.reset_consumer(`table` => \
                 '<db>.<table>', consumer_id => '{}', next_snapshot_id => {after}).",
                c.id
            ),
        ))
        .snapshot(next)
        .related([first, after])
        .evidence(format!(
            "snapshot/ holds no snapshot-{first}{}; it holds {after}..{latest}",
            if first == last {
                String::new()
            } else {
                format!(" to snapshot-{last}")
            }
        )),
    );
}

/// `consumer-blocked` for a table with no snapshot file: what a reader at `next` does then.
fn no_snapshot_left(j: &Judging<'_>) -> Finding {
    let (t, c, next) = (j.t, j.c, j.next);
    let hint = t
        .latest_hint
        .as_ref()
        .and_then(|h| h.value)
        .map(|v| format!(" (LATEST says {v})"))
        .unwrap_or_default();
    j.base(Finding::new(
        Code::ConsumerBlocked,
        Severity::Warning,
        format!(
            "Consumer {} expects snapshot {next}, but no snapshot file of the table is in the \
             artifact{hint}: if the table has none left, a Paimon 1.0 or later reader fails to \
             start (\"The next expected snapshot is too big!\") and a 0.9 reader waits for \
             snapshot {next} with no error.",
            c.id
        ),
        format!(
            "Confirm the artifact holds the table's whole snapshot/ directory. If the table lost \
             its snapshots, restore them from a backup or roll back to a tag (rollback_to writes \
             it back as a snapshot), then stop the reader and set the snapshot it should read next: \
             CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => '{}', \
             next_snapshot_id => <id>).",
            c.id
        ),
    ))
    .snapshot(next)
    .evidence("snapshot/ holds no snapshot file")
}

/// `past-lost-changelog` (a snapshot below the position lost its changelog) and the warning
/// for a consumer that has not reached one yet.
fn around_lost_changelog(j: &Judging<'_>, lost: &[LostChangelog], out: &mut Outcome) {
    let (c, next) = (j.c, j.next);
    for lc in lost {
        if lc.snapshot < next {
            out.verdicts.push(ConsumerVerdict::PastLostChangelog);
            out.findings.push(
                j.base(Finding::new(
                    Code::ConsumerPastLostChangelog,
                    Severity::Error,
                    format!(
                        "Consumer {} has moved past snapshot {}, whose changelog was lost: it \
                             believes it consumed those changes but never received them.",
                        c.id, lc.snapshot
                    ),
                    past_lost_remedy(lc),
                ))
                .snapshot(lc.snapshot)
                .commit(lc.commit_user.clone(), lc.commit_identifier),
            );
        } else {
            out.findings.push(
                j.base(Finding::new(
                    Code::ConsumerBeforeLostChangelog,
                    Severity::Warning,
                    format!(
                        "Consumer {} has not reached snapshot {} yet; when it does, it will pass \
                             over changes whose changelog was lost.",
                        c.id, lc.snapshot
                    ),
                    "Fix the table before the reader gets there (see the lost-changelog finding), \
                         or plan to rebuild the affected keys downstream.",
                ))
                .snapshot(lc.snapshot)
                .commit(lc.commit_user.clone(), lc.commit_identifier),
            );
        }
    }
}

/// The remedy of `consumer-past-lost-changelog`, for what a batch read returns (`stale` with
/// deletion vectors while the lost commit's level-0 files are uncompacted, `paimon-format.md`
/// §4.8).
fn past_lost_remedy(lc: &LostChangelog) -> String {
    match lc.batch {
        BatchImpact::Current => format!(
            "Re-deliver the lost changes downstream: rebuild the affected keys from a batch read \
             of the table (it has this commit's values), or reset this consumer to a snapshot \
             before {} once the changelog has been re-produced (e.g. by a full compaction) — stop \
             the reader first.",
            lc.snapshot
        ),
        BatchImpact::Stale | BatchImpact::Unknown => format!(
            "A batch read of the table {} this commit's values yet: first run a full compaction \
             of the affected bucket (see the lost-changelog finding), then rebuild the affected \
             keys downstream from a batch read taken after it, or reset this consumer to a \
             snapshot before {} — stop the reader first.",
            if lc.batch == BatchImpact::Stale {
                "does not hold"
            } else {
                "may not hold"
            },
            lc.snapshot
        ),
    }
}

/// `stale`: the file is older than `consumer.expiration-time`, so the next expiring commit
/// deletes it.
fn stale(j: &Judging<'_>, out: &mut Outcome) {
    let (t, c, clock, age, modified) = (j.t, j.c, j.clock, j.age, j.modified);
    let limit = t
        .options_known()
        .then_some(t.options.consumer_expiration_millis)
        .flatten();
    if let (Some(limit), Some(age)) = (limit, age) {
        if age > limit {
            out.verdicts.push(ConsumerVerdict::Stale);
            // Commits clearly after it went stale that left it in place show writers that do
            // not expire consumers (write-only, or writers outside Paimon's Java code).
            let stale_since = modified.map(|m| m.saturating_add(limit));
            let survived: Vec<i64> = t
                .snapshots
                .iter()
                .filter(|(_, s)| {
                    stale_since
                        .is_some_and(|at| crate::time::clearly_before(at, s.snapshot.time_millis))
                })
                .map(|(id, _)| *id)
                .collect();
            // Who deletes it (`paimon-format.md` §5.4): every commit of a Paimon Java writer up
            // to 1.3, write-only ones included; after 1.3 not write-only ones; never pypaimon's
            // or paimon-rust's.
            let who_expires = if !survived.is_empty() {
                format!(
                    "{} committed after it went stale and left it in place, so their writers do \
                     not expire consumers (a writer started before consumer.expiration-time was \
                     set keeps its old options, a write-only writer after Paimon 1.3 passes none, \
                     pypaimon and paimon-rust never do); it stays until a commit that expires \
                     consumers, or a maintenance job, runs — then it is deleted",
                    super::producer::snapshots_phrase(&survived)
                )
            } else if t.options.write_only {
                "the next commit of a Paimon Java writer up to 1.3 deletes it, write-only ones \
                     included (a write-only writer after 1.3 does not expire consumers, nor do \
                     pypaimon and paimon-rust)"
                    .to_string()
            } else {
                "the next commit of a Paimon Java writer deletes it (pypaimon and paimon-rust \
                     commits do not expire consumers)"
                    .to_string()
            };
            out.findings.push(
                    j.base(Finding::new(
                        Code::ConsumerStale,
                        Severity::Warning,
                        format!(
                            "Consumer {}'s file was last written {} before the report's clock, longer \
                             than consumer.expiration-time ({}): {who_expires}, and with it the \
                             expiration fence and the reader's position.",
                            c.id,
                            format_duration(age),
                            format_duration(limit)
                        ),
                        "If the reader is alive, it is not committing progress (check its checkpoints); \
                         raise consumer.expiration-time above the longest processing, recovery and idle \
                         time. If it is gone, clear it: CALL sys.clear_consumers(`table` => \
                         '<db>.<table>', including_consumers => '<id>').",
                    ))
                    .evidence(format!(
                        "file modified at {} ms, clock {} ms ({})",
                        modified.unwrap_or(0),
                        clock.now_millis,
                        match clock.source {
                            crate::findings::ClockSource::Given => "given with --now",
                            crate::findings::ClockSource::Capture => "the artifact's capture time",
                        }
                    )),
                );
        }
    }
}

/// The consumer that pins snapshot expiration, and how much it holds back.
///
/// Expiration (`paimon-format.md` §5.2, `ExpireSnapshotsImpl`) deletes snapshots from the
/// earliest up to the first one it must keep: everything below `latest − num-retained.max + 1`
/// goes; from there up to `latest − num-retained.min + 1` (and, unless
/// `consumer.changelog-only`, below the smallest consumer `nextSnapshot`) it stops at the first
/// snapshot younger than `snapshot.time-retained` at the clock. The fence holds back the
/// snapshots between where expiration would stop without consumers and where it stops with them.
/// None when the table's current retention options are unknown ([`Timeline::options_known`]).
pub fn expiration_fence(
    t: &Timeline,
    consumers: &[ConsumerReport],
    now_millis: i64,
) -> Option<ExpirationFence> {
    if !t.options_known() {
        return None;
    }
    let (id, next) = consumers
        .iter()
        .filter_map(|c| c.next_snapshot.map(|n| (c.id.as_str(), n)))
        .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))?;
    let latest = t.latest()?;
    let earliest = t.earliest()?;
    let fences = !t.options.consumer_changelog_only;
    let o = &t.options;
    let stop = |fence: Option<i64>| -> i64 {
        let min = latest
            .saturating_sub(o.snapshot_retained_max)
            .saturating_add(1)
            .max(earliest);
        let mut max_exclusive = latest
            .saturating_sub(o.snapshot_retained_min)
            .saturating_add(1);
        if let Some(f) = fence {
            max_exclusive = max_exclusive.min(f);
        }
        let cutoff = now_millis.saturating_sub(o.snapshot_time_retained_millis);
        if min >= max_exclusive {
            return max_exclusive.max(earliest);
        }
        t.snapshots
            .range(min..max_exclusive)
            .find(|(_, s)| s.snapshot.time_millis >= cutoff)
            .map_or(max_exclusive.max(earliest), |(id, _)| *id)
    };
    let (held, time_held) = if fences {
        let without = stop(None);
        let with = stop(Some(next));
        let held = without.saturating_sub(with).max(0);
        let time = match (t.snapshot(with.max(earliest)), t.snapshot(without)) {
            (Some(a), Some(b)) if held > 0 => Some(b.time_millis.saturating_sub(a.time_millis)),
            _ => None,
        };
        (held, time)
    } else {
        (0, None)
    };
    Some(ExpirationFence {
        consumer: id.to_string(),
        next_snapshot: next,
        fences_snapshots: fences,
        snapshots_held: held,
        time_held_millis: time_held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::Clock;
    use crate::timeline::testkit::timeline;

    const HOUR: i64 = 3_600_000;

    fn clock(now: i64) -> Clock {
        Clock::given(now)
    }

    fn twenty_hourly_snapshots() -> Vec<(i64, &'static str, &'static str, i64, i64)> {
        (1..=20).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect()
    }

    #[test]
    fn verdicts_cover_expired_ahead_caught_up_and_safe() {
        let snaps: Vec<_> = (5..=9).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect();
        let t = timeline(
            &[],
            &snaps,
            &[
                ("old", 2),
                ("ahead", 12),
                ("done", 10),
                ("mid", 7),
                ("edge", 5),
            ],
        );
        let (reports, findings) = judge(&t, &clock(10 * HOUR), &[]);
        let v = |id: &str| reports.iter().find(|r| r.id == id).unwrap().verdict;
        assert_eq!(v("old"), ConsumerVerdict::Expired);
        assert_eq!(v("ahead"), ConsumerVerdict::Ahead);
        assert_eq!(v("done"), ConsumerVerdict::CaughtUp);
        assert_eq!(v("mid"), ConsumerVerdict::Safe);
        assert_eq!(v("edge"), ConsumerVerdict::Safe);
        assert_eq!(findings.len(), 2, "{findings:#?}");
    }

    /// Snapshots 1..=9 with 4 and 6..=7 missing (a fast-forward halted part way, say).
    fn with_holes() -> Vec<(i64, &'static str, &'static str, i64, i64)> {
        [1, 2, 3, 5, 8, 9]
            .into_iter()
            .map(|i| (i, "APPEND", "w", i, i * HOUR))
            .collect()
    }

    #[test]
    fn a_reader_is_blocked_at_the_first_hole_from_where_it_starts() {
        let t = timeline(
            &[],
            &with_holes(),
            &[
                ("before", 2),
                ("in", 4),
                ("between", 5),
                ("in2", 7),
                ("after", 8),
                ("done", 10),
            ],
        );
        let (reports, findings) = judge(&t, &clock(10 * HOUR), &[]);
        let v = |id: &str| reports.iter().find(|r| r.id == id).unwrap().verdict;
        for id in ["before", "in", "between", "in2"] {
            assert_eq!(v(id), ConsumerVerdict::Blocked, "{id}");
        }
        assert_eq!(v("after"), ConsumerVerdict::Safe);
        assert_eq!(v("done"), ConsumerVerdict::CaughtUp);
        let blocked = |id: &str| {
            findings
                .iter()
                .find(|f| f.consumer.as_deref() == Some(id))
                .unwrap()
        };
        // The hole it stops at, the first snapshot it never reads.
        assert_eq!(blocked("before").related_snapshots, vec![4, 5]);
        assert!(
            blocked("before")
                .message
                .contains("will read up to snapshot 3 and then wait at snapshot 4"),
            "{}",
            blocked("before").message
        );
        assert_eq!(blocked("in").related_snapshots, vec![4, 5]);
        assert!(blocked("in").message.contains("waits at snapshot 4"));
        assert_eq!(blocked("between").related_snapshots, vec![6, 8]);
        assert!(blocked("between")
            .message
            .contains("snapshots 6..7 are missing while snapshots 8..9 exist"));
        assert!(blocked("between").remedy.contains("next_snapshot_id => 8"));
        assert_eq!(blocked("in2").related_snapshots, vec![7, 8]);
        assert!(findings
            .iter()
            .all(|f| f.code == Code::ConsumerBlocked && f.severity == Severity::Error));
        assert_eq!(findings.len(), 4, "{findings:#?}");
    }

    #[test]
    fn an_expired_reader_starts_at_the_earliest_and_is_blocked_at_a_hole_above_it() {
        let snaps: Vec<_> = [5, 6, 8]
            .into_iter()
            .map(|i| (i, "APPEND", "w", i, i * HOUR))
            .collect();
        let t = timeline(&[], &snaps, &[("old", 2)]);
        let (r, f) = judge(&t, &clock(10 * HOUR), &[]);
        assert_eq!(
            r[0].verdicts,
            vec![ConsumerVerdict::Blocked, ConsumerVerdict::Expired]
        );
        let b = f.iter().find(|f| f.code == Code::ConsumerBlocked).unwrap();
        assert_eq!(b.related_snapshots, vec![7, 8]);
    }

    #[test]
    fn an_earliest_hint_above_older_snapshots_hides_them_from_a_restarted_reader() {
        use crate::timeline::testkit::timeline_with_files;
        let snaps: Vec<_> = (2..=9).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect();
        let consumers = [("hidden", 3), ("gone", 1), ("at", 5)];
        let t = timeline_with_files(&[], &snaps, &consumers, &[("snapshot/EARLIEST", "5")]);
        let (r, f) = judge(&t, &clock(10 * HOUR), &[]);
        let v = |r: &[ConsumerReport], id: &str| r.iter().find(|r| r.id == id).unwrap().verdict;
        assert_eq!(v(&r, "hidden"), ConsumerVerdict::Expired);
        assert_eq!(v(&r, "gone"), ConsumerVerdict::Expired);
        assert_eq!(v(&r, "at"), ConsumerVerdict::Safe);
        let of = |id: &str| {
            f.iter()
                .find(|f| f.consumer.as_deref() == Some(id))
                .unwrap()
        };
        assert!(
            of("hidden").message.contains("below the EARLIEST hint (5)")
                && of("hidden")
                    .message
                    .contains("never reads snapshots 3..4, though their files are still here"),
            "{}",
            of("hidden").message
        );
        assert!(of("hidden")
            .remedy
            .starts_with("Before the reader restarts, rewrite snapshot/EARLIEST to 2"));
        assert!(of("gone")
            .message
            .contains("which has expired (earliest readable is 5)"));
        // A hint naming a snapshot that is not here is ignored: the oldest present counts.
        let t = timeline_with_files(&[], &snaps, &consumers, &[("snapshot/EARLIEST", "12")]);
        let (r, _) = judge(&t, &clock(10 * HOUR), &[]);
        assert_eq!(v(&r, "hidden"), ConsumerVerdict::Safe);
        assert_eq!(v(&r, "gone"), ConsumerVerdict::Expired);
    }

    #[test]
    fn with_no_snapshot_left_a_reader_past_one_is_blocked_and_one_at_one_has_read_all() {
        let t = timeline(&[], &[], &[("c", 11), ("new", 1)]);
        let (r, f) = judge(&t, &clock(10 * HOUR), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Blocked);
        assert_eq!(r[1].verdict, ConsumerVerdict::CaughtUp);
        assert_eq!(f.len(), 1, "{f:#?}");
        // The artifact cannot tell a table without snapshots from a capture without them.
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            f[0].message.contains("expects snapshot 11"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn staleness_uses_the_expiration_time_and_the_clock() {
        let snaps: Vec<_> = (1..=3).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect();
        // The test kit writes consumer files with modification time 0.
        let t = timeline(&[("consumer.expiration-time", "1 h")], &snaps, &[("c", 2)]);
        let (r, f) = judge(&t, &clock(30 * 60_000), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Safe, "{f:#?}");
        let (r, f) = judge(&t, &clock(2 * HOUR), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Stale);
        assert!(f.iter().any(|x| x.code == Code::ConsumerStale));
        // Exactly as old as the expiration time is not yet stale: ConsumerManager.expire
        // (paimon-core, consumer/ConsumerManager.java) deletes a file only when
        // `expireDateTime.isAfter(modificationTime)`, strictly.
        let (r, _) = judge(&t, &clock(HOUR), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Safe);
        let (r, _) = judge(&t, &clock(HOUR + 1), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Stale);
        // Without consumer.expiration-time consumers never go stale.
        let t = timeline(&[], &snaps, &[("c", 2)]);
        let (r, _) = judge(&t, &clock(100 * HOUR), &[]);
        assert_eq!(r[0].verdict, ConsumerVerdict::Safe);
    }

    #[test]
    fn a_stale_consumer_says_who_deletes_it_by_what_the_history_shows() {
        let stale_message = |options: &[(&str, &str)], times: &[i64]| {
            let snaps: Vec<_> = (1..)
                .zip(times)
                .map(|(i, t)| (i, "APPEND", "w", i, *t))
                .collect();
            let t = timeline(options, &snaps, &[("c", 2)]);
            let (_, f) = judge(&t, &clock(5 * HOUR), &[]);
            let f = f
                .into_iter()
                .find(|x| x.code == Code::ConsumerStale)
                .unwrap();
            f.message
        };
        let expiring = [("consumer.expiration-time", "1 h")];
        // Commits after it went stale (at 1 h) left it: their writers do not expire consumers.
        let m = stale_message(&expiring, &[HOUR / 2, 2 * HOUR, 3 * HOUR]);
        assert!(
            m.contains("snapshots 2, 3 committed after it went stale and left it in place"),
            "{m}"
        );
        // No commit since: who will delete it.
        let m = stale_message(&expiring, &[HOUR / 4, HOUR / 2]);
        assert!(
            m.contains("the next commit of a Paimon Java writer deletes it"),
            "{m}"
        );
        let write_only = [("consumer.expiration-time", "1 h"), ("write-only", "true")];
        let m = stale_message(&write_only, &[HOUR / 4, HOUR / 2]);
        assert!(
            m.contains("Paimon Java writer up to 1.3 deletes it, write-only ones included"),
            "{m}"
        );
    }

    #[test]
    fn lost_changelog_before_and_after_the_position() {
        let snaps: Vec<_> = (1..=6).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect();
        let t = timeline(&[], &snaps, &[("past", 5), ("before", 3), ("at", 4)]);
        let lost = [LostChangelog {
            snapshot: 4,
            commit_user: "w".into(),
            commit_identifier: 4,
            files: vec![],
            batch: BatchImpact::Current,
        }];
        let (r, _) = judge(&t, &clock(7 * HOUR), &lost);
        let v = |id: &str| r.iter().find(|x| x.id == id).unwrap().verdict;
        assert_eq!(v("past"), ConsumerVerdict::PastLostChangelog);
        assert_eq!(v("before"), ConsumerVerdict::Safe);
        assert_eq!(v("at"), ConsumerVerdict::Safe);
    }

    #[test]
    fn a_stale_batch_view_is_not_the_source_of_a_rebuild() {
        let snaps: Vec<_> = (1..=6).map(|i| (i, "APPEND", "w", i, i * HOUR)).collect();
        let t = timeline(&[], &snaps, &[("past", 5)]);
        let remedy = |batch| {
            let lost = [LostChangelog {
                snapshot: 4,
                commit_user: "w".into(),
                commit_identifier: 4,
                files: vec![],
                batch,
            }];
            let (_, f) = judge(&t, &clock(7 * HOUR), &lost);
            f.into_iter()
                .find(|f| f.code == Code::ConsumerPastLostChangelog)
                .unwrap()
                .remedy
        };
        assert!(remedy(BatchImpact::Current).contains("it has this commit's values"));
        let stale = remedy(BatchImpact::Stale);
        assert!(stale.contains("does not hold") && stale.contains("full compaction"));
        assert!(!stale.contains("it has this commit's values"));
        assert!(remedy(BatchImpact::Unknown).contains("may not hold"));
    }

    #[test]
    fn the_slowest_consumer_holds_back_what_expiration_would_delete() {
        // 20 snapshots an hour apart, clock at hour 30, min retained 10, time retained 1 h:
        // without consumers expiration stops at 11; a consumer at 3 holds back 3..10.
        let t = timeline(
            &[],
            &twenty_hourly_snapshots(),
            &[("slow", 3), ("fast", 15)],
        );
        let (reports, _) = judge(&t, &clock(30 * HOUR), &[]);
        let fence = expiration_fence(&t, &reports, 30 * HOUR).unwrap();
        assert_eq!(fence.consumer, "slow");
        assert_eq!(fence.snapshots_held, 8);
        assert_eq!(fence.time_held_millis, Some(8 * HOUR));
        // With consumer.changelog-only consumers do not fence snapshots.
        let t = timeline(
            &[("consumer.changelog-only", "true")],
            &twenty_hourly_snapshots(),
            &[("slow", 3)],
        );
        let (reports, _) = judge(&t, &clock(30 * HOUR), &[]);
        let fence = expiration_fence(&t, &reports, 30 * HOUR).unwrap();
        assert!(!fence.fences_snapshots);
        assert_eq!(fence.snapshots_held, 0);
        // Recent snapshots are kept by time anyway: nothing is held back.
        let t = timeline(&[], &twenty_hourly_snapshots(), &[("slow", 3)]);
        let (reports, _) = judge(&t, &clock(0), &[]);
        assert_eq!(expiration_fence(&t, &reports, 0).unwrap().snapshots_held, 0);
    }

    #[test]
    fn absurd_positions_do_not_overflow() {
        let t = timeline(
            &[("snapshot.num-retained.min", "-9223372036854775808")],
            &[(9_223_372_036_854_775_807, "APPEND", "w", 1, i64::MAX)],
            &[("max", i64::MAX), ("min", i64::MIN)],
        );
        let (reports, _) = judge(&t, &clock(i64::MIN), &[]);
        assert_eq!(reports.len(), 2);
        let _ = expiration_fence(&t, &reports, i64::MAX);
    }
}
