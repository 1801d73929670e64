//! `<checkpoint>/offsets/<batchId>`: Spark's write-ahead log of the offsets each micro-batch
//! was planned with (`paimon-format.md` §7.1; Spark `OffsetSeqLog`).
//!
//! Line 1 is the format version: `v1`, or `v2` (Spark 4.x with
//! `spark.sql.streaming.offsetLog.formatVersion=2`). Line 2 is the batch metadata JSON
//! (`batchWatermarkMs`, `batchTimestampMs`, `conf`), or empty. Then one line per source:
//!
//! * `v1`: the source's `Offset.json()`, positionally in the order of the query's sources, or
//!   `-` for a source without an offset;
//! * `v2`: `<sourceId>:<Offset.json()>` (or `<sourceId>:-`), keyed by the source's id (its
//!   ordinal, `0`, `1`, … unless the query names its sources). Real Spark 4.3 writes
//!   `0:{"snapshotId": 6, …}` here for a single unnamed source.
//!
//! Spark writes the file in one piece (write to a hidden temp file, then rename), so a partial
//! file is not expected; this parser still reports one as a problem instead of guessing. Every
//! source's `Offset.json()` is JSON (Spark's `SerializedOffset` contract), so a source line that
//! is not JSON is damage (a file cut short inside its last line), never "another source"; a file
//! with no source line at all is cut short too (a query has at least one source).

use serde::Deserialize;

use crate::error::{Error, Result};

use super::paimon_offset::PaimonOffset;

/// One parsed `offsets/<batchId>` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetLogEntry {
    /// The format version (`v1` → 1).
    pub version: u32,
    /// `batchTimestampMs` of the metadata line: when Spark planned the batch.
    pub batch_timestamp_millis: Option<i64>,
    /// `batchWatermarkMs`.
    pub batch_watermark_millis: Option<i64>,
    /// One entry per source, in file order.
    pub sources: Vec<SourceOffset>,
}

/// The offset of one source in one batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceOffset {
    /// The source's id in a `v2` log; `None` in `v1` (positional).
    pub key: Option<String>,
    /// The offset JSON; `None` for `-` (the source had no offset yet).
    pub json: Option<String>,
    /// The offset, if it is a Paimon source offset.
    pub paimon: Option<PaimonOffset>,
}

impl SourceOffset {
    /// How the source is named in messages: its `v2` key or its position.
    pub fn label(&self, position: usize) -> String {
        match &self.key {
            Some(k) => format!("source {k}"),
            None => format!("source #{position}"),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMetadata {
    batch_watermark_ms: Option<i64>,
    batch_timestamp_ms: Option<i64>,
}

/// Parses `v<N>` (a version line of the offset or commit log).
pub(super) fn parse_version(line: Option<&str>) -> Result<u32> {
    let line = line.ok_or_else(|| Error::format("the file is empty"))?;
    line.trim()
        .strip_prefix('v')
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|v| *v >= 1)
        .ok_or_else(|| {
            Error::format(format!(
                "the first line must be a log version like v1, found {:?}",
                truncate(line, 40)
            ))
        })
}

impl OffsetLogEntry {
    /// Parses an offset log file.
    pub fn parse(bytes: &[u8]) -> Result<OffsetLogEntry> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::format(format!("not UTF-8 text: {e}")))?;
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        let version = parse_version(lines.next())?;
        if version > 2 {
            return Err(Error::unsupported(format!(
                "offset log version v{version} (this tool reads v1 and v2)"
            )));
        }
        let metadata = lines.next().ok_or_else(|| {
            Error::format("the batch metadata line is missing (incomplete log file)")
        })?;
        let (watermark, timestamp) = if metadata.trim().is_empty() {
            (None, None)
        } else {
            let raw: RawMetadata = serde_json::from_str(metadata)
                .map_err(|e| Error::format(format!("the batch metadata is not valid JSON: {e}")))?;
            (raw.batch_watermark_ms, raw.batch_timestamp_ms)
        };
        let mut sources = Vec::new();
        for line in lines {
            if line.is_empty() {
                continue;
            }
            let (key, value) = split_source_line(line, version);
            let json = (value != "-").then(|| value.to_string());
            if let Some(j) = &json {
                if let Err(e) = serde_json::from_str::<serde_json::Value>(j) {
                    return Err(Error::format(format!(
                        "source line {} is not JSON ({e}): the file is cut short or damaged",
                        sources.len() + 1
                    )));
                }
            }
            let paimon = match &json {
                Some(j) => PaimonOffset::parse(j).map_err(|e| {
                    Error::format(format!(
                        "source line {} looks like a Paimon offset but is not one: {}",
                        sources.len() + 1,
                        e.problem()
                    ))
                })?,
                None => None,
            };
            sources.push(SourceOffset { key, json, paimon });
        }
        if sources.is_empty() {
            return Err(Error::format(
                "no source line after the batch metadata: the file is cut short",
            ));
        }
        Ok(OffsetLogEntry {
            version,
            batch_timestamp_millis: timestamp,
            batch_watermark_millis: watermark,
            sources,
        })
    }

