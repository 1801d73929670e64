//! The Web Worker that runs the core.
//!
//! Started by the page from [`crate::WORKER_SCRIPT`]; posts [`Reply::Ready`], then answers each
//! [`Request`] with progress updates and one `Done` or `Failed`. The analysis is synchronous and
//! reads the user's files with `FileReaderSync`, which only a worker may do; the page's thread
//! stays free.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::blob::BlobReader;
use crate::protocol::{ProgressUpdate, Reply, Request, Throttle};
use prv::source::{Artifact, HostFile, Input, RandomAccess};

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
        let reply = match Request::from_js(&event.data()) {
            Ok(request) => {
                let mut throttle = Throttle::new(PROGRESS_INTERVAL_MS);
                run(request, &mut |update| {
                    if throttle.admit(update, js_sys::Date::now()) {
                        post(&Reply::Progress(update.clone()));
                    }
                })
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
    if request.is_empty() {
        return Reply::Failed {
            message: "No file was given.".into(),
        };
    }
    let mut inputs = Vec::new();
    for file in request.zips {
        let name = file.name();
        match BlobReader::new(file.into()) {
            Ok(reader) => inputs.push(Input::Zip {
                name,
                data: Rc::new(reader) as Rc<dyn RandomAccess>,
            }),
            Err(e) => {
                return Reply::Failed {
                    message: format!("{name} cannot be read: {e}"),
                }
            }
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
                Err(e) => {
                    return Reply::Failed {
                        message: format!("{path} cannot be read: {e}"),
                    }
                }
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
    let artifact = match Artifact::open(inputs, &options.limits) {
        Ok(artifact) => artifact,
        Err(e) => {
            return Reply::Failed {
                message: format!("This is not a readable warehouse artifact: {e}"),
            }
        }
    };
    let report = prv::analyze(&artifact, &options, &mut |p| {
        progress(&ProgressUpdate::from_core(p))
    });
    Reply::Done {
        report: Box::new(report),
    }
}
