# Cases for the diagnosis (diag/, doc/diagnose.md) on the 2-node rack
# $RACK_NAME: each fault of lab/ gets its part named, and the healthy rack no
# cable advice. Thresholds: --min-gbps 0.02 (a healthy pair moves 0.04-0.15
# Gb/s at 64 KiB; 20 Mbit/s both ways is at most 0.02). The fault is always
# on nodeB; each case clears it.
DX=/tmp/fc-diag-rack.$$
DP=("$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db --timeout 30 --min-gbps 0.02
	--test write,read --bw -s 64K -n 100 --json)
rm -rf "$DX" && mkdir -p "$DX"

# diag_case NAME JQ -- ARGS...: pair --json with ARGS (and --save-evidence),
# then JQ must hold of its document.
diag_case() {
	local name=$1 check=$2 dir=$DX/$3 out
	shift 4
	out=$("${DP[@]}" "$@" --save-evidence "$dir" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	if jq -e "$check" >/dev/null 2>&1 <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "want ($check) of the diagnosis:" \
			"$(jq -c '.verdict, .diagnosis' <<<"$out" 2>&1 | head -c 3000)"
	fi
}
NOCABLE='all(.diagnosis[]; (.part | test("cable") | not) and (.next | test("swap the cable") | not))'
# no part that is a cable, a module, a lane or a port (issue 25)
NOPART='all(.diagnosis[]; .part | test("cable|transceiver|fibre|lane|switch port") | not)'

diag_case "diagnosis: a healthy busy pair gets no cable advice" \
	"$NOCABLE and $NOPART and (.findings | all(test(\"check the cable\") | not))" healthy --
diag_case_offline() {
	local live off
	live=$(jq -cS '.diagnosis' "$DX/healthy/test.json" 2>&1)
	off=$("$FC" diagnose --json "$DX/healthy" 2>>"${RACK_LOG:-/dev/null}" | jq -cS '.sets[0].diagnosis' 2>&1)
	if [ -n "$live" ] && [ "$live" = "$off" ]; then
		ok "diagnose DIR gives the live run's diagnosis offline"
	else
		not_ok "diagnose DIR gives the live run's diagnosis offline" "live vs offline:" "$live
$off"
	fi
}
diag_case_offline

"$FC" lab fault --name "$RACK_NAME" nodeB loss 5 >/dev/null
diag_case "diagnosis: loss 5 on nodeB: drops in what nodeB sends, not a cable" \
	"$NOCABLE and $NOPART and .diagnosis[0].part == \"buffers or QoS configuration\" and (.diagnosis[0].subject | startswith(\"nodeB rxe0 ->\"))" loss --
"$FC" lab fault --name "$RACK_NAME" nodeB rate 20 >/dev/null
# A shaper without flow control drops what exceeds its rate (tbf: nodeA sent
# 60,897 packets, nodeB received 7,023 at 5 Mbit/s), so rxe retries and the
# drops row comes first; the slow path must be named, and no part of the
# host or the port's hardware.
diag_case "diagnosis: rate 20 on nodeB: a slow path, no hardware part" \
	"$NOCABLE and .verdict == \"fail\" and any(.diagnosis[]; .rule == \"slow_clean\") and
	 all(.diagnosis[]; .part | test(\"HCA|PCIe|transceiver|^configuration\") | not)" rate -- -t 2 --test write
"$FC" lab fault --name "$RACK_NAME" nodeB mtu 1500 >/dev/null
# --timeout 10 (the last one given is taken): frames larger than nodeB's
# 1500 B are lost, so each test waits out its timeout; the diagnosis is read
# from both nodes' MTUs, not from how long that took (42 s at --timeout 30).
diag_case "diagnosis: mtu 1500 on nodeB: configuration (MTU)" \
	"$NOCABLE and .diagnosis[0].part == \"configuration (MTU)\"" mtu -- --timeout 10
# the same folder without its test.json: both nodes' mtu files say it alone
rm -f "$DX/mtu/test.json"
out=$("$FC" diagnose --json "$DX/mtu" 2>>"${RACK_LOG:-/dev/null}")
if jq -e ".sets[0] | .diagnosis[0].part == \"configuration (MTU)\" and $NOPART" >/dev/null 2>&1 <<<"$out"; then
	ok "diagnosis: mtu 1500 on nodeB, no test.json: configuration (MTU) from the mtu files"
else
	not_ok "diagnosis: mtu 1500 on nodeB, no test.json: configuration (MTU) from the mtu files" \
		"diagnose said:" "$(jq -c '.' <<<"$out" 2>&1 | head -c 3000)"
fi
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null

# ---- a link flap mid-soak: the port named -----------------------------------
# The flap comes 3 s after nodeB's pair worker starts (a slice under way),
# not at a fixed time after the soak's launch, which a slow boot of the
# first slice outran (the flap fell before any slice: only "drops" seen).
( for _ in $(seq 80); do
	# one argument: lab exec hands the node one shell line
	"$FC" lab exec --name "$RACK_NAME" nodeB "pgrep -f 'fabcheck [w]orker'" >/dev/null 2>&1 && break
	sleep 0.5
  done
  sleep 3; "$FC" lab fault --name "$RACK_NAME" nodeB down >/dev/null; sleep 2
  "$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null ) &
FLAP=$!
"$FC" soak nodeA nodeB --ssh-config "$SSH_CFG" --db "$DX/soak.db" --duration 24 --slice 12 \
	--interval 1 --timeout 30 -s 64K --save-evidence "$DX/soak" --json \
	>"$DX/soak.json" 2>>"${RACK_LOG:-/dev/null}" </dev/null
wait "$FLAP"
out=$("$FC" diagnose --json "$DX/soak" 2>>"${RACK_LOG:-/dev/null}")
if jq -e 'any(.diagnosis[]; .rule == "link_flap" and (.subject | startswith("nodeB rxe0 port 1")) and .part == "cable or transceiver")' >/dev/null 2>&1 <<<"$out"; then
	ok "diagnosis: eth0 down mid-soak on nodeB: a link flap on nodeB rxe0 port 1"
else
	not_ok "diagnosis: eth0 down mid-soak on nodeB: a link flap on nodeB rxe0 port 1" \
		"diagnose said:" "$(jq -c '.diagnosis' <<<"$out" 2>&1 | head -c 3000)"
fi
rm -rf "$DX"
