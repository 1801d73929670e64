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
use crate::paimon::manifest::FileKind;
use crate::paimon::snapshot::{CommitKind, Snapshot};
use crate::source::FileTime;
use crate::timeline::files::{
    entry_dir, writer_uuid, BranchFiles, EntryRef, Orphan, OrphanKind, RootFiles,
};
use crate::timeline::groups::CommitGroup;
use crate::timeline::Timeline;
use crate::warehouse::split_parent;

use super::Unknowable;

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
/// Runs the check over one timeline: for every commit whose APPEND has no COMPACT half, is its
/// changelog lost (positive evidence), pending (not compacted yet), or beyond telling?
pub fn check(
    t: &Timeline,
    groups: &[CommitGroup],
    branch: Option<&BranchFiles>,
    root: Option<&RootFiles>,
    temp: &[TempSnapshot<'_>],
    unknowable: &Unknowable,
    clock: &Clock,
) -> ChangelogFindings {
    let mut out = ChangelogFindings::default();
    if !t.options.changelog_producer.from_compaction() {
        return out;
    }
    // Snapshots per user, for the time windows and "the writer's last commit".
    let mut by_user: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (id, s) in &t.snapshots {
        by_user
            .entry(s.snapshot.commit_user.as_str())
            .or_default()
            .push(*id);
    }
    let ctx = Ctx {
        t,
        branch,
        root,
        orphans: root.map_or(&[][..], |r| r.orphans.as_slice()),
        temp,
        unknowable,
        clock,
        by_user,
    };
    let mut pending: BTreeMap<&str, Vec<(i64, bool)>> = BTreeMap::new();
    for g in groups {
        match judge_commit(&ctx, g, &out.explained) {
            CommitVerdict::Nothing => {}
            CommitVerdict::Unknowable(f) => out.findings.push(f),
            CommitVerdict::Lost(lost) => {
                out.explained.extend(lost.explained);
                out.lost.push(lost.lost);
                out.findings.push(lost.finding);
            }
            CommitVerdict::Pending {
                append,
                writers_last,
            } => pending
                .entry(g.commit_user.as_str())
                .or_default()
                .push((append, writers_last)),
        }
    }
    out.findings.extend(pending_findings(&ctx, pending));
    out
}

/// What one table offers the check, shared by its commits.
struct Ctx<'a> {
    t: &'a Timeline,
    branch: Option<&'a BranchFiles>,
    root: Option<&'a RootFiles>,
    /// The root's unreferenced files (none when the root's files are unknown).
    orphans: &'a [Orphan],
    temp: &'a [TempSnapshot<'a>],
    unknowable: &'a Unknowable,
    clock: &'a Clock,
    /// Snapshot ids per commit user, ascending.
    by_user: BTreeMap<&'a str, Vec<i64>>,
}

/// An APPEND snapshot with no COMPACT half.
struct Append<'a> {
    g: &'a CommitGroup,
    id: i64,
    snapshot: &'a Snapshot,
    /// The writer's next snapshot, if any.
    own_next: Option<i64>,
    /// The level-0 files it added (when its delta is known).
    added: Vec<&'a EntryRef>,
    /// Their file names.
    added_names: HashSet<&'a str>,
}

/// What the check says about one commit.
enum CommitVerdict {
    /// Nothing to say (it has a COMPACT half, carries no changelog, or wrote nothing).
    Nothing,
    /// Whether it lost its changelog cannot be told (`artifact-incomplete`).
    Unknowable(Finding),
    /// Its changelog was lost.
    Lost(Lost),
    /// Its level-0 files are not compacted yet; `writers_last` when it is its writer's last
    /// commit.
    Pending { append: i64, writers_last: bool },
}

/// A `lost-changelog` finding, the lost commit, and the orphan files it explains.
struct Lost {
    finding: Finding,
    lost: LostChangelog,
    explained: Vec<String>,
}

