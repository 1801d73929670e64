//! Inflates every entry of a corpus (corpus.py) with each inflater, in interleaved rounds, and
//! prints each one's median and fastest round. Every output is checked against the entry's
//! declared size and CRC-32 once, before timing.
//!
//!     inflate-speed CORPUS [ROUNDS] [only=fast|miniz|zlib-rs|none]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../src/source/zip/inflate.rs"]
#[allow(dead_code)]
mod inflate;

use std::time::{Duration, Instant};

struct Entry {
    body: Vec<u8>,
    size: usize,
    crc: u32,
}

fn corpus(path: &str) -> Vec<Entry> {
    let data = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 12 <= data.len() {
        let word = |i: usize| u32::from_le_bytes(data[pos + i..pos + i + 4].try_into().unwrap());
        let (len, size, crc) = (word(0) as usize, word(4) as usize, word(8));
        out.push(Entry { body: data[pos + 12..pos + 12 + len].to_vec(), size, crc });
        pos += 12 + len;
    }
    out
}

/// The product's path: the fast inflater, miniz_oxide when it declines.
fn fast(state: &mut (inflate::Inflater, miniz_oxide::inflate::core::DecompressorOxide), e: &Entry) -> Vec<u8> {
    match state.0.inflate(&e.body, e.size, e.size) {
        Some(v) => v,
        None => miniz(&mut state.1, e),
    }
}

/// miniz_oxide's core decompressor, reused across entries, into an output of the declared size.
fn miniz(state: &mut miniz_oxide::inflate::core::DecompressorOxide, e: &Entry) -> Vec<u8> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags};
    state.init();
    let mut out = vec![0u8; e.size];
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (_, _, n) = decompress(state, &e.body, &mut out, 0, flags);
    out.truncate(n);
    out
}

/// zlib-rs through flate2, reused across entries.
fn zlib_rs(state: &mut flate2::Decompress, e: &Entry) -> Vec<u8> {
    state.reset(false);
    let mut out = vec![0u8; e.size];
    state.decompress(&e.body, &mut out, flate2::FlushDecompress::Finish).unwrap();
    out.truncate(state.total_out() as usize);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let entries = corpus(&args[1]);
    let rounds: usize = args.get(2).map_or(21, |r| r.parse().unwrap());
    // `only=fast|miniz|zlib-rs`: one pass of one inflater and nothing else, for
    // `valgrind --tool=callgrind` (instruction counts do not depend on the machine's load).
    if let Some(only) = args.get(3).and_then(|a| a.strip_prefix("only=")) {
        let mut f = (inflate::Inflater::default(), miniz_oxide::inflate::core::DecompressorOxide::new());
        let mut m = miniz_oxide::inflate::core::DecompressorOxide::new();
        let mut z = flate2::Decompress::new(false);
        let mut sum = 0usize;
        for e in &entries {
            sum += match only {
                "fast" => fast(&mut f, e).len(),
                "miniz" => miniz(&mut m, e).len(),
                "none" => e.size,
                _ => zlib_rs(&mut z, e).len(),
            };
        }
        println!("{only}: {sum} bytes");
        return;
    }
    let mut f = (inflate::Inflater::default(), miniz_oxide::inflate::core::DecompressorOxide::new());
    let mut m = miniz_oxide::inflate::core::DecompressorOxide::new();
    let mut z = flate2::Decompress::new(false);
    let mut declined = 0;
    for e in &entries {
        if f.0.inflate(&e.body, e.size, e.size).is_none() {
            declined += 1;
        }
        for (name, out) in [("fast", fast(&mut f, e)), ("miniz_oxide", miniz(&mut m, e)), ("zlib-rs", zlib_rs(&mut z, e))] {
            assert!(out.len() == e.size && crc32(&out) == e.crc, "{name}: wrong output");
        }
    }
    let inflated: usize = entries.iter().map(|e| e.size).sum();
    println!("{} entries, {} bytes inflated; the fast path declined {declined}", entries.len(), inflated);
    let mut times: [Vec<Duration>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..rounds {
        for k in 0..3 {
            let which = (k + round) % 3; // a different order each round
            let t = Instant::now();
            let mut sum = 0usize;
            for e in &entries {
                sum += match which {
                    0 => fast(&mut f, e).len(),
                    1 => miniz(&mut m, e).len(),
                    _ => zlib_rs(&mut z, e).len(),
                };
            }
            assert_eq!(sum, inflated);
            times[which].push(t.elapsed());
        }
    }
    let names = ["fast path (+ miniz_oxide fallback)", "miniz_oxide", "zlib-rs (flate2)"];
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        (v[v.len() / 2], v[0])
    };
    let (base, _) = median(&mut times[0].clone());
    for (i, name) in names.iter().enumerate() {
        let (med, min) = median(&mut times[i]);
        println!(
            "{name:36} median {:8.2} ms  fastest {:8.2} ms  {:5.1} MB/s  {:.2}x the fast path",
            med.as_secs_f64() * 1e3,
            min.as_secs_f64() * 1e3,
            inflated as f64 / med.as_secs_f64() / 1e6,
            med.as_secs_f64() / base.as_secs_f64()
        );
    }
}
