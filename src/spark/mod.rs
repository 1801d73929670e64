//! Spark Structured Streaming checkpoints found beside the warehouse (`paimon-format.md` §7.1).
//!
//! A Spark checkpoint directory holds `metadata` (the query id), `offsets/<batchId>` (the
//! offsets each micro-batch was planned with), `commits/<batchId>` (written once the batch's sink
//! finished) and, for some sources, `sources/<n>/…` (a source's own log, e.g. Kafka's initial
//! offsets; not read here: the Paimon source keeps nothing there). Spark's local file system also
//! leaves `.<name>.crc` checksum files, ignored.
//!
//! [`discover`] finds every directory with an `offsets/` or `commits/` log in the artifact and
//! reads what the checks need: the query id, the latest planned and committed batches, and the
//! offsets of the last committed batch, the one before it and any batch after it (never the
//! whole history). One module per file kind: [`metadata`], [`offsets`], [`commits`], and
//! [`paimon_offset`] for the Paimon source's offset line.
//!
//! [`load`] is what the analysis calls: every checkpoint read, its Paimon source's positions
//! found, and paired with the table it reads ([`pair`]); the checks judge what it loaded
//! ([`crate::checks::spark`]).

pub mod commits;
pub mod load;
pub mod metadata;
pub mod offsets;
pub mod paimon_offset;
pub mod pair;

pub use load::load;
pub use pair::{pairing_problems, SparkPairingKind};

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::source::Artifact;
use crate::warehouse::{join, split_parent};

use self::commits::CommitLogEntry;
use self::offsets::OffsetLogEntry;

/// Offset/commit files read per checkpoint beyond the last committed batch. A hostile artifact
/// may list thousands of planned batches; a real one has at most one uncommitted batch.
const MAX_UNCOMMITTED_READ: usize = 16;

/// One Spark checkpoint directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The directory's artifact path (empty: the artifact root).
    pub path: String,
    /// The directory's own name (a query directory is often named after the query or its
    /// consumer id).
    pub name: String,
    /// The query id from `metadata`, if readable.
    pub query_id: Option<String>,
    /// Batch ids with an `offsets/<id>` file.
    pub planned: BTreeSet<i64>,
    /// Batch ids with a `commits/<id>` file.
    pub committed: BTreeSet<i64>,
    /// The offsets files read (the last committed batch, the one before it, and the batches
    /// after it), by batch id.
    pub offsets: BTreeMap<i64, OffsetLogEntry>,
    /// The last committed batch's commit file, if readable.
    pub last_commit: Option<CommitLogEntry>,
    /// `sources/<n>` subdirectories present (not read).
    pub source_logs: Vec<String>,
    /// Files that could not be read or parsed.
    pub problems: Vec<Error>,
    /// The `offsets/<id>` and `commits/<id>` files the checks needed that could not be read or
    /// parsed: path relative to the checkpoint → the problem.
    pub unreadable: BTreeMap<String, String>,
}

impl Checkpoint {
    /// The latest planned batch.
    pub fn last_planned(&self) -> Option<i64> {
        self.planned.last().copied()
    }

    /// The latest committed batch.
    pub fn last_committed(&self) -> Option<i64> {
        self.committed.last().copied()
    }

    /// Planned batches after the last committed one (offsets without commits).
    pub fn uncommitted(&self) -> Vec<i64> {
        let after = self.last_committed();
        self.planned
            .iter()
            .copied()
            .filter(|b| after.is_none_or(|c| *b > c))
            .collect()
    }

    /// The artifact path of a file of this checkpoint.
    pub fn file(&self, rel: &str) -> String {
        join(&self.path, rel)
    }
}

/// The user's pairing of a checkpoint with a table and, optionally, a consumer:
/// `<checkpoint dir>=<table path>[#<consumer id>]` (the CLI's `--spark-checkpoint`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SparkPairing {
    /// The checkpoint directory, as an artifact path.
    pub checkpoint: String,
    /// The table path as the report shows it; a branch as `<table path>/branch/branch-<name>`.
    pub table: String,
    /// The consumer id the query uses (`consumer-id`), if any.
    pub consumer: Option<String>,
}

impl std::str::FromStr for SparkPairing {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let arg = crate::pairing::parse(s, "consumer id")?;
        if arg.extra.as_deref().is_some_and(|c| c.contains('/')) {
            return Err(format!("{s:?}: a consumer id cannot contain '/'"));
        }
        Ok(SparkPairing {
            checkpoint: arg.checkpoint,
            table: arg.table,
            consumer: arg.extra,
        })
    }
}

