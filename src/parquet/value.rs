//! Decoded values and their rendering for reports (decimals scaled, dates as `YYYY-MM-DD`,
//! timestamps ISO 8601).

use std::fmt::Write as _;
use std::sync::Arc;

use super::metadata::{LogicalType, TimeUnit};

/// One decoded value. Values keep their physical representation; the column's
/// [`LogicalType`] says what they mean ([`Value::render`] applies it).
///
/// * `INT32`/`INT64` (including DATE, TIME, TIMESTAMP and DECIMAL stored as integers) → `Int`
///   holding the raw integer (unsigned 8/16/32-bit columns as their non-negative value, unsigned
///   64-bit columns as the same bits);
/// * `INT96` → `Int` nanoseconds since the epoch (`FixedBytes` of the 12 raw bytes if that
///   overflows 64 bits);
/// * `BYTE_ARRAY` annotated STRING/ENUM/JSON → `Str` (or `Bytes` if not valid UTF-8), other
///   `BYTE_ARRAY` → `Bytes`; `FIXED_LEN_BYTE_ARRAY` → `FixedBytes`.
///
/// Bytes and text are shared (`Arc`): the rows of a dictionary-encoded column point at the
/// dictionary's values instead of copying them, so cloning a value never copies its bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Null (an optional value that is absent).
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// INT32/INT64/INT96 as described above.
    Int(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// BYTE_ARRAY without a text annotation (or text that is not UTF-8).
    Bytes(Arc<[u8]>),
    /// BYTE_ARRAY annotated as text.
    Str(Arc<str>),
    /// FIXED_LEN_BYTE_ARRAY (decimals, UUIDs, …).
    FixedBytes(Arc<[u8]>),
}

impl Value {
    /// Whether the value is null.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The integer, for `Int`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The number, for `Float`, `Double` and `Int`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(f64::from(*v)),
            Value::Double(v) => Some(*v),
            Value::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    /// The text, for `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes, for `Bytes`, `FixedBytes` and `Str`.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) | Value::FixedBytes(b) => Some(b),
            Value::Str(s) => Some(s.as_bytes()),
            _ => None,
        }
    }

    /// The value as text for a report, given its column's logical type: decimals scaled
    /// (`-12.50`), dates `2024-01-02`, timestamps `2024-01-02T03:04:05.123Z` (with as many
    /// fraction digits as the unit, `Z` only for UTC-adjusted instants), times `03:04:05.123`,
    /// UUIDs hyphenated, other bytes as `0x` + hex, unsigned 64-bit integers as unsigned, `null`
    /// for nulls.
    pub fn render(&self, logical: Option<&LogicalType>) -> String {
        match (self, logical) {
            (Value::Null, _) => "null".into(),
            (Value::Bool(b), _) => b.to_string(),
            (Value::Int(v), Some(LogicalType::Decimal { scale, .. })) => {
                decimal_string(i128::from(*v), *scale)
            }
            (Value::Int(v), Some(LogicalType::Date)) => date_string(*v),
            (Value::Int(v), Some(LogicalType::Timestamp { unit, utc })) => {
                timestamp_string(*v, *unit, *utc)
            }
            (Value::Int(v), Some(LogicalType::Time { unit, .. })) => time_string(*v, *unit),
            (
                Value::Int(v),
                Some(LogicalType::Integer {
                    bits: 64,
                    signed: false,
                }),
            ) => (*v as u64).to_string(),
            (Value::Int(v), _) => v.to_string(),
            (Value::Float(v), _) => v.to_string(),
            (Value::Double(v), _) => v.to_string(),
            (Value::Str(s), _) => s.to_string(),
            (Value::Bytes(b) | Value::FixedBytes(b), Some(LogicalType::Decimal { scale, .. })) => {
                match be_to_i128(b) {
                    Some(v) => decimal_string(v, *scale),
                    None => hex(b),
                }
            }
            (Value::FixedBytes(b), Some(LogicalType::Uuid)) if b.len() == 16 => uuid_string(b),
            (Value::FixedBytes(b), Some(LogicalType::Float16)) if b.len() == 2 => {
                f16_to_f32(u16::from_le_bytes([
                    b.first().copied().unwrap_or(0),
                    b.get(1).copied().unwrap_or(0),
                ]))
                .to_string()
            }
            (Value::Bytes(b) | Value::FixedBytes(b), _) => hex(b),
        }
    }

    /// The value as JSON for a report: integers and finite floats as numbers, text as strings,
    /// decimals, dates, times, timestamps, bytes and non-finite floats as their
    /// [`Value::render`] text.
    pub fn to_json(&self, logical: Option<&LogicalType>) -> serde_json::Value {
        use serde_json::Value as J;
        match (self, logical) {
            (Value::Null, _) => J::Null,
            (Value::Bool(b), _) => J::Bool(*b),
            (
                Value::Int(_),
                Some(
                    LogicalType::Decimal { .. }
                    | LogicalType::Date
                    | LogicalType::Time { .. }
                    | LogicalType::Timestamp { .. },
                ),
            ) => J::String(self.render(logical)),
            (
                Value::Int(v),
                Some(LogicalType::Integer {
                    bits: 64,
                    signed: false,
                }),
            ) => J::from(*v as u64),
            (Value::Int(v), _) => J::from(*v),
            (Value::Float(_) | Value::Double(_), _) => self
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map(J::Number)
                .unwrap_or_else(|| J::String(self.render(logical))),
            (Value::Str(s), _) => J::String(s.to_string()),
            _ => J::String(self.render(logical)),
        }
    }
}

