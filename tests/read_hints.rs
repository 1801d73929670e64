//! Opened with `Artifact::open_announcing` (as the page does), an artifact announces the zip
//! ranges its read-ahead will read for the Paimon metadata directories
//! (`RandomAccess::will_read`), so that a source whose reads are slow round trips (the page's
//! `Blob`) can start them early. A source that starts what it is
//! told must never be told something it then holds for nothing: every announced range must be
//! read later, exactly (same offset and length, so it can be matched), once, and in the order
//! announced; and the announcements must not reach data files the analysis does not read.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use common::zipwriter::Entry;
use prv::source::{Artifact, Input, RandomAccess};
use prv::{analyze, AnalysisOptions, Limits};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Hint(u64, u64),
    Read(u64, u64),
    /// `Artifact::open` returned.
    Opened,
}

/// The bytes of a zip, recording every hint and read; a slow source (`batched`, as the page's
/// `Blob`) or not (a file).
struct Recording {
    bytes: Vec<u8>,
    log: RefCell<Vec<Event>>,
    batched: bool,
}

impl RandomAccess for Recording {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.log
            .borrow_mut()
            .push(Event::Read(offset, buf.len() as u64));
        self.bytes.read_exact_at(offset, buf)
    }

    fn batched_reads(&self) -> bool {
        self.batched
    }

    fn will_read(&self, ranges: &[(u64, u64)]) {
        let mut log = self.log.borrow_mut();
        for &(offset, len) in ranges {
            log.push(Event::Hint(offset, len));
        }
    }
}

fn options() -> AnalysisOptions {
    AnalysisOptions {
        now_millis: Some(1_800_000_000_000),
        ..AnalysisOptions::default()
    }
}

/// Analyses `bytes` as a zip through a [`Recording`], announcing the metadata directories as
/// the page does; the report's JSON and the log.
fn analyse_recorded(bytes: Vec<u8>) -> (String, Vec<Event>) {
    analyse_recorded_with(bytes, prv::warehouse::metadata_dir_rank)
}

/// Analyses `bytes` opened with [`Artifact::open_announcing`] and `rank` (`|_| None`: nothing
/// announced).
fn analyse_recorded_with(bytes: Vec<u8>, rank: prv::source::DirRank) -> (String, Vec<Event>) {
    analyse_source(bytes, rank, true, &options())
}

/// Analyses `bytes` through a [`Recording`] that is `batched` or not.
fn analyse_source(
    bytes: Vec<u8>,
    rank: prv::source::DirRank,
    batched: bool,
    options: &AnalysisOptions,
) -> (String, Vec<Event>) {
    let source = Rc::new(Recording {
        bytes,
        log: RefCell::new(Vec::new()),
        batched,
    });
    let limits = Limits::default();
    let artifact = Artifact::open_announcing(
        vec![Input::Zip {
            name: "artifact.zip".into(),
            data: source.clone() as Rc<dyn RandomAccess>,
        }],
        &limits,
        rank,
    )
    .expect("open");
    source.log.borrow_mut().push(Event::Opened);
    let report = analyze(&artifact, options, &mut |_| {});
    let json = prv::report::json::render(&report);
    let log = source.log.borrow().clone();
    (json, log)
}

/// Every hint is read later, exactly, once, in the order hinted; returns the hints.
fn check_hints_are_consumed(name: &str, log: &[Event]) -> Vec<(u64, u64)> {
    let hints: Vec<(u64, u64)> = log
        .iter()
        .filter_map(|e| match *e {
            Event::Hint(o, l) => Some((o, l)),
            _ => None,
        })
        .collect();
    let mut next = 0;
    for (at, event) in log.iter().enumerate() {
        let Event::Read(o, l) = *event else { continue };
        if hints.get(next) == Some(&(o, l)) {
            let hinted_at = log
                .iter()
                .position(|e| *e == Event::Hint(o, l))
                .expect("hinted");
            assert!(
                hinted_at < at,
                "{name}: range {o}+{l} read before it was hinted"
            );
            next += 1;
        } else {
            assert!(
                !hints[next..].contains(&(o, l)),
                "{name}: hinted range {o}+{l} read out of the hinted order"
            );
        }
    }
    assert_eq!(
        next,
        hints.len(),
        "{name}: hinted ranges never read: {:?}",
        &hints[next..]
    );
    hints
}

