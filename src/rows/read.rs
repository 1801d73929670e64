//! Reading one Paimon data or changelog file into records, whatever its format.
//!
//! The format is told by the file itself (`paimon-format.md` §1.9: its magic, then its name's
//! extension), not by the table options, which `file.format.per.level` and
//! `changelog-file.format` make per file anyway: [`DataFormat::detect`]. [`open_artifact_file`]
//! is the one dispatch point; every format gives the same [`FileRows`] / [`Record`]:
//!
//! * Parquet: [`crate::parquet`], column by column, only the columns asked for;
//! * Avro: [`crate::paimon::avro::datum`], row by row (the values of rows not kept are dropped);
//! * ORC: [`crate::orc`], column by column as Parquet, only the columns asked for.
//!
//! Primary-key tables store `_KEY_<trimmed primary key fields>`, `_SEQUENCE_NUMBER`,
//! `_VALUE_KIND` (the row kind as a TINYINT) and then the value fields (all the table's fields)
//! in every data and changelog file (`KeyValueDataFileWriter`, `KeyValue.schema`). Append tables
//! store the table's fields only. Only the columns needed are read; key columns first, then the
//! value columns if any row is kept.

use std::collections::HashSet;

use crate::error::{Error, Result, ResultExt};
use crate::limits::Limits;
use crate::orc::{LtzLayout, OrcFile};
use crate::paimon::avro::datum::{open_data_file, AvroDataFile};
use crate::parquet::{ArtifactFile, LogicalType, ParquetFile, ParquetSource, Value};
use crate::source::Artifact;

use super::{Key, RowKind};

/// The prefix of key columns in primary-key files.
pub const KEY_PREFIX: &str = "_KEY_";
/// The sequence-number column.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// The row-kind column.
pub const VALUE_KIND: &str = "_VALUE_KIND";

/// What identifies a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyColumns {
    /// The `_KEY_*` columns of a primary-key file (named without the prefix in output).
    Primary,
    /// These columns (an id column, e.g. Ray's `id_column`).
    Named(Vec<String>),
    /// Every value column (the whole row, for append tables without an id).
    AllValues,
}

/// What to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadSpec {
    /// The key.
    pub keys: KeyColumns,
    /// Whether to read the value columns too.
    pub values: bool,
    /// Whether ORC TIMESTAMP_LTZ columns hold Paimon's legacy layout (the table option
    /// `orc.timestamp-ltz.legacy.type`, default true; `TableOptions::orc_timestamp_ltz_legacy`).
    pub orc_ltz_legacy: bool,
}

/// One row of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The key.
    pub key: Key,
    /// `_SEQUENCE_NUMBER`, or the row's position for files without one.
    pub seq: i64,
    /// `_VALUE_KIND`, `+I` for files without one.
    pub kind: RowKind,
    /// The row's position in the file (for deletion vectors).
    pub position: u64,
    /// Value columns, in [`FileRows::value_names`] order (empty unless asked for).
    pub values: Vec<Value>,
}

/// The rows kept from one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileRows {
    /// Key column names (without `_KEY_`).
    pub key_names: Vec<String>,
    /// Their logical types.
    pub key_types: Vec<Option<LogicalType>>,
    /// Value column names.
    pub value_names: Vec<String>,
    /// Their logical types.
    pub value_types: Vec<Option<LogicalType>>,
    /// The rows kept, in file order.
    pub records: Vec<Record>,
    /// Rows in the file.
    pub total_rows: u64,
    /// The key of the file's first row, kept or not (to check the key columns' types against
    /// the table's: a key of another type matches no key asked for).
    pub key_sample: Option<Key>,
    /// Whether the key is the `_KEY_*` columns (a primary-key read).
    pub primary: bool,
}

