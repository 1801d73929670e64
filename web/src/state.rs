//! The page's state and how messages change it (plain logic, unit-tested natively).

use std::cell::OnceCell;
use std::rc::Rc;

use prv::detail::SnapshotDetail;

use crate::protocol::{ProgressUpdate, Reply};

/// A finished report, as the page shows and exports it. Compared by address: a report is never
/// changed in place, and comparing two multi-megabyte reports field by field on each render
/// would be waste.
#[derive(Debug)]
pub struct Loaded {
    /// What was analysed, as the page named it.
    pub input: String,
    /// The report.
    pub report: Rc<prv::Report>,
    /// The report as the CLI writes it with `--format json` (the download's bytes).
    pub json: Rc<str>,
    /// The report as the CLI writes it with `--format markdown`, rendered on first use.
    markdown: OnceCell<Rc<str>>,
    /// Whether it came from a permalink (no artifact: no snapshot details).
    pub from_link: bool,
}

impl Loaded {
    /// Parses the JSON the worker (or a permalink) gave.
    pub fn parse(input: String, json: String, from_link: bool) -> Result<Loaded, String> {
        let report = prv::report::json::parse(&json)
            .map_err(|e| format!("The report could not be read back: {e}"))?;
        Ok(Loaded {
            input,
            report: Rc::new(report),
            json: json.into(),
            markdown: OnceCell::new(),
            from_link,
        })
    }

    /// The report as the CLI writes it with `--format markdown` (the CLI's function, on the
    /// report read back from its JSON), rendered when first asked for: most analyses are
    /// never exported.
    pub fn markdown(&self) -> Rc<str> {
        self.markdown
            .get_or_init(|| prv::report::markdown::render(&self.report).into())
            .clone()
    }
}

/// Where the page is.
#[derive(Debug, Clone, Default)]
pub enum Status {
    /// Nothing chosen yet.
    #[default]
    Idle,
    /// The worker is analysing `input`.
    Running {
        /// What is being analysed.
        input: String,
        /// The latest progress of each phase seen so far, in phase order.
        phases: Vec<ProgressUpdate>,
    },
    /// The report is there.
    Done(Rc<Loaded>),
    /// Nothing could be analysed.
    Failed {
        /// What was given.
        input: String,
        /// Why it failed, for the user.
        message: String,
    },
}

impl PartialEq for Status {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Status::Idle, Status::Idle) => true,
            (
                Status::Running { input, phases },
                Status::Running {
                    input: i2,
                    phases: p2,
                },
            ) => input == i2 && phases == p2,
            (Status::Done(a), Status::Done(b)) => Rc::ptr_eq(a, b),
            (
                Status::Failed { input, message },
                Status::Failed {
                    input: i2,
                    message: m2,
                },
            ) => input == i2 && message == m2,
            _ => false,
        }
    }
}

impl Status {
    /// The latest progress, while running.
    pub fn progress(&self) -> Option<&ProgressUpdate> {
        match self {
            Status::Running { phases, .. } => phases.last(),
            _ => None,
        }
    }
}

/// A snapshot's detail, asked of the worker.
#[derive(Debug, Clone, Default)]
pub enum DetailState {
    /// None asked.
    #[default]
    Closed,
    /// Asked, not arrived.
    Loading {
        /// Table path.
        path: String,
        /// Branch.
        branch: String,
        /// Snapshot id.
        id: i64,
    },
    /// Arrived.
    Ready(Rc<SnapshotDetail>),
    /// The worker had no such snapshot, or no artifact (a permalink).
    Unavailable {
        /// Snapshot id.
        id: i64,
        /// Why.
        message: String,
    },
}

impl PartialEq for DetailState {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (DetailState::Closed, DetailState::Closed) => true,
            (
                DetailState::Loading { path, branch, id },
                DetailState::Loading {
                    path: p2,
                    branch: b2,
                    id: i2,
                },
            ) => path == p2 && branch == b2 && id == i2,
            (DetailState::Ready(a), DetailState::Ready(b)) => Rc::ptr_eq(a, b),
            (
                DetailState::Unavailable { id, message },
                DetailState::Unavailable {
                    id: i2,
                    message: m2,
                },
            ) => id == i2 && message == m2,
            _ => false,
        }
    }
}

