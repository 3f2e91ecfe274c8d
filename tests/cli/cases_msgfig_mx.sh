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

# A live matrix of 3 nodes, nodeC at 0.6 Gb/s both ways, the others at
# 2.4: the rails listed for its 3 nodes; each progress line's figures are
# its pair's stored ones (bandwidth, latency p50), and the table's "BAD
# PEERS" counts each node's bad peers of its peers (nodeC 2 of 2, the
# others 1 of 2).
RW_GBPS_BOTH=1 RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.6 $FC matrix nodeA nodeB nodeC "${MQW[@]}" --db $MQT/l.db \
	>$MQT/l.out 2>$MQT/l.err
expect "matrix: the RDMA ports of its 3 nodes listed" 0 '^listing the RDMA ports of 3 nodes to match their rails$' -- \
	cat $MQT/l.err
expect "matrix: each progress line's Gb/s and us are its pair's stored figures" 0 '^ok 3$' -- python3 -c '
import json, re, sqlite3, sys
got = re.findall(r"^  \[round \d/3\] (node\w) +-> (node\w) +([\d.]+) Gb/s +([\d.]+) us  \w+", open(sys.argv[2]).read(), re.M)
want = {}
for (doc,) in sqlite3.connect(sys.argv[1]).execute("select doc from pairs where run = 1"):
    d = json.loads(doc)
    bw = [r["gbps"] for r in d["results"] if r.get("metric") == "bw" and r.get("gbps") is not None]
    lat = sorted((r["size_bytes"], r["p50_us"]) for r in d["results"] if r.get("metric") == "lat")
    want[(d["a"]["node"], d["b"]["node"])] = ("%.3f" % bw[-1], "%.2f" % lat[0][1])
bad = [g for g in got if want.get(g[:2]) != g[2:]]
print("ok %d" % len(got) if got and not bad else "no: %r %r" % (bad, want))' $MQT/l.db $MQT/l.err
expect "matrix: BAD PEERS, nodeC 2 of 2, nodeA 1 of 2" 0 '^nodeA 2\.4 Gb/s [^ ]+ us 1 of 2 pass nodeC 0\.6 Gb/s [^ ]+ us 2 of 2 suspect$' -- \
	bash -c "grep -E '^  node[AC] .* of [0-9]' $MQT/l.out | tr -s ' ' | sed 's/^ //' | tr '\n' ' ' | sed 's/ $//'"
# The same nodes, nodeB's worker never answering: -v names the pair's
# process as it starts it (round 1 of 1, its pid the pair's own). sig_pair
# SIG CMD...: sends SIG to that pair's process group (only when the pid's
# command line is that pair's, never another process's) and prints the
# command line and what the run says of the pair.
sig_pair() {
	local sig=$1 pid="" i mx rc cmd=""
	shift
	"$@" >"$MQT/kp.out" 2>"$MQT/kp.err" &
	mx=$!
	for i in $(seq 300); do
		pid=$(sed -n 's/^fabcheck: info: round 1: started pair nodeA -> nodeB (pid \([0-9]*\))$/\1/p' "$MQT/kp.err")
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] && cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
	case $cmd in "fabcheck pair nodeA nodeB "*) kill -"$sig" -- "-$pid" ;; esac
	wait $mx
	rc=$?
	echo "$cmd| $(cat "$MQT/kp.out" "$MQT/kp.err" | grep -o 'its one pair could not run: .*')"
	return $rc
}
# SIGKILL: the pair died on signal 9.
MX_HANG_NODE=nodeB expect "matrix -v: the pid it names is the pair's; SIGKILL: died on signal 9" 3 '^fabcheck pair nodeA nodeB --json --no-db .*\| its one pair could not run: pair died on signal 9' -- \
	sig_pair KILL $FC -v matrix nodeA nodeB --launcher local --worker-cmd tests/cli/mx-worker.sh \
	--timeout 20 --db $MQT/kp.db
# SIGSTOP: the pair cannot end itself at its --deadline of 1 s; the run
# ends it 30 s later (mx_run.c MX_PAIR_GRACE_S) and says how long it
# waited: 31 s ("no result within 1 s" said only the deadline).
MX_HANG_NODE=nodeB expect "matrix: a pair stopped past --deadline 1 s and 30 s to end: no result within 31 s" 3 '^fabcheck pair nodeA nodeB --json --no-db --deadline 1 .*\| its one pair could not run: no result within 31 s \(--deadline 1 s and 30 s to end\); killed' -- \
	sig_pair STOP $FC -v matrix nodeA nodeB --launcher local --worker-cmd tests/cli/mx-worker.sh \
	--timeout 20 --deadline 1 --db $MQT/st.db