/// Big-endian two's complement bytes as an i128, if they fit.
pub(crate) fn be_to_i128(b: &[u8]) -> Option<i128> {
    let negative = b.first().is_some_and(|&x| x & 0x80 != 0);
    // Drop redundant sign-extension bytes beyond 16.
    let mut s = b;
    while s.len() > 16 {
        let (first, rest) = s.split_first()?;
        let next_negative = rest.first().is_some_and(|&x| x & 0x80 != 0);
        let redundant = (*first == 0 && !next_negative) || (*first == 0xff && next_negative);
        if !redundant {
            return None;
        }
        s = rest;
    }
    let mut v: i128 = if negative { -1 } else { 0 };
    for &byte in s {
        v = (v << 8) | i128::from(byte);
    }
    Some(v)
}

/// `unscaled × 10^-scale` in plain notation (`-0.05`, `1200`).
pub(crate) fn decimal_string(unscaled: i128, scale: i32) -> String {
    const MAX_SCALE: i32 = 80;
    if !(-MAX_SCALE..=MAX_SCALE).contains(&scale) {
        return format!("{unscaled}E{}", -i64::from(scale));
    }
    let negative = unscaled < 0;
    let mut digits = unscaled.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + 4);
    if negative {
        out.push('-');
    }
    if scale <= 0 {
        out.push_str(&digits);
        for _ in 0..(-scale) {
            out.push('0');
        }
        return out;
    }
    let scale = scale as usize;
    if digits.len() <= scale {
        let pad = scale + 1 - digits.len();
        digits.insert_str(0, &"0".repeat(pad));
    }
    let point = digits.len() - scale;
    out.push_str(digits.get(..point).unwrap_or("0"));
    out.push('.');
    out.push_str(digits.get(point..).unwrap_or(""));
    out
}

