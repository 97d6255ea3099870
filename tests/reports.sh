#!/bin/sh
# reports.sh - the reports as people and programs use them: each format
# (JSON parsed, the header compiled, CSV's shape), --output, the table of
# measured against reported on two saved machines, --curves (SVG parsed as
# XML), the progress line's absence off a terminal, --explain, --cache.
# Every measurement here is of a simulated machine: known answers.
. "${AMP_TEST_SRCDIR:-$(dirname "$0")}/setup.sh"
FX="$AMP_TEST_SRCDIR/fixtures"
SIM="--sim=p5-133 --level=L1d --votes=3"
PY=$(command -v python3 || true)

# JSON, parsed.
# shellcheck disable=SC2086
run $SIM --format=json
expect_status 0 "--format=json"
if [ -n "$PY" ]; then
	echo "$out" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d["format_version"] == 1
l1 = [c for c in d["caches"] if c["name"] == "L1d"][0]
assert (l1["size"], l1["line_size"], l1["associativity"]) == (8192, 32, 2), l1
rows = {(r["level"], r["parameter"]): r for r in d["comparison"]["rows"]}
assert rows[("L1d", "size")]["verdict"] == "agree"
assert rows[("L1d", "size")]["reported"] == 8192
# Every parameter says how many measurements failed (cast no vote); a
# noiseless simulated L1d fails none.
p = l1["parameters"]["associativity"]
assert p["failed"] == 0 and "first_failure" not in p and p["votes"] == [2] * 3, p
'
	ok $? "JSON parses; L1d 8K/32B/2-way, no failed measurement, and its comparison row"
else
	ok 0 "# SKIP python3 absent: JSON not parsed"
fi
# --json stays an alias.
# shellcheck disable=SC2086
run $SIM --json
has "$out" '"format_version": 1' "--json is --format=json"

# CSV: a header of eight columns, every row eight fields.
# shellcheck disable=SC2086
run $SIM --format=csv
expect_status 0 "--format=csv"
first=$(echo "$out" | head -n 1)
[ "$first" = "section,level,parameter,value,unit,method,confidence,note" ]
ok $? "CSV header"
echo "$out" | grep -q '^cache,L1d,associativity,2,ways,counters,1,'
ok $? "CSV row: L1d associativity 2"
if [ -n "$PY" ]; then
	echo "$out" | "$PY" -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert len(rows) > 5 and all(len(r) == 8 for r in rows), [r for r in rows if len(r) != 8]
'
	ok $? "CSV: every row has eight fields"
fi

# Header: compiles, and its values are the measured ones.
# shellcheck disable=SC2086
run $SIM --format=header
expect_status 0 "--format=header"
has "$out" "#define AMP_L1D_SIZE                     8192" "header defines AMP_L1D_SIZE 8192"
has "$out" "/* AMP_MEMORY_LATENCY" "an unknown value is a comment"
printf '%s\n' "$out" >"$TMPD/amp.h"
cat >"$TMPD/use.c" <<'EOC'
#include "amp.h"
#include "amp.h"
_Static_assert(AMP_L1D_SIZE == 8192, "L1d size");
_Static_assert(AMP_L1D_LINE_SIZE == 32, "L1d line");
_Static_assert(AMP_L1D_ASSOCIATIVITY == 2, "L1d ways");
int main(void) { return AMP_L1D_SIZE / AMP_L1D_LINE_SIZE == 256 ? 0 : 1; }
EOC
${CC:-cc} -std=c11 -Wall -Werror -I"$TMPD" -o "$TMPD/use" "$TMPD/use.c" && "$TMPD/use"
ok $? "the header compiles with \$CC (included twice) and its values hold"

# Several formats: one file each with --output; refused without it.
# shellcheck disable=SC2086
run $SIM --format=text,json,csv,header --output="$TMPD/all"
expect_status 0 "--format=text,json,csv,header --output"
[ -s "$TMPD/all.txt" ] && [ -s "$TMPD/all.json" ] && [ -s "$TMPD/all.csv" ] && [ -s "$TMPD/all.h" ] && [ -z "$out" ]
ok $? "one file per format, nothing on stdout"
run --format=json,csv
expect_status 2 "several formats without --output"
one_line "$err" "in one line"
for bad in "--format=xml" "--format=json," "--format=" "--refresh" "--compare --format=json"; do
	# shellcheck disable=SC2086
	run $bad
	expect_status 2 "amp $bad is a usage error"
	one_line "$err" "amp $bad: one line"
done

