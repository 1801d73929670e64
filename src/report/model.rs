//! The report: what the analysis found, as one serializable value.
//!
//! This is the JSON contract `paimon-recovery-report/1` (see `design.md`): the CLI's
//! `--format json` and the page's "Download JSON" serialize this same value. Fields may be added;
//! the ones the contract names keep their names and meanings. Every collection is ordered
//! deterministically (by path, branch, id, code), so the same input gives the same bytes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The schema identifier written in every report.
pub const REPORT_SCHEMA: &str = "paimon-recovery-report/1";
/// The tool's name, as in the report and on the command line.
pub const TOOL_NAME: &str = "paimon-recovery-validator";
/// The tool's version (the crate version).
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One analysis of one artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    /// Which tool wrote the report.
    pub tool: Tool,
    /// What was analysed.
    pub input: InputInfo,
    /// The clock the age-based findings were judged against.
    pub clock: Clock,
    /// `fail` if any finding is an error, else `warn` if any is a warning, else `pass`.
    pub verdict: Verdict,
    /// Counts of findings by severity, over the whole report.
    pub summary: Summary,
    /// One entry per table and branch, ordered by path, then `main` first, then branch name.
    pub tables: Vec<TableReport>,
    /// Findings about the artifact itself rather than one table (unreadable nested zips, hostile
    /// names, a zip with no table in it).
    pub findings: Vec<Finding>,
    /// What the reader did: files listed and read, bytes inflated, manifests decoded.
    pub stats: ReadStats,
}

/// The tool that wrote a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// [`TOOL_NAME`].
    pub name: String,
    /// [`TOOL_VERSION`].
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: TOOL_NAME.to_string(),
            version: TOOL_VERSION.to_string(),
        }
    }
}

/// The analysed input.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputInfo {
    /// The file or folder name the user gave (no directories).
    pub name: String,
    /// Total size in bytes of what the host handed over.
    pub size: u64,
    /// Number of files seen (nested zips included).
    pub files: u64,
    /// A digest identifying the input's metadata: SHA-256 (hex) over the sorted list of paths,
    /// sizes and CRCs the archive declares. Stable for the same artifact; never the data itself.
    pub digest: String,
}

/// The clock of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Clock {
    /// Epoch milliseconds.
    pub now_millis: i64,
    /// Where it came from: `given` (`--now`) or `capture` (the newest time recorded in the
    /// artifact: snapshot commit times and file modification times).
    pub source: ClockSource,
    /// The offset in minutes between the times a zip records (local time of the machine that
    /// zipped it) and UTC, as estimated from snapshot files whose commit time is known.
    /// `None` when it could not be estimated (then zip times are taken as UTC).
    pub zip_time_offset_minutes: Option<i64>,
}

/// Where the clock of a report came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockSource {
    /// Given by the user (`--now`).
    Given,
    /// The capture time of the artifact.
    Capture,
}

/// The verdict of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No finding above `info`.
    Pass,
    /// At least one warning, no error.
    Warn,
    /// At least one error.
    Fail,
}

impl Verdict {
    /// `pass`, `warn` or `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Possibly wrong, or wrong soon; a person should look.
    Warning,
    /// Data is lost or a reader will misbehave.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Counts of findings by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Tables and branches analysed.
    pub tables: u64,
    /// Findings of severity error.
    pub errors: u64,
    /// Findings of severity warning.
    pub warnings: u64,
    /// Findings of severity info.
    pub infos: u64,
}

/// What the reader did. Deterministic for the same input (no timings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadStats {
    /// Files listed in the artifact.
    pub files_listed: u64,
    /// Files whose content was read.
    pub files_read: u64,
    /// Bytes inflated (decompressed from zip entries) or read from folders.
    pub bytes_inflated: u64,
    /// Distinct manifest files (manifest lists, manifests, index manifests) decoded. Each is
    /// decoded at most once however many snapshots share it.
    pub manifests_decoded: u64,
    /// Manifest references resolved from the cache instead of decoding again.
    pub manifest_cache_hits: u64,
}

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
    /// Older than `consumer.expiration-time`: the next non-write-only commit deletes it.
    Stale,
    /// Below the earliest readable snapshot: Paimon silently skips ahead.
    Expired,
    /// Above latest + 1: the table was recreated or rolled back.
    Ahead,
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
            ConsumerVerdict::Stale => "stale",
            ConsumerVerdict::Expired => "expired",
            ConsumerVerdict::Ahead => "ahead",
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

