//! `manifest/manifest-list-<uuid>-<n>`: the manifests of one snapshot's base, delta or
//! changelog list, [`ManifestFileMeta`] (`paimon-format.md` §3.3).
//!
//! Decoded by field name against the file's writer schema; pypaimon's extra fields
//! (`_TOTAL_BUCKETS`, `_EXTRA_FILES`) and the partition null counts are skipped.

use crate::error::Result;
use crate::limits::Limits;

use super::avro::decode::{FieldSpec, Kind, RecordSpec};
use super::avro::{read_records, AvroSchemaCache, Row};
use super::manifest::check_manifest_version;

/// Min/max of the partitions a manifest covers (`_PARTITION_STATS`), as serialized BinaryRows
/// (see [`crate::paimon::binary_row`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionStats {
    /// `_MIN_VALUES`.
    pub min_values: Vec<u8>,
    /// `_MAX_VALUES`.
    pub max_values: Vec<u8>,
}

/// One manifest listed in a manifest list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFileMeta {
    /// `_VERSION` (always 2).
    pub version: i32,
    /// `_FILE_NAME`: the manifest's name in `manifest/`.
    pub file_name: String,
    /// `_FILE_SIZE` in bytes.
    pub file_size: i64,
    /// `_NUM_ADDED_FILES`: ADD entries in the manifest.
    pub num_added_files: i64,
    /// `_NUM_DELETED_FILES`: DELETE entries in the manifest.
    pub num_deleted_files: i64,
    /// `_PARTITION_STATS` (nullable in 0.8 files).
    pub partition_stats: Option<PartitionStats>,
    /// `_SCHEMA_ID` when written.
    pub schema_id: i64,
    /// `_MIN_BUCKET` (1.1+).
    pub min_bucket: Option<i32>,
    /// `_MAX_BUCKET` (1.1+).
    pub max_bucket: Option<i32>,
    /// `_MIN_LEVEL` (1.1+).
    pub min_level: Option<i32>,
    /// `_MAX_LEVEL` (1.1+).
    pub max_level: Option<i32>,
    /// `_MIN_ROW_ID` (1.4+).
    pub min_row_id: Option<i64>,
    /// `_MAX_ROW_ID` (1.4+).
    pub max_row_id: Option<i64>,
}

const VERSION: usize = 1;
const FILE_NAME: usize = 2;
const FILE_SIZE: usize = 3;
const NUM_ADDED: usize = 4;
const NUM_DELETED: usize = 5;
const PARTITION_STATS: usize = 6;
const MIN_VALUES: usize = 7;
const MAX_VALUES: usize = 8;
const SCHEMA_ID: usize = 9;
const MIN_BUCKET: usize = 10;
const MAX_BUCKET: usize = 11;
const MIN_LEVEL: usize = 12;
const MAX_LEVEL: usize = 13;
const MIN_ROW_ID: usize = 14;
const MAX_ROW_ID: usize = 15;

const fn f(name: &'static str, kind: Kind, slot: usize) -> FieldSpec {
    FieldSpec { name, kind, slot }
}

static STATS_FIELDS: [FieldSpec; 2] = [
    f("_MIN_VALUES", Kind::Bytes, MIN_VALUES),
    f("_MAX_VALUES", Kind::Bytes, MAX_VALUES),
];

static META_FIELDS: [FieldSpec; 13] = [
    f("_VERSION", Kind::Int, VERSION),
    f("_FILE_NAME", Kind::Str, FILE_NAME),
    f("_FILE_SIZE", Kind::Long, FILE_SIZE),
    f("_NUM_ADDED_FILES", Kind::Long, NUM_ADDED),
    f("_NUM_DELETED_FILES", Kind::Long, NUM_DELETED),
    f(
        "_PARTITION_STATS",
        Kind::Record(&STATS_FIELDS),
        PARTITION_STATS,
    ),
    f("_SCHEMA_ID", Kind::Long, SCHEMA_ID),
    f("_MIN_BUCKET", Kind::Int, MIN_BUCKET),
    f("_MAX_BUCKET", Kind::Int, MAX_BUCKET),
    f("_MIN_LEVEL", Kind::Int, MIN_LEVEL),
    f("_MAX_LEVEL", Kind::Int, MAX_LEVEL),
    f("_MIN_ROW_ID", Kind::Long, MIN_ROW_ID),
    f("_MAX_ROW_ID", Kind::Long, MAX_ROW_ID),
];

