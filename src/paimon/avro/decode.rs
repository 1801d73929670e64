//! Avro binary encoding (zig-zag varints, strings, bytes) and the decoder that a compiled
//! [`Plan`] drives.
//!
//! A plan is compiled once per (writer schema, reader spec). It walks the writer's fields in
//! writer order and, for each one, either decodes the value into a numbered [`Slot`] of the
//! reader's record or skips it. Nothing builds a generic value tree: strings and bytes are
//! borrowed from the decompressed block, skipped values are stepped over by length, and arrays
//! written with negative block counts are skipped by their byte size.

use crate::error::{Error, Result};

use super::schema::{Node, NodeId, WriterSchema};

/// How deep values may nest (records in arrays in unions …) before the input is rejected; keeps
/// recursive writer schemas from exhausting the stack.
const MAX_DEPTH: u32 = 64;

/// A reading position in a block of Avro binary data.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Cursor { data, pos: 0 }
    }

    /// Bytes not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The current offset from the start of the data.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Whether everything has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    fn eof(&self, what: &str) -> Error {
        Error::format(format!(
            "expected {what}, found end of data at byte {}",
            self.pos
        ))
    }

    /// A zig-zag varint `long` (at most 10 bytes).
    #[inline]
    pub(crate) fn read_long(&mut self) -> Result<i64> {
        let mut value: u64 = 0;
        let mut shift = 0u32;
        loop {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.eof("long"));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(Error::format(format!(
                    "expected long, found a varint longer than 64 bits ending at byte {}",
                    self.pos
                )));
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok(((value >> 1) as i64) ^ -((value & 1) as i64))
    }

    /// A zig-zag varint `int`.
    pub(crate) fn read_int(&mut self) -> Result<i32> {
        let v = self.read_long()?;
        i32::try_from(v).map_err(|_| Error::format(format!("expected int, found {v}")))
    }

    /// A length prefix, checked against the bytes that remain.
    fn read_len(&mut self, what: &str) -> Result<usize> {
        let n = self.read_long()?;
        let len = usize::try_from(n)
            .map_err(|_| Error::format(format!("expected {what} length, found {n}")))?;
        if len > self.remaining() {
            return Err(Error::format(format!(
                "expected {what} of {len} bytes, found only {} bytes left",
                self.remaining()
            )));
        }
        Ok(len)
    }

    /// `n` raw bytes.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.eof(what))?;
        let out = self.data.get(self.pos..end).ok_or_else(|| self.eof(what))?;
        self.pos = end;
        Ok(out)
    }

    /// Steps over `n` bytes.
    pub(crate) fn skip(&mut self, n: usize, what: &str) -> Result<()> {
        self.take(n, what).map(|_| ())
    }

    /// Avro `bytes`.
    pub(crate) fn read_bytes(&mut self) -> Result<&'a [u8]> {
        let len = self.read_len("bytes")?;
        self.take(len, "bytes")
    }

    /// Avro `string` (UTF-8 checked).
    pub(crate) fn read_str(&mut self) -> Result<&'a str> {
        let start = self.pos;
        let len = self.read_len("string")?;
        let raw = self.take(len, "string")?;
        std::str::from_utf8(raw).map_err(|e| {
            Error::format(format!(
                "expected a UTF-8 string, found invalid UTF-8 ({e}) at byte {start}"
            ))
        })
    }

    /// Steps over a `string` or `bytes` value.
    fn skip_bytes(&mut self) -> Result<()> {
        let len = self.read_len("bytes")?;
        self.skip(len, "bytes")
    }
}

/// The shape of a value the reader wants.
#[derive(Debug)]
pub(crate) enum Kind {
    /// `int` (a writer `long` is accepted when it fits).
    Int,
    /// `long` (a writer `int` is promoted).
    Long,
    /// `string` (writer `bytes` accepted if UTF-8).
    Str,
    /// `bytes` (writer `string` accepted).
    Bytes,
    /// `array<string>`.
    StrList,
    /// A nested record whose fields go to slots of the same reader record; the field's own slot
    /// records whether the record was present or null.
    Record(&'static [FieldSpec]),
    /// `array<record>`; each element gets its own slots (slot 0 = presence of the element).
    RecordList(&'static RecordSpec),
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Long => "long",
            Kind::Str => "string",
            Kind::Bytes => "bytes",
            Kind::StrList => "array of strings",
            Kind::Record(_) => "record",
            Kind::RecordList(_) => "array of records",
        }
    }
}

