#!/usr/bin/env bash
# The demo (make demo): a new user's first five minutes. Boots a 2-node
# virtual rack, shows fabcheck on it, tears it down, and prints the commands
# for a real rack. Each step is a function listed in STEPS; later steps (the
# pair test, the matrix) are added there.
set -u
cd "$(dirname "$0")/.." || exit 2
FC=${FC:-$PWD/fabcheck}
RACK=${DEMO_RACK:-demo}
NODES=(nodeA nodeB nodeC nodeD)
STARTED=
# The demo judges the rack by lab up's calibration pair: never skipped here.
unset FABCHECK_LAB_CALIBRATE

banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
[ -t 1 ] || banner() { printf '\n== %s\n' "$*"; }
# show CMD...: prints the command as a user would type it, then runs it.
show() {
	printf '$ %s\n' "$*"
	"$@"
}
node_run() { # node_run NODE CMD...: through the rack's ssh_config, as on a real rack
	local node=$1
	shift
	printf '$ ssh %s %s\n' "$node" "$*"
	ssh -F "$SSH_CFG" "$node" -- "$@" 2>/dev/null </dev/null
}

teardown() {
	[ -n "$STARTED" ] || return 0
	STARTED=
	banner "Tearing the rack down"
	show "$FC" lab down --name "$RACK"
}
trap teardown EXIT
trap 'echo; echo "demo interrupted"; exit 130' INT TERM

step_intro() {
	cat <<EOF
fabcheck demo: a virtual rack with real RDMA, on this machine.

It boots ${#NODES[@]} QEMU guests running Debian's kernel with Soft-RoCE (RoCE v2), each
with two fabric NICs on two rails (rxe0 on rail 0, rxe1 on rail 1: two virtual
Ethernet segments with their own subnets, MTU 9000), as a GPU server's HCAs are
cabled rail by rail to their own leaf switches; each node is reachable by ssh as
${NODES[*]}, and fabcheck runs on them exactly as on a real rack.
It takes a few minutes (the first run also downloads a 70 MB Debian kernel),
and stops the guests at the end (or on Ctrl-C).
EOF
}

step_boot() {
	banner "Booting a ${#NODES[@]}-node rack '$RACK' (fabcheck lab up)"
	if ! show "$FC" lab up --name "$RACK" --nodes ${#NODES[@]} --rails 2; then
		echo "demo: the rack did not come up; the messages above say why (logs under ~/.cache/fabcheck/lab/racks/$RACK/nodes)" >&2
		exit 3
	fi
	STARTED=1
	SSH_CFG=$("$FC" lab ssh-config --name "$RACK") || exit 3
	# The lab's explicit signal: results on this rack are checked for a host
	# too busy to run its guests (lab/starve.h), and set aside when it was.
	export FABCHECK_LAB_RACK=$RACK
	calibration_check
}

# calibration_check: lab up's calibration pair (nodeA-nodeB on rail 0,
# lab/cmd_calib.c), judged again. A starved rack (exit 1) or a pair that gave
# no figure (exit 3: a link of the rack is dead, or the pair could not run)
# would make every result below about the host or the emulator, not the
# nodes: the demo says so in one line and stops before its pair.
calibration_check() {
	local rc log=${FABCHECK_LAB_HOME:-$HOME/.cache/fabcheck/lab}/racks/$RACK/calibrate.log
	"$FC" lab calibrate --name "$RACK" --recorded >/dev/null 2>&1
	rc=$?
	case $rc in
	0) return 0 ;;
	1) echo "demo: the virtual rack was starved (its calibration line above): the host is busy, so results would not be about the nodes; stopping before the pair: run the demo on a quiet host" >&2 ;;
	*) echo "demo: the virtual rack's calibration pair gave no figure (exit $rc: a link of the rack is dead or the pair could not run; $log), so results would not be about the nodes; stopping before the pair" >&2 ;;
	esac
	teardown
	step_outro
	exit 3
}

# demo_rc WHAT RC: the demo goes on after a verdict (exit 0 or 1); stops
# otherwise (exit 3 also when the rack became starved during the step: its
# findings say so).
demo_rc() {
	[ "$2" -le 1 ] && return 0
	echo "demo: fabcheck $1 could not run (exit $2); the findings above say why" >&2
	exit 3
}

step_devices() {
	local n
	banner "The RDMA devices of each node (fabcheck devices, over ssh)"
	echo "Each node has two ports, rxe0/1 and rxe1/1, ACTIVE, MTU 4096, each with the RoCE v2"
	echo "GID of its rail's address (::ffff:10.77.x.y, ::ffff:10.78.x.y), as RoCE HCAs would."
	for n in "${NODES[@]}"; do
		echo
		node_run "$n" fabcheck devices || { echo "demo: fabcheck devices failed on $n" >&2; exit 1; }
	done
}

