//! A small pure-Rust ORC reader: enough to read the rows of Paimon data and changelog files
//! written with `file.format=orc` (or `changelog-file.format=orc`, `file.format.per.level`):
//! their layout and the ORC types Paimon writes are in `paimon-format.md §3.9`; why this is a
//! reader of the core's own and not a crate is in `docs/DEPENDENCIES.md`.
//!
//! ```no_run
//! # use prv::orc::OrcFile;
//! # use prv::parquet::ArtifactFile;
//! # fn f(artifact: &prv::source::Artifact, entry: prv::source::FileEntry<'_>) -> prv::Result<()> {
//! let file = OrcFile::open(ArtifactFile::new(artifact, entry), artifact.limits())?;
//! let columns = file.read_columns(&["_KEY_id", "_SEQUENCE_NUMBER"], artifact.limits())?;
//! # Ok(()) }
//! ```
//!
//! * Bytes come from a [`ParquetSource`] (the core's random-access byte trait, despite its
//!   name): a file up to [`WHOLE_FILE_BYTES`] is read whole, a larger one by range (tail, then
//!   each stripe footer and each stream asked for).
//! * Tail ([`OrcFile::open`]): the PostScript, the file Footer (stripes, types, row count);
//!   [`meta`] decodes them with a hand-written protobuf reader ([`proto`]).
//! * Columns ([`OrcFile::read_columns`]): the top-level fields of the root struct, of the types
//!   Paimon writes for keys and values: BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, STRING,
//!   VARCHAR, CHAR, BINARY, DATE, DECIMAL, TIMESTAMP, TIMESTAMP_INSTANT; nulls (PRESENT
//!   streams); DIRECT and DICTIONARY encodings, integer RLE versions 1 and 2 ([`rle`]).
//!   Compound fields (LIST, MAP, STRUCT, UNION) are listed but not readable.
//! * Compression ([`compress`]): NONE, ZLIB, SNAPPY, LZ4, ZSTD; LZO is `unsupported`.
//! * Values: the Parquet reader's [`Value`] and [`LogicalType`], chosen so that a key reads the
//!   same from an ORC file as from the Parquet file Paimon would write for the same table
//!   (integers as `Int`, decimals of precision ≤ 18 as their unscaled `Int`, wider ones as the
//!   big-endian bytes of Paimon's Parquet width, text as `Str`).
//!
//! Limits ([`Limits::max_entry_bytes`], [`Limits::max_ratio`]): every read from the source,
//! every inflated stream and footer (bytes and ratio), and the memory taken by the values of
//! one [`OrcFile::read_columns`] call. Hostile
//! input gives errors, never panics or unbounded allocation. Errors carry the place
//! (`stripe 0: column v (STRING): stream LENGTH: …`); the caller adds the file.

mod column;
mod compress;
mod meta;
mod proto;
mod rle;
#[cfg(test)]
mod rle_props;
mod zone;

use crate::error::{Error, Result, ResultExt};
use crate::limits::Limits;
use crate::limits::ReadBudget;
use crate::parquet::{slice_at, Held, LogicalType, ParquetSource, TimeUnit, Value};

pub use meta::{Compression, Kind};

use compress::Decompressor;
use meta::{Footer, PostScript, StreamKind};

/// Files up to this size are read whole by [`OrcFile::open`].
pub const WHOLE_FILE_BYTES: u64 = 8 << 20;

/// Bytes read from the end of a large file to find the PostScript and footer in one read.
const TAIL_BYTES: u64 = 64 << 10;

/// The magic at the start of every ORC file (and in the PostScript).
pub const MAGIC: &[u8; 3] = b"ORC";

/// One top-level column of the file (a field of the root struct).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrcColumn {
    /// The field name.
    pub name: String,
    /// The column id (its index in the footer's type list).
    pub id: usize,
    /// The ORC type.
    pub kind: Kind,
    /// What the values mean (as for Parquet columns).
    pub logical: Option<LogicalType>,
    /// DECIMAL precision and scale.
    pub precision: u32,
    /// DECIMAL scale.
    pub scale: u32,
}

impl OrcColumn {
    /// Whether [`OrcFile::read_columns`] can read this column (not a compound type).
    pub fn is_readable(&self) -> bool {
        !self.kind.is_compound()
    }
}

/// An open ORC file: its tail decoded, ready to read columns.
pub struct OrcFile<S> {
    source: Held<S>,
    size: u64,
    postscript: PostScript,
    footer: Footer,
    columns: Vec<OrcColumn>,
}