static META: RecordSpec = RecordSpec {
    name: "ManifestFileMeta",
    fields: &META_FIELDS,
    slots: MAX_ROW_ID + 1,
};

/// The parts of a row that would allocate, borrowed from the decoded block: the manifest's name
/// and its partition stats (min, max).
type Borrowed<'a> = (&'a str, Option<(&'a [u8], &'a [u8])>);

/// Checks one row the way Paimon's reader would (every required field present, version 2) and
/// returns it with an empty name and no partition stats, those two borrowed beside it. Both
/// [`read_manifest_list`] and [`read_manifest_names`] go through it, so they accept and refuse
/// the same files with the same messages.
fn check<'a>(row: &Row<'_, 'a>) -> Result<(ManifestFileMeta, Borrowed<'a>)> {
    row.require(0, "a manifest list entry")?;
    let version = row.int(VERSION, "_VERSION")?;
    check_manifest_version(version)?;
    let partition_stats = if row.present(PARTITION_STATS) {
        Some((
            row.bytes(MIN_VALUES, "_MIN_VALUES")?,
            row.bytes(MAX_VALUES, "_MAX_VALUES")?,
        ))
    } else {
        None
    };
    let file_name = row.str(FILE_NAME, "_FILE_NAME")?;
    let meta = ManifestFileMeta {
        version,
        file_name: String::new(),
        file_size: row.long(FILE_SIZE, "_FILE_SIZE")?,
        num_added_files: row.long(NUM_ADDED, "_NUM_ADDED_FILES")?,
        num_deleted_files: row.long(NUM_DELETED, "_NUM_DELETED_FILES")?,
        partition_stats: None,
        schema_id: row.long(SCHEMA_ID, "_SCHEMA_ID")?,
        min_bucket: row.opt_int(MIN_BUCKET, "_MIN_BUCKET")?,
        max_bucket: row.opt_int(MAX_BUCKET, "_MAX_BUCKET")?,
        min_level: row.opt_int(MIN_LEVEL, "_MIN_LEVEL")?,
        max_level: row.opt_int(MAX_LEVEL, "_MAX_LEVEL")?,
        min_row_id: row.opt_long(MIN_ROW_ID, "_MIN_ROW_ID")?,
        max_row_id: row.opt_long(MAX_ROW_ID, "_MAX_ROW_ID")?,
    };
    Ok((meta, (file_name, partition_stats)))
}

fn build(row: Row<'_, '_>) -> Result<ManifestFileMeta> {
    let (mut meta, (file_name, partition_stats)) = check(&row)?;
    meta.file_name = file_name.to_string();
    meta.partition_stats = partition_stats.map(|(min, max)| PartitionStats {
        min_values: min.to_vec(),
        max_values: max.to_vec(),
    });
    Ok(meta)
}

/// Reads every entry of a manifest list (an Avro container file).
///
/// `cache` keeps the compiled writer schema for the next file; `limits` bounds blocks, block
/// sizes and records. The caller adds the file name to errors.
pub fn read_manifest_list(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
) -> Result<Vec<ManifestFileMeta>> {
    read_records(bytes, cache, limits, &META, build)
}

/// The names of the manifests a manifest list holds, in file order: all that the timeline needs
/// of a list. A 3,000-commit table has ~15,000 lists naming ~100,000 manifests; kept as
/// [`ManifestFileMeta`]s they were most of the analysis' memory (three allocations per entry), as
/// names they are one buffer per list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestNames {
    /// Every name, one after the other.
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<usize>,
}

impl ManifestNames {
    /// How many manifests the list holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the list holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The names, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| self.text.get(start..end).unwrap_or_default())
    }

    fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }
}

