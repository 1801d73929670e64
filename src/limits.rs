//! Resource limits against hostile or broken artifacts.
//!
//! Every reader in the core checks the limit that applies before it allocates or loops. Going
//! past a limit is never a crash: a file that exceeds one becomes an `unreadable-file` finding
//! naming the limit, and a limit on the artifact as a whole (entries, nesting) ends the run with
//! exit status 2 and the limit named. The defaults are generous for real warehouses (a
//! 10,000-snapshot table with 50,000 manifests stays well inside them) and small enough that a
//! crafted zip cannot exhaust a browser tab.
//!
//! Each limit has a kebab-case name used in messages and as the CLI flag `--limit NAME=VALUE`.

use crate::error::{Error, Result};

/// Default of `max-entries`: one million entries in one zip or folder.
pub const DEFAULT_MAX_ENTRIES: u64 = 1_000_000;
/// Default of `max-total-entries`: two million entries over the whole artifact.
pub const DEFAULT_MAX_TOTAL_ENTRIES: u64 = 2_000_000;
/// Default of `max-nesting`: zips nested 4 deep (a CI artifact of an uploaded zip is depth 1).
pub const DEFAULT_MAX_NESTING: u32 = 4;
/// Default of `max-entry-bytes`: 256 MiB from one entry.
pub const DEFAULT_MAX_ENTRY_BYTES: u64 = 256 << 20;
/// Default of `max-nested-zip-bytes`: 1 GiB for all compressed nested zips together.
pub const DEFAULT_MAX_NESTED_ZIP_BYTES: u64 = 1 << 30;
/// Default of `max-total-bytes`: 4 GiB inflated over the whole run.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 4 << 30;
/// Default of `max-ratio`: an entry may inflate to 1,000 times its compressed size.
pub const DEFAULT_MAX_RATIO: u64 = 1_000;
/// Default of `max-json-bytes`: 16 MiB for one JSON document.
pub const DEFAULT_MAX_JSON_BYTES: u64 = 16 << 20;
/// Default of `max-avro-blocks`: one million blocks in one Avro file.
pub const DEFAULT_MAX_AVRO_BLOCKS: u64 = 1_000_000;
/// Default of `max-avro-block-bytes`: 64 MiB for one decompressed Avro block.
pub const DEFAULT_MAX_AVRO_BLOCK_BYTES: u64 = 64 << 20;
/// Default of `max-avro-records`: ten million records in one Avro file.
pub const DEFAULT_MAX_AVRO_RECORDS: u64 = 10_000_000;
/// Default of `max-rows-kept`: two million rows kept by the row evidence over the whole run.
pub const DEFAULT_MAX_ROWS_KEPT: u64 = 2_000_000;
/// Default of `max-evidence-bytes`: 2 GiB of data, changelog and deletion-vector bytes read by
/// the row evidence over the whole run.
pub const DEFAULT_MAX_EVIDENCE_BYTES: u64 = 2 << 30;
/// Default of `max-name-bytes`: 4,096 bytes for one path inside the artifact.
pub const DEFAULT_MAX_NAME_BYTES: u64 = 4_096;

