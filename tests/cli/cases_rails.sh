# Cases for rails on this host (sourced by tests/cli/run.sh): `pair --rails`
# through fake workers (tests/cli/fake-worker.sh) that list a recorded port
# list for `devices --json` and fail each rail's pair at setup.
RLT=${TMPDIR:-/tmp}/fabcheck-cli-rails-$$
mkdir -p "$RLT"
RDEV=tests/data/rails/devices-2rail.json
RFAKE=(--launcher local --worker-cmd tests/cli/fake-worker.sh --no-db)
expect "pair --rails with -d" 2 '-d names one port and --rails the rails' -- $FC pair a b --rails all -d rxe0
expect "pair --exclude-dev with -d" 2 '-d names one port; --exclude-dev and --loaded-only choose among rails' -- $FC pair a b --exclude-dev mlx5_8 -d rxe0
expect "pair --exclude-dev with --rails first" 2 '--rails first tests the first active port only' -- $FC pair a b --exclude-dev mlx5_8 --rails first
expect "pair --rails empty" 2 '--rails: empty' -- $FC pair a b --rails ''
expect "pair --rails ,," 2 "',,' is not a comma-separated list" -- env FAKE_DEVICES=$RDEV $FC pair a b --rails ,, "${RFAKE[@]}"
expect "pair --rails unknown rail" 2 "no rail is named 'mlx5_0'; the rails are 0 \(rxe0\) 1 \(rxe1\)" -- \
	env FAKE_DEVICES=$RDEV $FC pair a b --rails mlx5_0 "${RFAKE[@]}"
expect "pair --min-loaded-pct 101" 2 "--min-loaded-pct" -- $FC pair a b --rails all --min-loaded-pct 101
expect "pair --rails: a node without a port list" 3 'both nodes: cannot list its RDMA ports \(fabcheck devices --json\)' -- \
	env FAKE_DEVICES=/nonexistent $FC pair nodeA nodeB --rails all "${RFAKE[@]}"
env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --rails all "${RFAKE[@]}" --json >"$RLT/two.json" 2>/dev/null
expect "pair --rails all: both rails, each alone and loaded, their setup errors named" 0 '^ok$' -- \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
r = d["rails"]
ok = (d["verdict"] == "fail" and [(x["rail"], x["name"], x["subnet"], x["a"]["device"], x["b"]["netdev"]) for x in r]
      == [(0, "rxe0", "10.0.0.0/24", "rxe0", "eth0"), (1, "rxe1", "10.99.0.0/24", "rxe1", "eth2")]
      and all(x["alone"]["verdict"] == "fail" and x["loaded"]["verdict"] == "fail" for x in r)
      and any(f.startswith("rail 1 (rxe1) loaded: nodeA: no RDMA device found") for f in d["findings"])
      and "results" in d and "counters" in d and d["options"]["rails"] == "all")
print("ok" if ok else json.dumps(d)[:600])' "$RLT/two.json"
# A rail whose pair could not run for the worker's or the launcher's own
# reason (kind "cant"; a worker that died) is "error", never "fail"; the
# node's missing RDMA device above (kind "node") stays a fault of its port.
expect "pair --rails: rails whose workers could not run are errors, not fails" 3 '^ok$' -- \
	bash -c "set -o pipefail; env FAKE_DEVICES=$RDEV FAKE_MODE=noise FAKE_KIND=cant $FC pair nodeA nodeB --rails all ${RFAKE[*]} --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
