//! Decoded manifest entries, stored flat (`paimon-format.md` §3.4).
//!
//! A wide table's manifests hold a million entries and half a million file descriptions, all
//! alive while the file graph is judged. Held as objects (an `Arc` per description, a heap
//! string per name, a boxed key pair), they were two thirds of the analysis's memory and
//! three allocations each (`BENCHMARKS.md`, "Flat manifest entries"). Here every description
//! is a fixed-size record in one vector, names and keys lie one after the other in one buffer
//! each, and an entry is 16 bytes of indices into them: an [`EntryRow`].
//!
//! [`ManifestEntry`] and [`DataFileMeta`] are the views the rest of the code reads: a row with
//! the [`DataFiles`] it indexes (`Copy`, no allocation), with accessors named as Paimon names
//! the fields.

use std::fmt;

use crate::error::{Error, Result};

use super::manifest::{FileKind, FileSource};
use std::sync::Arc;

use crate::arena::{ByteChunks, Chunks, TextChunks};
use crate::source::{FileEntry, Listing};

/// One manifest entry as held: its kind, bucket and level, and its partition and file
/// description as indices into the [`DataFiles`] it belongs to (read it through
/// [`DataFiles::entry`]).
///
/// The level is the entry's, not the description's: a compaction that moves a file to another
/// level under the same name (an upgrade) writes a DELETE and an ADD that differ only in it,
/// and a wide table has a third as many upgrades as files (`BENCHMARKS.md`, "Flat manifest
/// entries"). A level that does not fit in 16 bits stays in the description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryRow {
    file: u32,
    partition: u32,
    bucket: i32,
    kind: FileKind,
    /// `_LEVEL`, or [`LEVEL_OF_FILE`].
    level: i16,
}

/// [`EntryRow::level`]: the level is the description's.
const LEVEL_OF_FILE: i16 = i16::MIN;

impl EntryRow {
    /// `_KIND`.
    pub fn kind(self) -> FileKind {
        self.kind
    }

    /// `_BUCKET`.
    pub fn bucket(self) -> i32 {
        self.bucket
    }

    /// The file description's index in its [`DataFiles`].
    pub fn file_id(self) -> u32 {
        self.file
    }

    /// The partition's index in its [`DataFiles`].
    pub fn partition_id(self) -> u32 {
        self.partition
    }

    /// The row of an entry at `level` whose partition and description are `partition` and
    /// `file` of the [`DataFiles`] it is held with; a level [`EntryRow::holds_level`] refuses
    /// must be the description's.
    pub fn new(kind: FileKind, partition: u32, bucket: i32, file: u32, level: i32) -> EntryRow {
        EntryRow {
            file,
            partition,
            bucket,
            kind,
            level: i16::try_from(level)
                .ok()
                .filter(|&l| l != LEVEL_OF_FILE)
                .unwrap_or(LEVEL_OF_FILE),
        }
    }

    /// Whether a row holds `level` itself (else its description must).
    pub fn holds_level(level: i32) -> bool {
        i16::try_from(level).is_ok_and(|l| l != LEVEL_OF_FILE)
    }
}

/// A description: its name, level and rare fields by index, the rest a blob in
/// [`DataFiles::bytes`]: `_FILE_SIZE`, `_ROW_COUNT`, `_MIN_SEQUENCE_NUMBER`,
/// `_MAX_SEQUENCE_NUMBER` and the length of `_MIN_KEY` as zigzag varints, then `_MIN_KEY` and
/// `_MAX_KEY` (20 bytes and ~12 of blob, where the four numbers and three offsets took 56
/// bytes: `BENCHMARKS.md`, "Flat manifest entries"). Equal blobs are equal fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    /// The name's index in [`DataFiles::names`].
    name: u32,
    level: i32,
    /// Where the blob starts in [`DataFiles::bytes`], and its length.
    blob_at: u32,
    blob_len: u32,
    /// The low 30 bits: `0`, or the index + 1 of the record's [`Rare`] fields; the top two:
    /// `_FILE_SOURCE` (see [`source_bits`]).
    rare_and_source: u32,
}

