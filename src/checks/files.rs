//! Files: what is left over, and what could not be checked? (Missing files are
//! [`super::dangling`]'s.)
//!
//! * `orphan-file` — a file under the table that nothing references (the definition of Paimon's
//!   own `remove_orphan_files`, `paimon-format.md` §4.7), with its cause where the artifact shows
//!   one: left by a rollback or a fast-forward (unreferenced manifest lists that build on files other unreferenced
//!   lists added, which only published snapshots can), by an expiration that did not clean up
//!   (every data file their lists name is still referenced, and earlier snapshots are gone), by
//!   an OVERWRITE (the changelog its writer produced, which Paimon's overwrite never commits,
//!   §4.7: tied by the writer UUID of the data files the OVERWRITE added, §1.2), else a commit
//!   that never became durable or was in flight at capture time (by file age). Orphans
//!   that the lost-changelog check tied to a commit are reported there instead.
//! * `artifact-incomplete` — the artifact lacks whole directories a check needs (`manifest/`,
//!   the bucket directories, the roots of external data paths, §1.3), so those checks cannot
//!   prove anything either way.
//! * `unreadable-file` — a referenced metadata file that is present but cannot be decoded.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::findings::{Clock, Code, Finding, Severity};
use crate::paimon::snapshot::CommitKind;
use crate::source::FileTime;
use crate::time::{clearly_before, FILE_TIME_TOLERANCE_MS};
use crate::timeline::files::{
    entry_dir, writer_uuid, BranchFiles, Dangling, Holder, Orphan, OrphanKind, RootFiles, Unusable,
};
use crate::timeline::Timeline;

/// Shown per finding before the list is cut (the JSON keeps every file).
pub(super) const EVIDENCE_FILES: usize = 20;

/// `artifact-incomplete` for whole missing directories. Returns the findings and whether the
/// manifests are usable at all.
pub fn incomplete(t: &Timeline, root: &RootFiles) -> (Vec<Finding>, bool) {
    let mut out = Vec::new();
    if t.snapshots.is_empty() {
        return (out, true);
    }
    if !root.has_manifest_dir {
        out.push(
            Finding::new(
                Code::ArtifactIncomplete,
                Severity::Warning,
                "The artifact has no manifest/ directory for this table, so file-level checks (lost changelog, missing and orphan files) cannot prove anything either way.",
                "Capture the whole table directory, including manifest/ and the bucket directories, and run the check again.",
            )
            .evidence(format!(
                "{} snapshots name manifest lists, none of which is in the artifact",
                t.snapshots.len()
            )),
        );
        return (out, false);
    }
    let branch = root.branches.get(&t.location.branch);
    let live_inside = branch.and_then(|b| b.live()).map_or(0, |l| {
        l.filter(|e| e.file().external_path().is_none()).count()
    });
    if !root.has_data_dirs && live_inside > 0 {
        out.push(
            Finding::new(
                Code::ArtifactIncomplete,
                Severity::Warning,
                format!(
                    "The artifact has no bucket directories for this table although its latest snapshot has {live_inside} live file{} inside the table directory, so missing-file and orphan checks were skipped for them.",
                    if live_inside == 1 { "" } else { "s" }
                ),
                "Capture the bucket directories too (data files are not read, only listed; their size does not slow the check).",
            ),
        );
    }
    if let Some(f) = external_outside(t, root, branch) {
        out.push(f);
    }
    (out, true)
}

/// `artifact-incomplete` for external data paths (`data-file.external-paths`, §1.3) whose root
/// the artifact does not hold: those files are outside the artifact, so whether they exist
/// (and what they hold) cannot be checked; files inside the table directory and under held
/// external roots were checked.
fn external_outside(
    t: &Timeline,
    root: &RootFiles,
    branch: Option<&crate::timeline::files::BranchFiles>,
) -> Option<Finding> {
    if root.external_outside.is_empty() {
        return None;
    }
    let outside: Vec<&str> = branch
        .and_then(|b| b.live())
        .into_iter()
        .flatten()
        .filter_map(|e| e.file().external_path())
        .filter(|uri| root.external_outside.values().any(|s| s.contains(*uri)))
        .collect();
    let roots: Vec<&str> = root.external_outside.keys().map(String::as_str).collect();
    let referenced: usize = root.external_outside.values().map(|s| s.len()).sum();
    if outside.is_empty() && t.location.branch != crate::warehouse::MAIN_BRANCH {
        return None; // said once, on the main branch
    }
    let mut f = Finding::new(
        Code::ArtifactIncomplete,
        Severity::Warning,
        format!(
            "{} file{} of this table {} under the external data path{} {}, outside the artifact: whether {} exist and what {} hold cannot be checked ({} of them live in the latest snapshot).",
            referenced,
            if referenced == 1 { "" } else { "s" },
            if referenced == 1 { "is" } else { "are" },
            if roots.len() == 1 { "" } else { "s" },
            roots.join(", "),
            if referenced == 1 { "it" } else { "they" },
            if referenced == 1 { "it" } else { "they" },
            outside.len(),
        ),
        "Capture the external root beside the warehouse (the folder the URIs end in, e.g. <capture>/external/bucket-0/...) and run the check again; files inside the table directory were checked.",
    )
    .evidence(format!(
        "data-file.external-paths = {}",
        t.options.data_file_external_paths.join(",")
    ));
    for uri in outside.iter().take(EVIDENCE_FILES) {
        f = f.evidence(format!("live, not checked: {uri}"));
    }
    if !root.external_present.is_empty() {
        f = f.evidence(format!(
            "{} external files were found under held roots",
            root.external_present.len()
        ));
    }
    Some(f)
}

