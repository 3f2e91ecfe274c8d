# shellcheck shell=bash
# Traffic patterns and the fleet baseline on real Soft-RoCE (issue 42, item
# 5), on a 4-node rack that is already up: the one tests/rack/run.sh boots
# with --rails 2 for tests/rack/phase_rails.sh (R4 and SSH_CFG set), or the
# one tests/rack/cases_pattern.sh boots to run this alone. Every command
# stays on rail 0 (-d rxe0): lab fault's rate acts on one rail's port.
#   1. the pair matrix is clean (no retransmissions: pass);
#   2. with nodeA's port limited (lab fault nodeA rate 10), incast into
#      nodeA from the three others at once: the aggregate stays under the
#      receiver's ceiling and rxe's retransmission counters move (rxe has
#      neither PFC nor ECN/DCQCN: the RoCE-without-flow-control case), named
#      with its evidence in text and --json;
#   3. bisection of the same rack: each round's total against the ports;
#   4. a baseline built from the healthy runs (rule: 50% below) judges nodeD, its port cut to
#      40% of the baseline's rate, below the baseline, while the absolute
#      floors pass it (see below for why the cut is taken from the baseline).
# Thresholds as tests/rack/cases_matrix.sh: the rack runs 0.01-0.2 Gb/s
# under TCG, so --min-gbps 0.001 turns off pair's share of link rate.
PTR=$(mktemp -d /tmp/fc-rack-pattern-XXXXXX)
PT_PAIR=(-d rxe0 --test write --bw -n 200 -s 64K --min-gbps 0.001 --timeout 60)
PT_SSH=$SSH_CFG
NODES=(nodeA nodeB nodeC nodeD)
# What an earlier phase on this rack left (phase_rails.sh slows a rail).
for n in "${NODES[@]}"; do "$FC" lab fault --name "$R4" "$n" clear >/dev/null 2>&1; done
T0P=$SECONDS
expect "pattern rack: the pair matrix is clean" 0 'verdict: pass' -- \
	"$FC" matrix "${NODES[@]}" --ssh-config "$PT_SSH" "${PT_PAIR[@]}" --min-rack-pct 30 \
	--db "$PTR/p.db"
expect "pattern rack: limit nodeA to 10 Mbit/s" 0 'nodeA: eth0 limited to 10 Mbit/s' -- \
	"$FC" lab fault --name "$R4" nodeA rate 10
# -n 50 (the last one given is taken): 3 senders x 50 x 64 KiB into 10
# Mbit/s is about 8 s before any retransmission (with -n 200, 31 s, and the
# tbf's drops made the incast 156 s of a quiet rack run); the round into the
# limited port still loses the most. --timeout 120 as before.
"$FC" matrix "${NODES[@]}" --pattern incast --ssh-config "$PT_SSH" "${PT_PAIR[@]}" \
	-n 50 --timeout 120 --min-rack-pct 30 --db "$PTR/p.db" --json >"$PTR/incast.json" 2>"$PTR/incast.err"
expect_json "incast: 4 rounds of 3 senders, nodeA's round judged" 0 \
	"[r['receiver'] for r in d['pattern']['rounds']] == ['nodeA', 'nodeB', 'nodeC', 'nodeD'] and
	 all(r['flows'] == 3 for r in d['pattern']['rounds'])" -- cat "$PTR/incast.json"
expect_json "incast into nodeA: retransmissions moved, named with evidence" 0 \
	"any(o['outcome'] in ('no working flow control', 'loss under incast') and 'retransmissions' in o['evidence']
	     for o in d['pattern']['rounds'][0]['outcomes'])" -- cat "$PTR/incast.json"
