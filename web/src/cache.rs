//! A small block cache in front of a slow random-access source.
//!
//! Each read of a browser `Blob` costs a `Blob.slice` and a synchronous `FileReader` call, so the
//! many small reads of a zip's central directory and local headers are served from a few cached
//! blocks instead. Reads larger than a block go straight to the source (they are entry bodies,
//! read once). The cache holds at most `BLOCKS × BLOCK_SIZE` bytes, whatever the archive's size.

use std::cell::RefCell;
use std::io;

/// Bytes per cached block.
pub const BLOCK_SIZE: u64 = 64 * 1024;
/// Blocks kept (least recently used is dropped first).
pub const BLOCKS: usize = 16;

/// A source of bytes that can be read at any offset.
pub trait ReadAt {
    /// Total size in bytes.
    fn len(&self) -> u64;
    /// Whether the source is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads exactly `buf.len()` bytes at `offset` (the caller guarantees they exist).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

/// [`ReadAt`] with a least-recently-used cache of aligned blocks.
pub struct Cached<R> {
    inner: R,
    blocks: RefCell<Vec<(u64, Vec<u8>)>>,
}

impl<R: ReadAt> Cached<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Cached {
            inner,
            blocks: RefCell::new(Vec::with_capacity(BLOCKS)),
        }
    }

    /// The wrapped source.
    pub fn inner(&self) -> &R {
        &self.inner
    }

    /// Total size in bytes.
    pub fn len(&self) -> u64 {
        self.inner.len()
    }

    /// Whether the source is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Fills `buf` with the bytes at `offset..offset + buf.len()`; `UnexpectedEof` if they are
    /// not all there.
    pub fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let len = buf.len() as u64;
        let size = self.inner.len();
        match offset.checked_add(len) {
            Some(end) if end <= size => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "read of {len} bytes at offset {offset} goes past the end ({size} bytes)"
                    ),
                ))
            }
        }
        if buf.is_empty() {
            return Ok(());
        }
        if len > BLOCK_SIZE {
            return self.inner.read_at(offset, buf);
        }
        let mut filled = 0usize;
        while filled < buf.len() {
            let pos = offset + filled as u64;
            let start = pos - pos % BLOCK_SIZE;
            let within = (pos - start) as usize;
            let n = self.with_block(start, size, |block| {
                let n = (block.len() - within).min(buf.len() - filled);
                buf[filled..filled + n].copy_from_slice(&block[within..within + n]);
                n
            })?;
            filled += n;
        }
        Ok(())
    }

    fn with_block<T>(&self, start: u64, size: u64, f: impl FnOnce(&[u8]) -> T) -> io::Result<T> {
        let mut blocks = self.blocks.borrow_mut();
        if let Some(i) = blocks.iter().position(|(s, _)| *s == start) {
            // Move to the back: most recently used.
            let block = blocks.remove(i);
            blocks.push(block);
        } else {
            let end = (start + BLOCK_SIZE).min(size);
            let mut data = vec![0u8; (end - start) as usize];
            self.inner.read_at(start, &mut data)?;
            if blocks.len() >= BLOCKS {
                blocks.remove(0);
            }
            blocks.push((start, data));
        }
        let (_, data) = blocks
            .last()
            .ok_or_else(|| io::Error::other("block cache is empty"))?;
        Ok(f(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Counting {
        data: Vec<u8>,
        reads: Cell<u32>,
        bytes: Cell<u64>,
    }

    impl ReadAt for Counting {
        fn len(&self) -> u64 {
            self.data.len() as u64
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.reads.set(self.reads.get() + 1);
            self.bytes.set(self.bytes.get() + buf.len() as u64);
            let o = offset as usize;
            buf.copy_from_slice(&self.data[o..o + buf.len()]);
            Ok(())
        }
    }

    fn source(len: usize) -> Cached<Counting> {
        Cached::new(Counting {
            data: (0..len).map(|i| (i * 7 % 251) as u8).collect(),
            reads: Cell::new(0),
            bytes: Cell::new(0),
        })
    }

    #[test]
    fn reads_match_the_source_at_every_boundary() {
        let c = source(3 * BLOCK_SIZE as usize + 123);
        let n = c.len() as usize;
        for &(offset, len) in &[
            (0usize, 1usize),
            (0, 100),
            (BLOCK_SIZE as usize - 3, 10),
            (BLOCK_SIZE as usize, 5),
            (2 * BLOCK_SIZE as usize - 1, BLOCK_SIZE as usize),
            (n - 7, 7),
            (5, 2 * BLOCK_SIZE as usize),
        ] {
            let mut buf = vec![0u8; len];
            c.read_exact_at(offset as u64, &mut buf).unwrap();
            assert_eq!(
                buf,
                c.inner().data[offset..offset + len],
                "at {offset}+{len}"
            );
        }
    }

    #[test]
    fn small_reads_hit_the_cache() {
        let c = source(2 * BLOCK_SIZE as usize);
        let mut buf = [0u8; 30];
        for i in 0..100u64 {
            c.read_exact_at(i * 40, &mut buf).unwrap();
        }
        assert_eq!(c.inner().reads.get(), 1);
    }

    #[test]
    fn memory_stays_bounded() {
        let c = source(40 * BLOCK_SIZE as usize);
        let mut buf = [0u8; 4];
        for i in 0..40u64 {
            c.read_exact_at(i * BLOCK_SIZE, &mut buf).unwrap();
        }
        assert_eq!(c.blocks.borrow().len(), BLOCKS);
    }

    #[test]
    fn reads_past_the_end_fail_without_reading() {
        let c = source(100);
        let mut buf = [0u8; 10];
        let e = c.read_exact_at(95, &mut buf).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(c.read_exact_at(u64::MAX, &mut buf).is_err());
        assert_eq!(c.inner().reads.get(), 0);
        c.read_exact_at(100, &mut []).unwrap();
    }
}
