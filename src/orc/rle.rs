//! ORC's run-length encodings (the ORC specification, "Run Length Encoding"): byte RLE,
//! boolean RLE (byte RLE of bits, most significant first), integer RLE version 1 and version 2
//! (SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA), and the base-128 varints they build on.
//!
//! Every decoder is asked for exactly `count` values (the column's non-null values in the
//! stripe, or the dictionary's size) and fails, rather than guesses, when the stream ends early
//! or a run would go past `count`. Arithmetic wraps as the Java reader's does; no shift can
//! overflow.

use crate::error::{Error, Result};

/// A cursor over one decompressed stream.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    pub(crate) fn byte(&mut self) -> Result<u8> {
        let b = self
            .bytes
            .get(self.pos)
            .copied()
            .ok_or_else(|| Error::format(format!("the stream ends at byte {}", self.pos)))?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let s = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or_else(|| {
                Error::format(format!(
                    "{n} bytes asked at byte {} of a {}-byte stream",
                    self.pos,
                    self.bytes.len()
                ))
            })?;
        self.pos += n;
        Ok(s)
    }

    /// An unsigned base-128 varint of at most 64 bits.
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        for i in 0..10u32 {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(7 * i).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::format("a varint is longer than 10 bytes"))
    }

    /// A zigzag-encoded signed varint.
    pub(crate) fn signed_varint(&mut self) -> Result<i64> {
        Ok(unzigzag(self.varint()?))
    }

    /// A zigzag-encoded signed varint of up to 128 bits (decimals).
    pub(crate) fn signed_varint128(&mut self) -> Result<i128> {
        let mut v: u128 = 0;
        for i in 0..19u32 {
            let b = self.byte()?;
            v |= u128::from(b & 0x7f).checked_shl(7 * i).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(((v >> 1) as i128) ^ -((v & 1) as i128));
            }
        }
        Err(Error::format(
            "a decimal varint is longer than 19 bytes (128 bits)",
        ))
    }

    /// `n` bytes, big-endian, as an unsigned integer (`n` ≤ 8).
    fn big_endian(&mut self, n: usize) -> Result<u64> {
        let bytes = self.take(n)?;
        Ok(bytes.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
    }

    /// `n` values of `width` bits, packed big-endian (most significant bit first); the run
    /// ends on a byte boundary.
    fn packed(&mut self, n: usize, width: u32, out: &mut Vec<u64>) -> Result<()> {
        let total = (n as u64)
            .checked_mul(u64::from(width))
            .ok_or_else(|| Error::format("a bit-packed run is too long"))?;
        let bytes = self.take(usize::try_from(total.div_ceil(8)).unwrap_or(usize::MAX))?;
        let mut acc: u128 = 0;
        let mut bits: u32 = 0;
        let mut it = bytes.iter();
        for _ in 0..n {
            while bits < width {
                acc = acc << 8 | u128::from(it.next().copied().unwrap_or(0));
                bits += 8;
            }
            let shift = bits - width;
            let mask = if width == 64 {
                u128::from(u64::MAX)
            } else {
                (1u128 << width) - 1
            };
            out.push(((acc >> shift) & mask) as u64);
            bits = shift;
            acc &= (1u128 << bits) - 1;
        }
        Ok(())
    }
}

/// Zigzag decoding.
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn overflow(count: usize) -> Error {
    Error::format(format!(
        "a run goes past the {count} values the stripe holds"
    ))
}

/// Byte RLE: exactly `count` bytes.
pub(crate) fn bytes(c: &mut Cursor<'_>, count: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(count.min(1 << 16));
    while out.len() < count {
        let control = c.byte()? as i8;
        if control >= 0 {
            let n = control as usize + 3;
            let v = c.byte()?;
            if out.len() + n > count {
                return Err(overflow(count));
            }
            out.resize(out.len() + n, v);
        } else {
            let n = -(i16::from(control)) as usize;
            if out.len() + n > count {
                return Err(overflow(count));
            }
            out.extend_from_slice(c.take(n)?);
        }
    }
    Ok(out)
}

/// Boolean RLE: exactly `count` bits (the last byte's unused bits are ignored).
pub(crate) fn booleans(c: &mut Cursor<'_>, count: usize) -> Result<Vec<bool>> {
    let packed = bytes(c, count.div_ceil(8))?;
    let mut out = Vec::with_capacity(count);
    for byte in packed {
        for bit in (0..8).rev() {
            if out.len() < count {
                out.push(byte >> bit & 1 == 1);
            }
        }
    }
    Ok(out)
}

