//! Paimon's BinaryRow (`paimon-format.md` §3.7): the serialized partition (`_PARTITION`), keys
//! (`_MIN_KEY`/`_MAX_KEY`) and statistics in manifests, and rendering a partition as its
//! directory path `k1=v1/k2=v2` (§1.3).
//!
//! Serialized form: a 4-byte big-endian arity, then the row: a null bit set of
//! `((arity + 63 + 8) / 64) * 8` bytes (byte 0 is the row kind; field `i` is null iff bit
//! `i + 8` is set), one little-endian 8-byte word per field, then the variable part. A
//! variable-length value is inline in its word when the word's top bit is set (length in bits
//! 56..63, data in the low bytes), else the word is `offset << 32 | length` relative to the row
//! start.

use std::fmt::Write as _;

use crate::error::{Error, Result};

/// A Paimon field type, as far as BinaryRow decoding is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    /// `BOOLEAN`.
    Boolean,
    /// `TINYINT`.
    TinyInt,
    /// `SMALLINT`.
    SmallInt,
    /// `INT`.
    Int,
    /// `BIGINT`.
    BigInt,
    /// `FLOAT`.
    Float,
    /// `DOUBLE`.
    Double,
    /// `CHAR(n)`, `VARCHAR(n)`, `STRING`.
    String,
    /// `BINARY(n)`, `VARBINARY(n)`, `BYTES`.
    Binary,
    /// `DATE`: days since 1970-01-01.
    Date,
    /// `TIME(p)`: milliseconds of the day.
    Time,
    /// `TIMESTAMP(p)` (default precision 6).
    Timestamp {
        /// Fractional-second digits.
        precision: u32,
    },
    /// `TIMESTAMP(p) WITH LOCAL TIME ZONE` / `TIMESTAMP_LTZ(p)`: UTC instant.
    LocalZonedTimestamp {
        /// Fractional-second digits.
        precision: u32,
    },
    /// `DECIMAL(p, s)` (default `DECIMAL(10, 0)`).
    Decimal {
        /// Total digits.
        precision: u32,
        /// Digits after the point.
        scale: u32,
    },
    /// Anything else (ARRAY, MAP, ROW, VARIANT, an unknown name): not decodable here.
    Unsupported(String),
}

impl FieldType {
    /// Parses a type as written in a schema file (`INT NOT NULL`, `VARCHAR(20)`,
    /// `DECIMAL(10, 2)`, `TIMESTAMP(3) WITH LOCAL TIME ZONE`, …). Complex types (JSON objects)
    /// and unknown names are [`FieldType::Unsupported`].
    pub fn parse(type_str: &str) -> FieldType {
        let upper = type_str.trim().to_ascii_uppercase();
        let upper = upper
            .strip_suffix("NOT NULL")
            .map(str::trim_end)
            .unwrap_or(&upper)
            .to_string();
        let upper = upper
            .strip_suffix(" NULL")
            .map(str::trim_end)
            .unwrap_or(&upper)
            .to_string();
        let (name, args, rest) = match upper.find('(') {
            Some(open) => match upper.get(open..).and_then(|s| s.find(')')) {
                Some(close_rel) => (
                    upper.get(..open).unwrap_or("").trim(),
                    upper.get(open + 1..open + close_rel).unwrap_or(""),
                    upper.get(open + close_rel + 1..).unwrap_or("").trim(),
                ),
                None => return FieldType::Unsupported(type_str.to_string()),
            },
            None => {
                let (n, r) = upper.split_once(' ').unwrap_or((upper.as_str(), ""));
                (n, "", r.trim())
            }
        };
        let nums: Vec<Option<u32>> = if args.is_empty() {
            Vec::new()
        } else {
            args.split(',').map(|a| a.trim().parse().ok()).collect()
        };
        let arg = |i: usize, default: u32| -> Option<u32> {
            match nums.get(i) {
                None => Some(default),
                Some(v) => *v,
            }
        };
        let unsupported = || FieldType::Unsupported(type_str.to_string());
        match (name, rest) {
            ("BOOLEAN", "") => FieldType::Boolean,
            ("TINYINT", "") => FieldType::TinyInt,
            ("SMALLINT", "") => FieldType::SmallInt,
            ("INT" | "INTEGER", "") => FieldType::Int,
            ("BIGINT", "") => FieldType::BigInt,
            ("FLOAT", "") => FieldType::Float,
            ("DOUBLE", "") | ("DOUBLE", "PRECISION") => FieldType::Double,
            ("CHAR" | "VARCHAR" | "STRING", "") => FieldType::String,
            ("BINARY" | "VARBINARY" | "BYTES", "") => FieldType::Binary,
            ("DATE", "") => FieldType::Date,
            ("TIME", "") => FieldType::Time,
            ("TIMESTAMP", "") | ("TIMESTAMP", "WITHOUT TIME ZONE") => match arg(0, 6) {
                Some(precision) => FieldType::Timestamp { precision },
                None => unsupported(),
            },
            ("TIMESTAMP", "WITH LOCAL TIME ZONE") | ("TIMESTAMP_LTZ", "") => match arg(0, 6) {
                Some(precision) => FieldType::LocalZonedTimestamp { precision },
                None => unsupported(),
            },
            ("DECIMAL" | "NUMERIC" | "DEC", "") => match (arg(0, 10), arg(1, 0)) {
                (Some(precision), Some(scale)) => FieldType::Decimal { precision, scale },
                _ => unsupported(),
            },
            _ => unsupported(),
        }
    }
}

