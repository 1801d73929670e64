//! Value and level encodings: PLAIN, the RLE/bit-packed hybrid (levels, booleans, dictionary
//! indices), the deprecated BIT_PACKED levels, PLAIN_DICTIONARY/RLE_DICTIONARY,
//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//!
//! Every decoder is told how many values to produce (from the page header, which the caller has
//! already checked against the row group) and fails, rather than reads past the page, when the
//! bytes run out. Numbers are decoded straight into [`Value`]s without intermediate allocation.

use super::metadata::{ColumnInfo, LogicalType, PhysicalType};
use super::value::Value;
use crate::error::{Error, Result};
use crate::limits::ReadBudget;

/// A Parquet encoding (`Encoding` in the Thrift definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Plain,
    PlainDictionary,
    Rle,
    BitPacked,
    DeltaBinaryPacked,
    DeltaLengthByteArray,
    DeltaByteArray,
    RleDictionary,
    ByteStreamSplit,
}

impl Encoding {
    pub(crate) fn from_thrift(v: i32) -> Result<Encoding> {
        Ok(match v {
            0 => Encoding::Plain,
            2 => Encoding::PlainDictionary,
            3 => Encoding::Rle,
            4 => Encoding::BitPacked,
            5 => Encoding::DeltaBinaryPacked,
            6 => Encoding::DeltaLengthByteArray,
            7 => Encoding::DeltaByteArray,
            8 => Encoding::RleDictionary,
            9 => Encoding::ByteStreamSplit,
            other => {
                return Err(Error::unsupported(format!("unknown encoding {other}")));
            }
        })
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Encoding::Plain => "PLAIN",
            Encoding::PlainDictionary => "PLAIN_DICTIONARY",
            Encoding::Rle => "RLE",
            Encoding::BitPacked => "BIT_PACKED",
            Encoding::DeltaBinaryPacked => "DELTA_BINARY_PACKED",
            Encoding::DeltaLengthByteArray => "DELTA_LENGTH_BYTE_ARRAY",
            Encoding::DeltaByteArray => "DELTA_BYTE_ARRAY",
            Encoding::RleDictionary => "RLE_DICTIONARY",
            Encoding::ByteStreamSplit => "BYTE_STREAM_SPLIT",
        }
    }
}

/// How a column's physical values become [`Value`]s.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Conv {
    pub(crate) physical: PhysicalType,
    /// BYTE_ARRAY annotated as text.
    text: bool,
    /// INT32 annotated as an unsigned integer.
    unsigned32: bool,
    /// FIXED_LEN_BYTE_ARRAY width.
    pub(crate) type_len: usize,
}

impl Conv {
    pub(crate) fn new(col: &ColumnInfo) -> Self {
        let text = matches!(
            col.logical,
            Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
        );
        let unsigned32 = col.physical == PhysicalType::Int32
            && matches!(
                col.logical,
                Some(LogicalType::Integer { signed: false, .. })
            );
        Conv {
            physical: col.physical,
            text,
            unsigned32,
            type_len: col
                .type_length
                .and_then(|l| usize::try_from(l).ok())
                .unwrap_or(0),
        }
    }

    #[inline]
    fn int32(&self, v: i32) -> Value {
        if self.unsigned32 {
            Value::Int(i64::from(v as u32))
        } else {
            Value::Int(i64::from(v))
        }
    }

    #[inline]
    fn bytes(&self, b: &[u8], budget: &mut ReadBudget) -> Result<Value> {
        budget.charge(b.len() as u64)?;
        Ok(if self.physical == PhysicalType::FixedLenByteArray {
            Value::FixedBytes(b.into())
        } else if self.text {
            match std::str::from_utf8(b) {
                Ok(s) => Value::Str(s.into()),
                Err(_) => Value::Bytes(b.into()),
            }
        } else {
            Value::Bytes(b.into())
        })
    }

