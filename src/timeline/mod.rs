//! The reconstructed history of one table or branch.
//!
//! [`Timeline::load`] reads everything of one [`TableLocation`] that the checks need: schemas
//! and options, every snapshot, the hints, leftover temp files, consumers, tags and long-lived
//! changelogs. A file that cannot be read or parsed is kept as a [`FileProblem`] (it becomes an
//! `unreadable-file` finding) and the rest is loaded regardless. Other files in those
//! directories (a Hadoop `.crc` beside each file, a copy someone left) are not Paimon's and are
//! skipped.
//!
//! [`groups`] groups snapshots into commits; [`files`] resolves their manifests into the file
//! graph.

pub mod catalog;
pub mod entries;
pub mod external;
pub mod files;
pub mod groups;
pub mod prefetch;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::paimon::consumer::{Consumer, CONSUMER_PREFIX};
use crate::paimon::hint::parse_hint;
use crate::paimon::schema::{TableOptions, TableSchema};
use crate::paimon::snapshot::{id_from_file_name, temp_file_id, temp_snapshot_id, Snapshot};
use crate::paimon::tag::{Tag, TAG_PREFIX};
use crate::source::{Artifact, FileEntry, FileTime};
use crate::warehouse::{split_parent, TableLocation};

/// A snapshot-shaped document (snapshot, long-lived changelog) and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotFile {
    /// The parsed snapshot.
    pub snapshot: Snapshot,
    /// Its artifact path.
    pub path: String,
    /// Its modification time, as the artifact records it.
    pub modified: Option<FileTime>,
}

/// A hint file and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// Artifact path.
    pub path: String,
    /// The id, or `None` if unreadable (the problem is in [`Timeline::problems`]).
    pub value: Option<i64>,
}

/// A consumer file and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerFile {
    /// The consumer id.
    pub id: String,
    /// Artifact path.
    pub path: String,
    /// Modification time (the file is overwritten on every progress update).
    pub modified: Option<FileTime>,
    /// The parsed content, or why it could not be read.
    pub consumer: Result<Consumer, Error>,
}

impl ConsumerFile {
    /// The consumer's `nextSnapshot`, if the file is readable.
    pub fn next_snapshot(&self) -> Option<i64> {
        self.consumer.as_ref().ok().map(|c| c.next_snapshot)
    }
}

/// A tag file and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct TagFile {
    /// The tag name.
    pub name: String,
    /// Artifact path.
    pub path: String,
    /// The parsed tag, or why it could not be read.
    pub tag: Result<Tag, Error>,
}

/// A leftover `.snapshot-<id>.<uuid>.tmp`, or one of pypaimon's names for it
/// ([`crate::paimon::snapshot::temp_snapshot_id`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TempSnapshotFile {
    /// Artifact path.
    pub path: String,
    /// The snapshot id it was going to become.
    pub id: i64,
    /// Its size in bytes.
    pub size: u64,
    /// Modification time.
    pub modified: Option<FileTime>,
    /// The snapshot it holds, if readable (a temp file is the snapshot JSON that was never
    /// renamed into place).
    pub content: Option<Snapshot>,
}

/// A leftover `schema/.schema-<id>.<uuid>.tmp`: the schema an `ALTER TABLE` wrote and did not
/// rename into place (`paimon-format.md` §1.5).
#[derive(Debug, Clone, PartialEq)]
pub struct TempSchemaFile {
    /// Artifact path.
    pub path: String,
    /// The schema id it was going to become.
    pub id: i64,
    /// Its size in bytes.
    pub size: u64,
    /// The schema it holds, if readable (a write cut short leaves part of it).
    pub content: Option<TableSchema>,
}

/// A file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct FileProblem {
    /// Artifact path.
    pub path: String,
    /// What went wrong.
    pub error: Error,
}

