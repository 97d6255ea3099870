#!/bin/sh
# cli.sh - the built binary as a user meets it: options, statuses,
# listings, reports in both formats, bad input.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"

run --help
expect_status 0 "--help"
has "$out" "Usage: amp" "--help prints usage"
run --version
expect_status 0 "--version"
has "$out" "amp 0." "--version prints the version"

# Bad input: one line on stderr, status 2, nothing on stdout.
for args in "--level=L9" "--level=" "--votes=0" "--votes=65" "--votes=x" "--nosuch" "--reps=0" "--reps=abc" "--max-size=1K" "--backend=foo" "--sim=" \
	    "--sim=L9:size=1K" "--sim=L1d:size=16K,assoc=x;L1i:size=16K" "--sim=nosuchpreset" \
	    "--sim-noise=0.5" "--sim=pii-233 --sim-noise=2" "--sim-sibling=0.1" "--backend=sim" "stray" \
	    "--timing --counters" "--cross-check --timing" "--counters --cross-check"; do
	# shellcheck disable=SC2086
	run $args
	expect_status 2 "amp $args is a usage error"
	one_line "$err" "amp $args: one line on stderr"
	[ -z "$out" ]
	ok $? "amp $args: nothing on stdout"
done
run --sim="L1d:size=16K,assoc=x;L1i:size=16K"
has "$err" "L1d" "spec error names the element"
has "$err" "assoc" "spec error names the key"

# Backends.
run --list-backends
expect_status 0 "--list-backends"
for b in perf timer sim; do
	has "$out" "$b " "--list-backends lists $b"
done
has "$out" "papi" "--list-backends lists papi (usable, unusable or absent)"
echo "$out" | grep -q '^timer  *usable'
ok $? "timer is usable"
echo "$out" | grep -q '^sim  *usable'
ok $? "sim is usable"
perf_line=$(echo "$out" | grep '^perf ')
diag "$perf_line"
case "$perf_line" in
*" usable "*) ok 0 "perf is usable here (a PMU)" ;;
*unusable*perf_event_open*|*unusable*paranoid*|*unusable*seccomp*) ok 0 "perf is unusable with a reason" ;;
*) ok 1 "perf line has a state and a reason" ;;
esac
AMP_FAKE_PERF_ERRNO=EACCES run --list-backends
has "$out" "perf_event_paranoid" "EACCES names perf_event_paranoid"
AMP_FAKE_PERF_ERRNO=ENOENT run --list-backends
has "$out" "no hardware PMU" "ENOENT says there is no PMU"
AMP_FAKE_PERF_ERRNO=ENOSYS run --list-backends
has "$out" "seccomp" "ENOSYS mentions seccomp"
AMP_FAKE_PERF_ERRNO=ENOENT run --backend=perf --max-size=64K
expect_status 3 "--backend=perf without a PMU"
has "$err" "no hardware PMU" "and says why"
one_line "$err" "in one line"

# Events.
run --list-events
expect_status 0 "--list-events"
for e in L1D_MISS L1I_MISS L2D_MISS L2I_MISS L2_MISS L3_MISS DTLB_MISS STLB_MISS ITLB_MISS ITLB_WALK LOADS STORES CYCLES; do
	has "$out" "$e" "--list-events shows $e"
done
run --list-events --sim="pii-233"
expect_status 0 "--list-events on a preset"
echo "$out" | sed -n '/^sim/,$p' | grep -q 'DTLB_MISS *absent.*N/C'
ok $? "pii-233's DTLB has no counter (N/C), as in the AMP table"

# Inconclusive is exit status 1, with too few votes as with split ones:
# one eviction-set search that ended (reading 56 ways) among two that
# failed, at 3 votes.
run --sim="L1d:size=3072,assoc=6,line=16,policy=random;L1i:size=3072,assoc=6,line=16,policy=random;L2:size=24576,assoc=24,line=16,inclusion=exclusive;L3:size=524288,assoc=32,line=16,policy=fifo,write=noallocate,inclusion=exclusive;DTLB:entries=8,assoc=8" \
	--sim-pages=random --counters --seed=2 --reps=3 --votes=3
