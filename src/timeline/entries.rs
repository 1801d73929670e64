//! The entries of a manifest list: its manifests' decoded entries, in list order, shared with
//! the [`super::files::ManifestStore`] that decoded them.
//!
//! A snapshot's delta is the entries of the manifests its delta list names, and a wide table's
//! deltas hold most of its million entries: copying each entry (or a pointer to it) into every
//! delta that reads it cost as much as the entries themselves (`BENCHMARKS.md`, "Deltas that
//! share their manifests"). An [`Entries`] holds each manifest's slice once, as the store does.

use std::rc::Rc;

use crate::paimon::manifest::{FileKind, ManifestEntry};

/// Entries of some manifests, in order; optionally only their ADD entries.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    parts: Vec<Rc<[ManifestEntry]>>,
    /// Only the ADD entries of `parts` are the list's (a changelog list's files).
    adds_only: bool,
    /// How many entries [`Entries::iter`] yields.
    len: usize,
}

impl Entries {
    /// No entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the entries of one manifest.
    pub fn push(&mut self, manifest: Rc<[ManifestEntry]>) {
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

    /// The entries, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            parts: self.parts.iter(),
            current: [].iter(),
            adds_only: self.adds_only,
        }
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

fn count(entries: &[ManifestEntry], adds_only: bool) -> usize {
    if adds_only {
        entries.iter().filter(|e| e.kind == FileKind::Add).count()
    } else {
        entries.len()
    }
}

impl PartialEq for Entries {
    /// The same entries in the same order, however they are split into manifests.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl From<Vec<ManifestEntry>> for Entries {
    /// The entries of one manifest.
    fn from(entries: Vec<ManifestEntry>) -> Self {
        let mut all = Entries::new();
        all.push(entries.into());
        all
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = &'a ManifestEntry;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The iterator of [`Entries::iter`].
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    parts: std::slice::Iter<'a, Rc<[ManifestEntry]>>,
    current: std::slice::Iter<'a, ManifestEntry>,
    adds_only: bool,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a ManifestEntry;

    fn next(&mut self) -> Option<&'a ManifestEntry> {
        loop {
            match self.current.next() {
                Some(e) if self.adds_only && e.kind != FileKind::Add => {}
                Some(e) => return Some(e),
                None => self.current = self.parts.next()?.iter(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paimon::manifest::DataFileMeta;

    fn entry(kind: FileKind, name: &str) -> ManifestEntry {
        ManifestEntry::for_test(kind, &[0, 0, 0, 0], 0, DataFileMeta::for_test(name, 0, 1))
    }

    fn names(e: &Entries) -> Vec<String> {
        e.iter().map(|e| e.file.file_name.to_string()).collect()
    }

    #[test]
    fn manifests_are_read_in_order_and_shared() {
        let first: Rc<[ManifestEntry]> =
            vec![entry(FileKind::Add, "a"), entry(FileKind::Delete, "b")].into();
        let second: Rc<[ManifestEntry]> = vec![entry(FileKind::Add, "c")].into();
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
        let one = Entries::from(vec![
            entry(FileKind::Add, "a"),
            entry(FileKind::Delete, "b"),
            entry(FileKind::Add, "c"),
        ]);
        assert_eq!(all, one, "equal entries, however split into manifests");
        assert_ne!(all.clone().adds(), one);
        let adds = all.clone().adds();
        assert_eq!(names(&adds), ["a", "c"]);
        assert_eq!(adds.len(), 2);
        assert_eq!((&adds).into_iter().count(), 2);
        let mut more = adds;
        more.push(vec![entry(FileKind::Delete, "d"), entry(FileKind::Add, "e")].into());
        assert_eq!(names(&more), ["a", "c", "e"]);
        assert_eq!(more.len(), 3);
        assert!(!more.is_empty() && Entries::new().is_empty());
    }
}
