//! A random-access zip reader over [`RandomAccess`].
//!
//! Written for this tool rather than taken from the `zip` crate because of how it is used:
//!
//! * in the browser every read is a `Blob.slice` + `FileReaderSync` round trip, so the central
//!   directory is fetched in one read and each entry in two (local header, then data);
//! * every allocation is bounded by a [`Limits`] value checked *before* allocating, and declared
//!   sizes are never trusted (a "lying" size ends the read at the limit, and the CRC is checked);
//! * it supports exactly what artifacts use: stored and deflated entries, ZIP64, data
//!   descriptors; encrypted entries and other methods are reported, not read.
//!
//! Reference: PKWARE APPNOTE 6.3.x, sections 4.3.6–4.3.16 and 4.5.3.

mod inflate;
mod salvage;

use std::collections::HashMap;
use std::rc::Rc;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

use super::listing::{FileFacts, ListingBuilder};
use super::{normalize_path, split_parent, FileTime, RandomAccess, Slice};

/// Separates a nested zip's path from the paths inside it: `outer.zip!/inner/path`.
pub const NESTED_SEPARATOR: &str = "!/";

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
const EOCD_MIN: u64 = 22;
const MAX_COMMENT: u64 = 0xFFFF;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;
const METHOD_BZIP2: u16 = 12;
const METHOD_LZMA: u16 = 14;
const METHOD_ZSTD: u16 = 93;
const METHOD_XZ: u16 = 95;
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_UTF8: u16 = 1 << 11;
const EXTRA_ZIP64: u16 = 0x0001;
const EXTRA_UNIX_TIME: u16 = 0x5455;

/// Whether a path names a zip that should be opened as a nested archive.
pub(crate) fn looks_like_zip_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).as_bytes();
    name.len() >= 4
        && name
            .get(name.len() - 4..)
            .is_some_and(|ext| ext.eq_ignore_ascii_case(b".zip"))
}

/// What opening a zip found besides the files it listed.
#[derive(Debug, Default)]
pub(super) struct Listed {
    /// Entries that could not be listed, and why.
    pub problems: Vec<Error>,
    /// The listed files that look like zips (by name): where the listing holds them.
    pub zips: Vec<usize>,
    /// When the central directory was damaged or missing: what was wrong and what the local
    /// headers gave back, and whether that was every entry (else the listing lacks entries the
    /// zip held, a truncated download, and a file's absence from it proves nothing).
    pub salvaged: Option<(Error, bool)>,
}

/// What reading an entry takes of its central directory record, kept for every entry (24
/// bytes): its declared size and CRC are the listing's ([`Declared`]), not kept twice.
#[derive(Debug, Clone)]
struct CentralEntry {
    compressed: u64,
    local_offset: u64,
    method: u16,
    flags: u16,
}

/// What the central directory declares of an entry's content, as the listing holds it: what a
/// read is checked against.
#[derive(Debug, Clone, Copy)]
pub(super) struct Declared {
    /// The uncompressed size.
    pub size: u64,
    /// The CRC-32.
    pub crc32: u32,
}

/// A central directory record, parsed.
struct Record<'a> {
    entry: CentralEntry,
    declared: Declared,
    is_dir: bool,
    is_symlink: bool,
    name: std::borrow::Cow<'a, str>,
    modified: Option<FileTime>,
    /// Where the next record starts.
    next: usize,
}

/// An opened zip: its bytes and its central directory.
pub(super) struct ZipContainer {
    data: Rc<dyn RandomAccess>,
    entries: Vec<CentralEntry>,
    /// Files left out of the listing, and of the entries, by [`ZipContainer::open`]'s `keep`.
    skipped: u64,
    /// Tables of the fast inflater, reused for every entry.
    fast: inflate::Inflater,
    /// `miniz_oxide`'s state, reused for every entry the fast inflater declines (about 11 KB:
    /// allocating and clearing it per entry cost more than inflating a small manifest).
    inflater: Box<miniz_oxide::inflate::core::DecompressorOxide>,
    /// Read-ahead by directory, see [`ZipContainer::read_ahead`].
    ahead: ReadAhead,
}

/// Bytes read past a local header's fixed 30 bytes in the same read as the entry's data, for its
/// name and extra field; a header with more than this is read in a second step.
const LOCAL_HEADER_SLACK: u64 = 512;

/// Entries at most this large (compressed) are read ahead with their directory.
const READ_AHEAD_MAX_ENTRY: u64 = 1 << 20;
/// A directory whose small entries together exceed this is not read ahead (memory bound).
const READ_AHEAD_MAX_DIR: u64 = 64 << 20;
/// Entries closer than this are read in one range (the gap is read and dropped).
const READ_AHEAD_GAP: u64 = 64 << 10;
/// The largest single read of a read-ahead.
const READ_AHEAD_MAX_RANGE: u64 = 8 << 20;

/// A range a read-ahead reads: `(start, end, members)`, `members` the positions in its group's
/// member list whose bytes the range holds.
type PlannedRange = (u64, u64, std::ops::Range<usize>);

/// The small entries of one directory, read ahead together.
#[derive(Default)]
struct Group {
    /// Entry indices.
    members: Vec<u32>,
    /// Whether `members` is sorted by offset yet.
    sorted: bool,
    /// Whether the group was read (its `members` are then dropped).
    read: bool,
    /// The directory's raw name (no trailing `/`).
    dir: String,
}

/// Read-ahead state: the small entries of each directory (the analysis reads every snapshot,
/// manifest list and manifest of a table, one directory at a time, in its own order), and the
/// raw bytes of entries read ahead and not yet asked for.
///
/// A warehouse zip holds tens of thousands of small metadata entries, which the analysis reads
/// in snapshot order, not in the order they lie in the zip (`zip -r` writes a directory in
/// `readdir` order). Read one by one, each costs a read of the source: a `pread` natively, but
/// a `Blob.slice` + `FileReaderSync` round trip in the browser, where a 3,000-commit warehouse
/// took 40 s. So the first whole-entry read of a small entry reads all small entries of its
/// directory in offset order, in a few large ranges, and later reads take their bytes from
/// memory (each entry's bytes are handed out once, then dropped).
#[derive(Default)]
struct ReadAhead {
    /// Per entry: its directory's group, or `u32::MAX` if not read ahead.
    group: Vec<u32>,
    /// Per group (directory): its entries.
    groups: Vec<Group>,
    /// Entry index -> its raw data, copied out of the range it was read in, so that each
    /// entry's bytes are freed as soon as it is read (not when the last entry of its range is:
    /// the analysis reads in snapshot order, so a range would live almost to the end).
    raw: HashMap<usize, Vec<u8>>,
}