/// `unreadable-file` for referenced metadata files that are present but cannot be decoded: a
/// truncated manifest, on which Paimon's readers fail for every snapshot that names it (an
/// error), or one whose content is unknown, a damaged copy or a codec this tool does not decode
/// (a warning: [`crate::checks::integrity::readers_fail`]).
pub fn unreadable_references(branch: &BranchFiles, root: &RootFiles) -> Vec<Finding> {
    let mut by_file: BTreeMap<&str, (Vec<&Holder>, &Dangling, &crate::error::Error)> =
        BTreeMap::new();
    for d in &branch.dangling {
        if let Unusable::Unreadable(error) = &d.why {
            let slot = by_file
                .entry(d.file.as_str())
                .or_insert((Vec::new(), d, error));
            slot.0.push(&d.holder);
        }
    }
    let uncertain_orphans = root
        .orphans
        .iter()
        .filter(|o| matches!(o.kind, OrphanKind::Data | OrphanKind::Changelog))
        .count();
    by_file
        .into_iter()
        .map(|(file, (holders, d, error))| {
            let who: Vec<String> = holders.iter().take(10).map(|h| h.to_string()).collect();
            let more = holders.len().saturating_sub(who.len());
            let (severity, readers) = crate::checks::integrity::readers_fail(
                error,
                Severity::Error,
                &format!(
                    "Paimon's readers fail on {} too",
                    if holders.len() == 1 { "it" } else { "them" }
                ),
            );
            let mut f = crate::checks::integrity::unreadable(
                file.to_string(),
                error,
                severity,
                format!(
                    "{}{} {} this {}{}{readers}",
                    who.join(", "),
                    if more > 0 {
                        format!(" (and {more} more)")
                    } else {
                        String::new()
                    },
                    if holders.len() == 1 { "references" } else { "reference" },
                    d.kind,
                    if error.kind().is_in_content() { ", and " } else { "; " },
                ),
            );
            let snapshots: Vec<i64> = holders
                .iter()
                .filter_map(|h| match h {
                    Holder::Snapshot { id, .. } => Some(*id),
                    _ => None,
                })
                .collect();
            if let Some(first) = snapshots.first() {
                f = f.snapshot(*first).related(snapshots.iter().copied());
            }
            if uncertain_orphans > 0 {
                f = f.evidence(format!(
                    "{uncertain_orphans} file{} in the bucket directories that no readable manifest names may be named by this one, so they are not reported as orphans",
                    if uncertain_orphans == 1 { "" } else { "s" }
                ));
            }
            f
        })
        .collect()
}

/// Why files are unreferenced, as far as the artifact shows (`paimon-format.md` §4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cause {
    /// Of snapshots that were published and then removed, as a rollback that leaves files does:
    /// one unreferenced commit's lists hold files another unreferenced commit added. A commit's
    /// base list is built from the published previous snapshot, so an unpublished commit never
    /// builds on another unpublished one.
    RolledBack,
    /// Of expired snapshots whose files were not cleaned: every data file their lists name is
    /// still referenced by the retained snapshots, and snapshots below the earliest are gone.
    Expired,
    /// Of a commit attempt that was retried: every data file its lists add is referenced by a
    /// retained snapshot, and no snapshot has expired, so a published commit holds them (a
    /// writer that retries after a conflict without deleting the failed attempt's manifests,
    /// as pypaimon does; Java's commit deletes them, `paimon-format.md` §4.7). Those files must
    /// be added by a snapshot committed at or after the lists were written (within the 2 s of
    /// file times): a commit that died after writing only its base list repeats older files,
    /// unless it died within 2 s of the snapshot that added them, which reads the same.
    Retried,
    /// Changelog files the writer of this OVERWRITE snapshot wrote (they share its added data
    /// files' writer UUID, `paimon-format.md` §1.2), which Paimon's overwrite never commits
    /// (§4.7, `FileStoreCommitImpl.overwrite`).
    OverwriteChangelog(i64, OverwriteTie),
    /// No such evidence; written around or after the newest snapshot (in flight, or its
    /// writer died).
    Young,
    /// No such evidence; older than the newest snapshot.
    Old,
    /// No such evidence, and no modification time (or no snapshot time) to compare.
    Unknown,
}

/// The unreferenced files whose snapshots the artifact shows were published and later removed
/// by a rollback or a fast-forward ([`Cause::RolledBack`]): their rows were in the table once
/// and were removed on purpose, not skipped by a job (`rows-only-in-orphan-files` leaves them
/// out).
pub fn rolled_back(timelines: &[&Timeline], root: &RootFiles, offset: Option<i64>) -> Vec<String> {
    published_ghosts(timelines, root, offset)
        .into_iter()
        .filter(|(_, cause)| *cause == Cause::RolledBack)
        .map(|(path, _)| path.to_string())
        .collect()
}

