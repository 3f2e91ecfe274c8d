# Cases for the messages with figures of matrix, soak and report (sourced by
# tests/cli/run.sh; issue 39 item 5): each fed figures known beforehand
# (recorded pair documents imported into a store, a stand-in worker) and
# checked whole, every figure in its place.
MQT=$(mktemp -d /tmp/fc-mxmsg-XXXXXX)
MXD=tests/data/matrix
MQW=(--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5)
sqlq() { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$@"; }

# report of a run of another kind: its number and its kind. Three imported
# runs, run 2 made a pair run in the store.
python3 $MXD/gen.py 4 > $MQT/g4.json
for i in 1 2 3; do $FC matrix --import $MQT/g4.json --db $MQT/k.db >/dev/null 2>&1; done
cp $MQT/k.db $MQT/kp.db
sqlq $MQT/kp.db "UPDATE runs SET kind = 'pair' WHERE id = 2"
expect "report: run 2 is a pair run, named with its number and kind" 3 "^fabcheck: error: report: run 2 in $MQT/kp\.db is a pair run, not a matrix or soak run: the report \(heat map, suspects, verdict\) is of a matrix or soak run; a pair's own report is its text or --json \('fabcheck report --list' lists the runs\)$" -- \
	$FC report --db $MQT/kp.db --run 2 --html $MQT/kp.html
# --prom's start time: run 2's, whole seconds (1712345678.4 stored).
sqlq $MQT/k.db "UPDATE runs SET started = 1712345678.4 WHERE id = 2"
$FC report --db $MQT/k.db --run 2 --prom $MQT/k.prom >/dev/null 2>&1
expect "report --prom: run 2's start time in whole seconds" 0 '^fabcheck_matrix_start_time_seconds\{run="2"\} 1712345678$' -- \
	cat $MQT/k.prom

# report --history of 34 nodes (561 links): three healthy runs, then run 4
# with every link but the first pair's 30% below: 560 flagged; the page
# charts 500 (report_history.c CHARTS_MAX) and counts the other 60.
python3 $MXD/gen.py 34 > $MQT/g34.json
python3 - $MQT/g34.json $MQT/d34.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if {r["a"]["node"], r["b"]["node"]} != {"rack1-node000", "rack1-node001"}:
        for x in r["results"]:
            if x.get("gbps"):
                x["gbps"] = round(x["gbps"] * 0.7, 4)
json.dump(d, open(sys.argv[2], "w"))
PY
for i in 1 2 3; do $FC matrix --import $MQT/g34.json --db $MQT/h.db >/dev/null 2>&1; done
$FC matrix --import $MQT/d34.json --db $MQT/h.db >/dev/null 2>&1
$FC report --history --db $MQT/h.db --html $MQT/h.html >/dev/null 2>&1
expect "report --history: 500 charts, the 60 other flagged links counted" 0 '^<p>60 more flagged links are in the CSV \(--history --csv\)\.</p>$' -- \
	cat $MQT/h.html
cat > $MQT/h.want <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>fabcheck: link history of run 4</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}tr.flagged td{color:#a00}</style></head><body>
<h1>Links against their own past: run 4</h1>
<p>561 links; 560 flagged: more than 15% below the median of their last 7 runs (3 found). Dashed: the median; dotted: the flag threshold.</p>
500
EOF
expect_quiet "report --history: the page's title, heading and charts, whole" 0 -- \
	bash -c "{ head -3 $MQT/h.html; grep -A1 '^<h1>' $MQT/h.html; grep -o '<tr class=\"flagged\">' $MQT/h.html | wc -l; } | diff - $MQT/h.want"

# soak of 3 nodes for 5 s in slices of 2 s, run 4 of its store; nodeC's
# worker sends at 0.6 Gb/s, the others at 2.4: each slice's line says the
# two directions added, the sum of the table's two medians of that pair
# (one slice a pair); "4.800 Gb/s both ways" beside 2.400 each way read as
# 4.8 each way.
cp $MQT/k.db $MQT/s.db
RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.6 $FC soak nodeA nodeB nodeC "${MQW[@]}" --duration 5 --slice 2 \
	--interval 1 --db $MQT/s.db >$MQT/s.out 2>$MQT/s.err
expect "soak: 3 nodes, 5 s, slices of 2 s, run 4, whole" 0 "^soak: 3 nodes for 5 s in slices of 2 s; run 4 in $MQT/s\.db \(follow: fabcheck tui --run 4 --db $MQT/s\.db\)$" -- \
	cat $MQT/s.err
expect "soak: a slice's line, the two directions added" 0 '^soak: [0-9:]{8} \(\+[0-9]+ s\) node[ABC]-node[ABC]: 3\.000 Gb/s both ways added \((pass|warn|fail)\)$' -- \
	cat $MQT/s.err
expect "soak: each slice's figure is its pair's A->B plus B->A" 0 '^ok [1-9]$' -- python3 -c '
import re, sys
err, out = open(sys.argv[1]).read(), open(sys.argv[2]).read()
rows = {m[0]: float(m[1]) + float(m[2]) for m in
        re.findall(r"^(node\w+-node\w+) +\d+ +\d+ +\d+ +([\d.]+) Gb/s +([\d.]+) Gb/s", out, re.M)}
lines = re.findall(r"^soak: .* (node\w+-node\w+): ([\d.]+) Gb/s both ways added", err, re.M)
bad = [l for l in lines if l[0] not in rows or "%.3f" % rows[l[0]] != l[1]]
print("ok %d" % len(lines) if lines and not bad else "no: %r %r" % (bad, rows))' $MQT/s.err $MQT/s.out
cat > $MQT/s.want <<EOF

kept as run 4 in $MQT/s.db
EOF
expect_quiet "soak: kept as run 4, its store named" 0 -- \
	bash -c "grep -B1 '^kept as run' $MQT/s.out | diff - $MQT/s.want"

rm -rf "$MQT"