impl FileRows {
    /// Timestamp columns as the table's `schema` types them, whatever the file's own
    /// annotation says: `TIMESTAMP(p) WITH LOCAL TIME ZONE` (TIMESTAMP_LTZ) an instant,
    /// `TIMESTAMP(p)` a local date-time. Java Paimon's Avro files mark TIMESTAMP columns
    /// `timestamp-millis` / `-micros` (Avro's instant) and TIMESTAMP_LTZ ones
    /// `local-timestamp-*` (`tests/fixtures/writers/j*_crash_zones`), so the file alone would
    /// render a zone-less value as UTC.
    pub fn type_timestamps_as(&mut self, schema: &crate::paimon::schema::TableSchema) {
        let typed = |name: &str, t: &mut Option<LogicalType>| {
            let Some(LogicalType::Timestamp { utc, .. }) = t else {
                return;
            };
            let Some(field) = schema.fields.iter().find(|f| f.name == name) else {
                return;
            };
            let ty = field.data_type.trim_start().to_ascii_uppercase();
            if ty.starts_with("TIMESTAMP_LTZ") || ty.contains("WITH LOCAL TIME ZONE") {
                *utc = true;
            } else if ty.starts_with("TIMESTAMP") {
                *utc = false;
            }
        };
        for (name, t) in self.key_names.iter().zip(self.key_types.iter_mut()) {
            typed(name, t);
        }
        for (name, t) in self.value_names.iter().zip(self.value_types.iter_mut()) {
            typed(name, t);
        }
    }

    /// A record's key as a JSON object (`{"id": 5}`).
    pub fn key_json(&self, key: &Key) -> serde_json::Value {
        object(&self.key_names, &self.key_types, &key.0)
    }

    /// A record's values as a JSON object.
    pub fn row_json(&self, values: &[Value]) -> serde_json::Value {
        object(&self.value_names, &self.value_types, values)
    }
}

/// `{"name": value, …}` with values rendered by their logical types.
pub fn object(
    names: &[String],
    types: &[Option<LogicalType>],
    values: &[Value],
) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (i, (name, v)) in names.iter().zip(values.iter()).enumerate() {
        let logical = types.get(i).and_then(Option::as_ref);
        m.insert(name.clone(), v.to_json(logical));
    }
    serde_json::Value::Object(m)
}

fn is_system(name: &str) -> bool {
    name.starts_with(KEY_PREFIX) || name == SEQUENCE_NUMBER || name == VALUE_KIND
}

/// The format of a data or changelog file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// Apache Parquet (`PAR1`).
    Parquet,
    /// Apache ORC (`ORC`).
    Orc,
    /// An Avro object container file (`Obj\x01`).
    Avro,
}

impl DataFormat {
    /// The format of a file from its first bytes (`PAR1`, `ORC`, `Obj\x01`).
    pub fn from_magic(head: &[u8]) -> Option<DataFormat> {
        if head.starts_with(b"PAR1") {
            Some(DataFormat::Parquet)
        } else if head.starts_with(b"ORC") {
            Some(DataFormat::Orc)
        } else if head.starts_with(crate::paimon::avro::MAGIC) {
            Some(DataFormat::Avro)
        } else {
            None
        }
    }

    /// The format Paimon's file name says (`….parquet`, `….orc`, `….avro`).
    pub fn from_name(name: &str) -> Option<DataFormat> {
        match name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("parquet") => Some(DataFormat::Parquet),
            Some("orc") => Some(DataFormat::Orc),
            Some("avro") => Some(DataFormat::Avro),
            _ => None,
        }
    }

    /// `parquet`, `orc`, `avro` (as in `file.format`).
    pub fn as_str(self) -> &'static str {
        match self {
            DataFormat::Parquet => "parquet",
            DataFormat::Orc => "orc",
            DataFormat::Avro => "avro",
        }
    }
}

