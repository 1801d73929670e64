//! The core alone, as wasm, for measurements (bench/core-wasm.mjs).
//!
//! The page's worker reads the user's Blob in ranges, posts progress and keeps the analysis for
//! detail requests. This runs only what the CLI runs: open a zip that is already in memory,
//! analyse it with the default options, render the JSON report. Timing it in Chromium and in
//! Node, next to the page and the CLI, tells what the browser's wasm engine costs and what the
//! page adds.

use std::rc::Rc;

use prv::source::{Artifact, Input, RandomAccess};

#[cfg(any(
    test,
    all(target_arch = "wasm32", target_feature = "atomics", feature = "arenas")
))]
#[allow(unsafe_code)]
mod arenas;

#[cfg(all(target_arch = "wasm32", target_feature = "atomics", feature = "arenas"))]
#[global_allocator]
static ALLOCATOR: arenas::PerThreadArenas = arenas::PerThreadArenas::new();
use wasm_bindgen::prelude::wasm_bindgen;

/// The CLI's default options with a fixed clock, so that every run does the same work.
fn options() -> prv::AnalysisOptions {
    prv::AnalysisOptions {
        now_millis: Some(0),
        ..Default::default()
    }
}

/// `data` as the one zip of an artifact.
fn zip_input(data: Rc<dyn RandomAccess>) -> Input {
    Input::Zip {
        name: "artifact.zip".into(),
        data,
    }
}

/// Analyses the zip `bytes` as the CLI does (`--format json`); returns the report's length in
/// bytes, or an error message.
#[wasm_bindgen]
pub fn analyse_zip(bytes: Vec<u8>) -> Result<usize, String> {
    let options = options();
    let artifact = Artifact::open(vec![zip_input(Rc::new(bytes))], &options.limits)
        .map_err(|e| e.to_string())?;
    let analysis = prv::run(&artifact, &options, &mut |_| {});
    Ok(prv::report::json::render(&analysis.report).len())
}

/// Grows the wasm memory in one step as the page's worker does when it opens the user's file
/// ([`prv::source::reserve_heap`]), so that the analysis here meets the same memory as the
/// page's. Returns the MiB reserved (0 if none could be).
#[wasm_bindgen]
pub fn reserve_memory(input_bytes: f64) -> u32 {
    (prv::source::reserve_heap(input_bytes as u64) >> 20) as u32
}

/// Makes `mib` MiB of wasm memory resident (writes every byte of a block that size) and gives
/// it back to the allocator, which carves the next analysis's allocations from it: separates
/// the cost of faulting in fresh memory from the analysis's own. Returns `mib`, or 0 if the
/// allocation failed.
#[wasm_bindgen]
pub fn touch_memory(mib: u32) -> u32 {
    let bytes = (mib as usize) << 20;
    let mut block: Vec<u8> = Vec::new();
    if block.try_reserve_exact(bytes).is_err() {
        return 0;
    }
    block.resize(bytes, 1);
    drop(std::hint::black_box(block));
    mib
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyses_the_bundled_example() {
        let zip = include_bytes!(
            "../../../tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip"
        );
        let len = analyse_zip(zip.to_vec()).unwrap_or(0);
        assert!(len > 1000, "report of {len} bytes");
    }

    #[test]
    fn rejects_what_is_not_a_zip() {
        assert!(analyse_zip(b"not a zip".to_vec()).is_err());
    }
}

/// The core's helper threads in wasm, for a build with shared memory (`-C
/// target-feature=+atomics` and the linker's `--shared-memory`, `bench/core-wasm.mjs
/// --threads`): Web Workers instantiate this module on the same memory and each runs
/// [`pool_worker_loop`], taking the prefetch's helper jobs from a queue in that memory.
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
mod threads {
    use std::collections::VecDeque;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::{Arc, Condvar, Mutex, PoisonError};

    use prv::source::{Artifact, RandomAccess};
    use prv::timeline::prefetch::{HelperJob, ThreadedPrefetch};

    use super::{options, zip_input};
    use wasm_bindgen::prelude::wasm_bindgen;
    use wasm_bindgen::JsValue;

    static QUEUE: Mutex<VecDeque<HelperJob>> = Mutex::new(VecDeque::new());
    /// Files the last threaded analysis took from its helpers.
    static TAKEN: AtomicU32 = AtomicU32::new(0);
    static QUEUED: Condvar = Condvar::new();

    fn spawn(job: HelperJob) -> bool {
        QUEUE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(job);
        QUEUED.notify_one();
        true
    }

    /// Runs queued helper jobs forever (a pool worker's whole life; it blocks between jobs).
    #[wasm_bindgen]
    pub fn pool_worker_loop() {
        loop {
            let job = {
                let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(job) = queue.pop_front() {
                        break job;
                    }
                    queue = QUEUED.wait(queue).unwrap_or_else(PoisonError::into_inner);
                }
            };
            job();
        }
    }

    /// How many manifest files the last [`analyse_zip_threaded`] took from its helpers.
    #[wasm_bindgen]
    pub fn last_taken_from_helpers() -> u32 {
        TAKEN.load(Ordering::Relaxed)
    }

    /// This module's (shared) memory, for a pool worker to instantiate the module on.
    #[wasm_bindgen]
    pub fn wasm_memory() -> JsValue {
        wasm_bindgen::memory()
    }

    /// The bytes, shared with the helpers (each opens its own view, as the CLI's helpers
    /// open the file again).
    struct SharedBytes(Arc<Vec<u8>>);

    impl RandomAccess for SharedBytes {
        fn size(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            self.0.as_slice().read_exact_at(offset, buf)
        }
    }

    /// [`super::analyse_zip`] with `helpers` helper threads decoding manifests ahead, as the
    /// CLI's `--threads helpers+1` does.
    #[wasm_bindgen]
    pub fn analyse_zip_threaded(bytes: Vec<u8>, helpers: u32) -> Result<usize, String> {
        let options = options();
        let bytes = Arc::new(bytes);
        let for_helpers = Arc::clone(&bytes);
        let prefetch = ThreadedPrefetch::start_with(
            helpers as usize,
            &options.limits,
            move |limits| {
                let input = zip_input(Rc::new(SharedBytes(Arc::clone(&for_helpers))));
                Artifact::open(vec![input], limits)
            },
            spawn,
        );
        let input = zip_input(Rc::new(SharedBytes(bytes)));
        let artifact = Artifact::open(vec![input], &options.limits).map_err(|e| e.to_string())?;
        let report = prv::analyze_prefetched(&artifact, &options, &prefetch, &mut |_| {});
        TAKEN.store(prefetch.stats().taken as u32, Ordering::Relaxed);
        drop(prefetch);
        Ok(prv::report::json::render(&report).len())
    }
}
