//! The per-key evidence of a `lost-changelog` finding, in the style of the upstream report of a
//! full-compaction commit that lost its changelog (`paimon-format.md` §8.2: the batch values
//! beside the incremental changelog): for each key of the commit's orphan changelog files,
//!
//! * `lost`: the changelog rows that were written but never committed (kind, row, file);
//! * `delivered`: what committed changelog after the lost snapshot delivered for that key, and
//!   in which snapshot (a later compaction of the bucket, if any);
//! * `batch`: what a batch read of the latest snapshot returns for it (merge-on-read of the
//!   bucket's live files, deletion vectors honoured; `null` when the key is absent).
//!
//! The JSON (`rows` on the finding, `design.md`):
//! `{"keys": [{"bucket", "key", "batchState", "batch" | "batchUnknownBecause",
//! "deliveredState", "delivered": [{"snapshot", "kind", "row"}], ["deliveredUnknownBecause"],
//! "lost": [{"kind", "row", "file"}]}], "omitted", "keysComplete", "lostUnreadable",
//! "unknownKeys", "batchSnapshot", "batchExact", "notes", "files"}`. Keys are sorted by bucket
//! directory then key; at most [`MAX_KEYS`] are shown, the rest counted in `omitted`.
//!
//! **Known or unknown, never a guess.** A key's batch value is `batchState: "known"` (then
//! `batch` is the row, or `null` when a batch read returns nothing for the key) or `"unknown"`
//! (no `batch` at all) with `batchUnknownBecause: [{"file", "problem", "reason"}]`: a live file
//! of its bucket, its deletion vector or the snapshot's file list was not read, so a row of the
//! key may be there. Its delivered changelog is `deliveredState: "known"` or `"unknown"` with
//! `deliveredUnknownBecause: [{"snapshot", "file", "problem", "reason"}]` (`delivered` then
//! lists what the files read delivered). `reason` says why a file was not read
//! ([`super::NotRead`]): `missing` from the artifact, `unreadable`, or `capped` (past
//! [`MAX_DELIVERED_FILES`] later changelog files or `MAX_LIVE_FILES` live files: left unread
//! on purpose, which a report must not call unreadable). The last item may be `{"more": N}`. A lost changelog file that could not be read makes
//! `keysComplete` false and is listed in `lostUnreadable`: its keys are not known, and the
//! reports say so instead of "0 keys". A file whose `_KEY_` columns are not the table's primary
//! key (name, count, type) is unreadable here (`super::key::key_columns_problem`).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{json, Value as J};

use crate::timeline::files::in_bucket_dir;
use crate::warehouse::{join, split_parent};

use super::live::{in_bucket, read_view, MergedRow, TableRef, View};
use super::merge::MergeEngine;
use super::read::{object, open_artifact_file, read_file, DataFile, KeyColumns, ReadSpec};
use super::{Key, NotRead, RowKind, MAX_DELIVERED_FILES, MAX_KEYS, MAX_RECORDS_PER_KEY};

#[derive(Default)]
struct KeyEvidence {
    key: J,
    lost: Vec<(i64, RowKind, J, String)>,
    delivered: Vec<(i64, i64, RowKind, J)>,
    delivered_more: usize,
    /// Lost rows of the key not kept (past `MAX_RECORDS_PER_KEY`).
    lost_more: usize,
}

/// Counts one more row of `id`; whether it is among the first [`MAX_RECORDS_PER_KEY`].
fn within_cap(seen: &RefCell<BTreeMap<(String, Key), usize>>, id: (String, Key)) -> bool {
    let mut seen = seen.borrow_mut();
    let n = seen.entry(id).or_insert(0);
    *n += 1;
    *n <= MAX_RECORDS_PER_KEY
}

/// Whether a file name is a changelog file of a table with this changelog prefix.
pub fn is_changelog_file(name: &str, prefix: &str) -> bool {
    name.starts_with(prefix) || name.starts_with("compacted-changelog-")
}

