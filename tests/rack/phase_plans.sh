# The addressing plans of issue 24 on one 2-node rack (sourced by
# tests/rack/run.sh): two rails routed, each port alone in a /127 with
# on-link routes to the other node's (lab up --addressing routed --ipv6:
# IPv6-only and routed at once, so every subnet differs), and a storage NIC
# (--storage-nic: rxe2 on its own segment at 10 Gb/s). The default commands
# test both rails, matched by the gateway pools of their ports (no lldpd in
# the guests: said to be assumed), leave rxe2 out with its reason, and name a slowed rail.
RP=cip-$$
RACKS+=("$RP")
if rack_up "$RP" --nodes 2 --rails 2 --addressing routed --ipv6 --storage-nic; then
	SSH_CFG=$("$FC" lab ssh-config --name "$RP")
	RPA=(--ssh-config "$SSH_CFG" --test write --bw -s 64K -n 100 --timeout 60 --no-db --json)
	expect_json "plans: nodeA's rails each in a /127 of their own, IPv6 only; rxe2 at 10 Gb/s" 0 \
		"(lambda p: sorted(p) == ['rxe0', 'rxe1', 'rxe2']
		   and all(p[r]['prefix_len'] == 127 and ':' in p[r]['subnet'] and
		           not any('.' in a for a in p[r]['addrs']) for r in ('rxe0', 'rxe1'))
		   and p['rxe0']['subnet'] != p['rxe1']['subnet']
		   and p['rxe2']['rate_gbps'] == 10 and p['rxe0']['rate_gbps'] == 2.5)(
		  {q['device']: q for x in d['devices'] for q in x['ports']})" \
		-- rexec nodeA fabcheck devices --json
	# The healthy pair: both rails, alone and loaded (the loaded figures of a
	# one-vCPU guest are below its alone ones: --min-loaded-pct 0).
	T0R=$SECONDS
	# Matched by the gateway pool each port is in (core/rail_gw.c): the
	# lab's rails are fd00:10:77:2::/126 and fd00:10:78:2::/126.
	expect_json "plans: pair (default) tests rxe0 and rxe1 by their gateways, rxe2 left out by its rate" 0 \
		"[(r['name'], r['matched_by'], r['a']['device'], r['b']['device']) for r in d['rails']] ==
		 [('rxe0', 'gateway', 'rxe0', 'rxe0'), ('rxe1', 'gateway', 'rxe1', 'rxe1')]
		 and all(r['alone_gbps'] > 0 and r['loaded_gbps'] > 0 for r in d['rails'])
		 and any('rxe2 left out' in n and 'rate 10 Gb/s' in n for n in d['notes'])
		 and any('assumed from the gateways' in n and 'lldpctl' in n for n in d['notes'])" \
		-- "$FC" pair nodeA nodeB "${RPA[@]}" --min-gbps 0.001 --min-loaded-pct 0
	echo "    plans: pair, every rail by default (routed /127, IPv6, storage NIC): $((SECONDS - T0R)) s"
	# nodeB's rail 1 at 2 Mbit/s (0.002 Gb/s): under a floor of 0.004 Gb/s,
	# which healthy rails here clear four times over (0.015-0.05 Gb/s), rail 1
	# fails and rail 0 does not (a warning at most: the error counters that
	# rise under TCG). 30 messages of 64 KiB: about 8 s at 2 Mbit/s, but the
	# tbf drops what exceeds its queue and rxe waits out its retransmissions
	# (40 s in a quiet rack run): --deadline 12 judges rail 1 on what it
	# moved by then (pair --deadline: a slow link), rail 0 finishes first.
	"$FC" lab fault nodeB --rail 1 rate 2 --name "$RP" >/dev/null 2>&1
	expect_json "plans: nodeB's slowed rail 1 fails as (pair, rail 1), rail 0 does not" 1 \
		"[(r['name'], r['verdict'] == 'fail') for r in d['rails']] == [('rxe0', False), ('rxe1', True)]
		 and any(f.startswith('rail 1 (rxe1)') for f in d['findings'])" \
		-- "$FC" pair nodeA nodeB "${RPA[@]}" -n 30 --deadline 12 --loaded-only --min-gbps 0.004 --min-loaded-pct 0
fi
expect "lab down $RP" 0 "is down" -- "$FC" lab down --name "$RP"
expect_rack_gone "$RP"