impl ReadAhead {
    /// Adds the next entry of the central directory, `e`, to its directory's group if it is a
    /// small stored or deflated file (`name` is its raw name, `None` for directories and
    /// symlinks); `by_dir` holds each directory's group while the entries are added.
    fn add(&mut self, by_dir: &mut HashMap<String, u32>, e: &CentralEntry, name: Option<&str>) {
        let i = self.group.len();
        self.group.push(u32::MAX);
        let Some(name) = name else { return };
        let small = e.compressed <= READ_AHEAD_MAX_ENTRY
            && e.flags & FLAG_ENCRYPTED == 0
            && (e.method == METHOD_STORED || e.method == METHOD_DEFLATE);
        let (Ok(index), true) = (u32::try_from(i), small) else {
            return;
        };
        let dir = name.rsplit_once('/').map_or("", |(d, _)| d);
        let g = match by_dir.get(dir) {
            Some(&g) => g,
            None => {
                let next = self.groups.len() as u32;
                by_dir.insert(dir.to_string(), next);
                self.groups.push(Group {
                    dir: dir.to_string(),
                    ..Group::default()
                });
                next
            }
        };
        if let (Some(slot), Some(members)) =
            (self.group.get_mut(i), self.groups.get_mut(g as usize))
        {
            *slot = g;
            members.members.push(index);
        }
    }
}

/// Where an intact end record puts the central directory.
struct Central {
    /// Entries it declares.
    count: u64,
    /// Where it starts in the file, and its length.
    start: u64,
    size: u64,
    /// Bytes before the zip proper (self-extracting stubs, or a zip appended to something),
    /// which shift every offset.
    prefix: u64,
}

/// Reads the end-of-central-directory record (and the ZIP64 one) and checks that the central
/// directory it declares lies inside the file, before its end record.
fn find_central(data: &dyn RandomAccess, limits: &Limits) -> Result<Central> {
    let size = data.size();
    if size < EOCD_MIN {
        return Err(Error::format(format!(
            "not a zip file: {size} bytes is too short for a zip"
        )));
    }
    // The EOCD is in the last 22 + 65535 bytes.
    let tail_len = size.min(EOCD_MIN + MAX_COMMENT);
    let tail = read_vec(data, size - tail_len, tail_len)?;
    let eocd_pos = (0..=tail.len().saturating_sub(EOCD_MIN as usize))
        .rev()
        .find(|&i| le_u32(&tail, i) == Some(EOCD_SIG))
        .ok_or_else(|| {
            if data_starts_with_local_header(data) {
                Error::format(
                    "the zip has no central directory (truncated download?); its end is missing",
                )
            } else {
                Error::format("not a zip file: no end-of-central-directory record")
            }
        })?;
    let eocd_abs = size - tail_len + eocd_pos as u64;
    let field = |off: usize, len: usize| -> Result<u64> {
        le_uint(&tail, eocd_pos + off, len)
            .ok_or_else(|| Error::format("the end-of-central-directory record is truncated"))
    };
    let mut count = field(10, 2)?;
    let mut cd_size = field(12, 4)?;
    let mut cd_offset = field(16, 4)?;
    // Where the central directory ends: at the EOCD, or at the ZIP64 EOCD record when there
    // is one (the record and its locator sit between the two).
    let mut cd_end_expected = eocd_abs;

    if count == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
        // ZIP64: the locator sits right before the EOCD.
        if eocd_abs >= 20 {
            let loc = read_vec(data, eocd_abs - 20, 20)?;
            if le_u32(&loc, 0) == Some(ZIP64_LOCATOR_SIG) {
                let z64_off = le_uint(&loc, 8, 8)
                    .ok_or_else(|| Error::format("the ZIP64 locator is truncated"))?;
                // Where the locator says, or (bytes before the zip shift every offset)
                // right before the locator, where writers put it.
                let (z64_at, rec) = [Some(z64_off), (eocd_abs - 20).checked_sub(56)]
                    .into_iter()
                    .flatten()
                    .find_map(|at| {
                        read_vec(data, at, 56)
                            .ok()
                            .filter(|rec| le_u32(rec, 0) == Some(ZIP64_EOCD_SIG))
                            .map(|rec| (at, rec))
                    })
                    .ok_or_else(|| {
                        Error::format(format!(
                            "the ZIP64 end-of-central-directory record is not at offset {z64_off} where its locator points"
                        ))
                    })?;
                cd_end_expected = z64_at;
                let f = |off: usize| {
                    le_uint(&rec, off, 8)
                        .ok_or_else(|| Error::format("the ZIP64 record is truncated"))
                };
                count = f(32)?;
                cd_size = f(40)?;
                cd_offset = f(48)?;
            }
        }
    }
    if count > limits.max_entries {
        return Err(Error::limit(
            "max-entries",
            format!(
                "the zip declares {count} entries, more than {}",
                limits.max_entries
            ),
        ));
    }
    // Bytes before the zip proper (self-extracting stubs, or a zip appended to something)
    // shift every offset; the central directory must end where the (ZIP64) EOCD begins.
    let prefix = cd_end_expected
        .checked_sub(cd_offset.saturating_add(cd_size))
        .ok_or_else(|| {
            Error::format(format!(
                "the central directory ({cd_size} bytes at offset {cd_offset}) overlaps its own end record"
            ))
        })?;
    // Central directory entries are at least 46 bytes.
    if cd_size > limits.max_entries.saturating_mul(46 + 0xFFFF * 3) || cd_size > size {
        return Err(Error::format(format!(
            "the central directory claims {cd_size} bytes in a {size}-byte file"
        )));
    }
    check_range(data, cd_offset + prefix, cd_size)?;
    Ok(Central {
        count,
        start: cd_offset + prefix,
        size: cd_size,
        prefix,
    })
}

/// Lists a zip's entries into the listing as they are found: from the central directory, or
/// recovered from the local headers when it is damaged or missing ([`salvage`]).
struct Lister<'p> {
    limits: &'p Limits,
    keep: fn(&str) -> bool,
    path_prefix: &'p str,
    container: u32,
    /// Whether the source's reads are slow round trips (the read-ahead is kept then).
    batched: bool,
    entries: Vec<CentralEntry>,
    ahead: ReadAhead,
    by_dir: HashMap<String, u32>,
    listed: Listed,
    skipped: u64,
    /// A path with the nested zip's prefix, reused.
    prefixed: String,
}

