//! Commit groups: the snapshots one `(commitUser, commitIdentifier)` produced
//! (`paimon-format.md` §4.2, §4.4).
//!
//! One Flink checkpoint commits as an APPEND snapshot and, if the writers compacted, a COMPACT
//! snapshot right after it, both with the same user and identifier. Identifier Long.MAX_VALUE
//! marks batch commits, end of input and maintenance commits; several distinct commits share it,
//! so for that identifier a new group starts at every APPEND/OVERWRITE/ANALYZE.

use std::collections::BTreeMap;

use crate::paimon::snapshot::{CommitKind, BATCH_COMMIT_IDENTIFIER};

use super::Timeline;

/// One commit: the snapshots a writer published for one identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitGroup {
    /// The writer's identity.
    pub commit_user: String,
    /// The transaction id.
    pub commit_identifier: i64,
    /// (snapshot id, kind), ascending by id.
    pub snapshots: Vec<(i64, CommitKind)>,
}

impl CommitGroup {
    /// What the identifier means.
    pub fn identifier_meaning(&self) -> &'static str {
        identifier_meaning(self.commit_identifier)
    }

    /// The APPEND (or OVERWRITE) snapshot that opened the group, if any.
    pub fn append(&self) -> Option<i64> {
        self.snapshots
            .iter()
            .find(|(_, k)| matches!(k, CommitKind::Append | CommitKind::Overwrite))
            .map(|(id, _)| *id)
    }

    /// The COMPACT snapshots of the group.
    pub fn compacts(&self) -> impl Iterator<Item = i64> + '_ {
        self.snapshots
            .iter()
            .filter(|(_, k)| *k == CommitKind::Compact)
            .map(|(id, _)| *id)
    }

    /// The first snapshot id.
    pub fn first(&self) -> i64 {
        self.snapshots.first().map_or(0, |(id, _)| *id)
    }
}

/// What a commit identifier means: `checkpoint` for a streaming checkpoint id,
/// `batch-or-end-of-input` for Long.MAX_VALUE.
pub fn identifier_meaning(identifier: i64) -> &'static str {
    if identifier == BATCH_COMMIT_IDENTIFIER {
        "batch-or-end-of-input"
    } else {
        "checkpoint"
    }
}

/// Groups the timeline's snapshots, ordered by each group's first snapshot.
pub fn commit_groups(timeline: &Timeline) -> Vec<CommitGroup> {
    let mut open: BTreeMap<(&str, i64), usize> = BTreeMap::new();
    let mut groups: Vec<CommitGroup> = Vec::new();
    for (id, file) in &timeline.snapshots {
        let s = &file.snapshot;
        let key = (s.commit_user.as_str(), s.commit_identifier);
        let starts_new =
            s.commit_identifier == BATCH_COMMIT_IDENTIFIER && s.commit_kind != CommitKind::Compact;
        match open.get(&key) {
            Some(&g) if !starts_new => {
                if let Some(group) = groups.get_mut(g) {
                    group.snapshots.push((*id, s.commit_kind.clone()));
                }
            }
            _ => {
                open.insert(key, groups.len());
                groups.push(CommitGroup {
                    commit_user: s.commit_user.clone(),
                    commit_identifier: s.commit_identifier,
                    snapshots: vec![(*id, s.commit_kind.clone())],
                });
            }
        }
    }
    groups
}
