#!/usr/bin/env python3
"""Stats every entry of Parquet files' trees on a parquetfs mount BEFORE
reading anything, then reads each entry and checks that a successful read
returns exactly st_size bytes (used by tests/test_sizes.sh).

    sizes_walk.py MNT NAME... [--pages N]

A read that fails is allowed (a page that does not decode); one that
succeeds with another length than the first stat said is not: tools that
trust st_size (tar, DuckDB, mmap) would get a short or cut file. Pages
beyond N per chunk (default 6) are stat'ed but not read, to stay quick.
Prints one FAIL line per problem and a summary; exit 1 on any."""
import os
import sys

args = sys.argv[1:]
pages = 6
if "--pages" in args:
    i = args.index("--pages")
    pages = int(args[i + 1])
    del args[i:i + 2]
mnt, names = args[0], args[1:]
fails = []
count = {"stat": 0, "read": 0, "failed": 0, "bytes": 0}


def page_index(rel):
    parts = rel.split("/")
    if "pages" in parts:
        i = parts.index("pages")
        if i + 1 < len(parts) and parts[i + 1].isdigit():
            return int(parts[i + 1])
    return -1


for name in names:
    top = os.path.join(mnt, name)
    sizes = {}
    # 1. every entry's size, nothing read yet (os.walk lists; stat looks up)
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            try:
                sizes[p] = os.stat(p).st_size
                count["stat"] += 1
            except OSError as e:
                fails.append(f"FAIL stat {os.path.relpath(p, mnt)}: {e}")
    # 2. read each and compare
    for p, size in sizes.items():
        rel = os.path.relpath(p, top)
        if page_index(rel) >= pages:
            continue
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except OSError:
            count["failed"] += 1
            continue
        count["read"] += 1
        count["bytes"] += len(data)
        if len(data) != size:
            fails.append(f"FAIL {os.path.relpath(p, mnt)}: st_size {size} at first stat, "
                         f"{len(data)} bytes read")
        elif size != os.stat(p).st_size:
            fails.append(f"FAIL {os.path.relpath(p, mnt)}: st_size changed after reading")

for f in fails[:40]:
    print(f)
print(f"sizes_walk: {len(names)} files, {count['stat']} entries stat'ed, {count['read']} read "
      f"({count['bytes']} bytes), {count['failed']} failed to read, {len(fails)} problems")
sys.exit(1 if fails else 0)
