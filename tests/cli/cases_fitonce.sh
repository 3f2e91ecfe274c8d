# Issue 39 items 2 and 3 (each fact once, lines that fit) on what the
# lead's 100-column sweep of a 4-node 2-rail rack showed (sourced by
# tests/cli/run.sh): preflight's "skipped:" block, diagnose's evidence
# notes, health's unwritable state file, lab status's long lines.
FOT=$(mktemp -d /tmp/fabcheck-cli-fitonce.XXXXXX)

# preflight of 4 captured nodes, each port's trust/PFC and module not in
# the capture (16 entries): one line per reason, naming its ports and nodes.
tests/topo/mksysfs.sh "$FOT/split" split >/dev/null
FABCHECK_SYSFS=$FOT/split $FC capture -o "$FOT/cap" >/dev/null 2>&1
python3 tests/cli/bundle-rack.py "$FOT/cap" tests/data/rails/roce-4x2-swap.json "$FOT/rk" >/dev/null
FORK=("$FOT/rk/nodeA" "$FOT/rk/nodeB" "$FOT/rk/nodeC" "$FOT/rk/nodeD")
COLUMNS=100 $FC preflight --from "${FORK[@]}" >"$FOT/pf.txt" 2>&1
expect "preflight skipped: one trust/PFC line for both ports of the 4 nodes" 0 \
	'^  eth0, eth2 of nodeA-nodeD: trust and PFC: not in the capture$' -- cat "$FOT/pf.txt"
expect "preflight skipped: nodeC's swapped ports on their own line" 0 \
	'^  rxe0 port 1 \(eth2\), rxe1 port 1 \(eth0\) of nodeC: module: not in the capture$' -- cat "$FOT/pf.txt"
expect "preflight skipped: 3 lines for the 16 entries" 0 '^3$' -- \
	sh -c "sed -n '/^skipped:/,/^\$/p' '$FOT/pf.txt' | grep -c '^  '"
expect "preflight --json: every skipped entry kept" 1 '^16 nodeC: rxe1 port 1 \(eth0\) module: not in the capture$' -- \
	bash -c "$FC preflight --from ${FORK[*]} --json | jq -r '\"\(.skipped | length) \(.skipped[13])\"'; exit \${PIPESTATUS[0]}"
# diagnose of 3 folders of a rack: the notes of the 3 ports, said once.
COLUMNS=100 $FC diagnose tests/data/diag/rack-peers-2x >"$FOT/dg.txt" 2>&1
expect "diagnose: one heading for the notes of the 3 ports of 3 folders" 0 \
	'^1 evidence notes, nodeA mlx5_0 port 1, nodeB mlx5_0 port 1, nodeC mlx5_0 port 1:$' -- \
	sh -c "echo \$(grep -c 'evidence notes' '$FOT/dg.txt') \$(grep 'evidence notes' '$FOT/dg.txt' | sed 's/^ *//')"
expect "diagnose: each note once" 0 '^1$' -- grep -c -- '- transceiver readings not exposed' "$FOT/dg.txt"
expect "diagnose --json: each port of each folder keeps its notes" 0 '^6$' -- \
	sh -c "$FC diagnose --json tests/data/diag/rack-peers-2x | jq '[.sets[].evidence[] | select(.notes | length > 0)] | length'"
# health whose state file cannot be written: said once, as the finding
# with the reason; nothing on stderr; one blank line before "findings:".
$FC health --probe-doc tests/data/preflight/rxe-node.json --node nodeB --state /nonexistent/dir/s.json \
	>"$FOT/hl.out" 2>"$FOT/hl.err"
echo $? >"$FOT/hl.rc"
expect "health: an unwritable state file, the finding with its reason" 0 \
	'^  - cannot write the state file /nonexistent/dir/s.json \(No such file or directory\): the next check' -- cat "$FOT/hl.out"
expect "health: an unwritable state file, exit 0, nothing on stderr" 0 '^0 0$' -- \
	sh -c "echo \$(cat '$FOT/hl.rc') \$(wc -c <'$FOT/hl.err')"
expect "health: one blank line before findings" 0 '^health of nodeB,,findings:,' -- \
	sh -c "paste -sd, '$FOT/hl.out'"
# lab status of a hand-made 4-node 2-rail rack with its calibration: every
# line fits 100 columns (it wrote 2 over), each rail on its own line.
mkdir -p "$FOT/racks/fo/nodes" "$FOT/racks/fo/share/state" "$FOT/racks/fo.lock"
sleep 600 &
FOPID=$!
printf 'RACK_NODES=4\nRACK_MTU=9000\nRACK_SLOT=9\nRACK_PORT=47009\nRACK_NET=10.77.9\nRACK_RAILS=2\nSSH_PORTS=(28001 28002 28003 28004)\nRACK_KERNEL=6.1.0-57-amd64\n' \
	>"$FOT/racks/fo/rack.env"
for n in nodeA nodeB nodeC nodeD; do
	echo "$FOPID" >"$FOT/racks/fo/nodes/$n.pid"
	echo ready >"$FOT/racks/fo/share/state/$n"
done
printf 'gbps 0.0369\nbaseline 0.0731\nwait_pct 45.8\nrunnable_s 114.9\nguests 4\ncpus 2\nwall_s 2\n' \
	>"$FOT/racks/fo/calibration"
env FABCHECK_LAB_HOME="$FOT" COLUMNS=100 $FC lab status --name fo >"$FOT/ls.txt" 2>&1
expect "lab status: every line within 100 columns" 0 '^(100|[1-9][0-9]?) 1[0-9]$' -- \
	awk '{ if (length($0) > w) w = length($0) } END { print w + 0, NR }' "$FOT/ls.txt"
expect "lab status: rail 1 on its own line" 0 '^fabric rail 1: 10\.[0-9.]+\.0/24 \(' -- cat "$FOT/ls.txt"
expect "lab status: the calibration's figures still said" 0 "its calibration pair moved 0\.0369 Gb/s" -- \
	sh -c "paste -sd' ' '$FOT/ls.txt' | sed 's/  */ /g'"
kill "$FOPID" 2>/dev/null
rm -rf "$FOT"
