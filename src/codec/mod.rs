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
