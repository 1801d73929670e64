//! Decoding manifest lists and manifests ahead of the analysis, on other threads (native, and
//! wasm built with shared memory).
//!
//! Decoding the `manifest/` directory is most of an analysis (two thirds of the CLI's time on a
//! 6,000-snapshot table: inflating each zip entry, zstd, Avro). The analysis itself walks the
//! snapshots one after the other, so the CLI runs helper threads that decode those files in
//! advance while the analysis reads snapshots and resolves the timeline, and the
//! [`super::files::ManifestStore`] takes their results instead of decoding again.
//!
//! The report must not change by a single byte with the number of threads, counters included.
//! So a helper only *decodes*: it reads through its own view of the input (a second
//! [`Artifact`] opened on the same bytes, whose reads count nowhere), and a result is *counted*
//! when the analysis takes it, in the analysis's order: the read against the run's
//! `max-total-bytes` and files-read counters ([`Artifact::count_read_elsewhere`]), the
//! decompressed Avro blocks against the run's decompression budget
//! ([`crate::paimon::avro::AvroSchemaCache::count_decompressed_elsewhere`]), the decode against
//! `manifests_decoded`. Whenever a result could differ from what the analysis would get by
//! decoding the file itself (the helper failed, or a run-wide limit is near), the store decodes
//! the file itself and meets exactly what it would have met without helpers.
//!
//! Helpers work oldest file first (by modification time), the order in which the analysis asks
//! for them (snapshot by snapshot), and stay a bounded number of entries ahead of it: a result
//! is taken soon after it is decoded, so what waits is small. A file the analysis asks for that
//! no helper has started is decoded by the analysis at once, and the helpers skip it; a file
//! being decoded is waited for. Once the analysis asks, helpers keep `LEAD` files ahead of the
//! newest it asked for: when it catches up with them it decodes the next few itself rather than
//! wait on the file a helper has in hand, and the two work side by side.
//!
//! (They used to work newest first and meet the analysis in the middle: on a table of 472k
//! data files, half of its 1.09M manifest entries then waited, decoded, at the meeting point,
//! 130 MB of the peak; `BENCHMARKS.md`, "The prefetch window".)

use crate::paimon::manifest::Manifest;
use crate::paimon::manifest_list::ManifestNames;

/// A metadata file decoded ahead.
#[derive(Debug)]
pub enum Decoded {
    /// A manifest list: its manifests' names.
    List(ManifestNames),
    /// A manifest: its entries.
    Manifest(Manifest),
}

impl Decoded {
    /// The entries it holds (what its memory grows with), at least 1: an empty result still
    /// takes memory while it waits.
    pub fn rows(&self) -> usize {
        let rows = match self {
            Decoded::List(names) => names.len(),
            Decoded::Manifest(entries) => entries.len(),
        };
        rows.max(1)
    }

    /// The manifest list's names, if it was decoded as one.
    pub fn into_list(self) -> Option<ManifestNames> {
        match self {
            Decoded::List(names) => Some(names),
            Decoded::Manifest(_) => None,
        }
    }

    /// The manifest's entries, if it was decoded as one.
    pub fn into_manifest(self) -> Option<Manifest> {
        match self {
            Decoded::Manifest(entries) => Some(entries),
            Decoded::List(_) => None,
        }
    }
}

/// A file decoded ahead, with what reading it cost, to be counted when it is taken.
#[derive(Debug)]
pub struct Prefetched {
    /// The decoded content.
    pub decoded: Decoded,
    /// Bytes the read of the file delivered (inflated bytes of a zip entry).
    pub bytes_read: u64,
    /// Bytes of Avro blocks the decode decompressed.
    pub bytes_decompressed: u64,
}

/// Where the [`super::files::ManifestStore`] looks before decoding a file itself.
pub trait Prefetch {
    /// The file at `path` (an artifact path) if it was decoded ahead, waiting for it if it is
    /// being decoded now. `None` when it was not (not a candidate, not started, failed, already
    /// taken): the caller decodes it.
    fn take(&self, path: &str) -> Option<Prefetched>;
}

/// Whether `path` is one a helper decodes ahead: a manifest list or manifest in a `manifest/`
/// directory (index manifests are few and small).
pub fn is_candidate(path: &str) -> bool {
    let (dir, name) = crate::warehouse::split_parent(path);
    is_candidate_file(dir, name)
}

/// [`is_candidate`] of the file `name` in `dir`.
fn is_candidate_file(dir: &str, name: &str) -> bool {
    let dir_name = dir.rsplit('/').next().unwrap_or(dir);
    dir_name == "manifest" && name.starts_with("manifest-")
}