/// Everything known about one table or branch.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Where it is.
    pub location: TableLocation,
    /// Schemas by id.
    pub schemas: BTreeMap<i64, TableSchema>,
    /// Options of the latest schema, with defaults.
    pub options: TableOptions,
    /// Snapshots by id.
    pub snapshots: BTreeMap<i64, SnapshotFile>,
    /// Ids of every `snapshot-<id>` file present, readable or not.
    pub present_ids: BTreeSet<i64>,
    /// `snapshot/EARLIEST`.
    pub earliest_hint: Option<Hint>,
    /// `snapshot/LATEST`.
    pub latest_hint: Option<Hint>,
    /// Leftover snapshot temp files.
    pub temp_files: Vec<TempSnapshotFile>,
    /// Leftover schema temp files.
    pub schema_temp_files: Vec<TempSchemaFile>,
    /// Consumers, by id.
    pub consumers: Vec<ConsumerFile>,
    /// Tags, by name.
    pub tags: Vec<TagFile>,
    /// Long-lived changelogs (`changelog/changelog-<id>`), by id.
    pub long_lived_changelogs: BTreeMap<i64, SnapshotFile>,
    /// Files that could not be read or parsed.
    pub problems: Vec<FileProblem>,
}

impl Timeline {
    /// Loads one table or branch. Never fails: what cannot be read is recorded in `problems`.
    pub fn load(artifact: &Artifact, location: &TableLocation) -> Timeline {
        let mut l = Loader {
            artifact,
            max_json: artifact.limits().max_json_bytes,
            t: Timeline {
                location: location.clone(),
                schemas: BTreeMap::new(),
                options: TableOptions::from_map(&BTreeMap::new(), 3),
                snapshots: BTreeMap::new(),
                present_ids: BTreeSet::new(),
                earliest_hint: None,
                latest_hint: None,
                temp_files: Vec::new(),
                schema_temp_files: Vec::new(),
                consumers: Vec::new(),
                tags: Vec::new(),
                long_lived_changelogs: BTreeMap::new(),
                problems: Vec::new(),
            },
        };
        l.schemas();
        l.snapshot_dir();
        l.consumers();
        l.tags();
        l.changelog_dir();
        l.finish()
    }

    /// Ids of snapshot files that are present but could not be read or parsed.
    pub fn unreadable_ids(&self) -> Vec<i64> {
        self.present_ids
            .iter()
            .copied()
            .filter(|id| !self.snapshots.contains_key(id))
            .collect()
    }

    /// For each unreadable snapshot, the time window in which the files it references were
    /// written: after the previous readable snapshot's commit, up to the next readable one's
    /// (open ends are `None`).
    pub fn unreadable_windows(&self) -> Vec<(i64, Option<i64>, Option<i64>)> {
        self.unreadable_ids()
            .into_iter()
            .map(|id| {
                let before = self
                    .snapshots
                    .range(..id)
                    .next_back()
                    .map(|(_, s)| s.snapshot.time_millis);
                let after = self
                    .snapshots
                    .range(id..)
                    .next()
                    .map(|(_, s)| s.snapshot.time_millis);
                (id, before, after)
            })
            .collect()
    }

    /// Whether a tag or long-lived changelog file could not be read: the files it keeps alive
    /// are then unknown.
    pub fn has_unreadable_holders(&self) -> bool {
        self.tags.iter().any(|t| t.tag.is_err())
            || self.problems.iter().any(|p| {
                let (dir, _) = split_parent(&p.path);
                dir.ends_with("/changelog") || dir == "changelog"
            })
    }

    /// The latest schema, if any was readable.
    pub fn latest_schema(&self) -> Option<&TableSchema> {
        self.schemas.values().next_back()
    }

    /// The schema ids readable snapshots name that were not read (their file absent or
    /// unreadable), each with the snapshots naming it.
    pub fn unread_schemas(&self) -> BTreeMap<i64, Vec<i64>> {
        let mut out: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        for (id, s) in &self.snapshots {
            if !self.schemas.contains_key(&s.snapshot.schema_id) {
                out.entry(s.snapshot.schema_id).or_default().push(*id);
            }
        }
        out
    }

    /// Whether [`Self::options`] are the table's current options: a schema was read, and no
    /// readable snapshot names a newer schema than the latest read (Paimon's schemas only grow,
    /// and a snapshot is written under the latest schema of its time, `paimon-format.md` §1.5).
    /// When not, the checks that rest on the options are not made.
    pub fn options_known(&self) -> bool {
        let Some(latest) = self.schemas.keys().next_back() else {
            return false;
        };
        self.snapshots
            .values()
            .all(|s| s.snapshot.schema_id <= *latest)
    }

    /// The lowest snapshot id present (from file names, readable or not).
    pub fn earliest(&self) -> Option<i64> {
        self.present_ids.first().copied()
    }

