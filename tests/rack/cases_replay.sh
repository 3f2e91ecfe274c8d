# Replay equals live (issue 36, doc/capture.md) on the 2-node rack
# $RACK_NAME (sourced by tests/rack/run.sh; helpers in tests/rack/lib.sh):
# each node recorded with `fabcheck capture` on it, then
#   preflight and the rail plan (`rails`): live from the host over ssh, and
#     --from the two bundles (copied to the host);
#   topo and health: live on each node, and --from its bundle on that node;
# give the same exit code, verdict and findings (rails: the same plan; topo:
# the same GPUs and HCAs). Once on the healthy rack, once with nodeB's
# fabric MTU at 1500 (lab fault), where the findings must name nodeB, so
# that "the same" is not two empty lists.


RPX=$(mktemp -d /tmp/fc-rack-replay-XXXXXX)
RPB=/tmp/fc-rack-replay.tar.gz # on each node (the guest's own /tmp)
RPF=("$FC" preflight nodeA nodeB --ssh-config "$SSH_CFG" --timeout 60)
RPR=("$FC" rails nodeA nodeB --ssh-config "$SSH_CFG" --timeout 60)

# rp_capture TAG: each node captured to $RPB on it, then copied to the host
# as $RPX/TAG-NODE.tar.gz (one bundle a node, as a user would gather them).
rp_capture() {
	local n
	for n in nodeA nodeB; do
		expect_rc "replay $1: fabcheck capture on $n" 0 -- \
			rexec "$n" "rm -f $RPB && fabcheck capture -o $RPB"
		if rexec "$n" cat "$RPB" >"$RPX/$1-$n.tar.gz" && [ -s "$RPX/$1-$n.tar.gz" ]; then
			ok "replay $1: $n's bundle copied to the host"
		else
			not_ok "replay $1: $n's bundle copied to the host" "$RPX/$1-$n.tar.gz is empty or missing"
		fi
	done
}

# rp_same NAME JQ -- LIVE... -- FROM...: LIVE and FROM (each one command
# with --json) exit alike and their documents give the same JQ (jq -S,
# compared as text), which must not be empty or null.
rp_same() {
	local name=$1 q=$2 live=() lo fo lr fr
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		live+=("$1")
		shift
	done
	shift
	lo=$("${live[@]}" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	lr=$?
	fo=$("$@" 2>>"${RACK_LOG:-/dev/null}" </dev/null)
	fr=$?
	lo=$(jq -cS "$q" <<<"$lo" 2>&1) || lo="live: not JSON: $lo"
	fo=$(jq -cS "$q" <<<"$fo" 2>&1) || fo="--from: not JSON: $fo"
	if [ "$lr" -eq "$fr" ] && [ -n "$lo" ] && [ "$lo" != null ] && [ "$lo" = "$fo" ]; then
		ok "$name"
	else
		not_ok "$name" "live exit $lr, --from exit $fr; live, then --from:" "$lo
$fo"
	fi
}

RP_DOC='{verdict, findings}'
RP_TOPO='{verdict, findings, gpus, nics}'
RP_PLAN='{verdict, findings, matched_by, plan: [.rails[] | [.rail, .name, .subnet, .matched_by, .devices]]}'

# rp_all TAG ARGS...: every command live and --from TAG's bundles, with the
# judgment's options ARGS (--expect-mtu ...).
rp_all() {
	local tag=$1 n
	shift
	rp_same "replay $tag: preflight --from the bundles equals live" "$RP_DOC" -- \
		"${RPF[@]}" "$@" --json -- \
		"$FC" preflight --from "$RPX/$tag-nodeA.tar.gz" "$RPX/$tag-nodeB.tar.gz" "$@" --json
	rp_same "replay $tag: rails --from the bundles equals live (the plan)" "$RP_PLAN" -- \
		"${RPR[@]}" --json -- \
		"$FC" rails --from "$RPX/$tag-nodeA.tar.gz" "$RPX/$tag-nodeB.tar.gz" --json
	for n in nodeA nodeB; do
		rp_same "replay $tag: topo --from equals live on $n" "$RP_TOPO" -- \
			rexec "$n" "fabcheck topo --json" -- \
			rexec "$n" "fabcheck topo --from $RPB --json"
		rp_same "replay $tag: health --from equals live on $n" "$RP_DOC" -- \
			rexec "$n" "fabcheck health --no-state $* --json" -- \
			rexec "$n" "fabcheck health --from $RPB $* --json"
	done
}

# ---- the healthy rack ---------------------------------------------------------
rp_capture ok
rp_all ok --expect-mtu 9000
expect_json "replay ok: preflight --from judges both nodes (rxe0 ACTIVE)" 0 \
	"d['verdict'] == 'pass' and [n['node'] for n in d['nodes']] == ['nodeA', 'nodeB'] and
	 all(p['device'] == 'rxe0' and p['state'] == 'ACTIVE' for n in d['nodes'] for p in n['ports'])" \
	-- "$FC" preflight --from "$RPX/ok-nodeA.tar.gz" "$RPX/ok-nodeB.tar.gz" --expect-mtu 9000 --json

# ---- nodeB's fabric MTU at 1500: the same findings, naming nodeB -----------------
"$FC" lab fault --name "$RACK_NAME" nodeB mtu 1500 >/dev/null 2>&1
rp_capture mtu
rp_all mtu --expect-mtu 9000
expect "replay mtu: preflight --from names nodeB's MTU as live does" 1 \
	'nodeB: eth0 MTU is 1500, expected 9000' -- \
	"$FC" preflight --from "$RPX/mtu-nodeA.tar.gz" "$RPX/mtu-nodeB.tar.gz" --expect-mtu 9000
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1

for n in nodeA nodeB; do rexec "$n" "rm -f $RPB"; done
rm -rf "$RPX"