/// Reads a manifest list like [`read_manifest_list`] (same checks, same errors) but keeps only
/// the manifests' names.
pub fn read_manifest_names(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
) -> Result<ManifestNames> {
    let mut names = ManifestNames::default();
    read_records(bytes, cache, limits, &META, |row| {
        let (_, (name, _)) = check(&row)?;
        names.push(name);
        Ok(())
    })?;
    names.text.shrink_to_fit();
    names.ends.shrink_to_fit();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::paimon::avro::testutil::*;
    use crate::paimon::avro::Codec;

    fn row() -> Fields {
        fields(vec![
            ("_VERSION", T::Int(2)),
            (
                "_FILE_NAME",
                T::Str("manifest-19d138df-233f-46f7-beb6-fadaf4741c0e"),
            ),
            ("_FILE_SIZE", T::Int(10)),
            ("_NUM_ADDED_FILES", T::Int(10)),
            ("_NUM_DELETED_FILES", T::Int(10)),
            (
                "_MIN_VALUES",
                T::Bytes(vec![
                    0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x31, 0, 0, 0, 0,
                    0, 0, 0x81,
                ]),
            ),
            (
                "_MAX_VALUES",
                T::Bytes(vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            ),
            ("_SCHEMA_ID", T::Int(1)),
        ])
    }

    fn read(f: &[u8]) -> Result<Vec<ManifestFileMeta>> {
        read_manifest_list(f, &mut AvroSchemaCache::new(), &Limits::default())
    }

    #[test]
    fn appendix_b_entry_from_a_08_snappy_file() {
        let f = ocf(
            MANIFEST_FILE_META_0_8,
            Codec::Snappy,
            &[records(MANIFEST_FILE_META_0_8, &[row()])],
        );
        let out = read(&f).unwrap();
        assert_eq!(out.len(), 1);
        let m = &out[0];
        assert_eq!(m.version, 2);
        assert_eq!(m.file_name, "manifest-19d138df-233f-46f7-beb6-fadaf4741c0e");
        assert_eq!(
            (m.file_size, m.num_added_files, m.num_deleted_files),
            (10, 10, 10)
        );
        assert_eq!(m.schema_id, 1);
        let stats = m.partition_stats.as_ref().unwrap();
        assert_eq!(stats.min_values.len(), 28);
        assert_eq!(stats.max_values.len(), 12);
        assert_eq!(
            (m.min_bucket, m.max_level, m.min_row_id),
            (None, None, None)
        );
    }

    #[test]
    fn null_partition_stats_in_08() {
        let mut f = header(MANIFEST_FILE_META_0_8, Codec::Null);
        let v = Val::Union(
            1,
            Box::new(Val::Rec(vec![
                Val::Long(2),
                Val::Str("m".into()),
                Val::Long(1),
                Val::Long(2),
                Val::Long(3),
                Val::Union(0, Box::new(Val::Null)),
                Val::Long(4),
            ])),
        );
        let mut data = Vec::new();
        encode(&v, &mut data);
        zigzag(1, &mut f);
        zigzag(data.len() as i64, &mut f);
        f.extend(data);
        f.extend_from_slice(&SYNC);
        let out = read(&f).unwrap();
        assert_eq!(out[0].partition_stats, None);
        assert_eq!(out[0].schema_id, 4);
    }

    #[test]
    fn new_fields_of_1_4() {
        let mut r = row();
        r.extend([
            ("_MIN_BUCKET", T::Int(0)),
            ("_MAX_BUCKET", T::Int(7)),
            ("_MIN_LEVEL", T::Int(0)),
            ("_MAX_LEVEL", T::Int(5)),
            ("_MIN_ROW_ID", T::Int(100)),
            ("_MAX_ROW_ID", T::Null),
        ]);
        let f = ocf(
            MANIFEST_FILE_META_1_4,
            Codec::Zstandard,
            &[records(MANIFEST_FILE_META_1_4, &[r])],
        );
        let m = &read(&f).unwrap()[0];
        assert_eq!((m.min_bucket, m.max_bucket), (Some(0), Some(7)));
        assert_eq!((m.min_level, m.max_level), (Some(0), Some(5)));
        assert_eq!((m.min_row_id, m.max_row_id), (Some(100), None));
    }

    #[test]
    fn version_1_is_rejected_with_paimons_message() {
        let mut r = row();
        r.insert("_VERSION", T::Int(1));
        let f = ocf(
            MANIFEST_FILE_META_1_4,
            Codec::Null,
            &[records(MANIFEST_FILE_META_1_4, &[r])],
        );
        let e = read(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert!(e.to_string().ends_with(
            "The current version 2 is not compatible with the version 1, please recreate the table."
        ));
    }

    #[test]
    fn pypaimon_lists_with_extra_fields() {
        let mut cache = AvroSchemaCache::new();
        let mut n = 0;
        for (name, bytes) in fixture_manifest_files() {
            if !name.contains("pypaimon21") || !name.contains("/manifest-list-") {
                continue;
            }
            assert!(crate::paimon::avro::read_header(&bytes)
                .unwrap()
                .schema
                .contains("_TOTAL_BUCKETS"));
            for m in read_manifest_list(&bytes, &mut cache, &Limits::default()).unwrap() {
                assert_eq!(m.version, 2);
                assert!(m.file_name.starts_with("manifest-"), "{name}");
                assert!(m.file_size > 0);
                assert!(m.partition_stats.is_some());
                n += 1;
            }
        }
        assert!(n > 10, "{n}");
        assert_eq!(cache.schemas_compiled(), 1);
    }

    /// The names-only reader agrees with the full one on every real manifest list, and refuses
    /// the same damaged files with the same message (both go through `check`).
    #[test]
    fn names_match_the_full_reader_on_every_fixture_list() {
        let lists: Vec<_> = fixture_manifest_files()
            .into_iter()
            .filter(|(n, _)| n.contains("/manifest/manifest-list-"))
            .collect();
        assert!(lists.len() > 20, "{}", lists.len());
        let (mut full_cache, mut names_cache) = (AvroSchemaCache::new(), AvroSchemaCache::new());
        let limits = Limits::default();
        let mut named = 0;
        for (name, bytes) in &lists {
            let full = read_manifest_list(bytes, &mut full_cache, &limits).unwrap();
            let names = read_manifest_names(bytes, &mut names_cache, &limits).unwrap();
            let expected: Vec<&str> = full.iter().map(|m| m.file_name.as_str()).collect();
            assert_eq!(names.iter().collect::<Vec<_>>(), expected, "{name}");
            assert_eq!(names.len(), expected.len());
            named += names.len();
            // Damaged copies: cut short, and a byte flipped in every position of the tail.
            let cut = &bytes[..bytes.len() * 2 / 3];
            assert_eq!(
                read_manifest_names(cut, &mut names_cache, &limits).map(|n| n.len()),
                read_manifest_list(cut, &mut full_cache, &limits).map(|m| m.len()),
                "{name} cut"
            );
            for at in (bytes.len().saturating_sub(64)..bytes.len()).step_by(7) {
                let mut bad = bytes.clone();
                bad[at] ^= 0x5a;
                let a = read_manifest_names(&bad, &mut names_cache, &limits);
                let b = read_manifest_list(&bad, &mut full_cache, &limits);
                assert_eq!(
                    a.map(|n| n.iter().map(str::to_string).collect::<Vec<_>>()),
                    b.map(|m| m.into_iter().map(|m| m.file_name).collect::<Vec<_>>()),
                    "{name} byte {at}"
                );
            }
        }
        assert!(named > 50, "{named}");
    }

    #[test]
    fn names_round_trip() {
        let mut names = ManifestNames::default();
        for name in ["manifest-a-0", "", "manifest-b-1"] {
            names.push(name);
        }
        assert_eq!(names.len(), 3);
        assert!(!names.is_empty());
        assert_eq!(
            names.iter().collect::<Vec<_>>(),
            ["manifest-a-0", "", "manifest-b-1"]
        );
        assert!(ManifestNames::default().is_empty());
    }
}
