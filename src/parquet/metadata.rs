//! The footer: `FileMetaData` decoded from Thrift into the few things the reader needs (schema,
//! row groups with their column chunks, key-value metadata, row count), and the schema tree
//! flattened into leaf columns with their definition/repetition levels.

use super::thrift::{ty, Reader};
use crate::error::{Error, Result, ResultExt};

/// Deepest schema nesting accepted (Paimon and Ray files are flat; nested types add 2–3 levels).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// What the flattened leaf columns of one schema may cost in memory, counted per leaf as its
/// [`ColumnInfo`], one `String` header per path element (an empty name costs its header too)
/// and the path's bytes twice (the elements and the joined name). A real schema costs
/// kilobytes; a footer of a million empty-named nested leaves, or of millions of flat ones, is
/// refused here instead of taking gigabytes.
const MAX_SCHEMA_COST: usize = 16 << 20;

/// A Parquet physical (storage) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicalType {
    /// One bit per value.
    Boolean,
    /// 32-bit signed integer.
    Int32,
    /// 64-bit signed integer.
    Int64,
    /// 96-bit legacy timestamp (nanoseconds of the day + Julian day).
    Int96,
    /// IEEE 754 single precision.
    Float,
    /// IEEE 754 double precision.
    Double,
    /// Variable-length bytes.
    ByteArray,
    /// Bytes of a fixed length (`ColumnInfo::type_length`).
    FixedLenByteArray,
}

impl PhysicalType {
    fn from_thrift(v: i32) -> Result<Self> {
        Ok(match v {
            0 => PhysicalType::Boolean,
            1 => PhysicalType::Int32,
            2 => PhysicalType::Int64,
            3 => PhysicalType::Int96,
            4 => PhysicalType::Float,
            5 => PhysicalType::Double,
            6 => PhysicalType::ByteArray,
            7 => PhysicalType::FixedLenByteArray,
            other => return Err(Error::format(format!("unknown physical type {other}"))),
        })
    }

    /// The name as in the Parquet specification (`INT64`, `BYTE_ARRAY`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            PhysicalType::Boolean => "BOOLEAN",
            PhysicalType::Int32 => "INT32",
            PhysicalType::Int64 => "INT64",
            PhysicalType::Int96 => "INT96",
            PhysicalType::Float => "FLOAT",
            PhysicalType::Double => "DOUBLE",
            PhysicalType::ByteArray => "BYTE_ARRAY",
            PhysicalType::FixedLenByteArray => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

/// The unit of a `TIME` or `TIMESTAMP` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl TimeUnit {
    /// Units per second.
    pub fn per_second(self) -> i64 {
        match self {
            TimeUnit::Millis => 1_000,
            TimeUnit::Micros => 1_000_000,
            TimeUnit::Nanos => 1_000_000_000,
        }
    }

    /// Digits of the fraction of a second.
    pub fn digits(self) -> usize {
        match self {
            TimeUnit::Millis => 3,
            TimeUnit::Micros => 6,
            TimeUnit::Nanos => 9,
        }
    }
}

/// What a column's values mean (Parquet `LogicalType`, or the legacy `ConvertedType` mapped to
/// it). Values keep their physical representation; [`super::Value::render`] applies this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicalType {
    /// UTF-8 text (`STRING` / legacy `UTF8`).
    String,
    /// UTF-8 enum symbol.
    Enum,
    /// UTF-8 JSON text.
    Json,
    /// BSON bytes.
    Bson,
    /// 16-byte UUID.
    Uuid,
    /// Fixed-point decimal: the stored integer (INT32, INT64, or big-endian two's complement
    /// bytes) times 10^-scale.
    Decimal {
        /// Total digits.
        precision: i32,
        /// Digits after the point.
        scale: i32,
    },
    /// Days since 1970-01-01 (INT32).
    Date,
    /// Time of day (INT32 millis, INT64 micros/nanos).
    Time {
        /// Unit of the stored integer.
        unit: TimeUnit,
        /// Whether the time is UTC-normalised.
        utc: bool,
    },
    /// Instant or local date-time since the epoch (INT64, or INT96 read as nanos).
    Timestamp {
        /// Unit of the stored integer.
        unit: TimeUnit,
        /// `true`: an instant (rendered with `Z`); `false`: a local date-time.
        utc: bool,
    },
    /// Integer of a given width and signedness (INT32/INT64 storage). Unsigned 8/16/32-bit
    /// values are read as their non-negative value; unsigned 64-bit values keep their bits in
    /// [`super::Value::Int`] and render as unsigned.
    Integer {
        /// 8, 16, 32 or 64.
        bits: u8,
        /// Signedness.
        signed: bool,
    },
    /// IEEE half-precision float in 2 bytes (rendered as a number).
    Float16,
    /// A column that is always null.
    Unknown,
    /// The legacy `INTERVAL` (12 bytes: months, days, millis).
    Interval,
    /// A group annotation (`MAP`, `LIST`, …) or an annotation this reader does not interpret.
    Other,
}

