//! The changelog producer over a table's history: given the producer each snapshot was written
//! under and the one a streaming reader reads with, does a streaming reader silently get less
//! than a batch reader?
//!
//! * `changelog-producer = input` and an APPEND that wrote rows without a changelog manifest
//!   list: the writer did not write the input changelog, and a streaming reader of an `input`
//!   table reads only APPEND changelog (`paimon-format.md` §4.10): `changelog-not-produced`.
//! * `changelog-producer` changed between schema versions: the reader picks its follow-up
//!   scanner from the current options, so snapshots written under another producer are read the
//!   current way, and their changelog is skipped or missing (§4.11):
//!   `changelog-producer-changed`.
//!
//! * `changelog-producer = full-compaction`, COMPACT snapshots in the history, and none of them
//!   carries changelog: no compaction reached the highest level, the only one that writes
//!   full-compaction changelog (§4.9), so streaming readers (which read only COMPACT changelog,
//!   §4.11) have received nothing for the APPENDs before them: `changelog-not-produced`.
//!
//! Writers that never compact under `lookup` / `full-compaction` are judged with the commits in
//! [`super::changelog`] (§4.9).

use crate::findings::{Code, Finding, Severity};
use crate::paimon::schema::{ChangelogProducer, TableOptions, TableSchema};
use crate::paimon::snapshot::CommitKind;
use crate::timeline::Timeline;

/// How a streaming reader reads the snapshots after its start (`DataTableStreamScan`,
/// `paimon-format.md` §4.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// `none`: APPEND deltas.
    Deltas,
    /// `input`: APPEND changelog.
    AppendChangelog,
    /// `lookup`, `full-compaction`: COMPACT changelog.
    CompactChangelog,
}

impl Reads {
    fn of(p: &ChangelogProducer) -> Option<Reads> {
        match p {
            ChangelogProducer::None => Some(Reads::Deltas),
            ChangelogProducer::Input => Some(Reads::AppendChangelog),
            ChangelogProducer::Lookup | ChangelogProducer::FullCompaction => {
                Some(Reads::CompactChangelog)
            }
            ChangelogProducer::Other(_) => None,
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Reads::Deltas => {
                "the delta of APPEND snapshots (the written records, no -U/+U retractions)"
            }
            Reads::AppendChangelog => "the changelog of APPEND snapshots",
            Reads::CompactChangelog => "the changelog of COMPACT snapshots",
        }
    }
}

/// Both checks over one timeline.
pub fn judge(t: &Timeline) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(input_without_changelog(t));
    out.extend(full_compaction_never_full(t));
    out.extend(producer_changed(t));
    out
}

/// `changelog-not-produced`: a full-compaction table whose COMPACT snapshots (written under
/// full-compaction) all lack a changelog manifest list, with APPENDs that wrote rows before the
/// last of them (§4.9, §4.11).
fn full_compaction_never_full(t: &Timeline) -> Option<Finding> {
    if !t.options_known() || t.options.changelog_producer != ChangelogProducer::FullCompaction {
        return None;
    }
    let under_full =
        |schema_id: i64| producer_of(t, schema_id) == Some(ChangelogProducer::FullCompaction);
    let compacts: Vec<i64> = t
        .snapshots
        .iter()
        .filter(|(_, s)| {
            s.snapshot.commit_kind == CommitKind::Compact && under_full(s.snapshot.schema_id)
        })
        .map(|(id, _)| *id)
        .collect();
    let last = *compacts.last()?;
    let with_changelog = compacts.iter().any(|id| {
        t.snapshot(*id).is_some_and(|s| {
            s.changelog_manifest_list.is_some() || s.changelog_record_count.is_some_and(|n| n > 0)
        })
    });
    if with_changelog {
        return None;
    }
    let appends: Vec<i64> = t
        .snapshots
        .range(..last)
        .filter(|(_, s)| {
            s.snapshot.commit_kind == CommitKind::Append
                && s.snapshot.delta_record_count.is_some_and(|n| n > 0)
                && under_full(s.snapshot.schema_id)
        })
        .map(|(id, _)| *id)
        .collect();
    let &first = appends.first()?;
    Some(
        Finding::new(
            Code::ChangelogNotProduced,
            Severity::Warning,
            format!(
                "changelog-producer = full-compaction, but none of the COMPACT {} carries changelog: no compaction reached the highest level, so no full compaction was committed and streaming readers have received nothing for {} before {}.",
                snapshots_phrase(&compacts),
                snapshots_phrase(&appends),
                if compacts.len() == 1 { "it" } else { "the last of them" }
            ),
            "Run a full compaction (CALL sys.compact in batch mode, with compact_strategy => 'full' from Paimon 1.0, or schedule one in the Flink writer with full-compaction.delta-commits): it writes the changelog of everything merged since the last full compaction. Do not reset consumers past these snapshots before.",
        )
        .snapshot(first)
        .related(appends.iter().copied().chain(compacts.iter().copied()))
        .evidence(format!(
            "{} (COMPACT, under full-compaction) {} no changelog manifest list",
            snapshots_phrase(&compacts),
            if compacts.len() == 1 { "has" } else { "have" }
        ))
        .evidence(
            "full-compaction changelog is written only by a compaction whose output is the highest level (FullChangelogMergeTreeCompactRewriter), and a streaming reader of a full-compaction table reads only the changelog of COMPACT snapshots (CompactionChangelogFollowUpScanner)".to_string(),
        ),
    )
}