/// The page state: the status of the current run, and which run it is (replies of an older run,
/// whose worker was replaced, are ignored).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageState {
    /// The status.
    pub status: Status,
    /// Number of the current run (0 before the first).
    pub run: u64,
    /// The snapshot detail panel.
    pub detail: DetailState,
}

/// What happens to the page.
#[derive(Debug, Clone)]
pub enum Action {
    /// A new analysis of `input` starts as run `run`.
    Start {
        /// Run number (greater than any before).
        run: u64,
        /// What is analysed.
        input: String,
    },
    /// The worker of run `run` replied.
    Reply {
        /// Run number.
        run: u64,
        /// The reply.
        reply: Reply,
    },
    /// The worker of run `run` failed (could not load, crashed).
    WorkerError {
        /// Run number.
        run: u64,
        /// What the browser said.
        message: String,
    },
    /// The user gave nothing usable (no file at all), or the worker could not be started.
    Rejected {
        /// Why.
        message: String,
    },
    /// The user cancelled the running analysis (its worker is terminated): back to the start.
    Cancel,
    /// A permalink's report (its JSON) is shown, as run `run`.
    OpenLink {
        /// Run number.
        run: u64,
        /// The report JSON the link carried, or why it could not be read.
        json: Result<String, String>,
    },
    /// The detail of a snapshot was asked of the worker.
    AskDetail {
        /// Table path.
        path: String,
        /// Branch.
        branch: String,
        /// Snapshot id.
        id: i64,
    },
    /// The detail cannot be asked (a permalink has no artifact).
    DetailUnavailable {
        /// Snapshot id.
        id: i64,
        /// Why.
        message: String,
    },
    /// The detail panel was closed.
    CloseDetail,
}

impl PageState {
    /// The state after `action`.
    pub fn apply(&self, action: Action) -> PageState {
        let running_input = match &self.status {
            Status::Running { input, .. } => Some(input.clone()),
            _ => None,
        };
        let status = match action {
            Action::Start { run, input } => {
                return PageState {
                    status: Status::Running {
                        input,
                        phases: Vec::new(),
                    },
                    run,
                    detail: DetailState::Closed,
                }
            }
            Action::OpenLink { run, json } => {
                let status = match json
                    .and_then(|json| Loaded::parse("the report in this link".into(), json, true))
                {
                    Ok(loaded) => Status::Done(Rc::new(loaded)),
                    Err(message) => Status::Failed {
                        input: "the report in this link".into(),
                        message,
                    },
                };
                return PageState {
                    status,
                    run,
                    detail: DetailState::Closed,
                };
            }
            Action::Cancel => {
                return PageState {
                    status: Status::Idle,
                    run: self.run,
                    detail: DetailState::Closed,
                }
            }
            Action::AskDetail { path, branch, id } => {
                return PageState {
                    detail: DetailState::Loading { path, branch, id },
                    ..self.clone()
                }
            }
            Action::DetailUnavailable { id, message } => {
                return PageState {
                    detail: DetailState::Unavailable { id, message },
                    ..self.clone()
                }
            }
            Action::CloseDetail => {
                return PageState {
                    detail: DetailState::Closed,
                    ..self.clone()
                }
            }
            Action::Rejected { message } => Status::Failed {
                input: running_input.unwrap_or_default(),
                message,
            },
            Action::Reply { run, .. } | Action::WorkerError { run, .. } if run != self.run => {
                return self.clone()
            }
            Action::Reply {
                reply:
                    Reply::Detail {
                        path,
                        branch,
                        id,
                        detail,
                    },
                ..
            } => {
                let asked = matches!(&self.detail,
                    DetailState::Loading { path: p, branch: b, id: i }
                        if *p == path && *b == branch && *i == id);
                if !asked {
                    return self.clone();
                }
                let detail = match detail {
                    Some(d) => DetailState::Ready(Rc::new(*d)),
                    None => DetailState::Unavailable {
                        id,
                        message: format!("Snapshot {id} has no detail in this analysis."),
                    },
                };
                return PageState {
                    detail,
                    ..self.clone()
                };
            }
            Action::Reply { reply, .. } => {
                let Some(input) = running_input else {
                    return self.clone();
                };
                match reply {
                    Reply::Ready | Reply::Warmed { .. } | Reply::Detail { .. } => {
                        return self.clone()
                    }
                    Reply::Progress(progress) => {
                        let mut phases = match &self.status {
                            Status::Running { phases, .. } => phases.clone(),
                            _ => Vec::new(),
                        };
                        let index = progress.phase_index();
                        phases.retain(|p| p.phase_index() < index);
                        phases.push(progress);
                        Status::Running { input, phases }
                    }
                    Reply::Done { json } => match Loaded::parse(input.clone(), json, false) {
                        Ok(loaded) => Status::Done(Rc::new(loaded)),
                        Err(message) => Status::Failed { input, message },
                    },
                    Reply::Failed { message } => Status::Failed { input, message },
                }
            }
            Action::WorkerError { message, .. } => {
                let Some(input) = running_input else {
                    return self.clone();
                };
                Status::Failed {
                    input,
                    message: format!("The analysis stopped: {message}"),
                }
            }
        };
        PageState {
            status,
            run: self.run,
            detail: self.detail.clone(),
        }
    }
}

