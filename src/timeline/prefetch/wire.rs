//! Decoded files as bytes, to pass them between Web Workers.
//!
//! A page's workers share no memory (a `SharedArrayBuffer` needs response headers that a static
//! host does not send), so the page's helper worker sends what it decoded as one byte buffer,
//! transferred without a copy, and the analysis worker rebuilds the same values from it. The
//! format is private to one build of this crate (both workers run the same wasm): a magic, a
//! count, then each file's path, its read and decompression counts and its decoded content,
//! little-endian, lengths as `u32`. Every field of [`ManifestEntry`] travels, so a taken file is
//! equal to the one its helper decoded (tested on every fixture's manifests).
//!
//! [`read_batch`] checks every length against what is left before allocating, so a damaged
//! buffer is an error, never a panic or a huge allocation.

use crate::error::{Error, Result};
use crate::paimon::manifest::{DataFileMeta, FileKind, FileSource, ManifestEntry};
use crate::paimon::manifest_list::ManifestNames;

use super::{Decoded, Prefetched};

/// The first bytes of a batch (format version 1).
const MAGIC: &[u8; 8] = b"PRVWIRE1";

const LIST: u8 = 0;
/// The fewest bytes an entry takes: its fixed-size fields, the lengths of its byte strings and
/// lists, and one tag per optional field.
const MIN_ENTRY_BYTES: usize = 4 + 1 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8;
const MANIFEST: u8 = 1;

/// Writes decoded files one after the other into a batch; [`BatchWriter::finish`] gives the
/// bytes.
#[derive(Debug)]
pub struct BatchWriter {
    out: Vec<u8>,
    count: u32,
}

impl Default for BatchWriter {
    fn default() -> Self {
        BatchWriter::new()
    }
}

impl BatchWriter {
    /// An empty batch.
    pub fn new() -> BatchWriter {
        let mut out = Vec::with_capacity(1 << 16);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&0u32.to_le_bytes());
        BatchWriter { out, count: 0 }
    }

    /// Files written so far.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether none was written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds the file at `path`.
    pub fn push(&mut self, path: &str, file: &Prefetched) {
        let w = &mut self.out;
        put_str(w, path);
        put_u64(w, file.bytes_read);
        put_u64(w, file.bytes_decompressed);
        match &file.decoded {
            Decoded::List(names) => {
                w.push(LIST);
                put_len(w, names.len());
                for name in names.iter() {
                    put_str(w, name);
                }
            }
            Decoded::Manifest(entries) => {
                w.push(MANIFEST);
                put_len(w, entries.len());
                for e in entries {
                    put_entry(w, e);
                }
            }
        }
        self.count += 1;
    }

    /// The batch's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        let count = self.count.to_le_bytes();
        if let Some(slot) = self.out.get_mut(MAGIC.len()..MAGIC.len() + 4) {
            slot.copy_from_slice(&count);
        }
        self.out
    }
}

/// Reads a batch [`BatchWriter`] wrote: each file's path and decoded content, in order.
pub fn read_batch(bytes: &[u8]) -> Result<Vec<(String, Prefetched)>> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(MAGIC.len())? != MAGIC {
        return Err(Error::format(
            "not a batch of decoded files (wrong magic bytes)",
        ));
    }
    let count = r.u32()? as usize;
    let mut files = Vec::with_capacity(count.min(r.left()));
    for i in 0..count {
        let file = r
            .file()
            .map_err(|e| e.context(format!("decoded file {i} of {count}")))?;
        files.push(file);
    }
    if r.left() != 0 {
        return Err(Error::format(format!(
            "{} bytes after the last of {count} decoded files",
            r.left()
        )));
    }
    Ok(files)
}

