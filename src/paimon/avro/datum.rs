//! Avro data and changelog files (`file.format` / `changelog-file.format` = `avro`): the rows of
//! an object container file whose writer schema is a record, or `["null", record]` as Paimon's
//! `AvroSchemaConverter` writes it (`paimon-format.md` §1.9), decoded into
//! [`crate::parquet::Value`]s so that the row evidence reads them as it reads Parquet.
//!
//! Top-level fields of a primitive type (optionally in a union with `null`), `fixed` and `enum`
//! are readable columns; records, arrays and maps are skipped (as the Parquet reader skips
//! nested columns). Logical types give the column's [`LogicalType`] (decimal, date, time,
//! timestamp) for rendering. Blocks are framed, decompressed and bounded as every Avro file of
//! the core ([`super::container`]: `max-avro-blocks`, `max-avro-records`,
//! `max-avro-block-bytes`, `max-entry-bytes`; zstd through `crate::codec::zstd`).

use std::sync::Arc;

use serde_json::Value as J;

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::parquet::{LogicalType, TimeUnit, Value};

use super::codec::Decompressor;
use super::container::{self, Framing};
use super::decode::{skip, union_branch, Cursor};
use super::schema::{Node, NodeId, WriterSchema};

/// How deep a value may nest inside a column (unions of unions); the decoder steps over deeper
/// values with the shared skip, which has its own bound.
const MAX_DEPTH: u32 = 8;

/// One top-level field of the writer record.
#[derive(Debug, Clone, PartialEq)]
pub struct AvroColumn {
    /// The field name.
    pub name: String,
    /// Its logical type, if the schema names one the reports render.
    pub logical: Option<LogicalType>,
    /// Whether its values are decoded (primitives, `fixed`, `enum`, optionally nullable).
    pub readable: bool,
}

/// An Avro data file, its header parsed.
#[derive(Debug)]
pub struct AvroDataFile<'b> {
    bytes: &'b [u8],
    framing: Framing,
    schema: WriterSchema,
    /// The root union's record branch (Paimon writes `["null", record]`), if any.
    nullable_root: Option<usize>,
    fields: Vec<NodeId>,
    columns: Vec<AvroColumn>,
}

/// Parses the header and the writer schema of an Avro data file.
pub fn open_data_file(bytes: &[u8]) -> Result<AvroDataFile<'_>> {
    let (schema_bytes, framing) = container::read_header_raw(bytes)?;
    let text = std::str::from_utf8(schema_bytes).map_err(|_| container::not_utf8())?;
    let schema = WriterSchema::parse(text).map_err(|e| e.context("avro.schema"))?;
    let json: J = serde_json::from_str(text)
        .map_err(|e| Error::format(format!("avro.schema: expected JSON, found {e}")))?;
    let (nullable_root, record) = match schema.node(schema.root()) {
        Node::Union(branches) => {
            let found = branches
                .iter()
                .enumerate()
                .find(|(_, b)| matches!(schema.node(**b), Node::Record { .. }));
            match found {
                Some((i, b)) => (Some(i), *b),
                None => return Err(not_a_record(&schema)),
            }
        }
        Node::Record { .. } => (None, schema.root()),
        _ => return Err(not_a_record(&schema)),
    };
    let Node::Record { fields, .. } = schema.node(record) else {
        return Err(not_a_record(&schema));
    };
    let json_fields = record_json(&json)
        .and_then(|r| r.get("fields"))
        .and_then(J::as_array);
    let columns = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let field_json = json_fields
                .and_then(|fs| fs.get(i))
                .and_then(|f| f.get("type"));
            AvroColumn {
                name: f.name.clone(),
                logical: field_json.and_then(logical_type),
                readable: readable(&schema, f.node),
            }
        })
        .collect();
    Ok(AvroDataFile {
        bytes,
        framing,
        nullable_root,
        fields: fields.iter().map(|f| f.node).collect(),
        columns,
        schema,
    })
}

fn not_a_record(schema: &WriterSchema) -> Error {
    Error::format(format!(
        "expected a record (or [\"null\", record]) as the data file's Avro schema, found {}",
        schema.describe(schema.root())
    ))
}

/// The record object of the schema JSON (the root, or the root union's record branch).
fn record_json(json: &J) -> Option<&J> {
    match json {
        J::Array(branches) => branches
            .iter()
            .find(|b| b.get("type").and_then(J::as_str) == Some("record")),
        J::Object(_) => Some(json),
        _ => None,
    }
}