/// An open data or changelog file (a small file is held whole and read once).
pub enum DataFile<'a> {
    /// A Parquet file (its footer read).
    Parquet(ParquetFile<ArtifactFile<'a>>),
    /// An Avro file's bytes (its header checked when opened).
    Avro(Vec<u8>),
    /// An ORC file (its postscript and footer read).
    Orc(OrcFile<ArtifactFile<'a>>),
}

/// Opens a data or changelog file of the artifact, in whatever format it is: the format its
/// name says, unless its first bytes say another (then that one, and the message says so), or
/// its first bytes' for a name without one.
pub fn open_artifact_file<'a>(artifact: &'a Artifact, path: &str) -> Result<DataFile<'a>> {
    let entry = artifact
        .get(path)
        .ok_or_else(|| Error::missing("the file is not in the artifact").in_file(path))?;
    artifact
        .charge_evidence_bytes(entry.size())
        .map_err(|e| e.in_file(path))?;
    let head = || {
        artifact
            .read_range(entry, 0, entry.size().min(4))
            .map_err(|e| e.in_file(path))
    };
    if let Some(named) = DataFormat::from_name(path) {
        let err = match open_as(named, artifact, entry) {
            Ok(f) => return Ok(f),
            Err(e) => e,
        };
        return match DataFormat::from_magic(&head()?) {
            Some(actual) if actual != named => open_as(actual, artifact, entry)
                .map_err(|e| {
                    e.context(format!(
                        "named .{} but a {} file",
                        named.as_str(),
                        actual.as_str()
                    ))
                })
                .map_err(|e| e.in_file(path)),
            _ => Err(err.in_file(path)),
        };
    }
    let head = head()?;
    match DataFormat::from_magic(&head) {
        Some(format) => open_as(format, artifact, entry).map_err(|e| e.in_file(path)),
        None => Err(Error::format(format!(
            "expected a Parquet, ORC or Avro file, found {} bytes starting {}",
            entry.size(),
            head.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ))
        .in_file(path)),
    }
}

/// Opens a file as `format`: the one dispatch point of the data-file readers.
fn open_as<'a>(
    format: DataFormat,
    artifact: &'a Artifact,
    entry: crate::source::FileEntry<'a>,
) -> Result<DataFile<'a>> {
    let limits = artifact.limits();
    match format {
        DataFormat::Parquet => {
            ParquetFile::open(ArtifactFile::new(artifact, entry), limits).map(DataFile::Parquet)
        }
        DataFormat::Avro => {
            let bytes = artifact.read_entry(entry, limits.max_entry_bytes)?;
            open_data_file(&bytes)?;
            Ok(DataFile::Avro(bytes))
        }
        DataFormat::Orc => {
            OrcFile::open(ArtifactFile::new(artifact, entry), limits).map(DataFile::Orc)
        }
    }
}

/// Reads a file of the artifact.
pub fn read_artifact_file(
    artifact: &Artifact,
    path: &str,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
) -> Result<FileRows> {
    read_artifact_file_within(artifact, path, spec, keep, artifact.limits())
}

/// [`read_artifact_file`] within `limits` (a row budget smaller than the artifact's).
pub fn read_artifact_file_within(
    artifact: &Artifact,
    path: &str,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let file = open_artifact_file(artifact, path)?;
    read_file(&file, spec, keep, limits).map_err(|e| e.in_file(path))
}

/// Reads an open file: the key columns of every row, the values of the rows kept.
pub fn read_file(
    file: &DataFile<'_>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    match file {
        DataFile::Parquet(f) => read_parquet(f, spec, keep, limits),
        DataFile::Avro(bytes) => read_avro(&open_data_file(bytes)?, spec, keep, limits),
        DataFile::Orc(f) => read_orc(f, spec, keep, limits),
    }
}

/// A top-level column of a file, whatever its format.
struct Column<'c> {
    name: &'c str,
    logical: Option<LogicalType>,
}

/// Which columns of a file (indices into its readable top-level columns) are the key, the
/// sequence number, the row kind and the values.
struct Selection {
    keys: Vec<usize>,
    seq: Option<usize>,
    kind: Option<usize>,
    values: Vec<usize>,
}

