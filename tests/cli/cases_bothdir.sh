# Cases for `matrix --both-directions` (sourced by tests/cli/run.sh): the
# real matrix and pair controller over the stand-in rxe worker
# (tests/cli/rack-worker.sh), 4 nodes, nodeC's worker a starved sender
# (0.2 Gb/s against 2.4). Moved from the rack (issue 36 item 5): its faulted
# 4-node matrix ran with --both-directions and checked 12 pairs and nodeC
# alone; what the emulator's wire adds (a slowed node named from real
# traffic) stays there, one direction a pair, as in phase_rails and the
# drain cases. Here: every ordered pair measured once, each direction its
# own figure, nodeC alone named and retested, the slow direction of each of
# its links named as asymmetric, exit 1.
BDT=$(mktemp -d /tmp/fc-bothdir-XXXXXX)
BDW=$(pwd)/tests/cli/rack-worker.sh
BD=(matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd "$BDW" --test write --bw
	-n 100 -s 64K --min-gbps 0.001 --timeout 60 --min-rack-pct 30 --asym-pct 30 --retest)
expect "both directions: the starved sender nodeC named, exit 1" 1 \
	'suspect node nodeC: bad with 3 of 3 peers .*still bad on retest' -- \
	env RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 $FC "${BD[@]}" --both-directions --db $BDT/both.db
# bd_check DB: the run's document against what both directions must give.
bd_check() {
	$FC matrix --resume 1 --db "$1" --launcher local --worker-cmd "$BDW" --json 2>/dev/null | python3 -c '
import itertools, json, sys
d = json.load(sys.stdin)
nodes = ["nodeA", "nodeB", "nodeC", "nodeD"]
measured = sorted({(p["a"], p["b"]) for p in d["pairs"]})
slow = {(p["a"], p["b"]) for p in d["pairs"] if p["gbps"] < 1}
checks = {
    "verdict fail": d["verdict"] == "fail",
    "nodeC alone suspect": [s.get("node") for s in d["suspects"]] == ["nodeC"],
    "nodeC alone not pass": [n["node"] for n in d["per_node"] if n["state"] != "pass"] == ["nodeC"],
    "every ordered pair": measured == sorted(itertools.permutations(nodes, 2)),
    "12 pairs at least": len(d["pairs"]) >= 12,
    "each direction its figure": slow == {("nodeC", n) for n in nodes if n != "nodeC"},
    "asymmetry named per link": sorted(f.split(" is asym")[0] for f in d["findings"] if "is asymmetric" in f)
        == ["link nodeA-nodeC", "link nodeB-nodeC", "link nodeC-nodeD"],
}
bad = [k for k, v in checks.items() if not v]
print("ok" if not bad else "no: " + ", ".join(bad))'
}
expect "both directions: 12 ordered pairs, nodeC alone, its slow direction per link" 0 '^ok$' -- \
	bd_check $BDT/both.db
# Without the option the same rack gives one direction a pair: the check
# above fails there (it can fail), and nodeC is still named.
expect "one direction: nodeC named" 1 'suspect node nodeC' -- \
	env RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 $FC "${BD[@]}" --db $BDT/one.db
expect "one direction: the both-directions check fails on it" 0 '^no: .*every ordered pair' -- \
	bd_check $BDT/one.db
rm -rf "$BDT"
