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
//! * `past-lost-changelog` — a snapshot below N lost its changelog (see `changelog`): the reader
//!   believes it consumed changes it never received.
//! * `stale` — the file is older than `consumer.expiration-time`: the next non-write-only commit
//!   deletes it (§5.4, `ConsumerManager.expire` on file modification time), the fence goes with
//!   it and the reader restarts from its startup options.
//! * `caught-up` — N = latest + 1; `safe` — inside the retained range; `unreadable` — the file
//!   cannot be parsed (Paimon retries, then the reader fails to start).
//!
//! The consumer with the smallest N pins snapshot expiration; the report names it and how much
//! it holds back.

use crate::report::model::{
    Clock, Code, ConsumerReport, ConsumerVerdict, ExpirationFence, Finding, Severity,
};
use crate::timeline::Timeline;

use super::changelog::LostChangelog;
use super::relative;
use crate::paimon::schema::format_duration;

/// Judges every consumer of the timeline.
pub fn judge(
    t: &Timeline,
    clock: &Clock,
    lost: &[LostChangelog],
) -> (Vec<ConsumerReport>, Vec<Finding>) {
    let mut reports = Vec::new();
    let mut findings = Vec::new();
    let earliest = t.earliest_readable();
    let latest = t.latest();
    for c in &t.consumers {
        let file = relative(t, &c.path);
        let modified = c
            .modified
            .map(|m| m.to_utc_millis(clock.zip_time_offset_minutes));
        let age = modified.map(|m| clock.now_millis.saturating_sub(m));
        let next = match &c.consumer {
            Ok(consumer) => consumer.next_snapshot,
            Err(e) => {
                findings.push(
                    Finding::new(
                        Code::ConsumerUnreadable,
                        Severity::Error,
                        format!(
                            "Consumer {} cannot be read: {}; Paimon retries and then fails the reader's start.",
                            c.id,
                            e.problem()
                        ),
                        format!(
                            "Stop the reader, then set a known-good position with \
                             CALL sys.reset_consumer(`table` => '<db>.<table>', consumer_id => '{}', \
                             next_snapshot_id => <id>) or delete it (omit next_snapshot_id) and let the \
                             reader start from its startup options.",
                            c.id
                        ),
                    )
                    .consumer(c.id.clone())
                    .files([file.clone()])
                    .evidence(e.to_string()),
                );
                reports.push(ConsumerReport {
                    id: c.id.clone(),
                    next_snapshot: None,
                    verdict: ConsumerVerdict::Unreadable,
                    verdicts: vec![ConsumerVerdict::Unreadable],
                    modified_millis: modified,
                    age_millis: age,
                    file,
                });
                continue;
            }
        };
        let mut verdicts = Vec::new();
        let base = |f: Finding| {
            f.consumer(c.id.clone())
                .files([file.clone()])
                .evidence(format!("{file}: nextSnapshot = {next}"))
        };

        if let Some(e) = earliest {
            if next < e {
                verdicts.push(ConsumerVerdict::Expired);
                let skipped = e.saturating_sub(next);
                findings.push(
                    base(Finding::new(
                        Code::ConsumerExpired,
                        Severity::Error,
                        format!(
                            "Consumer {} will resume at snapshot {next}, which has expired (earliest \
                             readable is {e}): Paimon silently starts at {e} and {skipped} snapshot{} of \
                             changes are never read.",
                            c.id,
                            if skipped == 1 { "" } else { "s" }
                        ),
                        format!(
                            "Treat snapshots {next}..{} as lost for this reader: rebuild its downstream \
                             state from a full read (e.g. restart with scan.mode latest-full after \
                             deleting the consumer: CALL sys.reset_consumer(`table` => '<db>.<table>', \
                             consumer_id => '{}')), or replay them from the source system.",
                            e.saturating_sub(1),
                            c.id
                        ),
                    ))
                    .snapshot(next)
                    .related([e])
                    .evidence(format!(
                        "earliest readable {} = {e}",
                        if t.long_lived_changelogs.is_empty() {
                            "snapshot"
                        } else {
                            "snapshot or long-lived changelog"
                        }
                    )),
                );
            }
        }
        if let Some(l) = latest {
            if next > l.saturating_add(1) {
                verdicts.push(ConsumerVerdict::Ahead);
                findings.push(
                    base(Finding::new(
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
                verdicts.push(ConsumerVerdict::CaughtUp);
            }
        }
        for lc in lost {
            if lc.snapshot < next {
                verdicts.push(ConsumerVerdict::PastLostChangelog);
                findings.push(
                    base(Finding::new(
                        Code::ConsumerPastLostChangelog,
                        Severity::Error,
                        format!(
                            "Consumer {} has moved past snapshot {}, whose changelog was lost: it \
                             believes it consumed those changes but never received them.",
                            c.id, lc.snapshot
                        ),
                        format!(
                            "Re-deliver the lost changes downstream: rebuild the affected keys from a \
                             batch read of the table (it has the right values), or reset this consumer \
                             to a snapshot before {} once the changelog has been re-produced (e.g. by a \
                             full compaction) — stop the reader first.",
                            lc.snapshot
                        ),
                    ))
                    .snapshot(lc.snapshot)
                    .commit(lc.commit_user.clone(), lc.commit_identifier),
                );
            } else {
                findings.push(
                    base(Finding::new(
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
        if let (Some(limit), Some(age)) = (t.options.consumer_expiration_millis, age) {
            if age > limit {
                verdicts.push(ConsumerVerdict::Stale);
                let who_expires = if t.options.write_only {
                    "write-only writers never expire consumers, so it survives until a \
                     non-write-only commit or maintenance job runs — then it is deleted"
                } else {
                    "the next non-write-only commit deletes it"
                };
                findings.push(
                    base(Finding::new(
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
                            crate::report::model::ClockSource::Given => "given with --now",
                            crate::report::model::ClockSource::Capture => "the artifact's capture time",
                        }
                    )),
                );
            }
        }
        verdicts.sort_by(|a, b| b.cmp(a));
        verdicts.dedup();
        if verdicts.is_empty() {
            verdicts.push(ConsumerVerdict::Safe);
        }
        let verdict = verdicts.first().copied().unwrap_or(ConsumerVerdict::Safe);
        reports.push(ConsumerReport {
            id: c.id.clone(),
            next_snapshot: Some(next),
            verdict,
            verdicts,
            modified_millis: modified,
            age_millis: age,
            file,
        });
    }
    (reports, findings)
}

/// The consumer that pins snapshot expiration, and how much it holds back
/// (`paimon-format.md` §5.2: expiration stops below `min(nextSnapshot)` unless
/// `consumer.changelog-only`).
pub fn expiration_fence(t: &Timeline, consumers: &[ConsumerReport]) -> Option<ExpirationFence> {
    let (id, next) = consumers
        .iter()
        .filter_map(|c| c.next_snapshot.map(|n| (c.id.as_str(), n)))
        .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))?;
    let latest = t.latest()?;
    let fences = !t.options.consumer_changelog_only;
    // Without the fence, retention would keep the newest `num-retained.min` snapshots.
    let kept_by_min = latest
        .saturating_sub(t.options.snapshot_retained_min)
        .saturating_add(1);
    let held = if fences {
        kept_by_min
            .saturating_sub(next.max(t.earliest().unwrap_or(next)))
            .max(0)
    } else {
        0
    };
    let time_held = match (t.snapshot(next), t.snapshot(latest)) {
        (Some(a), Some(b)) if fences => Some(b.time_millis.saturating_sub(a.time_millis)),
        _ => None,
    };
    Some(ExpirationFence {
        consumer: id.to_string(),
        next_snapshot: next,
        fences_snapshots: fences,
        snapshots_held: held,
        time_held_millis: time_held,
    })
}
