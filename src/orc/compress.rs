//! ORC's compression framing: a compressed stream (and the footer, metadata and stripe
//! footers) is a sequence of chunks, each with a 3-byte little-endian header `length << 1 |
//! original`; an original chunk is stored as is, any other is one block of the file's codec
//! that inflates to at most the PostScript's `compressionBlockSize`.
//!
//! Codecs, all pure Rust: ZLIB (raw deflate, `miniz_oxide`), SNAPPY (raw, `snap`), LZ4 (raw
//! blocks, `lz4_flex`), ZSTD (frames, the core's one decoder `crate::codec::zstd`); LZO is an `unsupported` error.
//!
//! Bounds: each chunk inflates into at most `compressionBlockSize` bytes (itself at most
//! `max-entry-bytes`), and a whole stream into at most `max-entry-bytes` and `max-ratio`
//! times its stored size (above a 1 MiB floor).

use crate::codec::zstd::Zstd;

use super::meta::Compression;
use crate::error::{Error, Result};
use crate::limits::Limits;

/// Streams of up to this many bytes are not held to `max-ratio`.
const RATIO_FLOOR: u64 = 1 << 20;

/// Decompresses the streams of one file.
pub(crate) struct Decompressor {
    compression: Compression,
    block_size: usize,
    zstd: Zstd,
}

impl Decompressor {
    /// A decompressor for `compression` with chunks of at most `block_size` bytes
    /// (`max_bytes` bounds the block size).
    pub(crate) fn new(compression: Compression, block_size: u64, max_bytes: u64) -> Result<Self> {
        if compression == Compression::Lzo {
            return Err(Error::unsupported(
                "LZO compression is not supported (supported: NONE, ZLIB, SNAPPY, LZ4, ZSTD)",
            ));
        }
        if compression != Compression::None && block_size == 0 {
            return Err(Error::format("the compression block size is 0"));
        }
        if block_size > max_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!("the compression block size is {block_size} bytes"),
            ));
        }
        Ok(Decompressor {
            compression,
            block_size: usize::try_from(block_size).unwrap_or(usize::MAX),
            zstd: Zstd::new(),
        })
    }

    /// The bytes of a stream (or footer), inflated: at most `max-entry-bytes`, and at most
    /// `max-ratio` times the stored bytes (with a 1 MiB floor, so small streams of repeated
    /// values are not held to it).
    pub(crate) fn decompress(&mut self, input: &[u8], limits: &Limits) -> Result<Vec<u8>> {
        if self.compression == Compression::None {
            if input.len() as u64 > limits.max_entry_bytes {
                return Err(Error::limit(
                    "max-entry-bytes",
                    format!("a stream of {} bytes", input.len()),
                ));
            }
            return Ok(input.to_vec());
        }
        let by_ratio = (input.len() as u64)
            .saturating_mul(limits.max_ratio)
            .max(RATIO_FLOOR);
        let (cap, limit) = if by_ratio < limits.max_entry_bytes {
            (by_ratio, "max-ratio")
        } else {
            (limits.max_entry_bytes, "max-entry-bytes")
        };
        let mut out = Vec::new();
        let mut rest = input;
        let mut chunk = 0usize;
        while !rest.is_empty() {
            let header = rest
                .get(..3)
                .ok_or_else(|| Error::format("a compression chunk header is cut short"))?;
            let h = u32::from(header.first().copied().unwrap_or(0))
                | u32::from(header.get(1).copied().unwrap_or(0)) << 8
                | u32::from(header.get(2).copied().unwrap_or(0)) << 16;
            let original = h & 1 == 1;
            let len = (h >> 1) as usize;
            let body = rest.get(3..3 + len).ok_or_else(|| {
                Error::format(format!(
                    "compression chunk {chunk} declares {len} bytes, {} remain",
                    rest.len().saturating_sub(3)
                ))
            })?;
            rest = rest.get(3 + len..).unwrap_or(&[]);
            if original {
                if body.len() > self.block_size {
                    return Err(Error::format(format!(
                        "compression chunk {chunk} stores {} bytes, more than the block size {}",
                        body.len(),
                        self.block_size
                    )));
                }
                out.extend_from_slice(body);
            } else {
                self.block(body, self.block_size, &mut out)
                    .map_err(|e| e.context(format!("compression chunk {chunk}")))?;
            }
            // At most one block beyond the cap is ever held (the block size is checked
            // against max-entry-bytes when the file is opened).
            if out.len() as u64 > cap {
                return Err(Error::limit(
                    limit,
                    format!(
                        "a stream of {} stored bytes inflates to more than {cap}",
                        input.len()
                    ),
                ));
            }
            chunk += 1;
        }
        Ok(out)
    }

    /// Inflates one block onto `out`, producing at most `cap` bytes.
    fn block(&mut self, body: &[u8], cap: usize, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        match self.compression {
            Compression::None | Compression::Lzo => {
                return Err(Error::unsupported("no codec for a compressed chunk"))
            }
            Compression::Zlib => {
                out.resize(start + cap, 0);
                let n = inflate(body, out.get_mut(start..).unwrap_or(&mut []))?;
                out.truncate(start + n);
            }
            Compression::Snappy => {
                let len = snap::raw::decompress_len(body)
                    .map_err(|e| Error::format(format!("expected snappy data, found {e}")))?;
                if len > cap {
                    return Err(too_long(cap));
                }
                out.resize(start + len, 0);
                let n = snap::raw::Decoder::new()
                    .decompress(body, out.get_mut(start..).unwrap_or(&mut []))
                    .map_err(|e| Error::format(format!("corrupt snappy data: {e}")))?;
                out.truncate(start + n);
            }
            Compression::Lz4 => {
                out.resize(start + cap, 0);
                let n =
                    lz4_flex::block::decompress_into(body, out.get_mut(start..).unwrap_or(&mut []))
                        .map_err(|e| match e {
                            lz4_flex::block::DecompressError::OutputTooSmall { .. } => {
                                too_long(cap)
                            }
                            e => Error::format(format!("corrupt LZ4 block: {e}")),
                        })?;
                out.truncate(start + n);
            }
            // The core's one zstd decoder (`crate::codec::zstd`: RFC 8878 windows, memory
            // bounded by the chunk's cap, not by the declared window).
            Compression::Zstd => self
                .zstd
                .decode(body, out, (start + cap) as u64)
                .map_err(|e| e.into_error(|_| too_long(cap)))?,
        }
        Ok(())
    }
}

