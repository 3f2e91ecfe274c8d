# shellcheck shell=bash
# tests/rack/stall.sh: the emulator's own fault, told apart from fabcheck's
# (sourced by tests/rack/run.sh, after lib.sh).
#
# Seen in a fresh-clone make check: nodeA's fabric NIC (QEMU virtio-net on
# the -netdev socket multicast segment) stopped sending for good in the
# middle of tests/rack/cases_diag.sh. The guest handed packets to the NIC
# (its qdisc counted them) but the NIC completed none (tx_packets frozen,
# no kick reached QEMU, QEMU issued no sendto on the segment's socket; after
# minutes the guest logged "NETDEV WATCHDOG: ... transmit queue 0 timed
# out"). ARP to nodeA then never resolved, and every later case on that
# rack failed with "INIT->RTR refused: Connection timed out" (the kernel's
# address resolution of the peer GID timing out). Nothing a guest program
# does can stop a NIC's host side from taking descriptors, so a node whose
# NIC completes no transmit across a try, with its link up, is the
# emulator's fault: the case file's results are set aside, said so with the
# evidence, and the file runs again on a new rack. A link that is down, or a
# peer that answers nothing while our NIC sends, is not that: those fail.

# nic_stalled RC OPER TX_BEFORE TX_AFTER QDISC_BEFORE QDISC_AFTER WATCHDOG:
# 0 when a try to reach the peer failed (RC not 0) with the link up and the
# NIC completing no transmit (tx_packets unchanged) though it had packets:
# the qdisc handed it some (its Sent count grew), or, once its ring is full
# and the qdisc holds them, the guest's kernel said so (WATCHDOG is the
# serial log's "eth0: NETDEV WATCHDOG" line, empty if none). A link down, a
# qdisc that drops (netem loss 100% hands the NIC nothing) or a NIC that
# sends to a peer that does not answer is not the emulator's stall.
nic_stalled() {
	[ "$1" != 0 ] && [ "$2" = up ] && [ "$3" = "$4" ] || return 1
	[ -n "$7" ] && return 0
	[ -n "$5" ] && [ -n "$6" ] && [ "$6" -gt "$5" ] 2>/dev/null
}

# fabric_stall RACK SSH_CFG: prints one line for each node of RACK whose
# rail-0 NIC stalled (nic_stalled) while it tried to reach the next node's sshd over
# the fabric (4 s at most), with its counters and its serial log's
# NETDEV WATCHDOG lines; returns 0 when there is such a node.
fabric_stall() {
	local rack=$1 cfg=$2 ips=() names=() i n wd found=1 pids=() dir rc oper before after qb qa
	while read -r n i; do
		names+=("$n") ips+=("$i")
	done < <("$FC" lab status --name "$rack" --json 2>/dev/null | jq -r '.nodes[] | "\(.name) \(.fabric_ip)"')
	[ "${#names[@]}" -ge 2 ] || return 1
	dir=$(mktemp -d /tmp/fc-stall-XXXXXX)
	for i in "${!names[@]}"; do
		n=$(((i + 1) % ${#names[@]}))
		# one shell line: the NIC's link state and transmit count, around a
		# TCP connection to the next node over the fabric
		ssh -F "$cfg" "${names[i]}" -- "s=/sys/class/net/eth0; q() { tc -s qdisc show dev eth0 | awk '/Sent/ { print \$4; exit }'; };
			b=\$(cat \$s/statistics/tx_packets) qb=\$(q);
			timeout 4 bash -c 'exec 3<>/dev/tcp/${ips[n]}/22' 2>/dev/null; rc=\$?;
			echo \$rc \$(cat \$s/operstate) \$b \$(cat \$s/statistics/tx_packets) \$qb \$(q)" \
			>"$dir/$i" 2>>"${RACK_LOG:-/dev/null}" </dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in "${!names[@]}"; do
		n=$(((i + 1) % ${#names[@]}))
		read -r rc oper before after qb qa <"$dir/$i" || continue
		wd=$(grep -h 'eth0: NETDEV WATCHDOG' "$FABCHECK_LAB_HOME/racks/$rack/nodes/${names[i]}.serial.log" 2>/dev/null | tail -n 1)
		nic_stalled "$rc" "$oper" "$before" "$after" "$qb" "$qa" "$wd" || continue
		found=0
		echo "${names[i]}: eth0 is up and had packets to send (its qdisc's Sent count $qb, then $qa), but it completed no transmit (tx_packets $before before and after) while it tried to reach ${names[n]} (${ips[n]}:22)${wd:+; its serial log: $wd}"
	done
	rm -rf "$dir"
	return $found
}

# run_cases RACK FILE UP_ARGS...: sources the case FILE against RACK (whose
# SSH_CFG is set); when a node of RACK then shows the stall above, the
# file's results are set aside, RACK is brought down and up again with
# UP_ARGS and FILE runs once more, its results then counted whatever they
# are. A stall after the second run is a failure of its own.
run_cases() {
	local rack=$1 file=$2 p0=$pass f0=$fail why
	shift 2
	# shellcheck source=/dev/null
	. "$file"
	why=$(fabric_stall "$rack" "$SSH_CFG") || return 0
	echo "    the emulator's NIC stalled on rack $rack during $file:"
	sed 's/^/      /' <<<"$why"
	echo "    its $((pass - p0)) passed and $((fail - f0)) failed results are set aside; $rack restarts and $file runs again"
	pass=$p0 fail=$f0
	"$FC" lab down --name "$rack" >/dev/null 2>&1
	rack_up "$rack" "$@" || return 0
	SSH_CFG=$("$FC" lab ssh-config --name "$rack")
	# shellcheck source=/dev/null
	. "$file"
	why=$(fabric_stall "$rack" "$SSH_CFG") &&
		not_ok "the fabric of rack $rack after $file (run again)" "the emulator's NIC stalled again:" "$why"
	return 0
}
