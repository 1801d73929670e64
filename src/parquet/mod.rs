//! A small pure-Rust Parquet reader: enough to read the rows of Paimon data and changelog files
//! and Ray Data checkpoint files for row-level evidence.
//!
//! ```no_run
//! # use prv::parquet::{ParquetFile, ArtifactFile};
//! # fn f(artifact: &prv::source::Artifact, entry: prv::source::FileEntry<'_>) -> prv::Result<()> {
//! let file = ParquetFile::open(ArtifactFile::new(artifact, entry), artifact.limits())?;
//! let batch = file.read_columns(&["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND"], artifact.limits())?;
//! let keys = batch.column("_KEY_id").map(|c| &c.values);
//! # Ok(()) }
//! ```
//!
//! * Bytes come from a [`ParquetSource`]: an in-memory slice, or an artifact entry read with
//!   ranged reads ([`ArtifactFile`]): the footer from the end of the file, then only the column
//!   chunks asked for (neighbouring chunks read together). Files up to
//!   [`WHOLE_FILE_BYTES`] are read in one go, which is cheaper for deflated zip entries.
//! * Footer ([`ParquetFile::open`]): schema, row groups, column chunks, key-value metadata,
//!   row count. Encrypted files are refused.
//! * Columns ([`ParquetFile::read_columns`]): flat columns, and columns inside optional or
//!   required groups (`a.b`); repeated columns (lists, maps) are listed but reading them is an
//!   `unsupported` error.
//! * Encodings: PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY, RLE (levels, booleans), BIT_PACKED
//!   (levels), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//!   BYTE_STREAM_SPLIT; data pages v1 and v2; page CRCs are checked when present.
//! * Codecs: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, LZ4 (Hadoop framing or raw block);
//!   BROTLI and LZO are `unsupported` errors.
//! * Values: [`Value`], typed by physical type, with the column's [`LogicalType`] alongside;
//!   [`Value::render`] formats decimals, dates, times and timestamps for reports.
//!
//! Limits ([`Limits::max_entry_bytes`]): every read from the source, every decompressed page,
//! the footer, and the memory taken by the values of one [`ParquetFile::read_columns`] call.
//! Hostile input gives errors, never panics, hangs or unbounded allocation. Errors carry the
//! place (`row group 0: column v: page 3: …`); the caller adds the file.

mod codec;
mod encoding;
mod metadata;
mod page;
mod thrift;
mod value;

#[cfg(test)]
pub(crate) mod tests;

use std::borrow::Cow;

use crate::error::{Error, Result, ResultExt};
use crate::limits::Limits;
use crate::source::{Artifact, FileEntry};

pub use metadata::{ColumnInfo, LogicalType, PhysicalType, TimeUnit};
pub use value::Value;

use crate::limits::ReadBudget;
use metadata::FileMeta;
use page::ChunkDecoder;

/// Files up to this size are read whole by [`ParquetFile::open`] (one read instead of one per
/// column chunk, which matters for deflated zip entries); larger files are read by range.
pub const WHOLE_FILE_BYTES: u64 = 8 << 20;

/// How the reader batches its reads (fixed in production; tests shrink it to exercise the
/// ranged paths on small files).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tuning {
    /// Files up to this size are read whole.
    pub(crate) whole_file: u64,
    /// Bytes read from the end of a large file to find the footer in one read.
    pub(crate) tail: u64,
    /// Column chunks closer than this are fetched in one read.
    pub(crate) merge_gap: u64,
    /// A read merging several column chunks stays below this (and `max-entry-bytes`).
    pub(crate) merge_max: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            whole_file: WHOLE_FILE_BYTES,
            tail: 64 << 10,
            merge_gap: 1 << 20,
            merge_max: 64 << 20,
        }
    }
}

const MAGIC: &[u8; 4] = b"PAR1";
const MAGIC_ENCRYPTED: &[u8; 4] = b"PARE";

