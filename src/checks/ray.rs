//! Ray Data checkpoints and rows that only unreferenced files hold (seed 003,
//! `tests/fixtures/ray/README.md`). Row-level: these checks read Parquet.
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
//!
//! A generation marker in snapshot `properties` (`ray.data.checkpoint.operation-id`, the key
//! Ray's commit-first checkpoint sinks use) is reported when present and never required.
//!
//! Pairing: the user's (`--ray-checkpoint <dir>=<table path>[#<id column>]`, or the page); else
//! the only table whose schema has the checkpoint's column; else the artifact's only table.
//! Anything else is unpaired.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value as J};

use crate::findings::{Clock, Code, Finding, RayCheckpointReport, Severity, TableReport};
use crate::paimon::snapshot::CommitKind;
use crate::parquet::LogicalType;
use crate::ray::{discover, read_ids, RayCheckpoint, RayPairing, GENERATION_PROPERTY};
use crate::rows::key::int_ranges;
use crate::rows::live::{read_view, TableRef};
use crate::rows::merge::MergeEngine;
use crate::rows::read::{read_artifact_file, KeyColumns, ReadSpec};
use crate::rows::Key;
use crate::source::Artifact;
use crate::timeline::files::{OrphanKind, RootFiles};
use crate::timeline::Timeline;
use crate::warehouse::{join, MAIN_BRANCH};

/// Ids listed per finding in `rows.ranges` when they are not consecutive integers.
const MAX_LISTED: usize = 50;
/// Zip times have 2-second precision.
const TIME_TOLERANCE_MS: i64 = 2_000;

/// The problems of user pairings that the listing shows (the CLI refuses them): a checkpoint
/// or table that is not in the artifact.
pub fn pairing_problems(artifact: &Artifact, pairings: &[RayPairing]) -> Vec<String> {
    if pairings.is_empty() {
        return Vec::new();
    }
    let dirs: Vec<String> = crate::ray::candidate_dirs(artifact).into_keys().collect();
    let tables: Vec<String> = crate::warehouse::discover(artifact)
        .tables
        .into_iter()
        .map(|t| t.meta_root)
        .collect();
    let mut out = Vec::new();
    for p in pairings {
        if !dirs.contains(&p.checkpoint) {
            out.push(format!(
                "--ray-checkpoint {p}: {} is not a Ray Data checkpoint directory in the artifact (found: {})",
                p.checkpoint,
                list(dirs.iter().cloned())
            ));
        }
        if !tables.contains(&p.table) {
            out.push(format!(
                "--ray-checkpoint {p}: {} is not a table in the artifact (found: {})",
                p.table,
                list(tables.iter().cloned())
            ));
        }
    }
    out
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items
        .map(|s| {
            if s.is_empty() {
                "(root)".to_string()
            } else {
                s
            }
        })
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

fn pairing_path(t: &TableReport) -> String {
    if t.branch == MAIN_BRANCH {
        t.path.clone()
    } else {
        join(&t.path, &format!("branch/branch-{}", t.branch))
    }
}

struct Ctx<'a> {
    artifact: &'a Artifact,
    timelines: &'a [Timeline],
    roots: &'a BTreeMap<String, RootFiles>,
}

impl<'a> Ctx<'a> {
    fn table_ref(&self, t: &TableReport) -> Option<TableRef<'a>> {
        let timeline = self
            .timelines
            .iter()
            .find(|x| x.location.root == t.path && x.location.branch == t.branch)?;
        let root = self.roots.get(&t.path)?;
        let branch = root.branches.get(&t.branch)?;
        Some(TableRef {
            artifact: self.artifact,
            timeline,
            root,
            branch,
        })
    }
}

