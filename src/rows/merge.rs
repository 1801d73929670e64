//! Merge-on-read of one key: which record a batch read returns (`paimon-format.md` §3.8).
//!
//! Paimon reads a primary-key bucket by merging the records of its live files in key order
//! (`SortMergeReaderWithLoserTree` / `WithMinHeap`): for one key the records are ordered by
//! `_SEQUENCE_NUMBER` and handed to the merge function. The default `deduplicate` engine keeps
//! the last one (`DeduplicateMergeFunction`; with `ignore-delete` it skips retractions); the
//! batch read then drops a retraction (`-U`/`-D`) as the result: the key is absent. `first-row`
//! keeps the first insertion. `partial-update` and `aggregation` combine records: here the
//! latest record is shown and the view is marked approximate.
//!
//! Sequence-number ties. Paimon's comparators see only the key and the sequence number, so when
//! two records of one key carry the same sequence number the winner depends on the merge
//! reader's internal order; in a consistent table this does not happen (a writer's sequence
//! numbers grow per bucket; compaction keeps them; a record and its compacted copy are never
//! live together). Here a tie is decided by level (the lower level, i.e. the newer file, wins),
//! then by the later file in the manifest order, and the outcome is marked `tie`.

use super::RowKind;

/// The merge engine of a table (`merge-engine`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeEngine {
    /// `deduplicate` (the default): the record with the highest sequence number wins.
    Deduplicate {
        /// `ignore-delete`: retractions are skipped.
        ignore_delete: bool,
    },
    /// `first-row`: the first insertion wins; later records are ignored.
    FirstRow,
    /// `partial-update`, `aggregation` or anything else: records are combined; shown as
    /// deduplicate, approximately.
    Other(String),
}

impl MergeEngine {
    /// From the table options.
    pub fn from_options(options: &std::collections::BTreeMap<String, String>) -> MergeEngine {
        let ignore_delete = ["ignore-delete", "deduplicate.ignore-delete"]
            .iter()
            .any(|k| {
                options
                    .get(*k)
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            });
        match options
            .get("merge-engine")
            .map(|s| s.trim().to_ascii_lowercase())
            .as_deref()
        {
            None | Some("deduplicate") => MergeEngine::Deduplicate { ignore_delete },
            Some("first-row") => MergeEngine::FirstRow,
            Some(other) => MergeEngine::Other(other.to_string()),
        }
    }
}

/// One record of a key, from one live file.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate<T> {
    /// `_SEQUENCE_NUMBER`.
    pub seq: i64,
    /// `_VALUE_KIND`.
    pub kind: RowKind,
    /// The file's LSM level.
    pub level: i32,
    /// The file's position in the snapshot's file list (later = added later).
    pub file_order: usize,
    /// What the caller keeps with the record (its values).
    pub row: T,
}

/// What a batch read returns for one key.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged<'a, T> {
    /// The record returned, `None` when the key is absent (its last record is a retraction, or
    /// every record was ignored).
    pub winner: Option<&'a Candidate<T>>,
    /// The record that decided the outcome, even when it is a retraction.
    pub decided_by: Option<&'a Candidate<T>>,
    /// Whether two records of the key tied on the deciding sequence number.
    pub tie: bool,
}

/// Merges the records of one key.
pub fn merge_key<'a, T>(records: &'a [Candidate<T>], engine: &MergeEngine) -> Merged<'a, T> {
    // Order: sequence number, then level descending (lower level = newer wins among equals),
    // then file order.
    let order = |c: &Candidate<T>| (c.seq, std::cmp::Reverse(c.level), c.file_order);
    match engine {
        MergeEngine::FirstRow => {
            let first = records
                .iter()
                .filter(|c| c.kind.is_add())
                .min_by_key(|c| (c.seq, c.level, std::cmp::Reverse(c.file_order)));
            let tie = first.is_some_and(|f| {
                records
                    .iter()
                    .filter(|c| c.kind.is_add() && c.seq == f.seq)
                    .count()
                    > 1
            });
            Merged {
                winner: first,
                decided_by: first,
                tie,
            }
        }
        MergeEngine::Deduplicate { ignore_delete } => {
            let last = records
                .iter()
                .filter(|c| !*ignore_delete || c.kind.is_add())
                .max_by_key(|c| order(c));
            finish(records, last, *ignore_delete)
        }
        MergeEngine::Other(_) => {
            let last = records.iter().max_by_key(|c| order(c));
            finish(records, last, false)
        }
    }
}

