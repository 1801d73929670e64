//! Ray Data checkpoints found beside the warehouse (`paimon-format.md` §7.2, §8.3;
//! `tests/fixtures/ray/README.md`).
//!
//! Ray Data's row checkpointing (`CheckpointConfig(id_column=…, checkpoint_path=…)`) writes one
//! `<uuid4>.parquet` per finished write task into a flat checkpoint directory, right after
//! `Datasink.write()` returns: one column named after `id_column`, nothing linking it to a
//! table or a data file. On resume Ray drops every input row whose id is in those files. The
//! directory defaults to `$RAY_DATA_CHECKPOINT_PATH_BUCKET/ray_data_checkpoint`.
//!
//! [`discover`] finds candidate directories from the listing (a directory whose Parquet files
//! are all named `<uuid4>.parquet`, or one named `ray_data_checkpoint`) and confirms them by
//! their footers: every file has exactly one column, the same in all files. [`read_ids`] reads
//! the ids. [`load()`](load::load) is what the analysis calls: every checkpoint found, paired
//! with its table, and the ids of the paired ones read; the checks judge them
//! ([`crate::checks::ray`]).

pub mod load;

pub use load::load;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::{Error, Result};
use crate::parquet::{ArtifactFile, LogicalType, ParquetFile};
use crate::rows::Key;
use crate::source::{Artifact, FileEntry};
use crate::warehouse::split_parent;

/// Ray's default checkpoint directory name (`CheckpointConfig.DEFAULT_CHECKPOINT_PATH_DIR`).
pub const DEFAULT_DIR_NAME: &str = "ray_data_checkpoint";

/// The snapshot property a commit-first Ray sink marks its commit with (the key named in Ray's
/// checkpoint datasinks for Iceberg). Recognised when present; never required.
pub const GENERATION_PROPERTY: &str = "ray.data.checkpoint.operation-id";

/// One Ray Data checkpoint directory.
#[derive(Debug, Clone, PartialEq)]
pub struct RayCheckpoint {
    /// The directory's artifact path.
    pub path: String,
    /// Its checkpoint files (artifact paths), sorted.
    pub files: Vec<String>,
    /// The id column (the files' only column), if the files agree on one.
    pub id_column: Option<String>,
    /// Whether the directory has Ray's default name.
    pub default_name: bool,
    /// Files that could not be read, or disagree.
    pub problems: Vec<String>,
}

/// The user's pairing of a checkpoint with a table and, optionally, the id column:
/// `<checkpoint dir>=<table path>[#<id column>]` (the CLI's `--ray-checkpoint`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RayPairing {
    /// The checkpoint directory, as an artifact path.
    pub checkpoint: String,
    /// The table path as the report shows it; a branch as `<table path>/branch/branch-<name>`.
    pub table: String,
    /// The id column (`CheckpointConfig.id_column`), if not the checkpoint files' column.
    pub id_column: Option<String>,
}

impl std::str::FromStr for RayPairing {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let arg = crate::pairing::parse(s, "id column")?;
        Ok(RayPairing {
            checkpoint: arg.checkpoint,
            table: arg.table,
            id_column: arg.extra,
        })
    }
}

impl crate::pairing::Pairing for RayPairing {
    fn checkpoint(&self) -> &str {
        &self.checkpoint
    }
    fn table(&self) -> &str {
        &self.table
    }
}

impl std::fmt::Display for RayPairing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.checkpoint, self.table)?;
        if let Some(c) = &self.id_column {
            write!(f, "#{c}")?;
        }
        Ok(())
    }
}

/// The problems of user pairings that the listing shows (the CLI refuses them): a checkpoint
/// or table that is not in the artifact.
pub fn pairing_problems(artifact: &Artifact, pairings: &[RayPairing]) -> Vec<String> {
    crate::pairing::listing_problems(
        artifact,
        "--ray-checkpoint",
        "Ray Data checkpoint",
        || candidate_dirs(artifact).into_keys().collect(),
        pairings,
    )
}

pub(crate) use crate::pairing::list_paths as list;

/// Whether a file name is `<uuid4>.parquet` (lower- or upper-case hex).
pub fn is_uuid4_parquet(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".parquet") else {
        return false;
    };
    let b = stem.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            14 => *c == b'4',
            _ => c.is_ascii_hexdigit(),
        })
}

fn ignorable(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_') || name.ends_with(".crc")
}

