#!/usr/bin/env bash
# The demo (make demo): a new user's first five minutes. Boots a 2-node
# virtual rack, shows fabcheck on it, tears it down, and prints the commands
# for a real rack. Each step is a function listed in STEPS; later steps (the
# pair test, the matrix) are added there.
set -u
cd "$(dirname "$0")/.." || exit 2
FC=${FC:-$PWD/fabcheck}
RACK=${DEMO_RACK:-demo}
NODES=(nodeA nodeB)
STARTED=

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

It boots ${#NODES[@]} QEMU guests running Debian's kernel with Soft-RoCE (rxe0, RoCE v2)
on one shared virtual Ethernet segment (MTU 9000), each reachable by ssh as
${NODES[*]}, and runs fabcheck on them exactly as on a real rack.
It takes about a minute (the first run also downloads a 70 MB Debian kernel),
and stops the guests at the end (or on Ctrl-C).
EOF
}

step_boot() {
	banner "Booting a ${#NODES[@]}-node rack '$RACK' (fabcheck lab up)"
	if ! show "$FC" lab up --name "$RACK" --nodes ${#NODES[@]}; then
		echo "demo: the rack did not come up; the messages above say why (logs under ~/.cache/fabcheck/lab/racks/$RACK/nodes)" >&2
		exit 3
	fi
	STARTED=1
	SSH_CFG=$("$FC" lab ssh-config --name "$RACK") || exit 3
}

step_devices() {
	local n
	banner "The RDMA devices of each node (fabcheck devices, over ssh)"
	echo "Each node has one port, rxe0/1, ACTIVE, MTU 4096, and picks the RoCE v2 GID of"
	echo "its fabric address (::ffff:10.77.x.y), as it would on a RoCE HCA."
	for n in "${NODES[@]}"; do
		echo
		node_run "$n" fabcheck devices || { echo "demo: fabcheck devices failed on $n" >&2; exit 1; }
	done
}

step_outro() {
	local have_pair=0
	"$FC" help pair >/dev/null 2>&1 && have_pair=1
	banner "On a real rack"
	echo "The same commands run on your nodes through your own ssh config:"
	echo "  ssh <node> fabcheck devices             # ports, rates, the GID each would use"
	[ $have_pair = 1 ] && echo "  fabcheck pair <nodeA> <nodeB>           # RDMA bandwidth and latency between two nodes"
	echo "And on the virtual rack again, to explore:"
	echo "  $FC lab up"
	echo "  ssh -F \$($FC lab ssh-config) nodeA"
	echo "  $FC lab fault nodeB rate 20           # a slow port, both ways"
	echo "  $FC lab down"
}

STEPS=(step_intro step_boot step_devices teardown step_outro)
for s in "${STEPS[@]}"; do
	"$s"
done
