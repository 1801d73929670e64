//! One dlmalloc arena per thread, for the build with shared memory (feature `arenas`).
//!
//! Rust's wasm allocator with atomics is one dlmalloc behind one global lock, which the
//! analysis and its helper threads take for every allocation. Here each thread allocates from
//! its own arena (threads are given arenas round-robin), each behind its own lock, which is
//! uncontended unless another thread frees or grows a block this arena gave: the CLI's helpers
//! allocate the decoded manifests that the analysis thread frees. Every block carries the index
//! of its arena in the 8 bytes (or `align` bytes) before it.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use dlmalloc::Dlmalloc;

const ARENAS: usize = 8;

struct Arena {
    lock: Mutex<()>,
    heap: UnsafeCell<Dlmalloc>,
}

// SAFETY: `heap` is only touched while `lock` is held.
unsafe impl Sync for Arena {}

/// The global allocator of the `arenas` build.
pub struct PerThreadArenas {
    arenas: [Arena; ARENAS],
    next: AtomicUsize,
}

impl PerThreadArenas {
    pub const fn new() -> Self {
        PerThreadArenas {
            arenas: [const {
                Arena {
                    lock: Mutex::new(()),
                    heap: UnsafeCell::new(Dlmalloc::new()),
                }
            }; ARENAS],
            next: AtomicUsize::new(0),
        }
    }

    fn mine(&self) -> usize {
        thread_local! {
            static MINE: Cell<usize> = const { Cell::new(usize::MAX) };
        }
        MINE.with(|m| {
            if m.get() == usize::MAX {
                m.set(self.next.fetch_add(1, Ordering::Relaxed) % ARENAS);
            }
            m.get()
        })
    }

    /// Runs `f` on arena `i`'s heap under its lock.
    fn with<R>(&self, i: usize, f: impl FnOnce(&mut Dlmalloc) -> R) -> R {
        let arena = &self.arenas[i % ARENAS];
        let _guard = arena.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the lock is held, so no other reference to this heap exists.
        f(unsafe { &mut *arena.heap.get() })
    }
}

/// Bytes before each block, room for the arena's index that keeps the block aligned; also the
/// alignment each dlmalloc block is asked for.
fn header(layout: Layout) -> usize {
    layout.align().max(8)
}

/// The dlmalloc block under `ptr` and the index of its arena.
///
/// # Safety
/// `ptr` came from [`PerThreadArenas`]' `alloc` or `realloc` with `layout`.
unsafe fn owner(ptr: *mut u8, layout: Layout) -> (*mut u8, usize) {
    // SAFETY: the caller's contract: the header precedes `ptr` in the same block.
    unsafe {
        (
            ptr.sub(header(layout)),
            (ptr.sub(4) as *const u32).read_unaligned() as usize,
        )
    }
}

// SAFETY: every block is allocated from, and freed or grown in, the arena whose index is
// written before it, under that arena's lock; sizes and alignments passed to dlmalloc are the
// block's own plus the header, the same at allocation and at release.
unsafe impl GlobalAlloc for PerThreadArenas {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let h = header(layout);
        let i = self.mine();
        // SAFETY: dlmalloc's contract: a size and a power-of-two alignment.
        let base = self.with(i, |heap| unsafe { heap.malloc(layout.size() + h, h) });
        if base.is_null() {
            return base;
        }
        // SAFETY: the block is `size + h` bytes from `base`; the index goes in its header.
        unsafe {
            let user = base.add(h);
            (user.sub(4) as *mut u32).write_unaligned(i as u32);
            user
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let h = header(layout);
        // SAFETY: `ptr` came from `alloc` or `realloc` with this layout (GlobalAlloc's contract).
        let (base, i) = unsafe { owner(ptr, layout) };
        // SAFETY: `base` is the block dlmalloc gave arena `i`, with this size and alignment.
        self.with(i, |heap| unsafe { heap.free(base, layout.size() + h, h) });
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let h = header(layout);
        // SAFETY: as in `dealloc`.
        let (base, i) = unsafe { owner(ptr, layout) };
        // SAFETY: dlmalloc keeps the block's first bytes (the header) when it moves it.
        let moved = self.with(i, |heap| unsafe {
            heap.realloc(base, layout.size() + h, h, new_size + h)
        });
        if moved.is_null() {
            return moved;
        }
        // SAFETY: the block is `new_size + h` bytes from `moved`.
        unsafe { moved.add(h) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Blocks allocated on four threads, grown and shrunk, then freed on other threads, keep
    /// their contents and alignment throughout.
    #[test]
    fn blocks_keep_their_bytes_across_threads() {
        let arenas = Arc::new(PerThreadArenas::new());
        let made: Vec<Vec<(usize, usize, usize)>> = (0..4)
            .map(|t| {
                let arenas = Arc::clone(&arenas);
                std::thread::spawn(move || {
                    let mut blocks = Vec::new();
                    for i in 0..2000usize {
                        let align = 1 << (i % 7); // 1..=64
                        let size = 1 + (i * 37 + t * 11) % 3000;
                        let layout = Layout::from_size_align(size, align).unwrap();
                        // SAFETY (test): a valid layout; the block is filled within its size.
                        let mut p = unsafe { arenas.alloc(layout) };
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0);
                        let byte = (i + t) as u8;
                        unsafe { p.write_bytes(byte, size) };
                        let mut size_now = size;
                        if i % 3 == 0 {
                            let grown = size * 2 + 5;
                            p = unsafe { arenas.realloc(p, layout, grown) };
                            assert!(!p.is_null());
                            assert_eq!(p as usize % align, 0);
                            for k in 0..size {
                                assert_eq!(unsafe { *p.add(k) }, byte);
                            }
                            unsafe { p.write_bytes(byte, grown) };
                            size_now = grown;
                        }
                        blocks.push((p as usize, size_now, align));
                    }
                    blocks
                })
            })
            .map(|h| h.join().unwrap())
            .collect();
        // Freed by threads other than the ones that allocated them.
        let handles: Vec<_> = made
            .into_iter()
            .enumerate()
            .map(|(t, blocks)| {
                let arenas = Arc::clone(&arenas);
                std::thread::spawn(move || {
                    for (i, (p, size, align)) in blocks.into_iter().enumerate() {
                        let p = p as *mut u8;
                        let byte = (i + t) as u8;
                        for k in [0, size / 2, size - 1] {
                            assert_eq!(unsafe { *p.add(k) }, byte);
                        }
                        let layout = Layout::from_size_align(size, align).unwrap();
                        unsafe { arenas.dealloc(p, layout) };
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}
