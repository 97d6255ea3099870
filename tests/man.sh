#!/bin/sh
# man.sh - the man page is the reference: every option in --help, every
# preset, every exit status and environment knob must be in it.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"
MAN="$TOP_SRCDIR/man/amp.1"

[ -r "$MAN" ]
ok $? "man/amp.1 exists"
# In roff source a dash in an option is written \- ; compare without it.
plain=$(sed 's/\\-/-/g; s/\\(em/-/g' "$MAN")
for opt in $("$AMP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	has "$plain" "$opt" "man page documents $opt"
done
for p in $("$AMP" --list-presets | grep -o '^[a-z0-9][a-z0-9-]*'); do
	has "$plain" "$p" "man page documents preset $p"
done
for s in "EXIT STATUS" "ENVIRONMENT" "AMP_FAKE_PERF_ERRNO" "AMP_NO_EXEC_MAPPINGS" "AMP_SYSFS_ROOT" \
	 "format_version" "inclusion" "counter" "index" "EXAMPLES"; do
	has "$plain" "$s" "man page covers $s"
done
statuses=$(awk '/^\.SH/ { on = ($0 ~ /EXIT STATUS/) } on' "$MAN")
for status in 0 1 2 3; do
	echo "$statuses" | grep -q "^\.B $status\$"
	ok $? "exit status $status is listed"
done
if command -v groff >/dev/null 2>&1; then
	warnings=$(groff -t -man -Tutf8 -ww -z "$MAN" 2>&1)
	[ -z "$warnings" ]
	ok $? "groff renders the page without warnings"
	[ -z "$warnings" ] || diag "$warnings"
fi
done_testing
