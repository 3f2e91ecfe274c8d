# Cases for --drain, --drain-dry-run and --resume-passed (ctl/drain.h) on
# this host, with a stand-in scontrol (tests/cli/stand-in-scontrol.sh) that
# keeps each node's state and reason in a folder; sourced by run.sh.
SLT=$(mktemp -d /tmp/fc-slurm-XXXXXX)
SLD=tests/data/matrix
export FABCHECK_SCONTROL=$(pwd)/tests/cli/stand-in-scontrol.sh
# slurm_nodes NODE...: a fresh stand-in Slurm where each NODE is idle.
slurm_nodes() {
	rm -rf "$SLT/s" && mkdir "$SLT/s"
	for n in "$@"; do printf 'IDLE\n\n' >"$SLT/s/$n"; done
	export FAKE_SLURM=$SLT/s
}
slurm_state() { head -2 "$SLT/s/$1" | tr '\n' '|'; }
# A link between two healthy nodes: nodeA-nodeB slow, each fine with the others.
python3 - "$SLD/rack4-healthy.json" >"$SLT/link.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if {r["a"]["node"], r["b"]["node"]} == {"nodeA", "nodeB"}:
        for t in r["results"]:
            if t.get("metric") == "bw":
                t["gbps"] = 0.02
json.dump(d, sys.stdout)
PY
# A run that could not measure: every pair an error.
python3 - "$SLD/rack4-slowC.json" >"$SLT/errors.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r.update(verdict="error", results=[], error="cannot reach the node over ssh")
json.dump(d, sys.stdout)
PY

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: the suspect node drained with fabcheck's reason" 1 \
	'drain +nodeC .*update NodeName=nodeC State=DRAIN Reason="fabcheck: node \(matrix run 1 across 4 nodes\)"' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain
expect "drain: Slurm holds the reason" 0 '^IDLE\+DRAIN\|fabcheck: node \(matrix run 1 across 4 nodes\)\|$' -- \
	slurm_state nodeC
expect "drain: the reason came as one argument, no shell" 0 '^Reason=fabcheck: node \(matrix run 1 across 4 nodes\)$' -- \
	cat $SLT/s/log
expect "drain: the healthy nodes untouched" 0 '^IDLE\|\|$' -- slurm_state nodeA
expect "drain: recorded, shown by report" 0 \
	'finding: suspect node nodeC: bad with 3 of 3 peers' -- \
	$FC report --slurm --db $SLT/m.db
