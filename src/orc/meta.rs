//! ORC's metadata messages (`orc_proto.proto` of Apache ORC): the PostScript, the file Footer
//! (stripes, types, row count) and a stripe's StripeFooter (streams, column encodings, writer
//! time zone), decoded into what the reader needs. Unknown fields are skipped.

use super::proto::Fields;
use crate::error::{Error, Result, ResultExt};

/// Types accepted in one file's footer (a Paimon file has one per column plus the root).
pub(crate) const MAX_TYPES: usize = 100_000;
/// Stripes accepted in one file.
pub(crate) const MAX_STRIPES: usize = 1_000_000;
/// Streams accepted in one stripe.
pub(crate) const MAX_STREAMS: usize = 1_000_000;

/// `CompressionKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// `NONE`.
    None,
    /// `ZLIB` (raw deflate).
    Zlib,
    /// `SNAPPY` (raw snappy).
    Snappy,
    /// `LZO` (not supported).
    Lzo,
    /// `LZ4` (raw LZ4 blocks).
    Lz4,
    /// `ZSTD` (zstd frames).
    Zstd,
}

impl Compression {
    fn from_proto(v: u64) -> Result<Self> {
        Ok(match v {
            0 => Compression::None,
            1 => Compression::Zlib,
            2 => Compression::Snappy,
            3 => Compression::Lzo,
            4 => Compression::Lz4,
            5 => Compression::Zstd,
            other => {
                return Err(Error::unsupported(format!(
                    "unknown ORC compression kind {other}"
                )))
            }
        })
    }

    /// The name as in the ORC specification.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Zlib => "ZLIB",
            Compression::Snappy => "SNAPPY",
            Compression::Lzo => "LZO",
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "ZSTD",
        }
    }
}

/// The PostScript (never compressed).
#[derive(Debug, Clone)]
pub(crate) struct PostScript {
    pub(crate) footer_length: u64,
    pub(crate) compression: Compression,
    /// The largest decompressed chunk (256 KiB when absent, ORC's default).
    pub(crate) block_size: u64,
    pub(crate) metadata_length: u64,
}

pub(crate) fn parse_postscript(b: &[u8]) -> Result<PostScript> {
    let mut ps = PostScript {
        footer_length: 0,
        compression: Compression::None,
        block_size: 256 << 10,
        metadata_length: 0,
    };
    let mut magic_ok = None;
    let mut f = Fields::new(b);
    while let Some((n, w)) = f.next_field()? {
        match n {
            1 => ps.footer_length = w.varint("footerLength")?,
            2 => ps.compression = Compression::from_proto(w.varint("compression")?)?,
            3 => ps.block_size = w.varint("compressionBlockSize")?,
            5 => ps.metadata_length = w.varint("metadataLength")?,
            8000 => magic_ok = Some(w.bytes("magic")? == b"ORC"),
            _ => {}
        }
    }
    if magic_ok == Some(false) {
        return Err(Error::format("the PostScript's magic is not \"ORC\""));
    }
    Ok(ps)
}

/// `Type.Kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `BOOLEAN`.
    Boolean,
    /// `BYTE` (TINYINT).
    Byte,
    /// `SHORT` (SMALLINT).
    Short,
    /// `INT`.
    Int,
    /// `LONG` (BIGINT).
    Long,
    /// `FLOAT`.
    Float,
    /// `DOUBLE`.
    Double,
    /// `STRING`.
    String,
    /// `BINARY`.
    Binary,
    /// `TIMESTAMP` (a local date-time, relative to the writer's time zone).
    Timestamp,
    /// `LIST`.
    List,
    /// `MAP`.
    Map,
    /// `STRUCT`.
    Struct,
    /// `UNION`.
    Union,
    /// `DECIMAL`.
    Decimal,
    /// `DATE`.
    Date,
    /// `VARCHAR`.
    Varchar,
    /// `CHAR`.
    Char,
    /// `TIMESTAMP_INSTANT` (timestamp with local time zone: an instant, UTC-based).
    TimestampInstant,
}

impl Kind {
    fn from_proto(v: u64) -> Result<Self> {
        Ok(match v {
            0 => Kind::Boolean,
            1 => Kind::Byte,
            2 => Kind::Short,
            3 => Kind::Int,
            4 => Kind::Long,
            5 => Kind::Float,
            6 => Kind::Double,
            7 => Kind::String,
            8 => Kind::Binary,
            9 => Kind::Timestamp,
            10 => Kind::List,
            11 => Kind::Map,
            12 => Kind::Struct,
            13 => Kind::Union,
            14 => Kind::Decimal,
            15 => Kind::Date,
            16 => Kind::Varchar,
            17 => Kind::Char,
            18 => Kind::TimestampInstant,
            other => return Err(Error::unsupported(format!("unknown ORC type kind {other}"))),
        })
    }

