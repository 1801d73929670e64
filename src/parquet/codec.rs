//! Page decompression, all pure Rust: UNCOMPRESSED, SNAPPY (`snap`), GZIP (gzip or zlib framing,
//! `miniz_oxide`, CRC-32 and length checked), ZSTD (`crate::codec::zstd`), LZ4_RAW and the Hadoop-framed
//! LZ4 of parquet-mr (`lz4_flex`, with the raw-block fallback other readers use). BROTLI and LZO
//! are reported as unsupported.
//!
//! Every page header states its uncompressed size; decompression writes into a buffer of exactly
//! that size (checked against `max-entry-bytes` first) and fails if the codec produces a
//! different amount, so no codec can allocate beyond what the header declared.

use crate::codec::zstd::Zstd;
use crate::error::{Error, Result};

/// A Parquet compression codec (`CompressionCodec` in the Thrift definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// No compression.
    Uncompressed,
    /// Raw snappy.
    Snappy,
    /// Gzip (RFC 1952).
    Gzip,
    /// LZO (not supported).
    Lzo,
    /// Brotli (not supported).
    Brotli,
    /// Hadoop-framed LZ4 (or a raw LZ4 block from old writers).
    Lz4,
    /// Zstandard.
    Zstd,
    /// A raw LZ4 block.
    Lz4Raw,
}

impl Codec {
    pub(crate) fn from_thrift(v: i32) -> Result<Codec> {
        Ok(match v {
            0 => Codec::Uncompressed,
            1 => Codec::Snappy,
            2 => Codec::Gzip,
            3 => Codec::Lzo,
            4 => Codec::Brotli,
            5 => Codec::Lz4,
            6 => Codec::Zstd,
            7 => Codec::Lz4Raw,
            other => {
                return Err(Error::unsupported(format!(
                    "unknown compression codec {other}"
                )))
            }
        })
    }

    /// The name as in the Parquet specification.
    pub fn as_str(self) -> &'static str {
        match self {
            Codec::Uncompressed => "UNCOMPRESSED",
            Codec::Snappy => "SNAPPY",
            Codec::Gzip => "GZIP",
            Codec::Lzo => "LZO",
            Codec::Brotli => "BROTLI",
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "ZSTD",
            Codec::Lz4Raw => "LZ4_RAW",
        }
    }

    /// Whether this reader can decompress the codec.
    pub fn is_supported(self) -> bool {
        !matches!(self, Codec::Lzo | Codec::Brotli)
    }

    /// An error for an unsupported codec, before any page is read.
    pub(crate) fn check_supported(self) -> Result<()> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(Error::unsupported(format!(
                "{} compression is not supported (supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, \
                 LZ4, LZ4_RAW)",
                self.as_str()
            )))
        }
    }
}

/// Reusable decompression state.
pub(crate) struct Decompressor {
    zstd: Zstd,
}

impl Decompressor {
    pub(crate) fn new() -> Self {
        Decompressor { zstd: Zstd::new() }
    }

    /// Decompresses `input` into `out`, which is cleared and must end up exactly `size` bytes
    /// (the page header's uncompressed size; the caller has checked it against the limits).
    pub(crate) fn decompress(
        &mut self,
        codec: Codec,
        input: &[u8],
        size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        out.clear();
        match codec {
            Codec::Uncompressed => {
                if input.len() != size {
                    return Err(Error::format(format!(
                        "an uncompressed page of {} bytes declares {size}",
                        input.len()
                    )));
                }
                out.extend_from_slice(input);
                Ok(())
            }
            Codec::Snappy => snappy(input, size, out),
            Codec::Gzip => gzip(input, size, out),
            Codec::Zstd => self.zstd(input, size, out),
            Codec::Lz4Raw => {
                out.resize(size, 0);
                lz4_block(input, out)
            }
            Codec::Lz4 => {
                out.resize(size, 0);
                if lz4_hadoop(input, out).is_ok() {
                    return Ok(());
                }
                lz4_block(input, out).map_err(|e| {
                    Error::format(format!(
                        "LZ4 data is neither Hadoop-framed nor a raw block ({e})"
                    ))
                })
            }
            Codec::Lzo | Codec::Brotli => codec.check_supported(),
        }
    }

