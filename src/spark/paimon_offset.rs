//! The Paimon Spark source's offset, as one source line of `offsets/<batch>` holds it
//! (`paimon-format.md` §7.1, `PaimonSourceOffset.scala`).
//!
//! `{"snapshotId":3,"index":1,"scanSnapshot":false}`; Paimon master appends `"totalSplits":N`
//! when a `consumer-id` is configured. A batch covers `(start, end]` ordered by
//! `(snapshotId, index)`; `index` is the 0-based position of the batch's last split in the
//! snapshot's sorted split list (`-1` in the initial offset, before any split). `scanSnapshot`
//! says the snapshot is read as a full snapshot scan (initial `latest-full`) rather than as a
//! delta.
//!
//! The JVM source writes Jackson's compact JSON; a Python data source with the same fields is
//! stored as Python's `json.dumps` output (spaces after `:` and `,`). Both are JSON: this parser
//! does not care about whitespace or field order, and ignores unknown fields.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A Paimon source offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaimonOffset {
    /// The snapshot of the last split included.
    pub snapshot_id: i64,
    /// Index of that split within the snapshot's split list (`-1`: none yet).
    pub index: i64,
    /// Whether the snapshot is read by a full snapshot scan.
    pub scan_snapshot: bool,
    /// The number of splits of that snapshot (Paimon master, with a consumer-id only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub total_splits: Option<i64>,
}

impl PaimonOffset {
    /// Parses one offset JSON. `None` if the text is JSON but not a Paimon offset (another
    /// source of the same query); an error if it is a Paimon offset with wrong field types.
    pub fn parse(json: &str) -> Result<Option<PaimonOffset>> {
        let value: serde_json::Value = match serde_json::from_str(json) {
            Ok(v) => v,
            Err(_) => return Ok(None),
        };
        let Some(obj) = value.as_object() else {
            return Ok(None);
        };
        if !(obj.contains_key("snapshotId") && obj.contains_key("index")) {
            return Ok(None);
        }
        let long = |name: &str| -> Result<Option<i64>> {
            match obj.get(name) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::Number(n)) => n
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| Error::format(format!("{name} {n} is not a long"))),
                Some(other) => Err(Error::format(format!(
                    "{name} must be a number, found {other}"
                ))),
            }
        };
        let snapshot_id = long("snapshotId")?.ok_or_else(|| Error::format("snapshotId is null"))?;
        let index = long("index")?.ok_or_else(|| Error::format("index is null"))?;
        let scan_snapshot = match obj.get("scanSnapshot") {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::format(format!(
                    "scanSnapshot must be a boolean, found {other}"
                )))
            }
        };
        Ok(Some(PaimonOffset {
            snapshot_id,
            index,
            scan_snapshot,
            total_splits: long("totalSplits")?,
        }))
    }

    /// Whether this offset is known to end its snapshot: the batch holds the snapshot's last
    /// split. `None` without `totalSplits` (an offset from Paimon <= 2.0 or without a
    /// consumer-id: completion cannot be known).
    pub fn completes_snapshot(&self) -> Option<bool> {
        self.total_splits
            .map(|total| self.index.saturating_add(1) >= total)
    }

    /// The consumer position Paimon master's commit callback records for a batch ending here
    /// (`paimon-format.md` §7.1, §8.1): past the snapshot once its last split is committed (`snapshotId + 1`); at
    /// the snapshot, to keep it protected, when a delta snapshot is only partly read. `None`
    /// when the callback leaves the consumer unchanged: offsets without completion metadata,
    /// and an initial full scan that has not finished (it creates no consumer).
    pub fn consumer_position(&self) -> Option<i64> {
        match self.completes_snapshot()? {
            true => Some(self.snapshot_id.saturating_add(1)),
            false if self.scan_snapshot => None,
            false => Some(self.snapshot_id),
        }
    }

    /// The first snapshot a restart from this (committed) offset must read: the next one when
    /// the offset is known to end its snapshot, else this one.
    pub fn resume_snapshot(&self) -> i64 {
        if self.completes_snapshot() == Some(true) {
            self.snapshot_id.saturating_add(1)
        } else {
            self.snapshot_id
        }
    }

    /// `snapshot 3, split 2/4 (full scan)` for messages.
    pub fn describe(&self) -> String {
        let split = match self.total_splits {
            Some(t) => format!("split {}/{t}", self.index.saturating_add(1)),
            None if self.index < 0 => "before its first split".to_string(),
            None => format!("split {}/?", self.index.saturating_add(1)),
        };
        format!(
            "snapshot {}, {split}{}",
            self.snapshot_id,
            if self.scan_snapshot {
                " (full scan)"
            } else {
                ""
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_examples() {
        // paimon-format.md §7.1: the legacy example from PaimonSourceOffsetTest.scala.
        let o = PaimonOffset::parse(r#"{"snapshotId":3,"index":1,"scanSnapshot":false}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            o,
            PaimonOffset {
                snapshot_id: 3,
                index: 1,
                scan_snapshot: false,
                total_splits: None
            }
        );
        assert_eq!(o.completes_snapshot(), None);
        assert_eq!(o.consumer_position(), None);
        assert_eq!(o.resume_snapshot(), 3);
        // Master appends totalSplits.
        let o = PaimonOffset::parse(
            r#"{"snapshotId":3,"index":1,"scanSnapshot":false,"totalSplits":2}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.completes_snapshot(), Some(true));
        assert_eq!(o.consumer_position(), Some(4));
        assert_eq!(o.resume_snapshot(), 4);
    }

    #[test]
    fn python_json_dumps_form() {
        let o = PaimonOffset::parse(
            r#"{"snapshotId": 8, "index": 1, "scanSnapshot": true, "totalSplits": 4}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.completes_snapshot(), Some(false));
        // An unfinished initial full scan creates no consumer.
        assert_eq!(o.consumer_position(), None);
        assert_eq!(o.resume_snapshot(), 8);
        assert_eq!(o.describe(), "snapshot 8, split 2/4 (full scan)");
    }

    #[test]
    fn partly_read_delta_keeps_the_snapshot_protected() {
        let o = PaimonOffset::parse(
            r#"{"snapshotId":5,"index":0,"scanSnapshot":false,"totalSplits":3}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.consumer_position(), Some(5));
    }

    #[test]
    fn other_sources_and_bad_types() {
        assert_eq!(PaimonOffset::parse(r#"{"topic":{"0":5}}"#).unwrap(), None);
        assert_eq!(PaimonOffset::parse("42").unwrap(), None);
        assert_eq!(PaimonOffset::parse("-").unwrap(), None);
        assert!(PaimonOffset::parse(r#"{"snapshotId":"3","index":1}"#).is_err());
        assert!(PaimonOffset::parse(r#"{"snapshotId":3,"index":1.5}"#).is_err());
        assert!(PaimonOffset::parse(r#"{"snapshotId":3,"index":1,"scanSnapshot":"no"}"#).is_err());
        let huge = PaimonOffset::parse(
            r#"{"snapshotId":9223372036854775807,"index":9223372036854775807,"totalSplits":1}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(huge.resume_snapshot(), i64::MAX);
    }
}
