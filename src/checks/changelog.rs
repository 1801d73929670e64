//! Lost changelog: did a commit's changelog never become durable?
//!
//! Paimon commits one checkpoint as an APPEND snapshot and then, if the writers compacted, a
//! COMPACT snapshot with the same `commitUser` + `commitIdentifier` (`paimon-format.md` §4.2).
//! With `changelog-producer` = `lookup` or `full-compaction` the changelog lives in the COMPACT
//! half (§4.3). If the process dies, or the COMPACT fails its conflict check, after the APPEND is
//! durable, recovery (`filterCommitted`) drops the whole committable because the identifier is
//! already present (§4.5): the batch view is right, but the changelog files are never committed
//! and stay on disk unreferenced, and streaming readers never receive those changes.
//!
//! An APPEND without a COMPACT is often healthy (compaction every N commits, `lookup-wait=false`,
//! write-only writers with a separate compaction job), so absence alone proves nothing. A
//! `lost-changelog` finding needs positive evidence tying files to that commit:
//!
//! 1. changelog files in the bucket directories the APPEND wrote to that no snapshot, tag or
//!    long-lived changelog references, written by the same writer instance (the UUID in
//!    `changelog-<uuid>-<n>` equals the APPEND's `data-<uuid>-<n>`) or within the commit's time
//!    window (after the writer's previous commit, before its next);
//! 2. a "ghost commit": orphan manifest lists of the same committer that describe the unpublished
//!    COMPACT (its DELETE of the APPEND's level-0 files, its changelog files);
//! 3. a `.snapshot-N.<uuid>.tmp` holding the COMPACT of that identifier.
//!
//! Without such evidence, level-0 files of the APPEND that no later snapshot compacted are
//! `pending-changelog`: the changelog has not been produced yet (a warning when the writer's last
//! commit was that APPEND, i.e. nobody is left to compact them). The finding also says whether a
//! later compaction of the same bucket produced changelog again (partial loss: the intermediate
//! versions are gone) or nothing did.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::findings::{Clock, Code, Finding, Severity};
use crate::paimon::snapshot::{CommitKind, Snapshot};
use crate::source::FileTime;
use crate::timeline::files::{
    entry_dir, writer_uuid, BranchFiles, EntryRef, Orphan, OrphanKind, RootFiles,
};
use crate::timeline::groups::CommitGroup;
use crate::timeline::Timeline;

/// Zip times have 2-second precision; a file written "at" a commit may carry a time up to this
/// much before or after it.
const TIME_TOLERANCE_MS: i64 = 2_000;

/// A commit whose changelog was lost: its APPEND snapshot is durable, its COMPACT half (which
/// carried the changelog) never was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostChangelog {
    /// The durable APPEND snapshot.
    pub snapshot: i64,
    /// Its commit user.
    pub commit_user: String,
    /// Its commit identifier.
    pub commit_identifier: i64,
    /// The orphan files attributed to the lost COMPACT (relative to the table root).
    pub files: Vec<String>,
}

/// What the lost-changelog check found.
#[derive(Debug, Default)]
pub struct ChangelogFindings {
    /// Commits whose changelog was lost.
    pub lost: Vec<LostChangelog>,
    /// `lost-changelog`, `pending-changelog` and `artifact-incomplete` findings.
    pub findings: Vec<Finding>,
    /// Orphans (relative paths) explained by a lost commit, so the orphan check does not report
    /// them again.
    pub explained: HashSet<String>,
}

/// A temp snapshot file's content, for evidence 3.
pub struct TempSnapshot<'a> {
    /// Path relative to the table root.
    pub path: String,
    /// The snapshot it holds.
    pub snapshot: &'a Snapshot,
}

