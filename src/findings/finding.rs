//! One finding: a stable code, a severity, what is wrong, what to do, and the evidence.

use serde::{Deserialize, Serialize};

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

/// A stable finding code. Codes are never renamed; new ones may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    LostChangelog,
    PendingChangelog,
    ChangelogNotProduced,
    ChangelogProducerChanged,
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
    BranchIncomplete,
    SparkPositionUnknown,
    ConsumerBlocked,
    SchemaTempFile,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: &'static [Code] = &[
        Code::LostChangelog,
        Code::PendingChangelog,
        Code::ChangelogNotProduced,
        Code::ChangelogProducerChanged,
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
        Code::BranchIncomplete,
        Code::SparkPositionUnknown,
        Code::ConsumerBlocked,
        Code::SchemaTempFile,
    ];

    /// The contract's kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::LostChangelog => "lost-changelog",
            Code::PendingChangelog => "pending-changelog",
            Code::ChangelogNotProduced => "changelog-not-produced",
            Code::ChangelogProducerChanged => "changelog-producer-changed",
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
            Code::BranchIncomplete => "branch-incomplete",
            Code::SparkPositionUnknown => "spark-position-unknown",
            Code::ConsumerBlocked => "consumer-blocked",
            Code::SchemaTempFile => "schema-temp-file",
        }
    }

    /// A short human title for tables and headings.
    pub fn title(self) -> &'static str {
        match self {
            Code::LostChangelog => "Lost changelog",
            Code::PendingChangelog => "Changelog not produced yet",
            Code::ChangelogNotProduced => "Changelog not produced by these writers",
            Code::ChangelogProducerChanged => "Changelog producer changed",
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
            Code::BranchIncomplete => "Branch half-created",
            Code::SparkPositionUnknown => "Spark checkpoint position unknown",
            Code::ConsumerBlocked => "Consumer blocked at a missing snapshot",
            Code::SchemaTempFile => "Leftover schema temp file",
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
    /// What a lost commit means for each view of the table (`lost-changelog`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub impact: Option<Impact>,
}

/// What a finding means for the two ways of reading a table: its changelog (streaming readers)
/// and its batch view (a batch read of the latest snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    /// The changelog of the commit.
    pub changelog: ChangelogImpact,
    /// The batch view of the latest snapshot.
    pub batch: BatchImpact,
}

/// The changelog side of an [`Impact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangelogImpact {
    /// Never committed: streaming readers will not receive it.
    Lost,
}

/// The batch side of an [`Impact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BatchImpact {
    /// A batch read returns the values from before the commit (its rows are not visible).
    Stale,
    /// A batch read returns the commit's values.
    Current,
    /// The artifact cannot tell which.
    Unknown,
}

impl ChangelogImpact {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangelogImpact::Lost => "lost",
        }
    }
}

impl BatchImpact {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchImpact::Stale => "stale",
            BatchImpact::Current => "current",
            BatchImpact::Unknown => "unknown",
        }
    }
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
            impact: None,
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

    /// Sets the impact on both views.
    #[must_use]
    pub fn impact(mut self, impact: Impact) -> Self {
        self.impact = Some(impact);
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
    fn severity_orders_error_highest() {
        assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Info);
    }
}
