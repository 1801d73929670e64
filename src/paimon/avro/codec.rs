//! Avro block codecs, all pure Rust: `null`, `deflate` (raw deflate, `miniz_oxide`), `snappy`
//! (raw snappy + big-endian CRC32 of the uncompressed data, checked), `zstandard`
//! (`crate::codec::zstd`), `bzip2` and `xz` (`crate::codec::{bzip2, xz}`: pypaimon 2.x's
//! `manifest.compression` accepts both, and Java's Avro reads them).
//!
//! Every codec stops at the block limit before it allocates more: a zstd frame claiming a huge
//! window or content size, or a snappy block claiming a huge length, is an error, not an
//! allocation.

use std::fmt;

use crate::codec::zstd::Zstd;
use crate::error::{Error, Result};

/// The compression codec of an Avro container file (`avro.codec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// Uncompressed blocks (also the default when `avro.codec` is absent).
    Null,
    /// Raw deflate (RFC 1951), no zlib header.
    Deflate,
    /// Raw snappy followed by the big-endian CRC32 of the uncompressed block (Paimon 0.8).
    Snappy,
    /// A zstd frame per block (Paimon 0.9 and later).
    Zstandard,
    /// A bzip2 stream per block.
    Bzip2,
    /// An `.xz` container per block.
    Xz,
}

impl Codec {
    /// The codec named by `avro.codec`; unknown names are unsupported.
    pub fn from_name(name: &str) -> Result<Codec> {
        match name {
            "null" | "" => Ok(Codec::Null),
            "deflate" => Ok(Codec::Deflate),
            "snappy" => Ok(Codec::Snappy),
            "zstandard" => Ok(Codec::Zstandard),
            "bzip2" => Ok(Codec::Bzip2),
            "xz" => Ok(Codec::Xz),
            other => Err(Error::unsupported(format!(
                "Avro codec {other:?} is not supported (supported: null, deflate, snappy, zstandard, bzip2, xz)"
            ))),
        }
    }

    /// The name as written in `avro.codec`.
    pub fn as_str(self) -> &'static str {
        match self {
            Codec::Null => "null",
            Codec::Deflate => "deflate",
            Codec::Snappy => "snappy",
            Codec::Zstandard => "zstandard",
            Codec::Bzip2 => "bzip2",
            Codec::Xz => "xz",
        }
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reusable decompression state (a zstd frame decoder and an output buffer), so that decoding
/// thousands of small manifests does not allocate a window per block.
pub(crate) struct Decompressor {
    zstd: Zstd,
    buf: Vec<u8>,
    /// Bytes of decompressed blocks of the files read to the end since this decompressor was made
    /// (one per [`super::AvroSchemaCache`], so one per analysis run): bounded by
    /// `max-total-bytes`.
    pub(crate) decompressed: u64,
}

impl fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decompressor")
            .field("buf_capacity", &self.buf.capacity())
            .finish_non_exhaustive()
    }
}

impl Default for Decompressor {
    fn default() -> Self {
        Decompressor {
            zstd: Zstd::new(),
            buf: Vec::new(),
            decompressed: 0,
        }
    }
}

fn too_big(size: u64, max: u64) -> Error {
    Error::limit(
        "max-avro-block-bytes",
        format!("Avro block decompresses to more than {max} bytes (at least {size})"),
    )
}