/// A Paimon Spark source offset (`paimon-format.md` §7.1), as a checkpoint recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparkOffset {
    /// The snapshot of the batch's last split.
    pub snapshot_id: i64,
    /// That split's 0-based index in the snapshot's split list (`-1`: before the first).
    pub index: i64,
    /// Whether the snapshot is read by a full snapshot scan (initial `latest-full`).
    pub scan_snapshot: bool,
    /// The snapshot's number of splits (Paimon master with a consumer-id; absent in older
    /// offsets).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub total_splits: Option<i64>,
}

impl SparkOffset {
    /// `snapshot 3, split 2/4 (full scan)`.
    pub fn describe(&self) -> String {
        let split = match self.total_splits {
            Some(t) => format!("split {}/{t}", self.index.saturating_add(1)),
            None if self.index < 0 => "before its first split".to_string(),
            None => format!("split {}/?", self.index.saturating_add(1)),
        };
        format!(
            "snapshot {}, {split}{}",
            self.snapshot_id,
            if self.scan_snapshot {
                " (full scan)"
            } else {
                ""
            }
        )
    }
}

/// How a Spark checkpoint was paired with its table and consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SparkPairingKind {
    /// Given by the user (`--spark-checkpoint`, or chosen on the page).
    User,
    /// The checkpoint directory is named like exactly one consumer in the artifact.
    ConsumerName,
    /// The artifact's only table has exactly one consumer.
    OnlyConsumer,
    /// The artifact's only table has no consumer.
    NoConsumer,
    /// The artifact's only table has several consumers and none is named like the directory:
    /// the table is known, the consumer is not (consumer checks are skipped).
    ConsumerUnknown,
}

impl SparkPairingKind {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SparkPairingKind::User => "user",
            SparkPairingKind::ConsumerName => "consumer-name",
            SparkPairingKind::OnlyConsumer => "only-consumer",
            SparkPairingKind::NoConsumer => "no-consumer",
            SparkPairingKind::ConsumerUnknown => "consumer-unknown",
        }
    }
}

/// The verdict on one Spark checkpoint, most severe first in [`SparkCheckpointReport::verdicts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SparkCheckpointVerdict {
    /// The query can recover from its checkpoint.
    Safe,
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
    /// explain them).
    pub missing: u64,
    /// How the pairing was made: `user`, `id-column` (the only table with that column),
    /// `only-table`.
    pub pairing: String,
    /// The generation marker (`ray.data.checkpoint.operation-id`) of the newest snapshot that
    /// carries one, as `snapshot: value`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub generation_marker: Option<String>,
}

