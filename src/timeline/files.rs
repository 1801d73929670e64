//! The file graph of a table: which manifests, data files and changelog files each snapshot,
//! tag and long-lived changelog references, and which files nothing references
//! (`paimon-format.md` §3.8, §4.7, §5.2).
//!
//! * [`ManifestStore`] decodes each manifest list, manifest and index manifest **once** per run,
//!   however many snapshots, tags or branches share it, and counts decodes and cache hits.
//! * [`BranchFiles`] resolves one timeline: each snapshot's delta (ADD/DELETE entries) and
//!   changelog files, the live set of the latest snapshot, and what is missing.
//! * [`RootFiles`] covers a table root with all its branches (they share data files and
//!   `manifest/`): every name referenced by any retained snapshot, tag or long-lived changelog,
//!   the files nothing references (orphans), and "ghost commits": manifest lists that were
//!   written for a commit that never became a snapshot, decoded to show what it held.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;
use std::rc::Rc;

// The sets every entry's name goes through (a wide table's million entries): foldhash, randomly
// seeded per run, where SipHash and its rehashing were ~10% of the run (BENCHMARKS.md).
use foldhash::{HashSet as FastSet, HashSetExt as _};

use crate::error::Error;
use crate::limits::Limits;
use crate::paimon::avro::AvroSchemaCache;
use crate::paimon::index_manifest::{read_index_manifest, IndexManifestEntry};
use crate::paimon::manifest::{
    read_manifest, DataFiles, EntryRow, FileKind, Manifest, ManifestEntry,
};
use crate::paimon::manifest_list::{read_manifest_names, ManifestNames};
use crate::paimon::schema::ChangelogProducer;
use crate::paimon::snapshot::{ManifestListRole, Snapshot};
use crate::source::{Artifact, FileEntry, FileTime, Listing};
use crate::warehouse::{join, split_parent};

use super::catalog::Catalog;
use super::external::{ExternalRoots, Located};
use super::prefetch::{Decoded, Prefetch};
use super::Timeline;

pub use super::entries::Entries;

/// Why a referenced metadata file could not be used.
#[derive(Debug, Clone, PartialEq)]
pub enum Unusable {
    /// Not in the artifact.
    Missing,
    /// Present but unreadable or undecodable.
    Unreadable(Error),
}

/// Decodes manifest files once per run.
#[derive(Default)]
pub struct ManifestStore<'p> {
    cache: AvroSchemaCache,
    /// Files decoded ahead by other threads, taken before decoding here (see [`super::prefetch`]).
    prefetch: Option<&'p dyn Prefetch>,
    lists: HashMap<String, Result<Rc<ManifestNames>, Unusable>>,
    manifests: HashMap<String, Result<Rc<[EntryRow]>, Unusable>>,
    index_manifests: HashMap<String, Result<Rc<[IndexManifestEntry]>, Unusable>>,
    /// One copy of each partition, name and description of the manifests' entries, which
    /// their rows index.
    catalog: Catalog,
    /// Distinct manifest files decoded (lists, manifests, index manifests).
    pub decoded: u64,
    /// References answered from the store without decoding again.
    pub hits: u64,
}

impl std::fmt::Debug for ManifestStore<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManifestStore")
            .field("lists", &self.lists.len())
            .field("manifests", &self.manifests.len())
            .field("index_manifests", &self.index_manifests.len())
            .field("prefetch", &self.prefetch.is_some())
            .field("decoded", &self.decoded)
            .field("hits", &self.hits)
            .finish_non_exhaustive()
    }
}

impl<'p> ManifestStore<'p> {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that takes files decoded ahead by `prefetch` before decoding them itself.
    /// The results are the same, counters included (see [`super::prefetch`]).
    pub fn with_prefetch(prefetch: &'p dyn Prefetch) -> Self {
        ManifestStore {
            prefetch: Some(prefetch),
            ..Self::default()
        }
    }

    /// The file at `path` as decoded ahead, if `kind` accepts what it was decoded as
    /// ([`Decoded::into_list`], [`Decoded::into_manifest`]), counted as if read and decoded
    /// here. `None` when it was not decoded ahead, was decoded as something else, or counting it
    /// here would meet a run-wide limit: the caller then decodes it, and meets that limit
    /// exactly as without prefetching.
    fn take_prefetched<T>(
        &mut self,
        artifact: &Artifact,
        path: &str,
        kind: fn(Decoded) -> Option<T>,
    ) -> Option<T> {
        let prefetched = self.prefetch?.take(path)?;
        let decoded = kind(prefetched.decoded)?;
        let entry = artifact.get(path)?;
        let limits = artifact.limits();
        if !self
            .cache
            .decompressed_elsewhere_fits(prefetched.bytes_decompressed, limits)
            || !artifact.count_read_elsewhere(entry, limits.max_entry_bytes, prefetched.bytes_read)
        {
            return None;
        }
        self.cache
            .count_decompressed_elsewhere(prefetched.bytes_decompressed);
        self.decoded += 1;
        Some(decoded)
    }

    /// Reads the file at `path` here and decodes it with `decode` (a manifest list, manifest or
    /// index manifest reader), counting the decode.
    fn decode<T>(
        &mut self,
        artifact: &Artifact,
        path: &str,
        decode: fn(&[u8], &mut AvroSchemaCache, &Limits) -> crate::Result<T>,
    ) -> Result<T, Unusable> {
        let Some(entry) = artifact.get(path) else {
            return Err(Unusable::Missing);
        };
        let bytes = artifact
            .read_entry(entry, artifact.limits().max_entry_bytes)
            .map_err(Unusable::Unreadable)?;
        self.decoded += 1;
        decode(&bytes, &mut self.cache, artifact.limits())
            .map_err(|e| Unusable::Unreadable(e.in_file(path)))
    }

    /// The names of the manifests in the manifest list at `path` (an artifact path).
    pub fn list(&mut self, artifact: &Artifact, path: &str) -> Result<Rc<ManifestNames>, Unusable> {
        if let Some(r) = self.lists.get(path) {
            self.hits += 1;
            return r.clone();
        }
        let r = match self.take_prefetched(artifact, path, Decoded::into_list) {
            Some(names) => Ok(names),
            None => self.decode(artifact, path, read_manifest_names),
        }
        .map(Rc::new);
        self.lists.insert(path.to_string(), r.clone());
        r
    }

    /// The rows of the manifest at `path`, over [`ManifestStore::files`].
    ///
    /// A file name new to the store is taken from the listing's file of that name that
    /// `listed` holds (a table root's data files), rather than copied.
    pub fn manifest(
        &mut self,
        artifact: &Artifact,
        path: &str,
        listed: &BucketFiles,
    ) -> Result<Rc<[EntryRow]>, Unusable> {
        if let Some(r) = self.manifests.get(path) {
            self.hits += 1;
            return r.clone();
        }
        let decoded: Result<Manifest, Unusable> =
            match self.take_prefetched(artifact, path, Decoded::into_manifest) {
                Some(manifest) => Ok(manifest),
                None => self.decode(artifact, path, read_manifest),
            };
        self.catalog.set_listing(&artifact.listing());
        let r = decoded.and_then(|m| {
            let found = listed.find_all(m.entries().map(|e| e.file().file_name()));
            self.catalog
                .intern(&m, &found)
                .map(Rc::from)
                .map_err(|e| Unusable::Unreadable(e.in_file(path)))
        });
        self.manifests.insert(path.to_string(), r.clone());
        r
    }

    /// What the rows of [`ManifestStore::manifest`] index.
    pub fn files(&self) -> &DataFiles {
        self.catalog.files()
    }

    /// The descriptions every manifest decoded so far interned into, taken when the file
    /// graphs are built (see [`RootFiles::set_catalog`]). The store forgets the manifests it
    /// decoded with them (their rows index what is taken); its counters stay.
    pub fn take_files(&mut self) -> DataFiles {
        self.manifests.clear();
        std::mem::take(&mut self.catalog).into_files()
    }

    /// The index manifest at `path`.
    pub fn index_manifest(
        &mut self,
        artifact: &Artifact,
        path: &str,
    ) -> Result<Rc<[IndexManifestEntry]>, Unusable> {
        if let Some(r) = self.index_manifests.get(path) {
            self.hits += 1;
            return r.clone();
        }
        let r = self
            .decode(artifact, path, read_index_manifest)
            .map(Rc::from);
        self.index_manifests.insert(path.to_string(), r.clone());
        r
    }
}

