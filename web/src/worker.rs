//! The Web Worker that runs the core.
//!
//! Started by the page from a `blob:` bootstrap ([`crate::spawn`]); posts [`Reply::Ready`], then answers an
//! `analyse` [`Command`] with progress updates and one `Done` or `Failed`, and each `detail`
//! command with one `Detail`. The analysis is synchronous and reads the user's files with
//! `FileReaderSync`, which only a worker may do; the page's thread stays free. The finished
//! analysis (and the opened artifact) stay here until the page terminates the worker, so a
//! snapshot's detail costs no I/O and no second analysis.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
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

/// The worker's entry point: installs the message handler and tells the page it is ready.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        post(&Reply::Failed {
            message: format!("The analysis crashed (a bug; please report it): {info}"),
        });
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let reply = match Command::from_js(&event.data()) {
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
        };
        post(&reply);
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&Reply::Ready);
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(reply: &Reply) {
    // Nothing to do if posting fails: the page is gone.
    let _ = scope().post_message(&JsValue::from_str(&reply.to_json()));
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
            let report = &finished.analysis.report;
            // The CLI's `--format json` and `--format markdown`, the same functions.
            let reply = Reply::Done {
                json: prv::report::json::render(report),
                markdown: prv::report::markdown::render(report),
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
        });
    }
    let options = prv::AnalysisOptions {
        now_millis: request.now_millis,
        ..Default::default()
    };
    let artifact = Artifact::open(inputs, &options.limits)
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