/// One decoded field value.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum<'a> {
    /// SQL NULL.
    Null,
    /// `BOOLEAN`.
    Boolean(bool),
    /// `TINYINT`, `SMALLINT`, `INT`, `BIGINT`.
    Integer(i64),
    /// `FLOAT`.
    Float(f32),
    /// `DOUBLE`.
    Double(f64),
    /// `CHAR`/`VARCHAR`/`STRING`.
    String(&'a str),
    /// `BINARY`/`VARBINARY`/`BYTES`.
    Binary(&'a [u8]),
    /// `DATE`: days since the epoch.
    Date(i32),
    /// `TIME`: milliseconds of the day.
    Time(i32),
    /// `TIMESTAMP` / `TIMESTAMP_LTZ`: epoch millis plus nanoseconds within the milli.
    Timestamp {
        /// Milliseconds since the epoch.
        millis: i64,
        /// Nanoseconds within the millisecond (0..999,999).
        nanos: i32,
        /// Fractional digits of the type.
        precision: u32,
    },
    /// `DECIMAL`: unscaled value and scale.
    Decimal {
        /// The unscaled integer.
        unscaled: i128,
        /// Digits after the point.
        scale: u32,
    },
}

/// A BinaryRow borrowed from serialized bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinaryRow<'a> {
    arity: usize,
    null_bits: usize,
    data: &'a [u8],
}

/// Most fields a serialized row may claim (Paimon rows are far smaller).
const MAX_ARITY: usize = 1 << 20;