# --save-evidence: a folder name past PATH_MAX - 600 (3496 bytes) leaves no
# room for a pair's folder in it: refused, its length and the bound said.
expect "matrix --save-evidence: a 3500-byte folder name, under 3496 asked" 3 "^fabcheck: error: --save-evidence: the folder name is 3500 bytes; give one under 3496$" -- \
	$FC matrix nodeA nodeB --launcher local --worker-cmd tests/cli/mx-worker.sh --timeout 2 \
	--db $MQT/ev.db --save-evidence "$MQT/$(head -c $((3500 - ${#MQT} - 1)) /dev/zero | tr '\0' e)"
# Two node names of 130 bytes (node names go to 253, core/names.h): the
# pair's folder "001-A-B" would be 265 bytes, past NAME_MAX (255).
MQA=$(printf 'a%.0s' $(seq 130)) MQB=$(printf 'b%.0s' $(seq 130))
expect "matrix --save-evidence: a pair folder past 255 bytes, the pair named" 3 "^fabcheck: error: --save-evidence: the folder of pair $MQA -> $MQB would be longer than 255 bytes; give shorter node names or folder$" -- \
	$FC matrix $MQA $MQB --launcher local --worker-cmd tests/cli/mx-worker.sh --timeout 2 \
	--db $MQT/ev2.db --save-evidence $MQT/ev2

# --import at a pace of 0.5 s a result into a store of 2 runs (run 3),
# SIGINT once 2 of its 6 results are stored: the run named, and those 2
# are what the store keeps of it, marked interrupted.
for i in 1 2; do $FC matrix --import $MXD/rack4-slowC.json --db $MQT/i.db >/dev/null 2>&1; done
int_import() {
	local pid i
	"$@" & pid=$!
	for i in $(seq 100); do
		[ "$(sqlite3 $MQT/i.db 'select count(*) from pairs where run = 3' 2>/dev/null)" = 2 ] && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid
}
expect "matrix --import interrupted: run 3 keeps what it imported" 3 '^fabcheck: error: interrupted: run 3 keeps the results imported so far$' -- \
	int_import $FC matrix --import $MXD/rack4-slowC.json --db $MQT/i.db --pace 0.5
expect "matrix --import interrupted: the store keeps its 2 results, run 3 interrupted" 0 '^3\|interrupted\|2$' -- \
	sqlite3 $MQT/i.db 'select id, verdict, (select count(*) from pairs where run = 3) from runs where id = 3'
# Three runs of 4 nodes recorded at 15 to 20 times gen.py's rate, then a
# live run at 2.4 Gb/s (tests/cli/rack-worker.sh): the 5 links recorded at
# 20 times (about 3.2 Gb/s) are 25% or more below their past, nodeA-nodeB's
# (15 times, 2.4) is not; after the run they are measured again, once,
# with or without --save-evidence (mx_session.c's "a run this process
# measured" read the evidence folders' count: without it, never).
python3 $MXD/gen.py 4 > $MQT/g4h.json
python3 - $MQT/g4h.json $MQT/f4h.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    k = 15 if {r["a"]["node"], r["b"]["node"]} == {"nodeA", "nodeB"} else 20
    for x in r["results"]:
        if x.get("gbps"):
            x["gbps"] = round(x["gbps"] * k, 4)
json.dump(d, open(sys.argv[2], "w"))
PY
for i in 1 2 3; do $FC matrix --import $MQT/f4h.json --db $MQT/h4.db >/dev/null 2>&1; done
$FC matrix nodeA nodeB nodeC nodeD "${MQW[@]}" --db $MQT/h4.db >$MQT/h4.out 2>&1
expect "matrix: measuring again the 5 links below their past runs" 0 '^measuring again 5 links below their past runs$' -- \
	cat $MQT/h4.out
expect "matrix: 5 links measured again, 5 flagged" 0 '^5 5$' -- \
	bash -c "echo \$(grep -c '^  \[retest\] ' $MQT/h4.out) \$(grep -c '^  - .*below its median of the last 3 runs' $MQT/h4.out)"

rm -rf "$MQT"
