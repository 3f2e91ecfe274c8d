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
		cat -s <<<"$out" | sed 's/^/    /' | head -30
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
		cat -s <<<"$out" | sed 's/^/    /' | head -30
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
		cat -s <<<"$out" | sed 's/^/    /' | head -30
	fi
}
# CLI_CASES: the case files to run (default all); a missing one fails.
# CLI_JOBS: runs side by side (default: the CPUs, at most 4). Each file is a
# run of its own (this script with CLI_JOBS=1 and that file), the next one
# started as soon as a run ends, the longest first by tests/cli/seconds.tsv
# (or the file CLI_SECONDS names; files it does not list start before all
# others); each run's output is shown
# in the files' order once all have ended. Dealt ahead into 4 runs by case
# count, the files of make check's CLI step at 3df048d made runs of 147,
# 129, 207 and 106 s (fresh clone, quiet host): the step waited 60 s on
# the longest; a file's time is mostly its waits (TUIs that live their
# iterations, workers that hang until a timeout, soaks), not its cases.
files=(${CLI_CASES:-tests/cli/cases_*.sh})
jobs=${CLI_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -gt "${#files[@]}" ] && jobs=${#files[@]}
if [ "$jobs" -gt 1 ]; then
	# longest_first FILE...: the indexes of the FILEs, one a line: those
	# whose names tests/cli/seconds.tsv does not list first, then the others
	# by its seconds, most first.
	longest_first() {
		local i
		for ((i = 1; i <= $#; i++)); do printf '%d\t%s\n' "$((i - 1))" "$(basename "${!i}")"; done |
			awk -F'\t' -v tsv="${CLI_SECONDS:-tests/cli/seconds.tsv}" '
				BEGIN { while ((getline l < tsv) > 0) if (l !~ /^#/ && split(l, w, "\t") == 2) s[w[2]] = w[1] }
				{ print (($2 in s) ? s[$2] : 1e9) "\t" $1 }' |
			sort -k1,1gr -k2,2n | cut -f2
	}
	logs=()
	for i in $(longest_first "${files[@]}"); do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		logs[i]=$(mktemp /tmp/fabcheck-cli.XXXXXX)
		{ CLI_JOBS=1 CLI_CASES="${files[i]}" FC="$FC" "$0"; echo $? >"${logs[i]}.rc"; } >"${logs[i]}" 2>&1 &
	done
	wait
	for i in "${!files[@]}"; do
		last=$(tail -n 1 "${logs[i]}")
		if [[ $last =~ ^cli:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			sed '$d' "${logs[i]}"
			pass=$((pass + BASH_REMATCH[1]))
			fail=$((fail + BASH_REMATCH[2]))
		else
			cat "${logs[i]}"
			fail=$((fail + 1))
			echo "FAIL: the run of ${files[i]} ended (exit $(cat "${logs[i]}.rc" 2>/dev/null)) without its count"
		fi
		rm -f "${logs[i]}" "${logs[i]}.rc"
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
# (cli_file, cli_t0: names no case file sets; cases_topo.sh's loop sets f)
for cli_file in "${files[@]}"; do
	if [ ! -f "$cli_file" ]; then
		echo "FAIL: no case file $cli_file"
		fail=$((fail + 1))
		continue
	fi
	if bad=$(empty_can_pass "$cli_file"); then
		echo "FAIL: $cli_file: suite error: a case that passes on empty output (use expect_none):"
		sed 's/^/    /' <<<"$bad"
		fail=$((fail + 1))
	fi
	cli_t0=$SECONDS
	# shellcheck source=/dev/null
	. "$cli_file"
	echo "== $cli_file: $((SECONDS - cli_t0)) s"
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