# The HTML report's Slurm table (issue 39 item 3): a cell longer than 40
# characters (report/report.h RP_CELL_CHARS) is cut at a word with " ...",
# its whole text in the title attribute. The reason (44 characters) and the
# command (over 100) are cut; the action, the node and the stand-in's result
# are not.
$FC report --db $SLT/m.db --html $SLT/r.html >/dev/null 2>&1
expect "drain: the HTML Slurm table's long cells cut at a word, whole in the title" 0 '^ok 2 cut$' -- \
	python3 - "$SLT/r.html" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.inside = s.cell = False; s.cells = []
    def handle_starttag(s, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == "slurm": s.inside = True
        if s.inside and tag == "td": s.cell = True; s.cells.append([dict(attrs).get("title"), ""])
    def handle_endtag(s, tag):
        if tag == "table": s.inside = False
        if tag == "td": s.cell = False
    def handle_data(s, d):
        if s.cell: s.cells[-1][1] += d
p = P(); p.feed(open(sys.argv[1]).read())
bad = [c for c in p.cells if len(c[1]) > 40 or (c[0] is not None and (not c[1].endswith(" ...")
       or not c[0].startswith(c[1][:-4]) or len(c[0]) <= 40))]
cut = [c for c in p.cells if c[0]]
# the reason cut after a whole word; the command (a path longer than the
# cell, then the reason) kept whole in its title
ok = len(p.cells) == 5 and not bad and ["fabcheck: node (matrix run 1 across 4 nodes)",
       "fabcheck: node (matrix run 1 across ..."] in cut and \
     any(c[0].endswith(' update NodeName=nodeC State=DRAIN Reason="fabcheck: node (matrix run 1 across 4 nodes)"') for c in cut)
print(("ok %d cut" % len(cut)) if ok else "no: %r" % p.cells)
PY

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain dry run: the command printed" 1 \
	'would-drain +nodeC .*State=DRAIN Reason="fabcheck: node' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain-dry-run
expect "drain dry run: nothing changed" 0 '^IDLE\|\|$' -- slurm_state nodeC

slurm_nodes nodeA nodeB nodeC nodeD
printf 'IDLE+DRAIN\nbad DIMM, ticket 42\n' >$SLT/s/nodeC
expect "drain dry run: reads the node: an operator's drain left, and said" 1 \
	'left +nodeC +already drained by hand \(bad DIMM, ticket 42\): left as it is' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain-dry-run
expect "drain dry run: no would-drain over an operator's drain" 1 '^0$' -- \
	sh -c "$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain-dry-run 2>&1 | grep -c would-drain"
printf 'IDLE\n\n' >$SLT/s/nodeC
expect "drain dry run: says the state it read" 1 \
	'would-drain +nodeC .*dry run: not run \(Slurm shows it IDLE\)' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain-dry-run
expect "drain dry run: read, not written" 0 '^IDLE\|\|$' -- slurm_state nodeC

# A node unreachable on every rail (ssh cut): could not check, never drained.
python3 - >"$SLT/unreach.json" <<'PY'
import json, subprocess
d = json.loads(subprocess.check_output(["python3", "tests/data/matrix/gen_rails.py", "--pair-docs", "4", "2"]))
for r in d["results"]:
    if "nodeC" in (r["a"]["node"], r["b"]["node"]):
        r.update(verdict="error", error="cannot reach the node over ssh (exit 255)", results=[])
        for x in r["rails"]:
            x.update(loaded=None, error="cannot reach the node over ssh (exit 255)")
json.dump(d, __import__("sys").stdout)
PY
slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a node ssh cannot reach is listed apart as not checked" 3 \
	'could not check \(not judged, never drained\):.*nodeC +none of its pairs could run' -- \
	bash -c "set -o pipefail; $FC matrix --import $SLT/unreach.json --db $SLT/m.db --drain 2>&1 | tr '\n' ' '"
expect "drain: the unreachable node is no suspect" 3 '^0$' -- \
	bash -c "set -o pipefail; $FC matrix --import $SLT/unreach.json --db $SLT/m.db --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"suspects\"]))'"
expect "drain: the unreachable node not drained" 0 '^IDLE\|\|$' -- slurm_state nodeC

# nodeC's pairs with nodeA and nodeB could not run (ssh exit 255 mid-run),
# as pair --rails writes them: the pair an error, each rail's phase a
# failure with no figure. No evidence against nodeC (fc_pair_end_judged):
# its pair with nodeD passes, nothing is drained.
python3 - >"$SLT/partial.json" <<'PY'
import json, subprocess
d = json.loads(subprocess.check_output(["python3", "tests/data/matrix/gen_rails.py", "--pair-docs", "4", "2"]))
for r in d["results"]:
    if {r["a"]["node"], r["b"]["node"]} in ({"nodeA", "nodeC"}, {"nodeB", "nodeC"}):
        why = "ssh: connect to host nodeC port 22: Connection timed out (exit 255)"
        r.update(verdict="error", error=why, results=[])
        for x in r["rails"]:
            x["loaded"] = {"verdict": "fail", "findings": [why], "counters": {}, "results": []}
json.dump(d, __import__("sys").stdout)
PY
slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: pairs that could not run partly are no evidence against the node" 0 '^0 \[\]$' -- \
	bash -c "$FC matrix --import $SLT/partial.json --db $SLT/m.db --drain --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d[\"suspects\"]), [a[\"node\"] for a in d[\"slurm\"] if a[\"action\"] == \"drain\"])'"
expect "drain: nodeC not drained for pairs that could not run" 0 '^IDLE\|\|$' -- slurm_state nodeC

# nodeC's pairs could not run on rail 1 alone (their rail-1 child gave no
# document: the launcher, a crash, a deadline; pair --rails says "error"),
# its rail 0 ran and passed: its rail-1 port could not be checked, listed
# apart, no suspect, never drained (the pair's verdict is "error", so the
# row-level analysis lists the node as not checked too). The same rail
# failed by the worker (a fault it found on nodeC: "fail") is a suspect.
for v in error fail; do
python3 - "$v" >"$SLT/rail1-$v.json" <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.check_output(["python3", "tests/data/matrix/gen_rails.py", "--pair-docs", "4", "2"]))
for r in d["results"]:
    if "nodeC" in (r["a"]["node"], r["b"]["node"]):
        why = "rail 1: nodeC: no RDMA device 'rxe1'" if sys.argv[1] == "fail" else "rail 1: the worker gave no result (killed at its deadline)"
        r.update(verdict=sys.argv[1], findings=[why])
        r["rails"][1]["loaded"] = {"verdict": sys.argv[1], "findings": [why], "counters": {}, "results": []}
json.dump(d, sys.stdout)
PY
done
slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a port none of whose pairs could run on its rail is not checked, not a suspect" 3 \
	'nodeC on rail 1 \(rxe1\): could not check rxe1: none of its pairs on that rail could run' -- \
	$FC matrix --import $SLT/rail1-error.json --db $SLT/m.db --drain
expect "drain: that port's node is not drained" 0 '^IDLE\|\|$' -- slurm_state nodeC
# Its per-node lines name the rail its pairs could not run on, not "none
# of its pairs" as if no rail of it had run (issue 38 item 4).
expect "drain: the node's could-not-check line names the rail" 3 \
	'could not check \(not judged, never drained\):.*nodeC +none of its pairs could run on rail 1 \(rxe1\) .*while its other rails ran' -- \
	bash -c "set -o pipefail; $FC matrix --import $SLT/rail1-error.json --db $SLT/m.db --drain 2>&1 | tr '\n' ' '"
expect "drain: the node's finding names the rail" 3 \
	'node nodeC: none of its 3 pairs could run on rail 1 \(rxe1\), while its other rails ran: ' -- \
	$FC matrix --import $SLT/rail1-error.json --db $SLT/m.db
expect "drain: the port listed apart in the JSON, no suspect" 3 "^0 \[\{'node': 'nodeC', 'rail': 1, 'rail_name': 'rxe1', 'device': 'rxe1'\}\] \[\]$" -- \
	bash -c "$FC matrix --import $SLT/rail1-error.json --db $SLT/m.db --drain --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d[\"suspects\"]), d[\"unchecked_ports\"], [a[\"node\"] for a in d[\"slurm\"] if a[\"action\"] == \"drain\"])'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a rail failed by a fault the worker found on the node drains its port" 1 \
	'drain +nodeC .*Reason="fabcheck: port on rxe1 \(matrix run [0-9]+ across 4 nodes\)"' -- \
	$FC matrix --import $SLT/rail1-fail.json --db $SLT/m.db --drain

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a link between two healthy nodes drains nothing" 1 'suspect link' -- \
	$FC matrix --import $SLT/link.json --db $SLT/m.db --drain --resume-passed
expect "drain: no update for a link" 1 '^0$' -- grep -c '^update$' $SLT/s/log

# A whole rail slow on every node: its switch's finding, which names no
# node and drains none; one node's port slow against its peers on a rail
# that is itself slow (the rack's recording, tests/data/matrix/
# rack3-rateC-rail1.json) is that node's port, drained with its device.
python3 tests/data/matrix/gen_rails.py --pair-docs 4 2 rail:1 >"$SLT/rail1.json"
slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a whole rail slow on every node drains no node" 1 'rail 1 \(rxe1\): bad for every node' -- \
	$FC matrix --import $SLT/rail1.json --db $SLT/m.db --drain
expect "drain: no update for a whole rail" 1 '^0$' -- sh -c "cat $SLT/s/log 2>/dev/null | grep -c '^update$'"
slurm_nodes nodeA nodeB nodeC
expect "drain: one node's slow port on a slow rail drains that node with its device" 1 \
	'drain +nodeC .*State=DRAIN Reason="fabcheck: [^"(]+ on rxe1 \(matrix run [0-9]+ across 3 nodes\)"' -- \
	$FC matrix --import $SLD/rack3-rateC-rail1.json --db $SLT/m.db --drain
expect "drain: only nodeC" 0 '^IDLE\|\|IDLE\|\|IDLE\+DRAIN\|' -- \
	sh -c "head -2 $SLT/s/nodeA | tr '\n' '|'; head -2 $SLT/s/nodeB | tr '\n' '|'; head -2 $SLT/s/nodeC | tr '\n' '|'"

# Resuming beside a rail bad as a whole (matrix/mx_drain.c
# mx_drain_unseen): the rack's clean run with its rails 4.5 times apart
# (rack3-clean-rail0slow.json): rail 0 is slow as a whole, but its own
# analysis held each node against its peers on it, so a port drained there
# and now in line was seen: resumed. With nothing run on rail 0 its nodes
# could not be told apart: a drain on it, or of a whole node, stays (and
# says why); a port on rail 1 is cleared.
slurm_nodes nodeA nodeB nodeC
printf 'IDLE+DRAIN\nfabcheck: port on rxe0 (matrix run 1 across 3 nodes)\n' >$SLT/s/nodeC
expect "resume-passed: a port in line with its peers on a rail slow as a whole is resumed" 1 \
	'resume +nodeC .*State=RESUME: passed matrix \(port\) across 3 nodes' -- \
	$FC matrix --import $SLD/rack3-clean-rail0slow.json --min-rack-pct 30 --db $SLT/m.db --resume-passed
expect "resume-passed: that port's node resumed in Slurm" 0 '^IDLE\|\|$' -- slurm_state nodeC
python3 - "$SLD/rack3-clean-rail0slow.json" >"$SLT/rail0whole.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["rails"][0]["loaded"].update(verdict="error", results=[], findings=["rail 0: pair gave no result"])
json.dump(d, sys.stdout)
PY
slurm_nodes nodeA nodeB nodeC
printf 'IDLE+DRAIN\nfabcheck: port on rxe0 (matrix run 1 across 3 nodes)\n' >$SLT/s/nodeC
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1 across 3 nodes)\n' >$SLT/s/nodeA
printf 'IDLE+DRAIN\nfabcheck: cable or transceiver on rxe1 (matrix run 1 across 3 nodes)\n' >$SLT/s/nodeB
expect "resume-passed: a port on a rail whose nodes could not be told apart is left, saying why" 0 \
	"left +nodeC .*could not have seen its 'port' fault \(no pair could run on rail 0 \(rxe0\) in this run: it could not tell its nodes apart\): left drained" -- \
	$FC matrix --import $SLT/rail0whole.json --min-rack-pct 30 --db $SLT/m.db --resume-passed
expect "resume-passed: such a rail leaves a whole node's drain, clears a port on the other rail" 0 \
	'^IDLE\+DRAIN\|fabcheck: node .*\|IDLE\|\|IDLE\+DRAIN\|fabcheck: port on rxe0' -- \
	sh -c "head -2 $SLT/s/nodeA | tr '\n' '|'; head -2 $SLT/s/nodeB | tr '\n' '|'; head -2 $SLT/s/nodeC | tr '\n' '|'"
# A rail on which no pair could run while the other rail ran is "could not
# check" for that rail (issue 38 item 2), one warning, every node's port on
# it listed apart: not a suspect, not its switch, and the run passes on
# what was judged. The same rail failed by the workers (a fault each found
# on its own node: "fail") is judged: the rail's finding, exit 1.
expect "matrix: a rail on which no pair could run is could-not-check, not its switch" 0 \
	'^0 \[0\] \[0, 0, 0\] True$' -- \
	bash -c "$FC matrix --import $SLT/rail0whole.json --min-rack-pct 30 --db $SLT/m.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d[\"suspects\"]), [r[\"rail\"] for r in d[\"unchecked_rails\"]], [u[\"rail\"] for u in d[\"unchecked_ports\"]], any(f.startswith(\"rail 0 (rxe0): could not check it: no pair could run on it\") for f in d[\"findings\"]))'; exit \${PIPESTATUS[0]}"