/// Chooses the columns for `spec` among a file's readable top-level `columns`.
fn select(columns: &[Column<'_>], spec: &ReadSpec) -> Result<Selection> {
    let position = |name: &str| columns.iter().position(|c| c.name == name);
    let values: Vec<usize> = (0..columns.len())
        .filter(|&i| columns.get(i).is_some_and(|c| !is_system(c.name)))
        .collect();
    let keys: Vec<usize> = match &spec.keys {
        KeyColumns::Primary => {
            let k: Vec<usize> = (0..columns.len())
                .filter(|&i| {
                    columns
                        .get(i)
                        .is_some_and(|c| c.name.starts_with(KEY_PREFIX))
                })
                .collect();
            if k.is_empty() {
                return Err(Error::format(
                    "no _KEY_ columns: not a primary-key table's data or changelog file",
                ));
            }
            k
        }
        KeyColumns::Named(names) => names
            .iter()
            .map(|n| {
                position(n).ok_or_else(|| {
                    Error::missing(format!(
                        "no column {n:?} (columns: {})",
                        columns
                            .iter()
                            .map(|c| c.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
            })
            .collect::<Result<_>>()?,
        KeyColumns::AllValues => values.clone(),
    };
    Ok(Selection {
        keys,
        seq: position(SEQUENCE_NUMBER),
        kind: position(VALUE_KIND),
        values,
    })
}

/// The record of row `row` whose key is `key`, from its `_SEQUENCE_NUMBER` and `_VALUE_KIND`
/// values (absent columns: the row's position and `+I`).
fn record(row: u64, key: Key, seq: Option<&Value>, kind: Option<&Value>) -> Result<Record> {
    let seq = match seq {
        Some(v) => v
            .as_i64()
            .ok_or_else(|| Error::format(format!("row {row}: _SEQUENCE_NUMBER is {v:?}")))?,
        None => i64::try_from(row).unwrap_or(i64::MAX),
    };
    let kind = match kind {
        Some(v) => v.as_i64().and_then(RowKind::from_byte).ok_or_else(|| {
            Error::format(format!(
                "row {row}: _VALUE_KIND is {}, not 0..3 (+I, -U, +U, -D)",
                v.render(None)
            ))
        })?,
        None => RowKind::Insert,
    };
    Ok(Record {
        key,
        seq,
        kind,
        position: row,
        values: Vec::new(),
    })
}

/// Refuses to keep one more row past `max-rows-kept` (what is left of it for this run, when
/// the caller passes the remaining budget: `crate::rows::live::TableRef::budget`).
fn rows_budget(out: &FileRows, limits: &Limits) -> Result<()> {
    if out.records.len() as u64 >= limits.max_rows_kept {
        return Err(Error::limit(
            "max-rows-kept",
            format!(
                "the row evidence would keep more than {} rows of this file (what is left of the run's budget)",
                limits.max_rows_kept
            ),
        ));
    }
    Ok(())
}

/// The [`FileRows`] frame (names and types) of a selection.
fn frame(columns: &[Column<'_>], sel: &Selection, spec: &ReadSpec, total_rows: u64) -> FileRows {
    let pick = |idx: &[usize]| -> Vec<&Column<'_>> {
        idx.iter().filter_map(|&i| columns.get(i)).collect()
    };
    let keys = pick(&sel.keys);
    let values = if spec.values {
        pick(&sel.values)
    } else {
        Vec::new()
    };
    FileRows {
        key_names: keys
            .iter()
            .map(|c| {
                c.name
                    .strip_prefix(KEY_PREFIX)
                    .filter(|_| spec.keys == KeyColumns::Primary)
                    .unwrap_or(c.name)
                    .to_string()
            })
            .collect(),
        key_types: keys.iter().map(|c| c.logical).collect(),
        value_names: values.iter().map(|c| c.name.to_string()).collect(),
        value_types: values.iter().map(|c| c.logical).collect(),
        records: Vec::new(),
        total_rows,
        key_sample: None,
        primary: spec.keys == KeyColumns::Primary,
    }
}

/// Reads an open Parquet file: the key columns of every row, the values of the rows kept.
pub fn read_parquet<S: ParquetSource>(
    file: &ParquetFile<S>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let columns: Vec<Column<'_>> = file
        .columns()
        .iter()
        .filter(|c| c.path.len() == 1 && c.is_readable())
        .map(|c| Column {
            name: &c.name,
            logical: c.logical,
        })
        .collect();
    let read = |names: &[&str]| -> Result<Vec<Vec<Value>>> {
        let mut batch = file.read_columns(names, limits)?;
        Ok(names
            .iter()
            .map(|n| {
                batch
                    .columns
                    .iter_mut()
                    .find(|c| c.info.name == *n)
                    .map(|c| std::mem::take(&mut c.values))
                    .unwrap_or_default()
            })
            .collect())
    };
    read_columnar(&columns, file.num_rows(), &read, spec, keep, limits)
}

/// Reads an open ORC file: the key columns of every row, the values of the rows kept.
pub fn read_orc<S: ParquetSource>(
    file: &OrcFile<S>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let columns: Vec<Column<'_>> = file
        .columns()
        .iter()
        .filter(|c| c.is_readable())
        .map(|c| Column {
            name: &c.name,
            logical: c.logical,
        })
        .collect();
    let ltz = if spec.orc_ltz_legacy {
        LtzLayout::Legacy
    } else {
        LtzLayout::Instant
    };
    let read = |names: &[&str]| file.read_columns_as(names, limits, ltz);
    read_columnar(&columns, file.num_rows(), &read, spec, keep, limits)
}

/// Reads the named top-level columns of a columnar file: one vector of values per name, in order.
type ReadColumns<'r> = dyn Fn(&[&str]) -> Result<Vec<Vec<Value>>> + 'r;

/// The rows of a columnar file (Parquet, ORC) whose top-level `columns` are read by `read`
/// (one vector of values per name asked for, in that order): the key, sequence-number and
/// row-kind columns of every row first, then the value columns only if a row is kept.
fn read_columnar(
    columns: &[Column<'_>],
    total_rows: u64,
    read: &ReadColumns<'_>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let sel = select(columns, spec)?;
    let name = |i: usize| columns.get(i).map_or("", |c| c.name);
    let mut first: Vec<&str> = sel.keys.iter().map(|&i| name(i)).collect();
    first.extend(sel.seq.map(name));
    first.extend(sel.kind.map(name));
    let mut seen = HashSet::new();
    first.retain(|n| seen.insert(*n));
    let batch = read(&first).context(|| "key columns".into())?;
    let col = |i: usize| {
        first
            .iter()
            .position(|n| *n == name(i))
            .and_then(|at| batch.get(at))
    };
    let seqs = sel.seq.and_then(col);
    let kinds = sel.kind.and_then(col);
    let num_rows = batch.first().map_or(0, Vec::len);
    let mut out = frame(columns, &sel, spec, total_rows);
    for row in 0..num_rows {
        let key = Key(sel
            .keys
            .iter()
            .map(|&i| {
                col(i)
                    .and_then(|v| v.get(row))
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect());
        if out.key_sample.is_none() {
            out.key_sample = Some(key.clone());
        }
        if !keep(&key) {
            continue;
        }
        rows_budget(&out, limits)?;
        out.records.push(record(
            row as u64,
            key,
            seqs.and_then(|s| s.get(row)),
            kinds.and_then(|k| k.get(row)),
        )?);
    }
    drop(batch);
    if spec.values && !out.records.is_empty() && !sel.values.is_empty() {
        let names: Vec<&str> = sel.values.iter().map(|&i| name(i)).collect();
        let values = read(&names).context(|| "value columns".into())?;
        for r in &mut out.records {
            let row = usize::try_from(r.position).unwrap_or(usize::MAX);
            r.values = values
                .iter()
                .map(|c| c.get(row).cloned().unwrap_or(Value::Null))
                .collect();
        }
    }
    Ok(out)
}

/// Reads an Avro data file: every row decoded, the rows kept with their values.
fn read_avro(
    file: &AvroDataFile<'_>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    // Indices of readable columns in the file's own column order.
    let readable: Vec<usize> = (0..file.columns().len())
        .filter(|&i| file.columns().get(i).is_some_and(|c| c.readable))
        .collect();
    let columns: Vec<Column<'_>> = readable
        .iter()
        .filter_map(|&i| file.columns().get(i))
        .map(|c| Column {
            name: &c.name,
            logical: c.logical,
        })
        .collect();
    let sel = select(&columns, spec)?;
    let at = |i: usize| readable.get(i).copied().unwrap_or(usize::MAX);
    let mut wanted = vec![false; file.columns().len()];
    let mut want = |i: usize| {
        if let Some(w) = wanted.get_mut(at(i)) {
            *w = true;
        }
    };
    sel.keys.iter().for_each(|&i| want(i));
    sel.seq.into_iter().chain(sel.kind).for_each(&mut want);
    if spec.values {
        sel.values.iter().for_each(|&i| want(i));
    }
    let mut out = frame(&columns, &sel, spec, 0);
    let get = |row: &[Value], i: usize| row.get(at(i)).cloned().unwrap_or(Value::Null);
    let total = file.for_each_row(&wanted, limits, |n, row| {
        let key = Key(sel.keys.iter().map(|&i| get(row, i)).collect());
        if out.key_sample.is_none() {
            out.key_sample = Some(key.clone());
        }
        if !keep(&key) {
            return Ok(());
        }
        rows_budget(&out, limits)?;
        let seq = sel.seq.map(|i| get(row, i));
        let kind = sel.kind.map(|i| get(row, i));
        let mut r = record(n, key, seq.as_ref(), kind.as_ref())?;
        if spec.values {
            r.values = sel.values.iter().map(|&i| get(row, i)).collect();
        }
        out.records.push(r);
        Ok(())
    })?;
    out.total_rows = total;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::source::{HostFile, Input};

    /// An artifact of these (path, bytes) files.
    fn artifact(files: &[(&str, &[u8])]) -> Artifact {
        let files = files
            .iter()
            .map(|(path, bytes)| HostFile {
                path: (*path).to_string(),
                modified_millis: None,
                data: Rc::new(bytes.to_vec()),
            })
            .collect();
        let input = Input::Folder {
            name: "x".into(),
            files,
            skipped: 0,
        };
        Artifact::open(vec![input], &Limits::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The error of opening `path`.
    fn open_error(a: &Artifact, path: &str) -> String {
        match open_artifact_file(a, path) {
            Ok(_) => panic!("{path} opened"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_damaged_file_whose_first_bytes_name_another_format_says_both() {
        let a = artifact(&[
            ("b-0/data-1.parquet", b"Obj\x01 not an avro file"),
            ("b-0/data-2.orc", b"PAR1 not a parquet file"),
            ("b-0/data-3.avro", b"ORC not an orc file"),
        ]);
        for (path, named, actual) in [
            ("b-0/data-1.parquet", "parquet", "avro"),
            ("b-0/data-2.orc", "orc", "parquet"),
            ("b-0/data-3.avro", "avro", "orc"),
        ] {
            let e = open_error(&a, path);
            assert!(
                e.starts_with(&format!("{path}: named .{named} but a {actual} file: ")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_damaged_file_of_the_format_its_name_says_gives_that_formats_error() {
        let a = artifact(&[
            ("b-0/data-1.parquet", b"PAR1 truncated"),
            ("b-0/data-2.orc", b"ORC truncated"),
            ("b-0/data-3.avro", b"Obj\x01 truncated"),
        ]);
        for path in ["b-0/data-1.parquet", "b-0/data-2.orc", "b-0/data-3.avro"] {
            let e = open_error(&a, path);
            assert!(e.starts_with(&format!("{path}: ")), "{e}");
            assert!(!e.contains(" but a "), "{e}");
        }
    }

    #[test]
    fn a_file_without_a_format_in_its_name_or_bytes_is_named_with_its_first_bytes() {
        let a = artifact(&[("b-0/data-1", b"\x00\x01\x02\x03\x04")]);
        assert_eq!(
            open_error(&a, "b-0/data-1"),
            "b-0/data-1: expected a Parquet, ORC or Avro file, found 5 bytes starting 00010203"
        );
    }

    /// A primary-key file's columns: `_KEY_id`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `id`, `v`.
    fn pk_columns() -> Vec<Column<'static>> {
        ["_KEY_id", SEQUENCE_NUMBER, VALUE_KIND, "id", "v"]
            .into_iter()
            .map(|name| Column {
                name,
                logical: None,
            })
            .collect()
    }

    /// [`read_columnar`] over three rows (keys 1, 2, 3) of [`pk_columns`], keeping the keys
    /// `kept`; returns the rows and the column names of each read, in order.
    fn read_three(values: bool, kept: &[i64]) -> (FileRows, Vec<Vec<String>>) {
        let reads = std::cell::RefCell::new(Vec::new());
        let read = |names: &[&str]| -> Result<Vec<Vec<Value>>> {
            reads
                .borrow_mut()
                .push(names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
            Ok(names
                .iter()
                .map(|n| {
                    (1..=3)
                        .map(|i| match *n {
                            "_KEY_id" | "id" => Value::Int(i),
                            SEQUENCE_NUMBER => Value::Int(100 + i),
                            VALUE_KIND => Value::Int(0),
                            _ => Value::Str(format!("v{i}").into()),
                        })
                        .collect()
                })
                .collect())
        };
        let spec = ReadSpec {
            keys: KeyColumns::Primary,
            values,
            orc_ltz_legacy: true,
        };
        let keep = |k: &Key| k.as_int().is_some_and(|i| kept.contains(&i));
        let rows = read_columnar(&pk_columns(), 3, &read, &spec, &keep, &Limits::default())
            .unwrap_or_else(|e| panic!("{e}"));
        (rows, reads.into_inner())
    }

    #[test]
    fn value_columns_are_read_only_when_asked_for_and_a_row_is_kept() {
        let keys_read = vec!["_KEY_id", SEQUENCE_NUMBER, VALUE_KIND];
        let (rows, reads) = read_three(true, &[2]);
        assert_eq!(reads, [keys_read.clone(), vec!["id", "v"]]);
        assert_eq!(
            (rows.key_names, rows.value_names),
            (
                vec!["id".to_string()],
                vec!["id".to_string(), "v".to_string()]
            )
        );
        assert_eq!(rows.records.len(), 1);
        let r = &rows.records[0];
        assert_eq!((r.seq, r.position), (102, 1));
        assert_eq!(r.values, [Value::Int(2), Value::Str("v2".into())]);
        // No row kept: the value columns are not read (a damaged one would fail the file).
        let (rows, reads) = read_three(true, &[]);
        assert_eq!(reads, std::slice::from_ref(&keys_read));
        assert!(rows.records.is_empty());
        assert_eq!(rows.key_sample, Some(Key::one(Value::Int(1))));
        // Values not asked for: not read, and the rows kept have none.
        let (rows, reads) = read_three(false, &[1, 3]);
        assert_eq!(reads, [keys_read]);
        assert!(rows.value_names.is_empty());
        assert_eq!(rows.records.len(), 2);
        assert!(rows.records.iter().all(|r| r.values.is_empty()));
    }

    #[test]
    fn only_top_level_parquet_columns_are_read() {
        // `id`, the struct `st` (`st.a`, `st.b`) and the list `li` (not readable).
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/parquet/generated/nested.parquet");
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{e}"));
        let limits = Limits::default();
        let file = ParquetFile::open(bytes.as_slice(), &limits).unwrap_or_else(|e| panic!("{e}"));
        let spec = ReadSpec {
            keys: KeyColumns::AllValues,
            values: true,
            orc_ltz_legacy: true,
        };
        let keep = |k: &Key| k.0.first().and_then(Value::as_i64) == Some(7);
        let rows = read_parquet(&file, &spec, &keep, &limits).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (rows.key_names.clone(), rows.value_names.clone()),
            (vec!["id".to_string()], vec!["id".to_string()])
        );
        assert_eq!(rows.total_rows, 60);
        assert_eq!(rows.records.len(), 1);
        assert_eq!(rows.records[0].key, Key::one(Value::Int(7)));
        assert_eq!(rows.records[0].values, [Value::Int(7)]);
    }
}
