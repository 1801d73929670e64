//! Tests over real files: every Parquet file of the fixture warehouses and Ray zips, and the
//! pyarrow-generated files of `tests/fixtures/parquet/generated/`, compared value by value with
//! what pyarrow read (`tests/fixtures/parquet/expected.json`, written by `expected.py`); the
//! ranged-read paths; and hostile input (arbitrary bytes, mutated real files, small limits).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use proptest::prelude::*;
use serde_json::Value as J;

use super::*;
use crate::error::ErrorKind;
use crate::source::{Input, RandomAccess};

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> J {
    let text = std::fs::read_to_string(fixtures().join("parquet/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn generated(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("parquet/generated").join(name)).unwrap()
}

fn readable_names<S: ParquetSource>(f: &ParquetFile<S>) -> Vec<String> {
    f.columns()
        .iter()
        .filter(|c| c.is_readable())
        .map(|c| c.name.clone())
        .collect()
}

fn read_all<S: ParquetSource>(f: &ParquetFile<S>, limits: &Limits) -> Result<RowBatch> {
    let names = readable_names(f);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    f.read_columns(&refs, limits)
}

/// Compares one value with its expected.json encoding; `Err` says how they differ.
fn check_value(
    got: &Value,
    want: &J,
    logical: Option<&LogicalType>,
) -> std::result::Result<(), String> {
    let ok = match (got, want) {
        (Value::Null, J::Null) => true,
        (Value::Bool(b), J::Bool(w)) => b == w,
        (Value::Int(v), J::Number(n)) => {
            let unsigned64 = matches!(
                logical,
                Some(LogicalType::Integer {
                    bits: 64,
                    signed: false
                })
            );
            if unsigned64 {
                n.as_u64() == Some(*v as u64)
            } else {
                n.as_i64() == Some(*v)
            }
        }
        (Value::Float(_) | Value::Double(_), J::Object(o)) if o.contains_key("float") => {
            // Python's repr, parsed here with Rust's correctly rounded parser.
            let g = got.as_f64().unwrap();
            let w: f64 = o["float"].as_str().unwrap().parse().unwrap();
            (g.is_nan() && w.is_nan()) || (g == w && g.is_sign_negative() == w.is_sign_negative())
        }
        (Value::Str(s), J::String(w)) => **s == **w,
        (Value::Bytes(b) | Value::FixedBytes(b), J::Object(o)) if o.contains_key("hex") => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            o.get("hex").and_then(J::as_str) == Some(hex.as_str())
        }
        (_, J::Object(o)) if o.contains_key("raw") => {
            // The stored integer (or unscaled decimal), as decimal text.
            let raw = match got {
                Value::Int(v) => Some(v.to_string()),
                Value::Bytes(b) | Value::FixedBytes(b) => {
                    super::value::be_to_i128(b).map(|v| v.to_string())
                }
                _ => None,
            };
            let text = got.render(logical);
            raw.as_deref() == o.get("raw").and_then(J::as_str)
                && o.get("text").and_then(J::as_str) == Some(text.as_str())
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "got {got:?} (rendered {:?}), want {want}",
            got.render(logical)
        ))
    }
}