step_pair() {
	local rc
	banner "RDMA bandwidth and latency between nodeA and nodeB (fabcheck pair)"
	cat <<EOF
fabcheck starts a worker on each node over ssh, relays their QP details (or uses
rdma_cm with --cm), runs RDMA WRITE and READ, and reads the port counters.
rxe reports its port as 2.5 Gb/s but moves 0.05-0.2 Gb/s under emulation, so
the demo gives the rack's own floor (--min-gbps 0.001); on real HCAs the
default floor is 90% of the slower port's rate.

EOF
	show "$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db -s 64K -n 100 --min-gbps 0.001
	rc=$?
	demo_rc pair $rc
}

step_matrix() {
	local rc out=${DEMO_OUT:-${TMPDIR:-/tmp}/fabcheck-demo}
	banner "Every pair on every rail, one rail of nodeC slowed on purpose (fabcheck matrix --rails)"
	cat <<EOF
Now nodeC's rail 1 port (rxe1) is limited to 5 Mbit/s both ways by a shaper that
drops what is over the rate, as a wrong rate limit or a congested switch port
would (its counters show retransmissions, not physical-layer errors, and the
diagnosis says so); its rail 0 stays healthy. fabcheck matrix
--rails all first matches every node's ports into rails by their subnets (not by
device name: a swapped cable would show), then tests every pair of the ${#NODES[@]} nodes
in rounds where each node is in one test at a time, with both rails of a pair
loaded at once as a training job loads them; it keeps each (pair, rail) result
in a SQLite store and names the culprit at the right level: a link, a node's
port on one rail, a whole node, or a whole rail. The rack's floor is relative:
a pair below 40% of its rail's median is bad (on real HCAs, give --min-gbps or
keep pair's link-rate floor); --retest runs the suspect's pairs again on that
rail. This takes two to three minutes.

EOF
	mkdir -p "$out" && rm -f "$out"/matrix.db*
	show "$FC" lab fault --name "$RACK" nodeC --rail 1 rate 5
	show "$FC" matrix "${NODES[@]}" --rails all --ssh-config "$SSH_CFG" --db "$out/matrix.db" \
		--test write --bw -s 64K -n 100 --min-gbps 0.001 --min-rack-pct 40 --retest
	rc=$?
	demo_rc matrix $rc
	"$FC" lab fault --name "$RACK" nodeC clear >/dev/null
	if [ -t 0 ] && [ -t 1 ]; then
		echo "The same run in the dashboard for a few seconds (q quits):"
		sleep 2
		show "$FC" tui --db "$out/matrix.db" --max-iterations 40
	fi
	show "$FC" report --db "$out/matrix.db" --html "$out/matrix.html" --csv "$out/matrix.csv" \
		--prom "$out/matrix.prom"
	echo "Open $out/matrix.html in a browser: the heat map and the findings."
}

step_outro() {
	local have_pair=0
	"$FC" help pair >/dev/null 2>&1 && have_pair=1
	banner "On a real rack"
	echo "The same commands run on your nodes through your own ssh config:"
	echo "  ssh <node> fabcheck devices             # ports, rates, the GID each would use"
	[ $have_pair = 1 ] && echo "  fabcheck pair <nodeA> <nodeB>           # RDMA bandwidth and latency between two nodes"
	echo "  fabcheck matrix --hostfile <hosts>      # every pair in rounds; names the bad node or link"
	echo "  fabcheck tui --hostfile <hosts>         # the same, live; then fabcheck report --html FILE"
	echo "  fabcheck preflight --hostfile <hosts>   # ports, rates, firmware, MTU, GIDs, PCIe, before anything"
	echo "  scripts/burnin-rack --fabric ndr --hostfile <hosts>   # preflight, matrix, NCCL, soak: one report folder"
	echo "And on the virtual rack again, to explore:"
	echo "  $FC lab up"
	echo "  ssh -F \$($FC lab ssh-config) nodeA"
	echo "  $FC lab fault nodeB rate 20           # a slow port, both ways"
	echo "  $FC lab fault nodeB --rail 1 rate 20  # one rail of a node (lab up --rails 2)"
	echo "  $FC lab down"
}

STEPS=(step_intro step_boot step_devices step_pair step_matrix teardown step_outro)
for s in "${STEPS[@]}"; do
	"$s"
done
