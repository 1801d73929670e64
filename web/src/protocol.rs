//! The messages between the page and its worker.
//!
//! Page → worker: a [`Command`] as a plain JS object: `analyse` (a [`Request`] holding the user's
//! `File`s; Blobs pass by structured clone, the page never reads them) or `detail` (one
//! snapshot's detail, asked after the analysis; the worker keeps the analysis until it is
//! terminated) or `warm` (analyse the bundled example a few times, so that V8 optimizes the
//! core's hot code before the user's file arrives). Worker → page: a [`Reply`] as a JSON string
//! (`Ready` once the worker's wasm is running, `Warmed` after `warm`, then `Progress`… and one
//! `Done` or `Failed`, then one `Detail` per `detail`).
//!
//! `Done` carries the report as the CLI writes it with `--format json` (the same function,
//! [`prv::report::json::render`]), posted as a JS object holding that string rather than nested
//! in a JSON message (escaping and parsing a multi-megabyte report twice cost ~10% of the
//! page's analysis). The page renders the Markdown from it with the CLI's function when the user
//! exports it, so the page's exports are the CLI's bytes.

use js_sys::{Array, Object, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::File;

/// What the worker is asked to analyse.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Zip files, each one input.
    pub zips: Vec<File>,
    /// A folder the user picked, if any.
    pub folder: Option<Folder>,
    /// The clock for age-based findings (epoch ms); `None` = the artifact's capture time.
    pub now_millis: Option<i64>,
}

/// A folder as the browser's directory picker gives it.
#[derive(Debug, Clone)]
pub struct Folder {
    /// The folder's name.
    pub name: String,
    /// Its files with their paths relative to the folder, `/`-separated.
    pub files: Vec<(String, File)>,
}

impl Request {
    /// The name to show for what was given.
    pub fn display_name(&self) -> String {
        let mut names: Vec<String> = self.zips.iter().map(File::name).collect();
        if let Some(folder) = &self.folder {
            names.push(format!("{}/", folder.name));
        }
        names.join(" + ")
    }

    /// Whether nothing was given.
    pub fn is_empty(&self) -> bool {
        self.zips.is_empty() && self.folder.is_none()
    }

    /// The JS object posted to the worker.
    pub fn to_js(&self) -> Result<JsValue, String> {
        let obj = Object::new();
        set(&obj, "kind", &JsValue::from_str("analyse"))?;
        let zips: Array = self.zips.iter().collect();
        set(&obj, "zips", &zips)?;
        if let Some(folder) = &self.folder {
            set(&obj, "folderName", &JsValue::from_str(&folder.name))?;
            let paths: Array = folder
                .files
                .iter()
                .map(|(p, _)| JsValue::from_str(p))
                .collect();
            let files: Array = folder.files.iter().map(|(_, f)| f).collect();
            set(&obj, "folderPaths", &paths)?;
            set(&obj, "folderFiles", &files)?;
        }
        if let Some(now) = self.now_millis {
            set(&obj, "nowMillis", &JsValue::from_f64(now as f64))?;
        }
        Ok(obj.into())
    }

    /// Reads the object [`Request::to_js`] made.
    pub fn from_js(value: &JsValue) -> Result<Request, String> {
        if !value.is_object() {
            return Err("the worker was sent something that is not a request".into());
        }
        let zips = files(&get(value, "zips")?)?;
        let folder = match get(value, "folderName")?.as_string() {
            None => None,
            Some(name) => {
                let paths = get(value, "folderPaths")?
                    .dyn_into::<Array>()
                    .map_err(|_| "folderPaths is not an array".to_string())?;
                let files = files(&get(value, "folderFiles")?)?;
                let paths: Vec<String> = paths.iter().filter_map(|p| p.as_string()).collect();
                if paths.len() != files.len() {
                    return Err("folderPaths and folderFiles differ in length".into());
                }
                Some(Folder {
                    name,
                    files: paths.into_iter().zip(files).collect(),
                })
            }
        };
        let now_millis = get(value, "nowMillis")?.as_f64().map(|n| n as i64);
        Ok(Request {
            zips,
            folder,
            now_millis,
        })
    }
}