fn finish<'a, T>(
    records: &'a [Candidate<T>],
    last: Option<&'a Candidate<T>>,
    ignore_delete: bool,
) -> Merged<'a, T> {
    let tie = last.is_some_and(|l| {
        records
            .iter()
            .filter(|c| c.seq == l.seq && (!ignore_delete || c.kind.is_add()))
            .count()
            > 1
    });
    Merged {
        winner: last.filter(|c| c.kind.is_add()),
        decided_by: last,
        tie,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn c(seq: i64, kind: RowKind, level: i32, file_order: usize, row: &str) -> Candidate<String> {
        Candidate {
            seq,
            kind,
            level,
            file_order,
            row: row.to_string(),
        }
    }

    const DEDUP: MergeEngine = MergeEngine::Deduplicate {
        ignore_delete: false,
    };

    #[test]
    fn highest_sequence_number_wins() {
        let rs = [
            c(7, RowKind::Insert, 5, 0, "r3"),
            c(9, RowKind::Insert, 0, 1, "r4"),
            c(8, RowKind::UpdateAfter, 0, 2, "x"),
        ];
        let m = merge_key(&rs, &DEDUP);
        assert_eq!(m.winner.unwrap().row, "r4");
        assert!(!m.tie);
    }

    #[test]
    fn a_delete_as_the_last_record_makes_the_key_absent() {
        let rs = [
            c(1, RowKind::Insert, 1, 0, "a"),
            c(2, RowKind::Delete, 0, 1, "a"),
        ];
        let m = merge_key(&rs, &DEDUP);
        assert!(m.winner.is_none());
        assert_eq!(m.decided_by.unwrap().kind, RowKind::Delete);
        // An update-before as the last record retracts too.
        let rs = [
            c(1, RowKind::Insert, 1, 0, "a"),
            c(2, RowKind::UpdateBefore, 0, 1, "a"),
        ];
        assert!(merge_key(&rs, &DEDUP).winner.is_none());
        // A delete followed by a re-insert: present again.
        let rs = [
            c(1, RowKind::Insert, 2, 0, "a"),
            c(2, RowKind::Delete, 1, 1, "a"),
            c(3, RowKind::Insert, 0, 2, "b"),
        ];
        assert_eq!(merge_key(&rs, &DEDUP).winner.unwrap().row, "b");
    }

    #[test]
    fn ignore_delete_skips_retractions() {
        let rs = [
            c(1, RowKind::Insert, 1, 0, "a"),
            c(2, RowKind::Delete, 0, 1, "a"),
        ];
        let m = merge_key(
            &rs,
            &MergeEngine::Deduplicate {
                ignore_delete: true,
            },
        );
        assert_eq!(m.winner.unwrap().row, "a");
    }

    #[test]
    fn sequence_number_ties_go_to_the_lower_level_then_the_later_file() {
        let rs = [
            c(5, RowKind::Insert, 3, 0, "old level"),
            c(5, RowKind::Insert, 0, 1, "level 0"),
        ];
        let m = merge_key(&rs, &DEDUP);
        assert_eq!(m.winner.unwrap().row, "level 0");
        assert!(m.tie);
        let rs = [
            c(5, RowKind::Insert, 0, 2, "later file"),
            c(5, RowKind::Insert, 0, 1, "earlier file"),
            c(4, RowKind::Insert, 0, 3, "older"),
        ];
        let m = merge_key(&rs, &DEDUP);
        assert_eq!(m.winner.unwrap().row, "later file");
        assert!(m.tie);
        // A tie between a delete and an insert: the tie rule decides, and says so.
        let rs = [
            c(5, RowKind::Delete, 0, 1, "d"),
            c(5, RowKind::Insert, 1, 0, "i"),
        ];
        let m = merge_key(&rs, &DEDUP);
        assert!(m.winner.is_none() && m.tie);
    }

    #[test]
    fn first_row_keeps_the_first_insertion() {
        let rs = [
            c(3, RowKind::Insert, 0, 1, "second"),
            c(1, RowKind::Insert, 1, 0, "first"),
            c(4, RowKind::Delete, 0, 2, "gone?"),
        ];
        let m = merge_key(&rs, &MergeEngine::FirstRow);
        assert_eq!(m.winner.unwrap().row, "first");
        assert!(!m.tie);
    }

    /// First-row ties: two insertions of the first sequence number tie (the lower level, then
    /// the earlier file, wins); a retraction or a later insertion beside it does not.
    #[test]
    fn first_row_ties_count_only_insertions_of_the_first_sequence_number() {
        let tied = [
            c(1, RowKind::Insert, 0, 1, "newer file"),
            c(1, RowKind::Insert, 1, 0, "older file"),
            c(2, RowKind::Insert, 0, 2, "later"),
        ];
        let m = merge_key(&tied, &MergeEngine::FirstRow);
        assert_eq!(m.winner.unwrap().row, "newer file");
        assert!(m.tie);
        let untied = [
            c(1, RowKind::Insert, 0, 0, "first"),
            c(1, RowKind::Delete, 0, 1, "retraction"),
            c(2, RowKind::Insert, 0, 2, "later"),
        ];
        let m = merge_key(&untied, &MergeEngine::FirstRow);
        assert_eq!(m.winner.unwrap().row, "first");
        assert!(!m.tie);
    }

    #[test]
    fn merge_engine_from_options() {
        let mut o = std::collections::BTreeMap::new();
        assert_eq!(MergeEngine::from_options(&o), DEDUP);
        o.insert("merge-engine".to_string(), "partial-update".to_string());
        assert_eq!(
            MergeEngine::from_options(&o),
            MergeEngine::Other("partial-update".into())
        );
        o.insert("merge-engine".to_string(), "first-row".to_string());
        assert_eq!(MergeEngine::from_options(&o), MergeEngine::FirstRow);
        assert!(merge_key::<String>(&[], &DEDUP).winner.is_none());
    }
}
