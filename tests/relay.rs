//! The page's helper worker (`prv::timeline::prefetch::relay`), emulated natively: a helper
//! that shares no memory with the analysis and only exchanges messages with it must not change
//! the report by one byte, counters included, whatever it manages to send, when, and whatever
//! goes wrong on its side (damaged batches, a helper that claims files and never sends them, a
//! helper that stops early, damaged manifests it cannot decode).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::path::Path;
use std::rc::Rc;

use prv::source::{native, Artifact, Input};
use prv::timeline::prefetch::relay::{HelperDecoder, HelperLink, HelperMessage, Relay, RelayStats};
use prv::{analyze, analyze_prefetched, AnalysisOptions, Limits};

fn options(limits: &Limits) -> AnalysisOptions {
    AnalysisOptions {
        now_millis: Some(1_800_000_000_000),
        limits: limits.clone(),
        ..AnalysisOptions::default()
    }
}

fn open_path(path: &Path, limits: &Limits) -> Artifact {
    Artifact::open(
        vec![native::open_input(path, limits).expect("input")],
        limits,
    )
    .expect("open")
}

fn open_bytes(bytes: &[u8], limits: &Limits) -> Artifact {
    Artifact::open(
        vec![Input::Zip {
            name: "artifact.zip".into(),
            data: Rc::new(bytes.to_vec()),
        }],
        limits,
    )
    .expect("open")
}

/// How the emulated helper behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Helper {
    /// Decodes everything before the analysis starts.
    First,
    /// Claims a batch at one turn of the event loop and sends it at the next, racing the
    /// analysis (so the analysis waits for claimed files, and decodes unclaimed ones itself).
    Racing,
    /// Claims batches and sends bytes that are not a batch.
    Garbage,
    /// Claims the newest files and then never answers again.
    Silent,
    /// Sends two batches, then stops.
    StopsEarly,
}

/// A helper in the same thread, stepped whenever the analysis lets the event loop turn.
struct Emulated {
    mode: Helper,
    decoder: RefCell<HelperDecoder<'static>>,
    inbox: RefCell<VecDeque<HelperMessage>>,
    /// A claimed batch not sent yet.
    pending: RefCell<Option<std::ops::Range<usize>>>,
    reached: Cell<Option<usize>>,
    turns: Cell<u32>,
    clock: Cell<f64>,
    stopped: Cell<bool>,
}

impl Emulated {
    fn new(mode: Helper, artifact: Artifact, limits: &Limits) -> Emulated {
        let artifact: &'static Artifact = Box::leak(Box::new(artifact));
        let e = Emulated {
            mode,
            decoder: RefCell::new(HelperDecoder::new(artifact, limits)),
            inbox: RefCell::new(VecDeque::new()),
            pending: RefCell::new(None),
            reached: Cell::new(None),
            turns: Cell::new(0),
            clock: Cell::new(0.0),
            stopped: Cell::new(false),
        };
        if mode == Helper::First {
            while !e.stopped.get() {
                e.turn();
            }
        }
        e
    }

    fn send(&self, from: usize, batch: Vec<u8>) {
        self.inbox
            .borrow_mut()
            .push_back(HelperMessage::Sent { from, batch });
    }

    fn stop(&self) {
        if !self.stopped.replace(true) {
            self.inbox.borrow_mut().push_back(HelperMessage::Stopped);
        }
    }

