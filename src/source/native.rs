//! Native inputs for the CLI: files read with positioned reads, folders walked on disk.
//!
//! This is the only module of the core that touches `std::fs` (feature `native`).

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::{HostTree, Input, RandomAccess, TreeDir, TreeFile};

/// A file on disk, read with positioned reads (`pread`); it is never read whole.
pub struct NativeFile {
    file: File,
    size: u64,
}

impl NativeFile {
    /// Opens `path` for reading.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        Ok(NativeFile { file, size })
    }
}

impl RandomAccess for NativeFile {
    fn size(&self) -> u64 {
        self.size
    }

    #[cfg(unix)]
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.read_exact_at(buf, offset)
    }

    #[cfg(windows)]
    fn read_exact_at(&self, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.file.seek_read(buf, offset) {
                Ok(0) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "file ended early",
                    ))
                }
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// A file in a folder input, opened only when read (a folder may hold more files than the
/// process may keep open).
struct PathFile {
    path: PathBuf,
    size: u64,
}

impl RandomAccess for PathFile {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        NativeFile::open(&self.path)?.read_exact_at(offset, buf)
    }
}

/// A folder on disk: its files opened by their path below it.
struct DiskTree {
    root: PathBuf,
}

impl HostTree for DiskTree {
    fn file(&self, path: &str, size: u64) -> Rc<dyn RandomAccess> {
        Rc::new(PathFile {
            path: self.root.join(path),
            size,
        })
    }
}

/// How a folder input is walked.
#[derive(Debug, Clone, Copy)]
pub struct FolderWalk {
    /// Threads that list directories and `stat` their files side by side (at least one). A
    /// wide table's folder holds hundreds of thousands of files, and the kernel's `stat` of each
    /// was most of the time a folder costs over its zip (`BENCHMARKS.md`, "Folders walked").
    pub threads: usize,
    /// Only the files whose path (relative to the folder) this accepts are listed, and only
    /// they are `stat`ed; the others (zips aside: nested archives are opened and filtered by
    /// [`super::Artifact::open_only`]) are counted in [`Input::Folder`]'s `skipped`, against the
    /// same limits. For a view of a few files ([`super::Artifact::open_only`] with the same
    /// filter); it must decide by the path's last segments, which a folder's name prefix does
    /// not change.
    pub keep: Option<fn(&str) -> bool>,
}

impl Default for FolderWalk {
    fn default() -> Self {
        FolderWalk {
            threads: 1,
            keep: None,
        }
    }
}

/// Opens a path the user gave: a zip file, or a folder (walked recursively, symlinks not
/// followed). Errors name the path.
pub fn open_input(path: &Path, limits: &Limits) -> Result<Input> {
    open_input_with(path, limits, FolderWalk::default())
}

/// [`open_input`], a folder walked as `walk` says. The listing is the same whatever the
/// threads; with a `keep` filter it is [`open_input`]'s filtered.
pub fn open_input_with(path: &Path, limits: &Limits, walk: FolderWalk) -> Result<Input> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::io(format!("cannot open: {e}")).in_file(shown.clone()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    if meta.is_dir() {
        let (dirs, skipped) = walk_folder(path, limits, walk)?;
        return Ok(Input::Tree {
            name,
            tree: Rc::new(DiskTree {
                root: path.to_path_buf(),
            }),
            dirs,
            skipped,
        });
    }
    let file = NativeFile::open(path)
        .map_err(|e| Error::io(format!("cannot open: {e}")).in_file(shown))?;
    Ok(Input::Zip {
        name,
        data: Rc::new(file),
    })
}

/// A directory's children, as [`list_dir`] reads them, sorted by name: files and
/// subdirectories in one [`TreeDir`] (a subdirectory with size 0 and no time), told apart by
/// `is_dir`. The files the walk's filter refused are neither `stat`ed nor listed, only counted.
#[derive(Default)]
struct Children {
    entries: TreeDir,
    is_dir: Vec<bool>,
}

impl Children {
    fn push(&mut self, name: &str, file: Option<(u64, Option<i64>)>) {
        let (size, modified_millis) = file.unwrap_or((0, None));
        self.entries.push(name, size, modified_millis);
        self.is_dir.push(file.is_none());
    }

    /// The children with their names, in order: `(name, the file or None for a directory)`.
    fn iter(&self) -> impl Iterator<Item = (&str, Option<&TreeFile>)> {
        self.entries
            .iter()
            .zip(&self.is_dir)
            .map(|((name, f), &is_dir)| (name, (!is_dir).then_some(f)))
    }
}

