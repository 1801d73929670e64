//! A minimal protocol-buffers reader for ORC's metadata messages (PostScript, Footer,
//! StripeFooter): varints, length-delimited fields, skipping of everything else.
//!
//! Bounded by construction: every field is a slice of the message it comes from, so no length
//! can reach past the bytes that are there; a varint is at most 10 bytes; groups (wire types 3
//! and 4, deprecated and never written by ORC) are refused.

use crate::error::{Error, Result};

/// A field's value as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: bytes, a string, a sub-message or a packed repeated field.
    Bytes(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

impl<'a> Wire<'a> {
    /// The value of a varint field.
    pub(crate) fn varint(self, what: &str) -> Result<u64> {
        match self {
            Wire::Varint(v) => Ok(v),
            other => Err(Error::format(format!(
                "field {what}: expected a varint, found {other:?}"
            ))),
        }
    }

    /// The bytes of a length-delimited field.
    pub(crate) fn bytes(self, what: &str) -> Result<&'a [u8]> {
        match self {
            Wire::Bytes(b) => Ok(b),
            other => Err(Error::format(format!(
                "field {what}: expected a length-delimited value, found {other:?}"
            ))),
        }
    }

    /// The values of a repeated varint field, packed (one `Bytes`) or not (one `Varint`).
    pub(crate) fn packed_varints(self, what: &str, out: &mut Vec<u64>) -> Result<()> {
        match self {
            Wire::Varint(v) => out.push(v),
            Wire::Bytes(mut b) => {
                while !b.is_empty() {
                    out.push(read_varint(&mut b).map_err(|e| e.context(format!("field {what}")))?);
                }
            }
            other => {
                return Err(Error::format(format!(
                    "field {what}: expected varints, found {other:?}"
                )))
            }
        }
        Ok(())
    }
}

/// Reads a base-128 varint (at most 10 bytes) and advances `b`.
pub(crate) fn read_varint(b: &mut &[u8]) -> Result<u64> {
    let mut v: u64 = 0;
    for i in 0..10u32 {
        let (&byte, rest) = b
            .split_first()
            .ok_or_else(|| Error::format("a varint runs past the end of its message"))?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(Error::format("a varint is longer than 10 bytes"))
}

/// The fields of one message, in order.
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub(crate) fn new(message: &'a [u8]) -> Self {
        Fields { rest: message }
    }

    /// The next `(field number, value)`, `None` at the end of the message.
    pub(crate) fn next_field(&mut self) -> Result<Option<(u64, Wire<'a>)>> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let tag = read_varint(&mut self.rest)?;
        let field = tag >> 3;
        let value = match tag & 7 {
            0 => Wire::Varint(read_varint(&mut self.rest)?),
            1 => {
                let (v, rest) = split(self.rest, 8, field)?;
                self.rest = rest;
                Wire::Fixed64(u64::from_le_bytes(to_array(v)))
            }
            2 => {
                let len = read_varint(&mut self.rest)?;
                let len = usize::try_from(len).unwrap_or(usize::MAX);
                let (v, rest) = split(self.rest, len, field)?;
                self.rest = rest;
                Wire::Bytes(v)
            }
            5 => {
                let (v, rest) = split(self.rest, 4, field)?;
                self.rest = rest;
                let a: [u8; 8] = to_array(v);
                Wire::Fixed32(u32::from_le_bytes([a[0], a[1], a[2], a[3]]))
            }
            w => {
                return Err(Error::format(format!(
                    "field {field} has wire type {w} (groups and unknown types are not ORC)"
                )))
            }
        };
        Ok(Some((field, value)))
    }
}

fn split(b: &[u8], len: usize, field: u64) -> Result<(&[u8], &[u8])> {
    if len > b.len() {
        return Err(Error::format(format!(
            "field {field} declares {len} bytes, {} remain in its message",
            b.len()
        )));
    }
    Ok(b.split_at(len))
}

/// Up to 8 bytes, zero-padded.
fn to_array(v: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    for (d, s) in a.iter_mut().zip(v) {
        *d = *s;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_varints_decode_and_truncation_is_an_error() {
        // field 1 varint 300, field 2 bytes "ab", field 3 fixed32 7, field 4 fixed64 9
        let msg = [
            0x08, 0xac, 0x02, 0x12, 0x02, b'a', b'b', 0x1d, 7, 0, 0, 0, 0x21, 9, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let mut f = Fields::new(&msg);
        assert_eq!(f.next_field().unwrap(), Some((1, Wire::Varint(300))));
        assert_eq!(f.next_field().unwrap(), Some((2, Wire::Bytes(b"ab"))));
        assert_eq!(f.next_field().unwrap(), Some((3, Wire::Fixed32(7))));
        assert_eq!(f.next_field().unwrap(), Some((4, Wire::Fixed64(9))));
        assert_eq!(f.next_field().unwrap(), None);
        for cut in 1..msg.len() {
            let mut f = Fields::new(&msg[..cut]);
            let mut r = Ok(Some((0, Wire::Varint(0))));
            while let Ok(Some(_)) = r {
                r = f.next_field();
            }
            let complete = [3, 7, 12, msg.len()].contains(&cut);
            assert_eq!(r.is_ok(), complete, "cut at {cut}");
        }
        assert!(read_varint(&mut &[0xff; 11][..]).is_err());
        let mut out = Vec::new();
        Wire::Bytes(&[1, 0x80, 1])
            .packed_varints("x", &mut out)
            .unwrap();
        assert_eq!(out, vec![1, 128]);
    }
}