expect_status 1 "an associativity left at too few votes"
has "$out" "too few votes: 1 of 3" "the report says why"

# Presets.
run --list-presets
expect_status 0 "--list-presets"
for p in p5-133 ppro-200 pii-233 usparc-1 r10k-225 itanium2 opteron240 athlonmp pentium4 power3; do
	has "$out" "$p" "preset $p is listed"
done

# A simulated run, text and JSON.
run --sim=pii-233 --max-size=1M
expect_status 0 "a run on pii-233"
has "$out" "simulated" "the report says the machine is simulated"
has "$out" "Backend:  sim" "and which backend measured it"
has "$out" "512 KiB" "the spec's L2 is in the reported column"
run --sim=pii-233 --max-size=1M --json
expect_status 0 "--json on pii-233"
has "$out" '"format_version": 1' "JSON carries format_version"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["backend"]["name"]=="sim"; assert d["latency"]["points"][0]["ns"] is None; assert d["latency"]["points"][0]["ns_reason"]'
	ok $? "JSON parses; unknown values are null with a reason"
else
	ok 0 "# SKIP python3 not installed"
fi

# Counter-driven characterisation.
run --list-backends
if echo "$out" | grep -Eq '^(perf|papi) +usable'; then
	ok 0 "# SKIP this machine has usable counters: --counters would run"
else
	run --counters
	expect_status 3 "--counters without usable counters"
	has "$err" "needs miss counters" "and says so"
	one_line "$err" "in one line"
	run --level=L2 --counters
	expect_status 3 "--level=L2 --counters without usable counters"
	run --cross-check
	expect_status 3 "--cross-check without usable counters"
	has "$err" "needs miss counters" "and says so"
	# The timing path on the real machine: said so, L1d reported.  A
	# loaded machine (or a sanitizer build) may split the votes: then
	# the status is 1 and the row shows "~" or "?" with the reason.
	run --level=L1d --reps=3 --votes=3
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
	ok $? "--level=L1d by timing: measured or inconclusive (exit $rc)"
	has "$out" "Caches measured by timing" "the report says it measured by timing"
	# A size in any unit (a slow spell can put the step elsewhere);
	# the row itself must be there and well formed.
	sz='(~?[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB)|\?)'
	echo "$out" | grep -Eq "^  L1d +$sz +$sz "
	st=$?
	ok $st "L1d has a row with its line and size, or ? with a reason"
	[ "$st" -eq 0 ] || diag "$(echo "$out" | grep -A2 '^  level')"
	# The other CPUs' load (load.c): a busy loop on CPU 0 shows while
	# amp runs on CPU 1.
	if command -v taskset >/dev/null 2>&1 && taskset -c 0,1 true 2>/dev/null && command -v python3 >/dev/null 2>&1; then
		taskset -c 0 sh -c 'while :; do :; done' &
		spin=$!
		out=$(taskset -c 1 "$AMP" --level=L1d --reps=3 --votes=3 --json 2>/dev/null)
		kill "$spin"
		printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
o = d["other_cpus"]
assert d["pinned_cpu"] == 1, d["pinned_cpu"]
assert o["cpus"] >= 1 and o["busiest_busy"] >= 0.5 and 0 <= o["busy"] <= 1, o
'
		ok $? "a CPU kept busy shows in other_cpus"
	else
		ok 0 "# SKIP needs taskset, python3 and two CPUs"
	fi
fi

