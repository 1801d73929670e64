//! Engine checkpoints paired with a table, as the report shows them: Spark Structured
//! Streaming checkpoints and Ray Data checkpoints.

use serde::{Deserialize, Serialize};

use super::IdRange;

/// How a Spark checkpoint was paired with its table and consumer (decided where the pairing is
/// made, [`crate::spark::pair`]).
pub use crate::spark::SparkPairingKind;

/// A Paimon Spark source offset (`paimon-format.md` §7.1), as a checkpoint recorded it: the
/// type the checkpoint reader parses ([`crate::spark::paimon_offset`]), serialized as is.
pub use crate::spark::paimon_offset::PaimonOffset as SparkOffset;

/// The verdict on one Spark checkpoint, most severe first in [`SparkCheckpointReport::verdicts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SparkCheckpointVerdict {
    /// The query can recover from its checkpoint.
    Safe,
    /// A checkpoint file the judgement needs cannot be read: the position, and the consumer
    /// comparison built on it, are unknown.
    Unknown,
    /// The offsets carry no completion metadata: the consumer is left unchanged.
    Legacy,
    /// Another checkpoint uses the same consumer.
    Shared,
    /// The consumer is behind the committed progress beyond the normal one-batch lag.
    ConsumerBehind,
    /// An initial full scan is in progress and no consumer fences its snapshot.
    InitialScanUnfenced,
    /// A planned batch was never committed.
    Uncommitted,
    /// The consumer is ahead of the committed progress.
    ConsumerAhead,
    /// The committed offset points below the earliest readable snapshot or changelog.
    Expired,
}

impl SparkCheckpointVerdict {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SparkCheckpointVerdict::Safe => "safe",
            SparkCheckpointVerdict::Unknown => "unknown",
            SparkCheckpointVerdict::Legacy => "legacy",
            SparkCheckpointVerdict::Shared => "shared",
            SparkCheckpointVerdict::ConsumerBehind => "consumer-behind",
            SparkCheckpointVerdict::InitialScanUnfenced => "initial-scan-unfenced",
            SparkCheckpointVerdict::Uncommitted => "uncommitted",
            SparkCheckpointVerdict::ConsumerAhead => "consumer-ahead",
            SparkCheckpointVerdict::Expired => "expired",
        }
    }
}

/// One Spark checkpoint paired with a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparkCheckpointReport {
    /// The checkpoint directory's artifact path.
    pub path: String,
    /// The query id (`metadata`), if readable.
    pub query_id: Option<String>,
    /// The latest batch with an `offsets/N` file.
    pub last_planned_batch: Option<i64>,
    /// The latest batch with a `commits/N` file.
    pub last_committed_batch: Option<i64>,
    /// The Paimon offset the last committed batch ends at.
    pub offset: Option<SparkOffset>,
    /// When Spark planned the last committed batch (`batchTimestampMs`), epoch ms.
    pub committed_time_millis: Option<i64>,
    /// The Paimon offset of the last planned batch, when it was never committed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub planned_offset: Option<SparkOffset>,
    /// The first snapshot a restart from this checkpoint reads.
    pub resume_snapshot: Option<i64>,
    /// The consumer the query uses, if known.
    pub consumer: Option<String>,
    /// That consumer's `nextSnapshot`, if its file exists and is readable.
    pub consumer_next_snapshot: Option<i64>,
    /// The `nextSnapshot` values the consumer may hold without a finding (Spark runs a batch's
    /// source commit callback when it plans the next batch, so one batch of lag is normal).
    pub expected_consumer: Option<IdRange>,
    /// How the pairing was made.
    pub pairing: SparkPairingKind,
    /// The most severe verdict that applies.
    pub verdict: SparkCheckpointVerdict,
    /// Every verdict that applies, most severe first.
    pub verdicts: Vec<SparkCheckpointVerdict>,
}

/// One Ray Data checkpoint paired with a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RayCheckpointReport {
    /// The checkpoint directory's artifact path.
    pub path: String,
    /// The id column (`CheckpointConfig.id_column`).
    pub id_column: String,
    /// Checkpoint files (one per finished write task).
    pub files: u64,
    /// Distinct ids the checkpoint marks done.
    pub ids: u64,
    /// Of those, ids the latest snapshot does not hold (after deletes and overwrites that
    /// explain them); with `missing_unknown_because`, ids not found in the files that could be
    /// read.
    pub missing: u64,
    /// Set when a live file of the latest snapshot could not be read: whether it holds the
    /// `missing` ids is unknown, and this says why (the file and the problem).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub missing_unknown_because: Option<String>,
    /// How the pairing was made: `user`, `id-column` (the only table with that column),
    /// `only-table`.
    pub pairing: String,
    /// The generation marker (`ray.data.checkpoint.operation-id`) of the newest snapshot that
    /// carries one, as `snapshot: value`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub generation_marker: Option<String>,
    /// Set when the run's budget of checkpoint ids (`max-rows-kept`) left some of its
    /// files unread: which, and the limit. `ids` and `missing` then count the ids read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cut_short: Option<String>,
}
