//! Avro object container files as Paimon 0.9 writes its manifests: the writer schema in the
//! header, `avro.codec` = `zstandard`, blocks of at most ~64 KB of records, a random sync marker.

use ruzstd::encoding::{compress_to_vec, CompressionLevel};

/// Paimon 0.9's writer schema of `ManifestEntry` (`manifest-entry-0.9.avsc`), byte for byte as
/// Java Paimon writes it into the header (compact JSON).
pub const MANIFEST_ENTRY_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},{"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},{"name":"_FILE_SOURCE","type":["null","int"],"default":null}]}}]}"#;

/// Paimon 0.9's writer schema of `ManifestFileMeta` (`manifest-file-meta-0.9.avsc`).
pub const MANIFEST_FILE_META_SCHEMA: &str = r#"{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_SCHEMA_ID","type":"long"}]}"#;

/// Uncompressed bytes after which a block is closed (Avro's default sync interval).
const BLOCK_BYTES: usize = 64_000;

/// Appends Avro primitives to a buffer.
#[derive(Default)]
pub struct Enc {
    pub buf: Vec<u8>,
}

impl Enc {
    pub fn long(&mut self, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            self.buf.push((z as u8) | 0x80);
            z >>= 7;
        }
        self.buf.push(z as u8);
    }

    pub fn int(&mut self, v: i32) {
        self.long(i64::from(v));
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.long(b.len() as i64);
        self.buf.extend_from_slice(b);
    }

    pub fn string(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// A union branch index.
    pub fn branch(&mut self, i: i64) {
        self.long(i);
    }

    /// `["null", {"type":"array","items":["null","long"]}]` with every count present.
    pub fn null_counts(&mut self, counts: &[i64]) {
        self.branch(1);
        if !counts.is_empty() {
            self.long(counts.len() as i64);
            for c in counts {
                self.branch(1);
                self.long(*c);
            }
        }
        self.long(0);
    }
}

/// Writes a container file: header, zstandard blocks of the given encoded records, sync markers.
pub fn container(schema: &str, records: &[Vec<u8>], sync: [u8; 16]) -> Vec<u8> {
    let mut out = Enc::default();
    out.buf.extend_from_slice(b"Obj\x01");
    out.long(2);
    out.string("avro.schema");
    out.string(schema);
    out.string("avro.codec");
    out.string("zstandard");
    out.long(0);
    out.buf.extend_from_slice(&sync);
    let mut block = Vec::new();
    let mut count = 0i64;
    let flush = |out: &mut Enc, block: &mut Vec<u8>, count: &mut i64| {
        if *count == 0 {
            return;
        }
        let compressed = compress_to_vec(block.as_slice(), CompressionLevel::Fastest);
        out.long(*count);
        out.bytes(&compressed);
        out.buf.extend_from_slice(&sync);
        block.clear();
        *count = 0;
    };
    for r in records {
        block.extend_from_slice(r);
        count += 1;
        if block.len() >= BLOCK_BYTES {
            flush(&mut out, &mut block, &mut count);
        }
    }
    flush(&mut out, &mut block, &mut count);
    out.buf
}