# Measured against reported on two saved machines: the reported and
# CPUID columns come from the fixtures, the measured one from a
# simulated machine with the same L1d.
for m in zen5-guest intel-emr-guest; do
	AMP_SYSFS_ROOT="$FX/$m/cache" AMP_CPUID_DUMP="$FX/$m/cpuid.txt" run --sim=zen5-like --level=L1d --votes=3 --compare
	expect_status 0 "--compare on $m"
	has "$out" "Measured against reported" "$m: the table"
	echo "$out" | grep -q '^  L1d   size         48 KiB     48 KiB          -          -     48 KiB  counters *agree$'
	ok $? "$m: L1d 48 KiB reported, in CPUID and measured: agree"
	echo "$out" | grep -q '^  L1d   ways             12         12          -          -         12'
	ok $? "$m: L1d 12 ways in all three columns"
	echo "$out" | grep -q '^  L1i   size         32 KiB     32 KiB          -          -          -  -  *not measured$'
	ok $? "$m: L1i reported, not measured (not asked for)"
	case "$out" in *"Caches as reported"*) ok 1 "$m: --compare prints only the table" ;; *) ok 0 "$m: --compare prints only the table" ;; esac
done
AMP_SYSFS_ROOT="$FX/intel-emr-guest/cache" AMP_CPUID_DUMP="$FX/intel-emr-guest/cpuid.txt" run --sim=zen5-like --level=L1d --votes=3 --compare
echo "$out" | grep -q '^  L3    size        260 MiB    260 MiB'
ok $? "intel-emr-guest: L3 260 MiB from sysfs and leaf 4"
has "$out" "GenuineIntel family 0x6 model 0xcf" "intel-emr-guest: CPU identified from the dump"
has "$out" "leaf 0x18 (TLBs) is empty" "intel-emr-guest: the hidden TLB leaf is noted"
AMP_SYSFS_ROOT="$FX/zen5-guest/cache" AMP_CPUID_DUMP="$FX/zen5-guest/cpuid.txt" run --sim=zen5-like --level=L1d --votes=3 --compare
echo "$out" | grep -q '^  L2    size          1 MiB      1 MiB'
ok $? "zen5-guest: L2 1 MiB from sysfs and 0x8000001D"
echo "$out" | grep -q '^  DTLB  entries           -         96'
ok $? "zen5-guest: DTLB 96 entries from 0x80000005"
# The libraries' views: never read for a simulated machine, hwloc's
# from a saved topology of this machine (AMP_HWLOC_XML).
has "$out" "  papi: not " "papi's view: not built, or not read on a simulated machine"
AMP_HWLOC_XML="$FX/zen5-guest/hwloc.xml" run --sim=zen5-like --level=L1d --votes=3 --compare
if echo "$out" | grep -q '  hwloc: not built'; then
	ok 0 "# SKIP amp built without hwloc: the table says so"
else
	echo "$out" | grep -q '^  L1d   size         48 KiB          -          -     48 KiB     48 KiB  counters *agree$' &&
		echo "$out" | grep -q '^  L1i   ways              8          -          -          8          -' &&
		echo "$out" | grep -q '^  L3    size         32 MiB          -          -     32 MiB'
	ok $? "hwloc's column from the saved zen5-guest topology: L1d 48 KiB, L1i 8 ways, L3 32 MiB"
fi
AMP_HWLOC_XML="$FX/zen5-guest/hwloc.xml" run --sim=zen5-like --level=L1d --votes=3 --format=json
if [ -n "$PY" ]; then
	echo "$out" | "$PY" -c '
import json, sys
c = json.load(sys.stdin)["comparison"]
assert c["papi"] is None and c["papi_reason"], c["papi_reason"]
assert (c["hwloc"] is None) == bool(c["hwloc_reason"])
rows = {(r["level"], r["parameter"]): r for r in c["rows"]}
assert rows[("L1d", "size")]["papi"] is None
assert c["hwloc"] is None or rows[("L1d", "ways")]["hwloc"] == 12
'
	ok $? "JSON: papi and hwloc sources, reasons and columns"
fi
AMP_CPUID_DUMP=/nonexistent run $SIM --compare
has "$out" "none: cannot read the CPUID dump /nonexistent" "an unreadable dump is said, not fatal"
# shellcheck disable=SC2086
run $SIM
has "$out" "Measured against reported" "the default text report includes the table"

# Curves: CSV and SVG per experiment; the SVG is well-formed XML.
# shellcheck disable=SC2086
run --sim=p5-133 --timing --votes=3 --curves="$TMPD/curves"
expect_status 0 "--curves"
[ -s "$TMPD/curves/latency-sweep.csv" ] && [ -s "$TMPD/curves/latency-sweep.svg" ]
ok $? "the latency sweep's CSV and SVG"
n_svg=$(ls "$TMPD/curves" | grep -c '\.svg$')
n_csv=$(ls "$TMPD/curves" | grep -c '\.csv$')
[ "$n_svg" -ge 2 ] && [ "$n_svg" -eq "$n_csv" ]
ok $? "one SVG per CSV, experiments too ($n_svg)"
head -n 1 "$TMPD/curves/latency-sweep.csv" | grep -q '^working_set_bytes,ticks_per_load,'
ok $? "sweep CSV header"
if [ -n "$PY" ]; then
	"$PY" - "$TMPD/curves" <<'EOP'
