//! Risky options: is the table configured so that recovery can lose changelog or positions?
//!
//! * `lookup` / `full-compaction` with `write-only = true`: writers never compact
//!   (`paimon-format.md` §5.1), so the changelog (which comes from compaction, §4.3) exists only
//!   if a separate compaction job runs; without one, streaming readers never see updates.
//! * `full-compaction` with `full-compaction.delta-commits` > 1: changelog is produced only every
//!   N commits; after a crash the changes since the last full compaction wait for the next one.
//! * `lookup` with `lookup-wait = false`: changelog of a checkpoint may be committed by a later
//!   checkpoint's COMPACT, widening the window in which a crash loses it (§4.3, §4.5).
//! * Consumers without `consumer.expiration-time`: a consumer that is abandoned pins snapshot
//!   expiration forever (§5.2); Flink refuses `consumer-id` without it (§5.1).
//! * Options that do not parse (Paimon would refuse to open the table).

use crate::findings::{Code, Finding, Severity};
use crate::paimon::schema::ChangelogProducer;
use crate::paimon::snapshot::CommitKind;
use crate::timeline::Timeline;

/// Findings about the latest schema's options.
pub fn risky_options(t: &Timeline) -> Vec<Finding> {
    let mut out = Vec::new();
    if !t.options_known() {
        return out; // not the table's current options (`unread_schema` says why)
    }
    let o = &t.options;
    let producer = &o.changelog_producer;
    // A dedicated compaction job commits an empty APPEND beside each COMPACT (the Flink
    // `compact` action): the writers are the users whose APPENDs add rows.
    let compacted_by_other_user = || {
        let writers: std::collections::BTreeSet<&str> = t
            .snapshots
            .values()
            .filter(|s| {
                s.snapshot.commit_kind == CommitKind::Append
                    && s.snapshot.delta_record_count != Some(0)
            })
            .map(|s| s.snapshot.commit_user.as_str())
            .collect();
        t.snapshots.values().any(|s| {
            s.snapshot.commit_kind == CommitKind::Compact
                && !writers.contains(s.snapshot.commit_user.as_str())
        })
    };
    if producer.from_compaction() && o.write_only {
        let has_job = compacted_by_other_user();
        let severity = if has_job {
            Severity::Info
        } else {
            Severity::Warning
        };
        let mut f = Finding::new(
            Code::RiskyOptions,
            severity,
            format!(
                "changelog-producer = {} with write-only = true: writers never compact, so changelog \
                 exists only if a separate compaction job runs{}.",
                producer.as_str(),
                if has_job {
                    " (one does: COMPACT snapshots by another commit user)"
                } else {
                    ", and no COMPACT snapshot by another commit user shows one"
                }
            ),
            "Run a dedicated compaction job (Flink `compact` action or CALL sys.compact) for this \
             table, or set write-only = false.",
        );
        f = f.evidence("write-only = true".to_string());
        out.push(f);
    }
    if *producer == ChangelogProducer::FullCompaction {
        if let Some(n) = o.full_compaction_delta_commits.filter(|&n| n > 1) {
            out.push(
                Finding::new(
                    Code::RiskyOptions,
                    Severity::Info,
                    format!(
                        "changelog-producer = full-compaction with full-compaction.delta-commits = {n}: \
                         changelog is produced every {n} commits; after a crash the changes since the \
                         last full compaction stay without changelog until the next one."
                    ),
                    "Expected for this configuration; make sure the writer keeps running (or trigger \
                     a full compaction after recovery) so pending changelog is produced.",
                )
                .evidence(format!("full-compaction.delta-commits = {n}")),
            );
        }
    }
    if *producer == ChangelogProducer::Lookup && !o.lookup_wait {
        out.push(
            Finding::new(
                Code::RiskyOptions,
                Severity::Info,
                "changelog-producer = lookup with lookup-wait = false: a checkpoint's changelog may be \
                 committed by a later checkpoint, so an APPEND without a COMPACT at its identifier is \
                 normal here and a crash leaves more changelog pending.",
                "Expected for this configuration; Paimon 1.3+ keeps active lookup buckets in writer \
                 state so recovery compacts them again.",
            )
            .evidence("changelog-producer.lookup-wait = false".to_string()),
        );
    }
    let has_consumers = !t.consumers.is_empty() || o.consumer_id.is_some();
    if has_consumers && o.consumer_expiration_millis.is_none() {
        let ids: Vec<&str> = t.consumers.iter().map(|c| c.id.as_str()).collect();
        out.push(Finding::new(
            Code::RiskyOptions,
            Severity::Info,
            format!(
                "The table has consumers ({}) but no consumer.expiration-time: an abandoned \
                     consumer pins snapshot expiration forever.",
                if ids.is_empty() {
                    "consumer-id is set".to_string()
                } else {
                    ids.join(", ")
                }
            ),
            "ALTER TABLE … SET ('consumer.expiration-time' = '<longest processing + recovery + \
                 idle time>'), then restart the writer so it expires consumers.",
        ));
    }
    for p in &o.problems {
        out.push(
            Finding::new(
                Code::RiskyOptions,
                Severity::Warning,
                format!("The option {p}; Paimon refuses to open the table with it."),
                "Fix the option with ALTER TABLE … SET.",
            )
            .evidence(p.clone()),
        );
    }
    if let ChangelogProducer::Other(v) = producer {
        out.push(Finding::new(
            Code::RiskyOptions,
            Severity::Info,
            format!("changelog-producer = {v:?} is not known to this tool; changelog checks assume none."),
            "Report the value to the tool's maintainers if it is a new Paimon producer.",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::testkit::timeline;

    fn risky(options: &[(&str, &str)], snaps: &[(i64, &str, &str, i64, i64)]) -> Vec<Finding> {
        risky_options(&timeline(options, snaps, &[]))
    }

    /// Write-only writers with a compaction-produced changelog: a warning unless COMPACT
    /// snapshots by a user that writes no APPEND show a dedicated compaction job.
    #[test]
    fn write_only_is_a_warning_unless_another_user_compacts() {
        let opts = [("changelog-producer", "lookup"), ("write-only", "true")];
        let alone = risky(&opts, &[(1, "APPEND", "w", 1, 1)]);
        assert_eq!(alone.len(), 1, "{alone:#?}");
        assert_eq!(alone[0].severity, Severity::Warning);
        // The writer's own COMPACT is not a dedicated job.
        let own = risky(
            &opts,
            &[(1, "APPEND", "w", 1, 1), (2, "COMPACT", "w", 1, 2)],
        );
        assert_eq!(own[0].severity, Severity::Warning);
        let job = risky(
            &opts,
            &[(1, "APPEND", "w", 1, 1), (2, "COMPACT", "job", 1, 2)],
        );
        assert_eq!(job[0].severity, Severity::Info);
        assert!(job[0].message.contains("one does"), "{}", job[0].message);
        // A user that writes APPENDs too is a writer, not a compaction job.
        let both = risky(
            &opts,
            &[
                (1, "APPEND", "w", 1, 1),
                (2, "APPEND", "v", 1, 2),
                (3, "COMPACT", "v", 1, 3),
            ],
        );
        assert_eq!(both[0].severity, Severity::Warning);
        // Not write-only: nothing to say.
        let compacting = risky(
            &[("changelog-producer", "lookup")],
            &[(1, "APPEND", "w", 1, 1)],
        );
        assert!(compacting.is_empty(), "{compacting:#?}");
    }

    /// `full-compaction.delta-commits` above 1 leaves changelog pending between full
    /// compactions; 1 (every commit) does not.
    #[test]
    fn full_compaction_every_commit_is_not_risky() {
        let snaps = [(1, "APPEND", "w", 1, 1)];
        let every = risky(
            &[
                ("changelog-producer", "full-compaction"),
                ("full-compaction.delta-commits", "1"),
            ],
            &snaps,
        );
        assert!(every.is_empty(), "{every:#?}");
        let two = risky(
            &[
                ("changelog-producer", "full-compaction"),
                ("full-compaction.delta-commits", "2"),
            ],
            &snaps,
        );
        assert_eq!(two.len(), 1, "{two:#?}");
        assert!(
            two[0].message.contains("delta-commits = 2"),
            "{}",
            two[0].message
        );
    }
}
