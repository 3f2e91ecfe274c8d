# Burn-in phase of tests/rack/run.sh (sourced; helpers in tests/rack/lib.sh):
# a 3-node rack with real Slurm (fabcheck lab up --slurm: munge, slurmctld on
# nodeA, slurmd on every node), booted after the other racks are down.
#   1. pair and matrix with --launcher slurm, the controller in nodeA as on
#      a login node: every worker is a job step started by srun through slurmd;
#   2. scripts/burnin-rack over ssh: a healthy rack passes (exit 0) and its
#      folder holds the reports and the summary; with nodeC at MTU 1500 it
#      exits 1 naming nodeC;
#   3. scripts/burnin.sbatch submitted with sbatch -N3 --wait (preflight only);
#   4. Slurm drains (doc/slurm.md): matrix --drain through srun drains the
#      rate-limited nodeC with fabcheck's reason; after the repair a matrix
#      over ssh with --resume-passed resumes nodeC and leaves a drain set by
#      hand on nodeB; fabcheck health as slurmd's HealthCheckProgram drains
#      nodeB when its MTU is changed, and resumes it once it is back.
# Thresholds: the lab profile of scripts/burnin.conf, durations tiny.
RB=bi3-$$
RACKS+=("$RB")
BIO=$(mktemp -d /tmp/fc-rack-burnin3-XXXXXX)
if rack_up "$RB" --nodes 3 --slurm; then
	SSH_CFG=$("$FC" lab ssh-config --name "$RB")
	SHARE=$FABCHECK_LAB_HOME/racks/$RB/share
	LX=("$FC" lab exec --name "$RB")
	SP=(--test write --bw -n 50 -s 64K --min-gbps 0.0001 --timeout 60)
	expect "slurm: srun -N3 reaches every node" 0 'nodeA.*nodeB.*nodeC' -- \
		bash -c "$(printf '%q ' "${LX[@]}") nodeA srun -N3 hostname 2>/dev/null | sort | tr '\n' ' '"
	expect_json "slurm: pair through srun (workers are job steps)" 0 \
		"d['options']['launcher'] == 'slurm' and d['a']['node'] == 'nodeA' and d['b']['node'] == 'nodeC' and
		 d['results'][0]['gbps'] > 0 and d['verdict'] in ('pass', 'warn')" \
		-- "${LX[@]}" nodeA fabcheck pair nodeA nodeC --launcher slurm "${SP[@]}" --no-db --json
	# --retest: a pair that the host's load slowed is measured again beside
	# its references (matrix/mxan.h fc_mx_retest_plan), as burnin-rack does.
	expect_json "slurm: matrix of 3 nodes through srun" 0 \
		"d['verdict'] == 'pass' and sorted(d['nodes']) == ['nodeA', 'nodeB', 'nodeC'] and len(d['pairs']) == 3 and
		 all(p['gbps'] > 0 for p in d['pairs'])" \
		-- "${LX[@]}" nodeA fabcheck matrix nodeA nodeB nodeC --launcher slurm "${SP[@]}" \
		--min-rack-pct 20 --retest --db /tmp/mx.db --json
	expect "slurm: preflight through srun" 0 'verdict: pass' -- \
		"${LX[@]}" nodeA fabcheck preflight nodeA nodeB nodeC --launcher slurm --expect-mtu 9000

	# burnin-rack, healthy: every step passes or is skipped for want of GPUs.
	expect "burnin-rack: healthy 3-node rack exits 0" 0 'soak +(pass|warn) .*verdict: pass' -- \
		bash -c "set -o pipefail; scripts/burnin-rack nodeA nodeB nodeC --fabric lab --ssh-config '$SSH_CFG' --out '$BIO/ok' 2>'$BIO/ok.err' | tr '\n' ' '"
	expect_json "burnin-rack: summary.json" 0 \
		"d['verdict'] == 'pass' and d['exit_code'] == 0 and [s['step'] for s in d['steps']] == ['preflight', 'matrix', 'matrix-cuda', 'nccl', 'soak'] and
		 [s['status'] for s in d['steps']][2:4] == ['skip', 'skip'] and 'GPUs on 0 of 3 nodes' in d['steps'][2]['detail']" \
		-- cat "$BIO/ok/summary.json"
	expect "burnin-rack: the folder holds JSON, HTML, CSV and Prometheus reports" 0 \
		'matrix.csv matrix.html matrix.json matrix.log matrix.prom .*preflight.json .*soak.csv soak.html soak.json soak.log soak.prom .*summary.json summary.txt' -- \
		bash -c "ls '$BIO/ok' | tr '\n' ' '"
	expect "burnin-rack: the HTML report has the heat map" 0 '<svg' -- cat "$BIO/ok/matrix.html"
	expect "burnin-rack: Prometheus text" 0 '^# (HELP|TYPE) ' -- cat "$BIO/ok/matrix.prom"

	# With a fault: nodeC at MTU 1500; preflight names it; exit 1.
	"$FC" lab fault --name "$RB" nodeC mtu 1500 >/dev/null 2>&1
	expect "burnin-rack: nodeC at MTU 1500 exits 1, preflight names nodeC" 1 'preflight +fail .*nodeC: eth0 MTU is 1500, expected 9000.*verdict: fail' -- \
		bash -c "set -o pipefail; scripts/burnin-rack nodeA nodeB nodeC --fabric lab --set 'STEPS=preflight matrix' --ssh-config '$SSH_CFG' --out '$BIO/bad' 2>'$BIO/bad.err' | tr '\n' ' '"
	"$FC" lab fault --name "$RB" nodeC clear >/dev/null 2>&1

	# The batch job over its allocation's nodes (preflight through srun).
	expect "burnin.sbatch: sbatch -N3 --wait runs burnin-rack over the allocation" 0 'Submitted batch job [0-9]+' -- \
		"${LX[@]}" nodeA env FABCHECK=fabcheck FABCHECK_BURNIN="$PWD/scripts/burnin-rack" sbatch -N3 --wait -o "$SHARE/sbatch.out" \
		"$PWD/scripts/burnin.sbatch" --fabric lab --set STEPS=preflight --out "$SHARE/sbatch"
	expect "burnin.sbatch: ran on nodeA nodeB nodeC with the slurm launcher" 0 'job [0-9]+, 3 nodes: nodeA nodeB nodeC.*preflight +pass.*verdict: pass' -- \
		bash -c "tr '\n' ' ' <'$SHARE/sbatch.out'"
	expect "burnin.sbatch: preflight's launcher was slurm" 0 '"launcher": "slurm"' -- cat "$SHARE/sbatch/preflight.json"

	# ---- 4. Slurm drains (tests/rack/burnin_drain.sh) --------------------------------
	# shellcheck source=tests/rack/burnin_drain.sh
	. tests/rack/burnin_drain.sh
fi
expect "lab down $RB" 0 "is down" -- "$FC" lab down --name "$RB"
expect_rack_gone "$RB"
rm -rf "$BIO"
