#!/bin/sh
# cachegrind.sh - the simulated machine against valgrind's cachegrind.
#
# For seeded random traces (tests/cg_lcg.h) on LRU, write-allocate,
# two-level machines with power-of-two set counts, the model's D1 and LL
# data miss counts must equal cachegrind's exactly.  cg_trace runs the
# trace under cachegrind; the counts of its two traced source lines are
# read from the out file; test_sim_model --replay runs the same trace
# through the model (L1d = D1, unified L2 = LL, virtual index, NINE).
#
# Env: VALGRIND (empty: look for valgrind on PATH), AMP_TEST_BUILDDIR
# (holds cg_trace and test_sim_model; default: this script's directory).
# Skips when valgrind is absent or cannot run here.

set -u

builddir=${AMP_TEST_BUILDDIR:-$(cd "$(dirname "$0")" && pwd)}
trace=$builddir/cg_trace
model=$builddir/test_sim_model
valgrind=${VALGRIND:-$(command -v valgrind || true)}

if [ -z "$valgrind" ] || ! command -v "$valgrind" >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
for p in "$trace" "$model"; do
	if [ ! -x "$p" ]; then
		echo "Bail out! $p is not built"
		exit 1
	fi
done

if ! "$trace" 1 1 8 0 >/dev/null; then
	echo "Bail out! $trace does not run"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/amp-cg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$valgrind" --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$tmp/probe.out" \
	"$trace" 1 1 8 0 >/dev/null 2>"$tmp/probe.err"; then
	echo "1..0 # SKIP valgrind cannot run cachegrind here: $(grep -v '^==' "$tmp/probe.err" | head -n 1)"
	exit 0
fi

# D1:LL:REGION:STOREPCT, geometries SIZE,ASSOC,LINE with power-of-two
# set counts; regions around and beyond LL so that both levels miss.
configs="
32768,8,64:262144,8,64:524288:30
16384,4,32:1048576,16,64:2097152:50
8192,2,64:131072,4,64:262144:20
4096,1,64:65536,2,128:131072:40
65536,16,64:8388608,16,64:4194304:30
"
seeds="1 2"
count=200000

# Data accesses, D1 and LL data misses of the traced lines of cg_trace.c,
# and data accesses of its other lines and of cg_lcg.h (a few from
# main(); many would mean the loop uses the stack: built with -O0?).
# Columns by the events: header; a missing trailing count is 0.
cg_counts() {
	awk -v la="$2" -v lb="$3" '
	/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i; next }
	/^f[lie]=/ {
		s = substr($0, 4)
		# Name compression "(N) name", later "(N)" alone.
		if (match(s, /^\([0-9]+\)/)) {
			id = substr(s, 1, RLENGTH)
			rest = substr(s, RLENGTH + 1)
			sub(/^ +/, "", rest)
			if (rest != "")
				name[id] = rest
			s = name[id]
		}
		here = s ~ /(^|\/)cg_trace\.c$/ ? 1 : s ~ /(^|\/)cg_lcg\.h$/ ? 2 : 0
		next
	}
	here == 1 && ($1 == la || $1 == lb) {
		acc += $(col["Dr"]) + $(col["Dw"])
		d1 += $(col["D1mr"]) + $(col["D1mw"])
		ll += $(col["DLmr"]) + $(col["DLmw"])
		next
	}
	here && $1 ~ /^[0-9]+$/ { other += $(col["Dr"]) + $(col["Dw"]) }
	END { printf "%d %d %d %d\n", acc, d1, ll, other }' "$1"
}

n=0
failed=0
total=0
for c in $configs; do
	for seed in $seeds; do
		total=$((total + 1))
	done
done
echo "1..$total"
for c in $configs; do
	old_ifs=$IFS
	IFS=:
	set -- $c
	IFS=$old_ifs
	d1=$1 ll=$2 region=$3 pct=$4
	for seed in $seeds; do
		n=$((n + 1))
		what="D1 $d1 LL $ll region $region stores $pct% seed $seed"
		if ! out=$("$valgrind" --tool=cachegrind --cache-sim=yes --I1=32768,8,64 \
			--D1="$d1" --LL="$ll" --cachegrind-out-file="$tmp/cg.out" \
			"$trace" "$seed" "$count" "$region" "$pct" 2>"$tmp/vg.err" </dev/null); then
			echo "not ok $n - $what: cachegrind failed"
			sed 's/^/#   /' "$tmp/vg.err" | tail -n 5
			failed=$((failed + 1))
			continue
		fi
		# base B warm W load_line N store_line M accesses A sink S
		set -- $out
		base=${2:-} warm=${4:-} lload=${6:-} lstore=${8:-} accesses=${10:-}
		set -- $(cg_counts "$tmp/cg.out" "$lload" "$lstore")
		cg_acc=$1 cg_d1=$2 cg_ll=$3 cg_other=$4
		if [ "$cg_acc" != "$accesses" ]; then
			echo "not ok $n - $what: cachegrind saw $cg_acc accesses on lines $lload/$lstore, want $accesses"
			failed=$((failed + 1))
			continue
		fi
		if [ "$cg_other" -gt 1000 ]; then
			echo "not ok $n - $what: cg_trace touched memory $cg_other times outside the traced lines (its loop needs an optimized build)"
			failed=$((failed + 1))
			continue
		fi
		set -- $("$model" --replay "$base" "$warm" "$seed" "$count" "$region" "$pct" "$d1" "$ll" </dev/null)
		m_d1=${2:-?} m_ll=${4:-?}
		if [ "$m_d1" = "$cg_d1" ] && [ "$m_ll" = "$cg_ll" ]; then
			echo "ok $n - $what: D1 misses $m_d1 = $cg_d1, LL misses $m_ll = $cg_ll"
		else
			echo "not ok $n - $what: model D1 $m_d1 LL $m_ll, cachegrind D1 $cg_d1 LL $cg_ll"
			failed=$((failed + 1))
		fi
	done
done
[ "$failed" -eq 0 ]
