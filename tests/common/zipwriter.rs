//! The one zip writer of the tests and the fuzz targets (`fuzz/src/zipwrite.rs` includes this
//! file): stored and deflated entries, MS-DOS times, extra fields, and knobs to build damaged
//! archives. Independent of the reader under test.

use std::io::Write;

/// One entry to write.
pub struct Entry {
    pub name: Vec<u8>,
    pub data: EntryData,
    pub deflate: bool,
    /// (date, time) in MS-DOS format.
    pub dos_time: (u16, u16),
    /// Overrides written into the headers (to build lying archives).
    pub declared_size: Option<u32>,
    pub declared_crc: Option<u32>,
    pub method: Option<u16>,
    pub flags: u16,
    pub external_attrs: u32,
    /// Extra fields, written in both headers (e.g. [`extended_timestamp`]).
    pub extra: Vec<u8>,
    /// The deflate level (1 fast .. 9 small).
    pub level: u8,
}

/// Entry content: bytes, or `n` zero bytes produced without holding them in memory.
pub enum EntryData {
    Bytes(Vec<u8>),
    Zeros(u64),
}

impl Entry {
    pub fn new(name: &str, data: Vec<u8>) -> Self {
        Entry {
            name: name.as_bytes().to_vec(),
            data: EntryData::Bytes(data),
            deflate: true,
            dos_time: ((46 << 9) | (11 << 5) | 30, (8 << 11) | (33 << 5)),
            declared_size: None,
            declared_crc: None,
            method: None,
            flags: 0,
            external_attrs: 0,
            extra: Vec::new(),
            level: 6,
        }
    }

    pub fn stored(mut self) -> Self {
        self.deflate = false;
        self
    }
}

/// Writes a zip to `out`; returns the bytes written.
pub fn write_zip(out: &mut impl Write, entries: &[Entry]) -> std::io::Result<u64> {
    let mut offset: u64 = 0;
    let mut central = Vec::new();
    let mut count = 0u16;
    for e in entries {
        let (crc, size, compressed): (u32, u64, Vec<u8>) = match &e.data {
            EntryData::Bytes(b) => {
                let crc = crc32fast::hash(b);
                let c = if e.deflate {
                    miniz_oxide::deflate::compress_to_vec(b, e.level)
                } else {
                    b.clone()
                };
                (crc, b.len() as u64, c)
            }
            EntryData::Zeros(n) => {
                let crc = crc_of_zeros(*n);
                let c = if e.deflate {
                    deflate_zeros(*n)
                } else {
                    Vec::new() // written below in chunks
                };
                (crc, *n, c)
            }
        };
        let method = e.method.unwrap_or(if e.deflate { 8 } else { 0 });
        let crc = e.declared_crc.unwrap_or(crc);
        let usize32 = e.declared_size.unwrap_or(size as u32);
        let stored_zeros = matches!(e.data, EntryData::Zeros(_)) && !e.deflate;
        let csize = if stored_zeros {
            size
        } else {
            compressed.len() as u64
        };
        let mut local = Vec::new();
        local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        local.extend_from_slice(&20u16.to_le_bytes());
        local.extend_from_slice(&e.flags.to_le_bytes());
        local.extend_from_slice(&method.to_le_bytes());
        local.extend_from_slice(&e.dos_time.1.to_le_bytes());
        local.extend_from_slice(&e.dos_time.0.to_le_bytes());
        local.extend_from_slice(&crc.to_le_bytes());
        local.extend_from_slice(&(csize as u32).to_le_bytes());
        local.extend_from_slice(&usize32.to_le_bytes());
        local.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        local.extend_from_slice(&(e.extra.len() as u16).to_le_bytes());
        local.extend_from_slice(&e.name);
        local.extend_from_slice(&e.extra);
        out.write_all(&local)?;
        if stored_zeros {
            let chunk = vec![0u8; 1 << 20];
            let mut left = size;
            while left > 0 {
                let k = left.min(chunk.len() as u64) as usize;
                out.write_all(&chunk[..k])?;
                left -= k as u64;
            }
        } else {
            out.write_all(&compressed)?;
        }
        let mut c = Vec::new();
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        c.extend_from_slice(&((3u16 << 8) | 20).to_le_bytes());
        c.extend_from_slice(&20u16.to_le_bytes());
        c.extend_from_slice(&e.flags.to_le_bytes());
        c.extend_from_slice(&method.to_le_bytes());
        c.extend_from_slice(&e.dos_time.1.to_le_bytes());
        c.extend_from_slice(&e.dos_time.0.to_le_bytes());
        c.extend_from_slice(&crc.to_le_bytes());
        c.extend_from_slice(&(csize as u32).to_le_bytes());
        c.extend_from_slice(&usize32.to_le_bytes());
        c.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        c.extend_from_slice(&(e.extra.len() as u16).to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // comment
        c.extend_from_slice(&0u16.to_le_bytes()); // disk
        c.extend_from_slice(&0u16.to_le_bytes()); // internal attrs
        c.extend_from_slice(&e.external_attrs.to_le_bytes());
        c.extend_from_slice(&(offset as u32).to_le_bytes());
        c.extend_from_slice(&e.name);
        c.extend_from_slice(&e.extra);
        central.extend_from_slice(&c);
        offset += local.len() as u64 + csize;
        count = count.saturating_add(1);
    }
    out.write_all(&central)?;
    let mut eocd = Vec::new();
    eocd.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    eocd.extend_from_slice(&0u16.to_le_bytes());
    eocd.extend_from_slice(&0u16.to_le_bytes());
    eocd.extend_from_slice(&count.to_le_bytes());
    eocd.extend_from_slice(&count.to_le_bytes());
    eocd.extend_from_slice(&(central.len() as u32).to_le_bytes());
    eocd.extend_from_slice(&(offset as u32).to_le_bytes());
    eocd.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&eocd)?;
    Ok(offset + central.len() as u64 + eocd.len() as u64)
}

