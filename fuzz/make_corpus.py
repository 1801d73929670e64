#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets into fuzz/corpus/<target>/ from tests/fixtures.

    fuzz/make_corpus.py [--plain-avro DIR]

* zip_source, analysis: every fixture zip, the same zip re-written with stored entries (so that
  byte mutations land in readable content), a few tiny hand-made zips (stored, deflated,
  nested, ZIP64, a minimal table), and for analysis each fixture without its data files.
* json_objects: the snapshot, changelog, hint, schema, consumer and tag files inside the zips,
  and the Spark checkpoint files (offsets/N, commits/N, metadata).
* avro_manifests: the manifest lists, manifests and index manifests inside the zips, plus the
  same files with decompressed blocks (DIR, written by the analysis_mutate binary at start-up).
* parquet: tests/fixtures/parquet/generated/*.parquet and the data files inside the zips.
* orc: tests/fixtures/orc/*.orc and the ORC data and changelog files inside the zips.
* avro_data: the Avro data and changelog files inside the zips (tests/fixtures/writers/ too).
* analysis_mutate: a few byte strings (its input is a plan, not a file).

Every target also gets tests/fixtures/fuzz-regressions/<target>/* (not the .expect files).
Seeds are named by their SHA-1, so running this again adds nothing twice. Only the standard library is used.
"""

import argparse
import hashlib
import io
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT / "fuzz" / "corpus"
TARGETS = [
    "zip_source", "json_objects", "avro_manifests", "parquet", "orc", "avro_data", "analysis",
    "analysis_mutate",
]

JSON_NAME = re.compile(
    r"(^|/)(snapshot|changelog)/(snapshot-\d+|changelog-\d+|EARLIEST|LATEST)$"
    r"|(^|/)schema/schema-\d+$"
    r"|(^|/)consumer/consumer-[^/]+$"
    r"|(^|/)tag/tag-[^/]+$"
    r"|(^|/)(offsets|commits)/\d+$"
    r"|(^|/)metadata$"
)
AVRO_NAME = re.compile(r"(^|/)manifest/(manifest-list-|manifest-|index-manifest-)[^/]+$")
MAX_SEED = 1 << 20


def add(target, data, counts):
    if len(data) > MAX_SEED:
        return
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    p = d / hashlib.sha1(data).hexdigest()
    if not p.exists():
        p.write_bytes(data)
        counts[target] = counts.get(target, 0) + 1


def members(data, depth=0):
    """(ZipInfo, bytes) of every file in a zip, nested zips opened too."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return
    for info in z.infolist():
        if info.is_dir():
            continue
        try:
            body = z.read(info)
        except Exception:  # a damaged fixture entry is simply not a seed
            continue
        yield info, body
        if info.filename.lower().endswith(".zip") and depth < 3:
            yield from members(body, depth + 1)


def stored_copy(data):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as w:
        for info, body in members(data, depth=3):
            # Same name and time as the original: the copy is the same bytes on every run.
            w.writestr(zipfile.ZipInfo(info.filename, info.date_time), body)
    return out.getvalue()


def tiny_zips():
    """Small hand-made zips: every structure the reader supports, in a few hundred bytes."""
    def make(files, method=zipfile.ZIP_STORED, **kw):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", method, **kw) as w:
            for name, body in files:
                info = zipfile.ZipInfo(name, (2026, 11, 30, 8, 33, 10))
                info.compress_type = method
                if name.endswith("/"):
                    info.external_attr = 0o40755 << 16
                w.writestr(info, body)
        return out.getvalue()

    table = [
        ("w/db.db/t/schema/schema-0", b'{"id":0,"fields":[{"id":0,"name":"k","type":"INT"}],'
         b'"partitionKeys":[],"primaryKeys":["k"],"options":{"changelog-producer":"lookup"}}'),
        ("w/db.db/t/snapshot/snapshot-1", b'{"version":3,"id":1,"schemaId":0,"baseManifestList":"b",'
         b'"deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND",'
         b'"timeMillis":1796027473636,"totalRecordCount":1,"deltaRecordCount":1}'),
        ("w/db.db/t/snapshot/LATEST", b"1"),
        ("w/db.db/t/snapshot/EARLIEST", b"1"),
        ("w/db.db/t/consumer/consumer-c", b'{"nextSnapshot":2}'),
    ]
    yield make([("a.txt", b"hello")])
    yield make([("a.txt", b"hello" * 20)], zipfile.ZIP_DEFLATED)
    yield make([("d/", b""), ("d/a", b"x")])
    yield make([])
    yield make(table)
    yield make(table, zipfile.ZIP_DEFLATED)
    yield make([("inner.zip", make(table))])
    yield make([("inner.zip", make(table, zipfile.ZIP_DEFLATED))], zipfile.ZIP_DEFLATED)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        with w.open(zipfile.ZipInfo("big", (2026, 11, 30, 8, 33, 10)), "w", force_zip64=True) as f:
            f.write(b"zip64")
    yield out.getvalue()


def metadata_only(data):
    """The fixture without its data files (no bucket-*/ entries): smaller, same checks."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as w:
        for info, body in members(data, depth=3):
            if "/bucket-" in info.filename or info.filename.endswith(".parquet"):
                continue
            w.writestr(zipfile.ZipInfo(info.filename, info.date_time), body)
    return out.getvalue()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plain-avro", type=pathlib.Path)
    args = ap.parse_args()
    counts = {}
    zips = sorted(
        p for d in ("warehouses", "ray", "spark") for p in (FIXTURES / d).glob("*.zip")
    )
    for z in zips:
        data = z.read_bytes()
        for t in ("zip_source", "analysis"):
            add(t, data, counts)
            add(t, stored_copy(data), counts)
        add("analysis", metadata_only(data), counts)
        for info, body in members(data):
            name = info.filename
            if JSON_NAME.search(name):
                add("json_objects", body, counts)
            elif AVRO_NAME.search(name):
                add("avro_manifests", body, counts)
            elif name.endswith(".parquet"):
                add("parquet", body, counts)
            elif name.endswith(".orc"):
                add("orc", body, counts)
            elif name.endswith(".avro"):
                add("avro_data", body, counts)
    for z in sorted((FIXTURES / "writers").glob("*.zip")):
        for info, body in members(z.read_bytes()):
            if info.filename.endswith(".orc"):
                add("orc", body, counts)
            elif info.filename.endswith(".avro"):
                add("avro_data", body, counts)
            elif info.filename.endswith(".parquet"):
                add("parquet", body, counts)
    for p in sorted((FIXTURES / "orc").glob("*.orc")):
        add("orc", p.read_bytes(), counts)
    for z in tiny_zips():
        add("zip_source", z, counts)
        add("analysis", z, counts)
    for p in sorted((FIXTURES / "parquet" / "generated").glob("*.parquet")):
        add("parquet", p.read_bytes(), counts)
    if args.plain_avro and args.plain_avro.is_dir():
        for p in sorted(args.plain_avro.iterdir()):
            add("avro_manifests", p.read_bytes(), counts)
    for seed in (b"", b"\x00" * 64, bytes(range(256)), b"\xff" * 64):
        add("analysis_mutate", seed, counts)
    for t in TARGETS:
        reg = FIXTURES / "fuzz-regressions" / t
        if reg.is_dir():
            for p in sorted(reg.iterdir()):
                if p.is_file() and p.suffix != ".expect":
                    add(t, p.read_bytes(), counts)
    for t in TARGETS:
        n = len(list((CORPUS / t).glob("*"))) if (CORPUS / t).is_dir() else 0
        print(f"corpus {t}: {n} files ({counts.get(t, 0)} new)", file=sys.stderr)


if __name__ == "__main__":
    main()
