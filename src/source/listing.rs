//! The artifact's listing: every file, sorted by path, stored flat.
//!
//! A wide table's artifact lists half a million files. Held as one struct per file with its
//! directory and its name (two pointers, a heap string each, the zip's fields again) the
//! listing was ~190 bytes a file and a third of the analysis's memory (`BENCHMARKS.md`, "A flat
//! listing"). Here a file is a fixed 48-byte [`FileRecord`]: its directory an index into the
//! listing's directories (a thousand for half a million files), its name an offset into one
//! buffer of names ([`TextChunks`]). [`FileEntry`] is the view the rest of the code reads, and
//! [`Files`] a run of the listing (what a directory holds).

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::arena::TextChunks;
use crate::error::{Error, Result};

use super::FileTime;

/// [`FileRecord::container`] of a file the host handed over (a folder's).
pub(super) const HOST: u32 = u32::MAX;

/// [`FileRecord::container`] of a file of a folder the host walked ([`super::Input::Tree`]):
/// [`FileRecord::index`] is the tree's, and the file is opened by its path.
pub(super) const TREE: u32 = u32::MAX - 1;

/// Names longer than this cannot be listed (a name's length shares 32 bits with flags).
const MAX_NAME: usize = (1 << 24) - 1;

const HAS_CRC: u32 = 1 << 24;
const TIME_UTC: u32 = 1 << 25;
const TIME_ZIP_LOCAL: u32 = 1 << 26;
/// Left out of the listing when it is finished (a nested zip opened as a folder).
const DROPPED: u32 = 1 << 27;
const LEN_MASK: u32 = (1 << 24) - 1;

/// One file: where its bytes are, its sizes, CRC and time, its directory and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileRecord {
    size: u64,
    stored_size: u64,
    /// Epoch ms (see the time flags).
    modified: i64,
    /// Index into [`Listing::dirs`].
    dir: u32,
    /// Where the name starts in [`Listing::names`].
    name_at: u32,
    /// The name's length (low 24 bits) and the flags above.
    name_len_flags: u32,
    /// The zip container, [`HOST`] or [`TREE`].
    container: u32,
    /// The entry's index in its zip, the host file's index, or the tree's.
    index: u32,
    crc32: u32,
}

/// What a file is besides its path, as [`ListingBuilder::push`] takes it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FileFacts {
    /// Size in bytes (uncompressed), as declared.
    pub size: u64,
    /// Size in the archive (compressed); equal to `size` for folders.
    pub stored_size: u64,
    /// CRC-32 the zip declares, if any.
    pub crc32: Option<u32>,
    /// Modification time.
    pub modified: Option<FileTime>,
    /// The zip container, [`HOST`] or [`TREE`].
    pub container: u32,
    /// The entry's index in its zip, the host file's index, or the tree's.
    pub index: u32,
}

/// Every file of an artifact, sorted by path, each path once.
#[derive(Debug, Default)]
pub struct Listing {
    files: Vec<FileRecord>,
    dirs: Vec<Box<str>>,
    names: TextChunks,
}

impl Listing {
    /// Every file.
    pub fn files(&self) -> Files<'_> {
        Files {
            records: &self.files,
            listing: self,
        }
    }

    /// File `i` (in path order).
    pub fn file(&self, i: usize) -> Option<FileEntry<'_>> {
        self.files.get(i).map(|record| self.entry(record))
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn entry<'a>(&'a self, record: &'a FileRecord) -> FileEntry<'a> {
        FileEntry {
            record,
            listing: self,
        }
    }

    fn dir_of(&self, r: &FileRecord) -> &str {
        self.dirs.get(r.dir as usize).map_or("", |d| d)
    }

    fn name_of(&self, r: &FileRecord) -> &str {
        self.names.get(r.name_at, r.name_len_flags & LEN_MASK)
    }

    /// How two records' paths order (equal directories compared by name only).
    fn cmp(&self, a: &FileRecord, b: &FileRecord) -> Ordering {
        if a.dir == b.dir {
            return self.name_of(a).cmp(self.name_of(b));
        }
        cmp_concat(self.entry(a).path_bytes(), self.entry(b).path_bytes())
    }

    /// Bytes held on the heap (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.files.capacity() * std::mem::size_of::<FileRecord>()
            + self.dirs.iter().map(|d| d.len() + 16).sum::<usize>()
            + self.names.heap_bytes()
    }
}

