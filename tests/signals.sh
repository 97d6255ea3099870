#!/bin/sh
# signals.sh - Ctrl-C and SIGTERM stop amp within a second, with status
# 130 or 143, the reason on stderr, and nothing left behind.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"

# stop_after SIGNAL WANT: starts a long real run, signals it after 0.5 s.
stop_after() {
	mkdir -p "$TMPD/cwd"
	# A shell starts background commands with SIGINT ignored, nohup
	# ignores SIGHUP (and amp, like any program, leaves an ignored signal
	# ignored): python3 restores the defaults first, as a terminal's
	# foreground job has them.
	( cd "$TMPD/cwd" && exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$AMP" --votes=32 --reps=32 ) >"$TMPD/out" 2>"$TMPD/err" &
	pid=$!
	# Signal amp itself, once it catches signals (SIGINT's bit, 0x2,
	# in SigCgt in /proc: amp installs its handlers together), then
	# 0.5 s into its run: under load python3 may not even have exec'd
	# amp after a fixed delay, and a signal then would go to python3
	# (or be ignored) instead.
	i=0
	while [ $i -lt 200 ]; do
		mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
		low=$(printf '%s' "$mask" | tail -c 8)
		[ -n "$low" ] && [ $(( 0x$low & 2 )) -ne 0 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	kill -"$1" "$pid"
	t0=$(date +%s%N)
	wait "$pid"
	rc=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	[ "$rc" -eq "$2" ]
	ok $? "SIG$1: exit $rc, want $2"
	[ "$ms" -lt 1000 ]
	ok $? "SIG$1: stopped $ms ms after the signal (under 1 s)"
	has "$(cat "$TMPD/err")" "amp: " "SIG$1: says why on stderr"
	[ -z "$(ls -A "$TMPD/cwd")" ]
	ok $? "SIG$1: no file left behind"
}
stop_after INT 130
stop_after TERM 143
stop_after HUP 129

done_testing