impl<'a> BinaryRow<'a> {
    /// Reads the serialized form: 4-byte big-endian arity, then the row.
    pub fn from_serialized(bytes: &'a [u8]) -> Result<BinaryRow<'a>> {
        let prefix: [u8; 4] = bytes
            .get(..4)
            .and_then(|p| p.try_into().ok())
            .ok_or_else(|| {
                Error::format(format!(
                    "expected a BinaryRow with a 4-byte arity, found {} bytes",
                    bytes.len()
                ))
            })?;
        let arity = i32::from_be_bytes(prefix);
        let arity = usize::try_from(arity)
            .map_err(|_| Error::format(format!("expected a BinaryRow arity, found {arity}")))?;
        Self::new(arity, bytes.get(4..).unwrap_or_default())
    }

    /// A row of `arity` fields over `data` (without the arity prefix).
    pub fn new(arity: usize, data: &'a [u8]) -> Result<BinaryRow<'a>> {
        if arity > MAX_ARITY {
            return Err(Error::format(format!(
                "expected a BinaryRow arity of at most {MAX_ARITY}, found {arity}"
            )));
        }
        let null_bits = (arity + 63 + 8) / 64 * 8;
        let fixed = null_bits + 8 * arity;
        if data.len() < fixed {
            return Err(Error::format(format!(
                "expected a BinaryRow of arity {arity} to have at least {fixed} bytes, found {}",
                data.len()
            )));
        }
        Ok(BinaryRow {
            arity,
            null_bits,
            data,
        })
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The row kind byte (0 = `+I`).
    pub fn row_kind(&self) -> u8 {
        self.data.first().copied().unwrap_or(0)
    }

    fn check(&self, pos: usize) -> Result<()> {
        if pos >= self.arity {
            return Err(Error::format(format!(
                "expected a field index below {}, found {pos}",
                self.arity
            )));
        }
        Ok(())
    }

    /// Whether field `pos` is null.
    pub fn is_null(&self, pos: usize) -> Result<bool> {
        self.check(pos)?;
        let bit = pos + 8;
        let byte = self.data.get(bit / 8).copied().unwrap_or(0);
        Ok(byte & (1 << (bit % 8)) != 0)
    }

    fn word_bytes(&self, pos: usize) -> Result<[u8; 8]> {
        self.check(pos)?;
        let start = self.null_bits + 8 * pos;
        self.data
            .get(start..start + 8)
            .and_then(|w| w.try_into().ok())
            .ok_or_else(|| Error::format(format!("field {pos}: the fixed part is truncated")))
    }

    /// The 8-byte word of field `pos`, little-endian.
    pub fn word(&self, pos: usize) -> Result<u64> {
        self.word_bytes(pos).map(u64::from_le_bytes)
    }

    /// `BOOLEAN`.
    pub fn get_bool(&self, pos: usize) -> Result<bool> {
        Ok(self.word_bytes(pos)?.first().copied().unwrap_or(0) != 0)
    }

    /// `TINYINT`.
    pub fn get_i8(&self, pos: usize) -> Result<i8> {
        Ok(i8::from_le_bytes([self
            .word_bytes(pos)?
            .first()
            .copied()
            .unwrap_or(0)]))
    }

    /// `SMALLINT`.
    pub fn get_i16(&self, pos: usize) -> Result<i16> {
        let w = self.word_bytes(pos)?;
        Ok(i16::from_le_bytes([w[0], w[1]]))
    }

    /// `INT`, `DATE`, `TIME`.
    pub fn get_i32(&self, pos: usize) -> Result<i32> {
        let w = self.word_bytes(pos)?;
        Ok(i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    }

    /// `BIGINT`, compact `DECIMAL`, compact `TIMESTAMP`.
    pub fn get_i64(&self, pos: usize) -> Result<i64> {
        Ok(i64::from_le_bytes(self.word_bytes(pos)?))
    }

    /// `FLOAT`.
    pub fn get_f32(&self, pos: usize) -> Result<f32> {
        let w = self.word_bytes(pos)?;
        Ok(f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    }

    /// `DOUBLE`.
    pub fn get_f64(&self, pos: usize) -> Result<f64> {
        Ok(f64::from_le_bytes(self.word_bytes(pos)?))
    }

    /// `offset << 32 | len` resolved against the row (the variable part).
    fn var_slice(&self, pos: usize, offset: u64, len: u64) -> Result<&'a [u8]> {
        let end = offset.saturating_add(len);
        usize::try_from(offset)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| self.data.get(s..e))
            .ok_or_else(|| {
                Error::format(format!(
                    "field {pos}: expected {len} bytes at offset {offset}, found a row of {} bytes",
                    self.data.len()
                ))
            })
    }

    /// A variable-length value (`STRING`, `BINARY`): inline or in the variable part.
    pub fn get_binary(&self, pos: usize) -> Result<&'a [u8]> {
        let w = self.word(pos)?;
        if w & (1 << 63) != 0 {
            let len = ((w >> 56) & 0x7f) as usize;
            if len > 7 {
                return Err(Error::format(format!(
                    "field {pos}: expected an inline length of at most 7, found {len}"
                )));
            }
            let start = self.null_bits + 8 * pos;
            return self
                .data
                .get(start..start + len)
                .ok_or_else(|| Error::format(format!("field {pos}: truncated inline value")));
        }
        self.var_slice(pos, w >> 32, w & 0xffff_ffff)
    }

    /// A `STRING` (UTF-8 checked).
    pub fn get_string(&self, pos: usize) -> Result<&'a str> {
        let b = self.get_binary(pos)?;
        std::str::from_utf8(b)
            .map_err(|_| Error::format(format!("field {pos}: expected UTF-8, found invalid bytes")))
    }

    /// A `TIMESTAMP(p)`: compact (`p <= 3`, millis in the word) or not (millis in the variable
    /// part, nanos-of-milli in the word's low 32 bits).
    pub fn get_timestamp(&self, pos: usize, precision: u32) -> Result<(i64, i32)> {
        if precision <= 3 {
            return Ok((self.get_i64(pos)?, 0));
        }
        let w = self.word(pos)?;
        let nanos = (w & 0xffff_ffff) as u32 as i32;
        let millis = self.var_slice(pos, w >> 32, 8)?;
        let millis: [u8; 8] = millis
            .try_into()
            .map_err(|_| Error::format(format!("field {pos}: truncated timestamp")))?;
        if !(0..1_000_000).contains(&nanos) {
            return Err(Error::format(format!(
                "field {pos}: expected nanoseconds of a millisecond, found {nanos}"
            )));
        }
        Ok((i64::from_le_bytes(millis), nanos))
    }

    /// A `DECIMAL(p, s)` as its unscaled value.
    pub fn get_decimal(&self, pos: usize, precision: u32) -> Result<i128> {
        if precision <= 18 {
            return Ok(i128::from(self.get_i64(pos)?));
        }
        let w = self.word(pos)?;
        let bytes = self.var_slice(pos, w >> 32, w & 0xffff_ffff)?;
        if bytes.is_empty() || bytes.len() > 16 {
            return Err(Error::format(format!(
                "field {pos}: expected 1 to 16 decimal bytes, found {}",
                bytes.len()
            )));
        }
        // Big-endian two's complement, sign-extended.
        let mut v: i128 = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
            -1
        } else {
            0
        };
        for b in bytes {
            v = (v << 8) | i128::from(*b);
        }
        Ok(v)
    }

