//! The writer schema embedded in an Avro file (`avro.schema`), parsed into a small graph.
//!
//! Supported: the primitives, records (and `error`), enums, arrays, maps, unions, fixed, and
//! references to named types (full names, or short names resolved in the enclosing namespace).
//! Logical types (`timestamp-millis`, `decimal`, …) are ignored: only the underlying type
//! matters for decoding. Record names are kept for messages only; nothing depends on them.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, Result};

/// Index of a type in a [`WriterSchema`].
pub(crate) type NodeId = usize;

/// One writer type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Record { name: String, fields: Vec<Field> },
    Enum { symbols: usize },
    Array(NodeId),
    Map(NodeId),
    Union(Vec<NodeId>),
    Fixed(usize),
}

/// A field of a writer record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) node: NodeId,
}

/// A parsed writer schema: a graph of types (named types may refer to themselves).
#[derive(Debug, Clone)]
pub(crate) struct WriterSchema {
    nodes: Vec<Node>,
    zero_width: Vec<bool>,
    root: NodeId,
}

const PRIMITIVES: [(&str, Node); 8] = [
    ("null", Node::Null),
    ("boolean", Node::Boolean),
    ("int", Node::Int),
    ("long", Node::Long),
    ("float", Node::Float),
    ("double", Node::Double),
    ("bytes", Node::Bytes),
    ("string", Node::String),
];

/// Most types one schema may define; far above any Paimon schema (about 40).
const MAX_NODES: usize = 100_000;

impl WriterSchema {
    /// Parses the JSON of `avro.schema`.
    pub(crate) fn parse(json: &str) -> Result<WriterSchema> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| Error::format(format!("expected an Avro schema in JSON, found {e}")))?;
        let mut p = Parser {
            nodes: PRIMITIVES.iter().map(|(_, n)| n.clone()).collect(),
            names: HashMap::new(),
        };
        let root = p.parse(&value, "")?;
        let zero_width = compute_zero_width(&p.nodes);
        Ok(WriterSchema {
            nodes: p.nodes,
            zero_width,
            root,
        })
    }

    /// The top-level type.
    pub(crate) fn root(&self) -> NodeId {
        self.root
    }

    /// The type at `id` (a valid id always; ids come from this schema).
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        self.nodes.get(id).unwrap_or(&Node::Null)
    }

    /// Whether every value of the type takes zero bytes (null, fixed(0), records of such).
    pub(crate) fn zero_width(&self, id: NodeId) -> bool {
        self.zero_width.get(id).copied().unwrap_or(false)
    }

    /// A short description of a type, for messages.
    pub(crate) fn describe(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Null => "null".into(),
            Node::Boolean => "boolean".into(),
            Node::Int => "int".into(),
            Node::Long => "long".into(),
            Node::Float => "float".into(),
            Node::Double => "double".into(),
            Node::Bytes => "bytes".into(),
            Node::String => "string".into(),
            Node::Record { name, .. } => format!("record {name}"),
            Node::Enum { .. } => "enum".into(),
            Node::Array(item) => format!("array of {}", self.describe_shallow(*item)),
            Node::Map(v) => format!("map of {}", self.describe_shallow(*v)),
            Node::Union(bs) => {
                let parts: Vec<String> = bs.iter().map(|b| self.describe_shallow(*b)).collect();
                format!("union [{}]", parts.join(", "))
            }
            Node::Fixed(n) => format!("fixed({n})"),
        }
    }

    fn describe_shallow(&self, id: NodeId) -> String {
        match self.node(id) {
            Node::Array(_) => "array".into(),
            Node::Map(_) => "map".into(),
            Node::Union(_) => "union".into(),
            _ => self.describe(id),
        }
    }
}