import sys, os, xml.etree.ElementTree as ET
d = sys.argv[1]
for f in os.listdir(d):
    if f.endswith(".svg"):
        root = ET.parse(os.path.join(d, f)).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", f
        texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
        assert "working set" in texts or "per walk" in texts or "measurement" in texts or "(bytes" in texts \
            or "pages touched" in texts or "vote (" in texts or "lines tested" in texts, f
EOP
	ok $? "every SVG is well-formed XML with a labelled axis"
fi
# The TLB sweeps and the line-size experiments: their own curves.
for f in dtlb-entries dtlb-page-size itlb-entries itlb-page-size itlb-draws; do
	[ -s "$TMPD/curves/$f.csv" ] && [ -s "$TMPD/curves/$f.svg" ]
	ok $? "the TLB sweep's $f CSV and SVG"
done
block=$(ls "$TMPD/curves" | grep 'L1d-block-l1-line\.csv$')
[ -n "$block" ]
ok $? "the L1d block-size experiment's CSV ($block)"
if [ -n "$PY" ]; then
	"$PY" - "$TMPD/curves" <<'EOP'
import csv, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
def rows(name):
    with open(os.path.join(d, name)) as f:
        r = list(csv.reader(f))
    assert len(r) > 1 and all(len(x) == len(r[0]) for x in r), name
    return r[0], [dict(zip(r[0], x)) for x in r[1:]]
# p5-133: a 64-entry DTLB of 4 KiB pages.
h, e = rows("dtlb-entries.csv")
assert h == ["pages", "ticks_per_load", "control_ticks_per_load", "tlb_part_ticks", "tlb_part_cycles", "level"], h
assert all(r["level"] == "level 1" for r in e if int(r["pages"]) <= 64)
assert all(r["level"] == "past every level" for r in e if int(r["pages"]) > 64)
h, p = rows("dtlb-page-size.csv")
assert h[0] == "stride_bytes" and all(r["decision"] == "page 4096" for r in p), p[0]
h, p = rows("itlb-entries.csv")
assert h[1] == "ticks_per_jump", h
# The block experiment: the moved half's offset against the share missing;
# thrashing below the 32 B line, fitting at it.
block = [f for f in os.listdir(d) if f.endswith("L1d-block-l1-line.csv")][0]
h, b = rows(block)
assert h == ["vote", "offset_bytes", "share_missing", "vote_value", "decision"], h
for r in b:
    assert (float(r["share_missing"]) > 0.5) == (int(r["offset_bytes"]) < 32), r
assert b[0]["decision"].startswith("32 "), b[0]
for f in ("dtlb-entries.svg", "dtlb-page-size.svg", block[:-4] + ".svg"):
    root = ET.parse(os.path.join(d, f)).getroot()
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "log scale" in texts, f
    assert ("level 1: 64 entries" in texts) or ("page: 4 KiB" in texts) or ("decided: 32" in texts), (f, texts)
EOP
	ok $? "TLB and block curves: columns, the levels, page and line found, marked on the charts"
fi
# The counter path's line size: bytes per miss, vote by vote.
run --sim=p5-133 --level=DTLB --votes=3 --curves="$TMPD/curves-c"
expect_status 0 "--curves on the counter path"
line=$(ls "$TMPD/curves-c" | grep 'DTLB-line\.csv$')
[ -n "$line" ] && head -n 1 "$TMPD/curves-c/$line" | grep -q '^vote,bytes_per_miss,vote_value,decision$' &&
	grep -q '^1,4096.0000,4096,' "$TMPD/curves-c/$line"
ok $? "DTLB line: 4096 bytes per miss, in its CSV ($line)"
# --level=ITLB2 by timing: the instruction side's second level (the
# simulated STLB behind a 64-entry ITLB) from random jumps, its curve.
run --sim="L1d:size=32K;L1i:size=32K;L2:size=1M,assoc=16;ITLB:entries=64,assoc=full;STLB:entries=512,assoc=4" \
	--timing --level=ITLB2 --json --curves="$TMPD/curves-i"
