//! A small Avro object-container reader, enough for Paimon's manifest files
//! (`paimon-format.md` §3.1–§3.2), in pure Rust.
//!
//! * [`read_header`] parses the container header (magic, `avro.schema`, `avro.codec`, sync).
//! * Codecs `null`, `deflate`, `snappy` (CRC checked) and `zstandard` ([`Codec`]).
//! * Records are decoded **by field name** against the writer schema embedded in each file:
//!   unknown writer fields are skipped, reader fields the writer lacks come out as absent, and a
//!   union `["null", record]` around the top-level or nested records (Paimon 0.8) is accepted.
//!   Record names are never looked at.
//! * No value tree is built: the writer schema is compiled once into a decoding plan (per writer
//!   field: decode into a slot of the wanted record, or skip) and the plan is cached by the exact
//!   schema text in an [`AvroSchemaCache`] that the caller owns and reuses across files.
//!
//! [`datum`] reads Avro data and changelog files (rows as [`crate::parquet::Value`]s) for the
//! row evidence.
//!
//! The Paimon readers built on this are [`crate::paimon::manifest_list::read_manifest_list`],
//! [`crate::paimon::manifest::read_manifest`] and
//! [`crate::paimon::index_manifest::read_index_manifest`].

mod codec;
mod container;
pub mod datum;
pub(crate) mod decode;
mod schema;

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::limits::Limits;

pub use codec::Codec;
pub use container::{read_header, Header, MAGIC};

use codec::Decompressor;
use decode::{Cursor, Plan, RecordSpec, Slot};
use schema::WriterSchema;

/// Distinct writer schemas kept per kind of record before the cache starts over (a real table
/// has a handful; this only bounds memory on hostile input).
const MAX_PLANS_PER_READER: usize = 256;

/// Compiled decoding plans keyed by the exact writer-schema text, plus reusable decompression
/// buffers. Create one per analysis run and pass it to every manifest read, so that thousands of
/// manifests with the same schema parse and compile it once. It also counts the bytes
/// decompressed, which `max-total-bytes` bounds over the run: do not keep one across runs.
#[derive(Debug, Default)]
pub struct AvroSchemaCache {
    plans: HashMap<&'static str, ReaderPlans>,
    decompressor: Decompressor,
    compiled: u64,
}

/// The plans of one kind of record, by schema text; the last one used is checked first (one
/// `memcmp` instead of hashing a 2–4 KB schema for every file of a table).
#[derive(Debug, Default)]
struct ReaderPlans {
    plans: Vec<(Box<str>, Plan)>,
    by_text: HashMap<Box<str>, usize>,
    last: usize,
}

impl ReaderPlans {
    /// The plan of the schema `schema` (its bytes as the header holds them), if compiled.
    fn find(&mut self, schema: &[u8]) -> Option<usize> {
        if let Some((text, _)) = self.plans.get(self.last) {
            if text.as_bytes() == schema {
                return Some(self.last);
            }
        }
        let i = *self.by_text.get(std::str::from_utf8(schema).ok()?)?;
        self.last = i;
        Some(i)
    }
}

impl AvroSchemaCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many writer schemas have been parsed and compiled so far (cache misses).
    pub fn schemas_compiled(&self) -> u64 {
        self.compiled
    }

    /// Bytes of Avro blocks decompressed so far by the files read to the end through this cache
    /// (bounded by `max-total-bytes` over the run).
    pub fn bytes_decompressed(&self) -> u64 {
        self.decompressor.decompressed
    }

    /// Whether `bytes` of blocks that one file decompressed elsewhere (another thread's cache,
    /// see [`crate::timeline::prefetch`]) fit in what the run's `max-total-bytes` leaves: the
    /// check a file read here makes after each block (the file's own limits were checked where
    /// it was read). When they do not, the caller decodes the file here and meets the same
    /// refusal.
    pub fn decompressed_elsewhere_fits(&self, bytes: u64, limits: &Limits) -> bool {
        self.decompressor.decompressed.saturating_add(bytes) <= limits.max_total_bytes
    }

    /// Counts `bytes` of blocks decompressed elsewhere as if decompressed here (after
    /// [`AvroSchemaCache::decompressed_elsewhere_fits`]).
    pub fn count_decompressed_elsewhere(&mut self, bytes: u64) {
        self.decompressor.decompressed = self.decompressor.decompressed.saturating_add(bytes);
    }

    /// How many compiled plans the cache holds.
    pub fn len(&self) -> usize {
        self.plans.values().map(|p| p.plans.len()).sum()
    }

    /// Whether the cache holds no plan.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn plan_for<'c>(
    plans: &'c mut HashMap<&'static str, ReaderPlans>,
    compiled: &mut u64,
    spec: &'static RecordSpec,
    schema_bytes: &[u8],
) -> Result<&'c Plan> {
    let reader = plans.entry(spec.name).or_default();
    let i = match reader.find(schema_bytes) {
        Some(i) => i,
        None => {
            let schema_text =
                std::str::from_utf8(schema_bytes).map_err(|_| container::not_utf8())?;
            let schema = WriterSchema::parse(schema_text).map_err(|e| e.context("avro.schema"))?;
            if reader.plans.len() >= MAX_PLANS_PER_READER {
                *reader = ReaderPlans::default();
            }
            let i = reader.plans.len();
            reader
                .plans
                .push((schema_text.into(), Plan::compile(schema, spec)));
            reader.by_text.insert(schema_text.into(), i);
            reader.last = i;
            *compiled += 1;
            i
        }
    };
    reader
        .plans
        .get(i)
        .map(|(_, p)| p)
        .ok_or_else(|| Error::format("internal error: compiled plan missing from the cache"))
}

/// The decoded slots of one record, with typed accessors that name the field on error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row<'r, 'a> {
    slots: &'r [Slot<'a>],
}

/// A decoded array of strings, every item checked a string ([`Row::opt_strs`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strs<'r, 'a> {
    items: &'r [Slot<'a>],
}

impl<'a> Strs<'_, 'a> {
    /// The strings, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.items.iter().filter_map(|item| match item {
            Slot::Str(s) => Some(*s),
            _ => None,
        })
    }
}

