//! Timeline integrity: is the snapshot history complete and consistent?
//!
//! * `snapshot-gap` — snapshot ids must be contiguous (`paimon-format.md` §1.4: each commit takes
//!   the next id, from 1). Expiration removes the oldest ids first (§5.2), so a hole
//!   between earliest and latest means files were lost or deleted by hand.
//! * `hint-mismatch` — `LATEST` is written after the snapshot rename, `EARLIEST` last by
//!   expiration (§1.4, §4.7): a lagging `LATEST` marks a writer that died right after publishing;
//!   an `EARLIEST` below the oldest snapshot marks an interrupted expiration.
//! * `snapshot-temp-file` — `.snapshot-<id>.<uuid>.tmp` is left when a writer dies between
//!   writing and renaming (§1.4, `FileIO.tryToWriteAtomic`); if no `snapshot-<id>` exists, that
//!   commit never became durable.
//! * `unreadable-file` — a file the analysis needed could not be read or parsed; Paimon's own
//!   readers would fail on it too.
//! * `no-table` — the artifact holds no Paimon table at all.
//! * `branch-incomplete` — a branch directory with tags but no schema and no snapshot: what a
//!   `createBranch` from a tag leaves when the tagged snapshot has expired (it copies the tag
//!   first, then fails on the snapshot; `paimon-format.md` §5.6).

use crate::error::Error;
use std::collections::HashSet;

use crate::checks::changelog::display_identifier;
use crate::findings::{Code, Finding, Severity};
use crate::paimon::manifest::FileKind;
use crate::paimon::snapshot::{CommitKind, Snapshot};
use crate::timeline::files::RootFiles;
use crate::timeline::{TempSnapshotFile, Timeline};
use crate::warehouse::{split_parent, Discovery};

use super::relative;

/// `snapshot-gap`: holes in the snapshot ids.
pub fn snapshot_gaps(t: &Timeline) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut prev: Option<i64> = None;
    for &id in &t.present_ids {
        if let Some(p) = prev {
            if id > p.saturating_add(1) {
                let (first, last) = (p.saturating_add(1), id.saturating_sub(1));
                let missing = if first == last {
                    format!("snapshot {first} is")
                } else {
                    format!(
                        "snapshots {first}..{last} ({} files) are",
                        last.saturating_sub(first).saturating_add(1)
                    )
                };
                out.push(
                    Finding::new(
                        Code::SnapshotGap,
                        Severity::Error,
                        format!(
                            "The snapshot ids are not contiguous: {missing} missing between {p} and {id}."
                        ),
                        "Paimon never leaves holes: find out whether the artifact was copied partially \
                         (then re-capture it) or files were deleted by hand. A streaming reader that \
                         reaches the hole stops; restore the files from a backup, or restart readers \
                         after the hole with reset_consumer.",
                    )
                    .snapshot(first)
                    .related([p, id])
                    .evidence(format!(
                        "snapshot/ holds {} files from {} to {}",
                        t.present_ids.len(),
                        t.earliest().unwrap_or(0),
                        t.latest().unwrap_or(0)
                    )),
                );
            }
        }
        prev = Some(id);
    }
    out
}

