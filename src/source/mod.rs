//! Reading inputs: the one trait the host implements, and the artifact built on top of it.
//!
//! The host (the CLI, the browser worker, a test) hands over bytes through [`RandomAccess`]:
//! a file on disk read with `pread`, a browser `Blob` read with `Blob.slice` + `FileReaderSync`,
//! or a buffer in memory. The core never touches `std::fs` or `web-sys` itself (the CLI's
//! [`native`] module is the only exception, behind the `native` feature).
//!
//! An [`Artifact`] is the virtual file tree of everything the user gave: zips are opened by their
//! central directory (random access: only the entries the analysis asks for are ever read or
//! inflated), zips inside zips are opened in turn (a GitHub Actions artifact is a zip of the
//! uploaded zip), and folders are listed as given. Paths are `/`-separated and relative to the
//! input root; an entry inside a nested zip is `outer.zip!/inner/path`.

mod listing;
mod zip;

#[cfg(feature = "native")]
pub mod native;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::limits::Limits;

pub use self::listing::{FileEntry, Files, FilesIter, Listing};
pub use self::zip::NESTED_SEPARATOR;

use self::listing::{FileFacts, ListingBuilder, HOST, TREE};

/// Random access to the bytes of one object the host holds: a file on disk, a browser `Blob`,
/// a buffer in memory. This is the only way bytes enter the core.
pub trait RandomAccess {
    /// Total size in bytes.
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset..offset + buf.len()`; an error if they are not all
    /// there.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()>;
    /// A hint: these byte ranges (`(offset, len)`), in this order, are about to be read, each
    /// by one [`Self::read_exact_at`] of exactly that range. A source whose reads are slow round
    /// trips (a browser `Blob`) can start them now and let them arrive while the analysis works
    /// on something else; the hint does not change what a read returns. Ignored by default.
    fn will_read(&self, ranges: &[(u64, u64)]) {
        let _ = ranges;
    }
    /// Whether each read is a slow round trip (a browser `Blob`): the zip reader then reads the
    /// small entries of a directory together, ahead of their use, and announces those reads
    /// ([`Self::will_read`]). False by default: a file or a buffer is read one entry at a time,
    /// as it is asked for, and holds nothing read ahead (the CLI's helper threads, which decode
    /// manifests in another order than the zip holds them, held a wide table's whole
    /// `manifest/` read ahead: `BENCHMARKS.md`, "Flat manifest entries").
    fn batched_reads(&self) -> bool {
        false
    }
}

impl RandomAccess for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }
}

impl RandomAccess for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| short_read(offset, buf.len()))?;
        let end = start
            .checked_add(buf.len())
            .ok_or_else(|| short_read(offset, buf.len()))?;
        let src = self
            .get(start..end)
            .ok_or_else(|| short_read(offset, buf.len()))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// A window `offset..offset + len` of another [`RandomAccess`] (a stored zip inside a zip).
pub struct Slice {
    inner: Rc<dyn RandomAccess>,
    offset: u64,
    len: u64,
}

impl Slice {
    /// The window `offset..offset + len` of `inner`; an error if it does not fit.
    pub fn new(inner: Rc<dyn RandomAccess>, offset: u64, len: u64) -> Result<Self> {
        match offset.checked_add(len) {
            Some(end) if end <= inner.size() => Ok(Slice { inner, offset, len }),
            _ => Err(Error::format(format!(
                "window {offset}+{len} lies outside the {} bytes available",
                inner.size()
            ))),
        }
    }
}

impl RandomAccess for Slice {
    fn size(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let end = offset.checked_add(buf.len() as u64);
        match end {
            Some(end) if end <= self.len => self.inner.read_exact_at(self.offset + offset, buf),
            _ => Err(short_read(offset, buf.len())),
        }
    }

    fn batched_reads(&self) -> bool {
        self.inner.batched_reads()
    }

    fn will_read(&self, ranges: &[(u64, u64)]) {
        let inside: Vec<(u64, u64)> = ranges
            .iter()
            .filter(|&&(offset, len)| offset.checked_add(len).is_some_and(|end| end <= self.len))
            .map(|&(offset, len)| (self.offset + offset, len))
            .collect();
        self.inner.will_read(&inside);
    }
}

fn short_read(offset: u64, len: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("read of {len} bytes at offset {offset} goes past the end"),
    )
}

/// One file of a folder input.
pub struct HostFile {
    /// Path relative to the folder, `/`-separated.
    pub path: String,
    /// Modification time, epoch ms (UTC), if the host knows it.
    pub modified_millis: Option<i64>,
    /// The bytes.
    pub data: Rc<dyn RandomAccess>,
}

/// A folder the host walked ([`Input::Tree`]), whose files it opens by their path when they
/// are read: the artifact then keeps nothing per file but its place in the listing (an object
/// per file was a quarter of a wide table's memory on a folder: `BENCHMARKS.md`, "A folder
/// read by path").
pub trait HostTree {
    /// The file at `path` (relative to the folder, `/`-separated, as the host walked it),
    /// `size` bytes as the walk found it; opened when read.
    fn file(&self, path: &str, size: u64) -> Rc<dyn RandomAccess>;
}

/// The files of one directory of a walked folder ([`Input::Tree`]), their names one after the
/// other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeDir {
    /// Path relative to the folder, `/`-separated; empty for the folder itself.
    pub path: String,
    /// The files' names, one after the other.
    pub names: String,
    /// The files, in the order of `names`.
    pub files: Vec<TreeFile>,
}

/// One file of a [`TreeDir`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeFile {
    /// Where its name ends in [`TreeDir::names`] (it starts where the previous file's ends).
    pub name_end: usize,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, epoch ms (UTC), if the host knows it.
    pub modified_millis: Option<i64>,
}

impl TreeDir {
    /// The directory's files with their names, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &TreeFile)> {
        let mut start = 0;
        self.files.iter().map(move |f| {
            let name = self.names.get(start..f.name_end).unwrap_or("");
            start = f.name_end;
            (name, f)
        })
    }

    /// The path (relative to the folder) of the file `name` of this directory.
    pub fn file_path(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.path)
        }
    }

    /// Adds a file named `name`.
    pub fn push(&mut self, name: &str, size: u64, modified_millis: Option<i64>) {
        self.names.push_str(name);
        self.files.push(TreeFile {
            name_end: self.names.len(),
            size,
            modified_millis,
        });
    }
}

/// What the user gave.
pub enum Input {
    /// A zip file (nested zips inside it are opened too).
    Zip {
        /// The file name (no directories).
        name: String,
        /// The bytes.
        data: Rc<dyn RandomAccess>,
    },
    /// A folder, as a list of files.
    Folder {
        /// The folder name.
        name: String,
        /// Its files.
        files: Vec<HostFile>,
        /// Files of the folder its host left out of `files` (a view of a few files: see
        /// [`native::FolderWalk::keep`]); counted against the limits as if listed.
        skipped: u64,
    },
    /// A folder the host walked: its files by directory, each opened through `tree` by its
    /// path when read.
    Tree {
        /// The folder name.
        name: String,
        /// Opens its files.
        tree: Rc<dyn HostTree>,
        /// Its directories' files, in the order the host lists them.
        dirs: Vec<TreeDir>,
        /// Files the host left out of `dirs` (as [`Input::Folder`]'s).
        skipped: u64,
    },
}

impl Input {
    /// The name the user gave.
    pub fn name(&self) -> &str {
        match self {
            Input::Zip { name, .. } | Input::Folder { name, .. } | Input::Tree { name, .. } => name,
        }
    }
}

/// A modification time as the artifact records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileTime {
    /// A true UTC instant (folders, zip extended-timestamp fields), epoch ms.
    Utc(i64),
    /// A zip's MS-DOS date and time: local time of the machine that wrote the zip, 2-second
    /// precision, no zone. Given here as epoch ms as if it were UTC; the analysis estimates the
    /// zone offset from snapshot files (see `Clock::zip_time_offset_minutes`).
    ZipLocal(i64),
}

impl FileTime {
    /// Epoch ms, correcting zip local times by `zip_offset_minutes` (local − UTC).
    pub fn to_utc_millis(self, zip_offset_minutes: Option<i64>) -> i64 {
        match self {
            FileTime::Utc(ms) => ms,
            FileTime::ZipLocal(ms) => ms - zip_offset_minutes.unwrap_or(0) * 60_000,
        }
    }

    /// The time's precision in ms (zip DOS times have 2-second precision).
    pub fn precision_millis(self) -> i64 {
        match self {
            FileTime::Utc(_) => 1,
            FileTime::ZipLocal(_) => 2_000,
        }
    }
}

/// Ranks a zip directory (its raw name, without a trailing `/`) for an early announcement of
/// its reads: `None` for directories not to announce, else `(phase, order)`. Directories are
/// announced by phase, then by parent directory, then by order within the parent.
pub type DirRank = fn(&str) -> Option<(u32, u32)>;

#[cfg(test)]
impl Artifact {
    /// A folder input of empty files at `paths`, for the unit tests of what reads a listing.
    pub(crate) fn of_paths(paths: &[&str]) -> Artifact {
        let files = paths
            .iter()
            .map(|p| HostFile {
                path: (*p).to_string(),
                modified_millis: None,
                data: Rc::new(Vec::<u8>::new()),
            })
            .collect();
        let input = Input::Folder {
            name: "x".into(),
            files,
            skipped: 0,
        };
        Artifact::open(vec![input], &Limits::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }
}

/// `i` as a zip entry's or host file's index; `u32::MAX` (which no listing reaches: it is read
/// as an unknown file) past it.
fn location_index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Counters of what was read, for reports and for the tests that prove data files are never
/// inflated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// Files listed.
    pub files_listed: u64,
    /// Files whose content was read.
    pub files_read: u64,
    /// Bytes delivered by reads (inflated bytes for zip entries).
    pub bytes_inflated: u64,
}

/// A walked folder of the artifact ([`Input::Tree`]): its files' paths in the artifact begin
/// with `prefix_len` bytes of the input's name.
struct Tree {
    tree: Rc<dyn HostTree>,
    prefix_len: usize,
}

/// The virtual file tree of an input.
pub struct Artifact {
    name: String,
    size: u64,
    /// Sorted by path, each path once: looked up by binary search (a map of cloned paths was
    /// ~170 bytes a file, `BENCHMARKS.md`, "Wide tables"). Shared with what indexes it
    /// ([`Artifact::listing`]).
    listing: std::sync::Arc<Listing>,
    zips: Vec<RefCell<zip::ZipContainer>>,
    host_files: Vec<Rc<dyn RandomAccess>>,
    trees: Vec<Tree>,
    problems: Vec<Error>,
    salvaged: Vec<Salvaged>,
    limits: Limits,
    stats: Cell<SourceStats>,
    /// Rows the row evidence has kept so far this run (`max-rows-kept`).
    rows_kept: Cell<u64>,
    /// Bytes the row evidence has read so far this run (`max-evidence-bytes`).
    evidence_bytes: Cell<u64>,
}

impl Artifact {
    /// Opens the inputs. Several inputs are placed side by side under their names; a single
    /// input is the root itself.
    ///
    /// Errors only when nothing at all can be read (the only input is not a zip, or a limit on
    /// the artifact as a whole is exceeded); damage to parts (a broken nested zip, a hostile
    /// name) is recorded in [`Artifact::problems`] and the rest is kept.
    pub fn open(inputs: Vec<Input>, limits: &Limits) -> Result<Artifact> {
        Self::open_announcing(inputs, limits, |_| None)
    }

    /// [`Artifact::open`], announcing reads as early as possible: as soon as a zip's central
    /// directory is read, the read-ahead ranges of its directories for which `rank` gives a
    /// rank (by their raw name in the zip) are announced to the source
    /// ([`RandomAccess::will_read`]) in the order of [`DirRank`], so that a slow source (the page's
    /// `Blob`) reads them while the rest of the artifact is opened and indexed. Only a hint:
    /// what is read and found is the same as with [`Artifact::open`].
    pub fn open_announcing(inputs: Vec<Input>, limits: &Limits, rank: DirRank) -> Result<Artifact> {
        Self::open_with(inputs, limits, rank, |_| true)
    }

    /// [`Artifact::open`], keeping only the files whose path `keep` accepts (nested zips are
    /// opened and filtered alike): a view for a reader that needs a few of the files, such as
    /// the CLI's prefetch helpers (`manifest/` files only). Limits and problems are met as with
    /// [`Artifact::open`]; on a wide table the files left out are most of the memory the
    /// listing takes (`BENCHMARKS.md`, "Wide tables").
    pub fn open_only(
        inputs: Vec<Input>,
        limits: &Limits,
        keep: fn(&str) -> bool,
    ) -> Result<Artifact> {
        Self::open_with(inputs, limits, |_| None, keep)
    }

    fn open_with(
        inputs: Vec<Input>,
        limits: &Limits,
        rank: DirRank,
        keep: fn(&str) -> bool,
    ) -> Result<Artifact> {
        let prefix_with_name = inputs.len() > 1;
        let name = inputs
            .iter()
            .map(Input::name)
            .collect::<Vec<_>>()
            .join(" + ");
        let mut builder = Builder {
            rank,
            keep,
            limits: limits.clone(),
            listing: ListingBuilder::default(),
            zips: Vec::new(),
            host_files: Vec::new(),
            trees: Vec::new(),
            problems: Vec::new(),
            salvaged: Vec::new(),
            size: 0,
            total_entries: 0,
            nested_bytes: 0,
            unlisted_problems: 0,
        };
        for input in inputs {
            let prefix = if prefix_with_name {
                format!("{}/", input.name())
            } else {
                String::new()
            };
            match input {
                Input::Zip { name, data } => {
                    builder.size += data.size();
                    if let Err(e) = builder.add_zip(data, &prefix, 0) {
                        let e = e.in_file(name);
                        if !prefix_with_name || e.kind() == crate::error::ErrorKind::Limit {
                            return Err(e);
                        }
                        builder.problem(e);
                    }
                }
                Input::Folder { files, skipped, .. } => {
                    builder.add_folder(files, skipped, &prefix)?
                }
                Input::Tree {
                    tree,
                    dirs,
                    skipped,
                    ..
                } => builder.add_tree(tree, dirs, skipped, &prefix)?,
            }
        }
        Ok(builder.finish(name))
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Total bytes the host handed over.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Every file, sorted by path.
    pub fn files(&self) -> Files<'_> {
        self.listing.files()
    }

    /// The file at `path`, if any.
    pub fn get(&self, path: &str) -> Option<FileEntry<'_>> {
        let files = self.files();
        let i = files.partition_point(|e| e.cmp_path(path).is_lt());
        files.get(i).filter(|e| e.cmp_path(path).is_eq())
    }

    /// Every file, sorted by path, shared: for an index of the listing that outlives the
    /// borrow of the artifact (a table's files by name) without copying a path.
    pub fn listing(&self) -> std::sync::Arc<Listing> {
        std::sync::Arc::clone(&self.listing)
    }

    /// The files directly or indirectly below the directory `dir` (no trailing `/`), in path
    /// order. `dir` empty means every file.
    pub fn files_under(&self, dir: &str) -> Files<'_> {
        self.files().slice(self.range_under(dir))
    }

    /// Where [`Artifact::files_under`]'s files are in [`Artifact::files`].
    pub fn range_under(&self, dir: &str) -> std::ops::Range<usize> {
        let files = self.files();
        if dir.is_empty() {
            return 0..files.len();
        }
        let lo = format!("{dir}/");
        // '0' is the character after '/', so this is the first path past the directory.
        let hi = format!("{dir}0");
        let start = files.partition_point(|e| e.cmp_path(&lo).is_lt());
        let end = files.partition_point(|e| e.cmp_path(&hi).is_lt());
        start..end.max(start)
    }

    /// Problems met while opening (broken nested zips, hostile or duplicate names).
    pub fn problems(&self) -> &[Error] {
        &self.problems
    }

    /// The zips whose central directory was damaged or missing and whose entries were
    /// recovered from their local headers ([`Salvaged`]); where some were not
    /// ([`Salvaged::whole`] false), a file's absence under it proves nothing.
    pub fn salvaged(&self) -> &[Salvaged] {
        &self.salvaged
    }

    /// What has been read so far.
    pub fn stats(&self) -> SourceStats {
        self.stats.get()
    }

    /// Rows the row evidence has kept so far this run (see [`Limits::max_rows_kept`]).
    pub fn rows_kept(&self) -> u64 {
        self.rows_kept.get()
    }

    /// Counts `n` rows kept by the row evidence (`max-rows-kept`, over the run).
    pub fn count_rows_kept(&self, n: u64) {
        self.rows_kept.set(self.rows_kept.get().saturating_add(n));
    }

    /// Bytes the row evidence has read so far this run (see [`Limits::max_evidence_bytes`]).
    pub fn evidence_bytes(&self) -> u64 {
        self.evidence_bytes.get()
    }

    /// Charges `n` bytes to the row evidence's whole-run budget (`max-evidence-bytes`), or
    /// refuses them, naming the limit, when they would pass it (nothing is charged then).
    pub fn charge_evidence_bytes(&self, n: u64) -> Result<()> {
        let spent = self.evidence_bytes.get();
        let max = self.limits.max_evidence_bytes;
        if spent.saturating_add(n) > max {
            return Err(Error::limit(
                "max-evidence-bytes",
                format!(
                    "{n} more bytes would pass the {max} bytes the row evidence may read over the whole run ({spent} read so far)"
                ),
            ));
        }
        self.evidence_bytes.set(spent.saturating_add(n));
        Ok(())
    }

    /// The limits this artifact was opened with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Reads the whole content of `path`, refusing more than `max` bytes (and the limits the
    /// artifact was opened with). Errors name the file.
    pub fn read(&self, path: &str, max: u64) -> Result<Vec<u8>> {
        let entry = self
            .get(path)
            .ok_or_else(|| Error::missing("no such file in the artifact").in_file(path))?;
        self.read_entry(entry, max)
    }

    /// Reads the whole content of `entry`, refusing more than `max` bytes.
    pub fn read_entry(&self, entry: FileEntry<'_>, max: u64) -> Result<Vec<u8>> {
        // The limit a refusal names: `max-json-bytes` when the caller passed it (JSON readers
        // do) and it is the tighter one, else `max-entry-bytes` (or `max-total-bytes` below).
        let caller_limit = if max == self.limits.max_json_bytes && max < self.limits.max_entry_bytes
        {
            "max-json-bytes"
        } else {
            "max-entry-bytes"
        };
        let mut stats = self.stats.get();
        let (max, remaining_total) = self.read_allowance(max);
        if remaining_total == 0 {
            return Err(Error::limit(
                "max-total-bytes",
                format!(
                    "{} bytes have already been read in this run",
                    stats.bytes_inflated
                ),
            )
            .in_file(entry.path()));
        }
        if entry.size() > max {
            return Err(Error::limit(
                if max == remaining_total {
                    "max-total-bytes"
                } else {
                    caller_limit
                },
                format!(
                    "the file is {} bytes, more than {max} allowed",
                    entry.size()
                ),
            )
            .in_file(entry.path()));
        }
        let bytes = match entry.location() {
            (HOST | TREE, _) => {
                let data = self.host_data(entry)?;
                read_all(data.as_ref(), max).map_err(|e| e.in_file(entry.path()))?
            }
            (container, index) => {
                let zip = self.zips.get(container as usize).ok_or_else(|| {
                    Error::io("internal: unknown zip container").in_file(entry.path())
                })?;
                zip.borrow_mut()
                    .read(index as usize, declared(entry), max, &self.limits)
                    .map_err(|e| e.in_file(entry.path()))?
            }
        };
        stats.files_read += 1;
        stats.bytes_inflated += bytes.len() as u64;
        self.stats.set(stats);
        Ok(bytes)
    }

    /// The bytes of a file the host handed over ([`HOST`]) or of a walked folder's ([`TREE`]).
    fn host_data(&self, entry: FileEntry<'_>) -> Result<Rc<dyn RandomAccess>> {
        let unknown = || Error::io("internal: unknown host file").in_file(entry.path());
        match entry.location() {
            (HOST, index) => self
                .host_files
                .get(index as usize)
                .cloned()
                .ok_or_else(unknown),
            (TREE, index) => {
                let tree = self.trees.get(index as usize).ok_or_else(unknown)?;
                let path = entry.path();
                let relative = path.get(tree.prefix_len..).ok_or_else(unknown)?;
                Ok(tree.tree.file(relative, entry.size()))
            }
            _ => Err(unknown()),
        }
    }

    /// The most a whole-content read asking for at most `max` bytes may deliver now (`max`
    /// within `max-entry-bytes` and what the run's `max-total-bytes` leaves), and what
    /// `max-total-bytes` leaves.
    fn read_allowance(&self, max: u64) -> (u64, u64) {
        let remaining_total = self
            .limits
            .max_total_bytes
            .saturating_sub(self.stats.get().bytes_inflated);
        (
            max.min(self.limits.max_entry_bytes).min(remaining_total),
            remaining_total,
        )
    }

    /// Counts a whole-content read of `entry` that delivered `len` bytes elsewhere (another
    /// thread's view of the same input, see [`crate::timeline::prefetch`]) as if
    /// [`Artifact::read_entry`] with `max` had delivered them here, provided it would have: the
    /// same limits and the run's `max-total-bytes` so far allow the entry's declared size and
    /// `len`. Returns false and counts nothing otherwise; the caller then reads the entry itself
    /// and meets exactly the refusal a plain read meets. A copy of the entry read ahead here
    /// with its directory is dropped.
    pub fn count_read_elsewhere(&self, entry: FileEntry<'_>, max: u64, len: u64) -> bool {
        let mut stats = self.stats.get();
        let (max, remaining_total) = self.read_allowance(max);
        if remaining_total == 0 || entry.size() > max || len > max {
            return false;
        }
        stats.files_read += 1;
        stats.bytes_inflated += len;
        self.stats.set(stats);
        let (container, index) = entry.location();
        if let Some(zip) = self.zips.get(container as usize) {
            zip.borrow_mut().discard_read_ahead(index as usize);
        }
        true
    }

    /// Reads `len` bytes at `offset` of a file's content without reading the rest into memory
    /// (a Parquet footer, one column chunk). For a deflated zip entry the bytes before `offset`
    /// are inflated and dropped as they stream by.
    pub fn read_range(&self, entry: FileEntry<'_>, offset: u64, len: u64) -> Result<Vec<u8>> {
        if len > self.limits.max_entry_bytes {
            return Err(Error::limit(
                "max-entry-bytes",
                format!(
                    "a read of {len} bytes, more than {}",
                    self.limits.max_entry_bytes
                ),
            )
            .in_file(entry.path()));
        }
        let mut stats = self.stats.get();
        let remaining_total = self
            .limits
            .max_total_bytes
            .saturating_sub(stats.bytes_inflated);
        let (bytes, work) = match entry.location() {
            (container, index) if container != HOST && container != TREE => {
                let zip = self.zips.get(container as usize).ok_or_else(|| {
                    Error::io("internal: unknown zip container").in_file(entry.path())
                })?;
                if offset.saturating_add(len) > remaining_total {
                    return Err(Error::limit(
                        "max-total-bytes",
                        format!(
                            "{} bytes have already been read in this run",
                            stats.bytes_inflated
                        ),
                    )
                    .in_file(entry.path()));
                }
                let max = self.limits.max_entry_bytes.min(remaining_total);
                zip.borrow_mut()
                    .read_range(
                        index as usize,
                        declared(entry),
                        (offset, len),
                        max,
                        &self.limits,
                    )
                    .map_err(|e| e.in_file(entry.path()))?
            }
            _ => {
                let data = self.host_data(entry)?;
                let end = offset.checked_add(len).filter(|&e| e <= data.size());
                if end.is_none() {
                    return Err(Error::format(format!(
                        "bytes {offset}..{} lie outside the file's {} bytes",
                        offset.saturating_add(len),
                        data.size()
                    ))
                    .in_file(entry.path()));
                }
                let n = usize::try_from(len)
                    .map_err(|_| Error::io("read too large").in_file(entry.path()))?;
                let mut buf = vec![0u8; n];
                data.read_exact_at(offset, &mut buf)
                    .map_err(|e| Error::io(format!("read failed: {e}")).in_file(entry.path()))?;
                (buf, len)
            }
        };
        stats.files_read += 1;
        stats.bytes_inflated += work;
        self.stats.set(stats);
        Ok(bytes)
    }

    /// Reads `path` as UTF-8 text, refusing more than `max` bytes.
    pub fn read_text(&self, path: &str, max: u64) -> Result<String> {
        let bytes = self.read(path, max)?;
        String::from_utf8(bytes)
            .map_err(|e| Error::format(format!("not UTF-8 text: {e}")).in_file(path))
    }
}

/// What the zip declares of `entry`'s content (the listing holds it).
fn declared(entry: FileEntry<'_>) -> zip::Declared {
    zip::Declared {
        size: entry.size(),
        crc32: entry.crc32().unwrap_or(0),
    }
}

/// Reads all of `data`, at most `max` bytes.
fn read_all(data: &dyn RandomAccess, max: u64) -> Result<Vec<u8>> {
    let size = data.size();
    if size > max {
        return Err(Error::limit(
            "max-entry-bytes",
            format!("the file is {size} bytes, more than {max} allowed"),
        ));
    }
    let len = usize::try_from(size).map_err(|_| Error::io("file too large for this platform"))?;
    let mut buf = vec![0u8; len];
    data.read_exact_at(0, &mut buf)
        .map_err(|e| Error::io(format!("read failed: {e}")))?;
    Ok(buf)
}

/// Problems met while opening that are listed one by one; past this many they are only counted
/// (a crafted zip of a million hostile names must not become a million findings).
/// The least heap [`reserve_heap`] reserves in one step.
pub const RESERVE_MIN: u64 = 64 << 20;
/// The most heap [`reserve_heap`] reserves in one step.
pub const RESERVE_MAX: u64 = 256 << 20;

/// Grows the heap in one step ahead of an analysis of an input of `input_bytes`: four times its
/// size (within [`RESERVE_MIN`]..=[`RESERVE_MAX`]; an analysis needs about that much), allocated
/// and freed at once so that the allocator carves the analysis's allocations from one free
/// chunk. Returns the bytes reserved: if the allocation fails, smaller steps are tried, down to
/// 16 MiB, then none (0).
///
/// For allocators that grow the heap in small steps: Rust's wasm allocator asks for 64 KiB at a
/// time, and in V8 each `memory.grow` costs a new `ArrayBuffer` and garbage-collection
/// accounting (an analysis of a 3,000-commit table took twice the CPU time without it;
/// BENCHMARKS.md). Pages nobody writes to are not resident, so it costs address space, not RAM.
/// The page's worker calls it when it opens the user's file (`web/src/blob.rs`), and the
/// benchmark's wasm build of the core the same way (`bench/core-wasm`).
pub fn reserve_heap(input_bytes: u64) -> u64 {
    let mut bytes = input_bytes
        .saturating_mul(4)
        .clamp(RESERVE_MIN, RESERVE_MAX);
    while bytes >= 16 << 20 {
        let mut reserve: Vec<u8> = Vec::new();
        if reserve.try_reserve_exact(bytes as usize).is_ok() {
            // Keep the allocation from being optimized away; it is freed right after.
            drop(std::hint::black_box(reserve));
            return bytes;
        }
        bytes /= 2;
    }
    0
}

pub const MAX_LISTED_PROBLEMS: usize = 1_000;

/// A zip whose central directory was damaged or missing, its entries recovered from their
/// local headers (see [`Artifact::salvaged`]).
#[derive(Debug, Clone)]
pub struct Salvaged {
    /// Where its files are in the artifact: the path prefix of its entries (`outer.zip!/` for a
    /// nested zip, `name/` for one of several inputs, empty for the only input).
    pub under: String,
    /// What was wrong and what was recovered, with the zip's name as its file (none for the
    /// only input: the artifact itself).
    pub why: Error,
    /// Whether every entry was recovered: the local headers ran without a gap to the central
    /// directory. When not, the listing lacks entries the zip held (a truncated download).
    pub whole: bool,
}

impl Salvaged {
    /// Whether the artifact path `path` lies in this zip.
    pub fn covers(&self, path: &str) -> bool {
        path.starts_with(&self.under)
    }
}

/// Collects entries while inputs are opened.
struct Builder {
    /// Which directories to announce when a zip is opened (see [`Artifact::open_announcing`]).
    rank: DirRank,
    /// Which files to list (see [`Artifact::open_only`]).
    keep: fn(&str) -> bool,
    limits: Limits,
    listing: ListingBuilder,
    zips: Vec<RefCell<zip::ZipContainer>>,
    host_files: Vec<Rc<dyn RandomAccess>>,
    trees: Vec<Tree>,
    problems: Vec<Error>,
    salvaged: Vec<Salvaged>,
    size: u64,
    total_entries: u64,
    /// Bytes taken so far by compressed nested zips inflated into memory (`max-nested-zip-bytes`
    /// bounds the sum: overlapping entries can make one small deflate stream many nested zips).
    nested_bytes: u64,
    /// Problems past [`MAX_LISTED_PROBLEMS`], counted only.
    unlisted_problems: u64,
}

impl Builder {
    /// Records a problem (the first [`MAX_LISTED_PROBLEMS`] one by one, then only a count).
    fn problem(&mut self, e: Error) {
        if self.problems.len() < MAX_LISTED_PROBLEMS {
            self.problems.push(e);
        } else {
            self.unlisted_problems += 1;
        }
    }

    fn count_entry(&mut self) -> Result<()> {
        self.count_entries(1)
    }

    /// Counts `n` files against `max-total-entries`: the files a view's host or zip left out
    /// are counted as the ones listed are, so a view meets the limit exactly where the whole
    /// artifact does.
    fn count_entries(&mut self, n: u64) -> Result<()> {
        self.total_entries = self.total_entries.saturating_add(n);
        if self.total_entries > self.limits.max_total_entries {
            return Err(Error::limit(
                "max-total-entries",
                format!(
                    "the artifact has more than {} files",
                    self.limits.max_total_entries
                ),
            ));
        }
        Ok(())
    }

    /// Counts a folder's `files` and the `skipped` ones its host left out against
    /// `max-entries`, and the skipped ones against `max-total-entries` (the listed ones are
    /// counted as they are added).
    fn count_folder(&mut self, files: u64, skipped: u64) -> Result<()> {
        let count = files.saturating_add(skipped);
        if count > self.limits.max_entries {
            return Err(Error::limit(
                "max-entries",
                format!(
                    "the folder has {count} files, more than {}",
                    self.limits.max_entries
                ),
            ));
        }
        self.count_entries(skipped)
    }

    fn add_folder(&mut self, files: Vec<HostFile>, skipped: u64, prefix: &str) -> Result<()> {
        self.count_folder(files.len() as u64, skipped)?;
        for file in files {
            self.count_entry()?;
            self.add_host_file(file.path, file.modified_millis, file.data, prefix)?;
        }
        Ok(())
    }

    /// Adds the host's file at `raw` (relative to its folder, whose files get `prefix`), its
    /// bytes `data`: a zip is opened as a nested archive, a path made normal first.
    fn add_host_file(
        &mut self,
        mut raw: String,
        modified_millis: Option<i64>,
        data: Rc<dyn RandomAccess>,
        prefix: &str,
    ) -> Result<()> {
        // A path that is already normal is used as it is (a wide table's folder lists half a
        // million).
        let normal = if zip::already_normal(&raw, &self.limits) {
            Ok(std::mem::take(&mut raw))
        } else {
            normalize_path(&raw, &self.limits)
        };
        let path = match normal {
            Ok(p) if prefix.is_empty() => p,
            Ok(p) => format!("{prefix}{p}"),
            Err(e) => {
                self.problem(e.in_file(raw));
                return Ok(());
            }
        };
        let size = data.size();
        self.size += size;
        if !zip::looks_like_zip_name(&path) && !(self.keep)(&path) {
            return Ok(());
        }
        let index = self.host_files.len();
        self.host_files.push(Rc::clone(&data));
        if zip::looks_like_zip_name(&path) {
            match self.add_zip(data, &format!("{path}{NESTED_SEPARATOR}"), 1) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == crate::error::ErrorKind::Limit => return Err(e.in_file(path)),
                Err(e) => self.problem(e.in_file(path.clone())),
            }
        }
        self.list_host_file(&path, size, modified_millis, (HOST, location_index(index)));
        Ok(())
    }

    /// Lists a file the host handed over or walked at `path` (with its input's prefix), its
    /// bytes at `(container, index)` ([`HOST`] or [`TREE`]).
    fn list_host_file(
        &mut self,
        path: &str,
        size: u64,
        modified_millis: Option<i64>,
        (container, index): (u32, u32),
    ) {
        let facts = FileFacts {
            size,
            stored_size: size,
            crc32: None,
            modified: modified_millis.map(FileTime::Utc),
            container,
            index,
        };
        let (dir, name) = split_parent(path);
        let dir = self.listing.dir("", dir);
        if let Err(e) = self.listing.push(dir, name, facts) {
            self.problem(e.in_file(path));
        }
    }

    /// Adds a walked folder's files: each is listed with the tree's index and opened by its
    /// path when read, with no object of its own. A zip, or a path that is not already normal,
    /// is added as a handed-over file ([`Builder::add_host_file`]): what is listed and found
    /// is the same as for the [`Input::Folder`] of the same files.
    fn add_tree(
        &mut self,
        tree: Rc<dyn HostTree>,
        dirs: Vec<TreeDir>,
        skipped: u64,
        prefix: &str,
    ) -> Result<()> {
        let files = dirs.iter().map(|d| d.files.len() as u64).sum();
        self.count_folder(files, skipped)?;
        let index = location_index(self.trees.len());
        self.trees.push(Tree {
            tree: Rc::clone(&tree),
            prefix_len: prefix.len(),
        });
        let mut path = String::from(prefix);
        for dir in &dirs {
            for (name, file) in dir.iter() {
                self.count_entry()?;
                path.truncate(prefix.len());
                if !dir.path.is_empty() {
                    path.push_str(&dir.path);
                    path.push('/');
                }
                path.push_str(name);
                let relative = path.get(prefix.len()..).unwrap_or("");
                if !zip::already_normal(relative, &self.limits) || zip::looks_like_zip_name(&path) {
                    let data = tree.file(relative, file.size);
                    self.add_host_file(relative.to_string(), file.modified_millis, data, prefix)?;
                    continue;
                }
                self.size += file.size;
                if !(self.keep)(&path) {
                    continue;
                }
                self.list_host_file(&path, file.size, file.modified_millis, (TREE, index));
            }
        }
        Ok(())
    }

    /// Opens the zip in `data`, whose entries get `prefix`, at nesting `depth`; its entries
    /// that are zips themselves are opened in turn (and listed as files only when that fails).
    fn add_zip(&mut self, data: Rc<dyn RandomAccess>, prefix: &str, depth: u32) -> Result<()> {
        if depth > self.limits.max_nesting {
            return Err(Error::limit(
                "max-nesting",
                format!("zips nested more than {} deep", self.limits.max_nesting),
            ));
        }
        let container_index = self.zips.len();
        let before = self.listing.len();
        let (mut container, listed) = zip::ZipContainer::open(
            data,
            &self.limits,
            self.keep,
            prefix,
            location_index(container_index),
            &mut self.listing,
        )?;
        container.announce_dirs(self.rank);
        self.count_entries(container.skipped())?;
        self.zips.push(RefCell::new(container));
        // Named by the nested zip it is in (the outer input has no prefix: its problems are
        // about the artifact itself).
        let zip_name = prefix.strip_suffix(NESTED_SEPARATOR).unwrap_or(prefix);
        let zip_name = zip_name.trim_end_matches('/');
        let named = |e: Error| {
            if zip_name.is_empty() {
                e
            } else {
                e.in_file(zip_name)
            }
        };
        for e in listed.problems {
            self.problem(named(e));
        }
        if let Some((why, whole)) = listed.salvaged {
            self.salvaged.push(Salvaged {
                under: prefix.to_string(),
                why: named(why),
                whole,
            });
        }
        self.count_entries((self.listing.len() - before) as u64)?;
        for at in listed.zips {
            let Some(entry) = self.listing.file(at) else {
                continue;
            };
            let (path, index) = (entry.path(), entry.location().1);
            let size = (entry.size(), entry.crc32().unwrap_or(0));
            match self.open_nested(container_index, index, size) {
                Ok(inner) => {
                    match self.add_zip(inner, &format!("{path}{NESTED_SEPARATOR}"), depth + 1) {
                        Ok(()) => {
                            self.listing.drop_file(at);
                            continue;
                        }
                        Err(e) if e.kind() == crate::error::ErrorKind::Limit => {
                            return Err(e.in_file(path))
                        }
                        Err(e) => self.problem(e.in_file(path.clone())),
                    }
                }
                Err(e) => self.problem(e.in_file(path.clone())),
            }
            if !(self.keep)(&path) {
                self.listing.drop_file(at);
            }
        }
        Ok(())
    }

    /// The bytes of a nested zip entry: a window of the outer bytes when stored, else inflated
    /// into memory (all such nested zips together bounded by `max-nested-zip-bytes`; an entry is
    /// charged its declared size before it is inflated, so failed attempts count too).
    fn open_nested(
        &mut self,
        container: usize,
        index: u32,
        (size, crc32): (u64, u32),
    ) -> Result<Rc<dyn RandomAccess>> {
        let zip = self
            .zips
            .get(container)
            .ok_or_else(|| Error::io("internal: unknown zip container"))?;
        let mut zip = zip.borrow_mut();
        let index = index as usize;
        if let Some(window) = zip.stored_window(index)? {
            return Ok(Rc::new(window));
        }
        let max = self
            .limits
            .max_nested_zip_bytes
            .saturating_sub(self.nested_bytes);
        if size > max {
            return Err(Error::limit(
                "max-nested-zip-bytes",
                format!(
                    "the nested zip inflates to {} bytes; compressed nested zips may take {} bytes in all and {} are taken",
                    size, self.limits.max_nested_zip_bytes, self.nested_bytes
                ),
            ));
        }
        self.nested_bytes = self.nested_bytes.saturating_add(size);
        let bytes = zip.read(index, zip::Declared { size, crc32 }, max, &self.limits)?;
        Ok(Rc::new(bytes))
    }

    fn finish(mut self, name: String) -> Artifact {
        let (listing, copies) = std::mem::take(&mut self.listing).finish();
        for path in copies {
            self.problem(
                Error::format("the name appears more than once; the first copy is used")
                    .in_file(path),
            );
        }
        if self.unlisted_problems > 0 {
            self.problems.push(Error::format(format!(
                "{} more entries had problems like the {MAX_LISTED_PROBLEMS} above (hostile or duplicate names, damaged records); they are counted, not listed",
                self.unlisted_problems
            )));
        }
        let stats = SourceStats {
            files_listed: listing.len() as u64,
            ..SourceStats::default()
        };
        Artifact {
            name,
            size: self.size,
            listing: std::sync::Arc::new(listing),
            zips: self.zips,
            host_files: self.host_files,
            trees: self.trees,
            problems: self.problems,
            salvaged: self.salvaged,
            limits: self.limits,
            stats: Cell::new(stats),
            rows_kept: Cell::new(0),
            evidence_bytes: Cell::new(0),
        }
    }
}

/// Splits `a/b/c` into (`a/b`, `c`); a path without `/` has parent `""`.
pub fn split_parent(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (path.get(..i).unwrap_or(""), path.get(i + 1..).unwrap_or("")),
        None => ("", path),
    }
}

/// Turns a name from a zip or folder into an artifact path: `/`-separated, no leading `/` or
/// `./`, no empty, `.` or `..` components, no control characters, within `max-name-bytes`.
/// Names that cannot be made safe are refused with a message saying why.
pub fn normalize_path(raw: &str, limits: &Limits) -> Result<String> {
    if raw.len() as u64 > limits.max_name_bytes {
        return Err(Error::limit(
            "max-name-bytes",
            format!("a name of {} bytes", raw.len()),
        ));
    }
    if raw.chars().any(char::is_control) {
        return Err(Error::format(
            "the name contains control characters; the entry is skipped",
        ));
    }
    let unified = raw.replace('\\', "/");
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(Error::format(
                    "the name climbs out of the archive with '..'; the entry is skipped",
                ))
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(Error::format("the name is empty"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The artifact of a folder input named `w` holding `files`.
    fn folder(files: Vec<HostFile>) -> Artifact {
        let input = Input::Folder {
            name: "w".into(),
            files,
            skipped: 0,
        };
        Artifact::open(vec![input], &Limits::default()).unwrap()
    }

    #[test]
    fn the_heap_reservation_is_four_times_the_input_within_bounds() {
        assert_eq!(reserve_heap(0), RESERVE_MIN);
        assert_eq!(reserve_heap(1 << 20), RESERVE_MIN);
        assert_eq!(reserve_heap(30 << 20), 120 << 20);
        assert_eq!(reserve_heap(2 << 30), RESERVE_MAX);
        assert_eq!(reserve_heap(u64::MAX), RESERVE_MAX);
    }

    #[test]
    fn slices_read_inside_their_window_only() {
        let data: Rc<dyn RandomAccess> = Rc::new((0u8..100).collect::<Vec<u8>>());
        let s = Slice::new(data.clone(), 10, 20).unwrap();
        let mut buf = [0u8; 5];
        s.read_exact_at(15, &mut buf).unwrap();
        assert_eq!(buf, [25, 26, 27, 28, 29]);
        assert!(s.read_exact_at(16, &mut buf).is_err());
        assert!(Slice::new(data, 90, 20).is_err());
    }

    #[test]
    fn names_are_normalized_or_refused() {
        let l = Limits::default();
        assert_eq!(normalize_path("./a//b/c", &l).unwrap(), "a/b/c");
        assert_eq!(normalize_path("/abs/x", &l).unwrap(), "abs/x");
        assert_eq!(normalize_path("win\\path\\f", &l).unwrap(), "win/path/f");
        assert!(normalize_path("a/../../etc/passwd", &l).is_err());
        assert!(normalize_path("bad\u{7}name", &l).is_err());
        assert!(normalize_path("", &l).is_err());
        let long = "x".repeat(5000);
        assert!(normalize_path(&long, &l).is_err());
    }

    #[test]
    fn folder_inputs_list_and_read() {
        let files = vec![
            HostFile {
                path: "w/db.db/t/snapshot/LATEST".into(),
                modified_millis: Some(1000),
                data: Rc::new(b"3".to_vec()),
            },
            HostFile {
                path: "w/db.db/t/schema/schema-0".into(),
                modified_millis: None,
                data: Rc::new(b"{}".to_vec()),
            },
        ];
        let a = folder(files);
        assert_eq!(a.files().len(), 2);
        assert_eq!(a.files_under("w/db.db/t/snapshot").len(), 1);
        assert_eq!(a.read_text("w/db.db/t/snapshot/LATEST", 10).unwrap(), "3");
        assert_eq!(a.stats().bytes_inflated, 1);
        assert!(a.read("w/db.db/t/snapshot/LATEST", 0).is_err());
        assert!(a.read("nope", 10).is_err());
    }

    /// Paths of a few directories whose names sort around `/` (`-` and `0` on either side),
    /// some at the root, some repeated.
    fn tricky_path() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::string::string_regex("([ab0-]{1,3}/){0,3}[ab0-]{1,3}").expect("a valid regex")
    }

    proptest::proptest! {
        /// A file's path split into its shared directory and its name orders as the whole path
        /// does: listing order, lookups and `files_under` rest on it.
        #[test]
        fn split_paths_order_as_whole_paths(
            a in tricky_path(),
            b in tricky_path(),
            q in "[ab0/-]{0,8}",
        ) {
            let artifact = Artifact::of_paths(&[&a, &b]);
            let ea = artifact.get(&a).expect("listed");
            proptest::prop_assert_eq!(ea.path(), a.clone());
            // The listing's order is the paths' order.
            let listed: Vec<String> = artifact.files().iter().map(|f| f.path()).collect();
            let mut want = vec![a.clone(), b.clone()];
            want.sort();
            want.dedup();
            proptest::prop_assert_eq!(listed, want);
            proptest::prop_assert_eq!(ea.cmp_path(&q), a.as_str().cmp(q.as_str()));
            proptest::prop_assert_eq!(ea.cmp_path(&b).is_eq(), a == b);
            let joined: Vec<u8> = ea.path_bytes().concat();
            proptest::prop_assert_eq!(joined, a.clone().into_bytes());
        }
    }

    #[test]
    fn a_folder_listing_shares_directories_and_finds_every_path() {
        let paths = [
            "w/a-b/x", "w/a/b", "w/a/b/c", "w/a0", "w/a/z", "top", "w/a-b/y",
        ];
        let a = Artifact::of_paths(&paths);
        let listed: Vec<String> = a.files().iter().map(|f| f.path()).collect();
        let mut sorted: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        sorted.sort();
        assert_eq!(listed, sorted);
        for p in paths {
            assert_eq!(a.get(p).map(|f| f.path()).as_deref(), Some(p));
        }
        let under: Vec<String> = a.files_under("w/a").iter().map(|f| f.path()).collect();
        assert_eq!(under, ["w/a/b", "w/a/b/c", "w/a/z"]);
        let (x, y) = (a.get("w/a-b/x").unwrap(), a.get("w/a-b/y").unwrap());
        assert!(std::ptr::eq(x.dir(), y.dir()), "one copy of a directory");
    }
}