/// The numbers a blob begins with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Numbers {
    file_size: i64,
    row_count: i64,
    min_sequence_number: i64,
    max_sequence_number: i64,
    min_key_len: usize,
    /// Where the keys start in the blob.
    keys_at: usize,
}

/// The longest the numbers of a blob take: five varints of at most 10 bytes.
const NUMBERS_MAX: usize = 50;

/// Writes `v` zigzag-encoded as a varint into `out` at `at`; the position after it.
fn put_varint(out: &mut [u8; NUMBERS_MAX], mut at: usize, v: i64) -> usize {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let byte = (z & 0x7f) as u8;
        z >>= 7;
        if let Some(slot) = out.get_mut(at) {
            *slot = if z == 0 { byte } else { byte | 0x80 };
        }
        at += 1;
        if z == 0 {
            return at;
        }
    }
}

/// The zigzag varint at `*at` of `blob` (0 past its end), moving `*at` past it.
fn get_varint(blob: &[u8], at: &mut usize) -> i64 {
    let mut z = 0u64;
    let mut shift = 0u32;
    while let Some(&byte) = blob.get(*at) {
        *at += 1;
        if shift < 64 {
            z |= u64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

impl Numbers {
    fn of(blob: &[u8]) -> Numbers {
        let mut at = 0;
        let mut next = || get_varint(blob, &mut at);
        let (file_size, row_count) = (next(), next());
        let (min_sequence_number, max_sequence_number) = (next(), next());
        let min_key_len = usize::try_from(next()).unwrap_or(0);
        Numbers {
            file_size,
            row_count,
            min_sequence_number,
            max_sequence_number,
            min_key_len,
            keys_at: at,
        }
    }
}

const RARE_BITS: u32 = 30;
const RARE_MASK: u32 = (1 << RARE_BITS) - 1;

/// `_FILE_SOURCE` as two bits: `0` none (before 0.9), `1` APPEND, `2` COMPACT.
fn source_bits(source: Option<FileSource>) -> u32 {
    match source {
        None => 0,
        Some(FileSource::Append) => 1,
        Some(FileSource::Compact) => 2,
    }
}

impl Record {
    fn file_source(&self) -> Option<FileSource> {
        match self.rare_and_source >> RARE_BITS {
            1 => Some(FileSource::Append),
            2 => Some(FileSource::Compact),
            _ => None,
        }
    }

    fn rare(&self) -> u32 {
        self.rare_and_source & RARE_MASK
    }
}

/// What a view of an index no [`DataFiles`] holds reads (never reached: rows are only made by
/// the owner of the files they index).
static NO_RECORD: Record = Record {
    name: u32::MAX,
    level: 0,
    blob_at: 0,
    blob_len: 0,
    rare_and_source: 0,
};

/// The fields most files leave empty: `_EXTRA_FILES` and `_EXTERNAL_PATH`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rare {
    /// `_EXTRA_FILES`.
    pub extra_files: Box<[Box<str>]>,
    /// `_EXTERNAL_PATH`.
    pub external_path: Option<Box<str>>,
}

impl Rare {
    /// Whether neither field is set.
    pub fn is_empty(&self) -> bool {
        self.extra_files.is_empty() && self.external_path.is_none()
    }
}

/// A description's fields, as decoded, to be added with [`DataFiles::push_file`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileFields<'a> {
    /// `_FILE_NAME`.
    pub file_name: &'a str,
    /// `_FILE_SIZE`.
    pub file_size: i64,
    /// `_ROW_COUNT`.
    pub row_count: i64,
    /// `_MIN_KEY`.
    pub min_key: &'a [u8],
    /// `_MAX_KEY`.
    pub max_key: &'a [u8],
    /// `_MIN_SEQUENCE_NUMBER`.
    pub min_sequence_number: i64,
    /// `_MAX_SEQUENCE_NUMBER`.
    pub max_sequence_number: i64,
    /// `_LEVEL`.
    pub level: i32,
    /// `_FILE_SOURCE`.
    pub file_source: Option<FileSource>,
}

/// Byte strings one after the other, each found by its index (the few partitions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Blobs {
    bytes: Vec<u8>,
    /// Where each ends in `bytes`.
    ends: Vec<u32>,
}

