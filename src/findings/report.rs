//! The report as a whole: the value the JSON contract `paimon-recovery-report/1` serializes.
//!
//! The CLI's `--format json` and the page's "Download JSON" serialize this same value (see
//! `design.md`). Fields may be added; the ones the contract names keep their names and meanings.
//! Every collection is ordered deterministically (by path, branch, id, code), so the same input
//! gives the same bytes.

use serde::{Deserialize, Serialize};

use super::{Finding, Severity, TableReport};

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

#[cfg(test)]
impl Clock {
    /// The clock `--now` gives, zip times taken as UTC: what the checks' unit tests judge at.
    pub(crate) fn given(now_millis: i64) -> Self {
        Clock {
            now_millis,
            source: ClockSource::Given,
            zip_time_offset_minutes: None,
        }
    }
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