# The timing path on simulated machines: known answers.
# -v: each phase, then the steps within the timing phase that took
# 0.1 s or more (here the L2 eviction sets, the slowest by far on the
# simulated machine), longest first, and one line for the rest; the
# same run's JSON on stdout.
run --sim=ppro-200 --timing --json --votes=3 --reps=2 -v
expect_status 0 "--sim=ppro-200 --timing --json -v"
has "$err" "amp: timing " "-v prints the timing phase"
echo "$err" | grep -Eq '^amp:  L2 +evset +[0-9]+\.[0-9]{2} s$'
ok $? "-v lists the L2 eviction sets as a step of their own"
echo "$err" | grep -Eq '^amp:  [0-9]+ more under 0\.10 s: [0-9]+\.[0-9]{2} s in all$'
ok $? "-v sums the short steps in one line"
echo "$err" | awk '/^amp:  [A-Z]/ { if (seen && $(NF - 1) + 0 > last + 0.005) bad = 1; last = $(NF - 1); seen = 1 } END { exit bad }'
ok $? "-v lists the steps longest first"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["characterisation"]["method"] == "timing"
c = {x["name"]: x for x in d["caches"]}
assert (c["L1d"]["line_size"], c["L1d"]["size"], c["L1d"]["associativity"]) == (32, 8192, 2)
assert (c["L2"]["line_size"], c["L2"]["size"], c["L2"]["associativity"]) == (32, 262144, 4)
assert c["L1d"]["method"] == "timing" and c["L1d"]["latency_ticks"] == 4
# L2 inclusion by timing needs words enough in L1d lines to keep one
# there: 32 B lines under a 2-way L1d have too few.  Its eviction sets
# without pushers (too small for an exclusive pair, which holds the
# ways of L2 and of L1d) rule exclusion out, so its write allocation
# is measured all the same.
assert c["L2"]["inclusion"] is None and "too few words" in c["L2"]["parameters"]["inclusion"]["reason"]
assert c["L2"]["write_allocate"] is True and c["L2"]["parameters"]["write_allocate"]["accesses"] > 0
# L1d replacement by timing (the simulated L1d is lru).
assert c["L1d"]["replacement"] == "lru" and c["L1d"]["parameters"]["replacement"]["accesses"] > 0
assert "nothing above" in c["L1d"]["parameters"]["inclusion"]["reason"]
assert [s["what"] for s in d["latency"]["steps"]] == ["cache", "cache", "memory"]
assert d["memory_latency_ticks"] > 100 and d["phases"][0]["name"] == "calibration"
'
	ok $? "timing JSON: ppro-200 L1d and L2 exact, steps, memory latency, phases"
else
	ok 0 "# SKIP python3 not installed"
fi
# A busy SMT sibling (it fills a line of L1d and L2 at 1 in 10 of our
# accesses) shrinks L1d's effective size, not its geometry by timing;
# its replacement is right or unknown, never wrong (JSON says "unknown").
for pol in lru fifo random; do
	run --sim="zen5-like;L1d:policy=$pol" --timing --level=L1d --sim-sibling=0.1 --json
	expect_status 0 "--sim=zen5-like (L1d $pol) --sim-sibling=0.1"
	if command -v python3 >/dev/null 2>&1; then
		printf '%s' "$out" | POL=$pol python3 -c '
import json, os, sys
d = json.load(sys.stdin)
c = {x["name"]: x for x in d["caches"]}["L1d"]
assert (c["line_size"], c["size"], c["associativity"]) == (64, 49152, 12), c
assert c["effective_size"] < 45056, c["effective_size"]
assert c["replacement"] in (os.environ["POL"], "unknown"), c["replacement"]
'
		ok $? "busy sibling, L1d $pol: 64 B, 48 KiB, 12 ways; effective size below the quiet 44 KiB"
	else
		ok 0 "# SKIP python3 not installed"
	fi