/// `hint-mismatch`: EARLIEST/LATEST disagree with the snapshot files present.
pub fn hint_mismatches(t: &Timeline) -> Vec<Finding> {
    let mut out = Vec::new();
    let (Some(earliest), Some(latest)) = (t.earliest(), t.latest()) else {
        return out;
    };
    if let Some(h) = t.latest_hint.as_ref() {
        if let Some(v) = h.value {
            if v < latest {
                out.push(
                    Finding::new(
                        Code::HintMismatch,
                        Severity::Warning,
                        format!(
                            "LATEST says {v} but snapshots up to {latest} exist: a writer published \
                             snapshot {} and died before updating the hint (or the copy raced a commit).",
                            v.saturating_add(1)
                        ),
                        "Paimon corrects a lagging LATEST by listing snapshot/, so readers are fine; check \
                         the writer's log around that commit for a crash and look at the commit's \
                         findings below.",
                    )
                    .snapshot(v.saturating_add(1))
                    .files([relative(t, &h.path)])
                    .evidence(format!("LATEST = {v}; newest snapshot file = snapshot-{latest}")),
                );
            } else if v > latest {
                out.push(
                    Finding::new(
                        Code::HintMismatch,
                        Severity::Warning,
                        format!(
                            "LATEST says {v} but the newest snapshot is {latest}: snapshots were \
                             removed after the hint was written (rollback, manual deletion, or a partial copy)."
                        ),
                        "Confirm the artifact is complete. After a rollback Paimon rewrites LATEST; a \
                         hint beyond the newest snapshot makes readers that trust it look for a missing \
                         snapshot. Rewrite LATEST with the newest id (rollback_to does this).",
                    )
                    .snapshot(latest)
                    .files([relative(t, &h.path)])
                    .evidence(format!("LATEST = {v}; newest snapshot file = snapshot-{latest}")),
                );
            }
        }
    }
    if let Some(h) = t.earliest_hint.as_ref() {
        if let Some(v) = h.value {
            if v < earliest {
                out.push(
                    Finding::new(
                        Code::HintMismatch,
                        Severity::Warning,
                        format!(
                            "EARLIEST says {v} but the oldest snapshot is {earliest}: an expiration \
                             deleted snapshots and stopped before rewriting the hint."
                        ),
                        "An interrupted expiration deletes data files before snapshot files, so check \
                         the oldest snapshots for missing files (dangling-reference findings). Running \
                         expire_snapshots again completes it and rewrites EARLIEST.",
                    )
                    .snapshot(earliest)
                    .files([relative(t, &h.path)])
                    .evidence(format!("EARLIEST = {v}; oldest snapshot file = snapshot-{earliest}")),
                );
            } else if v > earliest {
                out.push(
                    Finding::new(
                        Code::HintMismatch,
                        Severity::Info,
                        format!(
                            "EARLIEST says {v} but snapshots from {earliest} are still present: they \
                             outlived an expiration (or were restored by hand)."
                        ),
                        "Harmless for readers (Paimon lists snapshot/ when the hint is wrong); the \
                         next expiration removes the older snapshots.",
                    )
                    .snapshot(earliest)
                    .files([relative(t, &h.path)])
                    .evidence(format!("EARLIEST = {v}; oldest snapshot file = snapshot-{earliest}")),
                );
            }
        }
    }
    out
}

/// `snapshot-temp-file`: leftover `.snapshot-<id>.<uuid>.tmp` files. Also returns the orphan
/// files (relative paths) the unpublished snapshot explains: its manifest lists, their manifests,
/// and the data and changelog files they add.
pub fn temp_files(t: &Timeline, root: Option<&RootFiles>) -> (Vec<Finding>, HashSet<String>) {
    let mut out = Vec::new();
    let mut explained = HashSet::new();
    for tmp in &t.temp_files {
        let content = tmp.content.as_ref();
        let fate = content.map(|s| fate_of(t, tmp.id, s));
        let (severity, message, remedy) = temp_verdict(t, tmp, fate);
        let mut f = Finding::new(Code::SnapshotTempFile, severity, message, remedy)
            .snapshot(tmp.id)
            .files([relative(t, &tmp.path)])
            .evidence(format!("{} ({} bytes)", relative(t, &tmp.path), tmp.size));
        if let Some(s) = content {
            f = f.commit(s.commit_user.clone(), s.commit_identifier);
            // Its manifest lists are orphans now: decode what they describe.
            if let Some(r) = root {
                let adds = files_of_unpublished(r, s, &mut explained);
                if !adds.is_empty() {
                    f = f.evidence(format!(
                        "its manifest lists add {} file{} that nothing references now: {}",
                        adds.len(),
                        if adds.len() == 1 { "" } else { "s" },
                        adds.join(", ")
                    ));
                }
            }
            match fate {
                Some(Fate::Recommitted(id)) => {
                    f = f.related([id]);
                }
                Some(Fate::Skipped(next, _)) => {
                    f = f.related([next]);
                }
                _ => {}
            }
        }
        out.push(f);
    }
    (out, explained)
}

/// "a COMPACT of user u for identifier 7", or "unreadable content".
fn describe_commit(content: Option<&Snapshot>) -> String {
    content
        .map(|s| {
            format!(
                "{} {} of user {} for identifier {}",
                if s.commit_kind
                    .as_str()
                    .starts_with(['A', 'E', 'I', 'O', 'U'])
                {
                    "an"
                } else {
                    "a"
                },
                s.commit_kind,
                s.commit_user,
                display_identifier(s.commit_identifier)
            )
        })
        .unwrap_or_else(|| "unreadable content".to_string())
}

