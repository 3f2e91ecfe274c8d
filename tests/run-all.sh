#!/usr/bin/env bash
# The whole suite, in the order that fails fastest: unit, CLI, fuzz, rack.
set -u
cd "$(dirname "$0")/.." || exit 2
pass=0 fail=0
step() {
	local name=$1 t0=$SECONDS; shift
	echo "==== $name"
	if "$@"; then pass=$((pass + 1)); echo "==== $name: ok ($((SECONDS - t0)) s)"
	else fail=$((fail + 1)); echo "==== $name: FAILED ($((SECONDS - t0)) s)"; fi
}
step unit tests/run-unit.sh $(ls build/tests/test_* | grep -v '\.d$')
step cli tests/cli/run.sh
[ -x tests/fuzz/run.sh ] && step fuzz tests/fuzz/run.sh
step install tests/test-install.sh
step valgrind tests/run-valgrind.sh
step rack tests/rack/run.sh
echo
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
