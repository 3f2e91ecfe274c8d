# lab/ops.sh: the rack's other subcommands: status, ssh-config, exec, fault,
# down, kernel. Sourced by rack.sh.

# parse_name SUB ARGS...: takes the options out of the line, wherever they
# are (like every fabcheck command): --name NAME, the flags EXTRA_OPTS names
# (a pattern; each one seen is appended to OPTS_SEEN) and the options with a
# value VALUE_OPTS names (--rail R: OPT_rail=R). The operands, in order, go to
# RACK_ARGS; after OPERANDS_MAX operands (exec: NODE) the rest of the line is
# operands as it stands (the command to run), as it is after "--".
parse_name() {
	local sub=$1 name=${FABCHECK_LAB_NAME:-lab} o
	shift
	RACK_ARGS=() OPTS_SEEN=""
	while [ $# -gt 0 ]; do
		if [ -n "${OPERANDS_MAX:-}" ] && [ ${#RACK_ARGS[@]} -ge "$OPERANDS_MAX" ]; then
			RACK_ARGS+=("$@")
			break
		fi
		case $1 in
		--name) need_value "$1" $#; name=$2; shift 2 ;;
		--name=*) name=${1#*=}; shift ;;
		--) shift; RACK_ARGS+=("$@"); break ;;
		-[0-9]* | -.[0-9]* | -) RACK_ARGS+=("$1"); shift ;; # a (bad) value, not an option
		--*=*)
			o=${1%%=*}
			# shellcheck disable=SC2254
			case $o in
			${VALUE_OPTS:-//}) printf -v "OPT_${o#--}" '%s' "${1#*=}"; shift ;;
			*) die_usage "lab $sub: unknown option '$1'; $(lab_usage_hint)" ;;
			esac ;;
		-*)
			# shellcheck disable=SC2254
			case $1 in
			${EXTRA_OPTS:-//}) OPTS_SEEN+=" $1"; shift ;;
			${VALUE_OPTS:-//}) need_value "$1" $#; printf -v "OPT_${1#--}" '%s' "$2"; shift 2 ;;
			*) die_usage "lab $sub: unknown option '$1'; $(lab_usage_hint)" ;;
			esac ;;
		*) RACK_ARGS+=("$1"); shift ;;
		esac
	done
	check_name "$name"
	lab_home_init
	rack_paths "$name"
}

no_operands() {
	[ ${#RACK_ARGS[@]} -eq 0 ] || die_usage "lab $1: unexpected argument '${RACK_ARGS[0]}'; $(lab_usage_hint)"
}

json_str() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

# node_state I: a node's state, from its QEMU process and the guest's file.
node_state() {
	local n=node${LAB_NODE_LETTERS[$1]} pid st
	pid=$(cat "$RACK_DIR/nodes/$n.pid" 2>/dev/null)
	if ! pid_alive "$pid"; then
		echo stopped
		return
	fi
	st=$(cat "$SHARE/state/$n" 2>/dev/null)
	case $st in
	ready | rdma | failed:*) echo "$st" ;;
	*) echo booting ;;
	esac
}

# node_stalled I: prints the guest kernel's last "NETDEV WATCHDOG" line of
# node I (from its serial log, "eth0: NETDEV WATCHDOG: ... transmit queue 0
# timed out 5072 ms"), and returns 0 when there is one: a NIC that completed
# no transmit for 5 s with packets queued. Seen on the socket multicast
# fabric under TCG: the NIC never sends again (tests/rack/stall.sh).
node_stalled() {
	local line
	line=$(grep -a -o '[a-z0-9]*: NETDEV WATCHDOG: .*' "$RACK_DIR/nodes/node${LAB_NODE_LETTERS[$1]}.serial.log" 2>/dev/null |
		tail -n 1 | tr -cd '[:print:]')
	[ -n "$line" ] && echo "$line"
}

# node_faults I [R]: the faults applied to rail R (default 0) of node I, as
# "kind=value" words.
node_faults() {
	local f
	f=$(faults_file "node${LAB_NODE_LETTERS[$1]}" "${2:-0}")
	[ -f "$f" ] && tr '\n' ' ' <"$f" | sed 's/ $//'
}

