//! Entries recovered from their local headers, for a zip whose central directory is damaged or
//! missing: a download cut short loses the end of the file, and with it the central directory
//! that lists every entry, while each entry before the cut still has its local header (name,
//! method, sizes, CRC) in front of its data (PKWARE APPNOTE 6.3.x, 4.3.7–4.3.9).
//!
//! The scan walks header to header. An entry written with a data descriptor (bit 3: Java's
//! `ZipOutputStream`, streaming zippers) declares no sizes up front; its end is the descriptor
//! whose compressed size equals the distance from the data's start, with or without the
//! descriptor's signature, in 32- or 64-bit sizes. Bytes that are no header are skipped to the
//! next local header that parses, and counted as a gap. Every entry found is read later as any
//! other, its size and CRC checked; what the scan reports is whether it saw the whole zip.

use std::borrow::Cow;

use super::{
    decode_name, dos_to_millis, le_u32, le_uint, read_extra, CentralEntry, Declared, Record,
    CENTRAL_SIG, EOCD_SIG, LOCAL_SIG, ZIP64_EOCD_SIG,
};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::source::{FileTime, RandomAccess};

const DESCRIPTOR_SIG: u32 = 0x0807_4b50;
const FLAG_DESCRIPTOR: u16 = 1 << 3;
/// Bytes read at a time.
const WINDOW: usize = 1 << 20;

/// What a scan saw besides the entries.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Where the last entry ends (or the scan stopped).
    pub end: u64,
    /// Byte ranges that hold no entry the scan recognised.
    pub gaps: Vec<(u64, u64)>,
    /// Where the file ends inside an entry or a header (or right after an entry, before any
    /// central directory), and the entry's name when its header was whole.
    pub cut: Option<(u64, Option<String>)>,
    /// Whether the scan ended at a central directory or end record, not at the end of the
    /// file.
    pub central: bool,
}

impl Scan {
    /// Whether every byte from the start to the end was an entry: nothing was cut off or
    /// skipped.
    pub fn is_whole(&self) -> bool {
        self.gaps.is_empty() && self.cut.is_none()
    }

    /// What the scan recovered and what it could not, for the report: `recovered` entries in
    /// a file of `size` bytes.
    pub fn describe(&self, recovered: u64, size: u64) -> String {
        let mut told = if recovered == 1 {
            "1 entry recovered from its local header".to_string()
        } else {
            format!("{recovered} entries recovered from their local headers")
        };
        if let Some((at, name)) = &self.cut {
            told.push_str(&match name {
                Some(name) => format!(
                    "; the file ends ({size} bytes) inside the entry {name} (it starts at byte {at}), which is left out"
                ),
                None if *at >= size => format!(
                    "; the file ends ({size} bytes) right after an entry, with no central directory"
                ),
                None => format!("; the file ends ({size} bytes) inside a local header at byte {at}"),
            });
            told.push_str(": whatever the zip held after it is not in the artifact");
        }
        if !self.gaps.is_empty() {
            let bytes: u64 = self.gaps.iter().map(|(a, b)| b - a).sum();
            let first = self.gaps.first().map_or(0, |g| g.0);
            told.push_str(&format!(
                "; {bytes} bytes in {} place{} (the first at byte {first}) hold no readable entry, and the entries they held are not in the artifact",
                self.gaps.len(),
                if self.gaps.len() == 1 { "" } else { "s" }
            ));
        }
        told
    }
}

