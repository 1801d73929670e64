//! The Avro object container file: magic `Obj\x01`, a metadata map (`avro.schema`,
//! `avro.codec`), a 16-byte sync marker, then blocks of (record count, byte size, data, sync).

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::codec::{Codec, Decompressor};
use super::decode::Cursor;

/// The magic bytes at the start of every Avro container file.
pub const MAGIC: &[u8; 4] = b"Obj\x01";

/// The header of an Avro container file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'a> {
    /// The writer schema (`avro.schema`), as written.
    pub schema: &'a str,
    /// The block codec (`avro.codec`; `null` when absent).
    pub codec: Codec,
    /// The sync marker that ends every block.
    pub sync: [u8; 16],
    /// Offset of the first block.
    pub data_start: usize,
}

fn hex_prefix(bytes: &[u8]) -> String {
    bytes.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Checks the magic; names ORC and Parquet, which Paimon's `manifest.format` allowed up to 2.0.
fn check_magic(bytes: &[u8]) -> Result<()> {
    if bytes.starts_with(MAGIC) {
        return Ok(());
    }
    if bytes.starts_with(b"ORC") || bytes.starts_with(b"PAR1") {
        return Err(Error::unsupported(
            "not an Avro file (Paimon manifest.format orc/parquet is not supported)",
        ));
    }
    if bytes.is_empty() {
        return Err(Error::format(
            "not an Avro file: expected magic Obj\\x01, found an empty file",
        ));
    }
    Err(Error::format(format!(
        "not an Avro file: expected magic Obj\\x01 (4f626a01), found {}",
        hex_prefix(bytes)
    )))
}

/// How the blocks after a header are framed: codec, sync marker, first block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Framing {
    /// The block codec.
    pub codec: Codec,
    /// The sync marker that ends every block.
    pub sync: [u8; 16],
    /// Offset of the first block.
    pub data_start: usize,
}

#[cfg(test)]
impl Header<'_> {
    /// The framing of the blocks after this header.
    pub(crate) fn framing(&self) -> Framing {
        Framing {
            codec: self.codec,
            sync: self.sync,
            data_start: self.data_start,
        }
    }
}

/// Reads the header: magic, metadata and sync marker.
pub fn read_header(bytes: &[u8]) -> Result<Header<'_>> {
    let (schema, framing) = read_header_raw(bytes)?;
    let schema = std::str::from_utf8(schema).map_err(|_| not_utf8())?;
    Ok(Header {
        schema,
        codec: framing.codec,
        sync: framing.sync,
        data_start: framing.data_start,
    })
}

/// The error for an `avro.schema` that is not UTF-8.
pub(crate) fn not_utf8() -> Error {
    Error::format("header: expected avro.schema as UTF-8, found invalid bytes")
}

/// [`read_header`] with the schema as bytes, not yet checked to be UTF-8: the readers compare it
/// with the schema of the previous file first (thousands of manifests share one), and check
/// only a schema they have not seen.
pub(crate) fn read_header_raw(bytes: &[u8]) -> Result<(&[u8], Framing)> {
    check_magic(bytes)?;
    let mut cur = Cursor::new(bytes.get(MAGIC.len()..).unwrap_or_default());
    let mut schema: Option<&[u8]> = None;
    let mut codec: Option<&[u8]> = None;
    loop {
        let n = cur.read_long().map_err(|e| e.context("header metadata"))?;
        if n == 0 {
            break;
        }
        if n < 0 {
            // A negative count is followed by the block's byte size.
            cur.read_long().map_err(|e| e.context("header metadata"))?;
        }
        let count = n.unsigned_abs();
        // Each entry takes at least two bytes (two lengths).
        if count > cur.remaining() as u64 {
            return Err(Error::format(format!(
                "header metadata: expected at most {} entries, found a block of {count}",
                cur.remaining()
            )));
        }
        for _ in 0..count {
            let key = cur
                .read_bytes()
                .map_err(|e| e.context("header metadata key"))?;
            let value = cur
                .read_bytes()
                .map_err(|e| e.context("header metadata value"))?;
            match key {
                b"avro.schema" => schema = Some(value),
                b"avro.codec" => codec = Some(value),
                _ => {}
            }
        }
    }
    let sync: [u8; 16] = cur
        .take(16, "sync marker")
        .map_err(|e| e.context("header"))?
        .try_into()
        .map_err(|_| Error::format("header: expected a 16-byte sync marker"))?;
    let schema = schema
        .ok_or_else(|| Error::format("header: expected avro.schema in the metadata, found none"))?;
    let codec = match codec {
        None => Codec::Null,
        Some(c) => Codec::from_name(std::str::from_utf8(c).map_err(|_| {
            Error::format("header: expected avro.codec as UTF-8, found invalid bytes")
        })?)?,
    };
    Ok((
        schema,
        Framing {
            codec,
            sync,
            data_start: MAGIC.len() + cur.position(),
        },
    ))
}

