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
//! (no `batch` at all) with `batchUnknownBecause: [{"file", "problem"}]`: a live file of its
//! bucket, its deletion vector or the snapshot's file list could not be read, so a row of the
//! key may be there. Its delivered changelog is `deliveredState: "known"` or `"unknown"` with
//! `deliveredUnknownBecause: [{"snapshot", "file", "problem"}]` (`delivered` then lists what the
//! readable files delivered). A lost changelog file that could not be read makes
//! `keysComplete` false and is listed in `lostUnreadable`: its keys are not known, and the
//! reports say so instead of "0 keys". A file whose `_KEY_` columns are not the table's primary
//! key (name, count, type) is unreadable here (`super::key::key_columns_problem`).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{json, Value as J};

use crate::warehouse::{join, split_parent};

use super::live::{read_view, TableRef};
use super::merge::MergeEngine;
use super::read::{object, open_artifact_file, read_file, DataFile, KeyColumns, ReadSpec};
use super::{Key, RowKind, MAX_DELIVERED_FILES, MAX_KEYS, MAX_RECORDS_PER_KEY};

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
pub fn lost_changelog_rows(t: &TableRef<'_>, snapshot: i64, files: &[String]) -> Option<J> {
    let root = &t.timeline.location.root;
    let prefix = t.timeline.options.changelog_file_prefix.as_str();
    let changelog: Vec<&String> = files
        .iter()
        .filter(|f| {
            let (dir, name) = split_parent(f);
            !dir.is_empty() && is_changelog_name_in_bucket(dir) && is_changelog_file(name, prefix)
        })
        .collect();
    if changelog.is_empty() {
        return None;
    }
    let spec = ReadSpec {
        keys: KeyColumns::Primary,
        values: true,
    };
    let keys_only = ReadSpec {
        keys: KeyColumns::Primary,
        values: false,
    };
    let mut notes: Vec<String> = Vec::new();
    let mut read_files: Vec<String> = Vec::new();
    // Lost changelog files that could not be read: their keys are unknown.
    let mut lost_unread: Vec<(String, String)> = Vec::new();
    // Later changelog that could not be read: (bucket directory or `bucket-N`, snapshot,
    // file, problem); the keys of that bucket have unknown delivered changelog.
    let mut delivered_unread: Vec<(String, i64, String, String)> = Vec::new();

    // Pass 1, key columns only: count the distinct keys (by fingerprint, so a changelog of
    // millions of rows is not held) and keep the smallest MAX_KEYS.
    let distinct: RefCell<HashSet<u64>> = RefCell::new(HashSet::new());
    let top: RefCell<BTreeSet<(String, Key)>> = RefCell::new(BTreeSet::new());
    // Files kept open between the passes (a small file is held whole: read once), up to
    // KEEP_OPEN_BYTES in all; the others are opened again.
    const KEEP_OPEN_BYTES: u64 = 64 << 20;
    let mut kept_bytes = 0u64;
    let mut readable: Vec<(&String, Option<DataFile<'_>>)> = Vec::new();
    for rel in &changelog {
        let (dir, _) = split_parent(rel);
        let path = join(root, rel);
        let file = match open_artifact_file(t.artifact, &path) {
            Ok(f) => f,
            Err(e) => {
                unread_lost(&mut notes, &mut lost_unread, rel, e.problem());
                continue;
            }
        };
        let account = |k: &Key| {
            distinct.borrow_mut().insert(k.fingerprint(dir));
            let mut top = top.borrow_mut();
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
            false // nothing kept: values are read in pass 2
        };
        match read_file(&file, &keys_only, &account, &t.budget()).and_then(|rows| t.checked(rows)) {
            Ok(_) => {
                let size = t.artifact.get(&path).map_or(0, |e| e.size);
                let keep_open = kept_bytes + size <= KEEP_OPEN_BYTES;
                if keep_open {
                    kept_bytes += size;
                }
                readable.push((rel, keep_open.then_some(file)));
            }
            Err(e) => unread_lost(
                &mut notes,
                &mut lost_unread,
                rel,
                e.in_file(&path).problem(),
            ),
        }
    }
    let top = top.into_inner();
    let omitted = distinct.into_inner().len().saturating_sub(top.len());

    // Pass 2: the rows of the keys shown.
    let mut shown: BTreeMap<(String, Key), KeyEvidence> = BTreeMap::new();
    // Rows kept per key: the first MAX_RECORDS_PER_KEY (the rest only counted), so a file of
    // millions of rows of one key keeps a handful (`lostOmitted` counts the others).
    let lost_seen: RefCell<BTreeMap<(String, Key), usize>> = RefCell::new(BTreeMap::new());
    for (rel, file) in readable {
        let (dir, _) = split_parent(rel);
        let path = join(root, rel);
        let keep = |k: &Key| {
            let id = (dir.to_string(), k.clone());
            top.contains(&id) && within_cap(&lost_seen, id)
        };
        let read = match file {
            Some(f) => read_file(&f, &spec, &keep, &t.budget())
                .and_then(|rows| t.checked(rows))
                .map_err(|e| e.in_file(&path)),
            None => t.read_file(&path, &spec, &keep),
        };
        let rows = match read {
            Ok(r) => r,
            Err(e) => {
                unread_lost(&mut notes, &mut lost_unread, rel, e.problem());
                continue;
            }
        };
        read_files.push(rel.clone());
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

    let wanted_dirs: BTreeSet<String> = shown.keys().map(|(d, _)| d.clone()).collect();
    let wanted: BTreeSet<(String, Key)> = shown.keys().cloned().collect();

    // What committed changelog after the lost snapshot delivered for these keys.
    let mut later: Vec<(i64, String, String)> = Vec::new();
    for (id, sf) in t.branch.snapshots.range(snapshot.saturating_add(1)..) {
        for e in &sf.changelog {
            let Some(dir) = t.file_dir(e) else {
                let bucket = format!("bucket-{}", e.bucket);
                if wanted_dirs
                    .iter()
                    .any(|d| d == &bucket || d.ends_with(&format!("/{bucket}")))
                {
                    notes.push(format!(
                        "changelog file {} of snapshot {id} is not in the artifact",
                        e.file.file_name
                    ));
                    delivered_unread.push((
                        bucket.clone(),
                        *id,
                        format!("{bucket}/{}", e.file.file_name),
                        "not in the artifact".into(),
                    ));
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
    if later.len() > MAX_DELIVERED_FILES {
        let last = later.get(MAX_DELIVERED_FILES - 1).map_or(snapshot, |l| l.0);
        notes.push(format!(
            "{} later changelog files in these buckets: only the first {MAX_DELIVERED_FILES} (up to snapshot {last}) were read",
            later.len()
        ));
        for (id, dir, path) in later.iter().skip(MAX_DELIVERED_FILES) {
            delivered_unread.push((
                dir.clone(),
                *id,
                format!("{dir}/{}", split_parent(path).1),
                format!("not read: more than {MAX_DELIVERED_FILES} later changelog files"),
            ));
        }
        later.truncate(MAX_DELIVERED_FILES);
    }
    let delivered_seen: RefCell<BTreeMap<(String, Key), usize>> = RefCell::new(BTreeMap::new());
    for (id, dir, path) in &later {
        let keep = |k: &Key| {
            let id = (dir.clone(), k.clone());
            wanted.contains(&id) && within_cap(&delivered_seen, id)
        };
        let rows = match t.read_file(path, &spec, &keep) {
            Ok(r) => r,
            Err(e) => {
                notes.push(format!(
                    "changelog of snapshot {id} {} could not be read: {}",
                    split_parent(path).1,
                    e.problem()
                ));
                delivered_unread.push((
                    dir.clone(),
                    *id,
                    format!("{dir}/{}", split_parent(path).1),
                    e.problem(),
                ));
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
    for (id, n) in lost_seen.into_inner() {
        if let Some(ev) = shown.get_mut(&id) {
            ev.lost_more += n.saturating_sub(MAX_RECORDS_PER_KEY);
        }
    }

    // The batch view now.
    let engine = t
        .timeline
        .latest_schema()
        .map(|s| MergeEngine::from_options(&s.options))
        .unwrap_or(MergeEngine::Deduplicate {
            ignore_delete: false,
        });
    let view = read_view(t, Some(&wanted_dirs), &spec, &|dir, k| {
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

    let mut keys = Vec::with_capacity(shown.len());
    let mut unknown_keys = 0usize;
    for ((dir, key), mut ev) in shown {
        ev.lost.sort_by_key(|l| l.0);
        ev.delivered.sort_by_key(|d| (d.0, d.1));
        let batch_because: Vec<J> = view
            .unread
            .iter()
            .filter(|u| u.affects_key(&dir, &key))
            .map(|u| json!({"file": u.file, "problem": u.problem}))
            .collect();
        let delivered_because: Vec<J> = delivered_unread
            .iter()
            .filter(|(d, ..)| d == &dir || dir.ends_with(&format!("/{d}")))
            .map(|(_, s, file, problem)| json!({"snapshot": s, "file": file, "problem": problem}))
            .collect();
        let m = merged.get(&(dir.clone(), key));
        let batch_known = batch_because.is_empty();
        if !batch_known || !delivered_because.is_empty() {
            unknown_keys += 1;
        }
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
                let batch = m
                    .and_then(|m| m.row.as_ref())
                    .map(|row| object(&view.value_names, &view.value_types, row))
                    .unwrap_or(J::Null);
                obj.insert("batch".into(), batch);
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
        keys.push(entry);
    }
    // The section is exact only if every file it rests on was read.
    let exact = exact && lost_unread.is_empty() && unknown_keys == 0;
    Some(json!({
        "keys": keys,
        "omitted": omitted,
        "keysComplete": lost_unread.is_empty(),
        "lostUnreadable": lost_unread.iter().map(|(file, problem)| json!({
            "file": file, "problem": problem
        })).collect::<Vec<_>>(),
        "unknownKeys": unknown_keys,
        "batchSnapshot": view.snapshot,
        "batchExact": exact,
        "notes": notes,
        "files": read_files,
    }))
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

/// A lost changelog file that could not be read: a note, and its keys are unknown.
fn unread_lost(
    notes: &mut Vec<String>,
    unread: &mut Vec<(String, String)>,
    rel: &str,
    problem: String,
) {
    notes.push(format!("{rel} could not be read: {problem}"));
    unread.push((rel.to_string(), problem));
}

/// Whether a directory (relative to the table root) is a bucket directory.
fn is_changelog_name_in_bucket(dir: &str) -> bool {
    split_parent(dir).1.starts_with("bucket-")
}
