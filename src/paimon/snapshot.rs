//! `snapshot/snapshot-<id>`: one committed version of a table (`paimon-format.md` §2).
//!
//! The same JSON is used by tags (`tag/tag-<name>`, §6.3) and long-lived changelogs
//! (`changelog/changelog-<id>`, §1.6). Readers must accept every version from 0.8 to 2.x:
//! fields are added and removed across releases, optional ones may be absent or `null`, Java
//! pretty-prints (`"key" : value`) and pypaimon writes compact JSON in another key order.
//! Unknown keys are ignored.

use std::fmt;

use serde::Deserialize;

use crate::error::{Error, Result};

/// Long.MAX_VALUE: the commit identifier of batch commits, end-of-input commits and maintenance
/// commits (`paimon-format.md` §4.4).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// What kind of commit produced a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommitKind {
    /// New data (and, with `changelog-producer=input`, its changelog).
    Append,
    /// Compaction; with `lookup` / `full-compaction` it carries the changelog.
    Compact,
    /// Overwrite (also truncate, drop partition; 1.4+: appends with deletes).
    Overwrite,
    /// Statistics only.
    Analyze,
    /// A kind this tool does not know (a newer Paimon).
    Other(String),
}

impl CommitKind {
    /// Parses Paimon's enum name.
    pub fn parse(s: &str) -> Self {
        match s {
            "APPEND" => CommitKind::Append,
            "COMPACT" => CommitKind::Compact,
            "OVERWRITE" => CommitKind::Overwrite,
            "ANALYZE" => CommitKind::Analyze,
            other => CommitKind::Other(other.to_string()),
        }
    }

    /// Paimon's enum name.
    pub fn as_str(&self) -> &str {
        match self {
            CommitKind::Append => "APPEND",
            CommitKind::Compact => "COMPACT",
            CommitKind::Overwrite => "OVERWRITE",
            CommitKind::Analyze => "ANALYZE",
            CommitKind::Other(s) => s,
        }
    }
}

impl fmt::Display for CommitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parsed snapshot (also the body of a tag or long-lived changelog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Format version (absent means 1).
    pub version: i32,
    /// Snapshot id (equals the file-name suffix for snapshots).
    pub id: i64,
    /// Schema id at commit time.
    pub schema_id: i64,
    /// Manifest list with all files as of the previous snapshot.
    pub base_manifest_list: Option<String>,
    /// Manifest list with this commit's changes.
    pub delta_manifest_list: Option<String>,
    /// Manifest list with this commit's changelog files.
    pub changelog_manifest_list: Option<String>,
    /// Index manifest (full state of live index files).
    pub index_manifest: Option<String>,
    /// The writer's identity.
    pub commit_user: String,
    /// The transaction id.
    pub commit_identifier: i64,
    /// The commit kind.
    pub commit_kind: CommitKind,
    /// Commit wall clock, epoch ms.
    pub time_millis: i64,
    /// Unmerged row count of all live files.
    pub total_record_count: Option<i64>,
    /// Added minus deleted rows of the delta.
    pub delta_record_count: Option<i64>,
    /// Rows in this commit's changelog files.
    pub changelog_record_count: Option<i64>,
    /// Watermark (Long.MIN_VALUE or absent when none).
    pub watermark: Option<i64>,
    /// Statistics file in `statistics/`.
    pub statistics: Option<String>,
    /// Snapshot properties (1.2+).
    pub properties: Vec<(String, String)>,
    /// Random UUID of the snapshot (2.0+).
    pub uuid: Option<String>,
    /// Writer version string (after 2.0).
    pub writer_version: Option<String>,
}

/// The raw JSON shape; every field optional so that errors can say exactly what is missing.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSnapshot {
    version: Option<i32>,
    id: Option<i64>,
    schema_id: Option<i64>,
    base_manifest_list: Option<String>,
    delta_manifest_list: Option<String>,
    changelog_manifest_list: Option<String>,
    index_manifest: Option<String>,
    commit_user: Option<String>,
    commit_identifier: Option<serde_json::Value>,
    commit_kind: Option<String>,
    time_millis: Option<i64>,
    total_record_count: Option<i64>,
    delta_record_count: Option<i64>,
    changelog_record_count: Option<i64>,
    watermark: Option<i64>,
    statistics: Option<String>,
    properties: Option<std::collections::BTreeMap<String, serde_json::Value>>,
    uuid: Option<String>,
    writer_version: Option<String>,
}

