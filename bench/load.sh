#!/bin/sh
# load.sh - does a memory-bound competitor on another CPU change amp's
# answers?  N default runs without and N with a competitor streaming
# through 256 MiB on the other CPU; prints L1d, L1i and L2 line, size and
# ways of each run (from the JSON), the exit status, and a tally.
#   sh bench/load.sh [N] [path/to/amp]          (default N = 10)
N=${1:-10}
AMP=${2:-$(dirname "$0")/../src/amp}
CC=${CC:-cc}
[ -x "$AMP" ] || { echo "load.sh: build amp first (./build.sh)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "load.sh: needs two CPUs" >&2; exit 3; }
work=$(mktemp -d "${TMPDIR:-/tmp}/amp-load.XXXXXX")
trap 'kill $comp 2>/dev/null; rm -rf "$work"' EXIT
cat >"$work/stream.c" <<'C'
#include <stdlib.h>
#include <string.h>
int main(void)
{
	size_t n = (256u << 20) / sizeof(long);
	long *a = malloc(n * sizeof *a), s = 0;
	if (!a)
		return 1;
	memset(a, 1, n * sizeof *a);
	for (;;)
		for (size_t i = 0; i < n; i += 8)
			s += a[i]++; /* one read-modify-write per line: memory-bound */
}
C
$CC -O2 -o "$work/stream" "$work/stream.c" || exit 3

runs() {  # runs LABEL
	for i in $(seq "$N"); do
		taskset -c 0 "$AMP" --json -q >"$work/r.json" 2>/dev/null
		rc=$?
		python3 - "$1" "$i" "$rc" "$work/r.json" <<'P'
import json, sys
label, i, rc, path = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    print(f"{label:9} {i:>2}  exit {rc}  (no JSON)"); sys.exit()
cells = []
for name in ("L1d", "L1i", "L2"):
    c = next((c for c in d["caches"] if c["name"] == name), None)
    if c is None:
        cells.append(f"{name} -"); continue
    f = lambda v: "?" if v is None else str(v)
    cells.append(f"{name} {f(c['line_size'])}/{f(c['size'])}/{f(c['associativity'])} ({round(100 * (c['confidence'] or 0))}%)")
print(f"{label:9} {i:>2}  exit {rc}  " + "  ".join(cells))
P
	done
}

echo "amp under load: $N default runs on CPU 0, line/size/ways (lowest confidence)"
runs quiet
taskset -c 1 "$work/stream" &
comp=$!
sleep 1
runs loaded
