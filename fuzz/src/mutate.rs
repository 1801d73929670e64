//! The structure-aware mutator: real fixture warehouses, changed entry by entry.
//!
//! Byte-level fuzzing of a whole zip mostly dies at the zip's CRC check or the zstd frame of an
//! Avro block, far from the Paimon checks. Here `arbitrary` picks a fixture warehouse and a few
//! [`Edit`]s (replace, truncate, flip, splice a JSON number or string, rename, duplicate, drop an
//! entry, change its time), applied to the decoded entries; the result is zipped again with
//! correct CRCs ([`crate::zipwrite`]) and analysed like any input ([`crate::harness::analysis`]).
//! Avro files can be offered with their blocks already decompressed (codec `null`), so flipped
//! bytes land in the records the manifest decoders read.

use std::sync::OnceLock;

use arbitrary::Arbitrary;

use crate::zipwrite::{write_zip, ZipEntry};

/// Small real warehouses covering the finding families (lost changelog, consumers, temp
/// snapshots, tags and branches, snappy manifests, Spark checkpoints, Ray checkpoints).
const FIXTURES: &[&[u8]] = &[
    include_bytes!("../../tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip"),
    include_bytes!("../../tests/fixtures/warehouses/java09_b_consumer.zip"),
    include_bytes!("../../tests/fixtures/warehouses/java09_temp_snapshot_compact.zip"),
    include_bytes!("../../tests/fixtures/warehouses/java09_e_expire_changelog_tag_branch.zip"),
    include_bytes!("../../tests/fixtures/warehouses/java09_snappy_manifests.zip"),
    include_bytes!("../../tests/fixtures/warehouses/java09_pending_changelog.zip"),
    include_bytes!("../../tests/fixtures/spark/b_consumer_normal_lag.zip"),
    include_bytes!("../../tests/fixtures/ray/A_after_resume.zip"),
];

/// At most this many edits are applied per input.
const MAX_EDITS: usize = 8;

/// What to do to one fixture.
#[derive(Debug, Arbitrary)]
pub struct Plan {
    /// Which fixture (modulo their number).
    pub fixture: u8,
    /// Offer Avro files with decompressed (`null` codec) blocks.
    pub plain_avro: bool,
    /// Deflate the entries when zipping again if this is a multiple of 8 (else stored:
    /// deflating every input took ~40% of the target's time; the deflate path of the zip reader
    /// is fuzzed by `zip_source` and `analysis`).
    pub compression: u8,
    /// The edits, in order.
    pub edits: Vec<Edit>,
}

/// One change to the entries. `entry` picks among the metadata entries (everything but data
/// files), modulo their number; `Remove` picks among all entries.
#[derive(Debug, Arbitrary)]
pub enum Edit {
    /// Replace the content.
    Replace { entry: u16, bytes: Vec<u8> },
    /// Cut the content at `at` (modulo its length + 1).
    Truncate { entry: u16, at: u32 },
    /// XOR one byte.
    Flip { entry: u16, at: u32, xor: u8 },
    /// Insert bytes.
    Insert { entry: u16, at: u32, bytes: Vec<u8> },
    /// Set the `nth` number of a JSON or hint file (ids, nextSnapshot, timeMillis, …).
    SetNumber { entry: u16, nth: u8, value: i64 },
    /// Set the `nth` number of a JSON file to a small change of itself (stays plausible).
    Nudge { entry: u16, nth: u8, delta: i8 },
    /// Set the `nth` string of a JSON file (commitKind, commitUser, manifest list names, …).
    SetString { entry: u16, nth: u8, value: String },
    /// Drop the entry.
    Remove { entry: u16 },
    /// Copy the entry to a sibling with the given last path component.
    Duplicate { entry: u16, name: String },
    /// Change the entry's last path component.
    Rename { entry: u16, name: String },
    /// Change the entry's modification time (seconds from 2026-01-01, as a UTC time).
    SetTime { entry: u16, secs: i32 },
}

/// One decoded fixture: its entries, and the same with Avro blocks decompressed.
struct Decoded {
    entries: Vec<ZipEntry>,
    plain: Vec<ZipEntry>,
}

fn fixtures() -> &'static [Decoded] {
    static DECODED: OnceLock<Vec<Decoded>> = OnceLock::new();
    DECODED.get_or_init(|| FIXTURES.iter().map(|bytes| decode(bytes)).collect())
}