/// What the page asks the worker.
#[derive(Debug, Clone)]
pub enum Command {
    /// Analyse these files (replacing nothing: each analysis has its own worker).
    Analyse(Request),
    /// Run the core on the example bundled in the worker until about `millis` have passed, so
    /// that V8 compiles its hot functions to optimized code (it starts every module in baseline
    /// code and optimizes per instance; BENCHMARKS.md). Sent to a worker started in advance.
    Warm {
        /// How long to keep warming, in ms (at least one run).
        millis: f64,
    },
    /// The detail of snapshot `id` of the table at `path`, branch `branch`, of the analysis done.
    Detail {
        /// Table path as in the report.
        path: String,
        /// Branch.
        branch: String,
        /// Snapshot id.
        id: i64,
    },
}

impl Command {
    /// The JS object posted to the worker.
    pub fn to_js(&self) -> Result<JsValue, String> {
        match self {
            Command::Analyse(request) => request.to_js(),
            Command::Warm { millis } => {
                let obj = Object::new();
                set(&obj, "kind", &JsValue::from_str("warm"))?;
                set(&obj, "millis", &JsValue::from_f64(*millis))?;
                Ok(obj.into())
            }
            Command::Detail { path, branch, id } => {
                let obj = Object::new();
                set(&obj, "kind", &JsValue::from_str("detail"))?;
                set(&obj, "path", &JsValue::from_str(path))?;
                set(&obj, "branch", &JsValue::from_str(branch))?;
                set(&obj, "id", &JsValue::from_f64(*id as f64))?;
                Ok(obj.into())
            }
        }
    }

    /// Reads the object [`Command::to_js`] made.
    pub fn from_js(value: &JsValue) -> Result<Command, String> {
        if !value.is_object() {
            return Err("the worker was sent something that is not a request".into());
        }
        match get(value, "kind")?.as_string().as_deref() {
            Some("warm") => Ok(Command::Warm {
                millis: get(value, "millis")?.as_f64().unwrap_or(0.0),
            }),
            Some("detail") => {
                let text = |key: &str| -> Result<String, String> {
                    get(value, key)?
                        .as_string()
                        .ok_or_else(|| format!("a detail request without {key}"))
                };
                let id = get(value, "id")?
                    .as_f64()
                    .ok_or_else(|| "a detail request without id".to_string())?;
                Ok(Command::Detail {
                    path: text("path")?,
                    branch: text("branch")?,
                    id: id as i64,
                })
            }
            _ => Request::from_js(value).map(Command::Analyse),
        }
    }
}

/// Splits a directory picker's `webkitRelativePath` (`folder/sub/file`) into the folder's name
/// and the path inside it.
pub fn split_relative_path(path: &str) -> (String, String) {
    let path = path.trim_start_matches('/');
    match path.split_once('/') {
        Some((top, rest)) => (top.to_string(), rest.to_string()),
        None => (String::new(), path.to_string()),
    }
}

fn set(obj: &Object, key: &str, value: &JsValue) -> Result<(), String> {
    Reflect::set(obj, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|e| crate::blob::describe_js(&e))
}

fn get(obj: &JsValue, key: &str) -> Result<JsValue, String> {
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|e| crate::blob::describe_js(&e))
}

fn files(value: &JsValue) -> Result<Vec<File>, String> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    let array = value
        .dyn_ref::<Array>()
        .ok_or_else(|| "expected an array of files".to_string())?;
    array
        .iter()
        .map(|f| {
            f.dyn_into::<File>()
                .map_err(|_| "expected a File".to_string())
        })
        .collect()
}

/// The phases of an analysis, in order, with what the page calls them.
pub const PHASES: [(&str, &str); 4] = [
    ("listing", "Reading the archive directory"),
    ("snapshots", "Reading snapshots"),
    ("manifests", "Decoding manifests"),
    ("checks", "Running checks"),
];