    /// One turn of the helper's loop.
    fn turn(&self) {
        if self.stopped.get() {
            return;
        }
        let turns = self.turns.get() + 1;
        self.turns.set(turns);
        let pending = self.pending.borrow_mut().take();
        if let Some(claimed) = pending {
            let from = claimed.start;
            match self.mode {
                Helper::Garbage => self.send(from, b"not a batch".to_vec()),
                // claimed, never sent
                Helper::Silent => return,
                _ => {
                    let batch = self.decoder.borrow_mut().decode(claimed);
                    self.send(from, batch);
                }
            }
        }
        if self.mode == Helper::StopsEarly && turns > 4 {
            self.stop();
            return;
        }
        let claimed = self.decoder.borrow_mut().claim(3, self.reached.get());
        match claimed {
            Some(claimed) => {
                self.inbox.borrow_mut().push_back(HelperMessage::Claimed {
                    from: claimed.start,
                });
                if self.mode == Helper::First {
                    let from = claimed.start;
                    let batch = self.decoder.borrow_mut().decode(claimed);
                    self.send(from, batch);
                } else {
                    *self.pending.borrow_mut() = Some(claimed);
                }
            }
            None => self.stop(),
        }
    }
}

impl HelperLink for &Emulated {
    fn receive(&self) -> Vec<HelperMessage> {
        self.inbox.borrow_mut().drain(..).collect()
    }

    fn pause(&self) {
        self.turn();
    }

    fn wait(&self) -> bool {
        // A silent helper never answers: the link's time limit passes.
        if self.mode == Helper::Silent && self.turns.get() > 0 {
            return false;
        }
        self.turn();
        !self.inbox.borrow().is_empty()
    }

    fn reached(&self, index: usize) {
        self.reached.set(Some(index));
    }

    fn now_millis(&self) -> f64 {
        let t = self.clock.get() + 0.4;
        self.clock.set(t);
        t
    }
}

/// The report without a helper, and with an emulated one.
fn both_ways(
    mode: Helper,
    limits: &Limits,
    open: &dyn Fn() -> Artifact,
) -> (String, String, RelayStats) {
    let options = options(limits);
    let plain = prv::report::json::render(&analyze(&open(), &options, &mut |_| {}));
    let helper = Emulated::new(mode, open(), limits);
    let artifact = open();
    let relay = Relay::new(&artifact, &helper);
    let report = analyze_prefetched(&artifact, &options, &relay, &mut |_| {});
    let stats = relay.stats();
    drop(relay);
    assert_eq!(
        helper.reached.get(),
        Some(usize::MAX),
        "the helper is told the analysis is over"
    );
    (plain, prv::report::json::render(&report), stats)
}

#[test]
fn every_fixture_gives_the_same_report_with_a_helper_worker() {
    let limits = Limits::default();
    let (mut taken, mut waits, mut decoded_here) = (0, 0, 0);
    for path in common::all_fixture_zips() {
        for mode in [Helper::First, Helper::Racing] {
            let (plain, relayed, stats) = both_ways(mode, &limits, &|| open_path(&path, &limits));
            assert_eq!(plain, relayed, "{} with a helper, {mode:?}", path.display());
            match mode {
                Helper::First => {
                    // everything the helper could decode arrived before the analysis asked
                    assert!(
                        stats.arrived <= stats.candidates,
                        "{}: {stats:?}",
                        path.display()
                    );
                    assert_eq!(stats.waits, 0, "{}: {stats:?}", path.display());
                    taken += stats.taken;
                }
                _ => {
                    waits += stats.waits;
                    decoded_here += stats.candidates - stats.taken;
                }
            }
        }
    }
    // Not a test of nothing: thousands of files came from the helper, and when racing, the
    // analysis both waited for claimed files and decoded unclaimed ones itself.
    assert!(
        taken > 1_000,
        "only {taken} files were taken from the helper"
    );
    assert!(
        waits > 10,
        "the analysis never waited for the helper ({waits})"
    );
    assert!(
        decoded_here > 100,
        "the analysis decoded only {decoded_here} files itself"
    );
}

#[test]
fn a_helper_that_fails_changes_nothing() {
    let limits = Limits::default();
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    for mode in [Helper::Garbage, Helper::Silent, Helper::StopsEarly] {
        let (plain, relayed, stats) = both_ways(mode, &limits, &|| open_path(&path, &limits));
        assert_eq!(plain, relayed, "{mode:?}");
        match mode {
            Helper::Garbage => assert!(stats.bad_batches > 0, "{stats:?}"),
            Helper::StopsEarly => assert!(stats.taken > 0, "{stats:?}"),
            _ => assert_eq!(stats.taken, 0, "{stats:?}"),
        }
    }
}

