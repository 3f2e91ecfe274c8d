# lab/ops.sh: the rack's other subcommands: status, ssh-config, exec, fault,
# down, kernel. Sourced by rack.sh.

# parse_name ARGS...: takes --name NAME out of the options before the first
# operand; sets RACK_ARGS to the rest. EXTRA_OPTS (a pattern) names the
# flags the subcommand accepts; each one seen is appended to OPTS_SEEN.
parse_name() {
	local sub=$1 name=${FABCHECK_LAB_NAME:-lab}
	shift
	RACK_ARGS=() OPTS_SEEN=""
	while [ $# -gt 0 ]; do
		case $1 in
		--name) need_value "$1" $#; name=$2; shift 2 ;;
		--name=*) name=${1#*=}; shift ;;
		--) shift; break ;;
		-*)
			# shellcheck disable=SC2254
			case $1 in
			${EXTRA_OPTS:-//}) OPTS_SEEN+=" $1"; shift ;;
			*) die_usage "lab $sub: unknown option '$1'; $(lab_usage_hint)" ;;
			esac ;;
		*) break ;;
		esac
	done
	RACK_ARGS=("$@")
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

# node_faults I: the faults applied to node I, as "kind=value" words.
node_faults() {
	local f=$RACK_DIR/nodes/node${LAB_NODE_LETTERS[$1]}.faults
	[ -f "$f" ] && tr '\n' ' ' <"$f" | sed 's/ $//'
}

lab_status() {
	local EXTRA_OPTS=--json i n st bad=0 json=0 faults k v first findings=()
	parse_name status "$@"
	no_operands status
	[[ $OPTS_SEEN == *--json* ]] && json=1
	if [ ! -f "$RACK_ENV" ] || [ ! -d "$RACK_LOCK" ]; then
		if [ $json = 1 ]; then
			printf '{\n  "verdict": "fail",\n  "findings": [%s],\n  "rack": %s,\n  "state": "down",\n  "nodes": []\n}\n' \
				"$(json_str "no rack named '$RACK' is up; start one with 'fabcheck lab up --name $RACK'")" \
				"$(json_str "$RACK")"
			exit 3
		fi
	fi
	rack_load
	for ((i = 0; i < RACK_NODES; i++)); do
		NODE_ST[i]=$(node_state "$i")
		if [ "${NODE_ST[i]}" != ready ]; then
			bad=$((bad + 1))
			findings+=("node${LAB_NODE_LETTERS[i]} is ${NODE_ST[i]}; see its serial log $RACK_DIR/nodes/node${LAB_NODE_LETTERS[i]}.serial.log, and restart the rack (fabcheck lab down --name $RACK; fabcheck lab up --name $RACK)")
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
		printf '  "fabric": { "subnet": "%s.0/24", "mcast": "230.0.0.1:%s", "mtu": %s },\n' "$RACK_NET" "$RACK_PORT" "$RACK_MTU"
		printf '  "kernel": "%s",\n  "ready_s": %s,\n  "nodes": [\n' "$RACK_KERNEL" "${RACK_READY_S:-null}"
		for ((i = 0; i < RACK_NODES; i++)); do
			n=node${LAB_NODE_LETTERS[i]}
			printf '    { "name": "%s", "state": %s, "fabric_ip": "%s.%d", "ssh_port": %s, "pid": %s, "faults": {' \
				"$n" "$(json_str "${NODE_ST[i]}")" "$RACK_NET" $((i + 1)) "${SSH_PORTS[i]}" \
				"$(cat "$RACK_DIR/nodes/$n.pid" 2>/dev/null || echo null)"
			first=1
			for kv in $(node_faults "$i"); do
				k=${kv%%=*} v=${kv#*=}
				[ $first = 1 ] || printf ','
				case $k in
				loss) printf ' "loss_pct": %s' "$v" ;;
				rate) printf ' "rate_mbit": %s' "$v" ;;
				mtu) printf ' "mtu": %s' "$v" ;;
				link) printf ' "link": "%s"' "$v" ;;
				esac
				first=0
			done
			printf ' } }%s\n' "$([ $i -lt $((RACK_NODES - 1)) ] && echo ,)"
		done
		printf '  ]\n}\n'
	else
		say "rack '$RACK': $RACK_NODES nodes, fabric $RACK_NET.0/24 (230.0.0.1:$RACK_PORT), MTU $RACK_MTU, kernel $RACK_KERNEL"
		say "ssh config: $SSH_CFG"
		printf '%-6s  %-8s  %-12s  %-15s  %-8s  %s\n' NODE STATE "FABRIC IP" SSH PID FAULTS
		for ((i = 0; i < RACK_NODES; i++)); do
			n=node${LAB_NODE_LETTERS[i]}
			faults=$(node_faults "$i")
			printf '%-6s  %-8s  %-12s  %-15s  %-8s  %s\n' "$n" "${NODE_ST[i]}" "$RACK_NET.$((i + 1))" \
				"127.0.0.1:${SSH_PORTS[i]}" "$(cat "$RACK_DIR/nodes/$n.pid" 2>/dev/null)" "${faults:--}"
		done
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
	local node rc
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