impl crate::pairing::Pairing for SparkPairing {
    fn checkpoint(&self) -> &str {
        &self.checkpoint
    }
    fn table(&self) -> &str {
        &self.table
    }
}

impl std::fmt::Display for SparkPairing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.checkpoint, self.table)?;
        if let Some(c) = &self.consumer {
            write!(f, "#{c}")?;
        }
        Ok(())
    }
}

/// A batch id from a log file name (`0`, `17`); hidden temp and checksum files are not batches.
fn batch_id(name: &str) -> Option<i64> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok()
}

/// The directories that hold a Spark offset or commit log, with their batch ids. Listing only:
/// nothing is read.
pub fn checkpoint_dirs(artifact: &Artifact) -> BTreeMap<String, (BTreeSet<i64>, BTreeSet<i64>)> {
    let mut dirs: BTreeMap<String, (BTreeSet<i64>, BTreeSet<i64>)> = BTreeMap::new();
    for f in artifact.files() {
        let (dir, name) = (f.dir(), f.name());
        let Some(id) = batch_id(name) else {
            continue;
        };
        let (root, log) = split_parent(dir);
        match log {
            "offsets" => {
                dirs.entry(root.to_string()).or_default().0.insert(id);
            }
            "commits" => {
                dirs.entry(root.to_string()).or_default().1.insert(id);
            }
            _ => {}
        }
    }
    dirs
}

/// Finds and reads every Spark checkpoint in the artifact.
pub fn discover(artifact: &Artifact) -> Vec<Checkpoint> {
    checkpoint_dirs(artifact)
        .into_iter()
        .map(|(path, (planned, committed))| read_checkpoint(artifact, path, planned, committed))
        .collect()
}

/// Reads one checkpoint directory whose logs hold the batches `planned` and `committed`.
fn read_checkpoint(
    artifact: &Artifact,
    path: String,
    planned: BTreeSet<i64>,
    committed: BTreeSet<i64>,
) -> Checkpoint {
    let max = artifact.limits().max_json_bytes;
    let mut problems: Vec<Error> = Vec::new();
    let mut unreadable = BTreeMap::new();
    let name = split_parent(&path).1.to_string();
    let file = |rel: &str| join(&path, rel);
    let query_id = match artifact.get(&file("metadata")) {
        Some(entry) => match artifact
            .read_entry(entry, max)
            .and_then(|b| metadata::parse_query_id(&b))
        {
            Ok(id) => Some(id),
            Err(e) => {
                problems.push(e.in_file(file("metadata")));
                None
            }
        },
        None => None,
    };
    let last_committed = committed.last().copied();
    let mut offsets = BTreeMap::new();
    for b in offsets_wanted(&planned, last_committed) {
        let rel = format!("offsets/{b}");
        let p = file(&rel);
        match artifact
            .read(&p, max)
            .and_then(|bytes| OffsetLogEntry::parse(&bytes).map_err(|e| e.in_file(&p)))
        {
            Ok(entry) => {
                offsets.insert(b, entry);
            }
            Err(e) => {
                unreadable.insert(rel, e.problem().to_string());
                problems.push(e);
            }
        }
    }
    let last_commit = last_committed.and_then(|c| {
        let rel = format!("commits/{c}");
        let p = file(&rel);
        match artifact
            .read(&p, max)
            .and_then(|bytes| CommitLogEntry::parse(&bytes).map_err(|e| e.in_file(&p)))
        {
            Ok(entry) => Some(entry),
            Err(e) => {
                unreadable.insert(rel, e.problem().to_string());
                problems.push(e);
                None
            }
        }
    });
    let source_logs = source_logs(artifact, &file("sources"));
    Checkpoint {
        path,
        name,
        query_id,
        planned,
        committed,
        offsets,
        last_commit,
        source_logs,
        problems,
        unreadable,
    }
}