#[test]
fn a_run_wide_limit_is_met_at_the_same_file_with_a_helper_worker() {
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let full = analyze(
        &open_path(&path, &Limits::default()),
        &options(&Limits::default()),
        &mut |_| {},
    )
    .stats;
    for fraction in [3, 2] {
        let limits = Limits {
            max_total_bytes: full.bytes_inflated / fraction,
            ..Limits::default()
        };
        for mode in [Helper::First, Helper::Racing] {
            let (plain, relayed, _) = both_ways(mode, &limits, &|| open_path(&path, &limits));
            assert!(plain.contains("max-total-bytes"), "the limit is met");
            assert_eq!(plain, relayed, "1/{fraction} of the bytes, {mode:?}");
        }
    }
}

#[test]
fn damaged_manifests_are_reported_the_same_with_a_helper_worker() {
    let mut damaged = 0;
    let entries =
        common::fixture_entries("warehouses/java09_lookup_nowait.zip", |path, mut bytes| {
            let (_, file) = path.rsplit_once('/').unwrap_or(("", path));
            if !file.starts_with("manifest-") || file.starts_with("manifest-list-") || damaged >= 12
            {
                return Some(bytes);
            }
            damaged += 1;
            if damaged % 2 == 0 {
                bytes.truncate(bytes.len() / 2);
            } else if let Some(b) = bytes.last_mut() {
                *b ^= 0xff; // a wrong sync marker
            }
            Some(bytes)
        });
    assert_eq!(damaged, 12);
    let zip = common::zip_bytes(&entries);
    let limits = Limits::default();
    for mode in [Helper::First, Helper::Racing] {
        let (plain, relayed, stats) = both_ways(mode, &limits, &|| open_bytes(&zip, &limits));
        assert!(plain.contains("unreadable-file"), "the damage is reported");
        assert_eq!(plain, relayed, "{mode:?}");
        if mode == Helper::First {
            assert_eq!(stats.arrived + 12, stats.candidates, "{stats:?}");
        }
    }
}

#[test]
fn every_fixture_manifest_crosses_the_wire_unchanged() {
    use prv::timeline::prefetch::wire::{read_batch, BatchWriter};
    use prv::timeline::prefetch::{ahead_limits, candidates, decode_ahead, Decoded};
    let limits = ahead_limits(&Limits::default());
    let mut files = 0;
    for path in common::all_fixture_zips() {
        let artifact = open_path(&path, &limits);
        let mut cache = prv::paimon::avro::AvroSchemaCache::new();
        let decoded: Vec<_> = candidates(&artifact)
            .into_iter()
            .filter_map(|p| decode_ahead(&artifact, p, &mut cache, &limits).map(|d| (p, d)))
            .collect();
        let mut writer = BatchWriter::new();
        for (p, d) in &decoded {
            writer.push(p, d);
        }
        let back = read_batch(&writer.finish()).expect("reads back");
        assert_eq!(back.len(), decoded.len());
        for ((p, d), (q, e)) in decoded.iter().zip(&back) {
            assert_eq!(p, q);
            assert_eq!(d.bytes_read, e.bytes_read);
            assert_eq!(d.bytes_decompressed, e.bytes_decompressed);
            match (&d.decoded, &e.decoded) {
                (Decoded::List(a), Decoded::List(b)) => assert_eq!(a, b, "{p}"),
                (Decoded::Manifest(a), Decoded::Manifest(b)) => assert_eq!(a, b, "{p}"),
                _ => panic!("{p}: the kind changed"),
            }
        }
        files += back.len();
    }
    assert!(files > 1_000, "{files}");
}