    fn int96(b: &[u8]) -> Value {
        let mut nanos = [0u8; 8];
        let mut day = [0u8; 4];
        for (d, s) in nanos.iter_mut().zip(b.iter()) {
            *d = *s;
        }
        for (d, s) in day.iter_mut().zip(b.iter().skip(8)) {
            *d = *s;
        }
        let nanos = i64::from_le_bytes(nanos);
        let day = i64::from(u32::from_le_bytes(day));
        (day - 2_440_588)
            .checked_mul(86_400_000_000_000)
            .and_then(|v| v.checked_add(nanos))
            .map(Value::Int)
            .unwrap_or_else(|| Value::FixedBytes(b.into()))
    }

    /// Converts one fixed-width little-endian value (`b` has the width of the physical type).
    #[inline]
    fn fixed(&self, b: &[u8], budget: &mut ReadBudget) -> Result<Value> {
        Ok(match self.physical {
            PhysicalType::Int32 => self.int32(i32::from_le_bytes(arr4(b))),
            PhysicalType::Int64 => Value::Int(i64::from_le_bytes(arr8(b))),
            PhysicalType::Float => Value::Float(f32::from_le_bytes(arr4(b))),
            PhysicalType::Double => Value::Double(f64::from_le_bytes(arr8(b))),
            PhysicalType::Int96 => Self::int96(b),
            PhysicalType::FixedLenByteArray | PhysicalType::ByteArray => self.bytes(b, budget)?,
            PhysicalType::Boolean => Value::Bool(b.first().is_some_and(|&x| x != 0)),
        })
    }

    /// Width in bytes of a fixed-width physical value (0 for BOOLEAN and BYTE_ARRAY).
    fn width(&self) -> usize {
        match self.physical {
            PhysicalType::Int32 | PhysicalType::Float => 4,
            PhysicalType::Int64 | PhysicalType::Double => 8,
            PhysicalType::Int96 => 12,
            PhysicalType::FixedLenByteArray => self.type_len,
            PhysicalType::Boolean | PhysicalType::ByteArray => 0,
        }
    }

    /// Converts an integer from a DELTA_BINARY_PACKED stream.
    #[inline]
    fn delta_int(&self, v: i64) -> Value {
        if self.physical == PhysicalType::Int32 {
            self.int32(v as i32)
        } else {
            Value::Int(v)
        }
    }
}

#[inline]
fn arr4(b: &[u8]) -> [u8; 4] {
    let mut a = [0u8; 4];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    a
}

#[inline]
fn arr8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    a
}

fn short(what: &str, need: u64, have: usize) -> Error {
    Error::format(format!(
        "{what} needs {need} bytes, the page has {have} left"
    ))
}

/// Reusable buffers of the decoders.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) indices: Vec<u32>,
    ints: Vec<i64>,
    ints2: Vec<i64>,
    prev: Vec<u8>,
}

