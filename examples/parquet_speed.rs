//! Decoding speed of the pure-Rust Parquet reader (row-level evidence reads Paimon's Parquet
//! data and changelog files with it).
//!
//! ```sh
//! cargo run --release --example parquet_speed                      # the generated test files
//! cargo run --release --example parquet_speed -- a.parquet b.parquet
//! ```
//!
//! Each file is opened and all its readable columns decoded 2,000 times from memory; the time
//! per open + read is printed. A measurement to run on purpose, not a test.

use std::path::PathBuf;
use std::time::Instant;

use prv::limits::Limits;
use prv::parquet::ParquetFile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let limits = Limits::default();
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        let dir =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parquet/generated");
        paths = [
            "paimon_like_3000.parquet",
            "codec_zstd.parquet",
            "delta_v1.parquet",
        ]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    }
    for path in paths {
        let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let rounds = 2000u32;
        let mut rows = 0usize;
        let start = Instant::now();
        for _ in 0..rounds {
            let file = ParquetFile::open(data.as_slice(), &limits)?;
            let names: Vec<String> = file
                .columns()
                .iter()
                .filter(|c| c.is_readable())
                .map(|c| c.name.clone())
                .collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            rows += file.read_columns(&refs, &limits)?.num_rows;
        }
        let per = start.elapsed() / rounds;
        println!(
            "{}: {per:?} per open + read of all columns ({} rows)",
            path.display(),
            rows / rounds as usize
        );
    }
    Ok(())
}