/// Judges one commit group; `explained` are the orphans earlier lost commits claimed.
fn judge_commit(ctx: &Ctx<'_>, g: &CommitGroup, explained: &HashSet<String>) -> CommitVerdict {
    let t = ctx.t;
    let Some(append_id) = g.append() else {
        return CommitVerdict::Nothing;
    };
    if g.compacts().next().is_some() {
        return CommitVerdict::Nothing;
    }
    let Some(append) = t.snapshot(append_id) else {
        return CommitVerdict::Nothing;
    };
    let own_next = ctx
        .by_user
        .get(g.commit_user.as_str())
        .and_then(|ids| ids.iter().find(|&&id| id > append_id).copied());
    if let Some(f) = blocked_by_unreadable(t, g, append_id, own_next) {
        return CommitVerdict::Unknowable(f);
    }
    if append.commit_kind != CommitKind::Append {
        return CommitVerdict::Nothing; // OVERWRITE commits carry no changelog by design
    }
    let files = ctx.branch.and_then(|b| b.snapshots.get(&append_id));
    let added: Vec<&EntryRef> = files
        .map(|f| f.added().filter(|e| e.file.level == 0).collect())
        .unwrap_or_default();
    let wrote_rows = if files.is_some_and(|f| f.complete) {
        !added.is_empty()
    } else {
        append.delta_record_count.unwrap_or(0) != 0
    };
    if !wrote_rows {
        return CommitVerdict::Nothing; // an empty streaming commit (§4.2): nothing to compact
    }
    let a = Append {
        g,
        id: append_id,
        snapshot: append,
        own_next,
        added_names: added.iter().map(|e| e.file.file_name.as_str()).collect(),
        added,
    };

    let mut evidence = Evidence::default();
    orphan_evidence(ctx, &a, explained, &mut evidence);
    ghost_evidence(ctx, &a, &mut evidence);
    temp_evidence(ctx, &a, &mut evidence);
    let proven = evidence.orphan_changelog || !evidence.ghost_changelog.is_empty() || evidence.temp;

    let still_live = ctx.branch.and_then(|b| {
        if a.added.is_empty() {
            return None;
        }
        Some(a.added.iter().any(|e| b.live_at_latest(e) == Some(true)))
    });
    let writers_last = own_next.is_none();
    if proven {
        CommitVerdict::Lost(lost(ctx, &a, evidence, still_live))
    } else if still_live == Some(true) || (ctx.branch.is_none() && writers_last) {
        CommitVerdict::Pending {
            append: append_id,
            writers_last,
        }
    } else {
        CommitVerdict::Nothing
    }
}

/// `artifact-incomplete` when an unreadable snapshot between this APPEND and the writer's next
/// commit may be the COMPACT half: then nothing can be told either way.
fn blocked_by_unreadable(
    t: &Timeline,
    g: &CommitGroup,
    append_id: i64,
    own_next: Option<i64>,
) -> Option<Finding> {
    let blocked: Vec<i64> = t
        .unreadable_ids()
        .into_iter()
        .filter(|&u| u > append_id && own_next.is_none_or(|n| u < n))
        .collect();
    if blocked.is_empty() {
        return None;
    }
    let list = blocked
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    Some(
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
    )
}

/// The positive evidence tying unreferenced files to a lost COMPACT.
#[derive(Default)]
struct Evidence {
    /// One line per fact.
    lines: Vec<String>,
    /// The files attributed to the lost COMPACT (relative to the table root).
    files: Vec<String>,
    /// Evidence 1 found an orphan changelog file.
    orphan_changelog: bool,
    /// Changelog files an unpublished commit names (evidence 2).
    ghost_changelog: Vec<String>,
    /// Evidence 3: the COMPACT's snapshot is in a temp file.
    temp: bool,
}

