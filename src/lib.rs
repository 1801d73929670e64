//! # Paimon Recovery Validator — the core
//!
//! Reconstructs every Apache Paimon table's snapshot timeline from a warehouse artifact (a zip,
//! zips inside zips, or a folder) and flags lost changelog and unsafe consumer positions.
//!
//! The core knows Paimon and nothing about the browser or the file system:
//!
//! * bytes come in through one small trait, [`source::RandomAccess`] (a file on disk, a browser
//!   `Blob`), assembled into an [`source::Artifact`];
//! * the clock is passed in ([`analysis::AnalysisOptions::now_millis`]);
//! * the result is a [`findings::Report`], rendered as JSON, Markdown or text ([`report`]).
//!
//! Layout, bottom up (`docs/ARCHITECTURE.md` has the map and the arrows that must never exist):
//! [`source`] reads inputs; [`paimon`], [`parquet`] and `rows` parse files; [`warehouse`] finds
//! tables and branches; [`timeline`] reconstructs one table's history and [`spark`] / [`ray`]
//! load engine checkpoints; [`findings`] is the vocabulary of the report; `checks` answers the
//! recovery questions, one module per family, judging only what was loaded; [`analysis`] runs
//! the pipeline and assembles the report; [`report`] renders it.
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod analysis;
pub mod arena;
pub(crate) mod checks;
pub mod codec;
pub mod detail;
pub mod error;
pub mod findings;
pub mod limits;
pub mod orc;
pub mod paimon;
mod pairing;
pub mod parquet;
pub mod ray;
pub mod references;
pub mod report;
pub mod rows;
pub mod source;
pub mod spark;
pub mod time;
pub mod timeline;
pub mod warehouse;

#[cfg(test)]
mod test_support;

pub use analysis::{analyze, analyze_prefetched, run, Analysis, AnalysisOptions, Progress};
pub use error::{Error, ErrorKind, Result};
pub use findings::Report;
pub use limits::Limits;
