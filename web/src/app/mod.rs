//! The page: a drop zone, then progress, then the report (or what went wrong).
//!
//! Each analysis runs in its own worker ([`Job`]), started from the page's own origin. The page
//! starts one when it loads and warms it on the bundled example, so that the first analysis
//! runs in optimized code; later analyses start a fresh worker. The worker stays alive after its
//! report, to answer snapshot-detail requests from the timeline, and is terminated when the
//! analysis is cancelled or replaced. Replies are applied to [`PageState`]. A permalink
//! (`#report=…`) shows its report with no worker at all.

mod dom;
mod drop_zone;
mod report;

use std::cell::RefCell;
use std::rc::Rc;

use gloo_events::EventListener;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};
use yew::prelude::*;

use crate::blob::describe_js;
use crate::permalink;
use crate::protocol::{Command, Reply, Request, PHASES};
use crate::state::{Action, PageState, Status};

use self::drop_zone::DropZone;
use self::report::ReportView;

pub use self::drop_zone::EXAMPLE_FILE;

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

/// The performance mark set when an analysis is asked for; the measure `prv:analysis` runs from
/// it to the verdict on screen.
const START_MARK: &str = "prv:analysis-start";

/// How long a worker started in advance analyses the bundled example before the user's file
/// comes, in ms: long enough for V8 to optimize the hot functions of the core (about five
/// analyses of the example), short enough to be over before a user has picked a file.
const WARM_MS: f64 = 400.0;

/// What a worker's message handler knows: whether the worker is ready, which run it serves (none
/// yet for a worker started in advance), and the request to post once it is ready.
#[derive(Default)]
struct Link {
    ready: bool,
    failed: bool,
    run: Option<u64>,
    pending: Option<JsValue>,
}

/// A worker: started in advance (warming, no run yet) or running one analysis. The worker stays
/// alive after its report, to answer snapshot-detail requests from the timeline. Dropping it
/// stops the worker.
struct Job {
    worker: Worker,
    link: Rc<RefCell<Link>>,
    /// The worker's `message` and `error` listeners (gloo: removed when the job is dropped).
    _on_message: EventListener,
    _on_error: EventListener,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

impl Job {
    /// Starts a worker with no run yet: once ready, it warms up (analyses the bundled example
    /// for [`WARM_MS`]) unless a request came first, and sets `data-worker` on the document
    /// element (`starting`, `warming`, `warm`), which the benchmark waits for.
    fn spare(dispatcher: UseReducerDispatcher<PageState>) -> Result<Job, String> {
        dom::set_worker_state("starting");
        Job::spawn(dispatcher)
    }

    /// Starts a worker for run `run`; it is sent `request` once it says it is ready.
    fn start(
        request: &Request,
        run: u64,
        dispatcher: UseReducerDispatcher<PageState>,
    ) -> Result<Job, String> {
        Job::spawn(dispatcher)?.assign(request, run)
    }

    /// Gives this worker run `run`: `request` is posted now if the worker is ready (a worker
    /// started in advance answers after its warm-up, if one is under way), else when it is.
    fn assign(self, request: &Request, run: u64) -> Result<Job, String> {
        let message = Command::Analyse(request.clone()).to_js()?;
        let ready = {
            let mut link = self.link.borrow_mut();
            link.run = Some(run);
            if !link.ready {
                link.pending = Some(message.clone());
            }
            link.ready
        };
        if ready {
            self.worker
                .post_message(&message)
                .map_err(|e| describe_js(&e))?;
        }
        Ok(self)
    }