/// Builds the `rows` of a lost-changelog finding about `snapshot` whose orphan files are
/// `files` (relative to the table root). `None` when none of them is a changelog file.
///
/// In four steps: the keys the orphan changelog files hold (counted, the smallest
/// [`MAX_KEYS`] kept), their lost rows, what committed changelog delivered for them after
/// `snapshot`, and the batch view of the latest snapshot; then one entry per key.
pub fn lost_changelog_rows(t: &TableRef<'_>, snapshot: i64, files: &[String]) -> Option<J> {
    let changelog = orphan_changelog_files(t, files);
    if changelog.is_empty() {
        return None;
    }
    let mut acc = Gathered::default();
    let (top, omitted, readable) = shown_keys(t, &changelog, &mut acc);
    let mut shown = lost_rows(t, readable, &top, &mut acc);
    let wanted_dirs: BTreeSet<String> = shown.keys().map(|(d, _)| d.clone()).collect();
    let wanted: BTreeSet<(String, Key)> = shown.keys().cloned().collect();
    let later = later_changelog(t, snapshot, &wanted_dirs, &mut acc);
    delivered_rows(t, &later, &wanted, &mut shown, &mut acc);
    let batch = batch_view(t, &wanted_dirs, &wanted, &mut acc.notes);

    let mut keys = Vec::with_capacity(shown.len());
    let mut unknown_keys = 0usize;
    for ((dir, key), ev) in shown {
        let (entry, known) = key_entry(&dir, &key, ev, &batch, &acc.delivered_unread);
        unknown_keys += usize::from(!known);
        keys.push(entry);
    }
    // The section is exact only if every file it rests on was read.
    let exact = batch.exact && acc.lost_unread.is_empty() && unknown_keys == 0;
    Some(json!({
        "keys": keys,
        "omitted": omitted,
        "keysComplete": acc.lost_unread.is_empty(),
        "lostUnreadable": acc.lost_unread.iter().map(|(file, problem)| json!({
            "file": file, "problem": problem
        })).collect::<Vec<_>>(),
        "unknownKeys": unknown_keys,
        "batchSnapshot": batch.view.snapshot,
        "batchExact": exact,
        "notes": acc.notes,
        "files": acc.read_files,
    }))
}

/// What the steps of [`lost_changelog_rows`] gather besides the rows.
#[derive(Default)]
struct Gathered {
    notes: Vec<String>,
    /// Lost changelog files read.
    read_files: Vec<String>,
    /// Lost changelog files that could not be read: their keys are unknown.
    lost_unread: Vec<(String, String)>,
    /// Later changelog that was not read: the keys of its bucket have unknown delivered
    /// changelog.
    delivered_unread: Vec<DeliveredUnread>,
}

/// A later changelog file that was not read.
struct DeliveredUnread {
    /// Its bucket directory, or `bucket-N` for a file not in the artifact (any partition's).
    dir: String,
    /// The snapshot that committed it.
    snapshot: i64,
    /// Its path relative to the table root.
    file: String,
    /// What went wrong.
    problem: String,
    /// Why it was not read.
    reason: NotRead,
}

impl Gathered {
    /// A lost changelog file that could not be read: a note, and its keys are unknown.
    fn unread_lost(&mut self, rel: &str, problem: String) {
        self.notes
            .push(format!("{rel} could not be read: {problem}"));
        self.lost_unread.push((rel.to_string(), problem));
    }
}

/// The changelog files among a commit's orphan `files`: in a bucket directory, named with the
/// table's changelog prefix (or `compacted-changelog-`).
fn orphan_changelog_files<'f>(t: &TableRef<'_>, files: &'f [String]) -> Vec<&'f String> {
    let prefix = t.timeline.options.changelog_file_prefix.as_str();
    files
        .iter()
        .filter(|f| in_bucket_dir(f) && is_changelog_file(split_parent(f).1, prefix))
        .collect()
}

/// Keys and values.
fn lost_spec(t: &TableRef<'_>) -> ReadSpec {
    t.read_spec(KeyColumns::Primary, true)
}

/// A lost changelog file whose keys were read, held open (a small file is held whole: read
/// once) when it fits in what [`shown_keys`] keeps open.
type Readable<'f, 'a> = (&'f String, Option<DataFile<'a>>);

