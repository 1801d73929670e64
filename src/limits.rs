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

/// The limits of one analysis run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `max-entries`: entries in one zip's central directory, and files in one folder input.
    pub max_entries: u64,
    /// `max-total-entries`: entries over the whole artifact, nested zips included.
    pub max_total_entries: u64,
    /// `max-nesting`: depth of zips inside zips (the outer zip is depth 0).
    pub max_nesting: u32,
    /// `max-entry-bytes`: bytes inflated from one entry (a metadata file) before giving up.
    pub max_entry_bytes: u64,
    /// `max-nested-zip-bytes`: bytes a compressed nested zip may inflate to (it is held in
    /// memory; a stored nested zip is read in place and not limited by this).
    pub max_nested_zip_bytes: u64,
    /// `max-total-bytes`: bytes inflated over the whole run.
    pub max_total_bytes: u64,
    /// `max-ratio`: inflated/compressed ratio of one entry before it is treated as a bomb.
    pub max_ratio: u64,
    /// `max-json-bytes`: size of one JSON document (snapshot, schema, consumer, tag, hint).
    pub max_json_bytes: u64,
    /// `max-avro-blocks`: blocks in one Avro container file.
    pub max_avro_blocks: u64,
    /// `max-avro-block-bytes`: bytes of one Avro block after decompression.
    pub max_avro_block_bytes: u64,
    /// `max-avro-records`: records in one Avro container file.
    pub max_avro_records: u64,
    /// `max-name-bytes`: length of one path inside the artifact.
    pub max_name_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: 1_000_000,
            max_total_entries: 2_000_000,
            max_nesting: 4,
            max_entry_bytes: 256 << 20,
            max_nested_zip_bytes: 1 << 30,
            max_total_bytes: 4 << 30,
            max_ratio: 1_000,
            max_json_bytes: 16 << 20,
            max_avro_blocks: 1_000_000,
            max_avro_block_bytes: 64 << 20,
            max_avro_records: 10_000_000,
            max_name_bytes: 4_096,
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
        "bytes a compressed nested zip may inflate to",
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
    fn set_from_arg() {
        let mut l = Limits::default();
        l.set_from_arg("max-entry-bytes=1M").unwrap();
        assert_eq!(l.max_entry_bytes, 1 << 20);
    }
}
