//! Pairing a Spark checkpoint with the table and consumer it reads.
//!
//! A checkpoint records neither the table nor the consumer id. In order: the user's pairing
//! (`--spark-checkpoint <dir>=<table path>[#<consumer id>]`, or the page); a consumer named like
//! the checkpoint directory, if exactly one table in the artifact has one; when the artifact
//! holds one table: its only consumer, or no consumer when it has none. A table with several
//! consumers, none named like the directory, is paired without a consumer (the consumer checks
//! are skipped and say so). Nothing else is paired.

use serde::{Deserialize, Serialize};

use crate::source::Artifact;
use crate::timeline::Timeline;

use super::{Checkpoint, SparkPairing};

/// How a Spark checkpoint was paired with its table and consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SparkPairingKind {
    /// Given by the user (`--spark-checkpoint`, or chosen on the page).
    User,
    /// The checkpoint directory is named like exactly one consumer in the artifact.
    ConsumerName,
    /// The artifact's only table has exactly one consumer.
    OnlyConsumer,
    /// The artifact's only table has no consumer.
    NoConsumer,
    /// The artifact's only table has several consumers and none is named like the directory:
    /// the table is known, the consumer is not (consumer checks are skipped).
    ConsumerUnknown,
}

impl SparkPairingKind {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SparkPairingKind::User => "user",
            SparkPairingKind::ConsumerName => "consumer-name",
            SparkPairingKind::OnlyConsumer => "only-consumer",
            SparkPairingKind::NoConsumer => "no-consumer",
            SparkPairingKind::ConsumerUnknown => "consumer-unknown",
        }
    }
}

/// What a checkpoint was paired with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// The table, as an index into the tables the checkpoints were paired against.
    pub table: usize,
    /// The consumer the query uses, if known.
    pub consumer: Option<String>,
    /// How the pairing was made.
    pub kind: SparkPairingKind,
}

/// Pairs a checkpoint with one of `tables` (report order) and a consumer, or says why it
/// cannot.
pub(crate) fn pair(
    cp: &Checkpoint,
    tables: &[&Timeline],
    pairings: &[SparkPairing],
) -> Result<Paired, String> {
    if let Some(p) = pairings.iter().find(|p| p.checkpoint == cp.path) {
        return match table_index(tables, &p.table) {
            Some(table) => Ok(Paired {
                table,
                consumer: p.consumer.clone(),
                kind: SparkPairingKind::User,
            }),
            None => Err(format!(
                "the pairing names {}, which is not a table here",
                p.table
            )),
        };
    }
    let named: Vec<usize> = tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.consumers.iter().any(|c| c.id == cp.name))
        .map(|(i, _)| i)
        .collect();
    match named.as_slice() {
        [table] => {
            return Ok(Paired {
                table: *table,
                consumer: Some(cp.name.clone()),
                kind: SparkPairingKind::ConsumerName,
            })
        }
        [] => {}
        several => {
            return Err(format!(
                "{} tables have a consumer named {}",
                several.len(),
                cp.name
            ))
        }
    }
    match tables {
        [only] => Ok(match only.consumers.as_slice() {
            [] => Paired {
                table: 0,
                consumer: None,
                kind: SparkPairingKind::NoConsumer,
            },
            [c] => Paired {
                table: 0,
                consumer: Some(c.id.clone()),
                kind: SparkPairingKind::OnlyConsumer,
            },
            _ => Paired {
                table: 0,
                consumer: None,
                kind: SparkPairingKind::ConsumerUnknown,
            },
        }),
        [] => Err("the artifact holds no table".to_string()),
        several => Err(format!(
            "the artifact holds {} tables and branches and no consumer is named {}",
            several.len(),
            if cp.name.is_empty() {
                "like it"
            } else {
                &cp.name
            }
        )),
    }
}

/// The index of the table a pairing names (by [`crate::pairing::table_path`]).
pub(crate) fn table_index(tables: &[&Timeline], path: &str) -> Option<usize> {
    tables
        .iter()
        .position(|t| crate::pairing::table_path(t) == path)
}

/// The problems of user pairings that can be known from the listing alone (the CLI refuses
/// them before analysing): a checkpoint or table that is not in the artifact.
pub fn pairing_problems(artifact: &Artifact, pairings: &[SparkPairing]) -> Vec<String> {
    crate::pairing::listing_problems(
        artifact,
        "--spark-checkpoint",
        "Spark checkpoint",
        || super::checkpoint_dirs(artifact).into_keys().collect(),
        pairings,
    )
}

/// `a, b` of paths, or `none`.
pub(crate) fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// A path for messages: `(root)` for the artifact root.
pub(crate) fn shown(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.to_string()
    }
}
