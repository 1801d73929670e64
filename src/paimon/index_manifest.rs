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
    f(
        "_DELETIONS_VECTORS_RANGES",
        Kind::RecordList(&DV),
        DV_RANGES,
    ),
    f("_EXTERNAL_PATH", Kind::Str, EXTERNAL_PATH),
];

static ENTRY: RecordSpec = RecordSpec {
    name: "IndexManifestEntry",
    fields: &ENTRY_FIELDS,
    slots: EXTERNAL_PATH + 1,
};

fn build(row: Row<'_, '_>) -> Result<IndexManifestEntry> {
    row.require(0, "an index manifest entry")?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::paimon::avro::testutil::*;
    use crate::paimon::avro::Codec;

    fn dv(file: &'static str, offset: i64, len: i64, card: Option<i64>) -> Fields {
        let mut f = fields(vec![
            ("f0", T::Str(file)),
            ("f1", T::Int(offset)),
            ("f2", T::Int(len)),
        ]);
        if let Some(c) = card {
            f.insert("_CARDINALITY", T::Int(c));
        }
        f
    }

    fn entry(ranges: Option<Vec<Fields>>) -> Fields {
        let mut f = fields(vec![
            ("_VERSION", T::Int(1)),
            ("_KIND", T::Int(0)),
            (
                "_PARTITION",
                T::Bytes(vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            ),
            ("_BUCKET", T::Int(1)),
            ("_INDEX_TYPE", T::Str("DELETION_VECTORS")),
            ("_FILE_NAME", T::Str("index-0d4c-0")),
            ("_FILE_SIZE", T::Int(345)),
            ("_ROW_COUNT", T::Int(2)),
        ]);
        if let Some(r) = ranges {
            f.insert("_DELETIONS_VECTORS_RANGES", T::Records(r));
        }
        f
    }

    fn read(f: &[u8]) -> Result<Vec<IndexManifestEntry>> {
        read_index_manifest(f, &mut AvroSchemaCache::new(), &Limits::default())
    }

    #[test]
    fn paimon_08_snappy_deletion_vectors() {
        let rows = [
            entry(Some(vec![
                dv("data-1.orc", 1, 40, None),
                dv("data-2.orc", 45, 50, None),
            ])),
            entry(None),
        ];
        let f = ocf(
            INDEX_MANIFEST_ENTRY_0_8,
            Codec::Snappy,
            &[records(INDEX_MANIFEST_ENTRY_0_8, &rows)],
        );
        let out = read(&f).unwrap();
        assert_eq!(out.len(), 2);
        let e = &out[0];
        assert_eq!(e.version, 1);
        assert_eq!(e.kind, FileKind::Add);
        assert_eq!(e.bucket, 1);
        assert_eq!(e.index_type, "DELETION_VECTORS");
        assert_eq!(e.file_name, "index-0d4c-0");
        assert_eq!((e.file_size, e.row_count), (345, 2));
        assert_eq!(
            e.deletion_vector_ranges,
            Some(vec![
                DeletionVectorRange {
                    data_file: "data-1.orc".into(),
                    offset: 1,
                    length: 40,
                    cardinality: None
                },
                DeletionVectorRange {
                    data_file: "data-2.orc".into(),
                    offset: 45,
                    length: 50,
                    cardinality: None
                },
            ])
        );
        assert_eq!(e.external_path, None);
        assert_eq!(out[1].deletion_vector_ranges, None);
    }

    #[test]
    fn master_with_cardinality_external_path_and_a_global_index_to_skip() {
        let mut r = entry(Some(vec![dv("data-1.parquet", 1, 40, Some(7))]));
        r.insert("_EXTERNAL_PATH", T::Str("oss://b/index-0d4c-0"));
        r.insert("_ROW_RANGE_END", T::Int(99)); // inside the (non-null) _GLOBAL_INDEX record
        r.insert("_EXTRA_FIELD_IDS", T::Null);
        let hash = fields(vec![
            ("_VERSION", T::Int(1)),
            ("_KIND", T::Int(0)),
            ("_PARTITION", T::Bytes(vec![0; 12])),
            ("_BUCKET", T::Int(0)),
            ("_INDEX_TYPE", T::Str("HASH")),
            ("_FILE_NAME", T::Str("index-1")),
            ("_FILE_SIZE", T::Int(8)),
            ("_ROW_COUNT", T::Int(2)),
        ]);
        for codec in [Codec::Zstandard, Codec::Deflate] {
            let f = ocf(
                INDEX_MANIFEST_ENTRY_MASTER,
                codec,
                &[records(
                    INDEX_MANIFEST_ENTRY_MASTER,
                    &[r.clone(), hash.clone()],
                )],
            );
            let out = read(&f).unwrap();
            assert_eq!(
                out[0].external_path.as_deref(),
                Some("oss://b/index-0d4c-0")
            );
            let ranges = out[0].deletion_vector_ranges.as_ref().unwrap();
            assert_eq!(ranges[0].cardinality, Some(7));
            assert_eq!(out[1].index_type, "HASH");
            assert_eq!(out[1].deletion_vector_ranges, None);
        }
    }

    #[test]
    fn null_range_items_are_dropped() {
        // Array of ["null", record] with a null element in the middle.
        let rec = |name: &str| {
            Val::Union(
                1,
                Box::new(Val::Rec(vec![
                    Val::Str(name.into()),
                    Val::Long(1),
                    Val::Long(2),
                    Val::Union(0, Box::new(Val::Null)),
                ])),
            )
        };
        let v = Val::Rec(vec![
            Val::Long(1),
            Val::Long(0),
            Val::Bytes(vec![0; 12]),
            Val::Long(0),
            Val::Str("DELETION_VECTORS".into()),
            Val::Str("index-2".into()),
            Val::Long(10),
            Val::Long(2),
            Val::Union(
                1,
                Box::new(Val::ArrSized(vec![
                    rec("a"),
                    Val::Union(0, Box::new(Val::Null)),
                    rec("b"),
                ])),
            ),
        ]);
        // The master schema without its last two fields, so the datum above matches it.
        let mut s: serde_json::Value = serde_json::from_str(INDEX_MANIFEST_ENTRY_MASTER).unwrap();
        let fs = s["fields"].as_array_mut().unwrap();
        fs.truncate(fs.len() - 2);
        let schema = s.to_string();
        let f = ocf(&schema, Codec::Null, &[vec![v]]);
        let out = read(&f).unwrap();
        let names: Vec<_> = out[0]
            .deletion_vector_ranges
            .as_ref()
            .unwrap()
            .iter()
            .map(|r| r.data_file.as_str())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn other_versions_are_unsupported() {
        let mut r = entry(None);
        r.insert("_VERSION", T::Int(2));
        let f = ocf(
            INDEX_MANIFEST_ENTRY_MASTER,
            Codec::Null,
            &[records(INDEX_MANIFEST_ENTRY_MASTER, &[r])],
        );
        let e = read(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert_eq!(e.to_string(), "block 0: record 0: Unsupported version: 2");
    }
}