/// What became of the commit of temp snapshot `id`: re-committed later, skipped, or not yet
/// recovered (by the later snapshots of its user).
fn fate_of(t: &Timeline, id: i64, s: &Snapshot) -> Fate {
    let later: Vec<&Snapshot> = t
        .snapshots
        .range(id..)
        .map(|(_, f)| &f.snapshot)
        .filter(|x| x.commit_user == s.commit_user)
        .collect();
    if let Some(again) = later
        .iter()
        .find(|x| x.commit_identifier == s.commit_identifier && x.commit_kind == s.commit_kind)
    {
        Fate::Recommitted(again.id)
    } else if let Some(next) = later.first() {
        Fate::Skipped(next.id, next.commit_identifier)
    } else {
        Fate::NotYet
    }
}

/// Severity, message and remedy of a temp snapshot file: harmless when its id was published
/// anyway or the commit was re-committed, an error when the writer moved on without it (a
/// non-COMPACT commit's data is not in the table), a warning while it has not recovered.
fn temp_verdict(
    t: &Timeline,
    tmp: &TempSnapshotFile,
    fate: Option<Fate>,
) -> (Severity, String, String) {
    let content = tmp.content.as_ref();
    let what = describe_commit(content);
    if t.present_ids.contains(&tmp.id) {
        return (
            Severity::Info,
            format!(
                "A temp file for snapshot {} ({what}) was left behind, but snapshot-{} exists: \
                 another commit won the id, or the rename succeeded and the copy lingered.",
                tmp.id, tmp.id
            ),
            "Harmless; remove_orphan_files deletes it (run it with dry run first).".to_string(),
        );
    }
    let compact = content.is_some_and(|s| s.commit_kind == CommitKind::Compact);
    match fate {
        Some(Fate::Recommitted(id)) => (
            Severity::Info,
            format!(
                "Snapshot {} was written to a temp file ({what}) but never renamed into place; \
                 the writer recovered and committed the same identifier as snapshot {id}.",
                tmp.id
            ),
            "Nothing was lost; remove_orphan_files (dry run first) cleans up the leftovers."
                .to_string(),
        ),
        Some(Fate::Skipped(next, ident)) if !compact => (
            Severity::Error,
            format!(
                "Snapshot {} was written to a temp file ({what}) but never renamed into place, \
                 and the writer moved on to identifier {} (snapshot {next}) without \
                 committing it: that commit's data is not in the table.",
                tmp.id,
                display_identifier(ident)
            ),
            "Re-run the input for that checkpoint (its data files are still on disk, \
             unreferenced: do not run remove_orphan_files), or restore from the source system."
                .to_string(),
        ),
        _ => (
            Severity::Warning,
            format!(
                "Snapshot {} was written to a temp file ({what}) but never renamed into place: \
                 the writer died while publishing, so that commit is not durable{}.",
                tmp.id,
                if compact {
                    " (a COMPACT: see the lost-changelog findings)"
                } else {
                    "; it has not recovered since (no later snapshot of that user)"
                }
            ),
            if compact {
                "See the lost-changelog finding of the same commit.".to_string()
            } else {
                "Restart the writer from its last checkpoint: recovery re-commits this \
                 identifier (filterCommitted retries identifiers above the user's latest)."
                    .to_string()
            },
        ),
    }
}

/// The orphan files the unpublished snapshot `s` adds (sorted, once each), read from the
/// decoded ghost commits of its manifest lists; its lists, their manifests and those files go
/// to `explained`.
fn files_of_unpublished(
    r: &RootFiles,
    s: &Snapshot,
    explained: &mut HashSet<String>,
) -> Vec<String> {
    let lists: Vec<String> = s
        .manifest_lists()
        .map(|(_, l)| format!("manifest/{l}"))
        .collect();
    let mut adds: Vec<String> = Vec::new();
    for ghost in r
        .ghosts
        .iter()
        .filter(|g| g.lists.iter().any(|l| lists.contains(l)))
    {
        explained.extend(ghost.lists.iter().cloned());
        explained.extend(ghost.manifests.iter().cloned());
        let added = ghost
            .entries
            .iter(&r.catalog)
            .filter(|e| e.kind() == FileKind::Add);
        for e in added {
            if let Some(o) = r
                .orphans
                .iter()
                .find(|o| split_parent(&o.relative).1 == e.file().file_name())
            {
                explained.insert(o.relative.clone());
                adds.push(o.relative.clone());
            }
        }
    }
    adds.sort();
    adds.dedup();
    adds
}

/// What became of a commit whose snapshot stayed a temp file.
#[derive(Clone, Copy)]
enum Fate {
    /// The same identifier and kind were committed later as this snapshot.
    Recommitted(i64),
    /// The writer committed this later snapshot with this identifier instead.
    Skipped(i64, i64),
    /// No later snapshot of that user.
    NotYet,
}

