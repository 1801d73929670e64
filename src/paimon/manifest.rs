//! `manifest/manifest-<uuid>-<n>`: the entries of one manifest file, [`ManifestEntry`] with its
//! [`DataFileMeta`] (`paimon-format.md` §3.4).
//!
//! Decoded by field name against the file's writer schema (Paimon 0.8 … master, pypaimon), so
//! fields added by later versions come out as `None` for older files. Key and value statistics
//! are skipped; the other fields no check reads are validated but not kept ([`DataFileMeta`]).

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::avro::decode::{FieldSpec, Kind, RecordSpec};
use super::avro::{for_each_record, AvroSchemaCache, Row, Strs};

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

pub use super::data_files::{DataFileMeta, DataFiles, EntryRow, FileFields, ManifestEntry, Rare};

/// The entries of one manifest file, in file order: [`EntryRow`]s over their own
/// [`DataFiles`], one description per row. Partitions are shared between the rows that have
/// the same one one after the other (a commit writes its files one partition after the other).
///
/// A whole analysis holds its manifests' entries interned together instead, each name and
/// description once (`timeline::catalog`); this is the form one file decodes to, on any thread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    files: DataFiles,
    rows: Vec<EntryRow>,
}

impl Manifest {
    /// How many entries it has.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The entries, in file order.
    pub fn entries(&self) -> impl Iterator<Item = ManifestEntry<'_>> + Clone + '_ {
        self.rows.iter().map(|&r| self.files.entry(r))
    }

    /// The rows, in file order, over [`Manifest::files`].
    pub fn rows(&self) -> &[EntryRow] {
        &self.rows
    }

    /// What the rows index.
    pub fn files(&self) -> &DataFiles {
        &self.files
    }

