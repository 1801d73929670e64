//! Where the files of external data paths are in the artifact (`paimon-format.md` §1.3).
//!
//! With `data-file.external-paths` (Paimon 1.1+, pypaimon 2.x) manifests carry each new data
//! and changelog file's absolute URI (`_EXTERNAL_PATH`), outside the table directory. An
//! artifact captured on another machine holds such a root, if at all, under some other prefix
//! (`<capture>/external/bucket-0/…` for `file:///tmp/…/external/bucket-0/…`). The root is
//! located by its trailing path: the longest run of its last path components that names a
//! directory of the artifact holding `bucket-*` directories. The table options' roots are the
//! guide; a URI under none of them is cut at its bucket directory. A file missing from such a
//! directory counts as missing only if the directory holds some other file the table
//! references (else it is a folder that merely shares the root's name).

use std::collections::{BTreeMap, BTreeSet};

use crate::source::Artifact;
use crate::warehouse::split_parent;

/// Where one external file is, as far as the artifact can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// The artifact holds its root and the file: the artifact path.
    Present(String),
    /// The artifact holds its root, but not the file: the artifact path it would have.
    Missing(String),
    /// The artifact does not hold its root (the root's URI): nothing can be checked.
    Outside(String),
}

/// The external roots of one table root, located in the artifact once each.
#[derive(Debug, Default)]
pub struct ExternalRoots {
    /// The table options' roots (URIs, as written).
    option_roots: Vec<String>,
    /// Artifact directories that hold a `bucket-*` directory, built on first use.
    dirs: Option<BTreeSet<String>>,
    /// Root URI (normalised) → the artifact directory holding it, if any.
    held: BTreeMap<String, Option<String>>,
    /// Held directories in which at least one referenced file was found.
    confirmed: BTreeSet<String>,
    /// Files found missing: (artifact directory of the root, artifact path, URI, root URI).
    missing: Vec<(String, String, String, String)>,
}

/// The path components of a URI: scheme dropped (`file:/a`, `file:///a`, `s3://bucket/a`).
fn components(uri: &str) -> Vec<&str> {
    let rest = match uri.split_once(':') {
        Some((scheme, rest))
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c)) =>
        {
            rest
        }
        _ => uri,
    };
    rest.split('/').filter(|c| !c.is_empty()).collect()
}

impl ExternalRoots {
    /// For a table whose options name `option_roots` (possibly none).
    pub fn new(option_roots: &[String]) -> Self {
        ExternalRoots {
            option_roots: option_roots.to_vec(),
            ..Self::default()
        }
    }

    /// Adds roots named by another schema or branch.
    pub fn add_roots(&mut self, roots: &[String]) {
        for r in roots {
            if !self.option_roots.contains(r) {
                self.option_roots.push(r.clone());
            }
        }
    }

    /// The root of `uri` (as normalised components) and the rest of its path.
    fn split<'u>(&self, uri: &'u str) -> (Vec<String>, Vec<&'u str>) {
        let parts = components(uri);
        let best = self
            .option_roots
            .iter()
            .map(|r| components(r))
            .filter(|r| !r.is_empty() && parts.len() > r.len() && parts.starts_with(r))
            .max_by_key(Vec::len);
        let root_len = match best {
            Some(r) => r.len(),
            // Not under a root the options name: cut at the bucket directory, and above any
            // partition directories (`k=v`).
            None => {
                let bucket = parts
                    .iter()
                    .rposition(|p| p.starts_with("bucket-"))
                    .unwrap_or(parts.len().saturating_sub(1));
                let mut cut = bucket;
                while cut > 0 && parts.get(cut - 1).is_some_and(|p| p.contains('=')) {
                    cut -= 1;
                }
                cut
            }
        };
        let (root, rest) = parts.split_at(root_len.min(parts.len()));
        (root.iter().map(|s| s.to_string()).collect(), rest.to_vec())
    }

    /// Where the file at `uri` is in `artifact`.
    pub fn locate(&mut self, artifact: &Artifact, uri: &str) -> Located {
        let (root, rest) = self.split(uri);
        let key = root.join("/");
        let held = match self.held.get(&key) {
            Some(h) => h.clone(),
            None => {
                let dirs = self.dirs.get_or_insert_with(|| bucket_parents(artifact));
                let h = find_root(dirs, &root);
                self.held.insert(key.clone(), h.clone());
                h
            }
        };
        match held {
            Some(dir) => {
                let path = if dir.is_empty() {
                    rest.join("/")
                } else {
                    format!("{dir}/{}", rest.join("/"))
                };
                if artifact.get(&path).is_some() {
                    self.confirmed.insert(dir);
                    Located::Present(path)
                } else {
                    self.missing
                        .push((dir, path.clone(), uri.to_string(), root_uri(uri, &root)));
                    Located::Missing(path)
                }
            }
            None => Located::Outside(root_uri(uri, &root)),
        }
    }
}