/// A field type's logical type: `{"type": "long", "logicalType": …}`, possibly in a union
/// with `null`.
fn logical_type(ty: &J) -> Option<LogicalType> {
    match ty {
        J::Array(branches) => branches.iter().find_map(logical_type),
        J::String(s) if s == "string" => Some(LogicalType::String),
        J::Object(m) => {
            let unit = |name: &str| {
                if name.ends_with("millis") {
                    TimeUnit::Millis
                } else if name.ends_with("micros") {
                    TimeUnit::Micros
                } else {
                    TimeUnit::Nanos
                }
            };
            match m.get("logicalType").and_then(J::as_str) {
                Some("decimal") => Some(LogicalType::Decimal {
                    precision: m
                        .get("precision")
                        .and_then(J::as_i64)
                        .and_then(|p| i32::try_from(p).ok())
                        .unwrap_or(0),
                    scale: m
                        .get("scale")
                        .and_then(J::as_i64)
                        .and_then(|s| i32::try_from(s).ok())
                        .unwrap_or(0),
                }),
                Some("date") => Some(LogicalType::Date),
                Some(t @ ("time-millis" | "time-micros")) => Some(LogicalType::Time {
                    unit: unit(t),
                    utc: false,
                }),
                // Avro's own meaning: `timestamp-*` is an instant, `local-timestamp-*` a local
                // date-time.
                Some(t @ ("timestamp-millis" | "timestamp-micros" | "timestamp-nanos")) => {
                    Some(LogicalType::Timestamp {
                        unit: unit(t),
                        utc: true,
                    })
                }
                Some(
                    t @ ("local-timestamp-millis"
                    | "local-timestamp-micros"
                    | "local-timestamp-nanos"),
                ) => Some(LogicalType::Timestamp {
                    unit: unit(t),
                    utc: false,
                }),
                _ => m.get("type").and_then(logical_type),
            }
        }
        _ => None,
    }
}

/// Whether values of `node` decode to one [`Value`].
fn readable(schema: &WriterSchema, node: NodeId) -> bool {
    match schema.node(node) {
        Node::Record { .. } | Node::Array(_) | Node::Map(_) => false,
        Node::Union(branches) => branches.iter().all(|b| {
            !matches!(
                schema.node(*b),
                Node::Record { .. } | Node::Array(_) | Node::Map(_) | Node::Union(_)
            )
        }),
        _ => true,
    }
}

impl AvroDataFile<'_> {
    /// The top-level fields, in writer order.
    pub fn columns(&self) -> &[AvroColumn] {
        &self.columns
    }

    /// The index of the column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Decodes every row, handing `(row number, values)` to `f`: the values of the columns
    /// `wanted[i]` (readable ones only), [`Value::Null`] for the others. Returns the rows read.
    pub fn for_each_row(
        &self,
        wanted: &[bool],
        limits: &Limits,
        mut f: impl FnMut(u64, &[Value]) -> Result<()>,
    ) -> Result<u64> {
        let mut decompressor = Decompressor::default();
        let mut row = 0u64;
        let mut values = vec![Value::Null; self.fields.len()];
        container::for_each_block(
            self.bytes,
            &self.framing,
            limits,
            &mut decompressor,
            |block, count, data| {
                let mut cur = Cursor::new(data);
                for _ in 0..count {
                    self.decode_row(&mut cur, wanted, &mut values)
                        .and_then(|()| f(row, &values))
                        .map_err(|e| {
                            e.context(format!("record {row}"))
                                .context(format!("block {block}"))
                        })?;
                    row += 1;
                }
                if !cur.is_empty() {
                    return Err(Error::format(format!(
                        "expected {count} records to fill the block, found {} bytes left over",
                        cur.remaining()
                    ))
                    .context(format!("block {block}")));
                }
                Ok(())
            },
        )?;
        Ok(row)
    }

    fn decode_row(&self, cur: &mut Cursor<'_>, wanted: &[bool], out: &mut [Value]) -> Result<()> {
        if let Some(record_branch) = self.nullable_root {
            let b = cur.read_long()?;
            if usize::try_from(b).ok() != Some(record_branch) {
                return Err(Error::format(format!(
                    "expected a record (union branch {record_branch}), found branch {b}"
                )));
            }
        }
        for (i, (node, slot)) in self.fields.iter().zip(out.iter_mut()).enumerate() {
            let column = self.columns.get(i);
            let name = column.map_or("", |c| c.name.as_str());
            if wanted.get(i).copied().unwrap_or(false) && column.is_some_and(|c| c.readable) {
                *slot = decode_value(&self.schema, *node, cur, 0)
                    .map_err(|e| e.context(format!("field {name}")))?;
            } else {
                *slot = Value::Null;
                skip(&self.schema, *node, cur, 0)
                    .map_err(|e| e.context(format!("field {name}")))?;
            }
        }
        Ok(())
    }
}

