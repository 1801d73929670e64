//! Ray Data checkpoints and rows that only unreferenced files hold (`paimon-format.md` §7.2,
//! §8.3; `tests/fixtures/ray/README.md`). Row-level: they judge the row evidence read before them
//! ([`crate::rows::identities`]) against the checkpoints loaded before them
//! ([`crate::ray::load`], which also pairs each checkpoint with its table).
//!
//! Ray Data checkpoints a non-file sink's rows right after `Datasink.write()` returns, before
//! the sink's transaction commits; pypaimon's sink commits once, on the driver, after every
//! task finished. A failed task therefore leaves rows checkpointed but uncommitted, and a
//! resume skips them for good. The questions:
//!
//! * `checkpoint-ahead-of-commit` — does a Ray checkpoint mark ids done that the latest
//!   snapshot's rows lack? An error (the resume skips them), naming the unreferenced data files
//!   that still hold them. Ids a later DELETE (a `-D` that wins the merge) or OVERWRITE (the
//!   files it deleted hold them) removed are explained: only those left count; when all are
//!   explained the finding is `info`; when an OVERWRITE's files cannot be read, or the batch
//!   view is approximate, it is a warning.
//! * `rows-only-in-orphan-files` — do unreferenced data files, written before the latest
//!   snapshot, hold rows (ids; the primary key; or whole rows for an append table without an
//!   id) the latest snapshot lacks? A warning: rows lost by a resume, or an abandoned job. Files
//!   a lost-changelog finding explains are left out; an OVERWRITE after them, or deletes that
//!   explain every row, lower it to `info`.
//! * `ray-checkpoint-unpaired` — a checkpoint that cannot be paired with a table.
//! * `unreadable-file` — the run's budget of checkpoint ids (`max-rows-kept`, over
//!   every checkpoint file of the run) left files of a checkpoint unread: the comparison covers
//!   the ids read, and says so.
//!
//! When a live file of the latest snapshot cannot be read, any id may be in it: both row
//! questions are then answered *unknown, because <file>: <problem>* (`rows.known: false`,
//! `rows.unknownBecause`), never with a confident claim that ids are missing.
//!
//! A generation marker in snapshot `properties` (`ray.data.checkpoint.operation-id`, the key
//! Ray's commit-first checkpoint sinks use) is reported when present and never required.
//!

use std::collections::BTreeSet;

use serde_json::{json, Value as J};

use crate::findings::{Code, Finding, RayCheckpointReport, Severity};
use crate::pairing::table_path;
use crate::parquet::LogicalType;
use crate::ray::load::{PairedRay, RayCheckpoints, RayOutcome};
use crate::ray::{list, IdsCut, RayCheckpoint, GENERATION_PROPERTY};
use crate::rows::identities::{CheckpointRows, Live, OrphanRows};
use crate::rows::key::int_ranges;
use crate::rows::read::KeyColumns;
use crate::rows::Key;
use crate::timeline::Timeline;

/// Ids listed per finding in `rows.ranges` when they are not consecutive integers.
const MAX_LISTED: usize = 50;

/// `ray-checkpoint-unpaired`: the user's pairings that name nothing (errors), then each
/// checkpoint that could not be paired with a table (warnings). `tables` are the tables the
/// checkpoints were paired against.
pub fn unpaired(loaded: &RayCheckpoints, tables: &[&Timeline]) -> Vec<Finding> {
    let table_list = list(tables.iter().map(|t| table_path(t)));
    let mut out = Vec::new();
    for (p, problem) in &loaded.bad_pairings {
        out.push(
            Finding::new(
                Code::RayCheckpointUnpaired,
                Severity::Error,
                format!("The pairing {p} cannot be applied: {problem}."),
                "Name a Ray Data checkpoint directory and a table path as this report shows them.",
            )
            .evidence(format!(
                "Ray Data checkpoints: {}",
                list(loaded.checkpoints.iter().map(|c| c.path.clone()))
            ))
            .evidence(format!("tables: {table_list}")),
        );
    }
    for outcome in &loaded.outcomes {
        if let RayOutcome::Unpaired { checkpoint, reason } = outcome {
            if let Some(cp) = loaded.checkpoints.get(*checkpoint) {
                out.push(unpaired_checkpoint(cp, reason, &table_list));
            }
        }
    }
    out
}