/// Decodes `n` values of `enc` from `data`, appending them to `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decode_values(
    enc: Encoding,
    data: &[u8],
    n: usize,
    conv: &Conv,
    dict: Option<&[Value]>,
    scratch: &mut Scratch,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<()> {
    match enc {
        Encoding::Plain => plain(data, n, conv, budget, out).map(drop),
        Encoding::PlainDictionary | Encoding::RleDictionary => {
            let dict = dict.ok_or_else(|| {
                Error::format("a dictionary-encoded page, but the column chunk has no dictionary")
            })?;
            let (&bw, rest) = data
                .split_first()
                .ok_or_else(|| Error::format("a dictionary-encoded page has no bit width"))?;
            if bw > 32 {
                return Err(Error::format(format!(
                    "dictionary indices of {bw} bits (at most 32)"
                )));
            }
            hybrid(rest, bw, n, &mut scratch.indices)?;
            let max = scratch.indices.iter().copied().max().unwrap_or(0);
            if n > 0 && max as usize >= dict.len() {
                return Err(Error::format(format!(
                    "dictionary index {max} past the {} entries of the dictionary",
                    dict.len()
                )));
            }
            // Shares the dictionary's bytes (charged once, when the dictionary was read).
            out.extend(
                scratch
                    .indices
                    .iter()
                    .map(|&i| dict.get(i as usize).cloned().unwrap_or(Value::Null)),
            );
            Ok(())
        }
        Encoding::Rle if conv.physical == PhysicalType::Boolean => {
            let len = data
                .get(..4)
                .map(arr4)
                .map(u32::from_le_bytes)
                .ok_or_else(|| short("the RLE length prefix", 4, data.len()))?;
            let body = data
                .get(4..4 + len as usize)
                .ok_or_else(|| short("RLE boolean data", u64::from(len), data.len()))?;
            hybrid(body, 1, n, &mut scratch.indices)?;
            out.extend(scratch.indices.iter().map(|&b| Value::Bool(b != 0)));
            Ok(())
        }
        Encoding::DeltaBinaryPacked
            if matches!(conv.physical, PhysicalType::Int32 | PhysicalType::Int64) =>
        {
            scratch.ints.clear();
            delta_binary_packed(data, n, &mut scratch.ints)?;
            if scratch.ints.len() != n {
                return Err(Error::format(format!(
                    "DELTA_BINARY_PACKED holds {} values, the page {n}",
                    scratch.ints.len()
                )));
            }
            out.extend(scratch.ints.iter().map(|&v| conv.delta_int(v)));
            Ok(())
        }
        Encoding::DeltaLengthByteArray if conv.physical == PhysicalType::ByteArray => {
            scratch.ints.clear();
            let used = delta_binary_packed(data, n, &mut scratch.ints)?;
            let rest = data.get(used..).unwrap_or(&[]);
            byte_arrays_by_length(rest, &scratch.ints, n, conv, budget, out).map(drop)
        }
        Encoding::DeltaByteArray
            if matches!(
                conv.physical,
                PhysicalType::ByteArray | PhysicalType::FixedLenByteArray
            ) =>
        {
            delta_byte_array(data, n, conv, scratch, budget, out)
        }
        Encoding::ByteStreamSplit if conv.width() > 0 => {
            byte_stream_split(data, n, conv, budget, out)
        }
        other => Err(Error::unsupported(format!(
            "encoding {} is not supported for {} values",
            other.as_str(),
            conv.physical.as_str()
        ))),
    }
}

/// PLAIN: `n` values; returns the bytes consumed. Also decodes dictionary pages.
pub(crate) fn plain(
    data: &[u8],
    n: usize,
    conv: &Conv,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<usize> {
    match conv.physical {
        PhysicalType::Boolean => {
            let need = n.div_ceil(8);
            let bytes = data
                .get(..need)
                .ok_or_else(|| short("PLAIN booleans", need as u64, data.len()))?;
            out.reserve(n);
            out.extend(
                (0..n).map(|i| {
                    Value::Bool(bytes.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1))
                }),
            );
            Ok(need)
        }
        PhysicalType::ByteArray => {
            // Every value takes at least its 4-byte length.
            if n > data.len() / 4 {
                return Err(short("PLAIN byte arrays", n as u64 * 4, data.len()));
            }
            out.reserve(n);
            let mut pos = 0usize;
            for _ in 0..n {
                let len = data
                    .get(pos..pos + 4)
                    .map(|b| u32::from_le_bytes(arr4(b)) as usize)
                    .ok_or_else(|| short("a byte array length", 4, data.len() - pos))?;
                let v = data
                    .get(pos + 4..)
                    .and_then(|r| r.get(..len))
                    .ok_or_else(|| short("a byte array", len as u64, data.len() - pos - 4))?;
                out.push(conv.bytes(v, budget)?);
                pos += 4 + len;
            }
            Ok(pos)
        }
        _ => {
            let w = conv.width();
            let need = (n as u64).saturating_mul(w as u64);
            let bytes = usize::try_from(need)
                .ok()
                .and_then(|need| data.get(..need))
                .ok_or_else(|| short("PLAIN values", need, data.len()))?;
            out.reserve(n);
            if w == 0 {
                for _ in 0..n {
                    out.push(conv.bytes(&[], budget)?);
                }
                return Ok(0);
            }
            match conv.physical {
                PhysicalType::Int64 => {
                    out.extend(
                        bytes
                            .chunks_exact(8)
                            .map(|c| Value::Int(i64::from_le_bytes(arr8(c)))),
                    );
                }
                PhysicalType::Int32 => {
                    out.extend(
                        bytes
                            .chunks_exact(4)
                            .map(|c| conv.int32(i32::from_le_bytes(arr4(c)))),
                    );
                }
                _ => {
                    for c in bytes.chunks_exact(w) {
                        out.push(conv.fixed(c, budget)?);
                    }
                }
            }
            Ok(bytes.len())
        }
    }
}

