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