/// The limits of one analysis run. What going past each one does:
///
/// * `max-entries`, `max-total-entries`, `max-nesting`: the artifact as a whole cannot be
///   listed; the run ends with exit status 2 and the limit named.
/// * every other limit: the file concerned becomes an `unreadable-file` (or
///   `dangling-reference`, `consumer-unreadable`) finding whose message names the limit, and the
///   rest of the artifact is analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `max-entries` (default [`DEFAULT_MAX_ENTRIES`]): entries in one zip's central directory,
    /// and files in one folder input.
    pub max_entries: u64,
    /// `max-total-entries` (default [`DEFAULT_MAX_TOTAL_ENTRIES`]): entries over the whole
    /// artifact, nested zips included.
    pub max_total_entries: u64,
    /// `max-nesting` (default [`DEFAULT_MAX_NESTING`]): depth of zips inside zips (the outer zip
    /// is depth 0).
    pub max_nesting: u32,
    /// `max-entry-bytes` (default [`DEFAULT_MAX_ENTRY_BYTES`]): bytes inflated from one entry (a
    /// metadata file, a ranged read of a data file) before giving up.
    pub max_entry_bytes: u64,
    /// `max-nested-zip-bytes` (default [`DEFAULT_MAX_NESTED_ZIP_BYTES`]): bytes the compressed
    /// nested zips of the artifact may inflate to, all together (they are held in memory; stored
    /// nested zips are read in place and not limited by this).
    pub max_nested_zip_bytes: u64,
    /// `max-total-bytes` (default [`DEFAULT_MAX_TOTAL_BYTES`]): bytes inflated over the whole
    /// run.
    pub max_total_bytes: u64,
    /// `max-ratio` (default [`DEFAULT_MAX_RATIO`]): inflated/compressed ratio of one entry
    /// before it is treated as a bomb. Entries of at most 1 MiB are not held to it (small files
    /// of repeated bytes compress far better than 1,000:1 and are harmless).
    pub max_ratio: u64,
    /// `max-json-bytes` (default [`DEFAULT_MAX_JSON_BYTES`]): size of one JSON document
    /// (snapshot, schema, consumer, tag, hint, Spark checkpoint file). JSON nesting depth is
    /// bounded separately by the parser (128 levels).
    pub max_json_bytes: u64,
    /// `max-avro-blocks` (default [`DEFAULT_MAX_AVRO_BLOCKS`]): blocks in one Avro container
    /// file.
    pub max_avro_blocks: u64,
    /// `max-avro-block-bytes` (default [`DEFAULT_MAX_AVRO_BLOCK_BYTES`]): bytes of one Avro
    /// block after decompression.
    pub max_avro_block_bytes: u64,
    /// `max-avro-records` (default [`DEFAULT_MAX_AVRO_RECORDS`]): records in one Avro container
    /// file.
    pub max_avro_records: u64,
    /// `max-name-bytes` (default [`DEFAULT_MAX_NAME_BYTES`]): length of one path inside the
    /// artifact.
    pub max_name_bytes: u64,
    /// `max-rows-kept` (default [`DEFAULT_MAX_ROWS_KEPT`]): rows of data and changelog files
    /// the row evidence keeps over the whole run, and the ids of Ray Data checkpoint files read
    /// (every file's kept rows count, the rows it only looks at do not). Past it, the file being read is unreadable for the evidence and
    /// what rests on it is *unknown*, naming the limit.
    pub max_rows_kept: u64,
    /// `max-evidence-bytes` (default [`DEFAULT_MAX_EVIDENCE_BYTES`]): bytes the row evidence
    /// reads over the whole run: each data or changelog file it opens (its size, charged before
    /// it is read) and each distinct deletion-vector range it parses. Past it, the file or
    /// deletion vector is unreadable for the evidence and what rests on it is *unknown*, naming
    /// the limit.
    pub max_evidence_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: DEFAULT_MAX_ENTRIES,
            max_total_entries: DEFAULT_MAX_TOTAL_ENTRIES,
            max_nesting: DEFAULT_MAX_NESTING,
            max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES,
            max_nested_zip_bytes: DEFAULT_MAX_NESTED_ZIP_BYTES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            max_ratio: DEFAULT_MAX_RATIO,
            max_json_bytes: DEFAULT_MAX_JSON_BYTES,
            max_avro_blocks: DEFAULT_MAX_AVRO_BLOCKS,
            max_avro_block_bytes: DEFAULT_MAX_AVRO_BLOCK_BYTES,
            max_avro_records: DEFAULT_MAX_AVRO_RECORDS,
            max_name_bytes: DEFAULT_MAX_NAME_BYTES,
            max_rows_kept: DEFAULT_MAX_ROWS_KEPT,
            max_evidence_bytes: DEFAULT_MAX_EVIDENCE_BYTES,
        }
    }
}

/// The limits by name, for help texts and for `--limit NAME=VALUE`.
pub const LIMIT_NAMES: &[(&str, &str)] = &[
    ("max-entries", "entries in one zip or folder"),
    ("max-total-entries", "entries over the whole artifact"),
    ("max-nesting", "depth of zips inside zips"),
    ("max-entry-bytes", "bytes inflated from one entry"),
    (
        "max-nested-zip-bytes",
        "bytes compressed nested zips may inflate to, in all",
    ),
    ("max-total-bytes", "bytes inflated over the whole run"),
    ("max-ratio", "inflated/compressed ratio of one entry"),
    ("max-json-bytes", "size of one JSON document"),
    ("max-avro-blocks", "blocks in one Avro file"),
    (
        "max-avro-block-bytes",
        "bytes of one decompressed Avro block",
    ),
    ("max-avro-records", "records in one Avro file"),
    ("max-name-bytes", "length of one path inside the artifact"),
    (
        "max-rows-kept",
        "rows the row evidence keeps, over the whole run",
    ),
    (
        "max-evidence-bytes",
        "bytes the row evidence reads, over the whole run",
    ),
];

impl Limits {
    /// Sets the limit called `name` (see [`LIMIT_NAMES`]) to `value`.
    pub fn set(&mut self, name: &str, value: u64) -> Result<()> {
        let slot = match name {
            "max-entries" => &mut self.max_entries,
            "max-total-entries" => &mut self.max_total_entries,
            "max-nesting" => {
                self.max_nesting = u32::try_from(value)
                    .map_err(|_| Error::format(format!("max-nesting {value} is too large")))?;
                return Ok(());
            }
            "max-entry-bytes" => &mut self.max_entry_bytes,
            "max-nested-zip-bytes" => &mut self.max_nested_zip_bytes,
            "max-total-bytes" => &mut self.max_total_bytes,
            "max-ratio" => &mut self.max_ratio,
            "max-json-bytes" => &mut self.max_json_bytes,
            "max-avro-blocks" => &mut self.max_avro_blocks,
            "max-avro-block-bytes" => &mut self.max_avro_block_bytes,
            "max-avro-records" => &mut self.max_avro_records,
            "max-name-bytes" => &mut self.max_name_bytes,
            "max-rows-kept" => &mut self.max_rows_kept,
            "max-evidence-bytes" => &mut self.max_evidence_bytes,
            other => {
                let known: Vec<&str> = LIMIT_NAMES.iter().map(|(n, _)| *n).collect();
                return Err(Error::format(format!(
                    "unknown limit {other:?}; known limits: {}",
                    known.join(", ")
                )));
            }
        };
        *slot = value;
        Ok(())
    }

