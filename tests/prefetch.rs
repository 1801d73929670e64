//! Helper threads that decode manifest lists and manifests ahead of the analysis
//! (`prv::timeline::prefetch`, the CLI's `--threads`) must not change the report by one byte,
//! counters included, whatever they managed to decode before the analysis asked, whatever
//! limit the run meets, and whatever goes wrong on their side.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use prv::source::{native, Artifact, Input};
use prv::timeline::prefetch::{is_candidate, Prefetch, PrefetchStats, ThreadedPrefetch};
use prv::{analyze, analyze_prefetched, AnalysisOptions, Limits};

/// A fixed clock, so that two runs of the same input are comparable.
fn options(limits: &Limits) -> AnalysisOptions {
    AnalysisOptions {
        now_millis: Some(1_800_000_000_000),
        limits: limits.clone(),
        ..AnalysisOptions::default()
    }
}

fn open_path(path: &Path, limits: &Limits) -> prv::Result<Artifact> {
    Artifact::open(vec![native::open_input(path, limits)?], limits)
}

fn open_bytes(bytes: &[u8], limits: &Limits) -> prv::Result<Artifact> {
    Artifact::open(
        vec![Input::Zip {
            name: "artifact.zip".into(),
            data: Rc::new(bytes.to_vec()),
        }],
        limits,
    )
}

/// How the helpers are given their head start.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// The analysis starts at once: it and the helpers race (what the CLI does).
    Race,
    /// The helpers finish first: every candidate the analysis asks for comes from them.
    HelpersFirst,
}

/// The JSON report without helpers, and with `helpers` helper threads.
fn both_ways<F>(
    limits: &Limits,
    helpers: usize,
    start: Start,
    open: F,
) -> (String, String, PrefetchStats)
where
    F: Fn(&Limits) -> prv::Result<Artifact> + Send + Sync + 'static,
{
    let options = options(limits);
    let plain = {
        let artifact = open(limits).expect("open the artifact");
        prv::report::json::render(&analyze(&artifact, &options, &mut |_| {}))
    };
    let open = Arc::new(open);
    let prefetch = {
        let open = Arc::clone(&open);
        ThreadedPrefetch::start(helpers, limits, move |l| open(l))
    };
    let artifact = open(limits).expect("open the artifact");
    if let Start::HelpersFirst = start {
        prefetch.wait_until_idle();
    }
    let report = analyze_prefetched(&artifact, &options, &prefetch, &mut |_| {});
    let stats = prefetch.stats();
    (plain, prv::report::json::render(&report), stats)
}

#[test]
fn every_fixture_gives_the_same_report_with_helpers() {
    let limits = Limits::default();
    let mut taken = 0;
    for path in common::all_fixture_zips() {
        for (helpers, start) in [(1, Start::HelpersFirst), (1, Start::Race), (3, Start::Race)] {
            let p = path.clone();
            let (plain, prefetched, stats) =
                both_ways(&limits, helpers, start, move |l| open_path(&p, l));
            assert_eq!(
                plain,
                prefetched,
                "{} with {helpers} helper(s), {start:?}",
                path.display()
            );
            if let Start::HelpersFirst = start {
                // Every candidate was decoded ahead; the analysis took all that it needed.
                assert_eq!(
                    stats.decoded_ahead + stats.failed,
                    stats.candidates,
                    "{stats:?}"
                );
                taken += stats.taken;
            }
        }
    }
    // Not a test of nothing: the analyses above took thousands of decoded files from helpers.
    assert!(taken > 1_000, "only {taken} files were taken from helpers");
}

#[test]
fn a_run_wide_limit_is_met_at_the_same_file_with_helpers() {
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let full = {
        let artifact = open_path(&path, &Limits::default()).expect("open");
        analyze(&artifact, &options(&Limits::default()), &mut |_| {}).stats
    };
    assert!(full.bytes_inflated > 100_000, "{full:?}");
    // The limit falls in the middle of the manifests: some taken from helpers, then the rest
    // refused, in the analysis's order, as without helpers. 80% and 95% leave the limit to the
    // decompressed Avro blocks rather than the zip reads.
    for percent in [20, 40, 60, 80, 95] {
        let limits = Limits {
            max_total_bytes: full.bytes_inflated * percent / 100,
            ..Limits::default()
        };
        let p = path.clone();
        let (plain, prefetched, stats) =
            both_ways(&limits, 1, Start::HelpersFirst, move |l| open_path(&p, l));
        assert_eq!(plain, prefetched, "max-total-bytes at {percent}%");
        assert!(
            plain.contains("max-total-bytes"),
            "the limit at {percent}% is not met: the test proves nothing"
        );
        assert!(stats.taken > 0, "{percent}%: {stats:?}");
    }
}