/// Where a Parquet file's bytes come from.
pub trait ParquetSource {
    /// The file's size in bytes.
    fn size(&self) -> u64;
    /// Bytes `offset..offset + len` (an error if they are not all there).
    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>>;
    /// All the bytes, when they are already in memory (then no read copies anything).
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl ParquetSource for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        slice_at(self, offset, len).map(<[u8]>::to_vec)
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl ParquetSource for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.as_slice().read_at(offset, len)
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl<T: ParquetSource + ?Sized> ParquetSource for &T {
    fn size(&self) -> u64 {
        (**self).size()
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        (**self).read_at(offset, len)
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        (**self).as_bytes()
    }
}

/// A file of an [`Artifact`], read with [`Artifact::read_range`] (which applies the artifact's
/// limits and counts the bytes in its statistics).
#[derive(Clone, Copy)]
pub struct ArtifactFile<'a> {
    artifact: &'a Artifact,
    entry: FileEntry<'a>,
}

impl<'a> ArtifactFile<'a> {
    /// The file `entry` of `artifact`.
    pub fn new(artifact: &'a Artifact, entry: FileEntry<'a>) -> Self {
        ArtifactFile { artifact, entry }
    }
}

impl ParquetSource for ArtifactFile<'_> {
    fn size(&self) -> u64 {
        self.entry.size()
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let bytes = self.artifact.read_range(self.entry, offset, len)?;
        if bytes.len() as u64 != len {
            return Err(Error::io(format!(
                "a read of {len} bytes at {offset} returned {}",
                bytes.len()
            ))
            .in_file(self.entry.path()));
        }
        Ok(bytes)
    }
}

/// A data file's source, held with the whole file when it was small enough to read at once:
/// the one home of "borrow the bytes when they are in memory, read the range otherwise" for
/// every columnar reader (Parquet here, ORC in [`crate::orc`]).
pub(crate) struct Held<S> {
    source: S,
    whole: Option<Vec<u8>>,
}

impl<S: ParquetSource> Held<S> {
    /// Holds `source`, reading it whole when it is not in memory already and is at most
    /// `whole_up_to` bytes.
    pub(crate) fn new(source: S, whole_up_to: u64) -> Result<Held<S>> {
        let size = source.size();
        let whole = if source.as_bytes().is_none() && size <= whole_up_to {
            Some(source.read_at(0, size)?)
        } else {
            None
        };
        Ok(Held { source, whole })
    }

    /// Whether every byte is in memory (then [`Held::bytes`] never reads).
    pub(crate) fn in_memory(&self) -> bool {
        self.source.as_bytes().is_some() || self.whole.is_some()
    }

    /// Bytes `offset..offset + len`: borrowed when the file is in memory, read otherwise.
    pub(crate) fn bytes(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>> {
        if let Some(all) = self.source.as_bytes().or(self.whole.as_deref()) {
            return slice_at(all, offset, len).map(Cow::Borrowed);
        }
        self.source.read_at(offset, len).map(Cow::Owned)
    }
}

/// `bytes[offset..offset + len]`, or a `format` error naming the range and the file's size.
pub(crate) fn slice_at(bytes: &[u8], offset: u64, len: u64) -> Result<&[u8]> {
    usize::try_from(offset)
        .ok()
        .zip(usize::try_from(len).ok())
        .and_then(|(o, l)| bytes.get(o..o.checked_add(l)?))
        .ok_or_else(|| {
            Error::format(format!(
                "bytes {offset}..{} lie outside the file's {} bytes",
                offset.saturating_add(len),
                bytes.len()
            ))
        })
}

/// An open Parquet file: its footer decoded, ready to read columns.
pub struct ParquetFile<S> {
    source: Held<S>,
    size: u64,
    /// Where the footer starts: column chunks must end before.
    footer_start: u64,
    meta: FileMeta,
    tuning: Tuning,
}

impl<S> std::fmt::Debug for ParquetFile<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFile")
            .field("size", &self.size)
            .field("num_rows", &self.meta.num_rows)
            .field("row_groups", &self.meta.row_groups.len())
            .field("columns", &self.meta.columns)
            .finish_non_exhaustive()
    }
}

