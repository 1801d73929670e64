//! The Thrift compact protocol, only as far as Parquet's footer (`FileMetaData`) and page
//! headers (`PageHeader`) need it: structs, lists, the integer types, binary, bool, double.
//!
//! Hostile input cannot make it recurse without bound (struct nesting is limited to
//! [`MAX_DEPTH`]), allocate without bound (a list may not declare more elements than there are
//! bytes left, since every element takes at least one byte) or loop forever (every step
//! consumes at least one byte). Unknown fields of any type are skipped.

use crate::error::{Error, Result};

/// Deepest struct/list/map nesting accepted (Parquet's own structures are 5 deep).
pub(crate) const MAX_DEPTH: u32 = 32;

/// Compact-protocol type ids (low nibble of a field header).
pub(crate) mod ty {
    pub const STOP: u8 = 0;
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
}

fn type_name(t: u8) -> &'static str {
    match t {
        ty::TRUE | ty::FALSE => "bool",
        ty::BYTE => "byte",
        ty::I16 => "i16",
        ty::I32 => "i32",
        ty::I64 => "i64",
        ty::DOUBLE => "double",
        ty::BINARY => "binary",
        ty::LIST => "list",
        ty::SET => "set",
        ty::MAP => "map",
        ty::STRUCT => "struct",
        _ => "unknown type",
    }
}

