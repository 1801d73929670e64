//! Loading the Spark checkpoints of an artifact for the checks: each one read, its Paimon
//! source's positions found in its offset logs, and paired with the table it reads.
//!
//! Nothing here judges: a checkpoint with no Paimon source, several, or no table it can be
//! paired with is loaded as such, and the checks say what that means.

use crate::source::Artifact;
use crate::timeline::Timeline;

use super::paimon_offset::PaimonOffset;
use super::pair::{pair, table_index, Paired};
use super::{discover, Checkpoint, SparkPairing};

/// Every Spark checkpoint of an artifact, loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct SparkCheckpoints {
    /// Every checkpoint directory, in path order.
    pub checkpoints: Vec<LoadedCheckpoint>,
    /// The user's pairings that cannot be applied (a checkpoint or table not in the artifact),
    /// in the order given, with the problem.
    pub bad_pairings: Vec<(SparkPairing, String)>,
}

/// One checkpoint and what its Paimon source is.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedCheckpoint {
    /// The checkpoint as read.
    pub checkpoint: Checkpoint,
    /// Its Paimon source.
    pub source: PaimonSource,
}

/// The Paimon source of a checkpoint's offset logs.
#[derive(Debug, Clone, PartialEq)]
pub enum PaimonSource {
    /// No offset line read is a Paimon source offset (the query reads another source).
    None,
    /// No offset line read is a Paimon source offset, but offsets files the checks need could
    /// not be read ([`Checkpoint::unreadable`]): which source the query reads is unknown.
    Unknown,
    /// The query reads this many Paimon sources.
    Several(usize),
    /// One Paimon source: its positions, and the table (and consumer) it reads, or why the
    /// checkpoint could not be paired without guessing.
    One {
        /// The source's positions.
        positions: Positions,
        /// The pairing, or why there is none.
        pairing: Result<Paired, String>,
    },
}

/// The Paimon positions of one checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Positions {
    /// The last committed batch and its offset.
    pub committed: Option<(i64, PaimonOffset)>,
    /// The batch before it and its offset.
    pub previous: Option<(i64, PaimonOffset)>,
    /// Planned batches after the last committed one, with their offsets where read.
    pub uncommitted: Vec<(i64, Option<PaimonOffset>)>,
    /// `batchTimestampMs` of the last committed batch.
    pub committed_time: Option<i64>,
}

impl Positions {
    /// The newest known position (planned or committed).
    pub fn newest(&self) -> Option<(i64, PaimonOffset)> {
        self.uncommitted
            .iter()
            .rev()
            .find_map(|(b, o)| o.map(|o| (*b, o)))
            .or(self.committed)
    }
}

/// Finds and reads every Spark checkpoint of the artifact and pairs each with one of `tables`
/// (every table and branch, in report order) as `pairings` and the artifact allow.
pub fn load(
    artifact: &Artifact,
    tables: &[&Timeline],
    pairings: &[SparkPairing],
) -> SparkCheckpoints {
    let checkpoints = discover(artifact);
    let mut bad_pairings = Vec::new();
    for p in pairings {
        if !checkpoints.iter().any(|c| c.path == p.checkpoint) {
            bad_pairings.push((
                p.clone(),
                format!(
                    "{} is not a Spark checkpoint directory in the artifact",
                    p.checkpoint
                ),
            ));
        } else if table_index(tables, &p.table).is_none() {
            bad_pairings.push((
                p.clone(),
                format!("{} is not a table in the artifact", p.table),
            ));
        }
    }
    let checkpoints = checkpoints
        .into_iter()
        .map(|checkpoint| {
            let source = match paimon_slot(&checkpoint) {
                Slot::None
                    if checkpoint
                        .unreadable
                        .keys()
                        .any(|k| k.starts_with("offsets/")) =>
                {
                    PaimonSource::Unknown
                }
                Slot::None => PaimonSource::None,
                Slot::Several(n) => PaimonSource::Several(n),
                Slot::One(slot) => PaimonSource::One {
                    positions: positions(&checkpoint, &slot),
                    pairing: pair(&checkpoint, tables, pairings),
                },
            };
            LoadedCheckpoint { checkpoint, source }
        })
        .collect();
    SparkCheckpoints {
        checkpoints,
        bad_pairings,
    }
}

/// Where the Paimon source sits in the offset lines: its `v2` key or its `v1` position.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum SlotKey {
    Key(String),
    Position(usize),
}

enum Slot {
    None,
    One(SlotKey),
    Several(usize),
}

fn paimon_slot(cp: &Checkpoint) -> Slot {
    let mut slots: Vec<SlotKey> = cp
        .offsets
        .values()
        .flat_map(|e| {
            e.paimon_sources().map(|(i, s, _)| match &s.key {
                Some(k) => SlotKey::Key(k.clone()),
                None => SlotKey::Position(i),
            })
        })
        .collect();
    slots.sort();
    slots.dedup();
    match slots.len() {
        0 => Slot::None,
        1 => slots.pop().map_or(Slot::None, Slot::One),
        n => Slot::Several(n),
    }
}

fn paimon_at(cp: &Checkpoint, batch: i64, slot: &SlotKey) -> Option<PaimonOffset> {
    let entry = cp.offsets.get(&batch)?;
    let source = match slot {
        SlotKey::Key(k) => entry.sources.iter().find(|s| s.key.as_deref() == Some(k)),
        SlotKey::Position(i) => entry.sources.get(*i),
    }?;
    source.paimon
}

fn positions(cp: &Checkpoint, slot: &SlotKey) -> Positions {
    let committed = cp
        .last_committed()
        .and_then(|c| paimon_at(cp, c, slot).map(|o| (c, o)));
    let previous = cp
        .last_committed()
        .and_then(|c| c.checked_sub(1))
        .and_then(|b| paimon_at(cp, b, slot).map(|o| (b, o)));
    let uncommitted = cp
        .uncommitted()
        .into_iter()
        .map(|b| (b, paimon_at(cp, b, slot)))
        .collect();
    let committed_time = cp
        .last_committed()
        .and_then(|c| cp.offsets.get(&c))
        .and_then(|e| e.batch_timestamp_millis);
    Positions {
        committed,
        previous,
        uncommitted,
        committed_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off(s: i64, i: i64, scan: bool, total: Option<i64>) -> PaimonOffset {
        PaimonOffset {
            snapshot_id: s,
            index: i,
            scan_snapshot: scan,
            total_splits: total,
        }
    }

    #[test]
    fn positions_prefer_the_newest_planned_offset() {
        let p = Positions {
            committed: Some((3, off(4, 0, false, Some(1)))),
            previous: Some((2, off(3, 0, false, Some(1)))),
            uncommitted: vec![(4, Some(off(5, 0, false, Some(1)))), (5, None)],
            committed_time: None,
        };
        assert_eq!(p.newest(), Some((4, off(5, 0, false, Some(1)))));
    }
}
