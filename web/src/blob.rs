//! Random access to a browser `Blob` (a `File` the user dropped), for the core.
//!
//! Only in a worker: `FileReaderSync` does not exist on the page's thread. Each read slices the
//! Blob (`Blob.slice(start, end)`, offsets as f64 so archives past 2 GiB and 4 GiB work; f64 is
//! exact to 2^53) and reads just that slice; the archive is never held in memory as a whole.
//!
//! In a browser with JavaScript Promise Integration (JSPI), reads are asynchronous instead
//! (`async_reads.js`, installed by the worker's bootstrap): the ranges the core announces
//! ([`prv::source::RandomAccess::will_read`], the zip read-ahead of the metadata directories)
//! are read at once by a reader worker of this worker's own, and a read suspends the analysis
//! only until its bytes have arrived, so the browser reads while the core works.
//! `FileReaderSync` stops the worker for every read.
//!
//! For the benchmark (`bench/page.mjs`), the worker counts its Blob reads and offers them, with
//! the size of its wasm memory, as `prvBlobStats()` on its global scope (a JSON string; see
//! [`stats_json`]). Only counters: no file content or name is kept.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::io;

use js_sys::{ArrayBuffer, Function, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FileReaderSync};

/// Grows the wasm memory in one step for the first Blob, once per worker
/// ([`prv::source::reserve_heap`]: four times its size, 64–256 MiB, given back to the allocator
/// at once), so that the allocator does not grow it 64 KiB at a time during the analysis.
fn reserve_memory(blob_size: u64) {
    thread_local! {
        static RESERVED: Cell<bool> = const { Cell::new(false) };
    }
    if !RESERVED.with(|r| r.replace(true)) {
        prv::source::reserve_heap(blob_size);
    }
}

#[wasm_bindgen]
extern "C" {
    /// `async_reads.js`: the bytes `offset..offset + len` of `blob`, as a Promise of their
    /// length (-1 if the read failed). A `WebAssembly.Suspending` import: the analysis is
    /// suspended until the Promise settles. Only under [`with_async_reads`].
    #[wasm_bindgen(js_name = prvAwaitRead)]
    fn await_read(blob: &Blob, offset: f64, len: f64) -> f64;
    /// `async_reads.js`: the `ArrayBuffer` (or the error) of the last [`await_read`].
    #[wasm_bindgen(js_name = prvTakeRead)]
    fn take_read() -> JsValue;
    /// `async_reads.js`: starts reading these `(offset, len)` pairs of `blob` (flattened).
    #[wasm_bindgen(js_name = prvWillRead)]
    fn start_reads(blob: &Blob, ranges: &[f64]);
    /// `async_reads.js`: drops reads started for the previous message and never taken.
    #[wasm_bindgen(js_name = prvForgetReads)]
    fn forget_reads();
}

