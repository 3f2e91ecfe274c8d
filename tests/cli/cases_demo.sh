# scripts/demo.sh (make demo) against a stand-in fabcheck
# (tests/cli/demo-fc.sh) and a stand-in ssh: no rack is booted. Issue 39
# item 6: when lab up's calibration pair says the virtual rack is starved
# (lab calibrate --recorded exits 1) or gave no figure (exit 3: a link of the
# rack is dead), the demo says so in one line and stops before its pair,
# naming no node part; the rack is torn down. A quiet rack goes on.
DMT=$(mktemp -d /tmp/fabcheck-cli-demo.XXXXXX)
mkdir -p "$DMT/bin"
printf '#!/bin/sh\necho "stand-in ssh: $*"\n' >"$DMT/bin/ssh"
chmod +x "$DMT/bin/ssh"
# demo_run NAME CAL_RC: the demo with that calibration; its output in
# $DMT/NAME.out, its calls in $DMT/NAME.log, its exit in $DMT/NAME.rc.
demo_run() {
	: >"$DMT/$1.log"
	env PATH="$DMT/bin:$PATH" FC="$(pwd)/tests/cli/demo-fc.sh" DEMO_FC_LOG="$DMT/$1.log" \
		DEMO_CAL_RC="$2" DEMO_OUT="$DMT/$1-out" FABCHECK_LAB_HOME="$DMT/home" \
		FABCHECK_LAB_CALIBRATE=0 scripts/demo.sh >"$DMT/$1.out" 2>&1 </dev/null
	echo $? >"$DMT/$1.rc"
}
demo_run starved 1
demo_run dead 3
demo_run quiet 0
expect "demo: a starved rack: one line says it, results would not be about the nodes" 0 \
	"^demo: the virtual rack was starved \(its calibration line above\): the host is busy, so results would not be about the nodes; stopping before the pair" -- \
	cat "$DMT/starved.out"
expect "demo: a dead link (no calibration figure): one line says it, with the log" 0 \
	"^demo: the virtual rack's calibration pair gave no figure \(exit 3: a link of the rack is dead .*$DMT/home/racks/demo/calibrate\.log\), so results would not be about the nodes; stopping before the pair$" -- \
	cat "$DMT/dead.out"
expect "demo: a starved rack: no pair, no matrix run, the rack torn down, exit 3" 0 '^0 0 1 3$' -- \
	bash -c "echo \$(grep -c '^pair ' $DMT/starved.log) \$(grep -c '^matrix ' $DMT/starved.log) \
		\$(grep -c '^lab down --name demo$' $DMT/starved.log) \$(cat $DMT/starved.rc)"
expect "demo: a dead link: no pair, no matrix run, the rack torn down, exit 3" 0 '^0 0 1 3$' -- \
	bash -c "echo \$(grep -c '^pair ' $DMT/dead.log) \$(grep -c '^matrix ' $DMT/dead.log) \
		\$(grep -c '^lab down --name demo$' $DMT/dead.log) \$(cat $DMT/dead.rc)"
expect_none "demo: a starved rack: nothing below names a node's part or runs a test" 0 \
	'^== RDMA bandwidth|^== Every pair|likely|\(host\)|stand-in ssh' -- cat "$DMT/starved.out"
expect "demo: lab up runs its calibration even where FABCHECK_LAB_CALIBRATE=0 is set" 0 \
	'^lab up: FABCHECK_LAB_CALIBRATE=unset$' -- cat "$DMT/quiet.log"
expect "demo: a quiet rack goes on to its pair and matrix, then tears the rack down" 0 '^1 1 1 0$' -- \
	bash -c "echo \$(grep -c '^pair nodeA nodeB ' $DMT/quiet.log) \$(grep -c '^matrix ' $DMT/quiet.log) \
		\$(grep -c '^lab down --name demo$' $DMT/quiet.log) \$(cat $DMT/quiet.rc)"
rm -rf "$DMT"