/// Something that keeps files alive: a snapshot, a tag, or a long-lived changelog.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Holder {
    /// `snapshot-<id>` of a branch.
    Snapshot {
        /// The branch.
        branch: String,
        /// The snapshot id.
        id: i64,
    },
    /// `tag-<name>` of a branch.
    Tag {
        /// The branch.
        branch: String,
        /// The tag name.
        name: String,
    },
    /// `changelog-<id>` of a branch.
    LongLivedChangelog {
        /// The branch.
        branch: String,
        /// The changelog id.
        id: i64,
    },
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (branch, what) = match self {
            Holder::Snapshot { branch, id } => (branch, format!("snapshot {id}")),
            Holder::Tag { branch, name } => (branch, format!("tag {name}")),
            Holder::LongLivedChangelog { branch, id } => {
                (branch, format!("long-lived changelog {id}"))
            }
        };
        if branch == crate::warehouse::MAIN_BRANCH {
            f.write_str(&what)
        } else {
            write!(f, "{what} of branch {branch}")
        }
    }
}

/// A file a holder needs that is not usable.
#[derive(Debug, Clone, PartialEq)]
pub struct Dangling {
    /// Who needs it.
    pub holder: Holder,
    /// What it is (`manifest list`, `manifest`, `data file`, `changelog file`, `index manifest`,
    /// `index file`).
    pub kind: &'static str,
    /// The file's path relative to the table root.
    pub file: String,
    /// Why it cannot be used.
    pub why: Unusable,
}

/// One snapshot's resolved files.
#[derive(Debug, Clone, Default)]
pub struct SnapshotFiles {
    /// Entries of the delta manifest list (ADD and DELETE).
    pub delta: Entries,
    /// Changelog files (ADD entries of the changelog manifest list).
    pub changelog: Entries,
    /// Whether every manifest of the delta and changelog lists could be read.
    pub complete: bool,
}

impl SnapshotFiles {
    /// ADD entries of the delta, read through `files` (what the rows index).
    pub fn added<'a>(
        &'a self,
        files: &'a DataFiles,
    ) -> impl Iterator<Item = ManifestEntry<'a>> + Clone + 'a {
        self.delta.iter(files).filter(|e| e.kind() == FileKind::Add)
    }

    /// DELETE entries of the delta, read through `files`.
    pub fn deleted<'a>(
        &'a self,
        files: &'a DataFiles,
    ) -> impl Iterator<Item = ManifestEntry<'a>> + Clone + 'a {
        self.delta
            .iter(files)
            .filter(|e| e.kind() == FileKind::Delete)
    }
}

/// The identifier of a file in a merge (`FileEntry.Identifier`, `paimon-format.md` §3.8).
type FileKey<'a> = (&'a [u8], i32, i32, &'a str);

fn key(e: ManifestEntry<'_>) -> FileKey<'_> {
    let f = e.file();
    (e.partition(), e.bucket(), f.level(), f.file_name())
}

/// The files of one timeline (branch).
#[derive(Debug, Clone, Default)]
pub struct BranchFiles {
    /// What the rows of its entries index: the analysis's file descriptions.
    pub catalog: Rc<DataFiles>,
    /// Per snapshot id.
    pub snapshots: BTreeMap<i64, SnapshotFiles>,
    /// The live files of the latest snapshot (base + delta merged, sorted by the identifier
    /// of a file in a merge), if its lists were readable.
    pub live_latest: Option<Vec<EntryRow>>,
    /// Files that retained holders need but cannot use.
    pub dangling: Vec<Dangling>,
}

impl BranchFiles {
    /// The live files of the latest snapshot, if known.
    pub fn live(&self) -> Option<impl Iterator<Item = ManifestEntry<'_>> + Clone + '_> {
        let live = self.live_latest.as_deref()?;
        Some(live.iter().map(|&r| self.catalog.entry(r)))
    }

    /// Whether the file of `e` (its name in its partition and bucket, at any level) is still
    /// live in the latest snapshot, if that is known.
    pub fn live_at_latest(&self, e: ManifestEntry<'_>) -> Option<bool> {
        let live = self.live_latest.as_deref()?;
        let files = &*self.catalog;
        // The live set is sorted by `FileKey` (it comes from `merge`): the files of the
        // entry's partition and bucket are one run, by level, then by name.
        let (p, b) = (e.partition(), e.bucket());
        let at = |l: &EntryRow| (files.partition(l.partition_id()), l.bucket());
        let start = live.partition_point(|l| at(l) < (p, b));
        let end = live.partition_point(|l| at(l) <= (p, b));
        let mut run = live.get(start..end).unwrap_or(&[]);
        while let Some(first) = run.first() {
            let level_of = |l: &EntryRow| files.entry(*l).file().level();
            let level = level_of(first);
            let same_level = run.partition_point(|l| level_of(l) == level);
            let (this, rest) = run.split_at(same_level);
            if live_in(files, this, e, level) {
                return Some(true);
            }
            run = rest;
        }
        Some(false)
    }

    /// Whether the file of `e` is still live **at level 0** in the latest snapshot (a
    /// compaction may upgrade a file to a higher level under the same name), if that is known.
    pub fn live_at_level0(&self, e: ManifestEntry<'_>) -> Option<bool> {
        let live = self.live_latest.as_deref()?;
        Some(live_in(&self.catalog, live, e, 0))
    }
}

/// Whether `live` (rows of `files` sorted by `FileKey`) holds the file of `e` at `level`.
fn live_in(files: &DataFiles, live: &[EntryRow], e: ManifestEntry<'_>, level: i32) -> bool {
    let wanted = (e.partition(), e.bucket(), level, e.file().file_name());
    live.binary_search_by(|&l| key(files.entry(l)).cmp(&wanted))
        .is_ok()
}

/// A file under a table root that nothing references.
#[derive(Debug, Clone, PartialEq)]
pub struct Orphan {
    /// Artifact path.
    pub path: String,
    /// Path relative to the table root.
    pub relative: String,
    /// What it looks like.
    pub kind: OrphanKind,
    /// Size in bytes.
    pub size: u64,
    /// Modification time.
    pub modified: Option<FileTime>,
}

/// What kind of file an orphan is, from its directory and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OrphanKind {
    /// A changelog file in a bucket directory (`changelog-*`, `compacted-changelog-*`).
    Changelog,
    /// A data file in a bucket directory.
    Data,
    /// A manifest list in `manifest/`.
    ManifestList,
    /// A manifest in `manifest/`.
    Manifest,
    /// An index manifest in `manifest/`.
    IndexManifest,
    /// A file in `index/`.
    Index,
    /// A file in `statistics/`.
    Statistics,
}

impl OrphanKind {
    /// A short name.
    pub fn as_str(self) -> &'static str {
        match self {
            OrphanKind::Changelog => "changelog file",
            OrphanKind::Data => "data file",
            OrphanKind::ManifestList => "manifest list",
            OrphanKind::Manifest => "manifest",
            OrphanKind::IndexManifest => "index manifest",
            OrphanKind::Index => "index file",
            OrphanKind::Statistics => "statistics file",
        }
    }
}

/// A commit whose manifest lists were written but which never became a snapshot (the committer
/// died or gave up between writing manifests and publishing), reconstructed from orphan manifest
/// lists of one committer (`manifest-list-<uuid>-<n>`).
#[derive(Debug, Clone, PartialEq)]
pub struct GhostCommit {
    /// The committer's UUID (from the manifest-list names).
    pub committer: String,
    /// Its orphan manifest lists (relative paths), in counter order.
    pub lists: Vec<String>,
    /// Entries of the manifests only these lists reference (the commit's own changes).
    pub entries: Entries,
    /// Those manifests (relative paths).
    pub manifests: Vec<String>,
    /// Published snapshots whose manifest lists the same committer wrote, by branch.
    pub sibling_snapshots: Vec<(String, i64)>,
    /// The newest modification time among the lists.
    pub modified: Option<FileTime>,
    /// Its lists and manifests that could not be decoded (relative paths): what they hold of
    /// the commit is unknown.
    pub unreadable: Vec<String>,
}

/// An index manifest nothing references, decoded: the index files an unpublished commit would
/// have made live.
#[derive(Debug, Clone, PartialEq)]
pub struct OrphanIndexManifest {
    /// Path relative to the table root (`manifest/index-manifest-…`).
    pub relative: String,
    /// Its entries.
    pub entries: Rc<[IndexManifestEntry]>,
    /// Modification time.
    pub modified: Option<FileTime>,
}

