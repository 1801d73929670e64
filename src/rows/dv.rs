//! Deletion vectors (`paimon-format.md` §1.8): which rows of a data file a deletion-vector index
//! file marks deleted.
//!
//! An index file of type `DELETION_VECTORS` is `byte version = 1`, then per data file
//! `int32 BE size` · `size bytes` · `int32 BE CRC32(bytes)`; the index manifest's
//! `DeletionVectorMeta` gives each data file's offset (of the size field) and size. The bytes
//! start with `int32 BE magic 1581511376` and hold a 32-bit RoaringBitmap in the portable
//! serialization (Paimon's `BitmapDeletionVector`, `DeletionVector.read`). The 64-bit variant
//! (`deletion-vectors.bitmap64`, Paimon 1.2+, `Bitmap64DeletionVector`) has the same framing
//! with its magic `1681511377` written little-endian, then a 64-bit roaring bitmap in the
//! portable layout Iceberg's deletion vectors share: the number of 32-bit bitmaps (u64 LE), then
//! per bitmap its key (the high 32 bits of the positions, u32 LE, ascending) and a 32-bit
//! portable bitmap ([`DeletionVector`]). (No writer reachable for the fixtures writes it:
//! `tests/fixtures/writers/README.md`; the layout is tested on vectors built here.)

use crate::error::{Error, Result};

/// `BitmapDeletionVector.MAGIC_NUMBER`.
pub const BITMAP32_MAGIC: i32 = 1_581_511_376;
/// The magic of 64-bit deletion vectors (`Bitmap64DeletionVector`).
pub const BITMAP64_MAGIC: i32 = 1_681_511_377;

const SERIAL_COOKIE_NO_RUNCONTAINER: u32 = 12346;
const SERIAL_COOKIE: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const ARRAY_MAX: usize = 4096;

/// One 2^16 chunk of a roaring bitmap.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Container {
    /// Sorted values.
    Array(Vec<u16>),
    /// 1024 words of 64 bits.
    Bitmap(Vec<u64>),
    /// (start, length - 1) runs.
    Run(Vec<(u16, u16)>),
}

impl Container {
    fn contains(&self, low: u16) -> bool {
        match self {
            Container::Array(v) => v.binary_search(&low).is_ok(),
            Container::Bitmap(w) => w
                .get(usize::from(low >> 6))
                .is_some_and(|word| word & (1u64 << (low & 63)) != 0),
            Container::Run(runs) => runs.iter().any(|&(start, len)| {
                low >= start && u32::from(low) <= u32::from(start) + u32::from(len)
            }),
        }
    }
}

/// A 32-bit roaring bitmap read from its portable serialization.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoaringBitmap {
    containers: Vec<(u16, Container)>,
    cardinality: u64,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                Error::format(format!(
                    "the roaring bitmap ends at byte {} but needs {n} more",
                    self.bytes.len()
                ))
            })?;
        let s = self.bytes.get(self.pos..end).unwrap_or(&[]);
        self.pos = end;
        Ok(s)
    }

    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([
            b.first().copied().unwrap_or(0),
            b.get(1).copied().unwrap_or(0),
        ]))
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(u32::from_le_bytes(a))
    }
}

impl RoaringBitmap {
    /// Reads the portable serialization (`RoaringBitmap.serialize`, little-endian).
    pub fn parse(bytes: &[u8]) -> Result<RoaringBitmap> {
        Self::parse_prefix(bytes).map(|(bm, _)| bm)
    }

