//! Helpers shared by the unit tests that build binary inputs by hand (Avro datums, Thrift
//! footers, Parquet and ORC run-length streams): the one test-side encoder of the variable-length
//! integers those formats share.

/// Appends `v` as an unsigned LEB128 varint (seven bits a byte, low bits first, the high bit set
/// on every byte but the last): Avro's, Thrift's compact protocol's, Parquet's and ORC's.
pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The zigzag mapping of a signed integer (0, −1, 1, −2 … to 0, 1, 2, 3 …).
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_the_formats_do() {
        let enc = |v: u64| {
            let mut out = Vec::new();
            varint(&mut out, v);
            out
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(enc(u64::MAX).len(), 10);
        assert_eq!(
            [0, -1, 1, -2, i64::MAX, i64::MIN].map(zigzag),
            [0, 1, 2, 3, u64::MAX - 1, u64::MAX]
        );
    }
}