/// The options a snapshot of schema `schema_id` was written under, if that schema was read.
pub(super) fn options_of(t: &Timeline, schema_id: i64) -> Option<&TableOptions> {
    t.schemas.get(&schema_id).map(TableSchema::table_options)
}

/// Whether a snapshot was written under a postpone-bucket schema (`bucket = -2`): its writer put
/// its rows in `bucket-postpone/` with no changelog, by design (`PostponeBucketWriter`,
/// `paimon-format.md` §4.9); a compaction job moves them into real buckets.
pub(super) fn postponed(t: &Timeline, schema_id: i64) -> bool {
    options_of(t, schema_id).is_some_and(TableOptions::postpone_bucket)
}

/// The producer a snapshot was written under (its schema's option), if its schema was read.
fn producer_of(t: &Timeline, schema_id: i64) -> Option<ChangelogProducer> {
    options_of(t, schema_id).map(|o| o.changelog_producer.clone())
}

/// Snapshot ids for messages: runs of three or more as `a-b`.
pub fn id_ranges(ids: &[i64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids.get(j + 1).copied() == ids.get(j).map(|v| v + 1) {
            j += 1;
        }
        let (a, b) = (ids.get(i).copied(), ids.get(j).copied());
        if let (Some(a), Some(b)) = (a, b) {
            match j - i {
                0 => parts.push(a.to_string()),
                1 => parts.push(format!("{a}, {b}")),
                _ => parts.push(format!("{a}-{b}")),
            }
        }
        i = j + 1;
    }
    parts.join(", ")
}

/// The verb for [`snapshots_phrase`]'s subject.
fn carry(ids: &[i64]) -> &'static str {
    if ids.len() == 1 {
        "carries"
    } else {
        "carry"
    }
}

pub(super) fn snapshots_phrase(ids: &[i64]) -> String {
    format!(
        "snapshot{} {}",
        if ids.len() == 1 { "" } else { "s" },
        id_ranges(ids)
    )
}

