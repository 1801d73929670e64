//! `manifest/manifest-<uuid>-<n>`: the entries of one manifest file, [`ManifestEntry`] with its
//! [`DataFileMeta`] (`paimon-format.md` §3.4).
//!
//! Decoded by field name against the file's writer schema (Paimon 0.8 … master, pypaimon), so
//! fields added by later versions come out as `None` for older files. Key and value statistics
//! are skipped.

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::avro::decode::{FieldSpec, Kind, RecordSpec};
use super::avro::{read_records, AvroSchemaCache, Row};

/// Whether an entry adds or deletes a file (`_KIND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// `0`: the file is added.
    Add,
    /// `1`: the file is deleted.
    Delete,
}

impl FileKind {
    /// The kind for `_KIND`'s byte value.
    pub fn from_value(v: i64) -> Result<FileKind> {
        match v {
            0 => Ok(FileKind::Add),
            1 => Ok(FileKind::Delete),
            other => Err(Error::format(format!(
                "expected _KIND 0 (ADD) or 1 (DELETE), found {other}"
            ))),
        }
    }

    /// `ADD` or `DELETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Add => "ADD",
            FileKind::Delete => "DELETE",
        }
    }
}

/// Where a data file came from (`_FILE_SOURCE`, Paimon 0.9+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileSource {
    /// `0`: written from input.
    Append,
    /// `1`: written by compaction.
    Compact,
}

impl FileSource {
    /// The source for `_FILE_SOURCE`'s byte value.
    pub fn from_value(v: i64) -> Result<FileSource> {
        match v {
            0 => Ok(FileSource::Append),
            1 => Ok(FileSource::Compact),
            other => Err(Error::format(format!(
                "expected _FILE_SOURCE 0 (APPEND) or 1 (COMPACT), found {other}"
            ))),
        }
    }

    /// `APPEND` or `COMPACT`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileSource::Append => "APPEND",
            FileSource::Compact => "COMPACT",
        }
    }
}

/// A data or changelog file as recorded in a manifest (`_FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFileMeta {
    /// `_FILE_NAME`: the name inside the bucket directory.
    pub file_name: String,
    /// `_FILE_SIZE` in bytes.
    pub file_size: i64,
    /// `_ROW_COUNT`: rows including deletes.
    pub row_count: i64,
    /// `_MIN_KEY`: serialized BinaryRow of the smallest key.
    pub min_key: Vec<u8>,
    /// `_MAX_KEY`: serialized BinaryRow of the largest key.
    pub max_key: Vec<u8>,
    /// `_MIN_SEQUENCE_NUMBER`.
    pub min_sequence_number: i64,
    /// `_MAX_SEQUENCE_NUMBER`.
    pub max_sequence_number: i64,
    /// `_SCHEMA_ID`: the schema the file was written with.
    pub schema_id: i64,
    /// `_LEVEL`: LSM level (0 for new and append files).
    pub level: i32,
    /// `_EXTRA_FILES`: sibling files (e.g. `*.index`).
    pub extra_files: Vec<String>,
    /// `_CREATION_TIME`: the writer's local wall clock encoded as if UTC, in millis.
    pub creation_time_millis: Option<i64>,
    /// `_DELETE_ROW_COUNT` (0.8+).
    pub delete_row_count: Option<i64>,
    /// `_EMBEDDED_FILE_INDEX` (0.8+): a small file index inlined in the manifest.
    pub embedded_file_index: Option<Vec<u8>>,
    /// `_FILE_SOURCE` (0.9+).
    pub file_source: Option<FileSource>,
    /// `_VALUE_STATS_COLS` (1.0+).
    pub value_stats_cols: Option<Vec<String>>,
    /// `_EXTERNAL_PATH` (1.0+): absolute path when written outside the table directory.
    pub external_path: Option<String>,
    /// `_FIRST_ROW_ID` (1.3+).
    pub first_row_id: Option<i64>,
    /// `_WRITE_COLS` (1.3+).
    pub write_cols: Option<Vec<String>>,
}

