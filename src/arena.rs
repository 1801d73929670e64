//! Append-only storage for the millions of small items a wide table's analysis holds:
//! [`Chunks`] of fixed-size items and [`StrChunks`] of byte strings or text, both in chunks that never
//! move once written, so growing never copies more than one chunk (a doubling `Vec` of half a
//! million items stands twice in memory while it grows) and no item is an allocation of its
//! own.

use crate::error::{Error, Result};

/// Items in chunks of [`CHUNK_ITEMS`] that never move once pushed: growing never copies more
/// than one chunk, so half a million descriptions never stand twice in memory while they grow
/// (doubling one `Vec` did: `BENCHMARKS.md`, "Flat manifest entries").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    /// How many items there are.
    pub len: usize,
}

const CHUNK_ITEMS: usize = 1 << 14;

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunks<T> {
    /// Item `i`.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK_ITEMS)?.get(i % CHUNK_ITEMS)
    }

    /// Appends `item`; its index.
    pub fn push(&mut self, item: T) -> usize {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK_ITEMS => last.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(16);
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
        self.len - 1
    }

    /// Bytes held on the heap (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }

    /// Drops the last chunk's spare capacity.
    pub fn shrink_to_fit(&mut self) {
        if let Some(last) = self.chunks.last_mut() {
            last.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }
}

/// What [`StrChunks`] stores strings in: `Vec<u8>` for bytes, `String` for text (read back
/// as `&str` without validating it again).
pub trait Chunk: Default {
    /// One string.
    type Part: ?Sized;
    /// An empty chunk with room for `n` bytes.
    fn with_capacity(n: usize) -> Self;
    /// Bytes written.
    fn written(&self) -> usize;
    /// Bytes allocated.
    fn capacity(&self) -> usize;
    /// Appends `part`.
    fn append(&mut self, part: &Self::Part);
    /// The length of `part` in bytes.
    fn part_len(part: &Self::Part) -> usize;
    /// Drops spare capacity.
    fn shrink_to_fit(&mut self);
}

impl Chunk for Vec<u8> {
    type Part = [u8];
    fn with_capacity(n: usize) -> Self {
        Vec::with_capacity(n)
    }
    fn written(&self) -> usize {
        Vec::len(self)
    }
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
    fn append(&mut self, part: &[u8]) {
        self.extend_from_slice(part);
    }
    fn part_len(part: &[u8]) -> usize {
        part.len()
    }
    fn shrink_to_fit(&mut self) {
        Vec::shrink_to_fit(self);
    }
}

impl Chunk for String {
    type Part = str;
    fn with_capacity(n: usize) -> Self {
        String::with_capacity(n)
    }
    fn written(&self) -> usize {
        String::len(self)
    }
    fn capacity(&self) -> usize {
        String::capacity(self)
    }
    fn append(&mut self, part: &str) {
        self.push_str(part);
    }
    fn part_len(part: &str) -> usize {
        part.len()
    }
    fn shrink_to_fit(&mut self) {
        String::shrink_to_fit(self);
    }
}

/// Strings in chunks of [`CHUNK_BYTES`], found by their offset: a string never straddles two
/// chunks (one longer than a chunk gets a chunk of its own, and the offsets it spans), so the
/// offset's bits are a chunk and a place in it. As in [`Chunks`], nothing ever moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrChunks<C> {
    /// Chunk `i` holds offsets `i * CHUNK_BYTES ..`; those a long string spans after its first
    /// chunk are empty.
    chunks: Vec<C>,
}

/// Byte strings (keys).
pub type ByteChunks = StrChunks<Vec<u8>>;
/// Text (names).
pub type TextChunks = StrChunks<String>;

const CHUNK_BYTES: usize = 1 << 20;

impl ByteChunks {
    /// The `len` bytes at `at` (nothing if they are not one string's or its start's).
    pub fn get(&self, at: u32, len: u32) -> &[u8] {
        let (chunk, range) = self.locate(at, len);
        chunk.and_then(|c| c.get(range)).unwrap_or(&[])
    }
}

impl TextChunks {
    /// The `len` bytes at `at` (nothing if they are not one string's or its start's).
    pub fn get(&self, at: u32, len: u32) -> &str {
        let (chunk, range) = self.locate(at, len);
        chunk.and_then(|c| c.get(range)).unwrap_or("")
    }
}

