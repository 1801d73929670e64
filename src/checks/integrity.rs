//! Timeline integrity: is the snapshot history complete and consistent?
//!
//! * `snapshot-gap` — snapshot ids must be contiguous (`paimon-format.md` §1.4: each commit takes
//!   the next id, from 1). Expiration removes the oldest ids first (§5.2), so a hole
//!   between earliest and latest means files were lost or deleted by hand, or a fast-forward
//!   stopped part way (`BranchManager.fastForward` deletes and copies snapshot files in no set
//!   order).
//! * `hint-mismatch` — `LATEST` is written after the snapshot rename, `EARLIEST` last by
//!   expiration (§1.4, §4.7): a lagging `LATEST` marks a writer that died right after publishing;
//!   an `EARLIEST` below the oldest snapshot marks an interrupted expiration.
//! * `snapshot-temp-file` — `.snapshot-<id>.<uuid>.tmp` (or a pypaimon variant, §1.4) is left when a writer dies between
//!   writing and renaming (§1.4, `FileIO.tryToWriteAtomic`); if no `snapshot-<id>` exists, that
//!   commit never became durable.
//! * `schema-temp-file` — `schema/.schema-<id>.<uuid>.tmp`, left by an `ALTER TABLE` that died
//!   between writing the next schema and renaming it (§1.5, `SchemaManager.commit`): its changes
//!   are not in effect.
//! * `unreadable-file` — a file the analysis needed could not be read or parsed: when its own
//!   bytes are malformed, Paimon's readers fail on it too; when only this copy or this tool
//!   failed (a damaged zip entry, a compression it does not decode, a limit), its content is
//!   unknown, and the finding says so as a warning.
//! * `no-table` — the artifact holds no Paimon table at all.
//! * `artifact-incomplete` for a damaged zip — a zip whose central directory is damaged or
//!   missing (a download cut short) had its entries recovered from their local headers; where
//!   that left entries out, nothing can rest on a file's absence below it: its errors that do
//!   are unconfirmed warnings and unreferenced files are not reported ([`unconfirmed`]).
//! * `branch-incomplete` — a branch directory with tags but no schema and no snapshot: what a
//!   `createBranch` from a tag leaves when the tagged snapshot has expired (it copies the tag
//!   first, then fails on the snapshot; `paimon-format.md` §5.6).

use crate::error::{Error, ErrorKind};
use std::collections::HashSet;

use crate::checks::changelog::display_identifier;
use crate::findings::{Code, Finding, Severity};
use crate::paimon::manifest::FileKind;
use crate::paimon::snapshot::{CommitKind, Snapshot, BATCH_COMMIT_IDENTIFIER};
use crate::source::Salvaged;
use crate::timeline::files::RootFiles;
use crate::timeline::{TempSnapshotFile, Timeline};
use crate::warehouse::{split_parent, Discovery};

use super::{relative, snapshots, snapshots_are};

/// `snapshot-gap`: holes in the snapshot ids.
pub fn snapshot_gaps(t: &Timeline) -> Vec<Finding> {
    t.holes()
        .map(|(first, last)| {
            let (p, id) = (first.saturating_sub(1), last.saturating_add(1));
            let missing = if first == last {
                format!("snapshot {first} is")
            } else {
                format!(
                    "snapshots {first}..{last} ({} files) are",
                    last.saturating_sub(first).saturating_add(1)
                )
            };
            let rolled_back_to = t.latest_hint.as_ref().and_then(|h| h.value) == Some(p);
            let remedy = if rolled_back_to {
                format!(
                    "LATEST says {p}, just below the hole: a rollback to {p} that stopped while \
                     deleting the newer snapshots leaves this (it rewrites LATEST first, and \
                     pypaimon deletes from the lowest). If one ran, run it again to finish it, \
                     and do not restore the deleted snapshots; otherwise find out whether files \
                     were deleted by hand or the artifact was copied partially."
                )
            } else {
                "Paimon's commits and expiration never leave holes, but a fast-forward that \
                 stopped part way can (BranchManager.fastForward deletes main's snapshot files \
                 and copies the branch's in no set order): if one ran, run it again; otherwise find out whether the artifact \
                 was copied partially (then re-capture it) or files were deleted by hand. A \
                 streaming reader that reaches the hole stops; restore the files from a backup, \
                 or restart readers after the hole with reset_consumer."
                    .to_string()
            };
            Finding::new(
                Code::SnapshotGap,
                Severity::Error,
                format!(
                    "The snapshot ids are not contiguous: {missing} missing between {p} and {id}."
                ),
                remedy,
            )
            .snapshot(first)
            .related([p, id])
            .evidence(format!(
                "snapshot/ holds {} files from {} to {}",
                t.present_ids.len(),
                t.earliest().unwrap_or(0),
                t.latest().unwrap_or(0)
            ))
        })
        .collect()
}

/// `hint-mismatch` when `LATEST` names a snapshot and no snapshot file is left: Paimon's
/// readers take the hint and fail reading that snapshot (`SnapshotManager`, §1.4). What removed
/// them (a rollback or expiration that stopped after deleting snapshot files, a hand deletion, a
/// partial capture) the artifact cannot tell.
fn latest_without_snapshots(t: &Timeline) -> Option<Finding> {
    let h = t.latest_hint.as_ref()?;
    let v = h.value?;
    if !t.present_ids.is_empty() {
        return None;
    }
    Some(
        Finding::new(
            Code::HintMismatch,
            Severity::Warning,
            format!(
                "LATEST says {v} but no snapshot file is left: readers that take the hint fail reading snapshot {v}. A rollback or an expiration that stopped after deleting the snapshot files, a deletion by hand, or a capture without them leaves this."
            ),
            "Confirm the artifact holds the table's whole snapshot/ directory. If the table itself has no snapshot left, restore the snapshot files from a backup, or roll back to a tag (rollback_to writes the tag back as a snapshot and rewrites the hints).",
        )
        .snapshot(v)
        .files([relative(t, &h.path)])
        .evidence(format!("LATEST = {v}; snapshot/ holds no snapshot file")),
    )
}