impl Blobs {
    fn get(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let end = self.ends.get(i).map_or(0, |&e| e as usize);
        let start = match i.checked_sub(1) {
            Some(prev) => self.ends.get(prev).map_or(end, |&e| e as usize),
            None => 0,
        };
        self.bytes.get(start..end).unwrap_or(&[])
    }

    /// Adds `bytes`; its index. Fails past 4 GiB in all.
    fn push(&mut self, bytes: &[u8], what: &str) -> Result<u32> {
        let end = offset(self.bytes.len() + bytes.len(), what)?;
        let index = offset(self.ends.len(), what)?;
        self.bytes.extend_from_slice(bytes);
        self.ends.push(end);
        Ok(index)
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4
    }

    fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// [`DataFiles::names`]' length of a name taken from the listing.
const LISTED: u32 = u32::MAX;

/// The listing names are taken from, compared by identity.
#[derive(Clone, Default)]
struct SharedListing(Option<Arc<Listing>>);

impl PartialEq for SharedListing {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for SharedListing {}

impl fmt::Debug for SharedListing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "listing" } else { "none" })
    }
}

/// `n` as a `u32` index or offset, or an error naming what outgrew 4 GiB (or 4 Gi items).
fn offset(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::limit(
            "max-total-bytes",
            format!("the decoded {what} outgrow 4 GiB, more than one analysis holds"),
        )
    })
}

/// File descriptions, names, keys and partitions of manifest entries, stored flat; the
/// [`EntryRow`]s of the entries index them.
///
/// A name can be a file's of the artifact's [`Listing`] instead of bytes of its own
/// ([`DataFiles::push_listed_name`]): a wide table's half a million names were held twice, by
/// the listing and by the manifests' descriptions (`BENCHMARKS.md`, "Flat manifest entries").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFiles {
    records: Chunks<Record>,
    /// Per name: where it starts in `bytes`, and its length; or, with the length
    /// [`LISTED`], the index of the file of `listing` whose name it is.
    names: Chunks<(u32, u32)>,
    /// The listing names may be taken from.
    listing: SharedListing,
    /// Names and keys.
    /// Names.
    text: TextChunks,
    /// Keys.
    bytes: ByteChunks,
    partitions: Blobs,
    rare: Vec<Rare>,
}

impl DataFiles {
    /// No files.
    pub fn new() -> Self {
        Self::default()
    }

