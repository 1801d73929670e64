//! Lost changelog: did a commit's changelog never become durable?
//!
//! Paimon commits one checkpoint as an APPEND snapshot and then, if the writers compacted, a
//! COMPACT snapshot with the same `commitUser` + `commitIdentifier` (`paimon-format.md` §4.2).
//! With `changelog-producer` = `lookup` or `full-compaction` the changelog lives in the COMPACT
//! half (§4.3). If the process dies, or the COMPACT fails its conflict check, after the APPEND is
//! durable, recovery (`filterCommitted`) drops the whole committable because the identifier is
//! already present (§4.5): the changelog files are never committed and stay on disk
//! unreferenced, and streaming readers never receive those changes. What a batch read returns
//! depends on the table: without deletion vectors it merges the APPEND's level-0 files and is
//! current; with deletion vectors (or `first-row`) it skips level 0 and is stale until a later
//! compaction moves them (§3.8, §4.8). The finding states both as its `impact`.
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
//! A lost compaction's files are one commit's (`paimon-format.md` §4.3): where several APPENDs
//! lack a COMPACT half by design (`full-compaction.delta-commits`, a compaction job), files tied
//! by writer UUID or by bucket and time, and a ghost commit, go to one claimant only, the newest
//! whose window holds them (a commit in flight in a temp file competes too), and a ghost to its
//! committer's newest APPEND whose level-0 files it compacts. Write-only writers that never
//! compact owe no COMPACT half: their files' changelog is a compaction job's.
//!
//! Once proven, the finding also claims the lost COMPACT's manifests and, with deletion vectors,
//! its unreferenced index manifest and deletion-vector index files written in the commit window
//! for the APPEND's buckets (§4.8), so they are not reported again as plain orphans.
//!
//! Without such evidence, level-0 files of the APPEND that no later snapshot compacted (or that
//! its own COMPACT left at level 0) are not compacted yet; what that means depends on the
//! history (§4.9) and is judged in [`super::pending`] (`pending-changelog` or
//! `changelog-not-produced`). The
//! `lost-changelog` finding also says whether a later compaction of the same bucket produced
//! changelog again (partial loss: the intermediate versions are gone) or nothing did.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::findings::{BatchImpact, ChangelogImpact, Clock, Code, Finding, Impact, Severity};
use crate::paimon::manifest::{FileKind, ManifestEntry};
use crate::paimon::snapshot::{CommitKind, Snapshot};
use crate::source::FileTime;
use crate::timeline::files::{
    entry_dir, writer_uuid, BranchFiles, GhostCommit, Orphan, OrphanKind, RootFiles,
};
use crate::timeline::groups::CommitGroup;
use crate::timeline::Timeline;
use crate::warehouse::split_parent;

use super::Unknowable;

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
    /// What a batch read of the latest snapshot returns for its rows.
    pub batch: BatchImpact,
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
    out.findings
        .extend(branch.and_then(|b| super::pending::postponed_rows(t, b)));
    // With the current options unknown, `unread_schema` says what was not judged.
    if !t.options_known() || !t.options.changelog_producer.from_compaction() {
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
    let uncompacted = groups
        .iter()
        .filter(|g| g.compacts().next().is_none())
        .filter_map(CommitGroup::append)
        .collect();
    let compacting_users = t
        .snapshots
        .values()
        .filter(|s| s.snapshot.commit_kind == CommitKind::Compact)
        .map(|s| s.snapshot.commit_user.as_str())
        .collect();
    let mut ctx = Ctx {
        t,
        branch,
        root,
        orphans: root.map_or(&[][..], |r| r.orphans.as_slice()),
        temp,
        unknowable,
        clock,
        by_user,
        uncompacted,
        compacting_users,
        by_uuid: HashMap::new(),
        by_dir: HashMap::new(),
        ghost_claims: Vec::new(),
    };
    (ctx.by_uuid, ctx.by_dir) = uncompacted_by_writer_and_dir(&ctx);
    ctx.ghost_claims = root.map_or_else(Vec::new, |r| {
        r.ghosts.iter().map(|g| ghost_claimant(&ctx, g)).collect()
    });
    let mut pending: BTreeMap<&str, Vec<(i64, bool)>> = BTreeMap::new();
    let mut overwritten: Vec<(i64, i64)> = Vec::new();
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
            CommitVerdict::Overwritten { append, by } => overwritten.push((append, by)),
        }
    }
    out.findings
        .extend(super::pending::overwritten_before_compaction(
            t,
            &overwritten,
        ));
    let writers = super::pending::Writers {
        t,
        clock,
        by_user: &ctx.by_user,
        // External data paths (`data-file.external-paths`) held by the artifact are data
        // directories too (paimon-format.md §1.3).
        no_data_dirs: root.is_some_and(|r| !r.has_data_dirs && r.external_present.is_empty()),
    };
    out.findings
        .extend(super::pending::findings(&writers, pending));
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
    /// The APPENDs whose commit has no COMPACT half, ascending: the commits a lost COMPACT's
    /// files may belong to ([`claimant`]).
    uncompacted: BTreeSet<i64>,
    /// Commit users with a COMPACT snapshot in the history.
    compacting_users: HashSet<&'a str>,
    /// Per writer UUID, the APPENDs without a COMPACT half that added level-0 files it wrote.
    by_uuid: HashMap<&'a str, Vec<i64>>,
    /// Per bucket directory (relative to the table root), the APPENDs without a COMPACT half
    /// that added level-0 files to it.
    by_dir: HashMap<String, Vec<i64>>,
    /// Per ghost commit of the root (by index), the APPEND it is the unpublished half of.
    ghost_claims: Vec<Option<i64>>,
}