/// Runs the check over one timeline.
pub fn check(
    t: &Timeline,
    groups: &[CommitGroup],
    branch: Option<&BranchFiles>,
    root: Option<&RootFiles>,
    temp: &[TempSnapshot<'_>],
    unknowable: &super::Unknowable,
    clock: &Clock,
) -> ChangelogFindings {
    let mut out = ChangelogFindings::default();
    let producer = &t.options.changelog_producer;
    if !producer.from_compaction() {
        return out;
    }
    let offset = clock.zip_time_offset_minutes;
    let changelog_prefix = t.options.changelog_file_prefix.as_str();
    let is_changelog_name =
        |name: &str| name.starts_with(changelog_prefix) || name.starts_with("compacted-changelog-");
    let empty_orphans: Vec<Orphan> = Vec::new();
    let orphans = root.map_or(&empty_orphans, |r| &r.orphans);
    let table_root = t.location.root.as_str();

    // Snapshots per user, for the time windows and "the writer's last commit".
    let mut by_user: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (id, s) in &t.snapshots {
        by_user
            .entry(s.snapshot.commit_user.as_str())
            .or_default()
            .push(*id);
    }

    let mut pending: BTreeMap<&str, Vec<(i64, bool)>> = BTreeMap::new();
    for g in groups {
        let Some(append_id) = g.append() else {
            continue;
        };
        if g.compacts().next().is_some() {
            continue;
        }
        let Some(append) = t.snapshot(append_id) else {
            continue;
        };
        let own_next = by_user
            .get(g.commit_user.as_str())
            .and_then(|ids| ids.iter().find(|&&id| id > append_id).copied());
        // An unreadable snapshot between this APPEND and the writer's next commit may be the
        // COMPACT half: then nothing can be told either way.
        let blocked: Vec<i64> = t
            .unreadable_ids()
            .into_iter()
            .filter(|&u| u > append_id && own_next.is_none_or(|n| u < n))
            .collect();
        if !blocked.is_empty() {
            let list = blocked
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            out.findings.push(
                Finding::new(
                    Code::ArtifactIncomplete,
                    Severity::Warning,
                    format!(
                        "Whether the changelog of snapshot {append_id} (APPEND, user {}, identifier {}) was lost cannot be told: {}.",
                        g.commit_user,
                        display_identifier(g.commit_identifier),
                        if blocked.len() == 1 {
                            format!("snapshot {list}, which may be its COMPACT half, is unreadable")
                        } else {
                            format!("snapshots {list}, one of which may be its COMPACT half, are unreadable")
                        }
                    ),
                    "Recover a readable copy of the unreadable snapshot (re-capture the artifact) and run the check again.",
                )
                .snapshot(append_id)
                .related(blocked.iter().copied())
                .commit(g.commit_user.clone(), g.commit_identifier),
            );
            continue;
        }
        if append.commit_kind != CommitKind::Append {
            continue; // OVERWRITE commits carry no changelog by design
        }
        let files = branch.and_then(|b| b.snapshots.get(&append_id));
        let added: Vec<&EntryRef> = files
            .map(|f| f.added().filter(|e| e.file.level == 0).collect())
            .unwrap_or_default();
        let wrote_rows = if files.is_some_and(|f| f.complete) {
            !added.is_empty()
        } else {
            append.delta_record_count.unwrap_or(0) != 0
        };
        if !wrote_rows {
            continue; // an empty streaming commit (§4.2): nothing to compact
        }

        // The commit's time window: after the writer's previous snapshot, before its next.
        let own = by_user
            .get(g.commit_user.as_str())
            .cloned()
            .unwrap_or_default();
        let prev_time = own
            .iter()
            .rev()
            .find(|&&id| id < append_id)
            .and_then(|&id| t.snapshot(id))
            .map(|s| s.time_millis);
        let next_own = own_next;
        let next_time = next_own
            .and_then(|id| t.snapshot(id))
            .map_or(clock.now_millis, |s| s.time_millis);
        let in_window = |m: Option<FileTime>| {
            m.map(|m| m.to_utc_millis(offset)).is_some_and(|ms| {
                prev_time.is_none_or(|p| ms + TIME_TOLERANCE_MS >= p)
                    && ms <= next_time + TIME_TOLERANCE_MS
            })
        };

        let root_files = root;
        let dirs: BTreeSet<String> = added
            .iter()
            .filter_map(|e| root_files.and_then(|r| entry_dir(r, table_root, e)))
            .collect();
        let uuids: BTreeSet<&str> = added
            .iter()
            .filter_map(|e| writer_uuid(&e.file.file_name))
            .collect();
        let added_names: HashSet<&str> = added.iter().map(|e| e.file.file_name.as_str()).collect();

        // Evidence 1: orphan changelog files of this writer / window.
        let mut evidence = Vec::new();
        let mut lost_files = Vec::new();
        for o in orphans {
            if out.explained.contains(&o.relative) || unknowable.owner(o.modified).is_some() {
                continue;
            }
            let (dir, name) = crate::warehouse::split_parent(&o.relative);
            let same_writer = writer_uuid(name).is_some_and(|u| uuids.contains(u));
            let same_dir = dirs.contains(dir);
            let timed = in_window(o.modified);
            let tied = same_writer || (same_dir && timed);
            if !tied {
                continue;
            }
            match o.kind {
                OrphanKind::Changelog => {
                    evidence.push(format!(
                        "{} ({} bytes) is in the bucket directory but no snapshot, tag or long-lived changelog references it; {}",
                        o.relative,
                        o.size,
                        tie_reason(same_writer, timed)
                    ));
                    lost_files.push(o.relative.clone());
                }
                OrphanKind::Data if same_writer || timed => {
                    evidence.push(format!(
                        "{} ({} bytes), an unreferenced data file in the same bucket (likely the compaction output); {}",
                        o.relative,
                        o.size,
                        tie_reason(same_writer, timed)
                    ));
                    lost_files.push(o.relative.clone());
                }
                _ => {}
            }
        }
        let has_orphan_changelog = orphans
            .iter()
            .any(|o| o.kind == OrphanKind::Changelog && lost_files.contains(&o.relative));

        // Evidence 2: a ghost commit of the same committer that compacts the APPEND's files.
        let mut ghost_changelog = Vec::new();
        if let Some(r) = root {
            for ghost in &r.ghosts {
                if unknowable.owner(ghost.modified).is_some() {
                    continue;
                }
                let sibling = ghost
                    .sibling_snapshots
                    .iter()
                    .any(|(b, id)| *b == t.location.branch && *id == append_id);
                let compacts_append = ghost.entries.iter().any(|e| {
                    e.kind == crate::paimon::manifest::FileKind::Delete
                        && added_names.contains(e.file.file_name.as_str())
                });
                if !(sibling || compacts_append) {
                    continue;
                }
                let changelog: Vec<&EntryRef> = ghost
                    .entries
                    .iter()
                    .filter(|e| {
                        e.kind == crate::paimon::manifest::FileKind::Add
                            && is_changelog_name(&e.file.file_name)
                    })
                    .collect();
                let deletes = ghost
                    .entries
                    .iter()
                    .filter(|e| e.kind == crate::paimon::manifest::FileKind::Delete)
                    .count();
                if changelog.is_empty() && !compacts_append {
                    continue;
                }
                evidence.push(format!(
                    "unpublished manifest lists {} (written by the same committer as snapshot {append_id}'s lists) describe a commit that deletes {deletes} file{} ({}) and adds changelog {}",
                    ghost.lists.join(", "),
                    if deletes == 1 { "" } else { "s" },
                    if compacts_append { "among them the APPEND's level-0 files" } else { "none of them the APPEND's" },
                    if changelog.is_empty() {
                        "nothing".to_string()
                    } else {
                        changelog
                            .iter()
                            .map(|e| format!("{} ({} rows)", e.file.file_name, e.file.row_count))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ));
                for e in changelog {
                    ghost_changelog.push(e.file.file_name.clone());
                }
                for l in &ghost.lists {
                    lost_files.push(l.clone());
                }
            }
        }

        // Evidence 3: the COMPACT was written to a temp file and never renamed.
        let mut temp_evidence = false;
        for tmp in temp {
            if tmp.snapshot.commit_kind == CommitKind::Compact
                && tmp.snapshot.commit_user == g.commit_user
                && tmp.snapshot.commit_identifier == g.commit_identifier
            {
                evidence.push(format!(
                    "{} holds the COMPACT snapshot of this commit (changelog records {}), written but never renamed into place",
                    tmp.path,
                    tmp.snapshot
                        .changelog_record_count
                        .map_or("unknown".to_string(), |n| n.to_string())
                ));
                lost_files.push(tmp.path.clone());
                temp_evidence = true;
            }
        }

        let proven = has_orphan_changelog || !ghost_changelog.is_empty() || temp_evidence;

        // Did a later snapshot compact the APPEND's files?
        let later_compaction = branch.and_then(|b| {
            b.snapshots
                .range(append_id.saturating_add(1)..)
                .find(|(_, f)| {
                    f.deleted()
                        .any(|e| added_names.contains(e.file.file_name.as_str()))
                })
                .map(|(id, f)| (*id, f.changelog.len()))
        });
        let still_live = branch.and_then(|b| {
            if added.is_empty() {
                return None;
            }
            Some(added.iter().any(|e| b.live_at_latest(e) == Some(true)))
        });
        let writers_last = next_own.is_none();

        if proven {
            let mut f = Finding::new(
                Code::LostChangelog,
                Severity::Error,
                format!(
                    "Snapshot {append_id} (APPEND, user {}, identifier {}) is durable but its COMPACT half never was: the changelog for its {} was not committed, and streaming readers will never receive it.",
                    g.commit_user,
                    display_identifier(g.commit_identifier),
                    rows_phrase(&added, append.delta_record_count)
                ),
                "Do not run remove_orphan_files (it would delete the evidence). Re-deliver the changes downstream: \
                 rebuild the affected keys from a batch read of the table (it holds the right values), or \
                 trigger a full compaction (CALL sys.compact with compact_strategy => 'full') so the current \
                 values are emitted as changelog, then reset affected consumers to before this snapshot \
                 (reset_consumer, reader stopped). Upgrade to a Paimon whose recovery handles incomplete \
                 APPEND/COMPACT pairs (apache/paimon#5796 for Flink lookup, 1.3+).",
            )
            .snapshot(append_id)
            .commit(g.commit_user.clone(), g.commit_identifier);
            f = f.evidence(format!(
                "no COMPACT snapshot carries user {} and identifier {}; changelog-producer = {}, so this commit's changelog belonged in its COMPACT half",
                g.commit_user,
                display_identifier(g.commit_identifier),
                producer.as_str()
            ));
            if !added.is_empty() {
                f = f.evidence(format!(
                    "snapshot {append_id} added {} level-0 file{}: {}",
                    added.len(),
                    if added.len() == 1 { "" } else { "s" },
                    added
                        .iter()
                        .map(|e| format!("{} ({} rows)", e.file.file_name, e.file.row_count))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            for line in evidence {
                f = f.evidence(line);
            }
            match next_own {
                Some(next) => {
                    let next_s = t.snapshot(next);
                    f = f.evidence(format!(
                        "the writer's next snapshot is {next} ({} identifier {}): recovery skipped identifier {} (filterCommitted drops identifiers not above the user's latest)",
                        next_s.map_or("?", |s| s.commit_kind.as_str()),
                        next_s.map_or("?".to_string(), |s| display_identifier(s.commit_identifier)),
                        display_identifier(g.commit_identifier)
                    ));
                }
                None => {
                    f = f.evidence(format!(
                        "snapshot {append_id} is the writer's last commit: it stopped (or crashed) right after the APPEND"
                    ));
                    if t.latest() == Some(append_id) {
                        f = f.evidence(format!(
                            "snapshot {append_id} is also the table's latest: had the writer still been running when the artifact was captured, it could yet have published the COMPACT; once it restarts, recovery drops identifier {} (filterCommitted) and the COMPACT is never published",
                            display_identifier(g.commit_identifier)
                        ));
                    }
                }
            }
            match later_compaction {
                Some((id, n)) if n > 0 => {
                    f = f.related([id]).evidence(format!(
                        "partial loss: snapshot {id} later compacted these files and produced {n} changelog file{}, so readers got the values as of snapshot {id}; the intermediate versions from snapshot {append_id} are gone for good",
                        if n == 1 { "" } else { "s" }
                    ));
                }
                Some((id, _)) => {
                    f = f.related([id]).evidence(format!(
                        "snapshot {id} later compacted these files without producing changelog for them"
                    ));
                }
                None => {
                    if still_live == Some(true) {
                        f = f.evidence(
                            "no later snapshot compacted these files: no changelog was ever produced for these rows".to_string(),
                        );
                    }
                }
            }
            // Changelog files the ghost commit names, by their path when they are present.
            for name in &ghost_changelog {
                let present = orphans
                    .iter()
                    .find(|o| crate::warehouse::split_parent(&o.relative).1 == name.as_str());
                match present {
                    Some(o) => lost_files.push(o.relative.clone()),
                    None => {
                        f = f.evidence(format!(
                            "{name}, named by the unpublished commit, is not in the artifact (deleted by remove_orphan_files, or not captured)"
                        ))
                    }
                }
            }
            f = f.files(lost_files.iter().cloned());
            for file in &lost_files {
                out.explained.insert(file.clone());
            }
            // The ghost commit's own manifests are explained too.
            if let Some(r) = root {
                for ghost in &r.ghosts {
                    if ghost.lists.iter().any(|l| lost_files.contains(l)) {
                        out.explained.extend(ghost.manifests.iter().cloned());
                    }
                }
            }
            out.lost.push(LostChangelog {
                snapshot: append_id,
                commit_user: g.commit_user.clone(),
                commit_identifier: g.commit_identifier,
                files: lost_files,
            });
            out.findings.push(f);
        } else if still_live == Some(true) || (branch.is_none() && writers_last) {
            pending
                .entry(g.commit_user.as_str())
                .or_default()
                .push((append_id, writers_last));
        }
    }

    if root.is_some_and(|r| !r.has_data_dirs) && !pending.is_empty() {
        let ids: Vec<i64> = pending.values().flatten().map(|(id, _)| *id).collect();
        out.findings.push(
            Finding::new(
                Code::ArtifactIncomplete,
                Severity::Warning,
                format!(
                    "The artifact holds no data directories (bucket-*), so whether the changelog of snapshot{} {} was lost cannot be proven either way.",
                    if ids.len() == 1 { "" } else { "s" },
                    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                ),
                "Capture the whole table directory (all bucket-* directories, manifest/, snapshot/) in the artifact and run the check again.",
            )
            .snapshot(ids.first().copied().unwrap_or(0))
            .related(ids.iter().copied()),
        );
        return out;
    }

    for (user, ids) in pending {
        let writer_stopped = ids.iter().any(|(_, last)| *last);
        let snapshot_ids: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
        let first = snapshot_ids.first().copied().unwrap_or(0);
        let oldest_time = t.snapshot(first).map(|s| s.time_millis);
        let waited = oldest_time.map(|ts| clock.now_millis.saturating_sub(ts));
        let long_wait = waited.is_some_and(|w| w > t.options.snapshot_time_retained_millis);
        let severity = if writer_stopped || long_wait {
            Severity::Warning
        } else {
            Severity::Info
        };
        let list = snapshot_ids
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let mut f = Finding::new(
            Code::PendingChangelog,
            severity,
            format!(
                "The level-0 files of snapshot{} {list} (user {user}) have not been compacted yet, so their changelog has not been produced; nothing shows it was lost{}.",
                if snapshot_ids.len() == 1 { "" } else { "s" },
                if writer_stopped {
                    ", but the writer's last commit is among them: unless a writer or compaction job runs again, streaming readers will not see these changes"
                } else {
                    ""
                }
            ),
            "Make sure a writer (or a dedicated compaction job: CALL sys.compact) runs on this table so the changelog is produced; with write-only writers, schedule the compaction job. Do not reset consumers past these snapshots until it has.",
        )
        .snapshot(first)
        .related(snapshot_ids.iter().copied())
        .commit(user.to_string(), t.snapshot(first).map_or(0, |s| s.commit_identifier))
        .evidence(format!(
            "changelog-producer = {}: changelog is written when level-0 files are compacted",
            producer.as_str()
        ));
        if let Some(w) = waited {
            f = f.evidence(format!(
                "the oldest of them was committed {} before the report's clock",
                crate::paimon::schema::format_duration(w)
            ));
        }
        if t.options.write_only {
            f = f.evidence("write-only = true: this writer never compacts".to_string());
        }
        out.findings.push(f);
    }
    out
}

fn tie_reason(same_writer: bool, timed: bool) -> &'static str {
    match (same_writer, timed) {
        (true, true) => {
            "written by the same writer instance as the APPEND's files, within the commit's time window"
        }
        (true, false) => "written by the same writer instance as the APPEND's files",
        (false, _) => "written in the same bucket within the commit's time window",
    }
}

fn rows_phrase(added: &[&EntryRef], delta: Option<i64>) -> String {
    let rows: i64 = added.iter().map(|e| e.file.row_count).sum();
    if rows > 0 {
        format!("{rows} row{}", if rows == 1 { "" } else { "s" })
    } else {
        match delta {
            Some(d) => format!("{d} rows"),
            None => "rows".to_string(),
        }
    }
}

/// An identifier for messages: Long.MAX_VALUE is named.
pub fn display_identifier(i: i64) -> String {
    if i == i64::MAX {
        "MAX (batch or end of input)".to_string()
    } else {
        i.to_string()
    }
}