python3 - "$SLD/rack3-clean-rail0slow.json" >"$SLT/rail0fail.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["rails"][0]["loaded"].update(verdict="fail", results=[], findings=["rail 0: nodeA: no RDMA device 'rxe0'"])
json.dump(d, sys.stdout)
PY
expect "matrix: the same rail failed by the workers is judged: its finding" 1 \
	'rail 0 \(rxe0\): its pairs failed for most nodes, with no figure, while other rails ran' -- \
	$FC matrix --import $SLT/rail0fail.json --min-rack-pct 30 --db $SLT/m.db

# A node whose own device its worker could not set up or connect (the pair
# document's "node_fault", pair/pair_msg.c) is that node's fault, named
# with its own device, not a link's (matrix/mxan.h FC_MX_BAD_OWN): two
# nodes, nodeA's rail 0 (recorded); a node's every pair without rails
# (recorded); a live run's rail 1 port of nodeB and a soak's nodeC
# (tests/cli/rack-worker.sh RW_NODEV_HOST: as the real worker says
# ENODEV). Where no device worked at all, nothing is named or drained.
python3 - >"$SLT/own2.json" <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.check_output(["python3", "tests/data/matrix/gen_rails.py", "--pair-docs", "2", "2"]))
for r in d["results"]:
    r["verdict"] = "fail"
    r["rails"][0]["loaded"].update(verdict="fail", results=[], node_fault="nodeA",
                                   findings=["nodeA: no RDMA device 'rxe0'"])
json.dump(d, sys.stdout)
PY
python3 - "$SLD/rack4-healthy.json" >"$SLT/own4.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if "nodeC" in (r["a"]["node"], r["b"]["node"]):
        r.update(verdict="error", results=[], error="nodeC: no RDMA device found", node_fault="nodeC")
json.dump(d, sys.stdout)
PY
python3 - "$SLD/rack4-healthy.json" >"$SLT/ownall.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    a = r["a"]["node"]
    r.update(verdict="error", results=[], error=a + ": no RDMA device 'mlx5_9'", node_fault=a)
json.dump(d, sys.stdout)
PY
slurm_nodes nodeA nodeB
expect "own device: two nodes, nodeA's rail 0 device is nodeA's port, drained with it" 1 \
	'drain +nodeA .*Reason="fabcheck: port on rxe0 \(matrix run [0-9]+ across 2 nodes\)"' -- \
	$FC matrix --import $SLT/own2.json --db $SLT/m.db --drain
expect "own device: named as its own, no link suspect" 1 \
	'^\[\(.port., .nodeA., 0\)\] True$' -- bash -c "$FC matrix --import $SLT/own2.json --db $SLT/m.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(s[\"level\"], s[\"node\"], s[\"rail\"]) for s in d[\"suspects\"]], any(\"nodeA on rail 0 (rxe0): its own RDMA device, port or rail could not be set up\" in f for f in d[\"findings\"]))'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC nodeD
expect "own device: a node's every pair without rails: that node, drained" 1 \
	'drain +nodeC .*Reason="fabcheck: node \(matrix run [0-9]+ across 4 nodes\)"' -- \
	$FC matrix --import $SLT/own4.json --db $SLT/m.db --drain
expect "own device: only nodeC drained" 0 '^IDLE\|\|IDLE\|\|IDLE\+DRAIN\|fabcheck: node .*\|IDLE\|\|$' -- \
	sh -c "for n in nodeA nodeB nodeC nodeD; do head -2 $SLT/s/\$n | tr '\n' '|'; done"
expect "own device: its finding says whose" 1 \
	'suspect node nodeC: its own RDMA device, port or rail could not be set up or connected in 3 of its 3 pairs' -- \
	$FC matrix --import $SLT/own4.json --db $SLT/m.db
# Issue 38 item 5: the device and port nodeC's workers tried for their
# own fault (pair_msg.c "node_fault_port", ctl/worker.c) is named, without
# rails too: "port on mlx5_3"; workers that disagree, or a name that is
# not a device name (core/names.h): the node, nothing of that name.
for v in port:mlx5_3:mlx5_3 mixed:mlx5_3:mlx5_4 'evil:mlx5_3$(touch /tmp/fc-own-pwn2):mlx5_3$(touch /tmp/fc-own-pwn2)'; do
python3 - "$SLT/own4.json" "${v#*:}" >"$SLT/own4-${v%%:*}.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
devs, k = sys.argv[2].split(":"), 0
for r in d["results"]:
    if r.get("node_fault") == "nodeC":
        r["node_fault_port"] = {"device": devs[k % 2], "port": 1}
        k += 1
json.dump(d, sys.stdout)
PY
done
slurm_nodes nodeA nodeB nodeC nodeD
expect "own device: without rails, the port its workers tried is drained: port on mlx5_3" 1 \
	'drain +nodeC .*Reason="fabcheck: port on mlx5_3 \(matrix run [0-9]+ across 4 nodes\)"' -- \
	$FC matrix --import $SLT/own4-port.json --db $SLT/m.db --drain
expect "own device: without rails, its finding and suspect name that port" 1 \
	'^\[\(.port., .nodeC., .mlx5_3.\)\] True$' -- bash -c "$FC matrix --import $SLT/own4-port.json --db $SLT/m.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(s[\"level\"], s[\"node\"], s.get(\"device\")) for s in d[\"suspects\"]], any(f.startswith(\"suspect node nodeC on mlx5_3 port 1: its own RDMA device\") for f in d[\"findings\"]))'; exit \${PIPESTATUS[0]}"
expect "own device: without rails, the summary's suspect line names that port" 1 \
	'nodeC mlx5_3: port level' -- $FC matrix --import $SLT/own4-port.json --db $SLT/m.db
slurm_nodes nodeA nodeB nodeC nodeD
expect "own device: workers that named two devices: the node" 1 \
	'drain +nodeC .*Reason="fabcheck: node \(matrix run [0-9]+ across 4 nodes\)"' -- \
	$FC matrix --import $SLT/own4-mixed.json --db $SLT/m.db --drain
slurm_nodes nodeA nodeB nodeC nodeD
expect "own device: a device name that is not one: the node" 1 \
	'would-drain +nodeC .*Reason="fabcheck: node \(matrix run [0-9]+ across 4 nodes\)": dry run' -- \
	$FC matrix --import $SLT/own4-evil.json --db $SLT/m.db --drain-dry-run
expect_none "own device: nothing of that name in the run's words" 1 'touch' -- \
	$FC matrix --import $SLT/own4-evil.json --db $SLT/m.db --drain-dry-run
slurm_nodes nodeA nodeB nodeC nodeD
expect "own device: every node's named, none worked: could not check, nothing drained" 3 \
	'nothing drained or resumed' -- $FC matrix --import $SLT/ownall.json --db $SLT/m.db --drain
expect "own device: no suspect then" 3 '^\[\]$' -- bash -c "$FC matrix --import $SLT/ownall.json --db $SLT/m.db --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"suspects\"])'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC
expect "own device: a live run's rail 1 port of nodeB drained with its device" 1 \
	'drain +nodeB .*Reason="fabcheck: port on rxe1 \(matrix run [0-9]+ across 3 nodes\)"' -- \
	env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_NODEV_HOST=nodeB RW_NODEV_DEV=rxe1 \
	$FC matrix nodeA nodeB nodeC --launcher local --worker-cmd "$(pwd)/tests/cli/rack-worker.sh" \
	--timeout 5 --db $SLT/own-live.db --drain
expect "own device: only nodeB drained live" 0 '^IDLE\|\|IDLE\+DRAIN\|fabcheck: port on rxe1 .*\|IDLE\|\|$' -- \
	sh -c "for n in nodeA nodeB nodeC; do head -2 $SLT/s/\$n | tr '\n' '|'; done"
# Live, without rails: the worker names the port it tried (rack-worker.sh
# as ctl/worker.c): that port drained; one that could not say: the node.
slurm_nodes nodeA nodeB nodeC
expect "own device: a live run without rails drains the port nodeC's worker tried" 1 \
	'drain +nodeC .*Reason="fabcheck: port on rxe0 \(matrix run [0-9]+ across 3 nodes\)"' -- \
	env RW_NODEV_HOST=nodeC $FC matrix nodeA nodeB nodeC --launcher local \
	--worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --timeout 5 --db $SLT/own-live3.db --drain