/// Reads an unsigned LEB128 varint at `*pos`.
fn uvarint(data: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data
            .get(*pos)
            .ok_or_else(|| Error::format("a varint runs past the end of the page"))?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(Error::format("a varint is longer than 64 bits"))
}

fn zigzag_varint(data: &[u8], pos: &mut usize) -> Result<i64> {
    let v = uvarint(data, pos)?;
    Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
}

/// `bw` bits (≤ 64) at bit offset `bit` of `data`, least significant bit first.
#[inline]
fn read_bits(data: &[u8], bit: usize, bw: u32) -> Option<u64> {
    if bw == 0 {
        return Some(0);
    }
    let byte = bit / 8;
    let shift = (bit % 8) as u32;
    let raw: u128 = if let Some(b) = data.get(byte..byte + 16) {
        let mut a = [0u8; 16];
        a.copy_from_slice(b);
        u128::from_le_bytes(a)
    } else {
        let need = (shift + bw).div_ceil(8) as usize;
        let b = data.get(byte..byte + need)?;
        let mut a = [0u8; 16];
        for (d, s) in a.iter_mut().zip(b) {
            *d = *s;
        }
        u128::from_le_bytes(a)
    };
    let mask = if bw == 64 { u64::MAX } else { (1u64 << bw) - 1 };
    Some((raw >> shift) as u64 & mask)
}

/// The RLE/bit-packed hybrid (no length prefix): `n` values of `bw` (≤ 32) bits into `out`
/// (cleared first). Returns the bytes consumed.
pub(crate) fn hybrid(data: &[u8], bw: u8, n: usize, out: &mut Vec<u32>) -> Result<usize> {
    out.clear();
    if bw > 32 {
        return Err(Error::format(format!("RLE bit width {bw} (at most 32)")));
    }
    out.reserve(n);
    let bw32 = u32::from(bw);
    let value_bytes = usize::from(bw).div_ceil(8);
    let mut pos = 0usize;
    while out.len() < n {
        if pos >= data.len() {
            return Err(Error::format(format!(
                "RLE data ends after {} of {n} values",
                out.len()
            )));
        }
        let header = uvarint(data, &mut pos)?;
        let want = n - out.len();
        if header & 1 == 1 {
            // Bit-packed: (header >> 1) groups of 8 values.
            let groups = header >> 1;
            let run_bytes = groups.saturating_mul(u64::from(bw));
            let avail = (data.len() - pos) as u64;
            let bytes = run_bytes.min(avail);
            let values = if bw == 0 {
                groups.saturating_mul(8)
            } else {
                (bytes * 8 / u64::from(bw)).min(groups.saturating_mul(8))
            };
            let take = (values.min(want as u64)) as usize;
            if take == 0 && groups > 0 {
                return Err(Error::format("a bit-packed run has no data"));
            }
            let run = data.get(pos..pos + bytes as usize).unwrap_or(&[]);
            unpack32(run, bw32, take, out)?;
            pos += bytes as usize;
        } else {
            let count = header >> 1;
            let v = data
                .get(pos..pos + value_bytes)
                .ok_or_else(|| Error::format("an RLE run has no value"))?;
            pos += value_bytes;
            let mut value = 0u32;
            for (i, b) in v.iter().enumerate() {
                value |= u32::from(*b) << (8 * i);
            }
            let take = (count.min(want as u64)) as usize;
            out.extend(std::iter::repeat_n(value, take));
        }
    }
    Ok(pos)
}

