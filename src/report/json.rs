//! The JSON rendering of a report (schema `paimon-recovery-report/1`).
//!
//! Pretty-printed with two-space indentation and a final newline; field order is the model's
//! declaration order and every collection is sorted, so the same input gives the same bytes on
//! the CLI and in the page.

use crate::findings::Report;

/// Renders the report as JSON.
pub fn render(report: &Report) -> String {
    // Serializing plain data with string keys cannot fail; fall back to an error object if it
    // ever does rather than panicking.
    let mut out = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        format!("{{\"schema\": \"paimon-recovery-report/1\", \"error\": \"{e}\"}}")
    });
    out.push('\n');
    out
}

/// Parses a report back (the page's permalink, tests).
pub fn parse(json: &str) -> Result<Report, serde_json::Error> {
    serde_json::from_str(json)
}
