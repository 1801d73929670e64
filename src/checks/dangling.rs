//! `dangling-reference`: which files that retained snapshots, tags and long-lived changelogs
//! need are missing, which of those Paimon deleted on purpose, and who needs each one.
//!
//! * A file that is truly missing is an **error**, reported once per set of files with every
//!   holder that needs them named and counted (files counted once however many snapshots,
//!   tags and branches need them; `paimon-format.md` §3.8).
//! * A changelog manifest list that snapshot expiration deleted although a tag holds the
//!   snapshot (`ExpireSnapshotsImpl.expireUntil`, `SnapshotDeletion.cleanUnusedManifests`:
//!   the skipping set keeps only a tag's base/delta lists, manifests and index manifest;
//!   §5.2, §5.6) is by design, and so is the same reference copied into a branch created from
//!   the tag (`BranchManager.createBranch(branch, tag)`) or into the snapshot a rollback to the
//!   tag writes back (`rollbackTo(tag)`, §5.6): an **info** saying what a reader gets (batch
//!   reads and time travel work when every data list and file is present; a streaming read
//!   that starts there fails). The evidence: a tag that names the list, whose snapshot its own
//!   branch has expired (the tag's id is below the branch's earliest snapshot), or which is the
//!   earliest snapshot of its branch with the tag's very lists (a rollback to the tag, or an
//!   expiration of that snapshot that stopped after deleting the list: the same for readers).
//! * An interrupted expiration deletes data files and manifests before snapshot files (§5.2),
//!   never a file a tag needs: missing files needed only by the oldest retained snapshots of
//!   one branch (not its latest) point to one.

use std::collections::BTreeMap;

use crate::findings::{Code, Finding, Severity};
use crate::paimon::snapshot::Snapshot;
use crate::timeline::files::{Dangling, Holder, RootFiles, Unusable};
use crate::timeline::Timeline;
use crate::warehouse::MAIN_BRANCH;

use super::files::EVIDENCE_FILES;

/// Why a changelog manifest list is gone on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Gone<'t> {
    /// Branch `branch` expired tagged snapshot `id`; `tag` names it. `hinted`: no snapshot of
    /// the branch is left, and its `EARLIEST` hint, above `id`, says so.
    ExpiredTagged {
        branch: &'t str,
        id: i64,
        tag: &'t Snapshot,
        hinted: Option<i64>,
    },
    /// Snapshot `id`, the earliest of `branch`, has tag `name`'s lists: written back by a
    /// rollback to the tag after the snapshot expired, or an expiration of it stopped part way.
    RollbackOrStoppedExpiration {
        branch: &'t str,
        id: i64,
        name: &'t str,
        tag: &'t Snapshot,
    },
}

impl<'t> Gone<'t> {
    fn tag(&self) -> &'t Snapshot {
        match self {
            Gone::ExpiredTagged { tag, .. } | Gone::RollbackOrStoppedExpiration { tag, .. } => tag,
        }
    }
}

/// The snapshot-shaped document of a holder.
fn holder_snapshot<'t>(timelines: &[&'t Timeline], holder: &Holder) -> Option<&'t Snapshot> {
    let branch_of = |b: &str| timelines.iter().find(|t| t.location.branch == b);
    match holder {
        Holder::Snapshot { branch, id } => {
            branch_of(branch)?.snapshots.get(id).map(|s| &s.snapshot)
        }
        Holder::Tag { branch, name } => branch_of(branch)?
            .tags
            .iter()
            .find(|t| &t.name == name)
            .and_then(|t| t.tag.as_ref().ok())
            .map(|t| &t.snapshot),
        Holder::LongLivedChangelog { branch, id } => branch_of(branch)?
            .long_lived_changelogs
            .get(id)
            .map(|s| &s.snapshot),
    }
}

fn same_data_lists(a: &Snapshot, b: &Snapshot) -> bool {
    a.base_manifest_list == b.base_manifest_list && a.delta_manifest_list == b.delta_manifest_list
}

