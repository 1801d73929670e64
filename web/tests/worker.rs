//! Tests of the worker side in a real browser: headless Chromium, inside a dedicated worker
//! (`FileReaderSync` exists only there). Run by `make test` through wasm-bindgen-test-runner.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use prv::source::RandomAccess;
use prv_web::blob::BlobReader;
use prv_web::cache::BLOCK_SIZE;
use prv_web::protocol::{Command, Folder, Reply, Request};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Blob, File};

wasm_bindgen_test_configure!(run_in_dedicated_worker);

const FIXTURE: &[u8] =
    include_bytes!("../../tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip");

fn parts(bytes: &[u8]) -> Array {
    Array::of1(&Uint8Array::from(bytes))
}

fn blob(bytes: &[u8]) -> Blob {
    Blob::new_with_u8_array_sequence(&parts(bytes)).unwrap()
}

fn file(bytes: &[u8], name: &str) -> File {
    File::new_with_u8_array_sequence(&parts(bytes), name).unwrap()
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ (i >> 11) as u8)
        .collect()
}

#[wasm_bindgen_test]
fn blob_reader_reads_exact_slices() {
    let data = pattern(3 * BLOCK_SIZE as usize + 4321);
    let reader = BlobReader::new(blob(&data)).unwrap();
    assert_eq!(reader.size(), data.len() as u64);
    let n = data.len();
    let block = BLOCK_SIZE as usize;
    for (offset, len) in [
        (0, 1),
        (0, 4096),
        (block - 5, 10),
        (block, block),
        (2 * block - 1, block + 2),
        (17, 2 * block + 3),
        (n - 22, 22),
        (n, 0),
    ] {
        let mut buf = vec![0u8; len];
        reader.read_exact_at(offset as u64, &mut buf).unwrap();
        assert_eq!(buf, data[offset..offset + len], "read of {len} at {offset}");
    }
}

#[wasm_bindgen_test]
fn blob_reader_refuses_reads_past_the_end() {
    let reader = BlobReader::new(blob(&pattern(1000))).unwrap();
    let mut buf = [0u8; 8];
    let err = reader.read_exact_at(996, &mut buf).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    assert!(reader.read_exact_at(u64::MAX - 2, &mut buf).is_err());
    // Offsets past 2^32 are computed in f64, not truncated.
    assert!(reader.read_exact_at(5 << 30, &mut buf).is_err());
}

#[wasm_bindgen_test]
fn requests_survive_the_trip_to_the_worker() {
    let request = Request {
        zips: vec![file(b"zip", "a.zip"), file(b"zip2", "b.zip")],
        folder: Some(Folder {
            name: "wh".into(),
            files: vec![("db.db/t/snapshot/LATEST".into(), file(b"3", "LATEST"))],
        }),
        now_millis: Some(1_796_027_473_636),
    };
    let back = Request::from_js(&request.to_js().unwrap()).unwrap();
    assert_eq!(back.zips.len(), 2);
    assert_eq!(back.zips[1].name(), "b.zip");
    let folder = back.folder.unwrap();
    assert_eq!(folder.name, "wh");
    assert_eq!(folder.files[0].0, "db.db/t/snapshot/LATEST");
    assert_eq!(back.now_millis, Some(1_796_027_473_636));
    assert_eq!(request.display_name(), "a.zip + b.zip + wh/");
    assert!(Request::from_js(&wasm_bindgen::JsValue::from_str("x")).is_err());
}

#[wasm_bindgen_test]
fn analyses_a_real_warehouse_zip() {
    let request = Request {
        zips: vec![file(
            FIXTURE,
            "java09_d_crash_between_append_and_compact.zip",
        )],
        ..Request::default()
    };
    let mut phases = Vec::new();
    let (reply, finished) = prv_web::worker::analyse(request, &mut |u| {
        if phases.last() != Some(&u.phase) {
            phases.push(u.phase.clone());
        }
    });
    assert_eq!(phases, ["listing", "snapshots", "manifests", "checks"]);
    let Reply::Done { json } = &reply else {
        panic!("expected a report, got {reply:?}");
    };
    let report = prv::report::json::parse(json).unwrap();
    // The same bytes as the CLI's renderers give for this report; the Markdown the page renders
    // from the JSON read back is the Markdown of the analysis itself.
    let analysed = &finished.as_ref().unwrap().analysis.report;
    assert_eq!(*json, prv::report::json::render(analysed));
    assert_eq!(
        prv::report::markdown::render(&report),
        prv::report::markdown::render(analysed)
    );
    assert_eq!(
        report.input.name,
        "java09_d_crash_between_append_and_compact.zip"
    );
    let table = report
        .tables
        .iter()
        .find(|t| t.path.ends_with("db.db/lk_crash"))
        .unwrap_or_else(|| panic!("no lk_crash table in {:?}", report.tables));
    let ids: Vec<i64> = table.snapshots.iter().map(|s| s.id).collect();
    assert_eq!(ids, (1..=11).collect::<Vec<_>>());
    // What the page receives is what the worker sent: the report as a JS string in an object,
    // not escaped into a JSON message.
    let posted = reply.to_js();
    assert!(posted.is_object());
    assert_eq!(Reply::from_js(&posted).unwrap(), reply);
    for other in [
        Reply::Ready,
        Reply::Warmed {
            runs: 3,
            millis: 10.5,
        },
    ] {
        assert!(other.to_js().is_string());
        assert_eq!(Reply::from_js(&other.to_js()).unwrap(), other);
    }
    assert!(Reply::from_js(&wasm_bindgen::JsValue::from_f64(1.0)).is_err());
    // The worker keeps the analysis: a snapshot's detail, on demand.
    let finished = finished.unwrap();
    let detail = finished
        .analysis
        .snapshot_detail(&table.path, "main", 7)
        .unwrap();
    assert_eq!(detail.id, 7);
    assert!(finished
        .analysis
        .snapshot_detail(&table.path, "main", 999)
        .is_none());
}