impl Lister<'_> {
    /// Lists the entries of the central directory; from a damaged record on, the entries are
    /// recovered from the local headers instead.
    fn list_central(
        &mut self,
        data: &dyn RandomAccess,
        central: &Central,
        out: &mut ListingBuilder,
    ) -> Result<()> {
        let mut cd = CentralDirectory::new(data, central.start, central.size)?;
        // Central directory entries are at least 46 bytes: room for what it can hold.
        let room = usize::try_from(central.count.min(central.size / 46)).unwrap_or(0);
        self.entries.reserve_exact(room);
        let size = data.size();
        let mut pos = 0u64;
        for index in 0..central.count {
            let parsed = cd
                .entry_at(pos)
                .and_then(|bytes| parse_central(bytes, 0, size, central.prefix));
            match parsed {
                Ok(record) => {
                    pos += record.next as u64;
                    self.list(record, out);
                }
                Err(e) => {
                    let e = e.context(format!("central directory entry {index}"));
                    let to = Some(central.start);
                    return self.salvage(data, (central.prefix, to), e, out);
                }
            }
        }
        Ok(())
    }

    /// Recovers the entries from their local headers, from `from` to `to` (the start of the
    /// central directory when it is known, else the end of the file), those listed already
    /// aside; `why` is what made the central directory unusable. Records what was recovered
    /// and whether that was every entry ([`Listed::salvaged`]). Fails with `why` when nothing
    /// at all is recovered and something is missing.
    fn salvage(
        &mut self,
        data: &dyn RandomAccess,
        (from, to): (u64, Option<u64>),
        why: Error,
        out: &mut ListingBuilder,
    ) -> Result<()> {
        let listed: std::collections::HashSet<u64> =
            self.entries.iter().map(|e| e.local_offset).collect();
        let before = self.entries.len();
        let scan = salvage::scan(data, (from, to), self.limits, |record| {
            if !listed.contains(&record.entry.local_offset) {
                self.list(record, out);
            }
        })?;
        let recovered = (self.entries.len() - before) as u64;
        let whole = scan.is_whole();
        if !whole && before == 0 && recovered == 0 {
            return Err(why);
        }
        let told = scan.describe(recovered, data.size());
        let why = Error::format(format!("{}; {told}", why)).in_copy();
        self.listed.salvaged = Some((why, whole));
        Ok(())
    }

    /// Lists one entry (a file, or a problem when it is a link or its name is hostile), unless
    /// [`Self::keep`] refuses it.
    fn list(&mut self, record: Record<'_>, out: &mut ListingBuilder) {
        let Record {
            entry,
            declared,
            is_dir,
            is_symlink,
            name,
            modified,
            next: _,
        } = record;
        let limits = self.limits;
        let plain_file = !is_dir && !is_symlink;
        // `Ok(None)`: the name is already the path.
        let normal = plain_file.then(|| {
            if already_normal(&name, limits) {
                Ok(None)
            } else {
                normalize_path(&name, limits)
                    .map(Some)
                    .map_err(|e| e.in_file(&*name))
            }
        });
        if let Some(Ok(path)) = &normal {
            let path = path.as_deref().unwrap_or(&name);
            let full = if self.path_prefix.is_empty() {
                path
            } else {
                self.prefixed.clear();
                self.prefixed.push_str(self.path_prefix);
                self.prefixed.push_str(path);
                &self.prefixed
            };
            if !(self.keep)(full) && !looks_like_zip_name(path) {
                self.skipped += 1;
                return;
            }
        }
        if self.batched {
            self.ahead
                .add(&mut self.by_dir, &entry, plain_file.then_some(&*name));
        }
        if is_symlink {
            self.listed.problems.push(
                Error::unsupported("a symbolic link; links are not followed, the entry is skipped")
                    .in_file(&*name),
            );
        } else if !is_dir {
            let path = match normal {
                Some(Ok(Some(path))) => Ok(std::borrow::Cow::Owned(path)),
                Some(Err(e)) => Err(e),
                Some(Ok(None)) | None => Ok(name),
            };
            let facts = FileFacts {
                size: declared.size,
                stored_size: entry.compressed,
                crc32: Some(declared.crc32),
                modified,
                container: self.container,
                index: u32::try_from(self.entries.len()).unwrap_or(u32::MAX),
            };
            let prefix = self.path_prefix;
            let zips = &mut self.listed.zips;
            let pushed = path.and_then(|path| {
                let (dir, file) = split_parent(&path);
                let dir = out.dir(prefix, dir);
                let at = out.push(dir, file, facts).map_err(|e| e.in_file(&*path))?;
                if looks_like_zip_name(&path) {
                    zips.push(at);
                }
                Ok(())
            });
            if let Err(e) = pushed {
                self.listed.problems.push(e);
            }
        }
        self.entries.push(entry);
    }
}

impl ZipContainer {
    /// Reads the end-of-central-directory record and the central directory, and lists its
    /// files into `out` as zip `container`, their paths below `path_prefix` (a nested zip's
    /// `outer.zip!/`, else empty). The files whose path `keep` refuses (zips aside, which may be
    /// nested archives) are counted ([`ZipContainer::skipped`]) and otherwise dropped at once:
    /// a view of a few of the files (see `Artifact::open_only`) then holds neither their paths
    /// nor their entries. Paths are split as they are read: no whole path is held.
    pub fn open(
        data: Rc<dyn RandomAccess>,
        limits: &Limits,
        keep: fn(&str) -> bool,
        path_prefix: &str,
        container: u32,
        out: &mut ListingBuilder,
    ) -> Result<(Self, Listed)> {
        let mut lister = Lister {
            limits,
            keep,
            path_prefix,
            container,
            batched: data.batched_reads(),
            entries: Vec::new(),
            ahead: ReadAhead::default(),
            by_dir: HashMap::new(),
            listed: Listed::default(),
            skipped: 0,
            prefixed: String::new(),
        };
        match find_central(data.as_ref(), limits) {
            Ok(central) => lister.list_central(data.as_ref(), &central, out)?,
            // No central directory to trust, but the bytes begin as a zip does: recover what
            // the local headers hold (a truncated download, a cut end record).
            Err(e)
                if e.kind() != ErrorKind::Limit && data_starts_with_local_header(data.as_ref()) =>
            {
                lister.salvage(data.as_ref(), (0, None), e, out)?
            }
            Err(e) => return Err(e),
        }
        let Lister {
            mut entries,
            ahead,
            skipped,
            listed,
            ..
        } = lister;
        // A view of a few files kept few entries.
        entries.shrink_to_fit();
        let zip = ZipContainer {
            data,
            entries,
            ahead,
            skipped,
            fast: inflate::Inflater::default(),
            inflater: Box::default(),
        };
        Ok((zip, listed))
    }