/// How far the analysis is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressUpdate {
    /// The phase: one of the keys of [`PHASES`].
    #[serde(default)]
    pub phase: String,
    /// What the core is doing, as it describes it (`Display` of [`prv::Progress`]).
    pub text: String,
    /// Units done in the current phase.
    pub done: u64,
    /// Units in the current phase (0 if unknown).
    pub total: u64,
}

impl ProgressUpdate {
    /// From the core's progress.
    pub fn from_core(p: &prv::Progress) -> Self {
        use prv::analysis::Phase;
        let phase = match p.phase {
            Phase::Listing => "listing",
            Phase::Snapshots => "snapshots",
            Phase::Manifests => "manifests",
            Phase::Checks => "checks",
        };
        ProgressUpdate {
            phase: phase.to_string(),
            text: p.to_string(),
            done: p.done,
            total: p.total,
        }
    }

    /// The index of the phase in [`PHASES`] (unknown phases count as the first).
    pub fn phase_index(&self) -> usize {
        PHASES
            .iter()
            .position(|(key, _)| *key == self.phase)
            .unwrap_or(0)
    }

    /// The counts, for people: `12 of 40`, or `12` when the total is unknown.
    pub fn counts(&self) -> String {
        if self.total > 0 {
            format!("{} of {}", self.done.min(self.total), self.total)
        } else {
            self.done.to_string()
        }
    }

    /// Done as a fraction in `0..=1`, if the total is known.
    pub fn fraction(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.done as f64 / self.total as f64).clamp(0.0, 1.0))
    }
}

/// A message from the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Reply {
    /// The worker's wasm is running; it can take a request.
    Ready,
    /// The answer to [`Command::Warm`]: how many analyses of the example ran, in how long.
    Warmed {
        /// Analyses run.
        runs: u32,
        /// Time spent, in ms.
        millis: f64,
    },
    /// How far the analysis is.
    Progress(ProgressUpdate),
    /// The analysis finished.
    Done {
        /// The report, exactly as the CLI writes it with `--format json`.
        json: String,
    },
    /// The answer to [`Command::Detail`].
    Detail {
        /// Table path asked for.
        path: String,
        /// Branch asked for.
        branch: String,
        /// Snapshot asked for.
        id: i64,
        /// The detail, `None` when there is no such snapshot (or no analysis yet).
        detail: Option<Box<prv::detail::SnapshotDetail>>,
    },
    /// Nothing could be analysed (not a zip, unreadable file, a crash).
    Failed {
        /// What went wrong, for the user.
        message: String,
    },
}

impl Reply {
    /// As the JSON string posted to the page.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(r#"{{"type":"failed","message":"the report could not be serialized: {e}"}}"#)
        })
    }

    /// From the JSON string the worker posted.
    pub fn from_json(text: &str) -> Result<Reply, String> {
        serde_json::from_str(text).map_err(|e| format!("unreadable message from the worker: {e}"))
    }

    /// As posted to the page: `Done` as an object `{type: "done", json}` (the report's JSON is
    /// not escaped into another JSON string), every other reply as its JSON string.
    pub fn to_js(&self) -> JsValue {
        match self {
            Reply::Done { json } => {
                let obj = Object::new();
                let made = set(&obj, "type", &JsValue::from_str("done"))
                    .and_then(|()| set(&obj, "json", &JsValue::from_str(json)));
                match made {
                    Ok(()) => obj.into(),
                    Err(message) => JsValue::from_str(&Reply::Failed { message }.to_json()),
                }
            }
            other => JsValue::from_str(&other.to_json()),
        }
    }

    /// Reads what [`Reply::to_js`] posted.
    pub fn from_js(value: &JsValue) -> Result<Reply, String> {
        if let Some(text) = value.as_string() {
            return Reply::from_json(&text);
        }
        if value.is_object() && get(value, "type")?.as_string().as_deref() == Some("done") {
            if let Some(json) = get(value, "json")?.as_string() {
                return Ok(Reply::Done { json });
            }
        }
        Err("unreadable message from the worker: neither a JSON reply nor a report".into())
    }
}

