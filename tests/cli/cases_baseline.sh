# Cases for `fabcheck baseline` and --baseline (sourced by tests/cli/run.sh):
# a fleet of recorded 8-node runs (tests/data/baseline/gen_fleet.py), one
# node 8% slow: within the matrix's own 90%-of-median floor, below the
# fleet's baseline by its rule (more than 5% below).
BLD=$(mktemp -d /tmp/fc-bl-XXXXXX)
BLG=tests/data/baseline/gen_fleet.py
# bl_json FILE EXPR: "ok" when the Python expression EXPR holds of the JSON
# document d in FILE.
bl_json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("ok" if eval(sys.argv[2]) else "no: " + json.dumps(d)[:400])' "$1" "$2"
}
for s in 1 2 3; do
	python3 $BLG 8 $s >"$BLD/h$s.json"
	$FC matrix --import "$BLD/h$s.json" --db "$BLD/fleet.db" >/dev/null 2>&1
done
python3 $BLG 8 4 node03 8 >"$BLD/s4.json"
$FC matrix --import "$BLD/s4.json" --db "$BLD/fleet.db" >/dev/null 2>&1
expect "baseline help" 0 'usage: fabcheck baseline' -- $FC baseline --help
expect "baseline needs -o" 2 '-o FILE is required' -- $FC baseline --db "$BLD/fleet.db"
expect "baseline learns a pruned mean" 0 'InfiniBand 400 Gb/s HCA 0x2c9:4129, write 65536 B uni, pattern pairs: 39[0-4]\.[0-9] Gb/s \(sd [0-9.]+\) of 105 results, 7 pruned' -- \
	$FC baseline --db "$BLD/fleet.db" -o "$BLD/bl.json"
expect "baseline file: both sizes, counts" 0 '^ok$' -- bl_json "$BLD/bl.json" \
	"len(d['profiles']) == 2 and all(p['count'] == 105 and p['pruned'] == 7 for p in d['profiles'])"
expect "baseline: too few results refused" 3 'no profile in .* has 1000 or more results' -- \
	$FC baseline --db "$BLD/fleet.db" -o "$BLD/none.json" --min-count 1000
python3 $BLG 8 7 node05 8 >"$BLD/s7.json"
expect "matrix alone passes the 8%-slow node" 0 'verdict: pass' -- \
	$FC matrix --import "$BLD/s7.json" --db "$BLD/a.db"
expect "matrix --baseline names the slow node once" 1 '^  - node05: 7 of its 7 links below the fleet.s baseline \(by [0-9.]+% to [0-9.]+%' -- \
	$FC matrix --import "$BLD/s7.json" --db "$BLD/b.db" --baseline "$BLD/bl.json"
$FC matrix --import "$BLD/s7.json" --db "$BLD/c.db" --baseline "$BLD/bl.json" --json \
	>"$BLD/c.json" 2>/dev/null
expect "matrix --baseline JSON" 0 '^ok$' -- bl_json "$BLD/c.json" \
	"d['baseline']['nodes'] == ['node05'] and d['baseline']['defective'] == 14 and d['baseline']['judged'] == 56 and d['verdict'] == 'fail'"
python3 $BLG 8 8 >"$BLD/h8.json"
expect "matrix --baseline: a healthy rack passes" 0 'verdict: pass' -- \
	$FC matrix --import "$BLD/h8.json" --db "$BLD/d.db" --baseline "$BLD/bl.json"
python3 $BLG 4 9 --rate 200 >"$BLD/r200.json"
expect "baseline of another rate refused, with the reason" 0 'not judged against the baseline .*: no profile of the baseline matches InfiniBand 200 Gb/s .* differs in its port rate' -- \
	$FC matrix --import "$BLD/r200.json" --db "$BLD/e.db" --baseline "$BLD/bl.json"
printf '{"fabcheck_baseline": 1, "profiles": []}' >"$BLD/empty.json"
expect "a file that is no baseline" 2 'baseline .*empty.json: not a fabcheck baseline' -- \
	$FC matrix --import "$BLD/h8.json" --db "$BLD/f.db" --baseline "$BLD/empty.json"
mkfifo "$BLD/fifo"
expect "a FIFO as baseline: refused, no hang" 2 'fifo: not a regular file' -- \
	timeout 10 $FC matrix --import "$BLD/h8.json" --db "$BLD/g.db" --baseline "$BLD/fifo"
expect "pair --baseline checks the file first" 2 'missing.json: No such file' -- \
	$FC pair nodeA nodeB --baseline "$BLD/missing.json"
# report --baseline: a stored run judged after the fact. a.db holds the
# 8%-slow rack stored without --baseline (it passed); d.db a healthy one.
expect "report --baseline names the slow node of a stored run" 1 '^  - node05: 7 of its 7 links below the fleet.s baseline' -- \
	$FC report --db "$BLD/a.db" --baseline "$BLD/bl.json"
expect "report --baseline: the counts" 1 'run 1 against the baseline .*bl.json: 56 results judged, 14 more than 5% below it, 0 not judged' -- \
	$FC report --db "$BLD/a.db" --baseline "$BLD/bl.json"
expect "report --baseline: a healthy stored run passes" 0 'verdict: pass' -- \
	$FC report --db "$BLD/d.db" --baseline "$BLD/bl.json"
expect "report --baseline --html: the finding in the page" 0 'node05: 7 of its 7 links below' -- \
	bash -c '"$1" report --db "$2" --baseline "$3" --html "$4" >/dev/null 2>&1; cat "$4"' _ \
	$FC "$BLD/a.db" "$BLD/bl.json" "$BLD/a.html"
expect "report --baseline: a missing file refused" 2 'missing.json: No such file' -- \
	$FC report --db "$BLD/a.db" --baseline "$BLD/missing.json"