/// Pass 1, key columns only: the distinct keys of the lost changelog files, counted by
/// fingerprint (so a changelog of millions of rows is not held), the smallest [`MAX_KEYS`] kept
/// (by bucket directory, then key); how many more there are; the files that could be read.
fn shown_keys<'f, 'a>(
    t: &TableRef<'a>,
    changelog: &[&'f String],
    acc: &mut Gathered,
) -> (BTreeSet<(String, Key)>, usize, Vec<Readable<'f, 'a>>) {
    let keys_only = t.read_spec(KeyColumns::Primary, false);
    let root = &t.timeline.location.root;
    let distinct: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    let top: RefCell<BTreeSet<(String, Key)>> = RefCell::new(BTreeSet::new());
    let mut kept_bytes = 0u64;
    let mut readable = Vec::new();
    for &rel in changelog {
        let (dir, _) = split_parent(rel);
        let path = join(root, rel);
        let file = match open_artifact_file(t.artifact, &path) {
            Ok(f) => f,
            Err(e) => {
                acc.unread_lost(rel, e.problem());
                continue;
            }
        };
        let account = |k: &Key| {
            distinct.borrow_mut().insert(k.fingerprint(dir));
            keep_smallest(&mut top.borrow_mut(), dir, k);
            false // nothing kept: values are read in pass 2
        };
        match read_file(&file, &keys_only, &account, &t.budget()).and_then(|rows| t.checked(rows)) {
            Ok(_) => {
                let size = t.artifact.get(&path).map_or(0, |e| e.size());
                let keep_open = hold_open(&mut kept_bytes, size);
                readable.push((rel, keep_open.then_some(file)));
            }
            Err(e) => acc.unread_lost(rel, e.in_file(&path).problem()),
        }
    }
    let top = top.into_inner();
    let omitted = distinct.into_inner().len().saturating_sub(top.len());
    (top, omitted, readable)
}

/// Files held open between the passes, [`KEEP_OPEN_BYTES`] in all; the others are opened again.
const KEEP_OPEN_BYTES: u64 = 64 << 20;

/// Whether a file of `size` bytes is held open between the passes when `kept` bytes already
/// are; counts it in `kept` if so.
fn hold_open(kept: &mut u64, size: u64) -> bool {
    let fits = kept.saturating_add(size) <= KEEP_OPEN_BYTES;
    if fits {
        *kept += size;
    }
    fits
}

/// Adds `(dir, k)` to `top` if it is among the smallest [`MAX_KEYS`] seen.
fn keep_smallest(top: &mut BTreeSet<(String, Key)>, dir: &str, k: &Key) {
    let beyond = top.len() >= MAX_KEYS
        && top
            .last()
            .is_some_and(|(d, last)| (dir, k) > (d.as_str(), last));
    if !beyond && !top.contains(&(dir.to_string(), k.clone())) {
        top.insert((dir.to_string(), k.clone()));
        if top.len() > MAX_KEYS {
            top.pop_last();
        }
    }
}

/// Pass 2: the lost rows of the keys shown, the first [`MAX_RECORDS_PER_KEY`] of each (the
/// rest only counted, so a file of millions of rows of one key keeps a handful).
fn lost_rows(
    t: &TableRef<'_>,
    readable: Vec<Readable<'_, '_>>,
    top: &BTreeSet<(String, Key)>,
    acc: &mut Gathered,
) -> BTreeMap<(String, Key), KeyEvidence> {
    let root = &t.timeline.location.root;
    let mut shown: BTreeMap<(String, Key), KeyEvidence> = BTreeMap::new();
    let lost_seen: RefCell<BTreeMap<(String, Key), usize>> = RefCell::new(BTreeMap::new());
    for (rel, file) in readable {
        let (dir, _) = split_parent(rel);
        let path = join(root, rel);
        let keep = |k: &Key| {
            let id = (dir.to_string(), k.clone());
            top.contains(&id) && within_cap(&lost_seen, id)
        };
        let read = match file {
            Some(f) => read_file(&f, &lost_spec(t), &keep, &t.budget())
                .and_then(|rows| t.checked(rows))
                .map_err(|e| e.in_file(&path)),
            None => t.read_file(&path, &lost_spec(t), &keep),
        };
        let rows = match read {
            Ok(r) => r,
            Err(e) => {
                acc.unread_lost(rel, e.problem());
                continue;
            }
        };
        acc.read_files.push(rel.clone());
        for r in &rows.records {
            let ev = shown
                .entry((dir.to_string(), r.key.clone()))
                .or_insert_with(|| KeyEvidence {
                    key: rows.key_json(&r.key),
                    ..KeyEvidence::default()
                });
            ev.lost
                .push((r.seq, r.kind, rows.row_json(&r.values), rel.clone()));
        }
    }
    for (id, n) in lost_seen.into_inner() {
        if let Some(ev) = shown.get_mut(&id) {
            ev.lost_more += n.saturating_sub(MAX_RECORDS_PER_KEY);
        }
    }
    shown
}

/// The committed changelog files after `snapshot` in the buckets of the keys shown, as
/// (snapshot, bucket directory, artifact path): the first [`MAX_DELIVERED_FILES`]; those past
/// it, and those not in the artifact, make their bucket's delivered changelog unknown.
fn later_changelog(
    t: &TableRef<'_>,
    snapshot: i64,
    wanted_dirs: &BTreeSet<String>,
    acc: &mut Gathered,
) -> Vec<(i64, String, String)> {
    let mut later: Vec<(i64, String, String)> = Vec::new();
    for (id, sf) in t.branch.snapshots.range(snapshot.saturating_add(1)..) {
        for e in sf.changelog.iter(&t.branch.catalog) {
            let Some(dir) = t.file_dir(e) else {
                let bucket = format!("bucket-{}", e.bucket());
                if wanted_dirs.iter().any(|d| in_bucket(d, &bucket)) {
                    acc.notes.push(format!(
                        "changelog file {} of snapshot {id} is not in the artifact",
                        e.file().file_name()
                    ));
                    acc.delivered_unread.push(DeliveredUnread {
                        file: format!("{bucket}/{}", e.file().file_name()),
                        dir: bucket,
                        snapshot: *id,
                        problem: "not in the artifact".into(),
                        reason: NotRead::Missing,
                    });
                }
                continue;
            };
            if wanted_dirs.contains(&dir) {
                if let Some(p) = t.file_path(e) {
                    later.push((*id, dir, p));
                }
            }
        }
    }
    cap_later(&mut later, snapshot, acc);
    later
}

/// Keeps the first [`MAX_DELIVERED_FILES`] of the `later` changelog files after `snapshot`; the
/// others are noted, and their buckets' delivered changelog is unknown.
fn cap_later(later: &mut Vec<(i64, String, String)>, snapshot: i64, acc: &mut Gathered) {
    if later.len() > MAX_DELIVERED_FILES {
        let last = later.get(MAX_DELIVERED_FILES - 1).map_or(snapshot, |l| l.0);
        acc.notes.push(format!(
            "{} later changelog files in these buckets: only the first {MAX_DELIVERED_FILES} (up to snapshot {last}) were read",
            later.len()
        ));
        for (id, dir, path) in later.iter().skip(MAX_DELIVERED_FILES) {
            acc.delivered_unread.push(DeliveredUnread {
                dir: dir.clone(),
                snapshot: *id,
                file: format!("{dir}/{}", split_parent(path).1),
                problem: format!("not read: more than {MAX_DELIVERED_FILES} later changelog files"),
                reason: NotRead::Capped,
            });
        }
        later.truncate(MAX_DELIVERED_FILES);
    }
}

/// What the `later` changelog files delivered for the keys shown, added to their evidence (the
/// first [`MAX_RECORDS_PER_KEY`] rows of each key, the rest counted).
fn delivered_rows(
    t: &TableRef<'_>,
    later: &[(i64, String, String)],
    wanted: &BTreeSet<(String, Key)>,
    shown: &mut BTreeMap<(String, Key), KeyEvidence>,
    acc: &mut Gathered,
) {
    let delivered_seen: RefCell<BTreeMap<(String, Key), usize>> = RefCell::new(BTreeMap::new());
    for (id, dir, path) in later {
        let keep = |k: &Key| {
            let id = (dir.clone(), k.clone());
            wanted.contains(&id) && within_cap(&delivered_seen, id)
        };
        let rows = match t.read_file(path, &lost_spec(t), &keep) {
            Ok(r) => r,
            Err(e) => {
                acc.notes.push(format!(
                    "changelog of snapshot {id} {} could not be read: {}",
                    split_parent(path).1,
                    e.problem()
                ));
                acc.delivered_unread.push(DeliveredUnread {
                    dir: dir.clone(),
                    snapshot: *id,
                    file: format!("{dir}/{}", split_parent(path).1),
                    problem: e.problem(),
                    reason: NotRead::Unreadable,
                });
                continue;
            }
        };
        for r in &rows.records {
            if let Some(ev) = shown.get_mut(&(dir.clone(), r.key.clone())) {
                ev.delivered
                    .push((*id, r.seq, r.kind, rows.row_json(&r.values)));
            }
        }
    }
    for (id, n) in delivered_seen.into_inner() {
        if let Some(ev) = shown.get_mut(&id) {
            ev.delivered_more += n.saturating_sub(MAX_RECORDS_PER_KEY);
        }
    }
}

/// The batch view of the latest snapshot for the keys shown, merged by the table's engine.
struct Batch {
    view: View,
    merged: BTreeMap<(String, Key), MergedRow>,
    /// Whether it reproduces Paimon's batch read exactly (as far as the view can tell).
    exact: bool,
}

/// Reads the batch view of the keys shown; what makes it approximate goes to `notes`.
fn batch_view(
    t: &TableRef<'_>,
    wanted_dirs: &BTreeSet<String>,
    wanted: &BTreeSet<(String, Key)>,
    notes: &mut Vec<String>,
) -> Batch {
    let engine = t
        .timeline
        .latest_schema()
        .map(|s| MergeEngine::from_options(&s.options))
        .unwrap_or(MergeEngine::Deduplicate {
            ignore_delete: false,
        });
    let view = read_view(t, Some(wanted_dirs), &lost_spec(t), &|dir, k| {
        wanted.contains(&(dir.to_string(), k.clone()))
    });
    let merged = view.merged(&engine);
    let mut exact = view.exact;
    notes.extend(view.notes.iter().cloned());
    if let MergeEngine::Other(name) = &engine {
        exact = false;
        notes.push(format!(
            "merge-engine {name} combines records: the batch value shown is the latest record, not the combined one"
        ));
    }
    if let Some(field) = t
        .timeline
        .latest_schema()
        .and_then(|s| s.options.get("sequence.field"))
    {
        exact = false;
        notes.push(format!(
            "sequence.field = {field}: records are ordered by it, not by _SEQUENCE_NUMBER as here"
        ));
    }
    if view.deletion_vectors {
        notes.push("deletion vectors applied".to_string());
    }
    Batch {
        view,
        merged,
        exact,
    }
}

/// One key's entry (see the module doc), and whether both its batch value and its delivered
/// changelog are known.
fn key_entry(
    dir: &str,
    key: &Key,
    mut ev: KeyEvidence,
    batch: &Batch,
    delivered_unread: &[DeliveredUnread],
) -> (J, bool) {
    ev.lost.sort_by_key(|l| l.0);
    ev.delivered.sort_by_key(|d| (d.0, d.1));
    let batch_because: Vec<J> = batch
        .view
        .unread
        .iter()
        .filter(|u| u.affects_key(dir, key))
        .map(|u| json!({"file": u.file, "problem": u.problem, "reason": u.reason.as_str()}))
        .collect();
    let delivered_because: Vec<J> = delivered_unread
        .iter()
        .filter(|u| in_bucket(dir, &u.dir))
        .map(|u| {
            json!({"snapshot": u.snapshot, "file": u.file, "problem": u.problem,
                   "reason": u.reason.as_str()})
        })
        .collect();
    let m = batch.merged.get(&(dir.to_string(), key.clone()));
    let batch_known = batch_because.is_empty();
    let known = batch_known && delivered_because.is_empty();
    let mut entry = json!({
        "bucket": dir,
        "key": ev.key,
        "delivered": ev.delivered.iter().map(|(s, _, k, row)| json!({
            "snapshot": s, "kind": k.as_str(), "row": row
        })).collect::<Vec<_>>(),
        "lost": ev.lost.iter().take(MAX_RECORDS_PER_KEY).map(|(_, k, row, file)| json!({
            "kind": k.as_str(), "row": row, "file": file
        })).collect::<Vec<_>>(),
    });
    if let Some(obj) = entry.as_object_mut() {
        if batch_known {
            let row = m
                .and_then(|m| m.row.as_ref())
                .map(|row| object(&batch.view.value_names, &batch.view.value_types, row))
                .unwrap_or(J::Null);
            obj.insert("batch".into(), row);
            obj.insert("batchState".into(), J::from("known"));
        } else {
            // No `batch` at all: null would read as "absent".
            obj.insert("batchState".into(), J::from("unknown"));
            obj.insert("batchUnknownBecause".into(), capped(batch_because));
        }
        if delivered_because.is_empty() {
            obj.insert("deliveredState".into(), J::from("known"));
        } else {
            // `delivered` holds what the readable files delivered: at least that.
            obj.insert("deliveredState".into(), J::from("unknown"));
            obj.insert("deliveredUnknownBecause".into(), capped(delivered_because));
        }
        // Facts about the batch value, only when it is known.
        if batch_known && m.is_some_and(|m| m.deleted) {
            obj.insert("batchDeleted".into(), J::Bool(true));
        }
        if batch_known && m.is_some_and(|m| m.tie) {
            obj.insert("tie".into(), J::Bool(true));
        }
        if ev.delivered_more > 0 {
            obj.insert("deliveredOmitted".into(), J::from(ev.delivered_more));
        }
        let lost_omitted = ev.lost.len().saturating_sub(MAX_RECORDS_PER_KEY) + ev.lost_more;
        if lost_omitted > 0 {
            obj.insert("lostOmitted".into(), J::from(lost_omitted));
        }
    }
    (entry, known)
}

/// Reasons listed per key: the first few, then a count.
const MAX_REASONS: usize = 4;

fn capped(mut reasons: Vec<J>) -> J {
    let more = reasons.len().saturating_sub(MAX_REASONS);
    reasons.truncate(MAX_REASONS);
    if more > 0 {
        reasons.push(json!({"more": more}));
    }
    J::Array(reasons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::Value;

    /// Files are held open between the passes while they fit in [`KEEP_OPEN_BYTES`] together,
    /// a file that does not fit is opened again, and a later smaller one may still fit.
    #[test]
    fn files_are_held_open_while_they_fit_in_the_budget_together() {
        let mut kept = 0;
        assert!(hold_open(&mut kept, 2));
        assert!(hold_open(&mut kept, 10));
        assert_eq!(kept, 12);
        assert!(!hold_open(&mut kept, KEEP_OPEN_BYTES - 11));
        assert_eq!(kept, 12);
        assert!(hold_open(&mut kept, KEEP_OPEN_BYTES - 12));
        assert_eq!(kept, KEEP_OPEN_BYTES);
        assert!(hold_open(&mut kept, 0));
        assert!(!hold_open(&mut kept, 1));
        assert!(!hold_open(&mut kept, u64::MAX));
    }

    /// The later changelog files of `n` snapshots after snapshot 5 (one each, 7, 9, …, in
    /// bucket-0), capped: what is kept, the notes, and the files left unread with their snapshot.
    fn capped_later(n: usize) -> (usize, Vec<String>, Vec<(i64, String, NotRead)>) {
        let mut later: Vec<(i64, String, String)> = (0..n as i64)
            .map(|i| {
                let id = 7 + 2 * i;
                (
                    id,
                    "bucket-0".into(),
                    format!("t/bucket-0/changelog-{id}.parquet"),
                )
            })
            .collect();
        let mut acc = Gathered::default();
        cap_later(&mut later, 5, &mut acc);
        let unread = acc
            .delivered_unread
            .iter()
            .map(|u| (u.snapshot, u.file.clone(), u.reason))
            .collect();
        (later.len(), acc.notes, unread)
    }

    /// Up to [`MAX_DELIVERED_FILES`] later changelog files are all read, without a note; past
    /// it the first ones are, the note names the last snapshot read, and the others are left
    /// unread on purpose (`capped`), each named.
    #[test]
    fn later_changelog_past_the_cap_is_named_and_left_unread_on_purpose() {
        assert_eq!(
            capped_later(MAX_DELIVERED_FILES),
            (MAX_DELIVERED_FILES, vec![], vec![])
        );
        let (kept, notes, unread) = capped_later(MAX_DELIVERED_FILES + 2);
        assert_eq!(kept, MAX_DELIVERED_FILES);
        assert_eq!(
            notes,
            ["66 later changelog files in these buckets: only the first 64 (up to snapshot 133) were read"]
        );
        assert_eq!(
            unread,
            [
                (
                    135,
                    "bucket-0/changelog-135.parquet".to_string(),
                    NotRead::Capped
                ),
                (
                    137,
                    "bucket-0/changelog-137.parquet".to_string(),
                    NotRead::Capped
                )
            ]
        );
    }

    /// The keys shown are the smallest [`MAX_KEYS`] by bucket directory, then key, whatever
    /// order they are read in, each once.
    #[test]
    fn the_smallest_keys_are_kept_in_any_order_of_reading() {
        let ids: Vec<i64> = (0..70)
            .rev()
            .chain(0..70)
            .chain((0..70).map(|i| (i * 37) % 70))
            .collect();
        let mut top = BTreeSet::new();
        for id in &ids {
            keep_smallest(&mut top, "bucket-1", &Key::one(Value::Int(*id)));
        }
        keep_smallest(&mut top, "bucket-0", &Key::one(Value::Int(99)));
        let kept: Vec<(String, Option<i64>)> =
            top.iter().map(|(d, k)| (d.clone(), k.as_int())).collect();
        let expected: Vec<(String, Option<i64>)> = std::iter::once(("bucket-0".into(), Some(99)))
            .chain((0..MAX_KEYS as i64 - 1).map(|i| ("bucket-1".into(), Some(i))))
            .collect();
        assert_eq!(kept, expected);
    }
}