fn unpaired_checkpoint(cp: &RayCheckpoint, why: &str, tables: &str) -> Finding {
    let mut f = Finding::new(
        Code::RayCheckpointUnpaired,
        Severity::Warning,
        format!(
            "Ray Data checkpoint {} ({} file{}) could not be paired with a table: {why}.",
            cp.path,
            cp.files.len(),
            if cp.files.len() == 1 { "" } else { "s" }
        ),
        "Name its table with --ray-checkpoint <dir>=<table path>[#<id column>] (or choose it on the page) so its ids can be checked against the table's rows.",
    )
    .evidence(format!("tables: {tables}"))
    .files([cp.path.clone()]);
    for p in &cp.problems {
        f = f.evidence(p.clone());
    }
    f
}

/// `checkpoint-ahead-of-commit` for one paired checkpoint, judged on what its table's rows hold
/// of its ids; an `unreadable-file` when the run's budget of checkpoint ids left some of its
/// files unread; and the checkpoint's report.
pub fn judge_checkpoint(
    cp: &RayCheckpoint,
    paired: &PairedRay,
    rows: &CheckpointRows,
    t: &Timeline,
) -> (RayCheckpointReport, Vec<Finding>) {
    let rest: BTreeSet<Key> = rows.missing.difference(&rows.deleted).cloned().collect();
    let unexplained: BTreeSet<Key> = rest
        .iter()
        .filter(|k| !rows.removed.contains_key(*k))
        .cloned()
        .collect();
    let marker = generation_marker(t);
    let report = RayCheckpointReport {
        path: cp.path.clone(),
        id_column: paired.column.clone(),
        files: cp.files.len() as u64,
        ids: paired.ids.len() as u64,
        missing: unexplained.len() as u64,
        missing_unknown_because: (!rows.now.exact && !unexplained.is_empty())
            .then(|| because(&rows.now.notes)),
        pairing: paired.how.to_string(),
        generation_marker: marker.as_ref().map(|(s, v)| format!("{s}: {v}")),
        cut_short: paired.cut.as_ref().map(IdsCut::describe),
    };
    let mut findings: Vec<Finding> = paired.cut.iter().map(|c| ids_cut(cp, c)).collect();
    if !rows.missing.is_empty() {
        findings.push(ahead_of_commit(
            cp,
            paired,
            rows,
            &unexplained,
            marker.as_ref(),
        ));
    }
    (report, findings)
}

/// `unreadable-file`: the run's budget of checkpoint ids left files of this checkpoint unread,
/// so its comparison with the table covers only the ids read.
fn ids_cut(cp: &RayCheckpoint, cut: &IdsCut) -> Finding {
    Finding::new(
        Code::UnreadableFile,
        Severity::Warning,
        format!(
            "The ids of Ray Data checkpoint {} were cut short: {}. Its comparison with the table covers the ids read; ids only in the rest are not checked.",
            cp.path,
            cut.describe()
        ),
        "Raise the budget (--limit max-rows-kept=N, about a few hundred bytes of memory per id) or check this checkpoint on its own.",
    )
    .files(cut.files().cloned())
}

/// The `checkpoint-ahead-of-commit` finding: some ids the checkpoint marks done are missing
/// from the latest snapshot; `unexplained` are those no later DELETE or OVERWRITE removed.
fn ahead_of_commit(
    cp: &RayCheckpoint,
    paired: &PairedRay,
    rows: &CheckpointRows,
    unexplained: &BTreeSet<Key>,
    marker: Option<&(i64, String)>,
) -> Finding {
    let CheckpointRows {
        now,
        missing,
        holders,
        ..
    } = rows;
    let (column, ids) = (paired.column.as_str(), &paired.ids);
    let latest = now.snapshot.map_or("the latest snapshot".to_string(), |s| {
        format!("snapshot {s}")
    });
    let shown_set = if unexplained.is_empty() {
        missing
    } else {
        unexplained
    };
    let files: BTreeSet<String> = shown_set
        .iter()
        .filter_map(|k| holders.get(k))
        .flatten()
        .cloned()
        .collect();
    let held = shown_set
        .iter()
        .filter(|k| holders.contains_key(*k))
        .count();
    let names = vec![column.to_string()];
    let types = vec![paired.logical];
    let (ranges, col, phrase) = describe(shown_set, &names, &types, false);

    let (severity, message) = ahead_message(cp, rows, unexplained, &latest, &phrase);
    let mut f = Finding::new(
        Code::CheckpointAheadOfCommit,
        severity,
        message,
        if unexplained.is_empty() {
            "Nothing to repair: every id the checkpoint marks done is in the table or was removed by a later DELETE or OVERWRITE. A job resumed from this checkpoint skips those ids, so it does not write the removed rows again; delete the checkpoint directory first if they should come back."
        } else if !rows.now.exact {
            "Copy the files named above again (whole) and rerun this check before resuming the job from this checkpoint: until their rows are read, it is unknown whether the resume skips rows. Keep the unreferenced data files (no remove_orphan_files) meanwhile."
        } else {
        "Do not resume the job from this checkpoint: delete the checkpoint directory (or rerun without checkpointing) so the rows are written again in one commit. Keep the unreferenced data files (no remove_orphan_files) until the rows are back. Publish row checkpoints only after the Paimon commit succeeds (a commit-first sink marking its snapshot with ray.data.checkpoint.operation-id)."
        },
    )
    .evidence(format!(
        "{} holds {} checkpoint file{} listing {} distinct id{} (column {column}); Ray drops every input row with these ids on resume",
        cp.path,
        cp.files.len(),
        plural(cp.files.len()),
        ids.len(),
        plural(ids.len())
    ))
    .evidence(format!(
        "{latest} holds {} of them",
        ids.len() - missing.len()
    ))
    .files(files.iter().cloned());
    if let Some(s) = now.snapshot {
        f = f.snapshot(s);
    }
    f = held_evidence(f, &files, held, !unexplained.is_empty());
    f = explanation_evidence(f, rows, marker);
    let mut notes = paired.notes.clone();
    notes.extend(now.notes.iter().cloned());
    notes.extend(rows.holder_notes.iter().cloned());
    for n in &notes {
        f = f.evidence(n.clone());
    }
    f.rows = Some(rows_json(
        IdSection {
            count: shown_set.len(),
            ranges,
            files: &files,
            column: col,
            checkpoint: Some(&cp.path),
            now,
            deleted: rows.deleted.len(),
            overwritten: rows.removed.len(),
        },
        &notes,
    ));
    f
}

