//! One column of one stripe: its streams (inflated) decoded into values.
//!
//! * PRESENT (boolean RLE) marks the non-null rows; without it every row is present.
//! * BOOLEAN: DATA boolean RLE. BYTE: DATA byte RLE. SHORT, INT, LONG, DATE: DATA signed
//!   integer RLE. FLOAT, DOUBLE: DATA little-endian IEEE 754.
//! * STRING, VARCHAR, CHAR, BINARY: DIRECT(_V2) = DATA bytes + LENGTH unsigned RLE;
//!   DICTIONARY(_V2) = DATA unsigned RLE of dictionary indexes + DICTIONARY_DATA bytes +
//!   LENGTH of the dictionary's entries.
//! * DECIMAL: DATA unbounded zigzag varints (the unscaled values) + SECONDARY signed RLE (each
//!   value's scale), brought to the column's scale.
//! * TIMESTAMP, TIMESTAMP_INSTANT: DATA signed RLE of seconds since 2015-01-01 00:00:00 (in
//!   the writer's time zone for TIMESTAMP, `zone.rs`; UTC for TIMESTAMP_INSTANT) + SECONDARY
//!   unsigned RLE of nanoseconds (the low 3 bits count trailing decimal zeros removed, less
//!   one).
//!
//! Integer RLE is version 1 for DIRECT / DICTIONARY and version 2 for the `_V2` encodings.

use std::sync::Arc;

use super::meta::{Encoding, Kind};
use super::rle::{self, Cursor};
use super::zone::WriterZone;
use super::{LtzLayout, OrcColumn};
use crate::error::{Error, Result, ResultExt};
use crate::limits::ReadBudget;
use crate::parquet::Value;

/// The inflated streams of one column in one stripe.
#[derive(Default)]
pub(crate) struct Streams {
    pub(crate) present: Option<Vec<u8>>,
    pub(crate) data: Option<Vec<u8>>,
    pub(crate) length: Option<Vec<u8>>,
    pub(crate) dictionary: Option<Vec<u8>>,
    pub(crate) secondary: Option<Vec<u8>>,
}

/// What to decode.
pub(crate) struct Spec<'a> {
    pub(crate) column: &'a OrcColumn,
    pub(crate) encoding: Encoding,
    pub(crate) dict_size: u64,
    pub(crate) rows: usize,
    pub(crate) timezone: Option<&'a str>,
    pub(crate) ltz: LtzLayout,
}

fn stream<'a>(s: &'a Option<Vec<u8>>, name: &str) -> Result<Cursor<'a>> {
    s.as_deref()
        .map(Cursor::new)
        .ok_or_else(|| Error::format(format!("the {name} stream is missing")))
}

fn in_stream<T>(r: Result<T>, name: &str) -> Result<T> {
    r.context(|| format!("stream {name}"))
}

