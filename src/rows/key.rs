//! Keys: Parquet [`Value`]s with a total order, so rows can be grouped, sorted and looked up
//! deterministically (`BTreeMap`, `BTreeSet`).

use std::cmp::Ordering;

use crate::paimon::schema::TableSchema;
use crate::parquet::Value;

/// A tuple of values (a primary key, an id, a whole row) with a total order: nulls first, then
/// booleans, numbers (integers and floats compared by value), text, bytes.
#[derive(Debug, Clone)]
pub struct Key(pub Vec<Value>);

impl Key {
    /// A key of one value.
    pub fn one(v: Value) -> Key {
        Key(vec![v])
    }

    /// The integer, when the key is one integer.
    pub fn as_int(&self) -> Option<i64> {
        match self.0.as_slice() {
            [Value::Int(v)] => Some(*v),
            _ => None,
        }
    }
}

/// Whether a primary-key file's key columns are the table's (`paimon-format.md` §1.9): one
/// `_KEY_<field>` per field of the trimmed primary key (the primary key without the partition
/// fields, as `TableSchema.trimmedPrimaryKeys` makes it), in that order, each holding values of
/// its field's type (`sample`: the file's first key). `None` when they are; otherwise what is
/// wrong, for an "unknown, because …": a key of another type or name matches no key asked for,
/// and reading past it would show present rows as absent.
pub fn key_columns_problem(
    schema: &TableSchema,
    names: &[String],
    sample: Option<&Key>,
) -> Option<String> {
    let trimmed = trimmed_primary_key(schema);
    if let Some(missing) = trimmed
        .iter()
        .find(|k| !schema.fields.iter().any(|f| &f.name == **k))
    {
        return Some(format!(
            "the table's primary key names {missing}, which is not a field of schema {} ({})",
            schema.id,
            schema
                .fields
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if names.len() != trimmed.len() || names.iter().zip(&trimmed).any(|(a, b)| a != *b) {
        return Some(format!(
            "its key columns are {} but the table's primary key is {}",
            list(names.iter().map(|n| format!("_KEY_{n}"))),
            list(trimmed.iter().map(|n| format!("_KEY_{n}")))
        ));
    }
    let sample = sample?;
    for (name, v) in trimmed.iter().zip(&sample.0) {
        let Some(field) = schema.fields.iter().find(|f| &f.name == *name) else {
            continue;
        };
        let family = type_family(&field.data_type);
        let fits = matches!(
            (family, v),
            (_, Value::Null)
                | (Family::Other, _)
                | (Family::Integer, Value::Int(_))
                | (Family::Text, Value::Str(_) | Value::Bytes(_))
                | (Family::Boolean, Value::Bool(_))
        );
        if !fits {
            return Some(format!(
                "its column _KEY_{name} holds {} but the table's {name} is {}",
                describe(v),
                field.data_type
            ));
        }
    }
    None
}

/// The primary key without the partition fields (`TableSchema.trimmedPrimaryKeys`): the
/// `_KEY_` columns of a file and the fields of its `_MIN_KEY` / `_MAX_KEY`.
pub fn trimmed_primary_key(schema: &TableSchema) -> Vec<&String> {
    let t: Vec<&String> = schema
        .primary_keys
        .iter()
        .filter(|k| !schema.partition_keys.contains(k))
        .collect();
    if t.is_empty() {
        schema.primary_keys.iter().collect()
    } else {
        t
    }
}

/// A file's key range from its manifest entry's `_MIN_KEY` / `_MAX_KEY` (BinaryRows of the
/// trimmed primary key, `paimon-format.md` §3.4), when every key field is an integer or a text
/// type (whose order is the same here and in Paimon's key comparator: numbers by value, text
/// by its UTF-8 bytes). `None` when it cannot be told: the file may then hold any key.
pub fn key_range(schema: &TableSchema, min_key: &[u8], max_key: &[u8]) -> Option<(Key, Key)> {
    use crate::paimon::binary_row::{BinaryRow, Datum, FieldType};
    let types: Vec<FieldType> = trimmed_primary_key(schema)
        .iter()
        .map(|name| {
            schema
                .fields
                .iter()
                .find(|f| &f.name == *name)
                .map(|f| FieldType::parse(&f.data_type))
        })
        .collect::<Option<_>>()?;
    let decode = |bytes: &[u8]| -> Option<Key> {
        let row = BinaryRow::from_serialized(bytes).ok()?;
        if row.arity() != types.len() {
            return None;
        }
        let values = types
            .iter()
            .enumerate()
            .map(|(i, t)| match (t, row.get(i, t).ok()?) {
                (
                    FieldType::TinyInt | FieldType::SmallInt | FieldType::Int | FieldType::BigInt,
                    Datum::Integer(v),
                ) => Some(Value::Int(v)),
                (FieldType::String, Datum::String(s)) => Some(Value::Str(std::sync::Arc::from(s))),
                _ => None,
            })
            .collect::<Option<Vec<Value>>>()?;
        Some(Key(values))
    };
    let (lo, hi) = (decode(min_key)?, decode(max_key)?);
    (lo <= hi).then_some((lo, hi))
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Integer,
    Text,
    Boolean,
    Other,
}

/// The value family of a Paimon type name (`BIGINT NOT NULL`, `VARCHAR(10)`, …); the types whose
/// storage differs between formats (decimals, times, floats, bytes) are not checked.
fn type_family(data_type: &str) -> Family {
    let t = data_type.trim().to_ascii_uppercase();
    let head = t
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    match head {
        "TINYINT" | "SMALLINT" | "INT" | "INTEGER" | "BIGINT" => Family::Integer,
        "CHAR" | "VARCHAR" | "STRING" => Family::Text,
        "BOOLEAN" => Family::Boolean,
        _ => Family::Other,
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Int(i) => format!("an integer ({i})"),
        Value::Float(f) => format!("a float ({f})"),
        Value::Double(f) => format!("a double ({f})"),
        Value::Str(s) => format!("text ({:?})", s.chars().take(40).collect::<String>()),
        Value::Bytes(_) | Value::FixedBytes(_) => "bytes".into(),
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) | Value::Float(_) | Value::Double(_) => 2,
        Value::Str(_) => 3,
        Value::Bytes(_) | Value::FixedBytes(_) => 4,
    }
}

/// The total order of two values.
pub fn cmp_value(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bytes(x) | Value::FixedBytes(x), Value::Bytes(y) | Value::FixedBytes(y)) => {
            x.cmp(y)
        }
        (x, y) if rank(x) == 2 && rank(y) == 2 => {
            let fx = x.as_f64().unwrap_or(0.0);
            let fy = y.as_f64().unwrap_or(0.0);
            fx.total_cmp(&fy)
        }
        (x, y) => rank(x).cmp(&rank(y)),
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.0.iter().zip(other.0.iter()) {
            let c = cmp_value(a, b);
            if c != Ordering::Equal {
                return c;
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

impl Key {
    /// A 64-bit fingerprint, equal for equal keys (numbers are hashed by value, so `2` and
    /// `2.0` agree), to count distinct keys without keeping them.
    pub fn fingerprint(&self, scope: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        scope.hash(&mut h);
        for v in &self.0 {
            rank(v).hash(&mut h);
            match v {
                Value::Null => {}
                Value::Bool(b) => b.hash(&mut h),
                Value::Int(_) | Value::Float(_) | Value::Double(_) => {
                    let f = v.as_f64().unwrap_or(0.0);
                    // Compared with `total_cmp`: equal numbers have equal bits.
                    f.to_bits().hash(&mut h);
                }
                Value::Str(s) => s.hash(&mut h),
                Value::Bytes(b) | Value::FixedBytes(b) => b.hash(&mut h),
            }
        }
        h.finish()
    }
}

/// Inclusive ranges of consecutive integers (`[[0, 74], [80, 80]]`), from sorted integers.
pub fn int_ranges(sorted: impl IntoIterator<Item = i64>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some(last) if last.1.checked_add(1) == Some(v) => last.1 = v,
            Some(last) if last.1 == v => {}
            _ => out.push((v, v)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn keys_order_totally() {
        let mut keys = [
            Key::one(Value::Str(Arc::from("b"))),
            Key::one(Value::Int(3)),
            Key::one(Value::Null),
            Key::one(Value::Double(2.5)),
            Key::one(Value::Int(-1)),
            Key::one(Value::Str(Arc::from("a"))),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(|k| k.0[0].render(None)).collect();
        assert_eq!(shown, ["null", "-1", "2.5", "3", "a", "b"]);
        assert_eq!(Key::one(Value::Int(2)), Key::one(Value::Double(2.0)));
    }

    #[test]
    fn ranges_of_consecutive_integers() {
        assert_eq!(int_ranges([0, 1, 2, 5, 6, 9]), vec![(0, 2), (5, 6), (9, 9)]);
        assert_eq!(int_ranges([7, 7, 8]), vec![(7, 8)]);
        assert_eq!(
            int_ranges([i64::MAX - 1, i64::MAX]),
            vec![(i64::MAX - 1, i64::MAX)]
        );
        assert!(int_ranges([]).is_empty());
    }

    /// A schema with these (name, type) fields, primary key and partition keys.
    fn schema(fields: &[(&str, &str)], primary: &[&str], partition: &[&str]) -> TableSchema {
        let fields: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(i, (n, t))| format!(r#"{{"id": {i}, "name": "{n}", "type": "{t}"}}"#))
            .collect();
        let json = format!(
            r#"{{"version": 3, "id": 0, "fields": [{}], "partitionKeys": {partition:?}, "primaryKeys": {primary:?}, "options": {{}}}}"#,
            fields.join(", ")
        );
        TableSchema::parse(json.as_bytes()).unwrap()
    }

    /// A serialized one-field BinaryRow holding the text `s` (at most 7 bytes, stored inline).
    fn text_row(s: &str) -> Vec<u8> {
        assert!(s.len() <= 7);
        let mut row = 1i32.to_be_bytes().to_vec();
        row.extend([0u8; 8]); // null bits
        let mut word = [0u8; 8];
        word[..s.len()].copy_from_slice(s.as_bytes());
        word[7] = 0x80 | s.len() as u8;
        row.extend(word);
        row
    }

    #[test]
    fn the_trimmed_primary_key_leaves_out_the_partition_fields_unless_that_leaves_none() {
        let s = schema(&[("dt", "STRING"), ("id", "INT")], &["dt", "id"], &["dt"]);
        assert_eq!(trimmed_primary_key(&s), ["id"]);
        let s = schema(&[("dt", "STRING"), ("id", "INT")], &["dt"], &["dt"]);
        assert_eq!(trimmed_primary_key(&s), ["dt"]);
    }

    #[test]
    fn a_key_range_of_text_keys_is_read_from_min_and_max_key() {
        let s = schema(&[("k", "STRING"), ("v", "INT")], &["k"], &[]);
        let (lo, hi) = key_range(&s, &text_row("apple"), &text_row("pear")).unwrap();
        assert_eq!(lo, Key::one(Value::Str(Arc::from("apple"))));
        assert_eq!(hi, Key::one(Value::Str(Arc::from("pear"))));
        assert!(key_range(&s, &text_row("pear"), &text_row("apple")).is_none());
    }

    #[test]
    fn a_key_column_of_another_type_family_than_its_field_is_a_problem() {
        let names = ["k".to_string()];
        let int = Key::one(Value::Int(5));
        let text = Key::one(Value::Str(Arc::from("5")));
        let boolean = Key::one(Value::Bool(true));
        for ty in ["STRING", "VARCHAR(10)", "CHAR(3) NOT NULL", "string"] {
            let s = schema(&[("k", ty)], &["k"], &[]);
            assert_eq!(key_columns_problem(&s, &names, Some(&text)), None, "{ty}");
            assert_eq!(
                key_columns_problem(&s, &names, Some(&int)),
                Some(format!(
                    "its column _KEY_k holds an integer (5) but the table's k is {ty}"
                )),
                "{ty}"
            );
        }
        let s = schema(&[("k", "BOOLEAN NOT NULL")], &["k"], &[]);
        assert_eq!(key_columns_problem(&s, &names, Some(&boolean)), None);
        assert_eq!(
            key_columns_problem(&s, &names, Some(&text)),
            Some(
                "its column _KEY_k holds text (\"5\") but the table's k is BOOLEAN NOT NULL"
                    .to_string()
            )
        );
        let s = schema(&[("k", "BIGINT")], &["k"], &[]);
        assert_eq!(
            key_columns_problem(&s, &names, Some(&boolean)),
            Some(
                "its column _KEY_k holds a boolean (true) but the table's k is BIGINT".to_string()
            )
        );
        // Types whose storage differs between formats are not checked.
        let s = schema(&[("k", "DECIMAL(10, 2)")], &["k"], &[]);
        assert_eq!(key_columns_problem(&s, &names, Some(&text)), None);
    }

    #[test]
    fn fingerprints_agree_for_equal_keys_and_tell_others_apart() {
        let fp = |scope: &str, values: Vec<Value>| Key(values).fingerprint(scope);
        let b0 = "bucket-0";
        assert_eq!(
            fp(b0, vec![Value::Int(2)]),
            fp(b0, vec![Value::Double(2.0)])
        );
        assert_eq!(
            fp(b0, vec![Value::Str(Arc::from("a")), Value::Int(1)]),
            fp(b0, vec![Value::Str(Arc::from("a")), Value::Int(1)])
        );
        let distinct = [
            fp(b0, vec![Value::Int(2)]),
            fp(b0, vec![Value::Int(3)]),
            fp("bucket-1", vec![Value::Int(2)]),
            fp(b0, vec![Value::Null]),
            fp(b0, vec![Value::Bool(true)]),
            fp(b0, vec![Value::Bool(false)]),
            fp(b0, vec![Value::Str(Arc::from("a"))]),
            fp(b0, vec![Value::Bytes(Arc::from(&b"a"[..]))]),
            fp(b0, vec![Value::Int(2), Value::Int(3)]),
        ];
        let set: std::collections::HashSet<u64> = distinct.iter().copied().collect();
        assert_eq!(set.len(), distinct.len(), "{distinct:?}");
    }
}