    /// The name as in the ORC specification.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Boolean => "BOOLEAN",
            Kind::Byte => "BYTE",
            Kind::Short => "SHORT",
            Kind::Int => "INT",
            Kind::Long => "LONG",
            Kind::Float => "FLOAT",
            Kind::Double => "DOUBLE",
            Kind::String => "STRING",
            Kind::Binary => "BINARY",
            Kind::Timestamp => "TIMESTAMP",
            Kind::List => "LIST",
            Kind::Map => "MAP",
            Kind::Struct => "STRUCT",
            Kind::Union => "UNION",
            Kind::Decimal => "DECIMAL",
            Kind::Date => "DATE",
            Kind::Varchar => "VARCHAR",
            Kind::Char => "CHAR",
            Kind::TimestampInstant => "TIMESTAMP_INSTANT",
        }
    }

    /// Whether the kind holds children (never read as a column by this reader).
    pub fn is_compound(self) -> bool {
        matches!(self, Kind::List | Kind::Map | Kind::Struct | Kind::Union)
    }
}

/// One entry of the footer's type list (the type tree in pre-order; the index is the column id).
#[derive(Debug, Clone)]
pub(crate) struct Type {
    pub(crate) kind: Kind,
    pub(crate) subtypes: Vec<u64>,
    pub(crate) field_names: Vec<String>,
    pub(crate) precision: Option<u64>,
    pub(crate) scale: Option<u64>,
}

fn parse_type(b: &[u8]) -> Result<Type> {
    let mut kind = None;
    let mut t = Type {
        kind: Kind::Struct,
        subtypes: Vec::new(),
        field_names: Vec::new(),
        precision: None,
        scale: None,
    };
    let mut f = Fields::new(b);
    while let Some((n, w)) = f.next_field()? {
        match n {
            1 => kind = Some(Kind::from_proto(w.varint("kind")?)?),
            2 => w.packed_varints("subtypes", &mut t.subtypes)?,
            3 => {
                let name = std::str::from_utf8(w.bytes("fieldNames")?)
                    .map_err(|_| Error::format("a field name is not UTF-8"))?;
                t.field_names.push(name.to_string());
            }
            5 => t.precision = Some(w.varint("precision")?),
            6 => t.scale = Some(w.varint("scale")?),
            _ => {}
        }
    }
    t.kind = kind.ok_or_else(|| Error::format("a type has no kind"))?;
    Ok(t)
}

/// `StripeInformation`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stripe {
    pub(crate) offset: u64,
    pub(crate) index_length: u64,
    pub(crate) data_length: u64,
    pub(crate) footer_length: u64,
    pub(crate) rows: u64,
}

fn parse_stripe(b: &[u8]) -> Result<Stripe> {
    let mut s = Stripe::default();
    let mut f = Fields::new(b);
    while let Some((n, w)) = f.next_field()? {
        match n {
            1 => s.offset = w.varint("offset")?,
            2 => s.index_length = w.varint("indexLength")?,
            3 => s.data_length = w.varint("dataLength")?,
            4 => s.footer_length = w.varint("footerLength")?,
            5 => s.rows = w.varint("numberOfRows")?,
            6 | 7 => {
                return Err(Error::unsupported(
                    "the stripe is encrypted (ORC column encryption)",
                ))
            }
            _ => {}
        }
    }
    Ok(s)
}

/// The file Footer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Footer {
    pub(crate) stripes: Vec<Stripe>,
    pub(crate) types: Vec<Type>,
    pub(crate) rows: u64,
}

pub(crate) fn parse_footer(b: &[u8]) -> Result<Footer> {
    let mut footer = Footer::default();
    let mut f = Fields::new(b);
    while let Some((n, w)) = f.next_field()? {
        match n {
            3 => {
                if footer.stripes.len() >= MAX_STRIPES {
                    return Err(Error::format(format!("more than {MAX_STRIPES} stripes")));
                }
                let s = parse_stripe(w.bytes("stripes")?)
                    .context(|| format!("stripe {}", footer.stripes.len()))?;
                footer.stripes.push(s);
            }
            4 => {
                if footer.types.len() >= MAX_TYPES {
                    return Err(Error::format(format!("more than {MAX_TYPES} types")));
                }
                let t = parse_type(w.bytes("types")?)
                    .context(|| format!("type {}", footer.types.len()))?;
                footer.types.push(t);
            }
            6 => footer.rows = w.varint("numberOfRows")?,
            10 => {
                return Err(Error::unsupported(
                    "the file is encrypted (ORC column encryption)",
                ))
            }
            _ => {}
        }
    }
    Ok(footer)
}