/// How serious a checkpoint ahead of its commit is, and the sentence saying so: `info` when
/// every missing id was removed later, a warning when the batch view or an OVERWRITE's files
/// could not be read whole, else an error.
fn ahead_message(
    cp: &RayCheckpoint,
    rows: &CheckpointRows,
    unexplained: &BTreeSet<Key>,
    latest: &str,
    phrase: &str,
) -> (Severity, String) {
    let (now, missing) = (&rows.now, &rows.missing);
    let severity = if unexplained.is_empty() {
        Severity::Info
    } else if !rows.unknown.is_empty() || !now.exact {
        Severity::Warning
    } else {
        Severity::Error
    };
    let message = if !now.exact && !unexplained.is_empty() {
        format!(
            "Whether {latest} holds the {} row{} ({phrase}) Ray Data checkpoint {} marks done is unknown, because {}: a resume from it skips any it lacks.",
            unexplained.len(),
            plural(unexplained.len()),
            cp.path,
            because(&now.notes)
        )
    } else if unexplained.is_empty() {
        format!(
            "Ray Data checkpoint {} marks {} id{} done that {latest} does not hold, all removed later by a DELETE or OVERWRITE: the checkpoint is consistent with the table.",
            cp.path,
            missing.len(),
            plural(missing.len())
        )
    } else {
        format!(
            "Ray Data checkpoint {} marks {} row{} ({phrase}) done that {latest} does not hold: a resume from it skips them for good.",
            cp.path,
            unexplained.len(),
            plural(unexplained.len())
        )
    };
    (severity, message)
}

/// The ids a finding is about, for its `rows`.
struct IdSection<'a> {
    count: usize,
    ranges: J,
    files: &'a BTreeSet<String>,
    column: J,
    /// The paired checkpoint, for `checkpoint-ahead-of-commit`.
    checkpoint: Option<&'a str>,
    now: &'a Live,
    deleted: usize,
    overwritten: usize,
}

/// `{"count", "ranges", "files", "column", ["checkpoint",] "batchSnapshot", "batchExact",
/// ["deleted",] ["overwritten",] ["notes"]}` (the optional members only when not empty).
fn rows_json(s: IdSection<'_>, notes: &[String]) -> J {
    let mut o = serde_json::Map::new();
    o.insert("count".into(), J::from(s.count));
    o.insert("ranges".into(), s.ranges);
    o.insert("files".into(), json!(s.files.iter().collect::<Vec<_>>()));
    o.insert("column".into(), s.column);
    if let Some(c) = s.checkpoint {
        o.insert("checkpoint".into(), J::from(c));
    }
    o.insert("batchSnapshot".into(), json!(s.now.snapshot));
    o.insert("batchExact".into(), J::from(s.now.exact));
    // Whether the latest snapshot's lack of these rows is known; if not, why not.
    o.insert("known".into(), J::from(s.now.exact));
    if !s.now.exact {
        o.insert("unknownBecause".into(), json!(s.now.notes));
    }
    if s.deleted > 0 {
        o.insert("deleted".into(), J::from(s.deleted));
    }
    if s.overwritten > 0 {
        o.insert("overwritten".into(), J::from(s.overwritten));
    }
    if !notes.is_empty() {
        o.insert("notes".into(), json!(notes));
    }
    J::Object(o)
}

