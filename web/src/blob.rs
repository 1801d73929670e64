//! Random access to a browser `Blob` (a `File` the user dropped), for the core.
//!
//! Only in a worker: `FileReaderSync` does not exist on the page's thread. Each read slices the
//! Blob (`Blob.slice(start, end)`, offsets as f64 so archives past 2 GiB and 4 GiB work; f64 is
//! exact to 2^53) and reads just that slice; the archive is never held in memory as a whole.

use std::io;

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FileReaderSync};

use crate::cache::{Cached, ReadAt};

/// One Blob, read slice by slice with `FileReaderSync`.
pub struct BlobSource {
    blob: Blob,
    size: u64,
    reader: FileReaderSync,
}

impl BlobSource {
    /// Wraps `blob`. Fails outside a worker (no `FileReaderSync`).
    pub fn new(blob: Blob) -> io::Result<Self> {
        let reader = FileReaderSync::new().map_err(js_error)?;
        // Blob.size is a double; sizes are whole numbers far below 2^53.
        let size = blob.size().max(0.0) as u64;
        Ok(BlobSource { blob, size, reader })
    }
}

impl ReadAt for BlobSource {
    fn len(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        let slice = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(js_error)?;
        let buffer = self.reader.read_as_array_buffer(&slice).map_err(js_error)?;
        let bytes = Uint8Array::new(&buffer);
        if bytes.length() as usize != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the browser returned {} bytes for a read of {} at offset {offset}",
                    bytes.length(),
                    buf.len()
                ),
            ));
        }
        bytes.copy_to(buf);
        Ok(())
    }
}

/// A Blob as the core's [`prv::source::RandomAccess`], with a small block cache.
pub struct BlobReader(Cached<BlobSource>);

impl BlobReader {
    /// Wraps `blob`. Fails outside a worker.
    pub fn new(blob: Blob) -> io::Result<Self> {
        Ok(BlobReader(Cached::new(BlobSource::new(blob)?)))
    }
}

impl prv::source::RandomAccess for BlobReader {
    fn size(&self) -> u64 {
        self.0.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.0.read_exact_at(offset, buf)
    }
}

/// A JS exception as an I/O error (a file removed or changed since it was chosen raises
/// `NotReadableError`).
pub fn js_error(value: JsValue) -> io::Error {
    io::Error::other(describe_js(&value))
}

/// A readable description of a thrown JS value.
pub fn describe_js(value: &JsValue) -> String {
    if let Some(e) = value.dyn_ref::<js_sys::Error>() {
        return format!("{}: {}", String::from(e.name()), String::from(e.message()));
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}