/// `unreadable-file` (or `consumer-unreadable`, reported by the consumer check) for each file of
/// the timeline that could not be read or parsed.
pub fn unreadable_files(t: &Timeline) -> Vec<Finding> {
    t.problems
        .iter()
        .map(|p| {
            let (dir, _) = split_parent(&p.path);
            let (_, last) = split_parent(dir);
            let (severity, consequence) = match last {
                "snapshot" => (
                    Severity::Error,
                    "Paimon's readers fail on this snapshot too",
                ),
                "schema" => (
                    Severity::Error,
                    "Paimon cannot open the table with this schema",
                ),
                "changelog" => (
                    Severity::Warning,
                    "streaming readers of the long-lived changelog fail here",
                ),
                _ => (Severity::Warning, "the analysis skipped it"),
            };
            unreadable(relative(t, &p.path), &p.error, severity, consequence)
        })
        .collect()
}

/// An `unreadable-file` finding.
pub fn unreadable(file: String, error: &Error, severity: Severity, consequence: &str) -> Finding {
    Finding::new(
        Code::UnreadableFile,
        severity,
        format!(
            "{file} could not be read: {}; {consequence}.",
            error.problem()
        ),
        "Check whether the artifact was truncated or damaged in transfer (re-download it); if the \
         file is damaged in the warehouse itself, restore it from a backup or roll the table back \
         to a snapshot before it (rollback_to, after a dry run on a copy).",
    )
    .files([file])
    .evidence(format!("{} ({})", error, error.kind().as_str()))
}

/// A finding for a part of the artifact that could not be opened (a broken nested zip, a hostile
/// name).
pub fn unreadable_artifact_part(error: &Error) -> Finding {
    let file = error.file().unwrap_or("(artifact)").to_string();
    let severity = match error.kind() {
        crate::error::ErrorKind::Limit => Severity::Warning,
        _ => Severity::Warning,
    };
    Finding::new(
        Code::UnreadableFile,
        severity,
        format!("{file}: {}; it was skipped and the rest of the artifact analysed.", error.problem()),
        "If this part matters, re-create the artifact (zip -r) and check that the upload completed; \
         limits can be raised on the CLI with --limit NAME=VALUE.",
    )
    .files([file])
    .evidence(error.to_string())
}

/// `no-table`: does the artifact hold any Paimon table at all? An error when no directory holds
/// `snapshot/` or `schema/` files, naming what the artifact holds instead.
pub fn no_table(discovery: &Discovery) -> Option<Finding> {
    if !discovery.tables.is_empty() {
        return None;
    }
    let mut f = Finding::new(
        Code::NoTable,
        Severity::Error,
        "No Paimon table was found in the artifact (no directory holds snapshot/ or schema/ files).",
        "Check that the artifact contains the warehouse directory (<warehouse>/<db>.db/<table>/snapshot, schema, manifest); CI jobs often upload only logs.",
    );
    for line in &discovery.instead {
        f = f.evidence(format!("found instead: {line}"));
    }
    Some(f)
}

/// `branch-incomplete`: a branch holding tags but neither a schema nor a snapshot file, which
/// Paimon cannot open (`paimon-format.md` §5.6).
pub fn half_created_branch(t: &Timeline) -> Option<Finding> {
    if t.location.branch == crate::warehouse::MAIN_BRANCH
        || !t.schemas.is_empty()
        || !t.present_ids.is_empty()
        || t.tags.is_empty()
    {
        return None;
    }
    let tags: Vec<&str> = t.tags.iter().map(|tag| tag.name.as_str()).collect();
    let branch = &t.location.branch;
    Some(
        Finding::new(
            Code::BranchIncomplete,
            Severity::Info,
            format!(
                "branch {branch} holds tag{} {} but no schema and no snapshot, so Paimon cannot open it: a half-created branch. createBranch from a tag copies the tag first, then the tagged snapshot and the schemas, and fails when the tagged snapshot has expired; or the capture missed the branch's schema/ and snapshot/.",
                if tags.len() == 1 { "" } else { "s" },
                tags.join(", ")
            ),
            format!(
                "Nothing reads it. delete_branch '{branch}' removes it (dry run on a copy first); to have the branch, create it again from a snapshot or a tag whose snapshot is retained."
            ),
        )
        .evidence(format!("{}: tag/ only", relative(t, &t.location.meta_root))),
    )
}