/// One entry of a manifest file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// `_VERSION` (always 2).
    pub version: i32,
    /// `_KIND`.
    pub kind: FileKind,
    /// `_PARTITION`: serialized BinaryRow (4-byte big-endian arity prefix); see
    /// [`crate::paimon::binary_row`].
    pub partition: Vec<u8>,
    /// `_BUCKET` (−2 = postpone bucket).
    pub bucket: i32,
    /// `_TOTAL_BUCKETS` when written (−1 for dynamic/unaware tables).
    pub total_buckets: i32,
    /// `_FILE`.
    pub file: DataFileMeta,
}

/// The `_VERSION` that `ManifestEntry` and `ManifestFileMeta` rows carry.
pub const MANIFEST_VERSION: i32 = 2;

/// Checks `_VERSION` of a manifest entry or manifest-list entry, with Paimon's messages.
pub(crate) fn check_manifest_version(version: i32) -> Result<()> {
    match version {
        MANIFEST_VERSION => Ok(()),
        1 => Err(Error::unsupported(
            "The current version 2 is not compatible with the version 1, please recreate the table.",
        )),
        other => Err(Error::unsupported(format!("Unsupported version: {other}"))),
    }
}

// Slots of a decoded manifest entry (0 = the record itself).
const VERSION: usize = 1;
const KIND: usize = 2;
const PARTITION: usize = 3;
const BUCKET: usize = 4;
const TOTAL_BUCKETS: usize = 5;
const FILE: usize = 6;
const FILE_NAME: usize = 7;
const FILE_SIZE: usize = 8;
const ROW_COUNT: usize = 9;
const MIN_KEY: usize = 10;
const MAX_KEY: usize = 11;
const MIN_SEQ: usize = 12;
const MAX_SEQ: usize = 13;
const SCHEMA_ID: usize = 14;
const LEVEL: usize = 15;
const EXTRA_FILES: usize = 16;
const CREATION_TIME: usize = 17;
const DELETE_ROW_COUNT: usize = 18;
const EMBEDDED_FILE_INDEX: usize = 19;
const FILE_SOURCE: usize = 20;
const VALUE_STATS_COLS: usize = 21;
const EXTERNAL_PATH: usize = 22;
const FIRST_ROW_ID: usize = 23;
const WRITE_COLS: usize = 24;

const fn f(name: &'static str, kind: Kind, slot: usize) -> FieldSpec {
    FieldSpec { name, kind, slot }
}

static FILE_FIELDS: [FieldSpec; 18] = [
    f("_FILE_NAME", Kind::Str, FILE_NAME),
    f("_FILE_SIZE", Kind::Long, FILE_SIZE),
    f("_ROW_COUNT", Kind::Long, ROW_COUNT),
    f("_MIN_KEY", Kind::Bytes, MIN_KEY),
    f("_MAX_KEY", Kind::Bytes, MAX_KEY),
    f("_MIN_SEQUENCE_NUMBER", Kind::Long, MIN_SEQ),
    f("_MAX_SEQUENCE_NUMBER", Kind::Long, MAX_SEQ),
    f("_SCHEMA_ID", Kind::Long, SCHEMA_ID),
    f("_LEVEL", Kind::Int, LEVEL),
    f("_EXTRA_FILES", Kind::StrList, EXTRA_FILES),
    f("_CREATION_TIME", Kind::Long, CREATION_TIME),
    f("_DELETE_ROW_COUNT", Kind::Long, DELETE_ROW_COUNT),
    f("_EMBEDDED_FILE_INDEX", Kind::Bytes, EMBEDDED_FILE_INDEX),
    f("_FILE_SOURCE", Kind::Int, FILE_SOURCE),
    f("_VALUE_STATS_COLS", Kind::StrList, VALUE_STATS_COLS),
    f("_EXTERNAL_PATH", Kind::Str, EXTERNAL_PATH),
    f("_FIRST_ROW_ID", Kind::Long, FIRST_ROW_ID),
    f("_WRITE_COLS", Kind::StrList, WRITE_COLS),
];

