//! One table (or branch) as the report shows it: its history summarised, its consumers, tags
//! and expiration fence, its engine checkpoints and its findings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Finding, RayCheckpointReport, SparkCheckpointReport};

/// One table, or one branch of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableReport {
    /// The table root inside the input, `/`-separated (nested zips as `outer.zip!/inner/path`).
    pub path: String,
    /// `main` or the branch name.
    pub branch: String,
    /// The latest schema's options (all of them, sorted by key).
    pub options: BTreeMap<String, String>,
    /// The table's schema, summarised.
    pub schema: Option<SchemaSummary>,
    /// The lowest snapshot id present, `None` if there is no snapshot.
    pub earliest: Option<i64>,
    /// The highest snapshot id present.
    pub latest: Option<i64>,
    /// The EARLIEST/LATEST hint files (each `None` if absent or unreadable).
    pub hints: Hints,
    /// Every snapshot present, by id.
    pub snapshots: Vec<SnapshotSummary>,
    /// The commit groups, ordered by their first snapshot.
    pub commit_groups: Vec<CommitGroupSummary>,
    /// Consumers of this branch, by id.
    pub consumers: Vec<ConsumerReport>,
    /// Tags of this branch, by name.
    pub tags: Vec<TagSummary>,
    /// Long-lived changelogs (`changelog/changelog-N`, decoupled changelog lifecycle).
    pub long_lived_changelogs: Option<IdRange>,
    /// What pins snapshot expiration, if anything.
    pub expiration_fence: Option<ExpirationFence>,
    /// Spark Structured Streaming checkpoints paired with this table (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub spark_checkpoints: Vec<SparkCheckpointReport>,
    /// Ray Data checkpoints paired with this table (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub ray_checkpoints: Vec<RayCheckpointReport>,
    /// The findings about this table, ordered by severity (errors first), code, snapshot.
    pub findings: Vec<Finding>,
}

/// The schema of a table, summarised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaSummary {
    /// The schema id of the latest schema file.
    pub id: i64,
    /// Field names and types, in order.
    pub fields: Vec<FieldSummary>,
    /// Partition keys.
    pub partition_keys: Vec<String>,
    /// Primary keys (empty for append tables).
    pub primary_keys: Vec<String>,
}

/// One field of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSummary {
    /// The field's name.
    pub name: String,
    /// The field's type, as Paimon writes it (`BIGINT NOT NULL`).
    #[serde(rename = "type")]
    pub data_type: String,
}

/// The EARLIEST/LATEST hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Hints {
    /// Content of `snapshot/EARLIEST`.
    pub earliest: Option<i64>,
    /// Content of `snapshot/LATEST`.
    pub latest: Option<i64>,
}

/// An inclusive range of ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdRange {
    /// First id.
    pub first: i64,
    /// Last id (inclusive).
    pub last: i64,
}

