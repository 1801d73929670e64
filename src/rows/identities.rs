//! What a table's rows hold of given identities (ids, primary keys, whole rows): the batch view
//! of its latest snapshot, the rows its OVERWRITE commits removed, and the unreferenced data
//! files that still hold them. The row evidence the Ray Data checks judge
//! ([`crate::checks::ray`]): reading happens here, judging there.

use std::collections::{BTreeMap, BTreeSet};

use crate::paimon::snapshot::CommitKind;
use crate::parquet::LogicalType;
use crate::time::clearly_before;
use crate::timeline::files::{Orphan, OrphanKind};
use crate::warehouse::split_parent;

use super::live::{read_view, TableRef};
use super::merge::MergeEngine;
use super::read::KeyColumns;
use super::Key;

/// What the latest snapshot holds of some identities.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    /// Identities the batch view holds.
    pub present: BTreeSet<Key>,
    /// Identities whose last record is a retraction (and that no bucket holds).
    pub deleted: BTreeSet<Key>,
    /// Whether the batch view is exact (every file it needs was read).
    pub exact: bool,
    /// What could not be read, one line each.
    pub notes: Vec<String>,
    /// The snapshot the view is of.
    pub snapshot: Option<i64>,
    /// Live files (or the file list, a deletion vector) that could not be read, as
    /// `file: problem`: while any is, an identity the view lacks may be in them (its absence is
    /// unknown, not known).
    pub unread: Vec<String>,
}

/// What a table holds of the ids a Ray Data checkpoint marks done (its id column).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointRows {
    /// The batch view of the latest snapshot.
    pub now: Live,
    /// Ids the latest snapshot does not hold.
    pub missing: BTreeSet<Key>,
    /// Of those, ids whose last record is a retraction (a later DELETE).
    pub deleted: BTreeSet<Key>,
    /// Ids (missing, not deleted) that files deleted by an OVERWRITE held, with that OVERWRITE.
    pub removed: BTreeMap<Key, i64>,
    /// The OVERWRITE snapshots looked at.
    pub overwrites: BTreeSet<i64>,
    /// OVERWRITE snapshots whose deleted files could not be read.
    pub unknown: BTreeSet<i64>,
    /// Missing ids that unreferenced data files hold: id → files (relative to the table root).
    /// Read only when some id is missing.
    pub holders: BTreeMap<Key, BTreeSet<String>>,
    /// Unreferenced data files that could not be read.
    pub holder_notes: Vec<String>,
}

/// Reads what the table of `tref` holds of `ids` in the column `column`.
pub fn checkpoint_rows(tref: &TableRef<'_>, column: &str, ids: &BTreeSet<Key>) -> CheckpointRows {
    let keys = KeyColumns::Named(vec![column.to_string()]);
    let now = live(tref, &keys, ids, None);
    let missing: BTreeSet<Key> = ids.difference(&now.present).cloned().collect();
    let deleted: BTreeSet<Key> = missing.intersection(&now.deleted).cloned().collect();
    let rest: BTreeSet<Key> = missing.difference(&deleted).cloned().collect();
    let (removed, overwrites, unknown) = if rest.is_empty() {
        Default::default()
    } else {
        overwritten(tref, &keys, &rest)
    };
    let mut holder_notes = Vec::new();
    let holders = if missing.is_empty() {
        BTreeMap::new()
    } else {
        let orphans: Vec<(String, String)> = tref
            .root
            .orphans
            .iter()
            .filter(|o| o.kind == OrphanKind::Data)
            .map(|o| (o.path.clone(), o.relative.clone()))
            .collect();
        orphan_identities(tref, &orphans, &keys, &mut holder_notes).0
    };
    CheckpointRows {
        now,
        missing,
        deleted,
        removed,
        overwrites,
        unknown,
        holders,
        holder_notes,
    }
}