    /// The Paimon source offsets of this batch, with their position.
    pub fn paimon_sources(&self) -> impl Iterator<Item = (usize, &SourceOffset, PaimonOffset)> {
        self.sources
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.paimon.map(|p| (i, s, p)))
    }
}

/// Splits a source line into its `v2` key and the offset. A `v1` line, and a line that starts
/// like a JSON value, has no key.
fn split_source_line(line: &str, version: u32) -> (Option<String>, &str) {
    let starts_like_value = line.starts_with(['{', '[', '"']) || line == "-";
    if version >= 2 && !starts_like_value {
        if let Some((key, rest)) = line.split_once(':') {
            return (Some(key.to_string()), rest);
        }
    }
    (None, line)
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#"{"batchWatermarkMs":0,"batchTimestampMs":1502872590006,"conf":{"spark.sql.shuffle.partitions":"200"}}"#;

    #[test]
    fn jvm_v1_log_with_a_paimon_line() {
        // The shape of paimon-format.md §7.1: v1, metadata, the Paimon source's Jackson JSON.
        let file = format!("v1\n{META}\n{{\"snapshotId\":3,\"index\":1,\"scanSnapshot\":false}}");
        let e = OffsetLogEntry::parse(file.as_bytes()).unwrap();
        assert_eq!(e.version, 1);
        assert_eq!(e.batch_timestamp_millis, Some(1_502_872_590_006));
        assert_eq!(e.batch_watermark_millis, Some(0));
        let p: Vec<_> = e.paimon_sources().collect();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].2.snapshot_id, 3);
        assert_eq!(p[0].1.key, None);
    }

    #[test]
    fn several_sources_and_void_offsets() {
        let file = format!(
            "v1\n{META}\n-\n{{\"topic\":{{\"0\":51}}}}\n{{\"snapshotId\":7,\"index\":0,\"scanSnapshot\":false,\"totalSplits\":1}}\n"
        );
        let e = OffsetLogEntry::parse(file.as_bytes()).unwrap();
        assert_eq!(e.sources.len(), 3);
        assert_eq!(e.sources[0].json, None);
        assert_eq!(e.sources[1].paimon, None);
        let p: Vec<_> = e.paimon_sources().collect();
        assert_eq!(p[0].0, 2);
        assert_eq!(p[0].2.total_splits, Some(1));
    }

    #[test]
    fn v2_keyed_lines_as_spark_4_writes_them() {
        let file = format!(
            "v2\n{META}\n0:{{\"snapshotId\": 6, \"index\": 0, \"scanSnapshot\": false, \"totalSplits\": 1}}\nkafka:-"
        );
        let e = OffsetLogEntry::parse(file.as_bytes()).unwrap();
        assert_eq!(e.version, 2);
        assert_eq!(e.sources[0].key.as_deref(), Some("0"));
        assert_eq!(e.sources[0].paimon.unwrap().snapshot_id, 6);
        assert_eq!(e.sources[1].key.as_deref(), Some("kafka"));
        assert_eq!(e.sources[1].json, None);
        assert_eq!(e.sources[1].label(1), "source kafka");
    }

    #[test]
    fn empty_metadata_line_and_crlf() {
        let e = OffsetLogEntry::parse(b"v1\r\n\r\n{\"snapshotId\":1,\"index\":-1}\r\n").unwrap();
        assert_eq!(e.batch_timestamp_millis, None);
        assert_eq!(e.paimon_sources().next().unwrap().2.index, -1);
    }

    #[test]
    fn broken_files() {
        assert!(OffsetLogEntry::parse(b"").is_err());
        assert!(OffsetLogEntry::parse(b"v1").is_err());
        assert!(OffsetLogEntry::parse(b"version 1\n{}\n").is_err());
        assert!(OffsetLogEntry::parse(b"v9\n{}\n").is_err());
        assert!(OffsetLogEntry::parse(b"v1\nnot json\n").is_err());
        assert!(OffsetLogEntry::parse(b"v1\n{}\n{\"snapshotId\":\"x\",\"index\":0}").is_err());
        assert!(OffsetLogEntry::parse(&[b'v', b'1', b'\n', 0xff]).is_err());
        // Cut short inside the Paimon line, or after the metadata line: damage, not another
        // source.
        let e =
            OffsetLogEntry::parse(b"v1\n{}\n{\"snapshotId\":3,\"index\":1,\"scanSn").unwrap_err();
        assert!(e.problem().contains("cut short"), "{e}");
        assert!(OffsetLogEntry::parse(b"v1\n{}\n").is_err());
        assert!(OffsetLogEntry::parse(b"v2\n{}\n0:{\"snapshotId\": 3").is_err());
    }
}
