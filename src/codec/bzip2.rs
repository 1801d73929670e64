//! bzip2 streams (Avro's `bzip2` codec, zip method 12), through `bzip2` on its pure-Rust
//! backend (`libbz2-rs-sys`). The output is bounded by the caller's limit before it is held.

use std::io::Read;

use super::DecodeError;

/// Decodes the bzip2 stream(s) of `data` into `out` (cleared first), at most `max` bytes.
pub fn decode(data: &[u8], out: &mut Vec<u8>, max: u64) -> Result<(), DecodeError> {
    out.clear();
    let mut reader = bzip2::read::MultiBzDecoder::new(data).take(max.saturating_add(1));
    reader
        .read_to_end(out)
        .map_err(|e| DecodeError::Corrupt(format!("expected a bzip2 stream, found {e}")))?;
    if out.len() as u64 > max {
        return Err(DecodeError::TooLong {
            at_least: out.len() as u64,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn compress(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn round_trips_within_the_limit_and_refuses_past_it() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i % 97) as u8).collect();
        let z = compress(&data);
        let mut out = Vec::new();
        decode(&z, &mut out, data.len() as u64).unwrap();
        assert_eq!(out, data);
        assert_eq!(
            decode(&z, &mut out, 1000),
            Err(DecodeError::TooLong { at_least: 1001 })
        );
        assert!(matches!(
            decode(&z[..z.len() / 2], &mut out, u64::MAX),
            Err(DecodeError::Corrupt(_))
        ));
        assert!(matches!(
            decode(b"not bzip2", &mut out, 100),
            Err(DecodeError::Corrupt(_))
        ));
    }
}