/// A cursor over compact-protocol bytes.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            depth: 0,
        }
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    fn eof(&self, what: &str) -> Error {
        Error::format(format!(
            "expected {what} at byte {}, found the end of the Thrift data",
            self.pos
        ))
    }

    pub(crate) fn byte(&mut self) -> Result<u8> {
        let b = *self.buf.get(self.pos).ok_or_else(|| self.eof("a byte"))?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                Error::format(format!(
                    "a Thrift value of {n} bytes at byte {} runs past the {} bytes available",
                    self.pos,
                    self.buf.len()
                ))
            })?;
        let s = self
            .buf
            .get(self.pos..end)
            .ok_or_else(|| self.eof("bytes"))?;
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn varint(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(Error::format("a Thrift varint overflows 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::format("a Thrift varint is longer than 10 bytes"))
    }

    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub(crate) fn i64(&mut self) -> Result<i64> {
        self.zigzag()
    }

    pub(crate) fn i32(&mut self) -> Result<i32> {
        let v = self.zigzag()?;
        i32::try_from(v).map_err(|_| Error::format(format!("a Thrift i32 is out of range: {v}")))
    }

    pub(crate) fn i16(&mut self) -> Result<i16> {
        let v = self.zigzag()?;
        i16::try_from(v).map_err(|_| Error::format(format!("a Thrift i16 is out of range: {v}")))
    }

    pub(crate) fn binary(&mut self) -> Result<&'a [u8]> {
        let len = self.varint()?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= self.remaining())
            .ok_or_else(|| {
                Error::format(format!(
                    "a Thrift binary declares {len} bytes, only {} remain",
                    self.remaining()
                ))
            })?;
        self.bytes(len)
    }

    /// A string (invalid UTF-8 is replaced, never an error: names are only displayed).
    pub(crate) fn string(&mut self) -> Result<String> {
        Ok(String::from_utf8_lossy(self.binary()?).into_owned())
    }

    fn double(&mut self) -> Result<f64> {
        let b = self.bytes(8)?;
        let arr: [u8; 8] = b
            .try_into()
            .map_err(|_| Error::format("expected 8 bytes of a double"))?;
        Ok(f64::from_le_bytes(arr))
    }

    /// A list or set header: (element type, element count). The count is checked against the
    /// bytes left (every element takes at least one).
    pub(crate) fn list_header(&mut self) -> Result<(u8, usize)> {
        let h = self.byte()?;
        let elem = h & 0x0f;
        let size = if h >> 4 == 0x0f {
            self.varint()?
        } else {
            u64::from(h >> 4)
        };
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s <= self.remaining())
            .ok_or_else(|| {
                Error::format(format!(
                    "a Thrift list declares {size} elements, only {} bytes remain",
                    self.remaining()
                ))
            })?;
        if size > 0 && !matches!(elem, ty::TRUE..=ty::STRUCT) {
            return Err(Error::format(format!(
                "a Thrift list has elements of unknown type {elem}"
            )));
        }
        Ok((elem, size))
    }

    /// Reads the next field header of the struct being read; `None` at its end (STOP).
    /// `last` is the previous field id of this struct (0 at its start).
    pub(crate) fn field(&mut self, last: &mut i16) -> Result<Option<(i16, u8)>> {
        let h = self.byte()?;
        let t = h & 0x0f;
        if t == ty::STOP {
            return Ok(None);
        }
        let delta = h >> 4;
        let id = if delta == 0 {
            self.i16()?
        } else {
            last.checked_add(i16::from(delta))
                .ok_or_else(|| Error::format("a Thrift field id overflows"))?
        };
        if t > ty::STRUCT {
            return Err(Error::format(format!(
                "Thrift field {id} has unknown type {t}"
            )));
        }
        *last = id;
        Ok(Some((id, t)))
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::format(format!(
                "Thrift structures nested more than {MAX_DEPTH} deep"
            )));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Reads a struct: calls `f(reader, field id, type)` for each field; `f` must consume the
    /// field's value (read it with the typed methods, or [`Reader::skip`] it).
    pub(crate) fn read_struct<F>(&mut self, mut f: F) -> Result<()>
    where
        F: FnMut(&mut Self, i16, u8) -> Result<()>,
    {
        self.enter()?;
        let mut last = 0i16;
        while let Some((id, t)) = self.field(&mut last)? {
            f(self, id, t)?;
        }
        self.leave();
        Ok(())
    }

    /// Reads a list whose elements `f` decodes (after checking the element type is `want`).
    pub(crate) fn read_list<T, F>(&mut self, want: u8, mut f: F) -> Result<Vec<T>>
    where
        F: FnMut(&mut Self) -> Result<T>,
    {
        let (elem, size) = self.list_header()?;
        if size > 0 && elem != want && !(is_bool(want) && is_bool(elem)) {
            return Err(Error::format(format!(
                "expected a list of {}, found a list of {}",
                type_name(want),
                type_name(elem)
            )));
        }
        self.enter()?;
        // Never reserve more than a modest amount up front: the count is bounded by the bytes
        // left, but an element in memory can be much larger than one byte.
        let mut out = Vec::with_capacity(size.min(256));
        for _ in 0..size {
            out.push(f(self)?);
        }
        self.leave();
        Ok(out)
    }

    /// Skips a value of type `t`.
    pub(crate) fn skip(&mut self, t: u8) -> Result<()> {
        match t {
            ty::TRUE | ty::FALSE => Ok(()),
            ty::BYTE => self.byte().map(drop),
            ty::I16 | ty::I32 | ty::I64 => self.varint().map(drop),
            ty::DOUBLE => self.bytes(8).map(drop),
            ty::BINARY => self.binary().map(drop),
            ty::LIST | ty::SET => {
                let (elem, size) = self.list_header()?;
                self.enter()?;
                for _ in 0..size {
                    self.skip_element(elem)?;
                }
                self.leave();
                Ok(())
            }
            ty::MAP => {
                let size = self.varint()?;
                let size = usize::try_from(size)
                    .ok()
                    .filter(|&s| s <= self.remaining())
                    .ok_or_else(|| {
                        Error::format(format!("a Thrift map declares {size} entries"))
                    })?;
                if size == 0 {
                    return Ok(());
                }
                let kv = self.byte()?;
                let (k, v) = (kv >> 4, kv & 0x0f);
                if !matches!(k, ty::TRUE..=ty::STRUCT) || !matches!(v, ty::TRUE..=ty::STRUCT) {
                    return Err(Error::format("a Thrift map has entries of unknown type"));
                }
                self.enter()?;
                for _ in 0..size {
                    self.skip_element(k)?;
                    self.skip_element(v)?;
                }
                self.leave();
                Ok(())
            }
            ty::STRUCT => self.read_struct(|r, _, t| r.skip(t)),
            other => Err(Error::format(format!(
                "cannot skip unknown Thrift type {other}"
            ))),
        }
    }

    /// Skips a list/map element: a bool element takes one byte (unlike a bool field).
    fn skip_element(&mut self, t: u8) -> Result<()> {
        if is_bool(t) {
            self.byte().map(drop)
        } else {
            self.skip(t)
        }
    }

    /// A bool field's value (carried by its type id).
    pub(crate) fn bool_field(t: u8) -> Result<bool> {
        match t {
            ty::TRUE => Ok(true),
            ty::FALSE => Ok(false),
            other => Err(Error::format(format!(
                "expected a bool field, found {}",
                type_name(other)
            ))),
        }
    }

    /// Checks that field `id` has type `want` (bool fields carry their value in the type).
    pub(crate) fn expect(id: i16, t: u8, want: u8) -> Result<()> {
        if t == want || (is_bool(t) && is_bool(want)) {
            Ok(())
        } else {
            Err(Error::format(format!(
                "Thrift field {id}: expected {}, found {}",
                type_name(want),
                type_name(t)
            )))
        }
    }

    /// Reads field `id` of type `t` as an i32 (checking the type).
    pub(crate) fn i32_field(&mut self, id: i16, t: u8) -> Result<i32> {
        Self::expect(id, t, ty::I32)?;
        self.i32()
    }

    /// Reads field `id` of type `t` as an i64 (checking the type).
    pub(crate) fn i64_field(&mut self, id: i16, t: u8) -> Result<i64> {
        Self::expect(id, t, ty::I64)?;
        self.i64()
    }

    /// Reads field `id` of type `t` as a string (checking the type).
    pub(crate) fn string_field(&mut self, id: i16, t: u8) -> Result<String> {
        Self::expect(id, t, ty::BINARY)?;
        self.string()
    }

    /// Reads a double (only used by tests and skipping; kept for completeness).
    #[allow(dead_code)]
    pub(crate) fn double_field(&mut self, id: i16, t: u8) -> Result<f64> {
        Self::expect(id, t, ty::DOUBLE)?;
        self.double()
    }
}