/// Decodes `spec.rows` values onto `out`.
pub(crate) fn decode(
    spec: &Spec<'_>,
    streams: &Streams,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<()> {
    let rows = spec.rows;
    let present = match &streams.present {
        Some(p) => Some(in_stream(
            rle::booleans(&mut Cursor::new(p), rows),
            "PRESENT",
        )?),
        None => None,
    };
    let n = present
        .as_ref()
        .map_or(rows, |p| p.iter().filter(|&&b| b).count());
    let values = if n == 0 {
        Vec::new()
    } else {
        values(spec, streams, n, budget)?
    };
    if values.len() != n {
        return Err(Error::format(format!(
            "{} values decoded for {n} non-null rows",
            values.len()
        )));
    }
    match present {
        None => out.extend(values),
        Some(p) => {
            let mut it = values.into_iter();
            for is_present in p {
                out.push(if is_present {
                    it.next().unwrap_or(Value::Null)
                } else {
                    Value::Null
                });
            }
        }
    }
    Ok(())
}

/// The `n` non-null values.
fn values(spec: &Spec<'_>, s: &Streams, n: usize, budget: &mut ReadBudget) -> Result<Vec<Value>> {
    let v2 = spec.encoding.v2();
    let ints = |name: &str, stream_bytes: &Option<Vec<u8>>, count: usize, signed: bool| {
        let mut c = stream(stream_bytes, name)?;
        in_stream(rle::integers(&mut c, count, signed, v2), name)
    };
    Ok(match spec.column.kind {
        Kind::Boolean => {
            let mut c = stream(&s.data, "DATA")?;
            in_stream(rle::booleans(&mut c, n), "DATA")?
                .into_iter()
                .map(Value::Bool)
                .collect()
        }
        Kind::Byte => {
            let mut c = stream(&s.data, "DATA")?;
            in_stream(rle::bytes(&mut c, n), "DATA")?
                .into_iter()
                .map(|b| Value::Int(i64::from(b as i8)))
                .collect()
        }
        Kind::Short | Kind::Int | Kind::Long | Kind::Date => ints("DATA", &s.data, n, true)?
            .into_iter()
            .map(Value::Int)
            .collect(),
        Kind::Float => fixed(&s.data, n, 4, |b| {
            Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })?,
        Kind::Double => fixed(&s.data, n, 8, |b| {
            Value::Double(f64::from_le_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ]))
        })?,
        Kind::String | Kind::Varchar | Kind::Char | Kind::Binary => {
            let text = spec.column.kind != Kind::Binary;
            if spec.encoding.dictionary() {
                let dict_size = usize::try_from(spec.dict_size).unwrap_or(usize::MAX);
                if dict_size > spec.rows {
                    return Err(Error::format(format!(
                        "a dictionary of {dict_size} entries for a stripe of {} rows",
                        spec.rows
                    )));
                }
                let lengths = ints("LENGTH", &s.length, dict_size, false)?;
                let dict = byte_values(&s.dictionary, "DICTIONARY_DATA", &lengths, text, budget)?;
                let indexes = ints("DATA", &s.data, n, false)?;
                indexes
                    .into_iter()
                    .map(|i| {
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| dict.get(i))
                            .cloned()
                            .ok_or_else(|| {
                                Error::format(format!(
                                    "dictionary index {} of a {dict_size}-entry dictionary",
                                    i as u64
                                ))
                            })
                    })
                    .collect::<Result<_>>()
                    .context(|| "stream DATA".into())?
            } else {
                let lengths = ints("LENGTH", &s.length, n, false)?;
                byte_values(&s.data, "DATA", &lengths, text, budget)?
            }
        }
        Kind::Decimal => decimals(spec, s, n)?,
        Kind::Timestamp | Kind::TimestampInstant => timestamps(spec, s, n)?,
        other => {
            return Err(Error::unsupported(format!(
                "{} columns are not readable",
                other.as_str()
            )))
        }
    })
}

/// `n` fixed-width little-endian values.
fn fixed(
    data: &Option<Vec<u8>>,
    n: usize,
    width: usize,
    f: impl Fn(&[u8; 8]) -> Value,
) -> Result<Vec<Value>> {
    let mut c = stream(data, "DATA")?;
    let bytes = in_stream(c.take(n.saturating_mul(width)), "DATA")?;
    Ok(bytes
        .chunks_exact(width)
        .map(|chunk| {
            let mut a = [0u8; 8];
            for (d, s) in a.iter_mut().zip(chunk) {
                *d = *s;
            }
            f(&a)
        })
        .collect())
}