/// A stable finding code. Codes are never renamed; new ones may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    LostChangelog,
    PendingChangelog,
    ConsumerExpired,
    ConsumerAhead,
    ConsumerPastLostChangelog,
    ConsumerBeforeLostChangelog,
    ConsumerStale,
    ConsumerUnreadable,
    SnapshotGap,
    HintMismatch,
    SnapshotTempFile,
    DanglingReference,
    ArtifactIncomplete,
    OrphanFile,
    UnreadableFile,
    RiskyOptions,
    NoTable,
    SparkOffsetExpired,
    SparkBatchUncommitted,
    ConsumerAheadOfCheckpoint,
    ConsumerBehindCheckpoint,
    SparkOffsetLegacy,
    SparkInitialScanUnfenced,
    SparkConsumerShared,
    SparkCheckpointUnpaired,
    CheckpointAheadOfCommit,
    RowsOnlyInOrphanFiles,
    RayCheckpointUnpaired,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: &'static [Code] = &[
        Code::LostChangelog,
        Code::PendingChangelog,
        Code::ConsumerExpired,
        Code::ConsumerAhead,
        Code::ConsumerPastLostChangelog,
        Code::ConsumerBeforeLostChangelog,
        Code::ConsumerStale,
        Code::ConsumerUnreadable,
        Code::SnapshotGap,
        Code::HintMismatch,
        Code::SnapshotTempFile,
        Code::DanglingReference,
        Code::ArtifactIncomplete,
        Code::OrphanFile,
        Code::UnreadableFile,
        Code::RiskyOptions,
        Code::NoTable,
        Code::SparkOffsetExpired,
        Code::SparkBatchUncommitted,
        Code::ConsumerAheadOfCheckpoint,
        Code::ConsumerBehindCheckpoint,
        Code::SparkOffsetLegacy,
        Code::SparkInitialScanUnfenced,
        Code::SparkConsumerShared,
        Code::SparkCheckpointUnpaired,
        Code::CheckpointAheadOfCommit,
        Code::RowsOnlyInOrphanFiles,
        Code::RayCheckpointUnpaired,
    ];

    /// The contract's kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::LostChangelog => "lost-changelog",
            Code::PendingChangelog => "pending-changelog",
            Code::ConsumerExpired => "consumer-expired",
            Code::ConsumerAhead => "consumer-ahead",
            Code::ConsumerPastLostChangelog => "consumer-past-lost-changelog",
            Code::ConsumerBeforeLostChangelog => "consumer-before-lost-changelog",
            Code::ConsumerStale => "consumer-stale",
            Code::ConsumerUnreadable => "consumer-unreadable",
            Code::SnapshotGap => "snapshot-gap",
            Code::HintMismatch => "hint-mismatch",
            Code::SnapshotTempFile => "snapshot-temp-file",
            Code::DanglingReference => "dangling-reference",
            Code::ArtifactIncomplete => "artifact-incomplete",
            Code::OrphanFile => "orphan-file",
            Code::UnreadableFile => "unreadable-file",
            Code::RiskyOptions => "risky-options",
            Code::NoTable => "no-table",
            Code::SparkOffsetExpired => "spark-offset-expired",
            Code::SparkBatchUncommitted => "spark-batch-uncommitted",
            Code::ConsumerAheadOfCheckpoint => "consumer-ahead-of-checkpoint",
            Code::ConsumerBehindCheckpoint => "consumer-behind-checkpoint",
            Code::SparkOffsetLegacy => "spark-offset-legacy",
            Code::SparkInitialScanUnfenced => "spark-initial-scan-unfenced",
            Code::SparkConsumerShared => "spark-consumer-shared",
            Code::SparkCheckpointUnpaired => "spark-checkpoint-unpaired",
            Code::CheckpointAheadOfCommit => "checkpoint-ahead-of-commit",
            Code::RowsOnlyInOrphanFiles => "rows-only-in-orphan-files",
            Code::RayCheckpointUnpaired => "ray-checkpoint-unpaired",
        }
    }

    /// A short human title for tables and headings.
    pub fn title(self) -> &'static str {
        match self {
            Code::LostChangelog => "Lost changelog",
            Code::PendingChangelog => "Changelog not produced yet",
            Code::ConsumerExpired => "Consumer position expired",
            Code::ConsumerAhead => "Consumer ahead of the table",
            Code::ConsumerPastLostChangelog => "Consumer past lost changelog",
            Code::ConsumerBeforeLostChangelog => "Consumer will cross lost changelog",
            Code::ConsumerStale => "Consumer file stale",
            Code::ConsumerUnreadable => "Consumer file unreadable",
            Code::SnapshotGap => "Snapshot ids not contiguous",
            Code::HintMismatch => "EARLIEST/LATEST hint disagrees",
            Code::SnapshotTempFile => "Leftover snapshot temp file",
            Code::DanglingReference => "Missing referenced file",
            Code::ArtifactIncomplete => "Artifact incomplete",
            Code::OrphanFile => "Unreferenced file",
            Code::UnreadableFile => "Unreadable file",
            Code::RiskyOptions => "Risky table options",
            Code::NoTable => "No Paimon table found",
            Code::SparkOffsetExpired => "Spark offset points at expired data",
            Code::SparkBatchUncommitted => "Spark batch planned, not committed",
            Code::ConsumerAheadOfCheckpoint => "Consumer ahead of Spark checkpoint",
            Code::ConsumerBehindCheckpoint => "Consumer behind Spark checkpoint",
            Code::SparkOffsetLegacy => "Spark offset without completion metadata",
            Code::SparkInitialScanUnfenced => "Initial full scan without consumer fence",
            Code::SparkConsumerShared => "Consumer shared by several queries",
            Code::SparkCheckpointUnpaired => "Spark checkpoint not paired",
            Code::CheckpointAheadOfCommit => "Checkpoint ahead of commit",
            Code::RowsOnlyInOrphanFiles => "Rows only in unreferenced files",
            Code::RayCheckpointUnpaired => "Ray Data checkpoint not paired",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable code.
    pub code: Code,
    /// How serious.
    pub severity: Severity,
    /// The snapshot it is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub snapshot: Option<i64>,
    /// Further snapshots it concerns (a gap's missing ids as a range, the COMPACT that
    /// delivered changelog later), ascending.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub related_snapshots: Vec<i64>,
    /// The consumer it is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub consumer: Option<String>,
    /// The commit user it is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub commit_user: Option<String>,
    /// The commit identifier it is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub commit_identifier: Option<i64>,
    /// Files it is about, relative to the table root (or artifact paths for artifact-level
    /// findings).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub files: Vec<String>,
    /// One sentence: what is wrong.
    pub message: String,
    /// What to do about it (which procedure, dry run first).
    pub remedy: String,
    /// The facts that establish the finding, one per line.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub evidence: Vec<String>,
    /// Row-level evidence, where it was read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rows: Option<serde_json::Value>,
}