/// `hint-mismatch` (info) for an `EARLIEST` above older snapshot files. When its snapshot
/// exists Paimon trusts it and looks no lower (`SnapshotManager.findEarliest`, §1.4): the older
/// snapshots are invisible to readers and to expiration, which never removes them. The cause is
/// named when the artifact shows it: a branch of the table holding the same snapshot under the
/// same hint is what `BranchManager.fastForward` leaves (it copies the branch's `snapshot/`
/// directory, hints included, over main's); else a snapshot deletion that failed quietly during
/// an expiration, or a restore by hand.
fn earliest_hides(
    t: &Timeline,
    others: &[&Timeline],
    hint: &str,
    v: i64,
    earliest: i64,
) -> Finding {
    let last = v.saturating_sub(1);
    let (hidden, hidden_again) = (snapshots_are(earliest, last), snapshots(earliest, last));
    let seen = t.earliest_for_readers() == Some(v);
    let source = others.iter().find(|b| {
        b.location.branch != t.location.branch
            && b.earliest_hint.as_ref().and_then(|h| h.value) == Some(v)
            && b.snapshot(v).is_some()
            && b.snapshot(v) == t.snapshot(v)
    });
    let cause = match source {
        Some(b) => format!(
            "A fast-forward from branch {} left this: fastForward copies the branch's snapshot \
             directory, its EARLIEST included, over main's, and keeps main's snapshots below the \
             branch's first.",
            b.location.branch
        ),
        None => "The older snapshots outlived an expiration (a snapshot deletion that failed \
                 quietly) or were restored by hand."
            .to_string(),
    };
    let (effect, remedy) = if seen {
        (
            format!(
                "Paimon's readers and expiration trust the hint while snapshot {v} exists and look no \
                 lower, so {hidden} invisible to them: a reader restarting below {v} starts at {v}, \
                 and no expiration removes them"
            ),
            format!(
                "Rewrite snapshot/EARLIEST to {earliest}: readers then see {hidden_again} again (a \
                 consumer below {v} resumes where it stopped, see the consumer findings), and the \
                 next expiration removes them with their files as it should."
            ),
        )
    } else {
        (
            format!("snapshot {v} is not here, so Paimon ignores the hint and lists snapshot/"),
            format!("Nothing to do for readers while snapshot {v} is missing."),
        )
    };
    let mut f = Finding::new(
        Code::HintMismatch,
        Severity::Info,
        format!(
            "EARLIEST says {v} but snapshots from {earliest} are still present: {effect}. {cause}"
        ),
        remedy,
    )
    .snapshot(earliest)
    .files([relative(t, hint)])
    .evidence(format!(
        "EARLIEST = {v}; oldest snapshot file = snapshot-{earliest}"
    ));
    if let Some(b) = source {
        f = f.evidence(format!(
            "branch {} has the same EARLIEST and the same snapshot {v}",
            b.location.branch
        ));
    }
    f
}

/// `hint-mismatch` for a `LATEST` below the newest snapshot file. Paimon trusts the hint only
/// when snapshot `LATEST + 1` does not exist, and lists `snapshot/` otherwise
/// (`SnapshotManager.findLatest`, §1.4). With `LATEST + 1` present the readers see the newest
/// snapshot: a writer that died between its rename and the hint leaves this (one snapshot
/// behind), and so does a rollback to `LATEST` that rewrote the hint and stopped before deleting
/// the newer snapshots (it has not taken effect). With `LATEST + 1` missing and newer snapshots
/// present, readers take `LATEST` as the newest: a rollback that stopped while deleting them
/// (rollback rewrites the hint first; pypaimon deletes the newer snapshots from the lowest).
fn latest_lags(t: &Timeline, hint: &str, v: i64, latest: i64) -> Finding {
    let after = v.saturating_add(1);
    let (message, remedy) = if t.present_ids.contains(&after) {
        let writer = if after == latest {
            format!("a writer published snapshot {after} and died before updating the hint, ")
        } else {
            String::new()
        };
        (
            format!(
                "LATEST says {v} but snapshots up to {latest} exist: {writer}a rollback to {v} \
                 rewrote the hint and stopped before deleting the newer snapshots, the copy raced \
                 {}, or a tool rewrote the hint (pypaimon 2.x's fast_forward copies the branch's \
                 LATEST over main's and leaves main's newer snapshots). Paimon lists snapshot/ \
                 when snapshot {after} exists, so readers see snapshot {latest}.",
                if after == latest {
                    "a commit"
                } else {
                    "commits"
                }
            ),
            format!(
                "If a rollback to {v} ran, it has not taken effect: run it again. Otherwise check \
                 the writer's log around snapshot {after} for a crash and look at the commit's \
                 findings below."
            ),
        )
    } else {
        (
            format!(
                "LATEST says {v}, snapshot {after} is missing and snapshots up to {latest} exist: \
                 Paimon trusts the hint when snapshot {after} does not exist, so readers take \
                 snapshot {v} as the newest and never see the newer ones. A rollback to {v} that \
                 stopped while deleting the newer snapshots leaves this (it rewrites LATEST first)."
            ),
            format!(
                "If a rollback to {v} ran, run it again to finish it (the snapshot-gap finding is \
                 its unfinished deletion; do not restore the deleted snapshots). Otherwise the newer \
                 snapshots are invisible to readers: find out how snapshot {after} went missing."
            ),
        )
    };
    Finding::new(Code::HintMismatch, Severity::Warning, message, remedy)
        .snapshot(after)
        .files([relative(t, hint)])
        .evidence(format!(
            "LATEST = {v}; newest snapshot file = snapshot-{latest}"
        ))
}

/// `hint-mismatch`: EARLIEST/LATEST disagree with the snapshot files present; `others` are the
/// table's other timelines (branches), where a fast-forward copied a hint from.
pub fn hint_mismatches(t: &Timeline, others: &[&Timeline]) -> Vec<Finding> {
    let mut out = Vec::new();
    let (Some(earliest), Some(latest)) = (t.earliest(), t.latest()) else {
        out.extend(latest_without_snapshots(t));
        return out;
    };
    if let Some(h) = t.latest_hint.as_ref() {
        if let Some(v) = h.value {
            if v < latest {
                out.push(latest_lags(t, &h.path, v, latest));
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
                out.push(earliest_hides(t, others, &h.path, v, earliest));
            }
        }
    }
    out
}

/// `schema-temp-file`: a leftover `schema/.schema-<id>.<uuid>.tmp`. `ALTER TABLE` writes the
/// next schema through `FileIO.tryToWriteAtomic` (`SchemaManager.commit`, §1.5): a process that
/// died between the write and the rename leaves the temp file and no `schema-<id>`, so the table
/// still runs under its latest schema and what the ALTER changed is not in effect (a warning,
/// saying what it would have changed). When `schema-<id>` exists, a retried or racing write
/// made it: the temp file is only left over (info).
pub fn schema_temp_files(t: &Timeline) -> Vec<Finding> {
    t.schema_temp_files
        .iter()
        .map(|tmp| {
            let file = relative(t, &tmp.path);
            let evidence = format!("{file} ({} bytes)", tmp.size);
            let id = tmp.id;
            if t.schemas.contains_key(&id) {
                return Finding::new(
                    Code::SchemaTempFile,
                    Severity::Info,
                    format!("{file}: left over from a write of schema {id}, which exists (a retried or racing ALTER TABLE wrote it)."),
                    "Nothing to do; delete the temp file to tidy up.",
                )
                .files([file])
                .evidence(evidence);
            }
            let current = t
                .latest_schema()
                .map_or("the latest schema read".to_string(), |s| {
                    format!("schema {}", s.id)
                });
            let changed = match (&tmp.content, t.latest_schema()) {
                (Some(new), Some(old)) => schema_changes(old, new),
                (Some(_), None) => "no earlier schema is in the artifact to compare it with".into(),
                (None, _) => "its content cannot be read (a write cut short), so what it changed is unknown".into(),
            };
            Finding::new(
                Code::SchemaTempFile,
                Severity::Warning,
                format!("{file}: an ALTER TABLE that did not finish (or was under way when the artifact was captured): schema {id} was written to a temp file and never renamed into place, so the table still runs under {current} and what the ALTER changed is not in effect: {changed}."),
                format!("Run the ALTER TABLE again (it writes schema {id} anew), then delete the temp file; writers and readers never used it."),
            )
            .files([file])
            .evidence(evidence)
        })
        .collect()
}