/// Decides which progress updates are worth posting: the first of each phase, the last, and at
/// most one per `interval_ms` in between (the core may report thousands per second).
#[derive(Debug, Clone)]
pub struct Throttle {
    interval_ms: f64,
    last: Option<(u64, f64)>,
}

impl Throttle {
    /// A throttle letting one update through per `interval_ms`.
    pub fn new(interval_ms: f64) -> Self {
        Throttle {
            interval_ms,
            last: None,
        }
    }

    /// Whether to post `update` at time `now_ms`.
    pub fn admit(&mut self, update: &ProgressUpdate, now_ms: f64) -> bool {
        let admit = match self.last {
            None => true,
            Some((total, at)) => {
                total != update.total
                    || update.done >= update.total
                    || now_ms - at >= self.interval_ms
            }
        };
        if admit {
            self.last = Some((update.total, now_ms));
        }
        admit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(done: u64, total: u64) -> ProgressUpdate {
        ProgressUpdate {
            phase: "manifests".into(),
            text: format!("reading {done}/{total}"),
            done,
            total,
        }
    }

    #[test]
    fn replies_round_trip_as_json() {
        for reply in [
            Reply::Ready,
            Reply::Progress(progress(3, 9)),
            Reply::Failed {
                message: "not a zip".into(),
            },
            Reply::Done {
                json: "{\n  \"schema\": \"x\"\n}\n".into(),
            },
            Reply::Warmed {
                runs: 4,
                millis: 312.5,
            },
            Reply::Detail {
                path: "wh/db.db/t".into(),
                branch: "main".into(),
                id: 3,
                detail: None,
            },
        ] {
            let json = reply.to_json();
            assert_eq!(Reply::from_json(&json).unwrap(), reply, "{json}");
        }
        assert!(Reply::to_json(&Reply::Ready).contains(r#""type":"ready""#));
        assert!(Reply::from_json("{").is_err());
    }

    #[test]
    fn throttle_keeps_phase_changes_and_the_end() {
        let mut t = Throttle::new(100.0);
        assert!(t.admit(&progress(0, 10), 0.0));
        assert!(!t.admit(&progress(1, 10), 10.0));
        assert!(!t.admit(&progress(2, 10), 50.0));
        assert!(t.admit(&progress(3, 10), 150.0));
        assert!(t.admit(&progress(10, 10), 151.0));
        assert!(t.admit(&progress(0, 4), 152.0));
        assert!(!t.admit(&progress(1, 4), 153.0));
    }

    #[test]
    fn splits_picker_paths() {
        assert_eq!(
            split_relative_path("wh/db.db/t/snapshot/LATEST"),
            ("wh".to_string(), "db.db/t/snapshot/LATEST".to_string())
        );
        assert_eq!(
            split_relative_path("file"),
            (String::new(), "file".to_string())
        );
    }

    #[test]
    fn progress_knows_its_phase_and_counts() {
        let p = progress(3, 9);
        assert_eq!(p.phase_index(), 2);
        assert_eq!(p.counts(), "3 of 9");
        assert_eq!(progress(4, 0).counts(), "4");
        let core = prv::Progress {
            phase: prv::analysis::Phase::Snapshots,
            done: 1,
            total: 2,
        };
        let p = ProgressUpdate::from_core(&core);
        assert_eq!((p.phase.as_str(), p.phase_index()), ("snapshots", 1));
        // Older messages without a phase still parse.
        let old: ProgressUpdate =
            serde_json::from_str(r#"{"text":"x","done":1,"total":2}"#).unwrap();
        assert_eq!(old.phase_index(), 0);
    }

    #[test]
    fn done_starts_with_its_type() {
        let json = Reply::Done { json: "{}".into() }.to_json();
        assert!(json.starts_with(r#"{"type":"done""#), "{json}");
    }

    #[test]
    fn fraction_is_clamped_and_unknown_without_total() {
        assert_eq!(progress(1, 4).fraction(), Some(0.25));
        assert_eq!(progress(9, 4).fraction(), Some(1.0));
        assert_eq!(progress(1, 0).fraction(), None);
    }
}
