//! `tag/tag-<name>`: a snapshot kept by name (`paimon-format.md` §6.3). The body is snapshot JSON
//! plus optional `tagCreateTime` (Jackson `LocalDateTime` array) and `tagTimeRetained` (decimal
//! seconds). Tags keep their snapshot's manifests and data files alive after it expires.

use serde::Deserialize;

use crate::error::Result;

use super::snapshot::Snapshot;

/// The prefix of tag file names.
pub const TAG_PREFIX: &str = "tag-";

/// A parsed tag.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// The tagged snapshot.
    pub snapshot: Snapshot,
    /// `tagCreateTime` as `[year, month, day, hour, minute, second, nano]` (trailing zeros
    /// omitted by Jackson).
    pub create_time: Option<Vec<i64>>,
    /// `tagTimeRetained` in seconds.
    pub time_retained_secs: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTagFields {
    tag_create_time: Option<Vec<i64>>,
    tag_time_retained: Option<f64>,
}

impl Tag {
    /// Parses a tag file.
    pub fn parse(json: &[u8]) -> Result<Tag> {
        let snapshot = Snapshot::parse(json)?;
        // The snapshot parsed, so this is valid JSON; tag fields of the wrong shape are ignored.
        let extra: Option<RawTagFields> = serde_json::from_slice(json).ok();
        let (create_time, time_retained_secs) = extra
            .map(|e| (e.tag_create_time, e.tag_time_retained))
            .unwrap_or((None, None));
        Ok(Tag {
            snapshot,
            create_time,
            time_retained_secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_from_paimon_tests() {
        let json = r#"{
  "version" : 3, "uuid" : "snapshot-uuid", "id" : 0, "schemaId" : 0,
  "baseManifestList" : null, "deltaManifestList" : null, "commitUser" : null,
  "writerVersion" : "java-2.1-SNAPSHOT-commit-id", "commitIdentifier" : 0,
  "commitKind" : "APPEND", "timeMillis" : 1000, "totalRecordCount" : 0, "deltaRecordCount" : 0,
  "tagCreateTime" : [ 1969, 1, 1, 0, 0, 0, 123456789 ], "tagTimeRetained" : 5.000000000
}"#;
        let t = Tag::parse(json.as_bytes()).unwrap();
        assert_eq!(t.snapshot.id, 0);
        assert_eq!(t.create_time, Some(vec![1969, 1, 1, 0, 0, 0, 123_456_789]));
        assert_eq!(t.time_retained_secs, Some(5.0));
    }

    #[test]
    fn odd_tag_fields_are_ignored() {
        let json = br#"{"id":4,"commitIdentifier":1,"commitKind":"APPEND","timeMillis":5,"tagCreateTime":"yesterday"}"#;
        let t = Tag::parse(json).unwrap();
        assert_eq!(t.create_time, None);
    }
}
