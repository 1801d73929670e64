//! The batch view of a table's latest snapshot: its live files (optionally only some bucket
//! directories), their deletion vectors, and the records they hold for the keys asked for.
//!
//! What a Paimon batch read does (`DataTableBatchScan`, `MergeFileSplitRead`): a primary-key
//! table merges the records of a bucket's live files by key ([`super::merge`]); with deletion
//! vectors (or `first-row`) it skips level-0 files (`batchScanSkipLevel0`: they become visible
//! when compacted) and drops the rows their deletion vectors mark. An append table returns every
//! row of every live file, minus deleted rows. Whatever cannot be reproduced (a file missing
//! from the artifact or unreadable, an unreadable deletion vector, too many files) becomes a note and
//! makes the view approximate.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use crate::paimon::avro::AvroSchemaCache;
use crate::paimon::index_manifest::read_index_manifest;
use crate::paimon::manifest::ManifestEntry;
use crate::parquet::{LogicalType, Value};
use crate::source::Artifact;
use crate::timeline::files::{entry_dir, BranchFiles, RootFiles};
use crate::timeline::Timeline;
use crate::warehouse::join;

use super::dv::{read_deletion_vector, DeletionVector};
use super::key::{key_columns_problem, key_range};
use super::merge::{merge_key, Candidate, MergeEngine};
use super::read::{read_artifact_file_within, FileRows, KeyColumns, ReadSpec};
use super::{Key, NotRead, MAX_LIVE_FILES};

/// One table (or branch) whose rows are read.
#[derive(Clone, Copy)]
pub struct TableRef<'a> {
    /// The artifact.
    pub artifact: &'a Artifact,
    /// The timeline.
    pub timeline: &'a Timeline,
    /// The root's file graph.
    pub root: &'a RootFiles,
    /// The branch's files.
    pub branch: &'a BranchFiles,
}

impl TableRef<'_> {
    /// Whether the table has a primary key.
    pub fn has_primary_key(&self) -> bool {
        self.timeline
            .latest_schema()
            .is_some_and(|s| !s.primary_keys.is_empty())
    }

    /// The artifact path of a file in a bucket directory, if present.
    pub fn file_path(&self, e: ManifestEntry<'_>) -> Option<String> {
        let dir = entry_dir(self.root, &self.timeline.location.root, e)?;
        Some(join(
            &self.timeline.location.root,
            &join(&dir, e.file().file_name()),
        ))
    }

    /// The bucket directory (relative to the table root) of a file, if present.
    pub fn file_dir(&self, e: ManifestEntry<'_>) -> Option<String> {
        entry_dir(self.root, &self.timeline.location.root, e)
    }

    /// What to read of this table's files: `keys`, the values too if `values`, in the layout
    /// the table's options say its files hold (`orc.timestamp-ltz.legacy.type`).
    pub fn read_spec(&self, keys: KeyColumns, values: bool) -> ReadSpec {
        ReadSpec {
            keys,
            values,
            orc_ltz_legacy: self.timeline.options.orc_timestamp_ltz_legacy,
        }
    }

    /// Reads a data or changelog file of this table: [`read_artifact_file`], then, for a
    /// primary-key read, the file's key columns checked against the table's primary key
    /// ([`key_columns_problem`]): a file whose keys cannot be compared is unreadable here, not
    /// a file without the keys asked for.
    pub fn read_file(
        &self,
        path: &str,
        spec: &ReadSpec,
        keep: &dyn Fn(&Key) -> bool,
    ) -> crate::error::Result<FileRows> {
        let rows = read_artifact_file_within(self.artifact, path, spec, keep, &self.budget())?;
        self.checked(rows).map_err(|e| e.in_file(path))
    }

    /// The artifact's limits with `max-rows-kept` lowered to what the run has left of it.
    pub fn budget(&self) -> crate::limits::Limits {
        let mut limits = self.artifact.limits().clone();
        limits.max_rows_kept = limits
            .max_rows_kept
            .saturating_sub(self.artifact.rows_kept());
        limits
    }

    /// `rows` if their key columns are the table's (see [`TableRef::read_file`]), their
    /// timestamp columns typed as the table's schema types them
    /// ([`FileRows::type_timestamps_as`]); the rows kept count against the run's
    /// `max-rows-kept`.
    pub fn checked(&self, mut rows: FileRows) -> crate::error::Result<FileRows> {
        self.artifact.count_rows_kept(rows.records.len() as u64);
        if let Some(schema) = self.timeline.latest_schema() {
            rows.type_timestamps_as(schema);
        }
        if !matches!(spec_keys(&rows), KeyColumns::Primary) {
            return Ok(rows);
        }
        let Some(schema) = self.timeline.latest_schema() else {
            return Ok(rows);
        };
        match key_columns_problem(schema, &rows.key_names, rows.key_sample.as_ref()) {
            Some(problem) => Err(crate::error::Error::format(problem)),
            None => Ok(rows),
        }
    }
}

