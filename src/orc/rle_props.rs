//! Property tests of the RLE decoders against a simple reference encoder written from the ORC
//! specification: any sequence of runs the encoder makes decodes to the values it was made
//! from, for byte RLE, boolean RLE, integer RLE v1 and all four kinds of v2 runs.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use proptest::prelude::*;

use super::rle::{booleans, bytes, integers, Cursor};
use crate::test_support::{varint, zigzag};

/// Bit-packs values of `width` bits, most significant first, padding the last byte.
fn pack(out: &mut Vec<u8>, values: &[u64], width: u32) {
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    for &v in values {
        acc = acc << width | u128::from(v);
        bits += width;
        while bits >= 8 {
            out.push((acc >> (bits - 8)) as u8);
            bits -= 8;
            acc &= (1u128 << bits) - 1;
        }
    }
    if bits > 0 {
        out.push((acc << (8 - bits)) as u8);
    }
}

/// The widths of RLE v2 and their 5-bit codes.
const WIDTHS: [u32; 32] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28,
    30, 32, 40, 48, 56, 64,
];

/// The smallest width of the table holding `bits`, and its code.
fn width_for(bits: u32) -> (u32, u8) {
    let i = WIDTHS.iter().position(|&w| w >= bits.max(1)).unwrap();
    (WIDTHS[i], i as u8)
}

fn bits_of(v: u64) -> u32 {
    64 - v.leading_zeros()
}

#[derive(Debug, Clone)]
enum ByteRun {
    Run(u8, u8),
    Literal(Vec<u8>),
}

fn byte_runs() -> impl Strategy<Value = Vec<ByteRun>> {
    prop::collection::vec(
        prop_oneof![
            (3u8..=130, any::<u8>()).prop_map(|(n, b)| ByteRun::Run(n, b)),
            prop::collection::vec(any::<u8>(), 1..=128).prop_map(ByteRun::Literal),
        ],
        0..20,
    )
}

fn encode_bytes(runs: &[ByteRun]) -> (Vec<u8>, Vec<u8>) {
    let (mut enc, mut exp) = (Vec::new(), Vec::new());
    for r in runs {
        match r {
            ByteRun::Run(n, b) => {
                enc.extend([n - 3, *b]);
                exp.extend(std::iter::repeat_n(*b, usize::from(*n)));
            }
            ByteRun::Literal(v) => {
                enc.push((-(v.len() as i16)) as u8);
                enc.extend(v);
                exp.extend(v);
            }
        }
    }
    (enc, exp)
}

#[derive(Debug, Clone)]
enum V1Run {
    Run { n: u8, delta: i8, base: i64 },
    Literal(Vec<i64>),
}

fn v1_runs() -> impl Strategy<Value = Vec<V1Run>> {
    prop::collection::vec(
        prop_oneof![
            (3u8..=130, any::<i8>(), any::<i64>()).prop_map(|(n, delta, base)| V1Run::Run {
                n,
                delta,
                base
            }),
            prop::collection::vec(any::<i64>(), 1..=128).prop_map(V1Run::Literal),
        ],
        0..12,
    )
}

fn encode_v1(runs: &[V1Run], signed: bool) -> (Vec<u8>, Vec<i64>) {
    let put = |out: &mut Vec<u8>, v: i64| varint(out, if signed { zigzag(v) } else { v as u64 });
    let (mut enc, mut exp) = (Vec::new(), Vec::new());
    for r in runs {
        match r {
            V1Run::Run { n, delta, base } => {
                enc.extend([n - 3, *delta as u8]);
                put(&mut enc, *base);
                for i in 0..i64::from(*n) {
                    exp.push(base.wrapping_add(i64::from(*delta).wrapping_mul(i)));
                }
            }
            V1Run::Literal(v) => {
                enc.push((-(v.len() as i16)) as u8);
                for &x in v {
                    put(&mut enc, x);
                }
                exp.extend(v);
            }
        }
    }
    (enc, exp)
}

#[derive(Debug, Clone)]
enum V2Run {
    ShortRepeat(i64, u8),
    Direct(Vec<i64>),
    /// first, delta base, magnitudes of the further deltas (none: a fixed delta, `fixed` more)
    Delta(i64, i64, Vec<u32>, u16),
    /// base, low values of `width` bits, (position, patch ≥ 1) sorted by position
    Patched(i64, u32, Vec<u32>, Vec<(usize, u32)>, u32),
}

