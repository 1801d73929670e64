//! The renderers of a [`Report`](crate::findings::Report): JSON (the contract), Markdown (for
//! GitHub issues) and text (for terminals). They only render: the report's data types are the
//! findings vocabulary ([`crate::findings`]), assembled by the analysis.

pub mod json;
pub mod markdown;
pub mod model;
pub mod rows;
pub mod text;

/// The time functions the renderers use, re-exported for the page's existing imports.
pub use crate::time::{format_utc, parse_rfc3339};

/// The table's `changelog-producer` as shown in a table's heading: Paimon's default `none` when
/// a schema was read without the option, `unknown (no schema)` when no schema was read.
pub(crate) fn changelog_producer(t: &crate::findings::TableReport) -> &str {
    match (t.options.get("changelog-producer"), &t.schema) {
        (Some(p), _) => p.as_str(),
        (None, Some(_)) => "none",
        (None, None) => "unknown (no schema)",
    }
}
