//! `manifest/index-manifest-<uuid>-<n>`: the live index files of a snapshot (hash indexes,
//! deletion vectors, global indexes), [`IndexManifestEntry`] (`paimon-format.md` §3.6, §1.8).
//!
//! Decoded by field name against the file's writer schema; `_GLOBAL_INDEX` is skipped.

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::avro::decode::{FieldSpec, Kind, RecordSpec};
use super::avro::{read_records, AvroSchemaCache, Row};
use super::manifest::FileKind;

/// Where one data file's deletion vector lives inside a deletion-vector index file
/// (`DeletionVectorMeta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionVectorRange {
    /// `f0`: the data file the vector applies to.
    pub data_file: String,
    /// `f1`: offset of the vector's size field in the index file.
    pub offset: i64,
    /// `f2`: the vector's serialized length.
    pub length: i64,
    /// `_CARDINALITY` (1.0+): deleted rows.
    pub cardinality: Option<i64>,
}

/// One index file listed in an index manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexManifestEntry {
    /// `_VERSION` (always 1).
    pub version: i32,
    /// `_KIND` (always ADD in stored index manifests).
    pub kind: FileKind,
    /// `_PARTITION`: serialized BinaryRow.
    pub partition: Vec<u8>,
    /// `_BUCKET`.
    pub bucket: i32,
    /// `_INDEX_TYPE`: `HASH`, `DELETION_VECTORS` or a global-index type.
    pub index_type: String,
    /// `_FILE_NAME`: in `index/` (or the bucket directory, or an external path).
    pub file_name: String,
    /// `_FILE_SIZE` in bytes.
    pub file_size: i64,
    /// `_ROW_COUNT`: hashes, or number of deletion vectors.
    pub row_count: i64,
    /// `_DELETIONS_VECTORS_RANGES` (null elements are dropped).
    pub deletion_vector_ranges: Option<Vec<DeletionVectorRange>>,
    /// `_EXTERNAL_PATH` (1.3+).
    pub external_path: Option<String>,
}

/// The `_VERSION` that index manifest rows carry.
pub const INDEX_MANIFEST_VERSION: i32 = 1;

const VERSION: usize = 1;
const KIND: usize = 2;
const PARTITION: usize = 3;
const BUCKET: usize = 4;
const INDEX_TYPE: usize = 5;
const FILE_NAME: usize = 6;
const FILE_SIZE: usize = 7;
const ROW_COUNT: usize = 8;
const DV_RANGES: usize = 9;
const EXTERNAL_PATH: usize = 10;

const DV_FILE: usize = 1;
const DV_OFFSET: usize = 2;
const DV_LENGTH: usize = 3;
const DV_CARDINALITY: usize = 4;

const fn f(name: &'static str, kind: Kind, slot: usize) -> FieldSpec {
    FieldSpec { name, kind, slot }
}

static DV_FIELDS: [FieldSpec; 4] = [
    f("f0", Kind::Str, DV_FILE),
    f("f1", Kind::Long, DV_OFFSET),
    f("f2", Kind::Long, DV_LENGTH),
    f("_CARDINALITY", Kind::Long, DV_CARDINALITY),
];

static DV: RecordSpec = RecordSpec {
    name: "DeletionVectorMeta",
    fields: &DV_FIELDS,
    slots: DV_CARDINALITY + 1,
};

static ENTRY_FIELDS: [FieldSpec; 10] = [
    f("_VERSION", Kind::Int, VERSION),
    f("_KIND", Kind::Int, KIND),
    f("_PARTITION", Kind::Bytes, PARTITION),
    f("_BUCKET", Kind::Int, BUCKET),
    f("_INDEX_TYPE", Kind::Str, INDEX_TYPE),
    f("_FILE_NAME", Kind::Str, FILE_NAME),
    f("_FILE_SIZE", Kind::Long, FILE_SIZE),
    f("_ROW_COUNT", Kind::Long, ROW_COUNT),
    f("_DELETIONS_VECTORS_RANGES", Kind::RecordList(&DV), DV_RANGES),
    f("_EXTERNAL_PATH", Kind::Str, EXTERNAL_PATH),
];

static ENTRY: RecordSpec = RecordSpec {
    name: "IndexManifestEntry",
    fields: &ENTRY_FIELDS,
    slots: EXTERNAL_PATH + 1,
};

fn build(row: Row<'_, '_>) -> Result<IndexManifestEntry> {
    row.require(0, "index manifest entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    if version != INDEX_MANIFEST_VERSION {
        return Err(Error::unsupported(format!(
            "Unsupported version: {version}"
        )));
    }
    let deletion_vector_ranges = row
        .opt_records(DV_RANGES, "_DELETIONS_VECTORS_RANGES")?
        .map(|items| {
            items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| item.map(|r| (i, r)))
                .map(|(i, r)| {
                    Ok(DeletionVectorRange {
                        data_file: r.str(DV_FILE, "f0")?.to_string(),
                        offset: r.long(DV_OFFSET, "f1")?,
                        length: r.long(DV_LENGTH, "f2")?,
                        cardinality: r.opt_long(DV_CARDINALITY, "_CARDINALITY")?,
                    })
                    .map_err(|e: Error| {
                        e.context(format!("item {i}"))
                            .context("field _DELETIONS_VECTORS_RANGES")
                    })
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    Ok(IndexManifestEntry {
        version,
        kind: FileKind::from_value(row.long(KIND, "_KIND")?)?,
        partition: row.bytes(PARTITION, "_PARTITION")?.to_vec(),
        bucket: row.int(BUCKET, "_BUCKET")?,
        index_type: row.str(INDEX_TYPE, "_INDEX_TYPE")?.to_string(),
        file_name: row.str(FILE_NAME, "_FILE_NAME")?.to_string(),
        file_size: row.long(FILE_SIZE, "_FILE_SIZE")?,
        row_count: row.long(ROW_COUNT, "_ROW_COUNT")?,
        deletion_vector_ranges,
        external_path: row
            .opt_str(EXTERNAL_PATH, "_EXTERNAL_PATH")?
            .map(str::to_string),
    })
}

/// Reads every entry of an index manifest (an Avro container file).
///
/// `cache` keeps the compiled writer schema for the next file; `limits` bounds blocks, block
/// sizes and records. The caller adds the file name to errors.
pub fn read_index_manifest(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
) -> Result<Vec<IndexManifestEntry>> {
    read_records(bytes, cache, limits, &ENTRY, build)
}
