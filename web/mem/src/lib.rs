//! `memcmp` and `bcmp` for the page's WebAssembly, comparing eight bytes at a time.
//!
//! On `wasm32-unknown-unknown` there is no C library: Rust's `compiler-builtins` supplies
//! `memcmp` and `bcmp`, as weak symbols, with a loop that compares one byte per iteration. Every
//! `==` and `cmp` of strings and byte slices ends there, and the core compares a lot of them: it
//! sorts 38,000 zip paths that share a 40-byte prefix, looks paths up in hash maps, and checks
//! each manifest's multi-kilobyte embedded Avro schema against the one it last compiled. In a
//! profile of the core in V8 on a 24,000-manifest table that loop was 10.6% of the time, against
//! a few percent natively, where glibc's vectorised `memcmp` runs. The strong definitions here
//! replace the weak ones when this crate is linked (the web crate does, for wasm32 only), and
//! compare 64-bit words until two differ, then the bytes of that word.
//!
//! The comparison itself is safe code on slices ([`compare`], [`equal`]), tested on every target
//! against the slice operators; the two exported functions only make slices of the pointers the
//! C contract gives them. `#![no_builtins]` keeps LLVM from turning the loops back into calls to
//! `memcmp`, which would recurse.
#![no_std]
#![no_builtins]

/// `memcmp`: the sign of the first differing byte of `a` and `b` (as unsigned), 0 if equal.
/// Both must have the same length (the C contract; longer tails are not compared).
pub fn compare(a: &[u8], b: &[u8]) -> i32 {
    // No indexing and nothing else that can panic: this crate is left out of LTO
    // (`no_builtins`), so it cannot call into `core`'s panic machinery.
    let mut words_a = a.chunks_exact(8);
    let mut words_b = b.chunks_exact(8);
    for (x, y) in (&mut words_a).zip(&mut words_b) {
        if word(x) != word(y) {
            return bytes(x, y);
        }
    }
    bytes(words_a.remainder(), words_b.remainder())
}

/// `bcmp`: whether `a` and `b` are equal.
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && compare(a, b) == 0
}

/// Eight bytes as one word (one `i64.load`; `chunks_exact(8)` only gives eight).
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    bytes
        .first_chunk::<8>()
        .map_or(0, |w| u64::from_le_bytes(*w))
}

/// The byte-by-byte comparison of up to eight bytes.
#[inline(always)]
fn bytes(a: &[u8], b: &[u8]) -> i32 {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return i32::from(*x) - i32::from(*y);
        }
    }
    0
}

/// The `n` bytes at `a` and at `b` as slices (`n > 0`).
///
/// # Safety
///
/// `a` and `b` must each be valid for reads of `n` bytes, and `n` must not be 0 (the C contract
/// allows dangling pointers for 0 bytes, a slice does not).
#[cfg(target_arch = "wasm32")]
unsafe fn slices<'a>(a: *const u8, b: *const u8, n: usize) -> (&'a [u8], &'a [u8]) {
    // SAFETY: the caller guarantees `n > 0` readable bytes at each pointer, so neither is null.
    unsafe {
        (
            core::slice::from_raw_parts(a, n),
            core::slice::from_raw_parts(b, n),
        )
    }
}

/// The C `memcmp`.
///
/// # Safety
///
/// `a` and `b` must each be valid for reads of `n` bytes (the C contract).
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n == 0 {
        return 0;
    }
    // SAFETY: the C contract, and `n > 0`.
    let (a, b) = unsafe { slices(a, b, n) };
    compare(a, b)
}

/// The C `bcmp`: zero if equal, non-zero otherwise.
///
/// # Safety
///
/// `a` and `b` must each be valid for reads of `n` bytes (the C contract).
#[cfg(target_arch = "wasm32")]
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n == 0 {
        return 0;
    }
    // SAFETY: the C contract, and `n > 0`.
    let (a, b) = unsafe { slices(a, b, n) };
    i32::from(!equal(a, b))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn sign(o: core::cmp::Ordering) -> i32 {
        o as i32
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        /// Equal-length slices that share a prefix of any length and differ after it (or not at
        /// all) compare as the slice operators do.
        #[test]
        fn compares_as_slices_do(
            prefix in proptest::collection::vec(any::<u8>(), 0..70),
            a in proptest::collection::vec(any::<u8>(), 0..20),
            b in proptest::collection::vec(any::<u8>(), 0..20),
        ) {
            let n = a.len().min(b.len());
            let x: Vec<u8> = prefix.iter().chain(&a[..n]).copied().collect();
            let y: Vec<u8> = prefix.iter().chain(&b[..n]).copied().collect();
            prop_assert_eq!(compare(&x, &y).signum(), sign(x.cmp(&y)));
            prop_assert_eq!(compare(&y, &x).signum(), sign(y.cmp(&x)));
            prop_assert_eq!(equal(&x, &y), x == y);
            prop_assert_eq!(compare(&x, &x), 0);
            prop_assert!(equal(&x, &x));
        }
    }

    #[test]
    fn the_first_difference_decides_in_every_position() {
        for len in 0..40 {
            let base: Vec<u8> = (0..len as u8).collect();
            for at in 0..len {
                for (lo, hi) in [(0u8, 1u8), (0x7f, 0x80), (1, 0xff)] {
                    let mut x = base.clone();
                    let mut y = base.clone();
                    x[at] = lo;
                    y[at] = hi;
                    // a later difference the other way must not matter
                    if at + 1 < len {
                        x[at + 1] = 0xff;
                        y[at + 1] = 0;
                    }
                    assert!(compare(&x, &y) < 0, "len {len} at {at}");
                    assert!(compare(&y, &x) > 0, "len {len} at {at}");
                    assert!(!equal(&x, &y));
                }
            }
        }
        assert!(!equal(b"ab", b"abc"));
    }
}