fn v2_runs() -> impl Strategy<Value = Vec<V2Run>> {
    let patched = (1usize..=512, 1u32..=16, 1u32..=20).prop_flat_map(|(n, width, pbits)| {
        (
            -(1i64 << 40)..(1i64 << 40),
            Just(width),
            prop::collection::vec(0u32..(1 << width), n),
            prop::collection::btree_map(0..n, 1u32..(1 << pbits), 0..8),
            Just(pbits),
        )
            .prop_map(|(base, w, vals, patches, pbits)| {
                V2Run::Patched(base, w, vals, patches.into_iter().collect(), pbits)
            })
    });
    prop::collection::vec(
        prop_oneof![
            (any::<i64>(), 3u8..=10).prop_map(|(v, n)| V2Run::ShortRepeat(v, n)),
            prop::collection::vec(any::<i64>(), 1..=512).prop_map(V2Run::Direct),
            prop::collection::vec(-1000i64..1000, 1..=512).prop_map(V2Run::Direct),
            (
                -(1i64 << 50)..(1i64 << 50),
                -(1i64 << 20)..(1i64 << 20),
                prop::collection::vec(0u32..100_000, 0..=510),
                0u16..=511
            )
                .prop_map(|(f, d, m, fixed)| V2Run::Delta(f, d, m, fixed)),
            patched,
        ],
        0..8,
    )
}