/// The file graph of one table root and all its branches.
#[derive(Debug, Clone, Default)]
pub struct RootFiles {
    /// What the rows of its entries index: the analysis's file descriptions.
    pub catalog: Rc<DataFiles>,
    /// Per branch name.
    pub branches: BTreeMap<String, BranchFiles>,
    /// Names (data, changelog, extra files) referenced by any manifest entry of any holder.
    pub referenced: ReferencedNames,
    /// Files under the root nothing references, by relative path.
    pub orphans: Vec<Orphan>,
    /// Unpublished commits reconstructed from orphan manifest lists.
    pub ghosts: Vec<GhostCommit>,
    /// Orphan index manifests that could be decoded, with their entries (an unpublished
    /// commit's deletion vectors, e.g. a lost COMPACT's).
    pub orphan_index_manifests: Vec<OrphanIndexManifest>,
    /// Files under the root outside the metadata directories, by name (bucket dirs).
    pub data_files_by_name: BucketFiles,
    /// Whether the artifact holds a `manifest/` directory for this root.
    pub has_manifest_dir: bool,
    /// Whether the artifact holds any bucket directory for this root.
    pub has_data_dirs: bool,
    /// External data files (`data-file.external-paths`) whose root the artifact does not hold,
    /// by root URI: their URIs. Nothing about them could be checked.
    pub external_outside: BTreeMap<String, BTreeSet<String>>,
    /// External data files found in the artifact (held roots), by artifact path.
    pub external_present: BTreeSet<String>,
}

/// The names of data, changelog and extra files that manifest entries of a root's holders
/// reference: a bit per name of the catalog, and the extra files' names.
#[derive(Debug, Clone, Default)]
pub struct ReferencedNames {
    /// Bit `i`: the catalog's name `i` is referenced.
    names: Vec<u64>,
    /// `_EXTRA_FILES` names.
    extra: FastSet<Box<str>>,
}

impl ReferencedNames {
    /// Records the name of `file` and its extra files; whether its name was new.
    fn insert(&mut self, file: crate::paimon::manifest::DataFileMeta<'_>) -> bool {
        let id = file.name_id() as usize;
        let (word, bit) = (id / 64, 1u64 << (id % 64));
        if self.names.len() <= word {
            self.names.resize(word + 1, 0);
        }
        let Some(w) = self.names.get_mut(word) else {
            return false;
        };
        if *w & bit != 0 {
            return false;
        }
        *w |= bit;
        for extra in file.extra_files() {
            self.extra.insert(extra.clone());
        }
        true
    }

    /// Whether name `id` of the catalog is referenced.
    fn has_id(&self, id: u32) -> bool {
        let id = id as usize;
        self.names
            .get(id / 64)
            .is_some_and(|w| w & (1u64 << (id % 64)) != 0)
    }

    /// Whether the name of `file` is referenced (as a file or an extra file).
    pub fn contains_file(&self, file: crate::paimon::manifest::DataFileMeta<'_>) -> bool {
        self.has_id(file.name_id()) || self.extra.contains(file.file_name())
    }

    /// Whether `name` is referenced; `id` is its id in the catalog, if it has one.
    fn contains(&self, id: Option<u32>, name: &str) -> bool {
        id.is_some_and(|id| self.has_id(id)) || self.extra.contains(name)
    }
}

impl RootFiles {
    /// Gives the graph and its branches the descriptions their rows index (what
    /// [`ManifestStore::take_files`] returns once every root is resolved).
    pub fn set_catalog(&mut self, files: &Rc<DataFiles>) {
        self.catalog = Rc::clone(files);
        for b in self.branches.values_mut() {
            b.catalog = Rc::clone(files);
        }
    }
}

const META_DIRS: &[&str] = &[
    "snapshot",
    "schema",
    "consumer",
    "tag",
    "changelog",
    "branch",
    "manifest",
    "index",
    "statistics",
];

/// Builds the file graph of a table root from its timelines (main and branches).
pub fn resolve_root(
    artifact: &Artifact,
    store: &mut ManifestStore,
    root: &str,
    timelines: &[&Timeline],
    progress: &mut dyn FnMut(),
) -> RootFiles {
    let mut r = Resolver::new(artifact, store, root);
    for t in timelines {
        r.external.add_roots(&t.options.data_file_external_paths);
        for schema in t.schemas.values() {
            r.external
                .add_roots(&schema.table_options().data_file_external_paths);
        }
        r.index_in_bucket_dir |= t.options.index_file_in_data_file_dir;
    }
    for t in timelines {
        let files = r.branch(t, progress);
        r.out.branches.insert(t.location.branch.clone(), files);
    }
    r.outside_after_all();
    let orphan_lists = r.find_orphans();
    r.find_ghosts(orphan_lists);
    r.out
}

/// What a root's holders reference by name, beyond data files ([`RootFiles::referenced`]).
#[derive(Default)]
struct Referenced {
    /// Manifest lists, manifests and index manifests (names in `manifest/`).
    meta: FastSet<String>,
    /// Index files (names in `index/`).
    index: HashSet<String>,
    /// Statistics files (names in `statistics/`).
    stats: HashSet<String>,
}

/// Orphan manifest lists by committer UUID: `(counter, name, modified)`.
type OrphanLists = BTreeMap<String, Vec<(u64, String, Option<FileTime>)>>;

/// The state of resolving one table root: what is found so far and what is referenced.
struct Resolver<'a, 's, 'p> {
    artifact: &'a Artifact,
    store: &'s mut ManifestStore<'p>,
    root: &'a str,
    manifest_dir: String,
    out: RootFiles,
    referenced: Referenced,
    /// Manifests decoded and walked for references once in this root (see
    /// [`Resolver::list`]).
    walked: FastSet<String>,
    /// Each snapshot's manifest lists, by branch and id (for ghost commits' siblings).
    lists_by_snapshot: Vec<(String, i64, Vec<String>)>,
    /// The external data roots, located in the artifact.
    external: ExternalRoots,
    /// Whether a branch puts index files in bucket directories (`index-file-in-data-file-dir`).
    index_in_bucket_dir: bool,
    /// External files found missing: URI → the artifact path they would have.
    missing_external: HashMap<String, String>,
}

impl<'a, 's, 'p> Resolver<'a, 's, 'p> {
    /// Starts with the files of the root's bucket directories.
    fn new(artifact: &'a Artifact, store: &'s mut ManifestStore<'p>, root: &'a str) -> Self {
        let manifest_dir = join(root, "manifest");
        let mut out = RootFiles::default();
        list_bucket_files(artifact, root, &mut out);
        out.has_manifest_dir = !artifact.files_under(&manifest_dir).is_empty();
        Resolver {
            artifact,
            store,
            root,
            manifest_dir,
            out,
            referenced: Referenced::default(),
            walked: FastSet::new(),
            lists_by_snapshot: Vec::new(),
            external: ExternalRoots::default(),
            index_in_bucket_dir: false,
            missing_external: HashMap::new(),
        }
    }

    /// The files of one timeline: its snapshots, then what its tags and long-lived changelogs
    /// keep alive; what they need and cannot use, sorted and deduplicated.
    fn branch(&mut self, t: &Timeline, progress: &mut dyn FnMut()) -> BranchFiles {
        let branch = &t.location.branch;
        let mut bf = BranchFiles::default();
        let latest = t.snapshots.keys().next_back().copied();
        let earliest = t.snapshots.keys().next().copied();
        for (id, sf) in &t.snapshots {
            progress();
            let end = if Some(*id) == latest {
                Some(End::Latest)
            } else if Some(*id) == earliest {
                Some(End::Earliest)
            } else {
                None
            };
            let files = self.snapshot(branch, *id, &sf.snapshot, end, &mut bf);
            bf.snapshots.insert(*id, files);
        }
        for tag in &t.tags {
            if let Ok(tagged) = &tag.tag {
                self.tag(branch, &tag.name, &tagged.snapshot, &mut bf.dangling);
            }
        }
        let producer = &t.options.changelog_producer;
        for (id, cf) in &t.long_lived_changelogs {
            self.long_lived_changelog(branch, *id, &cf.snapshot, producer, &mut bf.dangling);
        }
        live_between_ends(
            self.store.files(),
            branch,
            earliest,
            &self.missing_external,
            &mut bf,
        );
        bf.dangling
            .sort_by(|a, b| (&a.holder, &a.file).cmp(&(&b.holder, &b.file)));
        bf.dangling
            .dedup_by(|a, b| a.holder == b.holder && a.file == b.file);
        bf
    }

