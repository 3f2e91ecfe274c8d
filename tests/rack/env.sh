# tests/rack/env.sh: what every runner of rack case files sets up first
# (sourced by tests/rack/run.sh and tests/rack/run_one.sh from the
# repository root): the environment the case files read, the helpers,
# ./fabcheck built, and every rack named in RACKS stopped on the way out.
# shellcheck shell=bash
ROOT=$PWD
export FC=${FC:-$ROOT/fabcheck}
export FABCHECK_LAB_HOME=${FABCHECK_LAB_HOME:-$ROOT/lab-home}
export FABCHECK_SHARED=${FABCHECK_SHARED:-$(cd .. && pwd)/shared}
export RACK_LOG=${RACK_LOG:-$FABCHECK_LAB_HOME/rack-tests.stderr.log}
unset FABCHECK_LAB_NAME
# No calibration pair at each 'lab up' (lab/up.sh): no case here reads it,
# and each would add a pair to every boot. The demo runs it.
export FABCHECK_LAB_CALIBRATE=0
# shellcheck source=tests/rack/lib.sh
. tests/rack/lib.sh
# shellcheck source=tests/rack/stall.sh
. tests/rack/stall.sh

if [ ! -x "$FC" ]; then
	echo "FAIL: $FC is not built; run 'make' first"
	echo "rack: 0 passed, 1 failed"
	exit 1
fi
export RACK_TIMES=${RACK_TIMES:-$FABCHECK_LAB_HOME/rack-tests.times}
mkdir -p "$FABCHECK_LAB_HOME" && : >"$RACK_LOG" && : >"$RACK_TIMES"

# Every rack a runner boots goes into RACKS and is stopped on the way out,
# whatever happens.
RACKS=()
racks_down() {
	local r
	for r in "${RACKS[@]}"; do
		"$FC" lab down --name "$r" >/dev/null 2>&1
		rack_qemu_left "$r" | xargs -r kill -KILL 2>/dev/null
	done
}
trap racks_down EXIT
trap 'echo "rack tests interrupted"; exit 130' INT TERM