/// Consecutive byte strings of the given lengths: text (`Str`, or `Bytes` if not UTF-8) or
/// bytes.
fn byte_values(
    data: &Option<Vec<u8>>,
    name: &str,
    lengths: &[i64],
    text: bool,
    budget: &mut ReadBudget,
) -> Result<Vec<Value>> {
    let mut c = stream(data, name)?;
    let mut out = Vec::with_capacity(lengths.len());
    for &len in lengths {
        let len = usize::try_from(len).map_err(|_| {
            Error::format(format!("a length of {}", len as u64)).context(format!("stream {name}"))
        })?;
        budget.charge(len as u64 + 16)?;
        let b = in_stream(c.take(len), name)?;
        out.push(if text {
            match std::str::from_utf8(b) {
                Ok(s) => Value::Str(Arc::from(s)),
                Err(_) => Value::Bytes(Arc::from(b)),
            }
        } else {
            Value::Bytes(Arc::from(b))
        });
    }
    Ok(out)
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// The bytes Paimon's Parquet writer gives a decimal of this precision
/// (`computeMinBytesForDecimalPrecision`): the fewest whose two's complement holds 10^p.
fn decimal_width(precision: u32) -> usize {
    let mut n = 1usize;
    while n < 16 && 2f64.powi(8 * n as i32 - 1) < 10f64.powi(precision as i32) {
        n += 1;
    }
    n
}

fn decimals(spec: &Spec<'_>, s: &Streams, n: usize) -> Result<Vec<Value>> {
    let mut data = stream(&s.data, "DATA")?;
    let mut secondary = stream(&s.secondary, "SECONDARY")?;
    let scales = in_stream(
        rle::integers(&mut secondary, n, true, spec.encoding.v2()),
        "SECONDARY",
    )?;
    let target = spec.column.scale;
    let mut out = Vec::with_capacity(n);
    for scale in scales {
        let unscaled = in_stream(data.signed_varint128(), "DATA")?;
        let scale = u32::try_from(scale)
            .ok()
            .filter(|&s| s <= 38)
            .ok_or_else(|| Error::format(format!("a decimal scale of {scale} (0..38)")))?;
        let v = if scale <= target {
            pow10(target - scale).and_then(|m| unscaled.checked_mul(m))
        } else {
            pow10(scale - target)
                .filter(|&d| unscaled % d == 0)
                .map(|d| unscaled / d)
        }
        .ok_or_else(|| {
            Error::format(format!(
                "the decimal {unscaled}E-{scale} does not fit DECIMAL({}, {target})",
                spec.column.precision
            ))
        })?;
        out.push(if spec.column.precision <= 18 {
            Value::Int(i64::try_from(v).map_err(|_| {
                Error::format(format!(
                    "the decimal {v}E-{target} does not fit DECIMAL({}, {target})",
                    spec.column.precision
                ))
            })?)
        } else {
            let width = decimal_width(spec.column.precision);
            let bytes = v.to_be_bytes();
            Value::FixedBytes(Arc::from(bytes.get(16 - width..).unwrap_or(&bytes[..])))
        });
    }
    Ok(out)
}

fn timestamps(spec: &Spec<'_>, s: &Streams, n: usize) -> Result<Vec<Value>> {
    // TIMESTAMP: relative to the writer zone's 2015-01-01, read back as its wall clock;
    // TIMESTAMP_INSTANT: relative to 2015-01-01 UTC, an instant, which in Paimon's legacy
    // layout is the value's epoch as a wall clock in the writer's zone
    // the zone the stored seconds count from, and the zone whose wall clock the value is
    let (from, wall) = match (spec.column.kind, spec.ltz) {
        (Kind::Timestamp, _) => (spec.timezone, spec.timezone),
        (_, LtzLayout::Legacy) => (None, spec.timezone),
        (_, LtzLayout::Instant) => (None, None),
    };
    let (base, wall) = (WriterZone::new(from)?, WriterZone::new(wall)?);
    let v2 = spec.encoding.v2();
    let mut data = stream(&s.data, "DATA")?;
    let mut secondary = stream(&s.secondary, "SECONDARY")?;
    let secs = in_stream(rle::integers(&mut data, n, true, v2), "DATA")?;
    let nanos = in_stream(rle::integers(&mut secondary, n, false, v2), "SECONDARY")?;
    secs.into_iter()
        .zip(nanos)
        .map(|(s, encoded)| {
            // The low 3 bits: trailing decimal zeros removed, less one. The rest is signed
            // (pyarrow writes negative nanoseconds before 1970; readers shift arithmetically).
            let zeros = (encoded & 7) as u32;
            let mut nanos = encoded >> 3;
            if zeros != 0 {
                nanos = nanos.saturating_mul(10i64.pow(zeros + 1));
            }
            if !(-999_999_999..=999_999_999).contains(&nanos) {
                return Err(Error::format(format!(
                    "a timestamp with {nanos} nanoseconds"
                )));
            }
            let secs = wall.wall_clock(base.instant(s, nanos))?;
            secs.checked_mul(1_000_000_000)
                .and_then(|v| v.checked_add(nanos))
                .map(Value::Int)
                .ok_or_else(|| {
                    Error::unsupported(format!(
                        "a timestamp {secs} s from 1970 lies outside the nanosecond range"
                    ))
                })
        })
        .collect::<Result<_>>()
        .context(|| "stream DATA".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timestamp_in(tz: Option<&str>, secs_since_2015: i64) -> Result<Vec<Value>> {
        decode_one(Kind::Timestamp, LtzLayout::Legacy, tz, secs_since_2015)
    }

    fn decode_one(
        kind: Kind,
        ltz: LtzLayout,
        tz: Option<&str>,
        secs_since_2015: i64,
    ) -> Result<Vec<Value>> {
        let column = OrcColumn {
            name: "ts".into(),
            id: 1,
            kind,
            logical: None,
            precision: 0,
            scale: 0,
        };
        let spec = Spec {
            column: &column,
            encoding: Encoding::Direct,
            dict_size: 0,
            rows: 1,
            timezone: tz,
            ltz,
        };
        // RLE v1, one literal each: the seconds (zigzag), nanoseconds 5 * 10^8 (5 << 3 | 7)
        let mut data = vec![0xff];
        crate::test_support::varint(&mut data, crate::test_support::zigzag(secs_since_2015));
        let streams = Streams {
            data: Some(data),
            secondary: Some(vec![0xff, 5 << 3 | 7]),
            ..Streams::default()
        };
        let mut out = Vec::new();
        decode(&spec, &streams, &mut ReadBudget::new(1 << 20), &mut out)?;
        Ok(out)
    }

    #[test]
    fn timestamps_are_the_writers_wall_clock() {
        // 2024-01-02T03:04:05.5 is 284_094_245 s after 2015-01-01
        let want = Value::Int((1_704_164_645) * 1_000_000_000 + 500_000_000);
        for tz in [
            None,
            Some("UTC"),
            Some("GMT"),
            Some("Etc/GMT-8"),
            Some("Asia/Shanghai"),
            Some("Europe/Berlin"), // winter there, as on 2015-01-01
        ] {
            assert_eq!(
                timestamp_in(tz, 284_094_245).unwrap(),
                vec![want.clone()],
                "{tz:?}"
            );
        }
        // 2024-07-02T03:04:05.5 in Berlin (summer time, one hour more than on 2015-01-01 from
        // UTC): the stored seconds count the instant, an hour short of the wall clock's
        let summer = 284_094_245 + 182 * 86_400;
        assert_eq!(
            timestamp_in(Some("Europe/Berlin"), summer - 3600).unwrap(),
            vec![Value::Int(
                (1_704_164_645 + 182 * 86_400) * 1_000_000_000 + 500_000_000
            )]
        );
        // a zone nobody knows: refused, never shifted by a guess
        for tz in ["Mars/Olympus_Mons", "Etc/GMT+99"] {
            let err = timestamp_in(Some(tz), 284_094_245).unwrap_err();
            assert_eq!(err.kind(), crate::error::ErrorKind::Unsupported);
            assert!(err.to_string().contains(tz), "{err}");
        }
    }

    #[test]
    fn timestamp_ltz_values_are_read_in_the_tables_layout() {
        // 2024-07-04T12:00:00.5 as an instant is 300_024_000 s after 2015-01-01 UTC. A legacy
        // writer in New York stores the instant of that wall clock there: 16:00 UTC.
        let want = vec![Value::Int(1_720_094_400 * 1_000_000_000 + 500_000_000)];
        let ny = Some("America/New_York");
        let stored = 300_024_000 + 4 * 3600;
        assert_eq!(
            decode_one(Kind::TimestampInstant, LtzLayout::Legacy, ny, stored).ok(),
            Some(want.clone())
        );
        // orc.timestamp-ltz.legacy.type = false: the instant itself, whatever the zone
        assert_eq!(
            decode_one(Kind::TimestampInstant, LtzLayout::Instant, ny, 300_024_000).ok(),
            Some(want.clone())
        );
        let unknown = Some("Mars/Olympus_Mons");
        assert_eq!(
            decode_one(
                Kind::TimestampInstant,
                LtzLayout::Instant,
                unknown,
                300_024_000
            )
            .ok(),
            Some(want.clone())
        );
        assert!(decode_one(Kind::TimestampInstant, LtzLayout::Legacy, unknown, 0).is_err());
        // a UTC writer: both layouts agree
        for ltz in [LtzLayout::Legacy, LtzLayout::Instant] {
            assert_eq!(
                decode_one(Kind::TimestampInstant, ltz, Some("UTC"), 300_024_000).ok(),
                Some(want.clone())
            );
        }
    }

    #[test]
    fn decimal_widths_are_parquets() {
        assert_eq!(decimal_width(1), 1);
        assert_eq!(decimal_width(2), 1);
        assert_eq!(decimal_width(3), 2);
        assert_eq!(decimal_width(19), 9);
        assert_eq!(decimal_width(38), 16);
    }
}