# faults_json I R: rail R's faults of node I as a JSON object's members.
faults_json() {
	local kv k v first=1
	for kv in $(node_faults "$1" "$2"); do
		k=${kv%%=*} v=${kv#*=}
		[ $first = 1 ] || printf ','
		case $k in
		loss) printf ' "loss_pct": %s' "$v" ;;
		rate) printf ' "rate_mbit": %s' "$v" ;;
		mtu) printf ' "mtu": %s' "$v" ;;
		link) printf ' "link": "%s"' "$v" ;;
		miswire) printf ' "miswire": true' ;;
		esac
		first=0
	done
}

# status_rails_json: the fabric's rails; status_node_rails_json I: a node's.
status_rails_json() {
	local r
	for ((r = 0; r < RACK_RAILS; r++)); do
		printf '%s{ "rail": %d, "device": "rxe%d", "netdev": "%s", "subnet": "%s.0/24", "segment": "%s" }' \
			"$([ $r -gt 0 ] && echo ', ')" "$r" "$r" "$(rail_eth "$r")" "$(rail_net "$r")" "$(fabric_segment "$r")"
	done
}
status_node_rails_json() {
	local r
	for ((r = 0; r < RACK_RAILS; r++)); do
		printf '%s{ "rail": %d, "fabric_ip": "%s.%d", "faults": {%s } }' "$([ $r -gt 0 ] && echo ', ')" \
			"$r" "$(rail_net "$r")" "$(node_octet "$1")" "$(faults_json "$1" "$r")"
	done
}

# calib_recorded [--json]: lab up's calibration judged again (fabcheck lab
# calibrate --recorded, lab/cmd_calib.c); "null" (JSON) or nothing when
# there is none.
calib_recorded() {
	local out rc
	local cols=${COLUMNS:-}
	# its line fitted to this terminal (lab/cmd_calib.c): the width, which
	# the pipe below does not have
	[ -z "$cols" ] && [ -t 1 ] && cols=$(tput cols 2>/dev/null)
	out=$(env FABCHECK_LAB_HOME="$LAB_HOME" ${cols:+COLUMNS="$cols"} "${FABCHECK_SELF:-fabcheck}" lab calibrate --name "$RACK" --recorded "$@" 2>/dev/null </dev/null)
	rc=$?
	if [ $rc -le 1 ] && [ -n "$out" ]; then
		printf '%s\n' "$out"
	elif [ "${1:-}" = --json ]; then
		echo null
	fi
}

