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
        // A commit is at most one APPEND or OVERWRITE followed by its COMPACT
        // (`FileStoreCommitImpl.commit`, `paimon-format.md` §4.2): a batch identifier's every
        // APPEND is a commit of its own, and so is an identifier a writer reuses (a writer that
        // does not filter what it already committed, as Flink's committer does on restore).
        let opens = s.commit_kind != CommitKind::Compact;
        let starts_new = |g: &CommitGroup| {
            opens && (s.commit_identifier == BATCH_COMMIT_IDENTIFIER || g.append().is_some())
        };
        match open
            .get(&key)
            .filter(|&&g| groups.get(g).is_some_and(|g| !starts_new(g)))
        {
            Some(&g) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::testkit::timeline;

    const BATCH: i64 = BATCH_COMMIT_IDENTIFIER;

    /// (user, identifier, snapshot ids) of each group, in order.
    fn shape(groups: &[CommitGroup]) -> Vec<(&str, i64, Vec<i64>)> {
        groups
            .iter()
            .map(|g| {
                let ids = g.snapshots.iter().map(|(id, _)| *id).collect();
                (g.commit_user.as_str(), g.commit_identifier, ids)
            })
            .collect()
    }

    #[test]
    fn a_reused_identifier_opens_a_commit_per_append() {
        // paimon-rust's stream writer commits identifier 3 twice; the COMPACT that follows
        // belongs to the latest of them.
        let t = timeline(
            &[],
            &[
                (1, "APPEND", "w", 5, 1_000),
                (2, "APPEND", "w", 3, 2_000),
                (3, "APPEND", "w", 3, 3_000),
                (4, "COMPACT", "w", 3, 4_000),
                (5, "OVERWRITE", "w", 3, 5_000),
            ],
            &[],
        );
        assert_eq!(
            shape(&commit_groups(&t)),
            vec![
                ("w", 5, vec![1]),
                ("w", 3, vec![2]),
                ("w", 3, vec![3, 4]),
                ("w", 3, vec![5]),
            ]
        );
        // A batch APPEND is a commit of its own even after a batch COMPACT of its user (a
        // `sys.compact` in batch mode, then a batch write).
        let t = timeline(
            &[],
            &[
                (1, "COMPACT", "w", BATCH, 1_000),
                (2, "APPEND", "w", BATCH, 2_000),
            ],
            &[],
        );
        assert_eq!(
            shape(&commit_groups(&t)),
            vec![("w", BATCH, vec![1]), ("w", BATCH, vec![2])]
        );
    }

    #[test]
    fn a_checkpoints_append_and_compact_are_one_commit_per_writer() {
        let t = timeline(
            &[],
            &[
                (3, "APPEND", "w", 7, 1_000),
                (4, "APPEND", "other", 7, 2_000),
                (5, "COMPACT", "w", 7, 3_000),
                (6, "COMPACT", "w", 8, 4_000),
                (7, "OVERWRITE", "w", 9, 5_000),
            ],
            &[],
        );
        let groups = commit_groups(&t);
        assert_eq!(
            shape(&groups),
            vec![
                ("w", 7, vec![3, 5]),
                ("other", 7, vec![4]),
                ("w", 8, vec![6]),
                ("w", 9, vec![7]),
            ]
        );
        let w7 = &groups[0];
        assert_eq!(w7.append(), Some(3));
        assert_eq!(w7.compacts().collect::<Vec<_>>(), vec![5]);
        assert_eq!(w7.identifier_meaning(), "checkpoint");
        assert_eq!(w7.snapshots[1].1, CommitKind::Compact);
        // A compaction alone opened no append; an overwrite opens its commit like an append.
        assert_eq!(groups[2].append(), None);
        assert_eq!(groups[2].compacts().collect::<Vec<_>>(), vec![6]);
        assert_eq!(groups[3].append(), Some(7));
        assert_eq!(groups[3].compacts().count(), 0);
    }

    #[test]
    fn batch_commits_start_a_new_commit_at_every_append_and_keep_their_compacts() {
        let t = timeline(
            &[],
            &[
                (2, "APPEND", "b", BATCH, 1_000),
                (3, "COMPACT", "b", BATCH, 2_000),
                (4, "COMPACT", "b", BATCH, 3_000),
                (5, "APPEND", "b", BATCH, 4_000),
                (6, "COMPACT", "b", BATCH, 5_000),
            ],
            &[],
        );
        let groups = commit_groups(&t);
        assert_eq!(
            shape(&groups),
            vec![("b", BATCH, vec![2, 3, 4]), ("b", BATCH, vec![5, 6])]
        );
        assert_eq!(groups[0].append(), Some(2));
        assert_eq!(groups[0].compacts().collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(groups[1].append(), Some(5));
        assert_eq!(groups[0].identifier_meaning(), "batch-or-end-of-input");
        assert_eq!(identifier_meaning(BATCH), "batch-or-end-of-input");
        assert_eq!(identifier_meaning(12), "checkpoint");
    }
}