impl ExternalRoots {
    /// The files reported [`Located::Missing`] under a directory in which no referenced file
    /// was found at all: that directory is only named like the root (an unrelated folder), so
    /// they are outside the artifact after all. `(artifact path, URI, root URI)` each.
    pub fn unconfirmed(&self) -> Vec<(&str, &str, &str)> {
        self.missing
            .iter()
            .filter(|(dir, ..)| !self.confirmed.contains(dir))
            .map(|(_, path, uri, root)| (path.as_str(), uri.as_str(), root.as_str()))
            .collect()
    }
}

/// The root as a URI, for messages: the scheme of `uri` kept.
fn root_uri(uri: &str, root: &[String]) -> String {
    let scheme = uri
        .split_once(':')
        .map(|(s, _)| s)
        .filter(|s| !s.contains('/'));
    match scheme {
        Some("file") | None => format!("file:///{}", root.join("/")),
        Some(s) => format!("{s}://{}", root.join("/")),
    }
}

/// Directories of the artifact that directly hold a `bucket-*` directory, or hold one under
/// partition directories (`k=v/…/bucket-N`).
fn bucket_parents(artifact: &Artifact) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in artifact.files() {
        let mut dir = f.dir();
        // walk up to the bucket directory, then past partition directories
        loop {
            let (parent, last) = split_parent(dir);
            if last.starts_with("bucket-") {
                let mut above = parent;
                loop {
                    let (p, l) = split_parent(above);
                    if l.contains('=') {
                        above = p;
                    } else {
                        break;
                    }
                }
                out.insert(above.to_string());
                break;
            }
            if parent == dir || dir.is_empty() {
                break;
            }
            dir = parent;
        }
    }
    out
}