    /// One snapshot's delta and changelog, and every file its lists reference. At an end of
    /// the timeline its live set too (base + delta merged, each file checked present); the
    /// latest one's becomes [`BranchFiles::live_latest`].
    fn snapshot(
        &mut self,
        branch: &str,
        id: i64,
        s: &Snapshot,
        end: Option<End>,
        bf: &mut BranchFiles,
    ) -> SnapshotFiles {
        let holder = Holder::Snapshot {
            branch: branch.to_string(),
            id,
        };
        let mut files = SnapshotFiles {
            complete: true,
            ..SnapshotFiles::default()
        };
        let mut lists = Vec::new();
        for (role, list) in s.manifest_lists() {
            lists.push(list.to_string());
            self.referenced.meta.insert(list.to_string());
            // A base list's entries are only needed at the ends of the timeline (live sets);
            // elsewhere it only adds references (and dangling ones).
            let collect = role != ManifestListRole::Base || end.is_some();
            let unusable_before = bf.dangling.len();
            let entries = self.list(list, &holder, &mut bf.dangling, collect);
            // The list and every manifest it names were usable (`list` records each unusable
            // one, the list itself included): its entries are all there are.
            let whole = bf.dangling.len() == unusable_before;
            match role {
                ManifestListRole::Delta => {
                    files.complete &= whole;
                    files.delta = entries.unwrap_or_default();
                }
                ManifestListRole::Changelog => {
                    files.complete &= whole;
                    files.changelog = entries.map(|e| e.adds()).unwrap_or_default();
                }
                ManifestListRole::Base => {
                    if let (Some(end), Some(base), true) = (end, entries, whole) {
                        let live = self.live_set(s, &holder, &base, &mut bf.dangling);
                        if let (End::Latest, Some(live)) = (end, live) {
                            bf.live_latest = Some(live);
                        }
                    }
                }
            }
        }
        // Every file a retained snapshot adds or produces must exist.
        let added = files.delta.rows().filter(|r| r.kind() == FileKind::Add);
        self.check_files_exist(&holder, added, "data file", &mut bf.dangling);
        self.check_files_exist(
            &holder,
            files.changelog.rows(),
            "changelog file",
            &mut bf.dangling,
        );
        self.index_and_stats(s, &holder, &mut bf.dangling);
        self.lists_by_snapshot.push((branch.to_string(), id, lists));
        files
    }

    /// The live files of snapshot `s` whose base list holds `base` (all of it): base and delta
    /// merged, each checked present (a missing one dangles from `holder`). `None` when the
    /// delta list or one of its manifests is unusable: the live set is then not known, and a
    /// part of it taken for the whole would make the files the delta adds look unreferenced
    /// and a batch view look exact.
    fn live_set(
        &mut self,
        s: &Snapshot,
        holder: &Holder,
        base: &Entries,
        dangling: &mut Vec<Dangling>,
    ) -> Option<Vec<EntryRow>> {
        // The delta list was (or will be) resolved for the snapshot itself, dangling
        // references included: here only its entries are wanted.
        let delta = s.delta_manifest_list.as_deref().unwrap_or("");
        let mut unusable = Vec::new();
        let delta = match self.list(delta, holder, &mut unusable, true) {
            Some(delta) if unusable.is_empty() => delta,
            _ => return None, // the list, or a manifest it names, is unusable
        };
        let live = merge(self.store.files(), base.rows().chain(delta.rows()));
        self.check_files_exist(holder, live.iter().copied(), "data file", dangling);
        Some(live)
    }

    /// A tag keeps its snapshot's live files alive: each must exist.
    fn tag(&mut self, branch: &str, name: &str, s: &Snapshot, dangling: &mut Vec<Dangling>) {
        let holder = Holder::Tag {
            branch: branch.to_string(),
            name: name.to_string(),
        };
        let mut all = Vec::new();
        for (role, list) in s.manifest_lists() {
            self.referenced.meta.insert(list.to_string());
            let data = role != ManifestListRole::Changelog;
            let entries = self.list(list, &holder, dangling, data);
            if data {
                all.push(entries.unwrap_or_default());
            }
        }
        let live = merge(self.store.files(), all.iter().flat_map(Entries::rows));
        self.check_files_exist(&holder, live.iter().copied(), "data file", dangling);
        self.index_and_stats(s, &holder, dangling);
    }

    /// A long-lived changelog keeps its changelog files (producer != none) or its delta data
    /// files (producer none); expiration deletes the rest (§5.2). Lists it does not need are
    /// referenced when present, never dangling.
    fn long_lived_changelog(
        &mut self,
        branch: &str,
        id: i64,
        s: &Snapshot,
        producer: &ChangelogProducer,
        dangling: &mut Vec<Dangling>,
    ) {
        let holder = Holder::LongLivedChangelog {
            branch: branch.to_string(),
            id,
        };
        for (role, list) in s.manifest_lists() {
            let needed = match role {
                ManifestListRole::Base => false,
                ManifestListRole::Delta => *producer == ChangelogProducer::None,
                ManifestListRole::Changelog => *producer != ChangelogProducer::None,
            };
            if !needed && self.artifact.get(&join(&self.manifest_dir, list)).is_none() {
                continue;
            }
            self.referenced.meta.insert(list.to_string());
            let mut sink = Vec::new();
            let target = if needed { &mut *dangling } else { &mut sink };
            if let Some(entries) = self.list(list, &holder, target, needed) {
                if needed {
                    let adds = entries.adds();
                    self.check_files_exist(&holder, adds.rows(), "file", dangling);
                }
            }
        }
    }

    /// The index manifest and statistics file a snapshot-shaped holder names: referenced, and
    /// the index files the index manifest lists must exist.
    fn index_and_stats(&mut self, s: &Snapshot, holder: &Holder, dangling: &mut Vec<Dangling>) {
        if let Some(im) = &s.index_manifest {
            self.referenced.meta.insert(im.clone());
            match self
                .store
                .index_manifest(self.artifact, &join(&self.manifest_dir, im))
            {
                Ok(entries) => {
                    for e in entries.iter() {
                        self.referenced.index.insert(e.file_name.clone());
                        if e.external_path.is_none() && !self.index_file_present(&e.file_name) {
                            // Where the option puts it (§1.8): `index/`, or the bucket
                            // directory of the entry.
                            let dir = if self.index_in_bucket_dir {
                                format!("bucket-{}", e.bucket)
                            } else {
                                "index".to_string()
                            };
                            dangling.push(Dangling {
                                holder: holder.clone(),
                                kind: "index file",
                                file: format!("{dir}/{}", e.file_name),
                                why: Unusable::Missing,
                            });
                        }
                    }
                }
                Err(why) => dangling.push(Dangling {
                    holder: holder.clone(),
                    kind: "index manifest",
                    file: format!("manifest/{im}"),
                    why,
                }),
            }
        }
        if let Some(stats) = &s.statistics {
            self.referenced.stats.insert(stats.clone());
        }
    }

    /// Whether index file `name` is in `index/`, or anywhere under the root
    /// (`index-file-in-data-file-dir` puts index files in bucket directories).
    fn index_file_present(&self, name: &str) -> bool {
        let in_index_dir = join(&join(self.root, "index"), name);
        self.artifact.get(&in_index_dir).is_some()
            || self
                .artifact
                .files_under(self.root)
                .iter()
                .any(|f| f.name() == name)
    }

    /// Resolves a manifest list into its entries; records what is missing. `None` if the list
    /// itself is unusable; entries of readable manifests otherwise (none unless `collect`).
    ///
    /// `walked` holds the manifests of this root whose names and entries are already recorded
    /// in the references: a base list repeats most manifests of the previous snapshot's lists,
    /// and walking them again for every snapshot was most of the per-snapshot work. Unusable
    /// manifests are never in `walked`, so every holder still records them as dangling.
    fn list(
        &mut self,
        list: &str,
        holder: &Holder,
        dangling: &mut Vec<Dangling>,
        collect: bool,
    ) -> Option<Entries> {
        if list.is_empty() {
            return Some(Entries::new());
        }
        let metas = match self
            .store
            .list(self.artifact, &join(&self.manifest_dir, list))
        {
            Ok(m) => m,
            Err(why) => {
                dangling.push(Dangling {
                    holder: holder.clone(),
                    kind: "manifest list",
                    file: format!("manifest/{list}"),
                    why,
                });
                return None;
            }
        };
        let mut entries = Entries::new();
        let mut path = String::with_capacity(self.manifest_dir.len() + 64);
        for name in metas.iter() {
            if !collect && self.walked.contains(name) {
                self.store.hits += 1; // answered without decoding again, as the store would
                continue;
            }
            path.clear();
            if !self.manifest_dir.is_empty() {
                path.push_str(&self.manifest_dir);
                path.push('/');
            }
            path.push_str(name);
            match self
                .store
                .manifest(self.artifact, &path, &self.out.data_files_by_name)
            {
                Ok(es) => {
                    if !self.walked.contains(name) {
                        self.referenced.meta.insert(name.to_string());
                        let files = self.store.files();
                        for &row in es.iter() {
                            self.out.referenced.insert(files.file(row.file_id()));
                        }
                        self.walked.insert(name.to_string());
                    }
                    if collect {
                        entries.push(es);
                    }
                }
                Err(why) => {
                    self.referenced.meta.insert(name.to_string());
                    dangling.push(Dangling {
                        holder: holder.clone(),
                        kind: "manifest",
                        file: format!("manifest/{name}"),
                        why,
                    });
                }
            }
        }
        Some(entries)
    }