impl<S: ParquetSource> ParquetFile<S> {
    /// Reads and checks the magic numbers and decodes the footer.
    ///
    /// Errors: `format` for a file that is not Parquet or whose footer is damaged,
    /// `unsupported` for an encrypted footer, `limit` (`max-entry-bytes`) for a footer larger
    /// than the limit.
    pub fn open(source: S, limits: &Limits) -> Result<ParquetFile<S>> {
        Self::open_tuned(source, limits, Tuning::default())
    }

    pub(crate) fn open_tuned(source: S, limits: &Limits, tuning: Tuning) -> Result<ParquetFile<S>> {
        let size = source.size();
        if size < 12 {
            return Err(Error::format(format!(
                "expected a Parquet file (at least 12 bytes), found {size} bytes"
            )));
        }
        let mut file = ParquetFile {
            source: Held::new(source, tuning.whole_file.min(limits.max_entry_bytes))?,
            size,
            footer_start: 0,
            meta: FileMeta::default(),
            tuning,
        };
        let tail_len = size.min(tuning.tail.max(8));
        let tail = file.source.bytes(size - tail_len, tail_len)?;
        let end = tail.len();
        let trailer = tail
            .get(end.saturating_sub(8)..)
            .ok_or_else(|| Error::format("the file is too short for a Parquet trailer"))?;
        let (len_bytes, magic) = trailer.split_at(4);
        if magic == MAGIC_ENCRYPTED {
            return Err(Error::unsupported(
                "the file has an encrypted footer (Parquet modular encryption)",
            ));
        }
        if magic != MAGIC {
            return Err(Error::format(format!(
                "expected the Parquet magic PAR1 at the end of the file, found {magic:02x?}"
            )));
        }
        let footer_len = u64::from(u32::from_le_bytes([
            len_bytes.first().copied().unwrap_or(0),
            len_bytes.get(1).copied().unwrap_or(0),
            len_bytes.get(2).copied().unwrap_or(0),
            len_bytes.get(3).copied().unwrap_or(0),
        ]));
        if footer_len + 12 > size {
            return Err(Error::format(format!(
                "the footer claims {footer_len} bytes, the file has {size}"
            )));
        }
        if footer_len > limits.max_entry_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!("the footer is {footer_len} bytes"),
            ));
        }
        let footer_start = size - 8 - footer_len;
        let footer: Cow<'_, [u8]> = if footer_len + 8 <= tail_len {
            let from = (tail_len - 8 - footer_len) as usize;
            Cow::Owned(tail.get(from..end - 8).unwrap_or(&[]).to_vec())
        } else {
            Cow::Owned(file.source.bytes(footer_start, footer_len)?.into_owned())
        };
        let head = file.source.bytes(0, 4)?;
        if head.as_ref() != MAGIC {
            return Err(Error::format(
                "expected the Parquet magic PAR1 at the start of the file",
            ));
        }
        drop(head);
        drop(tail);
        let meta = metadata::parse_file_metadata(&footer).context(|| "footer".into())?;
        file.footer_start = footer_start;
        file.meta = meta;
        Ok(file)
    }

    /// Rows in the file (the footer's count).
    pub fn num_rows(&self) -> u64 {
        self.meta.num_rows as u64
    }

    /// Number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.meta.row_groups.len()
    }

    /// The leaf columns, in schema order.
    pub fn columns(&self) -> &[ColumnInfo] {
        &self.meta.columns
    }

    /// The column called `name` (see [`ColumnInfo::name`]).
    pub fn column(&self, name: &str) -> Option<&ColumnInfo> {
        self.meta.columns.iter().find(|c| c.name == name)
    }

    /// The footer's key-value metadata (e.g. `ARROW:schema`, `paimon…`), in file order.
    pub fn key_value_metadata(&self) -> &[(String, Option<String>)] {
        &self.meta.key_value
    }

    /// The writer, as the footer names it (`parquet-mr version 1.13.1 …`).
    pub fn created_by(&self) -> Option<&str> {
        self.meta.created_by.as_deref()
    }

    /// Reads the named columns over all row groups, reading only their column chunks.
    ///
    /// Errors: `missing` for an unknown column name, `unsupported` for a repeated column, an
    /// unsupported codec or encoding, or a column chunk stored in another file; `limit`
    /// (`max-entry-bytes`) when a read, a page, or the values would exceed it; `format` for
    /// damaged data, with the row group, column and page in the context.
    pub fn read_columns(&self, names: &[&str], limits: &Limits) -> Result<RowBatch> {
        self.read_columns_head(names, limits, u64::MAX)
    }

    /// The first `max_rows` rows of the named columns (all of them when the file has fewer),
    /// decoding no page past the one that holds the last of them: row groups after it are not
    /// read, and memory follows `max_rows`, not the file. Errors as [`Self::read_columns`], for
    /// what is read.
    pub fn read_columns_head(
        &self,
        names: &[&str],
        limits: &Limits,
        max_rows: u64,
    ) -> Result<RowBatch> {
        let mut selected = Vec::with_capacity(names.len());
        for &name in names {
            let idx = self
                .meta
                .columns
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| {
                    let known: Vec<&str> =
                        self.meta.columns.iter().map(|c| c.name.as_str()).collect();
                    Error::missing(format!(
                        "no column {name:?} (columns: {})",
                        known.join(", ")
                    ))
                })?;
            let col = self
                .meta
                .columns
                .get(idx)
                .ok_or_else(|| Error::missing(name))?;
            if !col.is_readable() {
                return Err(Error::unsupported(format!(
                    "column {name} is repeated (a list or map); reading it is not supported"
                )));
            }
            selected.push(idx);
        }
        let total_rows = self
            .meta
            .row_groups
            .iter()
            .try_fold(0u64, |acc, rg| acc.checked_add(rg.num_rows as u64))
            .ok_or_else(|| Error::format("the row counts overflow"))?;
        let total_rows = total_rows.min(max_rows);
        let mut budget = ReadBudget::new(limits.max_entry_bytes);
        budget.charge(
            total_rows
                .saturating_mul(selected.len() as u64)
                .saturating_mul(std::mem::size_of::<Value>() as u64),
        )?;
        let total = usize::try_from(total_rows)
            .map_err(|_| Error::limit("max-entry-bytes", "too many rows for this platform"))?;
        let mut columns: Vec<ColumnData> = selected
            .iter()
            .filter_map(|&i| self.meta.columns.get(i))
            .map(|info| ColumnData {
                info: info.clone(),
                // Grown as pages prove their values, not reserved for what the footer claims.
                values: Vec::with_capacity(total.min(1 << 16)),
            })
            .collect();

        // Plan: the byte range of every chunk to read, in (row group, column) order.
        let mut plan = Vec::with_capacity(self.meta.row_groups.len() * selected.len());
        let mut rows_before = 0u64; // rows of the row groups before this one
        for (g, rg) in self.meta.row_groups.iter().enumerate() {
            if rows_before >= total_rows {
                break; // every row asked for lies in the row groups before
            }
            let want = total_rows - rows_before;
            rows_before = rows_before.saturating_add(rg.num_rows as u64);
            if rg.num_rows == 0 {
                continue; // nothing to read (writers leave such chunks' offsets at 0)
            }
            for (k, &i) in selected.iter().enumerate() {
                let col = self
                    .meta
                    .columns
                    .get(i)
                    .ok_or_else(|| Error::missing("column"))?;
                let chunk = rg
                    .columns
                    .get(i)
                    .ok_or_else(|| Error::missing("column chunk"))?;
                let range = self
                    .chunk_range(chunk, limits)
                    .context(|| format!("column {}", col.name))
                    .context(|| format!("row group {g}"))?;
                plan.push((g, k, i, range, want));
            }
        }
        let in_memory = self.source.in_memory();
        let groups = if in_memory {
            Vec::new()
        } else {
            merge_ranges(
                plan.iter().map(|p| p.3),
                self.tuning.merge_gap,
                self.tuning.merge_max.min(limits.max_entry_bytes),
            )
        };

        let mut decoder = ChunkDecoder::new();
        let mut current: Option<(usize, Vec<u8>)> = None;
        for (g, k, i, (start, end), want) in plan {
            let rg = self
                .meta
                .row_groups
                .get(g)
                .ok_or_else(|| Error::missing("row group"))?;
            let chunk = rg
                .columns
                .get(i)
                .ok_or_else(|| Error::missing("column chunk"))?;
            let out = columns.get_mut(k).ok_or_else(|| Error::missing("column"))?;
            let ctx_col = out.info.name.clone();
            let bytes: Cow<'_, [u8]> = if in_memory {
                self.source.bytes(start, end - start)?
            } else {
                let gi = groups
                    .iter()
                    .position(|&(s, e)| s <= start && end <= e)
                    .ok_or_else(|| Error::missing("internal: read plan"))?;
                let (gs, ge) = groups.get(gi).copied().unwrap_or((start, end));
                if current.as_ref().map(|c| c.0) != Some(gi) {
                    drop(current.take()); // free the previous read first
                    current = Some((gi, self.source.bytes(gs, ge - gs)?.into_owned()));
                }
                let buf = current.as_ref().map(|c| c.1.as_slice()).unwrap_or(&[]);
                Cow::Borrowed(slice_at(buf, start - gs, end - start)?)
            };
            decoder
                .read_chunk(
                    &bytes,
                    &out.info,
                    chunk,
                    (
                        usize::try_from(rg.num_rows).unwrap_or(usize::MAX),
                        usize::try_from(want).unwrap_or(usize::MAX),
                    ),
                    limits.max_entry_bytes,
                    limits.max_ratio,
                    &mut budget,
                    &mut out.values,
                )
                .context(|| format!("column {ctx_col}"))
                .context(|| format!("row group {g}"))?;
        }
        for c in &mut columns {
            c.values.truncate(total); // the last page read may hold more than asked for
        }
        Ok(RowBatch {
            num_rows: total,
            columns,
        })
    }

    /// The checked byte range of a column chunk.
    fn chunk_range(&self, chunk: &metadata::ChunkMeta, limits: &Limits) -> Result<(u64, u64)> {
        if chunk.encrypted {
            return Err(Error::unsupported("the column chunk is encrypted"));
        }
        if let Some(path) = &chunk.file_path {
            return Err(Error::unsupported(format!(
                "the column chunk is stored in another file ({path})"
            )));
        }
        if !chunk.has_meta {
            return Err(Error::format("the column chunk has no metadata"));
        }
        let (start, end) = chunk.range()?;
        if start < 4 || end > self.footer_start {
            return Err(Error::format(format!(
                "the column chunk at bytes {start}..{end} lies outside the data of a {}-byte file",
                self.size
            )));
        }
        if end - start > limits.max_entry_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!("the column chunk is {} bytes", end - start),
            ));
        }
        Ok((start, end))
    }
}

