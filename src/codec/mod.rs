//! Decompression shared by every data-file and metadata reader of the core.
//!
//! * [`zstd`]: Zstandard frames (RFC 8878), for Parquet pages, Avro blocks (manifests, data
//!   and changelog files) and ORC streams alike: one window rule, one memory bound.
//! * [`bzip2`], [`xz`]: Avro's `bzip2` and `xz` codecs (pypaimon 2.x writes manifests with
//!   either, and Java's Avro reads them), and zip methods 12 (bzip2) and 14 (LZMA).
//!
//! The codecs know nothing about the container they decode for: the caller says how many bytes
//! the data may decompress to (the page header's size, the block limit) and names the file.

pub mod bzip2;
pub mod xz;
pub mod zstd;

use crate::error::Error;

/// Why a bzip2 or LZMA-family stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The stream decompresses to more than the limit allowed (at least `at_least` bytes).
    TooLong { at_least: u64 },
    /// The bytes are not such a stream, or it ends early (what was expected and found).
    Corrupt(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::TooLong { at_least } => {
                write!(f, "the stream decompresses to at least {at_least} bytes")
            }
            DecodeError::Corrupt(e) => f.write_str(e),
        }
    }
}

impl DecodeError {
    /// The core's error for it: `too_long(at_least)` names the caller's limit; corrupt data is
    /// malformed input.
    pub fn into_error(self, too_long: impl FnOnce(u64) -> Error) -> Error {
        match self {
            DecodeError::TooLong { at_least } => too_long(at_least),
            DecodeError::Corrupt(m) => Error::format(m),
        }
    }
}