    /// Records each of `entries` that is not where its manifest entry puts it as dangling from
    /// `holder`: inside the table directory, its bucket directory; with an external path, the
    /// artifact's copy of the external root (§1.3). External files under a root the artifact
    /// does not hold are recorded in [`RootFiles::external_outside`] instead.
    fn check_files_exist(
        &mut self,
        holder: &Holder,
        rows: impl Iterator<Item = EntryRow>,
        kind: &'static str,
        dangling: &mut Vec<Dangling>,
    ) {
        let files = self.store.files();
        for row in rows {
            let e = files.entry(row);
            if let Some(uri) = e.file().external_path() {
                match self.external.locate(self.artifact, uri) {
                    Located::Present(path) => {
                        self.out.external_present.insert(path);
                    }
                    Located::Missing(path) => {
                        self.missing_external.insert(uri.to_string(), path.clone());
                        dangling.push(Dangling {
                            holder: holder.clone(),
                            kind,
                            file: path,
                            why: Unusable::Missing,
                        })
                    }
                    Located::Outside(root) => {
                        self.out
                            .external_outside
                            .entry(root)
                            .or_default()
                            .insert(uri.to_string());
                    }
                }
                continue;
            }
            if !self.out.has_data_dirs {
                // The artifact holds no data directories at all: reported once as
                // artifact-incomplete.
                continue;
            }
            let bucket_files = &self.out.data_files_by_name;
            // The file the description's name was taken from, when it is one of this root's
            // and in the entry's bucket, answers without a lookup by name.
            let named_by = e
                .file()
                .listed_at()
                .filter(|&i| bucket_files.holds(i))
                .and_then(|i| self.artifact.files().get(i as usize));
            let present = named_by.is_some_and(|f| is_bucket_dir(f.dir(), e.bucket()))
                || bucket_files
                    .dirs(e.file().file_name())
                    .any(|dir| is_bucket_dir(dir, e.bucket()));
            if !present {
                dangling.push(Dangling {
                    holder: holder.clone(),
                    kind,
                    file: dangling_path(e),
                    why: Unusable::Missing,
                });
            }
        }
    }

    /// External files "missing" from a folder that holds none of the table's files are outside
    /// the artifact instead ([`ExternalRoots::unconfirmed`]).
    fn outside_after_all(&mut self) {
        let unconfirmed = self.external.unconfirmed();
        if unconfirmed.is_empty() {
            return;
        }
        let paths: HashSet<&str> = unconfirmed.iter().map(|(p, ..)| *p).collect();
        for (_, uri, root) in &unconfirmed {
            self.out
                .external_outside
                .entry(root.to_string())
                .or_default()
                .insert(uri.to_string());
        }
        for b in self.out.branches.values_mut() {
            b.dangling.retain(|d| !paths.contains(d.file.as_str()));
        }
    }

    /// Files under the root nothing references, into [`RootFiles::orphans`]; returns the orphan
    /// manifest lists by committer, for [`Resolver::find_ghosts`].
    fn find_orphans(&mut self) -> OrphanLists {
        let mut orphan_lists = OrphanLists::new();
        let mut path_buf = String::new();
        let range = self.artifact.range_under(self.root);
        for (i, f) in range.clone().zip(self.artifact.files().slice(range)) {
            let path = f.path_in(&mut path_buf);
            let rel = relative(self.root, path);
            let name = f.name();
            let Some(kind) = self.orphan_kind(i, rel, name) else {
                continue;
            };
            if kind == OrphanKind::ManifestList {
                if let Some((uuid, n)) = name
                    .strip_prefix("manifest-list-")
                    .and_then(split_list_name)
                {
                    orphan_lists.entry(uuid.to_string()).or_default().push((
                        n,
                        name.to_string(),
                        f.modified(),
                    ));
                }
            }
            if kind == OrphanKind::IndexManifest {
                if let Ok(entries) = self.store.index_manifest(self.artifact, path) {
                    self.out.orphan_index_manifests.push(OrphanIndexManifest {
                        relative: rel.to_string(),
                        entries,
                        modified: f.modified(),
                    });
                }
            }
            self.out.orphans.push(orphan(self.root, f, kind));
        }
        orphan_lists
    }

    /// What the file `name` at `rel` (relative to the root) is, if nothing references it and it
    /// is a kind of file Paimon references: `None` when it is referenced, or not such a file.
    fn orphan_kind(&self, i: usize, rel: &str, name: &str) -> Option<OrphanKind> {
        let first = rel.split('/').next().unwrap_or("");
        match first {
            "manifest" if rel.matches('/').count() == 1 => {
                if self.referenced.meta.contains(name) {
                    None
                } else if name.starts_with("manifest-list-") {
                    Some(OrphanKind::ManifestList)
                } else if name.starts_with("index-manifest-") {
                    Some(OrphanKind::IndexManifest)
                } else if name.starts_with("manifest-") {
                    Some(OrphanKind::Manifest)
                } else {
                    None
                }
            }
            "index" => (!self.referenced.index.contains(name)).then_some(OrphanKind::Index),
            "statistics" => {
                (!self.referenced.stats.contains(name)).then_some(OrphanKind::Statistics)
            }
            _ if META_DIRS.contains(&first) || !rel.contains('/') => None,
            _ if self.out.referenced.contains(self.name_id(i, name), name)
                || !in_bucket_dir(rel) =>
            {
                None
            }
            // `index-file-in-data-file-dir` (§1.8): index files in bucket directories.
            _ if self.referenced.index.contains(name) => None,
            _ if self.index_in_bucket_dir && name.starts_with("index-") => Some(OrphanKind::Index),
            _ if name.starts_with("changelog-") || name.starts_with("compacted-changelog-") => {
                Some(OrphanKind::Changelog)
            }
            _ => Some(OrphanKind::Data),
        }
    }

    /// The catalog's id of the name `name` of file `i` of the listing, found as this root's
    /// manifests were interned: by the file itself when its name was taken from it, else by
    /// name.
    fn name_id(&self, i: usize, name: &str) -> Option<u32> {
        let catalog = &self.store.catalog;
        let by_file = u32::try_from(i)
            .ok()
            .and_then(|i| catalog.listed_name_id(i));
        by_file.or_else(|| {
            let bucket_files = &self.out.data_files_by_name;
            catalog.name_id(name, &|n| bucket_files.find(n))
        })
    }

    /// Ghost commits: the orphan manifest lists of each committer, decoded (the entries of the
    /// manifests no published list references), with the published snapshots the same committer
    /// wrote.
    fn find_ghosts(&mut self, orphan_lists: OrphanLists) {
        for (uuid, mut lists) in orphan_lists {
            lists.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let mut entries = Entries::new();
            let mut manifests = Vec::new();
            let mut unreadable = Vec::new();
            for (_, list, _) in &lists {
                let metas = match self
                    .store
                    .list(self.artifact, &join(&self.manifest_dir, list))
                {
                    Ok(metas) => metas,
                    Err(Unusable::Missing) => continue,
                    Err(Unusable::Unreadable(_)) => {
                        unreadable.push(format!("manifest/{list}"));
                        continue;
                    }
                };
                for name in metas.iter() {
                    if self.referenced.meta.contains(name) {
                        continue; // a base list repeats published manifests
                    }
                    match self.store.manifest(
                        self.artifact,
                        &join(&self.manifest_dir, name),
                        &self.out.data_files_by_name,
                    ) {
                        Ok(es) => {
                            entries.push(es);
                            manifests.push(format!("manifest/{name}"));
                        }
                        // A manifest clean-up deleted is not unreadable, only gone.
                        Err(Unusable::Missing) => {}
                        Err(Unusable::Unreadable(_)) => unreadable.push(format!("manifest/{name}")),
                    }
                }
            }
            let sibling_snapshots = self
                .lists_by_snapshot
                .iter()
                .filter(|(_, _, ls)| {
                    ls.iter().any(|l| {
                        l.strip_prefix("manifest-list-")
                            .and_then(split_list_name)
                            .is_some_and(|(u, _)| u == uuid)
                    })
                })
                .map(|(b, id, _)| (b.clone(), *id))
                .collect();
            let modified = lists
                .iter()
                .filter_map(|(_, _, m)| *m)
                .max_by_key(|m| m.to_utc_millis(None));
            self.out.ghosts.push(GhostCommit {
                committer: uuid,
                lists: lists
                    .iter()
                    .map(|(_, l, _)| format!("manifest/{l}"))
                    .collect(),
                entries,
                manifests,
                sibling_snapshots,
                modified,
                unreadable,
            });
        }
    }
}

