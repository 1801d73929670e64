//! Which snapshots, tags and long-lived changelogs reference a file (`paimon-format.md` §3.8,
//! §4.7): the reverse of the file graph, asked for one file at a time (the page's file detail,
//! an orphan someone wants to delete).
//!
//! Data and changelog files are answered from the deltas the analysis already holds: a file is
//! live from the snapshot whose delta adds it up to the one whose delta deletes it. Files live
//! before the earliest retained snapshot, tag contents and manifest-directory files are resolved
//! from the artifact on demand (each manifest decoded once per question).

use serde::{Deserialize, Serialize};

use crate::paimon::manifest::FileKind;
use crate::paimon::snapshot::{ManifestListRole, Snapshot};
use crate::source::Artifact;
use crate::timeline::files::{merge, BranchFiles, BucketFiles, Entries, ManifestStore, RootFiles};
use crate::timeline::Timeline;
use crate::warehouse::join;

/// Everything that references one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReferences {
    /// The table path.
    pub path: String,
    /// The file name asked about.
    pub file: String,
    /// Who references it, by branch then holder.
    pub references: Vec<Reference>,
    /// Whether it is one of the analysis's orphan files (referenced by nothing).
    pub orphan: bool,
}

/// One holder's reference to a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reference {
    /// The branch.
    pub branch: String,
    /// `snapshots`, `tag` or `long-lived changelog`.
    pub holder: String,
    /// For snapshots, the inclusive id range; for a long-lived changelog, its id twice.
    pub snapshots: Option<(i64, i64)>,
    /// For a tag, its name.
    pub tag: Option<String>,
    /// How: `live` (in the table state), `added`, `deleted`, `changelog`, `base list`,
    /// `delta list`, `changelog list`, `index manifest`, `index file` (named by the index
    /// manifest), `statistics`, `manifest of the base
    /// list` (and of the delta or changelog list).
    pub role: String,
}

/// Answers for file `name` (a bare file name, as in manifests) of the table root `root`.
pub fn file_references(
    artifact: &Artifact,
    timelines: &[&Timeline],
    root_files: &RootFiles,
    root: &str,
    name: &str,
) -> FileReferences {
    let mut lk = Lookup {
        artifact,
        store: ManifestStore::new(),
        manifest_dir: join(root, "manifest"),
        name,
        references: Vec::new(),
    };
    for t in timelines {
        let Some(bf) = root_files.branches.get(&t.location.branch) else {
            continue;
        };
        lk.data_file(t, bf);
        lk.manifest_dir_file(t);
        lk.tags(t);
        lk.long_lived_changelogs(t);
    }
    let orphan = root_files
        .orphans
        .iter()
        .any(|o| crate::warehouse::split_parent(&o.relative).1 == name);
    FileReferences {
        path: root.to_string(),
        file: name.to_string(),
        references: lk.references,
        orphan,
    }
}

/// What [`file_references`] looks `name` up in, and the references found so far.
struct Lookup<'a> {
    artifact: &'a Artifact,
    store: ManifestStore<'a>,
    manifest_dir: String,
    name: &'a str,
    references: Vec<Reference>,
}

