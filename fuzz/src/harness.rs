//! The code paths the fuzz targets drive, one function per target.
//!
//! Shared, unchanged, by the fuzz targets (`fuzz/fuzz_targets/*.rs`) and by the regression tests
//! (`tests/fuzz_regressions.rs` includes this file with `#[path]`), so a minimised crash is
//! replayed through exactly the calls that found it. It depends on `prv` and `std` only.
//!
//! Each function returns an [`Outcome`]: the errors the core gave (fine: hostile input should
//! give errors) and the *violations* of the core's contract that were seen (never fine: an error
//! without a message, a read error that does not name its file, a read that returns other bytes
//! than it declared). A panic, a hang or an unbounded allocation is caught by libFuzzer itself
//! (`-timeout`, `-rss_limit_mb`) or by the test runner.

use std::rc::Rc;

use prv::paimon::avro::{read_header, AvroSchemaCache};
use prv::paimon::binary_row::{try_render_partition, BinaryRow, PartitionRenderOptions};
use prv::paimon::consumer::Consumer;
use prv::paimon::hint::parse_hint;
use prv::paimon::index_manifest::read_index_manifest;
use prv::paimon::manifest::read_manifest;
use prv::paimon::manifest_list::read_manifest_list;
use prv::paimon::schema::{parse_duration_millis, TableSchema};
use prv::paimon::snapshot::{id_from_file_name, temp_snapshot_id, Snapshot};
use prv::paimon::tag::Tag;
use prv::source::{Artifact, Input};
use prv::time::format_duration;
use prv::{AnalysisOptions, Error, Limits};

/// A fixed clock for the analysis targets (age-based findings stay deterministic).
pub const NOW_MILLIS: i64 = 1_800_000_000_000;

/// What one run of a target met.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Errors the core returned, as displayed (file, context, problem).
    pub errors: Vec<String>,
    /// Breaches of the core's contract (must stay empty).
    pub violations: Vec<String>,
    /// Successful reads or parses.
    pub ok: u64,
}

impl Outcome {
    /// Records an error; an error must say what is wrong.
    fn error(&mut self, what: &str, e: &Error) {
        if e.problem().trim().is_empty() {
            self.violations
                .push(format!("{what}: an error without a message ({e:?})"));
        }
        self.errors.push(e.to_string());
    }

    /// Records an error about a file of the artifact; it must name the file.
    fn file_error(&mut self, what: &str, path: &str, e: &Error) {
        if e.file().is_none() {
            self.violations.push(format!(
                "{what} of {path:?}: the error does not name the file: {e}"
            ));
        }
        self.error(what, e);
    }

    fn violation(&mut self, v: String) {
        self.violations.push(v);
    }
}

/// Opens `data` as a zip artifact called `fuzz.zip`, as the CLI and the page do.
pub fn open_zip(data: &[u8], limits: &Limits) -> prv::Result<Artifact> {
    let input = Input::Zip {
        name: "fuzz.zip".to_string(),
        data: Rc::new(data.to_vec()),
    };
    Artifact::open(vec![input], limits)
}

