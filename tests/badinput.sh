#!/bin/sh
# badinput.sh - every option that takes a value, given an empty, a
# malformed and an out-of-range one; every option that takes none, given
# one.  Each must be refused with one line on stderr, status 2 and
# nothing on stdout.  An option --help lists without a row here fails the
# test: a new option brings its bad values with it.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"

# bad_values NAME: malformed and out-of-range values, one per line; a
# path amp cannot write is a missing resource (status 3), listed by
# unwritable NAME.
unwritable() {
	case $1 in
	output) printf '%s\n' '/nonexistent/dir/base' '/proc/amp-base' ;;
	curves) printf '%s\n' '/nonexistent/dir' '/proc/amp-curves' ;;
	*) return 1 ;;
	esac
}

bad_values() {
	case $1 in
	format) printf '%s\n' 'xml' 'json,' 'JSON' 'text,,json' ',' ;;
	output|curves) printf '%s\n' ;;
	backend) printf '%s\n' 'perfx' 'PERF' 'sim,perf' ;;
	sim) printf '%s\n' 'nosuch' 'L1d:size=0' 'L1d:size=16K,assoc=0' 'L1d:size=16K,line=48' 'L1d;;' ;;
	sim-noise|sim-sibling) printf '%s\n' 'x' '-0.1' '1' '1.5' 'nan' 'inf' '0.5x' ;;
	seed) printf '%s\n' 'x' '-1' '18446744073709551616' '1.5' ' 1' ;;
	sim-pages) printf '%s\n' 'huge' 'Random' ;;
	level) printf '%s\n' 'L0' 'L5' 'L1x' 'TLB' 'l1d ' ;;
	votes) printf '%s\n' '0' '65' '-1' 'x' '8x' ;;
	reps) printf '%s\n' '0' '1000001' '-3' 'x' '1e3' ;;
	max-size) printf '%s\n' '1K' '2T' 'x' '-4K' '64Q' '1e6' ;;
	max-memory) printf '%s\n' '1M' '2T' 'x' '-64M' '512Q' ;;
	*) return 1 ;;
	esac
}

refused() {  # refused DESCRIPTION [STATUS]: status 2, one line, nothing on stdout
	expect_status "${2:-2}" "$1"
	one_line "$err" "$1: one line on stderr"
	[ -z "$out" ]
	ok $? "$1: nothing on stdout"
}

"$AMP" --help | sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}--\([a-z-]*\)\(=[A-Z]*\)\{0,1\} .*/\2 \3/p' >"$TMPD/opts"
[ -s "$TMPD/opts" ]
ok $? "--help lists the options"
while read -r name arg; do
	if [ -n "$arg" ]; then
		run "--$name="
		refused "--$name= (empty)"
		if bad_values "$name" >"$TMPD/bad"; then
			while IFS= read -r v; do
				[ -n "$v" ] || continue
				run "--$name=$v"
				refused "--$name='$v'"
			done <"$TMPD/bad"
			if unwritable "$name" >"$TMPD/bad"; then
				while IFS= read -r v; do
					run --sim=p5-133 --level=L1d --counters "--$name=$v"
					refused "--$name='$v' (cannot write there)" 3
				done <"$TMPD/bad"
			fi
		else
			ok 1 "--$name has bad values in badinput.sh"
		fi
	else
		run "--$name=1"
		refused "--$name=1 (takes no value)"
	fi
done <"$TMPD/opts"

done_testing