/// One file of the artifact: a view of its record in the [`Listing`].
#[derive(Clone, Copy)]
pub struct FileEntry<'a> {
    record: &'a FileRecord,
    listing: &'a Listing,
}

impl<'a> FileEntry<'a> {
    /// The path relative to the input root, `/`-separated; nested zips as `outer.zip!/inner`.
    pub fn path(&self) -> String {
        let mut path = String::new();
        self.path_in(&mut path);
        path
    }

    /// [`FileEntry::path`] written into `buf` (cleared first), for a loop over many files that
    /// reuses one buffer.
    pub fn path_in<'b>(&self, buf: &'b mut String) -> &'b str {
        buf.clear();
        for part in self.parts() {
            buf.push_str(part);
        }
        buf
    }

    /// The path's directory, up to its last `/` (empty for a file at the root): what
    /// [`super::split_parent`] returns first.
    pub fn dir(&self) -> &'a str {
        self.listing.dir_of(self.record)
    }

    /// The path's last component: what [`super::split_parent`] returns second.
    pub fn name(&self) -> &'a str {
        self.listing.name_of(self.record)
    }

    /// How this file's path orders against `path`, byte by byte, with no path built.
    pub fn cmp_path(&self, path: &str) -> Ordering {
        cmp_concat(self.path_bytes(), [path.as_bytes(), b"", b""])
    }

    /// The path as the three byte strings it is the concatenation of (directory, `/` unless at
    /// the root, name), for a digest of it without building it.
    pub fn path_bytes(&self) -> [&'a [u8]; 3] {
        self.parts().map(str::as_bytes)
    }

    /// The path as the three strings it is the concatenation of.
    fn parts(&self) -> [&'a str; 3] {
        let dir = self.dir();
        let sep = if dir.is_empty() { "" } else { "/" };
        [dir, sep, self.name()]
    }

    /// Size in bytes (uncompressed), as declared.
    pub fn size(&self) -> u64 {
        self.record.size
    }

    /// Size in the archive (compressed); equal to [`FileEntry::size`] for folders.
    pub fn stored_size(&self) -> u64 {
        self.record.stored_size
    }

    /// CRC-32 the zip declares, if any.
    pub fn crc32(&self) -> Option<u32> {
        (self.record.name_len_flags & HAS_CRC != 0).then_some(self.record.crc32)
    }

    /// Modification time.
    pub fn modified(&self) -> Option<FileTime> {
        let flags = self.record.name_len_flags;
        if flags & TIME_UTC != 0 {
            Some(FileTime::Utc(self.record.modified))
        } else if flags & TIME_ZIP_LOCAL != 0 {
            Some(FileTime::ZipLocal(self.record.modified))
        } else {
            None
        }
    }

    /// Where its bytes are: `(zip container or HOST, index)`.
    pub(super) fn location(&self) -> (u32, u32) {
        (self.record.container, self.record.index)
    }
}

impl PartialEq for FileEntry<'_> {
    /// The same path, sizes, CRC, time and place.
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
            && (
                self.size(),
                self.stored_size(),
                self.crc32(),
                self.modified(),
            ) == (
                other.size(),
                other.stored_size(),
                other.crc32(),
                other.modified(),
            )
            && self.location() == other.location()
    }
}

impl std::fmt::Debug for FileEntry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileEntry")
            .field("path", &self.path())
            .field("size", &self.size())
            .field("stored_size", &self.stored_size())
            .field("crc32", &self.crc32())
            .field("modified", &self.modified())
            .finish()
    }
}

/// A run of the listing's files, in path order.
#[derive(Clone, Copy)]
pub struct Files<'a> {
    records: &'a [FileRecord],
    listing: &'a Listing,
}