/// The orphan lists, manifests, data and changelog files of ghost commits (unreferenced
/// manifest lists, by committer) that the artifact shows were published: rolled back, or
/// expired without clean-up. Everything else is left to the age-based causes.
fn published_ghosts<'r>(
    timelines: &[&Timeline],
    root: &'r RootFiles,
    offset: Option<i64>,
) -> HashMap<&'r str, Cause> {
    let is_changelog =
        |name: &str| name.starts_with("changelog-") || name.starts_with("compacted-changelog-");
    let new_data = |g: &'r crate::timeline::files::GhostCommit| -> HashSet<&'r str> {
        g.entries
            .iter(&root.catalog)
            .filter(|e| e.kind() == crate::paimon::manifest::FileKind::Add)
            .map(|e| e.file())
            .filter(|f| !is_changelog(f.file_name()) && !root.referenced.contains_file(*f))
            .map(|f| f.file_name())
            .collect()
    };
    let news: Vec<HashSet<&str>> = root.ghosts.iter().map(new_data).collect();
    // Which ghost added each new file; a ghost whose lists hold another's new file builds on
    // it, and both were published.
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, mine) in news.iter().enumerate() {
        for n in mine {
            owner.entry(n).or_insert(i);
        }
    }
    let mut chained = vec![false; root.ghosts.len()];
    for (i, g) in root.ghosts.iter().enumerate() {
        for e in g.entries.iter(&root.catalog) {
            if let Some(&j) = owner.get(e.file().file_name()) {
                if j != i {
                    if let Some(c) = chained.get_mut(i) {
                        *c = true;
                    }
                    if let Some(c) = chained.get_mut(j) {
                        *c = true;
                    }
                }
            }
        }
    }
    let expired_before = timelines
        .first()
        .and_then(|t| t.earliest())
        .is_some_and(|e| e > 1);
    let mut out = HashMap::new();
    // Built at the first ghost that needs it, once for all.
    let mut added_at: Option<HashMap<&str, i64>> = None;
    for (i, g) in root.ghosts.iter().enumerate() {
        let names: HashSet<&str> = g
            .entries
            .iter(&root.catalog)
            .map(|e| e.file().file_name())
            .collect();
        let Some(mine) = news.get(i) else { continue };
        let chained = chained.get(i).copied().unwrap_or(false);
        // Files its lists add that a snapshot committed after they were written adds too.
        let mut republished = || {
            let Some(written) = g.modified.map(|m| m.to_utc_millis(offset)) else {
                return false;
            };
            let added_at = added_at.get_or_insert_with(|| last_added(timelines, root));
            g.entries.iter(&root.catalog).any(|e| {
                e.kind() == crate::paimon::manifest::FileKind::Add
                    && added_at
                        .get(e.file().file_name())
                        .is_some_and(|&at| !crate::time::clearly_before(at, written))
            })
        };
        let cause = if chained && !mine.is_empty() {
            Cause::RolledBack
        } else if mine.is_empty() && expired_before && !g.entries.is_empty() {
            Cause::Expired
        } else if mine.is_empty() && !expired_before && republished() {
            Cause::Retried
        } else {
            continue;
        };
        for path in g.lists.iter().chain(&g.manifests) {
            out.insert(path.as_str(), cause);
        }
        for o in &root.orphans {
            let (_, name) = crate::warehouse::split_parent(&o.relative);
            if names.contains(name) && matches!(o.kind, OrphanKind::Data | OrphanKind::Changelog) {
                out.insert(o.relative.as_str(), cause);
            }
        }
    }
    out
}

/// Each file the snapshots' deltas add, with the commit time of the newest snapshot adding it:
/// a retried commit publishes its files after its failed attempt's lists were written, while a
/// commit that died after writing only its base list names files added before.
fn last_added<'r>(timelines: &[&Timeline], root: &'r RootFiles) -> HashMap<&'r str, i64> {
    let mut out: HashMap<&str, i64> = HashMap::new();
    for t in timelines {
        let Some(b) = root.branches.get(&t.location.branch) else {
            continue;
        };
        for (id, s) in &t.snapshots {
            let Some(f) = b.snapshots.get(id) else {
                continue;
            };
            for e in f.added(&b.catalog) {
                let at = out.entry(e.file().file_name()).or_insert(i64::MIN);
                *at = (*at).max(s.snapshot.time_millis);
            }
        }
    }
    out
}

/// An OVERWRITE snapshot, as far as tying unreferenced changelog files to it goes.
#[derive(Debug, Default)]
struct OverwriteCommit<'a> {
    /// The OVERWRITE snapshot.
    id: i64,
    /// Writer UUIDs of the data files it added (`paimon-format.md` §1.2).
    writers: HashSet<&'a str>,
    /// Bucket directories whose files it added or deleted (relative to the table root).
    dirs: HashSet<String>,
    /// The time of the snapshot before it, and its own.
    window: (Option<i64>, i64),
}

/// How an unreferenced changelog file is tied to an OVERWRITE snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum OverwriteTie {
    /// It shares the writer UUID of data files the OVERWRITE added.
    Writer,
    /// It was written in a bucket directory the OVERWRITE changed, after the snapshot before it
    /// and not after it.
    Window,
}

/// The OVERWRITE snapshots of the tables of a root, every branch.
fn overwrite_commits<'a>(timelines: &[&Timeline], root: &'a RootFiles) -> Vec<OverwriteCommit<'a>> {
    let mut out = Vec::new();
    for t in timelines {
        let branch = root.branches.get(&t.location.branch);
        let mut before = None;
        for (id, s) in &t.snapshots {
            let s = &s.snapshot;
            let previous = before.replace(s.time_millis);
            if s.commit_kind != CommitKind::Overwrite {
                continue;
            }
            let mut commit = OverwriteCommit {
                id: *id,
                window: (previous, s.time_millis),
                ..OverwriteCommit::default()
            };
            let files = branch.and_then(|b| Some((b.snapshots.get(id)?, &b.catalog)));
            for e in files
                .into_iter()
                .flat_map(|(f, catalog)| f.delta.iter(catalog))
            {
                if e.kind() == crate::paimon::manifest::FileKind::Add {
                    commit.writers.extend(writer_uuid(e.file().file_name()));
                }
                commit
                    .dirs
                    .extend(entry_dir(root, t.location.root.as_str(), e));
            }
            out.push(commit);
        }
    }
    out
}

impl OverwriteCommit<'_> {
    /// Whether a file modified at `m` (epoch ms) was written after the snapshot before this one
    /// and not after this one.
    fn in_window(&self, m: i64) -> bool {
        crate::time::in_window(m, self.window.0, Some(self.window.1))
    }
}