fn join_rel(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

/// Lists one directory: its subdirectories and its files, each file with one `stat`. `seen`
/// counts the folder's files across threads: past `max-entries` the listing stops, so a
/// hostile folder is not listed whole before it is refused.
fn list_dir(
    root: &Path,
    rel: &str,
    keep: Option<fn(&str) -> bool>,
    seen: &AtomicU64,
    limits: &Limits,
) -> Result<Children> {
    let dir = root.join(rel);
    let read = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(format!("cannot list: {e}")).in_file(dir.display().to_string()))?;
    let mut entries: Vec<_> = read.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    let mut children = Children::default();
    let mut path = String::new();
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let os_name = entry.file_name();
        let name = os_name.to_string_lossy();
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            children.push(&name, None);
        } else if kind.is_file() {
            if seen.fetch_add(1, Ordering::Relaxed) >= limits.max_entries {
                return Err(too_many(limits));
            }
            let kept = keep.is_none_or(|keep| {
                path.clear();
                if !rel.is_empty() {
                    path.push_str(rel);
                    path.push('/');
                }
                path.push_str(&name);
                super::zip::looks_like_zip_name(&path) || keep(&path)
            });
            if !kept {
                continue;
            }
            // One `stat` per file, relative to the directory (a wide table's folder holds
            // hundreds of thousands).
            let meta = entry.metadata().ok();
            let modified_millis = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_millis()).ok());
            let size = meta.map_or(0, |m| m.len());
            children.push(&name, Some((size, modified_millis)));
        }
    }
    Ok(children)
}

/// Lists `dirs` on up to `threads` threads; one result per directory, in `dirs`' order.
fn list_level(
    root: &Path,
    dirs: &[String],
    walk: FolderWalk,
    seen: &AtomicU64,
    limits: &Limits,
) -> Vec<Result<Children>> {
    let list = |d: &String| list_dir(root, d, walk.keep, seen, limits);
    let threads = walk.threads.clamp(1, dirs.len().max(1));
    if threads == 1 {
        return dirs.iter().map(list).collect();
    }
    let chunk = dirs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| {
                (
                    part,
                    scope.spawn(move || part.iter().map(list).collect::<Vec<_>>()),
                )
            })
            .collect();
        let mut results = Vec::with_capacity(dirs.len());
        for (part, handle) in parts {
            match handle.join() {
                Ok(listed) => results.extend(listed),
                // Not expected (listing a directory does not panic); each of its directories
                // then fails by name, so that the results stay one per directory.
                Err(_) => results.extend(part.iter().map(|d| {
                    Err(Error::io("the thread listing it failed".to_string())
                        .in_file(root.join(d).display().to_string()))
                })),
            }
        }
        results
    })
}

/// Walks the folder at `root` a level at a time, each level's directories listed side by side
/// ([`FolderWalk::threads`]), then puts the files in the order of a depth-first walk with
/// every directory's children sorted by name (a directory's files before and after a
/// subdirectory are two [`TreeDir`]s). Returns them with the count of files the filter left
/// out. Fails when the folder holds more than `max-entries` files, then on the first directory
/// (in that order) that cannot be listed.
fn walk_folder(root: &Path, limits: &Limits, walk: FolderWalk) -> Result<(Vec<TreeDir>, u64)> {
    let mut listed: HashMap<String, Result<Children>> = HashMap::new();
    let mut level = vec![String::new()];
    let seen = AtomicU64::new(0);
    while !level.is_empty() {
        let mut next = Vec::new();
        for (rel, result) in level
            .iter()
            .zip(list_level(root, &level, walk, &seen, limits))
        {
            if let Ok(dir) = &result {
                for (name, file) in dir.iter() {
                    if file.is_none() {
                        next.push(join_rel(rel, name));
                    }
                }
            }
            listed.insert(rel.clone(), result);
        }
        if seen.load(Ordering::Relaxed) > limits.max_entries {
            return Err(too_many(limits));
        }
        level = next;
    }
    let mut out = Vec::new();
    assemble("", &mut listed, &mut out)?;
    // Every file was counted in `seen`, the refused ones too.
    let files: usize = out.iter().map(|d| d.files.len()).sum();
    let skipped = seen.into_inner().saturating_sub(files as u64);
    Ok((out, skipped))
}

fn too_many(limits: &Limits) -> Error {
    Error::limit(
        "max-entries",
        format!("the folder has more than {} files", limits.max_entries),
    )
}

/// Appends the files of directory `rel` (and below, depth first) to `out`.
fn assemble(
    rel: &str,
    listed: &mut HashMap<String, Result<Children>>,
    out: &mut Vec<TreeDir>,
) -> Result<()> {
    let Some(result) = listed.remove(rel) else {
        return Ok(());
    };
    let children = result?;
    let mut files = TreeDir {
        path: rel.to_string(),
        ..TreeDir::default()
    };
    for (name, file) in children.iter() {
        match file {
            Some(f) => files.push(name, f.size, f.modified_millis),
            None => {
                if !files.files.is_empty() {
                    let path = files.path.clone();
                    out.push(std::mem::replace(
                        &mut files,
                        TreeDir {
                            path,
                            ..TreeDir::default()
                        },
                    ));
                }
                assemble(&join_rel(rel, name), listed, out)?;
            }
        }
    }
    if !files.files.is_empty() {
        out.push(files);
    }
    Ok(())
}