/// What a file's rows were read by (only primary-key reads name `_KEY_` columns).
fn spec_keys(rows: &FileRows) -> KeyColumns {
    if rows.primary {
        KeyColumns::Primary
    } else {
        KeyColumns::AllValues
    }
}

/// A part of the batch view that could not be read: the keys of the bucket directories it
/// affects have an *unknown* batch value, because of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// The bucket directory affected (relative to the table root), `bucket-N` for a file
    /// missing from the artifact (any partition's bucket N), or `None` for every one.
    pub dir: Option<String>,
    /// The file (or what it is, for a file list).
    pub file: String,
    /// Why it could not be read.
    pub problem: String,
    /// Whether it is absent, failed to read, or was left unread past a cap.
    pub reason: NotRead,
    /// The keys the file may hold (its manifest entry's min and max key), when known: a key
    /// outside it cannot be in the file.
    pub keys: Option<(Key, Key)>,
}

/// Whether the bucket directory `dir` (relative to the table root) is `bucket_dir`, or, for a
/// bare `bucket-N` (a file missing from the artifact, whose partition directory is not known),
/// bucket N of any partition.
pub fn in_bucket(dir: &str, bucket_dir: &str) -> bool {
    dir == bucket_dir
        || dir
            .strip_suffix(bucket_dir)
            .is_some_and(|parent| parent.ends_with('/'))
}

impl Unread {
    /// Whether the keys of the bucket directory `dir` depend on it.
    pub fn affects(&self, dir: &str) -> bool {
        self.dir.as_deref().is_none_or(|d| in_bucket(dir, d))
    }

    /// Whether the key `key` of the bucket directory `dir` depends on it.
    pub fn affects_key(&self, dir: &str, key: &Key) -> bool {
        self.affects(dir)
            && self
                .keys
                .as_ref()
                .is_none_or(|(lo, hi)| lo <= key && key <= hi)
    }
}

/// The key range of a live file of a primary-key table, if its manifest entry tells it.
fn entry_keys(t: &TableRef<'_>, e: ManifestEntry<'_>) -> Option<(Key, Key)> {
    if !t.has_primary_key() {
        return None;
    }
    let schema = t.timeline.latest_schema()?;
    key_range(schema, e.file().min_key(), e.file().max_key())
}

/// The records of the live files, grouped by bucket directory and key.
#[derive(Debug, Default)]
pub struct View {
    /// The snapshot viewed.
    pub snapshot: Option<i64>,
    /// (bucket directory, key) → the records of that key in the live files.
    pub records: BTreeMap<(String, Key), Vec<Candidate<Vec<Value>>>>,
    /// Key column names.
    pub key_names: Vec<String>,
    /// Their logical types.
    pub key_types: Vec<Option<LogicalType>>,
    /// Value column names (of the first file read).
    pub value_names: Vec<String>,
    /// Their logical types.
    pub value_types: Vec<Option<LogicalType>>,
    /// Whether the view reproduces Paimon's batch read exactly.
    pub exact: bool,
    /// What made it approximate, and other facts worth saying.
    pub notes: Vec<String>,
    /// What could not be read, by bucket directory: keys there have an unknown batch value.
    pub unread: Vec<Unread>,
    /// Whether deletion vectors were applied.
    pub deletion_vectors: bool,
}