    /// How many files `keep` left out (see [`ZipContainer::open`]).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The data window of a stored (uncompressed, unencrypted) entry, for reading a nested zip in
    /// place. `None` for compressed entries.
    pub fn stored_window(&mut self, index: usize) -> Result<Option<Slice>> {
        let entry = self
            .entries
            .get(index)
            .ok_or_else(|| Error::io("internal: unknown zip entry"))?;
        if entry.method != METHOD_STORED || entry.flags & FLAG_ENCRYPTED != 0 {
            return Ok(None);
        }
        let start = self.data_start(entry).map_err(Error::in_copy)?;
        Slice::new(self.data.clone(), start, entry.compressed).map(Some)
    }

    /// Reads and inflates an entry, refusing more than `max` bytes, checking its size and CRC
    /// against what the central directory `declared`. A malformed entry is a damaged copy
    /// ([`Error::in_copy`]): the zip's bytes, not the file they hold, are wrong.
    pub fn read(
        &mut self,
        index: usize,
        declared: Declared,
        max: u64,
        limits: &Limits,
    ) -> Result<Vec<u8>> {
        self.extract(index, declared, max, limits)
            .map_err(Error::in_copy)
    }

    /// [`Self::read`], its errors as the zip reader finds them.
    fn extract(
        &mut self,
        index: usize,
        declared: Declared,
        max: u64,
        limits: &Limits,
    ) -> Result<Vec<u8>> {
        let entry = self
            .entries
            .get(index)
            .ok_or_else(|| Error::io("internal: unknown zip entry"))?
            .clone();
        if entry.flags & FLAG_ENCRYPTED != 0 {
            return Err(Error::unsupported(
                "the entry is encrypted; encrypted zips cannot be analysed",
            ));
        }
        if declared.size > max {
            return Err(Error::limit(
                "max-entry-bytes",
                format!(
                    "the entry declares {} bytes, more than {max} allowed",
                    declared.size
                ),
            ));
        }
        let ratio_floor = 1 << 20;
        if declared.size > ratio_floor && declared.size / entry.compressed.max(1) > limits.max_ratio
        {
            return Err(Error::limit(
                "max-ratio",
                format!(
                    "the entry inflates {} bytes to {} (a ratio above {})",
                    entry.compressed, declared.size, limits.max_ratio
                ),
            ));
        }
        let out = match entry.method {
            METHOD_STORED => {
                if entry.compressed != declared.size {
                    return Err(Error::format(format!(
                        "a stored entry with different sizes ({} vs {})",
                        entry.compressed, declared.size
                    )));
                }
                let (mut raw, at) = self.read_with_header(index, &entry)?;
                let len = raw.len() - at;
                raw.copy_within(at.., 0);
                raw.truncate(len);
                raw
            }
            METHOD_DEFLATE => {
                // The compressed stream cannot meaningfully exceed the allowed output by more
                // than the worst-case deflate expansion; refuse absurd declarations up front.
                let compressed_cap = max.saturating_add(max / 100).saturating_add(1 << 16);
                if entry.compressed > compressed_cap {
                    return Err(Error::limit(
                        "max-entry-bytes",
                        format!(
                            "the entry's compressed size {} cannot inflate within {max} bytes",
                            entry.compressed
                        ),
                    ));
                }
                let (raw, at) = self.read_with_header(index, &entry)?;
                let data = raw.get(at..).unwrap_or_default();
                // The fast inflater's output is used only when its size and CRC are right; on
                // anything else miniz_oxide inflates again and has the last word.
                let fast = usize::try_from(max).ok().and_then(|m| {
                    let declared = usize::try_from(declared.size).unwrap_or(0);
                    self.fast.inflate(data, m, declared)
                });
                if let Some(out) = fast {
                    if out.len() as u64 == declared.size && crc32fast::hash(&out) == declared.crc32
                    {
                        return Ok(out);
                    }
                }
                inflate_limited(&mut self.inflater, data, max, declared.size)?
            }
            METHOD_BZIP2 | METHOD_LZMA | METHOD_ZSTD | METHOD_XZ => {
                let (raw, at) = self.read_with_header(index, &entry)?;
                decode_other(
                    entry.method,
                    raw.get(at..).unwrap_or_default(),
                    declared,
                    max,
                )?
            }
            other => return Err(unsupported_method(other)),
        };
        if out.len() as u64 != declared.size {
            return Err(Error::format(format!(
                "the entry declares {} bytes but holds {}",
                declared.size,
                out.len()
            )));
        }
        let crc = crc32fast::hash(&out);
        if crc != declared.crc32 {
            return Err(Error::format(format!(
                "CRC mismatch: the zip declares {:08x}, the content has {crc:08x} (damaged download?)",
                declared.crc32
            )));
        }
        Ok(out)
    }