lab_status() {
	local EXTRA_OPTS=--json i n st bad=0 json=0 faults first findings=() r
	parse_name status "$@"
	no_operands status
	[[ $OPTS_SEEN == *--json* ]] && json=1
	if [ ! -f "$RACK_ENV" ] || [ ! -d "$RACK_LOCK" ]; then
		if [ $json = 1 ]; then
			st="no rack named '$RACK' is up; start one with 'fabcheck lab up --name $RACK'"
			printf '{\n  "verdict": "fail",\n  "findings": [%s],\n  "rack": %s,\n  "state": "down",\n  "nodes": [],\n  "error": {"code": "cant_run", "exit_code": 3, "message": %s, "input": null}\n}\n' \
				"$(json_str "$st")" "$(json_str "$RACK")" "$(json_str "$st")"
			exit 3
		fi
	fi
	rack_load
	RACK_RAILS=${RACK_RAILS:-1}
	for ((i = 0; i < RACK_NODES; i++)); do
		NODE_ST[i]=$(node_state "$i")
		n=node${LAB_NODE_LETTERS[i]}
		if [ "${NODE_ST[i]}" != ready ]; then
			bad=$((bad + 1))
			findings+=("$n is ${NODE_ST[i]}; see its serial log $RACK_DIR/nodes/$n.serial.log, and restart the rack (fabcheck lab down --name $RACK; fabcheck lab up --name $RACK)")
		elif st=$(node_stalled "$i"); then
			NODE_ST[i]=stalled
			bad=$((bad + 1))
			findings+=("$n: its NIC ${st%%:*} stopped sending (its kernel said '$st'): the emulator's virtio-net takes no more of its packets, so RDMA to and from $n times out; restart the rack (fabcheck lab down --name $RACK; fabcheck lab up --name $RACK)")
		fi
	done
	if [ $json = 1 ]; then
		printf '{\n  "verdict": "%s",\n  "findings": [' "$([ $bad = 0 ] && echo pass || echo fail)"
		first=1
		for f in "${findings[@]}"; do
			[ $first = 1 ] || printf ', '
			json_str "$f"
			first=0
		done
		printf '],\n  "rack": %s,\n  "state": "%s",\n' "$(json_str "$RACK")" "$([ $bad = 0 ] && echo up || echo degraded)"
		printf '  "home": %s,\n  "ssh_config": %s,\n' "$(json_str "$LAB_HOME")" "$(json_str "$SSH_CFG")"
		printf '  "fabric": { "subnet": "%s.0/24", "transport": "%s", "segment": "%s", "mtu": %s, "rails": [%s] },\n' \
			"$RACK_NET" "${RACK_FABRIC:-mcast}" "$(fabric_segment 0)" "$RACK_MTU" "$(status_rails_json)"
		printf '  "kernel": "%s",\n  "ready_s": %s,\n' "$RACK_KERNEL" "${RACK_READY_S:-null}"
		printf '  "calibration": %s,\n  "nodes": [\n' "$(calib_recorded --json)"
		for ((i = 0; i < RACK_NODES; i++)); do
			n=node${LAB_NODE_LETTERS[i]}
			printf '    { "name": "%s", "state": %s, "fabric_ip": "%s.%d", "ssh_port": %s, "pid": %s, "faults": {%s }, "rails": [%s] }%s\n' \
				"$n" "$(json_str "${NODE_ST[i]}")" "$RACK_NET" $((i + 1)) "${SSH_PORTS[i]}" \
				"$(cat "$RACK_DIR/nodes/$n.pid" 2>/dev/null || echo null)" "$(faults_json "$i" 0)" \
				"$(status_node_rails_json "$i")" "$([ $i -lt $((RACK_NODES - 1)) ] && echo ,)"
		done
		printf '  ],\n  "error": null\n}\n'
	else
		# the rack, then a line per rail: each fits 100 columns (issue 39 item 3)
		if [ "$RACK_RAILS" = 1 ]; then
			say "rack '$RACK': $RACK_NODES nodes, MTU $RACK_MTU, kernel $RACK_KERNEL"
			say "fabric: $RACK_NET.0/24 ($(fabric_segment 0))"
		else
			say "rack '$RACK': $RACK_NODES nodes x $RACK_RAILS rails, MTU $RACK_MTU, kernel $RACK_KERNEL"
			for ((r = 0; r < RACK_RAILS; r++)); do
				say "fabric rail $r: $(rail_net "$r").0/24 ($(fabric_segment "$r"))"
			done
		fi
		say "ssh config: $SSH_CFG"
		printf '%-6s  %-8s  %-12s  %-15s  %-8s  %s\n' NODE STATE "FABRIC IP" SSH PID FAULTS
		for ((i = 0; i < RACK_NODES; i++)); do
			n=node${LAB_NODE_LETTERS[i]}
			faults=$(node_faults "$i")
			for ((r = 1; r < RACK_RAILS; r++)); do
				[ -n "$(node_faults "$i" "$r")" ] && faults+="${faults:+ }rail$r:$(node_faults "$i" "$r" | sed "s/ / rail$r:/g")"
			done
			printf '%-6s  %-8s  %-12s  %-15s  %-8s  %s\n' "$n" "${NODE_ST[i]}" "$RACK_NET.$((i + 1))" \
				"127.0.0.1:${SSH_PORTS[i]}" "$(cat "$RACK_DIR/nodes/$n.pid" 2>/dev/null)" "${faults:--}"
		done
		calib_recorded
		for f in "${findings[@]}"; do
			say "FAIL: $f"
		done
		say "verdict: $([ $bad = 0 ] && echo pass || echo fail)"
	fi
	[ $bad = 0 ] || exit 1
}

lab_ssh_config() {
	parse_name ssh-config "$@"
	no_operands ssh-config
	rack_load
	echo "$SSH_CFG"
}