    fn zstd(&mut self, input: &[u8], size: usize, out: &mut Vec<u8>) -> Result<()> {
        // The window rule and the memory bound are the core's one zstd decoder's
        // (`crate::codec::zstd`); the bound here is the page header's uncompressed size.
        self.zstd
            .decode(input, out, size as u64)
            .map_err(|e| e.into_error(|_| too_long(size)))?;
        exact(out.len(), size)
    }
}

fn too_long(size: usize) -> Error {
    Error::format(format!(
        "the page decompresses to more than the {size} bytes its header declares"
    ))
}

fn exact(got: usize, size: usize) -> Result<()> {
    if got == size {
        Ok(())
    } else {
        Err(Error::format(format!(
            "the page decompresses to {got} bytes, its header declares {size}"
        )))
    }
}

fn snappy(input: &[u8], size: usize, out: &mut Vec<u8>) -> Result<()> {
    let len = snap::raw::decompress_len(input)
        .map_err(|e| Error::format(format!("expected snappy data, found {e}")))?;
    exact(len, size)?;
    out.resize(size, 0);
    let n = snap::raw::Decoder::new()
        .decompress(input, out)
        .map_err(|e| Error::format(format!("corrupt snappy data: {e}")))?;
    exact(n, size)
}

/// Inflates a raw deflate stream (or zlib with `zlib`) into `out[at..]`; returns the input
/// bytes consumed and the output position reached.
fn inflate_into(input: &[u8], out: &mut [u8], at: usize, zlib: bool) -> Result<(usize, usize)> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;

    let mut state = Box::<DecompressorOxide>::default();
    let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if zlib {
        flags |= inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
    }
    let (status, consumed, produced) = decompress(&mut state, input, out, at, flags);
    match status {
        TINFLStatus::Done => Ok((consumed, at + produced)),
        TINFLStatus::HasMoreOutput => Err(Error::format(format!(
            "the page decompresses to more than the {} bytes its header declares",
            out.len()
        ))),
        TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
            Err(Error::format("the deflate data ends early"))
        }
        other => Err(Error::format(format!("corrupt deflate data ({other:?})"))),
    }
}

/// Gzip members (RFC 1952), one after another, or a zlib stream (some writers use it).
fn gzip(input: &[u8], size: usize, out: &mut Vec<u8>) -> Result<()> {
    out.resize(size, 0);
    if input.first() == Some(&0x78) && input.len() >= 2 {
        // zlib: CMF/FLG checksum.
        let cmf = u16::from(input.first().copied().unwrap_or(0));
        let flg = u16::from(input.get(1).copied().unwrap_or(0));
        if (cmf * 256 + flg) % 31 == 0 {
            let (_, pos) = inflate_into(input, out, 0, true)?;
            return exact(pos, size);
        }
    }
    let mut rest = input;
    let mut pos = 0usize;
    let mut members = 0u32;
    while !rest.is_empty() {
        if members > 0 && rest.iter().all(|&b| b == 0) {
            break; // trailing padding
        }
        let body = gzip_header(rest)?;
        let start = pos;
        let (consumed, end) = inflate_into(body, out, pos, false)?;
        let trailer = body
            .get(consumed..consumed + 8)
            .ok_or_else(|| Error::format("a gzip member has no CRC/length trailer"))?;
        let crc = u32::from_le_bytes([
            trailer.first().copied().unwrap_or(0),
            trailer.get(1).copied().unwrap_or(0),
            trailer.get(2).copied().unwrap_or(0),
            trailer.get(3).copied().unwrap_or(0),
        ]);
        let isize = u32::from_le_bytes([
            trailer.get(4).copied().unwrap_or(0),
            trailer.get(5).copied().unwrap_or(0),
            trailer.get(6).copied().unwrap_or(0),
            trailer.get(7).copied().unwrap_or(0),
        ]);
        let produced = out.get(start..end).unwrap_or(&[]);
        if crc32fast::hash(produced) != crc {
            return Err(Error::format("gzip CRC-32 mismatch"));
        }
        if produced.len() as u32 != isize {
            return Err(Error::format("gzip length trailer mismatch"));
        }
        pos = end;
        rest = body.get(consumed + 8..).unwrap_or(&[]);
        members += 1;
    }
    if members == 0 {
        return Err(Error::format("expected gzip data, found nothing"));
    }
    exact(pos, size)
}