struct Parser {
    nodes: Vec<Node>,
    names: HashMap<String, NodeId>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Parser {
    fn push(&mut self, node: Node) -> Result<NodeId> {
        if self.nodes.len() >= MAX_NODES {
            return Err(Error::format(format!(
                "expected at most {MAX_NODES} types in the Avro schema, found more"
            )));
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn parse(&mut self, v: &Value, ns: &str) -> Result<NodeId> {
        match v {
            Value::String(s) => self.named(s, ns),
            Value::Array(items) => {
                let mut branches = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let b = self
                        .parse(item, ns)
                        .map_err(|e| e.context(format!("union branch {i}")))?;
                    branches.push(b);
                }
                self.push(Node::Union(branches))
            }
            Value::Object(map) => {
                let ty = map.get("type").ok_or_else(|| {
                    Error::format("expected \"type\" in an Avro schema object, found none")
                })?;
                let ty = match ty {
                    Value::String(s) => s.as_str(),
                    // Lenient: {"type": {"type": "int"}} or {"type": ["null", "int"]}.
                    other => return self.parse(other, ns),
                };
                match ty {
                    "record" | "error" => self.record(map, ns),
                    "enum" => {
                        let symbols = match map.get("symbols") {
                            Some(Value::Array(s)) => s.len(),
                            _ => 0,
                        };
                        let id = self.push(Node::Enum { symbols })?;
                        self.register(map, ns, id);
                        Ok(id)
                    }
                    "fixed" => {
                        let size = map
                            .get("size")
                            .and_then(Value::as_u64)
                            .and_then(|s| usize::try_from(s).ok())
                            .ok_or_else(|| {
                                Error::format("expected a \"size\" for an Avro fixed type")
                            })?;
                        let id = self.push(Node::Fixed(size))?;
                        self.register(map, ns, id);
                        Ok(id)
                    }
                    "array" => {
                        let items = map.get("items").ok_or_else(|| {
                            Error::format("expected \"items\" in an Avro array type, found none")
                        })?;
                        let item = self.parse(items, ns)?;
                        self.push(Node::Array(item))
                    }
                    "map" => {
                        let values = map.get("values").ok_or_else(|| {
                            Error::format("expected \"values\" in an Avro map type, found none")
                        })?;
                        let value = self.parse(values, ns)?;
                        self.push(Node::Map(value))
                    }
                    other => self.named(other, ns),
                }
            }
            other => Err(Error::format(format!(
                "expected an Avro schema (a string, an array or an object), found {}",
                type_name(other)
            ))),
        }
    }

    /// A primitive name or a reference to a named type defined earlier.
    fn named(&mut self, name: &str, ns: &str) -> Result<NodeId> {
        if let Some(i) = PRIMITIVES.iter().position(|(n, _)| *n == name) {
            return Ok(i);
        }
        let found = if name.contains('.') || ns.is_empty() {
            self.names.get(name)
        } else {
            self.names
                .get(&format!("{ns}.{name}"))
                .or_else(|| self.names.get(name))
        };
        found.copied().ok_or_else(|| {
            Error::format(format!(
                "expected an Avro type name, found unknown name {name:?}"
            ))
        })
    }

    /// The full name of a named type and its namespace.
    fn full_name(map: &serde_json::Map<String, Value>, ns: &str) -> (String, String) {
        let name = map.get("name").and_then(Value::as_str).unwrap_or("");
        if name.contains('.') {
            let space = name.rsplit_once('.').map(|(a, _)| a).unwrap_or("");
            return (name.to_string(), space.to_string());
        }
        let space = map
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or(ns)
            .to_string();
        if space.is_empty() {
            (name.to_string(), space)
        } else {
            (format!("{space}.{name}"), space)
        }
    }

    fn register(&mut self, map: &serde_json::Map<String, Value>, ns: &str, id: NodeId) {
        let (full, _) = Self::full_name(map, ns);
        if !full.is_empty() {
            // Lenient: a redefinition replaces the earlier one.
            self.names.insert(full, id);
        }
    }

    fn record(&mut self, map: &serde_json::Map<String, Value>, ns: &str) -> Result<NodeId> {
        let (full, space) = Self::full_name(map, ns);
        let id = self.push(Node::Record {
            name: full.clone(),
            fields: Vec::new(),
        })?;
        if !full.is_empty() {
            self.names.insert(full.clone(), id);
        }
        let raw_fields = match map.get("fields") {
            Some(Value::Array(f)) => f,
            Some(other) => {
                return Err(Error::format(format!(
                    "expected the fields of record {full} as an array, found {}",
                    type_name(other)
                )))
            }
            None => {
                return Err(Error::format(format!(
                    "expected \"fields\" in record {full}, found none"
                )))
            }
        };
        let mut fields = Vec::with_capacity(raw_fields.len());
        for (i, f) in raw_fields.iter().enumerate() {
            let name = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    Error::format(format!("expected a name for field {i} of record {full}"))
                })?
                .to_string();
            let ty = f.get("type").ok_or_else(|| {
                Error::format(format!(
                    "expected a type for field {name} of record {full}, found none"
                ))
            })?;
            let node = self
                .parse(ty, &space)
                .map_err(|e| e.context(format!("field {name}")))?;
            fields.push(Field { name, node });
        }
        if let Some(Node::Record { fields: slot, .. }) = self.nodes.get_mut(id) {
            *slot = fields;
        }
        Ok(id)
    }
}