impl Finding {
    /// A finding with only code, severity, message and remedy; add ids with the builder methods.
    pub fn new(
        code: Code,
        severity: Severity,
        message: impl Into<String>,
        remedy: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity,
            snapshot: None,
            related_snapshots: Vec::new(),
            consumer: None,
            commit_user: None,
            commit_identifier: None,
            files: Vec::new(),
            message: message.into(),
            remedy: remedy.into(),
            evidence: Vec::new(),
            rows: None,
        }
    }

    /// Sets the snapshot.
    #[must_use]
    pub fn snapshot(mut self, id: i64) -> Self {
        self.snapshot = Some(id);
        self
    }

    /// Sets the related snapshots.
    #[must_use]
    pub fn related(mut self, ids: impl IntoIterator<Item = i64>) -> Self {
        self.related_snapshots = ids.into_iter().collect();
        self.related_snapshots.sort_unstable();
        self.related_snapshots.dedup();
        self
    }

    /// Sets the consumer.
    #[must_use]
    pub fn consumer(mut self, id: impl Into<String>) -> Self {
        self.consumer = Some(id.into());
        self
    }

    /// Sets the commit user and identifier.
    #[must_use]
    pub fn commit(mut self, user: impl Into<String>, identifier: i64) -> Self {
        self.commit_user = Some(user.into());
        self.commit_identifier = Some(identifier);
        self
    }

    /// Sets the files (sorted, deduplicated).
    #[must_use]
    pub fn files(mut self, files: impl IntoIterator<Item = String>) -> Self {
        self.files = files.into_iter().collect();
        self.files.sort();
        self.files.dedup();
        self
    }

    /// Adds one line of evidence.
    #[must_use]
    pub fn evidence(mut self, line: impl Into<String>) -> Self {
        self.evidence.push(line.into());
        self
    }

    /// The order findings are listed in: errors first, then code, snapshot, consumer, files.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            std::cmp::Reverse(self.severity),
            self.code,
            self.snapshot,
            self.consumer.as_deref(),
            self.files.first().map(String::as_str),
            self.message.as_str(),
        )
    }
}

impl Report {
    /// Recomputes `summary` and `verdict` from the findings, and sorts findings.
    pub fn finish(&mut self) {
        let mut summary = Summary {
            tables: self.tables.len() as u64,
            ..Summary::default()
        };
        for table in &mut self.tables {
            table
                .findings
                .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        self.findings
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let all = self
            .findings
            .iter()
            .chain(self.tables.iter().flat_map(|t| t.findings.iter()));
        for f in all {
            match f.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
        }
        self.verdict = if summary.errors > 0 {
            Verdict::Fail
        } else if summary.warnings > 0 {
            Verdict::Warn
        } else {
            Verdict::Pass
        };
        self.summary = summary;
    }

    /// Every finding with the table it belongs to (`None` for artifact-level findings).
    pub fn all_findings(&self) -> impl Iterator<Item = (Option<&TableReport>, &Finding)> {
        self.findings.iter().map(|f| (None, f)).chain(
            self.tables
                .iter()
                .flat_map(|t| t.findings.iter().map(move |f| (Some(t), f))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_the_contract_names() {
        for code in Code::ALL {
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }

    #[test]
    fn consumer_verdicts_serialize_as_the_contract_names() {
        for v in [
            ConsumerVerdict::Safe,
            ConsumerVerdict::CaughtUp,
            ConsumerVerdict::Stale,
            ConsumerVerdict::Expired,
            ConsumerVerdict::Ahead,
            ConsumerVerdict::PastLostChangelog,
            ConsumerVerdict::Unreadable,
        ] {
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.as_str())
            );
        }
    }

    #[test]
    fn severity_orders_error_highest() {
        assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Info);
    }
}