    /// The entry `row` (a row of these files).
    pub fn entry(&self, row: EntryRow) -> ManifestEntry<'_> {
        ManifestEntry { row, files: self }
    }

    /// The description at index `id`, at the level it was added with (an entry's own level
    /// is that of [`ManifestEntry::file`]).
    pub fn file(&self, id: u32) -> DataFileMeta<'_> {
        let record = self.records.get(id as usize).unwrap_or(&NO_RECORD);
        DataFileMeta {
            id,
            level: record.level,
            record,
            files: self,
        }
    }

    /// The name at index `id` (an index [`DataFiles::push_name`] gave).
    pub fn name(&self, id: u32) -> &str {
        match self.names.get(id as usize) {
            Some(&(file, LISTED)) => self.listed_file(file).map_or("", |f| f.name()),
            Some(&(at, len)) => self.text.get(at, len),
            None => "",
        }
    }

    /// The listing's index of the file whose name is name `id`, when it is taken from the
    /// listing.
    pub fn listed_at(&self, id: u32) -> Option<u32> {
        match self.names.get(id as usize) {
            Some(&(file, LISTED)) => Some(file),
            _ => None,
        }
    }

    fn listed_file(&self, i: u32) -> Option<FileEntry<'_>> {
        self.listing.0.as_ref()?.file(i as usize)
    }

    /// Names may be taken from `listing` from now on ([`DataFiles::push_listed_name`]); a
    /// listing once set stays.
    pub fn set_listing(&mut self, listing: &Arc<Listing>) {
        if self.listing.0.is_none() {
            self.listing = SharedListing(Some(Arc::clone(listing)));
        }
    }

    /// Adds the name of file `i` of the listing ([`DataFiles::set_listing`]); its index. The
    /// name is the file's own: an error when there is no listing or no such file.
    pub fn push_listed_name(&mut self, i: u32) -> Result<u32> {
        if self.listed_file(i).is_none() {
            return Err(Error::io(format!("internal: no listed file {i} to name")));
        }
        offset(self.names.len, "file names")?;
        offset(self.names.push((i, LISTED)), "file names")
    }

    /// The partition at index `id` (an index [`DataFiles::push_partition`] gave).
    pub fn partition(&self, id: u32) -> &[u8] {
        self.partitions.get(id)
    }

    /// How many descriptions there are.
    pub fn files_len(&self) -> usize {
        self.records.len
    }

    /// How many names there are.
    pub fn names_len(&self) -> usize {
        self.names.len
    }

    /// How many partitions there are.
    pub fn partitions_len(&self) -> usize {
        self.partitions.len()
    }

    /// Adds a name; its index.
    pub fn push_name(&mut self, name: &str) -> Result<u32> {
        let len = offset(name.len(), "file names")?;
        if len == LISTED {
            return Err(Error::limit(
                "max-name-bytes",
                format!("a file name of {} bytes", name.len()),
            ));
        }
        offset(self.names.len, "file names")?;
        let at = self.text.push(&[name], "file names")?;
        offset(self.names.push((at, len)), "file names")
    }

    /// Adds a partition's bytes; its index.
    pub fn push_partition(&mut self, partition: &[u8]) -> Result<u32> {
        self.partitions.push(partition, "partitions")
    }

    /// Adds a description whose name is the name at index `name`; its index.
    pub fn push_file(&mut self, name: u32, f: &FileFields<'_>, rare: Rare) -> Result<u32> {
        let mut numbers = [0u8; NUMBERS_MAX];
        let mut at = 0;
        for v in [
            f.file_size,
            f.row_count,
            f.min_sequence_number,
            f.max_sequence_number,
            i64::try_from(f.min_key.len()).unwrap_or(i64::MAX),
        ] {
            at = put_varint(&mut numbers, at, v);
        }
        let numbers = numbers.get(..at).unwrap_or(&[]);
        let blob_len = offset(at + f.min_key.len() + f.max_key.len(), "keys")?;
        offset(self.records.len, "file descriptions")?;
        let rare = if rare.is_empty() {
            0
        } else {
            let index = offset(self.rare.len() + 1, "file descriptions")?;
            if index > RARE_MASK {
                return Err(Error::limit(
                    "max-total-entries",
                    "more than 2^30 files with extra files or external paths",
                ));
            }
            self.rare.push(rare);
            index
        };
        let blob_at = self.bytes.push(&[numbers, f.min_key, f.max_key], "keys")?;
        let id = self.records.push(Record {
            name,
            level: f.level,
            blob_at,
            blob_len,
            rare_and_source: rare | (source_bits(f.file_source) << RARE_BITS),
        });
        offset(id, "file descriptions")
    }

    /// Bytes held on the heap (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        self.records.heap_bytes()
            + self.names.heap_bytes()
            + self.text.heap_bytes()
            + self.bytes.heap_bytes()
            + self.partitions.heap_bytes()
            + self.rare.capacity() * std::mem::size_of::<Rare>()
    }

    /// Drops spare capacity (the files are complete).
    pub fn shrink_to_fit(&mut self) {
        self.records.shrink_to_fit();
        self.names.shrink_to_fit();
        self.text.shrink_to_fit();
        self.bytes.shrink_to_fit();
        self.partitions.shrink_to_fit();
        self.rare.shrink_to_fit();
    }

    /// The blob of record `r` (see [`Record`]).
    fn blob(&self, r: &Record) -> &[u8] {
        self.bytes.get(r.blob_at, r.blob_len)
    }

    /// The keys of record `r`.
    fn keys_of(&self, r: &Record) -> (&[u8], &[u8]) {
        let blob = self.blob(r);
        let n = Numbers::of(blob);
        let keys = blob.get(n.keys_at..).unwrap_or(&[]);
        keys.split_at_checked(n.min_key_len).unwrap_or((&[], &[]))
    }

    fn numbers(&self, r: &Record) -> Numbers {
        Numbers::of(self.blob(r))
    }

    fn rare_of(&self, r: &Record) -> Option<&Rare> {
        r.rare()
            .checked_sub(1)
            .and_then(|i| self.rare.get(i as usize))
    }
}