fn missing(name: &str) -> Error {
    Error::format(format!(
        "expected field {name}, found none in the writer schema"
    ))
}

fn null(name: &str) -> Error {
    Error::format(format!("expected field {name}, found null"))
}

impl<'r, 'a> Row<'r, 'a> {
    pub(crate) fn new(slots: &'r [Slot<'a>]) -> Self {
        Row { slots }
    }

    fn get(&self, slot: usize) -> &'r Slot<'a> {
        self.slots.get(slot).unwrap_or(&Slot::Absent)
    }

    /// Whether a nested record (or the top-level record) was written, not null or absent.
    pub(crate) fn present(&self, slot: usize) -> bool {
        matches!(self.get(slot), Slot::Present)
    }

    /// A required record (`what` = `"field _FILE"`, or `"a manifest entry"` for the top-level
    /// record of slot 0): Ok if written, else an error saying it was null or absent.
    pub(crate) fn require(&self, slot: usize, what: &str) -> Result<()> {
        match self.get(slot) {
            Slot::Present => Ok(()),
            Slot::Absent => Err(Error::format(format!(
                "expected {what}, found none in the writer schema"
            ))),
            _ => Err(Error::format(format!("expected {what}, found null"))),
        }
    }

    /// An optional `long` or `int`.
    pub(crate) fn opt_long(&self, slot: usize, name: &str) -> Result<Option<i64>> {
        match self.get(slot) {
            Slot::Int(v) => Ok(Some(*v)),
            Slot::Absent | Slot::Null => Ok(None),
            other => Err(wrong(name, "a number", other)),
        }
    }

    /// A required `long` or `int`.
    pub(crate) fn long(&self, slot: usize, name: &str) -> Result<i64> {
        self.opt_long(slot, name)?
            .ok_or_else(|| self.absent_or_null(slot, name))
    }

    /// An optional `int`.
    pub(crate) fn opt_int(&self, slot: usize, name: &str) -> Result<Option<i32>> {
        match self.opt_long(slot, name)? {
            None => Ok(None),
            Some(v) => i32::try_from(v)
                .map(Some)
                .map_err(|_| Error::format(format!("expected field {name} as int, found {v}"))),
        }
    }

    /// A required `int`.
    pub(crate) fn int(&self, slot: usize, name: &str) -> Result<i32> {
        self.opt_int(slot, name)?
            .ok_or_else(|| self.absent_or_null(slot, name))
    }

    /// An optional string.
    pub(crate) fn opt_str(&self, slot: usize, name: &str) -> Result<Option<&'a str>> {
        match self.get(slot) {
            Slot::Str(s) => Ok(Some(s)),
            Slot::Absent | Slot::Null => Ok(None),
            other => Err(wrong(name, "a string", other)),
        }
    }

    /// A required string.
    pub(crate) fn str(&self, slot: usize, name: &str) -> Result<&'a str> {
        self.opt_str(slot, name)?
            .ok_or_else(|| self.absent_or_null(slot, name))
    }

    /// Optional bytes.
    pub(crate) fn opt_bytes(&self, slot: usize, name: &str) -> Result<Option<&'a [u8]>> {
        match self.get(slot) {
            Slot::Bytes(b) => Ok(Some(b)),
            Slot::Absent | Slot::Null => Ok(None),
            other => Err(wrong(name, "bytes", other)),
        }
    }

    /// Required bytes.
    pub(crate) fn bytes(&self, slot: usize, name: &str) -> Result<&'a [u8]> {
        self.opt_bytes(slot, name)?
            .ok_or_else(|| self.absent_or_null(slot, name))
    }

    /// An optional array of strings (null items are an error), borrowed: a view that keeps
    /// nothing beyond the block's slots, so a caller that only validates the field allocates
    /// nothing.
    pub(crate) fn opt_strs(&self, slot: usize, name: &str) -> Result<Option<Strs<'r, 'a>>> {
        match self.get(slot) {
            Slot::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !matches!(item, Slot::Str(_)) {
                        return Err(wrong(&format!("{name} item {i}"), "a string", item));
                    }
                }
                Ok(Some(Strs { items }))
            }
            Slot::Absent | Slot::Null => Ok(None),
            other => Err(wrong(name, "an array", other)),
        }
    }

    /// An optional array of records: each element's slots, or `None` for a null element.
    pub(crate) fn opt_records(
        &self,
        slot: usize,
        name: &str,
    ) -> Result<Option<Vec<Option<Row<'r, 'a>>>>> {
        match self.get(slot) {
            Slot::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Slot::Record(slots) => Ok(Some(Row { slots })),
                    Slot::Null => Ok(None),
                    other => Err(wrong(&format!("{name} item {i}"), "a record", other)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Slot::Absent | Slot::Null => Ok(None),
            other => Err(wrong(name, "an array", other)),
        }
    }

    fn absent_or_null(&self, slot: usize, name: &str) -> Error {
        match self.get(slot) {
            Slot::Absent => missing(name),
            _ => null(name),
        }
    }
}

fn wrong(name: &str, expected: &str, found: &Slot<'_>) -> Error {
    let found = match found {
        Slot::Absent => "nothing",
        Slot::Null => "null",
        Slot::Present => "a record",
        Slot::Int(_) => "a number",
        Slot::Str(_) => "a string",
        Slot::Bytes(_) => "bytes",
        Slot::List(_) => "an array",
        Slot::Record(_) => "a record",
    };
    Error::format(format!(
        "expected field {name} as {expected}, found {found}"
    ))
}

