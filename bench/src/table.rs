//! The synthetic Paimon 0.9 table: what Java Paimon's streaming writer with
//! `changelog-producer = lookup` (and `lookup-wait`) leaves behind, commit by commit.
//!
//! Per commit (checkpoint) two snapshots with the same `commitUser` and `commitIdentifier`:
//!
//! * APPEND: one level-0 data file per partition and bucket; base list = the previous snapshot's
//!   base + delta manifests, merged as `ManifestFileMerger.tryMinorCompaction` does (appended
//!   until `manifest.merge-min-count` = 30 files, then merged into one, ADD/DELETE pairs
//!   cancelling); delta list = one new manifest; no changelog list.
//! * COMPACT: per bucket the level-0 file is upgraded to level 4 (DELETE L0 + ADD L4, same file)
//!   or, every fourth commit, merged with the bucket's level-4 and level-5 files into a new
//!   level-5 file; one changelog file per bucket (the lookup changelog); delta, changelog and base
//!   lists.
//!
//! Plus `schema/schema-0`, `snapshot/EARLIEST` + `LATEST`, consumers, tags (copies of their
//! snapshot), branches created from a tag with commits of their own (`branch/branch-<name>/`,
//! manifests in the shared `manifest/`), and padding: data files that are large but cost
//! nothing (zeros written as holes), half referenced by manifests and half unreferenced.

use std::collections::HashMap;
use std::rc::Rc;

use crate::avro::{container, Enc, MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA};
use crate::binrow::{binary_row, Field};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Config {
    /// The top directory of the artifact (the "warehouse" folder name).
    pub name: String,
    pub table: String,
    pub commits: u32,
    pub buckets: u32,
    /// 0 = not partitioned; else an `INT` partition column `part` with this many values.
    pub partitions: u32,
    pub consumers: u32,
    pub tags: u32,
    pub branches: u32,
    pub branch_commits: u32,
    /// Total bytes of the padding files (0 = they are small, like the other data files).
    pub padding: u64,
    /// How many padding files (half referenced, half unreferenced).
    pub padding_files: u32,
    pub merge_min_count: usize,
    pub seed: u64,
    pub start_millis: i64,
}

/// One generated file.
pub enum Content {
    Bytes(Vec<u8>),
    Zeros(u64),
}

pub struct OutFile {
    pub path: String,
    pub content: Content,
    pub mtime_ms: i64,
    /// Padding files go first into the zip, so every other entry lies past them.
    pub padding: bool,
}

/// Counts for the summary.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub snapshots: u64,
    pub manifest_lists: u64,
    pub manifests: u64,
    pub data_files: u64,
    pub metadata_bytes: u64,
    pub data_bytes: u64,
    pub latest: i64,
}

const SUGGESTED_META_SIZE: u64 = 8 * 1024 * 1024;
const KEY_SPACE: i64 = 5000;

#[derive(Debug, Clone)]
struct DataFile {
    name: String,
    size: u64,
    rows: i64,
    min_key: i64,
    max_key: i64,
    min_seq: i64,
    max_seq: i64,
    level: i32,
    created: i64,
    source: i32,
    value: String,
}

#[derive(Debug, Clone)]
struct Entry {
    add: bool,
    part: u32,
    bucket: u32,
    file: Rc<DataFile>,
}

impl Entry {
    fn key(&self) -> (u32, u32, i32, String) {
        (
            self.part,
            self.bucket,
            self.file.level,
            self.file.name.clone(),
        )
    }
}

#[derive(Debug)]
struct Manifest {
    name: String,
    size: u64,
    added: i64,
    deleted: i64,
    part_min: u32,
    part_max: u32,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Default)]
struct Bucket {
    l0: Option<Rc<DataFile>>,
    upper: Vec<Rc<DataFile>>,
    top: Option<Rc<DataFile>>,
    next_seq: i64,
}

/// The state of one branch's latest snapshot.
#[derive(Debug, Clone)]
struct Line {
    base: Vec<Rc<Manifest>>,
    delta: Vec<Rc<Manifest>>,
    buckets: Vec<Bucket>,
    total: i64,
    latest: i64,
    /// `snapshot/` directory of this line, relative to the table root.
    snapshot_dir: String,
}