/// A manifest entry: a row read through the [`DataFiles`] it indexes.
#[derive(Clone, Copy)]
pub struct ManifestEntry<'a> {
    row: EntryRow,
    files: &'a DataFiles,
}

impl<'a> ManifestEntry<'a> {
    /// `_KIND`.
    pub fn kind(&self) -> FileKind {
        self.row.kind
    }

    /// `_BUCKET` (−2 = postpone bucket).
    pub fn bucket(&self) -> i32 {
        self.row.bucket
    }

    /// `_PARTITION`: serialized BinaryRow (4-byte big-endian arity prefix); see
    /// [`crate::paimon::binary_row`].
    pub fn partition(&self) -> &'a [u8] {
        self.files.partition(self.row.partition)
    }

    /// `_FILE`, at the entry's level.
    pub fn file(&self) -> DataFileMeta<'a> {
        let mut file = self.files.file(self.row.file);
        if self.row.level != LEVEL_OF_FILE {
            file.level = i32::from(self.row.level);
        }
        file
    }

    /// The row it reads.
    pub fn row(&self) -> EntryRow {
        self.row
    }
}

impl PartialEq for ManifestEntry<'_> {
    /// The same fields (whichever files hold them).
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind()
            && self.bucket() == other.bucket()
            && self.partition() == other.partition()
            && self.file() == other.file()
    }
}

impl Eq for ManifestEntry<'_> {}

impl fmt::Debug for ManifestEntry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManifestEntry")
            .field("kind", &self.kind())
            .field("partition", &self.partition())
            .field("bucket", &self.bucket())
            .field("file", &self.file())
            .finish()
    }
}

/// A data or changelog file as recorded in a manifest (`_FILE`): the fields the checks read.
/// The rest of `_FILE` (`_SCHEMA_ID`, `_CREATION_TIME`, `_DELETE_ROW_COUNT`,
/// `_EMBEDDED_FILE_INDEX`, `_VALUE_STATS_COLS`, `_FIRST_ROW_ID`, `_WRITE_COLS`) is validated
/// while decoding but not kept.
#[derive(Clone, Copy)]
pub struct DataFileMeta<'a> {
    id: u32,
    level: i32,
    record: &'a Record,
    files: &'a DataFiles,
}