expect "own device: the pair's document keeps that port beside node_fault" 3 \
	'^nodeC \{.device.: .rxe0., .port.: 1\}$' -- bash -c "env RW_NODEV_HOST=nodeC $FC pair nodeA nodeC --launcher local --worker-cmd $(pwd)/tests/cli/rack-worker.sh --timeout 5 --no-db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"node_fault\"], json.dumps(d[\"node_fault_port\"]))'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC
expect "own device: a worker that could not say which device: the node" 1 \
	'drain +nodeC .*Reason="fabcheck: node \(matrix run [0-9]+ across 3 nodes\)"' -- \
	env RW_NODEV_HOST=nodeC RW_NODEV_UNSAID=1 $FC matrix nodeA nodeB nodeC --launcher local \
	--worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --timeout 5 --db $SLT/own-live4.db --drain
slurm_nodes nodeA nodeB nodeC
expect "own device: a worker's device name that is not one never reaches the printed drain" 1 \
	'would-drain +nodeC .*Reason="fabcheck: node \(matrix run [0-9]+ across 3 nodes\)": dry run' -- \
	env RW_NODEV_HOST=nodeC 'RW_NODEV_NAME=rxe0$(touch /tmp/fc-own-pwn3)' $FC matrix nodeA nodeB nodeC \
	--launcher local --worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --timeout 5 --db $SLT/own-live5.db --drain-dry-run
expect "own device: that name is refused as the pair's, kept out of its document" 3 \
	'^nodeC None$' -- bash -c "env RW_NODEV_HOST=nodeC 'RW_NODEV_NAME=rxe0\$(touch /tmp/fc-own-pwn3)' $FC pair nodeA nodeC --launcher local --worker-cmd $(pwd)/tests/cli/rack-worker.sh --timeout 5 --no-db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"node_fault\"], d.get(\"node_fault_port\"))'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC
expect "own device: nodeB's every rail: the node, drained, not listed as not checked" 1 \
	'drain +nodeB .*Reason="fabcheck: node \(matrix run [0-9]+ across 3 nodes\)"' -- \
	env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_NODEV_HOST=nodeB \
	$FC matrix nodeA nodeB nodeC --launcher local --worker-cmd "$(pwd)/tests/cli/rack-worker.sh" \
	--timeout 5 --db $SLT/own-live2.db --drain
# A connect that failed (ctl/worker.c "stage": "connect": the peer or the
# path may be the cause) is not the node's own device: judged by the
# comparison as before, never "its worker said so".
expect "own device: a failed connect is not named as the node's own device" 1 \
	'^\[.nodeB rxe1.\] False$' -- bash -c "env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_NOCONN_HOST=nodeB RW_NOCONN_DEV=rxe1 $FC matrix nodeA nodeB nodeC --launcher local --worker-cmd $(pwd)/tests/cli/rack-worker.sh --timeout 5 --db $SLT/conn.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print([s[\"node\"] + \" \" + s[\"device\"] for s in d[\"suspects\"]], any(\"its worker said so\" in f for f in d[\"findings\"]))'; exit \${PIPESTATUS[0]}"
slurm_nodes nodeA nodeB nodeC
expect "own device: a soak names nodeC, not its links, and drains it" 1 \
	'drain +nodeC .*Reason="fabcheck: node \(soak run [0-9]+\)"' -- \
	env RW_NODEV_HOST=nodeC RW_NODEV_UNSAID=1 $FC soak nodeA nodeB nodeC --launcher local \
	--worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --duration 8 --slice 2 --interval 1 \
	--db $SLT/own-soak.db --drain
expect "own device: the soak drained only nodeC" 0 '^IDLE\|\|IDLE\|\|IDLE\+DRAIN\|' -- \
	sh -c "for n in nodeA nodeB nodeC; do head -2 $SLT/s/\$n | tr '\n' '|'; done"
# The same soak whose workers name the port they tried: that port.
slurm_nodes nodeA nodeB nodeC
expect "own device: a soak without rails drains the port nodeC's worker tried" 1 \
	'drain +nodeC .*Reason="fabcheck: port on rxe0 \(soak run [0-9]+\)"' -- \
	env RW_NODEV_HOST=nodeC $FC soak nodeA nodeB nodeC --launcher local \
	--worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --duration 8 --slice 2 --interval 1 \
	--db $SLT/own-soak4.db --drain
slurm_nodes nodeA nodeB nodeC
expect "own device: a soak with rails names nodeC's rail 1 port, drained with its device" 1 \
	'drain +nodeC .*Reason="fabcheck: port on rxe1 \(soak run [0-9]+\)"' -- \
	env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_NODEV_HOST=nodeC RW_NODEV_DEV=rxe1 \
	$FC soak nodeA nodeB nodeC --launcher local --worker-cmd "$(pwd)/tests/cli/rack-worker.sh" \
	--duration 8 --slice 2 --interval 1 --db $SLT/own-soak2.db --drain
# Issue 38 item 1: the same port left out of the rails (--exclude-dev)
# is not judged: nothing named, nothing drained.
slurm_nodes nodeA nodeB nodeC
expect "soak --exclude-dev: a port left out of the rails is not judged, none drained" 0 '^\[\] \[\]$' -- \
	bash -c "env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_NODEV_HOST=nodeC RW_NODEV_DEV=rxe1 $FC soak nodeA nodeB nodeC --exclude-dev rxe1 --launcher local --worker-cmd $(pwd)/tests/cli/rack-worker.sh --duration 8 --slice 2 --interval 1 --db $SLT/own-soak3.db --drain --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"suspects\"], [a[\"node\"] for a in d.get(\"slurm\", []) if a[\"action\"] == \"drain\"])'; exit \${PIPESTATUS[0]}"
# Issue 38 item 8: a document's device name that is not one (a shell
# substitution) never reaches the reason: the import keeps checked names
# only, the rail's name stands in.
python3 - "$SLT/own2.json" >"$SLT/own2-evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for k, x in enumerate(r["rails"]):
        dev = "rxe%d" % k
        x["a"] = {"device": "rxe0$(touch /tmp/fc-own-pwn)" if k == 0 else dev, "port": 1, "netdev": "eth%d" % k}
        x["b"] = {"device": dev, "port": 1, "netdev": "eth%d" % k}
json.dump(d, sys.stdout)
PY
slurm_nodes nodeA nodeB
expect "own device: a device name that is not one never reaches the printed drain" 1 \
	'would-drain +nodeA .*Reason="fabcheck: port on rxe0 \(matrix run [0-9]+ across 2 nodes\)": dry run' -- \
	$FC matrix --import $SLT/own2-evil.json --db $SLT/m.db --drain-dry-run
expect_quiet "own device: nothing of that name ran" 0 -- sh -c "! $FC matrix --import $SLT/own2-evil.json --db $SLT/m.db --drain-dry-run 2>&1 | grep -F 'touch'"
# Every pair of three nodes failed on its data path, no figure, each
# device set up (a node's own would be named above): no pair worked to
# hold a node against, so none is named: the fabric or a shared setting,
# a failure, nothing drained (issue 38: what the evidence supports).
slurm_nodes nodeA nodeB nodeC
expect "matrix: every pair failed, no figure: the nodes cannot be told apart, none drained" 1 \
	'3 nodes are bad with each other, every one of their 3 pairs failed by pair with no figure.*cannot be told apart and none is named' -- \
	env FAKE_MODE=noise FAKE_KIND=fail $FC matrix nodeA nodeB nodeC --launcher local \
	--worker-cmd "$(pwd)/tests/cli/fake-worker.sh" --timeout 5 --db $SLT/spread.db --drain
expect "matrix: every pair failed: no node drained" 0 '^IDLE\|\|IDLE\|\|IDLE\|\|$' -- \
	sh -c "for n in nodeA nodeB nodeC; do head -2 $SLT/s/\$n | tr '\n' '|'; done"

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a run that could not measure drains nothing" 3 'nothing drained or resumed' -- \
	$FC matrix --import $SLT/errors.json --db $SLT/m.db --drain --resume-passed