/// Whether `path` is a manifest list or manifest in a `manifest/` directory.
fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    path.contains("/manifest/") && name.starts_with("manifest-")
}

#[test]
fn damaged_manifests_are_reported_the_same_with_helpers() {
    let mut damaged = 0;
    let entries =
        common::fixture_entries("warehouses/java09_lookup_nowait.zip", |path, mut bytes| {
            if !is_manifest(path) || damaged >= 12 {
                return Some(bytes);
            }
            damaged += 1;
            match damaged % 3 {
                // A truncated file, a flipped byte in the last block, a wrong sync marker.
                0 => bytes.truncate(bytes.len() / 2),
                1 => {
                    let at = bytes.len().saturating_sub(20);
                    if let Some(b) = bytes.get_mut(at) {
                        *b ^= 0x5a;
                    }
                }
                _ => {
                    let at = bytes.len().saturating_sub(1);
                    if let Some(b) = bytes.get_mut(at) {
                        *b ^= 0xff;
                    }
                }
            }
            Some(bytes)
        });
    assert_eq!(damaged, 12);
    let zip = Arc::new(common::zip_bytes(&entries));
    let (plain, prefetched, stats) = both_ways(&Limits::default(), 1, Start::HelpersFirst, {
        let zip = Arc::clone(&zip);
        move |l| open_bytes(&zip, l)
    });
    assert_eq!(plain, prefetched);
    assert!(plain.contains("unreadable-file"), "{plain}");
    assert!(stats.failed > 0 && stats.taken > 0, "{stats:?}");
}

/// `bytes` (an Avro container file with one zstd block) rewritten as one deflate block holding
/// its records `copies` times: a valid file whose blocks decompress to far more than its size.
/// With the size they decompress to.
fn amplified(bytes: Vec<u8>, copies: usize) -> (Vec<u8>, u64) {
    let h = prv::paimon::avro::read_header(&bytes).expect("an Avro file");
    let mut pos = h.data_start;
    if pos >= bytes.len() {
        return (bytes, 0); // no block
    }
    let count = common::read_avro_long(&bytes, &mut pos);
    let size = usize::try_from(common::read_avro_long(&bytes, &mut pos)).expect("block size");
    let mut compressed = bytes.get(pos..pos + size).expect("block");
    let mut block = Vec::new();
    std::io::Read::read_to_end(
        &mut ruzstd::decoding::StreamingDecoder::new(&mut compressed).expect("zstd"),
        &mut block,
    )
    .expect("zstd block");
    let records = block.repeat(copies);
    let deflated = miniz_oxide::deflate::compress_to_vec(&records, 6);
    let mut out = b"Obj\x01".to_vec();
    common::avro_long(&mut out, 2);
    for (k, v) in [
        ("avro.schema", h.schema.as_bytes()),
        ("avro.codec", b"deflate".as_slice()),
    ] {
        common::avro_long(&mut out, k.len() as i64);
        out.extend_from_slice(k.as_bytes());
        common::avro_long(&mut out, v.len() as i64);
        out.extend_from_slice(v);
    }
    common::avro_long(&mut out, 0);
    out.extend_from_slice(&h.sync);
    common::avro_long(&mut out, count * copies as i64);
    common::avro_long(&mut out, deflated.len() as i64);
    out.extend_from_slice(&deflated);
    out.extend_from_slice(&h.sync);
    (out, records.len() as u64)
}

#[test]
fn the_run_wide_decompression_budget_is_met_at_the_same_file_with_helpers() {
    // Every manifest list and manifest holds its records 200 times over, deflated: the Avro
    // blocks of the run decompress to several times the bytes read, so `max-total-bytes` is
    // met by the decompressed blocks (counted when a helper's result is taken), not the reads.
    let mut read = 0u64;
    let mut decompressed = 0u64;
    let entries = common::fixture_entries("warehouses/java09_lookup_nowait.zip", |path, bytes| {
        read += bytes.len() as u64;
        if !is_manifest(path) {
            return Some(bytes);
        }
        let (bytes, blocks) = amplified(bytes, 200);
        decompressed += blocks;
        Some(bytes)
    });
    assert!(decompressed > 4 * read, "{decompressed} vs {read}");
    let zip = Arc::new(common::zip_bytes(&entries));
    for percent in [25, 50, 75] {
        let limits = Limits {
            max_total_bytes: decompressed * percent / 100,
            ..Limits::default()
        };
        let (plain, prefetched, stats) = both_ways(&limits, 1, Start::HelpersFirst, {
            let zip = Arc::clone(&zip);
            move |l| open_bytes(&zip, l)
        });
        assert_eq!(plain, prefetched, "max-total-bytes at {percent}%");
        assert!(
            plain.contains("Avro blocks have decompressed to more than"),
            "the decompression budget is not met at {percent}%: the test proves nothing"
        );
        assert!(stats.taken > 0, "{percent}%: {stats:?}");
    }
}