/// Runs the Ray checks: paired checkpoints and their findings go to their table's report,
/// unpaired checkpoints and bad pairings to `findings`; then `rows-only-in-orphan-files` on
/// every table.
pub fn apply(
    artifact: &Artifact,
    timelines: &[Timeline],
    roots: &BTreeMap<String, RootFiles>,
    tables: &mut [TableReport],
    findings: &mut Vec<Finding>,
    pairings: &[RayPairing],
    clock: &Clock,
) {
    let ctx = Ctx {
        artifact,
        timelines,
        roots,
    };
    let checkpoints = discover(artifact);
    let table_list_text = list(tables.iter().map(pairing_path));
    let table_list = || table_list_text.clone();
    for p in pairings {
        let problem = if !checkpoints.iter().any(|c| c.path == p.checkpoint) {
            Some(format!(
                "{} is not a Ray Data checkpoint directory in the artifact",
                p.checkpoint
            ))
        } else if !tables.iter().any(|t| pairing_path(t) == p.table) {
            Some(format!("{} is not a table in the artifact", p.table))
        } else {
            None
        };
        if let Some(problem) = problem {
            findings.push(
                Finding::new(
                    Code::RayCheckpointUnpaired,
                    Severity::Error,
                    format!("The pairing {p} cannot be applied: {problem}."),
                    "Name a Ray Data checkpoint directory and a table path as this report shows them.",
                )
                .evidence(format!(
                    "Ray Data checkpoints: {}",
                    list(checkpoints.iter().map(|c| c.path.clone()))
                ))
                .evidence(format!("tables: {}", table_list())),
            );
        }
    }

    // The id column each table is paired with, for rows-only-in-orphan-files.
    let mut id_columns: BTreeMap<usize, String> = BTreeMap::new();
    for cp in &checkpoints {
        let user = pairings.iter().find(|p| p.checkpoint == cp.path);
        let column = user
            .and_then(|p| p.id_column.clone())
            .or_else(|| cp.id_column.clone());
        let paired: Result<(usize, &str), String> = match user {
            Some(p) => match tables.iter().position(|t| pairing_path(t) == p.table) {
                Some(i) => Ok((i, "user")),
                None => continue, // reported above
            },
            None => auto_pair(&ctx, tables, column.as_deref()),
        };
        let (index, how) = match paired {
            Ok(x) => x,
            Err(why) => {
                findings.push(unpaired(cp, &why, &table_list()));
                continue;
            }
        };
        let Some(column) = column else {
            findings.push(unpaired(
                cp,
                "its files do not agree on one id column; name it with #<id column>",
                &table_list(),
            ));
            continue;
        };
        let Some(table) = tables.get_mut(index) else {
            continue;
        };
        let Some(tref) = ctx.table_ref(table) else {
            continue;
        };
        let has_column = tref
            .timeline
            .latest_schema()
            .is_some_and(|s| s.fields.iter().any(|f| f.name == column));
        if !has_column {
            findings.push(unpaired(
                cp,
                &format!("table {} has no column {column}", pairing_path(table)),
                &table_list(),
            ));
            continue;
        }
        id_columns.insert(index, column.clone());
        let (report, finding) = check_checkpoint(&tref, cp, &column, how);
        table.ray_checkpoints.push(report);
        table.ray_checkpoints.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(f) = finding {
            table.findings.push(f);
        }
    }

    for (i, table) in tables.iter_mut().enumerate() {
        if table.branch != MAIN_BRANCH {
            continue; // orphans are root-wide: judged once, against the main branch
        }
        let Some(tref) = ctx.table_ref(table) else {
            continue;
        };
        let explained: BTreeSet<String> = table
            .findings
            .iter()
            .filter(|f| f.code == Code::LostChangelog)
            .flat_map(|f| f.files.iter().cloned())
            .collect();
        if let Some(f) = orphan_rows(
            &tref,
            id_columns.get(&i).map(String::as_str),
            &explained,
            clock,
        ) {
            table.findings.push(f);
        }
    }
}

