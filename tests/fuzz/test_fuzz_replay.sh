#!/usr/bin/env bash
# Replays every fuzz target's committed seed corpus (tests/fuzz/corpus/NAME:
# seeds and the crashers fuzzing found) through the target, as built for this
# test (replay_NAME: the same LLVMFuzzerTestOneInput without libFuzzer; under
# the sanitize build ASan+UBSan watch it). With ../shared/testdata, the file
# target also replays other projects' crashers and parquet-testing's bad_data.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/build/plain}
corpus=$top_srcdir/tests/fuzz/corpus
td=$top_srcdir/../shared/testdata
fails=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
for t in file encrypted csv schema keyfile thrift; do
	bin=$top_builddir/tests/fuzz/replay_$t
	[ -x "$bin" ] || { echo "FAIL: no $bin"; fails=$((fails + 1)); continue; }
	n=$(find "$corpus/$t" -type f | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL: empty corpus $corpus/$t"; fails=$((fails + 1)); continue; }
	args=("$corpus/$t")
	if [ "$t" = file ] && [ -d "$td" ]; then
		for d in "$td"/fuzz-regressions/*/ "$td/parquet-testing/bad_data"; do
			[ -d "$d" ] && args+=("$d")
		done
	fi
	if timeout 300 "$bin" "${args[@]}" > "$logdir/$t.log" 2>&1; then
		echo "ok: $(tail -1 "$logdir/$t.log")"
	else
		echo "FAIL: replay_$t (exit $?); the input it was on:"
		grep '^replay ' "$logdir/$t.log" | tail -1
		grep -E 'ERROR|runtime error|SUMMARY' "$logdir/$t.log" | head -5
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ] || exit 1
[ -d "$td" ] || echo "note: no ../shared/testdata: replayed the committed corpora only"
exit 0
