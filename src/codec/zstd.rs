//! Zstandard frames (RFC 8878), decoded with `ruzstd` (pure Rust, vendored: vendor/README.md).
//!
//! **Window rule.** RFC 8878 (section 3.1.1.1.2) asks every decoder to support windows up to 8 MiB
//! ([`RFC_WINDOW`]); Java writers (zstd-jni through Parquet's and Avro's codecs) declare 2 MiB
//! at level 3 and 4 MiB at level 9 even for a 30-byte page. Frames declaring more are accepted
//! up to [`MAX_WINDOW`] (128 MiB, the reference decoder's default `ZSTD_WINDOWLOG_LIMIT_DEFAULT`
//! of 2^27); larger ones are refused as unsupported, naming the window.
//!
//! **Memory.** The declared window is not what is allocated: the vendored decoder grows its
//! buffer with the data it decodes (vendor/ruzstd-lazy-window.patch), and the decoder keeps at
//! most `min(window, bytes decoded)`. What bounds memory is the caller's `max`: the real content
//! size (a Parquet page's declared uncompressed size, itself checked against `max-entry-bytes`;
//! an Avro block's `max-avro-block-bytes`), checked against a frame's declared content size
//! before decoding and against the output after every block.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// Windows every decoder must support (RFC 8878, section 3.1.1.1.2): 8 MiB.
pub const RFC_WINDOW: u64 = 8 << 20;
/// The largest window accepted: 128 MiB (zstd's `ZSTD_WINDOWLOG_LIMIT_DEFAULT`, 2^27).
pub const MAX_WINDOW: u64 = 1 << 27;

/// Why a frame was not decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZstdError {
    /// The data decompresses (or declares it does) to more than `max` bytes; `at_least` is what
    /// was seen.
    TooLong {
        /// The bound given.
        max: u64,
        /// Bytes produced or declared when it was noticed.
        at_least: u64,
    },
    /// A frame declares a window above [`MAX_WINDOW`].
    Window {
        /// The declared window.
        requested: u64,
    },
    /// A frame's declared content size differs from what it decodes to.
    ContentSize {
        /// The frame header's content size.
        declared: u64,
        /// Bytes decoded.
        produced: u64,
    },
    /// Not zstd, or corrupt (the decoder's message).
    Corrupt(String),
    /// No frame at all.
    Empty,
}

impl std::fmt::Display for ZstdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZstdError::TooLong { max, at_least } => write!(
                f,
                "zstd data decompresses to more than {max} bytes (at least {at_least})"
            ),
            ZstdError::Window { requested } => write!(
                f,
                "a zstd frame asks for a {requested}-byte window, more than the {MAX_WINDOW} \
                 this reader supports (RFC 8878 asks decoders for {RFC_WINDOW})"
            ),
            ZstdError::ContentSize { declared, produced } => write!(
                f,
                "a zstd frame declares {declared} bytes of content and decodes to {produced}"
            ),
            ZstdError::Corrupt(m) => f.write_str(m),
            ZstdError::Empty => f.write_str("expected a zstd frame, found no data"),
        }
    }
}

impl ZstdError {
    /// The core's error for it: `too_long(at_least)` names the caller's limit; a window past
    /// what this reader supports is unsupported (Paimon's own zstd may read it), anything else
    /// malformed input.
    pub fn into_error(
        self,
        too_long: impl FnOnce(u64) -> crate::error::Error,
    ) -> crate::error::Error {
        match self {
            ZstdError::TooLong { at_least, .. } => too_long(at_least),
            ZstdError::Window { .. } => crate::error::Error::unsupported(self.to_string()),
            e => crate::error::Error::format(e.to_string()),
        }
    }
}

/// Whether a declared window is accepted (the window rule above).
pub fn window_accepted(window: u64) -> bool {
    window <= MAX_WINDOW
}

/// A reusable zstd decoder (its tables and buffer kept from call to call).
#[derive(Default)]
pub struct Zstd {
    dec: Option<Box<FrameDecoder>>,
}

impl std::fmt::Debug for Zstd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Zstd").finish_non_exhaustive()
    }
}

impl Zstd {
    /// A decoder; its state is allocated on first use.
    pub fn new() -> Self {
        Zstd::default()
    }

