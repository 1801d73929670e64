//! Row-level evidence: reading the rows of Paimon data and changelog files (and Ray Data
//! checkpoint files) to show *what* a file-level finding lost.
//!
//! * [`read`] reads one Paimon file into records (key, `_SEQUENCE_NUMBER`, `_VALUE_KIND`,
//!   values), reading only the columns asked for and keeping only the keys asked for.
//! * [`merge`] is the merge-on-read of one key (deduplicate, first-row; ties; deletes).
//! * [`dv`] reads deletion vectors (32-bit and 64-bit roaring bitmaps, portable serialization).
//! * [`identities`] is what a table holds of given ids or keys (batch view, OVERWRITEs,
//!   unreferenced files), for the Ray Data checks.
//! * [`live`] is the batch view of a snapshot: its live files (of some buckets), their deletion
//!   vectors, merged by key.
//! * [`lost`] builds the per-key evidence of a `lost-changelog` finding: the rows in its orphan
//!   changelog files, what later committed changelog delivered for those keys, and the batch
//!   view now.
//!
//! The reports render this evidence (`crate::report::rows`); nothing here renders.
//!
//! Row evidence is never fatal: a file that cannot be read becomes a note, and the file-level
//! finding stands. Everything is deterministic (keys sorted) and capped.

pub mod dv;
pub mod identities;
pub mod key;
pub mod live;
pub mod lost;
pub mod merge;
pub mod read;

pub use key::Key;

/// The kind of a row (Paimon's `RowKind`, stored as a byte in `_VALUE_KIND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKind {
    /// `0` `+I`.
    Insert,
    /// `1` `-U`: the value before an update.
    UpdateBefore,
    /// `2` `+U`: the value after an update.
    UpdateAfter,
    /// `3` `-D`.
    Delete,
}

impl RowKind {
    /// The kind for a `_VALUE_KIND` byte.
    pub fn from_byte(v: i64) -> Option<RowKind> {
        match v {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// `+I`, `-U`, `+U`, `-D`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// Whether the row adds a value (`+I`, `+U`) rather than retracting one.
    pub fn is_add(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }
}

/// Why a file that row evidence rests on was not read: the `reason` of each item of a key's
/// `batchUnknownBecause` / `deliveredUnknownBecause`, so a report never says "could not be
/// read" of a file that is absent or was left unread on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRead {
    /// Not in the artifact.
    Missing,
    /// In the artifact, but reading it failed.
    Unreadable,
    /// Not read on purpose: past one of the caps below (`MAX_*`).
    Capped,
}

impl NotRead {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            NotRead::Missing => "missing",
            NotRead::Unreadable => "unreadable",
            NotRead::Capped => "capped",
        }
    }
}

/// Keys shown per finding in the report's `rows`; the rest are counted in `omitted`.
pub const MAX_KEYS: usize = 50;
/// Changelog records shown per key and column (delivered, lost).
pub const MAX_RECORDS_PER_KEY: usize = 8;
/// Later changelog files read per finding to find what was delivered.
pub const MAX_DELIVERED_FILES: usize = 64;
/// Live files read per batch view.
pub const MAX_LIVE_FILES: usize = 4096;

#[cfg(test)]
mod tests {
    use super::RowKind;

    /// `_VALUE_KIND`'s bytes (Paimon's `RowKind.toByteValue`): 0 +I, 1 -U, 2 +U, 3 -D.
    #[test]
    fn value_kind_bytes() {
        let kinds: Vec<Option<&str>> = (-1..=4)
            .map(|b| RowKind::from_byte(b).map(RowKind::as_str))
            .collect();
        assert_eq!(
            kinds,
            [None, Some("+I"), Some("-U"), Some("+U"), Some("-D"), None]
        );
    }
}