/// A merged key of the view.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedRow {
    /// The row a batch read returns, `None` if the key is absent.
    pub row: Option<Vec<Value>>,
    /// Whether the last record is a retraction (the key was deleted).
    pub deleted: bool,
    /// Whether a sequence-number tie decided it.
    pub tie: bool,
}

impl View {
    /// Merges every key (primary-key tables).
    pub fn merged(&self, engine: &MergeEngine) -> BTreeMap<(String, Key), MergedRow> {
        self.records
            .iter()
            .map(|(k, cands)| {
                let m = merge_key(cands, engine);
                (
                    k.clone(),
                    MergedRow {
                        row: m.winner.map(|c| c.row.clone()),
                        deleted: m.decided_by.is_some_and(|c| !c.kind.is_add()),
                        tie: m.tie,
                    },
                )
            })
            .collect()
    }
}

/// Reads the latest snapshot's live files in `dirs` (all if `None`), keeping the records whose
/// (directory, key) `keep` accepts.
pub fn read_view(
    t: &TableRef<'_>,
    dirs: Option<&BTreeSet<String>>,
    spec: &ReadSpec,
    keep: &dyn Fn(&str, &Key) -> bool,
) -> View {
    let mut view = View {
        snapshot: t.timeline.latest(),
        exact: true,
        ..View::default()
    };
    let Some(live) = t.branch.live() else {
        view.exact = false;
        let what = format!(
            "the file list of the latest snapshot{}",
            view.snapshot.map(|s| format!(" ({s})")).unwrap_or_default()
        );
        view.notes
            .push(format!("{what} could not be read: no batch view"));
        view.unread.push(Unread {
            dir: None,
            file: what,
            problem: "its manifests could not be read".into(),
            reason: NotRead::Unreadable,
            keys: None,
        });
        return view;
    };
    let pk = t.has_primary_key();
    let options = &t.timeline.options;
    let first_row = t
        .timeline
        .latest_schema()
        .is_some_and(|s| MergeEngine::from_options(&s.options) == MergeEngine::FirstRow);
    let skip_level0 = pk && (options.deletion_vectors || first_row);

    // The live files in the directories asked for, ordered by bucket and age.
    let mut files: Vec<(String, ManifestEntry<'_>)> = Vec::new();
    let mut skipped_level0 = 0usize;
    for e in live.clone() {
        let Some(dir) = t.file_dir(e) else {
            if dirs.is_none() {
                missing_live(t, &mut view, e);
            }
            continue;
        };
        if dirs.is_some_and(|d| !d.contains(&dir)) {
            continue;
        }
        if skip_level0 && e.file().level() == 0 {
            skipped_level0 += 1;
            continue;
        }
        files.push((dir, e));
    }
    if let Some(d) = dirs {
        // Live files of these buckets missing from the artifact.
        for e in live {
            let bucket = format!("bucket-{}", e.bucket());
            if t.file_dir(e).is_none() && d.iter().any(|dir| in_bucket(dir, &bucket)) {
                missing_live(t, &mut view, e);
            }
        }
    }
    if skipped_level0 > 0 {
        view.notes.push(format!(
            "{skipped_level0} level-0 file{} not read: with {} a batch read skips level 0 until compaction",
            if skipped_level0 == 1 { "" } else { "s" },
            if options.deletion_vectors { "deletion vectors" } else { "merge-engine first-row" }
        ));
    }
    files.sort_by(|a, b| {
        let (fa, fb) = (a.1.file(), b.1.file());
        (&a.0, fa.max_sequence_number(), fa.file_name()).cmp(&(
            &b.0,
            fb.max_sequence_number(),
            fb.file_name(),
        ))
    });
    cap_live(&mut files, &mut view);

    let names: HashMap<&str, &str> = files
        .iter()
        .map(|(d, e)| (e.file().file_name(), d.as_str()))
        .collect();
    let dvs = deletion_vectors(t, &names, &mut view);

    for (order, &(ref dir, e)) in files.iter().enumerate() {
        let Some(path) = t.file_path(e) else {
            continue;
        };
        let rows = match t.read_file(&path, spec, &|k| keep(dir, k)) {
            Ok(r) => r,
            Err(err) => {
                view.exact = false;
                let file = format!("{dir}/{}", e.file().file_name());
                view.notes
                    .push(format!("{file} could not be read: {}", err.problem()));
                view.unread.push(Unread {
                    dir: Some(dir.clone()),
                    file,
                    problem: err.problem(),
                    reason: NotRead::Unreadable,
                    keys: entry_keys(t, e),
                });
                continue;
            }
        };
        if view.key_names.is_empty() {
            view.key_names = rows.key_names.clone();
            view.key_types = rows.key_types.clone();
        }
        if view.value_names.is_empty() {
            view.value_names = rows.value_names.clone();
            view.value_types = rows.value_types.clone();
        }
        let dv = dvs.get(e.file().file_name());
        for r in rows.records {
            if dv.is_some_and(|d| d.contains(r.position)) {
                continue;
            }
            view.records
                .entry((dir.clone(), r.key))
                .or_default()
                .push(Candidate {
                    seq: r.seq,
                    kind: r.kind,
                    level: e.file().level(),
                    file_order: order,
                    row: r.values,
                });
        }
    }
    view
}

/// Keeps the first [`MAX_LIVE_FILES`] of the live `files` (by bucket directory, in read
/// order); past it the view is approximate and the directories of the others are unread.
fn cap_live<E>(files: &mut Vec<(String, E)>, view: &mut View) {
    if files.len() > MAX_LIVE_FILES {
        view.exact = false;
        view.notes.push(format!(
            "{} live files: only the first {MAX_LIVE_FILES} were read",
            files.len()
        ));
        let beyond: BTreeSet<&String> = files.iter().skip(MAX_LIVE_FILES).map(|(d, _)| d).collect();
        for dir in beyond {
            view.unread.push(Unread {
                dir: Some(dir.clone()),
                file: format!("{dir}: live files past the first {MAX_LIVE_FILES}"),
                problem: format!("not read: more than {MAX_LIVE_FILES} live files"),
                reason: NotRead::Capped,
                keys: None,
            });
        }
        files.truncate(MAX_LIVE_FILES);
    }
}

/// A live file of the latest snapshot that is not in the artifact.
fn missing_live(t: &TableRef<'_>, view: &mut View, e: ManifestEntry<'_>) {
    view.exact = false;
    let file = format!("bucket-{}/{}", e.bucket(), e.file().file_name());
    view.notes.push(format!(
        "{file} is live in snapshot {} but not in the artifact",
        view.snapshot.unwrap_or(0)
    ));
    view.unread.push(Unread {
        dir: Some(format!("bucket-{}", e.bucket())),
        file,
        problem: "not in the artifact".into(),
        reason: NotRead::Missing,
        keys: entry_keys(t, e),
    });
}

/// The deletion vectors of the latest snapshot for the files `names` (file name → its bucket
/// directory).
fn deletion_vectors(
    t: &TableRef<'_>,
    names: &HashMap<&str, &str>,
    view: &mut View,
) -> HashMap<String, Rc<DeletionVector>> {
    let mut out = HashMap::new();
    let Some(latest) = t.timeline.snapshots.values().next_back() else {
        return out;
    };
    let Some(im) = latest.snapshot.index_manifest.as_deref() else {
        return out;
    };
    let root = &t.timeline.location.root;
    let path = join(root, &format!("manifest/{im}"));
    let limits = t.artifact.limits();
    let entries = match t
        .artifact
        .read(&path, limits.max_entry_bytes)
        .and_then(|b| read_index_manifest(&b, &mut AvroSchemaCache::new(), limits))
    {
        Ok(e) => e,
        Err(err) => {
            if t.timeline.options.deletion_vectors {
                view.exact = false;
                view.notes.push(format!(
                    "the index manifest {im} could not be read ({}): deletion vectors not applied",
                    err.problem()
                ));
                view.unread.push(Unread {
                    dir: None,
                    file: format!("manifest/{im}"),
                    problem: format!("{} (deletion vectors not applied)", err.problem()),
                    reason: NotRead::Unreadable,
                    keys: None,
                });
            }
            return out;
        }
    };
    for entry in entries
        .iter()
        .filter(|e| e.index_type == "DELETION_VECTORS")
    {
        let Some(ranges) = &entry.deletion_vector_ranges else {
            continue;
        };
        let needed: Vec<_> = ranges
            .iter()
            .filter(|r| names.contains_key(r.data_file.as_str()))
            .collect();
        let dirs_of =
            |rs: &[&crate::paimon::index_manifest::DeletionVectorRange]| -> BTreeSet<String> {
                rs.iter()
                    .filter_map(|r| names.get(r.data_file.as_str()).map(|d| d.to_string()))
                    .collect()
            };
        if needed.is_empty() {
            continue;
        }
        view.deletion_vectors = true;
        let in_index = join(root, &format!("index/{}", entry.file_name));
        let file_path = if t.artifact.get(&in_index).is_some() {
            Some(in_index)
        } else {
            t.root.data_files_by_name.first_path(&entry.file_name)
        };
        let bytes = match file_path.map(|p| t.artifact.read(&p, limits.max_entry_bytes)) {
            Some(Ok(b)) => b,
            Some(Err(err)) => {
                view.exact = false;
                view.notes.push(format!(
                    "deletion-vector file {} could not be read ({}): rows it deletes are shown",
                    entry.file_name,
                    err.problem()
                ));
                for dir in dirs_of(&needed) {
                    view.unread.push(Unread {
                        dir: Some(dir),
                        file: format!("index/{}", entry.file_name),
                        problem: format!("{} (rows it deletes are shown)", err.problem()),
                        reason: NotRead::Unreadable,
                        keys: None,
                    });
                }
                continue;
            }
            None => {
                view.exact = false;
                view.notes.push(format!(
                    "deletion-vector file {} is not in the artifact: rows it deletes are shown",
                    entry.file_name
                ));
                for dir in dirs_of(&needed) {
                    view.unread.push(Unread {
                        dir: Some(dir),
                        file: format!("index/{}", entry.file_name),
                        problem: "not in the artifact (rows it deletes are shown)".into(),
                        reason: NotRead::Missing,
                        keys: None,
                    });
                }
                continue;
            }
        };
        // One parse per (offset, length): many ranges may name the same bytes.
        let mut parsed: HashMap<(i64, i64), Rc<DeletionVector>> = HashMap::new();
        for r in needed {
            let read = match parsed.get(&(r.offset, r.length)) {
                Some(dv) => Ok(Rc::clone(dv)),
                None => t
                    .artifact
                    .charge_evidence_bytes(u64::try_from(r.length).unwrap_or(u64::MAX))
                    .and_then(|()| read_deletion_vector(&bytes, r.offset, r.length))
                    .map(Rc::new),
            };
            match read {
                Ok(dv) => {
                    parsed.insert((r.offset, r.length), Rc::clone(&dv));
                    out.insert(r.data_file.clone(), dv);
                }
                Err(err) => {
                    view.exact = false;
                    view.notes.push(format!(
                        "the deletion vector of {} in {} could not be read ({}): rows it deletes are shown",
                        r.data_file,
                        entry.file_name,
                        err.problem()
                    ));
                    view.unread.push(Unread {
                        dir: names.get(r.data_file.as_str()).map(|d| d.to_string()),
                        file: format!("index/{}", entry.file_name),
                        problem: format!(
                            "the deletion vector of {}: {} (rows it deletes are shown)",
                            r.data_file,
                            err.problem()
                        ),
                        reason: NotRead::Unreadable,
                        keys: None,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::Value;

    fn unread(dir: Option<&str>, keys: Option<(i64, i64)>) -> Unread {
        Unread {
            dir: dir.map(str::to_string),
            file: "f".into(),
            problem: "p".into(),
            reason: NotRead::Unreadable,
            keys: keys.map(|(lo, hi)| (Key::one(Value::Int(lo)), Key::one(Value::Int(hi)))),
        }
    }

    /// Up to [`MAX_LIVE_FILES`] live files are all read; past it the first are, the view is
    /// approximate, and each directory holding one of the others is unread on purpose.
    #[test]
    fn live_files_past_the_cap_leave_their_directories_unread() {
        let capped = |dirs: &[(&str, usize)]| {
            let mut files: Vec<(String, ())> = dirs
                .iter()
                .flat_map(|&(d, n)| std::iter::repeat_n((d.to_string(), ()), n))
                .collect();
            let mut view = View {
                exact: true,
                ..View::default()
            };
            cap_live(&mut files, &mut view);
            let unread: Vec<(Option<String>, NotRead)> =
                view.unread.into_iter().map(|u| (u.dir, u.reason)).collect();
            (files.len(), view.exact, view.notes, unread)
        };
        assert_eq!(
            capped(&[("bucket-0", MAX_LIVE_FILES - 1), ("bucket-1", 1)]),
            (MAX_LIVE_FILES, true, vec![], vec![])
        );
        assert_eq!(
            capped(&[
                ("bucket-0", MAX_LIVE_FILES - 1),
                ("bucket-1", 2),
                ("bucket-2", 3)
            ]),
            (
                MAX_LIVE_FILES,
                false,
                vec!["4100 live files: only the first 4096 were read".to_string()],
                vec![
                    (Some("bucket-1".to_string()), NotRead::Capped),
                    (Some("bucket-2".to_string()), NotRead::Capped)
                ]
            )
        );
    }

    /// A file left unread makes unknown only the keys of its own bucket directory (a missing
    /// file's `bucket-N`: that bucket in any partition), within its key range when known; a
    /// file of no one directory (the snapshot's file list) every key.
    #[test]
    fn an_unread_file_affects_only_its_buckets_keys_in_its_range() {
        let missing = unread(Some("bucket-1"), None);
        assert!(missing.affects("bucket-1"));
        assert!(missing.affects("dt=2/bucket-1"));
        assert!(!missing.affects("bucket-0"));
        assert!(!missing.affects("dt=2/bucket-11"));
        let partitioned = unread(Some("dt=1/bucket-1"), None);
        assert!(partitioned.affects("dt=1/bucket-1"));
        assert!(!partitioned.affects("dt=2/bucket-1"));
        assert!(unread(None, None).affects("dt=9/bucket-9"));
        let ranged = unread(Some("bucket-0"), Some((3, 5)));
        let key = |k: i64| Key::one(Value::Int(k));
        assert!(ranged.affects_key("bucket-0", &key(3)));
        assert!(ranged.affects_key("bucket-0", &key(5)));
        assert!(!ranged.affects_key("bucket-0", &key(2)));
        assert!(!ranged.affects_key("bucket-0", &key(6)));
        assert!(!ranged.affects_key("bucket-1", &key(4)));
        assert!(unread(Some("bucket-0"), None).affects_key("bucket-0", &key(99)));
    }
}
