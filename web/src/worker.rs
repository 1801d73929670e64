//! The Web Worker that runs the core.
//!
//! Started by the page from a `blob:` bootstrap ([`crate::spawn`]); posts [`Reply::Ready`],
//! then answers an `analyse` [`Command`] with progress updates and one `Done` or `Failed`, each
//! `detail` command with one `Detail`, and `warm` with `Warmed` after analysing the bundled
//! example for the time asked (the page starts a worker when it loads and warms it while the
//! user picks a file: V8 runs a module's functions in baseline code until it has optimized them,
//! per instance, so a warmed worker runs the user's analysis in optimized code; BENCHMARKS.md).
//!
//! The analysis is synchronous and reads the user's files with `FileReaderSync`, which only a
//! worker may do; the page's thread stays free. The finished analysis (and the opened artifact)
//! stay here until the page terminates the worker, so a snapshot's detail costs no I/O and no
//! second analysis. The warm-up reads the example from memory, not through a Blob, so that the
//! memory reservation and the read counts of `crate::blob` belong to the user's file.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::blob::BlobReader;
use crate::protocol::{Command, ProgressUpdate, Reply, Request, Throttle};
use prv::source::{Artifact, HostFile, Input, RandomAccess};

thread_local! {
    /// The last analysis, kept for detail requests.
    static LAST: RefCell<Option<Finished>> = const { RefCell::new(None) };
}

/// A finished analysis and the artifact it read.
pub struct Finished {
    /// The opened artifact (its readers hold the user's Blobs).
    pub artifact: Artifact,
    /// The analysis.
    pub analysis: prv::Analysis,
}

/// Minimum time between two progress messages, in ms.
const PROGRESS_INTERVAL_MS: f64 = 100.0;

/// The warm-up input: the page's example (a real Java Paimon 0.9 warehouse with a lost
/// changelog), so warming runs the paths a real analysis takes: zip, JSON, Avro with zstd,
/// the checks, row-level evidence from Parquet, and the JSON report.
const WARM_ZIP: &[u8] =
    include_bytes!("../../tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip");

/// At most this many warm-up analyses, however fast they run.
const WARM_MAX_RUNS: u32 = 50;

/// The worker's entry point: installs the message handler and tells the page it is ready.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        post(&Reply::Failed {
            message: format!("The analysis crashed (a bug; please report it): {info}"),
        });
    }));
    // Without JSPI: messages come here, and the analysis reads with FileReaderSync. With it,
    // the bootstrap replaces this handler with one that calls [`prv_dispatch`] (async_reads.js).
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        post(&handle(&event.data()));
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&Reply::Ready);
}

/// The worker's message handler under JSPI: `async_reads.js` calls it through
/// `WebAssembly.promising`, one message at a time, with the message in `self.prvMessage`; Blob
/// reads may then suspend it ([`crate::blob`]) while the browser reads.
#[wasm_bindgen]
pub fn prv_dispatch() {
    let key = JsValue::from_str("prvMessage");
    let global = js_sys::global();
    let data = Reflect::get(&global, &key).unwrap_or(JsValue::UNDEFINED);
    let _ = Reflect::delete_property(global.unchecked_ref::<js_sys::Object>(), &key);
    let reply = crate::blob::with_async_reads(|| handle(&data));
    post(&reply);
}

