# shellcheck shell=bash
# Cases for `matrix --pattern` on real Soft-RoCE (issue 42, item 5). NOT yet
# wired in: tests/rack/run.sh sources every tests/rack/cases_*.sh, so this
# file returns at once unless RACK_PATTERN=1. To run it alone (a quiet
# host; it boots its own 4-node rack and takes it down, about 5 minutes):
#   make fabcheck && RACK_PATTERN=1 tests/rack/run_one.sh tests/rack/cases_pattern.sh
# or with the whole suite: RACK_PATTERN=1 tests/rack/run.sh. To wire it in,
# drop the guard below.
# On a 4-node rack of its own:
#   1. the pair matrix is clean (no retransmissions: pass);
#   2. with nodeA's port limited (lab fault nodeA rate 10), incast into
#      nodeA from the three others at once: the aggregate stays under the
#      receiver's ceiling and rxe's retransmission counters move (rxe has
#      neither PFC nor ECN/DCQCN: the RoCE-without-flow-control case), named
#      with its evidence in text and --json;
#   3. bisection of the same rack: each round's total against the ports.
# Thresholds as tests/rack/cases_matrix.sh: the rack runs 0.01-0.2 Gb/s
# under TCG, so --min-gbps 0.001 turns off pair's share of link rate.
if [ "${RACK_PATTERN:-}" != 1 ]; then
	echo "    cases_pattern.sh: not wired in yet (RACK_PATTERN=1 runs it)"
	return 0
fi
PTR=$(mktemp -d /tmp/fc-rack-pattern-XXXXXX)
PT_PAIR=(--test write --bw -n 200 -s 64K --min-gbps 0.001 --timeout 60)
RPT=cipt-$$
RACKS+=("$RPT")
if rack_up "$RPT" --nodes 4; then
	PT_SSH=$("$FC" lab ssh-config --name "$RPT")
	NODES=(nodeA nodeB nodeC nodeD)
	expect "pattern rack: the pair matrix is clean" 0 'verdict: pass' -- \
		"$FC" matrix "${NODES[@]}" --ssh-config "$PT_SSH" "${PT_PAIR[@]}" --min-rack-pct 30 \
		--db "$PTR/p.db"
	expect "pattern rack: limit nodeA to 10 Mbit/s" 0 'nodeA: eth0 limited to 10 Mbit/s' -- \
		"$FC" lab fault --name "$RPT" nodeA rate 10
	# 3 senders x 200 x 64 KiB into 10 Mbit/s is about 31 s before any
	# retransmission: --timeout 120 (the last one given is taken)
	"$FC" matrix "${NODES[@]}" --pattern incast --ssh-config "$PT_SSH" "${PT_PAIR[@]}" \
		--timeout 120 --min-rack-pct 30 --db "$PTR/p.db" --json >"$PTR/incast.json" 2>"$PTR/incast.err"
	expect_json "incast: 4 rounds of 3 senders, nodeA's round judged" 0 \
		"[r['receiver'] for r in d['pattern']['rounds']] == ['nodeA', 'nodeB', 'nodeC', 'nodeD'] and
		 all(r['flows'] == 3 for r in d['pattern']['rounds'])" -- cat "$PTR/incast.json"
	expect_json "incast into nodeA: retransmissions moved, named with evidence" 0 \
		"any(o['outcome'] in ('no working flow control', 'loss under incast') and 'retransmissions' in o['evidence']
		     for o in d['pattern']['rounds'][0]['outcomes'])" -- cat "$PTR/incast.json"
	# Where the loss is: the round into the limited port loses the most.
	# (Not asserted here: "no working flow control", which needs the same
	# rack's pairs loss-free; rxe under TCG retransmits on healthy pairs
	# too, so this rack's pairs are never clean and the outcome is "loss
	# under incast". tests/unit/test_pattern.c judges both on recorded counters.)
	expect_json "incast into nodeA: the limited receiver's round lost the most" 0 \
		"(lambda rt: rt.index(max(rt)) == 0 and rt[0] > 0)([max([float(m.group(1)) for o in r['outcomes']
		   for m in [re.search(r'retransmissions ([0-9]+)', o['evidence'])] if m] or [0])
		   for r in d['pattern']['rounds']])" -- cat "$PTR/incast.json"
	"$FC" lab fault --name "$RPT" nodeA clear >/dev/null 2>&1
	"$FC" matrix "${NODES[@]}" --pattern bisection --ssh-config "$PT_SSH" "${PT_PAIR[@]}" \
		--min-rack-pct 30 --db "$PTR/b.db" --json >"$PTR/bis.json" 2>/dev/null
	expect_json "bisection: 4 rounds of 2 flows, each against its ports" 0 \
		"len(d['pattern']['rounds']) == 4 and all(r['flows'] == 2 and r['total_gbps'] > 0 and r['ports_gbps'] > 0
		 for r in d['pattern']['rounds'])" -- cat "$PTR/bis.json"
fi
expect "lab down $RPT" 0 "is down" -- "$FC" lab down --name "$RPT"
expect_rack_gone "$RPT"
rm -rf "$PTR"
