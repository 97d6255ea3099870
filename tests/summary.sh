#!/bin/sh
# summary.sh BUILDDIR - totals of the TAP results of the last `make check`,
# closing with one plain line: "N passed, N failed, N skipped".
dir=${1:-.}
pass=0 fail=0 skip=0
for trs in $(find "$dir/tests" -name '*.trs' 2>/dev/null); do
	while IFS= read -r line; do
		case "$line" in
		":test-result: PASS"*|":test-result: XFAIL"*) pass=$((pass + 1)) ;;
		":test-result: FAIL"*|":test-result: XPASS"*|":test-result: ERROR"*) fail=$((fail + 1)) ;;
		":test-result: SKIP"*) skip=$((skip + 1)) ;;
		esac
	done <"$trs"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