/// Parses a gzip member header; returns the bytes after it.
fn gzip_header(data: &[u8]) -> Result<&[u8]> {
    let bad = || Error::format("expected a gzip header");
    let head = data.get(..10).ok_or_else(bad)?;
    if head.first() != Some(&0x1f) || head.get(1) != Some(&0x8b) || head.get(2) != Some(&8) {
        return Err(bad());
    }
    let flags = head.get(3).copied().unwrap_or(0);
    let mut pos = 10usize;
    if flags & 0x04 != 0 {
        // FEXTRA
        let lo = usize::from(*data.get(pos).ok_or_else(bad)?);
        let hi = usize::from(*data.get(pos + 1).ok_or_else(bad)?);
        pos += 2 + (lo | hi << 8);
    }
    for flag in [0x08u8, 0x10] {
        // FNAME, FCOMMENT: zero-terminated.
        if flags & flag != 0 {
            let rest = data.get(pos..).ok_or_else(bad)?;
            let nul = rest.iter().position(|&b| b == 0).ok_or_else(bad)?;
            pos += nul + 1;
        }
    }
    if flags & 0x02 != 0 {
        pos += 2; // FHCRC
    }
    data.get(pos..).ok_or_else(bad)
}

fn lz4_block(input: &[u8], out: &mut [u8]) -> Result<()> {
    let n = lz4_flex::block::decompress_into(input, out)
        .map_err(|e| Error::format(format!("corrupt LZ4 data: {e}")))?;
    exact(n, out.len())
}

