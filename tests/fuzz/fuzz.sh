#!/bin/sh
# fuzz.sh - fuzz the --sim grammar and the command line with libFuzzer
# (clang, Debian: clang libclang-rt-14-dev), ASan and UBSan.
#   tests/fuzz/fuzz.sh [SECONDS_PER_TARGET]     (default 300)
# Builds a clang copy of amp's library in a scratch directory, runs each
# target for the time given on its corpus, and merges the inputs that
# found new coverage back into tests/fuzz/corpus-*/ (the regression set
# `make check` replays).  Exit status 0 when no target crashed.
set -e
secs=${1:-300}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/amp-fuzz.XXXXXX")}
command -v clang >/dev/null || { echo "fuzz.sh: needs clang (apt-get install clang libclang-rt-14-dev)" >&2; exit 3; }
# A private copy of the sources: the checkout may be configured for gcc.
if [ ! -f "$work/src/config.status" ]; then
	rm -rf "$work/src"
	mkdir -p "$work/src"
	(cd "$top" && tar cf - --exclude=.git .) | (cd "$work/src" && tar xf -)
	cd "$work/src"
	[ -f Makefile ] && make -s distclean >/dev/null 2>&1
	[ -f configure ] || autoreconf -fi
	CC=clang CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" \
		./configure -q --without-papi --without-libpfm
fi
cd "$work/src"
make -s -j2 libamp.a
for t in spec options; do
	clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I. -I"$top/counters" -I"$top/src" -I"$top/synth" \
		"$top/tests/fuzz/fuzz_$t.c" libamp.a -lm -o "fuzz_$t"
	mkdir -p "$work/new-$t"
	echo "fuzz.sh: fuzzing $t for $secs s"
	./"fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"$work/new-$t" "$top/tests/fuzz/corpus-$t" 2>"$work/$t.log" || { tail -40 "$work/$t.log"; exit 1; }
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$work/$t.log" | sed "s/^/fuzz.sh: $t: /"
	# Keep only the inputs that add coverage.
	./"fuzz_$t" -merge=1 "$top/tests/fuzz/corpus-$t" "$work/new-$t" 2>/dev/null
done
echo "fuzz.sh: no crash, hang or sanitizer report in ${secs} s per target"