    /// Reads `len` bytes at `offset` of an entry's uncompressed content without holding the
    /// rest: stored entries are read in place; deflated entries are inflated as a stream up to
    /// `offset + len` through a 64 KiB window, keeping only the requested bytes. Returns the
    /// bytes and how many were inflated to get them.
    ///
    /// Entries of the other methods ([`decode_other`]) are decoded whole, within `max` bytes
    /// and `limits`, and the range taken from them.
    pub fn read_range(
        &mut self,
        index: usize,
        declared: Declared,
        (offset, len): (u64, u64),
        max: u64,
        limits: &Limits,
    ) -> Result<(Vec<u8>, u64)> {
        let entry = self
            .entries
            .get(index)
            .ok_or_else(|| Error::io("internal: unknown zip entry"))?
            .clone();
        if entry.flags & FLAG_ENCRYPTED != 0 {
            return Err(Error::unsupported(
                "the entry is encrypted; encrypted zips cannot be analysed",
            ));
        }
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= declared.size)
            .ok_or_else(|| {
                Error::format(format!(
                    "bytes {offset}..{} lie outside the entry's {} bytes",
                    offset.saturating_add(len),
                    declared.size
                ))
            })?;
        let start = self.data_start(&entry).map_err(Error::in_copy)?;
        match entry.method {
            METHOD_STORED => Ok((read_vec(self.data.as_ref(), start + offset, len)?, len)),
            METHOD_DEFLATE => {
                let out = inflate_range(self.data.as_ref(), start, entry.compressed, offset, end)
                    .map_err(Error::in_copy)?;
                Ok((out, end))
            }
            // No stream of these is read part way: the whole entry, then the range.
            METHOD_BZIP2 | METHOD_LZMA | METHOD_ZSTD | METHOD_XZ => {
                let all = self.read(index, declared, max, limits)?;
                let range = usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .and_then(|(a, b)| all.get(a..b))
                    .ok_or_else(|| Error::io("internal: range outside the entry"))?;
                Ok((range.to_vec(), declared.size))
            }
            other => Err(unsupported_method(other)),
        }
    }

    /// Drops the copy of entry `index` read ahead with its directory, if any: the entry was read
    /// elsewhere (another thread's view of the same input) and will not be read here.
    pub fn discard_read_ahead(&mut self, index: usize) {
        self.ahead.raw.remove(&index);
    }

    /// The entry's raw (stored or deflated) bytes as `(buffer, start)`: the data is
    /// `buffer[start..]`. The local header and the data come in one read (one `pread`, or one
    /// `Blob.slice` in the browser) unless the header's name and extra field exceed
    /// [`LOCAL_HEADER_SLACK`]; the checks and messages are those of [`Self::data_start`].
    fn read_with_header(&mut self, index: usize, entry: &CentralEntry) -> Result<(Vec<u8>, usize)> {
        self.read_ahead(index);
        if let Some(raw) = self.ahead.raw.remove(&index) {
            return Ok((raw, 0));
        }
        let size = self.data.size();
        let available = size.saturating_sub(entry.local_offset);
        if available < 30 {
            return Err(Error::format(
                "the entry's local header lies outside the file",
            ));
        }
        let want = (30 + LOCAL_HEADER_SLACK)
            .saturating_add(entry.compressed)
            .min(available);
        let mut buf = read_vec(self.data.as_ref(), entry.local_offset, want)
            .map_err(|_| Error::format("the entry's local header lies outside the file"))?;
        let start = data_start_in(entry, &buf, size)?;
        let rel = start - entry.local_offset;
        match rel.checked_add(entry.compressed) {
            Some(end) if end <= buf.len() as u64 => {
                buf.truncate(end as usize);
                Ok((buf, rel as usize))
            }
            // a local header longer than the slack: read the data on its own
            _ => Ok((read_vec(self.data.as_ref(), start, entry.compressed)?, 0)),
        }
    }

    /// The ranges the read-ahead of group `g` reads, as `(start, end, members)` with `members`
    /// the positions in the group's member list (sorted by offset here, once) whose bytes the
    /// range holds; empty if the group is not read ahead (fewer than two entries, or more than
    /// [`READ_AHEAD_MAX_DIR`] in all). [`Self::read_ahead`] reads exactly these ranges and
    /// [`Self::announce_dirs`] announces them.
    fn plan(&mut self, g: usize) -> Vec<PlannedRange> {
        let Some(group) = self.ahead.groups.get_mut(g) else {
            return Vec::new();
        };
        let entries = &self.entries;
        let entry = |i: u32| entries.get(i as usize);
        if !group.sorted {
            group
                .members
                .sort_by_key(|&i| entry(i).map_or(0, |e| e.local_offset));
            group.sorted = true;
        }
        let members = &group.members;
        let size = self.data.size();
        let end_of = |e: &CentralEntry| {
            e.local_offset
                .saturating_add(30 + LOCAL_HEADER_SLACK)
                .saturating_add(e.compressed)
                .min(size)
        };
        let total: u64 = members
            .iter()
            .filter_map(|&i| entry(i))
            .map(|e| end_of(e).saturating_sub(e.local_offset))
            .sum();
        let mut ranges = Vec::new();
        if members.len() < 2 || total > READ_AHEAD_MAX_DIR {
            return ranges;
        }
        let mut i = 0;
        while let Some(first) = members.get(i).and_then(|&m| entry(m)) {
            let start = first.local_offset;
            let mut end = end_of(first);
            let mut j = i + 1;
            while let Some(next) = members.get(j).and_then(|&m| entry(m)) {
                if next.local_offset > end.saturating_add(READ_AHEAD_GAP)
                    || end_of(next).saturating_sub(start) > READ_AHEAD_MAX_RANGE
                {
                    break;
                }
                end = end.max(end_of(next));
                j += 1;
            }
            ranges.push((start, end, i..j));
            i = j;
        }
        ranges
    }

    /// Announces the read-ahead ranges of the directories `rank` ranks, in its order (see
    /// [`crate::source::DirRank`] and [`crate::source::Artifact::open_announcing`]).
    pub fn announce_dirs(&mut self, rank: crate::source::DirRank) {
        let mut ranked: Vec<(u32, &str, u32, usize)> = self
            .ahead
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| {
                let parent = group.dir.rsplit_once('/').map_or("", |(p, _)| p);
                rank(&group.dir).map(|(phase, order)| (phase, parent, order, g))
            })
            .collect();
        ranked.sort_unstable();
        let groups: Vec<usize> = ranked.into_iter().map(|(.., g)| g).collect();
        let mut ranges = Vec::new();
        for g in groups {
            ranges.extend(
                self.plan(g)
                    .into_iter()
                    .map(|(start, end, _)| (start, end - start)),
            );
        }
        if !ranges.is_empty() {
            self.data.will_read(&ranges);
        }
    }

    /// On the first whole-entry read of a small entry, reads all small entries of its directory
    /// in offset order, in ranges of at most [`READ_AHEAD_MAX_RANGE`] (see [`ReadAhead`] and
    /// [`Self::plan`]). A range that cannot be read, or an entry whose local header is not where
    /// the central directory says, is simply left to the ordinary read, which reports the
    /// problem.
    fn read_ahead(&mut self, index: usize) {
        let Some(&g) = self.ahead.group.get(index) else {
            return;
        };
        let g = g as usize;
        match self.ahead.groups.get_mut(g) {
            Some(group) if !group.read => group.read = true,
            _ => return,
        }
        let plan = self.plan(g);
        let members = self
            .ahead
            .groups
            .get_mut(g)
            .map(|group| std::mem::take(&mut group.members))
            .unwrap_or_default();
        let size = self.data.size();
        for (start, end, range) in plan {
            let Ok(buf) = read_vec(self.data.as_ref(), start, end - start) else {
                continue;
            };
            for &m in members.get(range).unwrap_or_default() {
                let Some(e) = self.entries.get(m as usize) else {
                    continue;
                };
                let rel = (e.local_offset - start) as usize;
                let Some(Ok(data_start)) = buf.get(rel..).map(|h| data_start_in(e, h, size)) else {
                    continue;
                };
                let s = (data_start - start) as usize;
                let t = s.saturating_add(e.compressed as usize);
                if let Some(raw) = buf.get(s..t) {
                    self.ahead.raw.insert(m as usize, raw.to_vec());
                }
            }
        }
    }

    /// Where an entry's data begins: after its local header.
    fn data_start(&self, entry: &CentralEntry) -> Result<u64> {
        let header = read_vec(self.data.as_ref(), entry.local_offset, 30)
            .map_err(|_| Error::format("the entry's local header lies outside the file"))?;
        data_start_in(entry, &header, self.data.size())
    }
}