/// Checks one file against its expected.json entry; returns the number of values compared.
fn check_file<S: ParquetSource>(key: &str, file: &ParquetFile<S>, entry: &J, tables: &J) -> usize {
    let limits = Limits::default();
    assert_eq!(
        file.num_rows(),
        entry["num_rows"].as_u64().unwrap(),
        "{key}: num_rows"
    );
    let table = &tables[entry["table"].as_str().unwrap()];
    let unreadable: Vec<&str> = entry
        .get("unreadable")
        .and_then(J::as_array)
        .map(|a| a.iter().map(|p| p.as_str().unwrap()).collect())
        .unwrap_or_default();
    for name in &unreadable {
        let e = file.read_columns(&[name], &limits).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{key}: {name}: {e}");
    }
    let names = readable_names(file);
    let mut want_names: Vec<&str> = table
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    want_names.sort_unstable();
    let mut got_names: Vec<&str> = names.iter().map(String::as_str).collect();
    got_names.sort_unstable();
    assert_eq!(got_names, want_names, "{key}: columns");
    if entry.get("error").is_some() {
        let e = read_all(file, &limits).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{key}: {e}");
        return 0;
    }
    let batch = read_all(file, &limits).unwrap_or_else(|e| panic!("{key}: {e}"));
    assert_eq!(batch.num_rows as u64, file.num_rows(), "{key}");
    let mut compared = 0;
    for col in &batch.columns {
        let want = &table[&col.info.name];
        assert_eq!(
            col.info.physical.as_str(),
            want["physical"].as_str().unwrap(),
            "{key}: {}",
            col.info.name
        );
        let values = want["values"].as_array().unwrap();
        assert_eq!(
            col.values.len(),
            values.len(),
            "{key}: {}: row count",
            col.info.name
        );
        for (row, (g, w)) in col.values.iter().zip(values).enumerate() {
            if let Err(e) = check_value(g, w, col.info.logical.as_ref()) {
                panic!("{key}: column {} row {row}: {e}", col.info.name);
            }
            compared += 1;
        }
    }
    compared
}

/// The files of expected.json, grouped by the zip (or directory) that holds them.
fn expected_by_container(exp: &J) -> BTreeMap<String, Vec<(String, J)>> {
    let mut out: BTreeMap<String, Vec<(String, J)>> = BTreeMap::new();
    for (key, entry) in exp["files"].as_object().unwrap() {
        let container = key.split_once("!/").map_or("", |(z, _)| z).to_string();
        out.entry(container)
            .or_default()
            .push((key.clone(), entry.clone()));
    }
    out
}

