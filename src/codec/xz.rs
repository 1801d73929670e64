//! LZMA-family streams, through `lzma-rs` (pure Rust): `.xz` containers (Avro's `xz` codec) and
//! the raw LZMA of zip method 14. The output, and the dictionary that grows with it, are bounded
//! by the caller's limit.

use std::io::Write;

use super::DecodeError;

/// A writer into a vector that refuses to grow past `max` bytes.
struct Bounded<'a> {
    out: &'a mut Vec<u8>,
    max: u64,
    over: bool,
}

impl Write for Bounded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len() as u64 + buf.len() as u64 > self.max {
            self.over = true;
            return Err(std::io::Error::other("past the limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `decode` into `out` (cleared first) through a writer bounded at `max`; `what` names the
/// stream expected, for a corrupt one.
fn run(
    out: &mut Vec<u8>,
    max: u64,
    what: &str,
    decode: impl FnOnce(&mut Bounded<'_>) -> lzma_rs::error::Result<()>,
) -> Result<(), DecodeError> {
    out.clear();
    let mut w = Bounded {
        out,
        max,
        over: false,
    };
    match decode(&mut w) {
        Ok(()) => Ok(()),
        Err(_) if w.over => Err(DecodeError::TooLong {
            at_least: max.saturating_add(1),
        }),
        Err(e) => Err(DecodeError::Corrupt(format!("expected {what}, found {e}"))),
    }
}

/// Decodes an `.xz` container into `out` (cleared first), at most `max` bytes.
pub fn decode_xz(data: &[u8], out: &mut Vec<u8>, max: u64) -> Result<(), DecodeError> {
    run(out, max, "an xz stream", |w| {
        let mut input = std::io::BufReader::new(data);
        lzma_rs::xz_decompress(&mut input, w)
    })
}

/// Decodes a zip entry compressed with method 14 (LZMA): a 2-byte version, a 2-byte length of
/// the properties, the 5 properties bytes, then the raw LZMA stream of `size` bytes.
pub fn decode_zip_lzma(
    data: &[u8],
    size: u64,
    out: &mut Vec<u8>,
    max: u64,
) -> Result<(), DecodeError> {
    let props_len = match data {
        [_, _, a, b, ..] => usize::from(u16::from_le_bytes([*a, *b])),
        _ => return Err(DecodeError::Corrupt("the LZMA header is truncated".into())),
    };
    let stream = data.get(4..).filter(|_| props_len == 5).ok_or_else(|| {
        DecodeError::Corrupt(format!(
            "expected 5 LZMA properties bytes, found {props_len}"
        ))
    })?;
    if size > max {
        return Err(DecodeError::TooLong { at_least: size });
    }
    let options = lzma_rs::decompress::Options {
        unpacked_size: lzma_rs::decompress::UnpackedSize::UseProvided(Some(size)),
        memlimit: usize::try_from(max).ok(),
        allow_incomplete: false,
    };
    run(out, max, "an LZMA stream", |w| {
        let mut input = std::io::BufReader::new(stream);
        lzma_rs::lzma_decompress_with_options(&mut input, w, &options)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..40_000u32).map(|i| (i % 89) as u8).collect()
    }

    #[test]
    fn xz_round_trips_within_the_limit_and_refuses_past_it() {
        let data = sample();
        let mut z = Vec::new();
        lzma_rs::xz_compress(&mut std::io::BufReader::new(&data[..]), &mut z).unwrap();
        let mut out = Vec::new();
        decode_xz(&z, &mut out, data.len() as u64).unwrap();
        assert_eq!(out, data);
        assert!(matches!(
            decode_xz(&z, &mut out, 100),
            Err(DecodeError::TooLong { .. })
        ));
        assert!(matches!(
            decode_xz(&z[..z.len() / 2], &mut out, u64::MAX),
            Err(DecodeError::Corrupt(_))
        ));
        assert!(matches!(
            decode_xz(b"not xz", &mut out, 100),
            Err(DecodeError::Corrupt(_))
        ));
    }

    #[test]
    fn zip_lzma_is_the_raw_stream_after_its_header() {
        let data = sample();
        let mut lzma = Vec::new();
        lzma_rs::lzma_compress(&mut std::io::BufReader::new(&data[..]), &mut lzma).unwrap();
        // .lzma: 5 properties bytes, an 8-byte size, the stream; zip: version, 5u16, properties.
        let mut zip = vec![0x10, 0x02, 5, 0];
        zip.extend_from_slice(&lzma[..5]);
        zip.extend_from_slice(&lzma[13..]);
        let mut out = Vec::new();
        decode_zip_lzma(&zip, data.len() as u64, &mut out, u64::MAX).unwrap();
        assert_eq!(out, data);
        assert!(matches!(
            decode_zip_lzma(&zip, data.len() as u64, &mut out, 10),
            Err(DecodeError::TooLong { .. })
        ));
        assert!(matches!(
            decode_zip_lzma(&zip[..3], 10, &mut out, 100),
            Err(DecodeError::Corrupt(_))
        ));
    }
}