#[test]
fn helpers_that_cannot_open_the_input_change_nothing() {
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let limits = Limits::default();
    let options = options(&limits);
    let artifact = open_path(&path, &limits).expect("open");
    let plain = prv::report::json::render(&analyze(&artifact, &options, &mut |_| {}));

    let failing = ThreadedPrefetch::start(2, &limits, |_| {
        Err(prv::Error::io("the helper's input is gone"))
    });
    failing.wait_until_idle();
    let artifact = open_path(&path, &limits).expect("open");
    let report = analyze_prefetched(&artifact, &options, &failing, &mut |_| {});
    assert_eq!(plain, prv::report::json::render(&report));
    assert_eq!(failing.stats().taken, 0);

    let panicking = ThreadedPrefetch::start(1, &limits, |_| panic!("a bug in a helper"));
    panicking.wait_until_idle();
    let artifact = open_path(&path, &limits).expect("open");
    let report = analyze_prefetched(&artifact, &options, &panicking, &mut |_| {});
    assert_eq!(plain, prv::report::json::render(&report));
    assert_eq!(panicking.stats().taken, 0);
}

/// `start_with` hands each helper to a spawner that may run it late or never (the page's pool
/// of Web Workers, where `std::thread` does not exist): the report is the same whether the jobs
/// ran before the analysis, were never run, or are run only after the prefetch was dropped
/// (then they return at once), and dropping never waits for a job that has not started.
#[test]
fn helper_jobs_run_late_or_never_change_nothing_and_never_block() {
    use prv::timeline::prefetch::HelperJob;
    use std::sync::Mutex;

    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let limits = Limits::default();
    let options = options(&limits);
    let plain = {
        let artifact = open_path(&path, &limits).expect("open");
        prv::report::json::render(&analyze(&artifact, &options, &mut |_| {}))
    };
    // Counts the helpers that open the input.
    let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let open = {
        let path = path.clone();
        let opened = Arc::clone(&opened);
        move |l: &Limits| {
            opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            open_path(&path, l)
        }
    };

    // Run by the spawner before the analysis, on this thread: every candidate comes from them.
    let early = ThreadedPrefetch::start_with(2, &limits, open.clone(), |job: HelperJob| {
        job();
        true
    });
    early.wait_until_idle();
    let artifact = open_path(&path, &limits).expect("open");
    let report = analyze_prefetched(&artifact, &options, &early, &mut |_| {});
    assert_eq!(plain, prv::report::json::render(&report));
    assert!(early.stats().taken > 0, "{:?}", early.stats());
    drop(early);

    // Queued and never run while the analysis lasts; dropping the prefetch returns (it would
    // hang if it waited for them); run afterwards, each returns at once without decoding.
    let queue: Arc<Mutex<Vec<HelperJob>>> = Arc::default();
    let late = {
        let queue = Arc::clone(&queue);
        ThreadedPrefetch::start_with(2, &limits, open.clone(), move |job: HelperJob| {
            queue.lock().unwrap().push(job);
            true
        })
    };
    let artifact = open_path(&path, &limits).expect("open");
    let report = analyze_prefetched(&artifact, &options, &late, &mut |_| {});
    assert_eq!(plain, prv::report::json::render(&report));
    let stats = late.stats();
    assert_eq!((stats.taken, stats.decoded_ahead), (0, 0), "{stats:?}");
    drop(late);
    let jobs = std::mem::take(&mut *queue.lock().unwrap());
    assert_eq!(jobs.len(), 2);
    let before = opened.load(std::sync::atomic::Ordering::SeqCst);
    for job in jobs {
        job();
    }
    assert_eq!(
        opened.load(std::sync::atomic::Ordering::SeqCst),
        before,
        "a job started after the drop opened the input"
    );

    // A spawner that cannot start any: the analysis does all the work.
    let none = ThreadedPrefetch::start_with(3, &limits, open, |_job: HelperJob| false);
    none.wait_until_idle();
    let artifact = open_path(&path, &limits).expect("open");
    let report = analyze_prefetched(&artifact, &options, &none, &mut |_| {});
    assert_eq!(plain, prv::report::json::render(&report));
    assert_eq!(none.stats().taken, 0);
}