# The fault script, run by bash on the node: rebuilds eth0's qdiscs, MTU
# and link state from scratch for the faults given in its environment.
# shellcheck disable=SC2016
FAULT_SCRIPT='
set -u
dev=eth0
err() { echo "$*" >&2; exit 1; }
tbf() { tc qdisc add dev "$1" $2 tbf rate "${RATE}mbit" burst "$BURST" latency 50ms; }
tc qdisc del dev $dev root 2>/dev/null
tc qdisc del dev $dev ingress 2>/dev/null
ip link del ifb0 2>/dev/null
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
	# A slow port is slow both ways: what arrives goes through ifb0 and its tbf.
	ip link add ifb0 type ifb && ip link set ifb0 mtu "$MTU" && ip link set ifb0 up &&
	tbf ifb0 root && tc qdisc add dev $dev handle ffff: ingress &&
	tc filter add dev $dev parent ffff: matchall action mirred egress redirect dev ifb0 ||
		err "cannot shape ingress of $dev through ifb0"
fi
ip link set $dev "$LINK" || err "cannot set $dev $LINK"
if [ "$LINK" = up ]; then
	for i in $(seq 100); do
		grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && exit 0
		sleep 0.1
	done
	err "rxe0 port 1 is not ACTIVE 10 s after $dev came up"
fi
'

fault_usage() {
	die_usage "lab fault: $1; usage: fabcheck lab fault [--name NAME] NODE loss PCT | rate MBIT | mtu N | down | clear"
}

# fault_parse KIND [VALUE]: validates one fault; sets FAULT_KEY, FAULT_VAL.
fault_parse() {
	local kind=${1:-} v=${2:-} nargs=$#
	case $kind in
	loss | rate | mtu)
		[ "$nargs" -ge 2 ] || fault_usage "'$kind' needs a value"
		[ "$nargs" -eq 2 ] || fault_usage "unexpected argument '$3'"
		;;
	down | clear)
		[ "$nargs" -eq 1 ] || fault_usage "'$kind' takes no value, got '$2'"
		;;
	"") fault_usage "missing the fault kind" ;;
	*) fault_usage "'$kind' is not a fault kind; expected loss, rate, mtu, down or clear" ;;
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

lab_fault() {
	local node f loss="" rate="" mtu link=up k v burst out
	parse_name fault "$@"
	[ ${#RACK_ARGS[@]} -ge 1 ] || fault_usage "missing NODE"
	node=${RACK_ARGS[0]}
	fault_parse "${RACK_ARGS[@]:1}"
	rack_load
	node_index "$node"
	f=$RACK_DIR/nodes/$node.faults
	mtu=$RACK_MTU
	if [ "$FAULT_KEY" != clear ] && [ -f "$f" ]; then
		while IFS='=' read -r k v; do
			case $k in loss) loss=$v ;; rate) rate=$v ;; mtu) mtu=$v ;; link) link=$v ;; esac
		done <"$f"
	fi
	case $FAULT_KEY in
	loss) loss=$FAULT_VAL ;;
	rate) rate=$FAULT_VAL ;;
	mtu) mtu=$FAULT_VAL ;;
	link) link=down ;;
	esac
	# tbf drops any frame larger than its bucket: hold two full frames, and
	# at least what the rate brings in a 4 ms tick (HZ=250).
	burst=$((2 * (mtu + 100)))
	[ -n "$rate" ] && ((rate * 500 > burst)) && burst=$((rate * 500))
	if ! out=$(node_ssh "$node" "LOSS='$loss' RATE='$rate' MTU='$mtu' LINK='$link' BURST='$burst' bash -s" \
		<<<"$FAULT_SCRIPT" 2>&1); then
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /' >&2
		die_cant "cannot apply the fault on $node of rack '$RACK' through ssh; check 'fabcheck lab status --name $RACK'"
	fi
	{
		[ -n "$loss" ] && echo "loss=$loss"
		[ -n "$rate" ] && echo "rate=$rate"
		[ "$mtu" != "$RACK_MTU" ] && echo "mtu=$mtu"
		[ "$link" = down ] && echo "link=down"
	} >"$f"
	[ -s "$f" ] || rm -f "$f"
	case $FAULT_KEY in
	loss) say "$node: eth0 drops $loss% of the frames it sends (netem)" ;;
	rate) say "$node: eth0 limited to $rate Mbit/s both ways (tbf on egress, ifb0 + tbf on ingress)" ;;
	mtu) say "$node: eth0 MTU $mtu (the rack's is $RACK_MTU); rxe0 follows" ;;
	link) say "$node: eth0 is down (rxe0 port DOWN)" ;;
	clear) say "$node: faults cleared: eth0 up, MTU $RACK_MTU, default qdisc, no ifb0; rxe0 ACTIVE" ;;
	esac
	if [ "$FAULT_KEY" != clear ] && [ -f "$f" ]; then
		say "$node: faults now: $(tr '\n' ' ' <"$f")(undo with 'fabcheck lab fault --name $RACK $node clear')"
	fi
}

lab_down() {
	parse_name down "$@"
	no_operands down
	if [ ! -d "$RACK_LOCK" ] && [ -z "$(rack_qemu_pids)" ]; then
		say "rack '$RACK' is not up in $LAB_HOME"
		return 0
	fi
	if ! rack_kill; then
		die_cant "QEMU process(es) $(rack_qemu_pids | tr '\n' ' ')of rack '$RACK' survive SIGKILL; check them with ps"
	fi
	rm -f "$RACK_ENV"
	rm -rf "$RACK_LOCK"
	say "rack '$RACK' is down ($KILLED QEMU process(es) stopped; logs in $RACK_DIR/nodes)"
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