expect_status 0 "--level=ITLB2 by timing"
echo "$out" | grep -q '"name": "ITLB2", "level": 2, "type": "instruction", "page_size": 4096, "entries": 512,'
ok $? "ITLB2: an instruction TLB of 512 entries"
[ -s "$TMPD/curves-i/itlb-draws.csv" ] && [ -s "$TMPD/curves-i/itlb-draws.svg" ]
ok $? "and its random jumps' CSV and SVG"
if command -v rsvg-convert >/dev/null 2>&1; then
	for f in latency-sweep dtlb-entries dtlb-page-size "${block%.csv}"; do
		rsvg-convert -o "$TMPD/$f.png" "$TMPD/curves/$f.svg" && [ -s "$TMPD/$f.png" ]
		ok $? "rsvg-convert renders $f.svg to PNG"
	done
fi
: >"$TMPD/notadir"
# shellcheck disable=SC2086
run $SIM --curves="$TMPD/notadir/x"
expect_status 3 "--curves into a path that cannot be a directory"
one_line "$err" "in one line"

# Progress: none of it when stderr is not a terminal.
# shellcheck disable=SC2086
run $SIM
[ -z "$err" ]
ok $? "no progress on stderr when it is not a terminal"
if command -v script >/dev/null 2>&1 && script -qc true /dev/null >/dev/null 2>&1; then
	script -qc "$AMP $SIM >/dev/null" "$TMPD/tty" >/dev/null 2>&1
	grep -q 'amp: counters' "$TMPD/tty"
	ok $? "a progress line on a terminal (script)"
	grep -q 'amp: counters (2/2)[^,]*, [0-9.]* s elapsed, ~[0-9]* s left' "$TMPD/tty"
	ok $? "it gives the phase's place in the run, elapsed time and the run's estimate"
	script -qc "$AMP --sim=p5-133 --timing --votes=3 >/dev/null" "$TMPD/tty-t" >/dev/null 2>&1
	grep -q 'amp: timing (3/3)' "$TMPD/tty-t" && grep -q 'amp: latency sweep (2/3)' "$TMPD/tty-t"
	ok $? "the timing path's run plan: calibration, sweep, timing"
	"$AMP" --sim=p5-133 --timing --votes=3 2>"$TMPD/notty" >/dev/null
	[ ! -s "$TMPD/notty" ]
	ok $? "nothing of it when stderr is a file"
	script -qc "$AMP $SIM -q >/dev/null" "$TMPD/tty-q" >/dev/null 2>&1
	! grep -q 'amp: counters\|s left' "$TMPD/tty-q"
	ok $? "none with -q on a terminal"
fi

# Teaching mode on a preset.
# shellcheck disable=SC2086
run $SIM --explain
expect_status 0 "--explain"
has "$out" "-- L1d: module assoc (counters)" "names the module and the level"
has "$out" "Hypothesis: lines a way size apart share a set" "states the hypothesis"
has "$out" "walk of   3 lines" "shows a walk"
has "$out" "thrashes" "and what it showed"
has "$out" "=> line = 32: the most common vote, 100% of them" "tells the vote"
has "$out" "Caches measured with counters" "the report follows"
# shellcheck disable=SC2086
run $SIM --explain --format=json
has "$err" "Hypothesis" "with JSON on stdout the narration goes to stderr"

# The result cache.
XDG_CACHE_HOME="$TMPD/xdg"; export XDG_CACHE_HOME
# shellcheck disable=SC2086
run $SIM --cache
expect_status 0 "--cache, first run"
first_json=$out
kept=$(ls "$TMPD/xdg/amp" 2>/dev/null | grep -c '\.json$')
[ "$kept" -eq 1 ]
ok $? "one report kept in \$XDG_CACHE_HOME/amp"
ls -a "$TMPD/xdg/amp" | grep -q '\.XXXXXX\|json\.' && ok 1 "no temporary file left" || ok 0 "no temporary file left"
f=$(ls "$TMPD/xdg/amp"/*.json)
echo '{"format_version": 1, "kept": "marker"}' >"$f"
# shellcheck disable=SC2086
run $SIM --cache
has "$out" '"kept": "marker"' "the second run returns the kept report"
# shellcheck disable=SC2086
run $SIM --cache --refresh
expect_status 0 "--refresh"
[ "$out" = "$first_json" ] || diag "refresh output differs (wall times)"
case "$out" in *marker*) ok 1 "--refresh measures again" ;; *) ok 0 "--refresh measures again" ;; esac
grep -q '"caches"' "$f"
ok $? "--refresh replaced the kept report"
# shellcheck disable=SC2086
run $SIM --cache --seed=2
[ "$(ls "$TMPD/xdg/amp" | grep -c '\.json$')" -eq 2 ]
ok $? "other measurement options, another entry"
XDG_CACHE_HOME="$TMPD/notadir/xdg" run $SIM --cache
expect_status 3 "an unwritable cache directory"
one_line "$err" "in one line"
has "$err" "--cache" "naming --cache"
[ -z "$out" ]
ok $? "and nothing measured or printed"
unset XDG_CACHE_HOME
done_testing