#[test]
fn every_hinted_range_is_read_exactly_once_in_order_on_every_fixture() {
    let mut hinted_fixtures = 0;
    for path in common::all_fixture_zips() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (_, log) = analyse_recorded(std::fs::read(&path).unwrap());
        let hints = check_hints_are_consumed(&name, &log);
        if !hints.is_empty() {
            hinted_fixtures += 1;
        }
    }
    // The fixtures with two or more snapshots or manifests have directories read ahead.
    assert!(
        hinted_fixtures >= 10,
        "only {hinted_fixtures} fixtures had their reads announced"
    );
}

/// A source whose reads are not slow (a file, a buffer) is read an entry at a time: nothing is
/// announced or read ahead, every read after opening starts at an entry's local header, and the
/// report is the same. A slow one has entries read together.
#[test]
fn only_a_source_of_slow_reads_is_read_ahead() {
    let metadata_only = AnalysisOptions {
        skip_rows: true,
        ..options()
    };
    let mut batched_elsewhere = 0;
    for path in common::all_fixture_zips() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.clone())).unwrap();
        let entries: Vec<(u64, u64)> = (0..archive.len())
            .map(|i| {
                let e = archive.by_index_raw(i).unwrap();
                (e.header_start(), e.compressed_size())
            })
            .collect();
        let headers: Vec<u64> = entries.iter().map(|&(h, _)| h).collect();
        let rank = prv::warehouse::metadata_dir_rank;
        let (json, log) = analyse_source(bytes.clone(), rank, false, &metadata_only);
        let (batched_json, batched_log) = analyse_source(bytes, rank, true, &metadata_only);
        assert_eq!(json, batched_json, "{name}");
        assert!(!log.iter().any(|e| matches!(e, Event::Hint(..))), "{name}");
        let after_open = |log: &[Event]| -> Vec<(u64, u64)> {
            let opened = log.iter().position(|e| *e == Event::Opened).unwrap();
            log[opened..]
                .iter()
                .filter_map(|e| match *e {
                    Event::Read(o, l) => Some((o, l)),
                    _ => None,
                })
                .collect()
        };
        // Reads inside a nested zip are at its own entries, which the outer listing does not
        // show.
        let nested = (0..archive.len()).any(|i| {
            archive
                .by_index_raw(i)
                .unwrap()
                .name()
                .unwrap()
                .ends_with(".zip")
        });
        for (o, l) in after_open(&log).into_iter().filter(|_| !nested) {
            // One entry: its header (with 512 bytes for its name and extra field) and data,
            // or (a long header) its data just after it.
            let entry = entries
                .iter()
                .filter(|&&(h, _)| o >= h && o <= h + 1024)
                .max_by_key(|&&(h, _)| h);
            let Some(&(_, compressed)) = entry else {
                panic!("{name}: a read of {l} bytes at {o}, at no entry");
            };
            assert!(
                l <= 30 + 512 + compressed,
                "{name}: a read of {l} bytes at {o}, more than its entry"
            );
        }
        let together = after_open(&batched_log)
            .iter()
            .any(|&(o, l)| headers.iter().filter(|&&h| h >= o && h < o + l).count() >= 2);
        if together {
            batched_elsewhere += 1;
        }
    }
    assert!(
        batched_elsewhere >= 10,
        "entries read together in only {batched_elsewhere} fixtures"
    );
}

#[test]
fn announcing_when_the_zip_is_opened_hints_ranges_read_anyway_and_changes_no_read() {
    let mut earlier = 0;
    for path in common::all_fixture_zips() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let (plain_json, plain) = analyse_recorded_with(bytes.clone(), |_| None);
        let (early_json, early) = analyse_recorded(bytes);
        assert_eq!(plain_json, early_json, "{name}");
        assert!(check_hints_are_consumed(&name, &plain).is_empty());
        let early_hints = check_hints_are_consumed(&name, &early);
        // The same reads either way, and every range announced is one the analysis reads
        // without being told: announced before the artifact is even indexed.
        let reads = |log: &[Event]| -> Vec<(u64, u64)> {
            log.iter()
                .filter_map(|e| match *e {
                    Event::Read(o, l) => Some((o, l)),
                    _ => None,
                })
                .collect()
        };
        let plain_reads = reads(&plain);
        assert_eq!(plain_reads, reads(&early), "{name}");
        for hint in &early_hints {
            assert!(plain_reads.contains(hint), "{name}: {hint:?} is not read");
        }
        let announced_before_opened = |log: &[Event]| {
            let opened = log.iter().position(|e| *e == Event::Opened).unwrap();
            log[..opened].iter().any(|e| matches!(e, Event::Hint(..)))
        };
        assert!(!announced_before_opened(&plain), "{name}");
        if !early_hints.is_empty() {
            assert!(announced_before_opened(&early), "{name}");
            earlier += 1;
        }
    }
    assert!(
        earlier >= 10,
        "announced earlier in only {earlier} fixtures"
    );
}