    /// Reads one portable bitmap at the start of `bytes`; returns it and the bytes it took.
    fn parse_prefix(bytes: &[u8]) -> Result<(RoaringBitmap, usize)> {
        let mut c = Cursor { bytes, pos: 0 };
        let cookie = c.u32()?;
        let (size, run_flags) = if cookie & 0xFFFF == SERIAL_COOKIE {
            let size = (cookie >> 16) as usize + 1;
            let flags = c.take(size.div_ceil(8))?.to_vec();
            (size, Some(flags))
        } else if cookie == SERIAL_COOKIE_NO_RUNCONTAINER {
            let size = c.u32()? as usize;
            if size > 1 << 16 {
                return Err(Error::format(format!(
                    "a 32-bit roaring bitmap has at most 65536 containers, this one claims {size}"
                )));
            }
            (size, None)
        } else {
            return Err(Error::format(format!(
                "not a portable roaring bitmap (cookie {cookie:#x})"
            )));
        };
        let mut headers = Vec::with_capacity(size.min(1 << 16));
        for _ in 0..size {
            let key = c.u16()?;
            let card = usize::from(c.u16()?) + 1;
            headers.push((key, card));
        }
        if run_flags.is_none() || size >= NO_OFFSET_THRESHOLD {
            c.take(size.saturating_mul(4))?; // container offsets: not needed reading in order
        }
        let mut out = RoaringBitmap::default();
        let mut previous: Option<u16> = None;
        for (i, (key, card)) in headers.into_iter().enumerate() {
            if previous.is_some_and(|p| key <= p) {
                return Err(Error::format("roaring container keys are not ascending"));
            }
            previous = Some(key);
            let is_run = run_flags
                .as_ref()
                .and_then(|f| f.get(i / 8))
                .is_some_and(|b| b & (1 << (i % 8)) != 0);
            let container = if is_run {
                let n = usize::from(c.u16()?);
                let raw = c.take(n.saturating_mul(4))?;
                let runs: Vec<(u16, u16)> = raw
                    .chunks_exact(4)
                    .filter_map(|r| match r {
                        [a, b, c, d] => {
                            Some((u16::from_le_bytes([*a, *b]), u16::from_le_bytes([*c, *d])))
                        }
                        _ => None,
                    })
                    .collect();
                Container::Run(runs)
            } else if card > ARRAY_MAX {
                let raw = c.take(8192)?;
                Container::Bitmap(
                    raw.chunks_exact(8)
                        .map(|w| {
                            let mut a = [0u8; 8];
                            a.copy_from_slice(w);
                            u64::from_le_bytes(a)
                        })
                        .collect(),
                )
            } else {
                let raw = c.take(card * 2)?;
                Container::Array(
                    raw.chunks_exact(2)
                        .filter_map(|v| match v {
                            [a, b] => Some(u16::from_le_bytes([*a, *b])),
                            _ => None,
                        })
                        .collect(),
                )
            };
            out.cardinality += card as u64;
            out.containers.push((key, container));
        }
        Ok((out, c.pos))
    }

    /// Whether `v` is in the bitmap.
    pub fn contains(&self, v: u32) -> bool {
        let high = (v >> 16) as u16;
        let low = (v & 0xFFFF) as u16;
        self.containers
            .binary_search_by_key(&high, |(k, _)| *k)
            .ok()
            .and_then(|i| self.containers.get(i))
            .is_some_and(|(_, c)| c.contains(low))
    }

    /// The number of values, as the container headers declare it.
    pub fn cardinality(&self) -> u64 {
        self.cardinality
    }
}

/// The deleted row positions of one data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeletionVector {
    /// `BitmapDeletionVector`: positions below 2^32.
    Bitmap32(RoaringBitmap),
    /// `Bitmap64DeletionVector`: (high 32 bits, the bitmap of the low 32 bits), keys ascending.
    Bitmap64(Vec<(u32, RoaringBitmap)>),
}

impl DeletionVector {
    /// Whether row `position` of the data file is deleted.
    pub fn contains(&self, position: u64) -> bool {
        let high = (position >> 32) as u32;
        let low = (position & 0xFFFF_FFFF) as u32;
        match self {
            DeletionVector::Bitmap32(bm) => high == 0 && bm.contains(low),
            DeletionVector::Bitmap64(maps) => maps
                .binary_search_by_key(&high, |(k, _)| *k)
                .ok()
                .and_then(|i| maps.get(i))
                .is_some_and(|(_, bm)| bm.contains(low)),
        }
    }

    /// The number of deleted positions, as the containers declare it.
    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bitmap32(bm) => bm.cardinality(),
            DeletionVector::Bitmap64(maps) => maps.iter().map(|(_, bm)| bm.cardinality()).sum(),
        }
    }
}