/// One value of a readable type.
fn decode_value(
    schema: &WriterSchema,
    node: NodeId,
    cur: &mut Cursor<'_>,
    depth: u32,
) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(Error::format(
            "expected a value, found unions nested too deep",
        ));
    }
    Ok(match schema.node(node) {
        Node::Null => Value::Null,
        Node::Boolean => Value::Bool(cur.take(1, "boolean")?.first().is_some_and(|b| *b != 0)),
        Node::Int | Node::Long | Node::Enum { .. } => Value::Int(cur.read_long()?),
        Node::Float => {
            let b = cur.take(4, "float")?;
            Value::Float(f32::from_le_bytes(
                b.try_into().map_err(|_| Error::format("float"))?,
            ))
        }
        Node::Double => {
            let b = cur.take(8, "double")?;
            Value::Double(f64::from_le_bytes(
                b.try_into().map_err(|_| Error::format("double"))?,
            ))
        }
        Node::Bytes => Value::Bytes(Arc::from(cur.read_bytes()?)),
        Node::String => Value::Str(Arc::from(cur.read_str()?)),
        Node::Fixed(n) => Value::FixedBytes(Arc::from(cur.take(*n, "fixed")?)),
        Node::Union(branches) => {
            let b = *union_branch(cur, branches)?;
            return decode_value(schema, b, cur, depth + 1);
        }
        Node::Record { .. } | Node::Array(_) | Node::Map(_) => {
            skip(schema, node, cur, depth)?;
            Value::Null
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::super::testutil::{ocf, Val};
    use super::super::Codec;
    use super::*;
    use proptest::prelude::*;

    const SCHEMA: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_KEY_id","type":"long"},{"name":"_SEQUENCE_NUMBER","type":"long"},{"name":"_VALUE_KIND","type":"int"},{"name":"id","type":"long"},{"name":"v","type":["null","string"],"default":null},{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"tags","type":{"type":"array","items":"string"}}]}]"#;

    fn row(id: i64, v: Option<&str>, ts: Option<i64>) -> Val {
        Val::Union(
            1,
            Box::new(Val::Rec(vec![
                Val::Long(id),
                Val::Long(id.wrapping_mul(10)),
                Val::Long(2),
                Val::Long(id),
                match v {
                    Some(s) => Val::Union(1, Box::new(Val::Str(s.into()))),
                    None => Val::Union(0, Box::new(Val::Null)),
                },
                match ts {
                    Some(t) => Val::Union(1, Box::new(Val::Long(t))),
                    None => Val::Union(0, Box::new(Val::Null)),
                },
                Val::Arr(vec![Val::Str("a".into())]),
            ])),
        )
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<Vec<Value>>> {
        let f = open_data_file(bytes)?;
        let wanted = vec![true; f.columns().len()];
        let mut out = Vec::new();
        f.for_each_row(&wanted, &Limits::default(), |_, v| {
            out.push(v.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn columns_and_logical_types() {
        let bytes = ocf(SCHEMA, Codec::Null, &[vec![row(1, Some("x"), None)]]);
        let f = open_data_file(&bytes).unwrap();
        let names: Vec<&str> = f.columns().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "_KEY_id",
                "_SEQUENCE_NUMBER",
                "_VALUE_KIND",
                "id",
                "v",
                "ts",
                "tags"
            ]
        );
        assert_eq!(f.columns()[4].logical, Some(LogicalType::String));
        assert_eq!(
            f.columns()[5].logical,
            Some(LogicalType::Timestamp {
                unit: TimeUnit::Millis,
                utc: true
            })
        );
        assert!(!f.columns()[6].readable && f.columns()[5].readable);
    }

    #[test]
    fn a_schema_that_is_not_a_record_is_refused() {
        let bytes = ocf(r#""long""#, Codec::Null, &[vec![Val::Long(1)]]);
        let e = open_data_file(&bytes).unwrap_err();
        assert!(e.to_string().contains("expected a record"), "{e}");
        let e = open_data_file(b"PAR1....PAR1").unwrap_err();
        assert!(e.to_string().contains("not an Avro file"), "{e}");
    }

    proptest! {
        /// What is written comes back, in every codec, over several blocks; truncation is an
        /// error, never a panic or a short read taken for the whole file.
        #[test]
        fn round_trip(rows in proptest::collection::vec(
                (any::<i64>(), proptest::option::of("[a-z]{0,12}"), proptest::option::of(any::<i64>())), 0..40),
                split in 0usize..40, cut in 1usize..16) {
            for codec in [Codec::Null, Codec::Deflate, Codec::Snappy, Codec::Zstandard] {
                let vals: Vec<Val> = rows.iter().map(|(id, v, ts)| row(*id, v.as_deref(), *ts)).collect();
                let at = split.min(vals.len());
                let blocks = vec![vals[..at].to_vec(), vals[at..].to_vec()];
                let bytes = ocf(SCHEMA, codec, &blocks);
                let got = read_all(&bytes).unwrap();
                prop_assert_eq!(got.len(), rows.len());
                for (g, (id, v, ts)) in got.iter().zip(&rows) {
                    prop_assert_eq!(&g[0], &Value::Int(*id));
                    prop_assert_eq!(&g[1], &Value::Int(id.wrapping_mul(10)));
                    let want_v = v.as_deref().map_or(Value::Null, |s| Value::Str(Arc::from(s)));
                    prop_assert_eq!(&g[4], &want_v);
                    prop_assert_eq!(&g[5], &ts.map_or(Value::Null, Value::Int));
                    prop_assert_eq!(&g[6], &Value::Null);
                }
                if !rows.is_empty() && cut < bytes.len() {
                    prop_assert!(read_all(&bytes[..bytes.len() - cut]).is_err());
                }
            }
        }
    }
}
