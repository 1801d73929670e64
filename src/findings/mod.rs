//! The findings vocabulary: what the checks say and what a report holds, as plain data.
//!
//! Everything here is data with its serde form (the JSON contract `paimon-recovery-report/1`,
//! see `design.md`) and no behaviour beyond building and ordering it: no reading, no judging,
//! no rendering. It sits below the checks, which return [`Finding`]s and per-table summaries
//! ([`ConsumerReport`], [`ExpirationFence`], [`SparkCheckpointReport`],
//! [`RayCheckpointReport`]); the analysis assembles them into a [`Report`]; the renderers in
//! [`crate::report`] turn a report into Markdown or text.
//!
//! * `finding` — [`Code`], [`Severity`], [`Finding`];
//! * `table` — [`TableReport`] and the summaries of a table's history;
//! * `checkpoints` — engine checkpoints paired with a table;
//! * `report` — the whole [`Report`], its [`Verdict`], [`Clock`] and counters.

mod checkpoints;
mod finding;
mod report;
mod table;

pub use checkpoints::{
    RayCheckpointReport, SparkCheckpointReport, SparkCheckpointVerdict, SparkOffset,
    SparkPairingKind,
};
pub use finding::{BatchImpact, ChangelogImpact, Code, Finding, Impact, Severity};
pub use report::{
    Clock, ClockSource, InputInfo, ReadStats, Report, Summary, Tool, Verdict, REPORT_SCHEMA,
    TOOL_NAME, TOOL_VERSION,
};
pub use table::{
    CommitGroupSummary, ConsumerReport, ConsumerVerdict, ExpirationFence, FieldSummary, Hints,
    IdRange, ManifestLists, SchemaSummary, SnapshotFiles, SnapshotSummary, TableReport, TagSummary,
};
