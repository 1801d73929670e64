//! Without row-level evidence (`skip_rows`, the CLI's `--no-rows`) data files are listed, never
//! read: a warehouse whose data files are hundreds of MB is analysed by reading its metadata
//! alone (counted in bytes inflated), with the same result as the original. (Row-level evidence
//! reads only the files its findings name; `tests/rows.rs` covers it.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::fs::File;
use std::io::BufWriter;

use common::zipwriter::{write_zip, Entry, EntryData};
use common::{fixture, open};

fn report(path: &std::path::Path) -> prv::findings::Report {
    let options = prv::AnalysisOptions {
        skip_rows: true,
        ..prv::AnalysisOptions::default()
    };
    prv::analyze(&open(path), &options, &mut |_| {})
}

#[test]
fn huge_data_files_are_never_inflated() {
    let original_path = fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let original = open(&original_path);
    let mut entries = Vec::new();
    let mut metadata_bytes = 0u64;
    let mut data_declared = 0u64;
    let mut stored_big = false;
    for f in original.files() {
        let is_data = f.path().ends_with(".parquet");
        let big_ones = 3;
        let mut e = if is_data {
            // Same name, 200 MiB of zeros (deflated to ~200 KiB); one stored 256 MiB file puts
            // every later entry past offset 2^28.
            let (size, stored) = if !stored_big {
                (256u64 << 20, true)
            } else if data_declared < (256 + 200 * (big_ones - 1)) << 20 {
                (200u64 << 20, false)
            } else {
                (1u64 << 20, false)
            };
            stored_big = true;
            data_declared += size;
            let mut e = Entry::new(&f.path(), Vec::new());
            e.data = EntryData::Zeros(size);
            if stored {
                e = e.stored();
            }
            e
        } else {
            let bytes = original.read(&f.path(), u64::MAX).unwrap();
            metadata_bytes += bytes.len() as u64;
            Entry::new(&f.path(), bytes)
        };
        if let Some(prv::source::FileTime::ZipLocal(_)) = f.modified() {
            e.dos_time = dos(f.modified());
        }
        entries.push(e);
    }
    // Data first, so metadata sits behind the big stored file.
    entries.sort_by_key(|e| !String::from_utf8_lossy(&e.name).ends_with(".parquet"));

    let dir = std::env::temp_dir().join(format!("prv-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("java09_d_crash_between_append_and_compact.zip");
    let mut w = BufWriter::new(File::create(&path).unwrap());
    write_zip(&mut w, &entries).unwrap();
    drop(w);

    let big = report(&path);
    let small = report(&original_path);
    std::fs::remove_dir_all(&dir).unwrap();

    assert!(data_declared >= 600 << 20, "{data_declared}");
    assert!(big.input.size > 256 << 20);
    // Only metadata was inflated: not one byte of a data file.
    assert!(
        big.stats.bytes_inflated <= metadata_bytes,
        "inflated {} bytes, metadata is {metadata_bytes}",
        big.stats.bytes_inflated
    );
    assert_eq!(big.stats.bytes_inflated, small.stats.bytes_inflated);
    // Same analysis as the original (sizes in evidence differ, nothing else).
    assert_eq!(big.verdict, small.verdict);
    for (b, s) in big.tables.iter().zip(&small.tables) {
        assert_eq!(b.snapshots, s.snapshots);
        assert_eq!(b.consumers, s.consumers);
        assert_eq!(b.commit_groups, s.commit_groups);
        let key = |t: &prv::findings::TableReport| {
            t.findings
                .iter()
                .map(|f| (f.code, f.severity, f.snapshot, f.files.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(key(b), key(s));
    }
}

fn dos(m: Option<prv::source::FileTime>) -> (u16, u16) {
    let Some(prv::source::FileTime::ZipLocal(ms)) = m else {
        return (0, 0);
    };
    common::zipwriter::dos_time(ms / 1000)
}