/// The OVERWRITE snapshot an unreferenced changelog file (modified at `modified`, epoch ms) is
/// tied to (§4.7: Paimon's overwrite commits the data files and leaves the changelog its writers
/// produced): by the writer UUID of data files it added (an `input` producer's writer); else by
/// a bucket directory it changed and a time after the snapshot before it and not after it (the
/// changelog of a `lookup` batch writer's compaction, whose files have a UUID of their own), but
/// only where no unreferenced data file (`data_orphans`: directory, time) of that directory may
/// be of the same window: a commit that never became durable leaves its data files too, and
/// its changelog is then as likely its own.
fn overwrite_tie(
    commits: &[OverwriteCommit<'_>],
    relative: &str,
    modified: Option<i64>,
    data_orphans: &[(&str, Option<i64>)],
) -> Option<(i64, OverwriteTie)> {
    let (dir, name) = crate::warehouse::split_parent(relative);
    if let Some(c) = writer_uuid(name).and_then(|u| commits.iter().find(|c| c.writers.contains(u)))
    {
        return Some((c.id, OverwriteTie::Writer));
    }
    let m = modified?;
    commits
        .iter()
        .find(|c| {
            c.dirs.contains(dir)
                && c.in_window(m)
                && !data_orphans
                    .iter()
                    .any(|(d, t)| *d == dir && t.is_none_or(|t| c.in_window(t)))
        })
        .map(|c| (c.id, OverwriteTie::Window))
}

/// [`overwrite_tie`] for every unreferenced changelog file of the root.
fn overwrite_changelog<'r>(
    timelines: &[&Timeline],
    root: &'r RootFiles,
    offset: Option<i64>,
) -> HashMap<&'r str, (i64, OverwriteTie)> {
    let commits = overwrite_commits(timelines, root);
    if commits.is_empty() {
        return HashMap::new();
    }
    let time = |o: &Orphan| o.modified.map(|m| m.to_utc_millis(offset));
    let data_orphans: Vec<(&str, Option<i64>)> = root
        .orphans
        .iter()
        .filter(|o| o.kind == OrphanKind::Data)
        .map(|o| (crate::warehouse::split_parent(&o.relative).0, time(o)))
        .collect();
    root.orphans
        .iter()
        .filter(|o| o.kind == OrphanKind::Changelog)
        .filter_map(|o| {
            let tie = overwrite_tie(&commits, &o.relative, time(o), &data_orphans)?;
            Some((o.relative.as_str(), tie))
        })
        .collect()
}

/// What the table's streaming readers make of an OVERWRITE snapshot, by its
/// `streaming-read-overwrite` option (`paimon-format.md` §4.7).
fn streaming_overwrite(timelines: &[&Timeline]) -> String {
    let set = timelines
        .first()
        .is_some_and(|t| t.options.streaming_read_overwrite);
    if set {
        "the table sets streaming-read-overwrite=true: its streaming readers read an OVERWRITE's delta (its data files), not these changelog files".to_string()
    } else {
        "the table does not set streaming-read-overwrite (default false): its streaming readers skip OVERWRITE snapshots".to_string()
    }
}

impl Cause {
    /// Why the files are unreferenced, for the finding's message.
    fn text(self, earliest: i64) -> String {
        match self {
            Cause::OverwriteChangelog(id, OverwriteTie::Writer) => format!(
                "written by the writer of OVERWRITE snapshot {id} (they share the writer UUID of data files it added), and Paimon's overwrite commits no changelog: no failure left them"
            ),
            Cause::OverwriteChangelog(id, OverwriteTie::Window) => format!(
                "written while OVERWRITE snapshot {id} was being written (after the snapshot before it, not after it), in bucket directories it changed, and Paimon's overwrite commits no changelog: its writer's, not a failure's (no unreferenced data file of those buckets and that time shows another writer)"
            ),
            Cause::Young => "written around or after the newest snapshot (file times are compared within 2 s, the precision of zip times): a commit in flight when the artifact was captured, one whose writer died before publishing it, or a snapshot a rollback removed without deleting its files".to_string(),
            Cause::Old => "older than the newest snapshot: a commit that never became durable and was not re-committed, a snapshot a rollback removed without deleting its files, or an interrupted compaction or expiration".to_string(),
            Cause::Unknown => "no modification time to compare with the snapshots, so the cause is unknown: a commit in flight at capture time, one that never became durable, a snapshot a rollback removed without deleting its files, or an interrupted compaction or expiration".to_string(),
            Cause::RolledBack => "left by a rollback or a fast-forward (or snapshot files deleted by hand): they belong to snapshots that were published and later removed (the manifest lists of one build on the files another added, which only a published snapshot allows), and only the snapshot files were deleted (a fast-forward never deletes the files of the snapshots it replaces)".to_string(),
            Cause::Retried => "written for a commit attempt whose data files a published snapshot holds: the commit was retried and published, and the failed attempt's manifest files were left (pypaimon retries a commit that lost a conflict without deleting them), so nothing is missing".to_string(),
            Cause::Expired => format!(
                "left by snapshots that were expired without clean-up: every data file their manifest lists name is still referenced by the retained snapshots, so they describe states older than the earliest retained snapshot {earliest}, whose snapshot files were removed without the files only they used"
            ),
        }
    }

