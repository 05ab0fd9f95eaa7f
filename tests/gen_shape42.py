#!/usr/bin/env python3
"""Writes files of the "42.parquet" shape (issue 10): a few bytes of pages
that claim billions of values, referenced by every row group.

One INT64 column `v` (OPTIONAL), uncompressed v1 data pages. Each data
page holds --values slots in --runs runs of equal length (the last takes
the remainder): definition levels are one RLE run per run, and a run is
either NULL (with --nulls, every third run) or one dictionary index
repeated (RLE_DICTIONARY over a dictionary of --dict values 42, 43, ...).
Run j of page p has the value dict[(p + j) % dict].

Layouts:
  same   one dictionary page and --pages data pages; every row group's
         column chunk has exactly these bytes (identical metadata).
  slide  row group i's chunk starts at page i of a pool of
         pages + row_groups - 1 pages, so row groups share pages but no
         two have the same chunk offsets (a chunk cannot start with a
         shared dictionary page, so slide pages have none and hold
         NULLs only: their runs are definition levels).

Written from parquet.thrift (apache/parquet-format) with the Thrift
compact protocol done here, so the reader under test is not its own
oracle. `--expect` prints what parquetfs must show instead of writing.
"""
import argparse
import json
import struct
import sys

# ---- Thrift compact protocol -------------------------------------------------
T_TRUE, T_FALSE, T_I32, T_I64, T_BINARY, T_LIST, T_STRUCT = 1, 2, 5, 6, 8, 9, 12


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


class Struct:
    """A struct as (field id, type, value) triples, written in id order."""

    def __init__(self, *fields):
        self.fields = [f for f in fields if f[2] is not None]

    def encode(self):
        out = bytearray()
        last = 0
        for fid, typ, val in sorted(self.fields, key=lambda f: f[0]):
            if typ == "bool":
                ctype = T_TRUE if val else T_FALSE
            else:
                ctype = {"i32": T_I32, "i64": T_I64, "str": T_BINARY, "list": T_LIST,
                         "struct": T_STRUCT}[typ]
            delta = fid - last
            if 0 < delta <= 15:
                out.append(delta << 4 | ctype)
            else:
                out.append(ctype)
                out += varint(zigzag(fid) & 0xFFFF)
            last = fid
            if typ in ("i32", "i64"):
                out += varint(zigzag(val))
            elif typ == "str":
                b = val.encode() if isinstance(val, str) else val
                out += varint(len(b)) + b
            elif typ == "struct":
                out += val.encode()
            elif typ == "list":
                etype, items = val
                ct = {"i32": T_I32, "str": T_BINARY, "struct": T_STRUCT}[etype]
                out.append(len(items) << 4 | ct if len(items) < 15 else 0xF0 | ct)
                if len(items) >= 15:
                    out += varint(len(items))
                for it in items:
                    if etype == "i32":
                        out += varint(zigzag(it))
                    elif etype == "str":
                        b = it.encode()
                        out += varint(len(b)) + b
                    else:
                        out += it.encode()
        out.append(0)
        return bytes(out)


# parquet.thrift enums
INT64 = 2
OPTIONAL, REQUIRED = 1, 0
PLAIN, PLAIN_DICTIONARY, RLE, RLE_DICTIONARY = 0, 2, 3, 8
DATA_PAGE, DICTIONARY_PAGE = 0, 2
UNCOMPRESSED = 0