fn is_bool(t: u8) -> bool {
    t == ty::TRUE || t == ty::FALSE
}

/// A tiny compact-protocol writer, for tests that build footers and page headers by hand.
#[cfg(test)]
pub(crate) mod write {
    /// Appends compact-protocol values to a buffer.
    #[derive(Default)]
    pub(crate) struct Writer {
        pub(crate) buf: Vec<u8>,
        last: Vec<i16>,
    }

    impl Writer {
        pub(crate) fn varint(&mut self, v: u64) {
            crate::test_support::varint(&mut self.buf, v);
        }

        fn zigzag(&mut self, v: i64) {
            self.varint(crate::test_support::zigzag(v));
        }

        pub(crate) fn begin(&mut self) {
            self.last.push(0);
        }

        pub(crate) fn end(&mut self) {
            self.buf.push(0);
            self.last.pop();
        }

        pub(crate) fn field(&mut self, id: i16, t: u8) {
            let last = self.last.last().copied().unwrap_or(0);
            let delta = id - last;
            if delta > 0 && delta <= 15 {
                self.buf.push(((delta as u8) << 4) | t);
            } else {
                self.buf.push(t);
                self.zigzag(i64::from(id));
            }
            if let Some(l) = self.last.last_mut() {
                *l = id;
            }
        }

        pub(crate) fn i32(&mut self, id: i16, v: i32) {
            self.field(id, super::ty::I32);
            self.zigzag(i64::from(v));
        }

        pub(crate) fn i64(&mut self, id: i16, v: i64) {
            self.field(id, super::ty::I64);
            self.zigzag(v);
        }

        pub(crate) fn bool(&mut self, id: i16, v: bool) {
            self.field(id, if v { super::ty::TRUE } else { super::ty::FALSE });
        }

        pub(crate) fn binary(&mut self, id: i16, v: &[u8]) {
            self.field(id, super::ty::BINARY);
            self.varint(v.len() as u64);
            self.buf.extend_from_slice(v);
        }

