//! Pages: the `PageHeader` Thrift struct, and decoding one column chunk (dictionary page, data
//! pages v1 and v2, index pages skipped) into values with nulls placed by definition levels.

use super::codec::{Codec, Decompressor};
use super::encoding::{self, Conv, Encoding, Scratch};
use super::metadata::{ChunkMeta, ColumnInfo, PhysicalType};
use super::thrift::{ty, Reader};
use super::value::Value;
use crate::error::{Error, Result, ResultExt};
use crate::limits::ReadBudget;

/// Pages up to this size are never refused by the `max-ratio` check.
const RATIO_FLOOR: u64 = 1 << 20;

const DATA_PAGE: i32 = 0;
const DICTIONARY_PAGE: i32 = 2;
const DATA_PAGE_V2: i32 = 3;

#[derive(Debug, Default)]
struct DataV1 {
    num_values: i32,
    encoding: i32,
    def_encoding: i32,
}

#[derive(Debug, Default)]
struct DictHeader {
    num_values: i32,
    encoding: i32,
}

#[derive(Debug)]
struct DataV2 {
    num_values: i32,
    encoding: i32,
    def_len: i32,
    rep_len: i32,
    is_compressed: bool,
}

#[derive(Debug, Default)]
struct PageHeader {
    kind: i32,
    uncompressed: i32,
    compressed: i32,
    crc: Option<i32>,
    v1: Option<DataV1>,
    dict: Option<DictHeader>,
    v2: Option<DataV2>,
}