/// Least fixpoint: a type is zero-width if every value of it takes no bytes.
fn compute_zero_width(nodes: &[Node]) -> Vec<bool> {
    let mut zero = vec![false; nodes.len()];
    loop {
        let mut changed = false;
        for (i, n) in nodes.iter().enumerate() {
            if zero.get(i).copied().unwrap_or(true) {
                continue;
            }
            let z = match n {
                Node::Null | Node::Fixed(0) => true,
                Node::Record { fields, .. } => fields
                    .iter()
                    .all(|f| zero.get(f.node).copied().unwrap_or(false)),
                _ => false,
            };
            if z {
                if let Some(slot) = zero.get_mut(i) {
                    *slot = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return zero;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_paimon_08_union_wrapped_schema() {
        let s = WriterSchema::parse(
            r#"["null", {"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated",
              "fields":[{"name":"_VERSION","type":"int"},
                        {"name":"_FILE","type":["null",{"type":"record","name":"record__FILE","fields":[
                            {"name":"_FILE_NAME","type":"string"},
                            {"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
                            {"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}}]}],"default":null}]}]"#,
        )
        .unwrap();
        let Node::Union(b) = s.node(s.root()) else {
            panic!("root is not a union")
        };
        assert_eq!(s.node(b[0]), &Node::Null);
        let Node::Record { name, fields } = s.node(b[1]) else {
            panic!("not a record")
        };
        assert_eq!(name, "org.apache.paimon.avro.generated.record");
        assert_eq!(fields.len(), 2);
        assert_eq!(s.describe(fields[0].node), "int");
        assert_eq!(
            s.describe(fields[1].node),
            "union [null, record org.apache.paimon.avro.generated.record__FILE]"
        );
    }

    #[test]
    fn named_references_and_recursion() {
        let s = WriterSchema::parse(
            r#"{"type":"record","name":"List","namespace":"a.b","fields":[
                 {"name":"v","type":{"type":"fixed","name":"F4","size":4}},
                 {"name":"w","type":"F4"},
                 {"name":"x","type":"a.b.F4"},
                 {"name":"next","type":["null","List"]},
                 {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
                 {"name":"m","type":{"type":"map","values":"E"}}]}"#,
        )
        .unwrap();
        let Node::Record { fields, .. } = s.node(s.root()) else {
            panic!()
        };
        assert_eq!(fields[0].node, fields[1].node);
        assert_eq!(fields[0].node, fields[2].node);
        let Node::Union(b) = s.node(fields[3].node) else {
            panic!()
        };
        assert_eq!(b[1], s.root());
        assert!(!s.zero_width(s.root()));
    }

    #[test]
    fn zero_width_types() {
        let s = WriterSchema::parse(
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"null"},
                {"name":"b","type":{"type":"record","name":"S","fields":[]}},
                {"name":"c","type":{"type":"fixed","name":"Z","size":0}}]}"#,
        )
        .unwrap();
        assert!(s.zero_width(s.root()));
    }

    #[test]
    fn bad_schemas_are_errors() {
        for bad in [
            "",
            "{",
            "42",
            r#"{"type":"record","name":"R"}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}"#,
            r#"{"type":"array"}"#,
            r#"{"type":"fixed","name":"F"}"#,
            r#"{"name":"x"}"#,
        ] {
            assert!(WriterSchema::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}\"int\"{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(WriterSchema::parse(&deep).is_err());
    }
}
