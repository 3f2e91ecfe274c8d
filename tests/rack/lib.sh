# tests/rack/lib.sh: helpers for the rack tests (sourced by tests/rack/run.sh;
# every tests/rack/cases_*.sh may use them). Set by run.sh for the cases:
#   FC         the fabcheck binary under test (host side)
#   RACK_NAME  the name of the running 2-node rack (nodeA, nodeB)
#   SSH_CFG    its ssh_config: ssh -F "$SSH_CFG" nodeA ...
# Case files count results with the helpers below and never exit.

pass=${pass:-0} fail=${fail:-0}
# shellcheck source=tests/cli/pattern.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/pattern.sh"

# Each case's seconds (from the case before it ended, so a case's set-up
# counts with it) go to $RACK_TIMES when set: run.sh prints the slowest.
_case_t0=${_case_t0:-${EPOCHREALTIME/./}}
case_time() {
	local now=${EPOCHREALTIME/./}
	[ -n "${RACK_TIMES:-}" ] &&
		printf '%d.%01d\t%s\n' $(((now - _case_t0) / 1000000)) $(((now - _case_t0) / 100000 % 10)) "$1" >>"$RACK_TIMES"
	_case_t0=$now
}

ok() {
	case_time "$1"
	pass=$((pass + 1))
	[ -n "${RACK_VERBOSE:-}" ] && echo "ok: $1"
	return 0
}

not_ok() { # not_ok NAME WHY [OUTPUT]
	case_time "$1"
	fail=$((fail + 1))
	echo "FAIL: $1: $2"
	[ -n "${3:-}" ] && sed 's/^/    /' <<<"$3" | head -n 25
	return 0
}

# rexec NODE CMD...: runs CMD (one shell command line, as ssh does) on a node
# of the rack; its stdout is ours, its exit code is returned. Its stderr goes
# to $RACK_LOG: the nodes run the host's shell start-up files, whose noise
# must never be parsed.
rexec() {
	local node=$1
	shift
	ssh -F "$SSH_CFG" "$node" -- "$@" 2>>"${RACK_LOG:-/dev/null}" </dev/null
}

# expect NAME RC PATTERN -- CMD...: runs CMD, checks its exit code and that its
# stdout+stderr match the extended regex PATTERN.
expect() {
	local name=$1 want=$2 pat=$3 out rc why
	shift 4
	why=$(pattern_fault "$pat")
	if [ -n "$why" ]; then
		not_ok "$name" "suite error: $why"
		return 0
	fi
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -Eq -- "$pat" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want), want /$pat/ in:" "$out"
	fi
}

# expect_out NAME PATTERN -- CMD...: CMD exits 0 and its stdout (only)
# matches PATTERN. For commands run on nodes through rexec.
expect_out() {
	local name=$1 pat=$2 out rc why
	shift 3
	why=$(pattern_fault "$pat")
	if [ -n "$why" ]; then
		not_ok "$name" "suite error: $why"
		return 0
	fi
	out=$("$@" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	rc=$?
	if [ "$rc" -eq 0 ] && grep -Eq -- "$pat" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, want /$pat/ in stdout:" "$out"
	fi
}

# expect_rc NAME RC -- CMD...: CMD exits RC; its output is not looked at.
expect_rc() {
	local name=$1 want=$2 out rc
	shift 3
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want), output:" "$out"
	fi
}