/// One field the reader wants, by name.
#[derive(Debug)]
pub(crate) struct FieldSpec {
    /// The Avro field name (`_FILE_NAME`).
    pub(crate) name: &'static str,
    /// What to decode it as.
    pub(crate) kind: Kind,
    /// Where to put it.
    pub(crate) slot: usize,
}

/// The record a reader wants: its fields and how many slots they use. Slot 0 is always the
/// presence of the record itself (a 0.8 file can write a null top-level record).
#[derive(Debug)]
pub(crate) struct RecordSpec {
    /// What the record is called in messages and in the schema cache.
    pub(crate) name: &'static str,
    /// The wanted fields (nested [`Kind::Record`] fields use slots of this record too).
    pub(crate) fields: &'static [FieldSpec],
    /// Number of slots, including slot 0.
    pub(crate) slots: usize,
}

/// A decoded value, borrowed from the block it was read from.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Slot<'a> {
    /// The writer schema has no such field.
    #[default]
    Absent,
    /// The writer wrote null.
    Null,
    /// A record was there (its fields are in other slots).
    Present,
    /// An `int` or `long`.
    Int(i64),
    /// A string.
    Str(&'a str),
    /// Bytes.
    Bytes(&'a [u8]),
    /// An array: items are scalars, or [`Slot::Record`] / [`Slot::Null`] for record arrays.
    List(Vec<Slot<'a>>),
    /// One element of a record array, with its own slots.
    Record(Vec<Slot<'a>>),
}

/// A compiled decoding step.
#[derive(Debug)]
enum Op {
    /// Step over a value of this writer type.
    Skip(NodeId),
    Int(usize),
    Long(usize),
    Str(usize),
    Bytes(usize),
    Null(usize),
    /// A writer union: one op per branch.
    Union(Box<[Op]>),
    /// A writer record: one op per writer field, in writer order.
    Record {
        presence: usize,
        fields: Box<[(Box<str>, Op)]>,
    },
    /// A writer array decoded item by item into a [`Slot::List`].
    List {
        slot: usize,
        item: Box<Op>,
        item_slots: usize,
        records: bool,
    },
    /// The writer type cannot be read as what the reader wants.
    Mismatch {
        expected: &'static str,
        found: Box<str>,
    },
}

/// A writer schema compiled against one reader record.
#[derive(Debug)]
pub(crate) struct Plan {
    schema: WriterSchema,
    root: Op,
    slots: usize,
}

impl Plan {
    /// Compiles `schema` for reading records of `spec`.
    pub(crate) fn compile(schema: WriterSchema, spec: &'static RecordSpec) -> Plan {
        let root = compile(&schema, schema.root(), &Kind::Record(spec.fields), 0);
        Plan {
            schema,
            root,
            slots: spec.slots,
        }
    }

    /// Number of slots a record of this plan fills.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// Whether a record of the writer schema always takes zero bytes.
    pub(crate) fn zero_width(&self) -> bool {
        self.schema.zero_width(self.schema.root())
    }

    /// Decodes one top-level datum into `slots` (which the caller has reset).
    pub(crate) fn decode<'a>(&self, cur: &mut Cursor<'a>, slots: &mut [Slot<'a>]) -> Result<()> {
        exec(&self.root, &self.schema, cur, slots, 0)
    }
}

fn compile(schema: &WriterSchema, node: NodeId, kind: &Kind, slot: usize) -> Op {
    let n = schema.node(node);
    match (kind, n) {
        (_, Node::Union(branches)) => Op::Union(
            branches
                .iter()
                .map(|&b| compile(schema, b, kind, slot))
                .collect(),
        ),
        (_, Node::Null) => Op::Null(slot),
        (Kind::Int, Node::Int | Node::Long) => Op::Int(slot),
        (Kind::Long, Node::Int | Node::Long) => Op::Long(slot),
        (Kind::Str, Node::String | Node::Bytes) => Op::Str(slot),
        (Kind::Bytes, Node::String | Node::Bytes) => Op::Bytes(slot),
        (Kind::StrList, Node::Array(item)) => Op::List {
            slot,
            item: Box::new(compile(schema, *item, &Kind::Str, 0)),
            item_slots: 1,
            records: false,
        },
        (Kind::RecordList(spec), Node::Array(item)) => Op::List {
            slot,
            item: Box::new(compile(schema, *item, &Kind::Record(spec.fields), 0)),
            item_slots: spec.slots.max(1),
            records: true,
        },
        (Kind::Record(specs), Node::Record { fields, .. }) => Op::Record {
            presence: slot,
            fields: fields
                .iter()
                .map(|f| {
                    let op = match specs.iter().find(|s| s.name == f.name) {
                        Some(s) => compile(schema, f.node, &s.kind, s.slot),
                        None => Op::Skip(f.node),
                    };
                    (f.name.clone().into_boxed_str(), op)
                })
                .collect(),
        },
        _ => Op::Mismatch {
            expected: kind.name(),
            found: schema.describe(node).into_boxed_str(),
        },
    }
}

#[inline(always)]
fn set<'a>(slots: &mut [Slot<'a>], slot: usize, value: Slot<'a>) -> Result<()> {
    match slots.get_mut(slot) {
        Some(s) => {
            *s = value;
            Ok(())
        }
        None => Err(Error::format(format!(
            "internal error: decoding plan slot {slot} out of range"
        ))),
    }
}

pub(crate) fn union_branch<'o, T>(cur: &mut Cursor<'_>, branches: &'o [T]) -> Result<&'o T> {
    let i = cur.read_long()?;
    usize::try_from(i)
        .ok()
        .and_then(|i| branches.get(i))
        .ok_or_else(|| {
            Error::format(format!(
                "expected union branch 0..{}, found {i}",
                branches.len()
            ))
        })
}

/// Reads an array/map block header: `Some(count)` or `None` at the end. A negative count is
/// followed by the block's byte size, returned too.
fn block_header(cur: &mut Cursor<'_>) -> Result<Option<(u64, Option<usize>)>> {
    let n = cur.read_long()?;
    if n == 0 {
        return Ok(None);
    }
    if n > 0 {
        return Ok(Some((n.unsigned_abs(), None)));
    }
    let size = cur.read_long()?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s <= cur.remaining())
        .ok_or_else(|| {
            Error::format(format!(
                "expected array block size of at most {} bytes, found {size}",
                cur.remaining()
            ))
        })?;
    Ok(Some((n.unsigned_abs(), Some(size))))
}

