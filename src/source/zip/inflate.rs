//! A small, fast inflater for whole zip entries that are already in memory.
//!
//! Why not only `miniz_oxide`: a warehouse artifact holds tens of thousands of small deflated
//! entries (snapshots, manifest lists, manifests of 0.5–2 KB), each one dynamic-Huffman block.
//! `miniz_oxide` builds 10-bit lookup tables for every block (clearing and filling ~3×1.5K table
//! slots, then reversing every code bit by bit); for a 1.5 KB manifest that was two thirds of its
//! inflate time and a sixth of a whole analysis. Here the tables are 9 bits (literal/length), 7
//! bits (distance, code lengths), codes longer than that are decoded canonically, and codes are
//! reversed with one `reverse_bits`.
//!
//! This is a fast path only. [`inflate`] returns `None` on anything it does not like (corrupt or
//! truncated data, more output than allowed), and the caller then inflates with `miniz_oxide`,
//! which stays the authority on errors and messages; the caller checks the zip's CRC-32 of the
//! output either way (and falls back on a mismatch too).

/// Entries of the literal/length lookup table (9-bit codes).
const LITLEN_SIZE: usize = 1 << 9;
/// Entries of the distance and code-length lookup tables (7-bit codes).
const DIST_SIZE: usize = 1 << 7;
const MAX_BITS: usize = 15;

/// Base lengths of length symbols 257..=285, and their extra bits.
const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Base distances of distance symbols 0..=29, and their extra bits.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// `REV9[x]` = the 9-bit reversal of `x` (deflate sends Huffman codes most significant bit
/// first, the tables are indexed by the bits as they arrive).
#[allow(clippy::indexing_slicing)] // const evaluation: an out-of-bounds index fails the build
const REV9: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut i = 0;
    while i < 512 {
        t[i] = (i as u16).reverse_bits() >> 7;
        i += 1;
    }
    t
};

/// Order of the code-length code lengths in a dynamic block header.
const CLEN_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// LSB-first bit reader over the whole input. Reading past the end yields zero bits and is
/// counted; [`Bits::overran`] tells whether any of them were consumed.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    n: u32,
    /// Zero bytes loaded past the end of the input.
    fake: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits {
            data,
            pos: 0,
            buf: 0,
            n: 0,
            fake: 0,
        }
    }

    /// Ensures at least 56 bits are buffered.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(word) = self.data.get(self.pos..self.pos + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.buf |= u64::from_le_bytes(w) << self.n;
            self.pos += ((63 - self.n) >> 3) as usize;
            self.n |= 56;
            return;
        }
        while self.n <= 56 {
            let byte = match self.data.get(self.pos) {
                Some(&b) => {
                    self.pos += 1;
                    b
                }
                None => {
                    self.fake += 1;
                    0
                }
            };
            self.buf |= u64::from(byte) << self.n;
            self.n += 8;
        }
    }

    #[inline(always)]
    fn peek(&self, bits: u32) -> u32 {
        (self.buf & ((1u64 << bits) - 1)) as u32
    }

    #[inline(always)]
    fn consume(&mut self, bits: u32) {
        self.buf >>= bits;
        self.n -= bits;
    }

    /// `bits` (at most 32) bits; the caller refilled enough.
    #[inline(always)]
    fn take(&mut self, bits: u32) -> u32 {
        let v = self.peek(bits);
        self.consume(bits);
        v
    }

    /// Whether bits past the end of the input were consumed.
    fn overran(&self) -> bool {
        self.n < self.fake * 8
    }

    /// Drops the bits up to the next byte boundary and hands the buffered whole bytes back to
    /// the input; returns the byte position, or `None` if bits past the end were consumed.
    fn align_to_byte(&mut self) -> Option<usize> {
        let drop = self.n % 8;
        self.consume(drop);
        let buffered = self.n / 8;
        if buffered < self.fake {
            return None;
        }
        let real = (buffered - self.fake) as usize;
        self.pos = self.pos.checked_sub(real)?;
        self.buf = 0;
        self.n = 0;
        self.fake = 0;
        Some(self.pos)
    }
}

/// A canonical Huffman code: a lookup table of `N` = 2^bits entries for codes up to `bits` long
/// (entry = symbol << 4 | length, 0 = longer code or no code) and, for longer codes, the counts
/// per length and the symbols in canonical order.
struct Huffman<const N: usize> {
    table: [u16; N],
    counts: [u16; MAX_BITS + 1],
    symbols: Vec<u16>,
}