expect "drain: scontrol never called on such a run" 1 . -- cat $SLT/s/log

slurm_nodes nodeA nodeB nodeC nodeD
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1)\n' >$SLT/s/nodeA
printf 'IDLE+DRAIN\nbad DIMM, ticket 42\n' >$SLT/s/nodeB
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1)\n' >$SLT/s/nodeD
expect "resume-passed: fabcheck's own drain resumed" 0 'resume +nodeA .*State=RESUME' -- \
	$FC matrix --import $SLD/rack4-healthy.json --db $SLT/m.db --resume-passed
expect "resume-passed: fabcheck's drain gone" 0 '^IDLE\|\|$' -- slurm_state nodeA
expect "resume-passed: a hand-set drain left alone" 0 '^IDLE\+DRAIN\|bad DIMM, ticket 42\|$' -- \
	slurm_state nodeB
expect "resume-passed: the other passed node resumed too" 0 '^IDLE\|\|$' -- slurm_state nodeD
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1)\n' >$SLT/s/nodeD
expect "resume: not without --resume-passed" 0 'verdict: pass' -- \
	$FC matrix --import $SLD/rack4-healthy.json --db $SLT/m.db --drain
expect "resume: fabcheck's drain kept without --resume-passed" 0 '^IDLE\+DRAIN\|fabcheck' -- \
	slurm_state nodeD
expect "resume-passed: the hand-set drain is said, not hidden" 0 'left +nodeB .*bad DIMM.*left drained' -- \
	$FC report --slurm --db $SLT/m.db
slurm_nodes nodeA nodeB nodeC nodeD
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1)\n' >$SLT/s/nodeC
expect "resume-passed: a node that failed again stays drained" 1 'drain +nodeC' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain --resume-passed
# A node no pair could reach is not checked: a drain of fabcheck's on it
# stays, and --resume-passed says why.
python3 - "$SLD/rack4-healthy.json" >"$SLT/noD.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if "nodeD" in (r["a"]["node"], r["b"]["node"]):
        r.update(verdict="error", results=[], error="cannot reach the node over ssh")
json.dump(d, sys.stdout)
PY
slurm_nodes nodeA nodeB nodeC nodeD
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1 across 4 nodes)\n' >$SLT/s/nodeD
expect "resume-passed: a node that could not be checked is said and left drained" 3 \
	'left +nodeD .*could not be checked \(none of its pairs could run.*left drained' -- \
	$FC matrix --import $SLT/noD.json --db $SLT/m.db --resume-passed
expect "resume-passed: the unchecked node stays drained" 0 '^IDLE\+DRAIN\|fabcheck: node' -- slurm_state nodeD
expect "drain: an operator's drain keeps its reason" 1 'left +nodeC .*drained by hand \(ops\)' -- \
	sh -c "printf 'IDLE+DRAIN\nops\n' >$SLT/s/nodeC; $FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain"
expect "drain: the operator's reason kept" 0 '^IDLE\+DRAIN\|ops\|$' -- slurm_state nodeC

# Bad input: each a finding with the command that failed, never a skip.
slurm_nodes nodeA nodeB nodeD
expect "drain: a node Slurm does not know" 1 \
	"nodeC: cannot drain it in Slurm: '.*show node nodeC' failed: exit 1: Node nodeC not found" -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain
slurm_nodes nodeA nodeB nodeC nodeD
touch $SLT/s/deny
expect "drain: no permission" 1 \
	"nodeC: cannot drain it in Slurm: '.*update NodeName=nodeC State=DRAIN Reason=\"fabcheck: node \(matrix run [0-9]+ across 4 nodes\)\"' failed: exit 1: .*permission denied" -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain
expect "drain: the failure recorded" 0 'failed +nodeC .*permission denied' -- \
	$FC report --slurm --db $SLT/m.db
expect "drain: scontrol missing" 1 \
	"nodeC: cannot drain it in Slurm: '/nonexistent/scontrol show node nodeC' failed: /nonexistent/scontrol is not installed" -- \
	env FABCHECK_SCONTROL=/nonexistent/scontrol $FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain --json
expect "drain: json lists the action" 1 '"action": "failed"' -- \
	env FABCHECK_SCONTROL=/nonexistent/scontrol $FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain --json

# ---- health -------------------------------------------------------------------
HLT=$(mktemp -d /tmp/fc-health-XXXXXX)
export FABCHECK_SCONTROL=$(pwd)/tests/cli/stand-in-scontrol.sh
# hl_doc FILE PYTHON: the recorded rxe node's probe, changed by PYTHON (p is
# the probe), with counters for rxe0:1.
hl_doc() {
	python3 - tests/data/preflight/rxe-node.json "$2" >"$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["counters"] = {"rxe0:1": {"symbol_error": 0, "link_downed": 0, "sent_pkts": 10}}
exec(sys.argv[2])
json.dump(p, sys.stdout)
PY
}
hl_doc $HLT/ok.json 'pass'
hl_doc $HLT/sym.json 'p["counters"]["rxe0:1"].update(symbol_error=7, sent_pkts=99)'
hl_doc $HLT/pkts.json 'p["counters"]["rxe0:1"].update(sent_pkts=500)'
hl_doc $HLT/mtu.json 'p["netdevs"]["eth0"]["mtu"] = 1500'
# A rail port that went down: its netdev's carrier had come up since boot.
hl_doc $HLT/down.json 'p["devices"][0]["ports"][0]["state"] = "DOWN"; p["netdevs"]["eth0"]["carrier_up_count"] = 1'
# The rack's reference: three nodes as preflight --json records them.
python3 - tests/data/preflight/rxe-node.json >$HLT/ref.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
port = dict(device="rxe0", port=1, state="ACTIVE", rate_gbps=2.5, active_mtu=4096,
            netdev="eth0", netdev_mtu=9000, fw_ver="0.0.0")
json.dump({"verdict": "pass", "nodes": [dict(node=n, status="ok", ports=[port])
                                         for n in ("nodeA", "nodeB", "nodeC")]}, sys.stdout)
PY
expect "health help" 0 'usage: fabcheck health' -- $FC health --help
expect "health listed" 0 'health +this node alone' -- $FC help
expect "health: a healthy node passes" 0 'verdict: pass' -- \
	$FC health --probe-doc $HLT/ok.json --state $HLT/st.json --node nodeB --reference $HLT/ref.json
expect "health: the state file kept" 0 '"symbol_error":0' -- cat $HLT/st.json
expect "health: traffic counters moving is no fault" 0 'verdict: pass' -- \
	$FC health --probe-doc $HLT/pkts.json --state $HLT/st.json --node nodeB
expect "health: an error counter that moved since the last check" 1 \
	'nodeB: rxe0 port 1 error counters moved since the last check \([0-9TZ:-]+\): symbol_error \+7' -- \
	$FC health --probe-doc $HLT/sym.json --state $HLT/st.json --node nodeB
expect "health: not again once recorded" 0 'verdict: pass' -- \
	$FC health --probe-doc $HLT/sym.json --state $HLT/st.json --node nodeB
expect "health: another node's state file starts over" 0 "state file .* is not this node's \(nodeC\)" -- \
	$FC health --probe-doc $HLT/sym.json --state $HLT/st.json --node nodeC
expect "health: MTU against the rack's recorded majority" 1 \
	"nodeB: rxe0 port 1 netdev MTU is 1500 B where the rack's recorded majority \($HLT/ref.json\) is 9000 B" -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --reference $HLT/ref.json
expect "health: MTU given" 1 'nodeB: eth0 MTU is 1500, expected 9000' -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --expect-mtu 9000
expect "health: a port down" 1 'nodeB: rxe0 port 1 is DOWN' -- \
	$FC health --probe-doc $HLT/down.json --no-state --node nodeB
expect "health: bad reference" 3 "--reference $HLT/nope.json: .*give a 'fabcheck preflight --json' document" -- \
	$FC health --probe-doc $HLT/ok.json --no-state --reference $HLT/nope.json