/// Hadoop's LZ4 framing: blocks of [BE u32 uncompressed size][BE u32 compressed size][LZ4 block].
fn lz4_hadoop(input: &[u8], out: &mut [u8]) -> Result<()> {
    let bad = || Error::format("not Hadoop-framed LZ4");
    let mut rest = input;
    let mut pos = 0usize;
    while !rest.is_empty() {
        let head = rest.get(..8).ok_or_else(bad)?;
        let raw = u32::from_be_bytes([
            head.first().copied().unwrap_or(0),
            head.get(1).copied().unwrap_or(0),
            head.get(2).copied().unwrap_or(0),
            head.get(3).copied().unwrap_or(0),
        ]) as usize;
        let comp = u32::from_be_bytes([
            head.get(4).copied().unwrap_or(0),
            head.get(5).copied().unwrap_or(0),
            head.get(6).copied().unwrap_or(0),
            head.get(7).copied().unwrap_or(0),
        ]) as usize;
        let block = rest.get(8..8usize.saturating_add(comp)).ok_or_else(bad)?;
        let dst = out.get_mut(pos..pos.saturating_add(raw)).ok_or_else(bad)?;
        let n = lz4_flex::block::decompress_into(block, dst).map_err(|_| bad())?;
        if n != raw {
            return Err(bad());
        }
        pos += raw;
        rest = rest.get(8 + comp..).unwrap_or(&[]);
    }
    if pos == out.len() {
        Ok(())
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..5000u32).flat_map(|i| (i % 97).to_le_bytes()).collect()
    }

    fn roundtrip(codec: Codec, compressed: &[u8], data: &[u8]) {
        let mut d = Decompressor::new();
        let mut out = Vec::new();
        d.decompress(codec, compressed, data.len(), &mut out)
            .unwrap();
        assert_eq!(out, data, "{codec:?}");
        // A wrong declared size is an error, never a panic.
        assert!(d
            .decompress(codec, compressed, data.len() - 1, &mut out)
            .is_err());
        assert!(d
            .decompress(codec, compressed, data.len() + 1, &mut out)
            .is_err());
        // Truncations are errors.
        for cut in [0, 1, compressed.len() / 2, compressed.len() - 1] {
            let _ = d.decompress(codec, &compressed[..cut], data.len(), &mut out);
        }
    }

    #[test]
    fn every_supported_codec_roundtrips() {
        let data = sample();
        roundtrip(Codec::Uncompressed, &data, &data);
        roundtrip(
            Codec::Snappy,
            &snap::raw::Encoder::new().compress_vec(&data).unwrap(),
            &data,
        );
        roundtrip(
            Codec::Zstd,
            &ruzstd::encoding::compress_to_vec(
                &data[..],
                ruzstd::encoding::CompressionLevel::Fastest,
            ),
            &data,
        );
        let block = lz4_flex::block::compress(&data);
        roundtrip(Codec::Lz4Raw, &block, &data);
        // Raw block under the LZ4 codec (the fallback).
        roundtrip(Codec::Lz4, &block, &data);
        // Hadoop framing, two blocks.
        let (a, b) = data.split_at(7000);
        let mut framed = Vec::new();
        for part in [a, b] {
            let c = lz4_flex::block::compress(part);
            framed.extend_from_slice(&(part.len() as u32).to_be_bytes());
            framed.extend_from_slice(&(c.len() as u32).to_be_bytes());
            framed.extend_from_slice(&c);
        }
        roundtrip(Codec::Lz4, &framed, &data);
        // Gzip: header, raw deflate, CRC and length; two members; zlib.
        let member = |d: &[u8]| {
            let mut g = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
            g.extend_from_slice(b"name\0");
            g.extend_from_slice(&miniz_oxide::deflate::compress_to_vec(d, 6));
            g.extend_from_slice(&crc32fast::hash(d).to_le_bytes());
            g.extend_from_slice(&(d.len() as u32).to_le_bytes());
            g
        };
        roundtrip(Codec::Gzip, &member(&data), &data);
        let mut two = member(a);
        two.extend_from_slice(&member(b));
        roundtrip(Codec::Gzip, &two, &data);
        roundtrip(
            Codec::Gzip,
            &miniz_oxide::deflate::compress_to_vec_zlib(&data, 6),
            &data,
        );
        // A bad CRC is caught.
        let mut bad = member(&data);
        let n = bad.len();
        bad[n - 6] ^= 1;
        assert!(Decompressor::new()
            .decompress(Codec::Gzip, &bad, data.len(), &mut Vec::new())
            .is_err());
    }

    #[test]
    fn brotli_and_lzo_are_unsupported() {
        for c in [Codec::Brotli, Codec::Lzo] {
            let e = Decompressor::new()
                .decompress(c, b"xx", 2, &mut Vec::new())
                .unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported);
            assert!(e.to_string().contains("not supported"), "{e}");
        }
        assert_eq!(
            Codec::from_thrift(42).unwrap_err().kind(),
            crate::error::ErrorKind::Unsupported
        );
    }

    #[test]
    fn garbage_never_panics() {
        let mut d = Decompressor::new();
        let mut out = Vec::new();
        let mut seed = 12345u64;
        for len in 0..200usize {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 56) as u8
                })
                .collect();
            for c in [
                Codec::Snappy,
                Codec::Gzip,
                Codec::Zstd,
                Codec::Lz4,
                Codec::Lz4Raw,
            ] {
                let _ = d.decompress(c, &junk, 1000, &mut out);
            }
        }
    }
}