#[test]
fn every_fixture_file_matches_pyarrow() {
    let exp = expected();
    let tables = &exp["tables"];
    let (mut files, mut values, mut skipped) = (0usize, 0usize, Vec::new());
    for (container, list) in expected_by_container(&exp) {
        if container.is_empty() {
            // Generated files, read from memory.
            for (key, entry) in list {
                let name = key.rsplit('/').next().unwrap();
                let bytes = generated(name);
                assert_eq!(
                    u64::from(crc32fast::hash(&bytes)),
                    entry["crc32"].as_u64().unwrap(),
                    "{key}: regenerated without re-running expected.py"
                );
                let file = ParquetFile::open(bytes.as_slice(), &Limits::default())
                    .unwrap_or_else(|e| panic!("{key}: {e}"));
                values += check_file(&key, &file, &entry, tables);
                files += 1;
            }
            continue;
        }
        // Files inside a fixture zip, read through the artifact (ranged reads).
        let path = fixtures().join(&container);
        let Ok(bytes) = std::fs::read(&path) else {
            skipped.push(format!("{container}: missing"));
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let artifact = Artifact::open(
            vec![Input::Zip {
                name,
                data: Rc::new(bytes),
            }],
            &Limits::default(),
        )
        .unwrap();
        for (key, entry) in list {
            let inner = key.split_once("!/").unwrap().1;
            let Some(fe) = artifact.get(inner) else {
                skipped.push(format!("{key}: not in the zip any more"));
                continue;
            };
            if fe.crc32().map(u64::from) != entry["crc32"].as_u64() {
                skipped.push(format!("{key}: changed since expected.json"));
                continue;
            }
            let file = ParquetFile::open(ArtifactFile::new(&artifact, fe), artifact.limits())
                .unwrap_or_else(|e| panic!("{key}: {e}"));
            values += check_file(&key, &file, &entry, tables);
            files += 1;
        }
    }
    eprintln!(
        "parquet: {files} files, {values} values compared with pyarrow; {} skipped{}",
        skipped.len(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!(
                " (re-run tests/fixtures/parquet/expected.py): {}",
                skipped.join("; ")
            )
        }
    );
    assert!(files >= 200, "only {files} files compared");
    assert!(values >= 50_000, "only {values} values compared");
}

/// Equality of two batches, NaN equal to NaN.
fn assert_same(got: &RowBatch, want: &RowBatch, what: &str) {
    assert_eq!(got.num_rows, want.num_rows, "{what}");
    assert_eq!(got.columns.len(), want.columns.len(), "{what}");
    for (g, w) in got.columns.iter().zip(&want.columns) {
        assert_eq!(g.info, w.info, "{what}");
        assert_eq!(g.values.len(), w.values.len(), "{what}");
        for (row, (a, b)) in g.values.iter().zip(&w.values).enumerate() {
            let both_nan =
                a.as_f64().is_some_and(f64::is_nan) && b.as_f64().is_some_and(f64::is_nan);
            assert!(
                a == b || both_nan,
                "{what}: {} row {row}: {a:?} != {b:?}",
                g.info.name
            );
        }
    }
}

/// A source that hides its bytes (no `as_bytes`), counting reads: the ranged paths.
struct Ranged {
    data: Vec<u8>,
    reads: Cell<usize>,
    bytes: Cell<u64>,
}

impl ParquetSource for Ranged {
    fn size(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.reads.set(self.reads.get() + 1);
        self.bytes.set(self.bytes.get() + len);
        self.data.as_slice().read_at(offset, len)
    }
}

#[test]
fn ranged_reads_match_in_memory_reads() {
    let limits = Limits::default();
    let dir = fixtures().join("parquet/generated");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".parquet") && n != "codec_brotli.parquet")
        .collect();
    names.sort();
    let tunings = [
        // Every chunk its own read, the footer in a second read.
        Tuning {
            whole_file: 0,
            tail: 16,
            merge_gap: 0,
            merge_max: 1,
        },
        // Neighbouring chunks merged up to 4 KiB.
        Tuning {
            whole_file: 0,
            tail: 1 << 10,
            merge_gap: 64,
            merge_max: 4 << 10,
        },
        // Everything merged.
        Tuning {
            whole_file: 0,
            ..Tuning::default()
        },
    ];
    for name in names {
        let data = generated(&name);
        let want = read_all(
            &ParquetFile::open(data.as_slice(), &limits).unwrap(),
            &limits,
        )
        .unwrap();
        for tuning in tunings {
            let src = Ranged {
                data: data.clone(),
                reads: Cell::new(0),
                bytes: Cell::new(0),
            };
            let file = ParquetFile::open_tuned(&src, &limits, tuning).unwrap();
            let got = read_all(&file, &limits).unwrap();
            assert_same(&got, &want, &format!("{name} {tuning:?}"));
            assert!(
                src.bytes.get() <= data.len() as u64 * 2,
                "{name}: read too much"
            );
        }
        // Reading one column reads less than the file.
        let src = Ranged {
            data: data.clone(),
            reads: Cell::new(0),
            bytes: Cell::new(0),
        };
        let file = ParquetFile::open_tuned(&src, &limits, tunings[0]).unwrap();
        if let Some(first) = readable_names(&file).first() {
            file.read_columns(&[first], &limits).unwrap();
            if file.columns().len() > 2 {
                assert!(
                    src.bytes.get() < data.len() as u64,
                    "{name}: read the whole file"
                );
            }
        }
    }
}

