#!/usr/bin/env bash
# CLI tests on this host (no RDMA, no GPU): exit codes, messages, JSON.
# Each case runs the sanitizer build. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
FC=${FC:-build/fabcheck-san}
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
pass=0 fail=0
# shellcheck source=tests/cli/pattern.sh
. tests/cli/pattern.sh
# pattern_can_fail NAME PATTERN: a PATTERN that could never fail (see
# pattern_fault) is an error of the suite, said and counted as a failure.
pattern_can_fail() {
	local why
	why=$(pattern_fault "$2")
	[ -z "$why" ] && return 0
	fail=$((fail + 1))
	echo "FAIL: $1: suite error: $why"
	return 1
}
# expect NAME RC PATTERN -- CMD...: runs CMD, checks its exit code and that
# stdout+stderr match the extended regex PATTERN.
expect() {
	local name=$1 want=$2 pat=$3; shift 4
	local out rc
	pattern_can_fail "$name" "$pat" || return 0
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && grep -Eq -- "$pat" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out" | head -20
	fi
}
# expect_quiet NAME RC -- CMD...: runs CMD, checks its exit code and that it
# prints nothing at all (stdout and stderr).
expect_quiet() {
	local name=$1 want=$2; shift 3
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && [ -z "$out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $rc (want $want), want no output, output:"
		sed 's/^/    /' <<<"$out" | head -20
	fi
}
# expect_none NAME RC PATTERN -- CMD...: runs CMD, checks its exit code,
# that it printed something (stdout+stderr), and that no line of it
# matches the extended regex PATTERN: an absence that empty output cannot
# fake.
expect_none() {
	local name=$1 want=$2 pat=$3; shift 4
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && [ -n "$out" ] && ! grep -Eq -- "$pat" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $rc (want $want), want output without /$pat/, output:"
		sed 's/^/    /' <<<"$out" | head -20
	fi
}
# CLI_CASES: the case files to run (default all); a missing one fails.
# CLI_JOBS: runs side by side (default: the CPUs, at most 4), the files dealt
# by tests/deal.sh; each run is this script with CLI_JOBS=1 and its files,
# its output shown whole when it ends, in order.
files=(${CLI_CASES:-tests/cli/cases_*.sh})
jobs=${CLI_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -gt "${#files[@]}" ] && jobs=${#files[@]}
if [ "$jobs" -gt 1 ]; then
	# shellcheck source=tests/deal.sh
	. tests/deal.sh
	deal "$jobs" "${files[@]}"
	pids=() logs=()
	for ((j = 0; j < jobs; j++)); do
		[ -n "${groups[j]}" ] || continue
		logs[j]=$(mktemp /tmp/fabcheck-cli.XXXXXX)
		CLI_JOBS=1 CLI_CASES="${groups[j]}" FC="$FC" "$0" >"${logs[j]}" 2>&1 &
		pids[j]=$!
	done
	for j in "${!pids[@]}"; do
		wait "${pids[j]}"
		rc=$?
		cat "${logs[j]}"
		last=$(tail -n 1 "${logs[j]}")
		if [[ $last =~ ^cli:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			pass=$((pass + BASH_REMATCH[1]))
			fail=$((fail + BASH_REMATCH[2]))
		else
			fail=$((fail + 1))
			echo "FAIL: the run of ${groups[j]}ended (exit $rc) without its count"
		fi
		rm -f "${logs[j]}"
	done
	echo "cli: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
# empty_can_pass FILE: the lines of FILE whose case counts an absence with
# `grep -c ...; true` (or `|| true`): such a case prints 0 and passes when
# the command it checks printed nothing at all; expect_none checks the
# absence and that there was output.
empty_can_pass() {
	grep -nE 'grep -[a-zA-Z]*c[a-zA-Z]* .*(; *true|\|\| *true)' "$1"
}
for f in "${files[@]}"; do
	if [ ! -f "$f" ]; then
		echo "FAIL: no case file $f"
		fail=$((fail + 1))
		continue
	fi
	if bad=$(empty_can_pass "$f"); then
		echo "FAIL: $f: suite error: a case that passes on empty output (use expect_none):"
		sed 's/^/    /' <<<"$bad"
		fail=$((fail + 1))
	fi
	t0=$SECONDS
	# shellcheck source=/dev/null
	. "$f"
	echo "== $f: $((SECONDS - t0)) s"
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