    /// Decodes the frames of `input` (skippable frames skipped), appending to `out`, which
    /// never grows past `max` bytes in all (what it held before counts).
    pub fn decode(&mut self, input: &[u8], out: &mut Vec<u8>, max: u64) -> Result<(), ZstdError> {
        let dec = self
            .dec
            .get_or_insert_with(|| Box::new(FrameDecoder::new()));
        dec.set_max_window_size(MAX_WINDOW);
        let mut rest = input;
        let mut frames = 0u32;
        while !rest.is_empty() {
            match dec.reset(&mut rest) {
                Ok(()) => {}
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    rest = usize::try_from(length)
                        .ok()
                        .and_then(|l| rest.get(l..))
                        .ok_or_else(|| {
                            ZstdError::Corrupt("a zstd skippable frame runs past the data".into())
                        })?;
                    continue;
                }
                Err(FrameDecoderError::WindowSizeTooBig { requested, .. }) => {
                    return Err(ZstdError::Window { requested })
                }
                Err(e) => {
                    return Err(ZstdError::Corrupt(format!(
                        "expected a zstd frame{}, found {e}",
                        if frames > 0 { " after the first" } else { "" }
                    )))
                }
            }
            frames += 1;
            // A declared content size (0 when absent) is checked before anything is decoded.
            let declared = dec.content_size();
            let start = out.len() as u64;
            if start.saturating_add(declared) > max {
                return Err(ZstdError::TooLong {
                    max,
                    at_least: start.saturating_add(declared),
                });
            }
            loop {
                let finished = dec
                    .decode_blocks(&mut rest, BlockDecodingStrategy::UptoBlocks(1))
                    .map_err(|e| ZstdError::Corrupt(format!("corrupt zstd data: {e}")))?;
                dec.collect_to_writer(&mut *out)
                    .map_err(|e| ZstdError::Corrupt(format!("corrupt zstd data: {e}")))?;
                if out.len() as u64 > max {
                    return Err(ZstdError::TooLong {
                        max,
                        at_least: out.len() as u64,
                    });
                }
                if finished && dec.can_collect() == 0 {
                    break;
                }
            }
            let produced = out.len() as u64 - start;
            if declared != 0 && produced != declared {
                return Err(ZstdError::ContentSize { declared, produced });
            }
        }
        if frames == 0 {
            return Err(ZstdError::Empty);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use proptest::prelude::*;

    fn frame(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    /// A frame header (no content size, not single segment) declaring `2^log` bytes of window,
    /// then one raw block holding `data` (at most 128 KiB).
    pub(crate) fn frame_with_window(log: u8, data: &[u8]) -> Vec<u8> {
        assert!((10..=41).contains(&log) && data.len() < 1 << 17);
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (log - 10) << 3];
        // Last block, raw, size in bits 3..24.
        let header = 1u32 | (data.len() as u32) << 3;
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.extend_from_slice(data);
        f
    }

    #[test]
    fn every_window_up_to_the_rfc_size_and_the_cap_is_accepted() {
        for log in 10..=27 {
            let f = frame_with_window(log, b"thirty bytes of a parquet page");
            let mut out = Vec::new();
            Zstd::new().decode(&f, &mut out, 30).unwrap();
            assert_eq!(out, b"thirty bytes of a parquet page", "window 2^{log}");
        }
        assert!(window_accepted(RFC_WINDOW) && window_accepted(MAX_WINDOW));
    }

    #[test]
    fn a_window_above_the_cap_is_refused_naming_it() {
        for log in [28u8, 31, 41] {
            let f = frame_with_window(log, b"x");
            let e = Zstd::new()
                .decode(&f, &mut Vec::new(), 1 << 20)
                .unwrap_err();
            assert_eq!(
                e,
                ZstdError::Window {
                    requested: 1 << log
                },
                "{e}"
            );
            assert!(e.to_string().contains(&(1u64 << log).to_string()), "{e}");
        }
    }

    #[test]
    fn content_beyond_the_bound_is_refused_declared_or_not() {
        let data = vec![7u8; 5000];
        let f = frame(&data);
        let e = Zstd::new().decode(&f, &mut Vec::new(), 4999).unwrap_err();
        assert!(matches!(e, ZstdError::TooLong { max: 4999, .. }), "{e}");
        // A 1 MiB window declaring u64::MAX bytes of content: refused before decoding.
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0b1100_0000, 10 << 3];
        f.extend_from_slice(&u64::MAX.to_le_bytes());
        f.extend_from_slice(&[0x01, 0x00, 0x00]);
        let e = Zstd::new()
            .decode(&f, &mut Vec::new(), 1 << 20)
            .unwrap_err();
        assert!(matches!(e, ZstdError::TooLong { .. }), "{e}");
    }

    #[test]
    fn empty_truncated_and_foreign_data_are_errors() {
        let mut z = frame(b"some text some text some text");
        z.truncate(z.len() / 2);
        let mut d = Zstd::new();
        assert!(matches!(
            d.decode(&z, &mut Vec::new(), 1 << 20),
            Err(ZstdError::Corrupt(_))
        ));
        assert_eq!(d.decode(b"", &mut Vec::new(), 10), Err(ZstdError::Empty));
        assert!(d
            .decode(b"PAR1 not zstd", &mut Vec::new(), 1 << 20)
            .is_err());
    }

    proptest! {
        /// Any bytes, any window: what a frame of ruzstd's encoder or a raw-block frame holds
        /// comes back, the bound is kept, and the decoder is reusable after any error.
        #[test]
        fn round_trip_and_bound(data in proptest::collection::vec(any::<u8>(), 0..20_000),
                                log in 10u8..=27, garbage in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut d = Zstd::new();
            let _ = d.decode(&garbage, &mut Vec::new(), 1 << 16);
            let mut out = Vec::new();
            d.decode(&frame(&data), &mut out, data.len() as u64).unwrap();
            prop_assert_eq!(&out, &data);
            let raw = &data[..data.len().min(1usize << log).min((1 << 17) - 1)];
            let mut out = Vec::new();
            d.decode(&frame_with_window(log, raw), &mut out, raw.len() as u64).unwrap();
            prop_assert_eq!(&out[..], raw);
            if !raw.is_empty() {
                let short = raw.len() as u64 - 1;
                let too_long = d.decode(&frame_with_window(log, raw), &mut Vec::new(), short);
                prop_assert!(matches!(too_long, Err(ZstdError::TooLong { .. })), "{:?}", too_long);
            }
        }
    }
}
