//! An ORC data or changelog file's rows as [`FileRows`], the shape the Parquet path gives
//! (`crate::rows::read::read_parquet`): key columns (`_KEY_*` without the prefix, a named id,
//! or every value column), `_SEQUENCE_NUMBER`, `_VALUE_KIND`, the value columns of the rows
//! kept, and each row's position (for deletion vectors). Key columns are read first, values
//! only if a row is kept.

use std::collections::HashSet;

use super::{OrcColumn, OrcFile};
use crate::error::{Error, Result, ResultExt};
use crate::limits::Limits;
use crate::parquet::{ArtifactFile, ParquetSource, Value};
use crate::rows::read::{
    FileRows, KeyColumns, ReadSpec, Record, KEY_PREFIX, SEQUENCE_NUMBER, VALUE_KIND,
};
use crate::rows::{Key, RowKind};
use crate::source::Artifact;

fn is_system(name: &str) -> bool {
    name.starts_with(KEY_PREFIX) || name == SEQUENCE_NUMBER || name == VALUE_KIND
}

/// Reads an ORC file of the artifact.
pub fn read_artifact_orc(
    artifact: &Artifact,
    path: &str,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
) -> Result<FileRows> {
    let entry = artifact
        .get(path)
        .ok_or_else(|| Error::missing("the file is not in the artifact").in_file(path))?;
    let limits = artifact.limits();
    let file =
        OrcFile::open(ArtifactFile::new(artifact, entry), limits).map_err(|e| e.in_file(path))?;
    read_orc(&file, spec, keep, limits).map_err(|e| e.in_file(path))
}

/// Reads an open ORC file: the key columns of every row, the values of the rows kept.
pub fn read_orc<S: ParquetSource>(
    file: &OrcFile<S>,
    spec: &ReadSpec,
    keep: &dyn Fn(&Key) -> bool,
    limits: &Limits,
) -> Result<FileRows> {
    let columns = file.columns();
    let value_cols: Vec<&OrcColumn> = columns
        .iter()
        .filter(|c| c.is_readable() && !is_system(&c.name))
        .collect();
    let key_cols: Vec<&OrcColumn> = match &spec.keys {
        KeyColumns::Primary => {
            let k: Vec<_> = columns
                .iter()
                .filter(|c| c.is_readable() && c.name.starts_with(KEY_PREFIX))
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
    let col = |name: &str| {
        first
            .iter()
            .position(|n| *n == name)
            .and_then(|i| batch.get(i))
    };
    let seqs = if has_seq { col(SEQUENCE_NUMBER) } else { None };
    let kinds = if has_kind { col(VALUE_KIND) } else { None };
    let num_rows = batch.first().map_or(0, Vec::len);
    let mut records = Vec::new();
    for row in 0..num_rows {
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
                .iter()
                .map(|c| c.get(row).cloned().unwrap_or(Value::Null))
                .collect();
        }
    }
    let key_names = key_cols
        .iter()
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