impl Lookup<'_> {
    fn push(&mut self, t: &Timeline, (first, last): (i64, i64), role: String) {
        self.references.push(Reference {
            branch: t.location.branch.clone(),
            holder: "snapshots".into(),
            snapshots: Some((first, last)),
            tag: None,
            role,
        });
    }

    /// The roles a snapshot-shaped document gives `name` among the manifest-directory files.
    fn meta_roles(&mut self, s: &Snapshot) -> Vec<String> {
        snapshot_meta_roles(
            s,
            self.name,
            self.artifact,
            &mut self.store,
            &self.manifest_dir,
        )
    }

    fn entries(&mut self, list: &str) -> Entries {
        list_entries(self.artifact, &mut self.store, &self.manifest_dir, list)
    }

    /// A data or changelog file: added, deleted and changelog snapshots from the deltas, and
    /// the intervals it is live in (from the earliest retained snapshot's base list on).
    fn data_file(&mut self, t: &Timeline, bf: &BranchFiles) {
        let name = self.name;
        let latest = t.snapshots.keys().next_back().copied();
        let earliest = t.snapshots.keys().next().copied();
        let mut live_from: Option<i64> = None;
        if let (Some(e), Some(first)) = (earliest, t.snapshots.values().next()) {
            // Live before the earliest retained snapshot: in its base list (resolved now).
            if let Some(base) = first.snapshot.base_manifest_list.as_deref() {
                let entries = self.entries(base);
                let files = self.store.files();
                if merge(files, entries.rows())
                    .iter()
                    .any(|&x| files.entry(x).file().file_name() == name)
                {
                    live_from = Some(e);
                }
            }
        }
        let files = &*bf.catalog;
        for (id, f) in &bf.snapshots {
            for e in f.delta.iter(files).filter(|e| e.file().file_name() == name) {
                match e.kind() {
                    FileKind::Add => {
                        self.push(t, (*id, *id), "added".into());
                        live_from = live_from.or(Some(*id));
                    }
                    FileKind::Delete => {
                        self.push(t, (*id, *id), "deleted".into());
                        if let Some(from) = live_from.take() {
                            if *id > from {
                                self.push(t, (from, id - 1), "live".into());
                            }
                        }
                    }
                }
            }
            if f.changelog
                .iter(files)
                .any(|e| e.file().file_name() == name)
            {
                self.push(t, (*id, *id), "changelog".into());
            }
        }
        if let (Some(from), Some(l)) = (live_from, latest) {
            self.push(t, (from, l), "live".into());
        }
    }

    /// A manifest-directory file: which snapshots name it, directly or through a list, as runs
    /// of consecutive retained snapshots per role.
    fn manifest_dir_file(&mut self, t: &Timeline) {
        let mut by_role: Vec<(i64, String)> = Vec::new();
        for (id, sf) in &t.snapshots {
            for role in self.meta_roles(&sf.snapshot) {
                by_role.push((*id, role));
            }
        }
        by_role.sort_by(|a, b| (&a.1, a.0).cmp(&(&b.1, b.0)));
        let mut i = 0;
        while let Some((first, role)) = by_role.get(i) {
            let mut last = *first;
            let mut j = i + 1;
            while let Some((next, r)) = by_role.get(j) {
                if r != role || t.snapshots.range(last + 1..*next).next().is_some() {
                    break;
                }
                last = *next;
                j += 1;
            }
            let (first, role) = (*first, role.clone());
            self.push(t, (first, last), role);
            i = j;
        }
    }

    /// Tags: the manifest-directory roles of the tagged snapshot, and `live` when its data
    /// holds the file.
    fn tags(&mut self, t: &Timeline) {
        for tag in &t.tags {
            let Ok(tagged) = &tag.tag else { continue };
            let s = &tagged.snapshot;
            let mut roles = self.meta_roles(s);
            let mut all = Vec::new();
            for (role, list) in s.manifest_lists() {
                if role != ManifestListRole::Changelog {
                    all.push(self.entries(list));
                }
            }
            let files = self.store.files();
            if merge(files, all.iter().flat_map(Entries::rows))
                .iter()
                .any(|&e| files.entry(e).file().file_name() == self.name)
            {
                roles.push("live".into());
            }
            for role in roles {
                self.references.push(Reference {
                    branch: t.location.branch.clone(),
                    holder: "tag".into(),
                    snapshots: Some((s.id, s.id)),
                    tag: Some(tag.name.clone()),
                    role,
                });
            }
        }
    }

    /// Long-lived changelogs (`changelog/changelog-N`): their manifest-directory roles, and
    /// the file as added or as changelog in their delta and changelog lists.
    fn long_lived_changelogs(&mut self, t: &Timeline) {
        for (id, cf) in &t.long_lived_changelogs {
            let s = &cf.snapshot;
            let mut roles = self.meta_roles(s);
            for (role, list) in s.manifest_lists() {
                if role == ManifestListRole::Base {
                    continue;
                }
                let entries = self.entries(list);
                if entries
                    .iter(self.store.files())
                    .any(|e| e.file().file_name() == self.name)
                {
                    roles.push(match role {
                        ManifestListRole::Changelog => "changelog".into(),
                        _ => "added".into(),
                    });
                }
            }
            for role in roles {
                self.references.push(Reference {
                    branch: t.location.branch.clone(),
                    holder: "long-lived changelog".into(),
                    snapshots: Some((*id, *id)),
                    tag: None,
                    role,
                });
            }
        }
    }
}

/// How a snapshot-shaped document names a manifest-directory file: as one of its lists, its
/// index manifest, or through a list that names a manifest.
fn snapshot_meta_roles(
    s: &Snapshot,
    name: &str,
    artifact: &Artifact,
    store: &mut ManifestStore,
    manifest_dir: &str,
) -> Vec<String> {
    let mut roles = Vec::new();
    for (role, list) in s.manifest_lists() {
        if list == name {
            roles.push(
                match role {
                    ManifestListRole::Base => "base list",
                    ManifestListRole::Delta => "delta list",
                    ManifestListRole::Changelog => "changelog list",
                }
                .to_string(),
            );
        } else if name.starts_with("manifest-") && !name.starts_with("manifest-list-") {
            if let Ok(metas) = store.list(artifact, &join(manifest_dir, list)) {
                if metas.iter().any(|m| m == name) {
                    roles.push(
                        match role {
                            ManifestListRole::Base => "manifest of the base list",
                            ManifestListRole::Delta => "manifest of the delta list",
                            ManifestListRole::Changelog => "manifest of the changelog list",
                        }
                        .to_string(),
                    );
                }
            }
        }
    }
    if let Some(im) = s.index_manifest.as_deref() {
        if im == name {
            roles.push("index manifest".into());
        } else if name.starts_with("index-") && !name.starts_with("index-manifest-") {
            // An index file, in `index/` or (index-file-in-data-file-dir) a bucket directory:
            // named by the index manifest either way (paimon-format.md §1.8).
            if let Ok(entries) = store.index_manifest(artifact, &join(manifest_dir, im)) {
                if entries.iter().any(|e| e.file_name == name) {
                    roles.push("index file".into());
                }
            }
        }
    }
    if s.statistics.as_deref() == Some(name) {
        roles.push("statistics".into());
    }
    roles
}

fn list_entries(
    artifact: &Artifact,
    store: &mut ManifestStore,
    manifest_dir: &str,
    list: &str,
) -> Entries {
    let Ok(metas) = store.list(artifact, &join(manifest_dir, list)) else {
        return Entries::new();
    };
    let mut out = Entries::new();
    for name in metas.iter() {
        if let Ok(es) = store.manifest(artifact, &join(manifest_dir, name), &BucketFiles::default())
        {
            out.push(es);
        }
    }
    out
}