/// An APPEND snapshot with no COMPACT half.
struct Append<'a> {
    g: &'a CommitGroup,
    id: i64,
    snapshot: &'a Snapshot,
    /// The writer's next snapshot, if any.
    own_next: Option<i64>,
    /// The level-0 files it added (when its delta is known).
    added: Vec<ManifestEntry<'a>>,
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
    /// OVERWRITE snapshot `by` removed its level-0 files before any compaction: its changelog
    /// was never produced and never will be.
    Overwritten { append: i64, by: i64 },
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
    let Some(append) = t.snapshot(append_id) else {
        return CommitVerdict::Nothing;
    };
    // Only a commit written under lookup or full-compaction has its changelog in a COMPACT
    // half; one written under input or none before the producer changed carries its own
    // changelog or none (`changelog-producer-changed` says what a reader gets of it), and one
    // whose schema was not read is not judged (`paimon-format.md` §1.5, §4.9).
    let Some(options) = super::producer::options_of(t, append.schema_id)
        .filter(|o| o.changelog_producer.from_compaction() && !o.postpone_bucket())
    else {
        return CommitVerdict::Nothing;
    };
    if let Some(last) = g.compacts().last() {
        if append.commit_kind != CommitKind::Append {
            return CommitVerdict::Nothing;
        }
        return compacted_but_left_level0(ctx, g, append_id, last);
    }
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
    let files = ctx
        .branch
        .and_then(|b| Some((b.snapshots.get(&append_id)?, &*b.catalog)));
    let added: Vec<ManifestEntry<'_>> = ctx
        .branch
        .and_then(|b| level0_added(b, append_id))
        .map(Iterator::collect)
        .unwrap_or_default();
    let wrote_rows = if files.is_some_and(|(f, _)| f.complete) {
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
        added_names: added.iter().map(|e| e.file().file_name()).collect(),
        added,
    };

    let mut evidence = Evidence::default();
    // A write-only writer that never compacts commits no COMPACT half: a separate compaction
    // job produces the changelog of its files in its own commits (`paimon-format.md` §4.9).
    let owes_compact = !options.write_only || ctx.compacting_users.contains(g.commit_user.as_str());
    if owes_compact {
        orphan_evidence(ctx, &a, explained, &mut evidence);
        ghost_evidence(ctx, &a, &mut evidence);
        temp_evidence(ctx, &a, &mut evidence);
    }
    let proven = evidence.orphan_changelog || !evidence.ghost_changelog.is_empty() || evidence.temp;
    if proven {
        index_evidence(ctx, &a, explained, &mut evidence);
    } else if let Some(f) = blocked_by_unreadable_ghost(ctx, &a) {
        return CommitVerdict::Unknowable(f);
    }

    let still_live = ctx.branch.and_then(|b| {
        if a.added.is_empty() {
            return None;
        }
        Some(a.added.iter().any(|&e| b.live_at_latest(e) == Some(true)))
    });
    // A level-0 file a later snapshot upgraded to another level was compacted, and the
    // compaction produced its changelog (`paimon-format.md` §4.3): only files still at level 0
    // wait for one.
    let still_at_level0 = ctx.branch.and_then(|b| {
        if a.added.is_empty() {
            return None;
        }
        Some(a.added.iter().any(|&e| b.live_at_level0(e) == Some(true)))
    });
    let writers_last = own_next.is_none();
    if proven {
        let at_level0 = ctx.branch.and_then(|b| {
            let known: Vec<bool> = a
                .added
                .iter()
                .map(|&e| b.live_at_level0(e))
                .collect::<Option<Vec<bool>>>()?;
            (!known.is_empty()).then(|| known.contains(&true))
        });
        CommitVerdict::Lost(lost(ctx, &a, evidence, still_live, at_level0))
    } else if still_at_level0 == Some(true) || (ctx.branch.is_none() && writers_last) {
        CommitVerdict::Pending {
            append: append_id,
            writers_last,
        }
    } else if let Some(by) = ctx.branch.and_then(|b| removed_by_overwrite(t, b, &a)) {
        CommitVerdict::Overwritten {
            append: append_id,
            by,
        }
    } else {
        CommitVerdict::Nothing
    }
}

/// The OVERWRITE snapshot that removed the APPEND's level-0 files, when the first later
/// snapshot to delete any of them is one: nothing compacted them before, so no changelog was
/// produced for them (`paimon-format.md` §4.7, §4.9). `None` when a COMPACT (or nothing the
/// artifact shows) removed them first.
fn removed_by_overwrite(t: &Timeline, b: &BranchFiles, a: &Append<'_>) -> Option<i64> {
    if a.added_names.is_empty() {
        return None;
    }
    let (&id, _) = b.snapshots.range(a.id + 1..).find(|(_, f)| {
        f.deleted(&b.catalog)
            .any(|e| a.added_names.contains(e.file().file_name()))
    })?;
    (t.snapshot(id)?.commit_kind == CommitKind::Overwrite).then_some(id)
}