fn too_long(cap: usize) -> Error {
    Error::format(format!(
        "a block inflates to more than the file's compression block size, {cap} bytes"
    ))
}

/// Raw deflate into `out`; returns the bytes produced.
fn inflate(input: &[u8], out: &mut [u8]) -> Result<usize> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;

    let mut state = Box::<DecompressorOxide>::default();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, _, produced) = decompress(&mut state, input, out, 0, flags);
    match status {
        TINFLStatus::Done => Ok(produced),
        TINFLStatus::HasMoreOutput => Err(too_long(out.len())),
        TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
            Err(Error::format("the deflate data ends early"))
        }
        other => Err(Error::format(format!("corrupt deflate data ({other:?})"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(original: bool, body: &[u8]) -> Vec<u8> {
        let h = (body.len() as u32) << 1 | u32::from(original);
        let mut v = vec![h as u8, (h >> 8) as u8, (h >> 16) as u8];
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn chunks_of_every_codec_inflate_and_are_bounded() {
        let limits = Limits::default();
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8).collect();
        let snappy = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        let lz4 = lz4_flex::block::compress(&data);
        let zlib = miniz_oxide::deflate::compress_to_vec(&data, 6);
        for (c, body) in [
            (Compression::Snappy, snappy),
            (Compression::Lz4, lz4),
            (Compression::Zlib, zlib),
        ] {
            let mut d = Decompressor::new(c, 1000, 1 << 20).unwrap();
            let mut stream = chunk(false, &body);
            stream.extend(chunk(true, b"xyz"));
            let out = d.decompress(&stream, &limits).unwrap();
            assert_eq!(&out[..1000], &data[..], "{c:?}");
            assert_eq!(&out[1000..], b"xyz");
            // a block larger than the block size is refused
            let mut small = Decompressor::new(c, 999, 1 << 20).unwrap();
            let err = small.decompress(&chunk(false, &body), &limits).unwrap_err();
            assert!(err.to_string().contains("block size"), "{err}");
            // the stream limit holds
            let tight = Limits {
                max_entry_bytes: 1001,
                ..Limits::default()
            };
            let err = d.decompress(&stream, &tight).unwrap_err();
            assert!(err.to_string().contains("max-entry-bytes"), "{err}");
            // cut short
            assert!(d.decompress(&stream[..stream.len() - 1], &limits).is_err());
        }
        assert!(Decompressor::new(Compression::Lzo, 10, 10).is_err());
        assert!(Decompressor::new(Compression::Zlib, 1 << 30, 1 << 20).is_err());
    }

    #[test]
    fn a_stream_may_not_inflate_beyond_max_ratio_above_a_floor() {
        let zeros = vec![0u8; 256 << 10];
        let body = lz4_flex::block::compress(&zeros);
        let stream: Vec<u8> = (0..8).flat_map(|_| chunk(false, &body)).collect();
        let mut d = Decompressor::new(Compression::Lz4, 256 << 10, 256 << 20).unwrap();
        // 2 MiB from a few KiB: within the default ratio only below the floor
        let strict = Limits {
            max_ratio: 10,
            ..Limits::default()
        };
        let err = d.decompress(&stream, &strict).unwrap_err();
        assert!(err.to_string().contains("max-ratio"), "{err}");
        assert_eq!(
            d.decompress(&stream, &Limits::default()).unwrap().len(),
            2 << 20
        );
        assert_eq!(
            d.decompress(&stream[..stream.len() / 8 * 4], &strict)
                .unwrap()
                .len(),
            1 << 20
        );
    }
}
