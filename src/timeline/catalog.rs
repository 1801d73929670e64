//! One copy of every partition, file name and file description an analysis decodes from
//! manifests (`paimon-format.md` §3.4, §3.8).
//!
//! A file's ADD, its DELETE and the copies a manifest merge rewrites describe it alike, so the
//! [`Catalog`] interns each decoded [`Manifest`] into one set of [`DataFiles`]: its rows come
//! back indexing the shared descriptions (on a 472k-file table, 1.09M entries hold 472k
//! distinct descriptions, the levels of the 158k upgraded files in their entries;
//! `BENCHMARKS.md`, "Flat manifest entries"). Equal names
//! get equal name ids, equal partitions equal partition ids, so the identifier of a file in a
//! merge (`FileEntry.Identifier`: partition, bucket, level, name) compares as four integers.

use crate::error::Result;
use crate::paimon::manifest::{DataFileMeta, DataFiles, EntryRow, Manifest};

/// The analysis's [`DataFiles`], and the indices that intern into them.
#[derive(Debug, Default)]
pub struct Catalog {
    files: DataFiles,
    /// The id of each name the listing holds, by the index of the file it is taken from (+ 1;
    /// `0`: none yet).
    listed: Vec<u32>,
    /// The id of each name of its own (no file of the listing has it), by hash: see
    /// [`NameIndex`].
    names: NameIndex,
    /// Per name id, the description interned last for it.
    last_of_name: Vec<u32>,
    /// Each partition's id.
    partitions: foldhash::HashMap<Box<[u8]>, u32>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// What has been interned so far.
    pub fn files(&self) -> &DataFiles {
        &self.files
    }

    /// The files, complete (the indices that interned them are dropped).
    pub fn into_files(self) -> DataFiles {
        let mut files = self.files;
        files.shrink_to_fit();
        files
    }

    /// The id of the file name `name`, if a manifest named it, found as [`Catalog::intern`]
    /// finds it with the same `listed`.
    pub fn name_id(&self, name: &str, listed: &dyn Fn(&str) -> Option<u32>) -> Option<u32> {
        match listed(name) {
            Some(i) => self.listed.get(i as usize)?.checked_sub(1),
            None => self.names.find(name, &self.files),
        }
    }

    /// The id of the name taken from file `i` of the listing, if one was.
    pub fn listed_name_id(&self, i: u32) -> Option<u32> {
        self.listed.get(i as usize)?.checked_sub(1)
    }

    /// Names may be taken from `listing` from now on (see [`Catalog::intern`]).
    pub fn set_listing(&mut self, listing: &std::sync::Arc<crate::source::Listing>) {
        self.files.set_listing(listing);
        if self.listed.len() < listing.len() {
            self.listed.resize(listing.len(), 0);
        }
    }

    /// The rows of `manifest`, each now indexing this catalog's copy of its partition and
    /// description: the description kept for its name when equal, else a new one, which is
    /// kept for the name from then on (a file a compaction moves to another level keeps its
    /// name; its later copies describe the new level).
    ///
    /// Row `r`'s name is that of file `listed[r]` of the listing, if any (found by the caller
    /// in a table root's files; [`Catalog::set_listing`]): its id is found by that file,
    /// without a lookup of its own; else it is a copy, found by hash. So names are one id each
    /// for one way of finding them (a table root's files): the identifier of a file in a merge
    /// compares within a root.
    pub fn intern(&mut self, manifest: &Manifest, listed: &[Option<u32>]) -> Result<Vec<EntryRow>> {
        let local = manifest.files();
        let mut partitions: Vec<Option<u32>> = vec![None; local.partitions_len()];
        let mut rows = Vec::with_capacity(manifest.len());
        for (r, &row) in manifest.rows().iter().enumerate() {
            let p = row.partition_id();
            let partition = match partitions.get(p as usize).copied().flatten() {
                Some(id) => id,
                None => {
                    let id = self.partition(local.partition(p))?;
                    if let Some(slot) = partitions.get_mut(p as usize) {
                        *slot = Some(id);
                    }
                    id
                }
            };
            let file = local.entry(row).file();
            let id = self.file(file, listed.get(r).copied().flatten())?;
            rows.push(EntryRow::new(
                row.kind(),
                partition,
                row.bucket(),
                id,
                file.level(),
            ));
        }
        Ok(rows)
    }

    /// The id of `bytes` as a partition.
    fn partition(&mut self, bytes: &[u8]) -> Result<u32> {
        if let Some(&id) = self.partitions.get(bytes) {
            return Ok(id);
        }
        let id = self.files.push_partition(bytes)?;
        self.partitions.insert(bytes.into(), id);
        Ok(id)
    }