/// Which end of a timeline a snapshot is at, if any (its live set is resolved there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Earliest,
    Latest,
}

/// The files in the root's bucket directories (outside the metadata directories), by name,
/// into [`RootFiles::data_files_by_name`]; whether there is any bucket directory.
fn list_bucket_files(artifact: &Artifact, root: &str, out: &mut RootFiles) {
    let range = artifact.range_under(root);
    let files = artifact.files().slice(range.clone());
    let mut by_name = BucketFiles::of(artifact.listing());
    let mut path_buf = String::new();
    for (i, f) in range.zip(files) {
        let rel = relative(root, f.path_in(&mut path_buf));
        let first = rel.split('/').next().unwrap_or("");
        if META_DIRS.contains(&first) || !rel.contains('/') {
            continue;
        }
        out.has_data_dirs |= rel.split('/').any(|p| p.starts_with("bucket-"));
        by_name.push(i);
    }
    by_name.finish();
    out.data_files_by_name = by_name;
}

/// The files in a root's bucket directories, looked up by name: [`RootFiles::data_files_by_name`].
///
/// A wide table has hundreds of thousands of them, so each is kept in ~20 bytes (its index in
/// the artifact's listing, shared rather than copied, and two slots of a name table) where a
/// map from each name to its cloned paths took ~350, and a copy of each name ~70
/// (`BENCHMARKS.md`, "Wide tables").
#[derive(Clone, Default)]
pub struct BucketFiles {
    /// The artifact's listing.
    listing: std::sync::Arc<Listing>,
    /// Per file, in path order: its index in `listing`.
    files: Vec<u32>,
    /// The files by name, an open-addressed table (linear probing, at most half full) of
    /// `(high half of the name's hash, index in files + 1)`, `0` marking a free slot. A file's
    /// copies of one name lie on one probe sequence, in path order. It replaced a sorted
    /// `(hash, index)` table searched by bisection, whose ~19 cache misses per lookup were
    /// ~18% of a wide table's run (`BENCHMARKS.md`).
    table: Vec<(u32, u32)>,
    /// The names' hasher, randomly seeded per run (a hostile artifact cannot choose names that
    /// collide).
    hasher: foldhash::fast::RandomState,
}

impl std::fmt::Debug for BucketFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BucketFiles")
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

impl BucketFiles {
    /// None yet, of the files of `listing`.
    fn of(listing: std::sync::Arc<Listing>) -> Self {
        BucketFiles {
            listing,
            ..BucketFiles::default()
        }
    }

    /// Adds the file at index `i` of the listing; files come in path order. A listing of more
    /// than 4 Gi files cannot be in an artifact the limits admit.
    fn push(&mut self, i: usize) {
        self.files.push(u32::try_from(i).unwrap_or(u32::MAX));
    }

    /// Builds the lookup table once every file is added.
    fn finish(&mut self) {
        self.files.shrink_to_fit();
        let slots = (self.files.len() * 2).next_power_of_two().max(2);
        self.table = vec![(0, 0); slots];
        let mask = slots - 1;
        for i in 0..self.files.len() {
            let hash = self.hasher.hash_one(self.name(i));
            let mut slot = hash as usize & mask;
            while self.table.get(slot).is_some_and(|&(_, f)| f != 0) {
                slot = (slot + 1) & mask;
            }
            if let Some(free) = self.table.get_mut(slot) {
                // Files are counted in u32 (see `push`).
                *free = (
                    (hash >> 32) as u32,
                    u32::try_from(i + 1).unwrap_or(u32::MAX),
                );
            }
        }
    }

