# Cases for pair's --tclass and --sl and the congestion counters on the
# 2-node rack $RACK_NAME (sourced by tests/rack/run.sh; helpers in
# tests/rack/lib.sh). rxe copies the GRH traffic class into the IPv4 ToS byte
# of its RoCEv2 packets, so what pair asked for is checked on the wire: tcpdump
# in nodeB captures UDP port 4791 on eth0 (the fabric) while a short write
# latency test runs, which sends packets both ways.
# Thresholds: --min-gbps 0.0001 (traffic moved at all), as in cases_pair.sh.
QP=("$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db --timeout 15 --min-gbps 0.0001)
QCAP=/tmp/fc-qos-cap

# qos_capture_start: tcpdump on nodeB's eth0 in the background (20 packets or
# 40 s, whichever first); returns once it listens.
qos_capture_start() {
	rexec nodeB "rm -f $QCAP.*; (timeout 40 tcpdump -i eth0 -n -v -c 20 udp port 4791 \
		>$QCAP.txt 2>$QCAP.err </dev/null & echo \$! >$QCAP.pid);
		for i in \$(seq 100); do grep -q listening $QCAP.err 2>/dev/null && exit 0; sleep 0.1; done;
		cat $QCAP.err; exit 1"
}

# qos_capture_read: waits (5 s at most) for the capture to end, stops it, and
# prints one line per packet: "SRC_IP TOS", e.g. "10.77.1.1 0x6a".
qos_capture_read() {
	rexec nodeB "for i in \$(seq 50); do kill -0 \$(cat $QCAP.pid) 2>/dev/null || break; sleep 0.1; done;
		kill \$(cat $QCAP.pid) 2>/dev/null; sleep 0.2; cat $QCAP.txt" |
		awk '/[( ]tos 0x/ { match($0, /tos 0x[0-9a-f]+/); tos = substr($0, RSTART + 4, RLENGTH - 4); next }
		     / > / && tos != "" { split($1, a, "."); print a[1] "." a[2] "." a[3] "." a[4], tos; tos = "" }'
}

# qos_wire NAME CHECK -- PAIR ARGS...: runs pair (a write latency test) under
# capture; CHECK is a python expression over `pk`, the list of (src, tos int).
qos_wire() {
	local name=$1 check=$2 out pk
	shift 3
	if ! qos_capture_start >/dev/null; then
		not_ok "$name" "tcpdump did not start on nodeB"
		return
	fi
	out=$("$@" 2>&1 </dev/null)
	pk=$(qos_capture_read)
	if python3 -c '
import sys
pk = [(l.split()[0], int(l.split()[1], 16)) for l in sys.stdin.read().splitlines() if l.strip()]
sys.exit(0 if eval(sys.argv[1]) else 1)' "$check" <<<"$pk"; then
		ok "$name"
	else
		not_ok "$name" "want ($check) of the packets captured (source, ToS):" "$pk
pair said:
$out"
	fi
}

read -r QNET < <("$FC" lab status --name "$RACK_NAME" --json | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["fabric"]["subnet"].rsplit(".", 1)[0])')
QBOTH="len(pk) >= 8 and {s for s, t in pk} == {'$QNET.1', '$QNET.2'}"

# ---- --tclass 106 (DSCP 26, ECT(0)): on the wire both ways -------------------
qos_wire "pair --tclass 106: every RoCEv2 packet both ways has ToS 0x6a" \
	"$QBOTH and all(t == 0x6a for s, t in pk)" \
	-- "${QP[@]}" --tclass 106 --test write --lat -s 64 -n 10
qos_wire "pair without --tclass: DSCP 0 on the wire (ECN bits at most)" \
	"$QBOTH and all(t & 0xfc == 0 for s, t in pk)" \
	-- "${QP[@]}" --test write --lat -s 64 -n 10
qos_wire "pair --cm --tclass 106: rdma_cm's ToS lands, both ways" \
	"$QBOTH and all(t == 0x6a for s, t in pk)" \
	-- "${QP[@]}" --cm --tclass 106 --test write --lat -s 64 -n 10
qos_wire "pair --cm without --tclass: DSCP 0" \
	"$QBOTH and all(t & 0xfc == 0 for s, t in pk)" \
	-- "${QP[@]}" --cm --test write --lat -s 64 -n 10
qos_wire "matrix --tclass 184 passes it to pair: ToS 0xb8 (DSCP 46) on the wire" \
	"$QBOTH and all(t == 0xb8 for s, t in pk)" \
	-- "$FC" matrix nodeA nodeB --ssh-config "$SSH_CFG" --db "$FABCHECK_LAB_HOME/qos-$$.db" \
	--timeout 15 --min-gbps 0.0001 --tclass 184 --test write --lat -s 64 -n 10
rm -f "$FABCHECK_LAB_HOME/qos-$$.db"

# ---- what the report says ----------------------------------------------------
expect_json "pair --tclass 106 --sl 3 --json: what each QP carries, SL in the address vector, with a note" 0 \
	"d['verdict'] in ('pass', 'warn') and
	 all((d[s]['tclass'], d[s]['dscp'], d[s]['ecn'], d[s]['sl'], d[s]['qos_source']) == (106, 26, 2, 0, 'qp') for s in 'ab') and
	 (d['options']['tclass'], d['options']['dscp'], d['options']['ecn'], d['options']['sl']) == (106, 26, 2, 3) and
	 any(n.startswith(\"--sl 3 is in the QPs' address vector\") for n in d['notes']) and
	 all(f\"{s}: its QPs carry SL 0, not the 3 asked for with --sl: the driver keeps no SL\" in ' '.join(d['findings']) for s in ('nodeA rxe0', 'nodeB rxe0')) and
	 not any('traffic class' in f for f in d['findings'])" \
	-- "${QP[@]}" --tclass 106 --sl 3 --test write --bw -s 4K -n 10 --json
expect_json "pair --cm --tclass 106 --json: both QPs read back 106" 0 \
	"d['options']['exchange'] == 'rdma_cm' and all(d[s]['tclass'] == 106 and d[s]['dscp'] == 26 for s in 'ab')" \
	-- "${QP[@]}" --cm --tclass 106 --test write --bw -s 4K -n 10 --json
expect_json "pair default: traffic class 0 reported, options null, no SL note" 0 \
	"all(d[s]['tclass'] == 0 for s in 'ab') and d['options']['tclass'] is None and d['options']['sl'] is None and
	 not any('--sl' in n for n in d.get('notes', []))" \
	-- "${QP[@]}" --test write --bw -s 4K -n 10 --json
# rxe: hw_counters only (no counters/ folder, none of mlx5's congestion
# counters); its virtio eth0 has ethtool statistics but no pause, priority or
# discard counter: one note per node, no netdev object, no finding.
expect_json "pair counters on rxe: deltas reported, the netdev's missing counters noted once a node" 0 \
	"d['counters']['nodeA']['sent_pkts'] > 0 and d['counters']['nodeB']['rcvd_pkts'] > 0 and
	 all('netdev' not in d['counters'][n] for n in ('nodeA', 'nodeB')) and
	 sorted(n.split(':')[0] for n in d['notes'] if 'netdev eth0 exposes no pause, priority or discard counters' in n) == ['nodeA', 'nodeB'] and
	 not any('netdev' in f or 'ethtool' in f for f in d['findings'])" \
	-- "${QP[@]}" --tclass 106 --test write --bw -s 4K -n 10 --json
expect "pair --tclass 106 --sl 3: the text report says what was used" 0 \
	"traffic class: nodeA 106 \(DSCP 26, ECN 2\), SL 0; nodeB 106 \(DSCP 26, ECN 2\), SL 0.*note: --sl 3 is in the QPs. address vector.*note: node[AB]: netdev eth0 exposes no pause" \
	-- bash -c "$(printf '%q ' "${QP[@]}") --tclass 106 --sl 3 --test write --bw -s 4K -n 10 | tr '\n' ' '"
