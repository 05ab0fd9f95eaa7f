#!/usr/bin/env python3
"""walk_entries.py [-t SECONDS] [-n MAX_DIR_ENTRIES] [-b MAX_READ_BYTES] DIR...

Lists each DIR's tree and reads every file in it, for mount tests over
hostile files. A directory's first MAX_DIR_ENTRIES (200) entries are visited
(forged counts make millions); a file is read up to MAX_READ_BYTES (16 MiB).
An error (EIO, EACCES, ...) is an answer, not a failure. Each DIR gets
SECONDS (60): a DIR not done by then is a hang, named with the entry it was
on, and the walker exits 3 at once. One line per DIR: dirs, files, bytes,
errors. One process for every DIR: a loaded machine starts python slowly."""
import argparse
import os
import sys
import threading

ap = argparse.ArgumentParser()
ap.add_argument('-t', type=float, default=60)
ap.add_argument('-n', type=int, default=200)
ap.add_argument('-b', type=int, default=16 << 20)
ap.add_argument('dirs', nargs='+')
args = ap.parse_args()


class Walk:
    def __init__(self):
        self.dirs = self.files = self.nbytes = self.errors = 0
        self.current = ''

    def walk(self, d):
        self.dirs += 1
        self.current = d
        names = []
        try:
            with os.scandir(d) as it:
                for e in it:
                    names.append(e.name)
                    if len(names) >= args.n:
                        break
        except OSError:
            self.errors += 1
            return
        for n in names:
            p = os.path.join(d, n)
            self.current = p
            try:
                isdir = os.path.isdir(p)
            except OSError:
                self.errors += 1
                continue
            if isdir:
                self.walk(p)
                continue
            self.files += 1
            try:
                with open(p, 'rb', buffering=0) as fh:
                    got = 0
                    while got < args.b:
                        b = fh.read(min(1 << 20, args.b - got))
                        if not b:
                            break
                        got += len(b)
                    self.nbytes += got
            except OSError:
                self.errors += 1


for d in args.dirs:
    w = Walk()
    t = threading.Thread(target=w.walk, args=(d,), daemon=True)
    t.start()
    t.join(args.t)
    if t.is_alive():
        print(f"HANG {d}: no answer within {args.t:g} s, at {w.current}", flush=True)
        os._exit(3)
    print(f"{os.path.basename(d)}: {w.dirs} dirs, {w.files} files, {w.nbytes} bytes, "
          f"{w.errors} errors", flush=True)