# "no working flow control": the round into the limited port loses more
# per packet than the same ports' pairs did on their own (run 1 above, 6
# pairs: rxe under TCG retransmits on healthy pairs too, about 2% of a
# pair's packets in a recorded run, so the pairs are the background), by the
# exact comparison of two Poisson rates at 99% (core/lossrate.c; the
# recorded counters' test is tests/unit/test_lossrate.c).
expect_json "incast into nodeA: no working flow control, its loss above the pairs' own" 0 \
	"(lambda r: any(o['outcome'] == 'no working flow control' for o in r['outcomes']) and
	  d['pattern']['pairs_run']['pairs'] == 6 and (d['pattern']['pairs_run']['clean'] or
	  (lambda v: v['p_value'] < 0.01 and v['events'] * v['pairs_packets'] > v['pairs_events'] * v['packets'])(r['loss_vs_pairs'])))
	 (d['pattern']['rounds'][0])" -- cat "$PTR/incast.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["pattern"]; print("    pairs:", d["pairs_run"]); [print("    round", r["round"], r.get("loss_vs_pairs")) for r in d["rounds"]]' "$PTR/incast.json" 2>/dev/null
# Where the loss is: the round into the limited port loses the most.
expect_json "incast into nodeA: the limited receiver's round lost the most" 0 \
	"(lambda rt: rt.index(max(rt)) == 0 and rt[0] > 0)([max([float(m.group(1)) for o in r['outcomes']
	   for m in [re.search(r'retransmissions ([0-9]+)', o['evidence'])] if m] or [0])
	   for r in d['pattern']['rounds']])" -- cat "$PTR/incast.json"
"$FC" lab fault --name "$R4" nodeA clear >/dev/null 2>&1
"$FC" matrix "${NODES[@]}" --pattern bisection --ssh-config "$PT_SSH" "${PT_PAIR[@]}" \
	--min-rack-pct 30 --db "$PTR/b.db" --json >"$PTR/bis.json" 2>/dev/null
expect_json "bisection: 4 rounds of 2 flows, each against its ports" 0 \
	"len(d['pattern']['rounds']) == 4 and all(r['flows'] == 2 and r['total_gbps'] > 0 and r['ports_gbps'] > 0
	 for r in d['pattern']['rounds'])" -- cat "$PTR/bis.json"
echo "    patterns (pairs, incast into 10 Mbit/s, bisection): $((SECONDS - T0P)) s"

# ---- 4. the fleet baseline and a node slowed below it ----------------------
# What the emulator can show: rxe under TCG moves what the guests' emulated
# CPUs let it, 0.01-0.2 Gb/s, and healthy pairs differ far more than the
# fleet rule's 5%: in make check at 3df048d (07:41 UTC, quiet host) the two
# healthy 4-node matrices below gave 0.054 to 0.152 Gb/s, a factor of 2.8
# within one run. With 5%, the baseline's pruning (core/baseline.c: drop
# what is more than 5% below the mean, repeat) keeps the single best figure
# of such a spread, fewer than --min-count's 3: no baseline at all. A node
# 10% slower cannot be told apart from that noise, so the rack builds its
# baseline under the widest rule `baseline` takes (--below-pct 50: a
# site's own rule, kept in the file and used by the judgment), which keeps
# every healthy figure of that spread (the lowest, 0.054, is 40% below its
# mean), and slows nodeD by the smallest step that rule can show whatever
# the emulator's pace: lab fault's rate is a tbf ceiling on the node's port
# both ways (lab/ops.sh), set to 40% of the baseline's mean, so each of
# nodeD's results is at most 40% of it on the wire, less as payload (the
# headers; the tbf's drops and rxe's go-back-N retransmissions only lower
# it): more than 50% below. The case asserts each of nodeD's links below
# the baseline and the node named, while pair's absolute floors
# (--min-gbps) pass each of its results; the healthy links' distance to the
# baseline is printed, not asserted (their spread is the emulator's).
T0P=$SECONDS
for _ in 1 2; do # two more healthy runs: 18 pair results with run 1
	"$FC" matrix "${NODES[@]}" --ssh-config "$PT_SSH" "${PT_PAIR[@]}" --min-rack-pct 30 \
		--db "$PTR/p.db" >/dev/null 2>>"$RACK_LOG"