    /// The id of the description equal to `file`, added when there is none. Its level is
    /// compared only when a row cannot hold it ([`EntryRow::holds_level`]).
    fn file(&mut self, file: DataFileMeta<'_>, listed: Option<u32>) -> Result<u32> {
        let fields = file.fields();
        let rare = file.rare();
        let by_row = EntryRow::holds_level(fields.level);
        let in_listing = listed.filter(|&i| (i as usize) < self.listed.len());
        let known = match in_listing {
            Some(i) => self.listed.get(i as usize).and_then(|id| id.checked_sub(1)),
            None => self.names.find(fields.file_name, &self.files),
        };
        let name = match known {
            Some(name) => {
                let last = self.last_of_name.get(name as usize).copied();
                if let Some(last) = last {
                    if self.files.file(last).alike(&file, !by_row) {
                        return Ok(last);
                    }
                }
                name
            }
            None => {
                let name = match in_listing {
                    Some(i) => {
                        let name = self.files.push_listed_name(i)?;
                        if let Some(slot) = self.listed.get_mut(i as usize) {
                            *slot = name + 1;
                        }
                        name
                    }
                    None => {
                        let name = self.files.push_name(fields.file_name)?;
                        self.names.insert(name, &self.files);
                        name
                    }
                };
                self.last_of_name.push(u32::MAX);
                name
            }
        };
        let id = self
            .files
            .push_file(name, &fields, rare.cloned().unwrap_or_default())?;
        if let Some(last) = self.last_of_name.get_mut(name as usize) {
            *last = id;
        }
        Ok(id)
    }
}

/// The name ids of a [`DataFiles`], by name: an open-addressed table (linear probing, at most
/// half full) of `(high half of the name's hash, id + 1)`, `0` marking a free slot. The hasher
/// is randomly seeded per run (a hostile artifact cannot choose names that collide).
#[derive(Debug, Default)]
struct NameIndex {
    slots: Vec<(u32, u32)>,
    len: usize,
    hasher: foldhash::fast::RandomState,
}

impl NameIndex {
    fn find(&self, name: &str, files: &DataFiles) -> Option<u32> {
        use std::hash::BuildHasher;
        let mask = self.slots.len().checked_sub(1)?;
        let hash = self.hasher.hash_one(name);
        let high = (hash >> 32) as u32;
        let mut slot = hash as usize & mask;
        loop {
            let &(h, id) = self.slots.get(slot)?;
            if id == 0 {
                return None;
            }
            if h == high && files.name(id - 1) == name {
                return Some(id - 1);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Adds name `id` (not yet in the table).
    fn insert(&mut self, id: u32, files: &DataFiles) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(files);
        }
        self.place(id, files);
        self.len += 1;
    }

    fn place(&mut self, id: u32, files: &DataFiles) {
        use std::hash::BuildHasher;
        let mask = self.slots.len().wrapping_sub(1);
        let hash = self.hasher.hash_one(files.name(id));
        let mut slot = hash as usize & mask;
        while self.slots.get(slot).is_some_and(|&(_, f)| f != 0) {
            slot = (slot + 1) & mask;
        }
        if let Some(free) = self.slots.get_mut(slot) {
            *free = ((hash >> 32) as u32, id.saturating_add(1));
        }
    }

    fn grow(&mut self, files: &DataFiles) {
        let size = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); size]);
        for (_, id) in old {
            if id != 0 {
                self.place(id - 1, files);
            }
        }
    }
}

/// A test's manifest entry: `(kind, partition, bucket, name, level, rows)`.
#[cfg(test)]
pub(crate) type TestEntry<'a> = (
    crate::paimon::manifest::FileKind,
    &'a [u8],
    i32,
    &'a str,
    i32,
    i64,
);

