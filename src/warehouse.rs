//! Discovery of tables and branches inside any input (`paimon-format.md` §1.1, §1.7, §9.1).
//!
//! A table is any directory holding `schema/schema-<id>` or `snapshot/snapshot-<id>` files, at
//! any depth (one artifact may hold several warehouses, databases and tables, or a table copied
//! on its own). Each `branch/branch-<name>/` below a table is its own timeline: it has its own
//! `snapshot/`, `schema/`, `tag/`, `consumer/` and `changelog/`, and shares the table root's
//! data files and `manifest/`, `index/`, `statistics/` directories.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::source::split_parent;
use crate::source::Artifact;

/// The name of the main branch.
pub const MAIN_BRANCH: &str = "main";

/// One timeline to analyse: a table's main branch or one of its branches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableLocation {
    /// The table root (where data files, `manifest/` and `index/` live).
    pub root: String,
    /// `main` or the branch name.
    pub branch: String,
    /// Where this branch's metadata lives: the root for `main`, else
    /// `<root>/branch/branch-<name>`.
    pub meta_root: String,
}

impl TableLocation {
    /// `<meta_root>/<dir>` (`dir` like `snapshot`).
    pub fn meta_dir(&self, dir: &str) -> String {
        join(&self.meta_root, dir)
    }

    /// `<root>/<dir>` for directories shared by all branches (`manifest`, `index`,
    /// `statistics`).
    pub fn shared_dir(&self, dir: &str) -> String {
        join(&self.root, dir)
    }
}

/// The metadata directories of each table and branch that an analysis reads whole, in the
/// order `Timeline::load` reads them (paimon-format.md §1, "Directory layout"): schemas,
/// snapshots, consumers, tags, long-lived changelog. Then it reads [`MANIFEST_DIR`] of each
/// table root.
pub const BRANCH_METADATA_DIRS: [&str; 5] = ["schema", "snapshot", "consumer", "tag", "changelog"];

/// The directory of manifest lists, manifests and index manifests, shared by a table's branches.
pub const MANIFEST_DIR: &str = "manifest";

/// A zip directory's rank in the order an analysis reads metadata directories, by its last
/// component, for [`crate::source::Artifact::open_announcing`]: first each table's and
/// branch's [`BRANCH_METADATA_DIRS`] (phase 0), then the [`MANIFEST_DIR`]s (phase 1). A guess
/// from the name alone, before the tables are found (a zip is announced as soon as its central
/// directory is read); a directory so named that is no table's is read ahead for nothing.
pub fn metadata_dir_rank(dir: &str) -> Option<(u32, u32)> {
    let name = dir.rsplit('/').next().unwrap_or(dir);
    if name == MANIFEST_DIR {
        return Some((1, 0));
    }
    BRANCH_METADATA_DIRS
        .iter()
        .position(|d| *d == name)
        .and_then(|p| u32::try_from(p).ok())
        .map(|p| (0, p))
}

/// Joins artifact paths, where an empty `base` is the artifact root.
pub fn join(base: &str, rest: &str) -> String {
    if base.is_empty() {
        rest.to_string()
    } else {
        format!("{base}/{rest}")
    }
}

/// What discovery found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Every table and branch, ordered by root, then `main` first, then branch name.
    pub tables: Vec<TableLocation>,
    /// When no table was found: a short description of what the artifact holds instead (top
    /// directories and file counts, notable file kinds).
    pub instead: Vec<String>,
}

/// Finds every table and branch in the artifact.
pub fn discover(artifact: &Artifact) -> Discovery {
    let mut meta_roots: BTreeSet<String> = BTreeSet::new();
    for file in artifact.files() {
        let (dir, name) = (file.dir(), file.name());
        let (parent, last) = split_parent(dir);
        let is_marker = match last {
            "schema" => is_numbered(name, "schema-"),
            "snapshot" => {
                is_numbered(name, "snapshot-")
                    || name == "EARLIEST"
                    || name == "LATEST"
                    || crate::paimon::snapshot::temp_snapshot_id(name).is_some()
            }
            // A branch that holds only tags (a `createBranch` from a tag that failed after
            // copying the tag, paimon-format.md §5.6) is still a branch to report.
            "tag" => {
                name.starts_with("tag-") && {
                    let (branch_dir, _) = split_parent(parent);
                    split_parent(branch_dir).1 == "branch"
                }
            }
            _ => false,
        };
        if is_marker && dir.ends_with(last) {
            meta_roots.insert(parent.to_string());
        }
    }
    let mut tables = Vec::new();
    for meta_root in &meta_roots {
        let (parent, last) = split_parent(meta_root);
        let (table_root, branch_dir) = split_parent(parent);
        if branch_dir == "branch" {
            if let Some(branch) = last.strip_prefix("branch-") {
                if !branch.is_empty() {
                    tables.push(TableLocation {
                        root: table_root.to_string(),
                        branch: branch.to_string(),
                        meta_root: meta_root.clone(),
                    });
                    continue;
                }
            }
        }
        tables.push(TableLocation {
            root: meta_root.clone(),
            branch: MAIN_BRANCH.to_string(),
            meta_root: meta_root.clone(),
        });
    }
    tables.sort_by(|a, b| {
        (a.root.as_str(), a.branch != MAIN_BRANCH, a.branch.as_str()).cmp(&(
            b.root.as_str(),
            b.branch != MAIN_BRANCH,
            b.branch.as_str(),
        ))
    });
    let instead = if tables.is_empty() {
        describe(artifact)
    } else {
        Vec::new()
    };
    Discovery { tables, instead }
}

