# Cases for `matrix --pattern` on this host (sourced by tests/cli/run.sh):
# the rounds of each pattern reach the workers (tests/cli/rack-worker.sh,
# which logs each test's go), a round's flows start together, and the incast
# and bisection judgments come out in text and --json.
PTT=$(mktemp -d /tmp/fc-pattern-XXXXXX)
PTW=(--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5)
PTDEV=tests/data/rails/devices-2rail.json

expect "pattern: unknown name" 2 "'ring' is not a pattern; give pairs, incast, fanout, bisection or alltoall" -- \
	$FC matrix a b --pattern ring --db $PTT/x.db
expect "pattern: --fan-in without incast" 2 '--fan-in K is the senders of an incast' -- \
	$FC matrix a b c --fan-in 2 --db $PTT/x.db
expect "pattern: --group without alltoall" 2 '--group K is the size of an all-to-all group' -- \
	$FC matrix a b c --pattern incast --group 2 --db $PTT/x.db
expect "pattern: not with --screen" 2 'a pattern runs its own rounds; drop --screen' -- \
	$FC matrix a b c --pattern incast --screen --db $PTT/x.db

# Incast over 4 nodes, one port each (-d): 4 rounds of 3 senders into one
# receiver. nodeD's worker is 1 s late for its first test: the others wait
# for it (one start signal), so each round's tests go in one burst and the
# receiver takes part in 3 flows of it.
RW_SLOW_HOST=nodeD RW_SLOW_S=1 RW_GO_LOG=$PTT/go1 \
	$FC matrix nodeA nodeB nodeC nodeD --pattern incast -d rxe0 "${PTW[@]}" --db $PTT/i.db --json \
	>$PTT/i.json 2>$PTT/i.err
expect "incast: the stored flows carry their round, pattern and receiver" 0 '^ok$' -- python3 -c '
import json, sqlite3, sys
rows = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from pairs")]
got = sorted((d["matrix"]["round"], d["matrix"]["target"], d["a"]["node"], d["b"]["node"]) for d in rows)
want = sorted((i + 1, "node" + "ABCD"[i], "node" + s, "node" + "ABCD"[i]) for i in range(4) for s in "ABCD" if s != "ABCD"[i])
ok = got == want and all(d["matrix"]["pattern"] == "incast" and d["matrix"]["flows"] == 3 for d in rows)
print("ok" if ok else json.dumps(got))' $PTT/i.db
# The go of each test, in bursts (a gap over 0.3 s): one burst a round,
# its 4 tests (pair's defaults) close behind one another; without the one
# start signal nodeD's flows would go 1 s after the others'. In each burst
# the receiver is in 3 flows x 4 tests, each sender in 4.
expect "incast: each round's flows start together, 3 senders into the receiver" 0 '^4 ok$' -- python3 -c '
import sys
rows = sorted((float(t), h) for h, _, t in (l.split() for l in open(sys.argv[1])))
bursts, cur, last = [], {}, None
for t, h in rows:
    if last is not None and t - last > 0.3:
        bursts.append(cur); cur = {}
    cur[h] = cur.get(h, 0) + 1; last = t
bursts.append(cur)
want = [dict((n, 12 if n == r else 4) for n in ("nodeA", "nodeB", "nodeC", "nodeD")) for r in ("nodeA", "nodeB", "nodeC", "nodeD")]
print(len(bursts), "ok" if bursts == want else bursts)' $PTT/go1
expect "incast --json: a round per receiver, Jain's index, the ceiling" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["pattern"]
r = d["rounds"]
ok = d["name"] == "incast" and [x["receiver"] for x in r] == ["nodeA", "nodeB", "nodeC", "nodeD"]
ok = ok and all(x["flows"] == 3 and abs(x["jain"] - 1) < 1e-9 and x["ceiling_gbps"] == 2.5 and len(x["senders"]) == 3 for x in r)
print("ok" if ok else json.dumps(d)[:600])' $PTT/i.json

# --fan-in 2 over 4 nodes with every rail: 4 rounds of 2 senders; nodeC
# starved (0.5 Gb/s a rail) and retransmissions on rxe0: named, with their
# evidence, in text.
RW_GBPS_HOST=nodeC RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"rcvd_seq_err":40,"completer_retry_err":3}' \
	FAKE_DEVICES=$PTDEV $FC matrix nodeA nodeB nodeC nodeD --pattern incast --fan-in 2 "${PTW[@]}" \
	--db $PTT/f.db >$PTT/f.txt 2>&1