lab_exec() {
	local node rc OPERANDS_MAX=1
	parse_name exec "$@"
	[ ${#RACK_ARGS[@]} -ge 1 ] || die_usage "lab exec: missing NODE and CMD; usage: fabcheck lab exec [--name NAME] NODE CMD..."
	node=${RACK_ARGS[0]}
	[ ${#RACK_ARGS[@]} -ge 2 ] || die_usage "lab exec: missing the command to run on $node; usage: fabcheck lab exec [--name NAME] NODE CMD..."
	rack_load
	node_index "$node"
	node_ssh "$node" "${RACK_ARGS[@]:1}"
	rc=$?
	[ $rc = 255 ] && die_cant "cannot reach $node of rack '$RACK' by ssh (127.0.0.1:${SSH_PORTS[NODE_I]}); check 'fabcheck lab status --name $RACK'"
	exit $rc
}

# The fault script, run by bash on the node: rebuilds one rail NIC's qdiscs,
# MTU and link state from scratch for the faults given in its environment
# (DEV, IFB, LOSS, RATE, MTU, LINK, BURST).
# shellcheck disable=SC2016
FAULT_SCRIPT='
set -u
dev=$DEV
err() { echo "$*" >&2; exit 1; }
tbf() { tc qdisc add dev "$1" $2 tbf rate "${RATE}mbit" burst "$BURST" latency 50ms; }
tc qdisc del dev $dev root 2>/dev/null
tc qdisc del dev $dev ingress 2>/dev/null
ip link del $IFB 2>/dev/null
ip link set $dev mtu "$MTU" || err "cannot set MTU $MTU on $dev"
if [ -n "$LOSS" ] && [ -n "$RATE" ]; then
	tc qdisc add dev $dev root handle 1: netem loss "$LOSS%" &&
	tbf $dev "parent 1:1 handle 10:" || err "cannot add netem + tbf to $dev"
elif [ -n "$LOSS" ]; then
	tc qdisc add dev $dev root netem loss "$LOSS%" || err "cannot add netem to $dev"
elif [ -n "$RATE" ]; then
	tbf $dev root || err "cannot add tbf to $dev"
fi
if [ -n "$RATE" ]; then
	# A slow port is slow both ways: what arrives goes through the ifb and its tbf.
	ip link add $IFB type ifb && ip link set $IFB mtu "$MTU" && ip link set $IFB up &&
	tbf $IFB root && tc qdisc add dev $dev handle ffff: ingress &&
	tc filter add dev $dev parent ffff: matchall action mirred egress redirect dev $IFB ||
		err "cannot shape ingress of $dev through $IFB"
fi
ip link set $dev "$LINK" || err "cannot set $dev $LINK"
if [ "$LINK" = up ]; then
	for i in $(seq 100); do
		rdma link show | awk -v d="$dev" '"'"'{ for (i = 1; i < NF; i++) if ($i == "netdev" && $(i + 1) == d) print }'"'"' |
			grep -q "state ACTIVE" && exit 0
		sleep 0.1
	done
	err "the rxe device on $dev is not ACTIVE 10 s after $dev came up"
fi
'

# The miswire script: binds rxe0 to rail 1 NIC and rxe1 to rail 0 NIC (SWAP=1),
# or back (SWAP=0). The addresses stay with the segments, as a DHCP server on
# each rail would hand them out: the devices change rails.
# shellcheck disable=SC2016
MISWIRE_SCRIPT='
set -u
err() { echo "$*" >&2; exit 1; }
a=eth0 b=eth2
[ "$SWAP" = 1 ] && a=eth2 b=eth0
rdma link delete rxe0 2>/dev/null
rdma link delete rxe1 2>/dev/null
rdma link add rxe0 type rxe netdev $a || err "rdma link add rxe0 netdev $a failed"
rdma link add rxe1 type rxe netdev $b || err "rdma link add rxe1 netdev $b failed"
for i in $(seq 100); do
	grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state &&
	grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state && exit 0
	sleep 0.1
done
err "rxe0 and rxe1 are not both ACTIVE 10 s after the swap"
'

fault_usage() {
	die_usage "lab fault: $1; usage: fabcheck lab fault [--name NAME] NODE [--rail R] loss PCT | rate MBIT | mtu N | down | miswire | clear"
}

# fault_parse KIND [VALUE]: validates one fault; sets FAULT_KEY, FAULT_VAL.
fault_parse() {
	local kind=${1:-} v=${2:-} nargs=$#
	case $kind in
	loss | rate | mtu)
		[ "$nargs" -ge 2 ] || fault_usage "'$kind' needs a value"
		[ "$nargs" -eq 2 ] || fault_usage "unexpected argument '$3'"
		;;
	down | clear | miswire)
		[ "$nargs" -eq 1 ] || fault_usage "'$kind' takes no value, got '$2'"
		;;
	"") fault_usage "missing the fault kind" ;;
	*) fault_usage "'$kind' is not a fault kind; expected loss, rate, mtu, down, miswire or clear" ;;
	esac
	FAULT_KEY=$kind FAULT_VAL=$v
	case $kind in
	loss)
		v=${v%\%}
		if ! [[ $v =~ ^[0-9]{1,3}(\.[0-9]{1,3})?$ ]] || ! awk -v x="$v" 'BEGIN { exit !(x > 0 && x <= 100) }'; then
			die_usage "lab fault loss: '$2' is not a loss percentage; expected a number above 0 up to 100 (e.g. 5 or 0.5); 'clear' removes it"
		fi
		FAULT_VAL=$v ;;
	rate)
		v=${v%mbit}
		if ! [[ $v =~ ^[0-9]{1,6}$ ]] || ((10#$v < 1 || 10#$v > 100000)); then
			die_usage "lab fault rate: '$2' is not a rate; expected Mbit/s as an integer from 1 to 100000 (e.g. 20)"
		fi
		FAULT_VAL=$((10#$v)) ;;
	mtu)
		check_int "lab fault mtu" "$v" $LAB_MTU_MIN $LAB_MTU_MAX
		FAULT_VAL=$((10#$v)) ;;
	down) FAULT_KEY=link FAULT_VAL=down ;;
	esac
}

# faults_file NODE R: where rail R's faults of NODE are kept (rail 0: NODE.faults).
faults_file() {
	if [ "$2" = 0 ]; then echo "$RACK_DIR/nodes/$1.faults"; else echo "$RACK_DIR/nodes/$1.rail$2.faults"; fi
}

# fault_apply NODE R KEY VALUE: one rail's faults, old ones kept unless KEY is clear.
fault_apply() {
	local node=$1 r=$2 key=$3 val=$4 f loss="" rate="" mtu=$RACK_MTU link=up k v burst out dev
	f=$(faults_file "$node" "$r")
	dev=$(rail_eth "$r")
	if [ "$key" != clear ] && [ -f "$f" ]; then
		while IFS='=' read -r k v; do
			case $k in loss) loss=$v ;; rate) rate=$v ;; mtu) mtu=$v ;; link) link=$v ;; esac
		done <"$f"
	fi
	case $key in
	loss) loss=$val ;;
	rate) rate=$val ;;
	mtu) mtu=$val ;;
	link) link=down ;;
	esac
	# tbf drops any frame larger than its bucket: hold two full frames, and
	# at least what the rate brings in a 4 ms tick (HZ=250).
	burst=$((2 * (mtu + 100)))
	[ -n "$rate" ] && ((rate * 500 > burst)) && burst=$((rate * 500))
	if ! out=$(node_ssh "$node" "DEV='$dev' IFB='ifb$r' LOSS='$loss' RATE='$rate' MTU='$mtu' LINK='$link' BURST='$burst' bash -s" \
		<<<"$FAULT_SCRIPT" 2>&1); then
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /' >&2
		die_cant "cannot apply the fault on $node of rack '$RACK' through ssh; check 'fabcheck lab status --name $RACK'"
	fi
	{
		[ -n "$loss" ] && echo "loss=$loss"
		[ -n "$rate" ] && echo "rate=$rate"
		[ "$mtu" != "$RACK_MTU" ] && echo "mtu=$mtu"
		[ "$link" = down ] && echo "link=down"
		[ "$r" = 0 ] && grep -s '^miswire=' "$f"
	} >"$f.new"
	mv -f "$f.new" "$f"
	[ -s "$f" ] || rm -f "$f"
	FAULT_LOSS=$loss FAULT_RATE=$rate FAULT_MTU=$mtu
}

