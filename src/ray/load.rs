//! Loading the Ray Data checkpoints of an artifact for the checks: each one paired with the
//! table it belongs to, and its ids read.
//!
//! Pairing: the user's (`--ray-checkpoint <dir>=<table path>[#<id column>]`, or the page); else
//! the only table whose schema has the checkpoint's column; else the artifact's only table.
//! Anything else is unpaired. Nothing here judges: what a checkpoint could not be paired with
//! is loaded as the reason, and the checks say what it means.

use std::collections::BTreeSet;

use crate::pairing::table_path;
use crate::parquet::LogicalType;
use crate::rows::Key;
use crate::source::Artifact;
use crate::timeline::Timeline;
use crate::warehouse::MAIN_BRANCH;

use super::{discover, read_ids, IdsCut, RayCheckpoint, RayPairing};

/// Every Ray Data checkpoint of an artifact, loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct RayCheckpoints {
    /// Every checkpoint directory found, in path order.
    pub checkpoints: Vec<RayCheckpoint>,
    /// The user's pairings that cannot be applied (a checkpoint or table not in the artifact),
    /// in the order given, with the problem.
    pub bad_pairings: Vec<(RayPairing, String)>,
    /// What became of each checkpoint, in path order (a checkpoint whose user pairing names a
    /// table that is not there is left out: the pairing is in `bad_pairings`).
    pub outcomes: Vec<RayOutcome>,
}

impl RayCheckpoints {
    /// The paired checkpoints, in path order.
    pub fn paired(&self) -> impl Iterator<Item = &PairedRay> {
        self.outcomes.iter().filter_map(|o| match o {
            RayOutcome::Paired(p) => Some(p),
            RayOutcome::Unpaired { .. } => None,
        })
    }

    /// The id column the table with index `table` is paired with (the last checkpoint paired
    /// with it), for comparing its unreferenced files' rows.
    pub fn id_column(&self, table: usize) -> Option<&str> {
        self.paired()
            .filter(|p| p.table == table)
            .last()
            .map(|p| p.column.as_str())
    }
}

/// What became of one checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub enum RayOutcome {
    /// It could not be paired with a table.
    Unpaired {
        /// The index of the checkpoint in [`RayCheckpoints::checkpoints`].
        checkpoint: usize,
        /// Why.
        reason: String,
    },
    /// It was paired, and its ids read.
    Paired(PairedRay),
}

/// A checkpoint paired with a table, and its ids.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedRay {
    /// The index of the checkpoint in [`RayCheckpoints::checkpoints`].
    pub checkpoint: usize,
    /// The table, as an index into the tables the checkpoints were paired against.
    pub table: usize,
    /// The id column.
    pub column: String,
    /// How the pairing was made: `user`, `id-column` (the only table with that column),
    /// `only-table`.
    pub how: &'static str,
    /// The distinct ids the checkpoint marks done.
    pub ids: BTreeSet<Key>,
    /// The id column's logical type.
    pub logical: Option<LogicalType>,
    /// Checkpoint files that could not be read, then the checkpoint's own problems, then what
    /// the run's budget of checkpoint ids left unread.
    pub notes: Vec<String>,
    /// The files the run's budget of checkpoint ids (`max-rows-kept`) left unread.
    pub cut: Option<IdsCut>,
}

/// Finds every Ray Data checkpoint of the artifact, pairs each with one of `tables` (every
/// table and branch, in report order) as `pairings` and the artifact allow, and reads the ids
/// of the paired ones.
pub fn load(artifact: &Artifact, tables: &[&Timeline], pairings: &[RayPairing]) -> RayCheckpoints {
    let checkpoints = discover(artifact);
    let mut bad_pairings = Vec::new();
    for p in pairings {
        let problem = if !checkpoints.iter().any(|c| c.path == p.checkpoint) {
            Some(format!(
                "{} is not a Ray Data checkpoint directory in the artifact",
                p.checkpoint
            ))
        } else if !tables.iter().any(|t| table_path(t) == p.table) {
            Some(format!("{} is not a table in the artifact", p.table))
        } else {
            None
        };
        if let Some(problem) = problem {
            bad_pairings.push((p.clone(), problem));
        }
    }
    let mut outcomes = Vec::new();
    // The whole run's budget of checkpoint ids, shared by every checkpoint.
    let mut budget = artifact
        .limits()
        .max_rows_kept
        .saturating_sub(artifact.rows_kept());
    for (index, cp) in checkpoints.iter().enumerate() {
        let unpaired = |reason: String| RayOutcome::Unpaired {
            checkpoint: index,
            reason,
        };
        let user = pairings.iter().find(|p| p.checkpoint == cp.path);
        let column = user
            .and_then(|p| p.id_column.clone())
            .or_else(|| cp.id_column.clone());
        let paired: Result<(usize, &'static str), String> = match user {
            Some(p) => match tables.iter().position(|t| table_path(t) == p.table) {
                Some(i) => Ok((i, "user")),
                None => continue, // a bad pairing
            },
            None => auto_pair(tables, column.as_deref()),
        };
        let (table, how) = match paired {
            Ok(x) => x,
            Err(why) => {
                outcomes.push(unpaired(why));
                continue;
            }
        };
        let Some(column) = column else {
            outcomes.push(unpaired(
                "its files do not agree on one id column; name it with #<id column>".to_string(),
            ));
            continue;
        };
        let Some(t) = tables.get(table) else {
            continue;
        };
        if !has_column(t, &column) {
            outcomes.push(unpaired(format!(
                "table {} has no column {column}",
                table_path(t)
            )));
            continue;
        }
        let read = read_ids(artifact, cp, &column, &mut budget);
        let mut notes = read.problems;
        notes.extend(cp.problems.iter().cloned());
        notes.extend(read.cut.as_ref().map(IdsCut::describe));
        let (ids, logical, cut) = (read.ids, read.logical, read.cut);
        outcomes.push(RayOutcome::Paired(PairedRay {
            checkpoint: index,
            table,
            column,
            how,
            ids,
            logical,
            notes,
            cut,
        }));
    }
    RayCheckpoints {
        checkpoints,
        bad_pairings,
        outcomes,
    }
}

fn has_column(t: &Timeline, column: &str) -> bool {
    t.latest_schema()
        .is_some_and(|s| s.fields.iter().any(|f| f.name == column))
}

/// The table a checkpoint belongs to when the artifact leaves no choice.
fn auto_pair(tables: &[&Timeline], column: Option<&str>) -> Result<(usize, &'static str), String> {
    let main: Vec<usize> = tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.location.branch == MAIN_BRANCH)
        .map(|(i, _)| i)
        .collect();
    if let Some(column) = column {
        let with: Vec<usize> = main
            .iter()
            .copied()
            .filter(|&i| tables.get(i).is_some_and(|t| has_column(t, column)))
            .collect();
        match with.as_slice() {
            [one] if main.len() == 1 => return Ok((*one, "only-table")),
            [one] => return Ok((*one, "id-column")),
            [] => {}
            several => {
                return Err(format!(
                    "{} tables have a column {column} ({})",
                    several.len(),
                    super::list(
                        several
                            .iter()
                            .filter_map(|&i| tables.get(i))
                            .map(|t| table_path(t))
                    )
                ))
            }
        }
    }
    match main.as_slice() {
        [one] => Ok((*one, "only-table")),
        [] => Err("the artifact holds no table".to_string()),
        _ => Err(format!(
            "no table has a column {}",
            column.unwrap_or("(unknown id column)")
        )),
    }
}