impl<S> std::fmt::Debug for OrcFile<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrcFile")
            .field("size", &self.size)
            .field("rows", &self.footer.rows)
            .field("stripes", &self.footer.stripes.len())
            .field("compression", &self.postscript.compression)
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

impl<S: ParquetSource> OrcFile<S> {
    /// Reads the tail: PostScript, footer, types.
    ///
    /// Errors: `format` for a file that is not ORC or whose tail is damaged, `unsupported` for
    /// LZO or encrypted files, `limit` (`max-entry-bytes`) for a footer larger than the limit.
    pub fn open(source: S, limits: &Limits) -> Result<OrcFile<S>> {
        let size = source.size();
        if size < 4 {
            return Err(Error::format(format!(
                "expected an ORC file (at least 4 bytes), found {size} bytes"
            )));
        }
        let mut file = OrcFile {
            source: Held::new(source, WHOLE_FILE_BYTES.min(limits.max_entry_bytes))?,
            size,
            postscript: PostScript {
                footer_length: 0,
                compression: Compression::None,
                block_size: 0,
                metadata_length: 0,
            },
            footer: Footer::default(),
            columns: Vec::new(),
        };
        let head = file.source.bytes(0, 3)?;
        if head.as_ref() != MAGIC {
            return Err(Error::format(format!(
                "expected the ORC magic \"ORC\" at the start of the file, found {:02x?}",
                head.as_ref()
            )));
        }
        drop(head);
        let tail_len = size.min(TAIL_BYTES);
        let tail_start = size - tail_len;
        let tail = file.source.bytes(tail_start, tail_len)?;
        let ps_len = u64::from(tail.last().copied().unwrap_or(0));
        if ps_len == 0 || ps_len + 1 + 3 > size {
            return Err(Error::format(format!(
                "the PostScript length byte is {ps_len} in a {size}-byte file"
            )));
        }
        let ps_start = size - 1 - ps_len;
        let ps_bytes = slice_at(&tail, ps_start - tail_start, ps_len)?;
        let ps = meta::parse_postscript(ps_bytes).context(|| "PostScript".into())?;
        let footer_len = ps.footer_length;
        if footer_len > limits.max_entry_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!("the footer is {footer_len} bytes"),
            ));
        }
        footer_len
            .checked_add(ps.metadata_length)
            .and_then(|t| t.checked_add(ps_len + 1 + 3))
            .filter(|&t| t <= size)
            .ok_or_else(|| {
                Error::format(format!(
                    "the PostScript declares a {footer_len}-byte footer and {}-byte metadata \
                     in a {size}-byte file",
                    ps.metadata_length
                ))
            })?;
        let footer_start = ps_start - footer_len;
        let raw_footer: Vec<u8> = if footer_start >= tail_start {
            slice_at(&tail, footer_start - tail_start, footer_len)?.to_vec()
        } else {
            file.source.bytes(footer_start, footer_len)?.into_owned()
        };
        drop(tail);
        let mut dec = Decompressor::new(ps.compression, ps.block_size, limits.max_entry_bytes)
            .context(|| "PostScript".into())?;
        let footer_bytes = dec
            .decompress(&raw_footer, limits)
            .context(|| "footer".into())?;
        let footer = meta::parse_footer(&footer_bytes).context(|| "footer".into())?;
        let data_end = footer_start - ps.metadata_length;
        let mut rows = 0u64;
        for (i, s) in footer.stripes.iter().enumerate() {
            let end = s
                .offset
                .checked_add(s.index_length)
                .and_then(|e| e.checked_add(s.data_length))
                .and_then(|e| e.checked_add(s.footer_length));
            if s.offset < 3 || end.is_none_or(|e| e > data_end) {
                return Err(Error::format(format!(
                    "stripe {i} at byte {} ({} + {} + {} bytes) lies outside the data of a \
                     {size}-byte file",
                    s.offset, s.index_length, s.data_length, s.footer_length
                )));
            }
            rows = rows
                .checked_add(s.rows)
                .ok_or_else(|| Error::format("the stripes' row counts overflow"))?;
        }
        if rows != footer.rows {
            return Err(Error::format(format!(
                "the stripes hold {rows} rows, the footer says {}",
                footer.rows
            )));
        }
        file.columns = top_level_columns(&footer).context(|| "footer: types".into())?;
        file.postscript = ps;
        file.footer = footer;
        Ok(file)
    }

    /// Rows in the file.
    pub fn num_rows(&self) -> u64 {
        self.footer.rows
    }

    /// Stripes in the file.
    pub fn num_stripes(&self) -> usize {
        self.footer.stripes.len()
    }

    /// The file's compression.
    pub fn compression(&self) -> Compression {
        self.postscript.compression
    }

    /// The top-level columns, in schema order.
    pub fn columns(&self) -> &[OrcColumn] {
        &self.columns
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&OrcColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Reads the named columns over all stripes: one `Vec` of values per name, one value per
    /// row (`Value::Null` for nulls).
    ///
    /// Errors: `missing` for an unknown column, `unsupported` for a compound column, LZO, or
    /// TIMESTAMP values whose writer time zone this reader cannot undo (an unknown zone, or
    /// before 1900: see `zone.rs`); `limit` (`max-entry-bytes`) when a read, a stream or the
    /// values would exceed it; `format` for damaged data, with the stripe, column and stream in
    /// the context.
    pub fn read_columns(&self, names: &[&str], limits: &Limits) -> Result<Vec<Vec<Value>>> {
        self.read_columns_as(names, limits, LtzLayout::Legacy)
    }

    /// [`OrcFile::read_columns`], TIMESTAMP_INSTANT columns read in the layout `ltz`.
    pub fn read_columns_as(
        &self,
        names: &[&str],
        limits: &Limits,
        ltz: LtzLayout,
    ) -> Result<Vec<Vec<Value>>> {
        let mut selected = Vec::with_capacity(names.len());
        for &name in names {
            let col = self.column(name).ok_or_else(|| {
                let known: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
                Error::missing(format!(
                    "no column {name:?} (columns: {})",
                    known.join(", ")
                ))
            })?;
            if !col.is_readable() {
                return Err(Error::unsupported(format!(
                    "column {name} is a {}; reading it is not supported",
                    col.kind.as_str()
                )));
            }
            selected.push(col);
        }
        let mut budget = ReadBudget::new(limits.max_entry_bytes);
        budget.charge(
            self.footer
                .rows
                .saturating_mul(selected.len() as u64)
                .saturating_mul(std::mem::size_of::<Value>() as u64),
        )?;
        let mut out: Vec<Vec<Value>> = selected
            .iter()
            .map(|_| {
                Vec::with_capacity(usize::try_from(self.footer.rows).unwrap_or(0).min(1 << 16))
            })
            .collect();
        let mut dec = Decompressor::new(
            self.postscript.compression,
            self.postscript.block_size,
            limits.max_entry_bytes,
        )?;
        for (si, stripe) in self.footer.stripes.iter().enumerate() {
            if stripe.rows == 0 {
                continue;
            }
            let mut stripe = StripeRead {
                selected: &selected,
                dec: &mut dec,
                budget: &mut budget,
                limits,
                ltz,
            };
            self.read_stripe(si, &mut stripe, &mut out)
                .context(|| format!("stripe {si}"))?;
        }
        Ok(out)
    }

    fn read_stripe(&self, si: usize, r: &mut StripeRead<'_>, out: &mut [Vec<Value>]) -> Result<()> {
        let limits = r.limits;
        let stripe = self
            .footer
            .stripes
            .get(si)
            .ok_or_else(|| Error::missing("stripe"))?;
        let rows = usize::try_from(stripe.rows)
            .map_err(|_| Error::limit("max-entry-bytes", "too many rows for this platform"))?;
        let data_start = stripe.offset;
        let footer_at = stripe.offset + stripe.index_length + stripe.data_length;
        if stripe.footer_length > limits.max_entry_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!("the stripe footer is {} bytes", stripe.footer_length),
            ));
        }
        let raw = self.source.bytes(footer_at, stripe.footer_length)?;
        let sf_bytes = r
            .dec
            .decompress(&raw, limits)
            .context(|| "stripe footer".into())?;
        drop(raw);
        let sf =
            meta::parse_stripe_footer(&sf_bytes, data_start).context(|| "stripe footer".into())?;
        for (k, col) in r.selected.iter().enumerate() {
            let ctx = || format!("column {} ({})", col.name, col.kind.as_str());
            let (encoding, dict_size) = sf
                .encodings
                .get(col.id)
                .copied()
                .ok_or_else(|| Error::format("the stripe footer has no encoding for the column"))
                .context(ctx)?;
            let mut streams = column::Streams::default();
            for s in sf.streams.iter().filter(|s| s.column == col.id as u64) {
                let slot = match s.kind {
                    StreamKind::Present => &mut streams.present,
                    StreamKind::Data => &mut streams.data,
                    StreamKind::Length => &mut streams.length,
                    StreamKind::DictionaryData => &mut streams.dictionary,
                    StreamKind::Secondary => &mut streams.secondary,
                    StreamKind::Other(_) => continue,
                };
                if s.offset < data_start || s.offset.saturating_add(s.length) > footer_at {
                    return Err(Error::format(format!(
                        "stream {} at bytes {}..{} lies outside its stripe",
                        s.kind.as_str(),
                        s.offset,
                        s.offset.saturating_add(s.length)
                    )))
                    .context(ctx);
                }
                if s.length > limits.max_entry_bytes {
                    return Err(Error::limit(
                        "max-entry-bytes",
                        format!("stream {} is {} bytes", s.kind.as_str(), s.length),
                    ))
                    .context(ctx);
                }
                let raw = self.source.bytes(s.offset, s.length)?;
                let bytes = r
                    .dec
                    .decompress(&raw, limits)
                    .context(|| format!("stream {}", s.kind.as_str()))
                    .context(ctx)?;
                *slot = Some(bytes);
            }
            let target = out.get_mut(k).ok_or_else(|| Error::missing("column"))?;
            let spec = column::Spec {
                column: col,
                encoding,
                dict_size,
                rows,
                timezone: sf.writer_timezone.as_deref(),
                ltz: r.ltz,
            };
            column::decode(&spec, &streams, r.budget, target).context(ctx)?;
        }
        Ok(())
    }
}