/// Directories that look like Ray checkpoints from the listing alone, with their Parquet files:
/// every file `<uuid4>.parquet` (or ignorable), or the directory named [`DEFAULT_DIR_NAME`],
/// with at least one Parquet file.
pub fn candidate_dirs(artifact: &Artifact) -> BTreeMap<String, Vec<FileEntry<'_>>> {
    /// What the listing shows of one directory so far.
    struct Dir<'a> {
        path: &'a str,
        parquet: Vec<FileEntry<'a>>,
        default_name: bool,
        all_uuid: bool,
    }
    let mut dirs: Vec<Dir<'_>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // A directory's files are mostly adjacent in path order: only a change of directory is
    // looked up (a wide table lists hundreds of thousands of data files).
    let mut last: Option<(&str, usize)> = None;
    for f in artifact.files() {
        let (dir, name) = (f.dir(), f.name());
        let i = match last {
            Some((d, i)) if d == dir => i,
            _ => {
                let i = *index.entry(dir).or_insert_with(|| {
                    dirs.push(Dir {
                        path: dir,
                        parquet: Vec::new(),
                        default_name: split_parent(dir).1 == DEFAULT_DIR_NAME,
                        all_uuid: true,
                    });
                    dirs.len() - 1
                });
                last = Some((dir, i));
                i
            }
        };
        let Some(d) = dirs.get_mut(i) else { continue };
        d.all_uuid &= is_uuid4_parquet(name) || ignorable(name);
        if !d.all_uuid && !d.default_name {
            d.parquet = Vec::new(); // not a candidate: its files are not kept
        } else if name.ends_with(".parquet") {
            d.parquet.push(f);
        }
    }
    dirs.into_iter()
        .filter(|d| !d.parquet.is_empty() && (d.all_uuid || d.default_name))
        .map(|d| (d.path.to_string(), d.parquet))
        .collect()
}

/// Finds the Ray Data checkpoints of the artifact: candidate directories whose files each hold
/// exactly one column, the same one.
pub fn discover(artifact: &Artifact) -> Vec<RayCheckpoint> {
    let mut out = Vec::new();
    let limits = artifact.limits();
    for (dir, files) in candidate_dirs(artifact) {
        let default_name = split_parent(&dir).1 == DEFAULT_DIR_NAME;
        let mut columns: BTreeSet<String> = BTreeSet::new();
        let mut problems = Vec::new();
        let mut single = true;
        for f in &files {
            match ParquetFile::open(ArtifactFile::new(artifact, *f), limits) {
                Ok(p) => {
                    let cols: Vec<&str> = p.columns().iter().map(|c| c.name.as_str()).collect();
                    if let [one] = cols.as_slice() {
                        columns.insert((*one).to_string());
                    } else {
                        single = false;
                        problems.push(format!(
                            "{} has {} columns ({}), not one",
                            f.path(),
                            cols.len(),
                            cols.join(", ")
                        ));
                    }
                }
                Err(e) => problems.push(format!("{} could not be read: {}", f.path(), e.problem())),
            }
        }
        if !single && !default_name {
            continue; // a directory of uuid-named Parquet files that is not a checkpoint
        }
        if columns.is_empty() && !default_name {
            continue;
        }
        let id_column = match columns.len() {
            1 => columns.iter().next().cloned(),
            0 => None,
            _ => {
                problems.push(format!(
                    "the checkpoint files disagree on their column: {}",
                    columns.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
                None
            }
        };
        let mut paths: Vec<String> = files.iter().map(|f| f.path()).collect();
        paths.sort();
        out.push(RayCheckpoint {
            path: dir,
            files: paths,
            id_column,
            default_name,
            problems,
        });
    }
    out
}

/// Checkpoint files whose ids were not all read: the whole run's budget of checkpoint ids
/// (`max-rows-kept`, shared with the row evidence) was spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdsCut {
    /// The limit's value.
    pub limit: u64,
    /// The file read in part (its first ids only), if any.
    pub partial: Option<String>,
    /// The files not read at all, in path order.
    pub unread: Vec<String>,
}

impl IdsCut {
    /// The files concerned: the one read in part, then those not read.
    pub fn files(&self) -> impl Iterator<Item = &String> {
        self.partial.iter().chain(&self.unread)
    }

    /// One sentence saying what was not read and why.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.partial {
            parts.push(format!("{p} was read in part"));
        }
        if !self.unread.is_empty() {
            parts.push(format!(
                "{} file{} not read ({})",
                self.unread.len(),
                if self.unread.len() == 1 {
                    " was"
                } else {
                    "s were"
                },
                list(self.unread.iter().cloned())
            ));
        }
        format!(
            "{}: limit max-rows-kept ({} rows kept by the evidence over the whole run, Ray Data checkpoint ids included) reached",
            parts.join(", and "),
            self.limit
        )
    }
}

/// The ids a checkpoint's files hold, as far as the run's budget allows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadIds {
    /// The distinct ids read.
    pub ids: BTreeSet<Key>,
    /// The id column's logical type.
    pub logical: Option<LogicalType>,
    /// Files that could not be read, one line each (naming the file and the problem).
    pub problems: Vec<String>,
    /// What the budget left unread, if anything.
    pub cut: Option<IdsCut>,
}