done
run --sim=ppro-200 --cross-check --votes=3 --reps=2 -v
expect_status 0 "--sim=ppro-200 --cross-check"
has "$out" "Cross-check, counters against timing" "cross-check section"
has "$out" ", 0 disagree" "counters and timing agree on ppro-200"
has "$err" "amp: timing" "-v prints the timing phase"
run --sim=pii-233 --counters --json --max-size=64K
expect_status 0 "--sim=pii-233 --counters --json"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = {x["name"]: x for x in d["caches"]}
t = {x["name"]: x for x in d["tlbs"]}
assert (c["L1d"]["line_size"], c["L1d"]["size"], c["L1d"]["associativity"]) == (32, 16384, 4)
assert (c["L2"]["line_size"], c["L2"]["size"], c["L2"]["associativity"]) == (32, 524288, 4)
assert c["L2"]["type"] == "unified" and c["L2"]["inclusion"] == "nine"
assert c["L1d"]["replacement"] == "lru" and c["L1d"]["write_allocate"] is True
assert t["DTLB"]["method"] is None and "N/C" in t["DTLB"]["reason"]
assert (t["ITLB"]["page_size"], t["ITLB"]["entries"], t["ITLB"]["associativity"]) == (4096, 32, 4)
assert c["L1d"]["parameters"]["line_size"]["votes"] == [32] * 8
'
	ok $? "JSON caches and tlbs match pii-233 (AMP Table 1), DTLB N/C with a reason"
else
	ok 0 "# SKIP python3 not installed"
fi
run --sim=pii-233 --level=L2 --counters
expect_status 0 "--sim=pii-233 --level=L2 --counters"
# (the measured tables only: the vendor comparison lists every reported level)
measured=$(echo "$out" | sed '/^Measured against reported/,$d')
echo "$measured" | grep -q '^  L2 ' && echo "$measured" | grep -q '^  L1d ' && ! echo "$measured" | grep -q '^  L1i '
ok $? "--level=L2 measures L2 and L1d above it, not L1i"
! echo "$out" | grep -q "Measured load latency"
ok $? "--level skips the latency sweep"

# The real machine, briefly, with a fake sysfs.
mkdir -p "$TMPD/sys/index0"
printf '1\n' >"$TMPD/sys/index0/level"; printf 'Data\n' >"$TMPD/sys/index0/type"
printf '48K\n' >"$TMPD/sys/index0/size"; printf '64\n' >"$TMPD/sys/index0/coherency_line_size"
printf '12\n' >"$TMPD/sys/index0/ways_of_associativity"; printf '64\n' >"$TMPD/sys/index0/number_of_sets"
AMP_SYSFS_ROOT="$TMPD/sys" run --max-size=64K --reps=2
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "a short real run: measured, or inconclusive on a loaded machine (exit $rc)"
has "$out" "48 KiB" "the sysfs value is in the reported column"
has "$out" "Measured load latency" "and a measured latency"
AMP_SYSFS_ROOT="$TMPD/none" run --level=L1d --max-size=64K --reps=2 --json
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "a real L1d run without sysfs caches (exit $rc)"
has "$out" '"missing_reason"' "says why nothing is reported"

# --cpu: a simulated machine has no cores to time (status 0, each value
# unknown with the reason, no crash); a real run gives the cpu object's
# structure.
run --sim=pii-233 --max-size=64K --cpu
expect_status 0 "--cpu on a simulated machine"
has "$err" "needs a real machine" "--cpu on --sim says it needs a real machine"
one_line "$err" "in one line"
has "$out" "unknown: a simulated machine has no cores to time" "the CPU section gives the reason"
has "$out" "CPU: not measured (a simulated machine has no cores to time" "--cpu --sim text: the CPU section says why not"
run --sim=pii-233 --max-size=64K --cpu --json
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c 'import json,sys; c=json.load(sys.stdin)["cpu"]; assert c["reason"] and c["frequency_mhz"] is None and c["fma"] is None; assert len(c["instructions"]) == 16; assert c["registers"] == {"int": None, "double": None, "vector": None}'
	ok $? "--cpu --json on --sim: cpu values null with a reason"
else
	ok 0 "# SKIP python3 not installed"
