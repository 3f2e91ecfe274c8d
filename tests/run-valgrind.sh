#!/usr/bin/env bash
# Runs the unit tests (plain build, no sanitizers) and a few CLI commands
# under valgrind memcheck; any error or definite leak fails.
set -u
cd "$(dirname "$0")/.." || exit 2
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
pass=0 fail=0
run() {
	if "${VG[@]}" "$@" >/dev/null 2>/tmp/fabcheck-vg.$$; then pass=$((pass + 1))
	else
		rc=$?
		if [ "$rc" -eq 99 ]; then
			fail=$((fail + 1)); echo "valgrind errors in: $*"; cat /tmp/fabcheck-vg.$$
		else pass=$((pass + 1)); fi
	fi
}
make -s build/vg-tests >/dev/null 2>&1 || true
for t in build/vg/test_*; do [ -x "$t" ] && run "$t"; done
run ./fabcheck --version
run ./fabcheck help
run ./fabcheck devices
[ -x tests/valgrind-cases.sh ] && . tests/valgrind-cases.sh
rm -f /tmp/fabcheck-vg.$$
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
