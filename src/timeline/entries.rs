//! The entries of a manifest list: its manifests' rows, in list order, shared with the
//! [`super::files::ManifestStore`] that decoded them.
//!
//! A snapshot's delta is the entries of the manifests its delta list names, and a wide table's
//! deltas hold most of its million entries: copying each entry (or a pointer to it) into every
//! delta that reads it cost as much as the entries themselves (`BENCHMARKS.md`, "Deltas that
//! share their manifests"). An [`Entries`] holds each manifest's rows once, as the store does;
//! the rows index the analysis's [`DataFiles`] (see [`super::catalog`]), which reading them
//! takes.

use std::rc::Rc;

use crate::paimon::manifest::{DataFiles, EntryRow, FileKind, ManifestEntry};

/// Entries of some manifests, in order; optionally only their ADD entries.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    parts: Vec<Rc<[EntryRow]>>,
    /// Only the ADD entries of `parts` are the list's (a changelog list's files).
    adds_only: bool,
    /// How many entries [`Entries::rows`] yields.
    len: usize,
}

impl Entries {
    /// No entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the rows of one manifest.
    pub fn push(&mut self, manifest: Rc<[EntryRow]>) {
        self.len += count(&manifest, self.adds_only);
        self.parts.push(manifest);
    }

    /// The same entries, only the ADD ones.
    pub fn adds(mut self) -> Self {
        if !self.adds_only {
            self.adds_only = true;
            self.len = self.parts.iter().map(|p| count(p, true)).sum();
        }
        self
    }

    /// The rows, in order.
    pub fn rows(&self) -> impl Iterator<Item = EntryRow> + Clone + '_ {
        let adds_only = self.adds_only;
        self.parts
            .iter()
            .flat_map(|p| p.iter().copied())
            .filter(move |r| !adds_only || r.kind() == FileKind::Add)
    }

    /// The entries, in order, read through `files` (the [`DataFiles`] the rows index).
    pub fn iter<'a>(
        &'a self,
        files: &'a DataFiles,
    ) -> impl Iterator<Item = ManifestEntry<'a>> + Clone + 'a {
        self.rows().map(move |r| files.entry(r))
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

fn count(rows: &[EntryRow], adds_only: bool) -> usize {
    if adds_only {
        rows.iter().filter(|r| r.kind() == FileKind::Add).count()
    } else {
        rows.len()
    }
}

impl PartialEq for Entries {
    /// The same rows in the same order, however they are split into manifests.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.rows().eq(other.rows())
    }
}

impl From<Vec<EntryRow>> for Entries {
    /// The rows of one manifest.
    fn from(rows: Vec<EntryRow>) -> Self {
        let mut all = Entries::new();
        all.push(rows.into());
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::catalog::rows_for_test;

    #[test]
    fn manifests_are_read_in_order_and_shared() {
        let (files, rows) = rows_for_test(&[
            (FileKind::Add, &[], 0, "a", 0, 1),
            (FileKind::Delete, &[], 0, "b", 0, 1),
            (FileKind::Add, &[], 0, "c", 0, 1),
            (FileKind::Delete, &[], 0, "d", 0, 1),
            (FileKind::Add, &[], 0, "e", 0, 1),
        ]);
        let names = |e: &Entries| -> Vec<String> {
            e.iter(&files)
                .map(|e| e.file().file_name().to_string())
                .collect()
        };
        let first: Rc<[EntryRow]> = rows[..2].into();
        let second: Rc<[EntryRow]> = rows[2..3].into();
        let mut all = Entries::new();
        all.push(first.clone());
        all.push(second);
        assert_eq!(names(&all), ["a", "b", "c"]);
        assert_eq!(all.len(), 3);
        assert_eq!(
            Rc::strong_count(&first),
            2,
            "the manifest is shared, not copied"
        );
        let one = Entries::from(rows[..3].to_vec());
        assert_eq!(all, one, "equal entries, however split into manifests");
        assert_ne!(all.clone().adds(), one);
        let adds = all.clone().adds();
        assert_eq!(names(&adds), ["a", "c"]);
        assert_eq!(adds.len(), 2);
        assert_eq!(adds.rows().count(), 2);
        assert_eq!(adds.clone().adds(), adds, "adds of adds are the same");
        let mut more = adds;
        more.push(rows[3..].into());
        assert_eq!(names(&more), ["a", "c", "e"]);
        assert_eq!(more.len(), 3);
        assert!(!more.is_empty() && Entries::new().is_empty());
    }

    /// Entries are equal only with the same rows in the same order, not merely as many.
    #[test]
    fn entries_of_as_many_other_rows_are_not_equal() {
        let (_, rows) = rows_for_test(&[
            (FileKind::Add, &[], 0, "a", 0, 1),
            (FileKind::Add, &[], 0, "b", 0, 1),
        ]);
        let ab = Entries::from(rows.clone());
        let ba = Entries::from(rows.iter().rev().copied().collect::<Vec<_>>());
        let aa = Entries::from(vec![rows[0], rows[0]]);
        assert_eq!(ab.len(), ba.len());
        assert_ne!(ab, ba);
        assert_ne!(ab, aa);
        assert_eq!(ab, Entries::from(rows));
    }
}
