//! `manifest/manifest-<uuid>-<n>`: the entries of one manifest file, [`ManifestEntry`] with its
//! [`DataFileMeta`] (`paimon-format.md` §3.4).
//!
//! Decoded by field name against the file's writer schema (Paimon 0.8 … master, pypaimon), so
//! fields added by later versions come out as `None` for older files. Key and value statistics
//! are skipped; the other fields no check reads are validated but not kept ([`DataFileMeta`]).

use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::avro::decode::{FieldSpec, Kind, RecordSpec};
use super::avro::{read_records, AvroSchemaCache, Row, Strs};

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

/// A data or changelog file as recorded in a manifest (`_FILE`): the fields the checks read.
///
/// A wide table holds millions of these at once, so the rest of `_FILE` (`_SCHEMA_ID`,
/// `_CREATION_TIME`, `_DELETE_ROW_COUNT`, `_EMBEDDED_FILE_INDEX`, `_VALUE_STATS_COLS`,
/// `_FIRST_ROW_ID`, `_WRITE_COLS`) is validated while decoding (type and presence: a damaged
/// manifest fails the same way) but not kept, the keys share one allocation, and the rarely set
/// `_EXTRA_FILES` and `_EXTERNAL_PATH` sit behind one pointer (`BENCHMARKS.md`, "Wide tables").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFileMeta {
    /// `_FILE_NAME`: the name inside the bucket directory (shared: see [`ManifestEntry`]).
    pub file_name: Arc<str>,
    /// `_FILE_SIZE` in bytes.
    pub file_size: i64,
    /// `_ROW_COUNT`: rows including deletes.
    pub row_count: i64,
    /// `_MIN_SEQUENCE_NUMBER`.
    pub min_sequence_number: i64,
    /// `_MAX_SEQUENCE_NUMBER`.
    pub max_sequence_number: i64,
    /// `_LEVEL`: LSM level (0 for new and append files).
    pub level: i32,
    /// `_FILE_SOURCE` (0.9+).
    pub file_source: Option<FileSource>,
    /// `_MIN_KEY`'s bytes, then `_MAX_KEY`'s.
    keys: Box<[u8]>,
    /// Where `_MAX_KEY` starts in `keys`.
    max_key_at: u32,
    /// `_EXTRA_FILES` and `_EXTERNAL_PATH`, when either is set.
    rare: Option<Box<RareFields>>,
}

/// The fields of a [`DataFileMeta`] that most files leave empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct RareFields {
    extra_files: Box<[Box<str>]>,
    external_path: Option<Box<str>>,
}

impl DataFileMeta {
    /// `_MIN_KEY`: serialized BinaryRow of the smallest key.
    pub fn min_key(&self) -> &[u8] {
        self.keys.get(..self.max_key_at as usize).unwrap_or(&[])
    }

    /// `_MAX_KEY`: serialized BinaryRow of the largest key.
    pub fn max_key(&self) -> &[u8] {
        self.keys.get(self.max_key_at as usize..).unwrap_or(&[])
    }

    /// `_EXTRA_FILES`: sibling files (e.g. `*.index`).
    pub fn extra_files(&self) -> &[Box<str>] {
        self.rare.as_ref().map_or(&[], |r| &r.extra_files)
    }

    /// `_EXTERNAL_PATH` (1.0+): absolute path when written outside the table directory.
    pub fn external_path(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.external_path.as_deref())
    }
}

#[cfg(test)]
impl DataFileMeta {
    /// A file for the checks' unit tests: its name, level and row count (the rest empty).
    pub(crate) fn for_test(file_name: &str, level: i32, row_count: i64) -> Self {
        DataFileMeta {
            file_name: file_name.into(),
            file_size: 100,
            row_count,
            min_sequence_number: 0,
            max_sequence_number: 0,
            level,
            file_source: None,
            keys: Box::default(),
            max_key_at: 0,
            rare: None,
        }
    }
}

