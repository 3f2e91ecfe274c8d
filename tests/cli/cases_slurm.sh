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
	'drain +nodeC .*update NodeName=nodeC State=DRAIN Reason="fabcheck: node \(matrix run 1\)"' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain
expect "drain: Slurm holds the reason" 0 '^IDLE\+DRAIN\|fabcheck: node \(matrix run 1\)\|$' -- \
	slurm_state nodeC
expect "drain: the reason came as one argument, no shell" 0 '^Reason=fabcheck: node \(matrix run 1\)$' -- \
	cat $SLT/s/log
expect "drain: the healthy nodes untouched" 0 '^IDLE\|\|$' -- slurm_state nodeA
expect "drain: recorded, shown by report" 0 \
	'finding: suspect node nodeC: bad with 3 of 3 peers' -- \
	$FC report --slurm --db $SLT/m.db

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain dry run: the command printed" 1 \
	'would-drain +nodeC .*State=DRAIN Reason="fabcheck: node' -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain-dry-run
expect "drain dry run: nothing changed" 0 '^IDLE\|\|$' -- slurm_state nodeC

slurm_nodes nodeA nodeB nodeC nodeD
expect "drain: a link between two healthy nodes drains nothing" 1 'suspect link' -- \
	$FC matrix --import $SLT/link.json --db $SLT/m.db --drain --resume-passed
expect "drain: no update for a link" 1 '^0$' -- grep -c '^update$' $SLT/s/log

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
	"nodeC: cannot drain it in Slurm: '.*update NodeName=nodeC State=DRAIN Reason=\"fabcheck: node \(matrix run [0-9]+\)\"' failed: exit 1: .*permission denied" -- \
	$FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain
expect "drain: the failure recorded" 0 'failed +nodeC .*permission denied' -- \
	$FC report --slurm --db $SLT/m.db
expect "drain: scontrol missing" 1 \
	"nodeC: cannot drain it in Slurm: '/nonexistent/scontrol show node nodeC' failed: /nonexistent/scontrol is not installed" -- \
	env FABCHECK_SCONTROL=/nonexistent/scontrol $FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain --json
expect "drain: json lists the action" 1 '"action": "failed"' -- \
	env FABCHECK_SCONTROL=/nonexistent/scontrol $FC matrix --import $SLD/rack4-slowC.json --db $SLT/m.db --drain --json
unset FAKE_SLURM FABCHECK_SCONTROL
rm -rf "$SLT"
