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
use crate::paimon::schema::ChangelogProducer;
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
    if t.options.changelog_producer != ChangelogProducer::FullCompaction {
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

/// The producer a snapshot was written under (its schema's option), if its schema was read.
fn producer_of(t: &Timeline, schema_id: i64) -> Option<ChangelogProducer> {
    t.schemas
        .get(&schema_id)
        .map(|s| s.table_options().changelog_producer)
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

fn snapshots_phrase(ids: &[i64]) -> String {
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
    Some(match (before, now) {
        (Reads::AppendChangelog, Reads::CompactChangelog) => {
            let ids = of_kind(CommitKind::Append, true);
            format!(
                "the input changelog of {} is never read: those changes reach it only folded into a later COMPACT's changelog{}, with the values of that time",
                snapshots_phrase(&ids),
                later_compact.map_or(String::new(), |id| format!(" (the first is snapshot {id})"))
            )
        }
        (Reads::AppendChangelog, Reads::Deltas) => format!(
            "the input changelog of {} is not read: it gets their deltas instead, and from the change on no changelog is produced",
            snapshots_phrase(&of_kind(CommitKind::Append, true))
        ),
        (Reads::CompactChangelog, Reads::Deltas) => format!(
            "the changelog of {} (COMPACT, written under {}) is not read, it gets the APPEND deltas instead, and from the change on no changelog is produced: a downstream that needs -U/+U retractions silently gets less",
            snapshots_phrase(&of_kind(CommitKind::Compact, true)),
            r.producer.as_str()
        ),
        (Reads::CompactChangelog, Reads::AppendChangelog) => format!(
            "the COMPACT changelog of {} is not read and their APPENDs carry none: it gets nothing for them",
            snapshots_phrase(&r.ids)
        ),
        (Reads::Deltas, _) => format!(
            "{} carry no changelog (written under none): it gets nothing for them",
            snapshots_phrase(&r.ids)
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::id_ranges;

    #[test]
    fn ranges_collapse_runs_of_three_or_more() {
        assert_eq!(id_ranges(&[1, 2]), "1, 2");
        assert_eq!(id_ranges(&[3, 4, 5, 6]), "3-6");
        assert_eq!(id_ranges(&[1, 3, 4, 5, 9]), "1, 3-5, 9");
        assert_eq!(id_ranges(&[]), "");
    }
}