impl Snapshot {
    /// Parses snapshot JSON. The error says which field is missing or malformed.
    pub fn parse(json: &[u8]) -> Result<Snapshot> {
        let raw: RawSnapshot = serde_json::from_slice(json)
            .map_err(|e| Error::format(format!("not valid snapshot JSON: {e}")))?;
        let required = |name: &str| Error::format(format!("the required field {name} is missing"));
        let commit_identifier = match raw.commit_identifier {
            Some(serde_json::Value::Number(n)) => n
                .as_i64()
                .ok_or_else(|| Error::format(format!("commitIdentifier {n} is not a long")))?,
            // Before 0.3 the identifier was a string; Paimon converts it.
            Some(serde_json::Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map_err(|_| Error::format(format!("commitIdentifier {s:?} is not a number")))?,
            Some(other) => {
                return Err(Error::format(format!(
                    "commitIdentifier must be a number, found {other}"
                )))
            }
            None => return Err(required("commitIdentifier")),
        };
        let properties = raw
            .properties
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
        Ok(Snapshot {
            version: raw.version.unwrap_or(1),
            id: raw.id.ok_or_else(|| required("id"))?,
            schema_id: raw.schema_id.unwrap_or(0),
            base_manifest_list: raw.base_manifest_list,
            delta_manifest_list: raw.delta_manifest_list,
            changelog_manifest_list: raw.changelog_manifest_list,
            index_manifest: raw.index_manifest,
            commit_user: raw.commit_user.unwrap_or_default(),
            commit_identifier,
            commit_kind: CommitKind::parse(
                raw.commit_kind
                    .as_deref()
                    .ok_or_else(|| required("commitKind"))?,
            ),
            time_millis: raw.time_millis.ok_or_else(|| required("timeMillis"))?,
            total_record_count: raw.total_record_count,
            delta_record_count: raw.delta_record_count,
            changelog_record_count: raw.changelog_record_count,
            watermark: raw.watermark,
            statistics: raw.statistics,
            properties,
            uuid: raw.uuid,
            writer_version: raw.writer_version,
        })
    }

    /// Whether this commit was a batch / end-of-input / maintenance commit (identifier
    /// Long.MAX_VALUE) rather than a streaming checkpoint.
    pub fn is_batch_commit(&self) -> bool {
        self.commit_identifier == BATCH_COMMIT_IDENTIFIER
    }

    /// The manifest lists this snapshot names, with their role.
    pub fn manifest_lists(&self) -> impl Iterator<Item = (ManifestListRole, &str)> {
        [
            (ManifestListRole::Base, self.base_manifest_list.as_deref()),
            (ManifestListRole::Delta, self.delta_manifest_list.as_deref()),
            (
                ManifestListRole::Changelog,
                self.changelog_manifest_list.as_deref(),
            ),
        ]
        .into_iter()
        .filter_map(|(role, name)| name.map(|n| (role, n)))
    }
}

/// The role of a manifest list in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ManifestListRole {
    /// All files as of the previous snapshot.
    Base,
    /// This commit's changes.
    Delta,
    /// This commit's changelog files.
    Changelog,
}

impl ManifestListRole {
    /// The snapshot field name.
    pub fn field(self) -> &'static str {
        match self {
            ManifestListRole::Base => "baseManifestList",
            ManifestListRole::Delta => "deltaManifestList",
            ManifestListRole::Changelog => "changelogManifestList",
        }
    }
}

/// Parses the id out of a `snapshot-<id>` / `changelog-<id>` file name.
pub fn id_from_file_name(name: &str, prefix: &str) -> Option<i64> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether `name` is a snapshot temp file left by a writer that died between writing and
/// renaming, and the id it was to become (`paimon-format.md` §1.4): Java's and pypaimon 2.1's
/// `.snapshot-<id>.<uuid>.tmp`, pypaimon 1.4 and 2.0's `snapshot-<id>.<uuid>.tmp` (local files)
/// and `snapshot-<id><uuid>.tmp` (through pyarrow's file systems: the UUID glued to the id),
/// pypaimon 1.3's `snapshot-<id>.tmp`, paimon-rust's `snapshot-<id>.tmp-<uuid>`.
pub fn temp_snapshot_id(name: &str) -> Option<i64> {
    temp_file_id(name, "snapshot-")
}