fn exec<'a>(
    op: &Op,
    schema: &WriterSchema,
    cur: &mut Cursor<'a>,
    slots: &mut [Slot<'a>],
    depth: u32,
) -> Result<()> {
    match op {
        Op::Skip(node) => skip(schema, *node, cur, depth),
        Op::Int(s) => {
            let v = cur.read_int()?;
            set(slots, *s, Slot::Int(i64::from(v)))
        }
        Op::Long(s) => {
            let v = cur.read_long()?;
            set(slots, *s, Slot::Int(v))
        }
        Op::Str(s) => {
            let v = cur.read_str()?;
            set(slots, *s, Slot::Str(v))
        }
        Op::Bytes(s) => {
            let v = cur.read_bytes()?;
            set(slots, *s, Slot::Bytes(v))
        }
        Op::Null(s) => set(slots, *s, Slot::Null),
        Op::Union(branches) => {
            let b = union_branch(cur, branches)?;
            exec(b, schema, cur, slots, depth)
        }
        Op::Record { presence, fields } => {
            set(slots, *presence, Slot::Present)?;
            for (name, f) in fields.iter() {
                exec(f, schema, cur, slots, depth + 1)
                    .map_err(|e| e.context(format!("field {name}")))?;
            }
            Ok(())
        }
        Op::List {
            slot,
            item,
            item_slots,
            records,
        } => {
            let mut out: Vec<Slot<'a>> = Vec::new();
            while let Some((count, size)) = block_header(cur)? {
                // Every item this reader wants takes at least one byte.
                if count > cur.remaining() as u64 {
                    return Err(Error::format(format!(
                        "expected at most {} array items, found a block of {count}",
                        cur.remaining()
                    )));
                }
                let start = cur.position();
                out.reserve(count as usize);
                for _ in 0..count {
                    let index = out.len();
                    let ctx = |e: Error| e.context(format!("item {index}"));
                    let value = if *records {
                        let mut fields: Vec<Slot<'a>> = std::iter::repeat_with(|| Slot::Absent)
                            .take(*item_slots)
                            .collect();
                        exec(item, schema, cur, &mut fields, depth + 1).map_err(ctx)?;
                        match fields.first() {
                            Some(Slot::Null) => Slot::Null,
                            _ => Slot::Record(fields),
                        }
                    } else {
                        let mut one = [Slot::Absent];
                        exec(item, schema, cur, &mut one, depth + 1).map_err(ctx)?;
                        let [value] = one;
                        value
                    };
                    out.push(value);
                }
                if let Some(size) = size {
                    let used = cur.position() - start;
                    if used != size {
                        return Err(Error::format(format!(
                            "expected an array block of {size} bytes, found items of {used} bytes"
                        )));
                    }
                }
            }
            set(slots, *slot, Slot::List(out))
        }
        Op::Mismatch { expected, found } => Err(Error::format(format!(
            "expected {expected}, found {found} in the writer schema"
        ))),
    }
}