/// Reads every entry of a fixture through the core (fixtures are valid: anything unreadable is
/// left out).
fn decode(zip: &[u8]) -> Decoded {
    let limits = prv::Limits::default();
    let mut entries = Vec::new();
    if let Ok(artifact) = crate::harness::open_zip(zip, &limits) {
        for f in artifact.files() {
            let Ok(data) = artifact.read_entry(f, u64::MAX) else {
                continue;
            };
            let (mtime_secs, utc) = match f.modified {
                Some(prv::source::FileTime::Utc(ms)) => (ms.div_euclid(1000), true),
                Some(prv::source::FileTime::ZipLocal(ms)) => (ms.div_euclid(1000), false),
                None => (0, false),
            };
            entries.push(ZipEntry {
                name: f.path.clone().into_bytes(),
                data,
                mtime_secs,
                utc,
            });
        }
    }
    let plain = entries
        .iter()
        .map(|e| ZipEntry {
            data: plain_avro(&e.data).unwrap_or_else(|| e.data.clone()),
            ..e.clone()
        })
        .collect();
    Decoded { entries, plain }
}

/// Applies `plan` and returns the zip to analyse.
pub fn build(plan: &Plan) -> Vec<u8> {
    let all = fixtures();
    if all.is_empty() {
        return Vec::new();
    }
    let fixture = &all[usize::from(plan.fixture) % all.len()];
    let mut entries = if plan.plain_avro {
        fixture.plain.clone()
    } else {
        fixture.entries.clone()
    };
    for edit in plan.edits.iter().take(MAX_EDITS) {
        apply(&mut entries, edit);
    }
    write_zip(&entries, plan.compression % 8 == 0)
}

fn is_data_file(e: &ZipEntry) -> bool {
    let n = &e.name;
    n.ends_with(b".parquet") || n.ends_with(b".orc") || n.ends_with(b".avro")
}

/// The index of the `pick`-th metadata entry (modulo their number).
fn metadata_entry(entries: &[ZipEntry], pick: u16) -> Option<usize> {
    let meta: Vec<usize> = (0..entries.len())
        .filter(|&i| !is_data_file(&entries[i]))
        .collect();
    if meta.is_empty() {
        return None;
    }
    meta.get(usize::from(pick) % meta.len()).copied()
}

fn apply(entries: &mut Vec<ZipEntry>, edit: &Edit) {
    match edit {
        Edit::Remove { entry } => {
            if !entries.is_empty() {
                let i = usize::from(*entry) % entries.len();
                entries.remove(i);
            }
        }
        Edit::Replace { entry, bytes } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                entries[i].data = bytes.clone();
            }
        }
        Edit::Truncate { entry, at } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                let d = &mut entries[i].data;
                let at = *at as usize % (d.len() + 1);
                d.truncate(at);
            }
        }
        Edit::Flip { entry, at, xor } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                let d = &mut entries[i].data;
                if !d.is_empty() {
                    let at = *at as usize % d.len();
                    d[at] ^= xor;
                }
            }
        }
        Edit::Insert { entry, at, bytes } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                let d = &mut entries[i].data;
                let at = *at as usize % (d.len() + 1);
                d.splice(at..at, bytes.iter().copied());
            }
        }
        Edit::SetNumber { entry, nth, value } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                set_number(&mut entries[i].data, *nth, |_| value.to_string());
            }
        }
        Edit::Nudge { entry, nth, delta } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                set_number(&mut entries[i].data, *nth, |old| {
                    old.parse::<i64>()
                        .map(|n| n.saturating_add(i64::from(*delta)).to_string())
                        .unwrap_or_else(|_| old.to_string())
                });
            }
        }
        Edit::SetString { entry, nth, value } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                set_string(&mut entries[i].data, *nth, value);
            }
        }
        Edit::Duplicate { entry, name } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                let mut copy = entries[i].clone();
                copy.name = sibling(&copy.name, name);
                entries.push(copy);
            }
        }
        Edit::Rename { entry, name } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                entries[i].name = sibling(&entries[i].name, name);
            }
        }
        Edit::SetTime { entry, secs } => {
            if let Some(i) = metadata_entry(entries, *entry) {
                // 2026-01-01T00:00:00Z plus up to ±68 years.
                entries[i].mtime_secs = 1_767_225_600 + i64::from(*secs);
                entries[i].utc = true;
            }
        }
    }
}

/// `dir/old` → `dir/name`.
fn sibling(path: &[u8], name: &str) -> Vec<u8> {
    let dir_end = path.iter().rposition(|&b| b == b'/').map_or(0, |p| p + 1);
    let mut out = path[..dir_end].to_vec();
    out.extend_from_slice(name.as_bytes());
    out
}