/// The id of a temp file of an atomic write of `<prefix><id>` (a snapshot, a schema: both are
/// written through `FileIO.tryToWriteAtomic`, §1.4, §1.5), in any of the namings
/// [`temp_snapshot_id`] lists.
pub fn temp_file_id(name: &str, prefix: &str) -> Option<i64> {
    let unprefixed = name
        .strip_prefix('.')
        .unwrap_or(name)
        .strip_prefix(prefix)?;
    // paimon-rust (0.4): `snapshot-<id>.tmp-<uuid>`.
    if let Some((id, uuid)) = unprefixed.split_once(".tmp-") {
        return (is_uuid(uuid) && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
            .then(|| id.parse().ok())
            .flatten();
    }
    let rest = unprefixed.strip_suffix(".tmp")?;
    let id = match rest.split_once('.') {
        Some((id, _uuid)) => id,
        None => rest
            .len()
            .checked_sub(UUID_LEN)
            .and_then(|at| rest.split_at_checked(at))
            .filter(|(_, uuid)| is_uuid(uuid))
            .map_or(rest, |(id, _)| id),
    };
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    id.parse().ok()
}

/// The length of a textual UUID (`8-4-4-4-12` hex digits).
const UUID_LEN: usize = 36;

/// Whether `s` is a textual UUID.
fn is_uuid(s: &str) -> bool {
    s.len() == UUID_LEN
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (a) Java 0.x/1.x style, in the shape of the example in Paimon's docs (fields:
    /// `paimon-format.md` §2.1, §2.2).
    const JAVA_1X: &str = r#"{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-4ccc-c07f-4090-958c-cfe3ce3889e5-0",
  "deltaManifestList" : "manifest-list-4ccc-c07f-4090-958c-cfe3ce3889e5-1",
  "changelogManifestList" : null,
  "commitUser" : "7d758485-981d-4b1a-a0c6-d34c3eb254bf",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1684155393354,
  "logOffsets" : { },
  "totalRecordCount" : 1,
  "deltaRecordCount" : 1,
  "changelogRecordCount" : 0,
  "watermark" : -9223372036854775808
}"#;

    /// (d) pypaimon 2.1.0, compact, other key order, size fields, uuid, writerVersion.
    const PYPAIMON: &str = r#"{"version": 3, "id": 2, "schemaId": 0, "baseManifestList": "manifest-list-ac6a05d7-40e7-4881-8542-d561dc43cb57-0", "deltaManifestList": "manifest-list-ac6a05d7-40e7-4881-8542-d561dc43cb57-1", "totalRecordCount": 6, "deltaRecordCount": 3, "commitUser": "c63eebdd-c21b-4830-bae8-74cecf9a1a0b", "commitIdentifier": 9223372036854775807, "commitKind": "APPEND", "timeMillis": 1796027346396, "baseManifestListSize": 1400, "deltaManifestListSize": 1400, "uuid": "3f36efae-2f60-49ad-a59f-ae8f42100425", "writerVersion": "python-2.1.0-3a5ffe7870697e2c2605e63413fb5ac5800aae7e"}"#;

    /// (c) master style: no logOffsets, no null fields, properties, nextRowId, operation.
    const MASTER: &str = r#"{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "m-0",
  "deltaManifestList" : "m-1",
  "commitUser" : "user",
  "writerVersion" : "java-2.1-SNAPSHOT-0123456789012345678901234567890123456789",
  "commitIdentifier" : 0,
  "commitKind" : "COMPACT",
  "timeMillis" : 1000,
  "totalRecordCount" : 10,
  "deltaRecordCount" : 5,
  "properties" : { "sequence.generation.max-sequence-number" : "12" },
  "nextRowId" : 77,
  "operation" : "WRITE"
}"#;

    #[test]
    fn java_1x_snapshot() {
        let s = Snapshot::parse(JAVA_1X.as_bytes()).unwrap();
        assert_eq!(s.id, 1);
        assert_eq!(s.commit_kind, CommitKind::Append);
        assert!(s.is_batch_commit());
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.changelog_record_count, Some(0));
        assert_eq!(s.watermark, Some(i64::MIN));
        assert_eq!(s.manifest_lists().count(), 2);
    }

    #[test]
    fn pypaimon_snapshot() {
        let s = Snapshot::parse(PYPAIMON.as_bytes()).unwrap();
        assert_eq!(s.id, 2);
        assert_eq!(s.changelog_record_count, None);
        assert_eq!(
            s.uuid.as_deref(),
            Some("3f36efae-2f60-49ad-a59f-ae8f42100425")
        );
        assert!(s.writer_version.unwrap().starts_with("python-2.1.0"));
    }

    #[test]
    fn master_snapshot_with_properties() {
        let s = Snapshot::parse(MASTER.as_bytes()).unwrap();
        assert_eq!(s.commit_kind, CommitKind::Compact);
        assert_eq!(
            s.properties,
            vec![(
                "sequence.generation.max-sequence-number".to_string(),
                "12".to_string()
            )]
        );
    }

    #[test]
    fn legacy_string_identifier_and_missing_version() {
        let s = Snapshot::parse(
            br#"{"id":3,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u","commitIdentifier":"42","commitKind":"APPEND","timeMillis":5}"#,
        )
        .unwrap();
        assert_eq!(s.commit_identifier, 42);
        assert_eq!(s.version, 1);
    }

    #[test]
    fn unknown_kind_is_kept() {
        let s = Snapshot::parse(
            br#"{"id":3,"commitIdentifier":1,"commitKind":"MERGE_INTO","timeMillis":5}"#,
        )
        .unwrap();
        assert_eq!(s.commit_kind, CommitKind::Other("MERGE_INTO".into()));
    }

    #[test]
    fn errors_name_the_missing_field() {
        let e = Snapshot::parse(br#"{"id":3,"commitKind":"APPEND","timeMillis":5}"#).unwrap_err();
        assert!(e.to_string().contains("commitIdentifier"), "{e}");
        let e = Snapshot::parse(br#"{"id":3,"commitIdentifier":1,"timeMillis":5}"#).unwrap_err();
        assert!(e.to_string().contains("commitKind"), "{e}");
        let e = Snapshot::parse(b"{\"id\":").unwrap_err();
        assert!(e.to_string().contains("not valid snapshot JSON"), "{e}");
        let e = Snapshot::parse(br#"{"id":"x"}"#).unwrap_err();
        assert!(e.to_string().contains("not valid"), "{e}");
    }

    #[test]
    fn file_names() {
        assert_eq!(id_from_file_name("snapshot-12", "snapshot-"), Some(12));
        assert_eq!(id_from_file_name("snapshot-", "snapshot-"), None);
        assert_eq!(id_from_file_name("snapshot-1x", "snapshot-"), None);
        assert_eq!(
            id_from_file_name("snapshot-99999999999999999999", "snapshot-"),
            None
        );
        assert_eq!(
            temp_snapshot_id(".snapshot-8.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"),
            Some(8)
        );
        assert_eq!(temp_snapshot_id("snapshot-8"), None);
        // pypaimon 1.4 / 2.0 (local, and through pyarrow: the UUID glued on), 1.3
        assert_eq!(
            temp_snapshot_id("snapshot-8.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"),
            Some(8)
        );
        assert_eq!(
            temp_snapshot_id("snapshot-124f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"),
            Some(12)
        );
        assert_eq!(temp_snapshot_id("snapshot-3.tmp"), Some(3));
        // paimon-rust 0.4 (pypaimon-rust): the UUID after `.tmp-`.
        assert_eq!(
            temp_snapshot_id("snapshot-4.tmp-04631960-adb0-4b60-b03d-5137f6b702a4"),
            Some(4)
        );
        assert_eq!(temp_snapshot_id("snapshot-4.tmp-x"), None);
        assert_eq!(
            temp_snapshot_id("snapshot-.tmp-04631960-adb0-4b60-b03d-5137f6b702a4"),
            None
        );
        // A schema's atomic write is named the same way.
        assert_eq!(
            temp_file_id(
                ".schema-2.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                "schema-"
            ),
            Some(2)
        );
        assert_eq!(
            temp_file_id(
                ".schema-2.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                "snapshot-"
            ),
            None
        );
        // Only digits are an id ("+3" would parse), and a 36-character tail that is no UUID
        // is no UUID.
        assert_eq!(temp_snapshot_id("snapshot-+3.tmp"), None);
        assert_eq!(
            temp_snapshot_id(&format!("snapshot-{}.tmp", "1".repeat(37))),
            None
        );
        assert_eq!(temp_snapshot_id("snapshot-.tmp"), None);
        assert_eq!(temp_snapshot_id("snapshot-x.tmp"), None);
        assert_eq!(
            temp_snapshot_id("LATEST.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"),
            None
        );
        assert_eq!(
            temp_snapshot_id("snapshot-4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let _ = Snapshot::parse(&bytes);
        }

        #[test]
        fn never_panics_on_mutated_json(pos in 0usize..JAVA_1X.len(), byte in proptest::num::u8::ANY) {
            let mut b = JAVA_1X.as_bytes().to_vec();
            b[pos] = byte;
            let _ = Snapshot::parse(&b);
        }
    }
}