/// One writing process: its commit user and the UUIDs its file names carry.
struct Session {
    user: String,
    manifest_uuid: String,
    manifest_n: u64,
    list_uuid: String,
    list_n: u64,
    data_uuid: Vec<String>,
    changelog_uuid: Vec<String>,
    file_n: Vec<u64>,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uuid(&mut self) -> String {
        let a = self.next();
        let b = self.next();
        let h = format!("{a:016x}{b:016x}");
        format!(
            "{}-{}-4{}-{}{}-{}",
            &h[0..8],
            &h[8..12],
            &h[13..16],
            ["8", "9", "a", "b"][(b & 3) as usize],
            &h[17..20],
            &h[20..32]
        )
    }

    fn sync(&mut self) -> [u8; 16] {
        let mut s = [0u8; 16];
        s[..8].copy_from_slice(&self.next().to_le_bytes());
        s[8..].copy_from_slice(&self.next().to_le_bytes());
        s
    }
}

pub struct Generator {
    cfg: Config,
    rng: Rng,
    clock: i64,
    root: String,
    pub files: Vec<OutFile>,
    pub summary: Summary,
    /// Data files still to be created as referenced padding.
    referenced_padding_left: u32,
    padding_file_size: u64,
    hints: std::collections::BTreeMap<String, (String, i64)>,
}

impl Generator {
    pub fn new(cfg: Config) -> Self {
        let root = format!("{}/db.db/{}", cfg.name, cfg.table);
        let padding_files = cfg.padding_files.max(2);
        let padding_file_size = if cfg.padding == 0 {
            1290
        } else {
            cfg.padding / u64::from(padding_files)
        };
        Generator {
            rng: Rng(cfg.seed),
            clock: cfg.start_millis,
            root,
            files: Vec::new(),
            summary: Summary::default(),
            referenced_padding_left: padding_files / 2,
            padding_file_size,
            hints: Default::default(),
            cfg,
        }
    }

    fn parts(&self) -> u32 {
        self.cfg.partitions.max(1)
    }

    fn slots(&self) -> usize {
        (self.parts() * self.cfg.buckets) as usize
    }

    fn emit(&mut self, rel: &str, data: Vec<u8>, metadata: bool) {
        let n = data.len() as u64;
        if metadata {
            self.summary.metadata_bytes += n;
        } else {
            self.summary.data_bytes += n;
        }
        self.files.push(OutFile {
            path: format!("{}/{rel}", self.root),
            content: Content::Bytes(data),
            mtime_ms: self.clock,
            padding: false,
        });
    }

    fn emit_zeros(&mut self, rel: &str, size: u64, padding: bool) {
        self.summary.data_bytes += size;
        self.summary.data_files += 1;
        self.files.push(OutFile {
            path: format!("{}/{rel}", self.root),
            content: Content::Zeros(size),
            mtime_ms: self.clock,
            padding,
        });
    }

    fn bucket_dir(&self, part: u32, bucket: u32) -> String {
        if self.cfg.partitions > 0 {
            format!("part={part}/bucket-{bucket}")
        } else {
            format!("bucket-{bucket}")
        }
    }

    fn partition_row(&self, part: u32) -> Vec<u8> {
        if self.cfg.partitions > 0 {
            binary_row(&[Field::Int(part as i32)])
        } else {
            binary_row(&[])
        }
    }

    fn session(&mut self, user: &str) -> Session {
        let slots = self.slots();
        Session {
            user: user.to_string(),
            manifest_uuid: self.rng.uuid(),
            manifest_n: 0,
            list_uuid: self.rng.uuid(),
            list_n: 0,
            data_uuid: (0..slots).map(|_| self.rng.uuid()).collect(),
            changelog_uuid: (0..slots).map(|_| self.rng.uuid()).collect(),
            file_n: vec![0; slots],
        }
    }