expect "incast --fan-in 2: two senders a round" 0 '^4$' -- \
	grep -c 'from 2 senders' $PTT/f.txt
expect "incast: a starved sender named unfair with its path" 0 'warn: unfair: nodeC sent 1 Gb/s against a fair share of 2.9 Gb/s \(Jain 0.700\): check its path to nodeA' -- \
	cat $PTT/f.txt
expect "incast: the counters that moved, named" 0 'moved: nodeA rcvd_seq_err \+40' -- cat $PTT/f.txt
expect "incast: loss under incast named with its evidence" 0 'loss under incast: pause 0 \(0 us\), ECN-marked 0, CNP sent 0 handled 0, retransmissions' -- \
	cat $PTT/f.txt
# f.db holds no pair run: the loss cannot be held against the pairs' own.
expect "incast with no pair run stored: the comparison could not be made" 0 \
	"retransmissions [0-9]+; no pair run of these ports stored before it: the comparison with the pairs' own loss could not be made" -- \
	cat $PTT/f.txt

# Held against the store's pair run of the rack: clean pairs, then an
# incast with retransmissions and no pause or CNP is the RoCE fabric
# without working flow control.
$FC matrix nodeA nodeB nodeC -d rxe0 "${PTW[@]}" --db $PTT/c.db >/dev/null 2>&1
RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"rcvd_seq_err":40}' $FC matrix nodeA nodeB nodeC -d rxe0 \
	--pattern incast "${PTW[@]}" --db $PTT/c.db --json >$PTT/c.json 2>/dev/null
expect "incast after clean pairs: no working flow control, with the pair run" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pattern"]
ok = (p["pairs_run"]["run"], p["pairs_run"]["clean"], p["pairs_run"]["pairs"]) == (1, True, 3) and d["verdict"] == "fail"
ok = ok and all(any(o["outcome"] == "no working flow control" and o["level"] == "fail" for o in r["outcomes"]) for r in p["rounds"])
print("ok" if ok else json.dumps(p)[:600])' $PTT/c.json

# Pairs that lose a little (every rxe0 port 3 retries a test: a busy
# Soft-RoCE pair's background), then an incast whose ports retry 40 times:
# its loss rate against the pairs' own, higher beyond chance, is the fabric
# without working flow control, both rates in the evidence. The same
# incast after pairs that retried as often is the ports' own loss.
RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"completer_retry_err":3}' $FC matrix nodeA nodeB nodeC -d rxe0 \
	"${PTW[@]}" --db $PTT/r.db >/dev/null 2>&1
RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"completer_retry_err":40}' $FC matrix nodeA nodeB nodeC -d rxe0 \
	"${PTW[@]}" --db $PTT/r2.db >/dev/null 2>&1
for db in r r2; do
	RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"completer_retry_err":40}' $FC matrix nodeA nodeB nodeC \
		-d rxe0 --pattern incast "${PTW[@]}" --db $PTT/$db.db --json >$PTT/$db.json 2>/dev/null
done
expect "incast after pairs with a little loss: no working flow control, both rates" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pattern"]
ok = p["pairs_run"]["clean"] is False and p["pairs_run"]["retransmissions_started"] > 0 and d["verdict"] == "fail"
for r in p["rounds"]:
    o = [o for o in r["outcomes"] if o["outcome"] == "no working flow control"]
    v = r.get("loss_vs_pairs", {})
    ok = ok and len(o) == 1 and "against the pairs\x27 own" in o[0]["evidence"] and "higher at 99% confidence" in o[0]["evidence"]
    ok = ok and v.get("p_value", 1) < 0.01 and v["events"] / v["packets"] > v["pairs_events"] / v["pairs_packets"]