fn put_len(w: &mut Vec<u8>, n: usize) {
    // A length beyond u32 cannot come from a file within the limits; saturate rather than wrap
    // (the reader then fails on the batch instead of misreading it).
    w.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_u64(w: &mut Vec<u8>, v: u64) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_i64(w: &mut Vec<u8>, v: i64) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_i32(w: &mut Vec<u8>, v: i32) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(w: &mut Vec<u8>, b: &[u8]) {
    put_len(w, b.len());
    w.extend_from_slice(b);
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    put_bytes(w, s.as_bytes());
}

fn put_strs(w: &mut Vec<u8>, v: &[String]) {
    put_len(w, v.len());
    for s in v {
        put_str(w, s);
    }
}

fn put_opt<T>(w: &mut Vec<u8>, v: &Option<T>, put: impl FnOnce(&mut Vec<u8>, &T)) {
    match v {
        None => w.push(0),
        Some(v) => {
            w.push(1);
            put(w, v);
        }
    }
}

fn put_entry(w: &mut Vec<u8>, e: &ManifestEntry) {
    put_i32(w, e.version);
    w.push(match e.kind {
        FileKind::Add => 0,
        FileKind::Delete => 1,
    });
    put_bytes(w, &e.partition);
    put_i32(w, e.bucket);
    put_i32(w, e.total_buckets);
    let f = &e.file;
    put_str(w, &f.file_name);
    put_i64(w, f.file_size);
    put_i64(w, f.row_count);
    put_bytes(w, &f.min_key);
    put_bytes(w, &f.max_key);
    put_i64(w, f.min_sequence_number);
    put_i64(w, f.max_sequence_number);
    put_i64(w, f.schema_id);
    put_i32(w, f.level);
    put_strs(w, &f.extra_files);
    put_opt(w, &f.creation_time_millis, |w, v| put_i64(w, *v));
    put_opt(w, &f.delete_row_count, |w, v| put_i64(w, *v));
    put_opt(w, &f.embedded_file_index, |w, v| put_bytes(w, v));
    put_opt(w, &f.file_source, |w, v| {
        w.push(match v {
            FileSource::Append => 0,
            FileSource::Compact => 1,
        })
    });
    put_opt(w, &f.value_stats_cols, |w, v| put_strs(w, v));
    put_opt(w, &f.external_path, |w, v| put_str(w, v));
    put_opt(w, &f.first_row_id, |w, v| put_i64(w, *v));
    put_opt(w, &f.write_cols, |w, v| put_strs(w, v));
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(Error::format(format!(
                "the batch ends early: {n} bytes expected at offset {}, {} left",
                self.at,
                self.left()
            )));
        };
        let out = self.bytes.get(self.at..end).unwrap_or_default();
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    /// A count of items that take at least `min_size` bytes each, checked against what is left.
    fn count(&mut self, min_size: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.left() {
            return Err(Error::format(format!(
                "{n} items announced at offset {}, but only {} bytes are left",
                self.at,
                self.left()
            )));
        }
        Ok(n)
    }

    fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    fn str(&mut self) -> Result<String> {
        let at = self.at;
        String::from_utf8(self.bytes()?)
            .map_err(|_| Error::format(format!("the text at offset {at} is not UTF-8")))
    }

    fn strs(&mut self) -> Result<Vec<String>> {
        let n = self.count(4)?;
        (0..n).map(|_| self.str()).collect()
    }

    fn opt<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T>) -> Result<Option<T>> {
        match self.u8()? {
            0 => Ok(None),
            1 => read(self).map(Some),
            other => Err(Error::format(format!(
                "option tag {other} at offset {} (0 or 1 expected)",
                self.at - 1
            ))),
        }
    }

    fn file(&mut self) -> Result<(String, Prefetched)> {
        let path = self.str()?;
        let bytes_read = self.u64()?;
        let bytes_decompressed = self.u64()?;
        let decoded = match self.u8()? {
            LIST => {
                let n = self.count(4)?;
                let mut names = ManifestNames::default();
                for _ in 0..n {
                    let name = self.str()?;
                    names.push(&name);
                }
                Decoded::List(names)
            }
            MANIFEST => {
                let n = self.count(MIN_ENTRY_BYTES)?;
                let mut entries = Vec::with_capacity(n);
                for i in 0..n {
                    let entry = self
                        .entry()
                        .map_err(|e| e.context(format!("entry {i} of {n}")))?;
                    entries.push(entry);
                }
                Decoded::Manifest(entries)
            }
            other => {
                return Err(Error::format(format!(
                    "content tag {other} (0 = manifest list, 1 = manifest expected)"
                ))
                .in_file(path))
            }
        };
        Ok((
            path,
            Prefetched {
                decoded,
                bytes_read,
                bytes_decompressed,
            },
        ))
    }

    fn entry(&mut self) -> Result<ManifestEntry> {
        let version = self.i32()?;
        let kind = FileKind::from_value(i64::from(self.u8()?))?;
        let partition = self.bytes()?;
        let bucket = self.i32()?;
        let total_buckets = self.i32()?;
        let file = DataFileMeta {
            file_name: self.str()?,
            file_size: self.i64()?,
            row_count: self.i64()?,
            min_key: self.bytes()?,
            max_key: self.bytes()?,
            min_sequence_number: self.i64()?,
            max_sequence_number: self.i64()?,
            schema_id: self.i64()?,
            level: self.i32()?,
            extra_files: self.strs()?,
            creation_time_millis: self.opt(Self::i64)?,
            delete_row_count: self.opt(Self::i64)?,
            embedded_file_index: self.opt(Self::bytes)?,
            file_source: self.opt(|r| FileSource::from_value(i64::from(r.u8()?)))?,
            value_stats_cols: self.opt(Self::strs)?,
            external_path: self.opt(Self::str)?,
            first_row_id: self.opt(Self::i64)?,
            write_cols: self.opt(Self::strs)?,
        };
        Ok(ManifestEntry {
            version,
            kind,
            partition,
            bucket,
            total_buckets,
            file,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(i: i64) -> ManifestEntry {
        ManifestEntry {
            version: 2,
            kind: if i % 2 == 0 {
                FileKind::Add
            } else {
                FileKind::Delete
            },
            partition: vec![0, 0, 0, 1, i as u8],
            bucket: i as i32,
            total_buckets: -1,
            file: DataFileMeta {
                file_name: format!("data-{i}.parquet"),
                file_size: 1000 + i,
                row_count: i,
                min_key: vec![1, 2, 3],
                max_key: vec![],
                min_sequence_number: -i,
                max_sequence_number: i64::MAX,
                schema_id: 0,
                level: 5,
                extra_files: vec!["a".into(), "ü".into()],
                creation_time_millis: Some(i64::MIN),
                delete_row_count: None,
                embedded_file_index: Some(vec![9; 3]),
                file_source: (i % 3 != 0).then_some(if i % 3 == 1 {
                    FileSource::Append
                } else {
                    FileSource::Compact
                }),
                value_stats_cols: Some(vec![]),
                external_path: Some("s3://b/x".into()),
                first_row_id: None,
                write_cols: Some(vec!["k".into()]),
            },
        }
    }

    fn sample() -> Vec<u8> {
        let mut names = ManifestNames::default();
        names.push("manifest-a-0");
        names.push("manifest-b-1");
        let mut w = BatchWriter::new();
        w.push(
            "t/manifest/manifest-list-x-0",
            &Prefetched {
                decoded: Decoded::List(names),
                bytes_read: 7,
                bytes_decompressed: 0,
            },
        );
        w.push(
            "t/manifest/manifest-a-0",
            &Prefetched {
                decoded: Decoded::Manifest((0..4).map(entry).collect()),
                bytes_read: 1 << 40,
                bytes_decompressed: 12,
            },
        );
        w.finish()
    }

    #[test]
    fn every_field_comes_back() {
        let files = read_batch(&sample()).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].0, "t/manifest/manifest-list-x-0");
        assert_eq!(files[0].1.bytes_read, 7);
        let names = match &files[0].1.decoded {
            Decoded::List(n) => n.iter().collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(names, ["manifest-a-0", "manifest-b-1"]);
        assert_eq!(files[1].1.bytes_read, 1 << 40);
        assert_eq!(files[1].1.bytes_decompressed, 12);
        match &files[1].1.decoded {
            Decoded::Manifest(e) => assert_eq!(e, &(0..4).map(entry).collect::<Vec<_>>()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_batch_reads_as_no_files() {
        assert!(read_batch(&BatchWriter::new().finish()).unwrap().is_empty());
    }

    #[test]
    fn damage_is_an_error_naming_where() {
        let bytes = sample();
        let err = read_batch(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(err.to_string().contains("ends early"), "{err}");
        assert!(err.to_string().contains("decoded file 1 of 2"), "{err}");
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read_batch(&longer)
            .unwrap_err()
            .to_string()
            .contains("1 bytes after"));
        assert!(read_batch(b"PRVWIRE0\0\0\0\0")
            .unwrap_err()
            .to_string()
            .contains("magic"));
        // a huge count announced by a short buffer is refused before allocating
        let mut huge = BatchWriter::new().finish();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_batch(&huge).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any truncation or byte flip of a valid batch is read without panicking: either an
        /// error or (a flip inside a value) a batch of the same number of files.
        #[test]
        fn damaged_batches_never_panic(cut in 0usize..2000, at in 0usize..2000, xor in 1u8..=255) {
            let mut bytes = sample();
            let at = at % bytes.len();
            bytes[at] ^= xor;
            let _ = read_batch(&bytes);
            let cut = cut % bytes.len();
            prop_assert!(read_batch(&sample()[..cut]).is_err());
        }

        /// Arbitrary bytes after the magic never panic.
        #[test]
        fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&tail);
            let _ = read_batch(&bytes);
        }
    }
}