/// Where an entry's data begins, given the bytes at its local header (at least the 30 fixed
/// bytes) and the size of the whole file.
fn data_start_in(entry: &CentralEntry, header: &[u8], file_size: u64) -> Result<u64> {
    if le_u32(header, 0) != Some(LOCAL_SIG) {
        return Err(Error::format(format!(
            "no local header at offset {} (damaged or overlapping entries)",
            entry.local_offset
        )));
    }
    let name_len = le_uint(header, 26, 2).unwrap_or(0);
    let extra_len = le_uint(header, 28, 2).unwrap_or(0);
    let start = entry.local_offset + 30 + name_len + extra_len;
    match start.checked_add(entry.compressed) {
        Some(end) if end <= file_size => Ok(start),
        _ => Err(Error::format(format!(
            "the entry's data ({} bytes at offset {start}) runs past the end of the file (truncated?)",
            entry.compressed
        ))),
    }
}

/// Whether `name` is already what [`normalize_path`] makes of it (the usual case: ASCII, relative,
/// no empty, `.` or `..` components, no backslashes, no control characters, within the name
/// limit), so the listing keeps it as is instead of splitting and joining every name.
pub(super) fn already_normal(name: &str, limits: &Limits) -> bool {
    if name.is_empty() || name.len() as u64 > limits.max_name_bytes {
        return false;
    }
    // One pass: printable ASCII but `\\`, and every `/`-separated part neither empty, `.` nor
    // `..` (`part` counts the bytes of the current part, `dots` how many of them are dots).
    let (mut part, mut dots) = (0usize, 0usize);
    for &b in name.as_bytes() {
        if b == b'/' {
            if part == 0 || (part == dots && dots <= 2) {
                return false;
            }
            (part, dots) = (0, 0);
        } else if (0x20..0x7f).contains(&b) && b != b'\\' {
            part += 1;
            dots += usize::from(b == b'.');
        } else {
            return false;
        }
    }
    part > 0 && !(part == dots && dots <= 2)
}

fn data_starts_with_local_header(data: &dyn RandomAccess) -> bool {
    let mut sig = [0u8; 4];
    data.read_exact_at(0, &mut sig).is_ok() && u32::from_le_bytes(sig) == LOCAL_SIG
}

/// Decodes an entry of method 12 (bzip2), 14 (LZMA), 93 (zstandard) or 95 (xz), at most `max`
/// bytes: what Python's `zipfile`, 7-Zip and `zip -Z bzip2` write besides deflate.
fn decode_other(method: u16, data: &[u8], declared: Declared, max: u64) -> Result<Vec<u8>> {
    use crate::codec::{bzip2, xz, zstd};
    let too_long = |_| {
        Error::limit(
            "max-entry-bytes",
            format!(
                "the entry decompresses to more than {max} bytes (declared {})",
                declared.size
            ),
        )
    };
    let mut out = Vec::new();
    match method {
        METHOD_BZIP2 => bzip2::decode(data, &mut out, max).map_err(|e| e.into_error(too_long)),
        METHOD_LZMA => xz::decode_zip_lzma(data, declared.size, &mut out, max)
            .map_err(|e| e.into_error(too_long)),
        METHOD_XZ => xz::decode_xz(data, &mut out, max).map_err(|e| e.into_error(too_long)),
        _ => zstd::Zstd::new()
            .decode(data, &mut out, max)
            .map_err(|e| e.into_error(too_long)),
    }?;
    Ok(out)
}

/// The error for an entry of a compression method no reader here decodes.
fn unsupported_method(method: u16) -> Error {
    Error::unsupported(format!(
        "compression method {method} ({}) is not supported; only stored, deflate, bzip2, lzma, xz and zstandard",
        method_name(method)
    ))
}

fn method_name(method: u16) -> &'static str {
    match method {
        1..=6 => "legacy shrink/reduce/implode",
        9 => "deflate64",
        12 => "bzip2",
        14 => "lzma",
        93 => "zstandard",
        95 => "xz",
        98 => "ppmd",
        99 => "AES encryption",
        _ => "unknown",
    }
}

/// Parses the central directory entry at `pos` (its name borrowed when it is UTF-8 already).
fn parse_central(cd: &[u8], pos: usize, file_size: u64, prefix: u64) -> Result<Record<'_>> {
    let trunc = || Error::format("the central directory is truncated");
    if le_u32(cd, pos) != Some(CENTRAL_SIG) {
        return Err(Error::format(
            "bad central directory signature (damaged zip)",
        ));
    }
    let u = |off: usize, len: usize| le_uint(cd, pos + off, len).ok_or_else(trunc);
    let flags = u(8, 2)? as u16;
    let method = u(10, 2)? as u16;
    let dos_time = u(12, 2)? as u16;
    let dos_date = u(14, 2)? as u16;
    let crc32 = u(16, 4)? as u32;
    let mut compressed = u(20, 4)?;
    let mut uncompressed = u(24, 4)?;
    let name_len = u(28, 2)? as usize;
    let extra_len = u(30, 2)? as usize;
    let comment_len = u(32, 2)? as usize;
    let made_by_host = (u(4, 2)? >> 8) as u8;
    let external_attrs = u(38, 4)? as u32;
    let mut local_offset = u(42, 4)?;
    let name_start = pos + 46;
    let name_bytes = cd
        .get(name_start..name_start + name_len)
        .ok_or_else(trunc)?;
    let name = decode_name(name_bytes, flags);
    let extra_start = name_start + name_len;
    let extra = cd
        .get(extra_start..extra_start + extra_len)
        .ok_or_else(trunc)?;
    let mut modified = dos_to_millis(dos_date, dos_time).map(FileTime::ZipLocal);
    read_extra(
        extra,
        [&mut uncompressed, &mut compressed, &mut local_offset],
        &mut modified,
    )
    .ok_or_else(trunc)?;
    let next = extra_start + extra_len + comment_len;
    if next > cd.len() {
        return Err(trunc());
    }
    let local_offset = local_offset
        .checked_add(prefix)
        .filter(|&o| o < file_size)
        .ok_or_else(|| {
            Error::format(format!(
                "entry {name:?} starts at offset {local_offset}, outside the {file_size}-byte file"
            ))
        })?;
    let is_dir = name.ends_with('/') || name.ends_with('\\');
    // Unix symlinks: host 3 (Unix) and S_IFLNK in the high 16 bits of the external attributes.
    let is_symlink = made_by_host == 3 && (external_attrs >> 16) & 0o170000 == 0o120000;
    Ok(Record {
        entry: CentralEntry {
            compressed,
            local_offset,
            method,
            flags,
        },
        declared: Declared {
            size: uncompressed,
            crc32,
        },
        is_dir,
        is_symlink,
        name,
        modified,
        next,
    })
}

