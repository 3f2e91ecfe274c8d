#!/usr/bin/env bash
# Runs under valgrind memcheck the unit tests (plain build, no sanitizers)
# and the CLI cases that feed every parser: NCCL logs, topo tables, env
# files, hostfiles, stores, worker messages (tests/cli/cases_NAME.sh, with
# FC set to the plain build under valgrind). Fails on a valgrind error, a
# definite leak, a crash (a signal), a unit test that fails, a CLI case
# whose exit code or output is not the expected one, a build that fails,
# or a case file that is missing.
#   tests/run-valgrind.sh             everything above
#   tests/run-valgrind.sh PROGRAM...  only these programs (each must exit 0)
#   VG_MAKE    the build command (default make)
#   VG_CASES   the CLI case files (default: the parser cases below)
#   VG_JOBS    runs side by side (default: the CPUs, at most 4)
set -u
cd "$(dirname "$0")/.." || exit 2
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
# Not the tui cases: they read the screen on a timer, which valgrind misses.
CASES=${VG_CASES:-topo nccl ncclenv matrix pair burnin plan qos}
pass=0 fail=0
log=$(mktemp /tmp/fabcheck-vg.XXXXXX)
vglogs=$(mktemp -d /tmp/fabcheck-vglogs.XXXXXX)
trap 'rm -rf "$log" "$vglogs"' EXIT
# Some cases run fabcheck as an unprivileged user (cases_matrix.sh's
# read-only store, under setpriv when the tests run as root): valgrind in
# that process must be able to write its report here too.
chmod 0711 "$vglogs"

# vg_errors FILE: the errors in one process's valgrind report: memory errors,
# a crash (SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV) and definite leaks; not
# the leaks of a process that a stop signal ended (SIGHUP, SIGINT, SIGPIPE,
# SIGTERM: a slice, worker or pair stopped by its controller), which never
# ran its cleanup and whose interrupted frames valgrind does not count as
# roots (seen: fc_children_poll's two arrays "definitely lost" in a pair
# that its soak stopped). Its memory errors still count.
vg_errors() {
	local f=$1 n leaks
	grep -Eq 'Process terminating with default action of signal (4|6|7|8|11) ' "$f" && { cat "$f"; return; }
	n=$(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) errors.*/\1/p' "$f" | tail -1)
	if [ -z "$n" ]; then # no summary: it exec'd a program not traced, or SIGKILL
		grep -Eq '== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination|Jump to)' "$f" && cat "$f"
		return
	fi
	[ "$n" -eq 0 ] && return
	leaks=$(grep -c 'are definitely lost in loss record' "$f")
	if [ "$leaks" -eq "$n" ] && grep -Eq 'Process terminating with default action of signal (1|2|13|15) ' "$f"; then
		return
	fi
	cat "$f"
}

# child_errors DIR: prints the valgrind errors reported in DIR (one file a
# process, tests/vg-fabcheck.sh), each headed by its file; empties DIR.
child_errors() {
	local f e
	for f in "$1"/vg.*; do
		[ -s "$f" ] && e=$(vg_errors "$f") && [ -n "$e" ] && { echo "== $(basename "$f")"; echo "$e"; }
		rm -f "$f"
	done
	return 0
}

# run PROGRAM ARGS...: passes when it exits 0 under valgrind and valgrind
# reported nothing in it or in any process it started.
run() {
	local rc errs
	VG_EXE=$1 VG_LOG_DIR=$vglogs tests/vg-fabcheck.sh "${@:2}" >/dev/null 2>"$log"
	rc=$?
	errs=$(child_errors "$vglogs")
	if [ "$rc" -eq 0 ] && [ -z "$errs" ]; then
		pass=$((pass + 1))
		return
	fi
	fail=$((fail + 1))
	[ -n "$errs" ] && echo "$errs" >>"$log"
	if [ "$rc" -eq 0 ]; then
		echo "FAIL: valgrind errors in a process started by: $*"
	elif [ "$rc" -eq 99 ]; then
		echo "FAIL: valgrind errors in: $*"
	elif [ "$rc" -gt 128 ]; then
		echo "FAIL: crashed (signal $((rc - 128)), exit $rc): $*"
	else
		echo "FAIL: exit $rc: $*"
	fi
	tail -n 40 "$log" | sed 's/^/    /'
}