/// Walks the blocks after the header, decompressing each and handing
/// `(block index, record count, data)` to `f`. Enforces `max-avro-blocks`, `max-avro-records`
/// and `max-avro-block-bytes`, and checks every sync marker. The decompressed blocks of one
/// file together are bounded by `max-entry-bytes`, and those of every file read through the same
/// `decompressor` (one analysis run) by `max-total-bytes`: every block may stay under the block
/// limit while a few KB of compressed blocks decompress, and are decoded and kept, by the GB.
pub(crate) fn for_each_block(
    bytes: &[u8],
    header: &Framing,
    limits: &Limits,
    decompressor: &mut Decompressor,
    mut f: impl FnMut(u64, u64, &[u8]) -> Result<()>,
) -> Result<u64> {
    let mut cur = Cursor::new(bytes.get(header.data_start..).unwrap_or_default());
    let mut blocks = 0u64;
    let mut records = 0u64;
    let mut file_bytes = 0u64;
    let run_before = decompressor.decompressed;
    while !cur.is_empty() {
        let index = blocks;
        let ctx = |e: Error| e.context(format!("block {index}"));
        blocks += 1;
        if blocks > limits.max_avro_blocks {
            return Err(Error::limit(
                "max-avro-blocks",
                format!("Avro file has more than {} blocks", limits.max_avro_blocks),
            ));
        }
        let count = cur
            .read_long()
            .map_err(|e| ctx(e.context("record count")))?;
        let count = u64::try_from(count).map_err(|_| {
            ctx(Error::format(format!(
                "expected a record count, found {count}"
            )))
        })?;
        records = records.saturating_add(count);
        if records > limits.max_avro_records {
            return Err(ctx(Error::limit(
                "max-avro-records",
                format!(
                    "Avro file has more than {} records",
                    limits.max_avro_records
                ),
            )));
        }
        let size = cur.read_long().map_err(|e| ctx(e.context("block size")))?;
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s <= cur.remaining())
            .ok_or_else(|| {
                ctx(Error::format(format!(
                    "expected a block size of at most {} bytes, found {size}",
                    cur.remaining()
                )))
            })?;
        let raw = cur.take(size, "block data").map_err(ctx)?;
        let sync = cur
            .take(16, "sync marker")
            .map_err(|e| ctx(e.context("after the block data")))?;
        if sync != header.sync {
            return Err(ctx(Error::format(format!(
                "expected the sync marker {}, found {} (corrupt or truncated block)",
                hex_prefix(&header.sync),
                hex_prefix(sync)
            ))));
        }
        let data = decompressor
            .decompress(header.codec, raw, limits.max_avro_block_bytes)
            .map_err(ctx)?;
        let len = data.len() as u64;
        file_bytes = file_bytes.saturating_add(len);
        if file_bytes > limits.max_entry_bytes {
            return Err(ctx(Error::limit(
                "max-entry-bytes",
                format!(
                    "the Avro blocks decompress to more than {} bytes in all",
                    limits.max_entry_bytes
                ),
            )));
        }
        if run_before.saturating_add(file_bytes) > limits.max_total_bytes {
            return Err(ctx(Error::limit(
                "max-total-bytes",
                format!(
                    "Avro blocks have decompressed to more than {} bytes in this run",
                    limits.max_total_bytes
                ),
            )));
        }
        f(index, count, data)?;
    }
    // Only files read to the end count for the run: a refused file's blocks are dropped.
    decompressor.decompressed = run_before.saturating_add(file_bytes);
    Ok(records)
}