/// `zip_source`: open the bytes as a zip, list it, read every entry whole and in ranged pieces
/// (head, middle, tail, and one past the end), look every path up, and read the first few
/// `.parquet` entries as row evidence does: by ranges through the zip ([`prv::parquet::ArtifactFile`]).
pub fn zip_source(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    let limits = Limits::default();
    let artifact = match open_zip(data, &limits) {
        Ok(a) => a,
        Err(e) => {
            o.error("open", &e);
            return o;
        }
    };
    for p in artifact.problems() {
        o.error("open (problem)", p);
    }
    for entry in artifact.files() {
        let path = entry.path();
        if artifact.get(&path).map(|e| e.path()).as_ref() != Some(&path) {
            o.violation(format!("{path:?} is listed but not found by get"));
        }
        let parent = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        if !artifact
            .files_under(parent)
            .iter()
            .any(|e| e.path() == path)
        {
            o.violation(format!(
                "{:?} is not listed under its directory {parent:?}",
                entry.path()
            ));
        }
        match artifact.read_entry(entry, u64::MAX) {
            Ok(bytes) => {
                o.ok += 1;
                if bytes.len() as u64 != entry.size() {
                    o.violation(format!(
                        "{:?}: read returned {} bytes, the entry declares {}",
                        entry.path(),
                        bytes.len(),
                        entry.size()
                    ));
                }
            }
            Err(e) => o.file_error("read", &entry.path(), &e),
        }
        let size = entry.size();
        let piece = size.min(64);
        for (offset, len) in [
            (0, piece),
            (size / 2, size.saturating_sub(size / 2).min(64)),
            (size.saturating_sub(piece), piece),
            (size, 1),
        ] {
            match artifact.read_range(entry, offset, len) {
                Ok(bytes) => {
                    o.ok += 1;
                    if bytes.len() as u64 != len {
                        o.violation(format!(
                            "{:?}: read_range({offset}, {len}) returned {} bytes",
                            entry.path(),
                            bytes.len()
                        ));
                    }
                }
                Err(e) => o.file_error("read_range", &entry.path(), &e),
            }
        }
    }
    for entry in artifact
        .files()
        .iter()
        .filter(|e| e.path().ends_with(".parquet"))
        .take(4)
    {
        let source = prv::parquet::ArtifactFile::new(&artifact, entry);
        read_parquet(&mut o, source, &limits);
    }
    o
}

/// `json_objects`: the bytes as every JSON (and hint) object Paimon writes, as every Spark
/// checkpoint file the analysis reads, plus the file-name parsers on the bytes taken as a name.
pub fn json_objects(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    match Snapshot::parse(data) {
        Ok(s) => {
            o.ok += 1;
            o.ok += s.manifest_lists().count() as u64;
            let _ = s.is_batch_commit();
        }
        Err(e) => o.error("snapshot", &e),
    }
    match Consumer::parse(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("consumer", &e),
    }
    match parse_hint(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("hint", &e),
    }
    match TableSchema::parse(data) {
        Ok(schema) => {
            o.ok += 1;
            let _ = schema.partition_fields();
            let _ = schema.table_options();
            for value in schema.options.values() {
                if let Some(ms) = parse_duration_millis(value) {
                    let _ = format_duration(ms);
                }
            }
        }
        Err(e) => o.error("schema", &e),
    }
    match Tag::parse(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("tag", &e),
    }
    // Spark checkpoint files: offset and commit logs, metadata, a Paimon source offset.
    match prv::spark::offsets::OffsetLogEntry::parse(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("spark offset log", &e),
    }
    match prv::spark::commits::CommitLogEntry::parse(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("spark commit log", &e),
    }
    match prv::spark::metadata::parse_query_id(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("spark metadata", &e),
    }
    let name = String::from_utf8_lossy(data);
    match prv::spark::paimon_offset::PaimonOffset::parse(&name) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("paimon source offset", &e),
    }
    let _ = id_from_file_name(&name, "snapshot-");
    let _ = temp_snapshot_id(&name);
    o
}

/// Field types cycled through when a partition row is rendered without its schema.
const PARTITION_TYPES: &[&str] = &[
    "INT",
    "STRING",
    "BIGINT",
    "DATE",
    "TIMESTAMP(6)",
    "DECIMAL(10, 2)",
    "DECIMAL(38, 10)",
    "BOOLEAN",
    "DOUBLE",
    "BYTES",
    "TINYINT",
    "SMALLINT",
    "FLOAT",
    "TIME",
    "TIMESTAMP(3) WITH LOCAL TIME ZONE",
    "TIMESTAMP(9)",
];

/// Renders a serialized BinaryRow with made-up field types (one per field), as the analysis does
/// with a table's partition fields.
fn render_row(o: &mut Outcome, bytes: &[u8]) {
    let Ok(row) = BinaryRow::from_serialized(bytes) else {
        return;
    };
    // The arity comes from the bytes: bound the made-up schema the way a real one is bounded.
    let arity = row.arity().min(64);
    let fields: Vec<(String, String)> = (0..arity)
        .map(|i| {
            let ty = PARTITION_TYPES
                .get(i % PARTITION_TYPES.len())
                .copied()
                .unwrap_or("INT");
            (format!("f{i}"), ty.to_string())
        })
        .collect();
    match try_render_partition(bytes, &fields, &PartitionRenderOptions::default()) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("partition", &e),
    }
}

