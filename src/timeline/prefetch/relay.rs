//! Decoding ahead in a helper that shares no memory with the analysis: the page's workers.
//!
//! A page's Web Workers share no memory (a `SharedArrayBuffer` needs response headers that a
//! static host does not send), so the CLI's helper threads ([`super::ThreadedPrefetch`]) have
//! no place there. The page runs a second worker instead, a *helper*, that opens its own view of
//! the same files and decodes the candidates newest first, exactly as a helper thread does, and
//! posts what it decoded in batches ([`super::wire`]). The analysis runs synchronously in its
//! own worker and asks for candidates oldest first; its [`Relay`] takes a candidate the helper
//! has sent, waits for one the helper is decoding now, and leaves any other to the analysis,
//! telling the helper how far the analysis has come so that it stops where they meet.
//!
//! The two sides only exchange messages, through a [`HelperLink`] (the page implements it with
//! `postMessage` and suspends the analysis through JSPI while it waits; tests implement it with a
//! queue). Every candidate has the same index on both sides ([`super::candidates`] lists two
//! views of the same input identically), and the helper claims indices from the top down, so
//! three numbers describe where the helper is: what it has *claimed* (it is decoding, or has
//! sent, every candidate from there up), what it has *sent* (every batch from there up has
//! arrived), and where it stopped.
//!
//! Nothing here changes the report: results are counted when taken, in the analysis's order,
//! and a candidate that does not arrive (the helper failed on it, stopped, or disappeared) is
//! decoded by the analysis itself, as without a helper. A helper that never answers costs the
//! analysis at most the link's time limit once ([`HelperLink::wait`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use super::wire::{read_batch, BatchWriter};
use super::{ahead_limits, candidates, decode_ahead, Prefetch, Prefetched};
use crate::limits::Limits;
use crate::paimon::avro::AvroSchemaCache;
use crate::source::Artifact;

/// What the helper has told the analysis, as the link delivers it.
#[derive(Debug)]
pub enum HelperMessage {
    /// The helper is decoding the candidates `from..` its previous claim.
    Claimed {
        /// The lowest index it claimed.
        from: usize,
    },
    /// The batch of the candidates `from..` the previous batch: those it could decode (a
    /// [`super::wire`] batch; a candidate missing from it failed there).
    Sent {
        /// The lowest index the batch covers.
        from: usize,
        /// The batch's bytes.
        batch: Vec<u8>,
    },
    /// The helper has stopped: it will send nothing more.
    Stopped,
}

/// The analysis's side of the channel to its helper.
pub trait HelperLink {
    /// The messages that have arrived since the last call, oldest first, without waiting.
    fn receive(&self) -> Vec<HelperMessage>;
    /// Lets messages on their way arrive (in the page, one turn of the worker's event loop).
    fn pause(&self);
    /// Waits until at least one message has arrived; `false` if none came within the link's
    /// time limit (the helper is treated as stopped).
    fn wait(&self) -> bool;
    /// Tells the helper the analysis has reached candidate `index` (or the end, `usize::MAX`):
    /// it decodes nothing at or below it any more.
    fn reached(&self, index: usize);
    /// A monotonic clock, in milliseconds (pauses are paced by it).
    fn now_millis(&self) -> f64;
}

/// What the relay did, for tests and benchmarks (the report does not depend on it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    /// Candidates (manifest lists and manifests in `manifest/` directories).
    pub candidates: u64,
    /// Decoded files that arrived from the helper.
    pub arrived: u64,
    /// Arrived files the analysis took.
    pub taken: u64,
    /// Times the analysis waited for a file the helper was decoding.
    pub waits: u64,
    /// Times the analysis paused to let messages arrive.
    pub pauses: u64,
    /// Batches that could not be read (dropped; their files are decoded by the analysis).
    pub bad_batches: u64,
}

/// At most one pause per this many milliseconds: a pause lets the helper's latest claims in
/// before the analysis decodes a file itself, and costs a turn of the event loop.
const PAUSE_EVERY_MS: f64 = 1.0;

/// Tell the helper where the analysis is at most this often (it only needs it to stop).
const TELL_EVERY_MS: f64 = 1.0;

struct RelayState {
    files: HashMap<String, Prefetched>,
    /// The helper is decoding or has sent every candidate from here up.
    claimed_from: usize,
    /// Every batch from here up has arrived.
    sent_from: usize,
    stopped: bool,
    /// The highest candidate the analysis took or decoded itself.
    reached: Option<usize>,
    told: Option<usize>,
    last_pause: f64,
    last_told: f64,
    stats: RelayStats,
}

/// The analysis's [`Prefetch`] when its helper shares no memory with it (see the module doc).
pub struct Relay<L: HelperLink> {
    link: L,
    index: HashMap<String, usize>,
    state: RefCell<RelayState>,
}