/// Where the missing ids still are: unreferenced data files that hold them, or none.
fn held_evidence(
    mut f: Finding,
    files: &BTreeSet<String>,
    held: usize,
    some_unexplained: bool,
) -> Finding {
    if !files.is_empty() {
        f = f.evidence(format!(
            "{held} of the missing ids are still in {} unreferenced data file{} no snapshot references (written before the commit that never happened): {}",
            files.len(),
            plural(files.len()),
            files.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    } else if some_unexplained {
        f = f.evidence("no unreferenced data file in the artifact holds them".to_string());
    }
    f
}

/// What explains missing ids (later deletes, overwrites), and whether the sink marks its
/// commits.
fn explanation_evidence(
    mut f: Finding,
    rows: &CheckpointRows,
    marker: Option<&(i64, String)>,
) -> Finding {
    let CheckpointRows {
        deleted,
        removed,
        overwrites,
        unknown,
        ..
    } = rows;
    if !deleted.is_empty() {
        f = f.evidence(format!(
            "{} id{} deleted later (the last record of the key is a retraction): not counted",
            deleted.len(),
            plural(deleted.len())
        ));
    }
    if !removed.is_empty() {
        let snaps: BTreeSet<i64> = removed.values().copied().collect();
        f = f.evidence(format!(
            "{} id{} removed later by OVERWRITE snapshot{} {}: not counted",
            removed.len(),
            plural(removed.len()),
            plural(snaps.len()),
            snaps
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        f = f.related(snaps);
    }
    if !unknown.is_empty() {
        f = f.evidence(format!(
            "OVERWRITE snapshot{} {} deleted files that are not readable here: some of these ids may have been removed on purpose",
            plural(unknown.len()),
            unknown.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ));
    } else if !overwrites.is_empty() && removed.is_empty() {
        f = f.evidence(format!(
            "OVERWRITE snapshot{} {} removed none of these ids",
            plural(overwrites.len()),
            overwrites
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match marker {
        Some((s, v)) => {
            f = f.evidence(format!(
                "snapshot {s} carries {GENERATION_PROPERTY} = {v}: written by a commit-first Ray sink"
            ))
        }
        None => {
            f = f.evidence(format!(
                "no snapshot carries {GENERATION_PROPERTY}, the generation marker of a commit-first Ray sink: nothing shows the checkpoint waited for a commit (pypaimon's PaimonDatasink commits once, on the driver, after every task; Ray checkpoints each task as soon as it has written)"
            ))
        }
    }
    f
}

/// `rows-only-in-orphan-files`: do unreferenced data files, written before the latest
/// snapshot, hold rows the latest snapshot lacks?
pub fn orphan_rows(e: &OrphanRows) -> Finding {
    let OrphanRows {
        latest: latest_id,
        keys,
        candidates,
        held,
        names,
        types,
        now,
        missing,
        deleted,
        later_overwrites,
        notes,
    } = e;
    let latest_id = *latest_id;
    let candidates = *candidates;
    let unexplained: BTreeSet<Key> = missing.difference(deleted).cloned().collect();
    let shown = if unexplained.is_empty() {
        missing
    } else {
        &unexplained
    };
    let file_set: BTreeSet<String> = shown
        .iter()
        .filter_map(|k| held.get(k))
        .flatten()
        .cloned()
        .collect();
    let (ranges, col, phrase) = describe(shown, names, types, *keys == KeyColumns::AllValues);
    let identity = match keys {
        KeyColumns::Named(_) => "id",
        KeyColumns::Primary => "key",
        KeyColumns::AllValues => "row",
    };
    // An unreadable live file may hold any of them: unknown, never a warning.
    let severity = if unexplained.is_empty() || !later_overwrites.is_empty() || !now.exact {
        Severity::Info
    } else {
        Severity::Warning
    };
    let n = shown.len();
    let message = if now.exact {
        format!(
            "{n} {identity}{} ({phrase}) exist{} only in {} unreferenced data file{} written before snapshot {latest_id}, which does not hold {}: rows a resumed job skipped (a checkpoint published before its commit), or a job that abandoned its commit.",
            plural(n),
            if n == 1 { "s" } else { "" },
            file_set.len(),
            plural(file_set.len()),
            if n == 1 { "it" } else { "them" }
        )
    } else {
        format!(
            "Whether snapshot {latest_id} holds the {n} {identity}{} ({phrase}) that {} unreferenced data file{} written before it hold{} is unknown, because {}.",
            plural(n),
            file_set.len(),
            plural(file_set.len()),
            if file_set.len() == 1 { "s" } else { "" },
            because(&now.notes)
        )
    };
    let mut f = Finding::new(
        Code::RowsOnlyInOrphanFiles,
        severity,
        message,
        if !now.exact {
            "Copy the live files named above again (whole) and rerun this check: until their rows are read, it is unknown whether these rows are lost. Keep the unreferenced files (no remove_orphan_files) meanwhile."
        } else {
        "Find the job that wrote these files. If it was resumed from a Ray Data checkpoint (or any checkpoint written before the commit), these rows are lost: write them again (rerun without the checkpoint, or re-ingest the rows of these files). Keep the files (no remove_orphan_files) until then."
        },
    )
    .snapshot(latest_id)
    .files(file_set.iter().cloned())
    .evidence(format!(
        "{} unreferenced data file{} written before snapshot {latest_id} hold{} {} distinct {identity}{}; snapshot {latest_id} lacks {}",
        candidates,
        plural(candidates),
        if candidates == 1 { "s" } else { "" },
        held.len(),
        plural(held.len()),
        missing.len()
    ));
    f = orphan_rows_evidence(f, e);
    f.rows = Some(rows_json(
        IdSection {
            count: n,
            ranges,
            files: &file_set,
            column: col,
            checkpoint: None,
            now,
            deleted: deleted.len(),
            overwritten: 0,
        },
        notes,
    ));
    f
}

/// How the rows were compared, and what may explain them (later deletes, overwrites), then
/// what could not be read.
fn orphan_rows_evidence(mut f: Finding, e: &OrphanRows) -> Finding {
    let OrphanRows {
        keys,
        deleted,
        later_overwrites,
        notes,
        ..
    } = e;
    f = f.evidence(match keys {
        KeyColumns::Named(c) => format!("rows compared by the id column {} of the paired Ray Data checkpoint", c.join(", ")),
        KeyColumns::Primary => "rows compared by primary key".to_string(),
        KeyColumns::AllValues => "the table has no primary key and no paired id column: rows compared whole (every column)".to_string(),
    });
    if !deleted.is_empty() {
        f = f.evidence(format!(
            "{} of them deleted later (the last record of the key is a retraction)",
            deleted.len()
        ));
    }
    if !later_overwrites.is_empty() {
        f = f.evidence(format!(
            "OVERWRITE snapshot{} {} came after these files were written: the rows may have been replaced on purpose",
            plural(later_overwrites.len()),
            later_overwrites.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ));
        f = f.related(later_overwrites.iter().copied());
    }
    for n in notes {
        f = f.evidence(n.clone());
    }
    f
}

/// `{"count", "ranges", …}` and a phrase for messages (`ids 0..74`): the `ranges` and `column`
/// members of a finding's `rows`, and the phrase.
fn describe(
    keys: &BTreeSet<Key>,
    names: &[String],
    types: &[Option<LogicalType>],
    whole_rows: bool,
) -> (J, J, String) {
    let column = names.first().cloned().unwrap_or_default();
    let logical = types.first().and_then(Option::as_ref);
    let firsts: Vec<Option<i64>> = keys
        .iter()
        .map(|k| k.0.first().and_then(|v| v.as_i64()))
        .collect();
    let all_int = firsts.iter().all(Option::is_some)
        && !matches!(
            logical,
            Some(
                LogicalType::Decimal { .. }
                    | LogicalType::Date
                    | LogicalType::Timestamp { .. }
                    | LogicalType::Time { .. }
            )
        );
    // A composite key is listed as tuples; an id or a whole row by its first column.
    let composite = names.len() > 1 && keys.iter().all(|k| k.0.len() == names.len()) && !whole_rows;
    if composite {
        describe_tuples(keys, names, types)
    } else if all_int {
        let ints: Vec<i64> = firsts.into_iter().flatten().collect();
        describe_int_ranges(ints, column)
    } else {
        describe_values(keys, column, logical)
    }
}

/// Composite keys, listed as tuples.
fn describe_tuples(
    keys: &BTreeSet<Key>,
    names: &[String],
    types: &[Option<LogicalType>],
) -> (J, J, String) {
    let render = |k: &Key| {
        let parts: Vec<String> =
            k.0.iter()
                .enumerate()
                .map(|(i, v)| v.render(types.get(i).and_then(Option::as_ref)))
                .collect();
        format!("({})", parts.join(", "))
    };
    let listed: Vec<J> = keys
        .iter()
        .take(MAX_LISTED)
        .map(|k| {
            let v = J::String(render(k));
            json!([v.clone(), v])
        })
        .collect();
    let text: Vec<String> = keys.iter().take(5).map(render).collect();
    let more = if keys.len() > 5 { ", …" } else { "" };
    (
        J::Array(listed),
        J::String(names.join(", ")),
        format!("{} {}{more}", names.join(", "), text.join(", ")),
    )
}

/// Integer ids, as ranges of consecutive values.
fn describe_int_ranges(mut ints: Vec<i64>, column: String) -> (J, J, String) {
    ints.sort_unstable();
    let ranges = int_ranges(ints);
    let text: Vec<String> = ranges
        .iter()
        .take(5)
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect();
    let more = if ranges.len() > 5 { ", …" } else { "" };
    let json_ranges = J::Array(ranges.iter().map(|(a, b)| json!([a, b])).collect());
    let phrase = format!("{column} {}{more}", text.join(", "));
    (json_ranges, J::String(column), phrase)
}

/// Other ids (or whole rows), by their first column's value.
fn describe_values(
    keys: &BTreeSet<Key>,
    column: String,
    logical: Option<&LogicalType>,
) -> (J, J, String) {
    let listed: Vec<J> = keys
        .iter()
        .take(MAX_LISTED)
        .map(|k| {
            let v = k.0.first().map(|v| v.to_json(logical)).unwrap_or(J::Null);
            json!([v.clone(), v])
        })
        .collect();
    let text: Vec<String> = keys
        .iter()
        .take(5)
        .map(|k| k.0.first().map(|v| v.render(logical)).unwrap_or_default())
        .collect();
    let more = if keys.len() > 5 { ", …" } else { "" };
    let phrase = format!("{column} {}{more}", text.join(", "));
    (J::Array(listed), J::String(column), phrase)
}

/// Why a batch view is not exact, for a message: its notes (each names the file and the
/// problem), at most three.
fn because(notes: &[String]) -> String {
    if notes.is_empty() {
        return "the batch view could not be read whole".to_string();
    }
    let mut s = notes.iter().take(3).cloned().collect::<Vec<_>>().join("; ");
    if notes.len() > 3 {
        s.push_str(&format!("; and {} more", notes.len() - 3));
    }
    s
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn generation_marker(t: &Timeline) -> Option<(i64, String)> {
    t.snapshots.iter().rev().find_map(|(id, sf)| {
        sf.snapshot
            .properties
            .iter()
            .find(|(k, _)| k == GENERATION_PROPERTY)
            .map(|(_, v)| (*id, v.clone()))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::parquet::Value;
    use crate::timeline::testkit::timeline;

    fn ints(v: impl IntoIterator<Item = i64>) -> BTreeSet<Key> {
        v.into_iter().map(|i| Key::one(Value::Int(i))).collect()
    }

    /// The batch view of snapshot 5, exact or not (with these notes).
    fn live(exact: bool, notes: &[&str]) -> Live {
        Live {
            present: BTreeSet::new(),
            deleted: BTreeSet::new(),
            exact,
            notes: notes.iter().map(|n| n.to_string()).collect(),
            snapshot: Some(5),
            unread: Vec::new(),
        }
    }

    /// Checkpoint `ray/ckpt` (one file) paired with the table by its column `id`, marking the
    /// ids 1..=5 done.
    fn checkpoint() -> (RayCheckpoint, PairedRay) {
        let cp = RayCheckpoint {
            path: "ray/ckpt".into(),
            files: vec!["ray/ckpt/a.parquet".into()],
            id_column: Some("id".into()),
            default_name: true,
            problems: Vec::new(),
        };
        let paired = PairedRay {
            checkpoint: 0,
            table: 0,
            column: "id".into(),
            how: "only-table",
            ids: ints(1..=5),
            logical: None,
            notes: Vec::new(),
            cut: None,
        };
        (cp, paired)
    }

    /// What the table holds of the checkpoint's ids: `missing` of them are missing, none held
    /// by an unreferenced file.
    fn rows(now: Live, missing: BTreeSet<Key>) -> CheckpointRows {
        CheckpointRows {
            now,
            missing,
            deleted: BTreeSet::new(),
            removed: BTreeMap::new(),
            overwrites: BTreeSet::new(),
            unknown: BTreeSet::new(),
            holders: BTreeMap::new(),
            holder_notes: Vec::new(),
        }
    }

    fn judge(rows: &CheckpointRows) -> (RayCheckpointReport, Finding) {
        let (cp, paired) = checkpoint();
        let t = timeline(&[], &[(5, "APPEND", "w", 5, 5000)], &[]);
        let (report, mut findings) = judge_checkpoint(&cp, &paired, rows, &t);
        assert_eq!(findings.len(), 1, "{findings:?}");
        (report, findings.remove(0))
    }

    #[test]
    fn an_unknown_batch_view_asks_to_copy_the_files_again_not_to_drop_the_checkpoint() {
        let now = live(false, &["bucket-0/data-1.parquet: truncated"]);
        let (report, f) = judge(&rows(now, ints([4, 5])));
        assert_eq!(
            report.missing_unknown_because.as_deref(),
            Some("bucket-0/data-1.parquet: truncated")
        );
        assert_eq!(
            (f.code, f.severity),
            (Code::CheckpointAheadOfCommit, Severity::Warning)
        );
        assert_eq!(
            f.message,
            "Whether snapshot 5 holds the 2 rows (id 4..5) Ray Data checkpoint ray/ckpt marks done is unknown, because bucket-0/data-1.parquet: truncated: a resume from it skips any it lacks."
        );
        assert!(
            f.remedy
                .starts_with("Copy the files named above again (whole)"),
            "{}",
            f.remedy
        );
        assert!(
            f.evidence
                .contains(&"no unreferenced data file in the artifact holds them".to_string()),
            "{:?}",
            f.evidence
        );
        let j = f.rows.unwrap();
        assert_eq!((&j["known"], &j["count"]), (&J::from(false), &J::from(2)));
        assert_eq!(
            j["unknownBecause"],
            json!(["bucket-0/data-1.parquet: truncated"])
        );
    }

    #[test]
    fn ids_a_later_delete_or_overwrite_removed_are_counted_apart() {
        let mut r = rows(live(true, &[]), ints([3, 4, 5]));
        r.deleted = ints([3]);
        r.removed = ints([4, 5]).into_iter().map(|k| (k, 7)).collect();
        r.overwrites = BTreeSet::from([7]);
        let (report, f) = judge(&r);
        assert_eq!((report.missing, f.severity), (0, Severity::Info));
        assert_eq!(
            f.message,
            "Ray Data checkpoint ray/ckpt marks 3 ids done that snapshot 5 does not hold, all removed later by a DELETE or OVERWRITE: the checkpoint is consistent with the table."
        );
        assert!(f.remedy.starts_with("Nothing to repair"), "{}", f.remedy);
        // Nothing is unexplained: no word on where the missing ids are.
        assert!(
            !f.evidence
                .iter()
                .any(|e| e.contains("unreferenced data file")),
            "{:?}",
            f.evidence
        );
        assert_eq!(f.related_snapshots, [7]);
        let j = f.rows.unwrap();
        assert_eq!(
            (&j["deleted"], &j["overwritten"]),
            (&J::from(1), &J::from(2))
        );
        assert_eq!(j["known"], J::from(true));
        assert!(j.get("unknownBecause").is_none());
        // Without deletes or overwrites the counts are left out.
        let (_, f) = judge(&rows(live(true, &[]), ints([5])));
        let j = f.rows.unwrap();
        assert!(
            j.get("deleted").is_none() && j.get("overwritten").is_none(),
            "{j}"
        );
    }

    #[test]
    fn at_most_three_reasons_are_given_for_an_unknown_view() {
        assert_eq!(because(&[]), "the batch view could not be read whole");
        let notes: Vec<String> = (1..=4).map(|i| format!("f{i}: bad")).collect();
        assert_eq!(because(&notes[..3]), "f1: bad; f2: bad; f3: bad");
        assert_eq!(because(&notes), "f1: bad; f2: bad; f3: bad; and 1 more");
    }

    #[test]
    fn integer_ids_are_listed_as_ranges_the_first_five_in_the_message() {
        let names = ["id".to_string()];
        let five = ints([1, 2, 3, 5, 7, 9, 11]);
        let (ranges, column, phrase) = describe(&five, &names, &[None], false);
        assert_eq!(ranges, json!([[1, 3], [5, 5], [7, 7], [9, 9], [11, 11]]));
        assert_eq!(
            (column, phrase.as_str()),
            (J::from("id"), "id 1..3, 5, 7, 9, 11")
        );
        let six = ints([1, 2, 3, 5, 7, 9, 11, 13]);
        let (_, _, phrase) = describe(&six, &names, &[None], false);
        assert_eq!(phrase, "id 1..3, 5, 7, 9, 11, …");
    }

    #[test]
    fn dates_and_text_are_listed_by_value_the_first_five_in_the_message() {
        let names = ["d".to_string()];
        let types = [Some(LogicalType::Date)];
        let (ranges, column, phrase) = describe(&ints(0..5), &names, &types, false);
        assert_eq!(
            ranges,
            json!([
                ["1970-01-01", "1970-01-01"],
                ["1970-01-02", "1970-01-02"],
                ["1970-01-03", "1970-01-03"],
                ["1970-01-04", "1970-01-04"],
                ["1970-01-05", "1970-01-05"]
            ])
        );
        assert_eq!(column, J::from("d"));
        assert_eq!(
            phrase,
            "d 1970-01-01, 1970-01-02, 1970-01-03, 1970-01-04, 1970-01-05"
        );
        let (_, _, phrase) = describe(&ints(0..6), &names, &types, false);
        assert!(phrase.ends_with("1970-01-05, …"), "{phrase}");
        let text: BTreeSet<Key> = ["a", "b"]
            .into_iter()
            .map(|s| Key::one(Value::Str(Arc::from(s))))
            .collect();
        let (ranges, _, phrase) = describe(&text, &["name".to_string()], &[None], false);
        assert_eq!(
            (ranges, phrase.as_str()),
            (json!([["a", "a"], ["b", "b"]]), "name a, b")
        );
    }

    #[test]
    fn composite_keys_are_listed_as_tuples_the_first_five_in_the_message() {
        let names = ["a".to_string(), "b".to_string()];
        let key = |a: i64, b: &str| Key(vec![Value::Int(a), Value::Str(Arc::from(b))]);
        let five: BTreeSet<Key> = (1..=5).map(|i| key(i, "x")).collect();
        let (ranges, column, phrase) = describe(&five, &names, &[None, None], false);
        assert_eq!(ranges[0], json!(["(1, x)", "(1, x)"]));
        assert_eq!(ranges.as_array().map(Vec::len), Some(5));
        assert_eq!(column, J::from("a, b"));
        assert_eq!(phrase, "a, b (1, x), (2, x), (3, x), (4, x), (5, x)");
        let six: BTreeSet<Key> = (1..=6).map(|i| key(i, "x")).collect();
        let (_, _, phrase) = describe(&six, &names, &[None, None], false);
        assert_eq!(phrase, "a, b (1, x), (2, x), (3, x), (4, x), (5, x), …");
        // Whole rows are listed by their first column.
        let (_, column, phrase) = describe(&five, &names, &[None, None], true);
        assert_eq!((column, phrase.as_str()), (J::from("a"), "a 1..5"));
    }

    /// Rows of key 1 only in `bucket-0/data-x.parquet`, missing from snapshot 5.
    fn orphan_evidence(now: Live, deleted: &[i64], later_overwrites: &[i64]) -> OrphanRows {
        OrphanRows {
            latest: 5,
            keys: KeyColumns::Primary,
            candidates: 1,
            held: BTreeMap::from([(
                Key::one(Value::Int(1)),
                BTreeSet::from(["bucket-0/data-x.parquet".to_string()]),
            )]),
            names: vec!["k".into()],
            types: vec![None],
            now,
            missing: ints([1]),
            deleted: ints(deleted.iter().copied()),
            later_overwrites: later_overwrites.to_vec(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn rows_only_in_orphan_files_are_a_warning_unless_deleted_overwritten_or_unknown() {
        let f = orphan_rows(&orphan_evidence(live(true, &[]), &[], &[]));
        assert_eq!(
            (f.code, f.severity),
            (Code::RowsOnlyInOrphanFiles, Severity::Warning)
        );
        assert!(
            f.message.starts_with(
                "1 key (k 1) exists only in 1 unreferenced data file written before snapshot 5"
            ),
            "{}",
            f.message
        );
        let f = orphan_rows(&orphan_evidence(live(true, &[]), &[1], &[]));
        assert_eq!(f.severity, Severity::Info);
        let f = orphan_rows(&orphan_evidence(live(true, &[]), &[], &[6]));
        assert_eq!(
            (f.severity, f.related_snapshots.as_slice()),
            (Severity::Info, &[6][..])
        );
        let f = orphan_rows(&orphan_evidence(live(false, &["f: bad"]), &[], &[]));
        assert_eq!(f.severity, Severity::Info);
        assert!(f.message.starts_with("Whether snapshot 5 holds the 1 key (k 1) that 1 unreferenced data file written before it holds is unknown, because f: bad"), "{}", f.message);
    }
}