/// `avro_manifests`: the bytes as a manifest list, a manifest and an index manifest, with one
/// schema cache (the manifest is read twice: the second read takes the cached plan), and the
/// partitions and keys they carry rendered.
pub fn avro_manifests(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    let limits = Limits::default();
    let mut cache = AvroSchemaCache::new();
    match read_header(data) {
        Ok(_) => o.ok += 1,
        Err(e) => o.error("header", &e),
    }
    match read_manifest_list(data, &mut cache, &limits) {
        Ok(metas) => {
            o.ok += 1;
            for m in metas.iter().take(64) {
                if let Some(stats) = &m.partition_stats {
                    render_row(&mut o, &stats.min_values);
                    render_row(&mut o, &stats.max_values);
                }
            }
        }
        Err(e) => o.error("manifest list", &e),
    }
    for round in 0..2 {
        match read_manifest(data, &mut cache, &limits) {
            Ok(entries) => {
                o.ok += 1;
                if round == 0 {
                    for entry in entries.entries().take(64) {
                        render_row(&mut o, entry.partition());
                        render_row(&mut o, entry.file().min_key());
                        render_row(&mut o, entry.file().max_key());
                    }
                }
            }
            Err(e) => o.error("manifest", &e),
        }
    }
    match read_index_manifest(data, &mut cache, &limits) {
        Ok(entries) => {
            o.ok += 1;
            for entry in entries.iter().take(64) {
                render_row(&mut o, &entry.partition);
            }
        }
        Err(e) => o.error("index manifest", &e),
    }
    o
}

/// `analysis`: the bytes as a zip artifact, analysed as the CLI does, every report format
/// rendered, and the detail of every snapshot asked for as the page does.
pub fn analysis(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    let options = AnalysisOptions {
        now_millis: Some(NOW_MILLIS),
        ..AnalysisOptions::default()
    };
    let artifact = match open_zip(data, &options.limits) {
        Ok(a) => a,
        Err(e) => {
            o.error("open", &e);
            return o;
        }
    };
    let run = prv::run(&artifact, &options, &mut |_| {});
    let report = &run.report;
    let json = prv::report::json::render(report);
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
        o.violation(format!("the JSON report does not parse: {e}"));
    }
    let _ = prv::report::markdown::render(report);
    let _ = prv::report::text::render(report);
    for table in &report.tables {
        for s in table.snapshots.iter().take(32) {
            let _ = run.snapshot_detail(&table.path, &table.branch, s.id);
        }
    }
    o.ok += report.all_findings().count() as u64;
    o
}

/// `parquet`: the bytes as a Parquet file: footer, then every column read, every value rendered.
pub fn parquet(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    read_parquet(&mut o, data, &Limits::default());
    o
}

fn read_parquet<S: prv::parquet::ParquetSource>(o: &mut Outcome, source: S, limits: &Limits) {
    let file = match prv::parquet::ParquetFile::open(source, limits) {
        Ok(f) => f,
        Err(e) => {
            o.error("parquet open", &e);
            return;
        }
    };
    let _ = file.num_rows();
    let _ = file.key_value_metadata();
    let _ = file.created_by();
    let names: Vec<String> = file.columns().iter().map(|c| c.name.clone()).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    match file.read_columns(&refs, limits) {
        Ok(batch) => {
            o.ok += 1;
            for column in &batch.columns {
                if column.values.len() != batch.num_rows {
                    o.violation(format!(
                        "column {:?} has {} values for {} rows",
                        column.info.name,
                        column.values.len(),
                        batch.num_rows
                    ));
                }
                for row in 0..column.values.len().min(256) {
                    let _ = column.render(row);
                    if let Some(v) = column.values.get(row) {
                        let _ = v.to_json(column.info.logical.as_ref());
                    }
                }
            }
        }
        Err(e) => o.error("read_columns", &e),
    }
    // Each column alone too: a damaged column must not stop the others being read.
    for name in refs.iter().take(16) {
        match file.read_columns(&[name], limits) {
            Ok(_) => o.ok += 1,
            Err(e) => o.error("read_columns (one)", &e),
        }
    }
}

