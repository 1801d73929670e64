//! `<checkpoint>/commits/<batchId>`: Spark's commit log. Spark writes it after the batch's sink
//! finished; an `offsets/N` without `commits/N` is a batch that was planned and never completed
//! (`paimon-format.md` §7.1; Spark `CommitLog`). Line 1 `v<N>`, line 2
//! `{"nextBatchWatermarkMs":0}` (plus `stateUniqueIds` with state checkpoint format v2).

use serde::Deserialize;

use crate::error::{Error, Result};

use super::offsets::parse_version;

/// One parsed `commits/<batchId>` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitLogEntry {
    /// The format version.
    pub version: u32,
    /// `nextBatchWatermarkMs`.
    pub next_batch_watermark_millis: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCommit {
    next_batch_watermark_ms: Option<i64>,
}

impl CommitLogEntry {
    /// Parses a commit log file.
    pub fn parse(bytes: &[u8]) -> Result<CommitLogEntry> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::format(format!("not UTF-8 text: {e}")))?;
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        let version = parse_version(lines.next())?;
        let body = lines.next().unwrap_or("").trim();
        let next_batch_watermark_millis = if body.is_empty() {
            None
        } else {
            let raw: RawCommit = serde_json::from_str(body).map_err(|e| {
                Error::format(format!("the commit metadata is not valid JSON: {e}"))
            })?;
            raw.next_batch_watermark_ms
        };
        Ok(CommitLogEntry {
            version,
            next_batch_watermark_millis,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spark_commit_files() {
        let c = CommitLogEntry::parse(b"v1\n{\"nextBatchWatermarkMs\":0}").unwrap();
        assert_eq!(c.version, 1);
        assert_eq!(c.next_batch_watermark_millis, Some(0));
        let c = CommitLogEntry::parse(
            b"v2\n{\"nextBatchWatermarkMs\":5,\"stateUniqueIds\":{\"0\":[[\"a\"]]}}\n",
        )
        .unwrap();
        assert_eq!(c.next_batch_watermark_millis, Some(5));
        assert!(CommitLogEntry::parse(b"").is_err());
        assert!(CommitLogEntry::parse(b"v1\n{oops").is_err());
    }
}