/// A short description of an artifact without tables: its top-level directories and what
/// kinds of files it holds.
fn describe(artifact: &Artifact) -> Vec<String> {
    let mut top: BTreeMap<&str, u64> = BTreeMap::new();
    let mut kinds: BTreeMap<&'static str, u64> = BTreeMap::new();
    for f in artifact.files() {
        let first = if f.dir().is_empty() {
            f.name()
        } else {
            f.dir().split('/').next().unwrap_or("")
        };
        *top.entry(first).or_default() += 1;
        let name = f.name();
        let kind = if name.ends_with(".parquet") {
            "Parquet files"
        } else if name.ends_with(".orc") {
            "ORC files"
        } else if name.starts_with("manifest-") {
            "Paimon manifest files (without snapshot/ or schema/)"
        } else if name.starts_with("consumer-") {
            "consumer files"
        } else if f.path().contains("/offsets/") || f.path().contains("/commits/") {
            "Spark checkpoint files"
        } else {
            "other files"
        };
        *kinds.entry(kind).or_default() += 1;
    }
    let mut out = Vec::new();
    if artifact.files().is_empty() {
        out.push("the artifact holds no files".to_string());
        return out;
    }
    let mut tops: Vec<_> = top.into_iter().collect();
    tops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = tops
        .iter()
        .take(8)
        .map(|(d, n)| format!("{d} ({n} files)"))
        .collect();
    out.push(format!("top level: {}", shown.join(", ")));
    for (kind, n) in kinds {
        out.push(format!("{n} {kind}"));
    }
    out
}

fn is_numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(paths: &[&str]) -> Artifact {
        Artifact::of_paths(paths)
    }

    #[test]
    fn finds_tables_and_branches_at_any_depth() {
        let a = artifact(&[
            "ci/wh/db.db/t1/schema/schema-0",
            "ci/wh/db.db/t1/snapshot/snapshot-1",
            "ci/wh/db.db/t1/branch/branch-dev/schema/schema-0",
            "ci/wh/db.db/t1/branch/branch-dev/snapshot/LATEST",
            "ci/wh/db.db/t1/bucket-0/data-1.parquet",
            "other/t2/schema/schema-3",
            "t3/snapshot/snapshot-9",
            "notes/schema/readme.txt",
        ]);
        let d = discover(&a);
        let found: Vec<(&str, &str)> = d
            .tables
            .iter()
            .map(|t| (t.root.as_str(), t.branch.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("ci/wh/db.db/t1", "main"),
                ("ci/wh/db.db/t1", "dev"),
                ("other/t2", "main"),
                ("t3", "main"),
            ]
        );
        assert_eq!(
            d.tables[1].meta_dir("snapshot"),
            "ci/wh/db.db/t1/branch/branch-dev/snapshot"
        );
        assert_eq!(
            d.tables[1].shared_dir("manifest"),
            "ci/wh/db.db/t1/manifest"
        );
    }

    #[test]
    fn table_at_the_root() {
        let a = artifact(&["schema/schema-0", "snapshot/snapshot-1"]);
        let d = discover(&a);
        assert_eq!(d.tables.len(), 1);
        assert_eq!(d.tables[0].root, "");
        assert_eq!(d.tables[0].meta_dir("snapshot"), "snapshot");
    }

    #[test]
    fn says_what_was_found_instead() {
        let a = artifact(&["logs/a.txt", "logs/b.txt", "data/x.parquet"]);
        let d = discover(&a);
        assert!(d.tables.is_empty());
        assert!(d.instead[0].contains("logs (2 files)"), "{:?}", d.instead);
        assert!(d.instead.iter().any(|l| l.contains("1 Parquet files")));
    }
}