/// Reads a 64-bit portable roaring bitmap (after the magic).
fn parse_bitmap64(bytes: &[u8]) -> Result<Vec<(u32, RoaringBitmap)>> {
    let count = bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .ok_or_else(|| Error::format("a 64-bit roaring bitmap needs an 8-byte bitmap count"))?;
    // Every bitmap takes at least 4 (key) + 8 (cookie and size) bytes.
    if count > (bytes.len() as u64) / 12 {
        return Err(Error::format(format!(
            "a 64-bit roaring bitmap of {} bytes claims {count} bitmaps",
            bytes.len()
        )));
    }
    let mut pos = 8usize;
    let mut out: Vec<(u32, RoaringBitmap)> = Vec::new();
    for _ in 0..count {
        let key = bytes
            .get(pos..pos + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| Error::format("a 64-bit roaring bitmap ends inside a key"))?;
        if out.last().is_some_and(|(k, _)| *k >= key) {
            return Err(Error::format(
                "64-bit roaring bitmap keys are not ascending",
            ));
        }
        let (bm, used) = RoaringBitmap::parse_prefix(bytes.get(pos + 4..).unwrap_or(&[]))?;
        pos += 4 + used;
        out.push((key, bm));
    }
    Ok(out)
}

/// Reads the deletion vector stored at `offset` (the size field) with `length` bytes in a
/// deletion-vector index file: checks the size, the magic and the CRC.
pub fn read_deletion_vector(file: &[u8], offset: i64, length: i64) -> Result<DeletionVector> {
    let start = usize::try_from(offset)
        .map_err(|_| Error::format(format!("deletion vector offset {offset} is negative")))?;
    let len = usize::try_from(length)
        .map_err(|_| Error::format(format!("deletion vector length {length} is negative")))?;
    let field = |at: usize| -> Result<i32> {
        let b = at
            .checked_add(4)
            .and_then(|end| file.get(at..end))
            .ok_or_else(|| {
                Error::format(format!(
                    "the deletion vector at {offset} (+{length}) lies outside the {}-byte index file",
                    file.len()
                ))
            })?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(i32::from_be_bytes(a))
    };
    let size = field(start)?;
    if i64::from(size) != length {
        return Err(Error::format(format!(
            "the deletion vector at {offset} is {size} bytes, the index manifest says {length}"
        )));
    }
    let body_start = start + 4;
    let body = body_start
        .checked_add(len)
        .and_then(|end| file.get(body_start..end))
        .ok_or_else(|| Error::format("the deletion vector runs past the end of its index file"))?;
    if let Ok(crc) = field(body_start + len) {
        if crc as u32 != crc32fast::hash(body) {
            return Err(Error::format(format!(
                "the deletion vector at {offset} fails its CRC check"
            )));
        }
    }
    let magic = field(body_start)?;
    let rest = body.get(4..).unwrap_or(&[]);
    match magic {
        BITMAP32_MAGIC => RoaringBitmap::parse(rest).map(DeletionVector::Bitmap32),
        // The 64-bit vector writes its magic little-endian (big-endian accepted too).
        m if m == BITMAP64_MAGIC || m.swap_bytes() == BITMAP64_MAGIC => parse_bitmap64(rest)
            .map(DeletionVector::Bitmap64)
            .map_err(|e| e.context("64-bit deletion vector")),
        other => Err(Error::format(format!(
            "invalid deletion vector magic number {other}"
        ))),
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    /// A portable roaring bitmap without run containers: array containers only.
    pub(crate) fn portable_array(values: &[u32]) -> Vec<u8> {
        let mut groups: Vec<(u16, Vec<u16>)> = Vec::new();
        for &v in values {
            let (hi, lo) = ((v >> 16) as u16, (v & 0xFFFF) as u16);
            match groups.last_mut() {
                Some((k, g)) if *k == hi => g.push(lo),
                _ => groups.push((hi, vec![lo])),
            }
        }
        let mut out = Vec::new();
        out.extend_from_slice(&SERIAL_COOKIE_NO_RUNCONTAINER.to_le_bytes());
        out.extend_from_slice(&(groups.len() as u32).to_le_bytes());
        for (k, g) in &groups {
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&((g.len() - 1) as u16).to_le_bytes());
        }
        let mut offset = out.len() + 4 * groups.len();
        for (_, g) in &groups {
            out.extend_from_slice(&(offset as u32).to_le_bytes());
            offset += 2 * g.len();
        }
        for (_, g) in &groups {
            for v in g {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// A deletion-vector index file holding one vector; returns (file, offset, length).
    pub(crate) fn index_file(values: &[u32]) -> (Vec<u8>, i64, i64) {
        let mut body = BITMAP32_MAGIC.to_be_bytes().to_vec();
        body.extend(portable_array(values));
        let mut file = vec![1u8];
        let offset = file.len() as i64;
        file.extend_from_slice(&(body.len() as i32).to_be_bytes());
        file.extend_from_slice(&body);
        file.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        (file, offset, body.len() as i64)
    }

    /// A 64-bit deletion-vector index file (Paimon's `Bitmap64DeletionVector`, Iceberg's
    /// layout) holding `values`; returns (file, offset, length).
    pub(crate) fn index_file64(values: &[u64]) -> (Vec<u8>, i64, i64) {
        let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
        for &v in values {
            let (hi, lo) = ((v >> 32) as u32, v as u32);
            match groups.last_mut() {
                Some((k, g)) if *k == hi => g.push(lo),
                _ => groups.push((hi, vec![lo])),
            }
        }
        let mut body = BITMAP64_MAGIC.to_le_bytes().to_vec();
        body.extend_from_slice(&(groups.len() as u64).to_le_bytes());
        for (k, g) in &groups {
            body.extend_from_slice(&k.to_le_bytes());
            body.extend(portable_array(g));
        }
        let mut file = vec![1u8];
        let offset = file.len() as i64;
        file.extend_from_slice(&(body.len() as i32).to_be_bytes());
        file.extend_from_slice(&body);
        file.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        (file, offset, body.len() as i64)
    }

    #[test]
    fn bitmap64_deletion_vectors_are_read() {
        let values = [0u64, 7, 70_000, (1 << 32) + 3, (5 << 32) + 65_536];
        let (file, offset, length) = index_file64(&values);
        let dv = read_deletion_vector(&file, offset, length).unwrap();
        assert!(matches!(dv, DeletionVector::Bitmap64(_)));
        for v in values {
            assert!(dv.contains(v), "{v}");
        }
        for v in [1u64, 3, 1 << 32, (5 << 32) + 3, (2 << 32) + 3] {
            assert!(!dv.contains(v), "{v}");
        }
        assert_eq!(dv.cardinality(), 5);
        // A 32-bit vector never contains a position past 2^32.
        let (file, offset, length) = index_file(&[3]);
        let dv = read_deletion_vector(&file, offset, length).unwrap();
        assert!(dv.contains(3) && !dv.contains((1 << 32) + 3));
        // Damage: a count larger than the bytes, keys out of order, a truncated bitmap.
        let mut body = BITMAP64_MAGIC.to_le_bytes().to_vec();
        body.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_bitmap64(&body[4..]).is_err());
        let mut two = 2u64.to_le_bytes().to_vec();
        for k in [5u32, 5] {
            two.extend_from_slice(&k.to_le_bytes());
            two.extend(portable_array(&[1]));
        }
        assert!(parse_bitmap64(&two).is_err());
        let (file, offset, length) = index_file64(&values);
        let cut = &file[..file.len() - 9];
        assert!(read_deletion_vector(cut, offset, length).is_err());
    }

    proptest::proptest! {
        /// Any set of positions round-trips through both layouts (32-bit when all fit).
        #[test]
        fn positions_round_trip(mut values in proptest::collection::vec(0u64..(1 << 40), 0..200),
                                probe in proptest::collection::vec(0u64..(1 << 40), 0..50)) {
            values.sort_unstable();
            values.dedup();
            let (file, offset, length) = index_file64(&values);
            let dv = read_deletion_vector(&file, offset, length).unwrap();
            for v in values.iter().chain(&probe) {
                proptest::prop_assert_eq!(dv.contains(*v), values.binary_search(v).is_ok());
            }
            let small: Vec<u32> = values.iter().filter_map(|v| u32::try_from(*v).ok()).collect();
            let (file, offset, length) = index_file(&small);
            let dv = read_deletion_vector(&file, offset, length).unwrap();
            for v in small.iter().map(|v| u64::from(*v)).chain(probe.iter().copied()) {
                proptest::prop_assert_eq!(dv.contains(v), small.binary_search(&(v as u32)).is_ok() && v < (1 << 32));
            }
        }
    }

    #[test]
    fn array_containers() {
        let bm = RoaringBitmap::parse(&portable_array(&[0, 3, 70_000])).unwrap();
        assert!(bm.contains(0) && bm.contains(3) && bm.contains(70_000));
        assert!(!bm.contains(1) && !bm.contains(65_536 + 3));
        assert_eq!(bm.cardinality(), 3);
    }

    #[test]
    fn run_and_bitmap_containers() {
        // Two containers: key 0 a run [10, 14], key 1 a bitmap with 5000 values (0..5000).
        let mut out = Vec::new();
        out.extend_from_slice(&(SERIAL_COOKIE | (1 << 16)).to_le_bytes()); // size 2
        out.push(0b01); // container 0 is a run container
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes()); // cardinality 5
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&4999u16.to_le_bytes()); // cardinality 5000
                                                       // size < 4 with runs: no offsets
        out.extend_from_slice(&1u16.to_le_bytes()); // one run
        out.extend_from_slice(&10u16.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes());
        let mut words = [0u64; 1024];
        for v in 0..5000usize {
            words[v / 64] |= 1 << (v % 64);
        }
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let bm = RoaringBitmap::parse(&out).unwrap();
        assert!(bm.contains(10) && bm.contains(14) && !bm.contains(15) && !bm.contains(9));
        assert!(bm.contains(65_536) && bm.contains(65_536 + 4999) && !bm.contains(65_536 + 5000));
        assert_eq!(bm.cardinality(), 5005);
    }

    #[test]
    fn deletion_vector_framing() {
        let (file, offset, length) = index_file(&[1, 2]);
        let dv = read_deletion_vector(&file, offset, length).unwrap();
        assert!(dv.contains(1) && dv.contains(2) && !dv.contains(0));
        assert!(read_deletion_vector(&file, offset, length + 1).is_err());
        let mut bad = file.clone();
        let last = bad.len() - 6;
        bad[last] ^= 0xFF;
        assert!(read_deletion_vector(&bad, offset, length).is_err());
        assert!(read_deletion_vector(&file, 1000, length).is_err());
        assert!(RoaringBitmap::parse(&[1, 2, 3]).is_err());
        assert!(RoaringBitmap::parse(&[0x3a, 0x30, 0, 0, 0xff, 0xff, 0xff, 0x7f]).is_err());
    }

    /// A container of a portable bitmap with run containers ([`portable`]).
    enum Part {
        /// `(start, length - 1)` runs.
        Runs(Vec<(u16, u16)>),
        /// Sorted values.
        Values(Vec<u16>),
    }

    /// A portable roaring bitmap with run containers (`SERIAL_COOKIE`): a flag bit per
    /// container, the offsets only from `NO_OFFSET_THRESHOLD` containers on.
    fn portable(containers: &[(u16, Part)]) -> Vec<u8> {
        let n = containers.len();
        let mut out = (SERIAL_COOKIE | ((n as u32 - 1) << 16))
            .to_le_bytes()
            .to_vec();
        let mut flags = vec![0u8; n.div_ceil(8)];
        for (i, (_, part)) in containers.iter().enumerate() {
            if matches!(part, Part::Runs(_)) {
                flags[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend(flags);
        let mut bodies = Vec::new();
        for (key, part) in containers {
            let (card, body): (usize, Vec<u8>) = match part {
                Part::Runs(runs) => {
                    let mut b = (runs.len() as u16).to_le_bytes().to_vec();
                    for (start, len) in runs {
                        b.extend_from_slice(&start.to_le_bytes());
                        b.extend_from_slice(&len.to_le_bytes());
                    }
                    (runs.iter().map(|&(_, l)| usize::from(l) + 1).sum(), b)
                }
                Part::Values(v) => (v.len(), v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            };
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&((card - 1) as u16).to_le_bytes());
            bodies.push(body);
        }
        if n >= NO_OFFSET_THRESHOLD {
            let mut offset = out.len() + 4 * n;
            for b in &bodies {
                out.extend_from_slice(&(offset as u32).to_le_bytes());
                offset += b.len();
            }
        }
        out.extend(bodies.concat());
        out
    }

    /// Each container's run flag is its own bit of the flag bytes: the second container's and
    /// the ninth's (the second byte's first bit), with the offsets written past three
    /// containers.
    #[test]
    fn each_containers_run_flag_is_its_own_bit() {
        let is_run = |k: u16| k == 1 || k == 8;
        let containers: Vec<(u16, Part)> = (0..10u16)
            .map(|k| {
                let part = if is_run(k) {
                    Part::Runs(vec![(100, 9)])
                } else {
                    Part::Values(vec![100, 200])
                };
                (k, part)
            })
            .collect();
        let bm = RoaringBitmap::parse(&portable(&containers)).unwrap();
        for k in 0..10u16 {
            let base = u32::from(k) << 16;
            assert!(bm.contains(base + 100), "{k}");
            assert_eq!(bm.contains(base + 109), is_run(k), "{k}");
            assert!(!bm.contains(base + 110), "{k}");
            assert_eq!(bm.contains(base + 200), !is_run(k), "{k}");
        }
        assert_eq!(bm.cardinality(), 2 * 10 + 8 * 2);
    }

    /// An array container holds up to 4096 values (`ArrayContainer.DEFAULT_MAX_SIZE`); a
    /// bitmap container only more.
    #[test]
    fn an_array_container_holds_up_to_4096_values() {
        let values: Vec<u32> = (0..4096).map(|v| v * 2).collect();
        let bm = RoaringBitmap::parse(&portable_array(&values)).unwrap();
        assert!(bm.contains(0) && bm.contains(2) && bm.contains(8190));
        assert!(!bm.contains(1) && !bm.contains(8192));
        assert_eq!(bm.cardinality(), 4096);
    }

    /// A 32-bit bitmap may have a container for each of the 65536 high keys, not more.
    #[test]
    fn a_bitmap_may_hold_a_container_for_every_high_key() {
        let values: Vec<u32> = (0..=u32::from(u16::MAX)).map(|k| (k << 16) | 7).collect();
        let bm = RoaringBitmap::parse(&portable_array(&values)).unwrap();
        assert!(bm.contains(7) && bm.contains(0xFFFF_0007) && !bm.contains(8));
        assert_eq!(bm.cardinality(), 65_536);
        let mut more = SERIAL_COOKIE_NO_RUNCONTAINER.to_le_bytes().to_vec();
        more.extend_from_slice(&65_537u32.to_le_bytes());
        let e = RoaringBitmap::parse(&more).unwrap_err().to_string();
        assert!(
            e.contains("at most 65536 containers, this one claims 65537"),
            "{e}"
        );
    }

    /// A 64-bit vector's bitmaps take at least 12 bytes each (key, cookie, container count):
    /// empty ones at that size are read, a count beyond it is refused as such.
    #[test]
    fn a_64_bit_bitmap_count_is_bounded_by_twelve_bytes_a_bitmap() {
        let bitmaps = |count: u64| {
            let mut bytes = count.to_le_bytes().to_vec();
            for k in [0u32, 1] {
                bytes.extend_from_slice(&k.to_le_bytes());
                bytes.extend(portable_array(&[]));
            }
            bytes
        };
        let maps = parse_bitmap64(&bitmaps(2)).unwrap();
        assert_eq!(maps.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [0, 1]);
        assert!(maps.iter().all(|(_, bm)| bm.cardinality() == 0));
        let e = parse_bitmap64(&bitmaps(3)).unwrap_err().to_string();
        assert!(e.contains("of 32 bytes claims 3 bitmaps"), "{e}");
    }

    /// The 64-bit magic is read in either byte order (Paimon writes it little-endian); any
    /// other magic is refused, naming it.
    #[test]
    fn a_64_bit_magic_is_read_in_either_byte_order_and_another_is_refused() {
        let values = [3u64, (1 << 32) + 4];
        let (file, offset, length) = index_file64(&values);
        let with_magic = |magic: [u8; 4]| {
            let mut f = file.clone();
            let body = 5..5 + length as usize;
            f[5..9].copy_from_slice(&magic);
            let crc = crc32fast::hash(&f[body.clone()]);
            f[body.end..body.end + 4].copy_from_slice(&crc.to_be_bytes());
            read_deletion_vector(&f, offset, length)
        };
        for magic in [BITMAP64_MAGIC.to_le_bytes(), BITMAP64_MAGIC.to_be_bytes()] {
            let dv = with_magic(magic).unwrap();
            assert!(matches!(dv, DeletionVector::Bitmap64(_)));
            assert!(values.iter().all(|&v| dv.contains(v)) && !dv.contains(4));
        }
        let e = with_magic(12_345i32.to_be_bytes()).unwrap_err().to_string();
        assert!(
            e.contains("invalid deletion vector magic number 12345"),
            "{e}"
        );
    }
}