impl<'a> Files<'a> {
    /// How many files.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// File `i` of the run.
    pub fn get(&self, i: usize) -> Option<FileEntry<'a>> {
        self.records.get(i).map(|r| self.listing.entry(r))
    }

    /// The files, in path order.
    pub fn iter(&self) -> FilesIter<'a> {
        FilesIter {
            records: self.records.iter(),
            listing: self.listing,
        }
    }

    /// The files `range` of the run (none if it lies outside).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Files<'a> {
        Files {
            records: self.records.get(range).unwrap_or(&[]),
            listing: self.listing,
        }
    }

    /// The index of the first file for which `pred` is false (files for which it holds come
    /// first, as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(FileEntry<'_>) -> bool) -> usize {
        let listing = self.listing;
        self.records.partition_point(|r| pred(listing.entry(r)))
    }
}

impl<'a> IntoIterator for Files<'a> {
    type Item = FileEntry<'a>;
    type IntoIter = FilesIter<'a>;

    fn into_iter(self) -> FilesIter<'a> {
        self.iter()
    }
}

/// The iterator of [`Files::iter`].
#[derive(Clone)]
pub struct FilesIter<'a> {
    records: std::slice::Iter<'a, FileRecord>,
    listing: &'a Listing,
}

impl<'a> Iterator for FilesIter<'a> {
    type Item = FileEntry<'a>;

    fn next(&mut self) -> Option<FileEntry<'a>> {
        let record = self.records.next()?;
        Some(self.listing.entry(record))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl DoubleEndedIterator for FilesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let record = self.records.next_back()?;
        Some(self.listing.entry(record))
    }
}

impl ExactSizeIterator for FilesIter<'_> {}

impl std::fmt::Debug for Files<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A listing being built: files in the order they are found, each directory once.
#[derive(Debug, Default)]
pub(super) struct ListingBuilder {
    listing: Listing,
    dir_ids: HashMap<Box<str>, u32>,
    /// Where a nested zip's directory is joined to its prefix, reused.
    joined: String,
}

impl ListingBuilder {
    /// The id of directory `dir` of a zip whose paths get `prefix` (empty, or `outer.zip!/`
    /// inside a nested zip, whose root directory is then `outer.zip!`).
    pub fn dir(&mut self, prefix: &str, dir: &str) -> u32 {
        if prefix.is_empty() {
            return self.dir_id(dir);
        }
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        joined.push_str(prefix);
        joined.push_str(dir);
        let id = self.dir_id(joined.trim_end_matches('/'));
        self.joined = joined;
        id
    }

    fn dir_id(&mut self, dir: &str) -> u32 {
        if let Some(&id) = self.dir_ids.get(dir) {
            return id;
        }
        let id = u32::try_from(self.listing.dirs.len()).unwrap_or(u32::MAX);
        self.listing.dirs.push(dir.into());
        self.dir_ids.insert(dir.into(), id);
        id
    }

    /// Adds the file `name` in directory `dir` (an id [`ListingBuilder::dir`] gave); its
    /// position.
    pub fn push(&mut self, dir: u32, name: &str, facts: FileFacts) -> Result<usize> {
        if name.len() > MAX_NAME {
            return Err(Error::limit(
                "max-name-bytes",
                format!("a name of {} bytes, longer than 16 MiB", name.len()),
            ));
        }
        let name_at = self.listing.names.push(&[name], "file names")?;
        let (modified, time) = match facts.modified {
            None => (0, 0),
            Some(FileTime::Utc(ms)) => (ms, TIME_UTC),
            Some(FileTime::ZipLocal(ms)) => (ms, TIME_ZIP_LOCAL),
        };
        let crc = if facts.crc32.is_some() { HAS_CRC } else { 0 };
        self.listing.files.push(FileRecord {
            size: facts.size,
            stored_size: facts.stored_size,
            modified,
            dir,
            name_at,
            name_len_flags: name.len() as u32 | time | crc,
            container: facts.container,
            index: facts.index,
            crc32: facts.crc32.unwrap_or(0),
        });
        Ok(self.listing.files.len() - 1)
    }

    /// How many files have been added.
    pub fn len(&self) -> usize {
        self.listing.files.len()
    }