    /// Starts a worker with no run; it warms up when ready unless a run was assigned first.
    fn spawn(dispatcher: UseReducerDispatcher<PageState>) -> Result<Job, String> {
        let worker = crate::spawn::start_worker()?;
        let link = Rc::new(RefCell::new(Link::default()));
        let on_message = {
            let target = worker.clone();
            let worker = worker.clone();
            let dispatcher = dispatcher.clone();
            let link = link.clone();
            EventListener::new(&target, "message", move |event: &Event| {
                let Some(event) = event.dyn_ref::<MessageEvent>() else {
                    return;
                };
                let reply = Reply::from_js(&event.data());
                let run = link.borrow().run;
                match (reply, run) {
                    (Ok(Reply::Ready), _) => {
                        let pending = {
                            let mut link = link.borrow_mut();
                            link.ready = true;
                            link.pending.take()
                        };
                        let (message, warming) = match pending {
                            Some(message) => (Ok(message), false),
                            None => (Command::Warm { millis: WARM_MS }.to_js(), true),
                        };
                        let posted = message
                            .and_then(|m| worker.post_message(&m).map_err(|e| describe_js(&e)));
                        if warming && posted.is_ok() {
                            dom::set_worker_state("warming");
                        }
                        if let (Err(message), Some(run)) = (posted, run) {
                            dispatcher.dispatch(Action::WorkerError { run, message });
                        }
                    }
                    (Ok(Reply::Warmed { .. }), _) => dom::set_worker_state("warm"),
                    (Ok(reply), Some(run)) => dispatcher.dispatch(Action::Reply { run, reply }),
                    (Err(message), Some(run)) => {
                        dispatcher.dispatch(Action::WorkerError { run, message })
                    }
                    // Anything else from a worker started in advance (its warm-up crashed, or
                    // it said something unreadable): it is not trusted with a run; the next
                    // request starts a fresh one.
                    (_, None) => {
                        link.borrow_mut().failed = true;
                        dom::set_worker_state("failed");
                    }
                }
            })
        };
        let on_error = {
            let link = link.clone();
            EventListener::new(&worker, "error", move |event: &Event| {
                let message = match event.dyn_ref::<ErrorEvent>() {
                    Some(e) if !e.message().is_empty() => e.message(),
                    _ => "the analysis worker could not be started".to_string(),
                };
                // A worker started in advance that failed is replaced when a run comes.
                let run = link.borrow().run;
                link.borrow_mut().failed = true;
                match run {
                    Some(run) => dispatcher.dispatch(Action::WorkerError { run, message }),
                    None => dom::set_worker_state("failed"),
                }
            })
        };
        Ok(Job {
            worker,
            link,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Whether the worker has not failed (a worker started in advance may have, unseen).
    fn usable(&self) -> bool {
        !self.link.borrow().failed
    }

    /// Asks the worker for a snapshot's detail.
    fn ask(&self, command: &Command) -> Result<(), String> {
        let message = command.to_js()?;
        self.worker
            .post_message(&message)
            .map_err(|e| describe_js(&e))
    }
}

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(PageState::default);
    let job = use_mut_ref(|| None::<Job>);
    let spare = use_mut_ref(|| None::<Job>);
    let runs = use_mut_ref(|| 0u64);
    let dark = use_state(dom::shows_dark);

    let next_run = {
        let runs = runs.clone();
        move || {
            let mut runs = runs.borrow_mut();
            *runs += 1;
            *runs
        }
    };

    // A permalink: show its report, now and whenever the hash changes to another one.
    {
        let dispatcher = state.dispatcher();
        let job = job.clone();
        let next_run = next_run.clone();
        use_effect_with((), move |_| {
            let open = move || {
                let hash = dom::location_hash();
                if !permalink::is_permalink(&hash) {
                    return;
                }
                job.borrow_mut().take();
                let json = permalink::decode(&hash)
                    .and_then(|j| j.ok_or_else(|| "The link holds no report.".to_string()));
                dispatcher.dispatch(Action::OpenLink {
                    run: next_run(),
                    json: json.map_err(|e| format!("This link's report cannot be read: {e}.")),
                });
            };
            open();
            dom::on_hash_change(open);
        });
    }

    // A worker started in advance and warmed while the user picks a file (not for a permalink,
    // which needs none).
    {
        let dispatcher = state.dispatcher();
        let spare = spare.clone();
        use_effect_with((), move |_| {
            if !permalink::is_permalink(&dom::location_hash()) {
                *spare.borrow_mut() = Job::spare(dispatcher).ok();
            }
        });
    }

    let on_request = {
        let dispatcher = state.dispatcher();
        let job = job.clone();
        let spare = spare.clone();
        let next_run = next_run.clone();
        Callback::from(move |request: Request| {
            // Stop the previous analysis, if any, and drop a permalink's hash: the URL no longer
            // describes what is shown.
            job.borrow_mut().take();
            if permalink::is_permalink(&dom::location_hash()) {
                let _ = dom::set_location_hash("");
            }
            if request.is_empty() {
                dispatcher.dispatch(Action::Rejected {
                    message: "No file was given. Choose a .zip of a Paimon warehouse.".into(),
                });
                return;
            }
            let run = next_run();
            dom::mark(START_MARK);
            dispatcher.dispatch(Action::Start {
                run,
                input: request.display_name(),
            });
            // The worker started in advance, unless it failed (then a fresh one says why).
            let warm = spare.borrow_mut().take().filter(Job::usable);
            let started = match warm {
                Some(warm) => warm.assign(&request, run),
                None => Job::start(&request, run, dispatcher.clone()),
            };
            match started {
                Ok(started) => *job.borrow_mut() = Some(started),
                Err(message) => dispatcher.dispatch(Action::WorkerError { run, message }),
            }
        })
    };

    let on_error = {
        let dispatcher = state.dispatcher();
        Callback::from(move |message: String| dispatcher.dispatch(Action::Rejected { message }))
    };

    let on_cancel = {
        let dispatcher = state.dispatcher();
        let job = job.clone();
        Callback::from(move |_: MouseEvent| {
            job.borrow_mut().take();
            dispatcher.dispatch(Action::Cancel);
        })
    };

    let on_select = {
        let dispatcher = state.dispatcher();
        let job = job.clone();
        Callback::from(move |(path, branch, id): (String, String, i64)| {
            let command = Command::Detail {
                path: path.clone(),
                branch: branch.clone(),
                id,
            };
            let asked = match job.borrow().as_ref() {
                Some(job) => job.ask(&command),
                None => Err("the report was opened from a link, without its artifact".into()),
            };
            match asked {
                Ok(()) => dispatcher.dispatch(Action::AskDetail { path, branch, id }),
                Err(e) => dispatcher.dispatch(Action::DetailUnavailable {
                    id,
                    message: format!("Snapshot {id}: no detail ({e})."),
                }),
            }
        })
    };
    let on_close_detail = {
        let dispatcher = state.dispatcher();
        Callback::from(move |()| dispatcher.dispatch(Action::CloseDetail))
    };

    let on_theme = {
        let dark = dark.clone();
        Callback::from(move |_: MouseEvent| {
            let next = !*dark;
            dom::choose_theme(next);
            dark.set(next);
        })
    };

    // The verdict is on screen: measure from the request, and move focus to it.
    let done = matches!(state.status, Status::Done(_));
    let run = state.run;
    use_effect_with((done, run), move |(done, _)| {
        if *done {
            dom::measure("prv:analysis", START_MARK);
        }
    });

    let busy = matches!(state.status, Status::Running { .. });
    let announcement = match &state.status {
        Status::Idle => String::new(),
        Status::Running { input, phases } => match phases.last() {
            Some(p) => format!("Analysing {input}: {}.", p.text),
            None => format!("Analysing {input}."),
        },
        Status::Done(loaded) => format!(
            "Analysis done: {}.",
            loaded.report.verdict.as_str().to_uppercase()
        ),
        Status::Failed { message, .. } => message.clone(),
    };
    html! {
        <>
            <a class="skip-link" href="#main">{ "Skip to the content" }</a>
            <header class="masthead">
                <div class="masthead-row">
                    <h1>{ "Paimon Recovery Validator" }</h1>
                    <button
                        type="button"
                        class="theme-toggle"
                        data-testid="theme-toggle"
                        aria-pressed={(*dark).to_string()}
                        onclick={on_theme}
                    >
                        { if *dark { "Light mode" } else { "Dark mode" } }
                    </button>
                </div>
                <p class="tagline">
                    { "Reconstructs every Apache Paimon table's snapshot timeline from a warehouse \
                       artifact and flags lost changelog and unsafe consumer positions." }
                </p>
                <p class="privacy" data-testid="privacy">
                    <strong>{ "Your files never leave your browser." }</strong>
                    { " They are read in this tab by WebAssembly; nothing is uploaded, and the \
                       page makes no request to any other site." }
                </p>
            </header>
            <main id="main">
                <DropZone {on_request} {busy} {on_error} />
                <p class="visually-hidden" role="status" aria-live="polite" data-testid="announcer">
                    { announcement }
                </p>
                { status_view(&state, on_cancel, on_select, on_close_detail) }
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

fn status_view(
    state: &PageState,
    on_cancel: Callback<MouseEvent>,
    on_select: Callback<(String, String, i64)>,
    on_close_detail: Callback<()>,
) -> Html {
    match &state.status {
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
        Status::Running { input, phases } => {
            let current = phases.last().map_or(0, |p| p.phase_index());
            let fraction = phases.last().and_then(|p| p.fraction());
            html! {
                <section class="progress" data-testid="progress" aria-busy="true">
                    <p class="progress-title">{ format!("Analysing {input}…") }</p>
                    if let Some(fraction) = fraction {
                        <progress max="1" value={fraction.to_string()} aria-label="Progress of this phase"></progress>
                    } else {
                        <progress aria-label="Progress"></progress>
                    }
                    <ol class="phases">
                        { for PHASES.iter().enumerate().map(|(i, (key, label))| {
                            let seen = phases.iter().find(|p| p.phase == *key);
                            let state = if phases.is_empty() || i > current {
                                "pending"
                            } else if i < current {
                                "done"
                            } else {
                                "current"
                            };
                            html! {
                                <li class={classes!("phase", state)} data-phase={*key} data-state={state}>
                                    <span class="phase-label">{ *label }</span>
                                    if let Some(p) = seen {
                                        <span class="phase-count">{ format!(" ({})", p.counts()) }</span>
                                    }
                                </li>
                            }
                        }) }
                    </ol>
                    <button type="button" class="button secondary" data-testid="cancel" onclick={on_cancel}>
                        { "Cancel" }
                    </button>
                </section>
            }
        }
        Status::Done(loaded) => html! {
            <ReportView
                loaded={loaded.clone()}
                detail={state.detail.clone()}
                {on_select}
                {on_close_detail}
            />
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
                <div class="hint">
                    { "Choose a .zip of a Paimon warehouse (or its folder) above, or try the example." }
                </div>
            </section>
        },
    }
}