    /// File `i`.
    fn file(&self, i: usize) -> Option<FileEntry<'_>> {
        let at = self.files.get(i).map_or(usize::MAX, |&f| f as usize);
        self.listing.file(at)
    }

    /// The name of file `i`.
    fn name(&self, i: usize) -> &str {
        self.file(i).map_or("", |f| f.name())
    }

    /// The directories (artifact paths) holding a file named `name`, in path order.
    pub fn dirs<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let hash = self.hasher.hash_one(name);
        let high = (hash >> 32) as u32;
        let mask = self.table.len().wrapping_sub(1);
        let mut slot = hash as usize & mask;
        std::iter::from_fn(move || loop {
            let &(h, f) = self.table.get(slot)?;
            if f == 0 {
                return None; // the end of the probe sequence
            }
            slot = (slot + 1) & mask;
            let i = f as usize - 1;
            match self.file(i) {
                Some(f) if h == high && f.name() == name => return Some(f.dir()),
                _ => {}
            }
        })
    }

    /// The listing's index of the first file (in path order) named `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        let high = (hash >> 32) as u32;
        let mask = self.table.len().wrapping_sub(1);
        let mut slot = hash as usize & mask;
        loop {
            let &(h, f) = self.table.get(slot)?;
            if f == 0 {
                return None;
            }
            slot = (slot + 1) & mask;
            let i = f as usize - 1;
            if h == high && self.name(i) == name {
                return self.files.get(i).copied();
            }
        }
    }

    /// [`BucketFiles::find`] of each of `names`, in phases over all of them (their hashes,
    /// then their first slots, then their files, then their names): the loads of one phase do
    /// not wait on each other, so the cache misses of hundreds of thousands of lookups into a
    /// table and a listing larger than the cache overlap, where one lookup after the other
    /// waited for each in turn (`BENCHMARKS.md`, "Flat manifest entries"). Whatever the first
    /// slot does not settle is looked up one by one.
    pub fn find_all<'n>(&self, names: impl Iterator<Item = &'n str> + Clone) -> Vec<Option<u32>> {
        let mask = self.table.len().wrapping_sub(1);
        let hashes: Vec<u64> = names.clone().map(|n| self.hasher.hash_one(n)).collect();
        let first: Vec<(u32, u32)> = hashes
            .iter()
            .map(|&h| self.table.get(h as usize & mask).copied().unwrap_or((0, 0)))
            .collect();
        let candidates: Vec<Option<usize>> = hashes
            .iter()
            .zip(&first)
            .map(|(&h, &(high, f))| (f != 0 && high == (h >> 32) as u32).then(|| f as usize - 1))
            .collect();
        names
            .zip(candidates)
            .zip(first)
            .map(|((name, candidate), (_, f))| match candidate {
                Some(i) if self.name(i) == name => self.files.get(i).copied(),
                // An empty first slot: no such name.
                _ if f == 0 => None,
                _ => self.find(name),
            })
            .collect()
    }

    /// Whether file `i` of the listing is one of these.
    pub fn holds(&self, i: u32) -> bool {
        self.files.binary_search(&i).is_ok()
    }

    /// The artifact path of the first file (in path order) named `name`.
    pub fn first_path(&self, name: &str) -> Option<String> {
        self.dirs(name).next().map(|dir| join(dir, name))
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
impl Orphan {
    /// An orphan of the table `db.db/t`, of `kind`, at `relative`, 10 bytes, no time.
    pub(crate) fn for_test(relative: &str, kind: OrphanKind) -> Self {
        Orphan {
            path: format!("db.db/t/{relative}"),
            relative: relative.to_string(),
            kind,
            size: 10,
            modified: None,
        }
    }
}

#[cfg(test)]
impl GhostCommit {
    /// A ghost commit of the list `manifest/<list>` and the manifest `manifest/<manifest>`,
    /// adding (or deleting) the named files in bucket 0: what
    /// [`RootFiles::with_ghosts_for_test`] takes.
    pub(crate) fn for_test<'a>(
        list: &str,
        manifest: &str,
        entries: &[(crate::paimon::manifest::FileKind, &'a str)],
    ) -> (Self, Vec<super::catalog::TestEntry<'a>>) {
        let g = GhostCommit {
            committer: "c".into(),
            lists: vec![format!("manifest/{list}")],
            entries: Default::default(),
            manifests: vec![format!("manifest/{manifest}")],
            sibling_snapshots: Vec::new(),
            modified: None,
            unreadable: Vec::new(),
        };
        let entries = entries
            .iter()
            .map(|&(kind, name)| (kind, &[][..], 0, name, 0, 5))
            .collect();
        (g, entries)
    }
}

#[cfg(test)]
impl RootFiles {
    /// These files with `ghosts`, their entries given as rows over the root's files (which
    /// this sets), for the unit tests of what reads ghost commits.
    pub(crate) fn with_ghosts_for_test(
        mut self,
        ghosts: Vec<(GhostCommit, Vec<super::catalog::TestEntry<'_>>)>,
    ) -> Self {
        let all: Vec<_> = ghosts.iter().flat_map(|(_, e)| e.iter().copied()).collect();
        let (catalog, mut rows) = super::catalog::rows_for_test(&all);
        self.catalog = catalog;
        for (mut g, entries) in ghosts {
            let rest = rows.split_off(entries.len().min(rows.len()));
            g.entries = std::mem::replace(&mut rows, rest).into();
            self.ghosts.push(g);
        }
        self
    }
}

#[cfg(test)]
impl BucketFiles {
    /// The files at these artifact paths (in path order), for the checks' unit tests.
    pub(crate) fn of_paths(paths: &[&str]) -> Self {
        let listing = Artifact::of_paths(paths).listing();
        let files = listing.len();
        let mut b = BucketFiles::of(listing);
        for i in 0..files {
            b.push(i);
        }
        b.finish();
        b
    }
}

/// Merges rows of `files` in order: ADD puts a file, DELETE removes it
/// (`FileEntry.mergeEntries`). The live rows come sorted by the identifier of a file in a
/// merge, `FileKey` (partition, bucket, level, name).
///
/// Equal identifiers are equal interned ids (see [`super::catalog`]), so the merge keys on
/// four integers and only the survivors are sorted by their bytes.
pub fn merge(files: &DataFiles, rows: impl Iterator<Item = EntryRow>) -> Vec<EntryRow> {
    let id = |r: EntryRow| {
        let f = files.entry(r).file();
        (r.partition_id(), r.bucket(), f.level(), f.name_id())
    };
    let mut live: foldhash::HashMap<(u32, i32, i32, u32), EntryRow> = Default::default();
    for r in rows {
        match r.kind() {
            FileKind::Add => {
                live.insert(id(r), r);
            }
            FileKind::Delete => {
                live.remove(&id(r));
            }
        }
    }
    let mut out: Vec<EntryRow> = live.into_values().collect();
    out.sort_unstable_by(|&a, &b| key(files.entry(a)).cmp(&key(files.entry(b))));
    out
}

/// How a missing data or changelog file inside the table directory is named in findings.
fn dangling_path(e: ManifestEntry<'_>) -> String {
    format!("bucket-{}/{}", e.bucket(), e.file().file_name())
}

/// A missing data file is needed by every snapshot it is live in, not only by the ends of the
/// timeline whose live sets were checked: from the snapshot that adds it (or the earliest,
/// when the earliest's live set needs it) up to the one whose delta deletes it. Adds those
/// snapshots as holders (counted once per file by the findings).
fn live_between_ends(
    files: &DataFiles,
    branch: &str,
    earliest: Option<i64>,
    missing_external: &HashMap<String, String>,
    bf: &mut BranchFiles,
) {
    let missing: HashSet<String> = bf
        .dangling
        .iter()
        .filter(|d| d.why == Unusable::Missing && d.kind == "data file")
        .map(|d| d.file.clone())
        .collect();
    if missing.is_empty() {
        return;
    }
    let mut live: HashSet<String> = bf
        .dangling
        .iter()
        .filter(|d| {
            d.why == Unusable::Missing
                && d.kind == "data file"
                && matches!(&d.holder, Holder::Snapshot { id, .. } if Some(*id) == earliest)
        })
        .map(|d| d.file.clone())
        .collect();
    let mut extra = Vec::new();
    for (id, f) in &bf.snapshots {
        for e in f.delta.iter(files) {
            let path = match e.file().external_path() {
                Some(uri) => match missing_external.get(uri) {
                    Some(p) => p.clone(),
                    None => continue,
                },
                None => dangling_path(e),
            };
            if !missing.contains(&path) {
                continue;
            }
            match e.kind() {
                FileKind::Add => {
                    live.insert(path);
                }
                FileKind::Delete => {
                    live.remove(&path);
                }
            }
        }
        for path in &live {
            extra.push(Dangling {
                holder: Holder::Snapshot {
                    branch: branch.to_string(),
                    id: *id,
                },
                kind: "data file",
                file: path.clone(),
                why: Unusable::Missing,
            });
        }
    }
    bf.dangling.extend(extra);
}

/// Whether `dir` (a path) is the directory of bucket `bucket`, `bucket-<bucket>` as Paimon
/// writes the number, or `bucket-postpone` for the postponed bucket -2. Compared without
/// formatting a name per entry (a wide table checks hundreds of thousands).
fn is_bucket_dir(dir: &str, bucket: i32) -> bool {
    use std::io::Write;
    let Some(n) = split_parent(dir).1.strip_prefix("bucket-") else {
        return false;
    };
    if n == "postpone" {
        return bucket == crate::paimon::schema::POSTPONE_BUCKET;
    }
    let mut buf = [0u8; 12]; // "-2147483648" is 11 bytes
    let mut w = &mut buf[..];
    let written = match write!(w, "{bucket}") {
        Ok(()) => 12 - w.len(),
        Err(_) => return false,
    };
    buf.get(..written) == Some(n.as_bytes())
}

/// Whether the file at `rel` (relative to the table root) is in a bucket directory
/// (`bucket-0/…`, `dt=1/bucket-3/…`).
pub(crate) fn in_bucket_dir(rel: &str) -> bool {
    let (dir, _) = split_parent(rel);
    let (_, last) = split_parent(dir);
    last.starts_with("bucket-")
}

fn orphan(root: &str, f: FileEntry<'_>, kind: OrphanKind) -> Orphan {
    Orphan {
        path: f.path(),
        relative: relative_to(root, &f.path()),
        kind,
        size: f.size(),
        modified: f.modified(),
    }
}

/// `<uuid>-<n>` → (`uuid`, n).
pub fn split_counter(s: &str) -> Option<(&str, u64)> {
    let (uuid, n) = s.rsplit_once('-')?;
    Some((uuid, n.parse().ok()?))
}

/// A manifest list's name after `manifest-list-` → (its committer's UUID, its place among that
/// committer's lists): Java numbers every list `<uuid>-<n>`; pypaimon 2.x numbers the base and
/// delta lists and names the changelog list `<uuid>-changelog` (`paimon-format.md` §1.2), placed
/// after the numbered ones.
pub fn split_list_name(s: &str) -> Option<(&str, u64)> {
    match s.strip_suffix("-changelog") {
        Some(uuid) if !uuid.is_empty() => Some((uuid, u64::MAX)),
        _ => split_counter(s),
    }
}

/// `path` relative to `root`.
pub fn relative_to(root: &str, path: &str) -> String {
    relative(root, path).to_string()
}

/// [`relative_to`], borrowed from `path`.
fn relative<'p>(root: &str, path: &'p str) -> &'p str {
    if root.is_empty() {
        return path;
    }
    path.strip_prefix(root)
        .and_then(|p| p.strip_prefix('/'))
        .unwrap_or(path)
}

/// The UUID part of a data or changelog file name (`data-<uuid>-<n>.parquet`), which Paimon
/// draws once per writer instance (`DataFilePathFactory`): files sharing it were written by the
/// same writer of one partition and bucket.
pub fn writer_uuid(file_name: &str) -> Option<&str> {
    let stem = file_name.split('.').next()?;
    let rest = stem
        .strip_prefix("changelog-")
        .or_else(|| stem.strip_prefix("data-"))
        .unwrap_or(stem);
    let (uuid, n) = rest.rsplit_once('-')?;
    n.parse::<u64>().ok()?;
    (uuid.len() == 36).then_some(uuid)
}

/// The directory (relative to the root) holding a file of a manifest entry, if present.
pub fn entry_dir(root_files: &RootFiles, root: &str, e: ManifestEntry<'_>) -> Option<String> {
    root_files
        .data_files_by_name
        .dirs(e.file().file_name())
        .next()
        .map(|dir| relative_to(root, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name that shares another's hash (its high half, and so its first slot) is told apart
    /// by its text: neither `dirs`, `find` nor `find_all` answer for a file of another name.
    #[test]
    fn a_bucket_file_name_sharing_anothers_hash_is_told_apart_by_its_text() {
        use std::hash::BuildHasher;
        let artifact = crate::source::Artifact::of_paths(&["t/bucket-0/data-a.parquet"]);
        let mut files = BucketFiles::of(artifact.listing());
        files.push(0);
        files.finish();
        assert_eq!(
            files.dirs("data-a.parquet").collect::<Vec<_>>(),
            ["t/bucket-0"]
        );
        assert_eq!(files.find("data-a.parquet"), Some(0));
        // Move data-a.parquet to the first slot of data-b.parquet, under b's high half.
        let hash = files.hasher.hash_one("data-b.parquet");
        let mask = files.table.len() - 1;
        let held = files.table.iter_mut().find(|(_, f)| *f != 0).unwrap();
        let f = std::mem::take(held).1;
        *files.table.get_mut(hash as usize & mask).unwrap() = ((hash >> 32) as u32, f);
        assert_eq!(files.dirs("data-b.parquet").count(), 0);
        assert_eq!(files.find("data-b.parquet"), None);
        assert_eq!(files.find_all(["data-b.parquet"].into_iter()), [None]);
    }

    /// A name is referenced as a file (by its catalog id) or as another file's extra file
    /// (by its text), either alone; a file recorded twice is new only the first time.
    #[test]
    fn referenced_names_answer_for_files_and_extra_files_alone() {
        use crate::timeline::catalog::rows_for_test;
        let add = FileKind::Add;
        let (files, rows) = rows_for_test(&[(add, b"p", 0, "a", 0, 0), (add, b"p", 0, "b", 0, 0)]);
        let file = |i: usize| files.entry(rows[i]).file();
        let mut r = ReferencedNames::default();
        assert!(r.insert(file(0)));
        assert!(!r.insert(file(0)));
        assert!(r.contains_file(file(0)));
        assert!(!r.contains_file(file(1)));
        r.extra.insert("b".into());
        assert!(r.contains_file(file(1)));
    }

    #[test]
    fn the_latest_live_set_answers_by_partition_bucket_name_and_level() {
        use crate::timeline::catalog::rows_for_test;
        let (add, del) = (FileKind::Add, FileKind::Delete);
        let (files, history) = rows_for_test(&[
            (add, b"p1", 0, "a", 0, 0),
            (add, b"p1", 0, "b", 0, 0),
            (add, b"p1", 1, "a", 0, 0),
            (add, b"p2", 0, "c", 0, 0),
            // compaction upgrades b to level 3 under the same name, and c to level 1
            (del, b"p1", 0, "b", 0, 0),
            (add, b"p1", 0, "b", 3, 0),
            (del, b"p2", 0, "c", 0, 0),
            (add, b"p2", 0, "c", 1, 0),
            (add, b"p2", 0, "d", 5, 0),
            (del, b"p1", 1, "a", 0, 0),
        ]);
        let live = merge(&files, history.iter().copied());
        let keys: Vec<(&[u8], i32, i32, &str)> =
            live.iter().map(|&r| key(files.entry(r))).collect();
        assert_eq!(
            keys,
            [
                (&b"p1"[..], 0, 0, "a"),
                (b"p1", 0, 3, "b"),
                (b"p2", 0, 1, "c"),
                (b"p2", 0, 5, "d")
            ],
            "the live set, sorted by the identifier of a file in a merge"
        );
        let b = BranchFiles {
            catalog: files,
            live_latest: Some(live),
            ..BranchFiles::default()
        };
        // Probes from other files: compared by their fields.
        let probes: [(&[u8], i32, &str); 8] = [
            (b"p1", 0, "a"),
            (b"p1", 0, "b"),
            (b"p1", 1, "a"),
            (b"p2", 0, "c"),
            (b"p2", 0, "d"),
            (b"p2", 0, "a"),
            (b"p3", 0, "a"),
            (b"p2", 1, "c"),
        ];
        let (probe_files, rows) = rows_for_test(
            &probes
                .iter()
                .map(|&(p, bucket, n)| (add, p, bucket, n, 0, 0))
                .collect::<Vec<_>>(),
        );
        let answers: Vec<(Option<bool>, Option<bool>)> = rows
            .iter()
            .map(|&r| {
                let x = probe_files.entry(r);
                (b.live_at_latest(x), b.live_at_level0(x))
            })
            .collect();
        let (t, f) = (Some(true), Some(false));
        assert_eq!(
            answers,
            [
                (t, t),
                (t, f),
                (f, f),
                (t, f),
                (t, f),
                (f, f),
                (f, f),
                (f, f)
            ]
        );
        let unknown = BranchFiles::default();
        let x = probe_files.entry(rows[0]);
        assert_eq!(
            (unknown.live_at_latest(x), unknown.live_at_level0(x)),
            (None, None)
        );
    }

    #[test]
    fn bucket_dirs_are_matched_as_paimon_names_them() {
        assert!(in_bucket_dir("bucket-0/changelog-1.parquet"));
        assert!(in_bucket_dir("dt=1/bucket-3/data-1.parquet"));
        for not_in_one in [
            "changelog-1.parquet",
            "changelog/changelog-1",
            "index/index-1",
        ] {
            assert!(!in_bucket_dir(not_in_one), "{not_in_one}");
        }
        assert!(is_bucket_dir("t/p=1/bucket-7", 7));
        assert!(is_bucket_dir("bucket-0", 0));
        assert!(is_bucket_dir("t/bucket--1", -1));
        assert!(is_bucket_dir("t/bucket-postpone", -2));
        assert!(is_bucket_dir("t/bucket--2", -2));
        assert!(is_bucket_dir("t/bucket-2147483647", i32::MAX));
        assert!(is_bucket_dir("t/bucket--2147483648", i32::MIN));
        for (dir, bucket) in [
            ("t/bucket-07", 7),
            ("t/bucket-+7", 7),
            ("t/bucket-7", 17),
            ("t/bucket-17", 7),
            ("t/bucket-postpone", 2),
            ("t/buckets-7", 7),
            ("t/bucket-7/x", 7),
            ("t/bucket-", 0),
        ] {
            assert!(!is_bucket_dir(dir, bucket), "{dir} is not bucket {bucket}");
        }
    }

    #[test]
    fn bucket_files_find_every_copy_of_a_name_in_path_order() {
        let paths: Vec<String> = (0..3000)
            .map(|i| format!("t/p={}/bucket-{}/data-{}.parquet", i % 7, i % 5, i % 1000))
            .collect();
        let mut sorted = paths.clone();
        sorted.sort();
        let files = BucketFiles::of_paths(&sorted.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(files.len(), 3000);
        for n in [0, 1, 499, 999] {
            let name = format!("data-{n}.parquet");
            let want: Vec<&str> = sorted
                .iter()
                .filter(|p| split_parent(p).1 == name)
                .map(|p| split_parent(p).0)
                .collect();
            assert_eq!(want.len(), 3);
            assert_eq!(files.dirs(&name).collect::<Vec<_>>(), want, "{name}");
            assert_eq!(files.first_path(&name), Some(join(want[0], &name)));
        }
        assert_eq!(files.dirs("data-1000.parquet").count(), 0);
        assert_eq!(BucketFiles::default().dirs("x").count(), 0);
        // Looked up all at once, as one by one, present or not.
        let names: Vec<String> = (0..1200).map(|n| format!("data-{n}.parquet")).collect();
        let one_by_one: Vec<Option<u32>> = names.iter().map(|n| files.find(n)).collect();
        assert_eq!(files.find_all(names.iter().map(String::as_str)), one_by_one);
        assert_eq!(one_by_one.iter().flatten().count(), 1000);
        assert_eq!(
            BucketFiles::default().find_all(["x", "y"].into_iter()),
            [None, None]
        );
    }

    #[test]
    fn writer_uuids() {
        assert_eq!(
            writer_uuid("changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet"),
            Some("af6d83bc-7cb7-4403-9e65-e1f162b23c84")
        );
        assert_eq!(
            writer_uuid("data-077642f7-b518-4896-a556-da7bd91a7462-12.orc"),
            Some("077642f7-b518-4896-a556-da7bd91a7462")
        );
        assert_eq!(writer_uuid("readme.txt"), None);
        assert_eq!(
            split_counter("c79efd78-7b5c-468f-a273-8155be9403e2-4"),
            Some(("c79efd78-7b5c-468f-a273-8155be9403e2", 4))
        );
        assert_eq!(
            split_list_name("c79efd78-7b5c-468f-a273-8155be9403e2-changelog"),
            Some(("c79efd78-7b5c-468f-a273-8155be9403e2", u64::MAX))
        );
        assert_eq!(
            split_list_name("c79efd78-7b5c-468f-a273-8155be9403e2-1"),
            Some(("c79efd78-7b5c-468f-a273-8155be9403e2", 1))
        );
        assert_eq!(split_list_name("-changelog"), None);
    }
}
