# Cases for the runners of make check's steps (sourced by tests/cli/run.sh):
# tests/cli/run.sh runs each case file on its own, side by side, the longest
# first by a seconds file, and sums their counts; tests/run-unit.sh runs the
# unit binaries side by side and keeps their outputs in the order given.
RT=$(mktemp -d /tmp/fabcheck-cli-runner.XXXXXX)
# rt_file NAME CASES: a case file $RT/cases_NAME.sh that logs its start into
# $RT/starts and has CASES passing cases.
rt_file() {
	local i
	{ echo "echo $1 >>$RT/starts"
	  for ((i = 0; i < $2; i++)); do echo "expect '$1 case $i' 0 '^$1\$' -- echo $1"; done
	} >"$RT/cases_$1.sh"
}
rt_file short 3
rt_file long 1
rt_file mid 1
printf '# seconds\tfile\n1\tcases_short.sh\n9\tcases_long.sh\n5\tcases_mid.sh\n' >"$RT/seconds.tsv"
# The next file starts only when a run ends: with 2 runs, short (the most
# cases, the fewest seconds) starts after both long and mid have started.
rm -f "$RT/starts"
expect "cli runner: the files the longest first, the next when a run ends; output in the order given" 0 \
	'^== [^ ]*/cases_short.sh: [0-9]+ s == [^ ]*/cases_long.sh: [0-9]+ s == [^ ]*/cases_mid.sh: [0-9]+ s cli: 5 passed, 0 failed last: short$' -- \
	bash -c 'out=$(CLI_JOBS=2 CLI_SECONDS=$1/seconds.tsv CLI_CASES="$1/cases_short.sh $1/cases_long.sh $1/cases_mid.sh" tests/cli/run.sh); rc=$?; echo $out last: $(tail -n 1 "$1/starts"); exit $rc' _ "$RT"
# A file seconds.tsv does not list (a new one) starts before those it lists.
rt_file new 1
rm -f "$RT/starts"
expect "cli runner: a file the seconds file does not list starts first" 0 '^last: short$' -- \
	bash -c 'CLI_JOBS=2 CLI_SECONDS=$1/seconds.tsv CLI_CASES="$1/cases_short.sh $1/cases_long.sh $1/cases_new.sh" tests/cli/run.sh >/dev/null; rc=$?; echo last: $(tail -n 1 "$1/starts"); exit $rc' _ "$RT"
# A failing case in one file fails the whole; a run that ends without its
# count is a failure named by its file.
printf 'expect "rt fails" 0 "^no$" -- echo yes\n' >"$RT/cases_bad.sh"
printf 'exit 3\n' >"$RT/cases_dies.sh"
expect "cli runner: a failing case and a run that dies are counted" 1 \
	'FAIL: rt fails: exit 0 \(want 0\).* FAIL: the run of [^ ]*/cases_dies.sh ended \(exit 3\) without its count cli: 4 passed, 2 failed$' -- \
	bash -c 'out=$(CLI_JOBS=2 CLI_SECONDS=$1/seconds.tsv CLI_CASES="$1/cases_bad.sh $1/cases_mid.sh $1/cases_short.sh $1/cases_dies.sh" tests/cli/run.sh); rc=$?; echo $out; exit $rc' _ "$RT"
# The time line names the case file, even one that sets $f (cases_topo.sh
# loops on f over its tables).
printf 'f=/nowhere/else\nexpect "rt sets f" 0 "^x$" -- echo x\n' >"$RT/cases_setsf.sh"
expect "cli runner: the time line names the case file that set f" 0 "^== $RT/cases_setsf.sh: [0-9]+ s\$" -- \
	env CLI_JOBS=1 CLI_CASES="$RT/cases_setsf.sh" tests/cli/run.sh

# rt_unit NAME RC TEXT [WAITFOR]: a stand-in unit binary that prints TEXT,
# marks $RT/NAME.up, waits (10 s at most) for $RT/WAITFOR.up when given,
# and exits RC (1 when WAITFOR never came up).
rt_unit() {
	printf '#!/bin/sh\necho %s\ntouch %s/%s.up\n' "$3" "$RT" "$1" >"$RT/$1"
	[ -n "${4:-}" ] && printf 'i=0; while [ ! -e %s/%s.up ]; do i=$((i + 1)); [ $i -gt 100 ] && exit 1; sleep 0.1; done\n' \
		"$RT" "$4" >>"$RT/$1"
	echo "exit $2" >>"$RT/$1"
	chmod +x "$RT/$1"
}
rm -f "$RT"/*.up
rt_unit ping 0 ping pong
rt_unit pong 0 pong ping
expect "unit runner: binaries run side by side (two that wait on each other)" 0 \
	'^unit test binaries: 2 passed, 0 failed$' -- env UNIT_JOBS=2 tests/run-unit.sh "$RT/ping" "$RT/pong"
rt_unit one 0 one
rt_unit two 1 two
rt_unit three 0 three
expect "unit runner: a failing binary fails, the outputs in the order given" 1 \
	'^== [^ ]*/one one == [^ ]*/two two FAILED: [^ ]*/two == [^ ]*/three three unit test binaries: 2 passed, 1 failed$' -- \
	bash -c 'out=$(UNIT_JOBS=3 tests/run-unit.sh "$1/one" "$1/two" "$1/three"); rc=$?; echo $out; exit $rc' _ "$RT"
rm -rf "$RT"