impl<const N: usize> Huffman<N> {
    const BITS: u32 = N.trailing_zeros();
    const MASK: u64 = (N as u64) - 1;

    fn new() -> Self {
        Huffman {
            table: [0; N],
            counts: [0; MAX_BITS + 1],
            symbols: Vec::with_capacity(288),
        }
    }

    /// Builds the code of `lengths` (symbol i has code length lengths[i], 0 = unused). `None` if
    /// the lengths over-subscribe the code space.
    fn build(&mut self, lengths: &[u8]) -> Option<()> {
        self.counts = [0; MAX_BITS + 1];
        for &l in lengths {
            *self.counts.get_mut(usize::from(l))? += 1;
        }
        self.counts[0] = 0;
        let mut left: i32 = 1;
        let mut offsets = [0u16; MAX_BITS + 2];
        let mut next_code = [0u32; MAX_BITS + 2];
        let mut code = 0u32;
        for len in 1..=MAX_BITS {
            left = (left << 1) - i32::from(*self.counts.get(len)?);
            if left < 0 {
                return None;
            }
            let count = *self.counts.get(len)?;
            *offsets.get_mut(len + 1)? = offsets.get(len)? + count;
            code = (code + u32::from(*self.counts.get(len - 1)?)) << 1;
            *next_code.get_mut(len)? = code;
        }
        self.table = [0; N];
        let table_bits = Self::BITS;
        for (sym, &l) in lengths.iter().enumerate() {
            if l == 0 || u32::from(l) > table_bits {
                continue;
            }
            let c = next_code.get_mut(usize::from(l))?;
            let code = *c;
            *c += 1;
            let rev = REV9.get(code as usize)? >> (9 - u32::from(l));
            let entry = ((sym as u16) << 4) | u16::from(l);
            let mut i = usize::from(rev);
            let step = 1usize << l;
            while let Some(e) = self.table.get_mut(i) {
                *e = entry;
                i += step;
            }
        }
        // Codes longer than the table are decoded canonically from the symbols in code order.
        self.symbols.clear();
        if self
            .counts
            .iter()
            .skip(table_bits as usize + 1)
            .any(|&c| c > 0)
        {
            self.symbols
                .resize(usize::from(*offsets.get(MAX_BITS + 1)?), 0);
            for (sym, &l) in lengths.iter().enumerate() {
                if l != 0 {
                    let slot = offsets.get_mut(usize::from(l))?;
                    *self.symbols.get_mut(usize::from(*slot))? = sym as u16;
                    *slot += 1;
                }
            }
        }
        Some(())
    }

    /// Decodes one symbol; the caller refilled at least 15 bits.
    #[inline(always)]
    fn decode(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let e = *self.table.get((bits.buf & Self::MASK) as usize)?;
        if e != 0 {
            bits.consume(u32::from(e & 15));
            return Some(e >> 4);
        }
        self.decode_slow(bits)
    }

