# setup.sh - sourced by every shell test (jq's tests/setup style): finds
# the binary, and gives TAP helpers.
AMP=${AMP:-$(cd "$(dirname "$0")/.." && pwd)/src/amp}
AMP_TEST_SRCDIR=${AMP_TEST_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}
TOP_SRCDIR=$(cd "$AMP_TEST_SRCDIR/.." && pwd)
tap_n=0
tap_failed=0
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/amp-test.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

ok() {   # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

diag() { printf '# %s\n' "$@"; }

# run ARGS...: runs amp, leaving stdout in $out, stderr in $err, status in $rc.
run() {
	"$AMP" "$@" >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	out=$(cat "$TMPD/out")
	err=$(cat "$TMPD/err")
}

# expect_status WANT DESCRIPTION
expect_status() {
	[ "$rc" -eq "$1" ]
	ok $? "$2 (exit $rc, want $1)"
	[ "$rc" -eq "$1" ] || diag "stderr: $err"
}

has() {  # has TEXT NEEDLE DESCRIPTION
	case "$1" in *"$2"*) ok 0 "$3" ;; *) ok 1 "$3"; diag "missing: $2" ;; esac
}

one_line() {  # one_line TEXT DESCRIPTION
	[ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ] && [ -n "$1" ]
	ok $? "$2"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
