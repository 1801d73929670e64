//! Reading one Paimon data or changelog file (Parquet, or ORC through `crate::orc`) into
//! records.
//!
//! Primary-key tables store `_KEY_<trimmed primary key fields>`, `_SEQUENCE_NUMBER`,
//! `_VALUE_KIND` (the row kind as a TINYINT) and then the value fields (all the table's fields)
//! in every data and changelog file (`KeyValueDataFileWriter`, `KeyValue.schema`). Append tables
//! store the table's fields only. Only the columns needed are read; key columns first, then the
//! value columns if any row is kept.

use std::collections::HashSet;

use crate::error::{Error, Result, ResultExt};
use crate::limits::Limits;
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
}

impl FileRows {
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

/// Opens a Parquet file of the artifact (its footer read; a small file is read whole and kept).
pub fn open_artifact_file<'a>(
    artifact: &'a Artifact,
    path: &str,
) -> Result<ParquetFile<ArtifactFile<'a>>> {
    let entry = artifact
        .get(path)
        .ok_or_else(|| Error::missing("the file is not in the artifact").in_file(path))?;
    ParquetFile::open(ArtifactFile::new(artifact, entry), artifact.limits())
        .map_err(|e| e.in_file(path))
}

/// Reads a file of the artifact (ORC files by `crate::orc`, the others as Parquet).
pub fn read_artifact_file(
    artifact: &Artifact,
    path: &str,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
) -> Result<FileRows> {
    if crate::orc::is_orc_file(artifact, path) {
        return crate::orc::rows::read_artifact_orc(artifact, path, spec, keep);
    }
    let entry = artifact
        .get(path)
        .ok_or_else(|| Error::missing("the file is not in the artifact").in_file(path))?;
    let limits = artifact.limits();
    let file = ParquetFile::open(ArtifactFile::new(artifact, entry), limits)
        .map_err(|e| e.in_file(path))?;
    read_parquet(&file, spec, keep, limits).map_err(|e| e.in_file(path))
}

/// Reads an open Parquet file: the key columns of every row, the values of the rows kept.
pub fn read_parquet<S: ParquetSource>(
    file: &ParquetFile<S>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let columns = file.columns();
    let top_level = |c: &&crate::parquet::ColumnInfo| c.path.len() == 1 && c.is_readable();
    let value_cols: Vec<&crate::parquet::ColumnInfo> = columns
        .iter()
        .filter(top_level)
        .filter(|c| !is_system(&c.name))
        .collect();
    let key_cols: Vec<&crate::parquet::ColumnInfo> = match &spec.keys {
        KeyColumns::Primary => {
            let k: Vec<_> = columns
                .iter()
                .filter(top_level)
                .filter(|c| c.name.starts_with(KEY_PREFIX))
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
                file.column(n).ok_or_else(|| {
                    Error::missing(format!(
                        "no column {n:?} (columns: {})",
                        columns
                            .iter()
                            .map(|c| c.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
            })
            .collect::<Result<_>>()?,
        KeyColumns::AllValues => value_cols.clone(),
    };
    let has_seq = file.column(SEQUENCE_NUMBER).is_some();
    let has_kind = file.column(VALUE_KIND).is_some();
    let mut first: Vec<&str> = key_cols.iter().map(|c| c.name.as_str()).collect();
    if has_seq {
        first.push(SEQUENCE_NUMBER);
    }
    if has_kind {
        first.push(VALUE_KIND);
    }
    let mut seen = HashSet::new();
    first.retain(|n| seen.insert(*n));
    let batch = file
        .read_columns(&first, limits)
        .context(|| "key columns".into())?;
    let nk = key_cols.len();
    let col = |name: &str| batch.column(name).map(|c| &c.values);
    let seqs = if has_seq { col(SEQUENCE_NUMBER) } else { None };
    let kinds = if has_kind { col(VALUE_KIND) } else { None };
    let mut records = Vec::new();
    for row in 0..batch.num_rows {
        let key = Key(key_cols
            .iter()
            .map(|c| {
                col(&c.name)
                    .and_then(|v| v.get(row))
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect());
        if !keep(&key) {
            continue;
        }
        let seq = match seqs.and_then(|s| s.get(row)) {
            Some(v) => v
                .as_i64()
                .ok_or_else(|| Error::format(format!("row {row}: _SEQUENCE_NUMBER is {v:?}")))?,
            None => row as i64,
        };
        let kind = match kinds.and_then(|k| k.get(row)) {
            Some(v) => v.as_i64().and_then(RowKind::from_byte).ok_or_else(|| {
                Error::format(format!(
                    "row {row}: _VALUE_KIND is {}, not 0..3 (+I, -U, +U, -D)",
                    v.render(None)
                ))
            })?,
            None => RowKind::Insert,
        };
        records.push(Record {
            key,
            seq,
            kind,
            position: row as u64,
            values: Vec::new(),
        });
    }
    drop(batch);
    let (value_names, value_types) = if spec.values {
        (
            value_cols.iter().map(|c| c.name.clone()).collect(),
            value_cols.iter().map(|c| c.logical).collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    if spec.values && !records.is_empty() && !value_cols.is_empty() {
        let names: Vec<&str> = value_cols.iter().map(|c| c.name.as_str()).collect();
        let values = file
            .read_columns(&names, limits)
            .context(|| "value columns".into())?;
        for r in &mut records {
            let row = usize::try_from(r.position).unwrap_or(usize::MAX);
            r.values = values
                .columns
                .iter()
                .map(|c| c.values.get(row).cloned().unwrap_or(Value::Null))
                .collect();
        }
    }
    let key_names = key_cols
        .iter()
        .take(nk)
        .map(|c| {
            c.name
                .strip_prefix(KEY_PREFIX)
                .filter(|_| spec.keys == KeyColumns::Primary)
                .unwrap_or(&c.name)
                .to_string()
        })
        .collect();
    Ok(FileRows {
        key_names,
        key_types: key_cols.iter().map(|c| c.logical).collect(),
        value_names,
        value_types,
        records,
        total_rows: file.num_rows(),
    })
}