    /// The runs of snapshot ids missing between the earliest and the latest present, as
    /// (first, last), ascending (`paimon-format.md` §1.4: Paimon's commits and expiration leave
    /// none).
    pub fn holes(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.present_ids
            .iter()
            .zip(self.present_ids.iter().skip(1))
            .filter(|(a, b)| **b > a.saturating_add(1))
            .map(|(a, b)| (a.saturating_add(1), b.saturating_sub(1)))
    }

    /// The highest snapshot id present (from file names, readable or not).
    pub fn latest(&self) -> Option<i64> {
        self.present_ids.last().copied()
    }

    /// A snapshot by id.
    pub fn snapshot(&self, id: i64) -> Option<&Snapshot> {
        self.snapshots.get(&id).map(|s| &s.snapshot)
    }

    /// The earliest snapshot Paimon's readers and expiration see: the `EARLIEST` hint when its
    /// snapshot file exists (they look no lower, even when older snapshot files are left), else
    /// the oldest present (`SnapshotManager.findEarliest`, `paimon-format.md` §1.4).
    pub fn earliest_for_readers(&self) -> Option<i64> {
        let hinted = self
            .earliest_hint
            .as_ref()
            .and_then(|h| h.value)
            .filter(|v| self.present_ids.contains(v));
        hinted.or_else(|| self.earliest())
    }

    /// The earliest position a streaming reader can still read from: the earliest long-lived
    /// changelog when the changelog lifecycle is decoupled and one exists, else the earliest
    /// snapshot Paimon's readers see ([`Timeline::earliest_for_readers`]; `paimon-format.md`
    /// §1.6, §5.5).
    pub fn earliest_readable(&self) -> Option<i64> {
        let earliest_snapshot = self.earliest_for_readers();
        match self.long_lived_changelogs.keys().next().copied() {
            Some(c) => Some(earliest_snapshot.map_or(c, |s| s.min(c))),
            None => earliest_snapshot,
        }
    }
}

/// The files directly in `dir`.
fn children<'a>(artifact: &'a Artifact, dir: &str) -> Vec<FileEntry<'a>> {
    artifact
        .files_under(dir)
        .iter()
        .filter(|f| f.dir() == dir)
        .collect()
}

/// [`Timeline::load`]'s state: one method per metadata directory, each adding what it read to
/// the timeline and what it could not read to its problems.
struct Loader<'a> {
    artifact: &'a Artifact,
    max_json: u64,
    t: Timeline,
}