fn unpaired(cp: &RayCheckpoint, why: &str, tables: &str) -> Finding {
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

/// The table a checkpoint belongs to when the artifact leaves no choice.
fn auto_pair(
    ctx: &Ctx<'_>,
    tables: &[TableReport],
    column: Option<&str>,
) -> Result<(usize, &'static str), String> {
    let main: Vec<usize> = tables
        .iter()
        .enumerate()
        .filter(|(_, t)| t.branch == MAIN_BRANCH)
        .map(|(i, _)| i)
        .collect();
    if let Some(column) = column {
        let with: Vec<usize> = main
            .iter()
            .copied()
            .filter(|&i| {
                tables
                    .get(i)
                    .and_then(|t| ctx.table_ref(t))
                    .and_then(|r| r.timeline.latest_schema())
                    .is_some_and(|s| s.fields.iter().any(|f| f.name == column))
            })
            .collect();
        match with.as_slice() {
            [one] if main.len() == 1 => return Ok((*one, "only-table")),
            [one] => return Ok((*one, "id-column")),
            [] => {}
            several => {
                return Err(format!(
                    "{} tables have a column {column} ({})",
                    several.len(),
                    list(
                        several
                            .iter()
                            .filter_map(|&i| tables.get(i))
                            .map(pairing_path)
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

/// What the latest snapshot holds of some identities.
struct Live {
    present: BTreeSet<Key>,
    deleted: BTreeSet<Key>,
    exact: bool,
    notes: Vec<String>,
    snapshot: Option<i64>,
}

fn live(
    tref: &TableRef<'_>,
    keys: &KeyColumns,
    wanted: &BTreeSet<Key>,
    dirs: Option<&BTreeSet<String>>,
) -> Live {
    let spec = ReadSpec {
        keys: keys.clone(),
        values: false,
    };
    let view = read_view(tref, dirs, &spec, &|_, k| wanted.contains(k));
    let mut out = Live {
        present: BTreeSet::new(),
        deleted: BTreeSet::new(),
        exact: view.exact,
        notes: view.notes.clone(),
        snapshot: view.snapshot,
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
type OrphanIds = (
    BTreeMap<Key, BTreeSet<String>>,
    Vec<String>,
    Vec<Option<LogicalType>>,
);

/// Identities held by unreferenced data files: key → files (relative to the table root).
fn orphan_identities(
    tref: &TableRef<'_>,
    files: &[(String, String)],
    keys: &KeyColumns,
    notes: &mut Vec<String>,
) -> OrphanIds {
    let spec = ReadSpec {
        keys: keys.clone(),
        values: false,
    };
    let mut out: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    let mut names = Vec::new();
    let mut types = Vec::new();
    for (path, rel) in files {
        match read_artifact_file(tref.artifact, path, &spec, &|_| true) {
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

/// Identities that the files deleted by OVERWRITE snapshots (after `after`, epoch ms) held:
/// key → the OVERWRITE snapshot; and OVERWRITE snapshots whose deleted files are unreadable.
fn overwritten(
    tref: &TableRef<'_>,
    keys: &KeyColumns,
    wanted: &BTreeSet<Key>,
    after: Option<i64>,
) -> (BTreeMap<Key, i64>, BTreeSet<i64>, BTreeSet<i64>) {
    let spec = ReadSpec {
        keys: keys.clone(),
        values: false,
    };
    let mut removed = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let mut unknown = BTreeSet::new();
    for (id, sf) in &tref.timeline.snapshots {
        let s = &sf.snapshot;
        if s.commit_kind != CommitKind::Overwrite || after.is_some_and(|a| s.time_millis < a) {
            continue;
        }
        seen.insert(*id);
        let Some(files) = tref.branch.snapshots.get(id) else {
            unknown.insert(*id);
            continue;
        };
        for e in files.deleted() {
            let Some(path) = tref.file_path(e) else {
                unknown.insert(*id);
                continue;
            };
            match read_artifact_file(tref.artifact, &path, &spec, &|k| wanted.contains(k)) {
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

/// `{"count", "ranges", …}` and a phrase for messages (`ids 0..74`).
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
    let what = format!("{column} ");
    if composite {
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
        return (
            J::Array(listed),
            J::String(names.join(", ")),
            format!("{} {}{more}", names.join(", "), text.join(", ")),
        );
    }
    if all_int {
        let mut ints: Vec<i64> = firsts.into_iter().flatten().collect();
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
        (
            json_ranges,
            J::String(column),
            format!("{what}{}{more}", text.join(", ")),
        )
    } else {
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
        (
            J::Array(listed),
            J::String(column),
            format!("{what}{}{more}", text.join(", ")),
        )
    }
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

/// Checks one paired checkpoint.
fn check_checkpoint(
    tref: &TableRef<'_>,
    cp: &RayCheckpoint,
    column: &str,
    how: &str,
) -> (RayCheckpointReport, Option<Finding>) {
    let (ids, logical, mut notes) = read_ids(tref.artifact, cp, column);
    notes.extend(cp.problems.iter().cloned());
    let keys = KeyColumns::Named(vec![column.to_string()]);
    let now = live(tref, &keys, &ids, None);
    notes.extend(now.notes.iter().cloned());
    let missing: BTreeSet<Key> = ids.difference(&now.present).cloned().collect();
    let deleted: BTreeSet<Key> = missing.intersection(&now.deleted).cloned().collect();
    let rest: BTreeSet<Key> = missing.difference(&deleted).cloned().collect();
    let (removed, overwrites, unknown) = if rest.is_empty() {
        Default::default()
    } else {
        overwritten(tref, &keys, &rest, None)
    };
    let unexplained: BTreeSet<Key> = rest
        .iter()
        .filter(|k| !removed.contains_key(*k))
        .cloned()
        .collect();
    let marker = generation_marker(tref.timeline);
    let report = RayCheckpointReport {
        path: cp.path.clone(),
        id_column: column.to_string(),
        files: cp.files.len() as u64,
        ids: ids.len() as u64,
        missing: unexplained.len() as u64,
        pairing: how.to_string(),
        generation_marker: marker.as_ref().map(|(s, v)| format!("{s}: {v}")),
    };
    if missing.is_empty() {
        return (report, None);
    }
    let latest = now.snapshot.map_or("the latest snapshot".to_string(), |s| {
        format!("snapshot {s}")
    });

    // Unreferenced data files that still hold the ids.
    let root = &tref.timeline.location.root;
    let orphans: Vec<(String, String)> = tref
        .root
        .orphans
        .iter()
        .filter(|o| o.kind == OrphanKind::Data)
        .map(|o| (o.path.clone(), o.relative.clone()))
        .collect();
    let (holders, _, _) = orphan_identities(tref, &orphans, &keys, &mut notes);
    let shown_set = if unexplained.is_empty() {
        &missing
    } else {
        &unexplained
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
    let types = vec![logical];
    let (ranges, col, phrase) = describe(shown_set, &names, &types, false);

    let severity = if unexplained.is_empty() {
        Severity::Info
    } else if !unknown.is_empty() || !now.exact {
        Severity::Warning
    } else {
        Severity::Error
    };
    let message = if unexplained.is_empty() {
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
    let mut f = Finding::new(
        Code::CheckpointAheadOfCommit,
        severity,
        message,
        "Do not resume the job from this checkpoint: delete the checkpoint directory (or rerun without checkpointing) so the rows are written again in one commit. Keep the unreferenced data files (no remove_orphan_files) until the rows are back. Publish row checkpoints only after the Paimon commit succeeds (a commit-first sink marking its snapshot with ray.data.checkpoint.operation-id).",
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
    if !files.is_empty() {
        f = f.evidence(format!(
            "{held} of the missing ids are still in {} unreferenced data file{} no snapshot references (written before the commit that never happened): {}",
            files.len(),
            plural(files.len()),
            files.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    } else if !unexplained.is_empty() {
        f = f.evidence("no unreferenced data file in the artifact holds them".to_string());
    }
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
    match &marker {
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
    for n in &notes {
        f = f.evidence(n.clone());
    }
    let mut rows = json!({
        "count": shown_set.len(),
        "ranges": ranges,
        "files": files.iter().cloned().collect::<Vec<_>>(),
        "column": col,
        "checkpoint": cp.path,
        "batchSnapshot": now.snapshot,
        "batchExact": now.exact,
    });
    if let Some(o) = rows.as_object_mut() {
        if !deleted.is_empty() {
            o.insert("deleted".into(), J::from(deleted.len()));
        }
        if !removed.is_empty() {
            o.insert("overwritten".into(), J::from(removed.len()));
        }
        if !notes.is_empty() {
            o.insert("notes".into(), json!(notes));
        }
    }
    f.rows = Some(rows);
    let _ = root;
    (report, Some(f))
}

/// `rows-only-in-orphan-files` for one table (main branch).
fn orphan_rows(
    tref: &TableRef<'_>,
    id_column: Option<&str>,
    explained: &BTreeSet<String>,
    clock: &Clock,
) -> Option<Finding> {
    if !tref.root.has_manifest_dir || tref.branch.live_latest.is_none() {
        return None; // without the latest snapshot's files nothing can be told
    }
    let latest = tref.timeline.snapshots.values().next_back()?;
    let latest_id = latest.snapshot.id;
    let latest_time = latest.snapshot.time_millis;
    let offset = clock.zip_time_offset_minutes;
    let candidates: Vec<&crate::timeline::files::Orphan> = tref
        .root
        .orphans
        .iter()
        .filter(|o| o.kind == OrphanKind::Data && !explained.contains(&o.relative))
        .filter(|o| {
            o.modified
                .is_some_and(|m| m.to_utc_millis(offset) + TIME_TOLERANCE_MS < latest_time)
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
            .map(|o| crate::warehouse::split_parent(&o.relative).0.to_string())
            .collect()
    });
    let now = live(tref, &keys, &wanted, dirs.as_ref());
    notes.extend(now.notes.iter().cloned());
    let missing: BTreeSet<Key> = wanted.difference(&now.present).cloned().collect();
    if missing.is_empty() {
        return None;
    }
    let deleted: BTreeSet<Key> = missing.intersection(&now.deleted).cloned().collect();
    let unexplained: BTreeSet<Key> = missing.difference(&deleted).cloned().collect();
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
                && oldest.is_some_and(|o| sf.snapshot.time_millis + TIME_TOLERANCE_MS >= o)
        })
        .map(|(id, _)| *id)
        .collect();
    let shown = if unexplained.is_empty() {
        &missing
    } else {
        &unexplained
    };
    let file_set: BTreeSet<String> = shown
        .iter()
        .filter_map(|k| held.get(k))
        .flatten()
        .cloned()
        .collect();
    let (ranges, col, phrase) = describe(shown, &names, &types, keys == KeyColumns::AllValues);
    let identity = match &keys {
        KeyColumns::Named(_) => "id",
        KeyColumns::Primary => "key",
        KeyColumns::AllValues => "row",
    };
    let severity = if unexplained.is_empty() || !later_overwrites.is_empty() {
        Severity::Info
    } else {
        Severity::Warning
    };
    let n = shown.len();
    let mut f = Finding::new(
        Code::RowsOnlyInOrphanFiles,
        severity,
        format!(
            "{n} {identity}{} ({phrase}) exist{} only in {} unreferenced data file{} written before snapshot {latest_id}, which does not hold them: rows a resumed job skipped (a checkpoint published before its commit), or a job that abandoned its commit.",
            plural(n),
            if n == 1 { "s" } else { "" },
            file_set.len(),
            plural(file_set.len())
        ),
        "Find the job that wrote these files. If it was resumed from a Ray Data checkpoint (or any checkpoint written before the commit), these rows are lost: write them again (rerun without the checkpoint, or re-ingest the rows of these files). Keep the files (no remove_orphan_files) until then.",
    )
    .snapshot(latest_id)
    .files(file_set.iter().cloned())
    .evidence(format!(
        "{} unreferenced data file{} written before snapshot {latest_id} hold{} {} distinct {identity}{}; snapshot {latest_id} lacks {}",
        candidates.len(),
        plural(candidates.len()),
        if candidates.len() == 1 { "s" } else { "" },
        held.len(),
        plural(held.len()),
        missing.len()
    ));
    f = f.evidence(match &keys {
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
    for n in &notes {
        f = f.evidence(n.clone());
    }
    let mut rows = json!({
        "count": n,
        "ranges": ranges,
        "files": file_set.iter().cloned().collect::<Vec<_>>(),
        "column": col,
        "batchSnapshot": now.snapshot,
        "batchExact": now.exact,
    });
    if let Some(o) = rows.as_object_mut() {
        if !deleted.is_empty() {
            o.insert("deleted".into(), J::from(deleted.len()));
        }
        if !notes.is_empty() {
            o.insert("notes".into(), json!(notes));
        }
    }
    f.rows = Some(rows);
    Some(f)
}