    /// Field `pos` decoded as `ty`.
    pub fn get(&self, pos: usize, ty: &FieldType) -> Result<Datum<'a>> {
        if self.is_null(pos)? {
            return Ok(Datum::Null);
        }
        Ok(match ty {
            FieldType::Boolean => Datum::Boolean(self.get_bool(pos)?),
            FieldType::TinyInt => Datum::Integer(i64::from(self.get_i8(pos)?)),
            FieldType::SmallInt => Datum::Integer(i64::from(self.get_i16(pos)?)),
            FieldType::Int => Datum::Integer(i64::from(self.get_i32(pos)?)),
            FieldType::BigInt => Datum::Integer(self.get_i64(pos)?),
            FieldType::Float => Datum::Float(self.get_f32(pos)?),
            FieldType::Double => Datum::Double(self.get_f64(pos)?),
            FieldType::String => Datum::String(self.get_string(pos)?),
            FieldType::Binary => Datum::Binary(self.get_binary(pos)?),
            FieldType::Date => Datum::Date(self.get_i32(pos)?),
            FieldType::Time => Datum::Time(self.get_i32(pos)?),
            FieldType::Timestamp { precision } | FieldType::LocalZonedTimestamp { precision } => {
                let (millis, nanos) = self.get_timestamp(pos, *precision)?;
                Datum::Timestamp {
                    millis,
                    nanos,
                    precision: *precision,
                }
            }
            FieldType::Decimal { precision, scale } => Datum::Decimal {
                unscaled: self.get_decimal(pos, *precision)?,
                scale: *scale,
            },
            FieldType::Unsupported(t) => {
                return Err(Error::unsupported(format!(
                    "field {pos}: cannot decode type {t}"
                )))
            }
        })
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// How partition values become directory names (`partition.default-name`,
/// `partition.legacy-name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRenderOptions {
    /// `partition.default-name`: used for null and whitespace-only values.
    pub default_name: String,
    /// `partition.legacy-name` (default `true`): values are Java `toString()` of the internal
    /// object (a `DATE` is days since the epoch); `false` renders SQL `CAST(… AS STRING)`
    /// (best effort for timestamps).
    pub legacy_name: bool,
}

impl PartitionRenderOptions {
    /// From a table's options (`partition.default-name`, `partition.legacy-name`), with
    /// Paimon's defaults for what is absent.
    pub fn from_options(options: &std::collections::BTreeMap<String, String>) -> Self {
        let mut o = Self::default();
        if let Some(name) = options.get("partition.default-name") {
            o.default_name = name.clone();
        }
        if let Some(legacy) = options.get("partition.legacy-name") {
            o.legacy_name = !legacy.trim().eq_ignore_ascii_case("false");
        }
        o
    }
}

impl Default for PartitionRenderOptions {
    fn default() -> Self {
        PartitionRenderOptions {
            default_name: "__DEFAULT_PARTITION__".to_string(),
            legacy_name: true,
        }
    }
}