# fault_miswire NODE SWAP: swaps (1) or restores (0) the node's rxe0/rxe1.
fault_miswire() {
	local f out
	f=$(faults_file "$1" 0)
	if ! out=$(node_ssh "$1" "SWAP='$2' bash -s" <<<"$MISWIRE_SCRIPT" 2>&1); then
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /' >&2
		die_cant "cannot swap the fabric NICs of $1 of rack '$RACK' through ssh; check 'fabcheck lab status --name $RACK'"
	fi
	{ grep -sv '^miswire=' "$f"; [ "$2" = 1 ] && echo "miswire=1"; } >"$f.new"
	mv -f "$f.new" "$f"
	[ -s "$f" ] || rm -f "$f"
}

lab_fault() {
	local node r=0 d f rails=() VALUE_OPTS=--rail OPT_rail=""
	parse_name fault "$@"
	[ ${#RACK_ARGS[@]} -ge 1 ] || fault_usage "missing NODE"
	node=${RACK_ARGS[0]}
	fault_parse "${RACK_ARGS[@]:1}"
	rack_load
	RACK_RAILS=${RACK_RAILS:-1}
	node_index "$node"
	if [ -n "$OPT_rail" ]; then
		[[ $OPT_rail =~ ^[0-9]$ ]] && ((OPT_rail < RACK_RAILS)) ||
			die_usage "lab fault --rail: '$OPT_rail' is not a rail of rack '$RACK'; its rails are 0 to $((RACK_RAILS - 1)) (lab up --rails N makes more)"
		r=$OPT_rail
	fi
	d=$(rail_eth "$r")
	case $FAULT_KEY in
	miswire)
		[ "$RACK_RAILS" -ge 2 ] || die_usage "lab fault miswire: rack '$RACK' has one rail; it swaps a node's rail 0 and rail 1 NICs (lab up --rails 2)"
		[ -z "$OPT_rail" ] || die_usage "lab fault miswire: it swaps rails 0 and 1; drop --rail"
		fault_miswire "$node" 1
		say "$node: rxe0 now on rail 1's segment (eth2, $(rail_net 1).0/24), rxe1 on rail 0's (eth0, $RACK_NET.0/24): the two devices' names swapped over their NICs (the NICs' cables are unchanged)"
		;;
	clear)
		# Without --rail: every rail, and a miswire undone.
		if [ -n "$OPT_rail" ]; then rails=("$r"); else for ((d = 0; d < RACK_RAILS; d++)); do rails+=("$d"); done; fi
		[ -z "$OPT_rail" ] && grep -qs '^miswire=1' "$(faults_file "$node" 0)" && fault_miswire "$node" 0
		for f in "${rails[@]}"; do fault_apply "$node" "$f" clear ""; done
		if [ -n "$OPT_rail" ]; then
			say "$node: rail $r faults cleared: $(rail_eth "$r") up, MTU $RACK_MTU, default qdisc; its rxe device ACTIVE"
		else
			say "$node: faults cleared: eth0 up, MTU $RACK_MTU, default qdisc, no ifb0; rxe0 ACTIVE$([ "$RACK_RAILS" -gt 1 ] && echo "; every rail")"
		fi
		;;
	*)
		fault_apply "$node" "$r" "$FAULT_KEY" "$FAULT_VAL"
		case $FAULT_KEY in
		loss) say "$node: $d drops $FAULT_LOSS% of the frames it sends (netem)" ;;
		rate) say "$node: $d limited to $FAULT_RATE Mbit/s both ways (tbf on egress, ifb$r + tbf on ingress)" ;;
		mtu) say "$node: $d MTU $FAULT_MTU (the rack's is $RACK_MTU); its rxe device follows" ;;
		link) say "$node: $d is down (its rxe port DOWN)" ;;
		esac
		;;
	esac
	f=$(faults_file "$node" "$r")
	if [ "$FAULT_KEY" != clear ] && [ -f "$f" ]; then
		say "$node: faults now$([ "$RACK_RAILS" -gt 1 ] && echo " on rail $r"): $(tr '\n' ' ' <"$f")(undo with 'fabcheck lab fault --name $RACK $node clear')"
	fi
}