/// The batches whose offsets are read: the last committed one, the one before it, and at most
/// [`MAX_UNCOMMITTED_READ`] planned after it (newest first), each only if planned.
fn offsets_wanted(planned: &BTreeSet<i64>, last_committed: Option<i64>) -> Vec<i64> {
    let mut wanted: Vec<i64> = Vec::new();
    if let Some(c) = last_committed {
        wanted.push(c);
        if let Some(prev) = c.checked_sub(1) {
            wanted.push(prev);
        }
    }
    wanted.extend(
        planned
            .iter()
            .rev()
            .copied()
            .filter(|b| last_committed.is_none_or(|c| *b > c))
            .take(MAX_UNCOMMITTED_READ),
    );
    wanted.retain(|b| planned.contains(b));
    wanted
}

/// The `sources/<n>` subdirectories of a checkpoint (listed, not read).
fn source_logs(artifact: &Artifact, sources_dir: &str) -> Vec<String> {
    let logs: BTreeSet<String> = artifact
        .files_under(sources_dir)
        .iter()
        .filter_map(|f| {
            f.path()
                .strip_prefix(sources_dir)
                .and_then(|r| r.strip_prefix('/'))
                .and_then(|r| r.split('/').next())
                .map(str::to_string)
        })
        .collect();
    logs.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_syntax() {
        let p: SparkPairing = "spark/q1=wh/db.db/t#reader-1".parse().unwrap();
        assert_eq!(p.checkpoint, "spark/q1");
        assert_eq!(p.table, "wh/db.db/t");
        assert_eq!(p.consumer.as_deref(), Some("reader-1"));
        assert_eq!(p.to_string(), "spark/q1=wh/db.db/t#reader-1");
        let p: SparkPairing = "spark/q1/=wh/db.db/t/".parse().unwrap();
        assert_eq!(p.consumer, None);
        assert_eq!(p.table, "wh/db.db/t");
        for bad in ["spark/q1", "=t", "q=", "q=t#", "q=#c", "q=t#a/b"] {
            assert!(bad.parse::<SparkPairing>().is_err(), "{bad}");
        }
    }

    #[test]
    fn batch_ids() {
        assert_eq!(batch_id("17"), Some(17));
        assert_eq!(batch_id(".17.crc"), None);
        assert_eq!(batch_id(".17.a1b2.tmp"), None);
        assert_eq!(batch_id(""), None);
        assert_eq!(batch_id("99999999999999999999999"), None);
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::commits::CommitLogEntry;
    use super::metadata::parse_query_id;
    use super::offsets::OffsetLogEntry;
    use super::paimon_offset::PaimonOffset;
    use super::SparkPairing;

    proptest! {
        /// Arbitrary bytes never panic any checkpoint parser.
        #[test]
        fn parsers_never_panic_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = OffsetLogEntry::parse(&bytes);
            let _ = CommitLogEntry::parse(&bytes);
            let _ = parse_query_id(&bytes);
            if let Ok(s) = std::str::from_utf8(&bytes) {
                let _ = PaimonOffset::parse(s);
                let _ = s.parse::<SparkPairing>();
            }
        }

        /// Offset logs shaped like Spark's, with arbitrary source lines, never panic, and a
        /// Paimon offset with any numbers survives the round trip.
        #[test]
        fn offset_logs_with_arbitrary_sources(
            version in 1u32..4,
            lines in proptest::collection::vec("[-{}\":,a-zA-Z0-9 ]{0,40}", 0..6),
            s in any::<i64>(), i in any::<i64>(), total in proptest::option::of(any::<i64>()),
            scan in any::<bool>(),
        ) {
            let mut file = format!("v{version}\n{{\"batchTimestampMs\":1}}\n");
            for l in &lines {
                file.push_str(l);
                file.push('\n');
            }
            let paimon = match total {
                Some(t) => format!("{{\"snapshotId\":{s},\"index\":{i},\"scanSnapshot\":{scan},\"totalSplits\":{t}}}"),
                None => format!("{{\"snapshotId\":{s},\"index\":{i},\"scanSnapshot\":{scan}}}"),
            };
            file.push_str(&paimon);
            if let Ok(e) = OffsetLogEntry::parse(file.as_bytes()) {
                if let Some((_, _, o)) = e.paimon_sources().last() {
                    let _ = (o.consumer_position(), o.resume_snapshot(), o.describe());
                }
            }
            let o = PaimonOffset::parse(&paimon).unwrap().unwrap();
            prop_assert_eq!((o.snapshot_id, o.index, o.scan_snapshot, o.total_splits), (s, i, scan, total));
            let _ = (o.consumer_position(), o.resume_snapshot(), o.describe());
        }
    }
}