/// Rows that unreferenced data files written before the latest snapshot hold and the latest
/// snapshot lacks.
#[derive(Debug, Clone, PartialEq)]
pub struct OrphanRows {
    /// The latest snapshot.
    pub latest: i64,
    /// How the rows were compared: by an id column, the primary key, or whole.
    pub keys: KeyColumns,
    /// The unreferenced data files looked at (written before the latest snapshot, not
    /// explained by a lost commit).
    pub candidates: usize,
    /// Identities those files hold: identity → files (relative to the table root).
    pub held: BTreeMap<Key, BTreeSet<String>>,
    /// The identities' column names and types.
    pub names: Vec<String>,
    /// Their logical types.
    pub types: Vec<Option<LogicalType>>,
    /// The batch view of the latest snapshot, of those identities.
    pub now: Live,
    /// Identities the latest snapshot lacks (never empty).
    pub missing: BTreeSet<Key>,
    /// Of those, identities whose last record is a retraction.
    pub deleted: BTreeSet<Key>,
    /// OVERWRITE snapshots committed after the oldest of the files was written.
    pub later_overwrites: Vec<i64>,
    /// Files that could not be read, then the batch view's notes.
    pub notes: Vec<String>,
}

/// Reads the rows of the unreferenced data files of the table of `tref` (its main branch) that
/// were written before its latest snapshot and are not in `explained`, and what the latest
/// snapshot holds of them; compared by `id_column` when a Ray checkpoint names one, else by
/// primary key, else whole. `None` when no such file holds a row the latest snapshot lacks, or
/// the latest snapshot's files are unknown. `zip_offset` is the clock's zip time offset.
pub fn orphan_rows(
    tref: &TableRef<'_>,
    id_column: Option<&str>,
    explained: &BTreeSet<String>,
    zip_offset: Option<i64>,
) -> Option<OrphanRows> {
    if !tref.root.has_manifest_dir || tref.branch.live_latest.is_none() {
        return None; // without the latest snapshot's files nothing can be told
    }
    let latest = tref.timeline.snapshots.values().next_back()?;
    let latest_id = latest.snapshot.id;
    let latest_time = latest.snapshot.time_millis;
    let offset = zip_offset;
    let candidates: Vec<&Orphan> = tref
        .root
        .orphans
        .iter()
        .filter(|o| o.kind == OrphanKind::Data && !explained.contains(&o.relative))
        .filter(|o| {
            o.modified
                .is_some_and(|m| clearly_before(m.to_utc_millis(offset), latest_time))
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let pk = tref.has_primary_key();
    let keys = match id_column {
        Some(c) => KeyColumns::Named(vec![c.to_string()]),
        None if pk => KeyColumns::Primary,
        None => KeyColumns::AllValues,
    };
    let files: Vec<(String, String)> = candidates
        .iter()
        .map(|o| (o.path.clone(), o.relative.clone()))
        .collect();
    let mut notes = Vec::new();
    let (held, names, types) = orphan_identities(tref, &files, &keys, &mut notes);
    if held.is_empty() {
        return None;
    }
    let wanted: BTreeSet<Key> = held.keys().cloned().collect();
    let dirs: Option<BTreeSet<String>> = (keys == KeyColumns::Primary).then(|| {
        candidates
            .iter()
            .map(|o| split_parent(&o.relative).0.to_string())
            .collect()
    });
    let mut now = live(tref, &keys, &wanted, dirs.as_ref());
    if dirs.is_some() && !wanted.is_subset(&now.present) {
        // A key's bucket directory changes with the bucket count (a rescale) or a cross-partition
        // update (`paimon-format.md` §1.3): before saying the latest snapshot lacks a key, read
        // every bucket. The first read, of the orphans' own directories, decides alone only when
        // it finds every key, the common case (a rewritten abandoned commit).
        now = live(tref, &keys, &wanted, None);
    }
    notes.extend(now.notes.iter().cloned());
    let missing: BTreeSet<Key> = wanted.difference(&now.present).cloned().collect();
    if missing.is_empty() {
        return None;
    }
    let deleted: BTreeSet<Key> = missing.intersection(&now.deleted).cloned().collect();
    let oldest = candidates
        .iter()
        .filter_map(|o| o.modified.map(|m| m.to_utc_millis(offset)))
        .min();
    let later_overwrites: Vec<i64> = tref
        .timeline
        .snapshots
        .iter()
        .filter(|(_, sf)| {
            sf.snapshot.commit_kind == CommitKind::Overwrite
                && oldest.is_some_and(|o| !clearly_before(sf.snapshot.time_millis, o))
        })
        .map(|(id, _)| *id)
        .collect();
    Some(OrphanRows {
        latest: latest_id,
        keys,
        candidates: candidates.len(),
        held,
        names,
        types,
        now,
        missing,
        deleted,
        later_overwrites,
        notes,
    })
}

pub fn live(
    tref: &TableRef<'_>,
    keys: &KeyColumns,
    wanted: &BTreeSet<Key>,
    dirs: Option<&BTreeSet<String>>,
) -> Live {
    let spec = tref.read_spec(keys.clone(), false);
    let view = read_view(tref, dirs, &spec, &|_, k| wanted.contains(k));
    let mut out = Live {
        present: BTreeSet::new(),
        deleted: BTreeSet::new(),
        exact: view.exact,
        notes: view.notes.clone(),
        snapshot: view.snapshot,
        unread: view
            .unread
            .iter()
            .map(|u| format!("{}: {}", u.file, u.problem))
            .collect(),
    };
    if tref.has_primary_key() {
        let engine = tref
            .timeline
            .latest_schema()
            .map(|s| MergeEngine::from_options(&s.options))
            .unwrap_or(MergeEngine::Deduplicate {
                ignore_delete: false,
            });
        for ((_, k), m) in view.merged(&engine) {
            if m.row.is_some() {
                out.present.insert(k);
            } else if m.deleted {
                out.deleted.insert(k);
            }
        }
        // A key present in one bucket directory is present.
        let present = out.present.clone();
        out.deleted.retain(|k| !present.contains(k));
    } else {
        out.present.extend(view.records.into_keys().map(|(_, k)| k));
    }
    out
}

/// Identities held by unreferenced data files (key → files), with the key's column names and
/// types.
pub type OrphanIds = (
    BTreeMap<Key, BTreeSet<String>>,
    Vec<String>,
    Vec<Option<LogicalType>>,
);

/// Identities held by unreferenced data files: key → files (relative to the table root).
pub fn orphan_identities(
    tref: &TableRef<'_>,
    files: &[(String, String)],
    keys: &KeyColumns,
    notes: &mut Vec<String>,
) -> OrphanIds {
    let spec = tref.read_spec(keys.clone(), false);
    let mut out: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut names = Vec::new();
    let mut types = Vec::new();
    for (path, rel) in files {
        match tref.read_file(path, &spec, &|_| true) {
            Ok(rows) => {
                if names.is_empty() {
                    names = rows.key_names.clone();
                    types = rows.key_types.clone();
                }
                for r in rows.records {
                    if r.kind.is_add() {
                        out.entry(r.key).or_default().insert(rel.clone());
                    }
                }
            }
            Err(e) => notes.push(format!("{rel} could not be read: {}", e.problem())),
        }
    }
    (out, names, types)
}

/// Identities that the files deleted by OVERWRITE snapshots held: key → the first OVERWRITE
/// snapshot that deleted one; and OVERWRITE snapshots whose deleted files are unreadable.
pub fn overwritten(
    tref: &TableRef<'_>,
    keys: &KeyColumns,
    wanted: &BTreeSet<Key>,
) -> (BTreeMap<Key, i64>, BTreeSet<i64>, BTreeSet<i64>) {
    let spec = tref.read_spec(keys.clone(), false);
    let mut removed = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let mut unknown = BTreeSet::new();
    for (id, sf) in &tref.timeline.snapshots {
        let s = &sf.snapshot;
        if s.commit_kind != CommitKind::Overwrite {
            continue;
        }
        seen.insert(*id);
        let Some(files) = tref.branch.snapshots.get(id) else {
            unknown.insert(*id);
            continue;
        };
        for e in files.deleted(&tref.branch.catalog) {
            let Some(path) = tref.file_path(e) else {
                unknown.insert(*id);
                continue;
            };
            match tref.read_file(&path, &spec, &|k| wanted.contains(k)) {
                Ok(rows) => {
                    for r in rows.records {
                        removed.entry(r.key).or_insert(*id);
                    }
                }
                Err(_) => {
                    unknown.insert(*id);
                }
            }
        }
    }
    (removed, seen, unknown)
}
