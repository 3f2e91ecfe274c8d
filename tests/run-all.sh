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
# The CLI cases wait more than they compute (workers that hang until a
# timeout, TUIs that live their --max-iterations, soaks of a few seconds):
# on the 2-core machine the whole suite at CLI_JOBS=4 took 200 s of wall
# time for 120 s of CPU, while other work kept the load at 4 to 11 (make
# check's CLI step at 2 jobs: 299 s on a quiet machine); cases_burnin alone
# 45 s for 3.5 s of CPU. So 4 runs side by side whatever the CPUs
# (CLI_JOBS overrides).
step cli env CLI_JOBS="${CLI_JOBS:-4}" tests/cli/run.sh
[ -x tests/fuzz/run.sh ] && step fuzz tests/fuzz/run.sh
step install tests/test-install.sh
step valgrind tests/run-valgrind.sh
step rack tests/rack/run.sh
echo
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
