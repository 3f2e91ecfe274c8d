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
	sh -c "$FC matrix --resume 7 --db $HIT/h.db --json 2>/dev/null | jq '[.findings[] | select(test(\"below its median\"))] | length'"
expect "report --history html: one chart" 0 'wrote .*hist.html' -- \
	$FC report --history --run 7 --db $HIT/h.db --html $HIT/hist.html --csv $HIT/hist.csv
expect "history html: the flagged link's SVG" 0 '^1$' -- grep -c '<svg class="trend"' $HIT/hist.html
expect "history html names it" 0 'nodeA - nodeD</td><td>all</td><td>0.12 Gb/s</td><td>0.16 Gb/s</td><td>25%' -- \
	cat $HIT/hist.html
expect "history csv: 6 links x 7 runs" 0 '^43$' -- sh -c "wc -l < $HIT/hist.csv"
expect "history csv: the drop" 0 '^0,7,nodeA,nodeD,-1,all,0.12,0.16,1$' -- cat $HIT/hist.csv
expect "report --history refuses --prom" 2 'drop --prom' -- \
	$FC report --history --db $HIT/h.db --prom $HIT/x.prom

# Per rail: six recorded runs of a 4-node, 2-rail rack with noise (up to 5%
# either way, a seed per run), then one where nodeA-nodeD runs at 75% on
# rail 1 alone (a floor of 70%, so only its history can tell). The link is
# judged against its own past on that rail; the same pair on rail 0, and
# every other (pair, rail), stays quiet.
python3 tests/data/matrix/gen_history.py $HIT
for i in 1 2 3 4 5 6; do
	$FC matrix --import $HIT/rails-$i.json --db $HIT/r.db >/dev/null 2>&1
done
cp $HIT/r.db $HIT/old.db
expect_none "history per rail: noise alone flags nothing" 0 'below its median' -- \
	$FC matrix --resume 6 --db $HIT/r.db --json
expect "history per rail: the link on rail 1 (rxe1)" 0 'link nodeA-nodeD on rail 1 \(rxe1\): 0.1[0-9]* Gb/s is [23][0-9]% below its median of the last 6 runs' -- \
	$FC matrix --import $HIT/rails-7.json --min-rack-pct 70 --db $HIT/r.db
expect "history per rail: that (pair, rail) alone" 0 '^1$' -- \
	sh -c "$FC matrix --resume 7 --db $HIT/r.db --json 2>/dev/null | jq '[.findings[] | select(test(\"below its median\"))] | length'"
expect "history per rail: json names the rail" 0 '^1 rxe1 6$' -- python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
f = d["history"]["flagged"]
print(len(f), f[0]["device"], f[0]["runs"]) if len(f) == 1 and f[0]["rail"] == 1 else print(f)' \
	$FC matrix --resume 7 --db $HIT/r.db --json
expect "report --history per rail" 0 'wrote .*rh.csv' -- \
	$FC report --history --run 7 --db $HIT/r.db --html $HIT/rh.html --csv $HIT/rh.csv
expect "history html per rail: one chart" 0 '^1$' -- grep -c '<svg class="trend"' $HIT/rh.html
expect "history html per rail: the rail named" 0 'nodeA - nodeD</td><td>1 \(rxe1\)</td><td>0.1[0-9]* Gb/s</td><td>0.1[0-9]* Gb/s</td><td>[23][0-9]%' -- \
	cat $HIT/rh.html
expect "history csv per rail: 6 pairs x 2 rails x 7 runs" 0 '^85$' -- sh -c "wc -l < $HIT/rh.csv"
expect "history csv per rail: the drop on rail 1" 0 '^0,7,nodeA,nodeD,1,rxe1,0\.1[0-9]*,0\.1[0-9]*,1$' -- \
	cat $HIT/rh.csv
expect "history csv per rail: rail 0 of that pair not flagged" 0 '^0,7,nodeA,nodeD,0,rxe0,0\.1[0-9]*,0\.1[0-9]*,0$' -- \
	cat $HIT/rh.csv
expect "history csv per rail: one flag in all" 0 '^1$' -- sh -c "grep -c ',1\$' $HIT/rh.csv"

# A store of schema 1 (the same runs without the link rows, as fabcheck
# wrote them before): read as it stands by report, upgraded by matrix.
python3 - $HIT/old.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DROP TABLE links")
c.execute("PRAGMA user_version = 1")
c.commit()
PY
expect "schema 1 store: report --history reads it read-only" 0 'wrote .*old5.csv' -- \
	$FC report --history --run 5 --db $HIT/old.db --csv $HIT/old5.csv
expect "schema 1 store: left as it was" 0 '^1$' -- python3 -c '
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' $HIT/old.db
$FC report --history --run 5 --db $HIT/r.db --csv $HIT/new5.csv >/dev/null 2>&1
expect "schema 1 store: the same per-rail trends as schema 2" 0 '^same 61$' -- \
	sh -c "cmp -s $HIT/old5.csv $HIT/new5.csv && echo same \$(wc -l < $HIT/old5.csv)"
expect "schema 1 store: matrix upgrades it" 0 'upgraded from schema 1 to 2' -- \
	$FC matrix --import $HIT/rails-7.json --min-rack-pct 70 --db $HIT/old.db
expect "schema 1 store: a link row per (pair, rail) of every run" 0 '^2 84 84$' -- python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("PRAGMA user_version").fetchone()[0], c.execute("SELECT count(*) FROM links").fetchone()[0],
      2 * c.execute("SELECT count(*) FROM pairs").fetchone()[0])' $HIT/old.db
expect "schema 1 store, upgraded: the same flag" 0 'link nodeA-nodeD on rail 1 \(rxe1\)' -- \
	$FC matrix --resume 7 --db $HIT/old.db
rm -rf "$HIT"