/// What schema `new` changes from `old`, in words: options set, changed and removed, then the
/// columns; at most six items.
fn schema_changes(
    old: &crate::paimon::schema::TableSchema,
    new: &crate::paimon::schema::TableSchema,
) -> String {
    let mut items: Vec<String> = Vec::new();
    for (k, v) in &new.options {
        match old.options.get(k) {
            None => items.push(format!("set {k} = {v}")),
            Some(was) if was != v => items.push(format!("set {k} = {v} (was {was})")),
            Some(_) => {}
        }
    }
    for k in old.options.keys().filter(|k| !new.options.contains_key(*k)) {
        items.push(format!("remove {k}"));
    }
    for f in &new.fields {
        match old.fields.iter().find(|o| o.id == f.id) {
            None => items.push(format!("add column {} {}", f.name, f.data_type)),
            Some(o) if o.name != f.name => {
                items.push(format!("rename column {} to {}", o.name, f.name))
            }
            Some(o) if o.data_type != f.data_type => {
                items.push(format!("change column {} to {}", f.name, f.data_type))
            }
            Some(_) => {}
        }
    }
    for o in old
        .fields
        .iter()
        .filter(|o| !new.fields.iter().any(|f| f.id == o.id))
    {
        items.push(format!("drop column {}", o.name));
    }
    if items.is_empty() {
        return "it holds the same options and columns as the current schema".into();
    }
    let more = items.len().saturating_sub(6);
    items.truncate(6);
    let mut said = format!("it would {}", items.join(", "));
    if more > 0 {
        said.push_str(&format!(" and {more} more"));
    }
    said
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

/// Severity, message and remedy of a temp snapshot file: harmless when it holds the snapshot
/// published under its id (the rename succeeded) or the commit was re-committed, an error when
/// the writer moved on without it (a non-COMPACT commit's data is not in the table; also when
/// another commit took its id), a warning while it has not recovered.
fn temp_verdict(
    t: &Timeline,
    tmp: &TempSnapshotFile,
    fate: Option<Fate>,
) -> (Severity, String, String) {
    let content = tmp.content.as_ref();
    let what = describe_commit(content);
    if t.present_ids.contains(&tmp.id) {
        // The same snapshot: its rename succeeded. Another one: another commit took the id, and
        // this one's fate is its writer's, below.
        let why = match (content, t.snapshot(tmp.id)) {
            (Some(s), Some(published)) if s == published => {
                Some("it holds that very snapshot: the rename succeeded and the copy lingered")
            }
            (Some(_), Some(_)) => None,
            _ => Some("another commit won the id, or the rename succeeded and the copy lingered"),
        };
        if let Some(why) = why {
            return (
                Severity::Info,
                format!(
                    "A temp file for snapshot {} ({what}) was left behind, but snapshot-{} exists: \
                     {why}.",
                    tmp.id, tmp.id
                ),
                "Harmless; remove_orphan_files deletes it (run it with dry run first).".to_string(),
            );
        }
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
            } else if content.is_some_and(|s| s.commit_identifier == BATCH_COMMIT_IDENTIFIER) {
                "Re-run the batch job that wrote it: a batch commit is not retried. Its files are \
                 still on disk, unreferenced: do not run remove_orphan_files before."
                    .to_string()
            } else {
                "Restart the writer: a Flink writer restored from its last checkpoint re-commits \
                 this identifier (filterCommitted retries identifiers above the user's latest); a \
                 writer without that recovery (pypaimon, paimon-rust) must write these rows again. \
                 Its files are still on disk, unreferenced: do not run remove_orphan_files before."
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
/// the timeline that could not be read or parsed: an error for a snapshot or a schema whose own
/// bytes are malformed, which Paimon's readers need, a warning for a snapshot hint (Paimon lists
/// `snapshot/` instead) and for a long-lived changelog and a tag (the files they keep alive are
/// then unknown, and [`super::Unknowable`] calls no unreferenced file an orphan). A file whose
/// content stays unknown (a damaged copy in the zip, a compression this tool does not decode, a
/// limit) is a warning whatever it is: see [`readers_fail`].
pub fn unreadable_files(t: &Timeline) -> Vec<Finding> {
    let tags = t.tags.iter().filter_map(|tag| {
        let error = tag.tag.as_ref().err()?;
        let f = unreadable(
            relative(t, &tag.path),
            error,
            Severity::Warning,
            "the files this tag keeps cannot be known, so no unreferenced file of the table is called an orphan",
        );
        Some(with_own_remedy(f, error, || format!(
            "Remove the file tag/tag-{name} (delete_tag reads it first and fails on it) and create the tag again (create_tag) on the snapshot it should hold, if that snapshot is retained; nothing else needs repair.",
            name = tag.name
        )))
    });
    t.problems
        .iter()
        .map(|p| {
            let (dir, name) = split_parent(&p.path);
            let (_, last) = split_parent(dir);
            let (severity, consequence) = match last {
                // `HintFileUtils.readHint` returns null for a hint it cannot read or parse, and
                // Paimon then lists the directory (`paimon-format.md` §1.4).
                "snapshot" if name == "EARLIEST" || name == "LATEST" => (
                    Severity::Warning,
                    "Paimon's readers ignore a hint they cannot read and list snapshot/ instead"
                        .to_string(),
                ),
                "snapshot" => readers_fail(
                    &p.error,
                    Severity::Error,
                    "Paimon's readers fail on this snapshot too",
                ),
                "schema" => readers_fail(
                    &p.error,
                    Severity::Error,
                    "Paimon cannot open the table with this schema",
                ),
                "changelog" => readers_fail(
                    &p.error,
                    Severity::Warning,
                    "streaming readers of the long-lived changelog fail here",
                ),
                _ => (Severity::Warning, "the analysis skipped it".to_string()),
            };
            let f = unreadable(relative(t, &p.path), &p.error, severity, consequence);
            match (last, name) {
                ("snapshot", "EARLIEST" | "LATEST") => with_own_remedy(f, &p.error, || {
                    let id = if name == "LATEST" { t.latest() } else { t.earliest() };
                    let id = id.map_or("the right id".to_string(), |id| id.to_string());
                    format!("Rewrite snapshot/{name} with {id} or delete it: Paimon lists snapshot/ without it, and nothing else needs repair.")
                }),
                _ => f,
            }
        })
        .chain(tags)
        .collect()
}

/// `f` with `remedy` when its file's own bytes are malformed (a hint or a tag whose write was cut
/// short: it is repaired by itself); a damaged copy or a limit keeps the remedy that says so.
fn with_own_remedy(mut f: Finding, error: &Error, remedy: impl FnOnce() -> String) -> Finding {
    if error.kind().is_in_content() {
        f.remedy = remedy();
    }
    f
}

/// What a finding about an unreadable file may say of Paimon's own readers: `readers` at
/// `severity` when the error is in the file's own bytes ([`crate::error::ErrorKind::is_in_content`]:
/// any reader of the file finds them malformed), else a warning saying why the content is
/// unknown. A zip entry that fails its CRC, a compression method or codec this tool does not
/// decode, a limit or a failed read are evidence about this copy or this tool, never that the
/// warehouse's file is broken: saying so would be an error without positive evidence.
pub fn readers_fail(error: &Error, severity: Severity, readers: &str) -> (Severity, String) {
    if error.kind().is_in_content() {
        return (severity, readers.to_string());
    }
    let why = match error.kind() {
        ErrorKind::Damaged => "the artifact's copy of it is damaged",
        ErrorKind::Unsupported => "this tool cannot decode it",
        ErrorKind::Limit => "it is larger than the limit this analysis reads",
        _ => "its bytes could not be read",
    };
    (
        severity.min(Severity::Warning),
        format!("{why}, so its content, and whether Paimon's readers can read it, is unknown"),
    )
}

/// What to do about a file that could not be read, by what went wrong.
pub fn unreadable_remedy(error: &Error) -> &'static str {
    match error.kind() {
        ErrorKind::Damaged | ErrorKind::Io => {
            "Re-download the artifact, or re-create it from the warehouse (zip -r), and run the \
             check again: this copy of the file could not be extracted intact."
        }
        ErrorKind::Unsupported => {
            "Re-create the artifact with a compression this tool reads (zip -r uses deflate) and \
             run the check again; if the file itself uses a format the tool does not decode, \
             check it with Paimon's own readers."
        }
        ErrorKind::Limit => {
            "Raise the limit named in the evidence (on the CLI: --limit NAME=VALUE) and run the \
             check again."
        }
        ErrorKind::Format | ErrorKind::Missing => {
            "Check whether the artifact was truncated or damaged in transfer (re-download it); if \
             the file is damaged in the warehouse itself, restore it from a backup or roll the \
             table back to a snapshot before it (rollback_to, after a dry run on a copy)."
        }
    }
}

/// An `unreadable-file` finding.
pub fn unreadable(
    file: String,
    error: &Error,
    severity: Severity,
    consequence: impl AsRef<str>,
) -> Finding {
    Finding::new(
        Code::UnreadableFile,
        severity,
        format!(
            "{file} could not be read: {}; {}.",
            error.problem(),
            consequence.as_ref()
        ),
        unreadable_remedy(error),
    )
    .files([file])
    .evidence(format!("{} ({})", error, error.kind().as_str()))
}

/// A finding for a part of the artifact that could not be opened (a broken nested zip, a hostile
/// name).
pub fn unreadable_artifact_part(error: &Error) -> Finding {
    let file = error.file().unwrap_or("(artifact)").to_string();
    Finding::new(
        Code::UnreadableFile,
        Severity::Warning,
        format!("{file}: {}; it was skipped and the rest of the artifact analysed.", error.problem()),
        "If this part matters, re-create the artifact (zip -r) and check that the upload completed; \
         limits can be raised on the CLI with --limit NAME=VALUE.",
    )
    .files([file])
    .evidence(error.to_string())
}

/// The finding for a zip whose entries were recovered from their local headers
/// ([`Salvaged`]): an `artifact-incomplete` warning when some were lost (a truncated
/// download), an info when every entry came back. `artifact` names the only input.
pub fn salvaged_zip(s: &Salvaged, artifact: &str) -> Finding {
    let zip = s.why.file().unwrap_or(artifact).to_string();
    let why = s.why.problem();
    let f = if s.whole {
        Finding::new(
            Code::UnreadableFile,
            Severity::Info,
            format!("{zip}: the zip's central directory is damaged or missing, but every entry was recovered (from its local header where the directory failed), so nothing is missing from the analysis (each entry is still checked against its size and CRC when read)."),
            "Nothing to do for this analysis; re-create the zip (zip -r) if other tools refuse it.",
        )
    } else {
        Finding::new(
            Code::ArtifactIncomplete,
            Severity::Warning,
            format!("{zip}: the zip is cut short or damaged, and some of its entries could not be recovered, so a file missing from the artifact may only be missing from this copy: findings that rest on a file's absence are unconfirmed (warnings, not errors), and unreferenced files are not reported."),
            "Download or re-create the artifact again, check that its size matches the source (a CI artifact's upload step reports it), and run the check on the whole zip.",
        )
    };
    f.files([zip]).evidence(why)
}

/// Makes `findings`, judged on a listing that lacks entries of the salvaged zip `s` (see
/// [`salvaged_zip`]), say only what the artifact shows: each error but an unreadable file's
/// (present, malformed bytes are positive evidence) rests on something not being in the
/// artifact (a snapshot, a file, a consumer's position beyond the last snapshot), so it
/// becomes an unconfirmed warning; warnings say that what they find missing may be past the
/// cut; an unreferenced file may be referenced by a snapshot past the cut, so orphan findings
/// are dropped.
pub fn unconfirmed(findings: &mut Vec<Finding>, s: &Salvaged, artifact: &str) {
    let zip = s.why.file().unwrap_or(artifact);
    findings.retain(|f| f.code != Code::OrphanFile);
    for f in findings.iter_mut() {
        let about_absence = match f.code {
            Code::UnreadableFile | Code::ArtifactIncomplete => false,
            _ => f.severity != Severity::Info,
        };
        if !about_absence {
            continue;
        }
        if f.severity == Severity::Error {
            f.severity = Severity::Warning;
            f.message = format!("Unconfirmed, the artifact being incomplete: {}", f.message);
        }
        f.evidence.push(format!(
            "{zip} lacks entries it held (see the artifact-incomplete finding): what this finding says is not in the artifact may be among them"
        ));
    }
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

/// `artifact-incomplete` for each schema that readable snapshots name but that was not read
/// (its file absent from the artifact, or unreadable): Paimon's readers load a snapshot's schema
/// by id and fail without it, and when the newest snapshots name a schema newer than every one
/// read, the table's current options are unknown, so the checks that rest on them (lost and
/// pending changelog, producer changes, risky options, consumer expiration) are not made
/// (`paimon-format.md` §1.5). A warning: the artifact cannot tell a capture that missed the
/// file from a table that lost it.
pub fn unread_schema(t: &Timeline) -> Vec<Finding> {
    let unread = t.unread_schemas();
    let options_known = t.options_known();
    unread
        .into_iter()
        .map(|(schema, ids)| {
            let file = format!("schema/schema-{schema}");
            let unreadable = t
                .problems
                .iter()
                .any(|p| relative(t, &p.path) == file);
            let state = if unreadable {
                "could not be read (see its unreadable-file finding)"
            } else {
                "is not in the artifact"
            };
            let ids_text = crate::checks::producer::id_ranges(&ids);
            let mut message = format!(
                "Snapshot{} {ids_text} {} written under schema {schema}, but {file} {state}: Paimon's readers load a snapshot's schema by id and fail without it.",
                if ids.len() == 1 { "" } else { "s" },
                if ids.len() == 1 { "was" } else { "were" },
            );
            if !options_known {
                message.push_str(
                    " The table's current options are unknown, so whether its commits lost or still owe changelog, changes of changelog-producer, risky options and consumer expiration were not judged.",
                );
            }
            let first = ids.first().copied().unwrap_or(0);
            Finding::new(
                Code::ArtifactIncomplete,
                Severity::Warning,
                message,
                "Check whether the artifact holds the whole table directory (schema/ with every schema-<id>); if the warehouse itself lacks the file, restore it from a backup: Paimon cannot read these snapshots without it.",
            )
            .snapshot(first)
            .related(ids.iter().copied())
            .files([file])
        })
        .collect()
}

/// `branch-incomplete`: a branch holding tags and no schema, and no snapshot but copies of its
/// tags' snapshots, which Paimon cannot open (`paimon-format.md` §5.6). `createBranch` from a
/// tag copies the tag, then the tagged snapshot, then the schemas, and stops where a copy fails:
/// with tags alone the snapshot copy failed (its snapshot expired); with the tagged snapshot
/// too, the schema copy.
pub fn half_created_branch(t: &Timeline) -> Option<Finding> {
    let copy_of_a_tag = |id: &i64| {
        t.snapshot(*id).is_some_and(|s| {
            t.tags
                .iter()
                .any(|tag| tag.tag.as_ref().is_ok_and(|tag| &tag.snapshot == s))
        })
    };
    if t.location.branch == crate::warehouse::MAIN_BRANCH
        || !t.schemas.is_empty()
        || t.tags.is_empty()
        || !t.present_ids.iter().all(copy_of_a_tag)
    {
        return None;
    }
    let tags: Vec<&str> = t.tags.iter().map(|tag| tag.name.as_str()).collect();
    let branch = &t.location.branch;
    let (holds, stopped, evidence) = if t.present_ids.is_empty() {
        (
            "but no schema and no snapshot",
            "createBranch from a tag copies the tag first, then the tagged snapshot and the schemas, and stops there when a copy fails (the tagged snapshot has expired; pypaimon 1.4's create_branch fails copying it onto itself on a filesystem catalog); or the capture missed the branch's schema/ and snapshot/",
            "tag/ only".to_string(),
        )
    } else {
        (
            "and a copy of its snapshot but no schema",
            "createBranch from a tag copies the tag, then the tagged snapshot, then the schemas, and stopped before the schema copy; or the capture missed the branch's schema/",
            format!(
                "tag/ and snapshot/ ({}) only, the snapshot equal to the tag's; no schema/",
                t.present_ids
                    .iter()
                    .map(|id| format!("snapshot-{id}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    Some(
        Finding::new(
            Code::BranchIncomplete,
            Severity::Info,
            format!(
                "branch {branch} holds tag{} {} {holds}, so Paimon cannot open it: a half-created branch. {stopped}.",
                if tags.len() == 1 { "" } else { "s" },
                tags.join(", ")
            ),
            format!(
                "Nothing reads it. delete_branch '{branch}' removes it (dry run on a copy first); to have the branch, create it again from a snapshot or a tag whose snapshot is retained."
            ),
        )
        .evidence(format!("{}: {evidence}", relative(t, &t.location.meta_root))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::files::{GhostCommit, Orphan, OrphanKind};
    use crate::timeline::testkit::{timeline_with_files, timelines_with_files};

    #[test]
    fn only_an_error_in_the_content_says_readers_fail() {
        let readers = "Paimon's readers fail too";
        let cases = [
            (Error::format("bad JSON"), Severity::Error, readers),
            (Error::missing("no field id"), Severity::Error, readers),
            (
                Error::format("CRC mismatch").in_copy(),
                Severity::Warning,
                "the artifact's copy of it is damaged, so",
            ),
            (
                Error::unsupported("method 98"),
                Severity::Warning,
                "this tool cannot decode it, so",
            ),
            (
                Error::limit("max-json-bytes", "80 MiB"),
                Severity::Warning,
                "larger than the limit",
            ),
            (
                Error::io("short read"),
                Severity::Warning,
                "its bytes could not be read, so",
            ),
        ];
        for (error, severity, says) in cases {
            let (got, text) = readers_fail(&error, Severity::Error, readers);
            assert_eq!(
                (got, text.contains(says)),
                (severity, true),
                "{error}: {text}"
            );
            assert_eq!(
                readers_fail(&error, Severity::Info, readers).0,
                Severity::Info
            );
            let remedy = unreadable_remedy(&error);
            assert_eq!(
                remedy.contains("roll the table back"),
                error.kind().is_in_content(),
                "{remedy}"
            );
        }
    }

    /// Snapshots 3..=5 of writer `w`, with the given extra files (path under `db.db/t/`).
    fn three_snapshots(raw: &[(&str, &str)]) -> Timeline {
        let snapshots: Vec<(i64, &str, &str, i64, i64)> = (3..=5)
            .map(|id| (id, "APPEND", "w", id, id * 1000))
            .collect();
        timeline_with_files(&[], &snapshots, &[], raw)
    }

    /// (severity, snapshot, message) of each finding.
    fn shown(findings: &[Finding]) -> Vec<(Severity, Option<i64>, &str)> {
        findings
            .iter()
            .map(|f| (f.severity, f.snapshot, f.message.as_str()))
            .collect()
    }

    #[test]
    fn hints_that_agree_with_the_snapshots_are_no_finding() {
        let t = three_snapshots(&[("snapshot/EARLIEST", "3"), ("snapshot/LATEST", "5")]);
        assert!(hint_mismatches(&t, &[]).is_empty());
    }

    #[test]
    fn a_latest_hint_below_or_beyond_the_newest_snapshot_is_a_warning() {
        let t = three_snapshots(&[("snapshot/LATEST", "4")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].snapshot, Some(5));
        assert!(f[0]
            .message
            .starts_with("LATEST says 4 but snapshots up to 5 exist"));
        assert_eq!(
            f[0].evidence,
            ["LATEST = 4; newest snapshot file = snapshot-5"]
        );

        let t = three_snapshots(&[("snapshot/LATEST", "7")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(
            shown(&f),
            [(
                Severity::Warning,
                Some(5),
                "LATEST says 7 but the newest snapshot is 5: snapshots were removed after the \
                 hint was written (rollback, manual deletion, or a partial copy)."
            )]
        );
        assert_eq!(f[0].files, ["snapshot/LATEST"]);
        assert_eq!(
            f[0].evidence,
            ["LATEST = 7; newest snapshot file = snapshot-5"]
        );
    }

    #[test]
    fn a_lagging_latest_names_a_rollback_that_stopped_and_what_readers_see() {
        // 3..5 present, LATEST 3: snapshot 4 exists, readers list snapshot/ and see 5; a
        // rollback to 3 has not taken effect.
        let t = three_snapshots(&[("snapshot/LATEST", "3")]);
        let f = hint_mismatches(&t, &[]);
        assert!(
            f[0].message
                .contains("a rollback to 3 rewrote the hint and stopped before deleting")
                && f[0].message.ends_with("so readers see snapshot 5.")
                && !f[0].message.contains("died before updating the hint"),
            "{}",
            f[0].message
        );
        assert!(f[0]
            .remedy
            .starts_with("If a rollback to 3 ran, it has not taken effect"));
        // 1, 2, 4 present, LATEST 2: snapshot 3 is missing, so Paimon trusts the hint.
        let snaps: Vec<(i64, &str, &str, i64, i64)> = [1, 2, 4]
            .into_iter()
            .map(|id| (id, "APPEND", "w", id, id * 1000))
            .collect();
        let t = timeline_with_files(&[], &snaps, &[], &[("snapshot/LATEST", "2")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message
                .starts_with("LATEST says 2, snapshot 3 is missing and snapshots up to 4 exist")
                && f[0]
                    .message
                    .contains("readers take snapshot 2 as the newest"),
            "{}",
            f[0].message
        );
        let gap = snapshot_gaps(&t);
        assert!(
            gap[0]
                .remedy
                .starts_with("LATEST says 2, just below the hole: a rollback to 2"),
            "{}",
            gap[0].remedy
        );
        // Without the hint there, the gap's remedy names the other causes.
        let t = timeline_with_files(&[], &snaps, &[], &[]);
        assert!(snapshot_gaps(&t)[0].remedy.contains("fast-forward"));
    }

    #[test]
    fn a_torn_hint_or_tag_is_repaired_by_itself_not_by_a_rollback() {
        let tag = snapshot_json(4, "APPEND", "w", 4);
        let t = three_snapshots(&[("snapshot/LATEST", ""), ("tag/tag-t3", &tag[..40])]);
        let f = unreadable_files(&t);
        let remedy = |file: &str| {
            f.iter()
                .find(|f| f.files == [file])
                .map(|f| f.remedy.clone())
                .unwrap()
        };
        assert_eq!(
            remedy("snapshot/LATEST"),
            "Rewrite snapshot/LATEST with 5 or delete it: Paimon lists snapshot/ without it, and nothing else needs repair."
        );
        assert!(remedy("tag/tag-t3").starts_with("Remove the file tag/tag-t3"));
        // A schema keeps the general remedy.
        let t = three_snapshots(&[("schema/schema-1", "{")]);
        assert!(unreadable_files(&t)[0]
            .remedy
            .contains("roll the table back"));
    }

    #[test]
    fn an_earliest_hint_below_the_oldest_snapshot_is_a_warning_above_it_info() {
        let t = three_snapshots(&[("snapshot/EARLIEST", "1")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].severity, f[0].snapshot), (Severity::Warning, Some(3)));
        assert!(f[0]
            .message
            .starts_with("EARLIEST says 1 but the oldest snapshot is 3"));

        let t = three_snapshots(&[("snapshot/EARLIEST", "4")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(
            shown(&f),
            [(
                Severity::Info,
                Some(3),
                "EARLIEST says 4 but snapshots from 3 are still present: Paimon's readers and \
                 expiration trust the hint while snapshot 4 exists and look no lower, so \
                 snapshot 3 is invisible to them: a reader restarting below 4 starts at 4, \
                 and no expiration removes them. The older snapshots outlived an expiration (a \
                 snapshot deletion that failed quietly) or were restored by hand."
            )]
        );
        assert_eq!(f[0].files, ["snapshot/EARLIEST"]);
        assert_eq!(
            f[0].evidence,
            ["EARLIEST = 4; oldest snapshot file = snapshot-3"]
        );
        assert!(
            f[0].remedy.starts_with("Rewrite snapshot/EARLIEST to 3"),
            "{}",
            f[0].remedy
        );

        // A hint naming a snapshot that is not here is ignored: Paimon lists snapshot/.
        let t = three_snapshots(&[("snapshot/EARLIEST", "9")]);
        let f = hint_mismatches(&t, &[]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message
                .contains("snapshot 9 is not here, so Paimon ignores the hint"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_schema_temp_file_says_what_its_alter_would_have_changed_or_that_it_is_left_over() {
        let schema = |id: i64, fields: &str, options: &str| {
            format!(
                r#"{{"version": 3, "id": {id}, "fields": [{fields}], "partitionKeys": [], "primaryKeys": ["k"], "options": {{{options}}}}}"#
            )
        };
        let k = r#"{"id": 0, "name": "k", "type": "INT NOT NULL"}"#;
        let v = r#"{"id": 1, "name": "v", "type": "INT"}"#;
        let v2 = r#"{"id": 1, "name": "v2", "type": "INT"}"#;
        let w = r#"{"id": 2, "name": "w", "type": "STRING"}"#;
        let findings = |raw: &[(&str, &str)]| {
            let t = timeline_with_files(&[], &[(1, "APPEND", "w", 1, 1000)], &[], raw);
            schema_temp_files(&t)
        };
        // The test kit's schema 0 holds column k alone, no option.
        let s1 = schema(
            1,
            &format!("{k}, {v}, {w}"),
            r#""changelog-producer": "lookup""#,
        );
        let f = findings(&[(
            "schema/.schema-1.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
            &s1,
        )]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            f[0].message.ends_with(
                "the table still runs under schema 0 and what the ALTER changed is not in effect: it would set changelog-producer = lookup, add column v INT, add column w STRING."
            ),
            "{}",
            f[0].message
        );
        assert_eq!(
            f[0].files,
            ["schema/.schema-1.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp"]
        );
        // Against schema 1 (v, option lookup), schema 2 renames v, drops w and the option.
        let s2 = schema(2, &format!("{k}, {v2}"), "");
        let f = findings(&[
            ("schema/schema-1", &s1),
            (
                "schema/.schema-2.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                &s2,
            ),
        ]);
        assert!(
            f[0].message.ends_with(
                "runs under schema 1 and what the ALTER changed is not in effect: it would remove changelog-producer, rename column v to v2, drop column w."
            ),
            "{}",
            f[0].message
        );
        // A changed option and a changed column type; past six changes, the rest are counted.
        let v_big = r#"{"id": 1, "name": "v", "type": "BIGINT"}"#;
        let s3 = schema(
            2,
            &format!("{k}, {v_big}, {w}"),
            r#""changelog-producer": "input", "a": "1", "b": "1", "c": "1", "d": "1", "e": "1""#,
        );
        let f = findings(&[
            ("schema/schema-1", &s1),
            (
                "schema/.schema-2.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                &s3,
            ),
        ]);
        assert!(
            f[0].message.ends_with(
                "it would set a = 1, set b = 1, set c = 1, set changelog-producer = input (was lookup), set d = 1, set e = 1 and 1 more."
            ),
            "{}",
            f[0].message
        );
        let s4 = schema(
            2,
            &format!("{k}, {v_big}, {w}"),
            r#""changelog-producer": "lookup""#,
        );
        let f = findings(&[
            ("schema/schema-1", &s1),
            (
                "schema/.schema-2.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                &s4,
            ),
        ]);
        assert!(
            f[0].message
                .ends_with("it would change column v to BIGINT."),
            "{}",
            f[0].message
        );
        // schema-1 exists: the temp file is only left over.
        let f = findings(&[
            ("schema/schema-1", &s1),
            (
                "schema/.schema-1.4f1c2a77-0d7e-4c6b-9a34-2b0f1f2e5a11.tmp",
                &s1,
            ),
        ]);
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].message.contains("which exists"), "{}", f[0].message);
        // Not a temp file.
        assert!(findings(&[("schema/schema-1.bak", &s1)]).is_empty());
    }

    #[test]
    fn an_earliest_hint_a_branch_shares_with_the_same_snapshot_is_put_down_to_a_fast_forward() {
        let snapshots: Vec<(i64, &str, &str, i64, i64)> = (3..=5)
            .map(|id| (id, "APPEND", "w", id, id * 1000))
            .collect();
        let branch = |body: &str| {
            let ts = timelines_with_files(
                &[],
                &snapshots,
                &[],
                &[
                    ("snapshot/EARLIEST", "4"),
                    ("branch/branch-b/snapshot/EARLIEST", "4"),
                    ("branch/branch-b/snapshot/snapshot-4", body),
                ],
            );
            let others: Vec<&Timeline> = ts.iter().collect();
            let f = hint_mismatches(&ts[0], &others);
            assert_eq!(f.len(), 1, "{f:?}");
            f[0].clone()
        };
        let f = branch(&snapshot_json(4, "APPEND", "w", 4));
        assert!(
            f.message.ends_with("A fast-forward from branch b left this: fastForward copies the branch's snapshot directory, its EARLIEST included, over main's, and keeps main's snapshots below the branch's first."),
            "{}",
            f.message
        );
        assert_eq!(
            f.evidence.last().map(String::as_str),
            Some("branch b has the same EARLIEST and the same snapshot 4")
        );
        // Another snapshot 4 on the branch: no fast-forward shown.
        let f = branch(&snapshot_json(4, "APPEND", "other", 4));
        assert!(
            f.message.ends_with("or were restored by hand."),
            "{}",
            f.message
        );
        assert_eq!(f.evidence.len(), 1);
    }

    /// A snapshot document of `user`'s commit `identifier` of `kind`, as snapshot `id` (what a
    /// temp file holds).
    fn snapshot_json(id: i64, kind: &str, user: &str, identifier: i64) -> String {
        format!(
            r#"{{"version": 3, "id": {id}, "schemaId": 0, "baseManifestList": "b-{id}", "deltaManifestList": "d-{id}", "commitUser": "{user}", "commitIdentifier": {identifier}, "commitKind": "{kind}", "timeMillis": {id}000, "deltaRecordCount": 1}}"#
        )
    }

    /// The temp-file findings of a table with `snapshots` and one temp file for snapshot 2
    /// holding `content` (the path `snapshot/.snapshot-2.u.tmp`).
    fn temp_findings(snapshots: &[(i64, &str, &str, i64, i64)], content: &str) -> Vec<Finding> {
        let t = timeline_with_files(
            &[],
            snapshots,
            &[],
            &[("snapshot/.snapshot-2.u.tmp", content)],
        );
        assert_eq!(t.temp_files.len(), 1);
        let (findings, explained) = temp_files(&t, None);
        assert!(explained.is_empty());
        findings
    }

    /// (severity, related snapshots, message) of the one finding.
    fn verdict(findings: &[Finding]) -> (Severity, Vec<i64>, String) {
        assert_eq!(findings.len(), 1, "{findings:?}");
        let f = &findings[0];
        assert_eq!(f.code, Code::SnapshotTempFile);
        assert_eq!(f.snapshot, Some(2));
        assert_eq!(f.files, ["snapshot/.snapshot-2.u.tmp"]);
        (f.severity, f.related_snapshots.clone(), f.message.clone())
    }

    #[test]
    fn a_temp_file_whose_id_another_commit_took_is_judged_by_its_writers_fate() {
        let snapshots = [(1, "APPEND", "w", 1, 1000), (2, "APPEND", "w", 6, 2000)];
        // Identifier 2 was written for id 2; the restarted writer took id 2 for identifier 6.
        let f = temp_findings(&snapshots, &snapshot_json(2, "APPEND", "w", 2));
        assert_eq!(f[0].severity, Severity::Error, "{f:?}");
        assert!(
            f[0].message
                .contains("moved on to identifier 6 (snapshot 2)"),
            "{}",
            f[0].message
        );
        // The very snapshot published under that id: the rename succeeded.
        let same = [(1, "APPEND", "w", 1, 1000), (2, "APPEND", "w", 2, 2000)];
        let f = temp_findings(&same, &snapshot_json(2, "APPEND", "w", 2));
        assert_eq!(f[0].severity, Severity::Info);
        assert!(
            f[0].message
                .contains("the rename succeeded and the copy lingered"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_temp_snapshot_is_recommitted_only_by_its_users_same_identifier_and_kind() {
        // Writer w's APPEND for identifier 2 stayed a temp file for snapshot 2; user v committed
        // identifier 2 as snapshot 3, w a COMPACT for identifier 2 as snapshot 4, then the
        // APPEND again as snapshot 5.
        let snapshots = [
            (1, "APPEND", "w", 1, 1000),
            (3, "APPEND", "v", 2, 3000),
            (4, "COMPACT", "w", 2, 4000),
            (5, "APPEND", "w", 2, 5000),
        ];
        let f = temp_findings(&snapshots, &snapshot_json(2, "APPEND", "w", 2));
        assert_eq!(
            verdict(&f),
            (
                Severity::Info,
                vec![5],
                "Snapshot 2 was written to a temp file (an APPEND of user w for identifier 2) but \
                 never renamed into place; the writer recovered and committed the same identifier \
                 as snapshot 5."
                    .to_string()
            )
        );
        assert_eq!(
            (f[0].commit_user.as_deref(), f[0].commit_identifier),
            (Some("w"), Some(2))
        );
    }

    #[test]
    fn a_writer_that_moved_on_without_the_temp_snapshots_commit_lost_it() {
        // Writer w committed identifier 3 as snapshot 4 (after v's snapshot 3) without
        // identifier 2.
        let snapshots = [
            (1, "APPEND", "w", 1, 1000),
            (3, "APPEND", "v", 2, 3000),
            (4, "APPEND", "w", 3, 4000),
        ];
        let f = temp_findings(&snapshots, &snapshot_json(2, "APPEND", "w", 2));
        assert_eq!(
            verdict(&f),
            (
                Severity::Error,
                vec![4],
                "Snapshot 2 was written to a temp file (an APPEND of user w for identifier 2) but \
                 never renamed into place, and the writer moved on to identifier 3 (snapshot 4) \
                 without committing it: that commit's data is not in the table."
                    .to_string()
            )
        );
        // A COMPACT skipped is no data lost: a warning, pointing at the lost-changelog finding.
        let f = temp_findings(&snapshots, &snapshot_json(2, "COMPACT", "w", 2));
        let (severity, related, message) = verdict(&f);
        assert_eq!((severity, related), (Severity::Warning, vec![4]));
        assert!(
            message.ends_with(
                "so that commit is not durable (a COMPACT: see the lost-changelog findings)."
            ),
            "{message}"
        );
    }

    #[test]
    fn a_temp_snapshot_whose_writer_committed_nothing_since_has_not_recovered() {
        let snapshots = [(1, "APPEND", "w", 1, 1000), (3, "APPEND", "v", 2, 3000)];
        let f = temp_findings(&snapshots, &snapshot_json(2, "APPEND", "w", 2));
        assert_eq!(
            verdict(&f),
            (
                Severity::Warning,
                vec![],
                "Snapshot 2 was written to a temp file (an APPEND of user w for identifier 2) but \
                 never renamed into place: the writer died while publishing, so that commit is not \
                 durable; it has not recovered since (no later snapshot of that user)."
                    .to_string()
            )
        );
    }

    /// The table's files that could not be read (path under `db.db/t/`, content): snapshot 4,
    /// schema 1, long-lived changelog 1 and both snapshot hints.
    #[test]
    fn each_unreadable_file_says_what_paimon_does_with_it() {
        let t = timeline_with_files(
            &[],
            &[(3, "APPEND", "w", 3, 3000), (5, "APPEND", "w", 5, 5000)],
            &[],
            &[
                ("snapshot/snapshot-4", "{\"id\": 4, "),
                ("snapshot/LATEST", "five"),
                ("snapshot/EARLIEST", ""),
                ("schema/schema-1", "not json"),
                ("changelog/changelog-1", "[]"),
            ],
        );
        let f = unreadable_files(&t);
        let shown: Vec<(&str, Severity, &str)> = f
            .iter()
            .map(|f| {
                assert_eq!(f.code, Code::UnreadableFile);
                let consequence = f.message.rsplit("; ").next().unwrap_or_default();
                (f.files[0].as_str(), f.severity, consequence)
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "changelog/changelog-1",
                    Severity::Warning,
                    "streaming readers of the long-lived changelog fail here."
                ),
                (
                    "schema/schema-1",
                    Severity::Error,
                    "Paimon cannot open the table with this schema."
                ),
                (
                    "snapshot/EARLIEST",
                    Severity::Warning,
                    "Paimon's readers ignore a hint they cannot read and list snapshot/ instead."
                ),
                (
                    "snapshot/LATEST",
                    Severity::Warning,
                    "Paimon's readers ignore a hint they cannot read and list snapshot/ instead."
                ),
                (
                    "snapshot/snapshot-4",
                    Severity::Error,
                    "Paimon's readers fail on this snapshot too."
                ),
            ]
        );
        assert!(f[4]
            .message
            .starts_with("snapshot/snapshot-4 could not be read: "));
    }

    #[test]
    fn a_lost_batch_commit_is_run_again_a_checkpoint_is_restored() {
        let snaps = [(1, "APPEND", "w", 1, 1_000)];
        let remedy = |identifier: i64| {
            let f = temp_findings(&snaps, &snapshot_json(2, "APPEND", "w", identifier));
            assert_eq!(f[0].severity, Severity::Warning);
            f[0].remedy.clone()
        };
        assert!(
            remedy(i64::MAX).starts_with("Re-run the batch job"),
            "{}",
            remedy(i64::MAX)
        );
        assert!(
            remedy(7).starts_with("Restart the writer: a Flink writer"),
            "{}",
            remedy(7)
        );
    }

    #[test]
    fn a_temp_snapshot_explains_the_orphans_its_own_manifest_lists_add() {
        // The temp file's snapshot 2 names the lists b-2 and d-2; the ghost commit of d-2 adds
        // data-a (an orphan) and data-c (not in the artifact) and deletes data-old; another
        // ghost commit (list d-9) adds data-b.
        let t = timeline_with_files(
            &[],
            &[(1, "APPEND", "w", 1, 1000)],
            &[],
            &[(
                "snapshot/.snapshot-2.u.tmp",
                &snapshot_json(2, "APPEND", "w", 2),
            )],
        );
        let root = RootFiles {
            orphans: vec![
                Orphan::for_test("bucket-0/data-b.parquet", OrphanKind::Data),
                Orphan::for_test("bucket-0/data-old.parquet", OrphanKind::Data),
                Orphan::for_test("bucket-0/data-a.parquet", OrphanKind::Data),
                Orphan::for_test("manifest/d-2", OrphanKind::ManifestList),
                Orphan::for_test("manifest/m-2", OrphanKind::Manifest),
            ],
            ..RootFiles::default()
        }
        .with_ghosts_for_test(vec![
            GhostCommit::for_test("d-9", "m-9", &[(FileKind::Add, "data-b.parquet")]),
            GhostCommit::for_test(
                "d-2",
                "m-2",
                &[
                    (FileKind::Add, "data-a.parquet"),
                    (FileKind::Add, "data-c.parquet"),
                    (FileKind::Delete, "data-old.parquet"),
                ],
            ),
        ]);
        let (f, explained) = temp_files(&t, Some(&root));
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].evidence[1..],
            ["its manifest lists add 1 file that nothing references now: bucket-0/data-a.parquet"]
        );
        let mut explained: Vec<String> = explained.into_iter().collect();
        explained.sort();
        assert_eq!(
            explained,
            ["bucket-0/data-a.parquet", "manifest/d-2", "manifest/m-2"]
        );
    }

    #[test]
    fn only_a_branch_with_tags_no_schema_and_no_snapshot_but_their_copies_is_half_created() {
        let tag = snapshot_json(1, "APPEND", "w", 1);
        let branch = |files: &[(&str, &str)]| {
            let raw: Vec<(String, &str)> = files
                .iter()
                .map(|(p, body)| (format!("branch/branch-b/{p}"), *body))
                .collect();
            let raw: Vec<(&str, &str)> = raw.iter().map(|(p, b)| (p.as_str(), *b)).collect();
            let timelines = timelines_with_files(&[], &[], &[], &raw);
            assert_eq!(timelines.len(), 2, "main and branch b");
            half_created_branch(&timelines[1])
        };
        let f = branch(&[("tag/tag-t1", &tag), ("tag/tag-t2", &tag)]).expect("half created");
        assert_eq!(
            (f.code, f.severity),
            (Code::BranchIncomplete, Severity::Info)
        );
        assert!(
            f.message
                .starts_with("branch b holds tags t1, t2 but no schema and no snapshot"),
            "{}",
            f.message
        );
        assert_eq!(f.evidence, ["branch/branch-b: tag/ only"]);
        let schema = r#"{"version": 3, "id": 0, "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}], "partitionKeys": [], "primaryKeys": ["k"], "options": {}}"#;
        assert!(branch(&[("tag/tag-t1", &tag), ("schema/schema-0", schema)]).is_none());
        // The tagged snapshot copied too, then no schema: createBranch stopped before the
        // schema copy.
        let f = branch(&[("tag/tag-t1", &tag), ("snapshot/snapshot-1", &tag)]).expect("half");
        assert!(
            f.message
                .starts_with("branch b holds tag t1 and a copy of its snapshot but no schema"),
            "{}",
            f.message
        );
        // A snapshot of its own is a branch that was used, whatever its schema.
        let own = snapshot_json(2, "APPEND", "w", 2);
        assert!(branch(&[("tag/tag-t1", &tag), ("snapshot/snapshot-2", &own)]).is_none());
        // A branch with only a schema is a branch without snapshots, not a half-created one.
        assert!(branch(&[("schema/schema-0", schema)]).is_none());
        // The main branch with tags only is no branch at all.
        let main = timeline_with_files(&[], &[], &[], &[("tag/tag-t1", &tag)]);
        assert!(half_created_branch(&main).is_none());
    }
}