#[test]
fn hints_cover_the_metadata_read_ahead_and_not_the_data_files() {
    let path = common::fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let (_, log) = analyse_recorded(std::fs::read(&path).unwrap());
    let hints = check_hints_are_consumed("java09_d", &log);
    // The snapshot and manifest directories (several small entries each) are announced before
    // the first read of either.
    assert!(hints.len() >= 2, "{hints:?}");
    let first_hint = log
        .iter()
        .position(|e| matches!(e, Event::Hint(..)))
        .unwrap();
    let hinted_reads = log
        .iter()
        .filter(|e| matches!(e, Event::Read(o, l) if hints.contains(&(*o, *l))))
        .count();
    assert_eq!(hinted_reads, hints.len());
    assert!(log[..first_hint]
        .iter()
        .all(|e| matches!(e, Event::Read(..) | Event::Opened)));

    // A table whose data directory holds many small files: those are never announced, since
    // the analysis does not read them.
    let mut entries = common::fixture_entries(
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        |_, b| Some(b),
    );
    let data_dir = entries
        .iter()
        .map(|e| String::from_utf8_lossy(&e.name).into_owned())
        .find(|n| n.contains("bucket-"))
        .map(|n| n.rsplit_once('/').unwrap().0.to_string())
        .expect("a bucket directory");
    for i in 0..50 {
        entries.push(Entry::new(
            &format!("{data_dir}/data-unreferenced-{i}.orc"),
            vec![b'x'; 4000],
        ));
    }
    let bytes = common::zip_bytes(&entries);
    let data_start = {
        // The added files were written last: everything from the first of them on is theirs
        // (and the central directory, which hints never cover).
        let needle = format!("{data_dir}/data-unreferenced-0.orc");
        bytes
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap() as u64
            - 30
    };
    let (_, log) = analyse_recorded(bytes);
    let hints = check_hints_are_consumed("java09_d + data files", &log);
    assert!(!hints.is_empty());
    for (o, l) in hints {
        // (a range may run past its last entry by the slack read for a local header's name)
        assert!(
            o < data_start && o + l <= data_start + 30 + 512,
            "hinted range {o}+{l} reaches into the data files at {data_start}"
        );
    }
}

#[test]
fn hints_through_a_zip_inside_a_zip_are_in_the_outer_zips_offsets() {
    let path = common::fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let inner = std::fs::read(&path).unwrap();
    let outer = common::zip_bytes(&[
        Entry::new("README.txt", b"an artifact of artifacts".to_vec()),
        Entry::new("warehouse.zip", inner.clone()).stored(),
    ]);
    let (_, direct) = analyse_recorded(inner.clone());
    let direct_hints = check_hints_are_consumed("inner", &direct);
    let (_, nested) = analyse_recorded(outer.clone());
    let nested_hints = check_hints_are_consumed("nested", &nested);
    assert_eq!(direct_hints.len(), nested_hints.len());
    let start = outer
        .windows(inner.len().min(64))
        .position(|w| w == &inner[..inner.len().min(64)])
        .unwrap() as u64;
    for ((o, l), (no, nl)) in direct_hints.iter().zip(&nested_hints) {
        assert_eq!((o + start, *l), (*no, *nl));
    }
}

#[test]
fn hints_change_nothing_in_the_report() {
    // The same bytes through a source that ignores hints (Vec<u8>) give the same report.
    for rel in [
        "warehouses/java09_d_crash_between_append_and_compact.zip",
        "warehouses/java09_e_expire_changelog_tag_branch.zip",
    ] {
        let path = common::fixture(rel);
        let bytes = std::fs::read(&path).unwrap();
        let (recorded, _) = analyse_recorded(bytes.clone());
        let plain = {
            let limits = Limits::default();
            let artifact = Artifact::open(
                vec![Input::Zip {
                    name: "artifact.zip".into(),
                    data: Rc::new(bytes),
                }],
                &limits,
            )
            .unwrap();
            prv::report::json::render(&analyze(&artifact, &options(), &mut |_| {}))
        };
        assert_eq!(recorded, plain, "{}", Path::new(rel).display());
    }
}