fn date_string(days: i64) -> String {
    let (y, m, d) = crate::time::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

fn timestamp_string(v: i64, unit: TimeUnit, utc: bool) -> String {
    let per = unit.per_second();
    let secs = v.div_euclid(per);
    let frac = v.rem_euclid(per);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let mut s = date_string(days);
    let _ = write!(
        s,
        "T{:02}:{:02}:{:02}.{:0width$}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        frac,
        width = unit.digits()
    );
    if utc {
        s.push('Z');
    }
    s
}

fn time_string(v: i64, unit: TimeUnit) -> String {
    let per = unit.per_second();
    let secs = v.div_euclid(per);
    let frac = v.rem_euclid(per);
    format!(
        "{:02}:{:02}:{:02}.{:0width$}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        frac,
        width = unit.digits()
    )
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for byte in b {
        let _ = write!(s, "{byte:02x}");
    }
    s
}

fn uuid_string(b: &[u8]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        let _ = write!(s, "{byte:02x}");
    }
    s
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f32::from(h & 0x3ff);
    match exp {
        0 => sign * man * 2f32.powi(-24),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_render_with_their_scale() {
        assert_eq!(decimal_string(1250, 2), "12.50");
        assert_eq!(decimal_string(-5, 2), "-0.05");
        assert_eq!(decimal_string(0, 3), "0.000");
        assert_eq!(decimal_string(12, 0), "12");
        assert_eq!(decimal_string(12, -2), "1200");
        assert_eq!(decimal_string(i128::MIN, 1).len(), 41);
        assert_eq!(decimal_string(7, i32::MAX), "7E-2147483647");
        let d = LogicalType::Decimal {
            precision: 10,
            scale: 2,
        };
        assert_eq!(
            Value::FixedBytes(vec![0xff, 0xff, 0xfb].into()).render(Some(&d)),
            "-0.05"
        );
        assert_eq!(be_to_i128(&[0; 20]), Some(0));
        assert_eq!(be_to_i128(&[0xff; 20]), Some(-1));
        assert_eq!(be_to_i128(&[1; 20]), None);
        assert_eq!(be_to_i128(&[]), Some(0));
    }

    #[test]
    fn dates_and_timestamps_render_iso() {
        assert_eq!(
            Value::Int(19723).render(Some(&LogicalType::Date)),
            "2024-01-01"
        );
        assert_eq!(
            Value::Int(-1).render(Some(&LogicalType::Date)),
            "1969-12-31"
        );
        let ts = LogicalType::Timestamp {
            unit: TimeUnit::Millis,
            utc: true,
        };
        assert_eq!(
            Value::Int(1_704_164_645_123).render(Some(&ts)),
            "2024-01-02T03:04:05.123Z"
        );
        assert_eq!(Value::Int(-1).render(Some(&ts)), "1969-12-31T23:59:59.999Z");
        // Extremes do not panic.
        for v in [i64::MIN, i64::MAX] {
            for l in [
                LogicalType::Date,
                ts,
                LogicalType::Time {
                    unit: TimeUnit::Nanos,
                    utc: false,
                },
            ] {
                let _ = Value::Int(v).render(Some(&l));
            }
        }
        let t = LogicalType::Time {
            unit: TimeUnit::Micros,
            utc: false,
        };
        assert_eq!(
            Value::Int(3_723_000_004).render(Some(&t)),
            "01:02:03.000004"
        );
    }

    #[test]
    fn other_values_render() {
        assert_eq!(Value::Bytes(vec![0xab, 1].into()).render(None), "0xab01");
        let u = LogicalType::Integer {
            bits: 64,
            signed: false,
        };
        assert_eq!(Value::Int(-1).render(Some(&u)), "18446744073709551615");
        assert_eq!(
            Value::Int(-1).to_json(Some(&u)),
            serde_json::json!(u64::MAX)
        );
        assert_eq!(
            Value::FixedBytes((0u8..16).collect::<Vec<_>>().into())
                .render(Some(&LogicalType::Uuid)),
            "00010203-0405-0607-0809-0a0b0c0d0e0f"
        );
        assert_eq!(
            Value::FixedBytes(vec![0x00, 0x3c].into()).render(Some(&LogicalType::Float16)),
            "1"
        );
        assert_eq!(
            Value::Double(f64::NAN).to_json(None),
            serde_json::json!("NaN")
        );
        assert_eq!(Value::Null.to_json(None), serde_json::Value::Null);
    }
}