/// Merges byte ranges that are close into reads of at most `max` bytes (a single range larger
/// than `max` stays on its own).
fn merge_ranges(ranges: impl Iterator<Item = (u64, u64)>, gap: u64, max: u64) -> Vec<(u64, u64)> {
    let mut sorted: Vec<(u64, u64)> = ranges.collect();
    sorted.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in sorted {
        if let Some(last) = out.last_mut() {
            let merged_end = last.1.max(e);
            if s <= last.1.saturating_add(gap) && merged_end - last.0 <= max {
                last.1 = merged_end;
                continue;
            }
        }
        out.push((s, e));
    }
    out
}

/// The values of some columns over all row groups.
#[derive(Debug, Clone, PartialEq)]
pub struct RowBatch {
    /// Rows (every column has this many values).
    pub num_rows: usize,
    /// The columns, in the order asked for.
    pub columns: Vec<ColumnData>,
}

impl RowBatch {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&ColumnData> {
        self.columns.iter().find(|c| c.info.name == name)
    }

    /// The value at `row` of the `column`-th column.
    pub fn value(&self, column: usize, row: usize) -> Option<&Value> {
        self.columns.get(column)?.values.get(row)
    }
}

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnData {
    /// The column.
    pub info: ColumnInfo,
    /// One value per row (`Value::Null` for nulls).
    pub values: Vec<Value>,
}

impl ColumnData {
    /// The value at `row` rendered for a report (see [`Value::render`]).
    pub fn render(&self, row: usize) -> Option<String> {
        self.values
            .get(row)
            .map(|v| v.render(self.info.logical.as_ref()))
    }
}
