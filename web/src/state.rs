//! The page's state and how messages change it (plain logic, unit-tested natively).

use std::rc::Rc;

use crate::protocol::{ProgressUpdate, Reply};

/// Where the page is.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Status {
    /// Nothing chosen yet.
    #[default]
    Idle,
    /// The worker is analysing `input`.
    Running {
        /// What is being analysed.
        input: String,
        /// The latest progress, once the worker reported any.
        progress: Option<ProgressUpdate>,
    },
    /// The report is there.
    Done {
        /// What was analysed.
        input: String,
        /// The report.
        report: Rc<prv::Report>,
    },
    /// Nothing could be analysed.
    Failed {
        /// What was given.
        input: String,
        /// Why it failed, for the user.
        message: String,
    },
}

/// The page state: the status of the current run, and which run it is (replies of an older run,
/// whose worker was replaced, are ignored).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageState {
    /// The status.
    pub status: Status,
    /// Number of the current run (0 before the first).
    pub run: u64,
}

/// What happens to the page.
#[derive(Debug, Clone, PartialEq)]
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
                        progress: None,
                    },
                    run,
                }
            }
            Action::Rejected { message } => Status::Failed {
                input: running_input.unwrap_or_default(),
                message,
            },
            Action::Reply { run, .. } | Action::WorkerError { run, .. } if run != self.run => {
                return self.clone()
            }
            Action::Reply { reply, .. } => {
                let Some(input) = running_input else {
                    return self.clone();
                };
                match reply {
                    Reply::Ready => return self.clone(),
                    Reply::Progress(progress) => Status::Running {
                        input,
                        progress: Some(progress),
                    },
                    Reply::Done { report } => Status::Done {
                        input,
                        report: Rc::new(*report),
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
        }
    }
}

/// An epoch-millisecond instant as `YYYY-MM-DD HH:MM:SS.mmm UTC`.
pub fn format_utc(millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{ms:03} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

// Howard Hinnant's days → civil date (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
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
                progress: Some(p)
            }
        );
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
