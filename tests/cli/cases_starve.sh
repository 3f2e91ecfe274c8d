# The starved virtual rack (issue 39 item 6). With FABCHECK_LAB_RACK naming
# a lab rack (the lab's explicit signal; scripts/demo.sh sets it), a run
# reads the rack's QEMU threads' CPU and run-queue wait (schedstat) at its
# start and its end. Here the rack is made by hand: its folder, nodeA's pid
# file, and a /proc of recorded figures (FABCHECK_LAB_PROC) whose one QEMU
# thread the stand-in worker moves on at its first test (RW_SCHEDSTAT).
# A starved run says so, names no node, exits 3; a quiet one is judged as
# always; without the signal nothing changes.
SVT=$(mktemp -d /tmp/fabcheck-cli-starve.XXXXXX)
SVP=$SVT/proc
mkdir -p "$SVT/racks/sv/nodes" "$SVP/4242/task/4242"
printf 'qemu-system-x86_64\0-name\0fabcheck/sv/nodeA\0' >"$SVP/4242/cmdline"
echo 4242 >"$SVT/racks/sv/nodes/nodeA.pid"
touch "$SVT/racks/sv/ssh_config"
SVBAD='{"completer_retry_err":219,"rcvd_seq_err":69}'
# sv_pair AFTER OUT RACK [PAIR OPTIONS]: pair nodeA nodeB on 2 rails, rail
# 1's ports with error counters, FABCHECK_LAB_RACK=RACK ("": unset); the
# QEMU thread's schedstat is 1 s on a CPU and 0.1 s waiting at the start,
# AFTER from the first test on. Its exit code goes to OUT.rc.
sv_pair() {
	local after=$1 out=$2 rack=$3
	shift 3
	echo "1000000000 100000000 10" >"$SVP/4242/task/4242/schedstat"
	env ${rack:+FABCHECK_LAB_RACK=$rack} FABCHECK_LAB_HOME="$SVT" FABCHECK_LAB_PROC="$SVP" \
		FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_COUNTERS_DEV=rxe1 RW_COUNTERS="$SVBAD" \
		RW_SCHEDSTAT="$after" RW_SCHEDSTAT_FILE="$SVP/4242/task/4242/schedstat" \
		$FC pair nodeA nodeB --launcher local --worker-cmd tests/cli/rack-worker.sh --no-db --timeout 5 \
		"$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}
# 1 s more on a CPU and 3 s more waiting: 75% of 4 s (starved); 2 s and
# 0.1 s: 4.8% of 2.1 s (quiet).
SV_STARVED="2000000000 3100000000 30"
SV_QUIET="3000000000 200000000 30"
sv_pair "$SV_STARVED" "$SVT/st.txt" sv
sv_pair "$SV_STARVED" "$SVT/st.json" sv --json
sv_pair "$SV_QUIET" "$SVT/q.txt" sv
sv_pair "$SV_QUIET" "$SVT/q.json" sv --json
sv_pair "$SV_STARVED" "$SVT/real.json" "" --json
sv_pair "$SV_STARVED" "$SVT/none.txt" nosuch

expect "starve: a starved run exits 3 (judged nothing)" 0 '^3$' -- cat "$SVT/st.txt.rc"
expect "starve: its finding is the sentence, with the wait" 0 \
	'^  - the virtual rack was starved: the host is busy; results are not about the nodes \(its QEMU threads waited for a CPU 75\.0% of the 4\.0 s they were runnable, over 25%\); run it on a quiet host$' \
	-- cat "$SVT/st.txt"
expect "starve: its summary says it and names nothing" 0 \
	'^verdict: warn; the virtual rack was starved: the host is busy; results are not about the nodes' -- cat "$SVT/st.txt"
expect_none "starve: no finding, diagnosis or summary line names a node" 0 \
	'^  - .*node[AB]|^diagnosis.*node[AB]|^verdict.*node[AB]|^  node[AB].*\((likely|possible)\)' -- cat "$SVT/st.txt"
expect "starve --json: lab.starved, the wait, the exit's error" 0 '^true 75 cant_run 3$' -- \
	jq -r '"\(.lab.starved) \(.lab.wait_pct) \(.error.code) \(.error.exit_code)"' "$SVT/st.json"
expect "starve --json: the findings that named nodes are kept aside, none left" 0 '^1 true null$' -- \
	jq -r '"\(.findings | length) \(any(.lab.set_aside.findings[]; test("nodeA rxe1 port 1: error counters rose"))) \(.diagnosis)"' "$SVT/st.json"
expect "starve: a quiet run is judged as always (the bad port named)" 0 'nodeA rxe1' -- \
	grep '^  nodeA rxe1\|^verdict.*nodeA\|^  - nodeA rxe1' "$SVT/q.txt"
expect "starve --json: a quiet run says it was not starved, with its wait" 0 '^false 4\.8 null$' -- \
	jq -r '"\(.lab.starved) \(.lab.wait_pct * 10 | round / 10) \(.lab.set_aside)"' "$SVT/q.json"
expect "starve: without FABCHECK_LAB_RACK (real nodes) no lab member, the port named" 0 '^null true$' -- \
	jq -r '"\(.lab) \(any(.findings[]; test("nodeA rxe1 port 1")))"' "$SVT/real.json"
expect "starve: a rack name with no QEMU: said, and the run judged as always" 0 \
	"no QEMU of lab rack 'nosuch' runs here" -- cat "$SVT/none.txt.err"
expect "starve: ... its findings name the port" 0 '^  - rail 1 \(rxe1\) alone: nodeA rxe1 port 1' -- cat "$SVT/none.txt"

# lab calibrate: one pair (1 MiB writes on rxe0, 2 s) against this host's
# best calibration at the rack's MTU (the stand-in worker moves 2.4 Gb/s).
SVC=(--name sv -- --launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5)
sv_cal() { env FABCHECK_LAB_HOME="$SVT" FABCHECK_LAB_PROC="$SVP" FAKE_DEVICES=tests/data/rails/devices-2rail.json "$FC" lab calibrate "$@"; }
expect "calibrate: the host's first is the baseline from now on" 0 \
	"calibration of lab rack 'sv': .*its calibration pair moved 2\.4 Gb/s, this host's first at MTU 9000: the baseline from now on" -- \
	sv_cal "${SVC[@]}"
expect "calibrate: it is kept as the host's best" 0 '^gbps 2\.4$' -- cat "$SVT/calibration-best-mtu9000-nodes1"
echo "gbps 4" >"$SVT/calibration-best-mtu9000-nodes1"
expect "calibrate: 2.4 against a best of 4 is a quiet host" 0 \
	"too idle \(0\.00 s runnable\) to tell.*moved 2\.4 Gb/s, this host's best 4 Gb/s" -- sv_cal "${SVC[@]}"
echo "gbps 5" >"$SVT/calibration-best-mtu9000-nodes1"
expect "calibrate: 2.4 against a best of 5 is a starved rack (exit 1)" 1 \
	"the virtual rack was starved: the host is busy; results are not about the nodes \(its calibration pair moved 2\.4 Gb/s, below half of this host's best 5 Gb/s\)" -- \
	sv_cal "${SVC[@]}"
expect "calibrate --recorded: the same judgment, no run" 1 '"starved": true' -- sv_cal --name sv --recorded --json
expect "calibrate --recorded: a rack with none" 3 "rack 'nx': no calibration recorded" -- sv_cal --name nx --recorded
expect "calibrate: a bad rack name" 2 "'Bad' is not a rack name" -- sv_cal --name Bad
# lab status of the hand-made rack shows the calibration (text and JSON).
mkdir -p "$SVT/racks/sv/share/state" "$SVT/racks/sv.lock"
printf 'RACK_NODES=1\nRACK_MTU=9000\nRACK_SLOT=9\nRACK_PORT=47009\nRACK_NET=10.77.9\nRACK_RAILS=1\nSSH_PORTS=(28001)\nRACK_KERNEL=k\n' >"$SVT/racks/sv/rack.env"
expect "lab status --json: the rack's calibration" 0 '^true 2\.4$' -- \
	bash -c "env FABCHECK_LAB_HOME=$SVT $FC lab status --name sv --json | jq -r '\"\(.calibration.lab.starved) \(.calibration.lab.calib_gbps)\"'"
expect "lab status: the calibration's line" 1 "^calibration of lab rack 'sv': the virtual rack was starved" -- \
	env FABCHECK_LAB_HOME="$SVT" $FC lab status --name sv
rm -rf "$SVT"