lab_down() {
	parse_name down "$@"
	no_operands down
	# The bridged fabric's slot and transport, to take its links down too.
	# shellcheck source=/dev/null
	[ -f "$RACK_ENV" ] && . "$RACK_ENV"
	if [ ! -d "$RACK_LOCK" ] && [ -z "$(rack_qemu_pids)" ]; then
		say "rack '$RACK' is not up in $LAB_HOME"
		return 0
	fi
	if ! rack_kill; then
		die_cant "QEMU processes of rack '$RACK' survive SIGKILL: $(rack_qemu_pids | tr '\n' ' ')(check them with ps)"
	fi
	fabric_down
	rm -f "$RACK_ENV"
	rm -rf "$RACK_LOCK"
	say "rack '$RACK' is down ($KILLED QEMU process$([ "$KILLED" = 1 ] || echo es) stopped; logs in $RACK_DIR/nodes)"
}

lab_kernel() {
	local rebuild=0
	while [ $# -gt 0 ]; do
		case $1 in
		--rebuild) rebuild=1; shift ;;
		*) die_usage "lab kernel: unexpected argument '$1'; usage: fabcheck lab kernel [--rebuild]" ;;
		esac
	done
	lab_home_init
	[ $rebuild = 1 ] && rm -rf "$LAB_HOME/kernel"
	kernel_ensure
	say "kernel $KERNEL_VER: $KERNEL_IMG"
	say "initramfs: $KERNEL_INITRD ($(wc -l <"${KERNEL_INITRD%/*}/modules.order") modules: ${LAB_MODULES[*]} and their dependencies)"
}