    /// A new data or changelog file of slot `slot`, written into its bucket directory.
    #[allow(clippy::too_many_arguments)]
    fn new_file(
        &mut self,
        s: &mut Session,
        slot: usize,
        changelog: bool,
        rows: i64,
        min_seq: i64,
        level: i32,
        source: i32,
        round: i64,
    ) -> Rc<DataFile> {
        let (part, bucket) = self.slot_coords(slot);
        let n = s.file_n[slot];
        s.file_n[slot] += 1;
        let name = if changelog {
            format!("changelog-{}-{n}.parquet", s.changelog_uuid[slot])
        } else {
            format!("data-{}-{n}.parquet", s.data_uuid[slot])
        };
        // The first data files written are the referenced padding files (small when there is
        // no padding: the same files, so both variants have the same metadata).
        let is_padding = !changelog && self.referenced_padding_left > 0;
        let size = if is_padding {
            self.referenced_padding_left -= 1;
            self.padding_file_size
        } else {
            1100 + (self.rng.next() % 300)
        };
        let padded = is_padding && self.cfg.padding > 0;
        let min_key = (round * 7) % KEY_SPACE;
        let f = Rc::new(DataFile {
            name,
            size,
            rows,
            min_key,
            max_key: min_key + rows.max(1) - 1,
            min_seq,
            max_seq: min_seq + rows.max(1) - 1,
            level,
            created: self.clock,
            source,
            value: format!("r{}", round % 100_000),
        });
        let rel = format!("{}/{}", self.bucket_dir(part, bucket), f.name);
        self.emit_zeros(&rel, size, padded);
        f
    }

    fn slot_coords(&self, slot: usize) -> (u32, u32) {
        let b = self.cfg.buckets as usize;
        ((slot / b) as u32, (slot % b) as u32)
    }

    fn encode_entry(&self, e: &Entry) -> Vec<u8> {
        let f = &e.file;
        let mut w = Enc::default();
        w.int(2);
        w.int(if e.add { 0 } else { 1 });
        w.bytes(&self.partition_row(e.part));
        w.int(e.bucket as i32);
        w.int(self.cfg.buckets as i32);
        w.string(&f.name);
        w.long(f.size as i64);
        w.long(f.rows);
        let min_key = binary_row(&[Field::Long(f.min_key)]);
        let max_key = binary_row(&[Field::Long(f.max_key)]);
        w.bytes(&min_key);
        w.bytes(&max_key);
        w.bytes(&min_key);
        w.bytes(&max_key);
        w.null_counts(&[0]);
        let value = |k: i64| {
            let mut fields = Vec::new();
            if self.cfg.partitions > 0 {
                fields.push(Field::Int(e.part as i32));
            }
            fields.push(Field::Long(k));
            fields.push(Field::Str(f.value.clone()));
            binary_row(&fields)
        };
        w.bytes(&value(f.min_key));
        w.bytes(&value(f.max_key));
        if self.cfg.partitions > 0 {
            w.null_counts(&[0, 0, 0]);
        } else {
            w.null_counts(&[0, 0]);
        }
        w.long(f.min_seq);
        w.long(f.max_seq);
        w.long(0);
        w.int(f.level);
        w.long(0); // no extra files
        w.branch(1);
        w.long(f.created);
        w.branch(1);
        w.long(0);
        w.branch(0);
        w.branch(1);
        w.int(f.source);
        w.buf
    }

    fn write_manifest(&mut self, s: &mut Session, entries: Vec<Entry>) -> Rc<Manifest> {
        let records: Vec<Vec<u8>> = entries.iter().map(|e| self.encode_entry(e)).collect();
        let bytes = container(MANIFEST_ENTRY_SCHEMA, &records, self.rng.sync());
        let name = format!("manifest-{}-{}", s.manifest_uuid, s.manifest_n);
        s.manifest_n += 1;
        let m = Manifest {
            size: bytes.len() as u64,
            added: entries.iter().filter(|e| e.add).count() as i64,
            deleted: entries.iter().filter(|e| !e.add).count() as i64,
            part_min: entries.iter().map(|e| e.part).min().unwrap_or(0),
            part_max: entries.iter().map(|e| e.part).max().unwrap_or(0),
            entries,
            name,
        };
        self.summary.manifests += 1;
        let rel = format!("manifest/{}", m.name);
        self.emit(&rel, bytes, true);
        Rc::new(m)
    }

    fn write_list(&mut self, s: &mut Session, metas: &[Rc<Manifest>]) -> String {
        let records: Vec<Vec<u8>> = metas
            .iter()
            .map(|m| {
                let mut w = Enc::default();
                w.int(2);
                w.string(&m.name);
                w.long(m.size as i64);
                w.long(m.added);
                w.long(m.deleted);
                w.bytes(&self.partition_row(m.part_min));
                w.bytes(&self.partition_row(m.part_max));
                if self.cfg.partitions > 0 {
                    w.null_counts(&[0]);
                } else {
                    w.null_counts(&[]);
                }
                w.long(0);
                w.buf
            })
            .collect();
        let bytes = container(MANIFEST_FILE_META_SCHEMA, &records, self.rng.sync());
        let name = format!("manifest-list-{}-{}", s.list_uuid, s.list_n);
        s.list_n += 1;
        self.summary.manifest_lists += 1;
        let rel = format!("manifest/{name}");
        self.emit(&rel, bytes, true);
        name
    }