/// The artifact directory holding `root`: the longest run of its last components that is a
/// whole directory path's tail (one of `dirs`). Ties are not guessed between.
fn find_root(dirs: &BTreeSet<String>, root: &[String]) -> Option<String> {
    for k in (1..=root.len()).rev() {
        let tail = root.get(root.len() - k..)?.join("/");
        let found: Vec<&String> = dirs
            .iter()
            .filter(|d| *d == &tail || d.ends_with(&format!("/{tail}")))
            .collect();
        match found.as_slice() {
            [one] => return Some((*one).clone()),
            [] => continue,
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An artifact holding the given files.
    fn artifact(paths: &[&str]) -> Artifact {
        Artifact::of_paths(paths)
    }

    #[test]
    fn external_files_are_located_in_the_artifacts_copy_of_their_root() {
        let a = artifact(&[
            "cap/warehouse/db.db/t/bucket-0/data-0.parquet",
            "cap/external/bucket-0/data-1.parquet",
            "cap/external/dt=1/bucket-2/data-3.orc",
        ]);
        let mut roots = ExternalRoots::new(&["file:///tmp/w/external".to_string()]);
        assert_eq!(
            roots.locate(&a, "file:/tmp/w/external/bucket-0/data-1.parquet"),
            Located::Present("cap/external/bucket-0/data-1.parquet".into())
        );
        assert_eq!(
            roots.locate(&a, "file:/tmp/w/external/dt=1/bucket-2/data-3.orc"),
            Located::Present("cap/external/dt=1/bucket-2/data-3.orc".into())
        );
        assert_eq!(
            roots.locate(&a, "file:/tmp/w/external/bucket-0/data-2.parquet"),
            Located::Missing("cap/external/bucket-0/data-2.parquet".into())
        );
        assert_eq!(
            roots.locate(&a, "s3://bkt/elsewhere/dt=1/bucket-0/data-4.orc"),
            Located::Outside("s3://bkt/elsewhere".into())
        );
        // The missing file's directory holds files of the table: it is missing.
        assert!(roots.unconfirmed().is_empty());
    }

    #[test]
    fn files_missing_from_a_folder_holding_none_of_the_tables_files_are_unconfirmed() {
        let a = artifact(&[
            "cap/other/external/bucket-0/unrelated.txt",
            "cap/ext2/bucket-0/data-5.parquet",
        ]);
        let mut roots = ExternalRoots::new(&[]);
        let (lost, held) = (
            "file:/tmp/w/external/bucket-0/data-1.parquet",
            "file:/tmp/w/ext2/bucket-0/data-6.parquet",
        );
        assert_eq!(
            roots.locate(&a, lost),
            Located::Missing("cap/other/external/bucket-0/data-1.parquet".into())
        );
        assert_eq!(
            roots.locate(&a, "file:/tmp/w/ext2/bucket-0/data-5.parquet"),
            Located::Present("cap/ext2/bucket-0/data-5.parquet".into())
        );
        assert_eq!(
            roots.locate(&a, held),
            Located::Missing("cap/ext2/bucket-0/data-6.parquet".into())
        );
        assert_eq!(
            roots.unconfirmed(),
            vec![(
                "cap/other/external/bucket-0/data-1.parquet",
                lost,
                "file:///tmp/w/external"
            )]
        );
    }

    #[test]
    fn uri_components_drop_the_scheme() {
        assert_eq!(components("file:/tmp/a/b"), vec!["tmp", "a", "b"]);
        assert_eq!(components("file:///tmp/a/b"), vec!["tmp", "a", "b"]);
        assert_eq!(components("s3://bkt/x"), vec!["bkt", "x"]);
    }

    #[test]
    fn a_colon_after_a_path_separator_ends_no_scheme() {
        // a path without a scheme, with a colon in a directory name
        assert_eq!(
            components("/data/2024-01-01T10:00/ext/bucket-0/f.orc"),
            vec!["data", "2024-01-01T10:00", "ext", "bucket-0", "f.orc"]
        );
    }

    #[test]
    fn roots_another_schema_names_are_roots_too() {
        // A root whose last directory looks like a partition: cutting at the bucket would take
        // it for one.
        let uri = "file:/data/run=1/bucket-0/data-1.parquet";
        let mut roots = ExternalRoots::new(&["file:///tmp/w/external".to_string()]);
        assert_eq!(roots.split(uri).0, vec!["data"]);
        roots.add_roots(&["file:///data/run=1".to_string()]);
        let (root, rest) = roots.split(uri);
        assert_eq!(root, vec!["data", "run=1"]);
        assert_eq!(rest, vec!["bucket-0", "data-1.parquet"]);
        let a = artifact(&["cap/warehouse/db.db/t/bucket-0/data-0.parquet"]);
        assert_eq!(
            roots.locate(&a, uri),
            Located::Outside("file:///data/run=1".into())
        );
    }

    #[test]
    fn a_uri_naming_a_root_itself_is_no_file_under_it() {
        let a = artifact(&["cap/external/bucket-0/data-1.parquet"]);
        let mut roots = ExternalRoots::new(&["file:///tmp/w/external".to_string()]);
        let l = roots.locate(&a, "file:/tmp/w/external");
        assert!(matches!(l, Located::Outside(_)), "{l:?}");
    }

    #[test]
    fn a_uri_whose_first_directory_is_a_bucket_has_no_root_in_the_artifact() {
        let a = artifact(&["cap/external/bucket-0/data-1.parquet"]);
        let mut roots = ExternalRoots::new(&[]);
        assert_eq!(
            roots.locate(&a, "file:/bucket-0/data-1.parquet"),
            Located::Outside("file:///".into())
        );
    }

    #[test]
    fn a_bucket_directory_holding_only_a_folder_still_holds_the_root() {
        let a = artifact(&["cap/external/bucket-0/nested/x"]);
        let mut roots = ExternalRoots::new(&[]);
        assert_eq!(
            roots.locate(&a, "file:/tmp/w/external/bucket-0/data-1.parquet"),
            Located::Missing("cap/external/bucket-0/data-1.parquet".into())
        );
    }

    #[test]
    fn roots_are_found_by_their_trailing_path() {
        let dirs: BTreeSet<String> = ["cap/external".to_string(), "cap/warehouse/db.db/t".into()]
            .into_iter()
            .collect();
        let root: Vec<String> = ["tmp", "w", "other", "external"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(find_root(&dirs, &root), Some("cap/external".into()));
        let none: Vec<String> = vec!["tmp".into(), "elsewhere".into()];
        assert_eq!(find_root(&dirs, &none), None);
    }

    #[test]
    fn a_uri_is_split_at_the_options_root_or_its_bucket() {
        let roots = ExternalRoots::new(&["file:///tmp/w/external".to_string()]);
        let (root, rest) = roots.split("file:/tmp/w/external/bucket-0/data-1.parquet");
        assert_eq!(root, vec!["tmp", "w", "external"]);
        assert_eq!(rest, vec!["bucket-0", "data-1.parquet"]);
        let none = ExternalRoots::new(&[]);
        let (root, rest) = none.split("s3://b/ext/dt=1/bucket-2/data-1.orc");
        assert_eq!(root, vec!["b", "ext"]);
        assert_eq!(rest, vec!["dt=1", "bucket-2", "data-1.orc"]);
    }
}