/// Answers one message from the page.
fn handle(data: &JsValue) -> Reply {
    match Command::from_js(data) {
        Ok(Command::Analyse(request)) => {
            // Free the previous analysis first.
            LAST.with(|last| last.borrow_mut().take());
            let mut throttle = Throttle::new(PROGRESS_INTERVAL_MS);
            let (reply, finished) = analyse(request, &mut |update| {
                if throttle.admit(update, js_sys::Date::now()) {
                    post(&Reply::Progress(update.clone()));
                }
            });
            LAST.with(|last| *last.borrow_mut() = finished);
            reply
        }
        Ok(Command::Warm { millis }) => {
            let (runs, millis) = warm(millis);
            Reply::Warmed { runs, millis }
        }
        Ok(Command::Detail { path, branch, id }) => {
            let detail = LAST.with(|last| {
                last.borrow()
                    .as_ref()
                    .and_then(|f| f.analysis.snapshot_detail(&path, &branch, id))
            });
            Reply::Detail {
                path,
                branch,
                id,
                detail: detail.map(Box::new),
            }
        }
        Err(message) => Reply::Failed { message },
    }
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(reply: &Reply) {
    // Nothing to do if posting fails: the page is gone.
    let _ = scope().post_message(&reply.to_js());
}

/// Analyses the bundled example until `millis` have passed (at least once, at most
/// [`WARM_MAX_RUNS`] times); returns the runs and the time taken. The reports are dropped.
pub fn warm(millis: f64) -> (u32, f64) {
    let start = js_sys::Date::now();
    let options = prv::AnalysisOptions {
        now_millis: Some(0),
        ..Default::default()
    };
    let mut runs = 0;
    while runs < WARM_MAX_RUNS && (runs == 0 || js_sys::Date::now() - start < millis) {
        let input = Input::Zip {
            name: crate::app::EXAMPLE_FILE.into(),
            data: Rc::new(WARM_ZIP.to_vec()) as Rc<dyn RandomAccess>,
        };
        if let Ok(artifact) = Artifact::open(vec![input], &options.limits) {
            let analysis = prv::run(&artifact, &options, &mut |_| {});
            let _ = prv::report::json::render(&analysis.report);
        }
        runs += 1;
    }
    (runs, js_sys::Date::now() - start)
}

/// Runs one analysis: opens the request's files as an artifact and analyses it, reporting
/// progress through `progress`. Never reads a whole file: the core asks for what it needs.
pub fn run(request: Request, progress: &mut dyn FnMut(&ProgressUpdate)) -> Reply {
    analyse(request, progress).0
}

/// [`run`], also giving back the finished analysis (kept by the worker for detail requests).
pub fn analyse(
    request: Request,
    progress: &mut dyn FnMut(&ProgressUpdate),
) -> (Reply, Option<Finished>) {
    match open_and_analyse(request, progress) {
        Ok(finished) => {
            // The CLI's `--format json`, the same function (the page renders the Markdown from
            // it with the CLI's function when it is exported).
            let reply = Reply::Done {
                json: prv::report::json::render(&finished.analysis.report),
            };
            (reply, Some(finished))
        }
        Err(message) => (Reply::Failed { message }, None),
    }
}

fn listing(text: String, done: u64) -> ProgressUpdate {
    ProgressUpdate {
        phase: "listing".into(),
        text,
        done,
        total: 0,
    }
}

fn open_and_analyse(
    request: Request,
    progress: &mut dyn FnMut(&ProgressUpdate),
) -> Result<Finished, String> {
    if request.is_empty() {
        return Err("No file was given.".into());
    }
    progress(&listing("reading the archive directory".into(), 0));
    let mut inputs = Vec::new();
    for file in request.zips {
        let name = file.name();
        match BlobReader::new(file.into()) {
            Ok(reader) => inputs.push(Input::Zip {
                name,
                data: Rc::new(reader) as Rc<dyn RandomAccess>,
            }),
            Err(e) => return Err(format!("{name} cannot be read: {e}")),
        }
    }
    if let Some(folder) = request.folder {
        let mut files = Vec::with_capacity(folder.files.len());
        for (path, file) in folder.files {
            let modified = file.last_modified();
            match BlobReader::new(file.into()) {
                Ok(reader) => files.push(HostFile {
                    path,
                    modified_millis: (modified > 0.0).then_some(modified as i64),
                    data: Rc::new(reader),
                }),
                Err(e) => return Err(format!("{path} cannot be read: {e}")),
            }
        }
        inputs.push(Input::Folder {
            name: folder.name,
            files,
            skipped: 0,
        });
    }
    let options = prv::AnalysisOptions {
        now_millis: request.now_millis,
        ..Default::default()
    };
    // Announcing the metadata directories' reads as soon as each zip's directory is read lets
    // the browser read them while the artifact is indexed (crate::blob, with JSPI).
    let artifact =
        Artifact::open_announcing(inputs, &options.limits, prv::warehouse::metadata_dir_rank)
            .map_err(|e| format!("This is not a readable warehouse artifact: {e}"))?;
    let entries = artifact.files().len() as u64;
    progress(&listing(
        format!("reading the archive directory ({entries} entries)"),
        entries,
    ));
    let analysis = prv::run(&artifact, &options, &mut |p| {
        progress(&ProgressUpdate::from_core(p))
    });
    Ok(Finished { artifact, analysis })
}