/// Reads every record of an Avro container file as `spec`, building each with `build`.
///
/// Errors carry `block N` / `record M` context (record numbers count from the start of the
/// file); the caller adds the file name.
pub(crate) fn read_records<T>(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
    spec: &'static RecordSpec,
    mut build: impl FnMut(Row<'_, '_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out: Vec<T> = Vec::new();
    for_each_record(
        bytes,
        cache,
        limits,
        spec,
        &mut out,
        Vec::reserve,
        |out, row| {
            out.push(build(row)?);
            Ok(())
        },
    )?;
    Ok(out)
}

/// Reads every record of an Avro container file as `spec`, handing each to `each` with
/// `out`; before each block, `reserve` is told at most how many records it holds (bounded by
/// its bytes), to make room in `out`.
///
/// Errors carry `block N` / `record M` context (record numbers count from the start of the
/// file); the caller adds the file name.
pub(crate) fn for_each_record<S>(
    bytes: &[u8],
    cache: &mut AvroSchemaCache,
    limits: &Limits,
    spec: &'static RecordSpec,
    out: &mut S,
    reserve: impl Fn(&mut S, usize),
    mut each: impl FnMut(&mut S, Row<'_, '_>) -> Result<()>,
) -> Result<()> {
    let (schema, header) = container::read_header_raw(bytes)?;
    let AvroSchemaCache {
        plans,
        decompressor,
        compiled,
    } = cache;
    let plan = plan_for(plans, compiled, spec, schema)?;
    let zero_width = plan.zero_width();
    let mut record = 0u64;
    container::for_each_block(
        bytes,
        &header,
        limits,
        decompressor,
        |block, count, data| {
            if !zero_width && count > data.len() as u64 {
                return Err(Error::format(format!(
                    "expected at most {} records in a block of {} bytes, found a count of {count}",
                    data.len(),
                    data.len()
                ))
                .context(format!("block {block}")));
            }
            let mut cur = Cursor::new(data);
            let mut slots: Vec<Slot<'_>> = vec![Slot::Absent; plan.slots()];
            reserve(
                out,
                usize::try_from(count.min(data.len() as u64)).unwrap_or(0),
            );
            for _ in 0..count {
                for s in slots.iter_mut() {
                    *s = Slot::Absent;
                }
                plan.decode(&mut cur, &mut slots)
                    .and_then(|()| each(out, Row::new(&slots)))
                    .map_err(|e| {
                        e.context(format!("record {record}"))
                            .context(format!("block {block}"))
                    })?;
                record += 1;
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
    Ok(())
}

/// Test support: a tiny Avro writer, a schema-driven datum builder, and the real fixture
/// manifests (read from the warehouse zips with a minimal zip reader).
#[cfg(test)]
pub(crate) mod testutil {
    use std::collections::HashMap;

    use serde_json::Value;

    use super::Codec;

    /// An Avro datum, encoded without a schema (the test knows the shape).
    #[derive(Debug, Clone, PartialEq)]
    pub(crate) enum Val {
        Null,
        Bool(bool),
        Long(i64),
        Float(f32),
        Double(f64),
        Bytes(Vec<u8>),
        Str(String),
        Fixed(Vec<u8>),
        Enum(i64),
        Union(i64, Box<Val>),
        Rec(Vec<Val>),
        Arr(Vec<Val>),
        /// One block with a negative count and a byte size, then the end marker.
        ArrSized(Vec<Val>),
        Map(Vec<(String, Val)>),
    }

    pub(crate) fn zigzag(v: i64, out: &mut Vec<u8>) {
        crate::test_support::varint(out, crate::test_support::zigzag(v));
    }

    pub(crate) fn encode(v: &Val, out: &mut Vec<u8>) {
        match v {
            Val::Null => {}
            Val::Bool(b) => out.push(u8::from(*b)),
            Val::Long(n) | Val::Enum(n) => zigzag(*n, out),
            Val::Float(f) => out.extend_from_slice(&f.to_le_bytes()),
            Val::Double(f) => out.extend_from_slice(&f.to_le_bytes()),
            Val::Bytes(b) => {
                zigzag(b.len() as i64, out);
                out.extend_from_slice(b);
            }
            Val::Str(s) => {
                zigzag(s.len() as i64, out);
                out.extend_from_slice(s.as_bytes());
            }
            Val::Fixed(b) => out.extend_from_slice(b),
            Val::Union(i, v) => {
                zigzag(*i, out);
                encode(v, out);
            }
            Val::Rec(fields) => fields.iter().for_each(|f| encode(f, out)),
            Val::Arr(items) => {
                if !items.is_empty() {
                    zigzag(items.len() as i64, out);
                    items.iter().for_each(|i| encode(i, out));
                }
                out.push(0);
            }
            Val::ArrSized(items) => {
                if !items.is_empty() {
                    let mut body = Vec::new();
                    items.iter().for_each(|i| encode(i, &mut body));
                    zigzag(-(items.len() as i64), out);
                    zigzag(body.len() as i64, out);
                    out.extend(body);
                }
                out.push(0);
            }
            Val::Map(entries) => {
                if !entries.is_empty() {
                    zigzag(entries.len() as i64, out);
                    for (k, v) in entries {
                        encode(&Val::Str(k.clone()), out);
                        encode(v, out);
                    }
                }
                out.push(0);
            }
        }
    }

    pub(crate) const SYNC: [u8; 16] = *b"0123456789abcdef";

    /// Compresses one block the way Avro's codecs do.
    pub(crate) fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
        match codec {
            Codec::Null => data.to_vec(),
            Codec::Deflate => miniz_oxide::deflate::compress_to_vec(data, 6),
            Codec::Snappy => {
                let mut out = snap::raw::Encoder::new().compress_vec(data).unwrap();
                out.extend_from_slice(&crc32fast::hash(data).to_be_bytes());
                out
            }
            Codec::Zstandard => {
                ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
            }
            Codec::Bzip2 => {
                let mut out = Vec::new();
                let mut e = bzip2::write::BzEncoder::new(&mut out, bzip2::Compression::fast());
                std::io::Write::write_all(&mut e, data).unwrap();
                e.finish().unwrap();
                out
            }
            Codec::Xz => {
                let mut out = Vec::new();
                lzma_rs::xz_compress(&mut std::io::BufReader::new(data), &mut out).unwrap();
                out
            }
        }
    }

    /// The container header for `schema` and `codec`.
    pub(crate) fn header(schema: &str, codec: Codec) -> Vec<u8> {
        let mut out = b"Obj\x01".to_vec();
        zigzag(2, &mut out);
        encode(&Val::Str("avro.schema".into()), &mut out);
        encode(&Val::Bytes(schema.as_bytes().to_vec()), &mut out);
        encode(&Val::Str("avro.codec".into()), &mut out);
        encode(&Val::Bytes(codec.as_str().as_bytes().to_vec()), &mut out);
        out.push(0);
        out.extend_from_slice(&SYNC);
        out
    }

    /// A whole container file: one block per element of `blocks`.
    pub(crate) fn ocf(schema: &str, codec: Codec, blocks: &[Vec<Val>]) -> Vec<u8> {
        let mut out = header(schema, codec);
        for block in blocks {
            let mut data = Vec::new();
            block.iter().for_each(|v| encode(v, &mut data));
            let data = compress(codec, &data);
            zigzag(block.len() as i64, &mut out);
            zigzag(data.len() as i64, &mut out);
            out.extend(data);
            out.extend_from_slice(&SYNC);
        }
        out
    }

    /// A value for a field, given by name in [`datum`].
    #[derive(Debug, Clone)]
    pub(crate) enum T {
        Null,
        Int(i64),
        Str(&'static str),
        Bytes(Vec<u8>),
        StrList(Vec<&'static str>),
        Records(Vec<Fields>),
    }

    pub(crate) type Fields = HashMap<&'static str, T>;

    pub(crate) fn fields(list: Vec<(&'static str, T)>) -> Fields {
        list.into_iter().collect()
    }

    /// A datum of JSON `schema` with the named fields from `f` (at any nesting depth) and
    /// defaults elsewhere (null for nullable unions, zero, empty).
    pub(crate) fn datum(schema: &Value, f: &Fields) -> Val {
        match schema {
            Value::String(s) => default_primitive(s),
            // Prefer a record branch, so nested nullable records (0.8) get their fields.
            Value::Array(branches) => {
                let i = branches
                    .iter()
                    .position(|b| b["type"] == "record")
                    .unwrap_or(0);
                Val::Union(i as i64, Box::new(datum(&branches[i], f)))
            }
            Value::Object(m) => match m["type"].as_str() {
                Some("record") => Val::Rec(
                    m["fields"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|field| {
                            let name = field["name"].as_str().unwrap();
                            match f.get(name) {
                                Some(t) => value(&field["type"], t),
                                None => datum(&field["type"], f),
                            }
                        })
                        .collect(),
                ),
                Some("array") => Val::Arr(vec![]),
                Some("map") => Val::Map(vec![]),
                Some("enum") => Val::Enum(0),
                Some("fixed") => Val::Fixed(vec![0; m["size"].as_u64().unwrap() as usize]),
                Some(p) => default_primitive(p),
                None => datum(&m["type"], f),
            },
            other => panic!("bad schema {other}"),
        }
    }

    fn default_primitive(name: &str) -> Val {
        match name {
            "null" => Val::Null,
            "boolean" => Val::Bool(false),
            "int" | "long" => Val::Long(0),
            "float" => Val::Float(0.0),
            "double" => Val::Double(0.0),
            "bytes" => Val::Bytes(vec![]),
            "string" => Val::Str(String::new()),
            other => panic!("unknown primitive {other}"),
        }
    }

    /// `t` encoded as `schema` (a union picks its null or first non-null branch).
    pub(crate) fn value(schema: &Value, t: &T) -> Val {
        if let Value::Array(branches) = schema {
            let null = branches.iter().position(|b| b == "null");
            if let (T::Null, Some(i)) = (t, null) {
                return Val::Union(i as i64, Box::new(Val::Null));
            }
            let i = branches.iter().position(|b| b != "null").unwrap();
            return Val::Union(i as i64, Box::new(value(&branches[i], t)));
        }
        let items = || schema["items"].clone();
        match t {
            T::Null => Val::Null,
            T::Int(v) => Val::Long(*v),
            T::Str(s) => Val::Str((*s).to_string()),
            T::Bytes(b) => Val::Bytes(b.clone()),
            T::StrList(l) => Val::Arr(l.iter().map(|s| Val::Str((*s).to_string())).collect()),
            T::Records(rs) => {
                let item = items();
                Val::Arr(rs.iter().map(|r| value_record(&item, r)).collect())
            }
        }
    }

    fn value_record(schema: &Value, f: &Fields) -> Val {
        if let Value::Array(branches) = schema {
            let i = branches.iter().position(|b| b != "null").unwrap();
            return Val::Union(i as i64, Box::new(datum(&branches[i], f)));
        }
        datum(schema, f)
    }

    /// Encodes records of `fields` for a top-level schema (unwrapping a 0.8 top-level union).
    pub(crate) fn records(schema: &str, rows: &[Fields]) -> Vec<Val> {
        let s: Value = serde_json::from_str(schema).unwrap();
        rows.iter()
            .map(|r| match &s {
                Value::Array(_) => value_record(&s, r),
                _ => datum(&s, r),
            })
            .collect()
    }

    /// Every file of a stored/deflated zip, by name (a minimal reader for the fixtures).
    pub(crate) fn unzip(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
        let u16_at = |p: usize| u16::from_le_bytes([zip[p], zip[p + 1]]) as usize;
        let u32_at =
            |p: usize| u32::from_le_bytes([zip[p], zip[p + 1], zip[p + 2], zip[p + 3]]) as usize;
        let eocd = (0..=zip.len() - 22)
            .rev()
            .find(|&p| zip[p..p + 4] == [0x50, 0x4b, 0x05, 0x06])
            .expect("end of central directory");
        let entries = u16_at(eocd + 10);
        let mut p = u32_at(eocd + 16);
        let mut out = Vec::new();
        for _ in 0..entries {
            assert_eq!(zip[p..p + 4], [0x50, 0x4b, 0x01, 0x02]);
            let method = u16_at(p + 10);
            let csize = u32_at(p + 20);
            let (nlen, elen, clen) = (u16_at(p + 28), u16_at(p + 30), u16_at(p + 32));
            let local = u32_at(p + 42);
            let name = String::from_utf8(zip[p + 46..p + 46 + nlen].to_vec()).unwrap();
            p += 46 + nlen + elen + clen;
            let start = local + 30 + u16_at(local + 26) + u16_at(local + 28);
            let raw = &zip[start..start + csize];
            let data = match method {
                0 => raw.to_vec(),
                8 => miniz_oxide::inflate::decompress_to_vec(raw).unwrap(),
                m => panic!("zip method {m}"),
            };
            if !name.ends_with('/') {
                out.push((name, data));
            }
        }
        out
    }

    /// The files of one zip: (path, bytes).
    pub(crate) type ZipFiles = Vec<(String, Vec<u8>)>;

    /// The fixture warehouse zips: (zip name, files).
    pub(crate) fn fixture_zips() -> Vec<(String, ZipFiles)> {
        // The intact warehouses of fixtures.json; the scenario fixtures are damaged on purpose
        // (missing files, truncated manifests) and are exercised by the integration tests.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/warehouses");
        let listing: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/fixtures.json")).unwrap())
                .unwrap();
        let mut zips: Vec<std::path::PathBuf> = listing
            .as_object()
            .unwrap()
            .values()
            .filter_map(|v| v.get("zip").and_then(|z| z.as_str()))
            .map(|z| std::path::Path::new(dir).join(z))
            .collect();
        zips.sort();
        assert!(!zips.is_empty(), "no fixture zips in {dir}");
        zips.into_iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, unzip(&std::fs::read(&p).unwrap()))
            })
            .collect()
    }

    /// Every manifest-directory file of every fixture: (zip/path, bytes).
    pub(crate) fn fixture_manifest_files() -> Vec<(String, Vec<u8>)> {
        fixture_zips()
            .into_iter()
            .flat_map(|(zip, files)| {
                files
                    .into_iter()
                    .filter(|(n, _)| n.contains("/manifest/"))
                    .map(move |(n, b)| (format!("{zip}!/{n}"), b))
            })
            .collect()
    }

    /// `manifest-entry-0.8.avsc` (the schema Paimon writes; fields in `paimon-format.md` §3.3–§3.6), minified.
    pub(crate) const MANIFEST_ENTRY_0_8: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":["null",{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_KEY_STATS","type":["null",{"type":"record","name":"record__FILE__KEY_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_VALUE_STATS","type":["null",{"type":"record","name":"record__FILE__VALUE_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null}]}],"default":null}]}]"#;

    /// `manifest-entry-master.avsc` (the schema Paimon writes; fields in `paimon-format.md` §3.3–§3.6), minified.
    pub(crate) const MANIFEST_ENTRY_MASTER: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},{"name":"_FILE_SOURCE","type":["null","int"],"default":null},{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null},{"name":"_WRITE_COLS_SEQUENCES","type":["null",{"type":"array","items":"long"}],"default":null}]}}]}"#;

    /// `manifest-file-meta-0.8.avsc` (the schema Paimon writes; fields in `paimon-format.md` §3.3–§3.6), minified.
    pub(crate) const MANIFEST_FILE_META_0_8: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":["null",{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_SCHEMA_ID","type":"long"}]}]"#;

    /// `manifest-file-meta-master.avsc` (the schema Paimon writes; fields in `paimon-format.md` §3.3–§3.6), minified.
    pub(crate) const MANIFEST_FILE_META_1_4: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_SCHEMA_ID","type":"long"},{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}"#;

    /// `index-manifest-entry-0.8.avsc` (the schema Paimon writes; fields in `paimon-format.md` §3.3–§3.6), minified.
    pub(crate) const INDEX_MANIFEST_ENTRY_0_8: &str = r#"["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"}]}]}],"default":null}]}]"#;

    /// The Avro schema of an index manifest entry as Paimon master writes it, minified.
    pub(crate) const INDEX_MANIFEST_ENTRY_MASTER: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},{"name":"_INDEX_FIELD_ID","type":"int"},{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},{"name":"_INDEX_META","type":["null","bytes"],"default":null},{"name":"_SOURCE_META","type":["null","bytes"],"default":null}]}],"default":null}]}"#;
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::error::ErrorKind;
    use crate::paimon::index_manifest::read_index_manifest;
    use crate::paimon::manifest::read_manifest;
    use crate::paimon::manifest_list::read_manifest_list;
    use proptest::prelude::*;

    fn is_list(name: &str) -> bool {
        name.rsplit('/')
            .next()
            .unwrap()
            .starts_with("manifest-list-")
    }

    /// Reads `bytes` with the reader its name calls for; the count of records.
    fn read_any(name: &str, bytes: &[u8], cache: &mut AvroSchemaCache) -> Result<usize> {
        let limits = Limits::default();
        let base = name.rsplit('/').next().unwrap();
        if base.starts_with("manifest-list-") {
            read_manifest_list(bytes, cache, &limits).map(|v| v.len())
        } else if base.starts_with("index-manifest-") {
            read_index_manifest(bytes, cache, &limits).map(|v| v.len())
        } else {
            read_manifest(bytes, cache, &limits).map(|v| v.len())
        }
    }

    #[test]
    fn fixture_headers() {
        let files = fixture_manifest_files();
        assert!(files.len() > 200, "{}", files.len());
        for (name, bytes) in &files {
            let h = read_header(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(h.codec, Codec::Zstandard, "{name}");
            assert!(h.schema.contains("_VERSION"), "{name}");
        }
    }

    #[test]
    fn every_fixture_manifest_decodes_and_schemas_compile_once() {
        let mut cache = AvroSchemaCache::new();
        let files = fixture_manifest_files();
        let mut records = 0;
        for (name, bytes) in &files {
            records += read_any(name, bytes, &mut cache).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(records > files.len(), "{records} records");
        // Java 0.9 and pypaimon: two manifest-list schemas and two manifest schemas.
        assert!(
            cache.schemas_compiled() <= 4,
            "{}",
            cache.schemas_compiled()
        );
        assert_eq!(cache.len() as u64, cache.schemas_compiled());
        let before = cache.schemas_compiled();
        for (name, bytes) in &files {
            read_any(name, bytes, &mut cache).unwrap();
        }
        assert_eq!(
            cache.schemas_compiled(),
            before,
            "second pass must hit the cache"
        );
    }

    #[test]
    fn non_avro_magic() {
        let limits = Limits::default();
        let mut cache = AvroSchemaCache::new();
        for magic in [&b"ORC\x0a\x03"[..], b"PAR1\x15\x00"] {
            let e = read_manifest(magic, &mut cache, &limits).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unsupported);
            assert_eq!(
                e.to_string(),
                "not an Avro file (Paimon manifest.format orc/parquet is not supported)"
            );
        }
        let e = read_manifest(b"{\"json\": 1}", &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("found 7b226a736f6e223a"), "{e}");
        let e = read_manifest(b"", &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let e = read_manifest(b"Obj", &mut cache, &limits).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Format);
    }

    #[test]
    fn header_problems() {
        let limits = Limits::default();
        let mut cache = AvroSchemaCache::new();
        // Only a codec, no schema.
        let mut f = b"Obj\x01".to_vec();
        zigzag(1, &mut f);
        encode(&Val::Str("avro.codec".into()), &mut f);
        encode(&Val::Bytes(b"null".to_vec()), &mut f);
        f.push(0);
        f.extend_from_slice(&SYNC);
        let e = read_manifest(&f, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("avro.schema"), "{e}");
        // lz4 is no Avro codec.
        let mut f = header(MANIFEST_FILE_META_1_4, Codec::Null);
        let at = f.windows(4).position(|w| w == b"null").unwrap();
        f.splice(at..at + 4, *b"xz\x00\x00");
        // Fix the codec length: rebuild properly instead.
        let mut f2 = b"Obj\x01".to_vec();
        zigzag(-2, &mut f2); // negative count + byte size, as Java never writes but Avro allows
        zigzag(0, &mut f2);
        encode(&Val::Str("avro.schema".into()), &mut f2);
        encode(
            &Val::Bytes(MANIFEST_FILE_META_1_4.as_bytes().to_vec()),
            &mut f2,
        );
        encode(&Val::Str("avro.codec".into()), &mut f2);
        encode(&Val::Bytes(b"lz4".to_vec()), &mut f2);
        f2.push(0);
        f2.extend_from_slice(&SYNC);
        let e = read_manifest_list(&f2, &mut cache, &limits).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("lz4"), "{e}");
        drop(f);
        // Bad schema JSON.
        let f = ocf("{not json", Codec::Null, &[]);
        let e = read_manifest(&f, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().starts_with("avro.schema: "), "{e}");
        // A header with no blocks is an empty file, not an error.
        let f = ocf(MANIFEST_ENTRY_MASTER, Codec::Zstandard, &[]);
        assert!(read_manifest(&f, &mut cache, &limits).unwrap().is_empty());
    }

    fn list_row(name: &'static str) -> Fields {
        fields(vec![
            ("_VERSION", T::Int(2)),
            ("_FILE_NAME", T::Str(name)),
            ("_FILE_SIZE", T::Int(1234)),
            ("_NUM_ADDED_FILES", T::Int(3)),
            ("_SCHEMA_ID", T::Int(0)),
        ])
    }

    #[test]
    fn unknown_writer_fields_of_every_type_are_skipped() {
        let schema = r#"{"type":"record","name":"X","fields":[
            {"name":"a_bool","type":"boolean"},
            {"name":"_VERSION","type":"int"},
            {"name":"a_float","type":"float"},
            {"name":"a_double","type":"double"},
            {"name":"a_fixed","type":{"type":"fixed","name":"F3","size":3}},
            {"name":"a_ref","type":"F3"},
            {"name":"_FILE_NAME","type":"string"},
            {"name":"an_enum","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
            {"name":"a_map","type":{"type":"map","values":["null","long"]}},
            {"name":"an_array","type":{"type":"array","items":{"type":"array","items":"string"}}},
            {"name":"a_sized_array","type":{"type":"array","items":"long"}},
            {"name":"_FILE_SIZE","type":"long"},
            {"name":"a_rec","type":{"type":"record","name":"R","fields":[
                {"name":"x","type":"bytes"},{"name":"y","type":["null","string","long"]}]}},
            {"name":"_NUM_ADDED_FILES","type":"int"},
            {"name":"_NUM_DELETED_FILES","type":"long"},
            {"name":"_SCHEMA_ID","type":"long"},
            {"name":"nulls","type":{"type":"array","items":"null"}},
            {"name":"_MIN_BUCKET","type":["null","int"]}
        ]}"#;
        let row = Val::Rec(vec![
            Val::Bool(true),
            Val::Long(2),
            Val::Float(1.5),
            Val::Double(2.5),
            Val::Fixed(vec![1, 2, 3]),
            Val::Fixed(vec![4, 5, 6]),
            Val::Str("manifest-a".into()),
            Val::Enum(2),
            Val::Map(vec![
                ("k".into(), Val::Union(1, Box::new(Val::Long(-9)))),
                ("n".into(), Val::Union(0, Box::new(Val::Null))),
            ]),
            Val::Arr(vec![
                Val::Arr(vec![Val::Str("p".into()), Val::Str("q".into())]),
                Val::Arr(vec![]),
            ]),
            Val::ArrSized(vec![Val::Long(1), Val::Long(-1_000_000_000_000)]),
            Val::Long(77),
            Val::Rec(vec![
                Val::Bytes(vec![9; 40]),
                Val::Union(1, Box::new(Val::Str("s".into()))),
            ]),
            Val::Long(5),
            Val::Long(6),
            Val::Long(7),
            Val::Arr(vec![Val::Null, Val::Null, Val::Null]),
            Val::Union(1, Box::new(Val::Long(3))),
        ]);
        let mut cache = AvroSchemaCache::new();
        for codec in [Codec::Null, Codec::Deflate, Codec::Snappy, Codec::Zstandard] {
            let f = ocf(
                schema,
                codec,
                &[vec![row.clone(), row.clone()], vec![row.clone()]],
            );
            let out = read_manifest_list(&f, &mut cache, &Limits::default()).unwrap();
            assert_eq!(out.len(), 3, "{codec}");
            let m = &out[2];
            assert_eq!(m.file_name, "manifest-a");
            assert_eq!(m.file_size, 77);
            assert_eq!(m.num_added_files, 5);
            assert_eq!(m.num_deleted_files, 6);
            assert_eq!(m.schema_id, 7);
            assert_eq!(m.min_bucket, Some(3));
            assert_eq!(m.max_bucket, None);
            assert_eq!(m.partition_stats, None);
        }
        assert_eq!(cache.schemas_compiled(), 1);
    }

    #[test]
    fn type_mismatch_names_the_field() {
        let schema = r#"{"type":"record","name":"X","fields":[
            {"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"long"}]}"#;
        let f = ocf(
            schema,
            Codec::Null,
            &[vec![Val::Rec(vec![Val::Long(2), Val::Long(1)])]],
        );
        let e =
            read_manifest_list(&f, &mut AvroSchemaCache::new(), &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "block 0: record 0: field _FILE_NAME: expected string, found long in the writer schema"
        );
    }

    fn one_block(count: i64, data: &[u8], sync: &[u8; 16]) -> Vec<u8> {
        let mut f = header(MANIFEST_FILE_META_1_4, Codec::Null);
        zigzag(count, &mut f);
        zigzag(data.len() as i64, &mut f);
        f.extend_from_slice(data);
        f.extend_from_slice(sync);
        f
    }

    fn list_data(n: usize) -> Vec<u8> {
        let rows: Vec<Fields> = (0..n).map(|_| list_row("m")).collect();
        let mut data = Vec::new();
        for v in records(MANIFEST_FILE_META_1_4, &rows) {
            encode(&v, &mut data);
        }
        data
    }

    #[test]
    fn lying_blocks_are_errors() {
        let limits = Limits::default();
        let mut cache = AvroSchemaCache::new();
        let data = list_data(2);
        assert_eq!(
            read_manifest_list(&one_block(2, &data, &SYNC), &mut cache, &limits)
                .unwrap()
                .len(),
            2
        );
        // Count too high: runs out of data.
        let e = read_manifest_list(&one_block(3, &data, &SYNC), &mut cache, &limits).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("block 0: record 2: field _VERSION: expected long, found end of data"),
            "{e}"
        );
        // Count too low: bytes left over.
        let e = read_manifest_list(&one_block(1, &data, &SYNC), &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("left over"), "{e}");
        // Absurd counts are rejected before any allocation.
        let e =
            read_manifest_list(&one_block(1 << 60, &data, &SYNC), &mut cache, &limits).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
        let e = read_manifest_list(&one_block(-1, &data, &SYNC), &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("record count"), "{e}");
        // Wrong sync marker.
        let e = read_manifest_list(
            &one_block(2, &data, b"fedcba9876543210"),
            &mut cache,
            &limits,
        )
        .unwrap_err();
        assert!(e.to_string().contains("sync marker"), "{e}");
        // Block size larger than the file.
        let mut f = header(MANIFEST_FILE_META_1_4, Codec::Null);
        zigzag(2, &mut f);
        zigzag(1 << 40, &mut f);
        f.extend_from_slice(&data);
        let e = read_manifest_list(&f, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("block size"), "{e}");
        // A huge varint where the count should be.
        let mut f = header(MANIFEST_FILE_META_1_4, Codec::Null);
        f.extend_from_slice(&[0xff; 12]);
        let e = read_manifest_list(&f, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("longer than 64 bits"), "{e}");
    }

    #[test]
    fn a_wrong_snappy_crc_fails_the_file() {
        let rows: Vec<Fields> = (0..3).map(|_| list_row("m")).collect();
        let good = ocf(
            MANIFEST_FILE_META_0_8,
            Codec::Snappy,
            &[records(MANIFEST_FILE_META_0_8, &rows)],
        );
        let mut cache = AvroSchemaCache::new();
        assert_eq!(
            read_manifest_list(&good, &mut cache, &Limits::default())
                .unwrap()
                .len(),
            3
        );
        // The CRC is the last 4 bytes before the 16-byte sync marker.
        let mut bad = good.clone();
        let at = bad.len() - 16 - 1;
        bad[at] ^= 0x40;
        let e = read_manifest_list(&bad, &mut cache, &Limits::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Format);
        assert!(
            e.to_string()
                .starts_with("block 0: snappy block CRC mismatch"),
            "{e}"
        );
    }

    #[test]
    fn every_truncation_of_a_real_file_is_an_error() {
        let files = fixture_manifest_files();
        let mut cache = AvroSchemaCache::new();
        // Cut anywhere but right after the header (a header alone is a valid empty file).
        for (name, bytes) in files.iter().filter(|(n, _)| !is_list(n)).take(3) {
            let header_end = read_header(bytes).unwrap().data_start;
            for len in (0..bytes.len()).filter(|&l| l != header_end) {
                assert!(
                    read_any(name, &bytes[..len], &mut cache).is_err(),
                    "{name} truncated to {len} bytes decoded"
                );
            }
        }
        for (name, bytes) in files.iter().filter(|(n, _)| is_list(n)).take(2) {
            let header_end = read_header(bytes).unwrap().data_start;
            for len in (0..bytes.len()).filter(|&l| l != header_end) {
                assert!(
                    read_any(name, &bytes[..len], &mut cache).is_err(),
                    "{name} {len}"
                );
            }
        }
    }

    #[test]
    fn limits_are_named() {
        let data = list_data(3);
        let f = one_block(3, &data, &SYNC);
        let mut cache = AvroSchemaCache::new();
        let mut two_blocks = f.clone();
        let mut tail = Vec::new();
        zigzag(3, &mut tail);
        zigzag(data.len() as i64, &mut tail);
        tail.extend_from_slice(&data);
        tail.extend_from_slice(&SYNC);
        two_blocks.extend(tail);
        assert_eq!(
            read_manifest_list(&two_blocks, &mut cache, &Limits::default())
                .unwrap()
                .len(),
            6
        );
        let limits = Limits {
            max_avro_blocks: 1,
            ..Limits::default()
        };
        let e = read_manifest_list(&two_blocks, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("limit max-avro-blocks"), "{e}");
        let limits = Limits {
            max_avro_records: 5,
            ..Limits::default()
        };
        let e = read_manifest_list(&two_blocks, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("limit max-avro-records"), "{e}");
        let limits = Limits {
            max_avro_block_bytes: data.len() as u64 - 1,
            ..Limits::default()
        };
        let e = read_manifest_list(&f, &mut cache, &limits).unwrap_err();
        assert!(e.to_string().contains("limit max-avro-block-bytes"), "{e}");
    }

    #[test]
    fn cache_is_bounded() {
        let mut cache = AvroSchemaCache::new();
        for i in 0..(MAX_PLANS_PER_READER + 10) {
            let schema = MANIFEST_FILE_META_1_4.replacen(
                "\"name\":\"record\"",
                &format!("\"name\":\"r{i}\""),
                1,
            );
            let f = ocf(&schema, Codec::Null, &[]);
            read_manifest_list(&f, &mut cache, &Limits::default()).unwrap();
        }
        assert!(cache.len() <= MAX_PLANS_PER_READER);
        assert_eq!(cache.schemas_compiled(), MAX_PLANS_PER_READER as u64 + 10);
    }

    #[test]
    fn recursive_writer_schemas_cannot_overflow_the_stack() {
        let schema = r#"{"type":"record","name":"X","fields":[
            {"name":"_VERSION","type":"int"},
            {"name":"deep","type":{"type":"record","name":"N","fields":[{"name":"next","type":["null","N"]}]}}]}"#;
        let mut data = Vec::new();
        zigzag(2, &mut data);
        for _ in 0..100_000 {
            zigzag(1, &mut data);
        }
        zigzag(0, &mut data);
        let mut f = header(schema, Codec::Null);
        zigzag(1, &mut f);
        zigzag(data.len() as i64, &mut f);
        f.extend(data);
        f.extend_from_slice(&SYNC);
        let e =
            read_manifest_list(&f, &mut AvroSchemaCache::new(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("nested"), "{e}");
    }

    #[test]
    fn zero_width_array_items_do_not_hang() {
        let schema = r#"{"type":"record","name":"X","fields":[
            {"name":"_VERSION","type":"int"},
            {"name":"z","type":{"type":"array","items":"null"}}]}"#;
        let mut data = Vec::new();
        zigzag(2, &mut data);
        for _ in 0..1000 {
            zigzag(i64::MAX, &mut data);
        }
        zigzag(0, &mut data);
        let mut f = header(schema, Codec::Null);
        zigzag(1, &mut f);
        zigzag(data.len() as i64, &mut f);
        f.extend(data);
        f.extend_from_slice(&SYNC);
        let start = std::time::Instant::now();
        let e =
            read_manifest_list(&f, &mut AvroSchemaCache::new(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("_FILE_NAME"), "{e}");
        assert!(start.elapsed().as_secs() < 5);
    }

    fn mutate(bytes: &[u8], edits: &[(usize, u8)], cut: Option<usize>) -> Vec<u8> {
        let mut b = bytes.to_vec();
        for (at, x) in edits {
            if !b.is_empty() {
                let n = b.len();
                b[at % n] ^= x | 1;
            }
        }
        if let Some(c) = cut {
            b.truncate(c % (bytes.len() + 1));
        }
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let mut cache = AvroSchemaCache::new();
            let limits = Limits::default();
            let _ = read_manifest(&bytes, &mut cache, &limits);
            let _ = read_manifest_list(&bytes, &mut cache, &limits);
            let _ = read_index_manifest(&bytes, &mut cache, &limits);
            let _ = read_header(&bytes);
        }

        #[test]
        fn arbitrary_blocks_after_a_real_header_never_panic(
            codec in prop_oneof![Just(Codec::Null), Just(Codec::Deflate), Just(Codec::Snappy), Just(Codec::Zstandard)],
            count in 0i64..50,
            body in proptest::collection::vec(any::<u8>(), 0..1024),
            compress_it in any::<bool>(),
        ) {
            let mut cache = AvroSchemaCache::new();
            let limits = Limits { max_avro_block_bytes: 1 << 20, ..Limits::default() };
            for schema in [MANIFEST_ENTRY_0_8, MANIFEST_ENTRY_MASTER, MANIFEST_FILE_META_0_8,
                           MANIFEST_FILE_META_1_4, INDEX_MANIFEST_ENTRY_0_8, INDEX_MANIFEST_ENTRY_MASTER] {
                let data = if compress_it { compress(codec, &body) } else { body.clone() };
                let mut f = header(schema, codec);
                zigzag(count, &mut f);
                zigzag(data.len() as i64, &mut f);
                f.extend(data);
                f.extend_from_slice(&SYNC);
                let _ = read_manifest(&f, &mut cache, &limits);
                let _ = read_manifest_list(&f, &mut cache, &limits);
                let _ = read_index_manifest(&f, &mut cache, &limits);
            }
        }

        #[test]
        fn mutated_real_files_never_panic(
            which in any::<prop::sample::Index>(),
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
            cut in proptest::option::of(any::<usize>()),
        ) {
            thread_local! {
                static FILES: Vec<(String, Vec<u8>)> = fixture_manifest_files();
            }
            FILES.with(|files| {
                let (_, bytes) = &files[which.index(files.len())];
                let b = mutate(bytes, &edits, cut);
                let mut cache = AvroSchemaCache::new();
                let limits = Limits::default();
                let _ = read_manifest(&b, &mut cache, &limits);
                let _ = read_manifest_list(&b, &mut cache, &limits);
                let _ = read_index_manifest(&b, &mut cache, &limits);
            });
        }

        #[test]
        fn mutated_decompressed_blocks_never_panic(
            which in any::<prop::sample::Index>(),
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
            cut in proptest::option::of(any::<usize>()),
        ) {
            // Re-encode a real file's block uncompressed, then damage the datum bytes, so the
            // decoder (not the codec's checksum) sees the damage.
            thread_local! {
                static FILES: Vec<(String, Vec<u8>)> = fixture_manifest_files();
            }
            FILES.with(|files| {
                let (_, bytes) = &files[which.index(files.len())];
                let h = read_header(bytes).unwrap();
                let mut d = codec::Decompressor::default();
                let mut blocks = Vec::new();
                container::for_each_block(bytes, &h.framing(), &Limits::default(), &mut d, |_, n, data| {
                    blocks.push((n, data.to_vec()));
                    Ok(())
                }).unwrap();
                let mut f = header(h.schema, Codec::Null);
                for (n, data) in blocks {
                    let data = mutate(&data, &edits, cut);
                    zigzag(n as i64, &mut f);
                    zigzag(data.len() as i64, &mut f);
                    f.extend(data);
                    f.extend_from_slice(&SYNC);
                }
                let mut cache = AvroSchemaCache::new();
                let limits = Limits::default();
                let _ = read_manifest(&f, &mut cache, &limits);
                let _ = read_manifest_list(&f, &mut cache, &limits);
                let _ = read_index_manifest(&f, &mut cache, &limits);
            });
        }
    }
}