static ENTRY_FIELDS: [FieldSpec; 6] = [
    f("_VERSION", Kind::Int, VERSION),
    f("_KIND", Kind::Int, KIND),
    f("_PARTITION", Kind::Bytes, PARTITION),
    f("_BUCKET", Kind::Int, BUCKET),
    f("_TOTAL_BUCKETS", Kind::Int, TOTAL_BUCKETS),
    f("_FILE", Kind::Record(&FILE_FIELDS), FILE),
];

static ENTRY: RecordSpec = RecordSpec {
    name: "ManifestEntry",
    fields: &ENTRY_FIELDS,
    slots: WRITE_COLS + 1,
};

fn build(row: Row<'_, '_>) -> Result<ManifestEntry> {
    row.require(0, "manifest entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    check_manifest_version(version)?;
    let kind = FileKind::from_value(row.long(KIND, "_KIND")?)?;
    let partition = row.bytes(PARTITION, "_PARTITION")?.to_vec();
    let bucket = row.int(BUCKET, "_BUCKET")?;
    let total_buckets = row.int(TOTAL_BUCKETS, "_TOTAL_BUCKETS")?;
    row.require(FILE, "_FILE")?;
    let file = build_file(row).map_err(|e| e.context("field _FILE"))?;
    Ok(ManifestEntry {
        version,
        kind,
        partition,
        bucket,
        total_buckets,
        file,
    })
}

fn build_file(row: Row<'_, '_>) -> Result<DataFileMeta> {
    Ok(DataFileMeta {
        file_name: row.str(FILE_NAME, "_FILE_NAME")?.to_string(),
        file_size: row.long(FILE_SIZE, "_FILE_SIZE")?,
        row_count: row.long(ROW_COUNT, "_ROW_COUNT")?,
        min_key: row.bytes(MIN_KEY, "_MIN_KEY")?.to_vec(),
        max_key: row.bytes(MAX_KEY, "_MAX_KEY")?.to_vec(),
        min_sequence_number: row.long(MIN_SEQ, "_MIN_SEQUENCE_NUMBER")?,
        max_sequence_number: row.long(MAX_SEQ, "_MAX_SEQUENCE_NUMBER")?,
        schema_id: row.long(SCHEMA_ID, "_SCHEMA_ID")?,
        level: row.int(LEVEL, "_LEVEL")?,
        extra_files: row
            .opt_str_list(EXTRA_FILES, "_EXTRA_FILES")?
            .unwrap_or_default(),
        creation_time_millis: row.opt_long(CREATION_TIME, "_CREATION_TIME")?,
        delete_row_count: row.opt_long(DELETE_ROW_COUNT, "_DELETE_ROW_COUNT")?,
        embedded_file_index: row
            .opt_bytes(EMBEDDED_FILE_INDEX, "_EMBEDDED_FILE_INDEX")?
            .map(<[u8]>::to_vec),
        file_source: row
            .opt_long(FILE_SOURCE, "_FILE_SOURCE")?
            .map(FileSource::from_value)
            .transpose()?,
        value_stats_cols: row.opt_str_list(VALUE_STATS_COLS, "_VALUE_STATS_COLS")?,
        external_path: row
            .opt_str(EXTERNAL_PATH, "_EXTERNAL_PATH")?
            .map(str::to_string),
        first_row_id: row.opt_long(FIRST_ROW_ID, "_FIRST_ROW_ID")?,
        write_cols: row.opt_str_list(WRITE_COLS, "_WRITE_COLS")?,
    })
}

/// Reads every entry of a manifest file (an Avro container file).
///
/// `cache` keeps the compiled writer schema for the next file; `limits` bounds blocks, block
/// sizes and records. Errors say where (`block 0: record 3: field _FILE: …`); the caller adds
/// the file name.
pub fn read_manifest(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
) -> Result<Vec<ManifestEntry>> {
    read_records(bytes, cache, limits, &ENTRY, build)
}