#[test]
fn paimon_columns_by_name_with_nulls_and_logical_types() {
    let data = generated("paimon_like_3000.parquet");
    let limits = Limits::default();
    let f = ParquetFile::open(data.as_slice(), &limits).unwrap();
    assert_eq!(f.num_rows(), 3000);
    assert!(f.created_by().unwrap().starts_with("parquet-cpp-arrow"));
    assert!(f
        .key_value_metadata()
        .iter()
        .any(|(k, _)| k == "ARROW:schema"));
    let kind = f.column("_VALUE_KIND").unwrap();
    assert_eq!(kind.physical, PhysicalType::Int32);
    assert_eq!(
        kind.logical,
        Some(LogicalType::Integer {
            bits: 8,
            signed: true
        })
    );
    let b = f.read_columns(&["v", "_KEY_id"], &limits).unwrap();
    assert_eq!(b.columns.len(), 2);
    assert_eq!(b.columns[0].info.name, "v");
    assert_eq!(b.value(1, 2999), Some(&Value::Int(2999)));
    assert!(b.column("v").unwrap().values[0].is_null());
    assert!(b.column("v").unwrap().values[1]
        .as_str()
        .unwrap()
        .starts_with("value-"));
    let e = f.read_columns(&["nope"], &limits).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Missing);
    assert!(e.to_string().contains("_SEQUENCE_NUMBER"), "{e}");
    // No columns: just the row count.
    assert_eq!(f.read_columns(&[], &limits).unwrap().num_rows, 3000);

    let nested = generated("nested.parquet");
    let f = ParquetFile::open(nested.as_slice(), &limits).unwrap();
    let st = f.column("st.a").unwrap();
    assert_eq!((st.max_def_level, st.max_rep_level), (2, 0));
    assert!(!f.column("li.list.element").unwrap().is_readable());
}

#[test]
fn reports_render_logical_types() {
    let data = generated("codec_zstd.parquet");
    let limits = Limits::default();
    let f = ParquetFile::open(data.as_slice(), &limits).unwrap();
    let b = f
        .read_columns(&["d", "ts_us_utc", "dec", "u64"], &limits)
        .unwrap();
    let d = b.column("d").unwrap();
    assert_eq!(d.render(0).unwrap(), "1063-03-22");
    let ts = b.column("ts_us_utc").unwrap();
    assert_eq!(ts.render(0).unwrap(), "1812-02-20T20:11:05.421132Z");
    assert_eq!(
        ts.values[0].to_json(ts.info.logical.as_ref()),
        J::String("1812-02-20T20:11:05.421132Z".into())
    );
    assert_eq!(b.column("dec").unwrap().render(0).unwrap(), "-43362461.14");
    assert_eq!(
        b.column("u64").unwrap().render(0).unwrap(),
        "18446744073709551615"
    );
}

#[test]
fn errors_name_the_row_group_column_and_page() {
    // Flip a byte inside the second data page of some column chunk: its CRC no longer matches.
    let data = generated("crc.parquet");
    let limits = Limits::default();
    let f = ParquetFile::open(data.as_slice(), &limits).unwrap();
    let chunk = &f.meta.row_groups[1].columns[3];
    let (start, end) = chunk.range().unwrap();
    let mut bad = data.clone();
    let at = (start + (end - start) * 3 / 4) as usize;
    bad[at] ^= 0x55;
    let f = ParquetFile::open(bad.as_slice(), &limits).unwrap();
    let e = f.read_columns(&["i64"], &limits).unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("row group 1: column i64: page "), "{text}");
}

