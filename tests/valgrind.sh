#!/bin/sh
# valgrind.sh - memcheck finds no error and no leak on a simulated run
# and on a short real run (skipped without valgrind, and in sanitizer
# builds, which valgrind cannot run).
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"
VG=${VALGRIND:-valgrind}
if ! command -v "$VG" >/dev/null 2>&1; then
	ok 0 "# SKIP valgrind is not installed"
elif ldd "$AMP" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	ok 0 "# SKIP a sanitizer build (the sanitizers check it instead)"
else
	for args in "--sim=pii-233 --counters --votes=2 --reps=2" \
		    "--level=L1d --votes=1 --reps=1 --max-size=1M --json"; do
		# shellcheck disable=SC2086
		"$VG" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			"$AMP" $args >"$TMPD/out" 2>"$TMPD/err"
		rc=$?
		[ "$rc" -le 1 ]
		ok $? "memcheck: amp $args (exit $rc)"
		[ "$rc" -le 1 ] || sed 's/^/# /' "$TMPD/err" | head -30
	done
fi
done_testing
