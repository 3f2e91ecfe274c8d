#!/usr/bin/env bash
# The whole suite, in the order that fails fastest: unit, then CLI, install
# and valgrind with the fuzzers beside them, then the rack (with
# RACK_BESIDE=1, the rack beside all of them where it can take the CPUs
# first: tests/rack/cpu_first.sh).
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
# The fuzzers run beside the CLI, install and valgrind steps, at nice 10:
# those steps' runs keep the CPUs they ask for, and the fuzzers take what
# they leave idle. The CLI step waits more than it computes (below), and
# valgrind's runs wait on their CLI cases too; in make check at 3df048d on
# a quiet 2-core host the CLI step took 206 s of wall time for about 120 s
# of CPU, and the fuzzers beside valgrind alone stretched it from 301 s to
# 368 s. Each target fuzzes for FUZZ_SECONDS of CPU time, not wall time
# (tests/fuzz/run.sh), so it tests as much as alone.
fuzz_out=$(mktemp /tmp/fabcheck-fuzz.XXXXXX)
fuzz_pid=
if [ -x tests/fuzz/run.sh ]; then
	fuzz_t0=$SECONDS
	{ nice -n 10 tests/fuzz/run.sh; echo "$? $((SECONDS - fuzz_t0))" >"$fuzz_out.rc"; } >"$fuzz_out" 2>&1 &
	fuzz_pid=$!
fi
# The CLI cases wait more than they compute (workers that hang until a
# timeout, TUIs that live their --max-iterations, soaks of a few seconds):
# on the 2-core machine the whole suite at CLI_JOBS=4 took 200 s of wall
# time for 120 s of CPU, while other work kept the load at 4 to 11 (make
# check's CLI step at 2 jobs: 299 s on a quiet machine); cases_burnin alone
# 45 s for 3.5 s of CPU. So 4 runs side by side whatever the CPUs
# (CLI_JOBS overrides).
# The rack: real traffic under TCG, whose cases wait on the guests (1231 to
# 1256 s of a 30-minute make check at 0861a0b, the rest 9 minutes). It starves
# when other work takes its CPUs ("no progress"), so by default it runs
# alone, after the other steps. RACK_BESIDE=1 runs it beside them inside a
# CPU cgroup that takes the CPUs first (its output printed when it ends; no
# such group: alone after them). Measured once at 15ce092 on the 2-core host
# with seven other builds and test runs beside it (load 15-20): make check
# 25:02 instead of about 31 minutes, the rack 323 passed in 1471 s, but the
# CLI step took 412 s instead of 204 and valgrind 940 s instead of 303, and
# two CLI cases whose figures count what a few seconds hold (soak slices)
# failed: each time the rack's guests are busy, the other steps get almost
# no CPU. Not the default until such cases wait on events, not seconds.
rack_cg=
[ "${RACK_BESIDE:-0}" = 1 ] && rack_cg=$(tests/rack/cpu_first.sh make 2>/dev/null)
rack_pid= rack_out=
if [ -n "$rack_cg" ]; then
	rack_out=$(mktemp /tmp/fabcheck-rack.XXXXXX)
	rack_t0=$SECONDS
	( if tests/rack/cpu_first.sh join "$rack_cg"; then exec tests/rack/run.sh; fi; exit 99 ) >"$rack_out" 2>&1 &
	rack_pid=$!
	echo "==== rack: started beside the other steps in the CPU cgroup $rack_cg (its output when it ends)"
fi
step cli env CLI_JOBS="${CLI_JOBS:-4}" tests/cli/run.sh
step install tests/test-install.sh
step valgrind tests/run-valgrind.sh
# fuzz_wait: the fuzz run's output once it ends, and its exit code.
fuzz_wait() {
	local rc secs
	wait "$fuzz_pid"
	cat "$fuzz_out"
	read -r rc secs <"$fuzz_out.rc" 2>/dev/null || rc=1
	echo "(fuzz ran ${secs:-?} s beside the cli, install and valgrind steps)"
	rm -f "$fuzz_out" "$fuzz_out.rc"
	return "$rc"
}
if [ -n "$fuzz_pid" ]; then step fuzz fuzz_wait; else rm -f "$fuzz_out"; fi
# rack_wait: the rack run beside the other steps, once it ends; 99: it could
# not join its group, and runs now, alone.
rack_wait() {
	local rc
	wait "$rack_pid"
	rc=$?
	cat "$rack_out"
	rm -f "$rack_out"
	tests/rack/cpu_first.sh remove "$rack_cg"
	if [ "$rc" = 99 ]; then
		echo "(the rack could not join $rack_cg: it runs now, alone)"
		tests/rack/run.sh
		return
	fi
	echo "(the rack ran $((SECONDS - rack_t0)) s beside the other steps)"
	return "$rc"
}
if [ -n "$rack_pid" ]; then step rack rack_wait; else step rack tests/rack/run.sh; fi
echo
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