    /// Appends an entry (its partition shared with the previous entry's when equal).
    pub fn push(
        &mut self,
        kind: FileKind,
        partition: &[u8],
        bucket: i32,
        file: &FileFields<'_>,
        rare: Rare,
    ) -> Result<()> {
        let last = self
            .rows
            .last()
            .map(|r| r.partition_id())
            .filter(|&p| self.files.partition(p) == partition);
        let partition = match last {
            Some(p) => p,
            None => self.files.push_partition(partition)?,
        };
        let name = self.files.push_name(file.file_name)?;
        let id = self.files.push_file(name, file, rare)?;
        self.rows
            .push(EntryRow::new(kind, partition, bucket, id, file.level));
        Ok(())
    }
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

/// The fields of an entry that are validated but not kept, as decoded. Only the tests look at
/// the values.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
struct Unkept<'r, 'a> {
    version: i32,
    total_buckets: i32,
    file: UnkeptFile<'r, 'a>,
}

/// The fields of `_FILE` that are validated but not kept, borrowed from the block: checking
/// them allocates nothing.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
struct UnkeptFile<'r, 'a> {
    schema_id: i64,
    creation_time_millis: Option<i64>,
    delete_row_count: Option<i64>,
    embedded_file_index: Option<&'a [u8]>,
    value_stats_cols: Option<Strs<'r, 'a>>,
    first_row_id: Option<i64>,
    write_cols: Option<Strs<'r, 'a>>,
}

/// One entry, every field read in the order the reader always has (so a damaged entry is
/// rejected naming the same field), appended to `out`; its unkept fields.
fn decode<'r, 'a>(row: Row<'r, 'a>, out: &mut Manifest) -> Result<Unkept<'r, 'a>> {
    row.require(0, "a manifest entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    check_manifest_version(version)?;
    let kind = FileKind::from_value(row.long(KIND, "_KIND")?)?;
    let partition = row.bytes(PARTITION, "_PARTITION")?;
    let bucket = row.int(BUCKET, "_BUCKET")?;
    let total_buckets = row.int(TOTAL_BUCKETS, "_TOTAL_BUCKETS")?;
    row.require(FILE, "field _FILE")?;
    let (file, rare, unkept) = decode_file(row).map_err(|e| e.context("field _FILE"))?;
    out.push(kind, partition, bucket, &file, rare)?;
    Ok(Unkept {
        version,
        total_buckets,
        file: unkept,
    })
}

/// `_FILE`'s fields, kept and unkept, in the reader's order.
fn decode_file<'r, 'a>(row: Row<'r, 'a>) -> Result<(FileFields<'a>, Rare, UnkeptFile<'r, 'a>)> {
    let file_name = row.str(FILE_NAME, "_FILE_NAME")?;
    let file_size = row.long(FILE_SIZE, "_FILE_SIZE")?;
    let row_count = row.long(ROW_COUNT, "_ROW_COUNT")?;
    let min_key = row.bytes(MIN_KEY, "_MIN_KEY")?;
    let max_key = row.bytes(MAX_KEY, "_MAX_KEY")?;
    let min_sequence_number = row.long(MIN_SEQ, "_MIN_SEQUENCE_NUMBER")?;
    let max_sequence_number = row.long(MAX_SEQ, "_MAX_SEQUENCE_NUMBER")?;
    let schema_id = row.long(SCHEMA_ID, "_SCHEMA_ID")?;
    let level = row.int(LEVEL, "_LEVEL")?;
    let extra_files = row.opt_strs(EXTRA_FILES, "_EXTRA_FILES")?;
    let creation_time_millis = row.opt_long(CREATION_TIME, "_CREATION_TIME")?;
    let delete_row_count = row.opt_long(DELETE_ROW_COUNT, "_DELETE_ROW_COUNT")?;
    let embedded_file_index = row.opt_bytes(EMBEDDED_FILE_INDEX, "_EMBEDDED_FILE_INDEX")?;
    let file_source = row
        .opt_long(FILE_SOURCE, "_FILE_SOURCE")?
        .map(FileSource::from_value)
        .transpose()?;
    let value_stats_cols = row.opt_strs(VALUE_STATS_COLS, "_VALUE_STATS_COLS")?;
    let external_path = row.opt_str(EXTERNAL_PATH, "_EXTERNAL_PATH")?;
    let unkept = UnkeptFile {
        schema_id,
        creation_time_millis,
        delete_row_count,
        embedded_file_index,
        value_stats_cols,
        first_row_id: row.opt_long(FIRST_ROW_ID, "_FIRST_ROW_ID")?,
        write_cols: row.opt_strs(WRITE_COLS, "_WRITE_COLS")?,
    };
    let file = FileFields {
        file_name,
        file_size,
        row_count,
        min_key,
        max_key,
        min_sequence_number,
        max_sequence_number,
        level,
        file_source,
    };
    Ok((file, rare_fields(extra_files, external_path), unkept))
}

/// `_EXTRA_FILES` and `_EXTERNAL_PATH`.
fn rare_fields(extra_files: Option<Strs<'_, '_>>, external: Option<&str>) -> Rare {
    Rare {
        extra_files: extra_files
            .map(|list| list.iter().map(Box::from).collect())
            .unwrap_or_default(),
        external_path: external.map(Box::from),
    }
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
) -> Result<Manifest> {
    let mut out = Manifest::default();
    for_each_record(
        bytes,
        cache,
        limits,
        &ENTRY,
        &mut out,
        |out, n| out.rows.reserve(n),
        |out, row| decode(row, out).map(|_| ()),
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::*;
    use crate::error::ErrorKind;
    use crate::paimon::avro::read_records;
    use crate::paimon::avro::testutil::*;
    use crate::paimon::avro::Codec;
    use crate::paimon::binary_row::{try_render_partition, PartitionRenderOptions};
    use crate::paimon::manifest_list::read_manifest_list;

    fn entry(kind: i64, file: &'static str) -> Fields {
        fields(vec![
            ("_VERSION", T::Int(2)),
            ("_KIND", T::Int(kind)),
            (
                "_PARTITION",
                T::Bytes(vec![
                    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,
                ]),
            ),
            ("_BUCKET", T::Int(3)),
            ("_TOTAL_BUCKETS", T::Int(4)),
            ("_FILE_NAME", T::Str(file)),
            ("_FILE_SIZE", T::Int(2202)),
            ("_ROW_COUNT", T::Int(10)),
            (
                "_MIN_KEY",
                T::Bytes(vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            ),
            ("_MAX_KEY", T::Bytes(vec![1; 12])),
            ("_MIN_VALUES", T::Bytes(vec![9; 30])),
            ("_MIN_SEQUENCE_NUMBER", T::Int(5)),
            ("_MAX_SEQUENCE_NUMBER", T::Int(-1)),
            ("_SCHEMA_ID", T::Int(1)),
            ("_LEVEL", T::Int(5)),
            ("_EXTRA_FILES", T::StrList(vec![file, "x.index"])),
            ("_CREATION_TIME", T::Int(1_796_027_580_090)),
            ("_DELETE_ROW_COUNT", T::Int(2)),
        ])
    }

    fn read(bytes: &[u8]) -> Result<Manifest> {
        read_manifest(bytes, &mut AvroSchemaCache::new(), &Limits::default())
    }

    /// The fields the reader validates without keeping them, as it decoded them.
    #[derive(Debug, Clone, PartialEq)]
    struct Validated {
        version: i32,
        total_buckets: i32,
        schema_id: i64,
        creation_time_millis: Option<i64>,
        delete_row_count: Option<i64>,
        embedded_file_index: Option<Vec<u8>>,
        value_stats_cols: Option<Vec<String>>,
        first_row_id: Option<i64>,
        write_cols: Option<Vec<String>>,
    }

    fn strings(list: Option<Strs<'_, '_>>) -> Option<Vec<String>> {
        list.map(|l| l.iter().map(str::to_string).collect())
    }

    /// The entries as [`read_manifest`] returns them (checked equal), with each entry's unkept
    /// fields.
    fn read_validated(bytes: &[u8], cache: &mut AvroSchemaCache) -> (Manifest, Vec<Validated>) {
        let mut manifest = Manifest::default();
        let validated = read_records(bytes, cache, &Limits::default(), &ENTRY, |row| {
            let u = decode(row, &mut manifest)?;
            let f = u.file;
            Ok(Validated {
                version: u.version,
                total_buckets: u.total_buckets,
                schema_id: f.schema_id,
                creation_time_millis: f.creation_time_millis,
                delete_row_count: f.delete_row_count,
                embedded_file_index: f.embedded_file_index.map(<[u8]>::to_vec),
                value_stats_cols: strings(f.value_stats_cols),
                first_row_id: f.first_row_id,
                write_cols: strings(f.write_cols),
            })
        })
        .unwrap();
        assert_eq!(read(bytes).unwrap(), manifest);
        (manifest, validated)
    }

    #[test]
    fn consecutive_entries_share_their_partition() {
        let mut m = Manifest::default();
        let file = |name| FileFields {
            file_name: name,
            file_size: 1,
            row_count: 1,
            min_key: &[],
            max_key: &[],
            min_sequence_number: 0,
            max_sequence_number: 0,
            level: 0,
            file_source: None,
        };
        for (p, name) in [(&[1u8][..], "a"), (&[1], "b"), (&[2], "c"), (&[1], "d")] {
            m.push(FileKind::Add, p, 0, &file(name), Rare::default())
                .unwrap();
        }
        let ids: Vec<u32> = m.rows().iter().map(|r| r.partition_id()).collect();
        assert_eq!(ids, [0, 0, 1, 2]);
        let names: Vec<&str> = m.entries().map(|e| e.file().file_name()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(m.entries().nth(3).unwrap().partition(), [1]);
    }

    #[test]
    fn paimon_08_union_wrapped_snappy() {
        let rows = [entry(0, "data-a.orc"), entry(1, "data-b.orc")];
        let f = ocf(
            MANIFEST_ENTRY_0_8,
            Codec::Snappy,
            &[records(MANIFEST_ENTRY_0_8, &rows)],
        );
        let (m, out) = read_validated(&f, &mut AvroSchemaCache::new());
        assert_eq!((m.len(), out.len()), (2, 2));
        let entries: Vec<ManifestEntry<'_>> = m.entries().collect();
        let (e, u) = (entries[0], &out[0]);
        assert_eq!(u.version, 2);
        assert_eq!(e.kind(), FileKind::Add);
        assert_eq!(entries[1].kind(), FileKind::Delete);
        assert_eq!(e.bucket(), 3);
        assert_eq!(u.total_buckets, 4);
        assert_eq!(e.partition().len(), 20);
        // One copy of the partition both entries have.
        assert_eq!(m.rows()[0].partition_id(), m.rows()[1].partition_id());
        let d = e.file();
        assert_eq!(d.file_name(), "data-a.orc");
        assert_eq!(d.file_size(), 2202);
        assert_eq!(d.row_count(), 10);
        assert_eq!(d.min_key(), [0; 12]);
        assert_eq!(d.max_key(), [1; 12]);
        assert_eq!(d.min_sequence_number(), 5);
        assert_eq!(d.max_sequence_number(), -1);
        assert_eq!(u.schema_id, 1);
        assert_eq!(d.level(), 5);
        let extra: Vec<&str> = d.extra_files().iter().map(|x| &**x).collect();
        assert_eq!(extra, vec!["data-a.orc", "x.index"]);
        assert_eq!(u.creation_time_millis, Some(1_796_027_580_090));
        assert_eq!(u.delete_row_count, Some(2));
        // Fields 0.8 did not have.
        assert_eq!(d.file_source(), None);
        assert_eq!(u.value_stats_cols, None);
        assert_eq!(d.external_path(), None);
        assert_eq!(u.first_row_id, None);
        assert_eq!(u.write_cols, None);
        assert_eq!(u.embedded_file_index, None);
    }

    #[test]
    fn master_schema_with_every_field_in_null_and_deflate() {
        let mut row = entry(0, "data-c.parquet");
        row.extend([
            ("_EMBEDDED_FILE_INDEX", T::Bytes(vec![1, 2, 3])),
            ("_FILE_SOURCE", T::Int(1)),
            ("_VALUE_STATS_COLS", T::StrList(vec!["a", "b"])),
            ("_EXTERNAL_PATH", T::Str("s3://bucket/x/data-c.parquet")),
            ("_FIRST_ROW_ID", T::Int(1000)),
            ("_WRITE_COLS", T::StrList(vec!["a"])),
            (
                "_NULL_COUNTS",
                T::Records(vec![]), // empty array of nullable longs
            ),
        ]);
        let mut nulls = entry(1, "data-d.parquet");
        nulls.extend([
            ("_CREATION_TIME", T::Null),
            ("_DELETE_ROW_COUNT", T::Null),
            ("_VALUE_STATS_COLS", T::StrList(vec![])),
            ("_EXTRA_FILES", T::StrList(vec![])),
        ]);
        for codec in [Codec::Null, Codec::Deflate, Codec::Zstandard] {
            let f = ocf(
                MANIFEST_ENTRY_MASTER,
                codec,
                &[records(
                    MANIFEST_ENTRY_MASTER,
                    &[row.clone(), nulls.clone()],
                )],
            );
            let (m, out) = read_validated(&f, &mut AvroSchemaCache::new());
            let files: Vec<DataFileMeta<'_>> = m.entries().map(|e| e.file()).collect();
            let (d, u) = (files[0], &out[0]);
            assert_eq!(u.embedded_file_index.as_deref(), Some(&[1u8, 2, 3][..]));
            assert_eq!(d.file_source(), Some(FileSource::Compact));
            assert_eq!(u.value_stats_cols, Some(vec!["a".into(), "b".into()]));
            assert_eq!(d.external_path(), Some("s3://bucket/x/data-c.parquet"));
            assert_eq!(u.first_row_id, Some(1000));
            assert_eq!(u.write_cols, Some(vec!["a".into()]));
            let (d, u) = (files[1], &out[1]);
            assert_eq!(u.creation_time_millis, None);
            assert_eq!(u.delete_row_count, None);
            assert_eq!(d.file_source(), None);
            assert_eq!(u.value_stats_cols, Some(vec![]));
            // Neither extra files nor an external path: no rare fields held for them.
            assert!(d.extra_files().is_empty() && d.external_path().is_none());
            assert!(d.rare().is_none());
        }
    }

    /// `MANIFEST_ENTRY_MASTER` with field `name` (of the entry or of `_FILE`) of another type.
    fn schema_with_wrong_type(name: &str) -> String {
        let mut schema: serde_json::Value = serde_json::from_str(MANIFEST_ENTRY_MASTER).unwrap();
        let retype = |fields: &mut serde_json::Value| {
            for f in fields.as_array_mut().unwrap() {
                if f["name"] == name {
                    f["type"] = "boolean".into();
                }
            }
        };
        retype(&mut schema["fields"]);
        let file = schema["fields"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|f| f["name"] == "_FILE")
            .unwrap();
        retype(&mut file["type"]["fields"]);
        schema.to_string()
    }

    /// The fields that are not kept are still checked: each of another type in the writer
    /// schema, or a required one absent, fails the manifest naming it, as when they were kept.
    #[test]
    fn unkept_fields_are_validated() {
        let unkept = [
            ("_VERSION", ""),
            ("_TOTAL_BUCKETS", ""),
            ("_SCHEMA_ID", "field _FILE: "),
            ("_CREATION_TIME", "field _FILE: "),
            ("_DELETE_ROW_COUNT", "field _FILE: "),
            ("_EMBEDDED_FILE_INDEX", "field _FILE: "),
            ("_VALUE_STATS_COLS", "field _FILE: "),
            ("_FIRST_ROW_ID", "field _FILE: "),
            ("_WRITE_COLS", "field _FILE: "),
        ];
        for (name, within) in unkept {
            let schema = schema_with_wrong_type(name);
            let mut row = entry(0, "f");
            row.remove(name);
            let f = ocf(&schema, Codec::Null, &[records(&schema, &[row])]);
            let e = read(&f).unwrap_err();
            let kind = if name.contains("COLS") {
                "array of strings"
            } else if name == "_EMBEDDED_FILE_INDEX" {
                "bytes"
            } else if name.starts_with("_VERSION") || name == "_TOTAL_BUCKETS" {
                "int"
            } else {
                "long"
            };
            assert_eq!(
                e.to_string(),
                format!(
                    "block 0: record 0: {within}field {name}: expected {kind}, found boolean in the writer schema"
                ),
                "{name}"
            );
        }
        let schema = MANIFEST_ENTRY_MASTER.replace("_SCHEMA_ID", "_SOMETHING_ELSE");
        let f = ocf(&schema, Codec::Null, &[records(&schema, &[entry(0, "f")])]);
        assert_eq!(
            read(&f).unwrap_err().to_string(),
            "block 0: record 0: field _FILE: expected field _SCHEMA_ID, found none in the writer schema"
        );
    }

    #[test]
    fn version_kind_and_null_record_errors() {
        let mut v1 = entry(0, "f");
        v1.insert("_VERSION", T::Int(1));
        let f = ocf(
            MANIFEST_ENTRY_MASTER,
            Codec::Null,
            &[records(MANIFEST_ENTRY_MASTER, &[v1])],
        );
        let e = read(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert_eq!(
            e.to_string(),
            "block 0: record 0: The current version 2 is not compatible with the version 1, please recreate the table."
        );
        let mut v3 = entry(0, "f");
        v3.insert("_VERSION", T::Int(3));
        let f = ocf(
            MANIFEST_ENTRY_MASTER,
            Codec::Null,
            &[records(MANIFEST_ENTRY_MASTER, &[entry(0, "ok"), v3])],
        );
        let e = read(&f).unwrap_err();
        assert_eq!(e.to_string(), "block 0: record 1: Unsupported version: 3");

        let f = ocf(
            MANIFEST_ENTRY_MASTER,
            Codec::Null,
            &[records(MANIFEST_ENTRY_MASTER, &[entry(7, "f")])],
        );
        assert!(read(&f).unwrap_err().to_string().contains("_KIND"));

        let mut bad_source = entry(0, "f");
        bad_source.insert("_FILE_SOURCE", T::Int(9));
        let f = ocf(
            MANIFEST_ENTRY_MASTER,
            Codec::Null,
            &[records(MANIFEST_ENTRY_MASTER, &[bad_source])],
        );
        let e = read(&f).unwrap_err();
        assert!(
            e.to_string().contains("field _FILE: expected _FILE_SOURCE"),
            "{e}"
        );

        // 0.8: null _FILE and a null top-level record.
        let mut null_file = Vec::new();
        encode(
            &Val::Union(
                1,
                Box::new(Val::Rec(vec![
                    Val::Long(2),
                    Val::Long(0),
                    Val::Bytes(vec![]),
                    Val::Long(0),
                    Val::Long(1),
                    Val::Union(0, Box::new(Val::Null)),
                ])),
            ),
            &mut null_file,
        );
        let mut f = header(MANIFEST_ENTRY_0_8, Codec::Null);
        zigzag(2, &mut f);
        zigzag(null_file.len() as i64 + 1, &mut f);
        f.extend(&null_file);
        f.push(0); // second record: the null branch of the top-level union
        f.extend_from_slice(&SYNC);
        let e = read(&f).unwrap_err();
        assert_eq!(
            e.to_string(),
            "block 0: record 0: expected field _FILE, found null"
        );
        let mut f = header(MANIFEST_ENTRY_0_8, Codec::Null);
        f.extend_from_slice(&[2, 2, 0]); // count 1, size 1, union branch 0 (null)
        f.extend_from_slice(&SYNC);
        let e = read(&f).unwrap_err();
        assert_eq!(
            e.to_string(),
            "block 0: record 0: expected a manifest entry, found null"
        );
    }

    #[test]
    fn field_absent_from_the_writer_schema() {
        let schema = MANIFEST_ENTRY_MASTER.replace("_TOTAL_BUCKETS", "_SOMETHING_ELSE");
        let f = ocf(&schema, Codec::Null, &[records(&schema, &[entry(0, "f")])]);
        let e = read(&f).unwrap_err();
        assert_eq!(
            e.to_string(),
            "block 0: record 0: expected field _TOTAL_BUCKETS, found none in the writer schema"
        );
    }

    /// One table in a fixture: its root and files.
    struct Table<'a> {
        root: String,
        files: &'a HashMap<String, Vec<u8>>,
    }

    impl Table<'_> {
        fn get(&self, rel: &str) -> Option<&Vec<u8>> {
            self.files.get(&format!("{}/{rel}", self.root))
        }
        fn json(&self, rel: &str) -> serde_json::Value {
            serde_json::from_slice(self.get(rel).unwrap()).unwrap()
        }
    }

    /// Cross-checks every fixture against itself: for every snapshot whose manifest lists are
    /// in the artifact, the live data files and changelog files exist at the path their
    /// partition and bucket give, with the size the manifest records, and the manifest lists'
    /// sizes and ADD/DELETE counts match the manifests.
    #[test]
    fn fixture_manifests_agree_with_the_files_on_disk() {
        let limits = Limits::default();
        let mut checked_files = 0;
        let mut checked_snapshots = 0;
        for (zip, list) in fixture_zips() {
            let files: HashMap<String, Vec<u8>> = list.into_iter().collect();
            let roots: Vec<String> = files
                .keys()
                .filter_map(|n| {
                    n.split_once("/snapshot/snapshot-")
                        .map(|(r, _)| r.to_string())
                })
                .filter(|r| !r.contains("/branch/"))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            assert!(!roots.is_empty(), "{zip}");
            for root in roots {
                let t = Table {
                    root: root.clone(),
                    files: &files,
                };
                let mut snaps: Vec<String> = files
                    .keys()
                    .filter_map(|n| n.strip_prefix(&format!("{root}/snapshot/")))
                    .filter(|n| n.starts_with("snapshot-"))
                    .map(str::to_string)
                    .collect();
                snaps.sort();
                for snap in snaps {
                    let s = t.json(&format!("snapshot/{snap}"));
                    let schema = t.json(&format!("schema/schema-{}", s["schemaId"]));
                    let by_name: HashMap<&str, &str> = schema["fields"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| {
                            (
                                f["name"].as_str().unwrap(),
                                f["type"].as_str().unwrap_or("?"),
                            )
                        })
                        .collect();
                    let part_fields: Vec<(String, String)> = schema["partitionKeys"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|k| {
                            let k = k.as_str().unwrap();
                            (k.to_string(), by_name[k].to_string())
                        })
                        .collect();
                    let lists = |keys: &[&str]| -> Option<Vec<Manifest>> {
                        let mut entries = Vec::new();
                        for key in keys {
                            let name = s[*key].as_str()?;
                            let bytes = t.get(&format!("manifest/{name}"))?;
                            let metas =
                                read_manifest_list(bytes, &mut AvroSchemaCache::new(), &limits)
                                    .unwrap_or_else(|e| panic!("{zip} {name}: {e}"));
                            for m in metas {
                                let mbytes = t.get(&format!("manifest/{}", m.file_name))?;
                                assert_eq!(m.file_size as usize, mbytes.len(), "{}", m.file_name);
                                let es =
                                    read_manifest(mbytes, &mut AvroSchemaCache::new(), &limits)
                                        .unwrap();
                                let adds =
                                    es.entries().filter(|e| e.kind() == FileKind::Add).count();
                                assert_eq!(m.num_added_files as usize, adds, "{}", m.file_name);
                                assert_eq!(m.num_deleted_files as usize, es.len() - adds);
                                entries.push(es);
                            }
                        }
                        Some(entries)
                    };
                    let Some(data) = lists(&["baseManifestList", "deltaManifestList"]) else {
                        continue;
                    };
                    let mut live: BTreeMap<(Vec<u8>, i32, i32, String), ManifestEntry<'_>> =
                        BTreeMap::new();
                    for e in data.iter().flat_map(Manifest::entries) {
                        let key = (
                            e.partition().to_vec(),
                            e.bucket(),
                            e.file().level(),
                            e.file().file_name().to_string(),
                        );
                        match e.kind() {
                            FileKind::Add => {
                                assert!(live.insert(key, e).is_none(), "{zip} {snap}: added twice")
                            }
                            FileKind::Delete => {
                                live.remove(&key);
                            }
                        }
                    }
                    let changelog = if s["changelogManifestList"].is_string() {
                        lists(&["changelogManifestList"]).unwrap_or_default()
                    } else {
                        Vec::new()
                    };
                    checked_snapshots += 1;
                    let changelog: Vec<ManifestEntry<'_>> =
                        changelog.iter().flat_map(Manifest::entries).collect();
                    for e in live.values().chain(&changelog) {
                        let part = try_render_partition(
                            e.partition(),
                            &part_fields,
                            &PartitionRenderOptions::default(),
                        )
                        .unwrap();
                        let dir = if part.is_empty() {
                            String::new()
                        } else {
                            format!("{part}/")
                        };
                        let path = format!("{dir}bucket-{}/{}", e.bucket(), e.file().file_name());
                        let bytes = t
                            .get(&path)
                            .unwrap_or_else(|| panic!("{zip} {snap}: {root}/{path} missing"));
                        assert_eq!(bytes.len() as i64, e.file().file_size(), "{path}");
                        checked_files += 1;
                    }
                }
            }
        }
        assert!(checked_snapshots > 30, "{checked_snapshots}");
        assert!(checked_files > 100, "{checked_files}");
    }

    #[test]
    fn pypaimon_fixture_entries() {
        let mut cache = AvroSchemaCache::new();
        let files: Vec<_> = fixture_manifest_files()
            .into_iter()
            .filter(|(n, _)| n.contains("pypaimon21_a") && !n.contains("manifest-list-"))
            .collect();
        assert!(!files.is_empty());
        let mut seen = 0;
        for (name, bytes) in files {
            let (m, validated) = read_validated(&bytes, &mut cache);
            for (e, u) in m.entries().zip(validated) {
                assert_eq!(u.version, 2, "{name}");
                assert_eq!(u.total_buckets, 2);
                assert!(e.bucket() == 0 || e.bucket() == 1);
                assert!(e.file().file_name().ends_with(".parquet"));
                assert_eq!(e.file().level(), 0);
                assert_eq!(u.value_stats_cols, Some(vec![]));
                assert!(u.creation_time_millis.is_some());
                let fields = vec![("dt".to_string(), "STRING NOT NULL".to_string())];
                let p = try_render_partition(e.partition(), &fields, &Default::default()).unwrap();
                assert!(p == "dt=2024-01-01" || p == "dt=2024-01-02", "{p}");
                seen += 1;
            }
        }
        assert!(seen >= 6, "{seen}");
    }
}
