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
//! The Paimon readers built on this are [`crate::paimon::manifest_list::read_manifest_list`],
//! [`crate::paimon::manifest::read_manifest`] and
//! [`crate::paimon::index_manifest::read_index_manifest`].

mod codec;
mod container;
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
/// buffers. Create one per analysis (or per worker) and pass it to every manifest read, so that
/// thousands of manifests with the same schema parse and compile it once.
#[derive(Debug, Default)]
pub struct AvroSchemaCache {
    plans: HashMap<&'static str, HashMap<Box<str>, Plan>>,
    decompressor: Decompressor,
    compiled: u64,
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

    /// How many compiled plans the cache holds.
    pub fn len(&self) -> usize {
        self.plans.values().map(HashMap::len).sum()
    }

    /// Whether the cache holds no plan.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn plan_for<'c>(
    plans: &'c mut HashMap<&'static str, HashMap<Box<str>, Plan>>,
    compiled: &mut u64,
    spec: &'static RecordSpec,
    schema_text: &str,
) -> Result<&'c Plan> {
    let map = plans.entry(spec.name).or_default();
    if !map.contains_key(schema_text) {
        let schema = WriterSchema::parse(schema_text).map_err(|e| e.context("avro.schema"))?;
        if map.len() >= MAX_PLANS_PER_READER {
            map.clear();
        }
        map.insert(schema_text.into(), Plan::compile(schema, spec));
        *compiled += 1;
    }
    map.get(schema_text)
        .ok_or_else(|| Error::format("internal error: compiled plan missing from the cache"))
}

/// The decoded slots of one record, with typed accessors that name the field on error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row<'r, 'a> {
    slots: &'r [Slot<'a>],
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

    /// A required nested record: Ok if written, an error naming it if null or absent.
    pub(crate) fn require(&self, slot: usize, name: &str) -> Result<()> {
        match self.get(slot) {
            Slot::Present => Ok(()),
            Slot::Absent => Err(missing(name)),
            _ => Err(null(name)),
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

    /// An optional array of strings (null items are an error).
    pub(crate) fn opt_str_list(&self, slot: usize, name: &str) -> Result<Option<Vec<String>>> {
        match self.get(slot) {
            Slot::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Slot::Str(s) => Ok((*s).to_string()),
                    other => Err(wrong(&format!("{name} item {i}"), "a string", other)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
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
    Error::format(format!("expected field {name} as {expected}, found {found}"))
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
    let header = read_header(bytes)?;
    let AvroSchemaCache {
        plans,
        decompressor,
        compiled,
    } = cache;
    let plan = plan_for(plans, compiled, spec, header.schema)?;
    let zero_width = plan.zero_width();
    let mut out: Vec<T> = Vec::new();
    let mut record = 0u64;
    container::for_each_block(bytes, &header, limits, decompressor, |block, count, data| {
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
        out.reserve(usize::try_from(count.min(data.len() as u64)).unwrap_or(0));
        for _ in 0..count {
            for s in slots.iter_mut() {
                *s = Slot::Absent;
            }
            let value = plan
                .decode(&mut cur, &mut slots)
                .and_then(|()| build(Row::new(&slots)))
                .map_err(|e| {
                    e.context(format!("record {record}"))
                        .context(format!("block {block}"))
                })?;
            out.push(value);
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
    })?;
    Ok(out)
}