impl<C: Chunk> StrChunks<C> {
    /// The chunk holding offset `at`, and the range of `len` bytes from there in it.
    fn locate(&self, at: u32, len: u32) -> (Option<&C>, std::ops::Range<usize>) {
        let (at, len) = (at as usize, len as usize);
        let local = at % CHUNK_BYTES;
        (self.chunks.get(at / CHUNK_BYTES), local..local + len)
    }

    /// Appends the concatenation of `parts`; its offset. Fails past 4 GiB in all, naming
    /// `what`.
    pub fn push(&mut self, parts: &[&C::Part], what: &str) -> Result<u32> {
        let len: usize = parts.iter().map(|p| C::part_len(p)).sum();
        let fits = self
            .chunks
            .last()
            .is_some_and(|last| last.written() + len <= CHUNK_BYTES);
        if !fits {
            let first = self.chunks.len();
            let spans = len.div_ceil(CHUNK_BYTES).max(1);
            offset((first + spans) * CHUNK_BYTES, what)?;
            let mut chunk = C::with_capacity(len.clamp(256, CHUNK_BYTES));
            for p in parts {
                chunk.append(p);
            }
            self.chunks.push(chunk);
            // The offsets a long string spans: no other string starts there.
            for _ in 1..spans {
                self.chunks.push(C::default());
            }
            if spans > 1 {
                self.chunks.push(C::default());
            }
            return offset(first * CHUNK_BYTES, what);
        }
        let base = (self.chunks.len() - 1) * CHUNK_BYTES;
        let Some(last) = self.chunks.last_mut() else {
            return offset(0, what);
        };
        let start = offset(base + last.written(), what)?;
        for p in parts {
            last.append(p);
        }
        Ok(start)
    }

    /// Bytes held on the heap (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(C::capacity).sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<C>()
    }

    /// Drops the last chunk's spare capacity.
    pub fn shrink_to_fit(&mut self) {
        if let Some(last) = self.chunks.last_mut() {
            last.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }
}

/// `n` as a `u32` offset, or an error naming what outgrew 4 GiB.
fn offset(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::limit(
            "max-total-bytes",
            format!("the {what} outgrow 4 GiB, more than one analysis holds"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings never straddle chunks, however long; each reads back whole, and a long one
    /// takes its chunk alone.
    #[test]
    fn byte_chunks_hold_strings_of_any_length() {
        let mut b = ByteChunks::default();
        let lens = [
            10,
            CHUNK_BYTES - 20,
            15, // does not fit the first chunk's tail
            CHUNK_BYTES * 2 + 3,
            1,
            CHUNK_BYTES,
            0,
            7,
        ];
        let mut at = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            let bytes = vec![i as u8; len];
            let (one, two) = bytes.split_at(len / 2);
            at.push(b.push(&[one, two], "test").unwrap());
        }
        for (i, (&len, &start)) in lens.iter().zip(&at).enumerate() {
            let got = b.get(start, len as u32);
            assert_eq!(got.len(), len, "string {i}");
            assert!(got.iter().all(|&x| x == i as u8), "string {i}");
        }
        assert_eq!(at[0], 0);
        assert_eq!(
            at[2] as usize, CHUNK_BYTES,
            "a string that does not fit starts a chunk"
        );
        assert_eq!(at[3] as usize, 2 * CHUNK_BYTES);
        assert_eq!(
            at[4] as usize,
            5 * CHUNK_BYTES,
            "nothing shares a long string's chunks"
        );
        let tail = (CHUNK_BYTES - 5) as u32;
        assert_eq!(
            b.get(tail, 30),
            &[] as &[u8],
            "past a chunk's end reads nothing"
        );
    }

    #[test]
    fn chunks_index_past_a_chunk() {
        let mut c = Chunks::default();
        for i in 0..(CHUNK_ITEMS * 2 + 5) {
            assert_eq!(c.push(i), i);
        }
        assert_eq!(c.chunks.len(), 3);
        for i in [0, CHUNK_ITEMS - 1, CHUNK_ITEMS, 2 * CHUNK_ITEMS + 4] {
            assert_eq!(c.get(i), Some(&i));
        }
        assert_eq!(c.get(2 * CHUNK_ITEMS + 5), None);
    }
}