/// A commit with a COMPACT half whose compaction left some of the APPEND's level-0 files live
/// in the latest snapshot (a `full-compaction` table's automatic compaction that merged only
/// older files, a lookup bucket compacted later): no changelog exists for them yet, so they
/// are pending like an APPEND without a COMPACT (`paimon-format.md` §4.3, §4.9).
fn compacted_but_left_level0(
    ctx: &Ctx<'_>,
    g: &CommitGroup,
    append_id: i64,
    last_compact: i64,
) -> CommitVerdict {
    let Some(b) = ctx.branch else {
        return CommitVerdict::Nothing;
    };
    let Some(mut added) = level0_added(b, append_id) else {
        return CommitVerdict::Nothing;
    };
    let left = added.any(|e| b.live_at_level0(e) == Some(true));
    if !left {
        return CommitVerdict::Nothing;
    }
    let writers_last = ctx
        .by_user
        .get(g.commit_user.as_str())
        .is_none_or(|ids| ids.iter().all(|&id| id <= last_compact));
    CommitVerdict::Pending {
        append: append_id,
        writers_last,
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

/// `artifact-incomplete` when the unpublished manifest lists of this APPEND's committer (its
/// commit's other half, if one was written) name a list or manifest that could not be decoded:
/// what it holds, the lost COMPACT's changelog among it, is unknown, so nothing can be told
/// either way (evidence 2 cannot be read; `paimon-format.md` §4.5).
fn blocked_by_unreadable_ghost(ctx: &Ctx<'_>, a: &Append<'_>) -> Option<Finding> {
    let r = ctx.root?;
    let t = ctx.t;
    let unreadable: Vec<&str> = r
        .ghosts
        .iter()
        .filter(|g| {
            g.sibling_snapshots
                .iter()
                .any(|(b, id)| *b == t.location.branch && *id == a.id)
        })
        .flat_map(|g| g.unreadable.iter().map(String::as_str))
        .collect();
    let first = *unreadable.first()?;
    Some(
        Finding::new(
            Code::ArtifactIncomplete,
            Severity::Warning,
            format!(
                "Whether the changelog of snapshot {} (APPEND, user {}, identifier {}) was lost cannot be told: the unpublished manifest lists of its committer name {}, which could not be read, and may hold its COMPACT half.",
                a.id,
                a.g.commit_user,
                display_identifier(a.g.commit_identifier),
                if unreadable.len() == 1 {
                    first.to_string()
                } else {
                    format!("{} files ({})", unreadable.len(), unreadable.join(", "))
                }
            ),
            "Recover a readable copy of the file (re-capture the artifact) and run the check again.",
        )
        .snapshot(a.id)
        .commit(a.g.commit_user.clone(), a.g.commit_identifier)
        .files(unreadable.iter().map(|f| f.to_string())),
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
    let t = ctx.t;
    let win = window(ctx, a);
    let table_root = t.location.root.as_str();
    let dirs: BTreeSet<String> = a
        .added
        .iter()
        .filter_map(|&e| ctx.root.and_then(|r| entry_dir(r, table_root, e)))
        .collect();
    let uuids: BTreeSet<&str> = a
        .added
        .iter()
        .filter_map(|e| writer_uuid(e.file().file_name()))
        .collect();
    for o in ctx.orphans {
        if explained.contains(&o.relative) || ctx.unknowable.owner(o.modified).is_some() {
            continue;
        }
        let (dir, name) = split_parent(&o.relative);
        // A writer instance's files share its UUID across all its commits: the file is the
        // lost COMPACT of one of them (see `claimant`).
        let same_writer = writer_uuid(name).is_some_and(|u| {
            uuids.contains(u)
                && ctx
                    .by_uuid
                    .get(u)
                    .and_then(|ids| claimant(ctx, ids, o.modified))
                    == Some(a.id)
        });
        let timed = in_window(ctx, win, o.modified);
        // Written in the bucket within this commit's window, and no newer commit without a
        // COMPACT half in that bucket whose window holds it too.
        let same_dir = dirs.contains(dir)
            && ctx
                .by_dir
                .get(dir)
                .and_then(|ids| claimant(ctx, ids, o.modified))
                == Some(a.id);
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
            // Tied already means the same writer or its time window.
            OrphanKind::Data => {
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
    for (index, ghost) in r.ghosts.iter().enumerate() {
        if ctx.unknowable.owner(ghost.modified).is_some() {
            continue;
        }
        if ctx.ghost_claims.get(index).copied().flatten() != Some(append_id) {
            continue;
        }
        let catalog = &*r.catalog;
        let compacts_append = ghost
            .entries
            .iter(catalog)
            .any(|e| e.kind() == FileKind::Delete && a.added_names.contains(e.file().file_name()));
        let changelog: Vec<ManifestEntry<'_>> = ghost
            .entries
            .iter(catalog)
            .filter(|e| e.kind() == FileKind::Add && is_changelog_name(e.file().file_name()))
            .collect();
        let deletes = ghost
            .entries
            .rows()
            .filter(|e| e.kind() == FileKind::Delete)
            .count();
        if changelog.is_empty() && !compacts_append {
            continue;
        }
        let sibling = ghost
            .sibling_snapshots
            .iter()
            .any(|(b, id)| *b == t.location.branch && *id == append_id);
        let committer = if sibling {
            format!("written by the same committer as snapshot {append_id}'s lists")
        } else {
            "no published snapshot's lists share their name".to_string()
        };
        ev.lines.push(format!(
                    "unpublished manifest lists {} ({committer}) describe a commit that deletes {deletes} file{} ({}) and adds changelog {}",
                    ghost.lists.join(", "),
                    if deletes == 1 { "" } else { "s" },
                    if compacts_append { "among them the APPEND's level-0 files" } else { "none of them the APPEND's" },
                    if changelog.is_empty() {
                        "nothing".to_string()
                    } else {
                        changelog
                            .iter()
                            .map(|e| {
                                format!("{} ({} rows)", e.file().file_name(), e.file().row_count())
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ));
        for e in changelog {
            ev.ghost_changelog.push(e.file().file_name().to_string());
        }
        let earlier: Vec<i64> = ctx
            .uncompacted
            .range(..append_id)
            .copied()
            .filter(|&id| deletes_level0_of(ctx, ghost, id))
            .collect();
        if !earlier.is_empty() {
            ev.lines.push(format!(
                "the same compaction also compacts the level-0 files of snapshot{} {} (APPENDs with no COMPACT half of their own since the last compaction), whose changelog it held too",
                if earlier.len() == 1 { "" } else { "s" },
                super::producer::id_ranges(&earlier)
            ));
        }
        for l in ghost.lists.iter().chain(&ghost.manifests) {
            ev.files.push(l.clone());
        }
        if !ghost.manifests.is_empty() {
            ev.lines.push(format!(
                "their manifest{} {} (referenced by no published list) hold{} the unpublished commit's file changes",
                if ghost.manifests.len() == 1 { "" } else { "s" },
                ghost.manifests.join(", "),
                if ghost.manifests.len() == 1 { "s" } else { "" }
            ));
        }
    }
}

/// Which of `candidates` (APPENDs without a COMPACT half, ascending) a lost COMPACT's file
/// modified at `modified` belongs to: a file is one commit's, but a writer's file and list
/// names name its instance, not the commit. The newest candidate whose commit window holds
/// `modified`, where an in-flight APPEND of the same writers (a snapshot temp file, §1.4)
/// competes too and takes what was written after their last published commit; with no
/// modification time, the newest candidate (the compaction that lost it ran last). With
/// `full-compaction.delta-commits` or a compaction job, the APPENDs since the last compaction
/// all lack a COMPACT half, and the lost one compacted all their files in the newest one's
/// commit (`paimon-format.md` §4.3).
fn claimant(ctx: &Ctx<'_>, candidates: &[i64], modified: Option<FileTime>) -> Option<i64> {
    let Some(modified) = modified else {
        return candidates.last().copied();
    };
    let users: BTreeSet<&str> = candidates
        .iter()
        .filter_map(|&id| ctx.t.snapshot(id))
        .map(|s| s.commit_user.as_str())
        .collect();
    let mut claims: Vec<(i64, (Option<i64>, i64))> = candidates
        .iter()
        .map(|&id| (id, window_of(ctx, id)))
        .collect();
    claims.extend(
        in_flight(ctx)
            .filter(|s| users.contains(s.commit_user.as_str()))
            .map(|s| (s.id, user_window(ctx, &s.commit_user, s.id))),
    );
    claims.sort_by_key(|c| c.0);
    claims
        .iter()
        .rev()
        .find(|(_, w)| in_window(ctx, *w, Some(modified)))
        .map(|c| c.0)
}

/// The APPENDs the snapshot temp files hold: commits in flight when their writer died.
fn in_flight<'a>(ctx: &'a Ctx<'_>) -> impl Iterator<Item = &'a Snapshot> + 'a {
    ctx.temp
        .iter()
        .map(|tmp| tmp.snapshot)
        .filter(|s| s.commit_kind == CommitKind::Append && ctx.t.snapshot(s.id).is_none())
}

/// The APPENDs without a COMPACT half (ascending) that added level-0 files, per writer UUID and
/// per bucket directory (relative to the table root) of those files.
#[allow(clippy::type_complexity)]
fn uncompacted_by_writer_and_dir<'a>(
    ctx: &Ctx<'a>,
) -> (HashMap<&'a str, Vec<i64>>, HashMap<String, Vec<i64>>) {
    let (mut by_uuid, mut by_dir): (HashMap<&str, Vec<i64>>, HashMap<String, Vec<i64>>) =
        Default::default();
    let Some(b) = ctx.branch else {
        return (by_uuid, by_dir);
    };
    let root = ctx.t.location.root.as_str();
    for &id in &ctx.uncompacted {
        let Some(level0) = level0_added(b, id) else {
            continue;
        };
        let level0: Vec<ManifestEntry<'a>> = level0.collect();
        let uuids: BTreeSet<&str> = level0
            .iter()
            .filter_map(|e| writer_uuid(e.file().file_name()))
            .collect();
        for u in uuids {
            by_uuid.entry(u).or_default().push(id);
        }
        let dirs: BTreeSet<String> = level0
            .iter()
            .filter_map(|&e| ctx.root.and_then(|r| entry_dir(r, root, e)))
            .collect();
        for d in dirs {
            by_dir.entry(d).or_default().push(id);
        }
    }
    (by_uuid, by_dir)
}

/// The level-0 files snapshot `id` added, when its files are known.
fn level0_added<'b>(
    b: &'b BranchFiles,
    id: i64,
) -> Option<impl Iterator<Item = ManifestEntry<'b>> + 'b> {
    let files = b.snapshots.get(&id)?;
    Some(files.added(&b.catalog).filter(|e| e.file().level() == 0))
}

/// Whether the ghost commit deletes a level-0 file snapshot `id` added (compacts them).
fn deletes_level0_of(ctx: &Ctx<'_>, ghost: &GhostCommit, id: i64) -> bool {
    let (Some(b), Some(r)) = (ctx.branch, ctx.root) else {
        return false;
    };
    let Some(added) = level0_added(b, id) else {
        return false;
    };
    let names: HashSet<&str> = added.map(|e| e.file().file_name()).collect();
    ghost
        .entries
        .iter(&r.catalog)
        .any(|e| e.kind() == FileKind::Delete && names.contains(e.file().file_name()))
}

/// The APPEND a ghost commit is the unpublished half of: among its committer's APPENDs without
/// a COMPACT half on this branch (the snapshots whose lists share its name; any APPEND when
/// none is on this branch), the newest whose level-0 files it compacts, else by [`claimant`].
fn ghost_claimant(ctx: &Ctx<'_>, ghost: &GhostCommit) -> Option<i64> {
    let branch = &ctx.t.location.branch;
    let siblings: BTreeSet<i64> = ghost
        .sibling_snapshots
        .iter()
        .filter(|(b, _)| b == branch)
        .map(|(_, id)| *id)
        .collect();
    let candidates: Vec<i64> = ctx
        .uncompacted
        .iter()
        .copied()
        .filter(|id| siblings.is_empty() || siblings.contains(id))
        .collect();
    let compacted: Vec<i64> = candidates
        .iter()
        .copied()
        .filter(|&id| deletes_level0_of(ctx, ghost, id))
        .collect();
    if let Some(&newest) = compacted.last() {
        return Some(newest);
    }
    if siblings.is_empty() {
        return None;
    }
    claimant(ctx, &candidates, ghost.modified)
}

/// The commit window of snapshot `id`: after its user's previous snapshot, before its next
/// (the report's clock when it is the user's last; a commit in flight after it competes for
/// files in [`claimant`]).
fn window_of(ctx: &Ctx<'_>, id: i64) -> (Option<i64>, i64) {
    match ctx.t.snapshot(id) {
        Some(s) => user_window(ctx, &s.commit_user, id),
        None => (None, ctx.clock.now_millis),
    }
}

/// The commit window of `user`'s commit `id` (published, or in flight in a temp file): after
/// the user's published snapshot before it, before the one after it (the report's clock when
/// there is none).
fn user_window(ctx: &Ctx<'_>, user: &str, id: i64) -> (Option<i64>, i64) {
    let t = ctx.t;
    let own = ctx.by_user.get(user);
    let prev = own
        .and_then(|ids| ids.iter().rev().find(|&&x| x < id))
        .and_then(|&x| t.snapshot(x))
        .map(|s| s.time_millis);
    let next = own
        .and_then(|ids| ids.iter().find(|&&x| x > id))
        .and_then(|&x| t.snapshot(x))
        .map_or(ctx.clock.now_millis, |s| s.time_millis);
    (prev, next)
}

/// The commit window of an APPEND: from its writer's previous snapshot to its writer's next
/// (or the report's clock), in commit time.
fn window(ctx: &Ctx<'_>, a: &Append<'_>) -> (Option<i64>, i64) {
    window_of(ctx, a.id)
}

/// Whether a file modified at `m` lies in the commit window (zip-time tolerance either side).
fn in_window(ctx: &Ctx<'_>, (prev, next): (Option<i64>, i64), m: Option<FileTime>) -> bool {
    m.map(|m| m.to_utc_millis(ctx.clock.zip_time_offset_minutes))
        .is_some_and(|ms| crate::time::in_window(ms, prev, Some(next)))
}

/// The deletion vectors of a lost COMPACT (for a commit already proven lost): an index manifest
/// nothing references, written in the commit window, that adds a deletion-vector index file for
/// a bucket the APPEND wrote to, where that index file is unreferenced too. The COMPACT half is
/// the commit that carries new deletion vectors (`paimon-format.md` §4.2, §4.8); the index
/// manifest, the index files it adds and that nothing else references are the lost COMPACT's.
fn index_evidence(ctx: &Ctx<'_>, a: &Append<'_>, explained: &HashSet<String>, ev: &mut Evidence) {
    let Some(r) = ctx.root else {
        return;
    };
    let win = window(ctx, a);
    let buckets: BTreeSet<(&[u8], i32)> = a
        .added
        .iter()
        .map(|e| (e.partition(), e.bucket()))
        .collect();
    for im in &r.orphan_index_manifests {
        if explained.contains(&im.relative)
            || ctx.unknowable.owner(im.modified).is_some()
            || !in_window(ctx, win, im.modified)
        {
            continue;
        }
        let mut index_files = Vec::new();
        let mut vectors = Vec::new();
        for e in im.entries.iter() {
            if e.kind != FileKind::Add
                || e.index_type != "DELETION_VECTORS"
                || !buckets.contains(&(&*e.partition, e.bucket))
            {
                continue;
            }
            let Some(o) = ctx.orphans.iter().find(|o| {
                split_parent(&o.relative).1 == e.file_name && !explained.contains(&o.relative)
            }) else {
                continue; // a live index file the new manifest only carries over
            };
            index_files.push(o.relative.clone());
            for v in e.deletion_vector_ranges.iter().flatten() {
                vectors.push(v.data_file.clone());
            }
        }
        if index_files.is_empty() {
            continue;
        }
        ev.lines.push(format!(
            "unreferenced index manifest {} (written in the commit window) adds deletion-vector index file{} {} for the APPEND's bucket{}, which nothing references: the deletion vectors of the lost COMPACT{}",
            im.relative,
            if index_files.len() == 1 { "" } else { "s" },
            index_files.join(", "),
            if buckets.len() == 1 { "" } else { "s" },
            if vectors.is_empty() {
                String::new()
            } else {
                format!(" (they mark rows of {} as deleted)", vectors.join(", "))
            }
        ));
        ev.files.push(im.relative.clone());
        ev.files.extend(index_files);
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
fn lost(
    ctx: &Ctx<'_>,
    a: &Append<'_>,
    ev: Evidence,
    still_live: Option<bool>,
    at_level0: Option<bool>,
) -> Lost {
    let (t, g, append_id, added) = (ctx.t, a.g, a.id, &a.added);
    let producer = &t.options.changelog_producer;
    let append = a.snapshot;
    let Evidence {
        lines: evidence,
        files: mut lost_files,
        ghost_changelog,
        ..
    } = ev;
    let (batch, batch_line) = batch_impact(t, a, at_level0);
    let rows = rows_phrase(added, append.delta_record_count);
    // First-row keeps a key's first row: its changelog holds only keys not seen before.
    let rows = if first_row(t) {
        format!(
            "new keys among its {rows} (first-row emits changelog only for keys not seen before)"
        )
    } else {
        format!("its {rows}")
    };
    let mut f = Finding::new(
        Code::LostChangelog,
        Severity::Error,
        format!(
            "Snapshot {append_id} (APPEND, user {}, identifier {}) is durable but its COMPACT half never was: the changelog for {rows} was not committed, and streaming readers will never receive it; {}.",
            g.commit_user,
            display_identifier(g.commit_identifier),
            match batch {
                BatchImpact::Stale => "a batch read of the latest snapshot is stale too: it still returns the values from before this commit",
                BatchImpact::Current => "a batch read of the latest snapshot holds its values",
                BatchImpact::Unknown => "whether a batch read of the latest snapshot holds its values cannot be told",
            }
        ),
        lost_remedy(batch, append_id, t.options.deletion_vectors),
    )
    .snapshot(append_id)
    .commit(g.commit_user.clone(), g.commit_identifier)
    .impact(Impact {
        changelog: ChangelogImpact::Lost,
        batch,
    });
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
                .map(|e| format!("{} ({} rows)", e.file().file_name(), e.file().row_count()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for line in evidence {
        f = f.evidence(line);
    }
    f = f.evidence(batch_line);
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
            batch,
        },
        explained,
    }
}

/// Whether the table's latest schema sets `merge-engine = first-row`.
fn first_row(t: &Timeline) -> bool {
    t.latest_schema().is_some_and(|schema| {
        schema
            .options
            .get("merge-engine")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("first-row"))
    })
}

/// What a batch read of the latest snapshot returns for a lost commit's rows, and why: with
/// deletion vectors (or `merge-engine = first-row`) a batch scan of a primary-key table skips
/// level-0 files (`paimon-format.md` §3.8), and the lost COMPACT is what would have moved the
/// APPEND's level-0 files up and written the deletion vectors hiding the old rows (§4.8); so
/// the batch view is stale while those files are still at level 0 in the latest snapshot, and
/// current once a later compaction moved them. Without either option a batch read merges
/// level-0 files and holds the commit's values.
fn batch_impact(t: &Timeline, a: &Append<'_>, at_level0: Option<bool>) -> (BatchImpact, String) {
    let Some(schema) = t.latest_schema() else {
        return (
            BatchImpact::Unknown,
            "the table's schema could not be read, so whether its batch reads skip level-0 files (deletion vectors, first-row) cannot be told".to_string(),
        );
    };
    let first_row = first_row(t);
    let dv = t.options.deletion_vectors;
    if schema.primary_keys.is_empty() || !(dv || first_row) {
        return (
            BatchImpact::Current,
            "batch reads of this table merge level-0 files (no deletion vectors, merge-engine is not first-row), so a batch read of the latest snapshot returns this commit's values".to_string(),
        );
    }
    let why = if dv {
        "deletion-vectors.enabled = true"
    } else {
        "merge-engine = first-row"
    };
    let id = a.id;
    match at_level0 {
        Some(true) => (
            BatchImpact::Stale,
            format!(
                "{why}: a batch read skips level-0 files until they are compacted, and snapshot {id}'s level-0 files are still at level 0 in the latest snapshot, so a batch read returns the values from before this commit (the lost COMPACT would have compacted them{})",
                if dv { " and written the deletion vectors hiding the old rows" } else { "" }
            ),
        ),
        Some(false) => (
            BatchImpact::Current,
            format!(
                "{why}: a batch read skips level-0 files, but snapshot {id}'s are no longer at level 0 in the latest snapshot (a later compaction moved them up), so a batch read returns their values"
            ),
        ),
        None => (
            BatchImpact::Unknown,
            format!(
                "{why}: a batch read skips level-0 files until they are compacted, and whether snapshot {id}'s level-0 files are still at level 0 in the latest snapshot cannot be told (its files could not be resolved)"
            ),
        ),
    }
}

/// The remedy of a `lost-changelog` finding, for what a batch read returns (§6.2).
fn lost_remedy(batch: BatchImpact, append_id: i64, dv: bool) -> String {
    const KEEP: &str = "Do not run remove_orphan_files (it would delete the evidence).";
    const UPGRADE: &str = "Upgrade to a Paimon whose recovery handles incomplete APPEND/COMPACT pairs (apache/paimon#5796 for Flink lookup, 1.3+).";
    match batch {
        BatchImpact::Current => format!(
            "{KEEP} Re-deliver the changes downstream: rebuild the affected keys from a batch read of the table (it holds this commit's values), or trigger a full compaction (CALL sys.compact with compact_strategy => 'full') so the current values are emitted as changelog, then reset affected consumers to before snapshot {append_id} (reset_consumer, reader stopped). {UPGRADE}"
        ),
        BatchImpact::Stale => format!(
            "{KEEP} The batch view is stale too, so do not rebuild downstream from a batch read yet. First run a compaction that rewrites the affected bucket (a full compaction of that partition: CALL sys.compact in batch mode, with compact_strategy => 'full' from Paimon 1.0): it moves snapshot {append_id}'s level-0 files up{}, after which a batch read returns the current values and the compaction's changelog carries the changes. Then re-deliver the affected keys downstream from a batch read taken after that compaction, and reset affected consumers to before snapshot {append_id} (reset_consumer, reader stopped). {UPGRADE}",
            if dv { " and writes their deletion vectors" } else { "" }
        ),
        BatchImpact::Unknown => format!(
            "{KEEP} Whether a batch read holds the right values cannot be told, so first run a compaction that rewrites the affected bucket (a full compaction of that partition: CALL sys.compact in batch mode, with compact_strategy => 'full' from Paimon 1.0): after it a batch read returns the current values either way. Then re-deliver the affected keys downstream from a batch read taken after that compaction, and reset affected consumers to before snapshot {append_id} (reset_consumer, reader stopped). {UPGRADE}"
        ),
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
                f.deleted(&b.catalog)
                    .any(|e| a.added_names.contains(e.file().file_name()))
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

fn tie_reason(same_writer: bool, timed: bool) -> &'static str {
    match (same_writer, timed) {
        (true, true) => {
            "written by the same writer instance as the APPEND's files, within the commit's time window"
        }
        (true, false) => "written by the same writer instance as the APPEND's files",
        (false, _) => "written in the same bucket within the commit's time window",
    }
}

fn rows_phrase(added: &[ManifestEntry<'_>], delta: Option<i64>) -> String {
    let rows: i64 = added.iter().map(|e| e.file().row_count()).sum();
    if rows > 0 {
        format!("{rows} row{}", if rows == 1 { "" } else { "s" })
    } else {
        match delta {
            Some(d) => format!("{d} row{}", if d == 1 { "" } else { "s" }),
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

#[cfg(test)]
mod tests {

    use super::*;
    use crate::paimon::index_manifest::IndexManifestEntry;
    use std::rc::Rc;

    use crate::paimon::manifest::{DataFiles, EntryRow};
    use crate::timeline::files::{
        BucketFiles, Entries, GhostCommit, OrphanIndexManifest, SnapshotFiles,
    };
    use crate::timeline::groups::commit_groups;
    use crate::timeline::testkit::{timeline, timeline_with_files};

    const HOUR: i64 = 3_600_000;
    const LOOKUP: [(&str, &str); 1] = [("changelog-producer", "lookup")];
    /// The writer instance of the lost APPEND's files, and two others.
    const U: &str = "aaaaaaaa-0000-0000-0000-000000000001";
    const V: &str = "aaaaaaaa-0000-0000-0000-000000000002";
    const W: &str = "aaaaaaaa-0000-0000-0000-000000000003";

    /// Writer `w` commits identifier 1 (APPEND 1, COMPACT 2), identifier 2 (APPEND 3 at 3 h,
    /// whose COMPACT is the one in question) and identifier 3 (APPEND 4 at 4 h).
    const SNAPSHOTS: [(i64, &str, &str, i64, i64); 4] = [
        (1, "APPEND", "w", 1, HOUR),
        (2, "COMPACT", "w", 1, 2 * HOUR),
        (3, "APPEND", "w", 2, 3 * HOUR),
        (4, "APPEND", "w", 3, 4 * HOUR),
    ];

    /// A manifest entry of a level-0 file of 5 rows, unpartitioned: kind, name, bucket.
    type Spec = (FileKind, String, i32);

    fn entry(kind: FileKind, name: &str, bucket: i32) -> Spec {
        (kind, name.to_string(), bucket)
    }

    /// The rows of `specs`, over their own files.
    fn rows(specs: &[Spec]) -> (Rc<DataFiles>, Vec<EntryRow>) {
        let all: Vec<_> = specs
            .iter()
            .map(|(k, n, b)| (*k, &[][..], *b, n.as_str(), 0, 5))
            .collect();
        crate::timeline::catalog::rows_for_test(&all)
    }

    /// The APPEND's one level-0 file, `data-U-0.parquet` in bucket 0.
    fn appended() -> Spec {
        entry(FileKind::Add, &format!("data-{U}-0.parquet"), 0)
    }

    /// Snapshot 3 added [`appended`], still live at level 0.
    fn branch() -> BranchFiles {
        branch_with(&[]).0
    }

    /// [`branch`], its files describing `more` entries too, whose rows are returned.
    fn branch_with(more: &[Spec]) -> (BranchFiles, Vec<EntryRow>) {
        let mut specs = vec![appended()];
        specs.extend_from_slice(more);
        let (catalog, mut rows) = rows(&specs);
        let more = rows.split_off(1);
        let b = BranchFiles {
            catalog,
            snapshots: BTreeMap::from([(
                3,
                SnapshotFiles {
                    delta: rows.clone().into(),
                    changelog: Entries::new(),
                    complete: true,
                },
            )]),
            live_latest: Some(rows),
            dangling: Vec::new(),
        };
        (b, more)
    }

    fn orphan(relative: &str, kind: OrphanKind, modified: Option<i64>) -> Orphan {
        Orphan {
            path: format!("db.db/t/{relative}"),
            relative: relative.to_string(),
            kind,
            size: 10,
            modified: modified.map(FileTime::Utc),
        }
    }

    /// The orphan changelog file of the APPEND's writer instance, written at 3 h.
    fn own_changelog() -> Orphan {
        orphan(
            &format!("bucket-0/changelog-{U}-0.parquet"),
            OrphanKind::Changelog,
            Some(3 * HOUR),
        )
    }

    /// A ghost commit of these entries (given their rows by [`with_ghosts`]).
    fn ghost(name: &str, entries: Vec<Spec>, sibling: &[(&str, i64)]) -> (GhostCommit, Vec<Spec>) {
        let g = GhostCommit {
            committer: name.to_string(),
            lists: vec![format!("manifest/manifest-list-{name}-0")],
            entries: Entries::new(),
            manifests: vec![format!("manifest/manifest-{name}-0")],
            sibling_snapshots: sibling.iter().map(|(b, id)| (b.to_string(), *id)).collect(),
            modified: Some(FileTime::Utc(3 * HOUR)),
            unreadable: Vec::new(),
        };
        (g, entries)
    }

    /// `root` with `ghosts`, their entries' rows over the root's files.
    fn with_ghosts(root: RootFiles, ghosts: Vec<(GhostCommit, Vec<Spec>)>) -> RootFiles {
        let ghosts = ghosts
            .iter()
            .map(|(g, specs)| {
                let entries = specs
                    .iter()
                    .map(|(k, n, b)| (*k, &[][..], *b, n.as_str(), 0, 5))
                    .collect();
                (g.clone(), entries)
            })
            .collect();
        root.with_ghosts_for_test(ghosts)
    }

    fn snapshot(kind: &str, user: &str, identifier: i64) -> Snapshot {
        let json = format!(
            r#"{{"version": 3, "id": 5, "schemaId": 0, "baseManifestList": "b", "deltaManifestList": "d", "commitUser": "{user}", "commitIdentifier": {identifier}, "commitKind": "{kind}", "timeMillis": {}, "changelogRecordCount": 5}}"#,
            3 * HOUR
        );
        Snapshot::parse(json.as_bytes()).unwrap()
    }

    /// What the check is given.
    struct Scene {
        t: Timeline,
        branch: Option<BranchFiles>,
        root: Option<RootFiles>,
        temps: Vec<(String, Snapshot)>,
        unknowable: Unknowable,
    }

    impl Scene {
        /// [`SNAPSHOTS`] with [`branch`] and `root`.
        fn new(root: RootFiles) -> Self {
            Scene {
                t: timeline(&LOOKUP, &SNAPSHOTS, &[]),
                branch: Some(branch()),
                root: Some(root),
                temps: Vec::new(),
                unknowable: Unknowable::default(),
            }
        }

        fn run(&self) -> ChangelogFindings {
            let groups = commit_groups(&self.t);
            let temp: Vec<TempSnapshot<'_>> = self
                .temps
                .iter()
                .map(|(path, snapshot)| TempSnapshot {
                    path: path.clone(),
                    snapshot,
                })
                .collect();
            let clock = Clock::given(10 * HOUR);
            check(
                &self.t,
                &groups,
                self.branch.as_ref(),
                self.root.as_ref(),
                &temp,
                &self.unknowable,
                &clock,
            )
        }
    }

    /// The files of the one lost commit, snapshot 3.
    fn lost_files(out: &ChangelogFindings) -> Vec<String> {
        assert_eq!(out.lost.len(), 1, "{:#?}", out.findings);
        assert_eq!(out.lost[0].snapshot, 3);
        out.lost[0].files.clone()
    }

    fn lost_finding(out: &ChangelogFindings) -> &Finding {
        let lost: Vec<&Finding> = out
            .findings
            .iter()
            .filter(|f| f.code == Code::LostChangelog)
            .collect();
        assert_eq!(lost.len(), 1, "{:#?}", out.findings);
        lost[0]
    }

    fn codes(out: &ChangelogFindings) -> Vec<(Code, Option<i64>)> {
        out.findings.iter().map(|f| (f.code, f.snapshot)).collect()
    }

    /// Without the snapshot's files, its record count says whether it wrote rows.
    #[test]
    fn an_append_whose_files_are_unknown_is_judged_by_its_record_count() {
        let scene = Scene {
            t: timeline(&LOOKUP, &[(1, "APPEND", "w", 1, HOUR)], &[]),
            branch: None,
            root: None,
            temps: Vec::new(),
            unknowable: Unknowable::default(),
        };
        let out = scene.run();
        assert_eq!(codes(&out), [(Code::PendingChangelog, Some(1))]);
        assert!(out.lost.is_empty());
    }

    /// Without the files, only the writer's last APPEND is pending: an earlier one was followed
    /// by the writer's next commit, and nothing tells whether its files were compacted.
    #[test]
    fn without_files_only_the_writers_last_append_is_pending() {
        let snaps = [(1, "APPEND", "w", 1, HOUR), (2, "APPEND", "w", 2, 2 * HOUR)];
        let scene = Scene {
            t: timeline(&LOOKUP, &snaps, &[]),
            branch: None,
            root: None,
            temps: Vec::new(),
            unknowable: Unknowable::default(),
        };
        let out = scene.run();
        assert_eq!(codes(&out), [(Code::PendingChangelog, Some(2))]);
        assert_eq!(out.findings[0].related_snapshots, [2]);
    }

    /// A temp file holding the COMPACT is proof on its own, even when the APPEND's files are
    /// unknown; the rows are then counted from the snapshot's record count.
    #[test]
    fn a_temp_compact_alone_proves_the_loss_and_counts_the_snapshots_records() {
        let path = "snapshot/.snapshot-5.aaaa.tmp".to_string();
        let scene = Scene {
            t: timeline(&LOOKUP, &SNAPSHOTS, &[]),
            branch: None,
            root: None,
            temps: vec![(path.clone(), snapshot("COMPACT", "w", 2))],
            unknowable: Unknowable::default(),
        };
        let out = scene.run();
        assert_eq!(lost_files(&out), [path]);
        let f = lost_finding(&out);
        assert!(
            f.message
                .contains("the changelog for its 1 row was not committed"),
            "{}",
            f.message
        );
    }

    /// A temp snapshot is evidence only when it is the COMPACT of this user and identifier.
    #[test]
    fn only_a_temp_compact_of_the_same_commit_is_evidence() {
        let mut scene = Scene::new(RootFiles::default());
        scene.temps = vec![
            (
                "snapshot/.snapshot-5.a.tmp".into(),
                snapshot("COMPACT", "other", 7),
            ),
            (
                "snapshot/.snapshot-5.b.tmp".into(),
                snapshot("APPEND", "other", 2),
            ),
            (
                "snapshot/.snapshot-5.c.tmp".into(),
                snapshot("COMPACT", "w", 9),
            ),
        ];
        let out = scene.run();
        assert!(out.lost.is_empty(), "{:#?}", out.findings);
        // Pending, and without bucket directories in the artifact, beyond telling.
        assert_eq!(codes(&out), [(Code::ArtifactIncomplete, Some(3))]);
    }

    /// An unpublished commit of the same committer that compacts the APPEND's file and adds
    /// changelog proves the loss alone; its changelog file joins the lost files by its path.
    #[test]
    fn a_ghost_commit_alone_proves_the_loss() {
        let changelog = format!("changelog-{V}-0.parquet");
        let root = with_ghosts(
            RootFiles {
                orphans: vec![
                    orphan(
                        &format!("bucket-0/data-{W}-0.parquet"),
                        OrphanKind::Data,
                        None,
                    ),
                    orphan(
                        &format!("bucket-0/{changelog}"),
                        OrphanKind::Changelog,
                        None,
                    ),
                ],
                ..RootFiles::default()
            },
            vec![ghost(
                "g",
                vec![
                    entry(FileKind::Delete, &format!("data-{U}-0.parquet"), 0),
                    entry(FileKind::Add, &changelog, 0),
                ],
                &[("main", 3)],
            )],
        );
        let out = Scene::new(root).run();
        assert_eq!(
            lost_files(&out),
            [
                "manifest/manifest-list-g-0".to_string(),
                "manifest/manifest-g-0".to_string(),
                format!("bucket-0/{changelog}"),
            ]
        );
        assert!(out.explained.contains("manifest/manifest-g-0"));
    }

    /// An unreadable manifest of this commit's ghost (its committer wrote snapshot 3's lists on
    /// this branch) leaves the loss unknown; one of another commit's ghost, or of a ghost on
    /// another branch, does not.
    #[test]
    fn only_this_commits_unreadable_ghost_leaves_its_loss_unknown() {
        let unreadable = |name: &str, sibling: (&str, i64)| {
            let (mut g, e) = ghost(name, vec![], &[sibling]);
            g.unreadable = vec![format!("manifest/manifest-{name}-9")];
            (g, e)
        };
        let incomplete = |ghosts| {
            let out = Scene::new(with_ghosts(RootFiles::default(), ghosts)).run();
            out.findings
                .iter()
                .filter(|f| {
                    f.code == Code::ArtifactIncomplete && f.message.contains("could not be read")
                })
                .map(|f| f.files.clone())
                .collect::<Vec<_>>()
        };
        assert!(incomplete(vec![
            unreadable("earlier", ("main", 1)),
            unreadable("branch", ("b1", 3))
        ])
        .is_empty());
        assert_eq!(
            incomplete(vec![unreadable("g", ("main", 3))]),
            [vec!["manifest/manifest-g-9".to_string()]]
        );
    }

    /// A ghost commit is this commit's when the same committer wrote snapshot 3's lists (on
    /// this branch) or when it deletes the APPEND's files; other ghosts are not evidence.
    #[test]
    fn a_ghost_is_the_commits_by_its_sibling_snapshot_or_its_deletes() {
        let root = with_ghosts(
            RootFiles::default(),
            vec![
                ghost(
                    "g",
                    vec![
                        entry(FileKind::Delete, &format!("data-{W}-0.parquet"), 0),
                        entry(FileKind::Add, &format!("changelog-{V}-0.parquet"), 0),
                    ],
                    &[("main", 3)],
                ),
                ghost(
                    "earlier",
                    vec![entry(FileKind::Add, &format!("changelog-{V}-1.parquet"), 0)],
                    &[("main", 1)],
                ),
                ghost(
                    "branch",
                    vec![entry(FileKind::Add, &format!("changelog-{V}-2.parquet"), 0)],
                    &[("b1", 3)],
                ),
            ],
        );
        let out = Scene::new(root).run();
        assert_eq!(
            lost_files(&out),
            ["manifest/manifest-list-g-0", "manifest/manifest-g-0"]
        );
        let f = lost_finding(&out);
        let line = format!(
            "describe a commit that deletes 1 file (none of them the APPEND's) and adds changelog changelog-{V}-0.parquet (5 rows)"
        );
        assert!(
            f.evidence.iter().any(|e| e.contains(&line)),
            "{:#?}",
            f.evidence
        );
        assert!(
            f.evidence.iter().any(|e| e.starts_with(&format!(
                "changelog-{V}-0.parquet, named by the unpublished commit, is not in the artifact"
            ))),
            "{:#?}",
            f.evidence
        );
    }

    /// A commit in flight (a temp APPEND of the same writer, at 5 h) takes only what was written
    /// after the writer's last published commit (4 h): the changelog written at 3 h, in snapshot
    /// 3's window, stays snapshot 3's lost COMPACT's.
    #[test]
    fn a_commit_in_flight_takes_only_files_written_after_the_writers_last_commit() {
        let in_flight = |written: i64| {
            let root = RootFiles {
                orphans: vec![orphan(
                    &format!("bucket-0/changelog-{U}-0.parquet"),
                    OrphanKind::Changelog,
                    Some(written),
                )],
                ..RootFiles::default()
            };
            let mut scene = Scene::new(root);
            let json = format!(
                r#"{{"version": 3, "id": 5, "schemaId": 0, "baseManifestList": "b", "deltaManifestList": "d", "commitUser": "w", "commitIdentifier": 4, "commitKind": "APPEND", "timeMillis": {}}}"#,
                5 * HOUR
            );
            let tmp = Snapshot::parse(json.as_bytes()).unwrap();
            scene
                .temps
                .push(("snapshot/.snapshot-5.tmp".to_string(), tmp));
            scene.run()
        };
        assert_eq!(in_flight(3 * HOUR).lost.len(), 1);
        // Written after 4 h: in no window of snapshot 3's, the commit in flight's.
        assert!(in_flight(4 * HOUR + HOUR / 2).lost.is_empty());
    }

    /// A ghost commit that deletes the APPEND's files is its lost COMPACT even when it names no
    /// changelog (and no sibling snapshot ties it).
    #[test]
    fn a_ghost_that_compacts_the_append_without_changelog_is_still_its_evidence() {
        let root = with_ghosts(
            RootFiles {
                orphans: vec![own_changelog()],
                ..RootFiles::default()
            },
            vec![ghost(
                "d",
                vec![entry(FileKind::Delete, &format!("data-{U}-0.parquet"), 0)],
                &[],
            )],
        );
        let out = Scene::new(root).run();
        assert_eq!(
            lost_files(&out),
            [
                own_changelog().relative,
                "manifest/manifest-list-d-0".to_string(),
                "manifest/manifest-d-0".to_string(),
            ]
        );
        let f = lost_finding(&out);
        assert!(
            f.evidence.iter().any(|e| e
                .contains("(among them the APPEND's level-0 files) and adds changelog nothing")),
            "{:#?}",
            f.evidence
        );
    }

    /// An unknowable window from 2.6 h (± 1 s): files written then may be an unreadable
    /// snapshot's.
    /// The check on `root`, beside an unreadable snapshot (99) whose write time may be 2.6 h:
    /// what was written then may be its, not the lost COMPACT's.
    fn run_beside_an_unreadable_snapshot_at_2_6h(root: RootFiles) -> ChangelogFindings {
        let at = 2 * HOUR + 6 * HOUR / 10;
        let mut scene = Scene::new(root);
        scene.unknowable = Unknowable {
            windows: vec![(99, Some(at - 1_000), Some(at + 1_000))],
            everything: false,
            zip_offset: None,
        };
        scene.run()
    }

    /// Orphan changelog files are evidence when the APPEND's writer instance wrote them, or
    /// when they are in its bucket and its window; not when they may be an unreadable
    /// snapshot's, nor when only the time fits (another bucket, another writer).
    #[test]
    fn orphans_are_evidence_only_when_tied_to_the_writer_or_its_bucket_and_window() {
        let root = RootFiles {
            orphans: vec![
                own_changelog(),
                orphan(
                    &format!("bucket-0/changelog-{U}-1.parquet"),
                    OrphanKind::Changelog,
                    Some(2 * HOUR + 6 * HOUR / 10),
                ),
                orphan(
                    &format!("bucket-1/changelog-{W}-0.parquet"),
                    OrphanKind::Changelog,
                    Some(3 * HOUR),
                ),
                orphan(
                    &format!("bucket-0/changelog-{W}-1.parquet"),
                    OrphanKind::Changelog,
                    Some(3 * HOUR + HOUR / 2),
                ),
                orphan(
                    &format!("bucket-0/changelog-{W}-2.parquet"),
                    OrphanKind::Changelog,
                    Some(5 * HOUR),
                ),
            ],
            data_files_by_name: BucketFiles::of_paths(&[&format!(
                "db.db/t/bucket-0/data-{U}-0.parquet"
            )]),
            ..RootFiles::default()
        };
        let out = run_beside_an_unreadable_snapshot_at_2_6h(root);
        assert_eq!(
            lost_files(&out),
            [
                own_changelog().relative,
                format!("bucket-0/changelog-{W}-1.parquet")
            ]
        );
        let f = lost_finding(&out);
        assert!(
            f.evidence.iter().any(|e| e.ends_with(
                "references it; written in the same bucket within the commit's time window"
            )),
            "{:#?}",
            f.evidence
        );
        assert!(
            f.evidence.iter().any(|e| e.ends_with(
                "no snapshot, tag or long-lived changelog references it; written by the same writer instance as the APPEND's files, within the commit's time window"
            )),
            "{:#?}",
            f.evidence
        );
    }

    fn index_manifest(
        name: &str,
        hours_x10: i64,
        entries: &[(FileKind, &str, i32, &str)],
    ) -> OrphanIndexManifest {
        OrphanIndexManifest {
            relative: format!("manifest/{name}"),
            entries: entries
                .iter()
                .map(|(kind, index_type, bucket, file)| IndexManifestEntry {
                    version: 1,
                    kind: *kind,
                    partition: Vec::new(),
                    bucket: *bucket,
                    index_type: index_type.to_string(),
                    file_name: file.to_string(),
                    file_size: 10,
                    row_count: 1,
                    deletion_vector_ranges: None,
                    external_path: None,
                })
                .collect(),
            modified: Some(FileTime::Utc(hours_x10 * HOUR / 10)),
        }
    }

    /// The lost COMPACT's deletion vectors: an unreferenced index manifest written in the
    /// commit window (after the writer's previous snapshot at 2 h, before its next at 4 h, ± 2
    /// s) that adds a deletion-vector file for the APPEND's bucket. Not one written before or
    /// after the window, nor one that may be an unreadable snapshot's, nor the entries that are
    /// a DELETE, another index type or another bucket.
    #[test]
    fn the_lost_compacts_deletion_vectors_are_written_in_its_window_for_its_buckets() {
        const DV: &str = "DELETION_VECTORS";
        let files = ["A", "B", "C", "D", "E", "F", "G"];
        let mut orphans = vec![own_changelog()];
        orphans.extend(
            files
                .iter()
                .map(|f| orphan(&format!("index/index-{f}"), OrphanKind::Index, None)),
        );
        let root = RootFiles {
            orphans,
            orphan_index_manifests: vec![
                // Between the writer's previous snapshot and the APPEND: the lost COMPACT's.
                index_manifest("im-a", 25, &[(FileKind::Add, DV, 0, "index-A")]),
                // Before the writer's previous snapshot, after its next, in the unknowable
                // window.
                index_manifest("im-b", 19, &[(FileKind::Add, DV, 0, "index-B")]),
                index_manifest("im-c", 41, &[(FileKind::Add, DV, 0, "index-C")]),
                index_manifest("im-d", 26, &[(FileKind::Add, DV, 0, "index-D")]),
                // In the window, none of its entries the APPEND's deletion vectors.
                index_manifest(
                    "im-e",
                    30,
                    &[
                        (FileKind::Delete, DV, 0, "index-E"),
                        (FileKind::Add, "HASH", 0, "index-F"),
                        (FileKind::Add, DV, 7, "index-G"),
                    ],
                ),
            ],
            ..RootFiles::default()
        };
        let out = run_beside_an_unreadable_snapshot_at_2_6h(root);
        assert_eq!(
            lost_files(&out),
            [
                own_changelog().relative,
                "manifest/im-a".to_string(),
                "index/index-A".to_string(),
            ]
        );
    }

    /// A later snapshot that compacted the APPEND's files without changelog is told apart
    /// from a partial loss.
    #[test]
    fn a_later_compaction_without_changelog_is_not_a_partial_loss() {
        let mut scene = Scene::new(RootFiles {
            orphans: vec![own_changelog()],
            ..RootFiles::default()
        });
        let (mut b, delete) =
            branch_with(&[entry(FileKind::Delete, &format!("data-{U}-0.parquet"), 0)]);
        b.snapshots.insert(
            4,
            SnapshotFiles {
                delta: delete.into(),
                changelog: Entries::new(),
                complete: true,
            },
        );
        scene.branch = Some(b);
        let out = scene.run();
        let f = lost_finding(&out);
        assert_eq!(f.related_snapshots, [4]);
        assert!(
            f.evidence.iter().any(|e| e
                == "snapshot 4 later compacted these files without producing changelog for them"),
            "{:#?}",
            f.evidence
        );
        assert!(!f.evidence.iter().any(|e| e.starts_with("partial loss")));
    }

    /// An unreadable snapshot between the APPEND and the writer's next commit may be its
    /// COMPACT half: then nothing can be told. One before the APPEND or after the writer's next
    /// commit blocks nothing.
    #[test]
    fn only_an_unreadable_snapshot_before_the_writers_next_blocks_the_verdict() {
        let garbage = [("snapshot/snapshot-2", "{not json")];
        let blocked = |snaps: &[(i64, &str, &str, i64, i64)]| {
            let scene = Scene {
                t: timeline_with_files(&LOOKUP, snaps, &[], &garbage),
                branch: None,
                root: None,
                temps: Vec::new(),
                unknowable: Unknowable::default(),
            };
            let out = scene.run();
            out.findings
                .iter()
                .filter(|f| f.code == Code::ArtifactIncomplete)
                .map(|f| (f.snapshot, f.related_snapshots.clone()))
                .collect::<Vec<_>>()
        };
        // Between APPEND 1 and the writer's next commit 3.
        let between = blocked(&[(1, "APPEND", "w", 1, HOUR), (3, "APPEND", "w", 2, 3 * HOUR)]);
        assert_eq!(between, [(Some(1), vec![2])]);
        // Before APPEND 3, the writer's last; after APPEND 1's next commit.
        let around = blocked(&[
            (1, "APPEND", "w", 1, HOUR),
            (3, "APPEND", "w", 2, 3 * HOUR),
            (4, "APPEND", "w", 3, 4 * HOUR),
        ]);
        assert_eq!(around, [(Some(1), vec![2])]);
        let after = blocked(&[
            (3, "APPEND", "w", 2, 3 * HOUR),
            (4, "APPEND", "w", 3, 4 * HOUR),
        ]);
        assert!(after.is_empty(), "{after:?}");
    }
}