expect "health: unwritable state is said" 0 'cannot write the state file /nonexistent/dir/s.json' -- \
	$FC health --probe-doc $HLT/ok.json --state /nonexistent/dir/s.json --node nodeB
slurm_nodes nodeA nodeB nodeC
expect "health --drain-self: the node drained with the part" 1 \
	'drain +nodeB .*State=DRAIN Reason="fabcheck: mtu on eth0 \(health\)"' -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --reference $HLT/ref.json --drain-self
expect "health --drain-self: Slurm holds it" 0 '^IDLE\+DRAIN\|fabcheck: mtu on eth0 \(health\)\|$' -- slurm_state nodeB
expect "health --drain-self: failing again changes nothing" 1 'kept +nodeB +drained with this reason already' -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --reference $HLT/ref.json --drain-self
expect "health --resume-passed: its own drain resumed once healthy" 0 'resume +nodeB' -- \
	$FC health --probe-doc $HLT/ok.json --no-state --node nodeB --reference $HLT/ref.json --drain-self --resume-passed
printf 'IDLE+DRAIN\nfabcheck: port on rxe0 (matrix run 4)\n' >$SLT/s/nodeB
expect "health --resume-passed: a matrix drain is not health's to clear" 0 'left +nodeB .*another of fabcheck' -- \
	$FC health --probe-doc $HLT/ok.json --no-state --node nodeB --drain-self --resume-passed
expect "health --resume-passed: the matrix drain kept" 0 'fabcheck: port on rxe0 \(matrix run 4\)' -- slurm_state nodeB
# Only the GPU fabric's ports drain: an uncabled port named by --exclude-dev.
hl_doc $HLT/uncabled.json 'd = json.loads(json.dumps(p["devices"][0])); d["name"] = "rxe1"; d["ports"][0].update(device="rxe1", netdev="eth1", state="DOWN"); p["devices"].append(d)'
slurm_nodes nodeA nodeB nodeC
expect "health --exclude-dev: an uncabled port is a warning, not a drain" 0 \
	'nodeB: rxe1 port 1 is DOWN: .*\(left out of the rails: --exclude-dev: not judged for a drain\)' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --exclude-dev rxe1 --drain-self
expect "health --exclude-dev: nothing drained" 0 '^IDLE\|\|$' -- slurm_state nodeB
# One node alone, no --reference, no --rails: a port down that shows no sign
# of use (its netdev's carrier never came up, not ACTIVE at the last check)
# may be a spare: a warning naming the rule and the fix, never a drain.
expect "health: a down port of unknown rail membership is a warning" 0 \
	'nodeB: rxe1 port 1 is DOWN: .*\(left out of the rails: one node, no --reference or --rails, no sign it was in use .*give --rails LIST to judge it: not judged for a drain\)' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --drain-self
expect "health: a down port of unknown rail membership drains nothing" 0 '^IDLE\|\|$' -- slurm_state nodeB
expect "health --rails: a rail named down drains its node" 1 \
	'drain +nodeB .*Reason="fabcheck: port state on rxe1 \(health\)"' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --rails rxe0,rxe1 --drain-self
slurm_nodes nodeA nodeB nodeC
expect "health --rails: a port not named is left out" 0 \
	'nodeB: rxe1 port 1 is DOWN: .*\(left out of the rails: not in --rails: not judged for a drain\)' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --rails eth0 --drain-self
# The rail plan of the rack's last matrix run in the store (issue 38 item
# 1): its pair --rails documents name each node's own port per rail; one
# node alone then judges those ports for a drain, and says where the plan
# came from. A store whose matrix names nodeB on rxe0 alone leaves rxe1
# out (a warning); one that names rxe0 and rxe1 drains nodeB for rxe1 DOWN
# (with no sign of use on the node alone, it would only be a warning).
for nr in 1 2; do
python3 - "$nr" >"$HLT/mx$nr.json" <<'PY'
import json, subprocess, sys
nr = int(sys.argv[1])
d = json.loads(subprocess.check_output(["python3", "tests/data/matrix/gen_rails.py", "--pair-docs", "3", "2"]))
for r in d["results"]:
    r["rails"] = r["rails"][:nr]
    for k, e in enumerate(r["rails"]):
        for s in "ab":
            e[s] = {"device": "rxe%d" % k, "port": 1, "netdev": "eth%d" % k, "subnet": e["subnet"]}
json.dump(d, sys.stdout)
PY
$FC matrix --import $HLT/mx$nr.json --db $HLT/rails$nr.db >/dev/null 2>&1
done
expect "health: the store's last matrix names the rails: a port off them is left out" 0 \
	"rails: rxe0, as matrix run 1 of $HLT/rails1.db .*nodeB: rxe1 port 1 is DOWN: .*\(left out of the rails: not on this node's rails in the store's last matrix run: not judged for a drain\)" -- \
	bash -c "$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --db $HLT/rails1.db --drain-self 2>&1 | tr '\n' ' '"
expect "health: ... and nothing drained" 0 '^IDLE\|\|$' -- slurm_state nodeB
expect "health: a rail of the store's last matrix down drains its node" 1 \
	'drain +nodeB .*Reason="fabcheck: port state on rxe1 \(health run [0-9]+\)"' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --db $HLT/rails2.db --drain-self
expect "health: the rails and their run said in the JSON" 0 "^matrix 1 rxe0,rxe1$" -- \
	bash -c "$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --db $HLT/rails2.db --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"rails_from\"]; print(d[\"kind\"], d[\"run\"], d[\"rails\"])'"
expect "health: --rails given wins over the store" 0 \
	'nodeB: rxe1 port 1 is DOWN: .*\(left out of the rails: not in --rails: not judged for a drain\)' -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --db $HLT/rails2.db --rails rxe0
slurm_nodes nodeA nodeB nodeC
expect "health --rails: not a list" 2 "health: --rails 'rxe0;x' is not a comma-separated list" -- \
	$FC health --probe-doc $HLT/uncabled.json --no-state --node nodeB --rails 'rxe0;x'
# The node's own evidence that a port was in use: its carrier came up since
# the netdev was made, or it was ACTIVE at the last check: a rail that went down.
hl_doc $HLT/wasup.json 'd = json.loads(json.dumps(p["devices"][0])); d["name"] = "rxe1"; d["ports"][0].update(device="rxe1", netdev="eth1", state="DOWN"); p["devices"].append(d); p["netdevs"]["eth1"] = dict(name="eth1", mtu=9000, carrier_changes=3, carrier_up_count=1, operstate="down")'
expect "health: a down port whose link came up since boot drains" 1 \
	'drain +nodeB .*Reason="fabcheck: port state on rxe1 \(health\)"' -- \
	$FC health --probe-doc $HLT/wasup.json --no-state --node nodeB --drain-self
slurm_nodes nodeA nodeB nodeC
hl_doc $HLT/both.json 'd = json.loads(json.dumps(p["devices"][0])); d["name"] = "rxe1"; d["ports"][0].update(device="rxe1", netdev="eth1"); p["devices"].append(d)'
expect "health: the state keeps the ports ACTIVE" 0 '"active":\["rxe0:1","rxe1:1"\]' -- \
	sh -c "$FC health --probe-doc $HLT/both.json --state $HLT/st2.json --node nodeB >/dev/null && cat $HLT/st2.json"
expect "health: a port ACTIVE at the last check and down now drains" 1 \
	'drain +nodeB .*Reason="fabcheck: port state on rxe1 \(health\)"' -- \
	$FC health --probe-doc $HLT/uncabled.json --state $HLT/st2.json --node nodeB --drain-self
slurm_nodes nodeA nodeB nodeC

# health fits Slurm: a tool of the probe that ran out of its budget is
# "could not check" (exit 3), never a drain; slurmctld out of reach on a
# healthy node is a note, not a fail; its drains are kept in the store.
hl_doc $HLT/late.json 'p["netdevs"]["eth0"]["mtu"] = 1500; p["ran_out"] = ["mlnx_qos gave no answer within 10 s"]'
hl_doc $HLT/late-ok.json 'p["ran_out"] = ["mlnx_qos gave no answer within 10 s"]'
slurm_nodes nodeA nodeB nodeC
expect "health: a tool that ran out is could-not-check, exit 3" 3 \
	'^  nodeB +mlnx_qos gave no answer within 10 s' -- \
	$FC health --probe-doc $HLT/late.json --no-state --node nodeB --reference $HLT/ref.json --drain-self