/// Integer RLE (version 1 or 2): exactly `count` values; unsigned values keep their bits.
pub(crate) fn integers(
    c: &mut Cursor<'_>,
    count: usize,
    signed: bool,
    v2: bool,
) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(count.min(1 << 16));
    while out.len() < count {
        if v2 {
            v2_run(c, signed, count, &mut out)?;
        } else {
            v1_run(c, signed, count, &mut out)?;
        }
        if out.len() > count {
            return Err(overflow(count));
        }
    }
    Ok(out)
}

fn v1_run(c: &mut Cursor<'_>, signed: bool, count: usize, out: &mut Vec<i64>) -> Result<()> {
    let control = c.byte()? as i8;
    let read = |c: &mut Cursor<'_>| -> Result<i64> {
        if signed {
            c.signed_varint()
        } else {
            c.varint().map(|v| v as i64)
        }
    };
    if control >= 0 {
        let n = control as usize + 3;
        let delta = i64::from(c.byte()? as i8);
        let base = read(c)?;
        if out.len() + n > count {
            return Err(overflow(count));
        }
        for i in 0..n as i64 {
            out.push(base.wrapping_add(delta.wrapping_mul(i)));
        }
    } else {
        let n = -(i16::from(control)) as usize;
        if out.len() + n > count {
            return Err(overflow(count));
        }
        for _ in 0..n {
            out.push(read(c)?);
        }
    }
    Ok(())
}

/// The 5-bit width code of RLE v2 (`FixedBitSizes`).
fn decode_width(code: u8) -> u32 {
    match code {
        0..=23 => u32::from(code) + 1,
        24 => 26,
        25 => 28,
        26 => 30,
        27 => 32,
        28 => 40,
        29 => 48,
        30 => 56,
        _ => 64,
    }
}

/// The smallest width of the table at least `n` bits (`getClosestFixedBits`).
fn closest_fixed_bits(n: u32) -> u32 {
    match n {
        0 => 1,
        1..=24 => n,
        25..=26 => 26,
        27..=28 => 28,
        29..=30 => 30,
        31..=32 => 32,
        33..=40 => 40,
        41..=48 => 48,
        49..=56 => 56,
        _ => 64,
    }
}

fn v2_run(c: &mut Cursor<'_>, signed: bool, count: usize, out: &mut Vec<i64>) -> Result<()> {
    let h = c.byte()?;
    let sign = |v: u64| if signed { unzigzag(v) } else { v as i64 };
    let room = count - out.len();
    match h >> 6 {
        0 => {
            // SHORT_REPEAT
            let size = usize::from((h >> 3) & 7) + 1;
            let n = usize::from(h & 7) + 3;
            let v = sign(c.big_endian(size)?);
            if n > room {
                return Err(overflow(count));
            }
            out.resize(out.len() + n, v);
        }
        1 => {
            // DIRECT
            let width = decode_width((h >> 1) & 0x1f);
            let n = (usize::from(h & 1) << 8 | usize::from(c.byte()?)) + 1;
            if n > room {
                return Err(overflow(count));
            }
            let mut raw = Vec::with_capacity(n);
            c.packed(n, width, &mut raw)?;
            out.extend(raw.into_iter().map(sign));
        }
        2 => patched_base(c, h, room, count, out)?,
        _ => {
            // DELTA
            let code = (h >> 1) & 0x1f;
            let width = if code == 0 { 0 } else { decode_width(code) };
            let l = usize::from(h & 1) << 8 | usize::from(c.byte()?);
            let first = if signed {
                c.signed_varint()?
            } else {
                c.varint()? as i64
            };
            let delta = c.signed_varint()?;
            let n = if width == 0 { l + 1 } else { (l + 1).max(2) };
            if n > room {
                return Err(overflow(count));
            }
            out.push(first);
            if width == 0 {
                let mut prev = first;
                for _ in 0..l {
                    prev = prev.wrapping_add(delta);
                    out.push(prev);
                }
            } else {
                let mut prev = first.wrapping_add(delta);
                out.push(prev);
                let mut raw = Vec::with_capacity(l.saturating_sub(1));
                c.packed(l.saturating_sub(1), width, &mut raw)?;
                for d in raw {
                    prev = if delta < 0 {
                        prev.wrapping_sub(d as i64)
                    } else {
                        prev.wrapping_add(d as i64)
                    };
                    out.push(prev);
                }
            }
        }
    }
    Ok(())
}

