//! Paimon's on-disk objects, one module per format object (`paimon-format.md` §1–§3, §6).
//!
//! Parsers are tolerant across versions (0.8 to 2.x): unknown fields are ignored, optional
//! fields may be absent or null. They never panic on input; every error names what was expected.

pub mod avro;
pub mod binary_row;
pub mod consumer;
pub mod data_files;
pub mod hint;
pub mod index_manifest;
pub mod manifest;
pub mod manifest_list;
pub mod schema;
pub mod snapshot;
pub mod tag;