fn encode_v2(runs: &[V2Run], signed: bool) -> (Vec<u8>, Vec<i64>) {
    let z = |v: i64| if signed { zigzag(v) } else { v as u64 };
    let (mut enc, mut exp) = (Vec::new(), Vec::new());
    for r in runs {
        match r {
            V2Run::ShortRepeat(v, n) => {
                let u = z(*v);
                let size = bits_of(u).div_ceil(8).max(1);
                enc.push(((size - 1) as u8) << 3 | (n - 3));
                for i in (0..size).rev() {
                    enc.push((u >> (8 * i)) as u8);
                }
                exp.extend(std::iter::repeat_n(*v, usize::from(*n)));
            }
            V2Run::Direct(values) => {
                let us: Vec<u64> = values.iter().map(|&v| z(v)).collect();
                let (w, code) = width_for(us.iter().map(|&u| bits_of(u)).max().unwrap_or(1));
                let l = values.len() - 1;
                enc.extend([1 << 6 | code << 1 | (l >> 8) as u8, l as u8]);
                pack(&mut enc, &us, w);
                exp.extend(values);
            }
            V2Run::Delta(first, delta, mags, fixed) => {
                if mags.is_empty() {
                    // fixed delta: first + `fixed` more values
                    let l = usize::from(*fixed);
                    enc.extend([3 << 6 | (l >> 8) as u8, l as u8]);
                    varint(&mut enc, z(*first));
                    varint(&mut enc, zigzag(*delta));
                    let mut v = *first;
                    exp.push(v);
                    for _ in 0..l {
                        v = v.wrapping_add(*delta);
                        exp.push(v);
                    }
                } else {
                    // DELTA reads width code 0 as "fixed delta": width 1 is written as 2.
                    let (mut w, mut code) = width_for(
                        mags.iter()
                            .map(|&m| bits_of(u64::from(m)))
                            .max()
                            .unwrap_or(1),
                    );
                    if code == 0 {
                        (w, code) = (2, 1);
                    }
                    let l = mags.len() + 1;
                    enc.extend([3 << 6 | code << 1 | (l >> 8) as u8, l as u8]);
                    varint(&mut enc, z(*first));
                    varint(&mut enc, zigzag(*delta));
                    let mut v = first.wrapping_add(*delta);
                    exp.push(*first);
                    exp.push(v);
                    let us: Vec<u64> = mags.iter().map(|&m| u64::from(m)).collect();
                    pack(&mut enc, &us, w);
                    for &m in mags {
                        v = if *delta < 0 {
                            v.wrapping_sub(i64::from(m))
                        } else {
                            v.wrapping_add(i64::from(m))
                        };
                        exp.push(v);
                    }
                }
            }
            V2Run::Patched(base, width, vals, patches, pbits) => {
                let (w, code) = width_for(*width);
                let (pw, pcode) = width_for(*pbits);
                let l = vals.len() - 1;
                let mag = base.unsigned_abs();
                let base_bytes = (bits_of(mag) + 1).div_ceil(8).max(1);
                // the patch list: (gap, patch), gaps over 255 split with (255, 0) entries
                let mut list = Vec::new();
                let mut prev = 0usize;
                for &(pos, patch) in patches {
                    let mut gap = pos - prev;
                    while gap > 255 {
                        list.push((255u64, 0u64));
                        gap -= 255;
                    }
                    list.push((gap as u64, u64::from(patch)));
                    prev = pos;
                }
                let gw = list
                    .iter()
                    .map(|&(g, _)| bits_of(g))
                    .max()
                    .unwrap_or(1)
                    .max(1);
                let (cw, _) = width_for(pw + gw);
                enc.extend([
                    2 << 6 | code << 1 | (l >> 8) as u8,
                    l as u8,
                    ((base_bytes - 1) as u8) << 5 | pcode,
                    ((gw - 1) as u8) << 5 | list.len() as u8,
                ]);
                let stored = if *base < 0 {
                    mag | 1 << (base_bytes * 8 - 1)
                } else {
                    mag
                };
                for i in (0..base_bytes).rev() {
                    enc.push((stored >> (8 * i)) as u8);
                }
                let us: Vec<u64> = vals.iter().map(|&v| u64::from(v)).collect();
                pack(&mut enc, &us, w);
                let entries: Vec<u64> = list.iter().map(|&(g, p)| g << pw | p).collect();
                pack(&mut enc, &entries, cw);
                for (i, &v) in vals.iter().enumerate() {
                    let patch = patches
                        .iter()
                        .find(|&&(p, _)| p == i)
                        .map_or(0, |&(_, p)| u64::from(p));
                    exp.push(base.wrapping_add((u64::from(v) | patch << w) as i64));
                }
            }
        }
    }
    (enc, exp)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn byte_rle_decodes_what_the_reference_encodes(runs in byte_runs()) {
        let (enc, exp) = encode_bytes(&runs);
        prop_assert_eq!(bytes(&mut Cursor::new(&enc), exp.len()).unwrap(), exp.clone());
        // booleans are byte RLE of bits, most significant first
        let bits: Vec<bool> = exp.iter().flat_map(|&b| (0..8).rev().map(move |i| b >> i & 1 == 1)).collect();
        let n = bits.len().saturating_sub(3);
        prop_assert_eq!(booleans(&mut Cursor::new(&enc), n).unwrap(), bits[..n].to_vec());
        if !exp.is_empty() {
            prop_assert!(bytes(&mut Cursor::new(&enc[..enc.len() - 1]), exp.len()).is_err());
        }
    }

    #[test]
    fn integer_rle_v1_decodes_what_the_reference_encodes(runs in v1_runs(), signed in any::<bool>()) {
        let (enc, exp) = encode_v1(&runs, signed);
        prop_assert_eq!(integers(&mut Cursor::new(&enc), exp.len(), signed, false).unwrap(), exp.clone());
        if !exp.is_empty() {
            prop_assert!(integers(&mut Cursor::new(&enc[..enc.len() - 1]), exp.len(), signed, false).is_err());
        }
    }

    #[test]
    fn integer_rle_v2_decodes_what_the_reference_encodes(runs in v2_runs(), signed in any::<bool>()) {
        let (enc, exp) = encode_v2(&runs, signed);
        prop_assert_eq!(integers(&mut Cursor::new(&enc), exp.len(), signed, true).unwrap(), exp.clone());
        if !exp.is_empty() {
            prop_assert!(integers(&mut Cursor::new(&enc[..enc.len() - 1]), exp.len(), signed, true).is_err());
        }
    }

    #[test]
    fn integer_rle_never_panics_on_any_bytes(b in prop::collection::vec(any::<u8>(), 0..200), n in 0usize..2000, signed in any::<bool>(), v2 in any::<bool>()) {
        let _ = integers(&mut Cursor::new(&b), n, signed, v2);
        let _ = bytes(&mut Cursor::new(&b), n);
        let _ = booleans(&mut Cursor::new(&b), n);
    }
}
