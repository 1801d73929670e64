//! Decompression shared by every data-file and metadata reader of the core.
//!
//! * [`zstd`]: Zstandard frames (RFC 8878), for Parquet pages, Avro blocks (manifests, data
//!   and changelog files) and ORC streams alike: one window rule, one memory bound.
//!
//! The codecs know nothing about the container they decode for: the caller says how many bytes
//! the data may decompress to (the page header's size, the block limit) and names the file.

pub mod zstd;