/// Evidence 1: orphan changelog (and compaction output) files of this writer, or in its
/// buckets within the commit's time window (after the writer's previous snapshot, before its
/// next).
fn orphan_evidence(ctx: &Ctx<'_>, a: &Append<'_>, explained: &HashSet<String>, ev: &mut Evidence) {
    let (t, g, append_id) = (ctx.t, a.g, a.id);
    let offset = ctx.clock.zip_time_offset_minutes;
    let own = ctx
        .by_user
        .get(g.commit_user.as_str())
        .cloned()
        .unwrap_or_default();
    let prev_time = own
        .iter()
        .rev()
        .find(|&&id| id < append_id)
        .and_then(|&id| t.snapshot(id))
        .map(|s| s.time_millis);
    let next_time = a
        .own_next
        .and_then(|id| t.snapshot(id))
        .map_or(ctx.clock.now_millis, |s| s.time_millis);
    let in_window = |m: Option<FileTime>| {
        m.map(|m| m.to_utc_millis(offset)).is_some_and(|ms| {
            prev_time.is_none_or(|p| ms + TIME_TOLERANCE_MS >= p)
                && ms <= next_time + TIME_TOLERANCE_MS
        })
    };
    let table_root = t.location.root.as_str();
    let dirs: BTreeSet<String> = a
        .added
        .iter()
        .filter_map(|e| ctx.root.and_then(|r| entry_dir(r, table_root, e)))
        .collect();
    let uuids: BTreeSet<&str> = a
        .added
        .iter()
        .filter_map(|e| writer_uuid(&e.file.file_name))
        .collect();
    for o in ctx.orphans {
        if explained.contains(&o.relative) || ctx.unknowable.owner(o.modified).is_some() {
            continue;
        }
        let (dir, name) = split_parent(&o.relative);
        let same_writer = writer_uuid(name).is_some_and(|u| uuids.contains(u));
        let same_dir = dirs.contains(dir);
        let timed = in_window(o.modified);
        let tied = same_writer || (same_dir && timed);
        if !tied {
            continue;
        }
        match o.kind {
            OrphanKind::Changelog => {
                ev.lines.push(format!(
                        "{} ({} bytes) is in the bucket directory but no snapshot, tag or long-lived changelog references it; {}",
                        o.relative,
                        o.size,
                        tie_reason(same_writer, timed)
                    ));
                ev.files.push(o.relative.clone());
            }
            OrphanKind::Data if same_writer || timed => {
                ev.lines.push(format!(
                        "{} ({} bytes), an unreferenced data file in the same bucket (likely the compaction output); {}",
                        o.relative,
                        o.size,
                        tie_reason(same_writer, timed)
                    ));
                ev.files.push(o.relative.clone());
            }
            _ => {}
        }
    }
    ev.orphan_changelog = ctx
        .orphans
        .iter()
        .any(|o| o.kind == OrphanKind::Changelog && ev.files.contains(&o.relative));
}