/// The CLI's JSON report of `paths` with `--threads threads` and a fixed clock.
fn cli_json(paths: &[&str], threads: &str) -> String {
    let mut args = vec!["check"];
    args.extend_from_slice(paths);
    args.extend([
        "--format",
        "json",
        "--now",
        "1800000000000",
        "--threads",
        threads,
    ]);
    let (code, stdout, stderr) = common::run_cli(&args);
    assert!(code == 0 || code == 1, "{stderr}");
    stdout
}

#[test]
fn the_cli_report_is_the_same_for_every_thread_count() {
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let path = path.to_str().expect("utf-8 path");
    let run = |threads: &str| cli_json(&[path], threads);
    let one = run("1");
    for threads in ["2", "4", "16"] {
        assert_eq!(one, run(threads), "--threads {threads}");
    }
    let (code, _, stderr) = common::run_cli(&["check", path, "--threads", "0"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn folders_and_several_inputs_give_the_same_report_with_helpers() {
    // The CLI's helpers reopen every path it was given: a folder is walked again, several
    // inputs are placed side by side again under their names.
    let zip = common::fixture("warehouses/java09_lookup_nowait.zip");
    let other = common::fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    let dir = std::env::temp_dir().join(format!("prv-prefetch-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    common::extract(&zip, &dir);
    let dir_s = dir.to_str().unwrap();
    let other_s = other.to_str().unwrap();
    for paths in [vec![dir_s], vec![dir_s, other_s]] {
        let one = cli_json(&paths, "1");
        assert!(one.contains("manifestsDecoded"), "{one}");
        assert_eq!(one, cli_json(&paths, "2"), "{paths:?}");
        assert_eq!(one, cli_json(&paths, "3"), "{paths:?}");
    }
    // And through the library, every candidate taken from a helper's walk of the folder.
    let d = dir.clone();
    let (plain, prefetched, stats) =
        both_ways(&Limits::default(), 1, Start::HelpersFirst, move |l| {
            open_path(&d, l)
        });
    assert_eq!(plain, prefetched);
    assert!(stats.taken > 10, "{stats:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a folder input lists, as (path, modification time, size) in order, and the files the
/// walk left out.
fn folder_listing(input: &Input) -> (Vec<(String, Option<i64>, u64)>, u64) {
    let Input::Tree { dirs, skipped, .. } = input else {
        panic!("not a walked folder");
    };
    let files = dirs
        .iter()
        .flat_map(|d| {
            d.iter()
                .map(|(name, f)| (d.file_path(name), f.modified_millis, f.size))
        })
        .collect();
    (files, *skipped)
}

/// The CLI walks a folder on every thread, and its helpers walk it again filtered to the files
/// they decode (`native::FolderWalk`). On several threads the listing is one thread's, in the
/// same order, with the same sizes and times; filtered, it is the full listing's files that
/// the filter keeps (and zips, opened as nested archives), the others counted, and the view
/// opened from it lists what a view of the full walk lists and meets `max-entries` and
/// `max-total-entries` as the full walk does.
#[test]
fn a_folder_walked_on_threads_or_filtered_is_the_same_listing() {
    let dir = std::env::temp_dir().join(format!("prv-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    common::extract(
        &common::fixture("warehouses/java09_lookup_nowait.zip"),
        &dir,
    );
    common::extract(
        &common::fixture("warehouses/java09_pending_changelog.zip"),
        &dir.join("b"),
    );
    let other = common::fixture("warehouses/java09_d_crash_between_append_and_compact.zip");
    std::fs::copy(&other, dir.join("nested/other.zip")).unwrap();
    let limits = Limits::default();
    let walk = |threads, keep: Option<fn(&str) -> bool>, limits: &Limits| {
        native::open_input_with(&dir, limits, native::FolderWalk { threads, keep })
    };

    let full = native::open_input(&dir, &limits).unwrap();
    let (all, none_skipped) = folder_listing(&full);
    assert_eq!(none_skipped, 0);
    assert!(all.len() > 100, "only {} files", all.len());
    for threads in [2, 3, 16] {
        let (files, skipped) = folder_listing(&walk(threads, None, &limits).unwrap());
        assert_eq!((&files, skipped), (&all, 0), "{threads} threads");
    }

    let keep: fn(&str) -> bool = is_candidate;
    let filtered = walk(1, Some(keep), &limits).unwrap();
    let (kept, skipped) = folder_listing(&filtered);
    let expected: Vec<_> = all
        .iter()
        .filter(|(p, ..)| keep(p) || p.ends_with(".zip"))
        .cloned()
        .collect();
    assert!(expected.len() > 20 && expected.iter().any(|(p, ..)| p == "nested/other.zip"));
    assert_eq!(kept, expected);
    assert_eq!(skipped as usize, all.len() - kept.len());
    assert_eq!(
        folder_listing(&walk(4, Some(keep), &limits).unwrap()),
        (kept, skipped)
    );

    let view = |input, limits: &Limits| Artifact::open_only(vec![input], limits, keep);
    let of_full = view(full, &limits).unwrap();
    let of_filtered = view(filtered, &limits).unwrap();
    let listing = |a: &Artifact| {
        a.files()
            .iter()
            .map(|f| (f.path(), f.size(), f.modified()))
            .collect::<Vec<_>>()
    };
    assert_eq!(listing(&of_full), listing(&of_filtered));
    assert_eq!(
        of_full.stats().files_listed,
        of_filtered.stats().files_listed
    );
    for f in of_full.files() {
        assert_eq!(
            of_full.read(&f.path(), u64::MAX).ok(),
            of_filtered.read(&f.path(), u64::MAX).ok(),
            "{}",
            f.path()
        );
    }

    // The limits, met alike: the folder's file count, and the artifact's (nested zip included).
    let tight = Limits {
        max_entries: all.len() as u64 - 1,
        ..Limits::default()
    };
    for w in [None, Some(keep)] {
        let refused = walk(2, w, &tight).err().map(|e| e.to_string());
        assert!(
            refused
                .as_deref()
                .is_some_and(|e| e.contains("max-entries")),
            "{refused:?}"
        );
    }
    // The fewest files the artifact may hold (`max-total-entries`) for a view of the full walk
    // to open, found by bisection; a view of the filtered walk opens there and not below.
    let at = |n: u64| Limits {
        max_total_entries: n,
        ..Limits::default()
    };
    let opens = |n: u64, w| view(walk(1, w, &at(n)).unwrap(), &at(n)).is_ok();
    let (mut lo, mut hi) = (1, 1 << 20);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if opens(mid, None) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    assert!(
        lo > all.len() as u64,
        "the nested zip's files count too: {lo}"
    );
    assert!(opens(lo, Some(keep)));
    let refused = view(walk(1, Some(keep), &at(lo - 1)).unwrap(), &at(lo - 1))
        .err()
        .map(|e| e.to_string());
    assert!(
        refused
            .as_deref()
            .is_some_and(|e| e.contains("max-total-entries")),
        "{refused:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a helper decodes is what the analysis uses: with every manifest list and manifest
/// decoded ahead by a helper from the intact `java09_lookup_nowait` and the analysed artifact's
/// copies of them overwritten with zeros (same sizes, a hand edit no writer makes), the report
/// is the intact one, counters included. Decoding any of them again would meet the zeros.
#[test]
fn a_file_decoded_ahead_is_used_not_decoded_again() {
    let limits = Limits::default();
    let entries = |zeroed: bool| {
        common::fixture_entries("warehouses/java09_lookup_nowait.zip", |p, b| {
            Some(if zeroed && is_candidate(p) {
                vec![0; b.len()]
            } else {
                b
            })
        })
    };
    let intact = Arc::new(common::zip_bytes(&entries(false)));
    let zeroed = common::zip_bytes(&entries(true));
    // The helper decodes the intact copy, to the last candidate, before the analysis starts.
    let ahead = {
        let intact = Arc::clone(&intact);
        ThreadedPrefetch::start(1, &limits, move |l| open_bytes(&intact, l))
    };
    ahead.wait_until_idle();
    let stats = ahead.stats();
    assert!(
        stats.decoded_ahead == stats.candidates && stats.candidates > 50,
        "{stats:?}"
    );
    let options = options(&limits);
    // The report without its `input` (the zipped zeros have another size and digest).
    let json = |r: &prv::findings::Report| {
        let mut v: serde_json::Value = serde_json::from_str(&prv::report::json::render(r)).unwrap();
        v.as_object_mut().unwrap().remove("input");
        v
    };
    let open = |bytes: &[u8]| open_bytes(bytes, &limits).unwrap();
    let plain = json(&analyze(&open(&intact), &options, &mut |_| {}));
    let report = json(&analyze_prefetched(
        &open(&zeroed),
        &options,
        &ahead,
        &mut |_| {},
    ));
    assert!(
        plain == report,
        "the report differs: stats {} against {}",
        plain["stats"],
        report["stats"]
    );
    assert!(
        !plain.to_string().contains("unreadable-file"),
        "the intact fixture reads cleanly"
    );
    let without = prv::report::json::render(&analyze(&open(&zeroed), &options, &mut |_| {}));
    assert!(
        without.contains("unreadable-file"),
        "the zeros are met when nothing was decoded ahead: the test proves nothing"
    );
}

/// Helpers stop once the results waiting to be taken hold 64 Ki rows together (about 10 MB):
/// on `java09_lookup_nowait` with every manifest list and manifest holding its records 1,000
/// times over (a hand edit, for size), the one helper given a head start decodes only part of
/// the candidates before it waits, and goes on once results are taken.
#[test]
fn helpers_stop_when_the_waiting_results_hold_enough_rows() {
    let entries = common::fixture_entries("warehouses/java09_lookup_nowait.zip", |path, bytes| {
        Some(if is_manifest(path) {
            amplified(bytes, 1000).0
        } else {
            bytes
        })
    });
    let zip = Arc::new(common::zip_bytes(&entries));
    let limits = Limits::default();
    let prefetch = {
        let zip = Arc::clone(&zip);
        ThreadedPrefetch::start(1, &limits, move |l| open_bytes(&zip, l))
    };
    prefetch.wait_until_idle();
    let ahead = prefetch.stats();
    assert!(
        ahead.decoded_ahead > 0 && ahead.decoded_ahead + ahead.failed < ahead.candidates,
        "{ahead:?}"
    );
    // Taken in the helper's order (oldest first; the entries' times are equal, so by path),
    // as the analysis would, up to the first it has not decoded.
    let artifact = open_bytes(&zip, &limits).unwrap();
    let mut candidates: Vec<String> = artifact
        .files()
        .iter()
        .map(|f| f.path())
        .filter(|p| is_candidate(p))
        .collect();
    candidates.sort();
    let mut rows = 0;
    for path in &candidates {
        let Some(p) = prefetch.take(path) else { break };
        rows += p.decoded.rows();
    }
    assert!(rows >= 1 << 16, "{rows} rows taken");
    prefetch.wait_until_idle();
    let after = prefetch.stats();
    assert!(
        after.decoded_ahead > ahead.decoded_ahead,
        "{ahead:?} then {after:?}"
    );
}

/// A latch threads wait on until it is opened.
#[derive(Default)]
struct Latch(std::sync::Mutex<bool>, std::sync::Condvar);

impl Latch {
    fn open(&self) {
        *self.0.lock().unwrap() = true;
        self.1.notify_all();
    }
    fn wait(&self) {
        let mut open = self.0.lock().unwrap();
        while !*open {
            open = self.1.wait(open).unwrap();
        }
    }
    fn is_open(&self) -> bool {
        *self.0.lock().unwrap()
    }
}

/// Dropping the prefetch waits for a helper that has started (it holds a view of the input
/// the caller may be about to release): here a helper held inside `open` until the test lets
/// it go. Until then the drop has not returned; then it does.
#[test]
fn dropping_the_prefetch_waits_for_a_helper_that_has_started() {
    let path = common::fixture("warehouses/java09_lookup_nowait.zip");
    let started = Arc::new(Latch::default());
    let release = Arc::new(Latch::default());
    let open = {
        let (started, release) = (Arc::clone(&started), Arc::clone(&release));
        move |l: &Limits| {
            started.open();
            release.wait();
            open_path(&path, l)
        }
    };
    let prefetch = ThreadedPrefetch::start(1, &Limits::default(), open);
    started.wait();
    let dropped = Arc::new(Latch::default());
    let dropper = {
        let dropped = Arc::clone(&dropped);
        std::thread::spawn(move || {
            drop(prefetch);
            dropped.open();
        })
    };
    // Not a measure of speed: the drop must still be waiting however long this takes.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !dropped.is_open(),
        "the drop returned while a helper was running"
    );
    release.open();
    dropper.join().unwrap();
    assert!(dropped.is_open());
}