# expect_no NAME PATTERN -- CMD...: CMD exits 0 and no line of its stdout
# matches PATTERN.
expect_no() {
	local name=$1 pat=$2 out rc
	shift 3
	out=$("$@" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -Eq -- "$pat" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, want no /$pat/ in stdout:" "$out"
	fi
}

# expect_json NAME RC PYEXPR -- CMD...: CMD exits RC and its stdout is one
# JSON document, bound to `d`; PYEXPR (python3) must be true. RC is an exit
# code or several ('1|3'), or v: the code the document's verdict implies
# (pass, warn: 0; fail: 1 or 3; error: 2 or 3), for commands whose verdict
# the case leaves open.
expect_json() {
	local name=$1 want=$2 expr=$3 out res rc
	shift 4
	if ! [[ $want =~ ^(v|[0-9]+(\|[0-9]+)*)$ ]]; then
		not_ok "$name" "expect_json: '$want' is not an exit code (expect_json NAME RC PYEXPR -- CMD...)"
		return 0
	fi
	out=$("$@" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	rc=$?
	if res=$(python3 -c '
import json, re, sys
d = json.loads(sys.stdin.read())
rc, want = int(sys.argv[2]), sys.argv[3]
if want == "v":
    want = {"pass": "0", "warn": "0", "fail": "1|3", "error": "2|3"}.get(d.get("verdict"), "0")
if not re.fullmatch(want, str(rc)):
    sys.exit("exit %d, want %s" % (rc, want))
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$expr" "$rc" "$want" <<<"$out" 2>&1); then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want), want ($expr) of:" "$out${res:+
$res}"
	fi
}

# rack_qemu_left NAME: pids of QEMU processes of rack NAME still running
# (zombies, which have no command line, do not count).
rack_qemu_left() {
	# One pgrep over every command line: a tr and a grep per process took
	# seconds a scan on a loaded host, long enough for a boot to finish
	# before the Ctrl-C case saw its QEMU start.
	pgrep -f -- "-name fabcheck/$1/node"
}

# expect_rack_gone NAME: no QEMU process of the rack and no lock are left.
expect_rack_gone() {
	local left
	left=$(rack_qemu_left "$1" | tr '\n' ' ')
	if [ -n "$left" ]; then
		not_ok "rack $1 leaves no QEMU" "process(es) $left still run"
		kill -KILL $left 2>/dev/null
	else
		ok "rack $1 leaves no QEMU"
	fi
	if [ -e "$FABCHECK_LAB_HOME/racks/$1.lock" ]; then
		not_ok "rack $1 leaves no lock" "$FABCHECK_LAB_HOME/racks/$1.lock is still there"
	else
		ok "rack $1 leaves no lock"
	fi
}

# rack_up NAME ARGS...: boots a rack for a phase of the tests, recording the
# time it took; returns up's exit code.
rack_up() {
	local name=$1 out rc
	shift
	out=$("$FC" lab up --name "$name" "$@" 2>&1 </dev/null)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "lab up $name $*"
		grep -Eo 'ready in [0-9.]+ s' <<<"$out" | sed "s/^/    rack $name ($*): /"
	else
		not_ok "lab up $name $*" "exit $rc:" "$out"
	fi
	return $rc
}

# runs_set_aside N RUN ASIDE: a run the emulator's spread can spoil, made
# at most N times. "RUN TRY" makes run TRY (1..N); "ASIDE TRY" then
# returns 0 to set it aside (saying why, and putting back what the next run
# needs) or 1 to keep it. The last run is kept whatever ASIDE would say, so
# the case judges it.
runs_set_aside() {
	local n=$1 run=$2 aside=$3 try
	for ((try = 1; try <= n; try++)); do
		"$run" "$try"
		[ "$try" -lt "$n" ] || return 0
		"$aside" "$try" || return 0
	done
}

# tmux_wait SESSION FILE PATTERN: captures tmux SESSION's pane into FILE every
# 0.1 s until FILE matches the extended regex PATTERN, 30 s at most; a blank
# capture (the TUI not drawn yet, or gone) never replaces a drawn one. For
# the TUI cases: they wait on the screen's content, not on a fixed sleep,
# which a loaded host outruns.
tmux_wait() {
	local i
	: >"$2"
	for i in $(seq 300); do
		tmux capture-pane -p -t "$1" >"$2.cap" 2>/dev/null
		grep -q '[^[:space:]]' "$2.cap" && mv "$2.cap" "$2"
		grep -Eq -- "$3" "$2" && break
		sleep 0.1
	done
	rm -f "$2.cap"
}
