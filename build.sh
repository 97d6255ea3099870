#!/bin/sh
# build.sh - set up, build and run amp on a fresh Debian 12 machine.
#   ./build.sh          install build dependencies (as root), bootstrap,
#                       configure, build, then run src/amp with its defaults
#   ./build.sh check    the same build, then the test suite (make check)
# Extra arguments after "run" or "check" go to configure, e.g.
#   ./build.sh check --enable-sanitizers
set -e
cd "$(dirname "$0")"
what=${1:-run}
[ $# -gt 0 ] && shift

# Build needs (must), counter libraries (optional), test tools.
PKGS="gcc make autoconf automake pkg-config libc6-dev libpfm4-dev libpapi-dev libhwloc-dev valgrind groff-base python3"
APT="apt-get install -y --no-install-recommends $PKGS"

missing=""
for pkg in $PKGS; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "build.sh: installing:$missing"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $APT >/dev/null
	else
		echo "build.sh: missing packages:$missing"
		echo "build.sh: as root, run: $APT"
		for tool in gcc make autoreconf pkg-config; do
			command -v "$tool" >/dev/null 2>&1 || { echo "build.sh: cannot build without $tool" >&2; exit 3; }
		done
		echo "build.sh: building without the optional ones"
	fi
fi

[ -x configure ] || autoreconf -fi
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	./configure -q "$@"
fi
make -s -j"$(nproc)"

case "$what" in
run)
	src/amp
	;;
check)
	status=0
	make -s -j"$(nproc)" check || status=$?
	[ $status -eq 0 ] || cat tests/test-suite.log 2>/dev/null | tail -n 60
	sh tests/summary.sh . || status=1
	exit $status
	;;
*)
	echo "usage: ./build.sh [run|check] [configure options]" >&2
	exit 2
	;;
esac