/// One snapshot, as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSummary {
    /// Snapshot id.
    pub id: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE`, `ANALYZE` (or whatever a newer Paimon wrote).
    pub kind: String,
    /// The writer's identity.
    pub commit_user: String,
    /// The transaction id (Flink checkpoint id; 9223372036854775807 for batch / end of input).
    pub commit_identifier: i64,
    /// Commit wall clock, epoch ms.
    pub time_millis: i64,
    /// Schema id at commit time.
    pub schema_id: i64,
    /// Added minus deleted row counts of the delta.
    pub delta_record_count: Option<i64>,
    /// Rows in this commit's changelog files.
    pub changelog_record_count: Option<i64>,
    /// Unmerged row count of all live files.
    pub total_record_count: Option<i64>,
    /// Watermark, if any.
    pub watermark: Option<i64>,
    /// Manifest lists this snapshot names.
    pub manifest_lists: ManifestLists,
    /// What the delta and changelog hold, when the manifests could be read.
    pub files: Option<SnapshotFiles>,
}

/// The manifest lists of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestLists {
    /// All files as of the previous snapshot.
    pub base: Option<String>,
    /// This commit's changes.
    pub delta: Option<String>,
    /// This commit's changelog files.
    pub changelog: Option<String>,
    /// The index manifest (full state of index files).
    pub index: Option<String>,
}

/// The files a snapshot's delta and changelog name, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotFiles {
    /// ADD entries in the delta.
    pub added: u64,
    /// DELETE entries in the delta.
    pub deleted: u64,
    /// Changelog files.
    pub changelog: u64,
    /// Rows in the added files.
    pub added_rows: u64,
}

/// One (commitUser, commitIdentifier) and the snapshots it produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitGroupSummary {
    /// The writer's identity.
    pub commit_user: String,
    /// The transaction id.
    pub commit_identifier: i64,
    /// What the identifier means: `checkpoint` or `batch-or-end-of-input` (Long.MAX_VALUE).
    pub identifier_meaning: String,
    /// Snapshot ids in this group, ascending.
    pub snapshots: Vec<i64>,
    /// Their kinds, in the same order.
    pub kinds: Vec<String>,
}

/// The verdict on one consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerVerdict {
    /// Within the retained range, nothing wrong.
    Safe,
    /// Exactly latest + 1: has read everything.
    CaughtUp,
    /// The artifact cannot tell: it lacks entries (a zip cut short) that may hold the table's
    /// newer or older snapshots; the artifact-incomplete finding says where it ends.
    Unknown,
    /// Older than `consumer.expiration-time`: the next non-write-only commit deletes it.
    Stale,
    /// Below the earliest readable snapshot: Paimon silently skips ahead.
    Expired,
    /// Above latest + 1: the table was recreated or rolled back.
    Ahead,
    /// A snapshot the reader needs next is missing while later ones exist (or none is left):
    /// Paimon's reader waits for it as for one not yet committed and never goes on.
    Blocked,
    /// Past a snapshot whose changelog was lost: the reader believes it consumed data it never
    /// saw.
    PastLostChangelog,
    /// The consumer file could not be read.
    Unreadable,
}

impl ConsumerVerdict {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ConsumerVerdict::Safe => "safe",
            ConsumerVerdict::CaughtUp => "caught-up",
            ConsumerVerdict::Unknown => "unknown",
            ConsumerVerdict::Stale => "stale",
            ConsumerVerdict::Expired => "expired",
            ConsumerVerdict::Ahead => "ahead",
            ConsumerVerdict::Blocked => "blocked",
            ConsumerVerdict::PastLostChangelog => "past-lost-changelog",
            ConsumerVerdict::Unreadable => "unreadable",
        }
    }
}

/// One consumer of one branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerReport {
    /// The consumer id (the file name after `consumer-`).
    pub id: String,
    /// The next snapshot the consumer will read; `None` if unreadable.
    pub next_snapshot: Option<i64>,
    /// The most severe verdict that applies.
    pub verdict: ConsumerVerdict,
    /// Every verdict that applies, most severe first.
    pub verdicts: Vec<ConsumerVerdict>,
    /// The consumer file's modification time (epoch ms), if the artifact records it.
    pub modified_millis: Option<i64>,
    /// Its age at the report's clock, in ms.
    pub age_millis: Option<i64>,
    /// The artifact path of the consumer file.
    pub file: String,
}

/// One tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TagSummary {
    /// Tag name.
    pub name: String,
    /// The tagged snapshot's id.
    pub snapshot: Option<i64>,
    /// Whether that snapshot is still in `snapshot/` (otherwise the tag keeps its files alive).
    pub snapshot_retained: bool,
}

/// What holds snapshot expiration back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpirationFence {
    /// The consumer with the smallest `nextSnapshot` (it pins expiration).
    pub consumer: String,
    /// Its `nextSnapshot`.
    pub next_snapshot: i64,
    /// Whether consumers fence snapshot expiration (`false` with `consumer.changelog-only`).
    pub fences_snapshots: bool,
    /// Snapshots held back beyond what `snapshot.num-retained.min` would keep.
    pub snapshots_held: i64,
    /// Time between the pinned snapshot's commit and the latest commit, in ms.
    pub time_held_millis: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consumer_verdicts_serialize_as_the_contract_names() {
        for v in [
            ConsumerVerdict::Safe,
            ConsumerVerdict::CaughtUp,
            ConsumerVerdict::Unknown,
            ConsumerVerdict::Stale,
            ConsumerVerdict::Expired,
            ConsumerVerdict::Ahead,
            ConsumerVerdict::Blocked,
            ConsumerVerdict::PastLostChangelog,
            ConsumerVerdict::Unreadable,
        ] {
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.as_str())
            );
        }
    }
}
