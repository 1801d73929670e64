#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets into fuzz/corpus/<target>/ from tests/fixtures.

    fuzz/make_corpus.py [--plain-avro DIR]

* zip_source, analysis: every fixture zip, the same zip re-written with stored entries (so that
  byte mutations land in readable content), and the committed regression inputs.
* json_objects: the snapshot, changelog, hint, schema, consumer and tag files inside the zips.
* avro_manifests: the manifest lists, manifests and index manifests inside the zips, plus the
  same files with decompressed blocks (DIR, written by the analysis_mutate binary at start-up).
* parquet: tests/fixtures/parquet/generated/*.parquet and the data files inside the zips.
* analysis_mutate: a few byte strings (its input is a plan, not a file).

Every target also gets tests/fixtures/fuzz-regressions/<target>/*. Seeds are named by their
SHA-1, so running this again adds nothing twice. Only the standard library is used.
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
TARGETS = ["zip_source", "json_objects", "avro_manifests", "parquet", "analysis", "analysis_mutate"]

JSON_NAME = re.compile(
    r"(^|/)(snapshot|changelog)/(snapshot-\d+|changelog-\d+|EARLIEST|LATEST)$"
    r"|(^|/)schema/schema-\d+$"
    r"|(^|/)consumer/consumer-[^/]+$"
    r"|(^|/)tag/tag-[^/]+$"
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
        for info, body in members(data):
            name = info.filename
            if JSON_NAME.search(name):
                add("json_objects", body, counts)
            elif AVRO_NAME.search(name):
                add("avro_manifests", body, counts)
            elif name.endswith(".parquet"):
                add("parquet", body, counts)
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
                if p.is_file():
                    add(t, p.read_bytes(), counts)
    for t in TARGETS:
        n = len(list((CORPUS / t).glob("*"))) if (CORPUS / t).is_dir() else 0
        print(f"corpus {t}: {n} files ({counts.get(t, 0)} new)", file=sys.stderr)


if __name__ == "__main__":
    main()