    /// File `i` as added.
    pub fn file(&self, i: usize) -> Option<FileEntry<'_>> {
        self.listing.file(i)
    }

    /// Leaves file `i` out of the finished listing.
    pub fn drop_file(&mut self, i: usize) {
        if let Some(r) = self.listing.files.get_mut(i) {
            r.name_len_flags |= DROPPED;
        }
    }

    /// The listing, sorted by path, and the paths of the copies of a path left out (the first
    /// one added is kept).
    pub fn finish(self) -> (Listing, Vec<String>) {
        let mut listing = self.listing;
        let mut files = std::mem::take(&mut listing.files);
        files.retain(|r| r.name_len_flags & DROPPED == 0);
        let mut order = path_order(&listing, &files);
        permute(&mut files, &mut order);
        let mut copies = Vec::new();
        files.dedup_by(|later, first| {
            let copy = listing.cmp(later, first).is_eq();
            if copy {
                copies.push(listing.entry(later).path());
            }
            copy
        });
        files.shrink_to_fit();
        listing.names.shrink_to_fit();
        listing.dirs.shrink_to_fit();
        listing.files = files;
        (listing, copies)
    }
}

/// The order of `files` by path, ties in the order they were added: a permutation (4 bytes a
/// file, where sorting the records themselves stably took a scratch copy of them).
///
/// Sorting half a million paths by comparing them was a tenth of a wide table's analysis
/// (`BENCHMARKS.md`, "A flat listing"), so the files are first put in order by directory (the
/// directories by their path and `/`, each file by its directory's rank) and by name within a
/// directory: the path order, except where a directory holds files and subdirectories whose
/// paths interleave. One pass checks it, and only then are the paths compared whole.
fn path_order(listing: &Listing, files: &[FileRecord]) -> Vec<u32> {
    let n = u32::try_from(files.len()).unwrap_or(u32::MAX);
    let mut dirs: Vec<(String, u32)> = listing
        .dirs
        .iter()
        .enumerate()
        .map(|(id, d)| (format!("{d}/"), id as u32))
        .collect();
    dirs.sort_unstable();
    let mut rank = vec![0u32; listing.dirs.len()];
    for (r, (_, id)) in dirs.iter().enumerate() {
        if let Some(slot) = rank.get_mut(*id as usize) {
            *slot = r as u32;
        }
    }
    let rank_of = |f: &FileRecord| rank.get(f.dir as usize).copied().unwrap_or(0);
    // By directory rank (a counting sort: stable, so ties stay in the order added).
    let mut starts = vec![0u32; dirs.len() + 1];
    for f in files {
        if let Some(c) = starts.get_mut(rank_of(f) as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..starts.len() {
        let before = starts.get(i - 1).copied().unwrap_or(0);
        if let Some(c) = starts.get_mut(i) {
            *c += before;
        }
    }
    let mut order = vec![0u32; files.len()];
    let mut next = starts.clone();
    for (i, f) in (0..n).zip(files) {
        if let Some(at) = next.get_mut(rank_of(f) as usize) {
            if let Some(slot) = order.get_mut(*at as usize) {
                *slot = i;
            }
            *at += 1;
        }
    }
    // By name within each directory.
    let name = |i: u32| files.get(i as usize).map_or("", |f| listing.name_of(f));
    for w in starts.windows(2) {
        let &[a, b] = w else { continue };
        if let Some(group) = order.get_mut(a as usize..b as usize) {
            group.sort_unstable_by(|&x, &y| name(x).cmp(name(y)).then(x.cmp(&y)));
        }
    }
    let by_path = |&x: &u32, &y: &u32| {
        match (files.get(x as usize), files.get(y as usize)) {
            (Some(a), Some(b)) => listing.cmp(a, b),
            _ => Ordering::Equal,
        }
        .then(x.cmp(&y))
    };
    if !order.is_sorted_by(|x, y| by_path(x, y).is_le()) {
        order.sort_unstable_by(by_path);
    }
    order
}

/// Puts `items` in the order `order` gives (`items[i]` becomes the old `items[order[i]]`), in
/// place; `order` is used up.
fn permute<T: Copy>(items: &mut [T], order: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for start in 0..items.len() {
        if order.get(start).is_none_or(|&o| o == DONE) {
            continue;
        }
        let Some(&first) = items.get(start) else {
            continue;
        };
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, DONE) as usize;
            if from == start || from >= items.len() {
                if let Some(x) = items.get_mut(at) {
                    *x = first;
                }
                break;
            }
            let moved = items.get(from).copied();
            if let (Some(x), Some(m)) = (items.get_mut(at), moved) {
                *x = m;
            }
            at = from;
        }
    }
}