/// Scans the local headers from `from` to `to` (the central directory's start when known;
/// else to the end of the file, or a central directory or end record met on the way), calling
/// `each` with every entry found, in file order. Fails only on a read the source refuses or
/// more entries than `max-entries`.
pub(super) fn scan(
    data: &dyn RandomAccess,
    (from, to): (u64, Option<u64>),
    limits: &Limits,
    mut each: impl FnMut(Record<'_>),
) -> Result<Scan> {
    let size = data.size();
    let end = to.unwrap_or(size).min(size);
    let mut window = Window::new(data);
    let mut out = Scan::default();
    let mut pos = from;
    let mut found = 0u64;
    while pos < end {
        let Some(head) = window.get_upto(pos, 4)? else {
            break;
        };
        match le_u32(head, 0) {
            Some(LOCAL_SIG) => {}
            Some(CENTRAL_SIG | EOCD_SIG | ZIP64_EOCD_SIG) if to.is_none() => {
                out.central = true;
                break;
            }
            _ => match next_header(&mut window, pos + 1, end)? {
                Some(next) => {
                    out.gaps.push((pos, next));
                    pos = next;
                    continue;
                }
                None => {
                    out.gaps.push((pos, end));
                    pos = end;
                    break;
                }
            },
        }
        let local = match read_local(&mut window, pos, end)? {
            Local::Entry(local) => local,
            Local::Cut(name) => {
                out.cut = Some((pos, name));
                break;
            }
        };
        found += 1;
        if found > limits.max_entries {
            return Err(Error::limit(
                "max-entries",
                format!("the zip holds more than {} entries", limits.max_entries),
            ));
        }
        let next = local.next;
        each(local.record);
        pos = next;
    }
    out.end = pos.min(end);
    // With no central directory known nor met, the file may have ended at an entry's end with
    // more entries to come.
    if to.is_none() && !out.central && out.cut.is_none() && out.gaps.is_empty() {
        out.cut = Some((out.end, None));
    }
    Ok(out)
}

/// An entry's local header, read.
enum Local {
    /// The entry, and where the next header starts.
    Entry(Found),
    /// The file ends inside the header (`None`) or inside the entry named.
    Cut(Option<String>),
}

struct Found {
    record: Record<'static>,
    next: u64,
}

/// Reads the local header at `pos` and finds where its entry ends.
fn read_local(window: &mut Window<'_>, pos: u64, end: u64) -> Result<Local> {
    let Some(h) = window.get(pos, 30)?.map(<[u8]>::to_vec) else {
        return Ok(Local::Cut(None));
    };
    let u = |off: usize, len: usize| le_uint(&h, off, len).unwrap_or(0);
    let flags = u(6, 2) as u16;
    let method = u(8, 2) as u16;
    let (dos_time, dos_date) = (u(10, 2) as u16, u(12, 2) as u16);
    let (name_len, extra_len) = (u(26, 2) as usize, u(28, 2) as usize);
    let Some(var) = window.get(pos + 30, name_len + extra_len)? else {
        return Ok(Local::Cut(None));
    };
    let (name_bytes, extra) = var.split_at(name_len.min(var.len()));
    let name = decode_name(name_bytes, flags).into_owned();
    let mut modified = dos_to_millis(dos_date, dos_time).map(FileTime::ZipLocal);
    let (mut uncompressed, mut compressed, mut no_offset) = (u(22, 4), u(18, 4), 0);
    if read_extra(
        extra,
        [&mut uncompressed, &mut compressed, &mut no_offset],
        &mut modified,
    )
    .is_none()
    {
        return Ok(Local::Cut(Some(name)));
    }
    let data_start = pos + 30 + (name_len + extra_len) as u64;
    let mut crc32 = u(14, 4) as u32;
    let next = if flags & FLAG_DESCRIPTOR != 0 {
        // Sizes in the descriptor are 8 bytes when the header has a ZIP64 field (4.3.9.2).
        let width = if has_zip64(extra) { 8 } else { 4 };
        match find_descriptor(window, data_start, end, width)? {
            Some(d) => {
                (compressed, uncompressed, crc32) = (d.compressed, d.uncompressed, d.crc32);
                data_start + d.compressed + d.len
            }
            None => return Ok(Local::Cut(Some(name))),
        }
    } else {
        match data_start.checked_add(compressed) {
            Some(next) if next <= end => next,
            _ => return Ok(Local::Cut(Some(name))),
        }
    };
    let is_dir = name.ends_with('/') || name.ends_with('\\');
    Ok(Local::Entry(Found {
        record: Record {
            entry: CentralEntry {
                compressed,
                local_offset: pos,
                method,
                flags,
            },
            declared: Declared {
                size: uncompressed,
                crc32,
            },
            is_dir,
            // Only the central directory says whether an entry is a link.
            is_symlink: false,
            name: Cow::Owned(name),
            modified,
            next: 0,
        },
        next,
    }))
}

/// A data descriptor, found.
struct Descriptor {
    crc32: u32,
    compressed: u64,
    uncompressed: u64,
    /// Its length, signature included.
    len: u64,
}

/// Whether an extra field holds a ZIP64 field.
fn has_zip64(extra: &[u8]) -> bool {
    let mut e = 0usize;
    while let (Some(id), Some(len)) = (le_uint(extra, e, 2), le_uint(extra, e + 2, 2)) {
        if id == u64::from(super::EXTRA_ZIP64) {
            return true;
        }
        e += 4 + len as usize;
    }
    false
}

/// Finds the data descriptor of the entry whose data starts at `start`, its sizes `width`
/// bytes each: the first place at or after it where a descriptor's compressed size is the
/// distance from `start`, signed (`PK\x07\x08`) or not, followed by the next header or the
/// end of the file.
fn find_descriptor(
    window: &mut Window<'_>,
    start: u64,
    end: u64,
    width: u64,
) -> Result<Option<Descriptor>> {
    let found = first_match(window, (start, end), b"PK", |window, at| {
        descriptor_at(window, (start, width), at, end)
    })?;
    match found {
        Some(d) => Ok(Some(d)),
        // A descriptor without signature that ends the file.
        None => descriptor_at(window, (start, width), end, end),
    }
}

/// The first place in `from..end` where `pattern` occurs and `check` finds what it looks for
/// there, read a window at a time.
fn first_match<T>(
    window: &mut Window<'_>,
    (from, end): (u64, u64),
    pattern: &[u8],
    mut check: impl FnMut(&mut Window<'_>, u64) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let mut pos = from;
    while pos < end {
        let Some(chunk) = window.get_upto(pos, WINDOW)? else {
            return Ok(None);
        };
        let chunk_len = chunk.len();
        let hits: Vec<u64> = chunk
            .windows(pattern.len())
            .enumerate()
            .filter(|(_, w)| *w == pattern)
            .map(|(i, _)| pos + i as u64)
            .collect();
        for at in hits {
            if let Some(found) = check(window, at)? {
                return Ok(Some(found));
            }
        }
        // A pattern may begin in this chunk and end in the next.
        pos += chunk_len.saturating_sub(pattern.len() - 1).max(1) as u64;
    }
    Ok(None)
}

/// Whether a header (or the end of the scan) follows at `at`: where an entry may end.
fn at_header(window: &mut Window<'_>, at: u64, end: u64) -> Result<bool> {
    if at >= end {
        return Ok(at == end);
    }
    let sig = window.get_upto(at, 4)?.and_then(|b| le_u32(b, 0));
    Ok(matches!(
        sig,
        Some(LOCAL_SIG | CENTRAL_SIG | EOCD_SIG | ZIP64_EOCD_SIG)
    ) || window.get(at, 4)?.is_none())
}

/// The descriptor (sizes `width` bytes each) of the entry whose data starts at `start`, if the
/// bytes at `at` (a `PK`, or the end of the file) show one followed by a header: signed at
/// `at`, or unsigned right before the header at `at`.
fn descriptor_at(
    window: &mut Window<'_>,
    (start, width): (u64, u64),
    at: u64,
    end: u64,
) -> Result<Option<Descriptor>> {
    let sig = if at < end {
        window.get(at, 4)?.and_then(|b| le_u32(b, 0))
    } else {
        None
    };
    let unsigned_len = 4 + 2 * width;
    let (d, signed) = if sig == Some(DESCRIPTOR_SIG) {
        (at, true)
    } else if at_header(window, at, end)? {
        match at.checked_sub(unsigned_len) {
            Some(d) => (d, false),
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    let Some(compressed_len) = d.checked_sub(start) else {
        return Ok(None);
    };
    let fields = if signed { 4 } else { 0 };
    let len = fields + unsigned_len;
    if signed && !at_header(window, d + len, end)? {
        return Ok(None);
    }
    let Some(b) = window.get(d, len as usize)? else {
        return Ok(None);
    };
    let f = |off: u64, w: u64| le_uint(b, off as usize, w as usize);
    let (Some(crc32), Some(compressed), Some(uncompressed)) = (
        f(fields, 4),
        f(fields + 4, width),
        f(fields + 4 + width, width),
    ) else {
        return Ok(None);
    };
    Ok((compressed == compressed_len).then_some(Descriptor {
        crc32: crc32 as u32,
        compressed,
        uncompressed,
        len,
    }))
}

/// The next place after `from` and before `end` where a local header that names an entry
/// begins.
fn next_header(window: &mut Window<'_>, from: u64, end: u64) -> Result<Option<u64>> {
    first_match(
        window,
        (from, end),
        &LOCAL_SIG.to_le_bytes(),
        |window, at| Ok(plausible_header(window, at, end)?.then_some(at)),
    )
}

/// Whether a local header signature at `at` begins a header rather than four bytes of
/// compressed data: a version a zip tool writes, and a name without control characters that
/// ends, with the extra field, before `end`.
fn plausible_header(window: &mut Window<'_>, at: u64, end: u64) -> Result<bool> {
    let Some(h) = window.get(at, 30)? else {
        return Ok(false);
    };
    let u = |off: usize| le_uint(h, off, 2).unwrap_or(0);
    let (version, name_len, extra_len) = (u(4) & 0xFF, u(26), u(28));
    if version > 63 || name_len == 0 || at + 30 + name_len + extra_len > end {
        return Ok(false);
    }
    Ok(window
        .get(at + 30, name_len as usize)?
        .is_some_and(|name| name.iter().all(|&b| b >= 0x20)))
}

/// The file read a window at a time.
struct Window<'d> {
    data: &'d dyn RandomAccess,
    buf: Vec<u8>,
    /// Where `buf` starts in the file.
    at: u64,
}

impl<'d> Window<'d> {
    fn new(data: &'d dyn RandomAccess) -> Self {
        Window {
            data,
            buf: Vec::new(),
            at: 0,
        }
    }

    /// Exactly `len` bytes at `pos`, or `None` when the file ends first.
    fn get(&mut self, pos: u64, len: usize) -> Result<Option<&[u8]>> {
        let size = self.data.size();
        if pos.checked_add(len as u64).is_none_or(|e| e > size) {
            return Ok(None);
        }
        self.fill(pos, len)?;
        let from = (pos - self.at) as usize;
        Ok(self.buf.get(from..from + len))
    }

    /// Up to `len` bytes at `pos` (fewer where the file ends), `None` past its end.
    fn get_upto(&mut self, pos: u64, len: usize) -> Result<Option<&[u8]>> {
        let size = self.data.size();
        if pos >= size {
            return Ok(None);
        }
        let len = (size - pos).min(len as u64) as usize;
        self.get(pos, len)
    }

    /// Makes `buf` hold `pos..pos + len` (which lies inside the file).
    fn fill(&mut self, pos: u64, len: usize) -> Result<()> {
        let have = self.at..self.at + self.buf.len() as u64;
        if pos >= have.start && pos + len as u64 <= have.end {
            return Ok(());
        }
        let size = self.data.size();
        let take = (len.max(WINDOW) as u64).min(size - pos);
        self.buf.resize(take as usize, 0);
        self.data
            .read_exact_at(pos, &mut self.buf)
            .map_err(|e| Error::io(format!("read failed at byte {pos}: {e}")))?;
        self.at = pos;
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// How an entry's sizes are written.
    #[derive(Clone, Copy)]
    enum Sizes {
        InHeader,
        /// In a data descriptor: signed or not, 4 or 8 bytes a size.
        Descriptor(bool, u64),
    }

    /// A stored entry: its local header, data and descriptor.
    fn entry(name: &str, data: &[u8], sizes: Sizes) -> Vec<u8> {
        let crc = crc32fast::hash(data);
        let len = data.len() as u32;
        let (flags, crc_h, len_h) = match sizes {
            Sizes::InHeader => (0u16, crc, len),
            Sizes::Descriptor(..) => (FLAG_DESCRIPTOR, 0, 0),
        };
        let mut extra = Vec::new();
        if let Sizes::Descriptor(_, 8) = sizes {
            extra.extend([1u8, 0, 16, 0]);
            extra.extend([0u8; 16]);
        }
        let mut b = Vec::new();
        b.extend(LOCAL_SIG.to_le_bytes());
        b.extend(20u16.to_le_bytes());
        b.extend(flags.to_le_bytes());
        b.extend([0u8; 6]); // method (stored), time, date
        b.extend(crc_h.to_le_bytes());
        b.extend(len_h.to_le_bytes());
        b.extend(len_h.to_le_bytes());
        b.extend((name.len() as u16).to_le_bytes());
        b.extend((extra.len() as u16).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend(extra);
        b.extend(data);
        if let Sizes::Descriptor(signed, width) = sizes {
            if signed {
                b.extend(DESCRIPTOR_SIG.to_le_bytes());
            }
            b.extend(crc.to_le_bytes());
            for _ in 0..2 {
                b.extend(&u64::from(len).to_le_bytes()[..width as usize]);
            }
        }
        b
    }

    /// An entry a scan found: (name, offset, compressed size, size, CRC).
    type Listed = (String, u64, u64, u64, u32);

    /// What a scan of `bytes` lists, and the scan.
    fn scanned(bytes: &[u8]) -> (Vec<Listed>, Scan) {
        let mut found = Vec::new();
        let data: Vec<u8> = bytes.to_vec();
        let scan = scan(&data, (0, None), &Limits::default(), |r| {
            found.push((
                r.name.to_string(),
                r.entry.local_offset,
                r.entry.compressed,
                r.declared.size,
                r.declared.crc32,
            ))
        })
        .unwrap();
        (found, scan)
    }

    // "PK\x03\x04" and "PK\x07\x08" inside the data: what a descriptor search must not stop at.
    const TRICKY: &[u8] = b"PK\x03\x04 and PK\x07\x08 inside the data, PK\x01\x02 too";

    #[test]
    fn every_shape_of_descriptor_ends_its_entry_where_the_next_begins() {
        for sizes in [
            Sizes::InHeader,
            Sizes::Descriptor(true, 4),
            Sizes::Descriptor(false, 4),
            Sizes::Descriptor(true, 8),
            Sizes::Descriptor(false, 8),
        ] {
            let a = entry("a/one", TRICKY, sizes);
            let b = entry("a/two", b"second", sizes);
            let mut zip = [a.clone(), b].concat();
            let end = zip.len() as u64;
            zip.extend(CENTRAL_SIG.to_le_bytes());
            let (found, scan) = scanned(&zip);
            let crc = |d: &[u8]| crc32fast::hash(d);
            let n = TRICKY.len() as u64;
            assert_eq!(
                found,
                [
                    ("a/one".into(), 0, n, n, crc(TRICKY)),
                    ("a/two".into(), a.len() as u64, 6, 6, crc(b"second")),
                ]
            );
            assert!(scan.is_whole(), "{scan:?}");
            assert!(scan.central);
            assert_eq!(scan.end, end);
        }
    }

    #[test]
    fn a_cut_leaves_out_the_entry_it_falls_in_and_says_where() {
        let a = entry("one", b"first", Sizes::Descriptor(true, 4));
        let b = entry("two", TRICKY, Sizes::Descriptor(true, 4));
        let zip = [a.clone(), b].concat();
        // Inside the second entry's data, then inside its header.
        for (cut, name) in [
            (a.len() + 40, Some("two".to_string())),
            (a.len() + 10, None),
        ] {
            let (found, scan) = scanned(&zip[..cut]);
            assert_eq!(found.len(), 1);
            assert_eq!(scan.cut, Some((a.len() as u64, name)));
            assert!(!scan.is_whole());
            let told = scan.describe(1, cut as u64);
            assert!(
                told.contains(&format!("the file ends ({cut} bytes)")),
                "{told}"
            );
            assert!(told.contains("1 entry recovered"), "{told}");
        }
        // At an entry's end: nothing says no entry followed.
        let (found, scan) = scanned(&zip[..a.len()]);
        assert_eq!(found.len(), 1);
        assert_eq!(scan.cut, Some((a.len() as u64, None)));
        let told = scan.describe(1, a.len() as u64);
        assert!(
            told.contains("right after an entry, with no central directory"),
            "{told}"
        );
    }

    #[test]
    fn bytes_that_are_no_entry_are_a_gap_and_the_next_header_is_found() {
        let a = entry("one", b"first", Sizes::InHeader);
        let junk = b"junk PK\x03\x04\x00\x00 not a header: no name".to_vec();
        let b = entry("two", b"second", Sizes::InHeader);
        let zip = [a.clone(), junk.clone(), b].concat();
        let (found, scan) = scanned(&zip);
        assert_eq!(
            found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
            ["one", "two"]
        );
        let gap_start = a.len() as u64;
        assert_eq!(scan.gaps, [(gap_start, gap_start + junk.len() as u64)]);
        assert!(scan
            .describe(2, zip.len() as u64)
            .contains("hold no readable entry"));
    }

    #[test]
    fn a_scan_stops_at_the_central_directory_it_is_given() {
        let a = entry("one", b"first", Sizes::InHeader);
        let b = entry("two", b"second", Sizes::InHeader);
        let zip = [a.clone(), b].concat();
        let data = zip.clone();
        let mut names = Vec::new();
        let end = Some(a.len() as u64);
        let scan = scan(&data, (0, end), &Limits::default(), |r| {
            names.push(r.name.to_string())
        })
        .unwrap();
        assert_eq!(names, ["one"]);
        assert!(scan.is_whole());
    }

    #[test]
    fn more_entries_than_the_limit_is_the_limit_named() {
        let zip: Vec<u8> = (0..5)
            .flat_map(|i| entry(&format!("f{i}"), b"x", Sizes::InHeader))
            .collect();
        let limits = Limits {
            max_entries: 3,
            ..Limits::default()
        };
        let e = scan(&zip, (0, None), &limits, |_| {}).unwrap_err();
        assert!(e.to_string().contains("max-entries"), "{e}");
    }
}