#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
pub use threaded::{HelperJob, PrefetchStats, ThreadedPrefetch};

#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
mod threaded {
    use std::collections::HashMap;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

    use super::{is_candidate_file, Decoded, Prefetch, Prefetched};
    use crate::error::Result;
    use crate::limits::Limits;
    use crate::paimon::avro::AvroSchemaCache;
    use crate::paimon::manifest::read_manifest;
    use crate::paimon::manifest_list::read_manifest_names;
    use crate::source::Artifact;

    /// How many candidates past the newest the analysis asked for a helper leaves to it.
    const LEAD: usize = 8;

    /// How many rows (manifest entries, manifest-list entries; an empty result counts as one)
    /// the waiting results may hold together before a helper waits for the analysis to take
    /// some: a decoded entry is ~160 bytes, so ~10 MB, a hundred manifests of a wide table
    /// ahead of the analysis.
    const MAX_WAITING_ROWS: usize = 1 << 16;

    enum Slot {
        /// Nobody has started it.
        Queued,
        /// A helper is decoding it.
        Decoding,
        /// Decoded, waiting to be taken.
        Done(Box<Prefetched>),
        /// The helper could not decode it (or it was taken by the analysis to decode itself,
        /// or already taken): the analysis decodes it itself.
        Gone,
    }

    struct State {
        slots: Vec<Slot>,
        /// Candidates `next..` are the ones no helper has looked at yet (helpers take the
        /// oldest first).
        next: usize,
        /// Rows the decoded results not yet taken hold ([`Decoded::rows`]).
        waiting_rows: usize,
        /// One past the newest candidate the analysis asked for, once it asked for one.
        asked: Option<usize>,
        /// Helpers decoding a file now.
        busy: usize,
        /// Helpers started and not yet returned (the ones [`ThreadedPrefetch`]'s drop waits for).
        running: usize,
        /// Helpers handed to the spawner and not yet returned, started or not.
        pending: usize,
        stop: bool,
        stats: PrefetchStats,
    }

    /// The files the helpers decode, oldest first, as the first helper to open the input
    /// listed them.
    struct Candidates {
        index: HashMap<String, usize>,
        paths: Vec<String>,
    }

    impl State {
        /// Whether the results waiting to be taken are as many as a helper may keep.
        fn is_full(&self) -> bool {
            self.waiting_rows >= MAX_WAITING_ROWS
        }
    }

    struct Shared {
        candidates: OnceLock<Candidates>,
        state: Mutex<State>,
        changed: Condvar,
    }

    impl Shared {
        fn lock(&self) -> MutexGuard<'_, State> {
            // A helper's panic is caught before it can poison the lock; if one ever did, the
            // state is still consistent (every transition is a single assignment).
            self.state.lock().unwrap_or_else(PoisonError::into_inner)
        }

