//! Files: does every file the table needs exist, and what is left over?
//!
//! * `dangling-reference` — a retained snapshot, tag or long-lived changelog names a manifest
//!   list, manifest, data, changelog or index file that is not there (`paimon-format.md` §3.8,
//!   §4.7). Readers of that snapshot fail. An interrupted expiration deletes data files before
//!   snapshot files (§5.2), so missing files in only the oldest snapshots point to one.
//! * `orphan-file` — a file under the table that nothing references (the definition of Paimon's
//!   own `remove_orphan_files`, §4.7): written by a commit that never became durable, an
//!   in-flight commit at capture time, or an interrupted compaction or expiration. Orphans that
//!   the lost-changelog check tied to a commit are reported there instead.
//! * `artifact-incomplete` — the artifact lacks whole directories a check needs (`manifest/`,
//!   the bucket directories), so those checks cannot prove anything either way.

use std::collections::{BTreeMap, HashSet};

use crate::findings::{Clock, Code, Finding, Severity};
use crate::timeline::files::{BranchFiles, Dangling, Holder, OrphanKind, RootFiles, Unusable};
use crate::timeline::Timeline;

/// Shown per finding before the list is cut (the JSON keeps every file).
const EVIDENCE_FILES: usize = 20;

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
    if !root.has_data_dirs {
        let live = root
            .branches
            .get(&t.location.branch)
            .and_then(|b| b.live_latest.as_ref())
            .map_or(0, Vec::len);
        if live > 0 {
            out.push(
                Finding::new(
                    Code::ArtifactIncomplete,
                    Severity::Warning,
                    format!(
                        "The artifact has no bucket directories for this table although its latest snapshot has {live} live file{}, so missing-file and orphan checks were skipped.",
                        if live == 1 { "" } else { "s" }
                    ),
                    "Capture the bucket directories too (data files are not read, only listed; their size does not slow the check).",
                ),
            );
        }
    }
    (out, true)
}

