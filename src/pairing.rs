//! The `<checkpoint dir>=<table path>[#<extra>]` argument shared by `--spark-checkpoint` (extra:
//! the consumer id) and `--ray-checkpoint` (extra: the id column), and the table path it names.

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