    /// `ManifestFileMerger.tryMinorCompaction` (full compaction never triggers at these sizes).
    fn merge(&mut self, s: &mut Session, input: Vec<Rc<Manifest>>) -> Vec<Rc<Manifest>> {
        let mut result = Vec::new();
        let mut candidates: Vec<Rc<Manifest>> = Vec::new();
        let mut total = 0u64;
        for m in input {
            total += m.size;
            candidates.push(m);
            if total >= SUGGESTED_META_SIZE {
                let c = std::mem::take(&mut candidates);
                self.merge_candidates(s, c, &mut result);
                total = 0;
            }
        }
        if candidates.len() >= self.cfg.merge_min_count {
            self.merge_candidates(s, candidates, &mut result);
        } else {
            result.extend(candidates);
        }
        result
    }

    fn merge_candidates(
        &mut self,
        s: &mut Session,
        candidates: Vec<Rc<Manifest>>,
        result: &mut Vec<Rc<Manifest>>,
    ) {
        if candidates.len() == 1 {
            result.extend(candidates);
            return;
        }
        // FileEntry.mergeEntries: a LinkedHashMap by identifier; DELETE cancels its ADD.
        let mut order: Vec<Option<Entry>> = Vec::new();
        let mut index: HashMap<(u32, u32, i32, String), usize> = HashMap::new();
        for m in &candidates {
            for e in &m.entries {
                let k = e.key();
                if e.add {
                    index.insert(k, order.len());
                    order.push(Some(e.clone()));
                } else if let Some(i) = index.remove(&k) {
                    order[i] = None;
                } else {
                    index.insert(k, order.len());
                    order.push(Some(e.clone()));
                }
            }
        }
        let merged: Vec<Entry> = order.into_iter().flatten().collect();
        if !merged.is_empty() {
            result.push(self.write_manifest(s, merged));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn snapshot_json(
        &self,
        id: i64,
        base: &str,
        delta: &str,
        changelog: Option<&str>,
        user: &str,
        identifier: i64,
        kind: &str,
        total: i64,
        delta_records: i64,
        changelog_records: i64,
    ) -> String {
        let changelog = match changelog {
            Some(c) => format!("\"{c}\""),
            None => "null".to_string(),
        };
        format!(
            "{{\n  \"version\" : 3,\n  \"id\" : {id},\n  \"schemaId\" : 0,\n  \"baseManifestList\" : \"{base}\",\n  \"deltaManifestList\" : \"{delta}\",\n  \"changelogManifestList\" : {changelog},\n  \"commitUser\" : \"{user}\",\n  \"commitIdentifier\" : {identifier},\n  \"commitKind\" : \"{kind}\",\n  \"timeMillis\" : {},\n  \"logOffsets\" : {{ }},\n  \"totalRecordCount\" : {total},\n  \"deltaRecordCount\" : {delta_records},\n  \"changelogRecordCount\" : {changelog_records}\n}}",
            self.clock
        )
    }

    fn publish(&mut self, line: &mut Line, json: String) {
        let rel = format!("{}/snapshot-{}", line.snapshot_dir, line.latest);
        self.emit(&rel, json.into_bytes(), true);
        self.summary.snapshots += 1;
        // LATEST is rewritten on every commit; only its last version is emitted (at the end)
        let rel = format!("{}/LATEST", line.snapshot_dir);
        self.hints
            .insert(rel, (line.latest.to_string(), self.clock));
    }

    /// One checkpoint: an APPEND and a COMPACT snapshot. Returns the COMPACT snapshot's JSON.
    fn commit(&mut self, line: &mut Line, s: &mut Session, identifier: i64) -> String {
        let rows = 2i64;
        // APPEND
        self.clock += 400 + (self.rng.next() % 200) as i64;
        let mut adds = Vec::new();
        for slot in 0..self.slots() {
            let seq = line.buckets[slot].next_seq;
            line.buckets[slot].next_seq += rows;
            let f = self.new_file(s, slot, false, rows, seq, 0, 0, identifier);
            let (part, bucket) = self.slot_coords(slot);
            line.buckets[slot].l0 = Some(f.clone());
            adds.push(Entry {
                add: true,
                part,
                bucket,
                file: f,
            });
        }
        let delta_records = rows * adds.len() as i64;
        let delta_m = self.write_manifest(s, adds);
        let input: Vec<Rc<Manifest>> = line.base.iter().chain(line.delta.iter()).cloned().collect();
        let base = self.merge(s, input);
        let base_list = self.write_list(s, &base);
        let delta_list = self.write_list(s, std::slice::from_ref(&delta_m));
        line.latest += 1;
        line.total += delta_records;
        let json = self.snapshot_json(
            line.latest,
            &base_list,
            &delta_list,
            None,
            &s.user.clone(),
            identifier,
            "APPEND",
            line.total,
            delta_records,
            0,
        );
        self.publish(line, json);
        line.base = base;
        line.delta = vec![delta_m];

        // COMPACT (lookup: the changelog comes with the compaction)
        self.clock += 50 + (self.rng.next() % 100) as i64;
        let mut delta = Vec::new();
        let mut changelog = Vec::new();
        let full = identifier % 4 == 0;
        for slot in 0..self.slots() {
            let (part, bucket) = self.slot_coords(slot);
            let Some(l0) = line.buckets[slot].l0.take() else {
                continue;
            };
            let entry = |add: bool, file: Rc<DataFile>| Entry {
                add,
                part,
                bucket,
                file,
            };
            delta.push(entry(false, l0.clone()));
            let out_level;
            if full {
                let mut merged_rows = l0.rows;
                for u in std::mem::take(&mut line.buckets[slot].upper) {
                    merged_rows += u.rows;
                    delta.push(entry(false, u));
                }
                if let Some(t) = line.buckets[slot].top.take() {
                    merged_rows += t.rows;
                    delta.push(entry(false, t));
                }
                let rows_out = merged_rows
                    .min(KEY_SPACE / i64::from(self.cfg.buckets))
                    .max(1);
                let seq = line.buckets[slot].next_seq;
                let f = self.new_file(s, slot, false, rows_out, seq, 5, 1, identifier);
                line.buckets[slot].top = Some(f.clone());
                delta.push(entry(true, f));
                out_level = 5;
            } else {
                let mut up = (*l0).clone();
                up.level = 4;
                let up = Rc::new(up);
                line.buckets[slot].upper.push(up.clone());
                delta.push(entry(true, up));
                out_level = 4;
            }
            let cl = self.new_file(s, slot, true, rows, l0.min_seq, out_level, 1, identifier);
            changelog.push(entry(true, cl));
        }
        let added: i64 = delta.iter().filter(|e| e.add).map(|e| e.file.rows).sum();
        let deleted: i64 = delta.iter().filter(|e| !e.add).map(|e| e.file.rows).sum();
        let changelog_records: i64 = changelog.iter().map(|e| e.file.rows).sum();
        let delta_m = self.write_manifest(s, delta);
        let changelog_m = self.write_manifest(s, changelog);
        let input: Vec<Rc<Manifest>> = line.base.iter().chain(line.delta.iter()).cloned().collect();
        let base = self.merge(s, input);
        let base_list = self.write_list(s, &base);
        let delta_list = self.write_list(s, std::slice::from_ref(&delta_m));
        let changelog_list = self.write_list(s, std::slice::from_ref(&changelog_m));
        line.latest += 1;
        line.total += added - deleted;
        let json = self.snapshot_json(
            line.latest,
            &base_list,
            &delta_list,
            Some(&changelog_list),
            &s.user.clone(),
            identifier,
            "COMPACT",
            line.total,
            added - deleted,
            changelog_records,
        );
        self.publish(line, json.clone());
        line.base = base;
        line.delta = vec![delta_m];
        json
    }

    fn schema_json(&self) -> String {
        let mut fields = Vec::new();
        if self.cfg.partitions > 0 {
            fields.push(("part", "INT NOT NULL"));
        }
        fields.push(("id", "BIGINT NOT NULL"));
        fields.push(("v", "STRING"));
        let fields_json: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(i, (n, t))| {
                format!(
                    "{{\n    \"id\" : {i},\n    \"name\" : \"{n}\",\n    \"type\" : \"{t}\"\n  }}"
                )
            })
            .collect();
        let (partition_keys, primary_keys) = if self.cfg.partitions > 0 {
            ("[ \"part\" ]", "[ \"part\", \"id\" ]")
        } else {
            ("[ ]", "[ \"id\" ]")
        };
        format!(
            "{{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ {} ],\n  \"highestFieldId\" : {},\n  \"partitionKeys\" : {partition_keys},\n  \"primaryKeys\" : {primary_keys},\n  \"options\" : {{\n    \"bucket\" : \"{}\",\n    \"snapshot.time-retained\" : \"3650 d\",\n    \"changelog-producer\" : \"lookup\",\n    \"snapshot.num-retained.max\" : \"1000000\",\n    \"file.format\" : \"parquet\",\n    \"snapshot.num-retained.min\" : \"1000000\",\n    \"consumer.expiration-time\" : \"3650 d\"\n  }},\n  \"timeMillis\" : {}\n}}",
            fields_json.join(", "),
            fields.len() - 1,
            self.cfg.buckets,
            self.cfg.start_millis
        )
    }

    /// Generates everything into [`Generator::files`].
    pub fn run(&mut self) {
        let schema = self.schema_json();
        self.emit("schema/schema-0", schema.clone().into_bytes(), true);
        let mut main = Line {
            base: Vec::new(),
            delta: Vec::new(),
            buckets: vec![Bucket::default(); self.slots()],
            total: 0,
            latest: 0,
            snapshot_dir: "snapshot".to_string(),
        };
        let mut s = self.session("bench-writer");
        let commits = i64::from(self.cfg.commits);
        let tags = i64::from(self.cfg.tags);
        let tag_rounds: Vec<i64> = (1..=tags)
            .map(|k| (commits * k / (tags + 1)).max(1))
            .collect();
        let mut tagged: Vec<(String, String, Line)> = Vec::new();
        for round in 1..=commits {
            let json = self.commit(&mut main, &mut s, round);
            if round == 1 {
                self.emit("snapshot/EARLIEST", b"1".to_vec(), true);
            }
            if let Some(k) = tag_rounds.iter().position(|&r| r == round) {
                let name = if tags == 1 {
                    "bench-tag".to_string()
                } else {
                    format!("bench-tag-{}", k + 1)
                };
                self.emit(&format!("tag/tag-{name}"), json.clone().into_bytes(), true);
                tagged.push((name, json, main.clone()));
            }
        }
        let latest = main.latest;
        // consumers: evenly spread safe positions, the last one caught up
        let n = i64::from(self.cfg.consumers);
        for k in 1..=n {
            let next = if k == n {
                latest + 1
            } else {
                1 + latest * k / n
            };
            let body = format!("{{\n  \"nextSnapshot\" : {next}\n}}");
            self.emit(
                &format!("consumer/consumer-reader-{k}"),
                body.into_bytes(),
                true,
            );
        }
        // branches from tags, with commits of their own
        for b in 0..self.cfg.branches as usize {
            let Some((tag, json, line)) = tagged.get(b % tagged.len().max(1)).cloned() else {
                break;
            };
            let name = format!("bench-branch-{}", b + 1);
            let dir = format!("branch/branch-{name}");
            let mut line = line;
            line.snapshot_dir = format!("{dir}/snapshot");
            self.emit(
                &format!("{dir}/schema/schema-0"),
                schema.clone().into_bytes(),
                true,
            );
            self.emit(
                &format!("{dir}/tag/tag-{tag}"),
                json.clone().into_bytes(),
                true,
            );
            self.emit(
                &format!("{dir}/snapshot/snapshot-{}", line.latest),
                json.into_bytes(),
                true,
            );
            self.emit(
                &format!("{dir}/snapshot/EARLIEST"),
                line.latest.to_string().into_bytes(),
                true,
            );
            let mut bs = self.session(&format!("branch-{}-writer", b + 1));
            for round in 1..=i64::from(self.cfg.branch_commits) {
                self.commit(&mut line, &mut bs, round);
            }
        }
        // unreferenced padding: files an abandoned writer left in bucket 0
        let orphans = self.cfg.padding_files.max(2) - self.cfg.padding_files.max(2) / 2;
        let uuid = self.rng.uuid();
        for k in 0..orphans {
            let rel = format!("{}/data-{uuid}-{k}.parquet", self.bucket_dir(0, 0));
            self.emit_zeros(&rel, self.padding_file_size, self.cfg.padding > 0);
        }
        for (rel, (value, time)) in std::mem::take(&mut self.hints) {
            self.clock = self.clock.max(time);
            self.emit(&rel, value.into_bytes(), true);
        }
        self.summary.latest = latest;
    }
}
