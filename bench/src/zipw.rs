//! A small zip writer: deflated or stored entries, ZIP64 where sizes or offsets need it, and
//! stored runs of zeros written as holes (a sparse file), so a multi-GB artifact costs no disk.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

const U32_MAX: u64 = 0xFFFF_FFFF;

pub struct ZipWriter {
    out: BufWriter<File>,
    pos: u64,
    central: Vec<u8>,
    count: u64,
    zero_crcs: HashMap<u64, u32>,
}

struct Meta<'a> {
    name: &'a str,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    mtime_ms: i64,
}

impl ZipWriter {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let file = File::create(path)?;
        Ok(ZipWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            pos: 0,
            central: Vec::new(),
            count: 0,
            zero_crcs: HashMap::new(),
        })
    }

    /// Adds `data`, deflated when that makes it smaller (as `zip -r` does), else stored.
    pub fn add(&mut self, name: &str, data: &[u8], mtime_ms: i64) -> std::io::Result<()> {
        let crc = crc32fast::hash(data);
        let deflated = miniz_oxide::deflate::compress_to_vec(data, 6);
        let (method, body): (u16, &[u8]) = if deflated.len() < data.len() {
            (8, &deflated)
        } else {
            (0, data)
        };
        let meta = Meta {
            name,
            method,
            crc,
            compressed: body.len() as u64,
            size: data.len() as u64,
            mtime_ms,
        };
        self.header(&meta)?;
        self.out.write_all(body)?;
        self.pos += body.len() as u64;
        Ok(())
    }

    /// Adds a stored entry of `size` zero bytes without writing them (a hole in the zip file).
    pub fn add_zeros(&mut self, name: &str, size: u64, mtime_ms: i64) -> std::io::Result<()> {
        let crc = *self
            .zero_crcs
            .entry(size)
            .or_insert_with(|| zeros_crc(size));
        let meta = Meta {
            name,
            method: 0,
            crc,
            compressed: size,
            size,
            mtime_ms,
        };
        self.header(&meta)?;
        self.out.seek(SeekFrom::Current(size as i64))?;
        self.pos += size;
        Ok(())
    }

    fn header(&mut self, m: &Meta<'_>) -> std::io::Result<()> {
        let offset = self.pos;
        let (time, date) = dos_time(m.mtime_ms);
        let unix_secs = (m.mtime_ms / 1000).clamp(0, i64::from(u32::MAX)) as u32;
        let big = m.size >= U32_MAX || m.compressed >= U32_MAX;
        let needed: u16 = if big || offset >= U32_MAX { 45 } else { 20 };

        // local header
        let mut local = Vec::with_capacity(30 + m.name.len() + 29);
        local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        local.extend_from_slice(&needed.to_le_bytes());
        local.extend_from_slice(&0x0800u16.to_le_bytes());
        local.extend_from_slice(&m.method.to_le_bytes());
        local.extend_from_slice(&time.to_le_bytes());
        local.extend_from_slice(&date.to_le_bytes());
        local.extend_from_slice(&m.crc.to_le_bytes());
        let (c32, s32) = if big {
            (U32_MAX as u32, U32_MAX as u32)
        } else {
            (m.compressed as u32, m.size as u32)
        };
        local.extend_from_slice(&c32.to_le_bytes());
        local.extend_from_slice(&s32.to_le_bytes());
        let mut extra = Vec::new();
        extra.extend_from_slice(&0x5455u16.to_le_bytes());
        extra.extend_from_slice(&5u16.to_le_bytes());
        extra.push(1);
        extra.extend_from_slice(&unix_secs.to_le_bytes());
        if big {
            extra.extend_from_slice(&1u16.to_le_bytes());
            extra.extend_from_slice(&16u16.to_le_bytes());
            extra.extend_from_slice(&m.size.to_le_bytes());
            extra.extend_from_slice(&m.compressed.to_le_bytes());
        }
        local.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
        local.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        local.extend_from_slice(m.name.as_bytes());
        local.extend_from_slice(&extra);
        self.out.write_all(&local)?;
        self.pos += local.len() as u64;

        // central directory record
        let mut z64 = Vec::new();
        let s_field = if m.size >= U32_MAX {
            z64.extend_from_slice(&m.size.to_le_bytes());
            U32_MAX as u32
        } else {
            m.size as u32
        };
        let c_field = if m.compressed >= U32_MAX {
            z64.extend_from_slice(&m.compressed.to_le_bytes());
            U32_MAX as u32
        } else {
            m.compressed as u32
        };
        let o_field = if offset >= U32_MAX {
            z64.extend_from_slice(&offset.to_le_bytes());
            U32_MAX as u32
        } else {
            offset as u32
        };
        let mut cextra = Vec::new();
        cextra.extend_from_slice(&0x5455u16.to_le_bytes());
        cextra.extend_from_slice(&5u16.to_le_bytes());
        cextra.push(1);
        cextra.extend_from_slice(&unix_secs.to_le_bytes());
        if !z64.is_empty() {
            cextra.extend_from_slice(&1u16.to_le_bytes());
            cextra.extend_from_slice(&(z64.len() as u16).to_le_bytes());
            cextra.extend_from_slice(&z64);
        }
        let c = &mut self.central;
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        c.extend_from_slice(&((3u16 << 8) | 45).to_le_bytes());
        c.extend_from_slice(&needed.to_le_bytes());
        c.extend_from_slice(&0x0800u16.to_le_bytes());
        c.extend_from_slice(&m.method.to_le_bytes());
        c.extend_from_slice(&time.to_le_bytes());
        c.extend_from_slice(&date.to_le_bytes());
        c.extend_from_slice(&m.crc.to_le_bytes());
        c.extend_from_slice(&c_field.to_le_bytes());
        c.extend_from_slice(&s_field.to_le_bytes());
        c.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
        c.extend_from_slice(&(cextra.len() as u16).to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // comment
        c.extend_from_slice(&0u16.to_le_bytes()); // disk
        c.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        c.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        c.extend_from_slice(&o_field.to_le_bytes());
        c.extend_from_slice(m.name.as_bytes());
        c.extend_from_slice(&cextra);
        self.count += 1;
        Ok(())
    }

    /// Writes the central directory and the end records.
    pub fn finish(mut self) -> std::io::Result<u64> {
        let cd_offset = self.pos;
        let cd_size = self.central.len() as u64;
        self.out.write_all(&self.central)?;
        self.pos += cd_size;
        let zip64 = self.count >= 0xFFFF || cd_offset >= U32_MAX || cd_size >= U32_MAX;
        let mut end = Vec::new();
        if zip64 {
            let z64_offset = self.pos;
            end.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
            end.extend_from_slice(&44u64.to_le_bytes());
            end.extend_from_slice(&((3u16 << 8) | 45).to_le_bytes());
            end.extend_from_slice(&45u16.to_le_bytes());
            end.extend_from_slice(&0u32.to_le_bytes());
            end.extend_from_slice(&0u32.to_le_bytes());
            end.extend_from_slice(&self.count.to_le_bytes());
            end.extend_from_slice(&self.count.to_le_bytes());
            end.extend_from_slice(&cd_size.to_le_bytes());
            end.extend_from_slice(&cd_offset.to_le_bytes());
            end.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
            end.extend_from_slice(&0u32.to_le_bytes());
            end.extend_from_slice(&z64_offset.to_le_bytes());
            end.extend_from_slice(&1u32.to_le_bytes());
        }
        let n16 = self.count.min(0xFFFF) as u16;
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        end.extend_from_slice(&n16.to_le_bytes());
        end.extend_from_slice(&n16.to_le_bytes());
        end.extend_from_slice(&(cd_size.min(U32_MAX) as u32).to_le_bytes());
        end.extend_from_slice(&(cd_offset.min(U32_MAX) as u32).to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        self.out.write_all(&end)?;
        self.pos += end.len() as u64;
        self.out.flush()?;
        Ok(self.pos)
    }
}

fn zeros_crc(size: u64) -> u32 {
    let zeros = vec![0u8; 1 << 20];
    let mut h = crc32fast::Hasher::new();
    let mut left = size;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        h.update(&zeros[..n]);
        left -= n as u64;
    }
    h.finalize()
}

/// MS-DOS time and date of an epoch-ms instant (written as UTC; the UT extra field carries the
/// exact instant).
fn dos_time(ms: i64) -> (u16, u16) {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let date = (((y - 1980).clamp(0, 127) as u16) << 9) | ((m as u16) << 5) | d as u16;
    let time =
        (((rem / 3600) as u16) << 11) | ((((rem / 60) % 60) as u16) << 5) | ((rem % 60) / 2) as u16;
    (time, date)
}

/// (year, month, day) of days since 1970-01-01 (H. Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