def rle_run(count, value, bit_width):
    """One RLE run of the hybrid: header count << 1, the value in
    ceil(bit_width / 8) little-endian bytes."""
    return varint(count << 1) + value.to_bytes((bit_width + 7) // 8, "little")


# ---- the shape ---------------------------------------------------------------
class Shape:
    def __init__(self, a):
        self.a = a
        self.dict = [42 + i for i in range(a.dict)] if a.layout == "same" else []
        self.npool = a.pages if a.layout == "same" else a.pages + a.row_groups - 1

    def runs(self, p):
        """[(length, value or None)] of pool page p."""
        n, r = self.a.values, min(self.a.runs, self.a.values)
        out = []
        for j in range(r):
            ln = n // r + (n % r if j == r - 1 else 0)
            if not self.dict or (self.a.nulls and j % 3 == 2):
                out.append((ln, None))
            else:
                out.append((ln, self.dict[(p + j) % len(self.dict)]))
        return out

    def page_body(self, p):
        runs = self.runs(p)
        defs = b"".join(rle_run(ln, 0 if v is None else 1, 1) for ln, v in runs)
        body = struct.pack("<I", len(defs)) + defs
        if self.dict:
            bw = max(1, (len(self.dict) - 1).bit_length())
            body += bytes([bw]) + b"".join(
                rle_run(ln, self.dict.index(v), bw) for ln, v in runs if v is not None)
        return body

    def write(self, out):
        a = self.a
        buf = bytearray(b"PAR1")
        dict_off = None
        if self.dict:
            body = b"".join(struct.pack("<q", v) for v in self.dict)
            hdr = Struct((1, "i32", DICTIONARY_PAGE), (2, "i32", len(body)), (3, "i32", len(body)),
                         (7, "struct", Struct((1, "i32", len(self.dict)), (2, "i32", PLAIN))))
            dict_off = len(buf)
            buf += hdr.encode() + body
        offs = []
        for p in range(self.npool):
            body = self.page_body(p)
            hdr = Struct((1, "i32", DATA_PAGE), (2, "i32", len(body)), (3, "i32", len(body)),
                         (5, "struct", Struct((1, "i32", a.values),
                                              (2, "i32", RLE_DICTIONARY if self.dict else PLAIN),
                                              (3, "i32", RLE), (4, "i32", RLE))))
            offs.append(len(buf))
            buf += hdr.encode() + body
        end = len(buf)
        rgs = []
        for i in range(a.row_groups):
            first = 0 if a.layout == "same" else i
            start = dict_off if self.dict else offs[first]
            stop = offs[first + a.pages] if first + a.pages < self.npool else end
            nvals = a.pages * a.values
            md = Struct((1, "i32", INT64),
                        (2, "list", ("i32", [RLE, RLE_DICTIONARY, PLAIN] if self.dict else [RLE, PLAIN])),
                        (3, "list", ("str", ["v"])), (4, "i32", UNCOMPRESSED),
                        (5, "i64", nvals), (6, "i64", stop - start), (7, "i64", stop - start),
                        (9, "i64", offs[first]), (11, "i64", dict_off))
            cc = Struct((2, "i64", start), (3, "struct", md))
            rgs.append(Struct((1, "list", ("struct", [cc])), (2, "i64", stop - start),
                              (3, "i64", nvals)))
        schema = [Struct((4, "str", "schema"), (5, "i32", 1)),
                  Struct((1, "i32", INT64), (3, "i32", OPTIONAL), (4, "str", "v"))]
        fmd = Struct((1, "i32", 1), (2, "list", ("struct", schema)),
                     (3, "i64", a.row_groups * a.pages * a.values),
                     (4, "list", ("struct", rgs)), (6, "str", "gen_shape42.py"))
        foot = fmd.encode()
        buf += foot + struct.pack("<I", len(foot)) + b"PAR1"
        out.write(buf)

    # ---- what parquetfs must show (interface.md "Rendering values") ----
    def page_values_txt_size(self, p):
        return sum(ln * (len(str(v)) + 1 if v is not None else 3) for ln, v in self.runs(p))

    def pool_page(self, rg, page):
        return page if self.a.layout == "same" else rg + page

    def rg_csv_size(self, rg):
        # a NULL is the empty field; every row ends in \n
        return sum(ln * ((len(str(v)) if v is not None else 0) + 1)
                   for pg in range(self.a.pages)
                   for ln, v in self.runs(self.pool_page(rg, pg)))

    def head(self, rg, page, nbytes, csv):
        """The first nbytes of a page's values.txt (csv False) or of the
        file's data.csv (csv True; rg and page ignored)."""
        out = bytearray(b"v\n" if csv else b"")
        pages = ((r, pg) for r in range(self.a.row_groups) for pg in range(self.a.pages)) \
            if csv else [(rg, page)]
        for r, pg in pages:
            for ln, v in self.runs(self.pool_page(r, pg)):
                line = (b"" if v is None else str(v).encode()) + b"\n" if csv else \
                    (b"\\N" if v is None else str(v).encode()) + b"\n"
                need = (nbytes - len(out) + len(line) - 1) // len(line)
                out += line * min(ln, max(need, 0))
                if len(out) >= nbytes:
                    return bytes(out[:nbytes])
        return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--row-groups", type=int, default=3)
    ap.add_argument("--pages", type=int, default=4, help="data pages per column chunk")
    ap.add_argument("--values", type=int, default=3000000, help="slots per page (<= 2^31-1)")
    ap.add_argument("--runs", type=int, default=3, help="runs per page")
    ap.add_argument("--dict", type=int, default=3, help="dictionary entries (same layout)")
    ap.add_argument("--nulls", action="store_true", help="every third run is NULL")
    ap.add_argument("--layout", choices=["same", "slide"], default="same")
    ap.add_argument("--full", action="store_true",
                    help="the full shape: 290 row groups of 1000 pages of 2^31-1 slots, 1 run")
    ap.add_argument("--expect", choices=["sizes", "csv-head", "values-head"],
                    help="print what parquetfs must show instead of writing a file")
    ap.add_argument("--rg", type=int, default=0)
    ap.add_argument("--page", type=int, default=0)
    ap.add_argument("--bytes", type=int, default=1000)
    ap.add_argument("out", nargs="?")
    a = ap.parse_args()
    if a.full:
        a.row_groups, a.pages, a.values, a.runs, a.dict = 290, 1000, 2**31 - 1, 1, 1
    if not 0 < a.values < 2**31 or a.runs < 1 or a.dict < 1 or a.pages < 1 or a.row_groups < 1:
        ap.error("values in 1..2^31-1, runs, dict, pages and row groups >= 1")
    s = Shape(a)
    if a.expect == "sizes":
        rg_csv = [s.rg_csv_size(r) for r in range(a.row_groups)]
        json.dump({"csv": 2 + sum(rg_csv), "rg_csv": rg_csv,
                   "page_values": [[s.page_values_txt_size(s.pool_page(r, p))
                                    for p in range(a.pages)] for r in range(a.row_groups)],
                   "distinct_pages": s.npool}, sys.stdout)
        print()
    elif a.expect:
        sys.stdout.buffer.write(s.head(a.rg, a.page, a.bytes, a.expect == "csv-head"))
    else:
        if not a.out:
            ap.error("an output file is needed")
        with open(a.out, "wb") as f:
            s.write(f)


if __name__ == "__main__":
    main()