/// One entry of a manifest file: the fields the checks read. `_VERSION` is checked and
/// `_TOTAL_BUCKETS` validated while decoding, neither kept.
///
/// The partition is shared between the entries of a manifest with the same partition (a table
/// has few partitions and millions of entries), and [`ManifestEntry::share`] shares it and the
/// whole file description further: a file's ADD, its DELETE and its copies in the manifests a
/// manifest merge rewrites describe it alike (on a 472k-file table, 1.09M entries hold 630k
/// distinct descriptions; `BENCHMARKS.md`, "One description per file").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// `_KIND`.
    pub kind: FileKind,
    /// `_PARTITION`: serialized BinaryRow (4-byte big-endian arity prefix); see
    /// [`crate::paimon::binary_row`].
    pub partition: Arc<[u8]>,
    /// `_BUCKET` (−2 = postpone bucket).
    pub bucket: i32,
    /// `_FILE` (shared, see above).
    pub file: Arc<DataFileMeta>,
}

#[cfg(test)]
impl ManifestEntry {
    /// An entry of `file` (e.g. [`DataFileMeta::for_test`]) in `partition`/`bucket`, for tests
    /// of what is built from entries.
    pub(crate) fn for_test(
        kind: FileKind,
        partition: &[u8],
        bucket: i32,
        file: DataFileMeta,
    ) -> ManifestEntry {
        ManifestEntry {
            kind,
            partition: Arc::from(partition),
            bucket,
            file: Arc::new(file),
        }
    }
}

/// One copy of each distinct partition and file description, shared by the entries that hold
/// it ([`ManifestEntry::share`]).
#[derive(Debug, Default)]
pub struct Interner {
    partitions: foldhash::HashMap<Arc<[u8]>, ()>,
    /// A description per file name: the last one shared. Every entry is looked up here:
    /// foldhash, as [`crate::timeline::files`]' name sets.
    files: foldhash::HashSet<ByName>,
    /// The partition shared last: where consecutive entries have the same partition (a commit's
    /// files one partition after the other), they are answered by comparing bytes, unhashed.
    last_partition: Option<Arc<[u8]>>,
}

impl Interner {
    /// The shared copy of `value`, which becomes it when it is the first (hashed once).
    fn one<T: ?Sized + Eq + Hash>(
        map: &mut foldhash::HashMap<Arc<T>, ()>,
        value: Arc<T>,
    ) -> Arc<T> {
        match map.entry(value) {
            Entry::Occupied(shared) => shared.key().clone(),
            Entry::Vacant(first) => {
                let value = first.key().clone();
                first.insert(());
                value
            }
        }
    }

    /// The shared copy of a partition's bytes.
    fn partition(&mut self, bytes: &[u8]) -> Arc<[u8]> {
        match &self.last_partition {
            Some(last) if **last == *bytes => last.clone(),
            _ => self.new_partition(Arc::from(bytes)),
        }
    }

    /// The shared copy of `partition`.
    fn shared_partition(&mut self, partition: Arc<[u8]>) -> Arc<[u8]> {
        match &self.last_partition {
            Some(last) if *last == partition => last.clone(),
            _ => self.new_partition(partition),
        }
    }

    /// The shared copy of a partition other than the last one, which it becomes.
    fn new_partition(&mut self, partition: Arc<[u8]>) -> Arc<[u8]> {
        let shared = Self::one(&mut self.partitions, partition);
        self.last_partition = Some(shared.clone());
        shared
    }

    /// The shared copy of `file`: the description kept for its name when it is equal, else
    /// `file` with the kept name, which is kept for the name from now on (a file a compaction
    /// moves to another level keeps its name; its later copies describe the new level).
    fn file(&mut self, mut file: Arc<DataFileMeta>) -> Arc<DataFileMeta> {
        let known = self.files.get(&*file.file_name).map(|k| &k.0);
        match known {
            Some(known) if **known == *file => known.clone(),
            Some(known) => {
                let name = known.file_name.clone();
                Arc::make_mut(&mut file).file_name = name;
                self.files.replace(ByName(file.clone()));
                file
            }
            None => {
                self.files.insert(ByName(file.clone()));
                file
            }
        }
    }
}