print("ok" if ok else json.dumps(p)[:900])' $PTT/r.json
expect "incast at the pairs' own loss rate: loss under incast, not higher" 0 '^ok$' -- python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["pattern"]
ok = all([o["outcome"] for o in r["outcomes"]] == ["loss under incast"] and "not higher at 99% confidence" in r["outcomes"][0]["evidence"] for r in p["rounds"])
print("ok" if ok else json.dumps(p)[:900])' $PTT/r2.json
# A pair run of other ports (rail 1's rxe1) is no background for an incast
# on rxe0: no pair of it counted, and the comparison said not made.
FAKE_DEVICES=$PTDEV $FC matrix nodeA nodeB nodeC -d rxe1 "${PTW[@]}" --db $PTT/o1.db >/dev/null 2>&1
RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"completer_retry_err":40}' FAKE_DEVICES=$PTDEV $FC matrix nodeA \
	nodeB nodeC -d rxe0 --pattern incast "${PTW[@]}" --db $PTT/o1.db --json >$PTT/o1.json 2>/dev/null
expect "incast after pairs of other ports: no pair counted, the comparison not made" 0 '^ok$' -- python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["pattern"]
ok = p["pairs_run"]["pairs"] == 0 and p["pairs_run"]["clean"] is None
ok = ok and all([o["outcome"] for o in r["outcomes"]] == ["loss under incast"] and "could not be made" in r["outcomes"][0]["evidence"] for r in p["rounds"])
print("ok" if ok else json.dumps(p)[:900])' $PTT/o1.json

# Bisection of 4 nodes on one port: 2 rounds each way, every flow across.
$FC matrix nodeA nodeB nodeC nodeD --pattern bisection -d rxe0 "${PTW[@]}" --db $PTT/b.db --json \
	>$PTT/b.json 2>/dev/null
expect "bisection: the total against the senders' ports each round" 0 '^ok$' -- python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["pattern"]["rounds"]
ok = len(r) == 4 and all(x["flows"] == 2 and x["ports_gbps"] == 5 and abs(x["total_gbps"] - 4.8) < 1e-9 and x["level"] == "pass" for x in r)
print("ok" if ok else json.dumps(r)[:600])' $PTT/b.json
RW_GBPS=1 $FC matrix nodeA nodeB nodeC nodeD --pattern bisection -d rxe0 "${PTW[@]}" --db $PTT/b2.db \
	>$PTT/b2.txt 2>&1
expect "bisection: the rounds under the ports warned, once" 0 'bisection round 1, 2, 3, 4: 2 Gb/s across the halves against 5 Gb/s of the senders' -- \
	cat $PTT/b2.txt

# alltoall in groups of 2: one round, every ordered pair of a group.
$FC matrix nodeA nodeB nodeC nodeD --pattern alltoall --group 2 -d rxe0 "${PTW[@]}" --db $PTT/a.db \
	>$PTT/a.txt 2>&1
expect "alltoall --group 2: one round of 4 flows" 0 'round 1: 4 flows, 9.6 Gb/s in all' -- cat $PTT/a.txt
# Each group by its index and its size (issue 39 item 5: "group 2 of 2
# nodes" read as the second of two): groups 1 and 2, 2 nodes each.
expect "alltoall --group 2: each group's index, then its size" 0 '^2$' -- \
	grep -Ec '^    group [12], 2 nodes, Jain [0-9.]+ over what each received:$' $PTT/a.txt
# The run's schedule is the pattern's flows, not the matrix's pairs: the
# 4 flows of alltoall --group 2 (2 of the 6 pairs of 4 nodes) and the 4 of
# incast --fan-in 1 make a complete run, with the pattern's rounds.
$FC matrix nodeA nodeB nodeC nodeD --pattern alltoall --group 2 -d rxe0 "${PTW[@]}" --db $PTT/a3.db \
	--json >$PTT/a3.json 2>/dev/null
$FC matrix nodeA nodeB nodeC nodeD --pattern incast --fan-in 1 -d rxe0 "${PTW[@]}" --db $PTT/a4.db \
	--json >$PTT/a4.json 2>/dev/null
expect "alltoall --group 2, incast --fan-in 1: complete, the pattern's flows counted" 0 '^ok ok$' -- python3 -c '
import json, sys
for f, rounds in ((sys.argv[1], 1), (sys.argv[2], 4)):
    d = json.load(open(f))
    ok = (d["pairs_done"], d["pairs_total"], d["rounds"], d["verdict"]) == (4, 4, rounds, "pass")
    ok = ok and not any("incomplete" in x for x in d["findings"])
    print("ok" if ok else json.dumps(d)[:500], end=" " if rounds == 1 else "\n")' $PTT/a3.json $PTT/a4.json