/// An entry's name: UTF-8 when its flag says so (invalid sequences replaced), else UTF-8 if it
/// is valid, else code page 437 (the zip default).
fn decode_name(bytes: &[u8], flags: u16) -> std::borrow::Cow<'_, str> {
    if flags & FLAG_UTF8 != 0 {
        return String::from_utf8_lossy(bytes);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes.iter().map(|&b| cp437(b)).collect::<String>().into(),
    }
}

/// Reads what an entry's extra field adds to its header: the ZIP64 values of the fields at
/// `0xFFFF_FFFF` in `zip64` (in the record's order: uncompressed size, compressed size, local
/// header offset; a local header has no offset, pass a value that is not `0xFFFF_FFFF`), and
/// the modification time in UTC (`0x5455`) into `modified`. `None` when a ZIP64 value is cut.
fn read_extra(extra: &[u8], zip64: [&mut u64; 3], modified: &mut Option<FileTime>) -> Option<()> {
    let mut zip64 = zip64;
    let mut e = 0usize;
    while e + 4 <= extra.len() {
        let id = le_uint(extra, e, 2).unwrap_or(0) as u16;
        let len = le_uint(extra, e + 2, 2).unwrap_or(0) as usize;
        let body = extra.get(e + 4..e + 4 + len).unwrap_or(&[]);
        match id {
            EXTRA_ZIP64 => {
                let mut b = 0usize;
                for field in zip64.iter_mut().filter(|f| ***f == 0xFFFF_FFFF) {
                    **field = le_uint(body, b, 8)?;
                    b += 8;
                }
            }
            // flags byte, then mtime (seconds, UTC) if bit 0 is set.
            EXTRA_UNIX_TIME if body.first().is_some_and(|f| f & 1 != 0) => {
                if let Some(secs) = le_uint(body, 1, 4) {
                    *modified = Some(FileTime::Utc(secs as i64 * 1000));
                }
            }
            _ => {}
        }
        e += 4 + len;
    }
    Some(())
}

/// Inflates a raw deflate stream, refusing more than `max` output bytes.
fn inflate_limited(
    state: &mut miniz_oxide::inflate::core::DecompressorOxide,
    raw: &[u8],
    max: u64,
    declared: u64,
) -> Result<Vec<u8>> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags};
    use miniz_oxide::inflate::TINFLStatus;

    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let initial = usize::try_from(declared).unwrap_or(0).min(max).max(64);
    let mut out = vec![0u8; initial];
    state.init();
    let mut in_pos = 0usize;
    let mut out_pos = 0usize;
    loop {
        let input = raw.get(in_pos..).unwrap_or(&[]);
        let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, consumed, produced) = decompress(state, input, &mut out, out_pos, flags);
        in_pos += consumed;
        out_pos += produced;
        match status {
            TINFLStatus::Done => {
                out.truncate(out_pos);
                return Ok(out);
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= max {
                    return Err(Error::limit(
                        "max-entry-bytes",
                        format!(
                            "the entry inflates to more than {max} bytes (declared {declared})"
                        ),
                    ));
                }
                let new_len = out.len().saturating_mul(2).min(max.max(out.len() + 1));
                out.resize(new_len, 0);
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(Error::format(
                    "the compressed data ends early (truncated entry)",
                ))
            }
            other => {
                return Err(Error::format(format!(
                    "the compressed data is corrupt ({other:?})"
                )))
            }
        }
    }
}

/// Inflates the raw deflate stream at `start..start + compressed` of `data` up to uncompressed
/// position `end`, returning the bytes `from..end`. Memory: a 64 KiB input chunk, a 64 KiB
/// window and the result.
fn inflate_range(
    data: &dyn RandomAccess,
    start: u64,
    compressed: u64,
    from: u64,
    end: u64,
) -> Result<Vec<u8>> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;

    const WINDOW: usize = 1 << 16;
    let want = usize::try_from(end - from).map_err(|_| Error::io("range too large"))?;
    let mut result = Vec::with_capacity(want);
    let mut state = Box::<DecompressorOxide>::default();
    let mut window = vec![0u8; WINDOW];
    let mut window_pos = 0usize;
    let mut produced_total: u64 = 0;
    let mut chunk = vec![0u8; WINDOW];
    let mut chunk_len = 0usize;
    let mut chunk_pos = 0usize;
    let mut read_at: u64 = 0;
    while produced_total < end {
        if chunk_pos == chunk_len {
            let n = (compressed - read_at).min(WINDOW as u64) as usize;
            if n == 0 {
                return Err(Error::format(
                    "the compressed data ends early (truncated entry)",
                ));
            }
            let buf = chunk
                .get_mut(..n)
                .ok_or_else(|| Error::io("internal: chunk"))?;
            data.read_exact_at(start + read_at, buf)
                .map_err(|e| Error::io(format!("read failed: {e}")))?;
            read_at += n as u64;
            chunk_len = n;
            chunk_pos = 0;
        }
        let more = read_at < compressed;
        let flags = if more {
            inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
        } else {
            0
        };
        let input = chunk.get(chunk_pos..chunk_len).unwrap_or(&[]);
        let (status, consumed, produced) =
            decompress(&mut state, input, &mut window, window_pos, flags);
        chunk_pos += consumed;
        // Keep the part of the new output that falls inside the wanted range.
        let out_start = produced_total;
        let out_end = produced_total + produced as u64;
        if out_end > from && out_start < end {
            let lo = from.max(out_start) - out_start;
            let hi = end.min(out_end) - out_start;
            let piece = window
                .get(window_pos + lo as usize..window_pos + hi as usize)
                .ok_or_else(|| Error::io("internal: inflate window"))?;
            result.extend_from_slice(piece);
        }
        produced_total = out_end;
        window_pos = (window_pos + produced) & (WINDOW - 1);
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput | TINFLStatus::NeedsMoreInput => {}
            TINFLStatus::FailedCannotMakeProgress => {
                return Err(Error::format(
                    "the compressed data ends early (truncated entry)",
                ))
            }
            other => {
                return Err(Error::format(format!(
                    "the compressed data is corrupt ({other:?})"
                )))
            }
        }
    }
    if produced_total < end {
        return Err(Error::format(format!(
            "the entry inflates to {produced_total} bytes, fewer than the {end} it declares"
        )));
    }
    Ok(result)
}

fn read_vec(data: &dyn RandomAccess, offset: u64, len: u64) -> Result<Vec<u8>> {
    check_range(data, offset, len)?;
    let len = usize::try_from(len).map_err(|_| Error::io("read too large for this platform"))?;
    let mut buf = vec![0u8; len];
    data.read_exact_at(offset, &mut buf)
        .map_err(|e| Error::io(format!("read failed: {e}")))?;
    Ok(buf)
}