/// Whether the changelog manifest list `list` is gone on purpose (see the module doc).
fn changelog_list_gone<'t>(timelines: &[&'t Timeline], list: &str) -> Option<Gone<'t>> {
    let tags = || {
        timelines.iter().flat_map(|t| {
            t.tags.iter().filter_map(move |tag| {
                let s = &tag.tag.as_ref().ok()?.snapshot;
                (s.changelog_manifest_list.as_deref() == Some(list)).then_some((*t, tag, s))
            })
        })
    };
    // The earliest snapshot, or with none left (a rollback stopped after deleting them) the
    // EARLIEST hint expiration wrote, is above the tagged one.
    let expired_below = |t: &Timeline| match t.earliest() {
        Some(e) => Some((e, None)),
        None => t
            .earliest_hint
            .as_ref()
            .and_then(|h| h.value)
            .map(|e| (e, Some(e))),
    };
    let expired = tags().find_map(|(t, _, s)| {
        let (earliest, hinted) = expired_below(t)?;
        (earliest > s.id).then_some((t, s, hinted))
    });
    if let Some((t, s, hinted)) = expired {
        return Some(Gone::ExpiredTagged {
            branch: &t.location.branch,
            id: s.id,
            tag: s,
            hinted,
        });
    }
    tags()
        .find(|(t, _, s)| {
            t.earliest() == Some(s.id)
                && t.snapshots
                    .get(&s.id)
                    .is_some_and(|own| same_data_lists(&own.snapshot, s))
        })
        .map(|(t, tag, s)| Gone::RollbackOrStoppedExpiration {
            branch: &t.location.branch,
            id: s.id,
            name: &tag.name,
            tag: s,
        })
}

/// Whether `d` is a changelog manifest list gone on purpose for its holder, and why.
fn by_design<'t>(timelines: &[&'t Timeline], d: &Dangling) -> Option<Gone<'t>> {
    if d.kind != "manifest list" {
        return None;
    }
    let list = d.file.strip_prefix("manifest/")?;
    let s = holder_snapshot(timelines, &d.holder)?;
    if s.changelog_manifest_list.as_deref() != Some(list) {
        return None;
    }
    let gone = changelog_list_gone(timelines, list)?;
    let qualifies = match &d.holder {
        Holder::Tag { .. } => true,
        // A copy of the tag at the start of its branch (createBranch from the tag, rollbackTo
        // the tag), or the tagged snapshot itself there.
        Holder::Snapshot { branch, id } => {
            same_data_lists(s, gone.tag())
                && timelines
                    .iter()
                    .find(|t| &t.location.branch == branch)
                    .and_then(|t| t.earliest())
                    == Some(*id)
        }
        Holder::LongLivedChangelog { .. } => false,
    };
    qualifies.then_some(gone)
}

