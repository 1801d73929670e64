//! What one snapshot holds, on demand: the page's snapshot detail panel (fields, manifest lists,
//! files added and deleted, changelog files). Built from the file graph the analysis already
//! decoded, so asking costs no I/O.

use serde::{Deserialize, Serialize};

use crate::paimon::binary_row::{render_partition, PartitionRenderOptions};
use crate::paimon::manifest::{FileSource, ManifestEntry};
use crate::timeline::files::BranchFiles;
use crate::timeline::Timeline;

/// Files listed per snapshot detail before the rest is counted only.
pub const MAX_DETAIL_FILES: usize = 2_000;

/// One snapshot in detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotDetail {
    /// Table path.
    pub path: String,
    /// Branch.
    pub branch: String,
    /// Snapshot id.
    pub id: i64,
    /// Every field of the snapshot file, as `(name, value)` in display order.
    pub fields: Vec<(String, String)>,
    /// Artifact path of the snapshot file.
    pub file: String,
    /// The delta's ADD entries.
    pub added: Vec<FileDetail>,
    /// The delta's DELETE entries.
    pub deleted: Vec<FileDetail>,
    /// The changelog files.
    pub changelog: Vec<FileDetail>,
    /// Entries left out of the lists above because there were more than
    /// [`MAX_DETAIL_FILES`].
    pub omitted: u64,
    /// Whether every manifest of the delta and changelog lists could be read.
    pub complete: bool,
}

/// One file entry of a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDetail {
    /// File name.
    pub name: String,
    /// Partition, rendered as its directory (`dt=2024-01-01`), empty when unpartitioned.
    pub partition: String,
    /// Bucket.
    pub bucket: i32,
    /// LSM level.
    pub level: i32,
    /// Rows (including deletes).
    pub rows: i64,
    /// Bytes.
    pub size: i64,
    /// `APPEND` or `COMPACT` (0.9+), if recorded.
    pub source: Option<String>,
    /// Sequence number range.
    pub sequence: (i64, i64),
}

/// Builds the detail of snapshot `id` of a timeline, or `None` if it has no such snapshot.
pub fn snapshot_detail(
    t: &Timeline,
    files: Option<&BranchFiles>,
    id: i64,
) -> Option<SnapshotDetail> {
    let sf = t.snapshots.get(&id)?;
    let s = &sf.snapshot;
    let mut fields = vec![
        ("id".to_string(), s.id.to_string()),
        ("commitKind".to_string(), s.commit_kind.to_string()),
        ("commitUser".to_string(), s.commit_user.clone()),
        (
            "commitIdentifier".to_string(),
            s.commit_identifier.to_string(),
        ),
        (
            "timeMillis".to_string(),
            format!(
                "{} ({})",
                s.time_millis,
                crate::time::format_utc(s.time_millis)
            ),
        ),
        ("schemaId".to_string(), s.schema_id.to_string()),
        ("version".to_string(), s.version.to_string()),
    ];
    let mut opt = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            fields.push((name.to_string(), v));
        }
    };
    opt("baseManifestList", s.base_manifest_list.clone());
    opt("deltaManifestList", s.delta_manifest_list.clone());
    opt("changelogManifestList", s.changelog_manifest_list.clone());
    opt("indexManifest", s.index_manifest.clone());
    opt(
        "totalRecordCount",
        s.total_record_count.map(|v| v.to_string()),
    );
    opt(
        "deltaRecordCount",
        s.delta_record_count.map(|v| v.to_string()),
    );
    opt(
        "changelogRecordCount",
        s.changelog_record_count.map(|v| v.to_string()),
    );
    opt("watermark", s.watermark.map(|v| v.to_string()));
    opt("statistics", s.statistics.clone());
    opt("uuid", s.uuid.clone());
    opt("writerVersion", s.writer_version.clone());
    for (k, v) in &s.properties {
        fields.push((format!("properties.{k}"), v.clone()));
    }

    let partition_fields = t
        .latest_schema()
        .map(|x| x.partition_fields())
        .unwrap_or_default();
    let opts = t
        .latest_schema()
        .map(|x| PartitionRenderOptions::from_options(&x.options))
        .unwrap_or_default();
    let mut omitted = 0u64;
    let mut convert = |entries: &mut dyn Iterator<Item = ManifestEntry<'_>>| -> Vec<FileDetail> {
        let mut out = Vec::new();
        for e in entries {
            if out.len() >= MAX_DETAIL_FILES {
                omitted += 1;
                continue;
            }
            let file = e.file();
            out.push(FileDetail {
                name: file.file_name().to_string(),
                partition: if partition_fields.is_empty() {
                    String::new()
                } else {
                    render_partition(e.partition(), &partition_fields, &opts)
                },
                bucket: e.bucket(),
                level: file.level(),
                rows: file.row_count(),
                size: file.file_size(),
                source: file.file_source().map(|src| {
                    match src {
                        FileSource::Append => "APPEND",
                        FileSource::Compact => "COMPACT",
                    }
                    .to_string()
                }),
                sequence: (file.min_sequence_number(), file.max_sequence_number()),
            });
        }
        out
    };
    let snapshot_files = files.and_then(|b| Some((b.snapshots.get(&id)?, &*b.catalog)));
    let (added, deleted, changelog, complete) = match snapshot_files {
        Some((f, catalog)) => (
            convert(&mut f.added(catalog)),
            convert(&mut f.deleted(catalog)),
            convert(&mut f.changelog.iter(catalog)),
            f.complete,
        ),
        None => (Vec::new(), Vec::new(), Vec::new(), false),
    };
    Some(SnapshotDetail {
        path: t.location.root.clone(),
        branch: t.location.branch.clone(),
        id,
        fields,
        file: sf.path.clone(),
        added,
        deleted,
        changelog,
        omitted,
        complete,
    })
}