# fanout: nodeC's worker sends 0.5 Gb/s; in the round from nodeC both
# receivers get it, fair between them, and the sender's 1 Gb/s out is
# under its port (2.5 Gb/s SDR 1X, the port rate: rxe has no payload model).
RW_GBPS_HOST=nodeC $FC matrix nodeA nodeB nodeC --pattern fanout -d rxe0 "${PTW[@]}" \
	--db $PTT/o.db >$PTT/o.txt 2>&1
expect "fanout: each sender's round, its receivers and Jain's index" 0 '^3$' -- \
	grep -Ec 'round [123]: from node[ABC] to 2 receivers: [0-9.]+ Gb/s of 2.5 Gb/s \(port rate\), Jain 1.000' $PTT/o.txt
expect "fanout: a sender under its port named" 0 'fanout from nodeC: below the port ceiling: 1 Gb/s out of nodeC against its port.s ceiling 2.5 Gb/s' -- \
	cat $PTT/o.txt

# alltoall in groups of 2 with nodeC's sends at 0.5 Gb/s and retransmissions
# on rxe0 after clean pairs (c.db): per group, each node in and out; group
# 2 (nodeC, nodeD) unfair, and the loss is no working flow control.
RW_GBPS_HOST=nodeC RW_COUNTERS_DEV=rxe0 RW_COUNTERS='{"rcvd_seq_err":40}' $FC matrix nodeA nodeB nodeC \
	nodeD --pattern alltoall --group 2 -d rxe0 "${PTW[@]}" --db $PTT/c.db --json >$PTT/a2.json 2>/dev/null
expect "alltoall --json: per group each node's in and out, Jain, the outcomes" 0 '^ok$' -- python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["pattern"]["rounds"][0]["groups"]
ok = len(g) == 2 and sorted(g[0]["in_gbps"]) == ["nodeA", "nodeB"] and abs(g[0]["jain"] - 1) < 1e-6
ok = ok and abs(g[1]["in_gbps"]["nodeD"] - 0.5) < 0.05 and abs(g[1]["out_gbps"]["nodeC"] - 0.5) < 0.05
names = [o["outcome"] for o in g[1]["outcomes"]]
ok = ok and "unfair" in names and "no working flow control" in names
print("ok" if ok else json.dumps(g)[:900])' $PTT/a2.json

# report --html of an incast run: a bar per sender of each receiver's
# round, as a share of the receiver's port (300 px full), with the outcome.
RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.5 $FC matrix nodeA nodeB nodeC --pattern incast -d rxe0 \
	"${PTW[@]}" --db $PTT/h.db >/dev/null 2>&1
$FC report --db $PTT/h.db --html $PTT/h.html >/dev/null 2>&1
expect "report --html: per-receiver incast bars and the unfair sender" 0 '^ok$' -- python3 -c '
import re, sys
h = open(sys.argv[1]).read()
bars = re.findall(r"<td>(node[ABC]) &rarr; (node[ABC])</td><td><div class=\"bar\" style=\"width:(\d+)px\"></div></td><td>([0-9.]+) Gb/s</td>", h)
want = sorted((s, r) for r in ("nodeA", "nodeB", "nodeC") for s in ("nodeA", "nodeB", "nodeC") if s != r)
ok = sorted((s, r) for s, r, _, _ in bars) == want
ok = ok and all(int(w) == (60 if s == "nodeC" else 288) for s, _, w, _ in bars)
ok = ok and h.count("<p class=\"outcome-warn\">warn: unfair: nodeC sent 0.5 Gb/s") == 2 and "<h3>Round 1: into nodeA" in h
print("ok" if ok else bars)' $PTT/h.html
# nodeC's bar into nodeA whole: 0.5 of nodeA's 2.5 Gb/s port, 60 of 300 px.
expect "report --html: nodeC's incast bar 60 px for 0.5 Gb/s" 0 '^1$' -- \
	grep -cF '<tr><td>nodeC &rarr; nodeA</td><td><div class="bar" style="width:60px"></div></td><td>0.5 Gb/s</td></tr>' $PTT/h.html