        /// Publishes the candidates of `artifact` unless another helper already has.
        fn publish(&self, artifact: &Artifact) -> &Candidates {
            let mut state = self.lock();
            self.candidates.get_or_init(|| {
                let mut listed: Vec<(i64, String)> = artifact
                    .files()
                    .iter()
                    .filter(|f| is_candidate_file(f.dir(), f.name()))
                    .map(|f| {
                        let time = f.modified().map_or(i64::MIN, |t| t.to_utc_millis(None));
                        (time, f.path())
                    })
                    .collect();
                listed.sort_unstable();
                let paths: Vec<String> = listed.into_iter().map(|(_, p)| p).collect();
                let index = paths
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.clone(), i))
                    .collect();
                state.slots = (0..paths.len()).map(|_| Slot::Queued).collect();
                state.next = 0;
                state.stats.candidates = paths.len() as u64;
                Candidates { index, paths }
            })
        }

        /// The next candidate for a helper, oldest first; `None` when there is none or the
        /// analysis is over.
        fn claim(&self) -> Option<usize> {
            let mut state = self.lock();
            loop {
                if state.stop {
                    return None;
                }
                if state.is_full() {
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
                let i = match state.asked {
                    Some(asked) => state.next.max(asked.saturating_add(LEAD)),
                    None => state.next,
                };
                if i >= state.slots.len() {
                    return None;
                }
                state.next = i + 1;
                if let Some(slot @ Slot::Queued) = state.slots.get_mut(i) {
                    *slot = Slot::Decoding;
                    state.busy += 1;
                    return Some(i);
                }
            }
        }

        fn finish(&self, i: usize, result: Option<Prefetched>) {
            let mut state = self.lock();
            state.busy = state.busy.saturating_sub(1);
            let done = result.is_some();
            let rows = result.as_ref().map_or(0, |p| p.decoded.rows());
            if let Some(slot) = state.slots.get_mut(i) {
                *slot = match result {
                    Some(p) => Slot::Done(Box::new(p)),
                    None => Slot::Gone,
                };
            }
            if done {
                state.waiting_rows += rows;
                state.stats.decoded_ahead += 1;
            } else {
                state.stats.failed += 1;
            }
            drop(state);
            self.changed.notify_all();
        }
    }

    /// What the helpers did, for tests and benchmarks (the report does not depend on it).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct PrefetchStats {
        /// Candidate files (manifest lists and manifests in `manifest/` directories).
        pub candidates: u64,
        /// Files the helpers decoded.
        pub decoded_ahead: u64,
        /// Files the helpers could not decode (the analysis decodes them and reports why).
        pub failed: u64,
        /// Decoded files the analysis took.
        pub taken: u64,
        /// Times the analysis waited for a helper to finish the file it asked for.
        pub waited: u64,
    }

    /// One helper's whole work, for a thread to run (see [`ThreadedPrefetch::start_with`]).
    pub type HelperJob = Box<dyn FnOnce() + Send + 'static>;

    /// Helper threads decoding an artifact's manifest lists and manifests ahead of the analysis.
    /// Dropping it stops them (each finishes the file in hand) and waits for the ones that have
    /// started.
    pub struct ThreadedPrefetch {
        shared: Arc<Shared>,
    }

    impl ThreadedPrefetch {
        /// Starts `helpers` threads, at once (before the analysis has even opened the input:
        /// opening a large zip is a tenth of the work). Each opens its own view of the input
        /// with `open`, given the analysis's `limits` without the run-wide `max-total-bytes`
        /// (that one is counted when a result is taken); the first to have opened it lists the
        /// candidates. A helper that cannot open the input, or fails on a file, leaves the work
        /// to the analysis.
        #[cfg(not(target_arch = "wasm32"))]
        pub fn start<F>(helpers: usize, limits: &Limits, open: F) -> ThreadedPrefetch
        where
            F: Fn(&Limits) -> Result<Artifact> + Send + Sync + 'static,
        {
            let mut n = 0;
            Self::start_with(helpers, limits, open, |job| {
                n += 1;
                std::thread::Builder::new()
                    .name(format!("prv-prefetch-{n}"))
                    .spawn(job)
                    .is_ok()
            })
        }

        /// [`ThreadedPrefetch::start`] with the threads given by `spawn`, which runs each
        /// [`HelperJob`] on a thread sharing this one's memory and says whether it will (wasm
        /// has no `std::thread`: there, a pool of Web Workers sharing the module's memory). A
        /// job that starts after the prefetch was dropped returns at once, and dropping waits
        /// only for jobs that have started, so a job still queued never blocks the analysis.
        pub fn start_with<F, S>(
            helpers: usize,
            limits: &Limits,
            open: F,
            mut spawn: S,
        ) -> ThreadedPrefetch
        where
            F: Fn(&Limits) -> Result<Artifact> + Send + Sync + 'static,
            S: FnMut(HelperJob) -> bool,
        {
            let shared = Arc::new(Shared {
                candidates: OnceLock::new(),
                state: Mutex::new(State {
                    slots: Vec::new(),
                    next: 0,
                    waiting_rows: 0,
                    asked: None,
                    busy: 0,
                    running: 0,
                    pending: 0,
                    stop: false,
                    stats: PrefetchStats::default(),
                }),
                changed: Condvar::new(),
            });
            let mut limits = limits.clone();
            limits.max_total_bytes = u64::MAX;
            let open = Arc::new(open);
            for _ in 0..helpers {
                let job_shared = Arc::clone(&shared);
                let open = Arc::clone(&open);
                let limits = limits.clone();
                shared.lock().pending += 1;
                let spawned = spawn(Box::new(move || {
                    helper(&job_shared, open.as_ref(), &limits)
                }));
                if !spawned {
                    shared.lock().pending -= 1;
                }
            }
            ThreadedPrefetch { shared }
        }

        /// Blocks until the helpers have nothing left to do (every candidate decoded or
        /// failed, as many results waiting as they may keep, or every helper gone). For tests
        /// and benchmarks: the analysis never needs to wait for it.
        pub fn wait_until_idle(&self) {
            let mut state = self.shared.lock();
            loop {
                let idle = state.pending == 0
                    || (self.shared.candidates.get().is_some()
                        && state.busy == 0
                        && (state.next >= state.slots.len() || state.is_full()));
                if idle {
                    return;
                }
                state = self
                    .shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }

        /// What the helpers have done so far.
        pub fn stats(&self) -> PrefetchStats {
            self.shared.lock().stats
        }
    }

    fn helper(shared: &Shared, open: &dyn Fn(&Limits) -> Result<Artifact>, limits: &Limits) {
        let mut state = shared.lock();
        let started = !state.stop;
        if started {
            state.running += 1;
        }
        drop(state);
        if started {
            let opened = catch_unwind(AssertUnwindSafe(|| open(limits)));
            if let Ok(Ok(artifact)) = opened {
                decode_candidates(shared, &artifact, limits);
            }
        }
        let mut state = shared.lock();
        if started {
            state.running = state.running.saturating_sub(1);
        }
        state.pending = state.pending.saturating_sub(1);
        drop(state);
        shared.changed.notify_all();
    }

    fn decode_candidates(shared: &Shared, artifact: &Artifact, limits: &Limits) {
        let candidates = shared.publish(artifact);
        let mut cache = AvroSchemaCache::new();
        while let Some(i) = shared.claim() {
            let path = candidates
                .paths
                .get(i)
                .map(String::as_str)
                .unwrap_or_default();
            let result = catch_unwind(AssertUnwindSafe(|| {
                decode(artifact, path, &mut cache, limits)
            }));
            let result = match result {
                Ok(r) => r,
                Err(_) => {
                    // A fresh cache: the one in hand may be half-updated.
                    cache = AvroSchemaCache::new();
                    None
                }
            };
            shared.finish(i, result);
        }
    }

    /// Decodes one candidate the way the [`super::super::files::ManifestStore`] would;
    /// `None` on any failure (the store then decodes it and reports the failure).
    fn decode(
        artifact: &Artifact,
        path: &str,
        cache: &mut AvroSchemaCache,
        limits: &Limits,
    ) -> Option<Prefetched> {
        let entry = artifact.get(path)?;
        let bytes = artifact.read_entry(entry, limits.max_entry_bytes).ok()?;
        let before = cache.bytes_decompressed();
        let (_, name) = crate::warehouse::split_parent(path);
        let decoded = if name.starts_with("manifest-list-") {
            Decoded::List(read_manifest_names(&bytes, cache, limits).ok()?)
        } else {
            Decoded::Manifest(read_manifest(&bytes, cache, limits).ok()?)
        };
        Some(Prefetched {
            decoded,
            bytes_read: bytes.len() as u64,
            bytes_decompressed: cache.bytes_decompressed().saturating_sub(before),
        })
    }

    impl Prefetch for ThreadedPrefetch {
        fn take(&self, path: &str) -> Option<Prefetched> {
            let &i = self.shared.candidates.get()?.index.get(path)?;
            let mut state = self.shared.lock();
            state.asked = state.asked.max(Some(i + 1));
            let mut waited = false;
            loop {
                let slot = state.slots.get_mut(i)?;
                match std::mem::replace(slot, Slot::Gone) {
                    Slot::Queued | Slot::Gone => return None,
                    Slot::Done(p) => {
                        state.waiting_rows = state.waiting_rows.saturating_sub(p.decoded.rows());
                        state.stats.taken += 1;
                        drop(state);
                        self.shared.changed.notify_all();
                        return Some(*p);
                    }
                    Slot::Decoding => {
                        *slot = Slot::Decoding;
                        if !waited {
                            state.stats.waited += 1;
                            waited = true;
                        }
                        state = self
                            .shared
                            .changed
                            .wait(state)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                }
            }
        }
    }

    impl Drop for ThreadedPrefetch {
        fn drop(&mut self) {
            let mut state = self.shared.lock();
            state.stop = true;
            self.shared.changed.notify_all();
            while state.running > 0 {
                state = self
                    .shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_candidate;

    /// Manifest lists and manifests in a `manifest/` directory are decoded ahead; index
    /// manifests, statistics, files elsewhere named like them and other metadata are not.
    #[test]
    fn only_manifest_lists_and_manifests_of_a_manifest_directory_are_candidates() {
        for (path, candidate) in [
            ("w/db.db/t/manifest/manifest-list-0a1b-0", true),
            ("w/db.db/t/manifest/manifest-0a1b-3", true),
            ("manifest/manifest-0a1b-3", true),
            ("w/db.db/t/manifest/index-manifest-0a1b-0", false),
            ("w/db.db/t/manifest/statistics-0a1b-0", false),
            ("w/db.db/t/bucket-0/manifest-0a1b-3", false),
            ("w/db.db/t/old-manifest/manifest-0a1b-3", false),
            ("w/db.db/t/snapshot/snapshot-1", false),
        ] {
            assert_eq!(is_candidate(path), candidate, "{path}");
        }
    }
}