/// `changelog-not-produced`: APPENDs with rows, written under `input`, with no changelog
/// manifest list (§4.10).
fn input_without_changelog(t: &Timeline) -> Vec<Finding> {
    let missing: Vec<i64> = t
        .snapshots
        .iter()
        .filter(|(_, s)| {
            let s = &s.snapshot;
            s.commit_kind == CommitKind::Append
                && s.delta_record_count.is_some_and(|n| n > 0)
                && s.changelog_manifest_list.is_none()
                && producer_of(t, s.schema_id) == Some(ChangelogProducer::Input)
                && !postponed(t, s.schema_id)
        })
        .map(|(id, _)| *id)
        .collect();
    let Some(&first) = missing.first() else {
        return Vec::new();
    };
    let with_list = t
        .snapshots
        .values()
        .filter(|s| {
            s.snapshot.changelog_manifest_list.is_some()
                && producer_of(t, s.snapshot.schema_id) == Some(ChangelogProducer::Input)
        })
        .count();
    let users: std::collections::BTreeSet<&str> = missing
        .iter()
        .filter_map(|id| t.snapshot(*id))
        .map(|s| s.commit_user.as_str())
        .collect();
    let phrase = snapshots_phrase(&missing);
    let mut f = Finding::new(
        Code::ChangelogNotProduced,
        Severity::Warning,
        format!(
            "changelog-producer = input, but {phrase} (APPEND, with rows) {} no changelog manifest list: the writer did not write the input changelog, so streaming readers of this table get nothing for {}.",
            if missing.len() == 1 { "has" } else { "have" },
            if missing.len() == 1 { "that commit" } else { "those commits" }
        ),
        "Write with a writer that writes the input changelog (Paimon's own writers double-write it next to the data files), or, if no streaming reader needs it, set changelog-producer = none (streaming readers then read the deltas). Re-deliver the changes of these snapshots downstream from a batch read.",
    )
    .snapshot(first)
    .related(missing.iter().copied())
    .evidence(format!(
        "a streaming reader of an input table reads only the changelog of APPEND snapshots (InputChangelogFollowUpScanner), and a commit writes a changelog manifest list whenever it has changelog files; {phrase} were written under an input schema with rows and have none"
    ))
    .evidence(format!(
        "commit user{} {}",
        if users.len() == 1 { "" } else { "s" },
        users.into_iter().collect::<Vec<_>>().join(", ")
    ));
    if with_list > 0 {
        f = f.evidence(format!(
            "{with_list} other snapshot{} under an input schema {} a changelog manifest list",
            if with_list == 1 { "" } else { "s" },
            if with_list == 1 { "has" } else { "have" }
        ));
    }
    vec![f]
}

/// One run of consecutive snapshots written under one producer.
struct Run {
    producer: ChangelogProducer,
    schemas: Vec<i64>,
    ids: Vec<i64>,
}

