#!/usr/bin/env bash
# Runs each cmocka test binary given; prints a total line. Test data paths are
# relative to the repository root.
set -u
cd "$(dirname "$0")/.." || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
failed=0
for t in "$@"; do
	echo "== $t"
	if ! "$t"; then
		echo "FAILED: $t"
		failed=$((failed + 1))
	fi
done
echo "unit test binaries: $(( $# - failed )) passed, $failed failed"
[ "$failed" -eq 0 ]