    /// What to do about files of `kind` left this way.
    fn remedy(self, kind: OrphanKind) -> &'static str {
        match (kind, self) {
            (_, Cause::RolledBack) => "Harmless for readers of the retained snapshots; they hold the removed snapshots' changes, so keep them if those must be recovered. remove_orphan_files (dry run first) reclaims the space.",
            (_, Cause::OverwriteChangelog(..)) => "Nothing to recover: an OVERWRITE's changes never reach streaming readers through changelog files. remove_orphan_files (dry run first) reclaims the space.",
            (_, Cause::Retried) => "Harmless: the retried commit holds the same files. remove_orphan_files (dry run first) reclaims the space.",
            (_, Cause::Expired) => "Harmless for readers of the retained snapshots (a streaming reader that had not yet read those snapshots has already lost them to the expiration); remove_orphan_files (dry run first) reclaims the space.",
            (OrphanKind::Changelog, _) => "Unreferenced changelog means some changes were never delivered to streaming readers: find the commit that wrote them (the writer's log at that time) before cleaning up. remove_orphan_files (dry run first, older_than past the incident) deletes them once you are sure.",
            (_, Cause::Young) => "Nothing to do if the writer was running at capture time; otherwise remove_orphan_files (dry run first) cleans them up once they are older than its older_than threshold.",
            _ => "Harmless for readers; remove_orphan_files (dry run first) reclaims the space.",
        }
    }

    /// Only unreferenced changelog no cause explains is a warning: changes streaming readers
    /// may have missed.
    fn severity(self, kind: OrphanKind) -> Severity {
        match (kind, self) {
            (OrphanKind::Changelog, Cause::Old | Cause::Unknown) => Severity::Warning,
            _ => Severity::Info,
        }
    }

    /// The evidence lines that state the cause (before the files).
    fn evidence(self, kind: OrphanKind, earliest: i64, timelines: &[&Timeline]) -> Vec<String> {
        let mut out = Vec::new();
        if matches!(kind, OrphanKind::ManifestList | OrphanKind::Manifest)
            && matches!(self, Cause::Young | Cause::Old | Cause::Unknown)
        {
            out.push("manifest files no retained snapshot, tag or long-lived changelog references: written for a commit that was not published, or for a snapshot since removed (see the lost-changelog findings if any)".to_string());
        }
        match self {
            Cause::RolledBack => out.push("their manifest lists build on files that other unreferenced manifest lists added: those commits were published as snapshots, and the snapshots are gone".to_string()),
            Cause::Expired => out.push(format!("every data file their manifest lists name is referenced by a retained snapshot; the earliest retained snapshot is {earliest}")),
            Cause::Retried => out.push("every data file their manifest lists add is referenced by a retained snapshot, and no snapshot has expired (the earliest is 1)".to_string()),
            Cause::OverwriteChangelog(id, _) => {
                out.push(format!("Paimon's FileStoreCommitImpl.overwrite commits only the data files of snapshot {id} (and of a compaction it commits right after, as a COMPACT snapshot of the same identifier); it logs \"Overwrite mode currently does not commit any changelog\" and leaves the changelog files its writers produced"));
                out.push(streaming_overwrite(timelines));
            }
            Cause::Young | Cause::Old | Cause::Unknown => {}
        }
        out
    }
}

/// How long before (or after) the newest snapshot a file was written, to zip-time precision.
fn age_text(modified: Option<FileTime>, newest_commit: Option<i64>, offset: Option<i64>) -> String {
    let (Some(m), Some(n)) = (modified, newest_commit) else {
        return "no modification time recorded".to_string();
    };
    let d = n.saturating_sub(m.to_utc_millis(offset));
    if d.abs() < FILE_TIME_TOLERANCE_MS {
        "written within 2 s of the newest snapshot".to_string()
    } else {
        format!(
            "written {}",
            crate::time::before_or_after(d, "the newest snapshot")
        )
    }
}

/// Unreferenced files sorted by what can be said of them.
#[derive(Default)]
struct Sorted<'r> {
    /// By kind and cause.
    groups: BTreeMap<(OrphanKind, Cause), Vec<&'r Orphan>>,
    /// Files an unreadable snapshot (`Some`), tag or long-lived changelog (`None`) may own.
    owned_by_unreadable: Vec<(&'r Orphan, Option<i64>)>,
}

/// Sorts the root's unreferenced files not in `explained` by cause (their age against
/// `newest_commit` where nothing else tells), leaving out those an unreadable manifest list or
/// manifest may name (counted in the unreadable-file finding).
fn sort_orphans<'r>(
    timelines: &[&Timeline],
    root: &'r RootFiles,
    explained: &HashSet<String>,
    unknowable: &super::Unknowable,
    (newest_commit, offset): (Option<i64>, Option<i64>),
) -> Sorted<'r> {
    // Files a metadata file we could not read might name are not provably orphans: an
    // unreadable manifest list hides manifests and data files, an unreadable manifest hides
    // data files.
    let unreadable = |kind: &str| {
        root.branches.values().any(|b| {
            b.dangling
                .iter()
                .any(|d| d.kind == kind && matches!(d.why, Unusable::Unreadable(_)))
        })
    };
    let hidden_lists = unreadable("manifest list");
    let hidden_manifests = hidden_lists || unreadable("manifest");
    let published = published_ghosts(timelines, root, offset);
    let overwrites = overwrite_changelog(timelines, root, offset);
    let mut sorted = Sorted::default();
    for o in &root.orphans {
        if explained.contains(&o.relative) {
            continue;
        }
        let hidden = match o.kind {
            OrphanKind::Data | OrphanKind::Changelog => hidden_manifests,
            OrphanKind::Manifest | OrphanKind::IndexManifest => hidden_lists,
            _ => false,
        };
        if hidden {
            continue;
        }
        if let Some(owner) = unknowable.owner(o.modified) {
            sorted.owned_by_unreadable.push((o, owner));
            continue;
        }
        let cause = match (
            published.get(o.relative.as_str()),
            overwrites.get(o.relative.as_str()),
        ) {
            (Some(c), _) => *c,
            (None, Some((id, tie))) => Cause::OverwriteChangelog(*id, *tie),
            (None, None) => match (o.modified, newest_commit) {
                (Some(m), Some(n)) if !clearly_before(m.to_utc_millis(offset), n) => Cause::Young,
                (Some(_), Some(_)) => Cause::Old,
                _ => Cause::Unknown,
            },
        };
        sorted.groups.entry((o.kind, cause)).or_default().push(o);
    }
    sorted
}