/// `unreadable-file` for referenced metadata files that are present but cannot be decoded (a
/// truncated manifest): Paimon's readers fail on every snapshot that names them.
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
            let mut f = crate::checks::integrity::unreadable(
                file.to_string(),
                error,
                Severity::Error,
                &format!(
                    "{}{} {} this {}, and Paimon's readers fail on {} too",
                    who.join(", "),
                    if more > 0 {
                        format!(" (and {more} more)")
                    } else {
                        String::new()
                    },
                    if holders.len() == 1 { "references" } else { "reference" },
                    d.kind,
                    if holders.len() == 1 { "it" } else { "them" }
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

/// `dangling-reference`: files retained holders need that are missing.
pub fn dangling(t: &Timeline, branch: &BranchFiles) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut by_holder: BTreeMap<&Holder, Vec<&crate::timeline::files::Dangling>> = BTreeMap::new();
    for d in branch
        .dangling
        .iter()
        .filter(|d| d.why == Unusable::Missing)
    {
        by_holder.entry(&d.holder).or_default().push(d);
    }
    // Snapshots together (often the oldest few after an interrupted expiration); tags and
    // long-lived changelogs each on their own.
    let mut snapshot_ids = Vec::new();
    let mut snapshot_items = Vec::new();
    for (holder, items) in &by_holder {
        match holder {
            Holder::Snapshot { id, .. } => {
                snapshot_ids.push(*id);
                snapshot_items.extend(items.iter().copied());
            }
            _ => out.push(dangling_finding(t, &[], holder.to_string(), items, None)),
        }
    }
    if !snapshot_ids.is_empty() {
        let retained: Vec<i64> = t.snapshots.keys().copied().collect();
        let oldest_prefix = retained
            .iter()
            .take(snapshot_ids.len())
            .copied()
            .collect::<Vec<_>>()
            == snapshot_ids;
        let latest_affected = t.latest().is_some_and(|l| snapshot_ids.contains(&l));
        let cause = if oldest_prefix && !latest_affected {
            Some(
                "only the oldest retained snapshots are affected: an interrupted snapshot expiration (it deletes data files and manifests before the snapshot files, paimon-format.md §5.2)",
            )
        } else {
            None
        };
        let who = if let [only] = snapshot_ids.as_slice() {
            format!("snapshot {only}")
        } else {
            format!(
                "snapshots {}",
                snapshot_ids
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push(dangling_finding(
            t,
            &snapshot_ids,
            who,
            &snapshot_items,
            cause,
        ));
    }
    out
}

fn dangling_finding(
    t: &Timeline,
    ids: &[i64],
    who: String,
    items: &[&crate::timeline::files::Dangling],
    cause: Option<&str>,
) -> Finding {
    let missing = items.iter().filter(|d| d.why == Unusable::Missing).count();
    let unreadable = items.len() - missing;
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for d in items {
        *kinds.entry(d.kind).or_default() += 1;
    }
    let kinds_text = kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ");
    let latest_affected = t.latest().is_some_and(|l| ids.contains(&l));
    let consequence = if latest_affected {
        "the table's current state cannot be read"
    } else {
        "reading or time-travelling to them fails, and so does a streaming reader that starts there"
    };
    let mut f = Finding::new(
        Code::DanglingReference,
        Severity::Error,
        format!(
            "{who} reference{} {} ({kinds_text}){}: {consequence}.",
            if ids.len() == 1 || ids.is_empty() { "s" } else { "" },
            match (missing, unreadable) {
                (m, 0) => format!("{m} missing file{}", if m == 1 { "" } else { "s" }),
                (0, u) => format!("{u} unreadable file{}", if u == 1 { "" } else { "s" }),
                (m, u) => format!("{m} missing and {u} unreadable files"),
            },
            cause.map(|_| " after an interrupted expiration").unwrap_or("")
        ),
        if cause.is_some() {
            "Finish the expiration: run expire_snapshots again (dry run first, if your version has it); it removes these snapshots. Make sure no consumer or tag still needs them."
        } else {
            "Check whether the artifact is complete (re-capture it); if the files are gone from the warehouse, restore them from a backup or roll back to a snapshot that does not need them (rollback_to, after a dry run on a copy)."
        },
    )
    .related(ids.iter().copied())
    .files(items.iter().map(|d| d.file.clone()));
    if let Some(first) = ids.first() {
        f = f.snapshot(*first);
    }
    if let Some(c) = cause {
        f = f.evidence(c.to_string());
    }
    for d in items.iter().take(EVIDENCE_FILES) {
        let why = match &d.why {
            Unusable::Missing => "missing".to_string(),
            Unusable::Unreadable(e) => format!("unreadable: {}", e.problem()),
        };
        f = f.evidence(format!("{}: {} {} ({why})", d.holder, d.kind, d.file));
    }
    if items.len() > EVIDENCE_FILES {
        f = f.evidence(format!("… and {} more", items.len() - EVIDENCE_FILES));
    }
    f
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
    let newest_commit = timelines
        .iter()
        .flat_map(|t| t.snapshots.values().map(|s| s.snapshot.time_millis))
        .max();
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
    let mut groups: BTreeMap<(OrphanKind, bool), Vec<&crate::timeline::files::Orphan>> =
        BTreeMap::new();
    let mut owned_by_unreadable: Vec<(&crate::timeline::files::Orphan, Option<i64>)> = Vec::new();
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
            continue; // counted in the unreadable-file finding
        }
        if let Some(owner) = unknowable.owner(o.modified) {
            owned_by_unreadable.push((o, owner));
            continue;
        }
        let young = match (o.modified, newest_commit) {
            (Some(m), Some(n)) => m.to_utc_millis(offset).saturating_add(2_000) >= n,
            _ => false,
        };
        groups.entry((o.kind, young)).or_default().push(o);
    }
    let mut out = Vec::new();
    for ((kind, young), files) in groups {
        let ghost_lists = matches!(kind, OrphanKind::ManifestList | OrphanKind::Manifest);
        let cause = if young {
            "written around or after the newest snapshot (zip times have 2 s precision): a commit in flight when the artifact was captured, or one whose writer died before publishing it"
        } else {
            "older than the newest snapshot: a commit that never became durable and was not re-committed, or an interrupted compaction or expiration"
        };
        let severity = match kind {
            OrphanKind::Changelog if !young => Severity::Warning,
            _ => Severity::Info,
        };
        let total: u64 = files.iter().map(|o| o.size).sum();
        let mut f = Finding::new(
            Code::OrphanFile,
            severity,
            format!(
                "{} unreferenced {}{} ({total} bytes): {cause}.",
                files.len(),
                kind.as_str(),
                if files.len() == 1 { "" } else { "s" },
            ),
            match kind {
                OrphanKind::Changelog => "Unreferenced changelog means some changes were never delivered to streaming readers: find the commit that wrote them (the writer's log at that time) before cleaning up. remove_orphan_files (dry run first, older_than past the incident) deletes them once you are sure.",
                _ if young => "Nothing to do if the writer was running at capture time; otherwise remove_orphan_files (dry run first) cleans them up once they are older than its older_than threshold.",
                _ => "Harmless for readers; remove_orphan_files (dry run first) reclaims the space.",
            },
        )
        .files(files.iter().map(|o| o.relative.clone()));
        if ghost_lists {
            f = f.evidence("manifest files written for a commit that was not published (see the lost-changelog findings if any)".to_string());
        }
        for o in files.iter().take(EVIDENCE_FILES) {
            let age = match (o.modified, newest_commit) {
                (Some(m), Some(n)) => {
                    let d = n.saturating_sub(m.to_utc_millis(offset));
                    if d.abs() < 2_000 {
                        "written within 2 s of the newest snapshot".to_string()
                    } else if d >= 0 {
                        format!(
                            "written {} before the newest snapshot",
                            crate::time::format_duration(d)
                        )
                    } else {
                        format!(
                            "written {} after the newest snapshot",
                            crate::time::format_duration(d.saturating_neg())
                        )
                    }
                }
                _ => "no modification time recorded".to_string(),
            };
            f = f.evidence(format!("{} ({} bytes, {age})", o.relative, o.size));
        }
        if files.len() > EVIDENCE_FILES {
            f = f.evidence(format!("… and {} more", files.len() - EVIDENCE_FILES));
        }
        out.push(f);
    }
    if !owned_by_unreadable.is_empty() {
        let mut f = Finding::new(
            Code::OrphanFile,
            Severity::Info,
            format!(
                "{} unreferenced file{} may belong to an unreadable snapshot, tag or long-lived changelog, so whether they are orphans cannot be told.",
                owned_by_unreadable.len(),
                if owned_by_unreadable.len() == 1 { "" } else { "s" }
            ),
            "Do not clean them up until the unreadable metadata file is restored or understood (see the unreadable-file findings).",
        )
        .files(owned_by_unreadable.iter().map(|(o, _)| o.relative.clone()));
        for (o, owner) in owned_by_unreadable.iter().take(EVIDENCE_FILES) {
            f = f.evidence(match owner {
                Some(id) => format!("{}: written around unreadable snapshot {id}", o.relative),
                None => format!(
                    "{}: an unreadable tag or long-lived changelog may reference it",
                    o.relative
                ),
            });
        }
        out.push(f);
    }
    out
}