/// Appends `n` values of `bw` (≤ 32) bits packed least significant bit first in `data`.
#[inline]
fn unpack32(data: &[u8], bw: u32, n: usize, out: &mut Vec<u32>) -> Result<()> {
    if bw == 0 {
        out.extend(std::iter::repeat_n(0, n));
        return Ok(());
    }
    let need = (n as u64 * u64::from(bw)).div_ceil(8) as usize;
    if need > data.len() {
        return Err(Error::format("a bit-packed run ends early"));
    }
    let mask = if bw == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << bw) - 1
    };
    let bw = bw as usize;
    // Fast path: 8-byte loads while they stay inside the data; a shift of at most 7 plus 32
    // bits fits in 64.
    let fast = if data.len() >= 8 {
        (((data.len() - 8) * 8) / bw + 1).min(n)
    } else {
        0
    };
    out.extend((0..fast).map(|j| {
        let bit = j * bw;
        let word = data
            .get(bit / 8..bit / 8 + 8)
            .map_or(0, |b| u64::from_le_bytes(arr8(b)));
        ((word >> (bit % 8)) & mask) as u32
    }));
    for j in fast..n {
        let v = read_bits(data, j * bw, bw as u32)
            .ok_or_else(|| Error::format("a bit-packed run ends early"))?;
        out.push(v as u32);
    }
    Ok(())
}

/// The deprecated BIT_PACKED level encoding (most significant bit first): `n` values of `bw`
/// bits. Returns the bytes consumed.
pub(crate) fn bit_packed_msb(data: &[u8], bw: u8, n: usize, out: &mut Vec<u32>) -> Result<usize> {
    out.clear();
    let bw = usize::from(bw);
    let bytes = n
        .checked_mul(bw)
        .map(|b| b.div_ceil(8))
        .ok_or_else(|| Error::format("BIT_PACKED levels overflow"))?;
    let packed = data
        .get(..bytes)
        .ok_or_else(|| short("BIT_PACKED levels", bytes as u64, data.len()))?;
    out.reserve(n);
    let mut bit = 0usize;
    for _ in 0..n {
        let mut v = 0u32;
        for _ in 0..bw {
            let b = packed.get(bit / 8).copied().unwrap_or(0);
            v = (v << 1) | u32::from((b >> (7 - bit % 8)) & 1);
            bit += 1;
        }
        out.push(v);
    }
    Ok(bytes)
}