/// The time of the newest snapshot of any branch.
fn newest_commit(timelines: &[&Timeline]) -> Option<i64> {
    timelines
        .iter()
        .flat_map(|t| t.snapshots.values().map(|s| s.snapshot.time_millis))
        .max()
}

/// `orphan-file`: unreferenced files, grouped by kind and likely cause.
pub fn orphans(
    timelines: &[&Timeline],
    root: &RootFiles,
    explained: &HashSet<String>,
    unknowable: &super::Unknowable,
    clock: &Clock,
) -> Vec<Finding> {
    let offset = clock.zip_time_offset_minutes;
    let newest = newest_commit(timelines);
    let sorted = sort_orphans(timelines, root, explained, unknowable, (newest, offset));
    let earliest = timelines.first().and_then(|t| t.earliest()).unwrap_or(0);
    let mut out = Vec::new();
    for ((kind, cause), files) in sorted.groups {
        let total: u64 = files.iter().map(|o| o.size).sum();
        let mut f = Finding::new(
            Code::OrphanFile,
            cause.severity(kind),
            format!(
                "{} unreferenced {}{} ({total} bytes): {}.",
                files.len(),
                kind.as_str(),
                if files.len() == 1 { "" } else { "s" },
                cause.text(earliest),
            ),
            cause.remedy(kind),
        )
        .files(files.iter().map(|o| o.relative.clone()));
        for e in cause.evidence(kind, earliest, timelines) {
            f = f.evidence(e);
        }
        for o in files.iter().take(EVIDENCE_FILES) {
            let age = age_text(o.modified, newest, offset);
            f = f.evidence(format!("{} ({} bytes, {age})", o.relative, o.size));
        }
        if files.len() > EVIDENCE_FILES {
            f = f.evidence(format!("… and {} more", files.len() - EVIDENCE_FILES));
        }
        out.push(f);
    }
    out.extend(owned_by_unreadable(&sorted.owned_by_unreadable));
    out
}

