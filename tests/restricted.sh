#!/bin/sh
# restricted.sh - amp on restricted machines (issue: reliability).  Each
# case creates the condition for real where it can (seccomp filters from
# tests/seccomp_deny, taskset, ulimit -v, madvise(MADV_NOHUGEPAGE)) and
# asserts the exit status and the reason amp gives.  amp must finish,
# report what it measured, and say why for what it could not.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"
DENY="${AMP_TEST_BUILDDIR:-$(dirname "$0")}/seccomp_deny"
SHORT="--level=L1d --votes=3 --reps=3"

# runw CMD...: like run, for a command line that wraps amp.
runw() {
	"$@" >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	out=$(cat "$TMPD/out")
	err=$(cat "$TMPD/err")
}

# measured_or_inconclusive DESCRIPTION: a real run ends 0 (measured) or 1
# (some vote inconclusive under load), with the report written.
finished() {
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
	ok $? "$1: finishes (exit $rc, want 0 or 1)"
	[ "$rc" -le 1 ] || diag "stderr: $err"
	has "$out" "Wall time:" "$1: the report is written"
}

# 1. No PMU (this machine; elsewhere made so by AMP_FAKE_PERF_ERRNO).
AMP_FAKE_PERF_ERRNO=ENOENT runw "$AMP" --counters
expect_status 3 "no PMU: --counters needs counters"
has "$err" "none are usable here" "no PMU: says no counters are usable"
AMP_FAKE_PERF_ERRNO=ENOENT runw "$AMP" $SHORT
finished "no PMU: the default run"
has "$out" "measured by timing" "no PMU: measures by timing and says so"

# 2-4. perf_event_open refused: paranoid (EACCES), seccomp (EPERM, ENOSYS).
if "$DENY" perf=EPERM -- true 2>/dev/null; then
	for e in EACCES EPERM ENOSYS; do
		runw "$DENY" perf=$e -- "$AMP" --list-backends
		expect_status 0 "perf $e: --list-backends"
		case $e in
		EACCES) want="Permission denied" ;;
		EPERM) want="Operation not permitted" ;;
		ENOSYS) want="not available" ;;
		esac
		has "$(echo "$out" | grep '^perf')" "$want" "perf $e: the perf line gives the reason"
		runw "$DENY" perf=$e -- "$AMP" --counters
		expect_status 3 "perf $e: --counters needs counters"
		has "$err" "$want" "perf $e: --counters says why"
	done
	runw "$DENY" perf=EACCES -- "$AMP" $SHORT
	finished "perf EACCES: the default run"
	has "$out" "measured by timing" "perf EACCES: falls back to timing"
else
	ok 0 "# SKIP seccomp filters cannot be installed here (perf cases)"
fi

# 5. Built without PAPI or libpfm4: the report says so (.ci/run builds
#    such a variant and runs this script in it).
CONFIG_H="${AMP_TEST_BUILDDIR:-$(dirname "$0")}/../config.h"
runw "$AMP" --list-backends
if grep -q '^#define HAVE_PAPI 1' "$CONFIG_H" 2>/dev/null; then
	ok 0 "# SKIP this build has PAPI (.ci/run also checks a build without)"
else
	has "$out" "built without PAPI" "no PAPI: --list-backends says amp was built without it"
fi
runw "$AMP" --list-events
expect_status 0 "--list-events works in this build"
if grep -q '^#define HAVE_LIBPFM 1' "$CONFIG_H" 2>/dev/null; then
	ok 0 "# SKIP this build has libpfm4 (.ci/run also checks a build without)"
else
	AMP_FAKE_PERF_ERRNO=ENOENT runw "$AMP" $SHORT
	finished "no libpfm4: the default run"
fi

# 6. No transparent huge pages (madvise(MADV_NOHUGEPAGE) on every region).
AMP_NO_THP=1 runw "$AMP" $SHORT
finished "no THP"
has "$out" "L1d" "no THP: L1d is characterised"

# 7. Executable mappings forbidden: for real (seccomp, like SELinux
#    execmem) and by AMP_NO_EXEC_MAPPINGS.
if "$DENY" exec=EACCES -- true 2>/dev/null; then
	runw "$DENY" exec=EACCES -- "$AMP" --sim=pii-233 --level=L1i --counters
	expect_status 0 "no exec mappings: the simulated L1i"
	has "$out" "L1i" "no exec mappings: L1i is reported"
	runw "$DENY" exec=EACCES -- "$AMP" $SHORT
	finished "no exec mappings: a real run"
	runw "$DENY" exec=EACCES -- "$AMP" --level=L1i --reps=2 --max-size=64K
	finished "no exec mappings: a real L1i run"
	has "$out" "L1i code: build-time blocks" "no exec mappings: L1i runs the build-time blocks"
	has "$out" "executable mappings are refused" "no exec mappings: and says why"
else
	ok 0 "# SKIP seccomp filters cannot be installed here (exec case)"
fi
AMP_NO_EXEC_MAPPINGS=1 runw "$AMP" --sim=pii-233 --level=L1i --counters
expect_status 0 "AMP_NO_EXEC_MAPPINGS: the simulated L1i"

# 8. One CPU.
if command -v taskset >/dev/null 2>&1; then
	runw taskset -c 0 "$AMP" $SHORT --json
	[ "$rc" -le 1 ]
	ok $? "one CPU: finishes (exit $rc)"
	has "$out" '"pinned_cpu": 0' "one CPU: pinned to CPU 0"
else
	ok 0 "# SKIP no taskset"
fi

# 9. CPU affinity refused.
if "$DENY" affinity=EPERM -- true 2>/dev/null; then
	runw "$DENY" affinity=EPERM -- "$AMP" $SHORT --json
	[ "$rc" -le 1 ]
	ok $? "affinity refused: finishes (exit $rc)"
	has "$out" '"pinned_cpu": null' "affinity refused: pinned_cpu is null"
	has "$out" "sched_setaffinity: Operation not permitted" "affinity refused: with the reason"
else
	ok 0 "# SKIP seccomp filters cannot be installed here (affinity case)"
fi

# 10. A small address space: amp keeps under half of it, and what does
#     not fit is unknown with the reason.
if ldd "$AMP" 2>/dev/null | grep -q 'libasan'; then
	# AddressSanitizer reserves terabytes of shadow address space.
	ok 0 "# SKIP ulimit -v: an AddressSanitizer build cannot run under an address-space limit"
else
	runw sh -c "ulimit -v 80000 && exec \"$AMP\" --votes=3 --reps=3"
	finished "ulimit -v 80000"
	has "$out" "at most half of ulimit -v" "ulimit -v: the memory bound follows the limit"
	has "$out" "memory bound" "ulimit -v: what does not fit says so"
fi

# 11. --max-memory.
runw "$AMP" --votes=3 --reps=3 --max-memory=16M
finished "--max-memory=16M"
has "$out" "Memory bound: 16 MiB (--max-memory)" "--max-memory is reported"
has "$out" "the sweep stops at 8192 KiB" "--max-memory bounds the sweep"
runw "$AMP" --max-memory=1T
expect_status 2 "--max-memory above the machine's memory"
has "$err" "more than this machine has" "--max-memory above the machine: says why"
runw "$AMP" --max-memory=64M --max-size=128M
expect_status 2 "--max-size above --max-memory"

done_testing