thread_local! {
    /// Whether Blob reads go through `async_reads.js` (see [`with_async_reads`]).
    static ASYNC: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (the handling of one message) with asynchronous Blob reads, if the bootstrap
/// installed them. Must only be called from [`crate::worker::prv_dispatch`], which
/// `async_reads.js` calls through `WebAssembly.promising`: a suspending import called outside
/// such a call traps.
pub fn with_async_reads<T>(f: impl FnOnce() -> T) -> T {
    let installed = property(&js_sys::global(), "prvAwaitRead").is_some();
    if installed {
        forget_reads();
    }
    let previous = ASYNC.with(|a| a.replace(installed));
    let out = f();
    ASYNC.with(|a| a.set(previous));
    out
}

/// Blob reads of this worker (all Blobs), for [`stats_json`].
#[derive(Debug, Clone, Copy, Default)]
struct ReadStats {
    /// Readers made.
    opened: u64,
    /// When the last reader was made, epoch ms.
    opened_at: f64,
    /// Reads of the browser (`Blob.slice` + `FileReaderSync`).
    reads: u64,
    /// Bytes they returned.
    bytes: u64,
    /// Time spent in them, ms (for asynchronous reads: waiting for them).
    ms: f64,
    /// How many of the reads were asynchronous.
    async_reads: u64,
    /// Bytes announced ahead (started before they were asked for, when reads are asynchronous).
    announced: u64,
}

thread_local! {
    static STATS: Cell<ReadStats> = const {
        Cell::new(ReadStats {
            opened: 0,
            opened_at: 0.0,
            reads: 0,
            bytes: 0,
            ms: 0.0,
            async_reads: 0,
            announced: 0,
        })
    };
    static GETTER: Cell<bool> = const { Cell::new(false) };
}

/// This worker's Blob reads as JSON: `{"opened", "openedAt" (epoch ms of the last reader made),
/// "reads", "bytes", "readMs", "asyncReads", "announcedBytes", "wasmMemoryBytes"}` (wasm memory
/// never shrinks: its size is the peak so far).
pub fn stats_json() -> String {
    let s = STATS.with(Cell::get);
    let memory = property(&wasm_bindgen::memory(), "buffer")
        .and_then(|b| property(&b, "byteLength"))
        .and_then(|n| n.as_f64())
        .unwrap_or(0.0);
    format!(
        r#"{{"opened":{},"openedAt":{},"reads":{},"bytes":{},"readMs":{},"asyncReads":{},"announcedBytes":{},"wasmMemoryBytes":{}}}"#,
        s.opened, s.opened_at, s.reads, s.bytes, s.ms, s.async_reads, s.announced, memory
    )
}

/// Sets `prvBlobStats` on the global scope, once.
fn offer_stats() {
    if GETTER.with(|g| g.replace(true)) {
        return;
    }
    let getter = Closure::<dyn Fn() -> JsValue>::new(|| JsValue::from_str(&stats_json()));
    let _ = Reflect::set(
        &js_sys::global(),
        &JsValue::from_str("prvBlobStats"),
        getter.as_ref(),
    );
    // It lives as long as the worker.
    getter.forget();
}

/// A property of a JS object, if it is there.
fn property(target: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(target, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

/// `performance.now` of the global scope, if there is one.
fn clock() -> Option<(JsValue, Function)> {
    let performance = property(&js_sys::global(), "performance")?;
    let now = property(&performance, "now")?.dyn_into::<Function>().ok()?;
    Some((performance, now))
}

fn now(clock: &Option<(JsValue, Function)>) -> f64 {
    clock
        .as_ref()
        .and_then(|(p, now)| now.call0(p).ok())
        .and_then(|t| t.as_f64())
        .unwrap_or(0.0)
}

use crate::cache::{Cached, ReadAt};

/// One Blob, read slice by slice with `FileReaderSync` (or asynchronously, see the module).
pub struct BlobSource {
    blob: Blob,
    size: u64,
    reader: FileReaderSync,
    /// Ranges announced and not read yet: read as they are, not through the block cache.
    announced: RefCell<HashSet<(u64, u64)>>,
    /// `performance.now`, to time reads.
    clock: Option<(JsValue, Function)>,
}

impl BlobSource {
    /// Wraps `blob`. Fails outside a worker (no `FileReaderSync`).
    pub fn new(blob: Blob) -> io::Result<Self> {
        let reader = FileReaderSync::new().map_err(js_error)?;
        // Blob.size is a double; sizes are whole numbers far below 2^53.
        let size = blob.size().max(0.0) as u64;
        let clock = clock();
        let origin = clock
            .as_ref()
            .and_then(|(p, _)| property(p, "timeOrigin"))
            .and_then(|t| t.as_f64());
        let opened_at = match origin {
            Some(origin) => origin + now(&clock),
            None => js_sys::Date::now(),
        };
        STATS.with(|s| {
            let mut v = s.get();
            v.opened += 1;
            v.opened_at = opened_at;
            s.set(v);
        });
        offer_stats();
        reserve_memory(size);
        Ok(BlobSource {
            blob,
            size,
            reader,
            announced: RefCell::new(HashSet::new()),
            clock,
        })
    }

    /// Starts reading `ranges` now, if reads are asynchronous (else nothing to gain).
    fn announce(&self, ranges: &[(u64, u64)]) {
        if !ASYNC.with(Cell::get) {
            return;
        }
        let mut announced = self.announced.borrow_mut();
        let mut flat = Vec::with_capacity(ranges.len() * 2);
        let mut bytes = 0;
        for &(offset, len) in ranges {
            if offset.checked_add(len).is_some_and(|end| end <= self.size) && len > 0 {
                announced.insert((offset, len));
                flat.extend([offset as f64, len as f64]);
                bytes += len;
            }
        }
        STATS.with(|s| {
            let mut v = s.get();
            v.announced += bytes;
            s.set(v);
        });
        start_reads(&self.blob, &flat);
    }

    /// Whether `offset..offset + len` was announced (and forgets it: each is read once).
    fn take_announced(&self, offset: u64, len: u64) -> bool {
        self.announced.borrow_mut().remove(&(offset, len))
    }

    fn read_slice(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if ASYNC.with(Cell::get) {
            return self.read_slice_async(offset, buf);
        }
        let end = offset + buf.len() as u64;
        let slice = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(js_error)?;
        let buffer = self.reader.read_as_array_buffer(&slice).map_err(js_error)?;
        copy_read(&buffer, offset, buf)
    }

    /// [`Self::read_slice`] through `async_reads.js`: suspends until the bytes are there.
    fn read_slice_async(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let read = await_read(&self.blob, offset as f64, buf.len() as f64);
        let taken = take_read();
        STATS.with(|s| {
            let mut v = s.get();
            v.async_reads += 1;
            s.set(v);
        });
        if read < 0.0 {
            return Err(js_error(taken));
        }
        let buffer = taken.dyn_into::<ArrayBuffer>().map_err(|value| {
            io::Error::other(format!(
                "the browser returned {} for a read of {} bytes at offset {offset}",
                describe_js(&value),
                buf.len()
            ))
        })?;
        copy_read(&buffer, offset, buf)
    }
}

/// Copies what the browser read at `offset` into `buf`; an error if it is not `buf.len()` bytes.
fn copy_read(buffer: &ArrayBuffer, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    let bytes = Uint8Array::new(buffer);
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

impl ReadAt for BlobSource {
    fn len(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = now(&self.clock);
        let result = self.read_slice(offset, buf);
        let ms = now(&self.clock) - start;
        STATS.with(|s| {
            let mut v = s.get();
            v.reads += 1;
            v.bytes += buf.len() as u64;
            v.ms += ms;
            s.set(v);
        });
        result
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
        let source = self.0.inner();
        // An announced range is read as it is (the read already started), not through the
        // block cache, which would read a block around it instead.
        if source.take_announced(offset, buf.len() as u64) {
            return source.read_at(offset, buf);
        }
        self.0.read_exact_at(offset, buf)
    }

    fn will_read(&self, ranges: &[(u64, u64)]) {
        self.0.inner().announce(ranges);
    }

    fn batched_reads(&self) -> bool {
        true
    }
}

/// A JS exception as an I/O error (a file removed or changed since it was chosen raises
/// `NotReadableError`).
pub fn js_error(value: JsValue) -> io::Error {
    io::Error::other(describe_js(&value))
}

/// A Blob holding `text` with MIME type `mime`, and an object URL for it (the caller revokes
/// it when done). Used for downloads and for the worker's bootstrap script.
pub fn text_blob_url(text: &str, mime: &str) -> Result<String, String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type(mime);
    let blob =
        Blob::new_with_str_sequence_and_options(&parts, &bag).map_err(|e| describe_js(&e))?;
    web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| describe_js(&e))
}

/// A readable description of a thrown JS value.
pub fn describe_js(value: &JsValue) -> String {
    if let Some(e) = value.dyn_ref::<js_sys::Error>() {
        return format!("{}: {}", String::from(e.name()), String::from(e.message()));
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}