/// Steps over one value of writer type `node`.
pub(crate) fn skip(
    schema: &WriterSchema,
    node: NodeId,
    cur: &mut Cursor<'_>,
    depth: u32,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::format(format!(
            "expected values nested at most {MAX_DEPTH} levels deep, found deeper nesting"
        )));
    }
    match schema.node(node) {
        Node::Null => Ok(()),
        Node::Boolean => cur.skip(1, "boolean"),
        Node::Int | Node::Long | Node::Enum { .. } => cur.read_long().map(|_| ()),
        Node::Float => cur.skip(4, "float"),
        Node::Double => cur.skip(8, "double"),
        Node::Bytes | Node::String => cur.skip_bytes(),
        Node::Fixed(n) => cur.skip(*n, "fixed"),
        Node::Record { fields, .. } => {
            for f in fields {
                skip(schema, f.node, cur, depth + 1)
                    .map_err(|e| e.context(format!("field {}", f.name)))?;
            }
            Ok(())
        }
        Node::Union(branches) => {
            let b = union_branch(cur, branches)?;
            skip(schema, *b, cur, depth + 1)
        }
        Node::Array(item) => skip_blocks(schema, *item, false, cur, depth),
        Node::Map(value) => skip_blocks(schema, *value, true, cur, depth),
    }
}

fn skip_blocks(
    schema: &WriterSchema,
    item: NodeId,
    map: bool,
    cur: &mut Cursor<'_>,
    depth: u32,
) -> Result<()> {
    let zero = !map && schema.zero_width(item);
    while let Some((count, size)) = block_header(cur)? {
        if let Some(size) = size {
            cur.skip(size, "array block")?;
            continue;
        }
        if zero {
            continue;
        }
        // Every remaining item takes at least one byte.
        if count > cur.remaining() as u64 {
            return Err(Error::format(format!(
                "expected at most {} array items, found a block of {count}",
                cur.remaining()
            )));
        }
        for _ in 0..count {
            if map {
                cur.skip_bytes()?;
            }
            skip(schema, item, cur, depth + 1)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zigzag(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        crate::test_support::varint(&mut out, crate::test_support::zigzag(v));
        out
    }

    #[test]
    fn varints_round_trip() {
        for v in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            300,
            -300,
            i32::MAX as i64,
            i32::MIN as i64,
            i64::MAX,
            i64::MIN,
        ] {
            let bytes = zigzag(v);
            let mut c = Cursor::new(&bytes);
            assert_eq!(c.read_long().unwrap(), v, "{v}");
            assert!(c.is_empty());
        }
    }

    #[test]
    fn known_encodings() {
        assert_eq!(Cursor::new(&[0x02]).read_long().unwrap(), 1);
        assert_eq!(Cursor::new(&[0x03]).read_long().unwrap(), -2);
        assert_eq!(Cursor::new(&[0x80, 0x01]).read_long().unwrap(), 64);
    }

    #[test]
    fn huge_and_truncated_varints_are_errors() {
        let too_long = [0xffu8; 11];
        let e = Cursor::new(&too_long).read_long().unwrap_err();
        assert!(e.to_string().contains("longer than 64 bits"), "{e}");
        let mut ten = vec![0xffu8; 9];
        ten.push(0x02);
        assert!(Cursor::new(&ten).read_long().is_err());
        let e = Cursor::new(&[0x80, 0x80]).read_long().unwrap_err();
        assert!(e.to_string().contains("end of data"), "{e}");
        let e = Cursor::new(&zigzag(1 << 40)).read_int().unwrap_err();
        assert!(e.to_string().contains("expected int"), "{e}");
    }

    #[test]
    fn strings_and_bytes() {
        let mut data = zigzag(5);
        data.extend_from_slice(b"hello");
        data.extend(zigzag(2));
        data.extend_from_slice(&[0xff, 0xfe]);
        let mut c = Cursor::new(&data);
        assert_eq!(c.read_str().unwrap(), "hello");
        let mut c2 = c.clone();
        assert_eq!(c.read_bytes().unwrap(), &[0xff, 0xfe]);
        assert!(c2.read_str().is_err(), "invalid UTF-8 must fail");
        let mut lying = zigzag(1000);
        lying.extend_from_slice(b"abc");
        let e = Cursor::new(&lying).read_bytes().unwrap_err();
        assert!(e.to_string().contains("only 3 bytes left"), "{e}");
        let e = Cursor::new(&zigzag(-4)).read_bytes().unwrap_err();
        assert!(e.to_string().contains("length"), "{e}");
    }
}