/// One leaf column of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    /// The column's name: the leaf name for a top-level column, the `.`-joined path for a column
    /// inside a group (`address.city`).
    pub name: String,
    /// The path of names from the root (without the root's name).
    pub path: Vec<String>,
    /// Storage type.
    pub physical: PhysicalType,
    /// Meaning, if annotated. INT96 columns without an annotation report a UTC-less nanosecond
    /// timestamp (their values are read as nanoseconds since the epoch).
    pub logical: Option<LogicalType>,
    /// Byte length of a `FIXED_LEN_BYTE_ARRAY` column.
    pub type_length: Option<i32>,
    /// Whether the leaf itself may be null (`optional`).
    pub optional: bool,
    /// Maximum definition level (number of optional or repeated fields on the path).
    pub max_def_level: u8,
    /// Maximum repetition level (number of repeated fields on the path); reading columns
    /// with repetition is not supported.
    pub max_rep_level: u8,
}

impl ColumnInfo {
    /// Whether [`super::ParquetFile::read_columns`] can read this column (no repetition).
    pub fn is_readable(&self) -> bool {
        self.max_rep_level == 0
    }
}

/// A schema element as stored (the tree in pre-order).
#[derive(Debug, Default, Clone)]
struct SchemaElement {
    physical: Option<i32>,
    type_length: Option<i32>,
    repetition: Option<i32>,
    name: String,
    num_children: Option<i32>,
    converted: Option<i32>,
    scale: Option<i32>,
    precision: Option<i32>,
    logical: Option<LogicalType>,
}

/// What the reader needs from one `ColumnChunk` / `ColumnMetaData`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChunkMeta {
    pub(crate) file_path: Option<String>,
    pub(crate) physical: i32,
    pub(crate) codec: i32,
    pub(crate) num_values: i64,
    pub(crate) total_compressed: i64,
    pub(crate) data_page_offset: i64,
    pub(crate) dictionary_page_offset: Option<i64>,
    pub(crate) encrypted: bool,
    pub(crate) has_meta: bool,
}

impl ChunkMeta {
    /// The byte range `start..end` of the chunk in the file (dictionary page first if any).
    pub(crate) fn range(&self) -> Result<(u64, u64)> {
        if self.total_compressed < 0 {
            return Err(Error::format(format!(
                "negative column chunk size {}",
                self.total_compressed
            )));
        }
        let start = match self.dictionary_page_offset {
            // Some writers store 0 for "no dictionary"; a dictionary page always precedes the
            // data pages.
            Some(d) if d > 0 && d < self.data_page_offset => d,
            _ => self.data_page_offset,
        };
        let start = u64::try_from(start)
            .map_err(|_| Error::format(format!("negative column chunk offset {start}")))?;
        let end = start
            .checked_add(self.total_compressed as u64)
            .ok_or_else(|| Error::format("column chunk offset overflows"))?;
        Ok((start, end))
    }
}

/// One row group: its row count and its column chunks (one per leaf column, in schema order).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowGroupMeta {
    pub(crate) num_rows: i64,
    pub(crate) columns: Vec<ChunkMeta>,
}

/// The decoded footer.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileMeta {
    pub(crate) num_rows: i64,
    pub(crate) columns: Vec<ColumnInfo>,
    pub(crate) row_groups: Vec<RowGroupMeta>,
    pub(crate) key_value: Vec<(String, Option<String>)>,
    pub(crate) created_by: Option<String>,
}

