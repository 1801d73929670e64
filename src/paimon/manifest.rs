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
    row.require(0, "a manifest entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    check_manifest_version(version)?;
    let kind = FileKind::from_value(row.long(KIND, "_KIND")?)?;
    let partition = row.bytes(PARTITION, "_PARTITION")?.to_vec();
    let bucket = row.int(BUCKET, "_BUCKET")?;
    let total_buckets = row.int(TOTAL_BUCKETS, "_TOTAL_BUCKETS")?;
    row.require(FILE, "field _FILE")?;
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

    #[test]
    fn paimon_08_union_wrapped_snappy() {
        let rows = [entry(0, "data-a.orc"), entry(1, "data-b.orc")];
        let f = ocf(
            MANIFEST_ENTRY_0_8,
            Codec::Snappy,
            &[records(MANIFEST_ENTRY_0_8, &rows)],
        );
        let out = read(&f).unwrap();
        assert_eq!(out.len(), 2);
        let e = &out[0];
        assert_eq!(e.version, 2);
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(out[1].kind, FileKind::Delete);
        assert_eq!(e.bucket, 3);
        assert_eq!(e.total_buckets, 4);
        assert_eq!(e.partition.len(), 20);
        let d = &e.file;
        assert_eq!(d.file_name, "data-a.orc");
        assert_eq!(d.file_size, 2202);
        assert_eq!(d.row_count, 10);
        assert_eq!(d.min_key, vec![0; 12]);
        assert_eq!(d.max_key, vec![1; 12]);
        assert_eq!(d.min_sequence_number, 5);
        assert_eq!(d.max_sequence_number, -1);
        assert_eq!(d.schema_id, 1);
        assert_eq!(d.level, 5);
        assert_eq!(d.extra_files, vec!["data-a.orc", "x.index"]);
        assert_eq!(d.creation_time_millis, Some(1_796_027_580_090));
        assert_eq!(d.delete_row_count, Some(2));
        // Fields 0.8 did not have.
        assert_eq!(d.file_source, None);
        assert_eq!(d.value_stats_cols, None);
        assert_eq!(d.external_path, None);
        assert_eq!(d.first_row_id, None);
        assert_eq!(d.write_cols, None);
        assert_eq!(d.embedded_file_index, None);
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
            let out = read(&f).unwrap();
            let d = &out[0].file;
            assert_eq!(d.embedded_file_index.as_deref(), Some(&[1u8, 2, 3][..]));
            assert_eq!(d.file_source, Some(FileSource::Compact));
            assert_eq!(d.value_stats_cols, Some(vec!["a".into(), "b".into()]));
            assert_eq!(
                d.external_path.as_deref(),
                Some("s3://bucket/x/data-c.parquet")
            );
            assert_eq!(d.first_row_id, Some(1000));
            assert_eq!(d.write_cols, Some(vec!["a".into()]));
            let d = &out[1].file;
            assert_eq!(d.creation_time_millis, None);
            assert_eq!(d.delete_row_count, None);
            assert_eq!(d.file_source, None);
            assert_eq!(d.value_stats_cols, Some(vec![]));
        }
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
                            e.partition.clone(),
                            e.bucket,
                            e.file.level,
                            e.file.file_name.clone(),
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
            for e in read_manifest(&bytes, &mut cache, &Limits::default()).unwrap() {
                assert_eq!(e.version, 2, "{name}");
                assert_eq!(e.total_buckets, 2);
                assert!(e.bucket == 0 || e.bucket == 1);
                assert!(e.file.file_name.ends_with(".parquet"));
                assert_eq!(e.file.level, 0);
                assert_eq!(e.file.value_stats_cols, Some(vec![]));
                assert!(e.file.creation_time_millis.is_some());
                let fields = vec![("dt".to_string(), "STRING NOT NULL".to_string())];
                let p = try_render_partition(&e.partition, &fields, &Default::default()).unwrap();
                assert!(p == "dt=2024-01-01" || p == "dt=2024-01-02", "{p}");
                seen += 1;
            }
        }
        assert!(seen >= 6, "{seen}");
    }
}