/// A shared file description, found in [`Interner::files`] by its name.
#[derive(Debug)]
struct ByName(Arc<DataFileMeta>);

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.0.file_name == other.0.file_name
    }
}

impl Eq for ByName {}

impl Hash for ByName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `str` hashes: looked up by `&str` through `Borrow`.
        (*self.0.file_name).hash(state);
    }
}

impl Borrow<str> for ByName {
    fn borrow(&self) -> &str {
        &self.0.file_name
    }
}

impl ManifestEntry {
    /// This entry with its partition and file description replaced by `interner`'s copies
    /// (equal values: the entry reads the same).
    pub fn share(mut self, interner: &mut Interner) -> ManifestEntry {
        self.partition = interner.shared_partition(self.partition);
        self.file = interner.file(self.file);
        self
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

/// One entry and its unkept fields, every field read in the order the reader always has (so a
/// damaged entry is rejected naming the same field); `interner` shares equal partitions.
fn decode<'r, 'a>(
    row: Row<'r, 'a>,
    interner: &mut Interner,
) -> Result<(ManifestEntry, Unkept<'r, 'a>)> {
    row.require(0, "a manifest entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    check_manifest_version(version)?;
    let kind = FileKind::from_value(row.long(KIND, "_KIND")?)?;
    let partition = interner.partition(row.bytes(PARTITION, "_PARTITION")?);
    let bucket = row.int(BUCKET, "_BUCKET")?;
    let total_buckets = row.int(TOTAL_BUCKETS, "_TOTAL_BUCKETS")?;
    row.require(FILE, "field _FILE")?;
    let (file, unkept) = decode_file(row).map_err(|e| e.context("field _FILE"))?;
    let entry = ManifestEntry {
        kind,
        partition,
        bucket,
        file: Arc::new(file),
    };
    let unkept = Unkept {
        version,
        total_buckets,
        file: unkept,
    };
    Ok((entry, unkept))
}

/// `_FILE`'s fields, kept and unkept, in the reader's order.
fn decode_file<'r, 'a>(row: Row<'r, 'a>) -> Result<(DataFileMeta, UnkeptFile<'r, 'a>)> {
    let file_name = Arc::from(row.str(FILE_NAME, "_FILE_NAME")?);
    let file_size = row.long(FILE_SIZE, "_FILE_SIZE")?;
    let row_count = row.long(ROW_COUNT, "_ROW_COUNT")?;
    let (keys, max_key_at) = keys(row)?;
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
    let file = DataFileMeta {
        file_name,
        file_size,
        row_count,
        min_sequence_number,
        max_sequence_number,
        level,
        file_source,
        keys,
        max_key_at,
        rare: rare_fields(extra_files, external_path),
    };
    Ok((file, unkept))
}

/// `_MIN_KEY` and `_MAX_KEY` in one allocation, and where the second starts.
fn keys(row: Row<'_, '_>) -> Result<(Box<[u8]>, u32)> {
    let min_key = row.bytes(MIN_KEY, "_MIN_KEY")?;
    let max_key = row.bytes(MAX_KEY, "_MAX_KEY")?;
    let max_key_at = u32::try_from(min_key.len()).map_err(|_| {
        Error::format(format!(
            "expected field _MIN_KEY of at most 4 GiB, found {} bytes",
            min_key.len()
        ))
    })?;
    Ok(([min_key, max_key].concat().into_boxed_slice(), max_key_at))
}

/// `_EXTRA_FILES` and `_EXTERNAL_PATH`, boxed when either is set.
fn rare_fields(
    extra_files: Option<Strs<'_, '_>>,
    external: Option<&str>,
) -> Option<Box<RareFields>> {
    let extra_files: Box<[Box<str>]> = extra_files
        .map(|list| list.iter().map(Box::from).collect())
        .unwrap_or_default();
    (!extra_files.is_empty() || external.is_some()).then(|| {
        Box::new(RareFields {
            extra_files,
            external_path: external.map(Box::from),
        })
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
    let mut interner = Interner::default();
    read_records(bytes, cache, limits, &ENTRY, |row| {
        decode(row, &mut interner).map(|(entry, _)| entry)
    })
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::*;
    use crate::error::ErrorKind;
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

    fn read(bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
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

    /// Each entry as [`read_manifest`] returns it (checked equal), with its unkept fields.
    fn read_validated(
        bytes: &[u8],
        cache: &mut AvroSchemaCache,
    ) -> Vec<(ManifestEntry, Validated)> {
        let mut interner = Interner::default();
        let out = read_records(bytes, cache, &Limits::default(), &ENTRY, |row| {
            let (entry, u) = decode(row, &mut interner)?;
            let f = u.file;
            let validated = Validated {
                version: u.version,
                total_buckets: u.total_buckets,
                schema_id: f.schema_id,
                creation_time_millis: f.creation_time_millis,
                delete_row_count: f.delete_row_count,
                embedded_file_index: f.embedded_file_index.map(<[u8]>::to_vec),
                value_stats_cols: strings(f.value_stats_cols),
                first_row_id: f.first_row_id,
                write_cols: strings(f.write_cols),
            };
            Ok((entry, validated))
        })
        .unwrap();
        let entries: Vec<ManifestEntry> = out.iter().map(|(e, _)| e.clone()).collect();
        assert_eq!(read(bytes).unwrap(), entries);
        out
    }

    #[test]
    fn share_keeps_one_description_per_file_and_level() {
        let mut interner = Interner::default();
        let mut shared = |kind, level, rows| {
            let file = DataFileMeta::for_test("data-a.parquet", level, rows);
            ManifestEntry::for_test(kind, &[0, 0, 0, 0], 1, file).share(&mut interner)
        };
        let add = shared(FileKind::Add, 0, 5);
        let copy = shared(FileKind::Add, 0, 5); // a manifest merge's copy
        let delete = shared(FileKind::Delete, 0, 5);
        assert!(Arc::ptr_eq(&add.file, &copy.file) && Arc::ptr_eq(&add.file, &delete.file));
        assert!(Arc::ptr_eq(&add.partition, &delete.partition));
        // Compacted to level 1 under the same name: its own description, the name shared.
        let upgraded = shared(FileKind::Add, 1, 5);
        assert_eq!((upgraded.file.level, add.file.level), (1, 0));
        assert!(!Arc::ptr_eq(&add.file, &upgraded.file));
        assert!(Arc::ptr_eq(&add.file.file_name, &upgraded.file.file_name));
        // Later copies describe the new level, shared; another value is never taken for equal.
        let later = shared(FileKind::Delete, 1, 5);
        assert!(Arc::ptr_eq(&upgraded.file, &later.file));
        let other_rows = shared(FileKind::Add, 1, 6);
        assert_eq!(other_rows.file.row_count, 6);
        assert_eq!(add.file.row_count, 5);
    }

    #[test]
    fn paimon_08_union_wrapped_snappy() {
        let rows = [entry(0, "data-a.orc"), entry(1, "data-b.orc")];
        let f = ocf(
            MANIFEST_ENTRY_0_8,
            Codec::Snappy,
            &[records(MANIFEST_ENTRY_0_8, &rows)],
        );
        let out = read_validated(&f, &mut AvroSchemaCache::new());
        assert_eq!(out.len(), 2);
        let (e, u) = &out[0];
        assert_eq!(u.version, 2);
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(out[1].0.kind, FileKind::Delete);
        assert_eq!(e.bucket, 3);
        assert_eq!(u.total_buckets, 4);
        assert_eq!(e.partition.len(), 20);
        // One copy of the partition both entries have.
        assert!(Arc::ptr_eq(&e.partition, &out[1].0.partition));
        let d = &e.file;
        assert_eq!(&*d.file_name, "data-a.orc");
        assert_eq!(d.file_size, 2202);
        assert_eq!(d.row_count, 10);
        assert_eq!(d.min_key(), [0; 12]);
        assert_eq!(d.max_key(), [1; 12]);
        assert_eq!(d.min_sequence_number, 5);
        assert_eq!(d.max_sequence_number, -1);
        assert_eq!(u.schema_id, 1);
        assert_eq!(d.level, 5);
        let extra: Vec<&str> = d.extra_files().iter().map(|x| &**x).collect();
        assert_eq!(extra, vec!["data-a.orc", "x.index"]);
        assert_eq!(u.creation_time_millis, Some(1_796_027_580_090));
        assert_eq!(u.delete_row_count, Some(2));
        // Fields 0.8 did not have.
        assert_eq!(d.file_source, None);
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
            let out = read_validated(&f, &mut AvroSchemaCache::new());
            let (d, u) = (&out[0].0.file, &out[0].1);
            assert_eq!(u.embedded_file_index.as_deref(), Some(&[1u8, 2, 3][..]));
            assert_eq!(d.file_source, Some(FileSource::Compact));
            assert_eq!(u.value_stats_cols, Some(vec!["a".into(), "b".into()]));
            assert_eq!(d.external_path(), Some("s3://bucket/x/data-c.parquet"));
            assert_eq!(u.first_row_id, Some(1000));
            assert_eq!(u.write_cols, Some(vec!["a".into()]));
            let (d, u) = (&out[1].0.file, &out[1].1);
            assert_eq!(u.creation_time_millis, None);
            assert_eq!(u.delete_row_count, None);
            assert_eq!(d.file_source, None);
            assert_eq!(u.value_stats_cols, Some(vec![]));
            // Neither extra files nor an external path: nothing boxed for them.
            assert!(d.extra_files().is_empty() && d.external_path().is_none());
            assert!(d.rare.is_none());
        }
    }

    /// A wide table holds millions of entries at once (`BENCHMARKS.md`, "Compact manifest
    /// entry": 344 bytes each when every field was kept).
    #[test]
    fn an_entry_is_small() {
        let size = std::mem::size_of::<ManifestEntry>();
        assert!(size <= 112, "{size}");
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
                    let lists = |keys: &[&str]| -> Option<Vec<ManifestEntry>> {
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
                                let adds = es.iter().filter(|e| e.kind == FileKind::Add).count();
                                assert_eq!(m.num_added_files as usize, adds, "{}", m.file_name);
                                assert_eq!(m.num_deleted_files as usize, es.len() - adds);
                                entries.extend(es);
                            }
                        }
                        Some(entries)
                    };
                    let Some(data) = lists(&["baseManifestList", "deltaManifestList"]) else {
                        continue;
                    };
                    let mut live: BTreeMap<(Vec<u8>, i32, i32, String), ManifestEntry> =
                        BTreeMap::new();
                    for e in data {
                        let key = (
                            e.partition.to_vec(),
                            e.bucket,
                            e.file.level,
                            e.file.file_name.to_string(),
                        );
                        match e.kind {
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
                    for e in live.values().chain(&changelog) {
                        let part = try_render_partition(
                            &e.partition,
                            &part_fields,
                            &PartitionRenderOptions::default(),
                        )
                        .unwrap();
                        let dir = if part.is_empty() {
                            String::new()
                        } else {
                            format!("{part}/")
                        };
                        let path = format!("{dir}bucket-{}/{}", e.bucket, e.file.file_name);
                        let bytes = t
                            .get(&path)
                            .unwrap_or_else(|| panic!("{zip} {snap}: {root}/{path} missing"));
                        assert_eq!(bytes.len() as i64, e.file.file_size, "{path}");
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
            for (e, u) in read_validated(&bytes, &mut cache) {
                assert_eq!(u.version, 2, "{name}");
                assert_eq!(u.total_buckets, 2);
                assert!(e.bucket == 0 || e.bucket == 1);
                assert!(e.file.file_name.ends_with(".parquet"));
                assert_eq!(e.file.level, 0);
                assert_eq!(u.value_stats_cols, Some(vec![]));
                assert!(u.creation_time_millis.is_some());
                let fields = vec![("dt".to_string(), "STRING NOT NULL".to_string())];
                let p = try_render_partition(&e.partition, &fields, &Default::default()).unwrap();
                assert!(p == "dt=2024-01-01" || p == "dt=2024-01-02", "{p}");
                seen += 1;
            }
        }
        assert!(seen >= 6, "{seen}");
    }
}