#[test]
fn limits_are_enforced() {
    let data = generated("paimon_like_3000.parquet");
    let mut limits = Limits {
        max_entry_bytes: 10_000,
        ..Limits::default()
    };
    // The footer fits, the values do not.
    let f = ParquetFile::open(data.as_slice(), &limits).unwrap();
    let e = f.read_columns(&["v"], &limits).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    assert!(e.to_string().contains("max-entry-bytes"), "{e}");
    limits.max_entry_bytes = 100;
    let e = ParquetFile::open(data.as_slice(), &limits).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

#[test]
fn hand_made_damage_is_reported() {
    let limits = Limits::default();
    assert_eq!(
        ParquetFile::open(&b"PAR1"[..], &limits).unwrap_err().kind(),
        ErrorKind::Format
    );
    let mut enc = b"PAR1".to_vec();
    enc.extend_from_slice(&[0; 16]);
    enc.extend_from_slice(&4u32.to_le_bytes());
    enc.extend_from_slice(b"PARE");
    assert_eq!(
        ParquetFile::open(enc.as_slice(), &limits)
            .unwrap_err()
            .kind(),
        ErrorKind::Unsupported
    );
    // A footer length larger than the file.
    let mut data = generated("codec_none.parquet");
    let n = data.len();
    data[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        ParquetFile::open(data.as_slice(), &limits)
            .unwrap_err()
            .kind(),
        ErrorKind::Format
    );
    // Not Parquet at all.
    assert!(ParquetFile::open(&[0u8; 100][..], &limits).is_err());
}

/// Opens and reads everything; any error is fine, a panic is not.
fn exercise(bytes: &[u8], limits: &Limits) {
    if let Ok(f) = ParquetFile::open(bytes, limits) {
        let _ = read_all(&f, limits);
        for c in f.columns() {
            let _ = f.read_columns(&[&c.name], limits);
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_real_files_never_panic() {
    // Small limits also keep hostile allocations small.
    let limits = Limits {
        max_entry_bytes: 8 << 20,
        ..Limits::default()
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs: Vec<Vec<u8>> = [
        "codec_snappy.parquet",
        "page_v2_zstd.parquet",
        "delta_v2.parquet",
        "delta_v1.parquet",
        "byte_stream_split.parquet",
        "dict_fallback.parquet",
        "nested.parquet",
        "codec_gzip.parquet",
        "codec_lz4.parquet",
        "int96.parquet",
        "plain_v1.parquet",
    ]
    .iter()
    .map(|n| generated(n))
    .collect();
    // And a Java Paimon file from a fixture warehouse.
    let zip = std::fs::read(fixtures().join("warehouses/java09_c_split_commits.zip")).unwrap();
    let artifact = Artifact::open(
        vec![Input::Zip {
            name: "w.zip".into(),
            data: Rc::new(zip),
        }],
        &Limits::default(),
    )
    .unwrap();
    let java = artifact
        .files()
        .iter()
        .filter(|f| f.name().ends_with(".parquet"))
        .take(3)
        .map(|f| artifact.read_entry(f, 1 << 20).unwrap());
    inputs.extend(java);
    for input in &inputs {
        for _ in 0..300 {
            let mut m = input.clone();
            match rng.below(4) {
                0 => {
                    for _ in 0..1 + rng.below(8) {
                        let i = rng.below(m.len());
                        m[i] = rng.next() as u8;
                    }
                }
                1 => {
                    // Damage inside the footer, where lengths and offsets live.
                    let n = m.len();
                    let footer = (n / 4).min(2000);
                    for _ in 0..1 + rng.below(4) {
                        let i = n - 8 - rng.below(footer);
                        m[i] = rng.next() as u8;
                    }
                }
                2 => {
                    let cut = rng.below(m.len());
                    let tail = m.split_off(cut);
                    // Keep the trailer so that the footer is still found, sometimes.
                    if rng.below(2) == 0 && tail.len() >= 8 {
                        m.extend_from_slice(&tail[tail.len() - 8..]);
                    }
                }
                _ => {
                    let i = rng.below(m.len());
                    let junk: Vec<u8> = (0..1 + rng.below(32)).map(|_| rng.next() as u8).collect();
                    m.splice(i..i, junk);
                }
            }
            exercise(&m, &limits);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..600)) {
        let limits = Limits { max_entry_bytes: 1 << 20, ..Limits::default() };
        // As given, and framed like a Parquet file so the footer parser is reached.
        exercise(&body, &limits);
        let mut framed = b"PAR1".to_vec();
        framed.extend_from_slice(&body);
        framed.extend_from_slice(&(body.len() as u32 / 2).to_le_bytes());
        framed.extend_from_slice(b"PAR1");
        exercise(&framed, &limits);
    }

    #[test]
    fn arbitrary_footers_never_panic(footer in proptest::collection::vec(any::<u8>(), 0..400), data in proptest::collection::vec(any::<u8>(), 0..400)) {
        let limits = Limits { max_entry_bytes: 1 << 20, ..Limits::default() };
        let mut f = b"PAR1".to_vec();
        f.extend_from_slice(&data);
        f.extend_from_slice(&footer);
        f.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        f.extend_from_slice(b"PAR1");
        exercise(&f, &limits);
    }
}

#[test]
fn random_access_sources_work_through_an_artifact_folder() {
    // A folder input (host files): read_range with exact bounds.
    let data = generated("page_v2_snappy.parquet");
    let files = vec![crate::source::HostFile {
        path: "t/a.parquet".into(),
        modified_millis: None,
        data: Rc::new(data.clone()) as Rc<dyn RandomAccess>,
    }];
    let artifact = Artifact::open(
        vec![Input::Folder {
            name: "t".into(),
            files,
            skipped: 0,
        }],
        &Limits::default(),
    )
    .unwrap();
    let entry = artifact.get("t/a.parquet").unwrap();
    let f = ParquetFile::open_tuned(
        ArtifactFile::new(&artifact, entry),
        artifact.limits(),
        Tuning {
            whole_file: 0,
            ..Tuning::default()
        },
    )
    .unwrap();
    let want = read_all(
        &ParquetFile::open(data.as_slice(), &Limits::default()).unwrap(),
        &Limits::default(),
    )
    .unwrap();
    assert_same(&read_all(&f, artifact.limits()).unwrap(), &want, "folder");
}

/// Hand-built files: one optional INT64 column `x`, one row group, the given pages.
pub(crate) mod handmade {
    use super::super::thrift::{ty, write::Writer};
    use super::*;

    pub(crate) struct Page {
        pub kind: i32,
        pub num_values: i32,
        pub encoding: i32,
        pub def_encoding: i32,
        pub uncompressed: i32,
        pub body: Vec<u8>,
    }

    pub(crate) fn data_page(
        num_values: i32,
        encoding: i32,
        def_encoding: i32,
        body: Vec<u8>,
    ) -> Page {
        Page {
            kind: 0,
            num_values,
            encoding,
            def_encoding,
            uncompressed: body.len() as i32,
            body,
        }
    }

    fn page_bytes(p: &Page) -> Vec<u8> {
        let mut w = Writer::default();
        w.begin();
        w.i32(1, p.kind);
        w.i32(2, p.uncompressed);
        w.i32(3, p.body.len() as i32);
        if p.kind == 2 {
            w.struct_begin(7);
            w.i32(1, p.num_values);
            w.i32(2, p.encoding);
            w.end();
        } else {
            w.struct_begin(5);
            w.i32(1, p.num_values);
            w.i32(2, p.encoding);
            w.i32(3, p.def_encoding);
            w.i32(4, 3);
            w.end();
        }
        w.end();
        let mut out = w.buf;
        out.extend_from_slice(&p.body);
        out
    }

    /// The file: `PAR1`, the pages, the footer.
    pub(crate) fn file(rows: i64, codec: i32, pages: &[Page]) -> Vec<u8> {
        let mut data = b"PAR1".to_vec();
        let start = data.len() as i64;
        for p in pages {
            data.extend(page_bytes(p));
        }
        let chunk_len = data.len() as i64 - start;
        let mut w = Writer::default();
        w.begin();
        w.i32(1, 1);
        w.list_begin(2, ty::STRUCT, 2);
        w.begin();
        w.binary(4, b"schema");
        w.i32(5, 1);
        w.end();
        w.begin();
        w.i32(1, 2); // INT64
        w.i32(3, 1); // OPTIONAL
        w.binary(4, b"x");
        w.end();
        w.i64(3, rows);
        w.list_begin(4, ty::STRUCT, 1);
        w.begin();
        w.list_begin(1, ty::STRUCT, 1);
        w.begin();
        w.i64(2, start);
        w.struct_begin(3);
        w.i32(1, 2);
        w.list_begin(2, ty::I32, 1);
        w.zigzag_raw(0);
        w.list_begin(3, ty::BINARY, 1);
        w.raw_binary(b"x");
        w.i32(4, codec);
        w.i64(5, rows);
        w.i64(6, chunk_len);
        w.i64(7, chunk_len);
        w.i64(9, start);
        w.end(); // ColumnMetaData
        w.end(); // ColumnChunk
        w.i64(2, chunk_len);
        w.i64(3, rows);
        w.end(); // RowGroup
        w.end(); // FileMetaData
        data.extend_from_slice(&w.buf);
        data.extend_from_slice(&(w.buf.len() as u32).to_le_bytes());
        data.extend_from_slice(b"PAR1");
        data
    }

    fn plain_i64(values: &[i64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A PLAIN data page of `values`, none null (definition levels: one RLE run of 1s).
    pub(crate) fn present_i64(values: &[i64]) -> Page {
        let n = values.len() as i32;
        let mut body = 2u32.to_le_bytes().to_vec();
        body.extend_from_slice(&[(values.len() << 1) as u8, 1]);
        body.extend(plain_i64(values));
        data_page(n, 0, 3, body)
    }

    /// Three pages of `x` (1 2 3, 4 5 6, then a page whose values are missing): reading the
    /// whole chunk is an error, its first six rows are not.
    pub(crate) fn broken_after_six() -> Vec<u8> {
        let broken = data_page(3, 0, 3, vec![2, 0, 0, 0, 3 << 1, 1]);
        file(
            9,
            0,
            &[present_i64(&[1, 2, 3]), present_i64(&[4, 5, 6]), broken],
        )
    }

    fn read(bytes: &[u8]) -> Result<Vec<Value>> {
        let limits = Limits::default();
        let f = ParquetFile::open(bytes, &limits)?;
        Ok(f.read_columns(&["x"], &limits)?.columns.remove(0).values)
    }

    #[test]
    fn bit_packed_definition_levels_place_nulls() {
        // Levels 1,0,1,1,0,0,0,1 (BIT_PACKED, most significant bit first), 4 values.
        let mut body = vec![0b1011_0001];
        body.extend(plain_i64(&[10, 20, 30, 40]));
        let f = file(8, 0, &[data_page(8, 0, 4, body)]);
        let got = read(&f).unwrap();
        let want = [
            Some(10),
            None,
            Some(20),
            Some(30),
            None,
            None,
            None,
            Some(40),
        ];
        assert_eq!(
            got,
            want.iter()
                .map(|v| v.map_or(Value::Null, Value::Int))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn rle_levels_and_a_dictionary() {
        // Dictionary [7, 9]; levels RLE: 3 × 1 (bit width 1); indices 1,0,1.
        let dict = Page {
            kind: 2,
            num_values: 2,
            encoding: 0,
            def_encoding: 0,
            uncompressed: 16,
            body: plain_i64(&[7, 9]),
        };
        let mut body = 2u32.to_le_bytes().to_vec();
        body.extend_from_slice(&[3 << 1, 1]); // RLE run of 3 × 1
        body.push(1); // index bit width
        body.extend_from_slice(&[0x03, 0b0000_0101]); // bit-packed group: 1,0,1,…
        let f = file(3, 0, &[dict, data_page(3, 8, 3, body)]);
        assert_eq!(
            read(&f).unwrap(),
            vec![Value::Int(9), Value::Int(7), Value::Int(9)]
        );
    }

    #[test]
    fn broken_pages_are_errors_with_their_place() {
        // More values in the page than rows in the row group.
        let f = file(2, 0, &[data_page(5, 0, 3, vec![0; 64])]);
        let e = read(&f).unwrap_err().to_string();
        assert!(e.contains("row group 0: column x: page 0:"), "{e}");
        // A dictionary-encoded page without a dictionary.
        let mut body = 2u32.to_le_bytes().to_vec();
        body.extend_from_slice(&[2 << 1, 1, 1, 2, 0]);
        let f = file(2, 0, &[data_page(2, 8, 3, body)]);
        assert!(read(&f).unwrap_err().to_string().contains("no dictionary"));
        // A dictionary index past the dictionary.
        let dict = Page {
            kind: 2,
            num_values: 1,
            encoding: 0,
            def_encoding: 0,
            uncompressed: 8,
            body: plain_i64(&[1]),
        };
        let mut body = 2u32.to_le_bytes().to_vec();
        body.extend_from_slice(&[2 << 1, 1, 4, 2 << 1, 9]);
        let f = file(2, 0, &[dict, data_page(2, 8, 3, body)]);
        assert!(read(&f)
            .unwrap_err()
            .to_string()
            .contains("past the 1 entries"));
        // The chunk ends before all rows.
        let f = file(
            9,
            0,
            &[data_page(
                1,
                0,
                3,
                vec![2, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0],
            )],
        );
        assert!(read(&f)
            .unwrap_err()
            .to_string()
            .contains("ends after 1 of 9"));
    }

    #[test]
    fn a_page_claiming_a_huge_inflation_is_refused_before_allocating() {
        let compressed = snap::raw::Encoder::new().compress_vec(&[0u8; 64]).unwrap();
        let mut p = data_page(8, 0, 3, compressed);
        p.uncompressed = 200 << 20;
        let f = file(8, 1, &[p]);
        let e = read(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
        assert!(e.to_string().contains("max-ratio"), "{e}");
    }

    #[test]
    fn a_head_read_decodes_no_page_past_the_rows_asked_for() {
        let f = broken_after_six();
        let limits = Limits::default();
        let file = ParquetFile::open(f.as_slice(), &limits).unwrap();
        assert!(file.read_columns(&["x"], &limits).is_err());
        let head = |n: u64| {
            file.read_columns_head(&["x"], &limits, n)
                .map(|b| (b.num_rows, b.columns.into_iter().next().map(|c| c.values)))
        };
        let ints = |v: &[i64]| Some(v.iter().map(|&i| Value::Int(i)).collect::<Vec<_>>());
        // Within a page the page is read whole and cut to the rows asked for.
        assert_eq!(head(4).unwrap(), (4, ints(&[1, 2, 3, 4])));
        assert_eq!(head(6).unwrap(), (6, ints(&[1, 2, 3, 4, 5, 6])));
        assert_eq!(head(0).unwrap(), (0, ints(&[])));
        // The seventh row is in the broken page.
        let e = head(7).unwrap_err().to_string();
        assert!(e.contains("row group 0: column x: page 2:"), "{e}");
    }

    #[test]
    fn a_head_read_skips_the_row_groups_after_it() {
        // The whole file's rows, asked for in full and in part, from the fixture's row groups.
        let data = generated("crc.parquet");
        let limits = Limits::default();
        let f = ParquetFile::open(data.as_slice(), &limits).unwrap();
        let first = f.meta.row_groups[0].num_rows as u64;
        // Damage the second row group's chunk of i64: only a read that reaches it fails.
        let chunk = &f.meta.row_groups[1].columns[3];
        let (start, end) = chunk.range().unwrap();
        let mut bad = data.clone();
        bad[(start + (end - start) * 3 / 4) as usize] ^= 0x55;
        let whole = f.read_columns(&["i64"], &limits).unwrap();
        let bad = ParquetFile::open(bad.as_slice(), &limits).unwrap();
        assert!(bad.read_columns(&["i64"], &limits).is_err());
        let head = bad.read_columns_head(&["i64"], &limits, first).unwrap();
        assert_eq!(head.num_rows as u64, first);
        assert_eq!(
            head.columns[0].values[..],
            whole.columns[0].values[..first as usize]
        );
    }

    #[test]
    fn brotli_is_unsupported_before_reading_pages() {
        let f = file(1, 4, &[data_page(1, 0, 3, vec![0; 8])]);
        let e = read(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert!(e.to_string().contains("BROTLI"), "{e}");
    }
}