/// Renders a serialized partition row as its directory path `k1=v1/k2=v2` (escaped like
/// Paimon's `PartitionPathUtils`), given the partition fields `(name, type)` in partition-key
/// order, as [`crate::paimon::schema::TableSchema::partition_fields`] returns them. An empty
/// row with no fields renders as `""`.
///
/// Errors if the arity differs from the fields, a type cannot be decoded, or the bytes are
/// malformed; [`render_partition`] falls back to hex instead.
pub fn try_render_partition(
    serialized: &[u8],
    fields: &[(String, String)],
    opts: &PartitionRenderOptions,
) -> Result<String> {
    let row = BinaryRow::from_serialized(serialized)?;
    if row.arity() != fields.len() {
        return Err(Error::format(format!(
            "expected a partition of {} fields, found arity {}",
            fields.len(),
            row.arity()
        )));
    }
    let mut out = String::new();
    for (i, (name, type_str)) in fields.iter().enumerate() {
        let ty = FieldType::parse(type_str);
        let datum = row
            .get(i, &ty)
            .map_err(|e| e.context(format!("field {name}")))?;
        let value = datum_to_string(&datum, opts.legacy_name)
            .map_err(|e| e.context(format!("field {name}")))?;
        let value = match value {
            Some(v) if !v.trim().is_empty() => v,
            _ => opts.default_name.clone(),
        };
        if i > 0 {
            out.push('/');
        }
        escape_path_name(name, &mut out);
        out.push('=');
        escape_path_name(&value, &mut out);
    }
    Ok(out)
}

/// Like [`try_render_partition`], but renders the serialized bytes as `0x<hex>` when the types
/// are unknown or decoding fails.
pub fn render_partition(
    serialized: &[u8],
    fields: &[(String, String)],
    opts: &PartitionRenderOptions,
) -> String {
    try_render_partition(serialized, fields, opts)
        .unwrap_or_else(|_| format!("0x{}", hex(serialized)))
}

/// Escapes like `PartitionPathUtils.escapePathName`: ASCII controls and
/// `"#%'*/:=?\{}[]^` and DEL become `%XX`.
fn escape_path_name(s: &str, out: &mut String) {
    for c in s.chars() {
        let needs = matches!(
            c,
            '\u{0}'
                ..='\u{1f}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7f}'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | '^'
        );
        if needs {
            let _ = write!(out, "%{:02X}", c as u32);
        } else {
            out.push(c);
        }
    }
}

/// A value as Paimon names it in a partition path; `None` for null.
fn datum_to_string(d: &Datum<'_>, legacy: bool) -> Result<Option<String>> {
    Ok(Some(match d {
        Datum::Null => return Ok(None),
        Datum::Boolean(b) => b.to_string(),
        Datum::Integer(v) => v.to_string(),
        Datum::Float(v) => java_float(f64::from(*v), v.to_string(), format!("{v:e}")),
        Datum::Double(v) => java_float(*v, v.to_string(), format!("{v:e}")),
        Datum::String(s) => (*s).to_string(),
        Datum::Binary(_) => {
            return Err(Error::unsupported(
                "binary partition values have no path rendering",
            ))
        }
        Datum::Date(days) if legacy => days.to_string(),
        Datum::Date(days) => format_date(i64::from(*days)),
        Datum::Time(ms) if legacy => ms.to_string(),
        Datum::Time(ms) => format_time(i64::from(*ms), 0),
        Datum::Timestamp { millis, nanos, .. } if legacy => local_date_time(*millis, *nanos),
        Datum::Timestamp {
            millis,
            nanos,
            precision,
        } => sql_timestamp(*millis, *nanos, *precision),
        Datum::Decimal { unscaled, scale } => plain_decimal(*unscaled, *scale),
    }))
}

/// Java's `Double.toString`/`Float.toString` shape: `1.0`, `123.45`, `1.0E10`, `1.0E-5`.
fn java_float(v: f64, plain: String, sci: String) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = v.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}