/// `orc`: the bytes as an ORC file: tail, then every column read (all together and each
/// alone), every value rendered, and the Paimon-shaped row read (`rows::read::read_orc`).
pub fn orc(data: &[u8]) -> Outcome {
    let mut o = Outcome::default();
    let limits = Limits::default();
    let file = match prv::orc::OrcFile::open(data, &limits) {
        Ok(f) => f,
        Err(e) => {
            o.error("orc open", &e);
            return o;
        }
    };
    let rows = file.num_rows();
    let columns: Vec<(String, Option<prv::parquet::LogicalType>)> = file
        .columns()
        .iter()
        .filter(|c| c.is_readable())
        .map(|c| (c.name.clone(), c.logical))
        .collect();
    let refs: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    match file.read_columns(&refs, &limits) {
        Ok(values) => {
            o.ok += 1;
            for ((name, logical), v) in columns.iter().zip(&values) {
                if v.len() as u64 != rows {
                    o.violation(format!(
                        "column {name:?} has {} values for {rows} rows",
                        v.len()
                    ));
                }
                for value in v.iter().take(256) {
                    let _ = value.render(logical.as_ref());
                    let _ = value.to_json(logical.as_ref());
                }
            }
        }
        Err(e) => o.error("orc read_columns", &e),
    }
    for name in refs.iter().take(16) {
        match file.read_columns(&[name], &limits) {
            Ok(_) => o.ok += 1,
            Err(e) => o.error("orc read_columns (one)", &e),
        }
    }
    let spec = prv::rows::read::ReadSpec {
        keys: prv::rows::read::KeyColumns::Primary,
        values: true,
        orc_ltz_legacy: true,
    };
    match prv::rows::read::read_orc(&file, &spec, &|_| true, &limits) {
        Ok(r) => {
            o.ok += 1;
            for rec in r.records.iter().take(256) {
                let _ = r.key_json(&rec.key);
                let _ = r.row_json(&rec.values);
            }
        }
        Err(e) => o.error("orc rows", &e),
    }
    o
}

/// `avro_data`: the bytes as an Avro data or changelog file: its columns, every row decoded and
/// rendered, then read as the row evidence does (primary key, and whole rows).
pub fn avro_data(data: &[u8]) -> Outcome {
    use prv::paimon::avro::datum::open_data_file;
    use prv::rows::read::{read_file, DataFile, KeyColumns, ReadSpec};
    let mut o = Outcome::default();
    let limits = Limits::default();
    match open_data_file(data) {
        Ok(file) => {
            o.ok += 1;
            let wanted = vec![true; file.columns().len()];
            let logical: Vec<_> = file.columns().iter().map(|c| c.logical).collect();
            let result = file.for_each_row(&wanted, &limits, |_, values| {
                if values.len() != logical.len() {
                    return Err(Error::format("a row of another width than the columns"));
                }
                for (v, l) in values.iter().zip(&logical) {
                    let _ = v.to_json(l.as_ref());
                }
                Ok(())
            });
            match result {
                Ok(_) => o.ok += 1,
                Err(e) if e.problem().contains("another width") => {
                    o.violation(format!("avro rows: {e}"))
                }
                Err(e) => o.error("avro rows", &e),
            }
        }
        Err(e) => o.error("avro data file", &e),
    }
    let file = DataFile::Avro(data.to_vec());
    for keys in [KeyColumns::Primary, KeyColumns::AllValues] {
        let spec = ReadSpec {
            keys,
            values: true,
            orc_ltz_legacy: true,
        };
        match read_file(&file, &spec, &|_| true, &limits) {
            Ok(rows) => {
                o.ok += 1;
                for r in rows.records.iter().take(256) {
                    let _ = rows.key_json(&r.key);
                    let _ = rows.row_json(&r.values);
                }
            }
            Err(e) => o.error("row evidence read", &e),
        }
    }
    o
}

/// Panics (a crash for libFuzzer, a failure for a test) if the run breached the core's contract.
pub fn assert_clean(o: &Outcome) {
    assert!(
        o.violations.is_empty(),
        "contract violations: {:#?}",
        o.violations
    );
}