ok = [(x[\"verdict\"], x[\"alone\"][\"verdict\"], x[\"loaded\"][\"verdict\"]) for x in d[\"rails\"]] == [(\"error\",) * 3] * 2
print(\"ok\" if ok else [(x[\"verdict\"], x[\"alone\"][\"verdict\"]) for x in d[\"rails\"]]); sys.exit(3)'"
expect "pair --rails: a worker that died leaves its rails errors" 3 '^ok$' -- \
	bash -c "set -o pipefail; env FAKE_DEVICES=$RDEV FAKE_MODE=die $FC pair nodeA nodeB --rails all ${RFAKE[*]} --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
ok = all(x[\"verdict\"] == \"error\" for x in d[\"rails\"]) and len(d[\"rails\"]) == 2
print(\"ok\" if ok else [x[\"verdict\"] for x in d[\"rails\"]]); sys.exit(3)'"
expect "pair --rails: the node's missing device stays a fault of its port" 0 '^fail fail$' -- \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(*[x["verdict"] for x in d["rails"]])' "$RLT/two.json"
# Every rail by default: the same two rails without --rails; --rails first
# and -d test one port as before (no "rails" list, no port listing).
expect "pair (default): every rail, each alone and loaded" 0 '^\[0, 1\] loaded all$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
print([x["rail"] for x in d["rails"]], "loaded" if d["rails"][1]["loaded"] else "none", d["options"]["rails"])' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB "${RFAKE[@]}" --json
expect "pair --rails first: one port, as before rails" 0 '^None$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
print(d.get("rails"))' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --rails first "${RFAKE[@]}" --json
expect "pair (default), one rail left: one port, the rail noted" 0 '^None rxe0 1$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
print(d.get("rails"), d["options"].get("rails", "rxe0"), d["rails_matched"]["rails"])' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --exclude-dev rxe1 "${RFAKE[@]}" --json
expect "pair (default): ports not listed, the first port tested and said" 3 'cannot list its RDMA ports .*testing the first active port, not every rail' -- \
	env FAKE_DEVICES=/nonexistent $FC pair nodeA nodeB "${RFAKE[@]}" --json
# One rail's own-device fault (pair_msg.c node_fault) beside a rail that
# ran: that port's fault, judged, exit 1 (pair_rails.c own_fault_exit);
# with no rail run beside it (above: every rail) it cannot be told from
# the options, exit 3.
expect "pair --rails: one rail's own-device fault beside a rail that ran exits 1" 1 \
	'rail 1 \(rxe1\) alone: nodeB: no RDMA device .rxe1. \(test worker\)' -- \
	env FAKE_DEVICES=$RDEV RW_NODEV_HOST=nodeB RW_NODEV_DEV=rxe1 $FC pair nodeA nodeB --rails all \
	--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5 --no-db
expect "pair --rails all exits 3 when no rail could run" 3 'rail 0 \(rxe0\) alone: nodeA: no RDMA device' -- \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --rails all "${RFAKE[@]}"
expect "pair --rails 1: one rail, alone only" 0 '^\[1\] none$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
print([x["rail"] for x in d["rails"]], "none" if d["rails"][0]["loaded"] is None else "loaded")' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --rails 1 "${RFAKE[@]}" --json
expect "pair --rails --exclude-dev rxe1: rail 0 alone" 0 '^\[.rxe0.\]$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
print([x["name"] for x in d["rails"]])' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC pair nodeA nodeB --rails all --exclude-dev rxe1 "${RFAKE[@]}" --json
rm -rf "$RLT"

# matrix with rails, from recorded `pair --rails --loaded-only` documents
# (tests/data/matrix/gen_rails.py --pair-docs 4 2 port:nodeC:1).
RLT=${TMPDIR:-/tmp}/fabcheck-cli-rails-$$
mkdir -p "$RLT"
$FC matrix --import tests/data/matrix/rails-docs-4x2-port.json --db "$RLT/m.db" --json >"$RLT/m.json" 2>/dev/null
expect "matrix rails: nodeC's port on rail 1 alone, level port" 0 '^ok$' -- \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
s = d["suspects"]
ok = (d["verdict"] == "fail" and len(s) == 1 and s[0]["node"] == "nodeC" and s[0]["rail"] == 1
      and s[0]["level"] == "port" and s[0]["device"] == "rxe1"
      and [r["name"] for r in d["rails"]] == ["rxe0", "rxe1"]
      and len(d["pairs"]) == 12 and {p["rail"] for p in d["pairs"]} == {0, 1}
      and all(p["verdict"] == "pass" for p in d["pairs"] if p["rail"] == 0)
      and sum(p["verdict"] == "fail" for p in d["pairs"] if p["rail"] == 1) == 3)
print("ok" if ok else json.dumps(d)[:800])' "$RLT/m.json"
# the evidence in the single-port analysis's words (tests/unit/test_mxsame.c
# feeds both the same cells): how many peers, which bar, the slowest
expect "matrix rails: the finding names the node, the rail and its evidence" 1 'nodeC on rail 1 \(rxe1\): bad with 3 of 3 peers \(below 90% of the rack median 0.163 Gb/s; the slowest 0.02 Gb/s, with nodeA; its median 0.02 Gb/s\), while its other rails pass: that node.s HCA' -- \
	$FC matrix --import tests/data/matrix/rails-docs-4x2-port.json --db "$RLT/m.db"
$FC matrix --import tests/data/matrix/rails-docs-4x2-port.json --db "$RLT/m.db" >"$RLT/m.txt" 2>/dev/null
# The same recorded results two ways (issue 39 item 5): the port run above
# with both directions measured (nodeD->nodeA on rail 1 at 0.2 Gb/s against
# 0.163 the other way), imported with its rails and as a single-port run of
# rail 1's figures: the rails' suspect gives the single-port suspect's
# evidence word for word, and the asymmetry on rail 1 is said in both (the
# rails path left every rail's asymmetry out).
python3 -c 'import copy, json, sys
d = json.load(open(sys.argv[1])); res = []; one = []
for r in d["results"]:
    x = copy.deepcopy(r); x["a"], x["b"] = r["b"], r["a"]
    if {r["a"]["node"], r["b"]["node"]} == {"nodeA", "nodeD"}:
        x["rails"][1]["loaded"]["results"][0]["gbps"] = 0.2
    res += [r, x]
for r in res:
    one.append(dict({k: v for k, v in r.items() if k != "rails"}, results=r["rails"][1]["loaded"]["results"],
                    verdict=r["rails"][1]["loaded"]["verdict"]))
json.dump(dict(d, results=res), open(sys.argv[2], "w")); json.dump(dict(d, results=one), open(sys.argv[3], "w"))' \
	tests/data/matrix/rails-docs-4x2-port.json "$RLT/both.json" "$RLT/one.json"
$FC matrix --import "$RLT/both.json" --db "$RLT/both.db" --json >"$RLT/both.out" 2>/dev/null
$FC matrix --import "$RLT/one.json" --db "$RLT/one.db" --json >"$RLT/one.out" 2>/dev/null
expect "matrix rails and one port, the same results: the same evidence, the same asymmetry" 0 '^ok 2$' -- \
	python3 -c 'import json, re, sys
texts = lambda p: json.load(open(p))["findings"]
rails, one = texts(sys.argv[1]), texts(sys.argv[2])
why = [re.match(r"suspect node nodeC: (.*): check ", t) for t in one]
why = [m.group(1) for m in why if m]
asym = [t for t in one if t.startswith("link nodeA-nodeD is asymmetric: ")]
want = ["nodeC on rail 1 (rxe1): %s, while its other rails pass: " % w for w in why] + ["rail 1 (rxe1): " + a for a in asym]
found = sum(any(t.startswith(w) for t in rails) for w in want)
print("ok %d" % found if len(want) == 2 and found == 2 else (want, rails))' "$RLT/both.out" "$RLT/one.out"
expect "matrix rails: a grid per rail" 0 '^2$' -- grep -c 'Gb/s, row -> column' "$RLT/m.txt"
expect "matrix rails: nodeC's row bad on rail 1 only" 0 '^1$' -- grep -Ec '^  nodeC +0\.02\* +0\.02\* +0\.02\*$' "$RLT/m.txt"
expect "matrix one rail: suspects have level node and rail null" 0 '^ok$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
s = d["suspects"]
print("ok" if len(s) == 1 and s[0]["level"] == "node" and s[0]["rail"] is None and s[0]["node"] == "nodeC" else s)' \
	$FC matrix --import tests/data/matrix/rack4-slowC.json --db "$RLT/m.db" --json
expect "matrix --rails with -d" 2 '-d names one port and --rails the rails' -- $FC matrix a b --rails all -d rxe0 --db "$RLT/m.db"
expect "matrix --exclude-dev with -d" 2 '--exclude-dev chooses among rails; -d names one port' -- $FC matrix a b --exclude-dev x -d rxe0 --db "$RLT/m.db"
expect "matrix (default): every rail, the pairs given --rails all" 0 '^ok$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
names = [r["name"] for r in d["rails"]["list"]] if isinstance(d.get("rails"), dict) else [r["name"] for r in d.get("rails", [])]
print("ok" if names == ["rxe0", "rxe1"] else json.dumps(d)[:400])' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC matrix nodeA nodeB --launcher local --worker-cmd tests/cli/fake-worker.sh --db "$RLT/m.db" --json
expect "matrix --rails: unknown rail" 2 "no rail is named 'rxe7'" -- \
	env FAKE_DEVICES=$RDEV $FC matrix nodeA nodeB nodeC --rails rxe7 --launcher local --worker-cmd tests/cli/fake-worker.sh --db "$RLT/m.db"
rm -rf "$RLT"

# Reports of a matrix with rails: a heat map per rail, the nodes x rails
# overview, Prometheus samples labelled by rail.
RLT=${TMPDIR:-/tmp}/fabcheck-cli-rails-$$
mkdir -p "$RLT"
$FC matrix --import tests/data/matrix/rails-docs-4x2-port.json --db "$RLT/r.db" >/dev/null 2>&1
$FC report --db "$RLT/r.db" --html "$RLT/r.html" --prom "$RLT/r.prom" >/dev/null 2>&1
expect "report rails: a heat map per rail and the overview" 0 '^2 1$' -- \
	bash -c 'echo $(grep -c "<svg id=\"heatmap-rail" "$1") $(grep -c "<table id=\"rails\">" "$1")' _ "$RLT/r.html"
expect "report rails: one suspect counted" 0 'fabcheck_matrix_suspects\{run="1"\} 1' -- cat "$RLT/r.prom"
# Bounded by default: per (node, rail) gauges and a series per suspect link
# (none here: nodeC's port on rail 1 is the suspect, in the port gauges);
# every pair's only with --prom-all-pairs.
expect "report rails: prometheus has no pair series but the ports'" 0 '^ok$' -- python3 -c '
import re, sys
t = open(sys.argv[1]).read().splitlines()
bw = [l for l in t if l.startswith("fabcheck_pair_bandwidth_gbps{")]
ok = not bw
ok = ok and any(re.match(r"fabcheck_port_suspect\{node=\"nodeC\",rail=\"rxe1\",run=\"1\"\} 1$", l) for l in t)
ok = ok and any(re.match(r"fabcheck_port_median_gbps\{node=\"nodeA\",rail=\"rxe0\",run=\"1\"\} 0\.1", l) for l in t)
print("ok" if ok else bw)' "$RLT/r.prom"
$FC report --db "$RLT/r.db" --prom "$RLT/all.prom" --csv "$RLT/r.csv" --prom-all-pairs >/dev/null 2>&1
expect "report rails: --prom-all-pairs writes every pair of every rail" 0 '^12$' -- \
	sh -c "grep -c '^fabcheck_pair_bandwidth_gbps{' '$RLT/all.prom'"
expect "report rails: prometheus samples carry the rail" 0 'fabcheck_pair_bandwidth_gbps\{src="nodeB",dst="nodeC",rail="rxe1",run="1"\} 0.02' -- \
	cat "$RLT/all.prom"
expect "report rails: a CSV row per (pair, rail), with the rail and device" 0 '^12 ok$' -- python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = {(r["rail"], r["device"]) for r in rows} == {("0", "rxe0"), ("1", "rxe1")}
ok = ok and all(r["verdict"] == "fail" for r in rows if r["rail"] == "1" and "nodeC" in (r["a"], r["b"]))
print(len(rows), "ok" if ok else rows[:3])' "$RLT/r.csv"
rm -rf "$RLT"

# soak --rails: a series (and its failures) per rail of each pair. The
# stand-in's failure is a data path's (FAKE_KIND=fail, judged): its own
# kind "node" names the node's device (pair_msg.c node_fault), no
# evidence against the link (matrix/soak.h fc_soak_own_fault).
expect "soak --rails: each rail of the pair its own series, named NODE/RAIL" 0 '^ok$' -- python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
p = [(x["a"], x["b"], x["failed_slices"] >= 1) for x in d["pairs"]]
ok = p == [("nodeA/rxe0", "nodeB/rxe0", True), ("nodeA/rxe1", "nodeB/rxe1", True)] and any(f.startswith("nodeA/rxe1-nodeB/rxe1: traffic failed") for f in d["findings"])
print("ok" if ok else p)' \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise FAKE_KIND=fail $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 --rails all \
	--launcher local --worker-cmd tests/cli/fake-worker.sh --db "${TMPDIR:-/tmp}/fabcheck-cli-soak-rails-$$.db" --json
rm -f "${TMPDIR:-/tmp}/fabcheck-cli-soak-rails-$$.db"*
# Its suspects: a link per failing rail, with that rail's diagnosis (JSON and text).
SKD="${TMPDIR:-/tmp}/fabcheck-cli-soak-rdiag-$$"
mkdir -p "$SKD"
env FAKE_DEVICES=$RDEV FAKE_MODE=noise FAKE_KIND=fail $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 \
	--launcher local --worker-cmd tests/cli/fake-worker.sh --db "$SKD/s.db" --json >"$SKD/s.json" 2>/dev/null
expect "soak: a suspect link per rail, each with its rail's diagnosis" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = sorted((x["level"], tuple(x["link"]), x["device"], x["diagnosis"]["subject"].split(":")[0], x["diagnosis"]["part"])
           for x in d["suspects"])
print("ok" if s == [("link", ("nodeA", "nodeB"), "rxe0", "rail 0 loaded", "not determined"),
                    ("link", ("nodeA", "nodeB"), "rxe1", "rail 1 loaded", "not determined")] else s)' "$SKD/s.json"
expect "soak text: the suspects' parts, both rails' once" 3 '^  link nodeA-nodeB on rxe0, rxe1: possible not determined \(pair nodeA -> nodeB\)$' -- \
	env FAKE_DEVICES=$RDEV FAKE_MODE=noise FAKE_KIND=fail $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 \
	--launcher local --worker-cmd tests/cli/fake-worker.sh --db "$SKD/t.db"
# Every rail's slice failed for a node's own device (the stand-in's kind
# "node") and no slice measured: no link is a suspect, and no node either
# (nothing worked to tell its failure from the soak's options).
expect "soak: a node's own device failing is no link suspect" 3 '^\[\] 0 True$' -- bash -c "env FAKE_DEVICES=$RDEV FAKE_MODE=noise $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 --launcher local --worker-cmd tests/cli/fake-worker.sh --db $SKD/u.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"suspects\"], sum(p[\"failed_slices\"] for p in d[\"pairs\"]), all(p[\"unrun_slices\"] == p[\"slices\"] for p in d[\"pairs\"]))'; exit \${PIPESTATUS[0]}"
rm -rf "$SKD"

# A node of another model (tests/data/rails/shifted-2rail: nodeB names its
# ports rxe2, rxe3 on the rails nodeA's rxe0, rxe1 are on), each node its
# own port list under the stand-in srun: matrix and soak say how each rail
# was matched, and their suspects name each node's own device on the rail.
SHD=${TMPDIR:-/tmp}/fabcheck-cli-rails-shift-$$
mkdir -p "$SHD/srun"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$SHD/srun/srun"
# FAKE_KIND=fail: each pair fails on its data path (judged), so that the
# suspects are the fabric's; a worker that could not run names none.
SHX=(env PATH="$SHD/srun:$PATH" FAKE_DEVICES_DIR=tests/data/rails/shifted-2rail FAKE_MODE=noise FAKE_KIND=fail)
SHL=(--launcher slurm --worker-cmd tests/cli/fake-worker.sh)
"${SHX[@]}" $FC matrix nodeA nodeB "${SHL[@]}" --db "$SHD/m.db" --json >"$SHD/m.json" 2>/dev/null
expect "matrix, shifted names: each rail matched by subnet, suspects and pairs name each node's own device" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [(x["name"], x.get("matched_by")) for x in d["rails"]]
s = sorted((x["rail"], x["device"], tuple(x.get("devices", ()))) for x in d["suspects"])
p = sorted((x["rail"], tuple(x.get("devices", ()))) for x in d["pairs"])
ok = (r == [("rxe0", "subnet"), ("rxe1", "subnet")] and s == [(0, "rxe0", ("rxe0", "rxe2")), (1, "rxe1", ("rxe1", "rxe3"))]
      and p[0] == (0, ("rxe0", "rxe2")) and not any("swapped" in f for f in d["findings"]))
print("ok" if ok else (r, s, p))' "$SHD/m.json"
"${SHX[@]}" $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 --rails all "${SHL[@]}" \
	--db "$SHD/s.db" --json >"$SHD/s.json" 2>/dev/null
expect "soak, shifted names: its rails and how each was matched, suspects with each node's own device" 0 '^ok$' -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [(x["rail"], x["name"], x["matched_by"]) for x in d["rails"]]
s = sorted((x["device"], tuple(x["devices"])) for x in d["suspects"])
ok = r == [(0, "rxe0", "subnet"), (1, "rxe1", "subnet")] and s == [("rxe0", ("rxe0", "rxe2")), ("rxe1", ("rxe1", "rxe3"))]
print("ok" if ok else (r, s))' "$SHD/s.json"
rm -rf "$SHD"

# nccl run: NCCL_IB_HCA names the chosen rails' devices exactly; one set in
# the environment is kept (the fake workers then fail: exit 3).
expect "nccl run --rails 1: NCCL_IB_HCA is the rail's device" 3 'nccl run: NCCL_IB_HCA==rxe1:1 \(the 1 rail' -- \
	env FAKE_DEVICES=$RDEV $FC nccl run nodeA nodeB --rails 1 --launcher local --worker-cmd tests/cli/fake-worker.sh --timeout 5
expect_none "nccl run: an NCCL_IB_HCA of the environment is kept" 3 'NCCL_IB_HCA=' -- \
	env NCCL_IB_HCA=mlx5_0 FAKE_DEVICES=$RDEV $FC nccl run nodeA nodeB --rails 1 --launcher local --worker-cmd tests/cli/fake-worker.sh --timeout 5
# The suspects carry the part diagnosis of their worst pair: the rails run
# with a diagnosis in each pair document of nodeC (rail 1's and rail 0's
# rows, as pair --rails writes them); the port on rail 1 gets rail 1's.
RLT=${TMPDIR:-/tmp}/fabcheck-cli-rdiag-$$
mkdir -p "$RLT"
python3 tests/data/matrix/gen_diag_docs.py tests/data/matrix/rails-docs-4x2-port.json "$RLT/d.json"
expect "matrix rails: the port suspect carries its worst pair's diagnosis on its rail" 0 '^ok$' -- python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)
s = d["suspects"][0]; g = s.get("diagnosis", {})
print("ok" if g.get("part") == "cable or transceiver" and g.get("confidence") == "likely" and "nodeC" in g["pair"]
      and g["next"] == "reseat the cable" else d["suspects"])' \
	$FC matrix --import "$RLT/d.json" --db "$RLT/m.db" --json
expect "matrix rails: the text names the part under the findings" 1 \
	"the suspects' parts .* node nodeC on rxe1: likely cable or transceiver \\(pair nodeC -> [a-zA-Z]+\\) +evidence: symbol errors \\+812 on nodeC rxe1 +next: reseat the cable" -- \
	bash -c "set -o pipefail; $FC matrix --import '$RLT/d.json' --db '$RLT/t.db' 2>/dev/null | tr '\n' ' '"
# The summary's line for that suspect: where, its level, how sure, the part
# and the step its diagnosis names (it gave the level's candidates, "that
# node's HCA, cable or switch port on that rail", and no step).
expect "matrix rails: the summary names the suspect's part and step" 1 \
	"^  nodeC rxe1 on rail 1: port level \\(measured once, not retested\\); likely cable or transceiver; next: reseat the cable$" -- \
	env COLUMNS=120 $FC matrix --import "$RLT/d.json" --db "$RLT/s.db"
$FC report --db "$RLT/t.db" --html "$RLT/t.html" >/dev/null 2>&1
expect "report rails: the HTML names the suspect's part" 0 \
	'<li><b>nodeC on rxe1</b>: likely cable or transceiver; evidence: symbol errors \+812 on nodeC rxe1; next: reseat the cable</li>' -- \
	cat "$RLT/t.html"
# A port retested on its rail (the stand-in worker slows nodeC's rxe1 both
# ways, as `lab fault --rail 1 rate`): its finding says "still bad on
# retest", as the single-port finding does, and so the summary's line (it
# said "measured once, not retested" of every rail suspect).
expect "matrix rails --retest: the port still bad on retest, in the summary" 1 \
	'^  nodeC rxe1 on rail 1: port level \(still bad on retest\); that node.s HCA' -- \
	env FAKE_DEVICES=$RDEV RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 RW_GBPS_BOTH=1 RW_GBPS_DEV=rxe1 \
	$FC matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd tests/cli/rack-worker.sh \
	--test write --bw -n 100 -s 64K --min-gbps 0.001 --timeout 60 --min-rack-pct 30 --retest \
	--db "$RLT/rt.db"
# Its retests run rail 1 alone: each progress line says so, its figure
# that rail's (0.2 Gb/s), not to be read against the rounds' sum of both
# rails (2.6 Gb/s) above it.
expect "matrix rails --retest: a retest's progress line names its rail" 1 \
	'^  \[retest on rxe1\] nodeC +-> nodeA +0\.200 Gb/s' -- \
	bash -c "env FAKE_DEVICES=$RDEV RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 RW_GBPS_BOTH=1 RW_GBPS_DEV=rxe1 \
	$FC matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd tests/cli/rack-worker.sh \
	--test write --bw -n 100 -s 64K --min-gbps 0.001 --timeout 60 --min-rack-pct 30 --retest \
	--db $RLT/rt2.db 2>&1 >/dev/null"
# How many it retests, fed a known plan (matrix/mxan.h fc_mx_retest_plan):
# nodeC's 3 bad pairs on rxe1 with a good node, each followed by a reference
# of its good end not planned yet (nodeA-nodeB after nodeC-nodeA, nodeA-nodeD
# after nodeC-nodeD, none after nodeB-nodeC): 5 pairs.
expect "matrix rails --retest: the count of pairs retested" 1 '^retesting 5 pairs of the suspects$' -- \
	bash -c "env FAKE_DEVICES=$RDEV RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 RW_GBPS_BOTH=1 RW_GBPS_DEV=rxe1 \
	$FC matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd tests/cli/rack-worker.sh \
	--test write --bw -n 100 -s 64K --min-gbps 0.001 --timeout 60 --min-rack-pct 30 --retest \
	--db $RLT/rt3.db 2>&1 >/dev/null"
# Rails matched by position ("assumed": three IB nodes on one subnet manager,
# the switches not read, tests/data/rails/ib-one-sm-pci.json) said by matrix
# and soak in their text and in their JSON's "rails_assumed", as nccl run says
# it (issue 39 item 4; soak's JSON had no "rails_assumed", only each rail's).
mkdir -p "$RLT/pci" "$RLT/srun"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$RLT/srun/srun"
for i in 0 1 2; do
	jq "{verdict: \"pass\", findings: [], host: .nodes[$i].name, devices: .nodes[$i].devices}" \
		tests/data/rails/ib-one-sm-pci.json >"$RLT/pci/gpu0$((i + 1)).json"
done
RPOS=(env PATH="$RLT/srun:$PATH" FAKE_DEVICES_DIR="$RLT/pci" FAKE_MODE=noise)
RPOSW=(--rails mlx5_0,mlx5_1 --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5)
expect "matrix: rails assumed from position, in the text" 0 '^rails: rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${RPOS[@]}") $FC matrix gpu01 gpu02 gpu03 ${RPOSW[*]} --db $RLT/pos1.db 2>/dev/null; exit 0"
expect "matrix: rails assumed from position, in the JSON" 0 '^rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${RPOS[@]}") $FC matrix gpu01 gpu02 gpu03 ${RPOSW[*]} --db $RLT/pos2.db --json 2>/dev/null | jq -r .rails_assumed"
expect "soak: rails assumed from position, in the text" 0 '^rails: rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${RPOS[@]}") $FC soak gpu01 gpu02 gpu03 ${RPOSW[*]} --duration 4 --slice 2 --interval 1 --db $RLT/pos3.db 2>/dev/null; exit 0"
expect "soak: rails assumed from position, in the JSON" 0 '^rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${RPOS[@]}") $FC soak gpu01 gpu02 gpu03 ${RPOSW[*]} --duration 4 --slice 2 --interval 1 --db $RLT/pos4.db --json 2>/dev/null | jq -r .rails_assumed"
expect "soak: nothing assumed, null in the JSON" 0 '^null$' -- \
	bash -c "FAKE_DEVICES=$RDEV $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 --launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5 --db $RLT/pos5.db --json 2>/dev/null | jq -c .rails_assumed"
rm -rf "$RLT"
