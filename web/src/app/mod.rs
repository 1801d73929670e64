//! The page: a drop zone, then progress, then the report (or what went wrong).
//!
//! Each analysis runs in a fresh worker ([`Job`]), started on demand from the page's own origin
//! and terminated when it is done or replaced; replies are applied to [`PageState`].

mod drop_zone;
mod report;

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};
use yew::prelude::*;

use crate::blob::describe_js;
use crate::protocol::{Reply, Request};
use crate::state::{Action, PageState, Status};
use crate::WORKER_SCRIPT;

use self::drop_zone::DropZone;
use self::report::ReportView;

/// Mounts the app on `#app` (or the body).
pub fn render() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => {
            yew::Renderer::<App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}

impl Reducible for PageState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

/// One analysis in its own worker. Dropping it stops the worker.
struct Job {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

impl Job {
    /// Starts a worker for run `run`; it is sent `request` once it says it is ready.
    fn start(
        request: &Request,
        run: u64,
        dispatcher: UseReducerDispatcher<PageState>,
    ) -> Result<Job, String> {
        let message = request.to_js()?;
        let worker = Worker::new(WORKER_SCRIPT).map_err(|e| describe_js(&e))?;
        let on_message = {
            let worker = worker.clone();
            let dispatcher = dispatcher.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let text = event.data().as_string().unwrap_or_default();
                match Reply::from_json(&text) {
                    Ok(Reply::Ready) => {
                        if let Err(e) = worker.post_message(&message) {
                            dispatcher.dispatch(Action::WorkerError {
                                run,
                                message: describe_js(&e),
                            });
                        }
                    }
                    Ok(reply) => {
                        let finished = matches!(reply, Reply::Done { .. } | Reply::Failed { .. });
                        dispatcher.dispatch(Action::Reply { run, reply });
                        if finished {
                            // One worker per analysis: give its memory back now.
                            worker.terminate();
                        }
                    }
                    Err(message) => dispatcher.dispatch(Action::WorkerError { run, message }),
                }
            })
        };
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let message = match event.dyn_ref::<ErrorEvent>() {
                Some(e) if !e.message().is_empty() => e.message(),
                _ => "the analysis worker could not be started".to_string(),
            };
            dispatcher.dispatch(Action::WorkerError { run, message });
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Job {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(PageState::default);
    let job = use_mut_ref(|| None::<Job>);
    let runs = use_mut_ref(|| 0u64);

    let on_request = {
        let dispatcher = state.dispatcher();
        Callback::from(move |request: Request| {
            // Stop the previous analysis, if any.
            job.borrow_mut().take();
            if request.is_empty() {
                dispatcher.dispatch(Action::Rejected {
                    message: "No file was given. Choose a .zip of a Paimon warehouse.".into(),
                });
                return;
            }
            let run = {
                let mut runs = runs.borrow_mut();
                *runs += 1;
                *runs
            };
            dispatcher.dispatch(Action::Start {
                run,
                input: request.display_name(),
            });
            match Job::start(&request, run, dispatcher.clone()) {
                Ok(started) => *job.borrow_mut() = Some(started),
                Err(message) => dispatcher.dispatch(Action::WorkerError { run, message }),
            }
        })
    };

    let busy = matches!(state.status, Status::Running { .. });
    html! {
        <>
            <header class="masthead">
                <h1>{ "Paimon Recovery Validator" }</h1>
                <p class="tagline">
                    { "Reconstructs every Apache Paimon table's snapshot timeline from a warehouse \
                       artifact and flags lost changelog and unsafe consumer positions." }
                </p>
            </header>
            <main>
                <DropZone {on_request} {busy} />
                { status_view(&state.status) }
            </main>
            <footer class="colophon">
                <p>
                    { "Runs entirely in your browser: the files you choose are read here and sent \
                       nowhere. " }
                    { format!("{} {}", prv::report::model::TOOL_NAME, prv::report::model::TOOL_VERSION) }
                </p>
            </footer>
        </>
    }
}

fn status_view(status: &Status) -> Html {
    match status {
        Status::Idle => html! {
            <section class="intro">
                <p>
                    { "Drop the zipped warehouse from a failed CI run or a production incident. \
                       The page lists each table's snapshots and checks whether a streaming \
                       commit's changelog was lost (its APPEND snapshot is durable but its COMPACT \
                       half never was) and whether consumer positions are safe." }
                </p>
            </section>
        },
        Status::Running { input, progress } => {
            let fraction = progress.as_ref().and_then(|p| p.fraction());
            html! {
                <section class="progress" data-testid="progress" aria-live="polite" aria-busy="true">
                    <p class="progress-title">{ format!("Analysing {input}…") }</p>
                    if let Some(fraction) = fraction {
                        <progress max="1" value={fraction.to_string()}></progress>
                    } else {
                        <progress></progress>
                    }
                    <p class="progress-text">
                        { progress.as_ref().map(|p| p.text.clone()).unwrap_or_else(|| "Starting…".into()) }
                    </p>
                </section>
            }
        }
        Status::Done { input, report } => html! {
            <ReportView report={report.clone()} input={input.clone()} />
        },
        Status::Failed { input, message } => html! {
            <section class="error" data-testid="error" role="alert">
                <h2>
                    if input.is_empty() {
                        { "Nothing was analysed" }
                    } else {
                        { format!("Could not analyse {input}") }
                    }
                </h2>
                <p>{ message }</p>
            </section>
        },
    }
}