#[wasm_bindgen_test]
fn detail_commands_survive_the_trip_to_the_worker() {
    let command = Command::Detail {
        path: "wh/db.db/t".into(),
        branch: "b1".into(),
        id: 42,
    };
    match Command::from_js(&command.to_js().unwrap()).unwrap() {
        Command::Detail { path, branch, id } => {
            assert_eq!(
                (path.as_str(), branch.as_str(), id),
                ("wh/db.db/t", "b1", 42)
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let analyse = Command::Analyse(Request {
        zips: vec![file(b"zip", "a.zip")],
        ..Request::default()
    });
    assert!(matches!(
        Command::from_js(&analyse.to_js().unwrap()).unwrap(),
        Command::Analyse(r) if r.zips.len() == 1
    ));
}

#[wasm_bindgen_test]
fn permalinks_round_trip_in_the_browser() {
    let json = prv::report::json::render(&{
        let (reply, _) = prv_web::worker::analyse(
            Request {
                zips: vec![file(FIXTURE, "x.zip")],
                ..Request::default()
            },
            &mut |_| {},
        );
        let Reply::Done { json, .. } = reply else {
            panic!("no report");
        };
        prv::report::json::parse(&json).unwrap()
    });
    let hash = prv_web::permalink::encode(&json).unwrap();
    assert_eq!(prv_web::permalink::decode(&hash).unwrap().unwrap(), json);
}

#[wasm_bindgen_test]
fn a_file_that_is_not_a_zip_fails_with_a_message() {
    let request = Request {
        zips: vec![file(b"hello, this is not a zip", "notes.zip")],
        ..Request::default()
    };
    match prv_web::worker::run(request, &mut |_| {}) {
        Reply::Failed { message } => assert!(!message.is_empty()),
        // The core may also report an unreadable input as a failing report.
        Reply::Done { json, .. } => {
            assert_eq!(
                prv::report::json::parse(&json).unwrap().verdict.as_str(),
                "fail"
            )
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[wasm_bindgen_test]
fn warming_analyses_the_bundled_example_within_its_bounds() {
    // A zero budget still runs once; the command crosses to the worker as a JS object.
    let (runs, millis) = prv_web::worker::warm(0.0);
    assert_eq!(runs, 1);
    assert!(millis >= 0.0);
    let (runs, _) = prv_web::worker::warm(150.0);
    assert!((1..=50).contains(&runs), "{runs}");
    let command = Command::Warm { millis: 400.0 }.to_js().unwrap();
    assert!(matches!(
        Command::from_js(&command),
        Ok(Command::Warm { millis }) if millis == 400.0
    ));
}

/// The byte-by-byte order of two equal-length slices, without calling `memcmp`.
fn reference_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for i in 0..a.len() {
        if a[i] != b[i] {
            return if a[i] < b[i] {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            };
        }
    }
    std::cmp::Ordering::Equal
}

#[wasm_bindgen_test]
fn slice_comparisons_use_a_correct_memcmp() {
    // In wasm every `==` and `cmp` of byte slices and strings calls the `memcmp`/`bcmp` that
    // web/mem links in place of Rust's byte-by-byte fallback: a difference at any position, in
    // any byte value, orders as the bytes do, and only the first difference counts.
    let mut checked = 0;
    for len in 1..48usize {
        let base: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
        for at in 0..len {
            for (lo, hi) in [(0u8, 1u8), (0x7f, 0x80), (0x00, 0xff), (0xfe, 0xff)] {
                let mut x = base.clone();
                let mut y = base.clone();
                x[at] = lo;
                y[at] = hi;
                if at + 1 < len {
                    x[at + 1] = 0xff;
                    y[at + 1] = 0x00;
                }
                let (x, y) = (std::hint::black_box(x), std::hint::black_box(y));
                assert_eq!(x.cmp(&y), reference_order(&x, &y), "len {len} at {at}");
                assert_eq!(y.cmp(&x), reference_order(&y, &x), "len {len} at {at}");
                assert!(x != y && x == x.clone());
                checked += 1;
            }
        }
    }
    assert!(checked > 4000);
    // strings that share a long prefix, as zip paths do, sort as their bytes do
    let paths: Vec<String> = (0..300u32)
        .map(|i| {
            let id = i.wrapping_mul(2_654_435_761);
            format!(
                "warehouse/db.db/orders/manifest/manifest-{id:08x}-{}",
                i % 7
            )
        })
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    let mut by_reference = paths;
    by_reference.sort_by(|a, b| {
        let n = a.len().min(b.len());
        reference_order(&a.as_bytes()[..n], &b.as_bytes()[..n]).then(a.len().cmp(&b.len()))
    });
    assert_eq!(sorted, by_reference);
}
