#!/bin/sh
# bench.sh - wall time per phase of amp's main jobs on this machine.
# Speed is measured here, not asserted in tests.  Run after building:
#   sh bench/bench.sh [path/to/amp]
AMP=${1:-$(dirname "$0")/../src/amp}
[ -x "$AMP" ] || { echo "bench.sh: build amp first (./build.sh)" >&2; exit 2; }

phase() {  # phase NAME COMMAND...
	name=$1; shift
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	status=$?
	t1=$(date +%s.%N)
	printf '%-44s %8.3f s  (exit %d)\n' "$name" "$(echo "$t1 - $t0" | bc -l 2>/dev/null || awk "BEGIN{print $t1-$t0}")" "$status"
}

echo "amp benchmark on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
phase "list backends (probes, timer calibration)" "$AMP" --list-backends
phase "list events" "$AMP" --list-events
phase "default run (timing here: sweep, caches, TLBs)" "$AMP"
phase "real run, --level=L1d (timing)" "$AMP" --level=L1d
phase "real run, --level=L2 (eviction tests)" "$AMP" --level=L2
phase "real run, --level=L3 (page-offset classes or access pairs)" "$AMP" --level=L3
phase "real run, --level=DTLB (TLB sweep, ways, random loads)" "$AMP" --level=DTLB
phase "real run, --level=L1i (instruction side, timing)" "$AMP" --level=L1i
phase "real run, --level=ITLB (instruction side, timing)" "$AMP" --level=ITLB
phase "real run, --level=ITLB2 (random jumps on aliased pages)" "$AMP" --level=ITLB2
phase "real run, --level=L1i, no executable mappings" env AMP_NO_EXEC_MAPPINGS=1 "$AMP" --level=L1i
phase "real run, --max-size=1M" "$AMP" --max-size=1M
echo "per phase of one default run (-v):"
"$AMP" -v 2>&1 >/dev/null | sed 's/^amp: /  /'
phase "simulated pii-233 (sweep to 2 MiB)" "$AMP" --sim=pii-233
phase "simulated itanium2 (sweep to 32 MiB)" "$AMP" --sim=itanium2
phase "simulated pii-233, noise 0.01, random pages" "$AMP" --sim=pii-233 --sim-noise=0.01 --sim-pages=random
phase "counters: pii-233, every level" "$AMP" --sim=pii-233 --counters --max-size=64K
phase "counters: pii-233 --level=L2" "$AMP" --sim=pii-233 --level=L2 --counters
phase "counters: r10k-225, every level" "$AMP" --sim=r10k-225 --counters --max-size=64K
phase "counters: athlonmp (exclusive L2)" "$AMP" --sim=athlonmp --counters --max-size=64K
phase "counters: zen5-like (L3 32 MiB, STLB)" "$AMP" --sim=zen5-like --counters --max-size=64K
phase "counters: scattered frames, L2 by eviction sets" "$AMP" --sim="L1d:size=32K,assoc=8;L1i:size=32K,assoc=8;L2:size=1M,assoc=16,policy=plru,inclusion=inclusive" --sim-pages=random --counters --level=L2
phase "counters: scattered frames, L2 under L1d's ways (pushers)" "$AMP" --sim=pii-233 --sim-pages=random --counters --level=L2
phase "counters: L2 under a random L1d (fresh evictors)" "$AMP" --sim="L1d:size=3K,assoc=6,line=16,policy=random;L1i:size=3K,assoc=6,line=16,policy=random;L2:size=192K,assoc=12,line=32,policy=fifo" --counters --level=L2
phase "counters: same, scattered 32-way L2 (fresh lines)" "$AMP" --sim="L1d:size=2K,assoc=4,line=32,policy=random;L1i:size=2K,assoc=4,line=32,policy=random;L2:size=4M,assoc=32,line=32,policy=plru,inclusion=inclusive" --sim-pages=random --counters --level=L2
phase "counters: scattered, random L1d of a 4 KiB way (fresh lines from other pages)" "$AMP" --sim="L1d:size=12K,assoc=3,line=32,policy=random,write=noallocate;L1i:size=12K,assoc=3,line=32,policy=random;L2:size=256K,assoc=4,line=32,policy=fifo" --sim-pages=random --counters --level=L2
phase "counters: scattered frames, L3 under L2's ways (pushers from its L2 set)" "$AMP" --sim="L1d:size=32K,assoc=8;L1i:size=32K,assoc=8;L2:size=256K,assoc=16;L3:size=1M,assoc=8" --sim-pages=random --counters --level=L3
phase "counters: scattered frames, FIFO L1d, L2 inclusion by fetched code" "$AMP" --sim="L1d:size=16K,assoc=4,policy=fifo;L1i:size=16K,assoc=4;L2:size=1M,assoc=8,inclusion=inclusive" --sim-pages=random --counters --level=L2
phase "counters: scattered frames, exclusive L2 under a direct-mapped L1d (code)" "$AMP" --sim="L1d:size=8K,assoc=1;L1i:size=8K,assoc=1;L2:size=1M,assoc=8,inclusion=exclusive" --sim-pages=random --counters --level=L2
phase "counters: scattered frames, exclusive L2 under a 2-way L1d, L3 below (pushers)" "$AMP" --sim="L1d:size=1K,assoc=2;L1i:size=1K,assoc=2;L2:size=80K,assoc=10,inclusion=exclusive;L3:size=256K,assoc=8" --sim-pages=random --counters --level=L3
phase "timing: zen5-like (sim cycles)" "$AMP" --sim=zen5-like --timing
phase "timing: scattered frames, L2 under L1d's ways (pushers, Zen 4-like)" "$AMP" --sim="L1d:size=32K,assoc=8;L1i:size=32K,assoc=8;L2:size=1M,assoc=8,inclusion=inclusive;L3:size=4M,assoc=16" --sim-pages=random --timing --level=L2
phase "timing: itanium2, random pages, noise" "$AMP" --sim=itanium2 --timing --sim-pages=random --sim-noise=0.001
phase "timing: random 12-way L1d, scattered frames, noise" "$AMP" --sim="L1d:size=48K,assoc=12,policy=random;L1i:size=32K;L2:size=2M,assoc=16;MEM:latency=150" --timing --sim-pages=random --sim-noise=0.01 --level=L1d
phase "timing: zen5-like L1d beside a busy SMT sibling (0.1)" "$AMP" --sim=zen5-like --timing --sim-sibling=0.1 --level=L1d
phase "cross-check: ppro-200" "$AMP" --sim=ppro-200 --cross-check