expect "health: nothing drained for it" 0 '^IDLE\|\|$' -- slurm_state nodeB
expect "health --resume-passed: slurmctld out of reach is a note on a healthy node" 0 \
	"Slurm: .*show node nodeB' failed" -- \
	env FABCHECK_SCONTROL=/nonexistent/scontrol $FC health --probe-doc $HLT/ok.json --no-state --node nodeB --resume-passed
expect "health --drain-self: the drain kept in the store with its run" 1 \
	'drain +nodeB .*Reason="fabcheck: mtu on eth0 \(health run [0-9]+\)"' -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --reference $HLT/ref.json --drain-self --db $HLT/h.db
expect "health: report --slurm shows health's drain" 0 'drain +nodeB +fabcheck: mtu on eth0 \(health run [0-9]+\)' -- \
	$FC report --slurm --db $HLT/h.db
expect "health --drain-self: failing again in a later run changes nothing" 1 'kept +nodeB +drained with this reason already' -- \
	$FC health --probe-doc $HLT/mtu.json --no-state --node nodeB --reference $HLT/ref.json --drain-self --db $HLT/h.db
expect "health --deadline: bad value" 2 "--deadline" -- $FC health --probe-doc $HLT/ok.json --no-state --deadline 0
# preflight: a node whose probe ran out is not checked, not drained.
printf '#!/bin/sh\ncat %s\n' "$HLT/late.json" >$HLT/late-worker.sh
chmod +x $HLT/late-worker.sh
slurm_nodes nodeA nodeB nodeC
expect "preflight: a probe that ran out is not checked and not drained" 1 \
	'^  nodeB +a tool of its probe ran out of time: mlnx_qos' -- \
	$FC preflight nodeB --launcher local --worker-cmd $HLT/late-worker.sh --expect-mtu 9000 --drain --db $HLT/pf2.db
expect "preflight: nodeB left idle" 0 '^IDLE\|\|$' -- slurm_state nodeB

slurm_nodes nodeA nodeC
expect "health --drain-self: a node Slurm does not know" 1 \
	"nodeB: cannot drain it in Slurm: '.*show node nodeB' failed: exit 1: Node nodeB not found" -- \
	$FC health --probe-doc $HLT/down.json --no-state --node nodeB --drain-self

# ---- preflight, soak, burnin.sbatch --idle -----------------------------------
printf '#!/bin/sh\ncat %s/tests/data/preflight/rxe-node.json\n' "$(pwd)" >$HLT/ok-worker.sh
chmod +x $HLT/ok-worker.sh
slurm_nodes nodeA nodeB
expect "preflight --drain: each node a check names" 1 \
	'drain +nodeA .*State=DRAIN Reason="fabcheck: no RDMA device \(preflight run 1\)"' -- \
	$FC preflight nodeA nodeB --launcher local --drain --db $HLT/pf.db
expect "preflight --drain: kept as a preflight run" 0 'drain +nodeB +fabcheck: no RDMA device \(preflight run 1\)' -- \
	$FC report --slurm --db $HLT/pf.db
printf 'IDLE+DRAIN\nfabcheck: port on rxe0 (matrix run 4)\n' >$SLT/s/nodeB
expect "preflight --resume-passed: its own drain resumed" 0 'resume +nodeA .*State=RESUME' -- \
	$FC preflight nodeA nodeB --launcher local --worker-cmd $HLT/ok-worker.sh --resume-passed --db $HLT/pf.db
expect "preflight --resume-passed: a matrix drain is not preflight's" 0 'fabcheck: port on rxe0 \(matrix run 4\)' -- \
	slurm_state nodeB
# A rack of two rails (rxe0, rxe1 at 25 Gb/s), a storage NIC (rxe2, 10 Gb/s)
# and an uncabled port (rxe3): --expect-rate 20 --drain drains nothing.
python3 - tests/data/preflight/rxe-node.json >$HLT/rack-node.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
t = p["devices"][0]
p["devices"] = []
for name, nd, net, rate, st in (("rxe0", "eth0", 77, 25, "ACTIVE"), ("rxe1", "eth2", 78, 25, "ACTIVE"),
                                ("rxe2", "eth3", 99, 10, "ACTIVE"), ("rxe3", "eth4", 98, 25, "DOWN")):
    d = json.loads(json.dumps(t))
    d["name"] = name
    d["ports"][0].update(device=name, netdev=nd, rate_gbps=rate, state=st, subnet="10.%d.0.0/24" % net)
    p["devices"].append(d)
    p["netdevs"][nd] = {"name": nd, "mtu": 9000}
json.dump(p, sys.stdout)
PY
printf '#!/bin/sh\ncat %s\n' "$HLT/rack-node.json" >$HLT/rack-worker.sh
chmod +x $HLT/rack-worker.sh
slurm_nodes nodeA nodeB nodeC
expect "preflight --drain: a storage NIC below --expect-rate and an uncabled port drain nothing" 0 \
	'all 3 nodes: rxe2 port 1 runs at 10 Gb/s .*not judged for a drain' -- \
	$FC preflight nodeA nodeB nodeC --launcher local --worker-cmd $HLT/rack-worker.sh --expect-rate 20 --drain --db $HLT/pf.db
expect "preflight --drain: no node drained" 0 '^IDLE\|\|IDLE\|\|IDLE\|\|$' -- \
	sh -c "cat $SLT/s/nodeA $SLT/s/nodeB $SLT/s/nodeC | tr '\n' '|'"

# A firmware the other nodes do not have: the reason names the part on the
# node's own device and the comparison ("firmware on rxe0 ... across 3
# nodes"). Each node's probe by its name (srun's SLURMD_NODENAME).
mkdir -p $HLT/srun && ln -sf "$(pwd)/tests/cli/stand-in-srun.sh" $HLT/srun/srun
python3 - $HLT/rack-node.json $HLT/fw-nodeC.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["hcas"][0]["fw_ver"] = "9.9.9"
for d in p["devices"]:
    if d["name"] == "rxe0":
        d["fw_ver"] = "9.9.9"
json.dump(p, open(sys.argv[2], "w"))
PY
printf '#!/bin/sh\ncase $SLURMD_NODENAME in nodeC) cat %s ;; *) cat %s ;; esac\n' "$HLT/fw-nodeC.json" "$HLT/rack-node.json" >$HLT/fw-worker.sh
chmod +x $HLT/fw-worker.sh
slurm_nodes nodeA nodeB nodeC
expect "preflight --drain: an odd firmware drains with the part on its device and the comparison" 1 \
	'drain +nodeC .*Reason="fabcheck: firmware on rxe0 \(preflight run [0-9]+ across 3 nodes\)"' -- \
	env PATH="$HLT/srun:$PATH" $FC preflight nodeA nodeB nodeC --launcher slurm --worker-cmd $HLT/fw-worker.sh --exclude-dev rxe3 --drain --db $HLT/pf.db

# --resume-passed resumes only what this run could have seen: a drain set
# by comparing 3 nodes (an odd firmware) needs as many; a rate drain set
# against --expect-rate needs a run given one. Each left node says why.
slurm_nodes nodeA nodeB nodeC
printf 'IDLE+DRAIN\nfabcheck: firmware on rxe0 (preflight run 1 across 3 nodes)\n' >$SLT/s/nodeC
printf 'IDLE+DRAIN\nfabcheck: port rate on rxe1 (preflight run 1)\n' >$SLT/s/nodeB
expect "preflight --resume-passed: a lone node cannot clear a comparison's drain" 0 \
	'left +nodeC .*comparison across 3 nodes and this run compared 1.*left drained' -- \
	$FC preflight nodeC --launcher local --worker-cmd $HLT/rack-worker.sh --exclude-dev rxe3 --resume-passed --db $HLT/pf.db
