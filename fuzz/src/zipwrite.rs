//! The zip the structure-aware fuzz target builds: stored or deflated entries with correct
//! CRCs and sizes (so the fuzzer's changes reach the Paimon parsers instead of dying at the CRC
//! check), MS-DOS times and, when known, a UTC extended timestamp. Written by the tests' zip
//! writer (`tests/common/zipwriter.rs`), the one zip writer of the repository.

#[path = "../../tests/common/zipwriter.rs"]
#[allow(dead_code)]
mod zipwriter;

/// One entry to write.
#[derive(Debug, Clone)]
pub struct ZipEntry {
    /// The name as stored (any bytes).
    pub name: Vec<u8>,
    /// The content.
    pub data: Vec<u8>,
    /// Modification time, epoch seconds.
    pub mtime_secs: i64,
    /// Whether the time is a true UTC instant (written as an extended-timestamp field too).
    pub utc: bool,
}

/// Writes the entries as a zip; `deflate` compresses each entry (level 1).
pub fn write_zip(entries: &[ZipEntry], deflate: bool) -> Vec<u8> {
    let entries: Vec<zipwriter::Entry> = entries
        .iter()
        .map(|e| zipwriter::Entry {
            name: e.name[..e.name.len().min(0xFFFF)].to_vec(),
            data: zipwriter::EntryData::Bytes(e.data.clone()),
            deflate,
            dos_time: zipwriter::dos_time(e.mtime_secs),
            declared_size: None,
            declared_crc: None,
            method: None,
            flags: 1 << 11, // UTF-8 names
            external_attrs: 0o100644 << 16,
            extra: if e.utc {
                zipwriter::extended_timestamp(e.mtime_secs)
            } else {
                Vec::new()
            },
            level: 1,
        })
        .collect();
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = zipwriter::write_zip(&mut out, &entries);
    out
}