fi
expect_status 0 "--cpu --sim=pii-233: the memory run's status"
has "$out" '"cpu": {' "--cpu --sim: a cpu object"
has "$out" '"scheduler_slot_ms": null, "scheduler_slot_ms_reason": "a simulated machine has no cores to time' "--cpu --sim: each value unknown with the reason"
run --sim=pii-233 --max-size=64K --json
printf '%s' "$out" | grep -q '"cpu": null'
ok $? "without --cpu the cpu object is null"
has "$out" '"cpu": null, "cpu_reason": "not asked for (--cpu)"' "without --cpu: cpu null with a reason"
# One short real run (L1d, then the CPU benchmarks) for the rest.
run --level=L1d --max-size=64K --reps=2 --cpu --json -v
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "--cpu --json on this machine: measured or inconclusive (exit $rc)"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cpu"]
assert c["reason"] is None
assert isinstance(c["frequency_mhz"], float)
rows = {(i["op"], i["type"]) for i in c["instructions"]}
assert rows == {(o, t) for o in ("add", "sub", "mul", "div") for t in ("int32", "int64", "float", "double")}
for i in c["instructions"]:
    assert set(i) == {"op", "type", "latency_cycles", "throughput", "in_flight"}
assert c["fma"] in (True, False, None)
assert set(c["registers"]) == {"int", "double", "vector"}
assert [b["name"] for b in c["benchmarks"]] == ["frequency", "instructions", "fma", "registers"]
'
	ok $? "--cpu --json: the cpu object has its fields"
else
	ok 0 "# SKIP python3 not installed"
fi
has "$err" "cpu bandwidth" "-v: the CPU benchmarks' wall times"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["cpu"]
assert c["reason"] is None and len(c["cpus"]) >= 1
for k in ("integer", "float", "memory"):
    v = c["execution_contexts"][k]
    assert (isinstance(v, (int, float)) and v >= 1) or c["execution_contexts"][k + "_reason"]
    assert c["execution_contexts"]["normalised_time"][k][0] == 1
assert isinstance(c["smt_pairs"], list) or c["smt_pairs_reason"]
assert c["scheduler_slot_ms"] is None or c["scheduler_slot_ms"] > 0
assert c["scheduler_run_ms"] is None or c["scheduler_run_ms"] > 0
def walk(n, cpus):
    assert set(n["cpus"]) <= set(cpus)
    for ch in n["children"]:
        walk(ch, n["cpus"])
if c["locality"] is not None:
    walk(c["locality"]["tree"], c["cpus"])
    assert sorted(c["locality"]["tree"]["cpus"]) == sorted(c["cpus"])
else:
    assert c["locality_reason"]
b = c["bandwidth"]
assert b["unit"] == "GB/s" and len(b["points"]) >= 2
for p in b["points"]:
    for w in ("one_core", "all_cores"):
        for op in ("read", "write", "copy"):
            assert p[w][op] is None or p[w][op] > 0
assert [p["name"] for p in d["phases"]][-5:] == ["cpu contexts", "cpu smt pairs", "cpu time slot", "cpu locality", "cpu bandwidth"]
'
	ok $? "--cpu JSON: contexts, SMT pairs, slot, locality tree over the CPUs used, bandwidth points, phases"
else
	ok 0 "# SKIP python3 not installed"
fi
# Executable mappings refused: the build-time blocks run instead, and
# the report says which code was used and why the rest is unknown.
AMP_NO_EXEC_MAPPINGS=1 run --level=L1i --max-size=64K --reps=2
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "a real L1i run with executable mappings refused (exit $rc)"
has "$out" "L1i code: build-time blocks" "L1i says it ran the build-time blocks"
has "$out" "executable mappings are refused" "with the reason"
AMP_NO_EXEC_MAPPINGS=1 run --level=L1i --max-size=64K --reps=2 --json
has "$out" '"code": "build-time blocks' "the JSON names the code used"
run --sim=pii-233 --timing --level=L1i
expect_status 0 "the instruction side by timing on pii-233"
has "$out" "L1i        32 B     16 KiB" "L1i line and size by timing"

done_testing