/// Rows over their own catalog, for the unit tests of what reads entries: each entry interned
/// as a manifest's entry would be.
#[cfg(test)]
pub(crate) fn rows_for_test(entries: &[TestEntry<'_>]) -> (std::rc::Rc<DataFiles>, Vec<EntryRow>) {
    let mut catalog = Catalog::new();
    let rows = catalog
        .intern(&manifest_for_test(entries), &[])
        .unwrap_or_default();
    (std::rc::Rc::new(catalog.into_files()), rows)
}

/// A manifest of these entries (sizes 100, no keys).
#[cfg(test)]
pub(crate) fn manifest_for_test(entries: &[TestEntry<'_>]) -> Manifest {
    let mut m = Manifest::default();
    for &(kind, partition, bucket, name, level, row_count) in entries {
        let file = crate::paimon::manifest::FileFields {
            file_name: name,
            file_size: 100,
            row_count,
            min_key: &[],
            max_key: &[],
            min_sequence_number: 0,
            max_sequence_number: 0,
            level,
            file_source: None,
        };
        let pushed = m.push(kind, partition, bucket, &file, Default::default());
        assert!(pushed.is_ok(), "{pushed:?}");
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paimon::manifest::FileKind::{Add, Delete};

    #[test]
    fn one_description_per_file_is_kept_whatever_its_level() {
        let mut catalog = Catalog::new();
        let mut intern = |kind, level, rows| {
            let m = manifest_for_test(&[(kind, &[0, 0, 0, 0], 1, "data-a.parquet", level, rows)]);
            catalog.intern(&m, &[]).unwrap()[0]
        };
        let add = intern(Add, 0, 5);
        let copy = intern(Add, 0, 5); // a manifest merge's copy
        let delete = intern(Delete, 0, 5);
        assert_eq!(
            (add.file_id(), copy.file_id()),
            (delete.file_id(), delete.file_id())
        );
        assert_eq!(add.partition_id(), delete.partition_id());
        assert_eq!(delete.kind(), Delete);
        // Compacted to level 1 under the same name: the description shared, the level the
        // entry's.
        let upgraded = intern(Add, 1, 5);
        assert_eq!(add.file_id(), upgraded.file_id());
        assert_ne!(add, upgraded);
        // Another value is never taken for equal; later copies describe it, shared.
        let other_rows = intern(Add, 1, 6);
        assert_ne!(other_rows.file_id(), upgraded.file_id());
        let later = intern(Delete, 3, 6);
        assert_eq!(later.file_id(), other_rows.file_id());
        // A level no row can hold is the description's, compared as any other field.
        let far = intern(Add, 1 << 20, 6);
        assert_ne!(far.file_id(), later.file_id());
        assert_eq!(intern(Delete, 1 << 20, 6).file_id(), far.file_id());
        assert_ne!(intern(Add, 3 << 20, 6).file_id(), far.file_id());
        let files = catalog.files();
        let read = |r: EntryRow| {
            let f = files.entry(r).file();
            (f.level(), f.row_count())
        };
        assert_eq!(
            [add, upgraded, other_rows, later, far].map(read),
            [(0, 5), (1, 5), (1, 6), (3, 6), (1 << 20, 6)]
        );
        let names: Vec<u32> = [add, upgraded, other_rows, far]
            .iter()
            .map(|r| files.file(r.file_id()).name_id())
            .collect();
        assert_eq!(names, [0, 0, 0, 0]);
        assert_eq!(files.names_len(), 1);
        assert_eq!(catalog.name_id("data-a.parquet", &|_| None), Some(0));
        assert_eq!(catalog.name_id("data-b.parquet", &|_| None), None);
    }

    /// A name the artifact lists is the listing's file's, not a copy; other names are copied.
    #[test]
    fn names_the_artifact_lists_are_taken_from_the_listing() {
        let artifact = crate::source::Artifact::of_paths(&["t/bucket-0/a", "t/bucket-1/b"]);
        let listing = artifact.listing();
        let find = |name: &str| {
            (0..listing.len() as u32)
                .find(|&i| listing.file(i as usize).is_some_and(|f| f.name() == name))
        };
        let mut catalog = Catalog::new();
        catalog.set_listing(&listing);
        let m = manifest_for_test(&[
            (Add, &[], 1, "b", 0, 1),
            (Add, &[], 0, "missing", 0, 1),
            (Delete, &[], 1, "b", 0, 1),
        ]);
        let found: Vec<Option<u32>> = m.entries().map(|e| find(e.file().file_name())).collect();
        let rows = catalog.intern(&m, &found).unwrap();
        let files = catalog.files();
        assert_eq!(
            names_and_listing(&catalog, &rows),
            [("b", Some(1)), ("missing", None), ("b", Some(1))]
        );
        assert_eq!(catalog.name_id("b", &find), Some(0));
        // Equal to the same entries with copied names.
        let copied = catalog_rows(&m);
        let read_back: Vec<_> = rows.iter().map(|&r| files.entry(r)).collect();
        let want: Vec<_> = copied.1.iter().map(|&r| copied.0.entry(r)).collect();
        assert_eq!(read_back, want);
    }

    /// Each row's file name and its place in the listing, if it has one.
    fn names_and_listing<'c>(
        catalog: &'c Catalog,
        rows: &[EntryRow],
    ) -> Vec<(&'c str, Option<u32>)> {
        let files = catalog.files();
        rows.iter()
            .map(|&r| {
                let f = files.entry(r).file();
                (f.file_name(), f.listed_at())
            })
            .collect()
    }

    /// A listing index the catalog was not given (no listing set, or past its end) names no
    /// file: the name is copied, as one found by no listing.
    #[test]
    fn a_listed_index_outside_the_listing_is_named_by_a_copy() {
        let m = manifest_for_test(&[(Add, &[], 0, "a", 0, 1), (Add, &[], 0, "b", 0, 1)]);
        let mut unlisted = Catalog::new();
        let rows = unlisted.intern(&m, &[Some(0), None]).unwrap();
        let mut listed = Catalog::new();
        let artifact = crate::source::Artifact::of_paths(&["t/bucket-0/a"]);
        listed.set_listing(&artifact.listing());
        let past_end = listed.intern(&m, &[Some(1), Some(2)]).unwrap();
        for (catalog, rows) in [(&unlisted, rows), (&listed, past_end)] {
            assert_eq!(
                names_and_listing(catalog, &rows),
                [("a", None), ("b", None)]
            );
            assert_eq!(catalog.name_id("b", &|_| None), Some(1));
        }
    }

    /// Two names whose hashes share their high half (a table of a million names holds about a
    /// hundred such pairs) are told apart by their text.
    #[test]
    fn a_name_sharing_anothers_hash_is_told_apart_by_its_text() {
        use std::hash::BuildHasher;
        let mut files = DataFiles::default();
        let mut index = NameIndex::default();
        let a = files.push_name("data-a.parquet").unwrap();
        index.insert(a, &files);
        assert_eq!(index.find("data-a.parquet", &files), Some(a));
        // Move "data-a.parquet" to the first slot of "data-b.parquet", under b's high half.
        let hash = index.hasher.hash_one("data-b.parquet");
        let mask = index.slots.len() - 1;
        let held = index.slots.iter_mut().find(|(_, id)| *id != 0).unwrap();
        let id = std::mem::take(held).1;
        *index.slots.get_mut(hash as usize & mask).unwrap() = ((hash >> 32) as u32, id);
        assert_eq!(index.find("data-b.parquet", &files), None);
    }

    /// The name index keeps at least half its slots free, however many names it holds.
    #[test]
    fn the_name_index_stays_at_most_half_full() {
        let mut files = DataFiles::default();
        let mut index = NameIndex::default();
        for n in 0..200 {
            let id = files.push_name(&format!("data-{n}.parquet")).unwrap();
            index.insert(id, &files);
            assert!(
                index.len * 2 <= index.slots.len(),
                "{n}: {}",
                index.slots.len()
            );
        }
        for n in 0..200u32 {
            assert_eq!(index.find(&format!("data-{n}.parquet"), &files), Some(n));
        }
    }

    fn catalog_rows(m: &Manifest) -> (DataFiles, Vec<EntryRow>) {
        let mut c = Catalog::new();
        let rows = c.intern(m, &[]).unwrap();
        (c.into_files(), rows)
    }

    #[test]
    fn interned_entries_read_as_decoded() {
        let names: Vec<String> = (0..150).map(|n| format!("f-{n}")).collect();
        let entries: Vec<TestEntry<'_>> = (0..300)
            .map(|i| {
                let p: &[u8] = if i % 3 == 0 { &[1] } else { &[2, 2] };
                // Each name's description alike where it repeats (level and rows by name).
                let n = i % 150;
                let kind = if i % 2 == 0 { Add } else { Delete };
                (kind, p, i % 7, names[n as usize].as_str(), n % 4, n as i64)
            })
            .collect();
        let m = manifest_for_test(&entries);
        let mut catalog = Catalog::new();
        let first = catalog.intern(&m, &[]).unwrap();
        let again = catalog.intern(&m, &[]).unwrap();
        assert_eq!(first, again, "a second copy interns to the same rows");
        let files = catalog.files();
        let read: Vec<_> = first.iter().map(|&r| files.entry(r)).collect();
        let decoded: Vec<_> = m.entries().collect();
        assert_eq!(read, decoded);
        assert_eq!(files.names_len(), 150);
        assert_eq!(files.partitions_len(), 2);
        for (i, name) in (0..150).map(|i| (i, format!("f-{i}"))) {
            let id = catalog.name_id(&name, &|_| None).unwrap();
            assert_eq!(files.name(id), name, "{i}");
        }
    }
}