/// Evidence 2: a "ghost commit", orphan manifest lists of the same committer that describe the
/// unpublished COMPACT (its DELETE of the APPEND's level-0 files, its changelog files).
fn ghost_evidence(ctx: &Ctx<'_>, a: &Append<'_>, ev: &mut Evidence) {
    let Some(r) = ctx.root else {
        return;
    };
    let (t, append_id) = (ctx.t, a.id);
    let changelog_prefix = t.options.changelog_file_prefix.as_str();
    let is_changelog_name =
        |name: &str| name.starts_with(changelog_prefix) || name.starts_with("compacted-changelog-");
    for ghost in &r.ghosts {
        if ctx.unknowable.owner(ghost.modified).is_some() {
            continue;
        }
        let sibling = ghost
            .sibling_snapshots
            .iter()
            .any(|(b, id)| *b == t.location.branch && *id == append_id);
        let compacts_append = ghost.entries.iter().any(|e| {
            e.kind == FileKind::Delete && a.added_names.contains(e.file.file_name.as_str())
        });
        if !(sibling || compacts_append) {
            continue;
        }
        let changelog: Vec<&EntryRef> = ghost
            .entries
            .iter()
            .filter(|e| e.kind == FileKind::Add && is_changelog_name(&e.file.file_name))
            .collect();
        let deletes = ghost
            .entries
            .iter()
            .filter(|e| e.kind == FileKind::Delete)
            .count();
        if changelog.is_empty() && !compacts_append {
            continue;
        }
        ev.lines.push(format!(
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
            ev.ghost_changelog.push(e.file.file_name.clone());
        }
        for l in &ghost.lists {
            ev.files.push(l.clone());
        }
    }
}

/// Evidence 3: the COMPACT was written to a temp file and never renamed.
fn temp_evidence(ctx: &Ctx<'_>, a: &Append<'_>, ev: &mut Evidence) {
    let g = a.g;
    for tmp in ctx.temp {
        if tmp.snapshot.commit_kind == CommitKind::Compact
            && tmp.snapshot.commit_user == g.commit_user
            && tmp.snapshot.commit_identifier == g.commit_identifier
        {
            ev.lines.push(format!(
                    "{} holds the COMPACT snapshot of this commit (changelog records {}), written but never renamed into place",
                    tmp.path,
                    tmp.snapshot
                        .changelog_record_count
                        .map_or("unknown".to_string(), |n| n.to_string())
                ));
            ev.files.push(tmp.path.clone());
            ev.temp = true;
        }
    }
}

/// The `lost-changelog` finding of a commit whose evidence is proven.
fn lost(ctx: &Ctx<'_>, a: &Append<'_>, ev: Evidence, still_live: Option<bool>) -> Lost {
    let (t, g, append_id, added) = (ctx.t, a.g, a.id, &a.added);
    let producer = &t.options.changelog_producer;
    let append = a.snapshot;
    let Evidence {
        lines: evidence,
        files: mut lost_files,
        ghost_changelog,
        ..
    } = ev;
    let mut f = Finding::new(
                Code::LostChangelog,
                Severity::Error,
                format!(
                    "Snapshot {append_id} (APPEND, user {}, identifier {}) is durable but its COMPACT half never was: the changelog for its {} was not committed, and streaming readers will never receive it.",
                    g.commit_user,
                    display_identifier(g.commit_identifier),
                    rows_phrase(added, append.delta_record_count)
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
    f = writer_evidence(f, t, a);
    f = later_compaction_evidence(f, ctx.branch, a, still_live);
    f = ghost_changelog_evidence(f, ctx, &ghost_changelog, &mut lost_files);
    f = f.files(lost_files.iter().cloned());
    let explained = explained_files(ctx.root, &lost_files);
    Lost {
        finding: f,
        lost: LostChangelog {
            snapshot: append_id,
            commit_user: g.commit_user.clone(),
            commit_identifier: g.commit_identifier,
            files: lost_files,
        },
        explained,
    }
}

/// The changelog files an unpublished commit names: by their path when they are present (they
/// join the lost files), else a line saying they are not in the artifact.
fn ghost_changelog_evidence(
    mut f: Finding,
    ctx: &Ctx<'_>,
    ghost_changelog: &[String],
    lost_files: &mut Vec<String>,
) -> Finding {
    for name in ghost_changelog {
        let present = ctx
            .orphans
            .iter()
            .find(|o| split_parent(&o.relative).1 == name.as_str());
        match present {
                    Some(o) => lost_files.push(o.relative.clone()),
                    None => {
                        f = f.evidence(format!(
                            "{name}, named by the unpublished commit, is not in the artifact (deleted by remove_orphan_files, or not captured)"
                        ))
                    }
                }
    }
    f
}

/// The orphans a lost commit explains: its files, and the manifests of the unpublished commits
/// whose lists are among them.
fn explained_files(root: Option<&RootFiles>, lost_files: &[String]) -> Vec<String> {
    let mut explained = lost_files.to_vec();
    if let Some(r) = root {
        for ghost in &r.ghosts {
            if ghost.lists.iter().any(|l| lost_files.contains(l)) {
                explained.extend(ghost.manifests.iter().cloned());
            }
        }
    }
    explained
}

/// What the writer did after the APPEND: its next commit (whose identifier recovery skipped), or
/// none (it stopped right after the APPEND).
fn writer_evidence(mut f: Finding, t: &Timeline, a: &Append<'_>) -> Finding {
    let (g, append_id, next_own) = (a.g, a.id, a.own_next);
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
    f
}

/// Whether a later snapshot compacted the APPEND's files, and with what changelog.
fn later_compaction_evidence(
    mut f: Finding,
    branch: Option<&BranchFiles>,
    a: &Append<'_>,
    still_live: Option<bool>,
) -> Finding {
    let append_id = a.id;
    let later_compaction = branch.and_then(|b| {
        b.snapshots
            .range(append_id.saturating_add(1)..)
            .find(|(_, f)| {
                f.deleted()
                    .any(|e| a.added_names.contains(e.file.file_name.as_str()))
            })
            .map(|(id, f)| (*id, f.changelog.len()))
    });
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
    f
}

/// `pending-changelog` per commit user whose APPENDs are not compacted yet; or, when the
/// artifact holds no data directories, one `artifact-incomplete` instead (nothing can be
/// proven either way).
fn pending_findings(ctx: &Ctx<'_>, pending: BTreeMap<&str, Vec<(i64, bool)>>) -> Vec<Finding> {
    let (t, clock) = (ctx.t, ctx.clock);
    let producer = &t.options.changelog_producer;
    let mut out = Vec::new();
    if ctx.root.is_some_and(|r| !r.has_data_dirs) && !pending.is_empty() {
        let ids: Vec<i64> = pending.values().flatten().map(|(id, _)| *id).collect();
        out.push(
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
                crate::time::format_duration(w)
            ));
        }
        if t.options.write_only {
            f = f.evidence("write-only = true: this writer never compacts".to_string());
        }
        out.push(f);
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
