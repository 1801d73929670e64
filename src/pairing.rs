//! The `<checkpoint dir>=<table path>[#<extra>]` argument shared by `--spark-checkpoint` (extra:
//! the consumer id) and `--ray-checkpoint` (extra: the id column), and the table path it names.

use crate::source::Artifact;
use crate::timeline::Timeline;
use crate::warehouse::{join, MAIN_BRANCH};

/// A parsed pairing argument: paths trimmed of spaces and surrounding `/`.
pub(crate) struct PairingArg {
    /// The checkpoint directory, as the report shows it.
    pub checkpoint: String,
    /// The table path, as the report shows it.
    pub table: String,
    /// What follows `#`, trimmed; never empty.
    pub extra: Option<String>,
}

/// Parses `s`; `extra_name` names the part after `#` in messages ("consumer id", "id column").
pub(crate) fn parse(s: &str, extra_name: &str) -> Result<PairingArg, String> {
    let (checkpoint, rest) = s.split_once('=').ok_or_else(|| {
        format!("{s:?} is not <checkpoint dir>=<table path>[#<{extra_name}>] (no '=')")
    })?;
    let (table, extra) = match rest.rsplit_once('#') {
        Some((t, e)) => (t, Some(e)),
        None => (rest, None),
    };
    let clean = |p: &str| p.trim().trim_matches('/').to_string();
    let checkpoint = clean(checkpoint);
    let table = clean(table);
    if checkpoint.is_empty() {
        return Err(format!("{s:?}: the checkpoint directory is empty"));
    }
    if table.is_empty() {
        return Err(format!("{s:?}: the table path is empty"));
    }
    let extra = match extra.map(str::trim) {
        Some("") => return Err(format!("{s:?}: the {extra_name} after '#' is empty")),
        other => other.map(str::to_string),
    };
    Ok(PairingArg {
        checkpoint,
        table,
        extra,
    })
}

/// The path a pairing names a table by: the table path for `main`, the branch's directory
/// (`<table path>/branch/branch-<name>`) for a branch.
pub(crate) fn table_path(t: &Timeline) -> String {
    if t.location.branch == MAIN_BRANCH {
        t.location.root.clone()
    } else {
        join(
            &t.location.root,
            &format!("branch/branch-{}", t.location.branch),
        )
    }
}

/// A user's pairing of a checkpoint directory with a table (`--spark-checkpoint`,
/// `--ray-checkpoint`), shown as the user wrote it.
pub(crate) trait Pairing: std::fmt::Display {
    /// The checkpoint directory, as an artifact path.
    fn checkpoint(&self) -> &str;
    /// The table path.
    fn table(&self) -> &str;
}

/// The problems of user pairings that the listing alone shows (the CLI refuses them before
/// analysing): a checkpoint directory that is not among `dirs`, a table that is not in the
/// artifact. `flag` is the option (`--spark-checkpoint`), `kind` the checkpoint kind (`Spark
/// checkpoint`).
pub(crate) fn listing_problems<P: Pairing>(
    artifact: &Artifact,
    flag: &str,
    kind: &str,
    dirs: impl FnOnce() -> Vec<String>,
    pairings: &[P],
) -> Vec<String> {
    if pairings.is_empty() {
        return Vec::new(); // nothing to list: a wide table's listing is not walked for it
    }
    let dirs = dirs();
    let tables: Vec<String> = crate::warehouse::discover(artifact)
        .tables
        .into_iter()
        .map(|t| t.meta_root)
        .collect();
    let mut out = Vec::new();
    for p in pairings {
        let (checkpoint, table) = (p.checkpoint(), p.table());
        if !dirs.iter().any(|d| d == checkpoint) {
            out.push(format!(
                "{flag} {p}: {checkpoint} is not a {kind} directory in the artifact (found: {})",
                list_paths(dirs.iter().cloned())
            ));
        }
        if !tables.iter().any(|t| t == table) {
            out.push(format!(
                "{flag} {p}: {table} is not a table in the artifact (found: {})",
                list_paths(tables.iter().cloned())
            ));
        }
    }
    out
}

/// `a, b` of artifact paths (`(root)` for the artifact root), or `none`.
pub(crate) fn list_paths(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items
        .map(|s| {
            if s.is_empty() {
                "(root)".to_string()
            } else {
                s
            }
        })
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}