/// Replaces the `nth` (modulo their number) decimal number in a JSON or hint text: a run of
/// digits (with an optional `-`) not inside a string.
fn set_number(data: &mut Vec<u8>, nth: u8, new: impl FnOnce(&str) -> String) {
    let mut spans = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b.is_ascii_digit() || (b == b'-' && data.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            i += 1;
            while i < data.len() && data[i].is_ascii_digit() {
                i += 1;
            }
            spans.push((start, i));
            continue;
        }
        i += 1;
    }
    if spans.is_empty() {
        return;
    }
    let (s, e) = spans[usize::from(nth) % spans.len()];
    let old = String::from_utf8_lossy(&data[s..e]).into_owned();
    let replacement = new(&old);
    data.splice(s..e, replacement.into_bytes());
}

/// Replaces the contents of the `nth` (modulo their number) JSON string, escaped.
fn set_string(data: &mut Vec<u8>, nth: u8, value: &str) {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'"' {
            let start = i + 1;
            let mut j = start;
            while j < data.len() && data[j] != b'"' {
                if data[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            if j >= data.len() {
                break;
            }
            spans.push((start, j));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    if spans.is_empty() {
        return;
    }
    let (s, e) = spans[usize::from(nth) % spans.len()];
    let escaped = serde_json::to_string(value).unwrap_or_default();
    let inner = escaped
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or("");
    data.splice(s..e, inner.bytes());
}

// ---------------------------------------------------------------- Avro, blocks decompressed

fn read_long(b: &[u8], pos: &mut usize) -> Option<i64> {
    let mut v: u64 = 0;
    let mut shift = 0;
    loop {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
    Some(((v >> 1) as i64) ^ -((v & 1) as i64))
}

fn write_long(out: &mut Vec<u8>, n: i64) {
    let mut v = ((n << 1) ^ (n >> 63)) as u64;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
}

/// The same Avro container with codec `null`: blocks decompressed, header rewritten. `None`
/// if `data` is not an Avro container or cannot be decompressed.
fn plain_avro(data: &[u8]) -> Option<Vec<u8>> {
    use prv::paimon::avro::{read_header, Codec};
    use std::io::Read;

    let header = read_header(data).ok()?;
    let mut out = b"Obj\x01".to_vec();
    write_long(&mut out, 1);
    let key = b"avro.schema";
    write_long(&mut out, key.len() as i64);
    out.extend_from_slice(key);
    write_long(&mut out, header.schema.len() as i64);
    out.extend_from_slice(header.schema.as_bytes());
    write_long(&mut out, 0);
    out.extend_from_slice(&header.sync);
    let mut pos = header.data_start;
    while pos < data.len() {
        let count = read_long(data, &mut pos)?;
        let size = usize::try_from(read_long(data, &mut pos)?).ok()?;
        let block = data.get(pos..pos.checked_add(size)?)?;
        pos += size + 16;
        let plain = match header.codec {
            Codec::Null => block.to_vec(),
            Codec::Deflate => miniz_oxide::inflate::decompress_to_vec(block).ok()?,
            Codec::Snappy => {
                let body = block.get(..block.len().checked_sub(4)?)?;
                snap::raw::Decoder::new().decompress_vec(body).ok()?
            }
            Codec::Zstandard => {
                let mut src = block;
                let mut dec = ruzstd::decoding::StreamingDecoder::new(&mut src).ok()?;
                let mut v = Vec::new();
                dec.read_to_end(&mut v).ok()?;
                v
            }
        };
        write_long(&mut out, count);
        write_long(&mut out, plain.len() as i64);
        out.extend_from_slice(&plain);
        out.extend_from_slice(&header.sync);
    }
    Some(out)
}

/// Writes every Avro file of the fixtures, blocks decompressed (codec `null`), into `dir` as
/// `plain-<fixture>-<n>.avro` (seeds for the `avro_manifests` target).
pub fn write_plain_avro(dir: &std::path::Path) {
    let _ = std::fs::create_dir_all(dir);
    for (f, fixture) in fixtures().iter().enumerate() {
        for (n, (plain, original)) in fixture.plain.iter().zip(&fixture.entries).enumerate() {
            if plain.data != original.data {
                let _ = std::fs::write(dir.join(format!("plain-{f}-{n}.avro")), &plain.data);
            }
        }
    }
}