/// Parses a Thrift-encoded `FileMetaData`.
pub(crate) fn parse_file_metadata(buf: &[u8]) -> Result<FileMeta> {
    let mut r = Reader::new(buf);
    let mut schema = Vec::new();
    let mut meta = FileMeta::default();
    let mut have_rows = false;
    r.read_struct(|r, id, t| {
        match id {
            2 => {
                schema = r
                    .read_list(ty::STRUCT, read_schema_element)
                    .context(|| "schema".into())?
            }
            3 => {
                meta.num_rows = r.i64_field(id, t)?;
                have_rows = true;
            }
            4 => {
                meta.row_groups = r
                    .read_list(ty::STRUCT, read_row_group)
                    .context(|| "row groups".into())?
            }
            5 => {
                meta.key_value = r
                    .read_list(ty::STRUCT, read_key_value)
                    .context(|| "key-value metadata".into())?
            }
            6 => meta.created_by = Some(r.string_field(id, t)?),
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if !have_rows {
        return Err(Error::format("the footer has no num_rows"));
    }
    if meta.num_rows < 0 {
        return Err(Error::format(format!(
            "negative num_rows {}",
            meta.num_rows
        )));
    }
    meta.columns = flatten_schema(&schema).context(|| "schema".into())?;
    for (i, rg) in meta.row_groups.iter().enumerate() {
        if rg.columns.len() != meta.columns.len() {
            return Err(Error::format(format!(
                "row group {i} has {} column chunks, the schema has {} leaf columns",
                rg.columns.len(),
                meta.columns.len()
            )));
        }
        if rg.num_rows < 0 {
            return Err(Error::format(format!(
                "row group {i} has a negative row count {}",
                rg.num_rows
            )));
        }
    }
    Ok(meta)
}

fn read_key_value(r: &mut Reader<'_>) -> Result<(String, Option<String>)> {
    let mut key = None;
    let mut value = None;
    r.read_struct(|r, id, t| {
        match id {
            1 => key = Some(r.string_field(id, t)?),
            2 => value = Some(r.string_field(id, t)?),
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    Ok((
        key.ok_or_else(|| Error::format("a key-value entry has no key"))?,
        value,
    ))
}

fn read_time_unit(r: &mut Reader<'_>) -> Result<TimeUnit> {
    let mut unit = None;
    r.read_struct(|r, id, t| {
        match id {
            1 => unit = Some(TimeUnit::Millis),
            2 => unit = Some(TimeUnit::Micros),
            3 => unit = Some(TimeUnit::Nanos),
            _ => {}
        }
        r.skip(t)
    })?;
    unit.ok_or_else(|| Error::format("a time unit names no unit"))
}

/// `TimeType` and `TimestampType`: (isAdjustedToUTC, unit).
fn read_time_type(r: &mut Reader<'_>) -> Result<(bool, TimeUnit)> {
    let mut utc = false;
    let mut unit = None;
    r.read_struct(|r, id, t| {
        match id {
            1 => utc = Reader::bool_field(t)?,
            2 => {
                Reader::expect(id, t, ty::STRUCT)?;
                unit = Some(read_time_unit(r)?);
            }
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    Ok((
        utc,
        unit.ok_or_else(|| Error::format("a time type has no unit"))?,
    ))
}

fn read_logical_type(r: &mut Reader<'_>) -> Result<LogicalType> {
    let mut out = LogicalType::Other;
    r.read_struct(|r, id, t| {
        if t != ty::STRUCT {
            return r.skip(t);
        }
        out = match id {
            5 => read_decimal_type(r)?,
            7 => {
                let (utc, unit) = read_time_type(r)?;
                LogicalType::Time { unit, utc }
            }
            8 => {
                let (utc, unit) = read_time_type(r)?;
                LogicalType::Timestamp { unit, utc }
            }
            10 => read_int_type(r)?,
            simple => {
                r.skip(t)?;
                match simple {
                    1 => LogicalType::String,
                    4 => LogicalType::Enum,
                    6 => LogicalType::Date,
                    11 => LogicalType::Unknown,
                    12 => LogicalType::Json,
                    13 => LogicalType::Bson,
                    14 => LogicalType::Uuid,
                    15 => LogicalType::Float16,
                    _ => LogicalType::Other,
                }
            }
        };
        Ok(())
    })?;
    Ok(out)
}

fn read_decimal_type(r: &mut Reader<'_>) -> Result<LogicalType> {
    let (mut scale, mut precision) = (0, 0);
    r.read_struct(|r, id, t| {
        match id {
            1 => scale = r.i32_field(id, t)?,
            2 => precision = r.i32_field(id, t)?,
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    Ok(LogicalType::Decimal { precision, scale })
}

fn read_int_type(r: &mut Reader<'_>) -> Result<LogicalType> {
    let (mut bits, mut signed) = (0u8, true);
    r.read_struct(|r, id, t| {
        match id {
            1 => {
                Reader::expect(id, t, ty::BYTE)?;
                bits = r.byte()?;
            }
            2 => signed = Reader::bool_field(t)?,
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    Ok(LogicalType::Integer { bits, signed })
}

fn read_schema_element(r: &mut Reader<'_>) -> Result<SchemaElement> {
    let mut e = SchemaElement::default();
    let mut have_name = false;
    r.read_struct(|r, id, t| {
        match id {
            1 => e.physical = Some(r.i32_field(id, t)?),
            2 => e.type_length = Some(r.i32_field(id, t)?),
            3 => e.repetition = Some(r.i32_field(id, t)?),
            4 => {
                e.name = r.string_field(id, t)?;
                have_name = true;
            }
            5 => e.num_children = Some(r.i32_field(id, t)?),
            6 => e.converted = Some(r.i32_field(id, t)?),
            7 => e.scale = Some(r.i32_field(id, t)?),
            8 => e.precision = Some(r.i32_field(id, t)?),
            10 => {
                Reader::expect(id, t, ty::STRUCT)?;
                e.logical = Some(read_logical_type(r)?);
            }
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if !have_name {
        return Err(Error::format("a schema element has no name"));
    }
    Ok(e)
}

fn read_row_group(r: &mut Reader<'_>) -> Result<RowGroupMeta> {
    let mut rg = RowGroupMeta::default();
    let mut have_rows = false;
    r.read_struct(|r, id, t| {
        match id {
            1 => rg.columns = r.read_list(ty::STRUCT, read_column_chunk)?,
            3 => {
                rg.num_rows = r.i64_field(id, t)?;
                have_rows = true;
            }
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if !have_rows {
        return Err(Error::format("a row group has no num_rows"));
    }
    Ok(rg)
}

fn read_column_chunk(r: &mut Reader<'_>) -> Result<ChunkMeta> {
    let mut c = ChunkMeta::default();
    r.read_struct(|r, id, t| {
        match id {
            1 => c.file_path = Some(r.string_field(id, t)?),
            3 => {
                Reader::expect(id, t, ty::STRUCT)?;
                read_column_meta(r, &mut c)?;
                c.has_meta = true;
            }
            8 | 9 => {
                c.encrypted = true;
                r.skip(t)?;
            }
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    Ok(c)
}

fn read_column_meta(r: &mut Reader<'_>, c: &mut ChunkMeta) -> Result<()> {
    let mut seen = [false; 4];
    r.read_struct(|r, id, t| {
        match id {
            1 => c.physical = r.i32_field(id, t)?,
            4 => {
                c.codec = r.i32_field(id, t)?;
                seen[0] = true;
            }
            5 => {
                c.num_values = r.i64_field(id, t)?;
                seen[1] = true;
            }
            7 => {
                c.total_compressed = r.i64_field(id, t)?;
                seen[2] = true;
            }
            9 => {
                c.data_page_offset = r.i64_field(id, t)?;
                seen[3] = true;
            }
            11 => c.dictionary_page_offset = Some(r.i64_field(id, t)?),
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if seen.iter().all(|&s| s) {
        Ok(())
    } else {
        Err(Error::format(
            "column metadata lacks codec, num_values, total_compressed_size or data_page_offset",
        ))
    }
}

fn converted_to_logical(e: &SchemaElement) -> Option<LogicalType> {
    Some(match e.converted? {
        0 => LogicalType::String,
        4 => LogicalType::Enum,
        5 => LogicalType::Decimal {
            precision: e.precision.unwrap_or(0),
            scale: e.scale.unwrap_or(0),
        },
        6 => LogicalType::Date,
        7 => LogicalType::Time {
            unit: TimeUnit::Millis,
            utc: true,
        },
        8 => LogicalType::Time {
            unit: TimeUnit::Micros,
            utc: true,
        },
        9 => LogicalType::Timestamp {
            unit: TimeUnit::Millis,
            utc: true,
        },
        10 => LogicalType::Timestamp {
            unit: TimeUnit::Micros,
            utc: true,
        },
        11 => LogicalType::Integer {
            bits: 8,
            signed: false,
        },
        12 => LogicalType::Integer {
            bits: 16,
            signed: false,
        },
        13 => LogicalType::Integer {
            bits: 32,
            signed: false,
        },
        14 => LogicalType::Integer {
            bits: 64,
            signed: false,
        },
        15 => LogicalType::Integer {
            bits: 8,
            signed: true,
        },
        16 => LogicalType::Integer {
            bits: 16,
            signed: true,
        },
        17 => LogicalType::Integer {
            bits: 32,
            signed: true,
        },
        18 => LogicalType::Integer {
            bits: 64,
            signed: true,
        },
        19 => LogicalType::Json,
        20 => LogicalType::Bson,
        21 => LogicalType::Interval,
        _ => LogicalType::Other,
    })
}

/// Walks the pre-order schema list into leaf columns.
fn flatten_schema(schema: &[SchemaElement]) -> Result<Vec<ColumnInfo>> {
    let root = schema
        .first()
        .ok_or_else(|| Error::format("the schema is empty"))?;
    let root_children = root.num_children.unwrap_or(0);
    if root.physical.is_some() && root_children == 0 {
        return Err(Error::format("the schema root is not a group"));
    }
    // Stack of open groups: (children left, def level, rep level, path length).
    struct Open {
        left: i64,
        def: u8,
        rep: u8,
    }
    let mut stack = vec![Open {
        left: i64::from(root_children),
        def: 0,
        rep: 0,
    }];
    let mut path: Vec<String> = Vec::new();
    let mut columns = Vec::new();
    // Every leaf copies its path: bound the total so that deep groups with long names and many
    // leaves cannot multiply a small footer into a large allocation.
    let mut path_bytes = 0usize;
    let mut i = 1usize;
    while let Some(top) = stack.last_mut() {
        if top.left <= 0 {
            stack.pop();
            path.pop();
            continue;
        }
        top.left -= 1;
        let (def, rep) = (top.def, top.rep);
        let e = schema.get(i).ok_or_else(|| {
            Error::format(format!(
                "the schema declares more children than its {} elements",
                schema.len()
            ))
        })?;
        i += 1;
        let (def, rep) = match e.repetition {
            Some(0) | None => (def, rep),
            Some(1) => (def.saturating_add(1), rep),
            Some(2) => (def.saturating_add(1), rep.saturating_add(1)),
            Some(other) => {
                return Err(Error::format(format!(
                    "field {:?} has unknown repetition {other}",
                    e.name
                )))
            }
        };
        let children = e.num_children.unwrap_or(0);
        if e.physical.is_none() || children > 0 {
            // A group.
            if stack.len() >= MAX_SCHEMA_DEPTH {
                return Err(Error::format(format!(
                    "the schema is nested more than {MAX_SCHEMA_DEPTH} deep"
                )));
            }
            if children < 0 {
                return Err(Error::format(format!(
                    "group {:?} has {children} children",
                    e.name
                )));
            }
            path.push(e.name.clone());
            stack.push(Open {
                left: i64::from(children),
                def,
                rep,
            });
            continue;
        }
        let physical = PhysicalType::from_thrift(e.physical.unwrap_or(-1))
            .context(|| format!("field {:?}", e.name))?;
        let bytes = path
            .iter()
            .map(String::len)
            .sum::<usize>()
            .saturating_add(e.name.len());
        path_bytes = path_bytes
            .saturating_add(std::mem::size_of::<ColumnInfo>())
            .saturating_add((path.len() + 1).saturating_mul(std::mem::size_of::<String>()))
            .saturating_add(bytes.saturating_mul(2));
        if path_bytes > MAX_SCHEMA_COST {
            return Err(Error::format(format!(
                "the schema's {} leaf columns so far would take more than {MAX_SCHEMA_COST} bytes \
                 (their paths and names); a footer this large is refused",
                columns.len() + 1
            )));
        }
        let mut leaf_path = path.clone();
        leaf_path.push(e.name.clone());
        let mut logical = e.logical.or_else(|| converted_to_logical(e));
        if physical == PhysicalType::Int96 && logical.is_none() {
            logical = Some(LogicalType::Timestamp {
                unit: TimeUnit::Nanos,
                utc: false,
            });
        }
        let type_length = match physical {
            PhysicalType::FixedLenByteArray => {
                let l = e.type_length.unwrap_or(-1);
                if l < 0 {
                    return Err(Error::format(format!(
                        "fixed-length column {:?} has no valid type_length ({l})",
                        e.name
                    )));
                }
                Some(l)
            }
            _ => e.type_length,
        };
        columns.push(ColumnInfo {
            name: leaf_path.join("."),
            path: leaf_path,
            physical,
            logical,
            type_length,
            optional: e.repetition == Some(1),
            max_def_level: def,
            max_rep_level: rep,
        });
    }
    if i != schema.len() {
        return Err(Error::format(format!(
            "the schema tree covers {i} of its {} elements",
            schema.len()
        )));
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(name: &str, physical: Option<i32>, rep: i32, children: Option<i32>) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            physical,
            repetition: Some(rep),
            num_children: children,
            ..SchemaElement::default()
        }
    }

    #[test]
    fn nested_schema_flattens_with_levels() {
        let schema = vec![
            el("root", None, 0, Some(3)),
            el("id", Some(2), 0, None),
            el("s", None, 1, Some(1)),
            el("a", Some(1), 1, None),
            el("l", None, 1, Some(1)),
            el("list", None, 2, Some(1)),
            el("element", Some(2), 1, None),
        ];
        let cols = flatten_schema(&schema).unwrap();
        let got: Vec<_> = cols
            .iter()
            .map(|c| (c.name.as_str(), c.max_def_level, c.max_rep_level))
            .collect();
        assert_eq!(
            got,
            vec![("id", 0, 0), ("s.a", 2, 0), ("l.list.element", 3, 1)]
        );
    }

    #[test]
    fn inconsistent_schemas_are_errors() {
        // More children declared than elements.
        assert!(
            flatten_schema(&[el("root", None, 0, Some(2)), el("x", Some(1), 0, None)]).is_err()
        );
        // Elements left over.
        assert!(flatten_schema(&[
            el("root", None, 0, Some(1)),
            el("x", Some(1), 0, None),
            el("y", Some(1), 0, None)
        ])
        .is_err());
        // Deep nesting.
        let mut deep = vec![el("root", None, 0, Some(1))];
        for _ in 0..100 {
            deep.push(el("g", None, 1, Some(1)));
        }
        deep.push(el("x", Some(1), 1, None));
        assert!(flatten_schema(&deep).is_err());
        assert!(flatten_schema(&[]).is_err());
    }

    /// The footers: 62 nested empty-named groups over many leaves, and many flat
    /// one-letter leaves, are refused once their flattened cost passes the cap (counting the
    /// empty names), while a wide real-looking schema (5,000 columns) is read.
    #[test]
    fn footers_that_multiply_into_large_schemas_are_refused() {
        let nested = |leaves: i32| {
            let mut s = vec![el("root", None, 0, Some(1))];
            for d in 0..62 {
                s.push(el("", None, 0, Some(if d == 61 { leaves } else { 1 })));
            }
            for _ in 0..leaves {
                s.push(el("", Some(1), 0, None));
            }
            s
        };
        let e = flatten_schema(&nested(200_000)).unwrap_err();
        assert!(e.to_string().contains("leaf columns"), "{e}");
        let flat = |leaves: i32| {
            let mut s = vec![el("root", None, 0, Some(leaves))];
            for _ in 0..leaves {
                s.push(el("a", Some(1), 0, None));
            }
            s
        };
        assert!(flatten_schema(&flat(400_000)).is_err());
        assert_eq!(flatten_schema(&flat(5_000)).unwrap().len(), 5_000);
        assert_eq!(flatten_schema(&nested(100)).unwrap().len(), 100);
    }
}