/// `BigDecimal.toPlainString()` of `unscaled * 10^-scale`.
fn plain_decimal(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

fn format_year(y: i64) -> String {
    if y > 9999 {
        format!("+{y}")
    } else if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

fn format_date(days: i64) -> String {
    let (y, m, d) = crate::time::civil_from_days(days);
    format!("{}-{m:02}-{d:02}", format_year(y))
}

fn format_time(ms_of_day: i64, nanos_in_milli: i32) -> String {
    let h = ms_of_day / 3_600_000;
    let mi = ms_of_day / 60_000 % 60;
    let s = ms_of_day / 1000 % 60;
    let nanos = (ms_of_day % 1000) * 1_000_000 + i64::from(nanos_in_milli);
    let mut out = format!("{h:02}:{mi:02}:{s:02}");
    if nanos != 0 {
        out.push_str(&java_fraction(nanos));
    }
    out
}

/// Java `LocalTime`'s fraction: 3, 6 or 9 digits, whichever is exact.
fn java_fraction(nanos: i64) -> String {
    if nanos % 1_000_000 == 0 {
        format!(".{:03}", nanos / 1_000_000)
    } else if nanos % 1000 == 0 {
        format!(".{:06}", nanos / 1000)
    } else {
        format!(".{nanos:09}")
    }
}

fn split_millis(millis: i64) -> (i64, i64) {
    (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000))
}

/// Java `LocalDateTime.toString()`: `2024-01-01T10:00`, `…T10:00:05`, `…T10:00:05.123`.
fn local_date_time(millis: i64, nanos: i32) -> String {
    let (days, ms) = split_millis(millis);
    let date = format_date(days);
    let h = ms / 3_600_000;
    let mi = ms / 60_000 % 60;
    let s = ms / 1000 % 60;
    let frac = (ms % 1000) * 1_000_000 + i64::from(nanos);
    let mut out = format!("{date}T{h:02}:{mi:02}");
    if s != 0 || frac != 0 {
        let _ = write!(out, ":{s:02}");
        if frac != 0 {
            out.push_str(&java_fraction(frac));
        }
    }
    out
}

/// SQL `CAST(ts AS STRING)`: `2024-01-01 10:00:05.123` with `precision` fraction digits.
fn sql_timestamp(millis: i64, nanos: i32, precision: u32) -> String {
    let (days, ms) = split_millis(millis);
    let mut out = format!("{} {}", format_date(days), format_time(ms - ms % 1000, 0));
    if precision > 0 {
        let frac = format!("{:09}", (ms % 1000) * 1_000_000 + i64::from(nanos));
        out.push('.');
        out.push_str(frac.get(..precision.min(9) as usize).unwrap_or(&frac));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn fields(f: &[(&str, &str)]) -> Vec<(String, String)> {
        f.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn section_3_7_examples() {
        let empty = unhex("00000000 0000000000000000");
        let r = BinaryRow::from_serialized(&empty).unwrap();
        assert_eq!(r.arity(), 0);
        assert_eq!(
            try_render_partition(&empty, &[], &Default::default()).unwrap(),
            ""
        );

        let one = unhex("00000001 0000000000000000 0100000000000000");
        let r = BinaryRow::from_serialized(&one).unwrap();
        assert_eq!(r.get(0, &FieldType::Int).unwrap(), Datum::Integer(1));

        let inline = unhex("00000002 0000000000000000 3100000000000081 0100000000000000");
        let r = BinaryRow::from_serialized(&inline).unwrap();
        assert_eq!(r.get(0, &FieldType::String).unwrap(), Datum::String("1"));
        assert_eq!(r.get(1, &FieldType::Int).unwrap(), Datum::Integer(1));

        let var = unhex(
            "00000002 0000000000000000 0a00000018000000 0700000000000000 323032342d30312d3031000000000000",
        );
        let r = BinaryRow::from_serialized(&var).unwrap();
        assert_eq!(
            r.get(0, &FieldType::String).unwrap(),
            Datum::String("2024-01-01")
        );
        assert_eq!(r.get(1, &FieldType::Int).unwrap(), Datum::Integer(7));
        let f = fields(&[("dt", "STRING"), ("id", "INT")]);
        assert_eq!(
            render_partition(&var, &f, &Default::default()),
            "dt=2024-01-01/id=7"
        );

        let long = unhex(
            "00000002 0000000000000000 1800000018000000 40e2010000000000 \
             615f6c6f6e6765725f706172746974696f6e5f76616c7565",
        );
        assert_eq!(
            render_partition(&long, &f, &Default::default()),
            "dt=a_longer_partition_value/id=123456"
        );
    }

    #[test]
    fn appendix_b_partition_and_keys() {
        let part =
            unhex("0000000200000000000000000a000000180000000700000000000000323032342d30312d3031000000000000");
        let f = fields(&[("dt", "STRING NOT NULL"), ("id", "INT NOT NULL")]);
        assert_eq!(
            try_render_partition(&part, &f, &Default::default()).unwrap(),
            "dt=2024-01-01/id=7"
        );
        let key = unhex("0000000100000000000000000100000000000000");
        let r = BinaryRow::from_serialized(&key).unwrap();
        assert_eq!(r.get(0, &FieldType::BigInt).unwrap(), Datum::Integer(1));
    }

    /// Builds a serialized row the way Paimon's BinaryRowWriter does.
    fn build(values: &[Option<Vec<u8>>], fixed: &[Option<u64>]) -> Vec<u8> {
        let arity = values.len();
        let nb = (arity + 63 + 8) / 64 * 8;
        let mut row = vec![0u8; nb + 8 * arity];
        for (i, (v, w)) in values.iter().zip(fixed).enumerate() {
            let at = nb + 8 * i;
            match (v, w) {
                (None, None) => row[(i + 8) / 8] |= 1 << ((i + 8) % 8),
                (_, Some(w)) => row[at..at + 8].copy_from_slice(&w.to_le_bytes()),
                (Some(v), None) if v.len() <= 7 => {
                    row[at..at + v.len()].copy_from_slice(v);
                    row[at + 7] = 0x80 | v.len() as u8;
                }
                (Some(v), None) => {
                    let off = row.len() as u64;
                    let w = (off << 32) | v.len() as u64;
                    row[at..at + 8].copy_from_slice(&w.to_le_bytes());
                    row.extend_from_slice(v);
                    while !row.len().is_multiple_of(8) {
                        row.push(0);
                    }
                }
            }
        }
        let mut out = (arity as i32).to_be_bytes().to_vec();
        out.extend(row);
        out
    }

    #[test]
    fn nulls_render_as_default_partition_and_escape() {
        let row = build(
            &[None, Some(b"a/b=c d".to_vec()), Some(b"  ".to_vec())],
            &[None, None, None],
        );
        let f = fields(&[("dt", "STRING"), ("k", "VARCHAR(10)"), ("w", "STRING")]);
        assert_eq!(
            render_partition(&row, &f, &Default::default()),
            "dt=__DEFAULT_PARTITION__/k=a%2Fb%3Dc d/w=__DEFAULT_PARTITION__"
        );
        let r = BinaryRow::from_serialized(&row).unwrap();
        assert!(r.is_null(0).unwrap());
        assert!(!r.is_null(1).unwrap());
    }

    #[test]
    fn options_from_the_table() {
        let mut m = std::collections::BTreeMap::new();
        assert_eq!(
            PartitionRenderOptions::from_options(&m),
            PartitionRenderOptions::default()
        );
        m.insert("partition.default-name".to_string(), "NULL_P".to_string());
        m.insert("partition.legacy-name".to_string(), "false".to_string());
        let o = PartitionRenderOptions::from_options(&m);
        assert_eq!(o.default_name, "NULL_P");
        assert!(!o.legacy_name);
        let row = build(&[None], &[None]);
        let f = fields(&[("dt", "DATE")]);
        assert_eq!(render_partition(&row, &f, &o), "dt=NULL_P");
    }

    #[test]
    fn typed_values() {
        let days_2024_01_01 = 19723u64;
        let ts_millis = 1_704_103_205_123i64; // 2024-01-01T10:00:05.123Z
        let row = build(
            &vec![Some(vec![]); 8],
            &[
                Some(1),
                Some((-5i8) as u8 as u64),
                Some(days_2024_01_01),
                Some(ts_millis as u64),
                Some(12345),
                Some(f64::to_bits(1.5)),
                Some(f64::to_bits(1e10)),
                Some((-7i64) as u64),
            ],
        );
        let f = fields(&[
            ("b", "BOOLEAN"),
            ("t", "TINYINT"),
            ("d", "DATE"),
            ("ts", "TIMESTAMP(3)"),
            ("dec", "DECIMAL(10, 2)"),
            ("x", "DOUBLE"),
            ("y", "DOUBLE"),
            ("n", "DECIMAL(5,3)"),
        ]);
        assert_eq!(
            try_render_partition(&row, &f, &Default::default()).unwrap(),
            "b=true/t=-5/d=19723/ts=2024-01-01T10%3A00%3A05.123/dec=123.45/x=1.5/y=1.0E10/n=-0.007"
        );
        let opts = PartitionRenderOptions {
            legacy_name: false,
            ..Default::default()
        };
        let s = try_render_partition(&row, &f, &opts).unwrap();
        assert!(
            s.contains("d=2024-01-01/ts=2024-01-01 10%3A00%3A05.123/"),
            "{s}"
        );
    }

    #[test]
    fn non_compact_timestamp_and_decimal() {
        let millis = 86_400_000i64 + 1; // 1970-01-02T00:00:00.001
        let dec: i128 = -123_456_789_012_345_678_901;
        let dec_bytes = dec.to_be_bytes();
        let trimmed = dec_bytes[7..].to_vec(); // 9 bytes, sign preserved
        let mut row = build(&[Some(vec![0; 8]), Some(trimmed)], &[None, None]);
        // Patch field 0 into the timestamp layout: millis in var part, nanos in the word.
        let nb = 8;
        let base = 4;
        let w0 = u64::from_le_bytes(row[base + nb..base + nb + 8].try_into().unwrap());
        let off = (w0 >> 32) as usize;
        row[base + off..base + off + 8].copy_from_slice(&millis.to_le_bytes());
        let w = (w0 & 0xffff_ffff_0000_0000) | 500;
        row[base + nb..base + nb + 8].copy_from_slice(&w.to_le_bytes());
        let r = BinaryRow::from_serialized(&row).unwrap();
        assert_eq!(r.get_timestamp(0, 9).unwrap(), (millis, 500));
        assert_eq!(r.get_decimal(1, 30).unwrap(), dec);
        let f = fields(&[("ts", "TIMESTAMP(9)"), ("d", "DECIMAL(30, 3)")]);
        assert_eq!(
            try_render_partition(&row, &f, &Default::default()).unwrap(),
            "ts=1970-01-02T00%3A00%3A00.001000500/d=-123456789012345678.901"
        );
    }

    #[test]
    fn unknown_types_and_bad_bytes_fall_back_to_hex() {
        let row = unhex("00000001 0000000000000000 0100000000000000");
        let f = fields(&[("m", r#"{"type":"MAP","key":"INT","value":"INT"}"#)]);
        assert_eq!(
            render_partition(&row, &f, &Default::default()),
            "0x0000000100000000000000000100000000000000"
        );
    }

    #[test]
    fn malformed_rows_are_errors() {
        assert!(BinaryRow::from_serialized(&[]).is_err());
        assert!(BinaryRow::from_serialized(&[0, 0, 0]).is_err());
        assert!(BinaryRow::from_serialized(&unhex("ffffffff")).is_err());
        assert!(BinaryRow::from_serialized(&unhex("7fffffff")).is_err());
        assert!(BinaryRow::from_serialized(&unhex("00000001 00000000")).is_err());
        // Offset pointing past the end.
        let bad = unhex("00000001 0000000000000000 05000000ff000000");
        let r = BinaryRow::from_serialized(&bad).unwrap();
        assert!(r.get_string(0).is_err());
        assert!(r.get(1, &FieldType::Int).is_err());
        let f = fields(&[("a", "STRING")]);
        assert!(render_partition(&bad, &f, &Default::default()).starts_with("0x"));
        // Arity mismatch.
        let f2 = fields(&[("a", "STRING"), ("b", "INT")]);
        assert!(try_render_partition(&bad, &f2, &Default::default()).is_err());
    }

    #[test]
    fn type_parsing() {
        assert_eq!(FieldType::parse("INT NOT NULL"), FieldType::Int);
        assert_eq!(FieldType::parse("varchar(20)"), FieldType::String);
        assert_eq!(
            FieldType::parse("DECIMAL(10, 2)"),
            FieldType::Decimal {
                precision: 10,
                scale: 2
            }
        );
        assert_eq!(
            FieldType::parse("TIMESTAMP(3) WITH LOCAL TIME ZONE"),
            FieldType::LocalZonedTimestamp { precision: 3 }
        );
        assert_eq!(
            FieldType::parse("TIMESTAMP"),
            FieldType::Timestamp { precision: 6 }
        );
        assert_eq!(
            FieldType::parse("TIMESTAMP_LTZ(6)"),
            FieldType::LocalZonedTimestamp { precision: 6 }
        );
        assert!(matches!(
            FieldType::parse("ARRAY<INT>"),
            FieldType::Unsupported(_)
        ));
        assert!(matches!(
            FieldType::parse("DECIMAL(x)"),
            FieldType::Unsupported(_)
        ));
    }

    #[test]
    fn java_number_and_date_formats() {
        assert_eq!(java_float(1.0, "1".into(), "1e0".into()), "1.0");
        assert_eq!(java_float(1e-5, "0.00001".into(), "1e-5".into()), "1.0E-5");
        assert_eq!(
            java_float(1.25e12, "1250000000000".into(), "1.25e12".into()),
            "1.25E12"
        );
        assert_eq!(plain_decimal(5, 2), "0.05");
        assert_eq!(plain_decimal(-105, 2), "-1.05");
        assert_eq!(plain_decimal(0, 0), "0");
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(format_date(19723), "2024-01-01");
        assert_eq!(format_date(11016), "2000-02-29");
        assert_eq!(local_date_time(0, 0), "1970-01-01T00:00");
        assert_eq!(local_date_time(-1, 0), "1969-12-31T23:59:59.999");
        assert_eq!(local_date_time(5_000, 0), "1970-01-01T00:00:05");
        assert_eq!(local_date_time(0, 1000), "1970-01-01T00:00:00.000001");
    }
}