/// An epoch-millisecond instant as `YYYY-MM-DD HH:MM:SS.mmm UTC`.
pub fn format_utc(millis: i64) -> String {
    prv::time::format_utc_millis(millis)
}

/// A byte count for people: `512 B`, `61.7 KiB`, `2.00 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ if value < 10.0 => format!("{value:.2} {}", UNITS[unit]),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(run: u64) -> PageState {
        PageState::default().apply(Action::Start {
            run,
            input: "a.zip".into(),
        })
    }

    #[test]
    fn a_run_goes_from_progress_to_failure() {
        let s = running(1);
        let p = ProgressUpdate {
            phase: "listing".into(),
            text: "Listing".into(),
            done: 1,
            total: 2,
        };
        let s = s.apply(Action::Reply {
            run: 1,
            reply: Reply::Progress(p.clone()),
        });
        assert_eq!(
            s.status,
            Status::Running {
                input: "a.zip".into(),
                phases: vec![p.clone()]
            }
        );
        assert_eq!(s.status.progress(), Some(&p));
        let s = s.apply(Action::Reply {
            run: 1,
            reply: Reply::Failed {
                message: "not a zip".into(),
            },
        });
        assert_eq!(
            s.status,
            Status::Failed {
                input: "a.zip".into(),
                message: "not a zip".into()
            }
        );
        // A crash report after the failure does not overwrite it.
        let after = s.apply(Action::WorkerError {
            run: 1,
            message: "unreachable".into(),
        });
        assert_eq!(after, s);
    }

    #[test]
    fn replies_of_an_old_run_are_ignored() {
        let s = running(1).apply(Action::Start {
            run: 2,
            input: "b.zip".into(),
        });
        let after = s.apply(Action::Reply {
            run: 1,
            reply: Reply::Failed {
                message: "old".into(),
            },
        });
        assert_eq!(after, s);
        let after = s.apply(Action::WorkerError {
            run: 1,
            message: "old".into(),
        });
        assert_eq!(after, s);
    }

    #[test]
    fn worker_errors_fail_the_run() {
        let s = running(3).apply(Action::WorkerError {
            run: 3,
            message: "script failed to load".into(),
        });
        assert!(
            matches!(s.status, Status::Failed { ref message, .. } if message.contains("script failed to load"))
        );
    }

    fn progress(phase: &str, done: u64) -> Reply {
        Reply::Progress(ProgressUpdate {
            phase: phase.into(),
            text: phase.into(),
            done,
            total: 10,
        })
    }

    #[test]
    fn phases_accumulate_in_order() {
        let mut s = running(1);
        for (phase, done) in [
            ("listing", 5),
            ("snapshots", 1),
            ("snapshots", 2),
            ("manifests", 3),
        ] {
            s = s.apply(Action::Reply {
                run: 1,
                reply: progress(phase, done),
            });
        }
        let Status::Running { phases, .. } = &s.status else {
            panic!("not running: {s:?}");
        };
        let seen: Vec<(&str, u64)> = phases.iter().map(|p| (p.phase.as_str(), p.done)).collect();
        assert_eq!(
            seen,
            vec![("listing", 5), ("snapshots", 2), ("manifests", 3)]
        );
    }

    const JSON: &str = include_str!("../../tests/golden/warehouses__java09_a_healthy_pk.json.snap");

    fn report_json() -> String {
        // The golden file is an insta snapshot: the report after the `---` header.
        let body = JSON.splitn(3, "---").nth(2).unwrap_or(JSON);
        body.trim_start_matches('\n').to_string()
    }

    #[test]
    fn done_parses_the_report_and_keeps_the_bytes() {
        let json = report_json();
        let s = running(1).apply(Action::Reply {
            run: 1,
            reply: Reply::Done { json: json.clone() },
        });
        let Status::Done(loaded) = &s.status else {
            panic!("not done: {:?}", s.status);
        };
        assert_eq!(&*loaded.json, json.as_str());
        // The Markdown is the CLI's rendering of the same report, made once.
        let markdown = loaded.markdown();
        assert_eq!(&*markdown, prv::report::markdown::render(&loaded.report));
        assert!(Rc::ptr_eq(&markdown, &loaded.markdown()));
        assert_eq!(loaded.input, "a.zip");
        assert!(!loaded.from_link);
        assert!(!loaded.report.tables.is_empty());
        // Garbage is a failure with a message, not a panic.
        let s = running(2).apply(Action::Reply {
            run: 2,
            reply: Reply::Done { json: "{".into() },
        });
        assert!(matches!(s.status, Status::Failed { .. }));
    }

    #[test]
    fn a_link_renders_its_report_with_markdown() {
        let s = PageState::default().apply(Action::OpenLink {
            run: 1,
            json: Ok(report_json()),
        });
        let Status::Done(loaded) = &s.status else {
            panic!("not done: {:?}", s.status);
        };
        assert!(loaded.from_link);
        assert!(loaded.markdown().contains("Paimon recovery check"));
        let s = PageState::default().apply(Action::OpenLink {
            run: 1,
            json: Err("cut short".into()),
        });
        assert!(matches!(s.status, Status::Failed { ref message, .. } if message == "cut short"));
    }

    #[test]
    fn cancel_returns_to_idle_and_ignores_the_old_worker() {
        let s = running(4).apply(Action::Cancel);
        assert_eq!(s.status, Status::Idle);
        let after = s.apply(Action::Reply {
            run: 4,
            reply: progress("checks", 1),
        });
        assert_eq!(after.status, Status::Idle);
    }

    #[test]
    fn details_arrive_only_for_what_was_asked() {
        let s = running(1).apply(Action::AskDetail {
            path: "t".into(),
            branch: "main".into(),
            id: 3,
        });
        let other = s.apply(Action::Reply {
            run: 1,
            reply: Reply::Detail {
                path: "t".into(),
                branch: "main".into(),
                id: 4,
                detail: None,
            },
        });
        assert_eq!(other.detail, s.detail);
        let missing = s.apply(Action::Reply {
            run: 1,
            reply: Reply::Detail {
                path: "t".into(),
                branch: "main".into(),
                id: 3,
                detail: None,
            },
        });
        assert!(matches!(
            missing.detail,
            DetailState::Unavailable { id: 3, .. }
        ));
        assert_eq!(
            missing.apply(Action::CloseDetail).detail,
            DetailState::Closed
        );
    }

    #[test]
    fn formats_times_in_utc() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(format_utc(1_796_027_473_636), "2026-11-30 08:31:13.636 UTC");
        assert_eq!(format_utc(951_782_400_000), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(format_utc(-1), "1969-12-31 23:59:59.999 UTC");
    }

    #[test]
    fn formats_bytes() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(61_737), "60.3 KiB");
        assert_eq!(format_bytes(2 << 30), "2.00 GiB");
    }
}
