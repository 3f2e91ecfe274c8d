#!/usr/bin/env bash
# Runs one rack case file that boots its own rack (tests/rack/cases_pattern.sh)
# alone, with the environment tests/rack/run.sh gives the case files; every
# rack it boots is taken down on the way out. Not part of make check:
#   RACK_PATTERN=1 tests/rack/run_one.sh tests/rack/cases_pattern.sh
# Prints "rack: N passed, N failed"; exits 1 if any failed. Needs a quiet
# host (the virtual rack starves under load) and a built ./fabcheck.
set -u
cd "$(dirname "$0")/../.." || exit 2
case ${1:-} in
tests/rack/cases_*.sh) [ -f "$1" ] || { echo "run_one.sh: no case file $1" >&2; exit 2; } ;;
*) echo "usage: tests/rack/run_one.sh tests/rack/cases_NAME.sh" >&2; exit 2 ;;
esac
# shellcheck source=tests/rack/env.sh
. tests/rack/env.sh
expect "lab kernel" 0 'initramfs: .*initrd.img' -- "$FC" lab kernel
echo "== $1"
# shellcheck source=/dev/null
. "$1"
echo "rack: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