impl Loader<'_> {
    /// The bytes of a metadata file, or its read error recorded.
    fn read_json(&mut self, entry: FileEntry<'_>) -> Option<Vec<u8>> {
        match self.artifact.read_entry(entry, self.max_json) {
            Ok(bytes) => Some(bytes),
            Err(error) => {
                self.problem(entry, error);
                None
            }
        }
    }

    fn problem(&mut self, entry: FileEntry<'_>, error: Error) {
        self.t.problems.push(FileProblem {
            path: entry.path(),
            error,
        });
    }

    /// A `snapshot/EARLIEST` or `snapshot/LATEST` hint file; a value that does not parse is a
    /// problem of the file.
    fn hint(&mut self, entry: FileEntry<'_>) -> Hint {
        let value = self.read_json(entry).and_then(|b| match parse_hint(&b) {
            Ok(v) => Some(v),
            Err(error) => {
                self.problem(entry, error);
                None
            }
        });
        Hint {
            path: entry.path(),
            value,
        }
    }

    /// A consumer or tag file, parsed; its read or parse error names the file.
    fn read_parsed<T>(
        &self,
        entry: FileEntry<'_>,
        parse: fn(&[u8]) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.artifact
            .read_entry(entry, self.max_json)
            .and_then(|bytes| parse(&bytes))
            .map_err(|e| e.in_file(entry.path()))
    }

    /// `schema/schema-N`, and temp files of schemas not renamed into place.
    fn schemas(&mut self) {
        for entry in children(self.artifact, &self.t.location.meta_dir("schema")) {
            let name = entry.name();
            if id_from_file_name(name, "schema-").is_none() {
                if let Some(id) = temp_file_id(name, "schema-") {
                    let content = self.temp_content(entry, TableSchema::parse);
                    self.t.schema_temp_files.push(TempSchemaFile {
                        path: entry.path(),
                        id,
                        size: entry.size(),
                        content,
                    });
                }
                continue;
            }
            if let Some(bytes) = self.read_json(entry) {
                match TableSchema::parse(&bytes) {
                    Ok(s) => {
                        self.t.schemas.insert(s.id, s);
                    }
                    Err(error) => self.problem(entry, error),
                }
            }
        }
    }

    /// What a temp file of an atomic write holds, if it parses. A partial write is expected
    /// there, so an unreadable or unparsable one is not a problem.
    fn temp_content<T>(
        &self,
        entry: FileEntry<'_>,
        parse: impl FnOnce(&[u8]) -> Result<T, Error>,
    ) -> Option<T> {
        let bytes = self.artifact.read_entry(entry, self.max_json).ok()?;
        parse(&bytes).ok()
    }

    /// `snapshot/`: `snapshot-N`, the `EARLIEST` and `LATEST` hints, temp files.
    fn snapshot_dir(&mut self) {
        for entry in children(self.artifact, &self.t.location.meta_dir("snapshot")) {
            let name = entry.name();
            if let Some(id) = id_from_file_name(name, "snapshot-") {
                self.snapshot(entry, id);
            } else if name == "EARLIEST" || name == "LATEST" {
                let hint = Some(self.hint(entry));
                if name == "EARLIEST" {
                    self.t.earliest_hint = hint;
                } else {
                    self.t.latest_hint = hint;
                }
            } else if let Some(id) = temp_snapshot_id(name) {
                let content = self.temp_content(entry, Snapshot::parse);
                self.t.temp_files.push(TempSnapshotFile {
                    path: entry.path(),
                    id,
                    size: entry.size(),
                    modified: entry.modified(),
                    content,
                });
            }
        }
    }

    /// `snapshot/snapshot-<id>`: it must hold snapshot `id`.
    fn snapshot(&mut self, entry: FileEntry<'_>, id: i64) {
        self.t.present_ids.insert(id);
        let Some(bytes) = self.read_json(entry) else {
            return;
        };
        match Snapshot::parse(&bytes) {
            Ok(snapshot) if snapshot.id == id => {
                self.t.snapshots.insert(
                    id,
                    SnapshotFile {
                        snapshot,
                        path: entry.path(),
                        modified: entry.modified(),
                    },
                );
            }
            Ok(snapshot) => self.problem(
                entry,
                Error::format(format!(
                    "the file is named for snapshot {id} but holds snapshot {}",
                    snapshot.id
                )),
            ),
            Err(error) => self.problem(entry, error),
        }
    }

    /// `consumer/consumer-<id>`: kept with its parse result, readable or not.
    fn consumers(&mut self) {
        for entry in children(self.artifact, &self.t.location.meta_dir("consumer")) {
            let name = entry.name();
            let Some(id) = name.strip_prefix(CONSUMER_PREFIX) else {
                continue;
            };
            let consumer = self.read_parsed(entry, Consumer::parse);
            self.t.consumers.push(ConsumerFile {
                id: id.to_string(),
                path: entry.path(),
                modified: entry.modified(),
                consumer,
            });
        }
    }

    /// `tag/tag-<name>`: kept with its parse result, readable or not.
    fn tags(&mut self) {
        for entry in children(self.artifact, &self.t.location.meta_dir("tag")) {
            let name = entry.name();
            let Some(tag_name) = name.strip_prefix(TAG_PREFIX) else {
                continue;
            };
            let tag = self.read_parsed(entry, Tag::parse);
            self.t.tags.push(TagFile {
                name: tag_name.to_string(),
                path: entry.path(),
                tag,
            });
        }
    }

    /// `changelog/`: the long-lived `changelog-N` files. Their `EARLIEST` and `LATEST` hints
    /// are not read: like the snapshot hints, Paimon trusts one only when the file it names
    /// exists and lists the directory otherwise (`paimon-format.md` §1.4, §1.6), and no check
    /// judges them.
    fn changelog_dir(&mut self) {
        for entry in children(self.artifact, &self.t.location.meta_dir("changelog")) {
            let name = entry.name();
            if let Some(id) = id_from_file_name(name, "changelog-") {
                let Some(bytes) = self.read_json(entry) else {
                    continue;
                };
                match Snapshot::parse(&bytes) {
                    Ok(snapshot) => {
                        self.t.long_lived_changelogs.insert(
                            id,
                            SnapshotFile {
                                snapshot,
                                path: entry.path(),
                                modified: entry.modified(),
                            },
                        );
                    }
                    Err(error) => self.problem(entry, error),
                }
            }
        }
    }

    /// Problems named by file and everything in path order; the options of the latest schema.
    fn finish(self) -> Timeline {
        let mut t = self.t;
        for p in &mut t.problems {
            p.error = p.error.clone().in_file(p.path.clone());
        }
        t.consumers.sort_by(|a, b| a.id.cmp(&b.id));
        t.tags.sort_by(|a, b| a.name.cmp(&b.name));
        t.temp_files.sort_by(|a, b| a.path.cmp(&b.path));
        t.problems.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(s) = t.schemas.values().next_back() {
            t.options = s.table_options().clone();
        }
        t
    }
}

