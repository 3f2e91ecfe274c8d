#!/usr/bin/env bash
# Runs one rack case file that boots its own rack (tests/rack/cases_pattern.sh)
# alone, with the environment tests/rack/run.sh gives the case files; every
# rack it boots is taken down on the way out. Not part of make check:
#   RACK_PATTERN=1 tests/rack/run_one.sh tests/rack/cases_pattern.sh
# Prints "rack: N passed, N failed"; exits 1 if any failed. Needs a quiet
# host (the virtual rack starves under load) and a built ./fabcheck.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
export FC=${FC:-$ROOT/fabcheck}
export FABCHECK_LAB_HOME=${FABCHECK_LAB_HOME:-$ROOT/lab-home}
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
export RACK_LOG=${RACK_LOG:-$FABCHECK_LAB_HOME/rack-tests.stderr.log}
unset FABCHECK_LAB_NAME
case ${1:-} in
tests/rack/cases_*.sh) [ -f "$1" ] || { echo "run_one.sh: no case file $1" >&2; exit 2; } ;;
*) echo "usage: tests/rack/run_one.sh tests/rack/cases_NAME.sh" >&2; exit 2 ;;
esac
# shellcheck source=tests/rack/lib.sh
. tests/rack/lib.sh
if [ ! -x "$FC" ]; then
	echo "FAIL: $FC is not built; run 'make' first"
	echo "rack: 0 passed, 1 failed"
	exit 1
fi
mkdir -p "$FABCHECK_LAB_HOME" && : >"$RACK_LOG"
expect "lab kernel" 0 'initramfs: .*initrd.img' -- "$FC" lab kernel
RACKS=()
teardown() {
	local r
	for r in "${RACKS[@]}"; do
		"$FC" lab down --name "$r" >/dev/null 2>&1
		rack_qemu_left "$r" | xargs -r kill -KILL 2>/dev/null
	done
}
trap teardown EXIT
trap 'echo "rack tests interrupted"; exit 130' INT TERM
echo "== $1"
# shellcheck source=/dev/null
. "$1"
echo "rack: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
