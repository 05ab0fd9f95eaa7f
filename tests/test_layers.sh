#!/usr/bin/env bash
# The includes of core/, fs/ and src/ against the layer map in
# doc/design.md (scripts/check-layers says what it checks).
set -eu
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
exec python3 "$top/scripts/check-layers" "$top"
