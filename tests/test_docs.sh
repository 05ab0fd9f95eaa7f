#!/bin/bash
# The documentation names what exists and says what a new user needs
# (issue 31, point 10):
#   - every *.md a doc or the README names exists (design.md, convert.md
#     and aruna.md cited a doc/interface.md that never was in the tree);
#     parquet-format's own pages (VariantShredding.md, ...) are upstream;
#   - the README's two set-up commands run in a root shell without sudo,
#     and it says how to install and how to mount from fstab;
#   - the man page lists every option of src/options.c's table and says
#     that ls -l, ls --color and ls -F of a file's directory run its size
#     pass.
# Exit 0 pass, 1 fail.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

upstream=" Encodings.md Encryption.md VariantShredding.md VariantEncoding.md LogicalTypes.md
	BloomFilter.md PageIndex.md Geospatial.md README.md "
cd "$top" || exit 1
missing=0
for f in README.md doc/*.md doc/*.1; do
	# a line that says the name is not part of the repository may cite it
	grep -v "not part of this repository" "$f" | grep -oE '[A-Za-z0-9_./-]+\.md\b' | sort -u |
		while read -r ref; do
			case "$upstream" in *" $ref "*) [ "$ref" != README.md ] && continue ;; esac
			[ -f "$ref" ] || [ -f "doc/$ref" ] || { echo "FAIL: $f names $ref, which is not in the tree"; exit 1; }
		done || missing=$((missing + 1))
done
[ "$missing" = 0 ] && ok "every .md the docs name exists" || FAILS=$((FAILS + missing))

# the set-up commands: as root without sudo (a root shell may have none)
setup=$(grep -E '^ +(sudo +)?scripts/run-(demo|tests)' README.md)
[ "$(echo "$setup" | grep -c 'scripts/run-')" = 2 ] || fail "README: not the two set-up commands: $setup"
echo "$setup" | grep -q '^ *sudo' && fail "README: set-up commands need sudo, which a root shell may lack: $setup"
grep -q 'make -C build install' README.md && grep -q 'fuse.parquetfs' README.md &&
	grep -q 'not found' README.md && ok "README: set-up without sudo, install, fstab" ||
	fail "README: says nothing of make install or of fstab (fuse.parquetfs, the helper's PATH)"

# the man page and the option table
man=doc/parquetfs.1
opts=$(sed -n 's/^\tPFS_OPT("\([a-z_]*\)=.*/\1/p; s/^\t{"\([a-z_]*\)", offsetof.*/\1/p' src/options.c)
[ "$(echo "$opts" | wc -w)" -ge 30 ] || fail "options of src/options.c not found"
for o in $opts; do
	grep -q "\\\\-o $o\\b\\|[ ,]$o=" "$man" || fail "$man does not list -o $o"
done
grep -q 'ls \\-l\\fR, \\fBls \\-\\-color' "$man" && grep -q 'ls \\-F' "$man" &&
	ok "$man: ls -l, ls --color and ls -F run the size pass" ||
	fail "$man: does not say that ls -l, ls --color and ls -F run the size pass"
[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
echo "all ok"
