#!/usr/bin/env python3
"""Writes the raw deflate streams of every deflated entry of the given zips (nested zips too) to
one file: for each entry, u32 compressed length, u32 uncompressed length, u32 CRC-32, the bytes.

    corpus.py OUT.bin ZIP...
"""
import io
import struct
import sys
import zipfile


def entries(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    for info in z.infolist():
        if info.compress_type == zipfile.ZIP_DEFLATED:
            name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
            start = info.header_offset + 30 + name_len + extra_len
            yield data[start:start + info.compress_size], info.file_size, info.CRC
        if info.filename.endswith(".zip"):
            yield from entries(z.read(info))


def main():
    out, count, raw, plain = open(sys.argv[1], "wb"), 0, 0, 0
    for path in sys.argv[2:]:
        for body, size, crc in entries(open(path, "rb").read()):
            out.write(struct.pack("<III", len(body), size, crc) + body)
            count, raw, plain = count + 1, raw + len(body), plain + size
    print(f"{count} deflated entries, {raw} bytes deflated, {plain} bytes inflated", file=sys.stderr)


main()