    /// Canonical decoding, one bit at a time (codes longer than the table).
    fn decode_slow(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let mut code: i32 = 0;
        let mut first: i32 = 0;
        let mut index: i32 = 0;
        let buf = bits.buf;
        for len in 1..=MAX_BITS {
            code |= ((buf >> (len - 1)) & 1) as i32;
            let count = i32::from(*self.counts.get(len)?);
            if code - first < count {
                bits.consume(len as u32);
                return self
                    .symbols
                    .get(usize::try_from(index + code - first).ok()?)
                    .copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// Reusable tables (about 1.5 KB), so that inflating thousands of entries allocates none.
pub(crate) struct Inflater {
    litlen: Huffman<LITLEN_SIZE>,
    dist: Huffman<DIST_SIZE>,
    clen: Huffman<DIST_SIZE>,
    lengths: Vec<u8>,
}

impl Default for Inflater {
    fn default() -> Self {
        Inflater {
            litlen: Huffman::new(),
            dist: Huffman::new(),
            clen: Huffman::new(),
            lengths: Vec::with_capacity(320),
        }
    }
}

impl Inflater {
    /// Inflates the raw deflate stream `input` whole, expecting about `declared` bytes and
    /// producing at most `max`. `None` if the stream is corrupt, truncated, or inflates to more
    /// than `max` bytes: the caller then asks `miniz_oxide` (for the error, or the bytes).
    pub(crate) fn inflate(&mut self, input: &[u8], max: usize, declared: usize) -> Option<Vec<u8>> {
        // The output goes into a buffer of the declared size (a zip entry declares it); a stream
        // that inflates to more is declined, and miniz_oxide deals with it.
        if declared > max {
            return None;
        }
        let mut out = vec![0u8; declared];
        let mut pos = 0usize;
        let mut bits = Bits::new(input);
        loop {
            bits.refill();
            let last = bits.take(1);
            match bits.take(2) {
                0 => {
                    let at = bits.align_to_byte()?;
                    let header = input.get(at..at + 4)?;
                    let len = u16::from_le_bytes([*header.first()?, *header.get(1)?]);
                    let nlen = u16::from_le_bytes([*header.get(2)?, *header.get(3)?]);
                    if len != !nlen {
                        return None;
                    }
                    let len = usize::from(len);
                    let body = input.get(at + 4..at + 4 + len)?;
                    out.get_mut(pos..pos + len)?.copy_from_slice(body);
                    pos += len;
                    bits.pos = at + 4 + len;
                }
                1 => {
                    self.fixed()?;
                    pos = self.codes(&mut bits, &mut out, pos)?;
                }
                2 => {
                    self.dynamic(&mut bits)?;
                    pos = self.codes(&mut bits, &mut out, pos)?;
                }
                _ => return None,
            }
            if bits.overran() {
                return None;
            }
            if last == 1 {
                return (pos == declared).then_some(out);
            }
        }
    }

    fn fixed(&mut self) -> Option<()> {
        self.lengths.clear();
        self.lengths.resize(288, 8);
        for l in self.lengths.iter_mut().skip(144).take(112) {
            *l = 9;
        }
        for l in self.lengths.iter_mut().skip(256).take(24) {
            *l = 7;
        }
        self.litlen.build(&self.lengths)?;
        self.lengths.clear();
        self.lengths.resize(30, 5);
        self.dist.build(&self.lengths)
    }

    fn dynamic(&mut self, bits: &mut Bits<'_>) -> Option<()> {
        bits.refill();
        let nlen = bits.take(5) as usize + 257;
        let ndist = bits.take(5) as usize + 1;
        let ncode = bits.take(4) as usize + 4;
        if nlen > 286 || ndist > 30 {
            return None;
        }
        let mut clens = [0u8; 19];
        for &i in CLEN_ORDER.iter().take(ncode) {
            bits.refill();
            *clens.get_mut(i)? = bits.take(3) as u8;
        }
        self.clen.build(&clens)?;
        self.lengths.clear();
        while self.lengths.len() < nlen + ndist {
            bits.refill();
            if bits.fake != 0 && bits.overran() {
                return None;
            }
            let sym = self.clen.decode(bits)?;
            match sym {
                0..=15 => self.lengths.push(sym as u8),
                16 => {
                    let prev = *self.lengths.last()?;
                    let n = 3 + bits.take(2) as usize;
                    self.lengths.extend(std::iter::repeat_n(prev, n));
                }
                17 => {
                    let n = 3 + bits.take(3) as usize;
                    self.lengths.extend(std::iter::repeat_n(0, n));
                }
                18 => {
                    let n = 11 + bits.take(7) as usize;
                    self.lengths.extend(std::iter::repeat_n(0, n));
                }
                _ => return None,
            }
        }
        if self.lengths.len() != nlen + ndist || *self.lengths.get(256)? == 0 {
            return None;
        }
        let (lit, dist) = self.lengths.split_at(nlen);
        self.litlen.build(lit)?;
        self.dist.build(dist)
    }

    /// Decodes literals and matches up to the end-of-block symbol into `out` from `pos`; returns
    /// the new position.
    fn codes(&self, bits: &mut Bits<'_>, out: &mut [u8], mut pos: usize) -> Option<usize> {
        loop {
            // Refill only when a code might not fit: literals (8–9 bits) run several per refill.
            if bits.n < MAX_BITS as u32 {
                bits.refill();
                if bits.fake != 0 && bits.overran() {
                    return None; // truncated: the zero bits past the end would decode forever
                }
            }
            let sym = self.litlen.decode(bits)?;
            if sym < 256 {
                *out.get_mut(pos)? = sym as u8;
                pos += 1;
                continue;
            }
            if sym == 256 {
                return Some(pos);
            }
            // length extra (≤ 5) + distance code (≤ 15) + distance extra (≤ 13)
            if bits.n < 33 {
                bits.refill();
            }
            let i = usize::from(sym - 257);
            let len =
                usize::from(*LEN_BASE.get(i)?) + bits.take(u32::from(*LEN_EXTRA.get(i)?)) as usize;
            let dsym = usize::from(self.dist.decode(bits)?);
            let dist = usize::from(*DIST_BASE.get(dsym)?)
                + bits.take(u32::from(*DIST_EXTRA.get(dsym)?)) as usize;
            let from = pos.checked_sub(dist)?;
            let end = pos + len;
            if end > out.len() {
                return None;
            }
            if dist >= len {
                out.copy_within(from..from + len, pos);
            } else {
                // overlapping: byte by byte repeats the last `dist` bytes
                for k in pos..end {
                    *out.get_mut(k)? = *out.get(k - dist)?;
                }
            }
            pos = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn miniz(data: &[u8], level: u8) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec(data, level)
    }

    fn roundtrip(data: &[u8]) {
        for level in [0u8, 1, 6, 9] {
            let c = miniz(data, level);
            let out = Inflater::default().inflate(&c, usize::MAX, data.len());
            assert_eq!(
                out.as_deref(),
                Some(data),
                "level {level}, {} bytes",
                data.len()
            );
        }
    }

    #[test]
    fn inflates_what_deflate_writes() {
        roundtrip(b"");
        roundtrip(b"a");
        roundtrip(&b"abcabcabcabcabcabcabcabd".repeat(100));
        let schema = br#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"}]}"#;
        roundtrip(&schema.repeat(20));
        // long codes: a skewed distribution forces codes past the 9-bit table
        let mut skewed = Vec::new();
        for i in 0..256u32 {
            for _ in 0..(1u32 << (i % 16).min(14)) / 64 + 1 {
                skewed.push(i as u8);
            }
        }
        roundtrip(&skewed);
        // incompressible bytes (stored blocks at level 0, dynamic literals otherwise)
        let mut x = 0x1234_5678u32;
        let noise: Vec<u8> = (0..70_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        roundtrip(&noise);
    }

    #[test]
    fn refuses_what_miniz_refuses() {
        let data = b"hello hello hello hello".repeat(50);
        let c = miniz(&data, 6);
        // truncated
        for cut in [1, c.len() / 2, c.len() - 1] {
            assert!(Inflater::default()
                .inflate(c.get(..cut).unwrap(), usize::MAX, 0)
                .is_none());
        }
        // over the limit
        assert!(Inflater::default()
            .inflate(&c, data.len() - 1, data.len())
            .is_none());
        assert!(Inflater::default()
            .inflate(&c, data.len(), data.len())
            .is_some());
        // a declared size that is wrong is declined (miniz_oxide decides)
        assert!(Inflater::default()
            .inflate(&c, usize::MAX, data.len() + 1)
            .is_none());
        // reserved block type
        assert!(Inflater::default().inflate(&[0b111], 100, 0).is_none());
    }

    proptest! {
        #[test]
        fn agrees_with_miniz(data in proptest::collection::vec(any::<u8>(), 0..3000),
                             text in "[a-c ]{0,4000}", level in 0u8..10) {
            for d in [&data[..], text.as_bytes()] {
                let c = miniz(d, level);
                let out = Inflater::default().inflate(&c, usize::MAX, d.len());
                prop_assert_eq!(out.as_deref(), Some(d));
            }
        }

        /// On arbitrary bytes the fast path either agrees with miniz_oxide or declines.
        #[test]
        fn never_disagrees_on_garbage(raw in proptest::collection::vec(any::<u8>(), 0..200)) {
            let theirs = miniz_oxide::inflate::decompress_to_vec_with_limit(&raw, 1 << 16).ok();
            for declared in [0, 1, 100, theirs.as_ref().map_or(0, Vec::len)] {
                if let Some(m) = Inflater::default().inflate(&raw, 1 << 16, declared) {
                    prop_assert_eq!(Some(m), theirs.clone());
                }
            }
        }
    }
}