fn parse_page_header(r: &mut Reader<'_>) -> Result<PageHeader> {
    let mut h = PageHeader::default();
    let mut seen = [false; 3];
    r.read_struct(|r, id, t| {
        match id {
            1 => {
                h.kind = r.i32_field(id, t)?;
                seen[0] = true;
            }
            2 => {
                h.uncompressed = r.i32_field(id, t)?;
                seen[1] = true;
            }
            3 => {
                h.compressed = r.i32_field(id, t)?;
                seen[2] = true;
            }
            4 => h.crc = Some(r.i32_field(id, t)?),
            5 => {
                Reader::expect(id, t, ty::STRUCT)?;
                let mut d = DataV1::default();
                r.read_struct(|r, id, t| {
                    match id {
                        1 => d.num_values = r.i32_field(id, t)?,
                        2 => d.encoding = r.i32_field(id, t)?,
                        3 => d.def_encoding = r.i32_field(id, t)?,
                        _ => r.skip(t)?,
                    }
                    Ok(())
                })?;
                h.v1 = Some(d);
            }
            7 => {
                Reader::expect(id, t, ty::STRUCT)?;
                let mut d = DictHeader::default();
                r.read_struct(|r, id, t| {
                    match id {
                        1 => d.num_values = r.i32_field(id, t)?,
                        2 => d.encoding = r.i32_field(id, t)?,
                        _ => r.skip(t)?,
                    }
                    Ok(())
                })?;
                h.dict = Some(d);
            }
            8 => {
                Reader::expect(id, t, ty::STRUCT)?;
                let mut d = DataV2 {
                    num_values: 0,
                    encoding: 0,
                    def_len: 0,
                    rep_len: 0,
                    is_compressed: true,
                };
                r.read_struct(|r, id, t| {
                    match id {
                        1 => d.num_values = r.i32_field(id, t)?,
                        4 => d.encoding = r.i32_field(id, t)?,
                        5 => d.def_len = r.i32_field(id, t)?,
                        6 => d.rep_len = r.i32_field(id, t)?,
                        7 => d.is_compressed = Reader::bool_field(t)?,
                        _ => r.skip(t)?,
                    }
                    Ok(())
                })?;
                h.v2 = Some(d);
            }
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if !seen.iter().all(|&s| s) {
        return Err(Error::format(
            "the page header lacks its type, uncompressed or compressed size",
        ));
    }
    if h.uncompressed < 0 || h.compressed < 0 {
        return Err(Error::format(format!(
            "the page header declares negative sizes ({} / {})",
            h.compressed, h.uncompressed
        )));
    }
    Ok(h)
}

fn count(v: i32, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::format(format!("negative {what} {v}")))
}

/// Bits needed for levels up to `max`.
fn bit_width(max: u8) -> u8 {
    (8 - max.leading_zeros()) as u8
}

/// Decodes column chunks, reusing its buffers across chunks and pages.
pub(crate) struct ChunkDecoder {
    decompressor: Decompressor,
    page: Vec<u8>,
    levels: Vec<u32>,
    tmp: Vec<Value>,
    dict: Vec<Value>,
    scratch: Scratch,
}

impl ChunkDecoder {
    pub(crate) fn new() -> Self {
        ChunkDecoder {
            decompressor: Decompressor::new(),
            page: Vec::new(),
            levels: Vec::new(),
            tmp: Vec::new(),
            dict: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    /// Decodes the chunk `bytes` of column `col` (`rows` rows in its row group), appending
    /// its values to `out`: all `rows` of them when `want >= rows`. Otherwise decoding stops at
    /// the end of the first page that brings the values read to `want`, so `out` gains at least
    /// `want` values and at most one page more (every page is still checked against `rows`).
    /// `max_page` bounds each decompressed page, `max_ratio` its size relative to the
    /// compressed page.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read_chunk(
        &mut self,
        bytes: &[u8],
        col: &ColumnInfo,
        chunk: &ChunkMeta,
        (rows, want): (usize, usize),
        max_page: u64,
        max_ratio: u64,
        budget: &mut ReadBudget,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        if col.max_rep_level > 0 {
            return Err(Error::unsupported(
                "the column is repeated (a list or map); reading it is not supported",
            ));
        }
        let codec = Codec::from_thrift(chunk.codec)?;
        codec.check_supported()?;
        if chunk.physical != physical_id(col.physical) {
            return Err(Error::format(format!(
                "the column chunk has physical type {}, the schema says {}",
                chunk.physical,
                col.physical.as_str()
            )));
        }
        let conv = Conv::new(col);
        let max_def = col.max_def_level;
        self.dict.clear();
        let mut have_dict = false;
        let mut got = 0usize;
        let mut pos = 0usize;
        let mut page_no = 0usize;
        let want = want.min(rows);
        while got < want {
            let rest = bytes.get(pos..).unwrap_or(&[]);
            if rest.is_empty() {
                return Err(Error::format(format!(
                    "the column chunk ends after {got} of {rows} values"
                )));
            }
            let ctx = || format!("page {page_no}");
            let mut r = Reader::new(rest);
            let h = parse_page_header(&mut r).context(ctx)?;
            let hlen = r.position();
            let body = rest
                .get(hlen..)
                .and_then(|b| b.get(..h.compressed as usize))
                .ok_or_else(|| {
                    Error::format(format!(
                        "the page's {} bytes run past the end of the column chunk",
                        h.compressed
                    ))
                })
                .context(ctx)?;
            if let Some(crc) = h.crc {
                if crc32fast::hash(body) != crc as u32 {
                    return Err(Error::format("page CRC-32 mismatch (corrupt page)")).context(ctx);
                }
            }
            if h.uncompressed as u64 > max_page {
                return Err(Error::limit(
                    "max-entry-bytes",
                    format!(
                        "the page decompresses to {} bytes, more than {max_page}",
                        h.uncompressed
                    ),
                ))
                .context(ctx);
            }
            // A page may not claim to inflate beyond `max-ratio` times its stored size (with a
            // 1 MiB floor, the usual page size), so that a few hostile bytes cannot make the
            // reader allocate up to the page limit.
            let ratio_cap = (h.compressed as u64)
                .saturating_mul(max_ratio)
                .max(RATIO_FLOOR);
            if codec != Codec::Uncompressed && h.uncompressed as u64 > ratio_cap {
                return Err(Error::limit(
                    "max-ratio",
                    format!(
                        "the page claims {} bytes from {} compressed bytes",
                        h.uncompressed, h.compressed
                    ),
                ))
                .context(ctx);
            }
            let state = PageState {
                codec,
                conv: &conv,
                max_def,
            };
            match h.kind {
                DICTIONARY_PAGE => {
                    self.dictionary_page(&h, body, &state, budget)
                        .context(ctx)?;
                    have_dict = true;
                }
                DATA_PAGE | DATA_PAGE_V2 => {
                    let n = self
                        .data_page(&h, body, &state, rows - got, have_dict, budget, out)
                        .context(ctx)?;
                    got += n;
                }
                _ => {} // index pages and unknown kinds are skipped
            }
            pos += hlen + body.len();
            page_no += 1;
        }
        Ok(())
    }

    fn dictionary_page(
        &mut self,
        h: &PageHeader,
        body: &[u8],
        st: &PageState<'_>,
        budget: &mut ReadBudget,
    ) -> Result<()> {
        let dh = h
            .dict
            .as_ref()
            .ok_or_else(|| Error::format("a dictionary page without a dictionary header"))?;
        let enc = Encoding::from_thrift(dh.encoding)?;
        if !matches!(enc, Encoding::Plain | Encoding::PlainDictionary) {
            return Err(Error::unsupported(format!(
                "a dictionary page encoded {}",
                enc.as_str()
            )));
        }
        let n = count(dh.num_values, "dictionary size")?;
        let data = decompress_into(
            &mut self.decompressor,
            st.codec,
            body,
            h.uncompressed as usize,
            &mut self.page,
        )?;
        // PLAIN needs at least one bit per value: reject counts the page cannot hold before
        // reserving for them.
        if n / 8 > data.len() {
            return Err(Error::format(format!(
                "a dictionary of {n} values in {} bytes",
                data.len()
            )));
        }
        budget.charge((n as u64).saturating_mul(std::mem::size_of::<Value>() as u64))?;
        self.dict.clear();
        encoding::plain(data, n, st.conv, budget, &mut self.dict)?;
        Ok(())
    }

    /// Decodes one data page (v1 or v2), appending its values; returns how many.
    #[allow(clippy::too_many_arguments)]
    fn data_page(
        &mut self,
        h: &PageHeader,
        body: &[u8],
        st: &PageState<'_>,
        left: usize,
        have_dict: bool,
        budget: &mut ReadBudget,
        out: &mut Vec<Value>,
    ) -> Result<usize> {
        let dict = if have_dict {
            Some(self.dict.as_slice())
        } else {
            None
        };
        let max_def = st.max_def;
        let bw = bit_width(max_def);
        let (n, enc, values): (usize, Encoding, &[u8]) = if h.kind == DATA_PAGE {
            let d =
                h.v1.as_ref()
                    .ok_or_else(|| Error::format("a data page without a data page header"))?;
            let n = page_count(d.num_values, left)?;
            let enc = Encoding::from_thrift(d.encoding)?;
            let data = decompress_into(
                &mut self.decompressor,
                st.codec,
                body,
                h.uncompressed as usize,
                &mut self.page,
            )?;
            let mut rest = data;
            if max_def > 0 {
                match Encoding::from_thrift(d.def_encoding)? {
                    Encoding::Rle => {
                        let len = rest
                            .get(..4)
                            .map(|b| {
                                u32::from_le_bytes([
                                    b.first().copied().unwrap_or(0),
                                    b.get(1).copied().unwrap_or(0),
                                    b.get(2).copied().unwrap_or(0),
                                    b.get(3).copied().unwrap_or(0),
                                ]) as usize
                            })
                            .ok_or_else(|| Error::format("definition levels lack their length"))?;
                        let lv = rest.get(4..).and_then(|r| r.get(..len)).ok_or_else(|| {
                            Error::format(format!(
                                "definition levels of {len} bytes run past the page"
                            ))
                        })?;
                        encoding::hybrid(lv, bw, n, &mut self.levels)
                            .context(|| "definition levels".into())?;
                        rest = rest.get(4 + len..).unwrap_or(&[]);
                    }
                    Encoding::BitPacked => {
                        let used = encoding::bit_packed_msb(rest, bw, n, &mut self.levels)
                            .context(|| "definition levels".into())?;
                        rest = rest.get(used..).unwrap_or(&[]);
                    }
                    other => {
                        return Err(Error::unsupported(format!(
                            "definition levels encoded {}",
                            other.as_str()
                        )))
                    }
                }
            }
            (n, enc, rest)
        } else {
            let d =
                h.v2.as_ref()
                    .ok_or_else(|| Error::format("a v2 data page without its header"))?;
            let n = page_count(d.num_values, left)?;
            let enc = Encoding::from_thrift(d.encoding)?;
            let rep_len = count(d.rep_len, "repetition levels length")?;
            let def_len = count(d.def_len, "definition levels length")?;
            let levels_len = rep_len
                .checked_add(def_len)
                .filter(|&l| l <= body.len())
                .ok_or_else(|| Error::format("the levels are longer than the page"))?;
            if max_def > 0 {
                let lv = body.get(rep_len..levels_len).unwrap_or(&[]);
                encoding::hybrid(lv, bw, n, &mut self.levels)
                    .context(|| "definition levels".into())?;
            }
            let raw = body.get(levels_len..).unwrap_or(&[]);
            let values = if d.is_compressed && st.codec != Codec::Uncompressed {
                let size = (h.uncompressed as usize)
                    .checked_sub(levels_len)
                    .ok_or_else(|| Error::format("the levels are longer than the page"))?;
                decompress_into(&mut self.decompressor, st.codec, raw, size, &mut self.page)?
            } else {
                raw
            };
            (n, enc, values)
        };

        if max_def == 0 {
            encoding::decode_values(
                enc,
                values,
                n,
                st.conv,
                dict,
                &mut self.scratch,
                budget,
                out,
            )?;
            return Ok(n);
        }
        let mut non_null = 0usize;
        for &l in &self.levels {
            if l > u32::from(max_def) {
                return Err(Error::format(format!(
                    "definition level {l} above the column's maximum {max_def}"
                )));
            }
            non_null += usize::from(l == u32::from(max_def));
        }
        if non_null == n {
            encoding::decode_values(
                enc,
                values,
                n,
                st.conv,
                dict,
                &mut self.scratch,
                budget,
                out,
            )?;
            return Ok(n);
        }
        self.tmp.clear();
        encoding::decode_values(
            enc,
            values,
            non_null,
            st.conv,
            dict,
            &mut self.scratch,
            budget,
            &mut self.tmp,
        )?;
        let mut it = self.tmp.drain(..);
        out.reserve(n);
        for &l in &self.levels {
            if l == u32::from(max_def) {
                out.push(it.next().unwrap_or(Value::Null));
            } else {
                out.push(Value::Null);
            }
        }
        Ok(n)
    }
}

struct PageState<'c> {
    codec: Codec,
    conv: &'c Conv,
    max_def: u8,
}

/// A data page's value count, checked against the values its row group still expects.
fn page_count(v: i32, left: usize) -> Result<usize> {
    let n = count(v, "value count")?;
    if n > left {
        return Err(Error::format(format!(
            "the page holds {n} values, only {left} remain in the row group"
        )));
    }
    Ok(n)
}

/// The page's bytes after decompression (the body itself when uncompressed).
fn decompress_into<'a>(
    dec: &mut Decompressor,
    codec: Codec,
    body: &'a [u8],
    size: usize,
    buf: &'a mut Vec<u8>,
) -> Result<&'a [u8]> {
    if codec == Codec::Uncompressed {
        return Ok(body);
    }
    dec.decompress(codec, body, size, buf)?;
    Ok(buf.as_slice())
}

fn physical_id(p: PhysicalType) -> i32 {
    match p {
        PhysicalType::Boolean => 0,
        PhysicalType::Int32 => 1,
        PhysicalType::Int64 => 2,
        PhysicalType::Int96 => 3,
        PhysicalType::Float => 4,
        PhysicalType::Double => 5,
        PhysicalType::ByteArray => 6,
        PhysicalType::FixedLenByteArray => 7,
    }
}