# Measured over the round's common window: nodeB's worker moves its bytes
# from 1 s to 3 s after the go, 50 MB of them in its first second (its own
# test says 2.4 Gb/s); the others move 2.4 Gb/s from 0 s to 2 s. A round
# that nodeB sends in is judged from 1 s to 2 s (a third of the round):
# nodeB 0.4 Gb/s there, unfair; the round into nodeB over its 2 s.
RW_CURVE_HOST=nodeB RW_CURVE='[[1,0],[2,50000000],[3,600000000]]' RW_T0_SHARED=$PTT/t0 $FC matrix nodeA nodeB nodeC \
	-d rxe0 --pattern incast "${PTW[@]}" --db $PTT/w.db --json >$PTT/w.json 2>/dev/null
expect "incast: each round measured over the window all its flows ran in" 0 '^ok$' -- python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["pattern"]["rounds"]
w = [x["window"] for x in r]
ok = all(x["measured_over"] == "common window" for x in w)
ok = ok and abs(w[0]["window_s"] - 1) < 0.15 and abs(w[0]["share"] - 1 / 3) < 0.05 and abs(w[1]["window_s"] - 2) < 0.15
ok = ok and abs(r[0]["senders"]["nodeB"] - 0.4) < 0.05 and abs(r[0]["senders"]["nodeC"] - 2.4) < 0.05
ok = ok and any(o["outcome"] == "unfair" and o["evidence"].startswith("nodeB ") for o in r[0]["outcomes"])
ok = ok and abs(r[1]["jain"] - 1) < 1e-6
print("ok" if ok else json.dumps(r)[:900])' $PTT/w.json

# Bisection with each node's leaf from its own port list (the LLDP
# neighbour of its first rail; tests/data/rails/leaves-6, two rails a node,
# one list a node under the stand-in srun): on rail 0 nodeA and nodeD reach
# leaf-1, nodeB and nodeE leaf-2, nodeC and nodeF leaf-3. Halves by leaf, {A, D, B} and {E, C, F}: only
# B-E stays within a leaf (three leaves of two split 3 and 3 keep at least
# one pair), where the order given would keep A-D, B-E and C-F. leaf-3's
# nodes move 0.5 Gb/s both ways (its uplinks short): each round has a flow
# to or from them, so every round is low, and leaf-3 is the one leaf every
# slow flow goes through.
mkdir -p $PTT/srun && ln -s "$(pwd)/tests/cli/stand-in-srun.sh" $PTT/srun/srun
env PATH="$PTT/srun:$PATH" FAKE_DEVICES_DIR=tests/data/rails/leaves-6 RW_GBPS_HOST="nodeC nodeF" RW_GBPS_BOTH=1 \
	$FC matrix nodeA nodeB nodeC nodeD nodeE nodeF --pattern bisection --test write --bw --launcher slurm \
	--worker-cmd tests/cli/rack-worker.sh --timeout 5 --db $PTT/l.db --json >$PTT/l.json 2>$PTT/l.err
expect "bisection across leaves: halves from each node's leaf, one leaf's pair left" 0 '^2 of 18 ok$' -- python3 -c '
import json, sqlite3, sys
leaf = dict(zip(["node" + n for n in "ABCDEF"], [1, 2, 3, 1, 2, 3]))
rows = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from pairs")]
flows = sorted((d["a"]["node"], d["b"]["node"]) for d in rows)
h1 = {"nodeA", "nodeD", "nodeB"}
halves = all((a in h1) != (b in h1) for a, b in flows) and len(set(flows)) == 18
print(sum(leaf[a] == leaf[b] for a, b in flows), "of", len(flows), "ok" if halves else flows)' $PTT/l.db
expect "bisection across leaves: the low rounds' one shared leaf named" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
lr = d["pattern"]["low_rounds"]
f = "bisection: rounds 1, 2, 3, 4, 5, 6 are low and every slow flow in them goes through leaf leaf-3: check its uplinks to the spine"
ok = lr == {"rounds": [1, 2, 3, 4, 5, 6], "leaves_known": True, "shared_leaves": ["leaf-3"]} and f in d["findings"]
print("ok" if ok else json.dumps(lr) + " " + json.dumps(d["findings"])[:600])' $PTT/l.json
rm -rf "$PTT"