/// `Stream.Kind` (the ones this reader uses; others are skipped by position only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamKind {
    Present,
    Data,
    Length,
    DictionaryData,
    Secondary,
    /// Any other kind (indexes, bloom filters, statistics, dictionary counts).
    Other(u64),
}

impl StreamKind {
    fn from_proto(v: u64) -> Self {
        match v {
            0 => StreamKind::Present,
            1 => StreamKind::Data,
            2 => StreamKind::Length,
            3 => StreamKind::DictionaryData,
            5 => StreamKind::Secondary,
            other => StreamKind::Other(other),
        }
    }

    pub(crate) fn as_str(self) -> String {
        match self {
            StreamKind::Present => "PRESENT".into(),
            StreamKind::Data => "DATA".into(),
            StreamKind::Length => "LENGTH".into(),
            StreamKind::DictionaryData => "DICTIONARY_DATA".into(),
            StreamKind::Secondary => "SECONDARY".into(),
            StreamKind::Other(k) => format!("stream kind {k}"),
        }
    }
}

/// One stream of a stripe, with its place in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stream {
    pub(crate) kind: StreamKind,
    pub(crate) column: u64,
    /// Absolute offset in the file.
    pub(crate) offset: u64,
    pub(crate) length: u64,
}

/// `ColumnEncoding.Kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Direct,
    Dictionary,
    DirectV2,
    DictionaryV2,
}

impl Encoding {
    /// Whether integers use RLE version 2.
    pub(crate) fn v2(self) -> bool {
        matches!(self, Encoding::DirectV2 | Encoding::DictionaryV2)
    }

    pub(crate) fn dictionary(self) -> bool {
        matches!(self, Encoding::Dictionary | Encoding::DictionaryV2)
    }
}

/// The StripeFooter.
#[derive(Debug, Clone, Default)]
pub(crate) struct StripeFooter {
    pub(crate) streams: Vec<Stream>,
    /// Per column id: encoding and dictionary size.
    pub(crate) encodings: Vec<(Encoding, u64)>,
    pub(crate) writer_timezone: Option<String>,
}

/// Decodes a stripe footer; stream offsets are laid out from `stripe_offset` in order.
pub(crate) fn parse_stripe_footer(b: &[u8], stripe_offset: u64) -> Result<StripeFooter> {
    let mut sf = StripeFooter::default();
    let mut at = stripe_offset;
    let mut f = Fields::new(b);
    while let Some((n, w)) = f.next_field()? {
        match n {
            1 => {
                if sf.streams.len() >= MAX_STREAMS {
                    return Err(Error::format(format!("more than {MAX_STREAMS} streams")));
                }
                let mut s = Stream {
                    kind: StreamKind::Other(u64::MAX),
                    column: 0,
                    offset: at,
                    length: 0,
                };
                let mut g = Fields::new(w.bytes("streams")?);
                while let Some((m, v)) = g.next_field()? {
                    match m {
                        1 => s.kind = StreamKind::from_proto(v.varint("kind")?),
                        2 => s.column = v.varint("column")?,
                        3 => s.length = v.varint("length")?,
                        _ => {}
                    }
                }
                at = at
                    .checked_add(s.length)
                    .ok_or_else(|| Error::format("stream lengths overflow"))?;
                sf.streams.push(s);
            }
            2 => {
                if sf.encodings.len() >= MAX_TYPES {
                    return Err(Error::format(format!(
                        "more than {MAX_TYPES} column encodings"
                    )));
                }
                let mut kind = Encoding::Direct;
                let mut dict = 0;
                let mut g = Fields::new(w.bytes("columns")?);
                while let Some((m, v)) = g.next_field()? {
                    match m {
                        1 => {
                            kind = match v.varint("kind")? {
                                0 => Encoding::Direct,
                                1 => Encoding::Dictionary,
                                2 => Encoding::DirectV2,
                                3 => Encoding::DictionaryV2,
                                other => {
                                    return Err(Error::unsupported(format!(
                                        "unknown column encoding {other}"
                                    )))
                                }
                            }
                        }
                        2 => dict = v.varint("dictionarySize")?,
                        _ => {}
                    }
                }
                sf.encodings.push((kind, dict));
            }
            3 => {
                let tz = std::str::from_utf8(w.bytes("writerTimezone")?)
                    .map_err(|_| Error::format("the writer time zone is not UTF-8"))?;
                sf.writer_timezone = Some(tz.to_string());
            }
            4 => {
                return Err(Error::unsupported(
                    "the stripe is encrypted (ORC column encryption)",
                ))
            }
            _ => {}
        }
    }
    Ok(sf)
}