done
expect "baseline from the healthy runs: the pairs' profile" 0 'write 65536 B uni, pattern pairs: [0-9.]+ Gb/s' -- \
	"$FC" baseline --db "$PTR/p.db" --below-pct 50 -o "$PTR/bl.json"
PT_BL=$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["profiles"]:
    if p["pattern"] == "pairs" and p["test"] == "write":
        print("%.6f %.6f %d" % (p["mean_gbps"], p["stdev_gbps"], p["count"]))' "$PTR/bl.json" 2>/dev/null)
read -r PT_MEAN PT_SD PT_N <<<"${PT_BL:-0 0 0}"
if python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0.002)' "$PT_MEAN"; then
	PT_CAP=$(python3 -c 'import sys; print(int(float(sys.argv[1]) * 1000 * 0.4))' "$PT_MEAN")
	echo "    baseline: ${PT_MEAN} Gb/s (sd ${PT_SD}) of ${PT_N} results; nodeD's port to ${PT_CAP} Mbit/s (40%)"
	expect "baseline: nodeD's port to 40% of the baseline" 0 "nodeD: eth0 limited to $PT_CAP Mbit/s" -- \
		"$FC" lab fault --name "$R4" nodeD rate "$PT_CAP"
	# (--timeout 120: the tbf drops what exceeds its ceiling and rxe
	# retransmits, which can slow nodeD's pairs well below 40%; --deadline
	# 20 judges such a pair on what it moved by then, a slow link: this run
	# took 48 s of a quiet rack run without it)
	"$FC" matrix "${NODES[@]}" --ssh-config "$PT_SSH" "${PT_PAIR[@]}" --timeout 120 --deadline 20 --min-rack-pct 30 \
		--baseline "$PTR/bl.json" --db "$PTR/j.db" --json >"$PTR/bl-judged.json" 2>>"$RACK_LOG"
	expect_json "baseline: each of nodeD's links below it, the node named" 0 \
		"(lambda below, mine: len(mine) == 3 and all((p['a'], p['b']) in below for p in mine) and
		   'nodeD' in d['baseline']['nodes'])({(b['a'], b['b']) for b in d['baseline']['below']},
		   [p for p in d['pairs'] if 'nodeD' in (p['a'], p['b'])])" -- cat "$PTR/bl-judged.json"
	expect "baseline: the absolute floors pass nodeD's results" 0 '^3 ok$' -- python3 -c '
import json, re, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from pairs")]
mine = [d for d in docs if "nodeD" in (d["a"]["node"], d["b"]["node"])]
# the floor of pair (core/pairv.c): "write bandwidth at 64 KiB A->B: X Gb/s is below Y Gb/s (...)"
floor = [f for d in mine for f in d["findings"] if re.search(r"bandwidth at [^:]*: [0-9.]+ Gb/s is below", str(f))]
print(len(mine), "ok" if not floor and all(r.get("gbps", 1) > 0.001 for d in mine for r in d["results"]) else floor)' "$PTR/j.db"
	# The evidence for the next one who reads this: each link against the baseline.
	python3 -c '
import json, sys
d, m = json.load(open(sys.argv[1])), float(sys.argv[2])
for p in d.get("pairs", []):
    if p.get("gbps"):
        print("    %s -> %s: %.4f Gb/s, %+.1f%% against the baseline" % (p["a"], p["b"], p["gbps"], 100 * (p["gbps"] / m - 1)))' \
		"$PTR/bl-judged.json" "$PT_MEAN" 2>/dev/null
else
	not_ok "baseline: the healthy pairs' profile" "no baseline of the pairs' write test above 2 Mbit/s in $PTR/bl.json (got '${PT_BL:-nothing}'): nodeD is not slowed"
fi
"$FC" lab fault --name "$R4" nodeD clear >/dev/null 2>&1
echo "    baseline (2 healthy runs, the baseline, the judged run): $((SECONDS - T0P)) s"
rm -rf "$PTR"