/// Builds small in-memory tables for unit tests of the checks.
#[cfg(test)]
pub(crate) mod testkit {
    use std::rc::Rc;

    use super::Timeline;
    use crate::limits::Limits;
    use crate::source::{Artifact, HostFile, Input};
    use crate::warehouse::discover;

    /// A table `db.db/t` with the given options, snapshots (id, kind, user, identifier,
    /// time ms) and consumers (id, nextSnapshot).
    pub fn timeline(
        options: &[(&str, &str)],
        snapshots: &[(i64, &str, &str, i64, i64)],
        consumers: &[(&str, i64)],
    ) -> Timeline {
        timeline_with_files(options, snapshots, consumers, &[])
    }

    /// [`timeline`], with more files of the table (path under `db.db/t/`, content), e.g. an
    /// unreadable snapshot.
    pub fn timeline_with_files(
        options: &[(&str, &str)],
        snapshots: &[(i64, &str, &str, i64, i64)],
        consumers: &[(&str, i64)],
        raw: &[(&str, &str)],
    ) -> Timeline {
        timelines_with_files(options, snapshots, consumers, raw).remove(0)
    }

    /// [`timeline_with_files`], every timeline of the table: main, then its branches by name
    /// (files under `db.db/t/branch/branch-<name>/`).
    pub fn timelines_with_files(
        options: &[(&str, &str)],
        snapshots: &[(i64, &str, &str, i64, i64)],
        consumers: &[(&str, i64)],
        raw: &[(&str, &str)],
    ) -> Vec<Timeline> {
        let mut files = Vec::new();
        let mut add = |path: String, body: String| {
            files.push(HostFile {
                path,
                modified_millis: Some(0),
                data: Rc::new(body.into_bytes()),
            })
        };
        let opts: Vec<String> = options
            .iter()
            .map(|(k, v)| format!("{k:?}: {v:?}"))
            .collect();
        add(
            "db.db/t/schema/schema-0".into(),
            format!(
                r#"{{"version": 3, "id": 0, "fields": [{{"id": 0, "name": "k", "type": "INT NOT NULL"}}], "partitionKeys": [], "primaryKeys": ["k"], "options": {{{}}}}}"#,
                opts.join(", ")
            ),
        );
        for (id, kind, user, ident, time) in snapshots {
            add(
                format!("db.db/t/snapshot/snapshot-{id}"),
                format!(
                    r#"{{"version": 3, "id": {id}, "schemaId": 0, "baseManifestList": "b-{id}", "deltaManifestList": "d-{id}", "commitUser": "{user}", "commitIdentifier": {ident}, "commitKind": "{kind}", "timeMillis": {time}, "deltaRecordCount": 1}}"#
                ),
            );
        }
        for (id, next) in consumers {
            add(
                format!("db.db/t/consumer/consumer-{id}"),
                format!(r#"{{"nextSnapshot": {next}}}"#),
            );
        }
        for (path, body) in raw {
            add(format!("db.db/t/{path}"), (*body).to_string());
        }
        let artifact = Artifact::open(
            vec![Input::Folder {
                name: "t".into(),
                files,
                skipped: 0,
            }],
            &Limits::default(),
        )
        .unwrap();
        discover(&artifact)
            .tables
            .iter()
            .map(|location| Timeline::load(&artifact, location))
            .collect()
    }
}