fn patched_base(
    c: &mut Cursor<'_>,
    h: u8,
    room: usize,
    count: usize,
    out: &mut Vec<i64>,
) -> Result<()> {
    let width = decode_width((h >> 1) & 0x1f);
    let n = (usize::from(h & 1) << 8 | usize::from(c.byte()?)) + 1;
    let b3 = c.byte()?;
    let base_bytes = usize::from((b3 >> 5) & 7) + 1;
    let patch_width = decode_width(b3 & 0x1f);
    let b4 = c.byte()?;
    let gap_width = u32::from((b4 >> 5) & 7) + 1;
    let patches = usize::from(b4 & 0x1f);
    if n > room {
        return Err(overflow(count));
    }
    if patch_width + gap_width > 64 {
        return Err(Error::format(format!(
            "a patched-base run has patches of {patch_width} + {gap_width} bits (at most 64)"
        )));
    }
    let raw_base = c.big_endian(base_bytes)?;
    let sign_bit = 1u64 << (base_bytes * 8 - 1);
    let base = if raw_base & sign_bit != 0 {
        ((raw_base & !sign_bit) as i64).wrapping_neg()
    } else {
        raw_base as i64
    };
    let mut values = Vec::with_capacity(n);
    c.packed(n, width, &mut values)?;
    let mut list = Vec::with_capacity(patches);
    c.packed(
        patches,
        closest_fixed_bits(patch_width + gap_width),
        &mut list,
    )?;
    let patch_mask = if patch_width >= 64 {
        u64::MAX
    } else {
        (1u64 << patch_width) - 1
    };
    let entry = |i: usize| -> (u64, u64) {
        let p = list.get(i).copied().unwrap_or(0);
        (p.checked_shr(patch_width).unwrap_or(0), p & patch_mask)
    };
    // The position of patch `idx` (gaps of 255 with a zero patch only move the position on).
    let next_patch = |idx: &mut usize, from: usize| -> Result<(usize, u64)> {
        let mut gap = 0usize;
        loop {
            if *idx >= patches {
                return Err(Error::format(
                    "a patched-base run's patch list ends inside a long gap",
                ));
            }
            let (g, p) = entry(*idx);
            if g == 255 && p == 0 {
                gap += 255;
                *idx += 1;
                continue;
            }
            return Ok((from + gap + g as usize, p));
        }
    };
    let mut idx = 0usize;
    let mut next = if patches > 0 {
        Some(next_patch(&mut idx, 0)?)
    } else {
        None
    };
    for (i, v) in values.into_iter().enumerate() {
        let mut v = v;
        if let Some((at, patch)) = next {
            if at == i {
                v |= patch.checked_shl(width).unwrap_or(0);
                idx += 1;
                next = if idx < patches {
                    Some(next_patch(&mut idx, i)?)
                } else {
                    None
                };
            }
        }
        out.push(base.wrapping_add(v as i64));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_of_the_orc_specification_decode() {
        // Integer RLE v2 examples from the ORC specification.
        let ints = |b: &[u8], n: usize, signed: bool| {
            integers(&mut Cursor::new(b), n, signed, true).unwrap()
        };
        assert_eq!(ints(&[0x0a, 0x27, 0x10], 5, false), vec![10000; 5]);
        assert_eq!(
            ints(
                &[0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef],
                4,
                false
            ),
            vec![23713, 43806, 57005, 48879]
        );
        assert_eq!(
            ints(
                &[
                    0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c,
                    0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe,
                    0xfc, 0xe8
                ],
                20,
                false
            ),
            vec![
                2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120,
                2130, 2140, 2150, 2160, 2170, 2180, 2190
            ]
        );
        assert_eq!(
            ints(&[0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46], 10, false),
            vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
        );
        // v1: a run of 100 sevens, delta 0; then a run 100..=0 step -1 is literals here.
        let v1 = integers(&mut Cursor::new(&[0x61, 0x00, 0x07]), 100, false, false).unwrap();
        assert_eq!(v1, vec![7; 100]);
        let v1 = integers(
            &mut Cursor::new(&[0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b]),
            5,
            false,
            false,
        )
        .unwrap();
        assert_eq!(v1, vec![2, 3, 4, 7, 11]);
        // byte RLE and booleans
        assert_eq!(
            bytes(&mut Cursor::new(&[0x61, 0x00]), 100).unwrap(),
            vec![0; 100]
        );
        assert_eq!(
            bytes(&mut Cursor::new(&[0xfe, 0x44, 0x45]), 2).unwrap(),
            vec![0x44, 0x45]
        );
        assert_eq!(
            booleans(&mut Cursor::new(&[0xff, 0x80]), 3).unwrap(),
            vec![true, false, false]
        );
    }

    #[test]
    fn short_and_overlong_streams_are_errors() {
        assert!(integers(&mut Cursor::new(&[0x0a, 0x27]), 5, false, true).is_err());
        assert!(integers(&mut Cursor::new(&[0x0a, 0x27, 0x10]), 4, false, true).is_err());
        assert!(integers(&mut Cursor::new(&[0x61, 0x00, 0x07]), 99, false, false).is_err());
        assert!(bytes(&mut Cursor::new(&[0x61]), 100).is_err());
        assert!(Cursor::new(&[0x80; 12]).varint().is_err());
        assert!(Cursor::new(&[0x80; 20]).signed_varint128().is_err());
    }
}