/// Refuses a range that does not lie inside `data`.
fn check_range(data: &dyn RandomAccess, offset: u64, len: u64) -> Result<()> {
    let end = offset.checked_add(len);
    if end.is_none_or(|end| end > data.size()) {
        return Err(Error::format(format!(
            "{len} bytes at offset {offset} lie past the end of the {}-byte file (truncated?)",
            data.size()
        )));
    }
    Ok(())
}

/// Bytes of the central directory read at a time.
const CENTRAL_WINDOW: u64 = 1 << 20;

/// The central directory, read a window at a time: a wide table's is 60 MB, and read whole it
/// was the CLI's peak, the analysis and a prefetch helper each opening the input at once
/// (`BENCHMARKS.md`, "Opening a wide zip").
struct CentralDirectory<'d> {
    data: &'d dyn RandomAccess,
    /// Where it starts in `data`, and its length.
    start: u64,
    len: u64,
    /// The window: bytes from `at` (relative to `start`).
    window: Vec<u8>,
    at: u64,
}

impl<'d> CentralDirectory<'d> {
    /// The directory of `len` bytes at `start`, refused (as one read of it would be) when it
    /// does not lie inside `data`.
    fn new(data: &'d dyn RandomAccess, start: u64, len: u64) -> Result<Self> {
        check_range(data, start, len)?;
        Ok(CentralDirectory {
            data,
            start,
            len,
            window: Vec::new(),
            at: 0,
        })
    }

    /// The bytes from `pos` on, holding the whole entry that starts there where the directory
    /// does (its fixed 46 bytes, name, extra field and comment); fewer when the directory ends
    /// first, which the entry's parser reports as truncation.
    fn entry_at(&mut self, pos: u64) -> Result<&[u8]> {
        let fixed = self.bytes(pos, 46)?;
        let var = |off| le_uint(fixed, off, 2).unwrap_or(0);
        let need = 46 + var(28) + var(30) + var(32);
        self.bytes(pos, need)
    }

    /// The bytes from `pos` on, at least `need` of them where the directory has them.
    fn bytes(&mut self, pos: u64, need: u64) -> Result<&[u8]> {
        let have = self.at..self.at + self.window.len() as u64;
        let want_end = pos.saturating_add(need).min(self.len);
        if pos < have.start || want_end > have.end {
            let end = pos.saturating_add(need.max(CENTRAL_WINDOW)).min(self.len);
            self.window = read_vec(self.data, self.start + pos, end.saturating_sub(pos))?;
            self.at = pos;
        }
        let from = usize::try_from(pos - self.at).unwrap_or(usize::MAX);
        Ok(self.window.get(from..).unwrap_or(&[]))
    }
}

fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    le_uint(b, at, 4).map(|v| v as u32)
}

fn le_uint(b: &[u8], at: usize, len: usize) -> Option<u64> {
    let bytes = b.get(at..at.checked_add(len)?)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
    )
}

/// MS-DOS date and time to epoch ms, as if the local time were UTC.
fn dos_to_millis(date: u16, time: u16) -> Option<i64> {
    let year = 1980 + i64::from(date >> 9);
    let month = i64::from((date >> 5) & 0xF);
    let day = i64::from(date & 0x1F);
    let hour = i64::from(time >> 11);
    let minute = i64::from((time >> 5) & 0x3F);
    let second = i64::from(time & 0x1F) * 2;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    Some(
        ((crate::time::days_from_civil(year, month, day) * 24 + hour) * 60 + minute) * 60_000
            + second * 1000,
    )
}

/// Code page 437 (the zip default for names without the UTF-8 flag), upper half mapped
/// approximately: box-drawing and symbols become '?', letters keep their accents.
fn cp437(b: u8) -> char {
    const HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»";
    if b < 0x80 {
        return char::from(b);
    }
    HIGH.chars().nth(usize::from(b - 0x80)).unwrap_or('?')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listing's fast path keeps exactly the names `normalize_path` would return unchanged.
    #[test]
    fn already_normal_names_are_what_normalize_path_returns() {
        let l = Limits::default();
        let names = [
            "w/db.db/t/manifest/manifest-list-1f52afa3-0",
            "a",
            "a/b c/d.parquet",
            "./a/b",
            "a/./b",
            "a/../b",
            "a//b",
            "/abs",
            "dir/",
            "win\\path",
            "tab\there",
            "caf\u{e9}/x",
            "..",
            ".",
            "",
            "x\u{7f}y",
        ];
        for name in names {
            if already_normal(name, &l) {
                assert_eq!(normalize_path(name, &l).unwrap(), name, "{name:?}");
            }
        }
        assert!(already_normal("w/db.db/t/snapshot/snapshot-1", &l));
        assert!(already_normal("a/.../b/.c/d..", &l));
        for bad in [
            "a//b", "a/.", "a/..", "./a", "../a", "a/", "/a", "a\\b", "\u{1}",
        ] {
            assert!(!already_normal(bad, &l), "{bad:?}");
        }
        assert!(!already_normal(&"x".repeat(5000), &l));
    }

    proptest::proptest! {
        /// For ASCII names the fast path says yes exactly when `normalize_path` returns the name
        /// unchanged.
        #[test]
        fn already_normal_agrees_with_normalize_path(name in "[a./\\\\ \t]{0,12}") {
            let l = Limits::default();
            let unchanged = normalize_path(&name, &l).is_ok_and(|p| p == name);
            proptest::prop_assert_eq!(already_normal(&name, &l), unchanged, "{:?}", name);
        }
    }

    #[test]
    fn dos_time_converts() {
        // 2026-11-30 08:33:10 -> date ((46<<9)|(11<<5)|30), time ((8<<11)|(33<<5)|5)
        let date = (46 << 9) | (11 << 5) | 30;
        let time = (8 << 11) | (33 << 5) | 5;
        let ms = dos_to_millis(date, time).unwrap();
        assert_eq!(ms, 1_796_027_590_000);
    }

    #[test]
    fn inflate_range_returns_exactly_the_window() {
        let text: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let raw = miniz_oxide::deflate::compress_to_vec(&text, 6);
        let len = raw.len() as u64;
        let data: Vec<u8> = raw;
        for (from, to) in [
            (0u64, 10u64),
            (70_000, 70_100),
            (1_199_990, 1_200_000),
            (5, 5),
        ] {
            let got = inflate_range(&data, 0, len, from, to).unwrap();
            assert_eq!(got, text[from as usize..to as usize], "{from}..{to}");
        }
        let truncated = data[..data.len() / 2].to_vec();
        assert!(inflate_range(&truncated, 0, len / 2, 1_000_000, 1_000_010).is_err());
    }

    #[test]
    fn zip_names() {
        assert!(looks_like_zip_name("a/b/artifact.ZIP"));
        assert!(!looks_like_zip_name("a/zip/b"));
    }
}