/// `who` for a set of holders, in timeline order: `snapshots 4, 5 of branch early`, `tag t2`.
pub fn name_holders(holders: &[&Holder]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(h) = holders.get(i) {
        if let Holder::Snapshot { branch, .. } = h {
            let mut ids = Vec::new();
            while let Some(Holder::Snapshot { branch: b, id }) = holders.get(i) {
                if b != branch {
                    break;
                }
                ids.push(*id);
                i += 1;
            }
            let what = if ids.len() == 1 {
                format!("snapshot {}", runs(&ids))
            } else {
                format!("snapshots {}", runs(&ids))
            };
            parts.push(if branch == MAIN_BRANCH {
                what
            } else {
                format!("{what} of branch {branch}")
            });
        } else {
            parts.push(h.to_string());
            i += 1;
        }
    }
    match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Ascending ids with runs of three or more as ranges: `1, 2`, `2..6`, `1, 4..9`.
fn runs(ids: &[i64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while let Some(&first) = ids.get(i) {
        let mut j = i;
        while ids
            .get(j + 1)
            .is_some_and(|&n| Some(n) == ids.get(j).map(|p| p.saturating_add(1)))
        {
            j += 1;
        }
        let last = ids.get(j).copied().unwrap_or(first);
        if j >= i + 2 {
            parts.push(format!("{first}..{last}"));
        } else {
            for id in ids.get(i..=j).unwrap_or(&[]) {
                parts.push(id.to_string());
            }
        }
        i = j + 1;
    }
    parts.join(", ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "2 snapshots, 3 tags": how many holders of each kind.
fn count_holders(holders: &[&Holder]) -> String {
    let snapshots = holders
        .iter()
        .filter(|h| matches!(h, Holder::Snapshot { .. }))
        .count();
    let tags = holders
        .iter()
        .filter(|h| matches!(h, Holder::Tag { .. }))
        .count();
    let changelogs = holders.len() - snapshots - tags;
    let mut parts = Vec::new();
    if snapshots > 0 {
        parts.push(plural(snapshots, "snapshot", "snapshots"));
    }
    if tags > 0 {
        parts.push(plural(tags, "tag", "tags"));
    }
    if changelogs > 0 {
        parts.push(plural(
            changelogs,
            "long-lived changelog",
            "long-lived changelogs",
        ));
    }
    parts.join(", ")
}

/// The timeline a holder belongs to (its index in `timelines`).
fn timeline_of(timelines: &[&Timeline], h: &Holder) -> usize {
    let branch = match h {
        Holder::Snapshot { branch, .. }
        | Holder::Tag { branch, .. }
        | Holder::LongLivedChangelog { branch, .. } => branch,
    };
    timelines
        .iter()
        .position(|t| &t.location.branch == branch)
        .unwrap_or(0)
}

/// `dangling-reference` over one table root: each finding with the index of the timeline
/// (in `timelines`) it is reported on, the one of its first holder.
pub fn dangling(timelines: &[&Timeline], root: &RootFiles) -> Vec<(usize, Finding)> {
    let missing: Vec<&Dangling> = timelines
        .iter()
        .filter_map(|t| root.branches.get(&t.location.branch))
        .flat_map(|b| b.dangling.iter().filter(|d| d.why == Unusable::Missing))
        .collect();
    let order = |h: &Holder| (timeline_of(timelines, h), h.clone());
    let mut gone: BTreeMap<&str, (Gone<'_>, Vec<&Holder>)> = BTreeMap::new();
    // file -> (kind, holders)
    let mut truly: BTreeMap<&str, (&'static str, Vec<&Holder>)> = BTreeMap::new();
    for d in &missing {
        match by_design(timelines, d) {
            Some(g) => gone
                .entry(&d.file)
                .or_insert((g, Vec::new()))
                .1
                .push(&d.holder),
            None => truly
                .entry(&d.file)
                .or_insert((d.kind, Vec::new()))
                .1
                .push(&d.holder),
        }
    }
    let mut out = Vec::new();
    for (file, (why, mut holders)) in gone {
        holders.sort_by_key(|h| order(h));
        holders.dedup();
        let also_missing: Vec<&Holder> = holders
            .iter()
            .copied()
            .filter(|h| truly.values().any(|(_, hs)| hs.contains(h)))
            .collect();
        out.push((
            holders.first().map_or(0, |h| timeline_of(timelines, h)),
            gone_finding(file, &why, &holders, &also_missing),
        ));
    }
    // Files needed only by snapshots of one branch together (often the oldest few after an
    // interrupted expiration); files needed by tags or several branches with the same holders.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Group {
        Snapshots(usize),
        Holders(Vec<(usize, Holder)>),
    }
    let mut groups: BTreeMap<Group, Vec<Needed<'_>>> = BTreeMap::new();
    for (file, (kind, holders)) in &truly {
        let mut hs: Vec<(usize, Holder)> = holders.iter().map(|h| order(h)).collect();
        hs.sort();
        hs.dedup();
        let first = hs.first().map_or(0, |(i, _)| *i);
        let one_branch_snapshots = hs
            .iter()
            .all(|(i, h)| *i == first && matches!(h, Holder::Snapshot { .. }));
        let key = if one_branch_snapshots {
            Group::Snapshots(first)
        } else {
            Group::Holders(hs.clone())
        };
        groups.entry(key).or_default().push(Needed {
            file,
            kind,
            holders: hs.into_iter().map(|(_, h)| h).collect(),
        });
    }
    for (_, files) in groups {
        let mut all: Vec<(usize, Holder)> = files
            .iter()
            .flat_map(|n| n.holders.iter().map(&order))
            .collect();
        all.sort();
        all.dedup();
        let Some(index) = all.first().map(|(i, _)| *i) else {
            continue;
        };
        let Some(t) = timelines.get(index) else {
            continue;
        };
        let hs: Vec<&Holder> = all.iter().map(|(_, h)| h).collect();
        out.push((index, missing_finding(t, &hs, &files)));
    }
    out
}

/// A truly missing file, what it is and who needs it.
struct Needed<'a> {
    file: &'a str,
    kind: &'static str,
    holders: Vec<Holder>,
}

fn branch_phrase(branch: &str) -> String {
    if branch == MAIN_BRANCH {
        "the main branch".into()
    } else {
        format!("branch {branch}")
    }
}

/// The info for a changelog manifest list gone on purpose.
fn gone_finding(
    file: &str,
    why: &Gone<'_>,
    holders: &[&Holder],
    also_missing: &[&Holder],
) -> Finding {
    let who = name_holders(holders);
    let verb = if holders.len() == 1 { "names" } else { "name" };
    let data = if also_missing.is_empty() {
        "every data manifest list and data file they need is present, so a batch read or time travel to them gets their data".to_string()
    } else {
        format!(
            "a batch read or time travel to them gets their data once the files reported missing for {} are restored",
            name_holders(also_missing)
        )
    };
    let (message, remedy, id, evidence) = match why {
        Gone::ExpiredTagged {
            branch, id, hinted, ..
        } => (
            format!(
                "{who} {verb} a changelog manifest list that is gone by design: {} expired snapshot {id}, and expiration deletes an expired snapshot's changelog list and changelog files (with the snapshot, or later with its long-lived changelog) even when a tag holds the snapshot. Here {data}; a streaming read that starts at them fails, and the changelog of snapshot {id} cannot be delivered.",
                branch_phrase(branch)
            ),
            format!(
                "Nothing to repair: Paimon deleted it on purpose (snapshot expiration removes an expired snapshot's changelog list even when a tag holds the snapshot: ExpireSnapshotsImpl, SnapshotDeletion). Start streaming reads after snapshot {id} (or from the latest snapshot); batch reads and time travel are unaffected."
            ),
            *id,
            match hinted {
                None => format!(
                    "snapshot {id} is below the earliest retained snapshot of {}, and a tag names it",
                    branch_phrase(branch)
                ),
                Some(e) => format!(
                    "no snapshot of {} is left, its EARLIEST hint says {e}, above snapshot {id}, and a tag names it",
                    branch_phrase(branch)
                ),
            },
        ),
        Gone::RollbackOrStoppedExpiration { branch, id, name, .. } => (
            format!(
                "{who} {verb} a changelog manifest list that is gone. Snapshot {id} is the earliest of {} and has tag {name}'s manifest lists: either {}a rollback to tag {name} after snapshot {id} expired wrote the tag back as snapshot {id} (by design), or an expiration of snapshot {id} stopped after deleting its changelog list. Either way {data}; a streaming read that starts at them fails.",
                branch_phrase(branch),
                if *branch == MAIN_BRANCH {
                    String::new()
                } else {
                    format!("the branch was created from tag {name} and another branch sharing manifest/ expired snapshot {id} (by design), or ")
                }
            ),
            format!(
                "Nothing to repair for batch readers (their base and delta lists are all present). Start streaming reads after snapshot {id}; if an expiration stopped part way, the next expire_snapshots finishes it."
            ),
            *id,
            format!(
                "snapshot {id} is the earliest snapshot of {} and its base and delta lists are tag {name}'s",
                branch_phrase(branch)
            ),
        ),
    };
    Finding::new(Code::DanglingReference, Severity::Info, message, remedy)
        .snapshot(id)
        .files([file.to_string()])
        .evidence(evidence)
        .evidence(format!(
            "{file}: the changelog manifest list of {who} (missing)"
        ))
}

/// The error for truly missing files and every holder that needs them.
fn missing_finding(t: &Timeline, holders: &[&Holder], files: &[Needed<'_>]) -> Finding {
    let here: Vec<i64> = holders
        .iter()
        .filter_map(|h| match h {
            Holder::Snapshot { branch, id } if branch == &t.location.branch => Some(*id),
            _ => None,
        })
        .collect();
    let only_here_snapshots = here.len() == holders.len();
    let retained: Vec<i64> = t.snapshots.keys().copied().collect();
    let oldest_prefix = !here.is_empty() && retained.get(..here.len()) == Some(here.as_slice());
    let latest_of = |tl: &Timeline| {
        holders.iter().any(|h| {
            matches!(h, Holder::Snapshot { branch, id }
                if branch == &tl.location.branch && Some(*id) == tl.latest())
        })
    };
    let latest_affected = latest_of(t);
    let interrupted = only_here_snapshots && oldest_prefix && !latest_affected;
    let tags_need = holders.iter().any(|h| matches!(h, Holder::Tag { .. }));

    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for n in files {
        *kinds.entry(n.kind).or_default() += 1;
    }
    let kinds_text = kinds
        .iter()
        .map(|(k, n)| plural(*n, k, &format!("{k}s")))
        .collect::<Vec<_>>()
        .join(", ");
    let who = name_holders(holders);
    let counted = if holders.len() > 2 || (holders.len() > 1 && !only_here_snapshots) {
        format!(" ({})", count_holders(holders))
    } else {
        String::new()
    };
    let consequence = if latest_affected {
        "the table's current state cannot be read"
    } else {
        "reading or time-travelling to them fails, and so does a streaming reader that starts there"
    };
    let mut remedy = if interrupted {
        "Finish the expiration: run expire_snapshots again (dry run first, if your version has it); it removes these snapshots. Make sure no consumer or tag still needs them.".to_string()
    } else {
        "Check whether the artifact is complete (re-capture it); if the files are gone from the warehouse, restore them from a backup or roll back to a snapshot that does not need them (rollback_to, after a dry run on a copy).".to_string()
    };
    if tags_need {
        remedy.push_str(" A tag or branch that needs a missing file is repaired only by restoring the file; if nobody reads it, delete it (delete_tag, delete_branch).");
    }
    let mut f = Finding::new(
        Code::DanglingReference,
        Severity::Error,
        format!(
            "{who}{counted} reference{} {} ({kinds_text}){}: {consequence}.",
            if holders.len() == 1 { "s" } else { "" },
            plural(files.len(), "missing file", "missing files"),
            if interrupted {
                " after an interrupted expiration"
            } else {
                ""
            },
        ),
        remedy,
    )
    .related(here.iter().copied())
    .files(files.iter().map(|n| n.file.to_string()));
    if let Some(first) = here.first() {
        f = f.snapshot(*first);
    }
    if interrupted {
        f = f.evidence(
            "only the oldest retained snapshots are affected and no tag needs the files: an interrupted snapshot expiration (it deletes data files and manifests before the snapshot files, and never a file a tag needs: ExpireSnapshotsImpl)",
        );
    }
    for n in files.iter().take(EVIDENCE_FILES) {
        let needed_by: Vec<&Holder> = n.holders.iter().collect();
        f = f.evidence(format!(
            "{} {} (missing), needed by {}",
            n.kind,
            n.file,
            name_holders(&needed_by)
        ));
    }
    if files.len() > EVIDENCE_FILES {
        f = f.evidence(format!("… and {} more", files.len() - EVIDENCE_FILES));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::files::BranchFiles;
    use crate::timeline::testkit::timelines_with_files;

    fn snap(branch: &str, id: i64) -> Holder {
        Holder::Snapshot {
            branch: branch.into(),
            id,
        }
    }

    fn tag(branch: &str, name: &str) -> Holder {
        Holder::Tag {
            branch: branch.into(),
            name: name.into(),
        }
    }

    /// A snapshot document (a snapshot or a tag's body): snapshot `id` with base and delta lists
    /// `b-<lists>`, `d-<lists>` and, if given, the changelog list `changelog`.
    fn doc(id: i64, lists: i64, changelog: Option<&str>) -> String {
        doc_with(id, (lists, lists), changelog)
    }

    /// [`doc`] with base list `b-<base>` and delta list `d-<delta>`.
    fn doc_with(id: i64, (base, delta): (i64, i64), changelog: Option<&str>) -> String {
        let changelog = changelog.map_or(String::new(), |c| {
            format!(r#""changelogManifestList": "{c}", "#)
        });
        format!(
            r#"{{"version": 3, "id": {id}, "schemaId": 0, "baseManifestList": "b-{base}", "deltaManifestList": "d-{delta}", {changelog}"commitUser": "w", "commitIdentifier": {id}, "commitKind": "APPEND", "timeMillis": {id}000}}"#
        )
    }

    /// A file `holder` needs that is not in the artifact.
    fn missing(holder: Holder, kind: &'static str, file: &str) -> Dangling {
        Dangling {
            holder,
            kind,
            file: file.to_string(),
            why: Unusable::Missing,
        }
    }

    /// Snapshot 3 and tag t1 (its copy) both miss the changelog list `manifest/c-3`.
    fn snapshot_3_and_tag_t1_miss_c3() -> Vec<Dangling> {
        vec![
            missing(snap(MAIN_BRANCH, 3), "manifest list", "manifest/c-3"),
            missing(tag(MAIN_BRANCH, "t1"), "manifest list", "manifest/c-3"),
        ]
    }

    /// The table `db.db/t` with `files` (path under the table root, content), its main branch
    /// and branches, and the files each branch's holders miss.
    struct Scene {
        timelines: Vec<Timeline>,
        root: RootFiles,
    }

    impl Scene {
        fn new(files: &[(&str, String)], missing: &[(&str, Vec<Dangling>)]) -> Self {
            let raw: Vec<(&str, &str)> = files.iter().map(|(p, b)| (*p, b.as_str())).collect();
            let mut root = RootFiles::default();
            for (branch, dangling) in missing {
                root.branches.insert(
                    branch.to_string(),
                    BranchFiles {
                        dangling: dangling.clone(),
                        ..BranchFiles::default()
                    },
                );
            }
            Scene {
                timelines: timelines_with_files(&[], &[], &[], &raw),
                root,
            }
        }

        /// [`Scene::new`] with only the main branch's holders missing files.
        fn on_main(files: &[(&str, String)], missing: Vec<Dangling>) -> Self {
            Scene::new(files, &[(MAIN_BRANCH, missing)])
        }

        /// The findings with the branch each is reported on.
        fn run(&self) -> Vec<(&str, Finding)> {
            let timelines: Vec<&Timeline> = self.timelines.iter().collect();
            dangling(&timelines, &self.root)
                .into_iter()
                .map(|(i, f)| (self.timelines[i].location.branch.as_str(), f))
                .collect()
        }

        /// The one finding.
        fn one(&self) -> Finding {
            let mut out = self.run();
            assert_eq!(out.len(), 1, "{out:#?}");
            out.remove(0).1
        }
    }

    #[test]
    fn holders_are_named_by_branch_with_snapshot_runs() {
        let t = Holder::Tag {
            branch: MAIN_BRANCH.into(),
            name: "t2".into(),
        };
        let e = Holder::Tag {
            branch: "early".into(),
            name: "t2".into(),
        };
        let (s4, s5) = (snap("early", 4), snap("early", 5));
        assert_eq!(
            name_holders(&[&t, &e, &s4, &s5]),
            "tag t2, tag t2 of branch early and snapshots 4, 5 of branch early"
        );
        let (m1, m2) = (snap(MAIN_BRANCH, 1), snap(MAIN_BRANCH, 2));
        assert_eq!(name_holders(&[&m1, &m2]), "snapshots 1, 2");
        assert_eq!(runs(&[1, 4, 5, 6, 7, 9, 10]), "1, 4..7, 9, 10");
        assert_eq!(runs(&[3]), "3");
        assert_eq!(count_holders(&[&t, &e, &s4, &s5]), "2 snapshots, 2 tags");
    }

    /// A rollback to tag t1 writes the tag back as the branch's earliest snapshot with the tag's
    /// lists: the changelog list both name is gone on purpose. An earliest snapshot that names
    /// the same changelog list over other data lists is no copy of the tag: the list is missing.
    #[test]
    fn only_the_tags_own_data_lists_make_its_missing_changelog_list_by_design() {
        let cases = [
            ((3, 3), Severity::Info),
            ((30, 3), Severity::Error),
            ((3, 30), Severity::Error),
        ];
        for (lists, severity) in cases {
            let scene = Scene::on_main(
                &[
                    ("snapshot/snapshot-3", doc_with(3, lists, Some("c-3"))),
                    ("snapshot/snapshot-4", doc(4, 4, None)),
                    ("tag/tag-t1", doc(3, 3, Some("c-3"))),
                ],
                snapshot_3_and_tag_t1_miss_c3(),
            );
            let f = scene.one();
            assert_eq!(f.severity, severity, "lists {lists:?}: {f:#?}");
            assert_eq!(f.files, ["manifest/c-3"]);
        }
    }

    /// Branch b created from tag t1 (whose snapshot 2 main has expired) starts with a copy of
    /// the tag, changelog list and all: that list is gone on purpose for the copy. A snapshot
    /// of b that names the list over other data lists, or that is not b's first, is no such
    /// copy: the list is missing.
    #[test]
    fn a_branch_snapshot_shares_an_expired_tags_missing_changelog_list_only_as_its_copy() {
        let cases = [
            (
                vec![(2, doc(2, 2, Some("c-2"))), (3, doc(3, 3, None))],
                Severity::Info,
            ),
            (
                vec![(2, doc_with(2, (20, 2), Some("c-2")))],
                Severity::Error,
            ),
            (
                vec![(1, doc(1, 1, None)), (2, doc(2, 2, Some("c-2")))],
                Severity::Error,
            ),
        ];
        for (branch_snapshots, severity) in cases {
            let paths: Vec<String> = branch_snapshots
                .iter()
                .map(|(id, _)| format!("branch/branch-b/snapshot/snapshot-{id}"))
                .collect();
            let mut files = vec![
                ("snapshot/snapshot-3", doc(3, 3, None)),
                ("snapshot/snapshot-4", doc(4, 4, None)),
                ("tag/tag-t1", doc(2, 2, Some("c-2"))),
            ];
            files.extend(
                paths
                    .iter()
                    .zip(&branch_snapshots)
                    .map(|(p, (_, d))| (p.as_str(), d.clone())),
            );
            let scene = Scene::new(
                &files,
                &[(
                    "b",
                    vec![missing(snap("b", 2), "manifest list", "manifest/c-2")],
                )],
            );
            let f = scene.one();
            assert_eq!(f.severity, severity, "{branch_snapshots:?}: {f:#?}");
        }
    }

    /// Tag t1's snapshot 3 is still retained (the branch starts at 2) with the tag's lists: its
    /// changelog list was not expired away, so it is missing for the tag and the snapshot alike.
    #[test]
    fn a_retained_tagged_snapshots_missing_changelog_list_is_an_error_for_its_tag_too() {
        let scene = Scene::on_main(
            &[
                ("snapshot/snapshot-2", doc(2, 2, None)),
                ("snapshot/snapshot-3", doc(3, 3, Some("c-3"))),
                ("tag/tag-t1", doc(3, 3, Some("c-3"))),
            ],
            snapshot_3_and_tag_t1_miss_c3(),
        );
        let f = scene.one();
        assert_eq!(f.severity, Severity::Error, "{f:#?}");
        assert!(
            f.message.starts_with(
                "snapshot 3 and tag t1 (1 snapshot, 1 tag) reference 1 missing file (1 manifest list):"
            ),
            "{}",
            f.message
        );
    }

    /// A file several holders need names them and counts them by kind, only the kinds there are.
    #[test]
    fn the_holders_of_a_missing_file_are_counted_by_kind() {
        let scene = Scene::on_main(
            &[
                ("snapshot/snapshot-4", doc(4, 4, None)),
                ("snapshot/snapshot-5", doc(5, 5, None)),
                ("tag/tag-t1", doc(1, 1, None)),
                ("tag/tag-t2", doc(2, 2, None)),
                ("changelog/changelog-3", doc(3, 3, None)),
            ],
            ["t1", "t2"]
                .map(|t| missing(tag(MAIN_BRANCH, t), "data file", "bucket-0/data-1.parquet"))
                .into_iter()
                .chain([missing(
                    Holder::LongLivedChangelog {
                        branch: MAIN_BRANCH.into(),
                        id: 3,
                    },
                    "data file",
                    "bucket-0/data-1.parquet",
                )])
                .collect(),
        );
        let f = scene.one();
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(
            f.message,
            "tag t1, tag t2 and long-lived changelog 3 (2 tags, 1 long-lived changelog) reference 1 missing file (1 data file): reading or time-travelling to them fails, and so does a streaming reader that starts there."
        );
    }

    /// Files that only snapshots of one branch need are one finding (the oldest two here: an
    /// interrupted expiration); a file a tag needs is reported with the holders that need it.
    #[test]
    fn one_branchs_snapshots_share_a_finding_and_tags_have_their_own() {
        let file = |holder: Holder, name: &str| missing(holder, "data file", name);
        let scene = Scene::on_main(
            &[
                ("snapshot/snapshot-1", doc(1, 1, None)),
                ("snapshot/snapshot-2", doc(2, 2, None)),
                ("snapshot/snapshot-3", doc(3, 3, None)),
                ("tag/tag-t1", doc(1, 1, None)),
                ("tag/tag-t2", doc(2, 2, None)),
            ],
            vec![
                file(snap(MAIN_BRANCH, 1), "bucket-0/data-a.parquet"),
                file(snap(MAIN_BRANCH, 2), "bucket-0/data-b.parquet"),
                file(tag(MAIN_BRANCH, "t1"), "bucket-0/data-c.parquet"),
                file(tag(MAIN_BRANCH, "t2"), "bucket-0/data-d.parquet"),
            ],
        );
        let out = scene.run();
        let files: Vec<(&str, Severity, Vec<&str>)> = out
            .iter()
            .map(|(b, f)| (*b, f.severity, f.files.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            files,
            [
                (
                    MAIN_BRANCH,
                    Severity::Error,
                    vec!["bucket-0/data-a.parquet", "bucket-0/data-b.parquet"]
                ),
                (
                    MAIN_BRANCH,
                    Severity::Error,
                    vec!["bucket-0/data-c.parquet"]
                ),
                (
                    MAIN_BRANCH,
                    Severity::Error,
                    vec!["bucket-0/data-d.parquet"]
                ),
            ]
        );
        assert!(
            out[0].1.message.starts_with(
                "snapshots 1, 2 reference 2 missing files (2 data files) after an interrupted expiration:"
            ),
            "{}",
            out[0].1.message
        );
        assert!(out[1]
            .1
            .message
            .starts_with("tag t1 references 1 missing file"));
    }

    /// An interrupted expiration deletes the files of the oldest snapshots: a file missing only
    /// for a snapshot after the earliest (not the latest) points to no expiration.
    #[test]
    fn a_file_missing_for_a_middle_snapshot_is_no_interrupted_expiration() {
        let scene = Scene::on_main(
            &[
                ("snapshot/snapshot-1", doc(1, 1, None)),
                ("snapshot/snapshot-2", doc(2, 2, None)),
                ("snapshot/snapshot-3", doc(3, 3, None)),
            ],
            vec![missing(snap(MAIN_BRANCH, 2), "manifest", "manifest/m-2")],
        );
        let f = scene.one();
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(
            f.message,
            "snapshot 2 references 1 missing file (1 manifest): reading or time-travelling to them fails, and so does a streaming reader that starts there."
        );
        assert!(f
            .remedy
            .starts_with("Check whether the artifact is complete"));
        assert_eq!(f.snapshot, Some(2));
        assert!(
            !f.evidence.iter().any(|e| e.contains("interrupted")),
            "{f:#?}"
        );
    }

    /// The evidence names the first [`EVIDENCE_FILES`] missing files and counts the rest.
    #[test]
    fn the_evidence_names_the_first_files_and_counts_the_others() {
        for (n, more) in [
            (EVIDENCE_FILES, None),
            (EVIDENCE_FILES + 1, Some("… and 1 more")),
        ] {
            let names: Vec<String> = (0..n)
                .map(|i| format!("bucket-0/data-{i:02}.parquet"))
                .collect();
            let scene = Scene::on_main(
                &[
                    ("snapshot/snapshot-1", doc(1, 1, None)),
                    ("snapshot/snapshot-2", doc(2, 2, None)),
                ],
                names
                    .iter()
                    .map(|name| missing(snap(MAIN_BRANCH, 1), "data file", name))
                    .collect(),
            );
            let f = scene.one();
            assert_eq!(f.files.len(), n);
            let named: Vec<&String> = f
                .evidence
                .iter()
                .filter(|e| e.ends_with("(missing), needed by snapshot 1"))
                .collect();
            assert_eq!(named.len(), EVIDENCE_FILES, "{n} files: {:#?}", f.evidence);
            assert_eq!(
                f.evidence
                    .iter()
                    .find(|e| e.starts_with('…'))
                    .map(String::as_str),
                more,
                "{n} files: {:#?}",
                f.evidence
            );
        }
    }
}