impl<L: HelperLink> Relay<L> {
    /// A relay for the candidates of `artifact` (the analysis's view), over `link`.
    pub fn new(artifact: &Artifact, link: L) -> Relay<L> {
        let index: HashMap<String, usize> = candidates(artifact)
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p.to_string(), i))
            .collect();
        let n = index.len();
        Relay {
            link,
            state: RefCell::new(RelayState {
                files: HashMap::new(),
                claimed_from: n,
                sent_from: n,
                stopped: false,
                reached: None,
                told: None,
                last_pause: f64::NEG_INFINITY,
                last_told: f64::NEG_INFINITY,
                stats: RelayStats {
                    candidates: n as u64,
                    ..RelayStats::default()
                },
            }),
            index,
        }
    }

    /// What the relay has done so far.
    pub fn stats(&self) -> RelayStats {
        self.state.borrow().stats
    }

    /// Tells the helper the analysis is over (it stops at once). Also done on drop.
    pub fn finish(&self) {
        self.link.reached(usize::MAX);
    }

    fn absorb(&self, state: &mut RelayState) {
        for message in self.link.receive() {
            match message {
                HelperMessage::Claimed { from } => {
                    state.claimed_from = state.claimed_from.min(from);
                }
                HelperMessage::Sent { from, batch } => {
                    state.claimed_from = state.claimed_from.min(from);
                    state.sent_from = state.sent_from.min(from);
                    match read_batch(&batch) {
                        Ok(files) => {
                            state.stats.arrived += files.len() as u64;
                            state.files.extend(files);
                        }
                        Err(_) => state.stats.bad_batches += 1,
                    }
                }
                HelperMessage::Stopped => state.stopped = true,
            }
        }
    }

    fn tell(&self, state: &mut RelayState, now: f64) {
        if state.told != state.reached && now - state.last_told >= TELL_EVERY_MS {
            if let Some(reached) = state.reached {
                self.link.reached(reached);
            }
            state.told = state.reached;
            state.last_told = now;
        }
    }
}

impl<L: HelperLink> Prefetch for Relay<L> {
    fn take(&self, path: &str) -> Option<Prefetched> {
        let &i = self.index.get(path)?;
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        self.absorb(state);
        let mut waited = false;
        let mut paused = false;
        let found = loop {
            if let Some(file) = state.files.remove(path) {
                state.stats.taken += 1;
                break Some(file);
            }
            if i >= state.sent_from || state.stopped {
                // Its batch came without it (the helper failed on it), or it never will.
                break None;
            }
            if i >= state.claimed_from {
                // The helper is decoding it now.
                if !waited {
                    state.stats.waits += 1;
                    waited = true;
                }
                if !self.link.wait() {
                    state.stopped = true;
                }
                self.absorb(state);
                continue;
            }
            // Not claimed as far as we know: let the latest news in (at most once per
            // PAUSE_EVERY_MS), then decode it here if the helper has still not claimed it.
            let now = self.link.now_millis();
            if paused || now - state.last_pause < PAUSE_EVERY_MS {
                break None;
            }
            paused = true;
            state.last_pause = now;
            state.stats.pauses += 1;
            self.link.pause();
            self.absorb(state);
        };
        state.reached = Some(state.reached.map_or(i, |r| r.max(i)));
        let now = self.link.now_millis();
        self.tell(state, now);
        found
    }
}

impl<L: HelperLink> Drop for Relay<L> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The helper's side: its own view of the input, decoding the candidates newest first in
/// batches, down to where the analysis has come.
pub struct HelperDecoder<'a> {
    artifact: &'a Artifact,
    candidates: Vec<&'a str>,
    /// Candidates below this one are not claimed yet.
    next: usize,
    cache: AvroSchemaCache,
    limits: Limits,
}

impl<'a> HelperDecoder<'a> {
    /// A helper over its own view of the input (opened with the analysis's limits).
    pub fn new(artifact: &'a Artifact, limits: &Limits) -> HelperDecoder<'a> {
        let candidates = candidates(artifact);
        HelperDecoder {
            artifact,
            next: candidates.len(),
            candidates,
            cache: AvroSchemaCache::new(),
            limits: ahead_limits(limits),
        }
    }

    /// How many candidates there are.
    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// Claims the next (at most) `count` candidates, newest first, none at or below `reached`
    /// (where the analysis has come): their indices, or `None` when nothing is left.
    pub fn claim(&mut self, count: usize, reached: Option<usize>) -> Option<Range<usize>> {
        let claimed = claim_below(self.next, count, reached)?;
        self.next = claimed.start;
        Some(claimed)
    }

    /// Decodes the candidates `claimed` into one batch (those that fail are left out: the
    /// analysis decodes them itself and reports why).
    pub fn decode(&mut self, claimed: Range<usize>) -> Vec<u8> {
        let mut batch = BatchWriter::new();
        for i in claimed.rev() {
            let Some(&path) = self.candidates.get(i) else {
                continue;
            };
            if let Some(file) = decode_ahead(self.artifact, path, &mut self.cache, &self.limits) {
                batch.push(path, &file);
            }
        }
        batch.finish()
    }
}

/// The next claim below `next`: at most `count` indices, none at or below `reached`.
fn claim_below(next: usize, count: usize, reached: Option<usize>) -> Option<Range<usize>> {
    let floor = reached.map_or(0, |r| r.saturating_add(1));
    if next <= floor || count == 0 {
        return None;
    }
    Some(next.saturating_sub(count).max(floor)..next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_go_down_and_stop_where_the_analysis_is() {
        assert_eq!(claim_below(10, 3, None), Some(7..10));
        assert_eq!(claim_below(7, 3, Some(2)), Some(4..7));
        assert_eq!(claim_below(4, 3, Some(2)), Some(3..4));
        assert_eq!(claim_below(3, 3, Some(2)), None);
        assert_eq!(claim_below(10, 0, None), None);
        assert_eq!(claim_below(10, 3, Some(usize::MAX)), None);
        assert_eq!(claim_below(2, 5, None), Some(0..2));
    }
}