if [ $# -gt 0 ]; then
	for p in "$@"; do run "$p"; done
	echo "valgrind: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

if ! ${VG_MAKE:-make} -s fabcheck build/vg-tests >"$log" 2>&1; then
	echo "FAIL: valgrind: the build failed:"
	tail -n 40 "$log" | sed 's/^/    /'
	exit 1
fi
files=()
for c in $CASES; do
	f=tests/cli/cases_$c.sh
	if [ ! -f "$f" ]; then
		echo "FAIL: valgrind: no case file $f"
		exit 1
	fi
	files+=("$f")
done
jobs=${VG_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -lt 1 ] && jobs=1
# The unit tests, dealt in turn to the same number of runs side by side,
# each with its own report folder; each run's output shown when it ends.
ubins=()
for t in build/vg/test_*; do [ -x "$t" ] && ubins+=("$t"); done
pids=() logs=()
for ((j = 0; j < jobs; j++)); do
	logs[j]=$(mktemp /tmp/fabcheck-vgunit.XXXXXX)
	(
		vglogs=$vglogs/u$j log=${logs[j]}.log pass=0 fail=0
		mkdir -m 0711 "$vglogs"
		for ((i = j; i < ${#ubins[@]}; i += jobs)); do run "${ubins[i]}"; done
		if [ "$j" -eq 0 ]; then
			run ./fabcheck --version
			run ./fabcheck help
		fi
		echo "$pass $fail" >"${logs[j]}.n"
		rm -f "$log"
	) >"${logs[j]}" 2>&1 &
	pids[j]=$!
done
for j in "${!pids[@]}"; do
	wait "${pids[j]}"
	cat "${logs[j]}"
	if read -r p f <"${logs[j]}.n" 2>/dev/null; then
		pass=$((pass + p)) fail=$((fail + f))
	else
		fail=$((fail + 1))
		echo "FAIL: valgrind: unit run $((j + 1)) of $jobs ended without its count"
	fi
	rm -f "${logs[j]}" "${logs[j]}.n"
done
echo "valgrind: unit tests: $pass passed, $fail failed"
# The CLI cases: tests/cli/run.sh checks each exit code and output, so a
# valgrind error (exit 99) or a crash (exit > 128) fails its case. Each case
# file is its own run, with its own output and report folder; $jobs run side
# by side, the files with the most cases started first and the next one
# started as soon as a run ends (not dealt ahead by case count: the two
# dealt runs took 223 s and 184 s, a file's time under valgrind is not its
# case count); their outputs are printed in the files' order.
order=$(for f in "${files[@]}"; do echo "$(grep -c 'expect' "$f") $f"; done | sort -rn | cut -d' ' -f2-)
declare -A clog cdir
for f in $order; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	clog[$f]=$(mktemp /tmp/fabcheck-vgcli.XXXXXX)
	cdir[$f]=$vglogs/$(basename "$f" .sh)
	mkdir -m 1733 "${cdir[$f]}"
	{ VG_LOG_DIR="${cdir[$f]}" FC="$PWD/tests/vg-fabcheck.sh" CLI_JOBS=1 CLI_CASES="$f" \
		tests/cli/run.sh; echo $? >"${clog[$f]}.rc"; } >"${clog[$f]}" 2>&1 &
done
wait
for f in "${files[@]}"; do
	echo "-- valgrind CLI: $f"
	cat "${clog[$f]}"
	[ "$(cat "${clog[$f]}.rc" 2>/dev/null)" = 0 ] || fail=$((fail + 1))
	errs=$(child_errors "${cdir[$f]}")
	if [ -n "$errs" ]; then # in a case's command or a process it started
		fail=$((fail + 1))
		echo "FAIL: valgrind errors in the processes of these cases:"
		sed 's/^/    /' <<<"$errs" | head -60
	fi
	rm -f "${clog[$f]}" "${clog[$f]}.rc"
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
