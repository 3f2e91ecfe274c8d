# Cases for `lab` that need no guest (sourced by tests/cli/run.sh): the C
# side finds lab/rack.sh and passes arguments; the script validates them.
# The rack itself is tested by tests/rack/run.sh.
export FABCHECK_LAB_HOME=${TMPDIR:-/tmp}/fabcheck-cli-lab-$$
expect "lab --help" 0 'up \[--nodes N\] \[--name NAME\]' -- $FC lab --help
expect "help lab" 0 'fault \[--name NAME\] NODE \[--rail R\] loss PCT' -- $FC help lab
expect "lab unknown command" 2 "'frob' is not a lab command" -- $FC lab frob
expect "lab up --nodes 0" 2 "--nodes: '0' is not a number from 1 to 8" -- $FC lab up --nodes 0
expect "lab up --nodes 99" 2 "--nodes: '99' is not a number from 1 to 8" -- $FC lab up --nodes 99
expect "lab up bad name" 2 "--name: 'A B' is not a rack name" -- $FC lab up --name 'A B'
expect "lab up --mtu 65536" 2 "--mtu: '65536' is not a number from 576 to 9000" -- $FC lab up --mtu 65536
expect "lab up --rail-speed 5" 2 "--rail-speed: '5' is not a number from 1000 to 400000" -- $FC lab up --rail-speed 5
expect "lab up --rail-speed=fast" 2 "--rail-speed: 'fast' is not a number from 1000 to 400000" -- $FC lab up --rail-speed=fast
expect "lab --help names --rail-speed" 0 '\[--storage-nic\] \[--rail-speed MBPS\]' -- $FC lab --help
expect "lab status of no rack" 3 "no rack named 'nosuch' is up" -- $FC lab status --name nosuch
expect "lab fault bad kind" 2 "'jitter' is not a fault kind" -- $FC lab fault nodeA jitter
expect "lab fault bad loss" 2 "'200' is not a loss percentage" -- $FC lab fault nodeA loss 200
expect "lab exec without command" 2 'missing the command to run on nodeA' -- $FC lab exec nodeA
expect "lab down of no rack" 0 "rack 'nosuch' is not up" -- $FC lab down --name nosuch
expect "lab script missing" 3 'cannot find lab/rack.sh|FABCHECK_LAB_SCRIPT' -- \
	env FABCHECK_LAB_SCRIPT=/nonexistent/rack.sh $FC lab status
rm -rf "$FABCHECK_LAB_HOME"
unset FABCHECK_LAB_HOME
# No QEMU (nor ssh...) on PATH: lab up cannot run, says what to install.
nopath=${TMPDIR:-/tmp}/fabcheck-cli-nopath-$$
mkdir -p "$nopath" && ln -sf "$(command -v bash)" "$nopath/bash"
expect "lab up without qemu" 3 'the rack needs qemu-system-x86_64.*scripts/deps.sh demo' -- \
	env PATH="$nopath" $FC lab up --name nopath
rm -rf "$nopath"

# Options anywhere on the line; rails.
expect "lab fault: --name after the operands" 3 "no rack named 'nosuch' is up" -- $FC lab fault nodeC rate 20 --name nosuch
expect "lab fault: --rail after the kind" 3 "no rack named 'nosuch' is up" -- $FC lab fault nodeC rate 20 --rail 1 --name=nosuch
expect "lab fault: --rail without value" 2 "--rail: missing value" -- $FC lab fault nodeC rate 20 --rail
expect "lab fault: miswire takes no value" 2 "'miswire' takes no value, got 'now'" -- $FC lab fault nodeC miswire now
expect "lab up: FABCHECK_LAB_FABRIC names no fabric" 2 "FABCHECK_LAB_FABRIC: 'token-ring' is not a fabric; expected bridge or mcast" -- \
	env FABCHECK_LAB_FABRIC=token-ring $FC lab up --name fabbad
expect "lab up: a bad FABCHECK_LAB_FABRIC leaves no rack folder" 0 '^gone$' -- \
	sh -c '[ -e "${FABCHECK_LAB_HOME:-$HOME/.cache/fabcheck/lab}/racks/fabbad" ] && echo there || echo gone'
expect "lab up --rails 5" 2 "--rails: '5' is not a number from 1 to 4" -- $FC lab up --rails 5
expect "lab status: unknown option after --name" 2 "lab status: unknown option '--frob'" -- $FC lab status --name x --frob
expect "lab fault: a negative value is a value" 2 "'-1' is not a loss percentage" -- $FC lab fault nodeA loss -1
expect "lab fault: -5 as a rate" 2 "'-5' is not a rate" -- $FC lab fault nodeA rate -5 --name nosuch

# lab status on a rack made by hand (its env, its lock, a live process for
# each node, both ready): it passes; then nodeB's serial log gets the guest
# kernel's watchdog line, as a node whose fabric NIC stalled writes it
# (read off a rack of make check), and status names nodeB, its NIC and the fix.
LS=$(mktemp -d /tmp/fabcheck-cli-labst.XXXXXX)
mkdir -p "$LS/racks/st/nodes" "$LS/racks/st/share/state" "$LS/racks/st.lock"
sleep 600 &
LSPID=$!
printf 'RACK_NODES=2\nRACK_MTU=9000\nRACK_SLOT=9\nRACK_PORT=47009\nRACK_NET=10.77.9\nRACK_RAILS=1\nSSH_PORTS=(28001 28002)\nRACK_KERNEL=k\n' >"$LS/racks/st/rack.env"
for n in nodeA nodeB; do
	echo "$LSPID" >"$LS/racks/st/nodes/$n.pid"
	echo ready >"$LS/racks/st/share/state/$n"
	echo "fabcheck-guest: $n: [4.98 s] ready" >"$LS/racks/st/nodes/$n.serial.log"
done
expect "lab status: a rack made by hand, both nodes ready" 0 'verdict: pass' -- \
	env FABCHECK_LAB_HOME="$LS" $FC lab status --name st
echo '[  574.129349] virtio_net virtio4 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5072 ms' \
	>>"$LS/racks/st/nodes/nodeB.serial.log"
expect "lab status: a stalled NIC: the node, its NIC, the kernel's words and the fix" 1 \
	"FAIL: nodeB: its NIC eth0 stopped sending \(its kernel said 'eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5072 ms'\).*restart the rack" -- \
	env FABCHECK_LAB_HOME="$LS" $FC lab status --name st
expect "lab status --json: the stalled node's state" 1 '"name": "nodeB", "state": "stalled"' -- \
	env FABCHECK_LAB_HOME="$LS" $FC lab status --name st --json
expect "lab status --json: the other node still ready" 1 '"name": "nodeA", "state": "ready"' -- \
	env FABCHECK_LAB_HOME="$LS" $FC lab status --name st --json
kill "$LSPID" 2>/dev/null
rm -rf "$LS"