/// How the concatenation of `a`'s parts orders against that of `b`'s, byte by byte (as `str`
/// orders), without building either.
pub(super) fn cmp_concat(a: [&[u8]; 3], b: [&[u8]; 3]) -> Ordering {
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            match a.next() {
                Some(next) => x = next,
                None => break,
            }
        }
        while y.is_empty() {
            match b.next() {
                Some(next) => y = next,
                None => break,
            }
        }
        if x.is_empty() || y.is_empty() {
            return x.len().cmp(&y.len());
        }
        let n = x.len().min(y.len());
        let (xh, xt) = x.split_at(n);
        let (yh, yt) = y.split_at(n);
        match xh.cmp(yh) {
            Ordering::Equal => (x, y) = (xt, yt),
            unequal => return unequal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_48_bytes() {
        assert_eq!(std::mem::size_of::<FileRecord>(), 48);
    }

    proptest::proptest! {
        #[test]
        fn permute_puts_items_where_the_order_says(n in 0usize..200, seed in 0u64..1000) {
            let items: Vec<u64> = (0..n as u64).map(|i| i * 7 + seed).collect();
            let mut order: Vec<u32> = (0..n as u32).collect();
            // A pseudo-random shuffle.
            let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for i in (1..n).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            let want: Vec<u64> = order.iter().map(|&o| items[o as usize]).collect();
            let mut got = items.clone();
            permute(&mut got, &mut order.clone());
            proptest::prop_assert_eq!(got, want);
        }
    }

    proptest::proptest! {
        /// Files in directories that also hold subdirectories, in any order: listed in path
        /// order, each path once.
        #[test]
        fn the_listing_is_in_path_order(
            paths in proptest::collection::vec("([ab0-]{1,2}/){0,3}[ab0-]{1,2}", 0..40)
        ) {
            let mut b = ListingBuilder::default();
            for (i, p) in paths.iter().enumerate() {
                let (dir, name) = crate::source::split_parent(p);
                let d = b.dir("", dir);
                let facts = FileFacts { index: i as u32, container: HOST, ..FileFacts::default() };
                b.push(d, name, facts).unwrap();
            }
            let (listing, copies) = b.finish();
            let got: Vec<(String, u32)> =
                listing.files().iter().map(|f| (f.path(), f.location().1)).collect();
            let mut want: Vec<(String, u32)> = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                if !want.iter().any(|(q, _)| q == p) {
                    want.push((p.clone(), i as u32));
                }
            }
            want.sort();
            proptest::prop_assert_eq!(got, want, "the first copy of each path, in path order");
            proptest::prop_assert_eq!(copies.len(), paths.len() - listing.len());
        }
    }

    #[test]
    fn the_first_copy_of_a_path_is_kept_and_dropped_files_are_left_out() {
        let mut b = ListingBuilder::default();
        let facts = |index| FileFacts {
            size: index as u64,
            container: HOST,
            index,
            ..FileFacts::default()
        };
        let d = b.dir("", "a/b");
        let root = b.dir("", "");
        let nested = b.dir("x.zip!/", "");
        assert_eq!(b.dir("", "a/b"), d);
        b.push(d, "z", facts(0)).unwrap();
        b.push(root, "top", facts(1)).unwrap();
        let dropped = b.push(root, "x.zip", facts(2)).unwrap();
        b.push(nested, "in", facts(3)).unwrap();
        b.push(d, "z", facts(4)).unwrap();
        b.push(d, "y", facts(5)).unwrap();
        b.drop_file(dropped);
        let (listing, copies) = b.finish();
        let paths: Vec<(String, u64)> = listing
            .files()
            .iter()
            .map(|f| (f.path(), f.size()))
            .collect();
        assert_eq!(
            paths,
            [
                ("a/b/y".to_string(), 5),
                ("a/b/z".to_string(), 0),
                ("top".to_string(), 1),
                ("x.zip!/in".to_string(), 3),
            ]
        );
        assert_eq!(copies, ["a/b/z"]);
    }
}