    /// The value of the limit called `name` (see [`LIMIT_NAMES`]).
    pub fn get(&self, name: &str) -> Option<u64> {
        Some(match name {
            "max-entries" => self.max_entries,
            "max-total-entries" => self.max_total_entries,
            "max-nesting" => u64::from(self.max_nesting),
            "max-entry-bytes" => self.max_entry_bytes,
            "max-nested-zip-bytes" => self.max_nested_zip_bytes,
            "max-total-bytes" => self.max_total_bytes,
            "max-ratio" => self.max_ratio,
            "max-json-bytes" => self.max_json_bytes,
            "max-avro-blocks" => self.max_avro_blocks,
            "max-avro-block-bytes" => self.max_avro_block_bytes,
            "max-avro-records" => self.max_avro_records,
            "max-name-bytes" => self.max_name_bytes,
            "max-rows-kept" => self.max_rows_kept,
            "max-evidence-bytes" => self.max_evidence_bytes,
            _ => return None,
        })
    }

    /// Parses `NAME=VALUE`, where VALUE may end in `K`, `M` or `G` (binary multiples).
    pub fn set_from_arg(&mut self, arg: &str) -> Result<()> {
        let (name, value) = arg
            .split_once('=')
            .ok_or_else(|| Error::format(format!("expected NAME=VALUE, got {arg:?}")))?;
        let value = parse_size(value.trim())
            .ok_or_else(|| Error::format(format!("{name}: {value:?} is not a number")))?;
        self.set(name.trim(), value)
    }
}

/// The limits with their defaults and meanings, one per line, for `--help`.
pub fn help_table() -> String {
    let defaults = Limits::default();
    LIMIT_NAMES
        .iter()
        .map(|(name, what)| {
            let value = defaults.get(name).map(format_size).unwrap_or_default();
            format!("  {name:<22} {value:>8}  {what}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `1024` as `1K`, `16777216` as `16M`: the largest binary suffix that divides exactly.
pub fn format_size(n: u64) -> String {
    for (shift, suffix) in [(30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{}{suffix}", n >> shift);
        }
    }
    n.to_string()
}

/// Parses `123`, `64K`, `16M`, `4G` (binary multiples).
pub fn parse_size(s: &str) -> Option<u64> {
    let (digits, shift) = match s.as_bytes().last()? {
        b'K' | b'k' => (s.get(..s.len() - 1)?, 10),
        b'M' | b'm' => (s.get(..s.len() - 1)?, 20),
        b'G' | b'g' => (s.get(..s.len() - 1)?, 30),
        _ => (s, 0),
    };
    let n: u64 = digits.parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// Memory for the values of one read of a data file (`max-entry-bytes`), charged before it is
/// taken: the Parquet and ORC readers' one accounting of what decoded values cost.
pub(crate) struct ReadBudget {
    left: u64,
    limit: u64,
}

impl ReadBudget {
    pub(crate) fn new(limit: u64) -> Self {
        ReadBudget { left: limit, limit }
    }

    /// Takes `bytes` from what is left, or a `limit` error naming `max-entry-bytes`.
    pub(crate) fn charge(&mut self, bytes: u64) -> Result<()> {
        if bytes > self.left {
            return Err(Error::limit(
                "max-entry-bytes",
                format!(
                    "the values read would take more than {} bytes of memory",
                    self.limit
                ),
            ));
        }
        self.left -= bytes;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_limit_can_be_set() {
        for (name, _) in LIMIT_NAMES {
            let mut l = Limits::default();
            l.set(name, 7).unwrap();
            assert_ne!(l, Limits::default(), "{name} did not change anything");
        }
    }

    #[test]
    fn unknown_limit_is_rejected_with_the_known_names() {
        let err = Limits::default().set_from_arg("max-bogus=1").unwrap_err();
        assert!(err.to_string().contains("max-entries"));
    }

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
    }

    #[test]
    fn every_named_limit_has_a_value_and_a_help_line() {
        let help = help_table();
        for (name, _) in LIMIT_NAMES {
            let default = Limits::default().get(name);
            assert!(default.is_some(), "{name}");
            let mut l = Limits::default();
            l.set(name, 7).unwrap();
            assert_eq!(l.get(name), Some(7), "{name}");
            assert!(help.contains(name), "{name}");
        }
        assert!(help.contains("256M"), "{help}");
        assert_eq!(format_size(4 << 30), "4G");
        assert_eq!(format_size(1_000_000), "1000000");
        assert_eq!(parse_size(&format_size(64 << 20)), Some(64 << 20));
    }

    #[test]
    fn set_from_arg() {
        let mut l = Limits::default();
        l.set_from_arg("max-entry-bytes=1M").unwrap();
        assert_eq!(l.max_entry_bytes, 1 << 20);
    }
}