        pub(crate) fn raw_binary(&mut self, v: &[u8]) {
            self.varint(v.len() as u64);
            self.buf.extend_from_slice(v);
        }

        pub(crate) fn list_begin(&mut self, id: i16, elem: u8, n: usize) {
            self.field(id, super::ty::LIST);
            if n < 15 {
                self.buf.push(((n as u8) << 4) | elem);
            } else {
                self.buf.push(0xf0 | elem);
                self.varint(n as u64);
            }
        }

        pub(crate) fn struct_begin(&mut self, id: i16) {
            self.field(id, super::ty::STRUCT);
            self.begin();
        }

        pub(crate) fn zigzag_raw(&mut self, v: i64) {
            self.zigzag(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write::Writer;
    use super::*;

    #[test]
    fn reads_fields_lists_and_skips_unknown_ones() {
        let mut w = Writer::default();
        w.begin();
        w.i32(1, -7);
        w.i64(3, 1 << 40);
        w.binary(4, b"name");
        w.bool(5, true);
        // An unknown map field, a nested struct and a list of bools: skipped.
        w.field(6, ty::MAP);
        w.varint(2);
        w.buf.push((ty::BINARY << 4) | ty::I32);
        w.raw_binary(b"k1");
        w.zigzag_raw(1);
        w.raw_binary(b"k2");
        w.zigzag_raw(2);
        w.struct_begin(7);
        w.i32(1, 5);
        w.field(2, ty::DOUBLE);
        w.buf.extend_from_slice(&1.5f64.to_le_bytes());
        w.end();
        w.list_begin(8, ty::TRUE, 2);
        w.buf.extend_from_slice(&[1, 2]);
        w.list_begin(300, ty::I32, 20);
        for i in 0..20 {
            w.zigzag_raw(i);
        }
        w.end();

        let mut r = Reader::new(&w.buf);
        let mut seen = Vec::new();
        let mut list = Vec::new();
        r.read_struct(|r, id, t| {
            match id {
                1 => seen.push(i64::from(r.i32_field(id, t)?)),
                3 => seen.push(r.i64_field(id, t)?),
                4 => assert_eq!(r.string_field(id, t)?, "name"),
                5 => assert!(Reader::bool_field(t)?),
                300 => list = r.read_list(ty::I32, |r| r.i32())?,
                _ => r.skip(t)?,
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![-7, 1 << 40]);
        assert_eq!(list, (0..20).collect::<Vec<_>>());
        assert_eq!(r.position(), w.buf.len());
    }

    #[test]
    fn hostile_lists_and_nesting_are_errors() {
        // A list claiming 2^40 elements in 10 bytes.
        let mut w = Writer::default();
        w.begin();
        w.list_begin(1, ty::I32, 1 << 40);
        let mut r = Reader::new(&w.buf);
        assert!(r.read_struct(|r, _, t| r.skip(t)).is_err());

        // Structs nested 1000 deep.
        let mut buf = Vec::new();
        for _ in 0..1000 {
            buf.push((1 << 4) | ty::STRUCT);
        }
        let mut r = Reader::new(&buf);
        let e = r.read_struct(|r, _, t| r.skip(t)).unwrap_err();
        assert!(e.to_string().contains("nested"), "{e}");

        // Truncated binary.
        let mut w = Writer::default();
        w.begin();
        w.field(1, ty::BINARY);
        w.varint(100);
        w.buf.extend_from_slice(b"abc");
        let mut r = Reader::new(&w.buf);
        assert!(r.read_struct(|r, _, t| r.skip(t)).is_err());

        // An over-long varint.
        let buf = [
            0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let mut r = Reader::new(&buf);
        assert!(r.read_struct(|r, _, t| r.skip(t)).is_err());
    }

    #[test]
    fn type_mismatch_is_an_error() {
        let mut w = Writer::default();
        w.begin();
        w.binary(1, b"x");
        w.end();
        let mut r = Reader::new(&w.buf);
        let e = r
            .read_struct(|r, id, t| r.i32_field(id, t).map(drop))
            .unwrap_err();
        assert!(e.to_string().contains("expected i32"), "{e}");
    }
}
