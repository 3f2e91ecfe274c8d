#!/usr/bin/env bash
# Runs each cmocka test binary given; prints a total line. Test data paths are
# relative to the repository root.
#   UNIT_JOBS  binaries side by side (default: the CPUs, at most 4); each
#              one's output is shown whole, in the order given, once all
#              have ended. One after the other they took 22 s of wall time
#              on the quiet 2-core host (make check at 3df048d), on one core.
set -u
cd "$(dirname "$0")/.." || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -lt 1 ] && jobs=1
bins=("$@")
logs=()
for i in "${!bins[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	logs[i]=$(mktemp /tmp/fabcheck-unit.XXXXXX)
	{ "${bins[i]}"; echo $? >"${logs[i]}.rc"; } >"${logs[i]}" 2>&1 &
done
wait
failed=0
for i in "${!bins[@]}"; do
	echo "== ${bins[i]}"
	cat "${logs[i]}"
	if [ "$(cat "${logs[i]}.rc" 2>/dev/null)" != 0 ]; then
		echo "FAILED: ${bins[i]}"
		failed=$((failed + 1))
	fi
	rm -f "${logs[i]}" "${logs[i]}.rc"
done
echo "unit test binaries: $(( $# - failed )) passed, $failed failed"
[ "$failed" -eq 0 ]
