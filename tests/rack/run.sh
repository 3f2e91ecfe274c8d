#!/usr/bin/env bash
# Rack tests: real Soft-RoCE between QEMU guests, driven through the real CLI.
#   1. one 2-node rack (ci-<pid>) for every tests/rack/cases_*.sh, then down
#      (a case file during which the emulator's NIC stalled runs again on a
#      new rack: tests/rack/stall.sh)
#   2. a 4-node rack with two rails boots, every node has rxe0 ACTIVE; the
#      rail cases (tests/rack/phase_rails.sh) run on it; then down
#   2b. a 3-node rack with Slurm: the slurm launcher, burnin-rack, burnin.sbatch
#   2c. a 3-node rack with Slurm, rails at 100 Gb/s above a storage NIC: drains
#   3. Ctrl-C (SIGINT) during 'lab up', a guest that dies during boot, and a
#      boot past its deadline all leave no QEMU process and no lock
# Prints "rack: N passed, N failed"; exits 1 if any failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/rack/env.sh
. tests/rack/env.sh
T0=$SECONDS

# Racks left by an earlier run that was killed (SIGKILL cannot be trapped):
# their names end in the pid of a run.sh that is gone.
for lock in "$FABCHECK_LAB_HOME"/racks/ci*.lock; do
	[ -d "$lock" ] || continue
	r=${lock##*/}
	r=${r%.lock}
	[[ $r =~ ^ci[a-z0-9]*-([0-9]+)(-b)?$ ]] || continue
	grep -qs 'rack/run.sh' "/proc/${BASH_REMATCH[1]}/cmdline" && continue
	echo "stopping rack $r left by an earlier run"
	"$FC" lab down --name "$r" >/dev/null 2>&1
done

# The kernel and initramfs first (cached), so boot times are boot times.
expect "lab kernel" 0 'initramfs: .*initrd.img' -- "$FC" lab kernel

# ---- 1. the 2-node rack and the case files ---------------------------------
RACK_NAME=ci-$$
RACKS+=("$RACK_NAME")
if rack_up "$RACK_NAME" --nodes 2; then
	SSH_CFG=$("$FC" lab ssh-config --name "$RACK_NAME")
	export RACK_NAME SSH_CFG
	for f in tests/rack/cases_*.sh; do
		echo "== $f (at $((SECONDS - T0)) s)"
		run_cases "$RACK_NAME" "$f" --nodes 2
	done
fi
expect "lab down $RACK_NAME" 0 "rack '$RACK_NAME' is down" -- "$FC" lab down --name "$RACK_NAME"
expect_rack_gone "$RACK_NAME"
expect "status after down" 3 "no rack named '$RACK_NAME' is up" -- "$FC" lab status --name "$RACK_NAME"
expect "down again is harmless" 0 "is not up" -- "$FC" lab down --name "$RACK_NAME"

# ---- 2. four nodes ------------------------------------------------------------
R4=ci4-$$
RACKS+=("$R4")
if rack_up "$R4" --nodes 4 --rails 2; then
	SSH_CFG=$("$FC" lab ssh-config --name "$R4")
	net=$("$FC" lab status --name "$R4" --json | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["fabric"]["subnet"].rsplit(".", 1)[0])')
	i=1
	for n in nodeA nodeB nodeC nodeD; do
		expect_json "4 nodes: $n has rxe0 ACTIVE with GID ::ffff:$net.$i" 0 \
			"d['host'] == '$n' and any(p['state'] == 'ACTIVE' and p['gid'] == '::ffff:$net.$i' for dev in d['devices'] for p in dev['ports'])" \
			-- rexec "$n" fabcheck devices --json
		i=$((i + 1))
	done
	expect_json "4 nodes: status lists 4 ready nodes" 0 \
		"[n['name'] for n in d['nodes']] == ['nodeA','nodeB','nodeC','nodeD'] and all(n['state'] == 'ready' for n in d['nodes'])" \
		-- "$FC" lab status --name "$R4" --json
	echo "== tests/rack/phase_rails.sh (at $((SECONDS - T0)) s)"
	run_cases "$R4" tests/rack/phase_rails.sh --nodes 4 --rails 2
	run_cases "$R4" tests/rack/phase_pattern.sh --nodes 4 --rails 2
fi
expect "lab down $R4" 0 "is down" -- "$FC" lab down --name "$R4"
expect_rack_gone "$R4"

# ---- 2a. the addressing plans: routed /127, IPv6-only, a storage NIC ------------
echo "== tests/rack/phase_plans.sh (at $((SECONDS - T0)) s)"
# shellcheck source=tests/rack/phase_plans.sh
. tests/rack/phase_plans.sh

# ---- 2b. the burn-in: 3 nodes with Slurm ------------------------------------------
echo "== tests/rack/phase_burnin.sh (at $((SECONDS - T0)) s)"
# shellcheck source=tests/rack/phase_burnin.sh
. tests/rack/phase_burnin.sh

# ---- 2c. drains on a rack with a storage NIC below its rails ----------------------
echo "== tests/rack/phase_drain.sh (at $((SECONDS - T0)) s)"
# shellcheck source=tests/rack/phase_drain.sh
. tests/rack/phase_drain.sh

# ---- 3. interrupted and failed boots ----------------------------------------
# wait_qemu NAME N: until N QEMU processes of rack NAME run (30 s at most).
wait_qemu() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(rack_qemu_left "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# Ctrl-C: SIGINT to the process group of 'lab up', as a terminal sends it,
# half a second after both guests started, early in a boot of about 10 s on
# a quiet host. An attempt whose boot had already finished when the SIGINT
# was due ('ready' printed) tests nothing: that rack is taken down and the
# case starts again, three tries at most; a SIGINT sent during the boot
# must end it with 130.
RI=ciint-$$
RACKS+=("$RI")
int_try() {
	local t0=$SECONDS rc out
	set -m
	"$FC" lab up --name "$RI" >"$FABCHECK_LAB_HOME/int.out" 2>&1 &
	UPPID=$!
	set +m
	if ! wait_qemu "$RI" 2; then
		not_ok "Ctrl-C during up" "no QEMU of $RI appeared in 30 s" "$(cat "$FABCHECK_LAB_HOME/int.out")"
		kill -INT -- -"$UPPID" 2>/dev/null
		wait "$UPPID"
		return 0
	fi
	sleep 0.5
	if grep -q "ready in" "$FABCHECK_LAB_HOME/int.out"; then
		wait "$UPPID"
		echo "    Ctrl-C case: the boot finished $((SECONDS - t0)) s after 'lab up' began, before the SIGINT; again"
		"$FC" lab down --name "$RI" >/dev/null 2>&1
		return 1
	fi
	kill -INT -- -"$UPPID"
	wait "$UPPID"
	rc=$?
	out=$(cat "$FABCHECK_LAB_HOME/int.out")
	if [ $rc -eq 130 ] && grep -q "interrupted by SIGINT" <<<"$out"; then
		ok "Ctrl-C during up exits 130"
	else
		not_ok "Ctrl-C during up exits 130" "exit $rc (SIGINT sent $((SECONDS - t0)) s after 'lab up' began):" "$out"
	fi
	return 0
}
for try in 1 2 3; do
	int_try && break
	[ "$try" = 3 ] && not_ok "Ctrl-C during up" "each of 3 boots finished before its SIGINT" "$(cat "$FABCHECK_LAB_HOME/int.out")"
done
expect_rack_gone "$RI"
expect "status after Ctrl-C" 3 "no rack named '$RI' is up" -- "$FC" lab status --name "$RI"

# A guest that dies during boot: up names it, shows its serial log, cleans up.
RK=cikill-$$
RACKS+=("$RK")
"$FC" lab up --name "$RK" >"$FABCHECK_LAB_HOME/kill.out" 2>&1 &
UPPID=$!
if wait_qemu "$RK" 2; then
	sleep 1
	pid=$(cat "$FABCHECK_LAB_HOME/racks/$RK/nodes/nodeB.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid"
fi
wait "$UPPID"
rc=$?
out=$(cat "$FABCHECK_LAB_HOME/kill.out")
if [ $rc -eq 3 ] && grep -q "nodeB of rack '$RK' did not come up: QEMU exited" <<<"$out" &&
   grep -q "end of nodeB's serial console" <<<"$out"; then
	ok "a guest dying during up is reported with its serial log (exit 3)"
else
	not_ok "a guest dying during up is reported with its serial log (exit 3)" "exit $rc:" "$out"
fi
expect_rack_gone "$RK"

# A boot that misses its deadline.
RT=citime-$$
RACKS+=("$RT")
expect "up past --timeout fails with the serial log" 3 \
	"nodeA of rack '$RT' did not come up: not ready after 3 s" -- "$FC" lab up --name "$RT" --timeout 3
expect_rack_gone "$RT"
expect "serial logs stay after a failed boot" 0 "serial.log" -- \
	ls "$FABCHECK_LAB_HOME/racks/$RT/nodes/nodeA.serial.log"

echo "rack tests took $((SECONDS - T0)) s; ssh stderr of the nodes in $RACK_LOG"
echo "the 15 slowest rack cases (seconds, from the case before; all in $RACK_TIMES):"
sort -t "$(printf '\t')" -k1,1 -rn "$RACK_TIMES" | head -n 15 | sed 's/^/    /'

echo "rack: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