/// How TIMESTAMP_INSTANT columns (Paimon's TIMESTAMP_LTZ) hold their values
/// (`docs/paimon-format.md`, "ORC timestamps").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LtzLayout {
    /// Paimon's default (`orc.timestamp-ltz.legacy.type` = true, and every release before the
    /// option): the value's epoch taken as a wall clock in the writer JVM's zone, stored as
    /// that zone's instant.
    Legacy,
    /// The instant itself (`orc.timestamp-ltz.legacy.type` = false).
    Instant,
}

/// What reading one stripe needs besides the stripe.
struct StripeRead<'r> {
    selected: &'r [&'r OrcColumn],
    dec: &'r mut Decompressor,
    budget: &'r mut ReadBudget,
    limits: &'r Limits,
    ltz: LtzLayout,
}

/// The fields of the root struct, typed.
fn top_level_columns(footer: &Footer) -> Result<Vec<OrcColumn>> {
    let root = footer
        .types
        .first()
        .ok_or_else(|| Error::format("the footer lists no types"))?;
    if root.kind != Kind::Struct {
        return Err(Error::format(format!(
            "the root type is {}, not STRUCT",
            root.kind.as_str()
        )));
    }
    if root.field_names.len() != root.subtypes.len() {
        return Err(Error::format(format!(
            "the root struct has {} fields and {} field names",
            root.subtypes.len(),
            root.field_names.len()
        )));
    }
    let mut out = Vec::with_capacity(root.subtypes.len());
    for (name, &id) in root.field_names.iter().zip(&root.subtypes) {
        let t = usize::try_from(id)
            .ok()
            .filter(|&i| i > 0)
            .and_then(|i| footer.types.get(i).map(|t| (i, t)));
        let (id, t) = t.ok_or_else(|| {
            Error::format(format!(
                "field {name:?} names type {id}, which is not listed"
            ))
        })?;
        let precision = u32::try_from(t.precision.unwrap_or(38)).unwrap_or(u32::MAX);
        let scale = u32::try_from(t.scale.unwrap_or(10)).unwrap_or(u32::MAX);
        if t.kind == Kind::Decimal && (precision == 0 || precision > 38 || scale > precision) {
            return Err(Error::format(format!(
                "field {name:?} is DECIMAL({precision}, {scale}) (precision 1..38, scale at most \
                 the precision)"
            )));
        }
        out.push(OrcColumn {
            name: name.clone(),
            id,
            kind: t.kind,
            logical: logical_type(t.kind, precision, scale),
            precision,
            scale,
        });
    }
    Ok(out)
}

fn logical_type(kind: Kind, precision: u32, scale: u32) -> Option<LogicalType> {
    let int = |bits| Some(LogicalType::Integer { bits, signed: true });
    match kind {
        Kind::Byte => int(8),
        Kind::Short => int(16),
        Kind::Int => int(32),
        Kind::String | Kind::Varchar | Kind::Char => Some(LogicalType::String),
        Kind::Date => Some(LogicalType::Date),
        Kind::Decimal => Some(LogicalType::Decimal {
            precision: precision as i32,
            scale: scale as i32,
        }),
        Kind::Timestamp => Some(LogicalType::Timestamp {
            unit: TimeUnit::Nanos,
            utc: false,
        }),
        Kind::TimestampInstant => Some(LogicalType::Timestamp {
            unit: TimeUnit::Nanos,
            utc: true,
        }),
        _ => None,
    }
}
