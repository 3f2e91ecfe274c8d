# Every link against its own past: five recorded healthy runs, then one
# where nodeA-nodeD runs at 75% (above the run's own 70% rack floor, so only
# its history can tell); matrix warns about that link alone, report
# --history charts it and writes every link's series as CSV.
HIT=$(mktemp -d)
python3 - tests/data/matrix/rack4-healthy.json "$HIT/drop.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if {r["a"]["node"], r["b"]["node"]} == {"nodeA", "nodeD"}:
        for x in r["results"]:
            if x.get("gbps"):
                x["gbps"] = round(x["gbps"] * 0.75, 4)
json.dump(d, open(sys.argv[2], "w"))
PY
for i in 1 2 3 4 5; do
	$FC matrix --import tests/data/matrix/rack4-healthy.json --db $HIT/h.db >/dev/null 2>&1
done
expect "history: no flag while the runs agree" 0 '"flagged": \[\]' -- \
	$FC matrix --import tests/data/matrix/rack4-healthy.json --db $HIT/h.db --json
expect "history flags the link that fell below its past" 0 'link nodeA-nodeD: 0.12 Gb/s is 25% below its median of the last 6 runs \(0.16 Gb/s\)' -- \
	$FC matrix --import $HIT/drop.json --min-rack-pct 70 --db $HIT/h.db
expect "history: that link alone" 0 '^1$' -- \
	sh -c "$FC matrix --resume 7 --db $HIT/h.db --json 2>/dev/null | grep -c 'below its median'"
expect "report --history html: one chart" 0 'wrote .*hist.html' -- \
	$FC report --history --run 7 --db $HIT/h.db --html $HIT/hist.html --csv $HIT/hist.csv
expect "history html: the flagged link's SVG" 0 '^1$' -- grep -c '<svg class="trend"' $HIT/hist.html
expect "history html names it" 0 'nodeA - nodeD</td><td>0</td><td>0.12 Gb/s</td><td>0.16 Gb/s</td><td>25%' -- \
	cat $HIT/hist.html
expect "history csv: 6 links x 7 runs" 0 '^43$' -- sh -c "wc -l < $HIT/hist.csv"
expect "history csv: the drop" 0 '^0,7,nodeA,nodeD,0,0.12,0.16,1$' -- cat $HIT/hist.csv
expect "report --history refuses --prom" 2 'drop --prom' -- \
	$FC report --history --db $HIT/h.db --prom $HIT/x.prom
rm -rf "$HIT"
