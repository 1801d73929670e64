//! Native inputs for the CLI: files read with positioned reads, folders walked on disk.
//!
//! This is the only module of the core that touches `std::fs` (feature `native`).

use std::fs::File;
use std::path::Path;
use std::rc::Rc;
use std::time::UNIX_EPOCH;

use crate::error::{Error, Result};
use crate::limits::Limits;

use super::{HostFile, Input, RandomAccess};

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
    path: std::path::PathBuf,
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

/// Opens a path the user gave: a zip file, or a folder (walked recursively, symlinks not
/// followed). Errors name the path.
pub fn open_input(path: &Path, limits: &Limits) -> Result<Input> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::io(format!("cannot open: {e}")).in_file(shown.clone()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    if meta.is_dir() {
        let mut files = Vec::new();
        walk(path, "", &mut files, limits)?;
        return Ok(Input::Folder { name, files });
    }
    let file = NativeFile::open(path)
        .map_err(|e| Error::io(format!("cannot open: {e}")).in_file(shown))?;
    Ok(Input::Zip {
        name,
        data: Rc::new(file),
    })
}

fn walk(dir: &Path, rel: &str, out: &mut Vec<HostFile>, limits: &Limits) -> Result<()> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("cannot list: {e}")).in_file(dir.display().to_string()))?;
    let mut children: Vec<_> = read.filter_map(|e| e.ok()).collect();
    children.sort_by_key(|e| e.file_name());
    for child in children {
        let name = child.file_name().to_string_lossy().into_owned();
        let child_rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = child.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            walk(&child.path(), &child_rel, out, limits)?;
        } else if kind.is_file() {
            if out.len() as u64 >= limits.max_entries {
                return Err(Error::limit(
                    "max-entries",
                    format!("the folder has more than {} files", limits.max_entries),
                ));
            }
            let path = child.path();
            // One `stat` per file (a wide table's folder holds hundreds of thousands).
            let meta = child.metadata().ok();
            let modified_millis = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_millis()).ok());
            let size = meta.map_or(0, |m| m.len());
            out.push(HostFile {
                path: child_rel,
                modified_millis,
                data: Rc::new(PathFile { path, size }),
            });
        }
    }
    Ok(())
}