/// A raw deflate stream of `n` zero bytes, written directly with fixed Huffman codes (a literal
/// 0, then matches of length 258 at distance 1): ~13 bits per 258 bytes, fast even in debug
/// builds, so a test can fake a file of hundreds of MB cheaply.
fn deflate_zeros(n: u64) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        len: u32,
    }
    impl Bits {
        fn put(&mut self, value: u64, bits: u32) {
            self.acc |= value << self.len;
            self.len += bits;
            while self.len >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.len -= 8;
            }
        }
        /// Huffman codes go most-significant bit first.
        fn code(&mut self, code: u64, bits: u32) {
            let mut rev = 0u64;
            for i in 0..bits {
                rev |= ((code >> i) & 1) << (bits - 1 - i);
            }
            self.put(rev, bits);
        }
    }
    let mut b = Bits {
        out: Vec::new(),
        acc: 0,
        len: 0,
    };
    b.put(1, 1); // BFINAL
    b.put(1, 2); // BTYPE = fixed Huffman
    let mut left = n;
    if left > 0 {
        b.code(0x30, 8); // literal 0
        left -= 1;
    }
    while left >= 258 {
        b.code(0xC5, 8); // length code 285 = 258
        b.code(0, 5); // distance code 0 = 1
        left -= 258;
    }
    for _ in 0..left {
        b.code(0x30, 8);
    }
    b.code(0, 7); // end of block (256)
    if b.len > 0 {
        b.out.push(b.acc as u8);
    }
    b.out
}

/// CRC-32 of `n` zero bytes without touching `n` bytes.
fn crc_of_zeros(n: u64) -> u32 {
    const CHUNK: u64 = 1 << 20;
    let mut chunk = crc32fast::Hasher::new();
    chunk.update(&vec![0u8; CHUNK as usize]);
    let mut h = crc32fast::Hasher::new();
    for _ in 0..n / CHUNK {
        h.combine(&chunk);
    }
    let mut rest = crc32fast::Hasher::new();
    rest.update(&vec![0u8; (n % CHUNK) as usize]);
    h.combine(&rest);
    h.finalize()
}

/// Epoch seconds as MS-DOS `(date, time)`, clamped to what the format holds (1980..2107).
pub fn dos_time(secs: i64) -> (u16, u16) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = prv::time::civil_from_days(days);
    if y < 1980 {
        return ((1 << 5) | 1, 0);
    }
    if y > 2107 {
        return ((127 << 9) | (12 << 5) | 31, (23 << 11) | (59 << 5) | 29);
    }
    let date = (((y - 1980) as u16) << 9) | ((m as u16) << 5) | d as u16;
    let time =
        (((rem / 3600) as u16) << 11) | ((((rem / 60) % 60) as u16) << 5) | ((rem % 60) / 2) as u16;
    (date, time)
}

/// The extended-timestamp extra field (`UT`, 0x5455) holding a true UTC modification time.
pub fn extended_timestamp(secs: i64) -> Vec<u8> {
    let mut extra = Vec::new();
    extra.extend_from_slice(&0x5455u16.to_le_bytes());
    extra.extend_from_slice(&5u16.to_le_bytes());
    extra.push(1);
    extra.extend_from_slice(&(secs.clamp(0, i64::from(u32::MAX)) as u32).to_le_bytes());
    extra
}