/// DELTA_BINARY_PACKED: appends all the values the header announces (at most `max`) to `out`;
/// returns the bytes consumed (through the last miniblock holding values).
pub(crate) fn delta_binary_packed(data: &[u8], max: usize, out: &mut Vec<i64>) -> Result<usize> {
    let mut pos = 0usize;
    let block_size = uvarint(data, &mut pos)?;
    let miniblocks = uvarint(data, &mut pos)?;
    let total = uvarint(data, &mut pos)?;
    let first = zigzag_varint(data, &mut pos)?;
    if block_size == 0 || block_size % 128 != 0 || block_size > 1 << 20 {
        return Err(Error::format(format!(
            "DELTA_BINARY_PACKED block size {block_size} is not a multiple of 128"
        )));
    }
    if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0 {
        return Err(Error::format(format!(
            "DELTA_BINARY_PACKED has {miniblocks} miniblocks per block of {block_size}"
        )));
    }
    if total > max as u64 {
        return Err(Error::format(format!(
            "DELTA_BINARY_PACKED announces {total} values, the page holds {max}"
        )));
    }
    let total = total as usize;
    let per_mini = (block_size / miniblocks) as usize;
    let miniblocks = miniblocks as usize;
    if total == 0 {
        return Ok(pos);
    }
    out.reserve(total);
    out.push(first);
    let mut last = first;
    let mut left = total - 1;
    while left > 0 {
        let min_delta = zigzag_varint(data, &mut pos)?;
        let widths = data.get(pos..pos + miniblocks).ok_or_else(|| {
            short(
                "DELTA_BINARY_PACKED bit widths",
                miniblocks as u64,
                data.len(),
            )
        })?;
        pos += miniblocks;
        for &w in widths {
            if left == 0 {
                break;
            }
            if w > 64 {
                return Err(Error::format(format!(
                    "DELTA_BINARY_PACKED miniblock of {w} bits"
                )));
            }
            let take = per_mini.min(left);
            let start = pos * 8;
            for j in 0..take {
                let d = read_bits(data, start + j * usize::from(w), u32::from(w))
                    .ok_or_else(|| Error::format("a DELTA_BINARY_PACKED miniblock ends early"))?;
                last = last.wrapping_add(min_delta).wrapping_add(d as i64);
                out.push(last);
            }
            pos = (pos + per_mini * usize::from(w) / 8).min(data.len());
            left -= take;
        }
    }
    Ok(pos)
}