/// `changelog-producer-changed`: the retained snapshots were written under producers that a
/// streaming reader with the current options reads differently (§4.11).
fn producer_changed(t: &Timeline) -> Option<Finding> {
    if !t.options_known() {
        return None; // what a reader reads now is unknown (`unread_schema` says why)
    }
    let current = t.options.changelog_producer.clone();
    let reads_now = Reads::of(&current)?;
    let mut runs: Vec<Run> = Vec::new();
    for (id, s) in &t.snapshots {
        let Some(p) = producer_of(t, s.snapshot.schema_id) else {
            continue;
        };
        match runs.last_mut() {
            Some(r) if r.producer == p => {
                r.ids.push(*id);
                if !r.schemas.contains(&s.snapshot.schema_id) {
                    r.schemas.push(s.snapshot.schema_id);
                }
            }
            _ => runs.push(Run {
                producer: p,
                schemas: vec![s.snapshot.schema_id],
                ids: vec![*id],
            }),
        }
    }
    let differing: Vec<&Run> = runs
        .iter()
        .filter(|r| Reads::of(&r.producer).is_some_and(|x| x != reads_now))
        .collect();
    if differing.is_empty() {
        return None;
    }
    let history = runs
        .iter()
        .map(|r| {
            format!(
                "{} (schema {}: {})",
                r.producer.as_str(),
                r.schemas
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                snapshots_phrase(&r.ids)
            )
        })
        .collect::<Vec<_>>()
        .join(", then ");
    let consequences: Vec<String> = differing
        .iter()
        .filter_map(|r| consequence(t, r, reads_now))
        .collect();
    if consequences.is_empty() {
        return None; // the older producer's snapshots left nothing the reader now skips
    }
    let first_current = runs
        .iter()
        .rev()
        .take_while(|r| Reads::of(&r.producer) == Some(reads_now))
        .last()
        .and_then(|r| r.ids.first().copied());
    let mut f = Finding::new(
        Code::ChangelogProducerChanged,
        Severity::Warning,
        format!(
            "changelog-producer changed between schema versions: {history}. A streaming reader with the current options ({}) reads {}, so {}.",
            current.as_str(),
            reads_now.phrase(),
            consequences.join("; ")
        ),
        format!(
            "If the change was meant, re-deliver the state as of the change downstream from a batch read{} and stream from there on; if it was not, set changelog-producer back (ALTER TABLE … SET) before more snapshots are written under it.",
            first_current.map_or(String::new(), |id| format!(" of snapshot {}", id - 1))
        ),
    )
    .evidence(
        "a streaming reader chooses how to read every snapshot from the table's options at read time (DataTableStreamScan.createFollowUpScanner); a snapshot records only its schema id".to_string(),
    );
    if let Some(id) = first_current {
        f = f.snapshot(id);
    }
    f = f.related(differing.iter().flat_map(|r| r.ids.iter().copied()));
    for r in &runs {
        f = f.evidence(format!(
            "{} written under changelog-producer = {} (schema {})",
            snapshots_phrase(&r.ids),
            r.producer.as_str(),
            r.schemas
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Some(f)
}

/// What a reader that reads `now` gets for a run written under another producer.
fn consequence(t: &Timeline, r: &Run, now: Reads) -> Option<String> {
    let before = Reads::of(&r.producer)?;
    let of_kind = |kind: CommitKind, with_changelog: bool| -> Vec<i64> {
        r.ids
            .iter()
            .copied()
            .filter(|id| {
                t.snapshot(*id).is_some_and(|s| {
                    s.commit_kind == kind
                        && (!with_changelog || s.changelog_manifest_list.is_some())
                })
            })
            .collect()
    };
    let later_compact = t
        .snapshots
        .range(r.ids.last().map_or(0, |l| l + 1)..)
        .find(|(_, s)| {
            s.snapshot.commit_kind == CommitKind::Compact
                && s.snapshot.changelog_manifest_list.is_some()
        })
        .map(|(id, _)| *id);
    // What the run wrote that the reader now skips; nothing skipped, nothing to say.
    let skipped = |ids: Vec<i64>| (!ids.is_empty()).then_some(ids);
    Some(match (before, now) {
        (Reads::AppendChangelog, Reads::CompactChangelog) => {
            let ids = skipped(of_kind(CommitKind::Append, true))?;
            format!(
                "the input changelog of {} is never read: those changes reach it only folded into a later COMPACT's changelog{}, with the values of that time",
                snapshots_phrase(&ids),
                later_compact.map_or(String::new(), |id| format!(" (the first is snapshot {id})"))
            )
        }
        (Reads::AppendChangelog, Reads::Deltas) => format!(
            "the input changelog of {} is not read: it gets their deltas instead, and from the change on no changelog is produced",
            snapshots_phrase(&skipped(of_kind(CommitKind::Append, true))?)
        ),
        (Reads::CompactChangelog, Reads::Deltas) => format!(
            "the changelog of {} (COMPACT, written under {}) is not read, it gets the APPEND deltas instead, and from the change on no changelog is produced: a downstream that needs -U/+U retractions silently gets less",
            snapshots_phrase(&skipped(of_kind(CommitKind::Compact, true))?),
            r.producer.as_str()
        ),
        (Reads::CompactChangelog, Reads::AppendChangelog) => {
            let appends = skipped(of_kind(CommitKind::Append, false))?;
            let compacts = of_kind(CommitKind::Compact, true);
            format!(
                "{} (APPEND, written under {}) {} no changelog of {} own{}: it gets nothing for {}",
                snapshots_phrase(&appends),
                r.producer.as_str(),
                carry(&appends),
                if appends.len() == 1 { "its" } else { "their" },
                if compacts.is_empty() {
                    String::new()
                } else {
                    format!(", and the changelog of {} (COMPACT) is not read", snapshots_phrase(&compacts))
                },
                if appends.len() == 1 { "it" } else { "them" }
            )
        }
        (Reads::Deltas, _) => format!(
            "{} {} no changelog (written under none): it gets nothing for them",
            snapshots_phrase(&r.ids),
            carry(&r.ids)
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::testkit::timeline_with_files;

    /// One snapshot of [`table`]: its id, commit kind, schema id and delta record count, whether
    /// it has a changelog manifest list, and its changelog record count.
    struct Snap {
        id: i64,
        kind: &'static str,
        schema: i64,
        rows: i64,
        list: bool,
        changelog_rows: Option<i64>,
    }

    fn snap(id: i64, kind: &'static str, schema: i64, rows: i64) -> Snap {
        Snap {
            id,
            kind,
            schema,
            rows,
            list: false,
            changelog_rows: None,
        }
    }

    impl Snap {
        /// With a changelog manifest list (and one changelog record).
        fn with_list(self) -> Snap {
            Snap {
                list: true,
                changelog_rows: Some(1),
                ..self
            }
        }

        /// With `n` changelog records and no changelog manifest list.
        fn changelog_rows(self, n: i64) -> Snap {
            Snap {
                changelog_rows: Some(n),
                ..self
            }
        }
    }

    /// A table whose schema `i` has `changelog-producer = producers[i]` (the last one is the
    /// current option), with the given snapshots.
    fn table(producers: &[&str], snapshots: &[Snap]) -> Timeline {
        let mut raw: Vec<(String, String)> = producers
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, p)| {
                (
                    format!("schema/schema-{i}"),
                    format!(
                        r#"{{"version": 3, "id": {i}, "fields": [{{"id": 0, "name": "k", "type": "INT NOT NULL"}}], "partitionKeys": [], "primaryKeys": ["k"], "options": {{"changelog-producer": "{p}"}}}}"#
                    ),
                )
            })
            .collect();
        for s in snapshots {
            let id = s.id;
            let list = if s.list {
                format!(r#", "changelogManifestList": "c-{id}""#)
            } else {
                String::new()
            };
            let changelog_rows = s.changelog_rows.map_or(String::new(), |n| {
                format!(r#", "changelogRecordCount": {n}"#)
            });
            raw.push((
                format!("snapshot/snapshot-{id}"),
                format!(
                    r#"{{"version": 3, "id": {id}, "schemaId": {}, "baseManifestList": "b-{id}", "deltaManifestList": "d-{id}"{list}, "commitUser": "u", "commitIdentifier": {id}, "commitKind": "{}", "timeMillis": {id}000, "deltaRecordCount": {}{changelog_rows}}}"#,
                    s.schema, s.kind, s.rows
                ),
            ));
        }
        let raw: Vec<(&str, &str)> = raw.iter().map(|(p, b)| (p.as_str(), b.as_str())).collect();
        let t = timeline_with_files(&[("changelog-producer", producers[0])], &[], &[], &raw);
        assert_eq!(t.snapshots.len(), snapshots.len(), "{:?}", t.problems);
        t
    }

    fn with_code(t: &Timeline, code: Code) -> Vec<Finding> {
        judge(t).into_iter().filter(|f| f.code == code).collect()
    }

    fn one(t: &Timeline, code: Code) -> Finding {
        let mut found = with_code(t, code);
        assert_eq!(found.len(), 1, "{found:#?}");
        found.remove(0)
    }

    #[test]
    fn a_change_that_skips_nothing_written_says_nothing() {
        // pypaimon 1.x under input wrote no changelog list: a lookup reader skips nothing of
        // theirs (their missing changelog is changelog-not-produced's to say).
        let t = table(
            &["input", "lookup"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 0, 5),
                snap(3, "APPEND", 1, 5),
            ],
        );
        assert!(with_code(&t, Code::ChangelogProducerChanged).is_empty());
        // With the input changelog written, it is named.
        let t = table(
            &["input", "lookup"],
            &[
                snap(1, "APPEND", 0, 5).with_list(),
                snap(2, "APPEND", 0, 5),
                snap(3, "APPEND", 1, 5),
            ],
        );
        let f = one(&t, Code::ChangelogProducerChanged);
        assert!(
            f.message
                .contains("the input changelog of snapshot 1 is never read"),
            "{}",
            f.message
        );
    }

    #[test]
    fn lookup_appends_read_as_input_carry_no_changelog_of_their_own() {
        // paimon-rust: lookup APPENDs, never compacted, then input; no COMPACT to name.
        let t = table(
            &["lookup", "input"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 0, 5),
                snap(3, "APPEND", 1, 5).with_list(),
            ],
        );
        let m = one(&t, Code::ChangelogProducerChanged).message;
        assert!(m.contains("snapshots 1, 2 (APPEND, written under lookup) carry no changelog of their own: it gets nothing for them"), "{m}");
        assert!(!m.contains("COMPACT changelog"), "{m}");
        let t = table(
            &["lookup", "input"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "COMPACT", 0, 0).with_list(),
                snap(3, "APPEND", 1, 5).with_list(),
            ],
        );
        let m = one(&t, Code::ChangelogProducerChanged).message;
        assert!(m.contains("snapshot 1 (APPEND, written under lookup) carries no changelog of its own, and the changelog of snapshot 2 (COMPACT) is not read"), "{m}");
    }

    #[test]
    fn only_input_appends_with_rows_and_no_changelog_list_are_not_produced() {
        // 2 has its list, 3 is a COMPACT, 4 wrote no rows.
        let t = table(
            &["input"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 0, 5).with_list(),
                snap(3, "COMPACT", 0, 5),
                snap(4, "APPEND", 0, 0),
                snap(5, "APPEND", 0, 3),
            ],
        );
        let f = one(&t, Code::ChangelogNotProduced);
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(f.snapshot, Some(1));
        assert_eq!(f.related_snapshots, vec![1, 5]);
        assert!(
            f.message
                .contains("but snapshots 1, 5 (APPEND, with rows) have no changelog manifest list"),
            "{}",
            f.message
        );
        assert!(
            f.evidence.contains(
                &"1 other snapshot under an input schema has a changelog manifest list".to_string()
            ),
            "{:?}",
            f.evidence
        );
    }

    #[test]
    fn only_snapshots_written_under_input_are_judged_and_counted() {
        // Schema 0 is `none`: its APPEND without a list is no loss, and its list is no input
        // changelog list.
        let t = table(
            &["none", "input"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 0, 5).with_list(),
                snap(3, "APPEND", 1, 5),
            ],
        );
        let f = one(&t, Code::ChangelogNotProduced);
        assert_eq!(f.snapshot, Some(3));
        assert_eq!(f.related_snapshots, vec![3]);
        assert!(
            f.message
                .contains("but snapshot 3 (APPEND, with rows) has no changelog manifest list"),
            "{}",
            f.message
        );
        assert!(
            !f.evidence.iter().any(|e| e.contains("other snapshot")),
            "{:?}",
            f.evidence
        );
    }

    #[test]
    fn full_compaction_without_changelog_names_the_compacts_and_the_appends_before_the_last() {
        // 2 wrote no rows; 6 comes after the last COMPACT.
        let t = table(
            &["full-compaction"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 0, 0),
                snap(3, "COMPACT", 0, 5),
                snap(4, "APPEND", 0, 5),
                snap(5, "COMPACT", 0, 5),
                snap(6, "APPEND", 0, 5),
            ],
        );
        let f = one(&t, Code::ChangelogNotProduced);
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(f.snapshot, Some(1));
        assert_eq!(f.related_snapshots, vec![1, 3, 4, 5]);
        assert!(
            f.message
                .contains("none of the COMPACT snapshots 3, 5 carries changelog")
                && f.message
                    .contains("received nothing for snapshots 1, 4 before the last of them."),
            "{}",
            f.message
        );
        assert_eq!(
            f.evidence.first().map(String::as_str),
            Some("snapshots 3, 5 (COMPACT, under full-compaction) have no changelog manifest list")
        );
    }

    #[test]
    fn only_snapshots_written_under_full_compaction_are_judged_for_it() {
        let history = [
            snap(1, "APPEND", 0, 5),
            snap(2, "COMPACT", 0, 5),
            snap(3, "APPEND", 1, 5),
            snap(4, "COMPACT", 1, 5),
        ];
        let t = table(&["lookup", "full-compaction"], &history);
        let f = one(&t, Code::ChangelogNotProduced);
        assert_eq!(f.snapshot, Some(3));
        assert_eq!(f.related_snapshots, vec![3, 4]);
        assert!(
            f.message
                .contains("none of the COMPACT snapshot 4 carries changelog")
                && f.message
                    .contains("received nothing for snapshot 3 before it."),
            "{}",
            f.message
        );
        // The same history, the table now `lookup`: not judged as full-compaction.
        let t = table(&["full-compaction", "lookup"], &history);
        assert!(with_code(&t, Code::ChangelogNotProduced).is_empty());
    }

    #[test]
    fn a_compact_with_a_changelog_list_or_changelog_records_has_carried_changelog() {
        let with = |compact: Snap| {
            let t = table(&["full-compaction"], &[snap(1, "APPEND", 0, 5), compact]);
            with_code(&t, Code::ChangelogNotProduced)
        };
        // A list without a record count, and a record count without a list.
        let listed = Snap {
            changelog_rows: None,
            ..snap(2, "COMPACT", 0, 5).with_list()
        };
        assert!(with(listed).is_empty());
        assert!(with(snap(2, "COMPACT", 0, 5).changelog_rows(1)).is_empty());
        // Zero changelog records and no list: none.
        let f = with(snap(2, "COMPACT", 0, 5).changelog_rows(0));
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].related_snapshots, vec![1, 2]);
    }

    #[test]
    fn input_then_lookup_names_the_unread_input_changelog_and_the_first_later_compact_changelog() {
        let t = table(
            &["input", "input", "lookup"],
            &[
                snap(1, "APPEND", 0, 5).with_list(),
                snap(2, "APPEND", 1, 5).with_list(),
                snap(3, "APPEND", 1, 5),
                // a COMPACT of the input run, with a list: not a later COMPACT
                snap(4, "COMPACT", 1, 5).with_list(),
                snap(5, "COMPACT", 2, 5),
                snap(6, "APPEND", 2, 5),
                snap(7, "COMPACT", 2, 5).with_list(),
            ],
        );
        let f = one(&t, Code::ChangelogProducerChanged);
        assert_eq!(f.severity, Severity::Warning);
        assert!(
            f.message.contains(
                "changelog-producer changed between schema versions: input (schema 0, 1: snapshots 1-4), then lookup (schema 2: snapshots 5-7). A streaming reader with the current options (lookup) reads the changelog of COMPACT snapshots, so the input changelog of snapshots 1, 2 is never read: those changes reach it only folded into a later COMPACT's changelog (the first is snapshot 7), with the values of that time."
            ),
            "{}",
            f.message
        );
        // The snapshots written the current way start at 5.
        assert_eq!(f.snapshot, Some(5));
        assert!(
            f.remedy.contains("from a batch read of snapshot 4 and"),
            "{}",
            f.remedy
        );
        assert_eq!(f.related_snapshots, vec![1, 2, 3, 4]);
        assert!(
            f.evidence.contains(
                &"snapshots 1-4 written under changelog-producer = input (schema 0, 1)".to_string()
            ),
            "{:?}",
            f.evidence
        );
    }

    #[test]
    fn a_reader_of_deltas_gets_the_deltas_of_changelog_written_before() {
        let t = table(
            &["lookup", "input", "none"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "COMPACT", 0, 5).with_list(),
                snap(3, "APPEND", 1, 5).with_list(),
                snap(4, "APPEND", 2, 5),
            ],
        );
        let f = one(&t, Code::ChangelogProducerChanged);
        assert!(
            f.message.contains(
                "so the changelog of snapshot 2 (COMPACT, written under lookup) is not read, it gets the APPEND deltas instead, and from the change on no changelog is produced: a downstream that needs -U/+U retractions silently gets less; the input changelog of snapshot 3 is not read: it gets their deltas instead, and from the change on no changelog is produced."
            ),
            "{}",
            f.message
        );
        assert_eq!(f.snapshot, Some(4));
        assert_eq!(f.related_snapshots, vec![1, 2, 3]);
    }

    #[test]
    fn a_reader_of_append_changelog_gets_nothing_for_compact_changelog_or_deltas_before() {
        let t = table(
            &["none", "lookup", "input"],
            &[
                snap(1, "APPEND", 0, 5),
                snap(2, "APPEND", 1, 5),
                snap(3, "COMPACT", 1, 5).with_list(),
                snap(4, "APPEND", 2, 5).with_list(),
            ],
        );
        let f = one(&t, Code::ChangelogProducerChanged);
        assert!(
            f.message.contains(
                "so snapshot 1 carries no changelog (written under none): it gets nothing for them; snapshot 2 (APPEND, written under lookup) carries no changelog of its own, and the changelog of snapshot 3 (COMPACT) is not read: it gets nothing for it."
            ),
            "{}",
            f.message
        );
        assert_eq!(f.snapshot, Some(4));
        assert_eq!(f.related_snapshots, vec![1, 2, 3]);
    }

    #[test]
    fn ranges_collapse_runs_of_three_or_more() {
        assert_eq!(id_ranges(&[1, 2]), "1, 2");
        assert_eq!(id_ranges(&[3, 4, 5, 6]), "3-6");
        assert_eq!(id_ranges(&[1, 3, 4, 5, 9]), "1, 3-5, 9");
        assert_eq!(id_ranges(&[]), "");
    }
}