expect "preflight --resume-passed: the firmware drain kept" 0 '^IDLE\+DRAIN\|fabcheck: firmware on rxe0' -- slurm_state nodeC
expect "preflight --resume-passed: no --expect-rate cannot clear a rate drain" 0 \
	"left +nodeB .*could not have seen its 'port rate' fault \(this run had no --expect-rate" -- \
	$FC preflight nodeA nodeB nodeC --launcher local --worker-cmd $HLT/rack-worker.sh --resume-passed --db $HLT/pf.db
expect "preflight --resume-passed: the rack clears the comparison, and says why" 0 \
	'resume +nodeC .*State=RESUME: passed preflight \(firmware\) across 3 nodes' -- \
	sh -c "cat $SLT/s/log >/dev/null; $FC preflight nodeA nodeB nodeC --launcher local --worker-cmd $HLT/rack-worker.sh --resume-passed --db $HLT/pf.db 2>&1; printf 'IDLE+DRAIN\nfabcheck: firmware on rxe0 (preflight run 1 across 3 nodes)\n' >$SLT/s/nodeC; $FC preflight nodeA nodeB nodeC --launcher local --worker-cmd $HLT/rack-worker.sh --resume-passed --db $HLT/pf.db --expect-rate 20 2>&1"
expect "preflight --resume-passed: with --expect-rate the rate drain is cleared" 0 '^IDLE\|\|$' -- slurm_state nodeB

slurm_nodes nodeA nodeB
expect "preflight: a node not probed is not drained" 3 'Slurm: nothing drained or resumed: no node could be probed' -- \
	$FC preflight nodeA --launcher local --worker-cmd /nonexistent/fabcheck --drain --db $HLT/pf.db
expect "preflight: scontrol not called then" 0 '^none$' -- sh -c "[ -e $SLT/s/log ] && echo called || echo none"
slurm_nodes nodeA nodeB
expect "soak --drain: nothing measured, nothing drained" 3 'Slurm: nothing drained or resumed' -- \
	$FC soak nodeA nodeB --launcher local --duration 3 --slice 2 --interval 1 --db $HLT/soak.db --drain
printf '#!/bin/sh\nprintf "nodeA idle\\nnodeB drained\\nnodeC idle\\nnodeC idle\\nnodeD mixed\\nnodeE idle*\\nnodeF idle\\n"\n' >$HLT/sinfo
printf '#!/bin/sh\necho fabcheck "$@"\n' >$HLT/fc-args
chmod +x $HLT/sinfo $HLT/fc-args
slurm_nodes nodeA nodeC nodeF
expect "burnin.sbatch --idle: a screen of the idle nodes with --drain" 0 \
	'^fabcheck matrix nodeA nodeC nodeF --screen --drain --launcher slurm --db x.db$' -- \
	env PATH=$HLT:$PATH FABCHECK=$HLT/fc-args scripts/burnin.sbatch --idle --db x.db
# The screen holds its nodes: a reservation for it, srun inside it, released.
printf '#!/bin/sh\necho "reservation=$SLURM_RESERVATION"; ls %s/s | grep resv-; exit 1\n' "$SLT" >$HLT/fc-resv
chmod +x $HLT/fc-resv
slurm_nodes nodeA nodeB nodeC nodeF
expect "burnin.sbatch --idle: the nodes held in a reservation for the screen" 1 \
	'holding 3 nodes in reservation (fabcheck-idle-[0-9]+) for 60 min.*reservation=\1 resv-\1 ' -- \
	bash -c "set -o pipefail; env PATH=$HLT:\$PATH FABCHECK=$HLT/fc-resv scripts/burnin.sbatch --idle 2>&1 | tr '\n' ' '"
expect "burnin.sbatch --idle: the reservation names the idle nodes, maintenance" 0 \
	'^Nodes=nodeA,nodeC,nodeF Users=[a-z0-9_-]+ Flags=MAINT,IGNORE_JOBS $' -- \
	sh -c "grep -E '^(Nodes|Users|Flags)=' $SLT/s/log | tr '\n' ' '"
expect "burnin.sbatch --idle: released when the screen ends" 0 '^none$' -- \
	sh -c "ls $SLT/s | grep -q resv- && echo held || echo none"
printf '#!/bin/sh\nsleep 30\n' >$HLT/fc-sleep
chmod +x $HLT/fc-sleep
slurm_nodes nodeA nodeB nodeC nodeF
expect "burnin.sbatch --idle: released on SIGTERM too" 0 '^143 none$' -- \
	bash -c "env PATH=$HLT:\$PATH FABCHECK=$HLT/fc-sleep scripts/burnin.sbatch --idle >/dev/null 2>&1 & p=\$!
		for i in \$(seq 50); do ls $SLT/s | grep -q resv- && break; sleep 0.1; done
		sleep 0.3; kill -TERM \$p; wait \$p; rc=\$?
		ls $SLT/s | grep -q resv- && echo \$rc held || echo \$rc none"
# A job lands on nodeC between sinfo and the reservation: left out, not judged.
printf '#!/bin/sh\nif [ -f %s/sinfo-once ]; then printf "nodeA reserved\\nnodeC allocated\\nnodeF maint\\n"; else touch %s/sinfo-once; printf "nodeA idle\\nnodeC idle\\nnodeF idle\\n"; fi\n' "$HLT" "$HLT" >$HLT/sinfo
slurm_nodes nodeA nodeC nodeF
expect "burnin.sbatch --idle: a node that got a job is left out with a note" 0 \
	'nodeC is now allocated \(a job landed on it\): left out, not judged.*fabcheck matrix nodeA nodeF --screen' -- \
	bash -c "env PATH=$HLT:\$PATH FABCHECK=$HLT/fc-args scripts/burnin.sbatch --idle 2>&1 | tr '\n' ' '"
rm -f $HLT/sinfo-once
touch $SLT/s/busy
expect "burnin.sbatch --idle: nodes that cannot be held are not screened" 3 \
	"cannot hold the nodes: .*Requested nodes are busy; nothing screened" -- \
	env PATH=$HLT:$PATH FABCHECK=$HLT/fc-args scripts/burnin.sbatch --idle
printf '#!/bin/sh\nprintf "nodeA idle\\nnodeB drained\\nnodeC idle\\nnodeC idle\\nnodeD mixed\\nnodeE idle*\\nnodeF idle\\n"\n' >$HLT/sinfo
env FABCHECK=$HLT/fc-args scripts/burnin-rack nodeA nodeB --launcher local --set 'STEPS=preflight matrix soak' \
	--drain --resume-passed --out $HLT/br >/dev/null 2>&1
expect "burnin-rack --drain: passed to preflight with the folder's store" 0 \
	"^fabcheck preflight nodeA nodeB .*--drain --resume-passed --db $HLT/br/fabcheck.db --json$" -- cat $HLT/br/preflight.json
expect "burnin-rack --drain: passed to the matrix" 0 '^fabcheck matrix nodeA nodeB .* --drain --resume-passed --json$' -- \
	cat $HLT/br/matrix.json
expect "burnin-rack --drain: passed to the soak" 0 '^fabcheck soak nodeA nodeB .* --drain --resume-passed --json$' -- \
	cat $HLT/br/soak.json
env FABCHECK=$HLT/fc-args scripts/burnin-rack nodeA nodeB --launcher local --set 'STEPS=matrix' --out $HLT/br2 >/dev/null 2>&1
expect "burnin-rack: no --drain, none passed" 1 '^0$' -- grep -c drain $HLT/br2/matrix.json
printf '#!/bin/sh\necho "nodeA idle"\n' >$HLT/sinfo
expect "burnin.sbatch --idle: one idle node, nothing to check" 0 '1 idle node; a matrix needs two' -- \
	env PATH=$HLT:$PATH FABCHECK=$HLT/fc-args scripts/burnin.sbatch --idle
printf '#!/bin/sh\necho "slurm_load_partitions: Unable to contact slurm controller" >&2; exit 1\n' >$HLT/sinfo
expect "burnin.sbatch --idle: sinfo fails" 3 "sinfo -h -N -o %N %T' failed: slurm_load_partitions" -- \
	env PATH=$HLT:$PATH FABCHECK=$HLT/fc-args scripts/burnin.sbatch --idle
unset FAKE_SLURM FABCHECK_SCONTROL
rm -rf "$HLT" "$SLT"