impl Decompressor {
    /// Decompresses one block's `data`; the result is at most `max` bytes.
    pub(crate) fn decompress<'s>(
        &'s mut self,
        codec: Codec,
        data: &'s [u8],
        max: u64,
    ) -> Result<&'s [u8]> {
        let max_usize = usize::try_from(max).unwrap_or(usize::MAX);
        match codec {
            Codec::Null => {
                if data.len() as u64 > max {
                    return Err(too_big(data.len() as u64, max));
                }
                Ok(data)
            }
            Codec::Deflate => {
                self.buf = miniz_oxide::inflate::decompress_to_vec_with_limit(data, max_usize)
                    .map_err(|e| match e.status {
                        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                            too_big(max.saturating_add(1), max)
                        }
                        status => Error::format(format!(
                            "expected a deflate stream, found corrupt data ({status:?})"
                        )),
                    })?;
                Ok(&self.buf)
            }
            Codec::Snappy => {
                self.snappy(data, max)?;
                Ok(&self.buf)
            }
            Codec::Zstandard => {
                self.zstd(data, max)?;
                Ok(&self.buf)
            }
            Codec::Bzip2 | Codec::Xz => {
                let decode = if codec == Codec::Bzip2 {
                    crate::codec::bzip2::decode
                } else {
                    crate::codec::xz::decode_xz
                };
                decode(data, &mut self.buf, max)
                    .map_err(|e| e.into_error(|at_least| too_big(at_least, max)))?;
                Ok(&self.buf)
            }
        }
    }

    fn snappy(&mut self, data: &[u8], max: u64) -> Result<()> {
        let split = data.len().checked_sub(4).ok_or_else(|| {
            Error::format(format!(
                "expected a snappy block with a 4-byte CRC, found {} bytes",
                data.len()
            ))
        })?;
        let (compressed, crc) = data.split_at(split);
        let expected = crc
            .try_into()
            .map(u32::from_be_bytes)
            .map_err(|_| Error::format("expected a 4-byte snappy CRC"))?;
        let len = snap::raw::decompress_len(compressed)
            .map_err(|e| Error::format(format!("expected a snappy block, found {e}")))?;
        if len as u64 > max {
            return Err(too_big(len as u64, max));
        }
        self.buf.clear();
        self.buf.resize(len, 0);
        let n = snap::raw::Decoder::new()
            .decompress(compressed, &mut self.buf)
            .map_err(|e| Error::format(format!("expected a snappy block, found {e}")))?;
        self.buf.truncate(n);
        let actual = crc32fast::hash(&self.buf);
        if actual != expected {
            return Err(Error::format(format!(
                "snappy block CRC mismatch: expected {expected:#010x}, computed {actual:#010x}"
            )));
        }
        Ok(())
    }

    fn zstd(&mut self, data: &[u8], max: u64) -> Result<()> {
        // The core's one zstd decoder (`crate::codec::zstd`): RFC 8878 windows, memory bounded
        // by the block limit.
        self.buf.clear();
        self.zstd
            .decode(data, &mut self.buf, max)
            .map_err(|e| e.into_error(|at_least| too_big(at_least, max)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snappy_block(data: &[u8]) -> Vec<u8> {
        let mut out = snap::raw::Encoder::new().compress_vec(data).unwrap();
        out.extend_from_slice(&crc32fast::hash(data).to_be_bytes());
        out
    }

    fn zstd_frame(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    fn sample() -> Vec<u8> {
        (0..20_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect()
    }

    #[test]
    fn all_codecs_round_trip() {
        let data = sample();
        let mut d = Decompressor::default();
        assert_eq!(
            d.decompress(Codec::Null, &data, 1 << 20).unwrap(),
            &data[..]
        );
        let deflated = miniz_oxide::deflate::compress_to_vec(&data, 6);
        assert_eq!(
            d.decompress(Codec::Deflate, &deflated, 1 << 20).unwrap(),
            &data[..]
        );
        let sn = snappy_block(&data);
        assert_eq!(
            d.decompress(Codec::Snappy, &sn, 1 << 20).unwrap(),
            &data[..]
        );
        let z = zstd_frame(&data);
        assert_eq!(
            d.decompress(Codec::Zstandard, &z, 1 << 20).unwrap(),
            &data[..]
        );
        let mut bz = Vec::new();
        std::io::Write::write_all(
            &mut bzip2::write::BzEncoder::new(&mut bz, bzip2::Compression::fast()),
            &data,
        )
        .unwrap();
        assert_eq!(d.decompress(Codec::Bzip2, &bz, 1 << 20).unwrap(), &data[..]);
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut std::io::BufReader::new(&data[..]), &mut xz).unwrap();
        assert_eq!(d.decompress(Codec::Xz, &xz, 1 << 20).unwrap(), &data[..]);
        for (codec, block) in [(Codec::Bzip2, &bz), (Codec::Xz, &xz)] {
            let e = d.decompress(codec, block, 1000).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Limit, "{codec}: {e}");
        }
        // Two frames in one block are concatenated.
        let mut two = z.clone();
        two.extend_from_slice(&zstd_frame(b"tail"));
        let out = d.decompress(Codec::Zstandard, &two, 1 << 20).unwrap();
        assert_eq!(out.len(), data.len() + 4);
    }

    /// Every zstd block of every manifest list and manifest in the Paimon 0.9 fixtures
    /// (zstd-jni's output: nearly all use the predefined FSE tables, some their own tables).
    fn real_zstd_blocks() -> Vec<Vec<u8>> {
        use crate::paimon::avro::container::read_header_raw;
        use crate::paimon::avro::decode::Cursor;
        use crate::source::{Artifact, Input};
        let mut blocks = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/warehouses");
        let mut fixtures: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                name.starts_with("java09_") && name.ends_with(".zip")
            })
            .collect();
        fixtures.sort();
        for path in fixtures {
            let fixture = path.file_name().unwrap().to_string_lossy().into_owned();
            let zip = std::fs::read(&path).unwrap();
            let limits = crate::Limits::default();
            let artifact = Artifact::open(
                vec![Input::Zip {
                    name: fixture,
                    data: std::rc::Rc::new(zip),
                }],
                &limits,
            )
            .unwrap();
            for f in artifact.files() {
                if !f.path().contains("/manifest/manifest-") {
                    continue;
                }
                // Some fixtures hold damaged or truncated files on purpose; Paimon 0.8's
                // snappy manifests sit beside 0.9's in one.
                let Ok(bytes) = artifact.read_entry(f, u64::MAX) else {
                    continue;
                };
                let Ok((_, framing)) = read_header_raw(&bytes) else {
                    continue;
                };
                if framing.codec != Codec::Zstandard {
                    continue;
                }
                let mut cur = Cursor::new(&bytes[framing.data_start..]);
                while !cur.is_empty() {
                    let (Ok(_), Ok(size)) = (cur.read_long(), cur.read_long()) else {
                        break;
                    };
                    let Ok(block) = cur.take(size as usize, "block") else {
                        break;
                    };
                    blocks.push(block.to_vec());
                    if cur.take(16, "sync").is_err() {
                        break;
                    }
                }
            }
        }
        blocks
    }

    /// The vendored ruzstd keeps its predefined FSE tables from block to block
    /// (vendor/README.md): one decompressor must decode any sequence of blocks exactly as a
    /// fresh decompressor decodes each, whatever tables the blocks before it used.
    #[test]
    fn one_decompressor_decodes_blocks_in_any_order_as_fresh_ones_do() {
        let mut blocks = real_zstd_blocks();
        // Frames with tables of their own (ruzstd's encoder) between the real ones.
        for i in 0..20u32 {
            let data: Vec<u8> = (0..5_000u32)
                .map(|j| ((j * (i + 3)) % (17 + i)) as u8)
                .collect();
            blocks.push(zstd_frame(&data));
        }
        // (Blocks a fresh decompressor refuses, if a damaged fixture has any, are left out.)
        blocks.retain(|b| {
            Decompressor::default()
                .decompress(Codec::Zstandard, b, 1 << 24)
                .is_ok()
        });
        assert!(blocks.len() > 200, "{} blocks", blocks.len());
        let fresh: Vec<Vec<u8>> = blocks
            .iter()
            .map(|b| {
                Decompressor::default()
                    .decompress(Codec::Zstandard, b, 1 << 24)
                    .unwrap()
                    .to_vec()
            })
            .collect();
        let mut order: Vec<usize> = (0..blocks.len()).collect();
        let mut shared = Decompressor::default();
        for round in 0..4u64 {
            // A different order each round (a fixed pseudo-random permutation).
            let mut state = round.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            for &i in &order {
                let out = shared
                    .decompress(Codec::Zstandard, &blocks[i], 1 << 24)
                    .unwrap();
                assert_eq!(out, &fresh[i][..], "block {i} in round {round}");
            }
        }
    }

    #[test]
    fn limits_are_enforced_before_allocation() {
        let data = sample();
        let mut d = Decompressor::default();
        for (codec, block) in [
            (Codec::Null, data.clone()),
            (
                Codec::Deflate,
                miniz_oxide::deflate::compress_to_vec(&data, 6),
            ),
            (Codec::Snappy, snappy_block(&data)),
            (Codec::Zstandard, zstd_frame(&data)),
        ] {
            let e = d.decompress(codec, &block, 1000).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Limit, "{codec}: {e}");
            assert!(e.to_string().contains("max-avro-block-bytes"), "{e}");
        }
    }

    #[test]
    fn snappy_crc_is_checked() {
        let mut block = snappy_block(b"hello hello hello");
        let n = block.len();
        block[n - 1] ^= 1;
        let e = Decompressor::default()
            .decompress(Codec::Snappy, &block, 1 << 20)
            .unwrap_err();
        assert!(e.to_string().contains("CRC mismatch"), "{e}");
        assert!(Decompressor::default()
            .decompress(Codec::Snappy, &[1, 2], 1 << 20)
            .is_err());
    }

    #[test]
    fn snappy_huge_claimed_length_is_a_limit_error() {
        // Varint length 0xffffffff then nothing.
        let block = [0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0];
        let e = Decompressor::default()
            .decompress(Codec::Snappy, &block, 1 << 20)
            .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                crate::error::ErrorKind::Limit | crate::error::ErrorKind::Format
            ),
            "{e}"
        );
    }

    #[test]
    fn zstd_windows_past_the_cap_are_unsupported_and_content_past_the_block_limit_a_limit() {
        // Single-segment frame declaring u64::MAX bytes of content (its window, too).
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0b1110_0000];
        frame.extend_from_slice(&u64::MAX.to_le_bytes());
        frame.extend_from_slice(&[0x01, 0x00, 0x00]);
        let e = Decompressor::default()
            .decompress(Codec::Zstandard, &frame, 1 << 20)
            .unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported, "{e}");
        // Window descriptor claiming 2^41 bytes, no content size.
        let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x01, 0x00, 0x00];
        let e = Decompressor::default()
            .decompress(Codec::Zstandard, &frame, 1 << 20)
            .unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("2199023255552-byte window"), "{e}");
        // A 4 MiB window (zstd-jni at level 9) is fine; content past the block limit is not.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 12 << 3];
        frame.extend_from_slice(&(1u32 | 200 << 3).to_le_bytes()[..3]);
        frame.extend_from_slice(&[b'a'; 200]);
        let mut d = Decompressor::default();
        assert_eq!(
            d.decompress(Codec::Zstandard, &frame, 200).unwrap(),
            &[b'a'; 200][..]
        );
        let e = d.decompress(Codec::Zstandard, &frame, 199).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Limit, "{e}");
    }

    #[test]
    fn corrupt_zstd_is_a_format_error() {
        let mut z = zstd_frame(&sample());
        z.truncate(z.len() / 2);
        let e = Decompressor::default()
            .decompress(Codec::Zstandard, &z, 1 << 20)
            .unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Format, "{e}");
        assert!(Decompressor::default()
            .decompress(Codec::Zstandard, b"not zstd", 1 << 20)
            .is_err());
        assert!(Decompressor::default()
            .decompress(Codec::Zstandard, b"", 1 << 20)
            .is_err());
    }

    #[test]
    fn codec_names() {
        for c in [
            Codec::Null,
            Codec::Deflate,
            Codec::Snappy,
            Codec::Zstandard,
            Codec::Bzip2,
            Codec::Xz,
        ] {
            assert_eq!(Codec::from_name(c.as_str()).unwrap(), c);
        }
        let e = Codec::from_name("lz4").unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported);
    }
}