/// Byte arrays of the given lengths, concatenated in `data`; returns the bytes consumed.
fn byte_arrays_by_length(
    data: &[u8],
    lengths: &[i64],
    n: usize,
    conv: &Conv,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<usize> {
    if lengths.len() != n {
        return Err(Error::format(format!(
            "{} lengths for a page of {n} values",
            lengths.len()
        )));
    }
    out.reserve(n);
    let mut pos = 0usize;
    for &len in lengths {
        let v = usize::try_from(len)
            .ok()
            .and_then(|l| data.get(pos..)?.get(..l))
            .ok_or_else(|| {
                Error::format(format!("a byte array of length {len} runs past the page"))
            })?;
        out.push(conv.bytes(v, budget)?);
        pos += v.len();
    }
    Ok(pos)
}

fn delta_byte_array(
    data: &[u8],
    n: usize,
    conv: &Conv,
    scratch: &mut Scratch,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<()> {
    scratch.ints.clear();
    scratch.ints2.clear();
    let used = delta_binary_packed(data, n, &mut scratch.ints)?;
    let rest = data.get(used..).unwrap_or(&[]);
    let used2 = delta_binary_packed(rest, n, &mut scratch.ints2)?;
    let mut suffixes = rest.get(used2..).unwrap_or(&[]);
    if scratch.ints.len() != n || scratch.ints2.len() != n {
        return Err(Error::format(format!(
            "DELTA_BYTE_ARRAY holds {} prefixes and {} suffixes for a page of {n} values",
            scratch.ints.len(),
            scratch.ints2.len()
        )));
    }
    out.reserve(n);
    scratch.prev.clear();
    for (&prefix, &suffix) in scratch.ints.iter().zip(&scratch.ints2) {
        let prefix = usize::try_from(prefix)
            .ok()
            .filter(|&p| p <= scratch.prev.len())
            .ok_or_else(|| {
                Error::format(format!(
                    "a prefix of {prefix} bytes, the previous value has {}",
                    scratch.prev.len()
                ))
            })?;
        let suffix = usize::try_from(suffix)
            .ok()
            .and_then(|s| suffixes.get(..s))
            .ok_or_else(|| {
                Error::format(format!("a suffix of {suffix} bytes runs past the page"))
            })?;
        suffixes = suffixes.get(suffix.len()..).unwrap_or(&[]);
        scratch.prev.truncate(prefix);
        scratch.prev.extend_from_slice(suffix);
        if conv.physical == PhysicalType::FixedLenByteArray && scratch.prev.len() != conv.type_len {
            return Err(Error::format(format!(
                "a value of {} bytes in a column of fixed length {}",
                scratch.prev.len(),
                conv.type_len
            )));
        }
        out.push(conv.bytes(&scratch.prev, budget)?);
    }
    Ok(())
}

fn byte_stream_split(
    data: &[u8],
    n: usize,
    conv: &Conv,
    budget: &mut ReadBudget,
    out: &mut Vec<Value>,
) -> Result<()> {
    let k = conv.width();
    if n == 0 {
        return Ok(());
    }
    let stride = data.len() / k.max(1);
    if stride < n || k > data.len() {
        return Err(short(
            "BYTE_STREAM_SPLIT values",
            (n as u64).saturating_mul(k as u64),
            data.len(),
        ));
    }
    out.reserve(n);
    let mut buf = vec![0u8; k];
    for j in 0..n {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = data.get(i * stride + j).copied().unwrap_or(0);
        }
        out.push(conv.fixed(&buf, budget)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{varint, zigzag};

    fn big_budget() -> ReadBudget {
        ReadBudget::new(u64::MAX)
    }

    #[test]
    fn hybrid_decodes_rle_and_bit_packed_runs() {
        // RLE run of 5 × 3 (bw 2), then a bit-packed group of 8 values 0..7 (bw 3).
        let data = [0x0a, 0x03];
        let mut out = Vec::new();
        assert_eq!(hybrid(&data, 2, 5, &mut out).unwrap(), 2);
        assert_eq!(out, vec![3; 5]);
        // Values 0..8 packed in 3 bits LSB first: 0b10_001_000, 0b1_100_011_0, 0b111_110_10
        let data = [0x03, 0x88, 0xc6, 0xfa];
        assert_eq!(hybrid(&data, 3, 8, &mut out).unwrap(), 4);
        assert_eq!(out, (0..8).collect::<Vec<u32>>());
        // Truncated: an error, not a panic.
        assert!(hybrid(&data[..2], 3, 8, &mut out).is_err());
        assert!(hybrid(&[], 1, 1, &mut out).is_err());
        // A huge RLE count yields only what is asked for.
        let data = [0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01];
        hybrid(&data, 1, 3, &mut out).unwrap();
        assert_eq!(out, vec![1, 1, 1]);
    }

    #[test]
    fn bit_packed_msb_levels() {
        // bw 1: 1,0,1,1,0,0,0,1
        let mut out = Vec::new();
        bit_packed_msb(&[0b1011_0001], 1, 8, &mut out).unwrap();
        assert_eq!(out, vec![1, 0, 1, 1, 0, 0, 0, 1]);
        assert!(bit_packed_msb(&[], 1, 8, &mut out).is_err());
    }

    fn zz(out: &mut Vec<u8>, v: i64) {
        varint(out, zigzag(v));
    }

    /// A simple DELTA_BINARY_PACKED encoder (block 128, 4 miniblocks of 32).
    pub(crate) fn encode_delta(values: &[i64]) -> Vec<u8> {
        let mut out = Vec::new();
        varint(&mut out, 128);
        varint(&mut out, 4);
        varint(&mut out, values.len() as u64);
        zz(&mut out, values.first().copied().unwrap_or(0));
        let deltas: Vec<i64> = values.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
        for block in deltas.chunks(128) {
            let min = *block.iter().min().unwrap();
            zz(&mut out, min);
            let minis: Vec<&[i64]> = block.chunks(32).collect();
            let widths: Vec<u8> = (0..4)
                .map(|m| {
                    minis.get(m).map_or(0, |mb| {
                        let max = mb.iter().map(|d| d.wrapping_sub(min) as u64).max().unwrap();
                        (64 - max.leading_zeros()) as u8
                    })
                })
                .collect();
            out.extend_from_slice(&widths);
            for (m, mb) in minis.iter().enumerate() {
                let w = widths[m] as usize;
                let mut bits = vec![0u8; 32 * w / 8];
                for (j, d) in mb.iter().enumerate() {
                    let v = d.wrapping_sub(min) as u64;
                    for b in 0..w {
                        if v >> b & 1 == 1 {
                            let bit = j * w + b;
                            bits[bit / 8] |= 1 << (bit % 8);
                        }
                    }
                }
                out.extend_from_slice(&bits);
            }
        }
        out
    }

    #[test]
    fn delta_binary_packed_roundtrips() {
        let values: Vec<i64> = (0..300)
            .map(|i: i64| i * i * 7 - 1000 + if i % 3 == 0 { i64::MIN / 3 } else { 0 })
            .collect();
        let enc = encode_delta(&values);
        let mut out = Vec::new();
        let used = delta_binary_packed(&enc, 300, &mut out).unwrap();
        assert_eq!(out, values);
        assert_eq!(used, enc.len());
        // More values announced than the page holds: an error.
        assert!(delta_binary_packed(&enc, 10, &mut Vec::new()).is_err());
        // Truncation: an error (or, within the last miniblock's padding, the same values).
        for cut in 0..enc.len() {
            let mut got = Vec::new();
            if delta_binary_packed(&enc[..cut], 300, &mut got).is_ok() {
                assert_eq!(got, values, "cut at {cut}");
            }
        }
    }

    #[test]
    fn byte_array_encodings() {
        let col = ColumnInfo {
            name: "s".into(),
            path: vec!["s".into()],
            physical: PhysicalType::ByteArray,
            logical: Some(LogicalType::String),
            type_length: None,
            optional: false,
            max_def_level: 0,
            max_rep_level: 0,
        };
        let conv = Conv::new(&col);
        let words = ["apple", "applesauce", "apply", "", "banana"];
        // DELTA_LENGTH_BYTE_ARRAY
        let mut data = encode_delta(&words.iter().map(|w| w.len() as i64).collect::<Vec<_>>());
        for w in words {
            data.extend_from_slice(w.as_bytes());
        }
        let mut out = Vec::new();
        let mut s = Scratch::default();
        decode_values(
            Encoding::DeltaLengthByteArray,
            &data,
            5,
            &conv,
            None,
            &mut s,
            &mut big_budget(),
            &mut out,
        )
        .unwrap();
        let got: Vec<_> = out.iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(got, words);
        // DELTA_BYTE_ARRAY
        let prefixes = [0i64, 5, 4, 0, 0];
        let suffixes = ["apple", "sauce", "y", "", "banana"];
        let mut data = encode_delta(&prefixes);
        data.extend(encode_delta(
            &suffixes.iter().map(|w| w.len() as i64).collect::<Vec<_>>(),
        ));
        for w in suffixes {
            data.extend_from_slice(w.as_bytes());
        }
        out.clear();
        decode_values(
            Encoding::DeltaByteArray,
            &data,
            5,
            &conv,
            None,
            &mut s,
            &mut big_budget(),
            &mut out,
        )
        .unwrap();
        let got: Vec<_> = out.iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(got, words);
        // A prefix longer than the previous value: an error.
        let mut bad = encode_delta(&[3, 0]);
        bad.extend(encode_delta(&[1, 1]));
        bad.extend_from_slice(b"ab");
        assert!(decode_values(
            Encoding::DeltaByteArray,
            &bad,
            2,
            &conv,
            None,
            &mut s,
            &mut big_budget(),
            &mut out
        )
        .is_err());
        // The budget stops large payloads.
        let mut tiny = ReadBudget::new(3);
        assert_eq!(
            decode_values(
                Encoding::DeltaByteArray,
                &data,
                5,
                &conv,
                None,
                &mut s,
                &mut tiny,
                &mut out
            )
            .unwrap_err()
            .kind(),
            crate::error::ErrorKind::Limit
        );
    }
}