/// The finding for unreferenced files an unreadable snapshot, tag or long-lived changelog may
/// own: whether they are orphans cannot be told.
fn owned_by_unreadable(owned: &[(&Orphan, Option<i64>)]) -> Option<Finding> {
    if owned.is_empty() {
        return None;
    }
    let mut f = Finding::new(
        Code::OrphanFile,
        Severity::Info,
        format!(
            "{} unreferenced file{} may belong to an unreadable snapshot, tag or long-lived changelog, so whether they are orphans cannot be told.",
            owned.len(),
            if owned.len() == 1 { "" } else { "s" }
        ),
        "Do not clean them up until the unreadable metadata file is restored or understood (see the unreadable-file findings).",
    )
    .files(owned.iter().map(|(o, _)| o.relative.clone()));
    for (o, owner) in owned.iter().take(EVIDENCE_FILES) {
        f = f.evidence(match owner {
            Some(id) => format!("{}: written around unreadable snapshot {id}", o.relative),
            None => format!(
                "{}: an unreadable tag or long-lived changelog may reference it",
                o.relative
            ),
        });
    }
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::paimon::manifest::FileKind;
    use crate::source::FileTime;
    use crate::timeline::files::{GhostCommit, Orphan};
    use crate::timeline::testkit::{timeline, timelines_with_files};

    const EXTERNAL: &str = "file:///ci/external";

    /// A root whose external data path `EXTERNAL` the artifact does not hold; one file of the
    /// table was written under it.
    fn external_root() -> RootFiles {
        let mut root = RootFiles {
            has_manifest_dir: true,
            has_data_dirs: true,
            ..RootFiles::default()
        };
        root.external_outside.insert(
            EXTERNAL.to_string(),
            [format!("{EXTERNAL}/bucket-0/data-1.parquet")].into(),
        );
        root
    }

    /// The root's external files are outside the artifact even when none of them is live any
    /// more: said on the main branch (with `0 of them live`), and only there, since the root
    /// and its external files are shared by every branch of the table.
    #[test]
    fn external_files_outside_the_artifact_are_said_once_on_main_even_when_none_is_live() {
        let schema = r#"{"version": 3, "id": 0, "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}], "partitionKeys": [], "primaryKeys": ["k"], "options": {}}"#;
        let snapshot = r#"{"version": 3, "id": 1, "schemaId": 0, "baseManifestList": "b-1", "deltaManifestList": "d-1", "commitUser": "w", "commitIdentifier": 1, "commitKind": "APPEND", "timeMillis": 1000, "deltaRecordCount": 1}"#;
        let timelines = timelines_with_files(
            &[("data-file.external-paths", EXTERNAL)],
            &[(1, "APPEND", "w", 1, 1000)],
            &[],
            &[
                ("branch/branch-b/schema/schema-0", schema),
                ("branch/branch-b/snapshot/snapshot-1", snapshot),
            ],
        );
        assert_eq!(timelines.len(), 2, "main and branch b");
        let root = external_root();
        let main = external_outside(&timelines[0], &root, None).expect("said on main");
        assert_eq!(
            (main.code, main.severity),
            (Code::ArtifactIncomplete, Severity::Warning)
        );
        assert_eq!(
            main.message,
            "1 file of this table is under the external data path file:///ci/external, outside the artifact: whether it exist and what it hold cannot be checked (0 of them live in the latest snapshot)."
        );
        assert_eq!(
            main.evidence,
            ["data-file.external-paths = file:///ci/external"]
        );
        assert!(external_outside(&timelines[1], &root, None).is_none());
        assert!(external_outside(&timelines[0], &RootFiles::default(), None).is_none());
    }

    /// The orphan findings of `root` beside one snapshot written at 10 s.
    fn orphan_report(root: &RootFiles) -> Vec<Finding> {
        let t = timeline(&[], &[(1, "APPEND", "w", 1, 10_000)], &[]);
        let unknowable = super::super::Unknowable::default();
        orphans(
            &[&t],
            root,
            &HashSet::new(),
            &unknowable,
            &Clock::given(10_000),
        )
    }

    /// An OVERWRITE snapshot 5 at 10 s (snapshot 4 at 4 s) that added `data-w-0.parquet`
    /// (writer `w`, a 36-character UUID) and changed `bucket-0`.
    fn overwrite_5() -> OverwriteCommit<'static> {
        OverwriteCommit {
            id: 5,
            writers: HashSet::from(["00000000-0000-0000-0000-00000000000w"]),
            dirs: HashSet::from(["bucket-0".to_string()]),
            window: (Some(4_000), 10_000),
        }
    }

    /// A changelog file is an OVERWRITE's by its writer UUID wherever and whenever written; else
    /// by a bucket directory the OVERWRITE changed and a time from 2 s before the snapshot
    /// before it to 2 s after it, while no unreferenced data file of that directory may be of
    /// that time.
    #[test]
    fn changelog_is_an_overwrites_by_its_writer_or_its_buckets_and_window() {
        let commits = [overwrite_5()];
        let tie = |rel: &str, m: Option<i64>, data: &[(&str, Option<i64>)]| {
            overwrite_tie(&commits, rel, m, data)
        };
        let own = "bucket-9/changelog-00000000-0000-0000-0000-00000000000w-1.parquet";
        assert_eq!(tie(own, None, &[]), Some((5, OverwriteTie::Writer)));
        let other = "bucket-0/changelog-11111111-0000-0000-0000-000000000000-0.parquet";
        let window = Some((5, OverwriteTie::Window));
        assert_eq!(tie(other, Some(2_000), &[]), window);
        assert_eq!(tie(other, Some(1_999), &[]), None);
        assert_eq!(tie(other, Some(12_000), &[]), window);
        assert_eq!(tie(other, Some(12_001), &[]), None);
        assert_eq!(tie(other, None, &[]), None);
        let elsewhere = "bucket-1/changelog-11111111-0000-0000-0000-000000000000-0.parquet";
        assert_eq!(tie(elsewhere, Some(8_000), &[]), None);
        // an unreferenced data file of the bucket and the window: another writer's commit
        assert_eq!(tie(other, Some(8_000), &[("bucket-0", Some(7_000))]), None);
        assert_eq!(tie(other, Some(8_000), &[("bucket-0", None)]), None);
        assert_eq!(
            tie(other, Some(8_000), &[("bucket-0", Some(1_000))]),
            window
        );
        assert_eq!(
            tie(other, Some(8_000), &[("bucket-1", Some(7_000))]),
            window
        );
        // the first snapshot has no snapshot before it
        let first = [OverwriteCommit {
            window: (None, 10_000),
            ..overwrite_5()
        }];
        assert_eq!(
            overwrite_tie(&first, other, Some(0), &[]),
            Some((5, OverwriteTie::Window))
        );
    }

    /// An OVERWRITE's window runs from the snapshot before it (whatever its kind), or from
    /// nothing for the first snapshot, to itself.
    #[test]
    fn an_overwrites_window_starts_at_the_snapshot_before_it() {
        let t = timeline(
            &[],
            &[
                (1, "OVERWRITE", "b", i64::MAX, 1_000),
                (2, "APPEND", "w", 1, 4_000),
                (3, "COMPACT", "w", 1, 5_000),
                (4, "OVERWRITE", "b", i64::MAX, 10_000),
            ],
            &[],
        );
        let windows: Vec<_> = overwrite_commits(&[&t], &RootFiles::default())
            .iter()
            .map(|c| (c.id, c.window))
            .collect();
        assert_eq!(windows, [(1, (None, 1_000)), (4, (Some(5_000), 10_000))]);
    }

    /// [`orphan_report`] as (message, files).
    fn orphan_findings(root: &RootFiles) -> Vec<(String, Vec<String>)> {
        orphan_report(root)
            .into_iter()
            .map(|f| {
                assert_eq!(f.code, Code::OrphanFile);
                (f.message, f.files)
            })
            .collect()
    }

    /// The files of the finding whose message contains `cause`.
    fn files_said<'a>(found: &'a [(String, Vec<String>)], cause: &str) -> Vec<&'a str> {
        found
            .iter()
            .filter(|(m, _)| m.contains(cause))
            .flat_map(|(_, files)| files.iter().map(String::as_str))
            .collect()
    }

    const ROLLED_BACK: &str = "left by a rollback";
    const NO_TIME: &str = "no modification time";

    /// One unpublished commit that adds a file nothing references shows no publication: its
    /// files are left to the age-based causes (here no time, so unknown), not to a rollback.
    #[test]
    fn a_lone_ghost_commit_is_not_a_rollback() {
        let root = RootFiles {
            orphans: vec![
                Orphan::for_test("bucket-0/data-new.parquet", OrphanKind::Data),
                Orphan::for_test("manifest/list-1", OrphanKind::ManifestList),
            ],
            ..RootFiles::default()
        }
        .with_ghosts_for_test(vec![GhostCommit::for_test(
            "list-1",
            "m-1",
            &[(FileKind::Add, "data-new.parquet")],
        )]);
        let found = orphan_findings(&root);
        assert!(files_said(&found, ROLLED_BACK).is_empty(), "{found:#?}");
        assert_eq!(
            files_said(&found, NO_TIME),
            ["bucket-0/data-new.parquet", "manifest/list-1"]
        );
    }

    /// Two unpublished commits, the second's list holding the file the first added, were both
    /// published and rolled back: their lists and new files are said so, and an orphan data
    /// file neither of them names keeps its age-based cause.
    #[test]
    fn a_rollback_claims_only_the_files_its_commits_name() {
        let root = RootFiles {
            orphans: vec![
                Orphan::for_test("bucket-0/data-a.parquet", OrphanKind::Data),
                Orphan::for_test("bucket-0/data-b.parquet", OrphanKind::Data),
                Orphan::for_test("bucket-0/data-z.parquet", OrphanKind::Data),
                Orphan::for_test("manifest/list-1", OrphanKind::ManifestList),
                Orphan::for_test("manifest/list-2", OrphanKind::ManifestList),
            ],
            ..RootFiles::default()
        }
        .with_ghosts_for_test(vec![
            GhostCommit::for_test("list-1", "m-1", &[(FileKind::Add, "data-a.parquet")]),
            GhostCommit::for_test(
                "list-2",
                "m-2",
                &[
                    (FileKind::Add, "data-a.parquet"),
                    (FileKind::Add, "data-b.parquet"),
                ],
            ),
        ]);
        let found = orphan_findings(&root);
        assert_eq!(
            files_said(&found, ROLLED_BACK),
            [
                "bucket-0/data-a.parquet",
                "bucket-0/data-b.parquet",
                "manifest/list-1",
                "manifest/list-2"
            ]
        );
        assert_eq!(files_said(&found, NO_TIME), ["bucket-0/data-z.parquet"]);
    }

    /// A root with an orphan of each kind an unreadable metadata file can hide, and a branch
    /// main whose snapshot 1 needs `kind`, which is missing or unreadable.
    fn hiding_root(kind: &'static str, unreadable: bool) -> RootFiles {
        let why = if unreadable {
            Unusable::Unreadable(Error::format("bad magic"))
        } else {
            Unusable::Missing
        };
        let branch = BranchFiles {
            dangling: vec![Dangling {
                holder: Holder::Snapshot {
                    branch: crate::warehouse::MAIN_BRANCH.to_string(),
                    id: 1,
                },
                kind,
                file: "manifest/x".to_string(),
                why,
            }],
            ..BranchFiles::default()
        };
        RootFiles {
            branches: [(crate::warehouse::MAIN_BRANCH.to_string(), branch)].into(),
            orphans: vec![
                Orphan::for_test("bucket-0/changelog-1.parquet", OrphanKind::Changelog),
                Orphan::for_test("bucket-0/data-1.parquet", OrphanKind::Data),
                Orphan::for_test("manifest/index-manifest-1", OrphanKind::IndexManifest),
                Orphan::for_test("manifest/manifest-1", OrphanKind::Manifest),
                Orphan::for_test("manifest/manifest-list-1", OrphanKind::ManifestList),
            ],
            ..RootFiles::default()
        }
    }

    /// Every orphan file said, in the order of the findings.
    fn all_said(root: &RootFiles) -> Vec<String> {
        orphan_findings(root)
            .into_iter()
            .flat_map(|(_, files)| files)
            .collect()
    }

    /// What an unreadable manifest list or manifest might name is not provably an orphan (it is
    /// counted in the unreadable-file finding instead): a list names manifests, index manifests
    /// and through them data and changelog files; a manifest names data and changelog files. A
    /// missing one hides nothing: the dangling-reference finding names it, and nothing the
    /// artifact holds references the orphans.
    #[test]
    fn an_unreadable_list_or_manifest_hides_only_what_it_could_name() {
        let everything = [
            "bucket-0/changelog-1.parquet",
            "bucket-0/data-1.parquet",
            "manifest/index-manifest-1",
            "manifest/manifest-1",
            "manifest/manifest-list-1",
        ];
        let mut said = all_said(&hiding_root("manifest list", false));
        said.sort();
        assert_eq!(said, everything, "a missing list hides nothing");
        assert_eq!(
            all_said(&hiding_root("manifest list", true)),
            ["manifest/manifest-list-1"]
        );
        let mut said = all_said(&hiding_root("manifest", true));
        said.sort();
        assert_eq!(
            said,
            [
                "manifest/index-manifest-1",
                "manifest/manifest-1",
                "manifest/manifest-list-1"
            ]
        );
    }

    /// An orphan written exactly 2 s before the newest snapshot is young (zip times have 2 s
    /// precision) and its evidence says how long before; one written less than 2 s from it
    /// says "within 2 s".
    #[test]
    fn the_age_of_an_orphan_is_told_to_the_two_second_precision_of_zip_times() {
        let aged = |millis: i64| {
            let mut o = Orphan::for_test("bucket-0/data-1.parquet", OrphanKind::Data);
            o.modified = Some(FileTime::Utc(millis));
            let f = orphan_report(&RootFiles {
                orphans: vec![o],
                ..RootFiles::default()
            });
            assert_eq!(f.len(), 1);
            (
                f[0].message.contains("written around or after"),
                f[0].evidence.join("; "),
            )
        };
        assert_eq!(
            aged(8_000),
            (
                true,
                "bucket-0/data-1.parquet (10 bytes, written 2 s before the newest snapshot)"
                    .to_string()
            )
        );
        assert_eq!(
            aged(8_001),
            (
                true,
                "bucket-0/data-1.parquet (10 bytes, written within 2 s of the newest snapshot)"
                    .to_string()
            )
        );
        assert_eq!(
            aged(7_999),
            (
                false,
                "bucket-0/data-1.parquet (10 bytes, written 2 s before the newest snapshot)"
                    .to_string()
            )
        );
    }
}