impl<'a> DataFileMeta<'a> {
    /// `_FILE_NAME`: the name inside the bucket directory.
    pub fn file_name(&self) -> &'a str {
        self.files.name(self.record.name)
    }

    /// The name's index in its [`DataFiles`]: equal for equal names of one interned set of
    /// files (see `timeline::catalog`).
    pub fn name_id(&self) -> u32 {
        self.record.name
    }

    /// The description's index in its [`DataFiles`].
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The listing's index of a file of this name, when the name is taken from the listing
    /// ([`DataFiles::push_listed_name`]).
    pub fn listed_at(&self) -> Option<u32> {
        self.files.listed_at(self.record.name)
    }

    /// `_FILE_SIZE` in bytes.
    pub fn file_size(&self) -> i64 {
        self.files.numbers(self.record).file_size
    }

    /// `_ROW_COUNT`: rows including deletes.
    pub fn row_count(&self) -> i64 {
        self.files.numbers(self.record).row_count
    }

    /// `_MIN_SEQUENCE_NUMBER`.
    pub fn min_sequence_number(&self) -> i64 {
        self.files.numbers(self.record).min_sequence_number
    }

    /// `_MAX_SEQUENCE_NUMBER`.
    pub fn max_sequence_number(&self) -> i64 {
        self.files.numbers(self.record).max_sequence_number
    }

    /// `_LEVEL`: LSM level (0 for new and append files).
    pub fn level(&self) -> i32 {
        self.level
    }

    /// `_FILE_SOURCE` (0.9+).
    pub fn file_source(&self) -> Option<FileSource> {
        self.record.file_source()
    }

    /// `_MIN_KEY`: serialized BinaryRow of the smallest key.
    pub fn min_key(&self) -> &'a [u8] {
        self.files.keys_of(self.record).0
    }

    /// `_MAX_KEY`: serialized BinaryRow of the largest key.
    pub fn max_key(&self) -> &'a [u8] {
        self.files.keys_of(self.record).1
    }

    /// `_EXTRA_FILES`: sibling files (e.g. `*.index`).
    pub fn extra_files(&self) -> &'a [Box<str>] {
        self.files
            .rare_of(self.record)
            .map_or(&[], |r| &r.extra_files)
    }

    /// `_EXTERNAL_PATH` (1.0+): absolute path when written outside the table directory.
    pub fn external_path(&self) -> Option<&'a str> {
        self.files
            .rare_of(self.record)
            .and_then(|r| r.external_path.as_deref())
    }

    /// The fields, as [`DataFiles::push_file`] takes them.
    pub fn fields(&self) -> FileFields<'a> {
        let n = self.files.numbers(self.record);
        let (min_key, max_key) = self.files.keys_of(self.record);
        FileFields {
            file_name: self.file_name(),
            file_size: n.file_size,
            row_count: n.row_count,
            min_key,
            max_key,
            min_sequence_number: n.min_sequence_number,
            max_sequence_number: n.max_sequence_number,
            level: self.level(),
            file_source: self.file_source(),
        }
    }

    /// Whether `other` describes the file alike, its name and (unless `level`) its level
    /// aside: the same blob of numbers and keys, the same source and rare fields.
    pub fn alike(&self, other: &DataFileMeta<'_>, level: bool) -> bool {
        self.files.blob(self.record) == other.files.blob(other.record)
            && self.file_source() == other.file_source()
            && self.rare() == other.rare()
            && (!level || self.level() == other.level())
    }

    /// The rare fields, if any is set.
    pub fn rare(&self) -> Option<&'a Rare> {
        self.files.rare_of(self.record)
    }
}

impl PartialEq for DataFileMeta<'_> {
    /// The same fields (whichever files hold them).
    fn eq(&self, other: &Self) -> bool {
        self.fields() == other.fields() && self.rare() == other.rare()
    }
}

impl Eq for DataFileMeta<'_> {}