/// The ids of a checkpoint. `budget` is what is left of the run's `max-rows-kept` (shared by
/// every checkpoint of the run and by the row evidence): each id read spends one, a file holding more
/// ids than are left is decoded only as far as the budget, and once it is spent the rest of the
/// files are not read.
pub fn read_ids(
    artifact: &Artifact,
    cp: &RayCheckpoint,
    column: &str,
    budget: &mut u64,
) -> ReadIds {
    let limit = artifact.limits().max_rows_kept;
    let mut out = ReadIds {
        ids: BTreeSet::new(),
        logical: None,
        problems: Vec::new(),
        cut: None,
    };
    for path in &cp.files {
        if *budget == 0 {
            out.cut
                .get_or_insert_with(|| IdsCut {
                    limit,
                    partial: None,
                    unread: Vec::new(),
                })
                .unread
                .push(path.clone());
            continue;
        }
        // One id more than the budget, to tell a file cut short from one that just fits.
        match read_column(artifact, path, column, budget.saturating_add(1)) {
            Ok((values, l)) => {
                out.logical = out.logical.or(l);
                let n = values.len() as u64;
                let kept = n.min(*budget);
                if n > *budget {
                    out.cut = Some(IdsCut {
                        limit,
                        partial: Some(path.clone()),
                        unread: Vec::new(),
                    });
                }
                *budget -= kept;
                artifact.count_rows_kept(kept);
                let kept = usize::try_from(kept).unwrap_or(usize::MAX);
                out.ids.extend(values.into_iter().take(kept).map(Key::one));
            }
            Err(e) => out
                .problems
                .push(format!("{path} could not be read: {}", e.problem())),
        }
    }
    out
}

/// The first `max_ids` values of `column` in the checkpoint file `path`: a file holding more is
/// not decoded past them.
fn read_column(
    artifact: &Artifact,
    path: &str,
    column: &str,
    max_ids: u64,
) -> Result<(Vec<crate::parquet::Value>, Option<LogicalType>)> {
    let entry = artifact
        .get(path)
        .ok_or_else(|| Error::missing("not in the artifact"))?;
    let limits = artifact.limits();
    let file = ParquetFile::open(ArtifactFile::new(artifact, entry), limits)?;
    let batch = file.read_columns_head(&[column], limits, max_ids)?;
    let col = batch
        .columns
        .into_iter()
        .next()
        .ok_or_else(|| Error::missing(format!("no column {column}")))?;
    Ok((col.values, col.info.logical))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid4_names() {
        assert!(is_uuid4_parquet(
            "ebd14beb-14cb-4bd3-a85a-202051dc5a71.parquet"
        ));
        assert!(!is_uuid4_parquet(
            "ebd14beb-14cb-1bd3-a85a-202051dc5a71.parquet"
        ));
        assert!(!is_uuid4_parquet(
            "data-ebd14beb-14cb-4bd3-a85a-202051dc5a71-0.parquet"
        ));
        assert!(!is_uuid4_parquet(
            "ebd14beb-14cb-4bd3-a85a-202051dc5a71.orc"
        ));
    }

    /// A checkpoint file holding more ids than the run's budget has left is decoded only as far
    /// as the budget: its damaged part past that is never read. Read in full, the same file is
    /// unreadable.
    #[test]
    fn a_file_past_the_budget_is_decoded_only_as_far_as_it() {
        use crate::source::{HostFile, Input};
        let path = "ray_checkpoint/ckpt/ebd14beb-14cb-4bd3-a85a-202051dc5a71.parquet";
        let bytes = crate::parquet::tests::handmade::broken_after_six();
        let artifact = Artifact::open(
            vec![Input::Folder {
                name: "w".into(),
                files: vec![HostFile {
                    path: path.into(),
                    modified_millis: None,
                    data: std::rc::Rc::new(bytes),
                }],
                skipped: 0,
            }],
            &crate::Limits::default(),
        );
        let Ok(artifact) = artifact else {
            panic!("the artifact does not open");
        };
        let cp = RayCheckpoint {
            path: "ray_checkpoint/ckpt".into(),
            files: vec![path.into()],
            id_column: Some("x".into()),
            default_name: false,
            problems: Vec::new(),
        };
        let mut budget = 4;
        let read = read_ids(&artifact, &cp, "x", &mut budget);
        assert_eq!(read.problems, Vec::<String>::new());
        assert_eq!(read.ids.len(), 4);
        assert_eq!(read.cut.and_then(|c| c.partial).as_deref(), Some(path));
        assert_eq!(budget, 0);
        let mut budget = 100;
        let read = read_ids(&artifact, &cp, "x", &mut budget);
        assert!(read.ids.is_empty());
        assert!(
            read.problems
                .iter()
                .any(|p| p.contains("could not be read")),
            "{:?}",
            read.problems
        );
    }

    #[test]
    fn pairings_parse() {
        let p: RayPairing = "ray_checkpoint/ckpt_a=warehouse/db.db/events_a#id"
            .parse()
            .unwrap_or_else(|_| RayPairing {
                checkpoint: String::new(),
                table: String::new(),
                id_column: None,
            });
        assert_eq!(p.checkpoint, "ray_checkpoint/ckpt_a");
        assert_eq!(p.table, "warehouse/db.db/events_a");
        assert_eq!(p.id_column.as_deref(), Some("id"));
        assert_eq!(
            p.to_string(),
            "ray_checkpoint/ckpt_a=warehouse/db.db/events_a#id"
        );
        assert!("nothing".parse::<RayPairing>().is_err());
        assert!("=t".parse::<RayPairing>().is_err());
        assert!("c=".parse::<RayPairing>().is_err());
        assert!("c=t#".parse::<RayPairing>().is_err());
    }
}