impl fmt::Debug for DataFileMeta<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataFileMeta")
            .field("fields", &self.fields())
            .field("rare", &self.rare())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields<'a>(name: &'a str, min: &'a [u8], max: &'a [u8]) -> FileFields<'a> {
        FileFields {
            file_name: name,
            file_size: 10,
            row_count: 2,
            min_key: min,
            max_key: max,
            min_sequence_number: 3,
            max_sequence_number: 4,
            level: 1,
            file_source: Some(FileSource::Compact),
        }
    }

    #[test]
    fn each_description_reads_back_its_own_fields() {
        let mut files = DataFiles::new();
        let a = files.push_name("data-a.parquet").unwrap();
        let b = files.push_name("data-b.parquet").unwrap();
        let p = files.push_partition(&[0, 0, 0, 1, 9]).unwrap();
        let fa = files
            .push_file(
                a,
                &fields("data-a.parquet", &[1, 2], &[3, 4, 5]),
                Rare::default(),
            )
            .unwrap();
        let rare = Rare {
            extra_files: vec!["x.index".into()].into(),
            external_path: Some("s3://b/data-b.parquet".into()),
        };
        let fb = files
            .push_file(b, &fields("data-b.parquet", &[], &[7]), rare.clone())
            .unwrap();
        let e = files.entry(EntryRow::new(FileKind::Delete, p, 3, fa, 7));
        assert_eq!(
            (e.kind(), e.bucket(), e.partition()),
            (FileKind::Delete, 3, &[0u8, 0, 0, 1, 9][..])
        );
        let f = e.file();
        assert_eq!(f.file_name(), "data-a.parquet");
        assert_eq!(
            (f.level(), files.file(fa).level()),
            (7, 1),
            "the entry's level"
        );
        // A level beyond 16 bits is the description's.
        let far = EntryRow::new(FileKind::Add, p, 3, fa, 1 << 20);
        assert!(!EntryRow::holds_level(1 << 20) && EntryRow::holds_level(-3));
        assert_eq!(files.entry(far).file().level(), 1);
        assert_eq!(
            (f.min_key(), f.max_key()),
            (&[1u8, 2][..], &[3u8, 4, 5][..])
        );
        assert_eq!(f.extra_files().len(), 0);
        assert_eq!(f.external_path(), None);
        let g = files.file(fb);
        assert_eq!(g.file_name(), "data-b.parquet");
        // The last record's keys end where the buffer does.
        assert_eq!((g.min_key(), g.max_key()), (&[][..], &[7u8][..]));
        assert_eq!(g.rare(), Some(&rare));
        assert_eq!(g.external_path(), Some("s3://b/data-b.parquet"));
        assert_eq!((g.file_size(), g.row_count(), g.level()), (10, 2, 1));
        assert_eq!(
            (
                g.min_sequence_number(),
                g.max_sequence_number(),
                g.file_source()
            ),
            (3, 4, Some(FileSource::Compact))
        );
        assert_ne!(files.file(fa), g);
    }

    #[test]
    fn views_compare_by_content_across_files() {
        let build = |extra: &str| {
            let mut files = DataFiles::new();
            files.push_name(extra).unwrap(); // shifts the indices
            let n = files.push_name("data-a.parquet").unwrap();
            let p = files.push_partition(&[1]).unwrap();
            let f = files
                .push_file(n, &fields("data-a.parquet", &[1], &[2]), Rare::default())
                .unwrap();
            (files, EntryRow::new(FileKind::Add, p, 0, f, 1))
        };
        let (one, a) = build("x");
        let (two, b) = build("longer name");
        assert_eq!(one.entry(a), two.entry(b));
        assert_ne!(
            one.entry(a),
            two.entry(EntryRow::new(FileKind::Delete, 0, 0, 0, 1))
        );
    }

    proptest::proptest! {
        /// The numbers of a description read back as they were written, whatever their sign
        /// and size, and its keys after them.
        #[test]
        fn numbers_and_keys_round_trip(
            size: i64, rows: i64, min_seq: i64, max_seq: i64,
            min in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            max in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let mut files = DataFiles::new();
            let n = files.push_name("f").unwrap();
            let f = FileFields {
                file_name: "f",
                file_size: size,
                row_count: rows,
                min_key: &min,
                max_key: &max,
                min_sequence_number: min_seq,
                max_sequence_number: max_seq,
                level: 2,
                file_source: None,
            };
            let id = files.push_file(n, &f, Rare::default()).unwrap();
            proptest::prop_assert_eq!(files.file(id).fields(), f);
        }
    }

    #[test]
    fn a_row_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<EntryRow>(), 16);
        assert_eq!(std::mem::size_of::<Record>(), 20);
    }
}
