# Cases for `preflight`, `soak`, the slurm launcher and scripts/burnin-rack
# on this host, which has no RDMA device and no Slurm controller (sourced by
# tests/cli/run.sh). The real runs are on the rack (tests/rack/cases_burnin.sh
# and the burn-in phase of tests/rack/run.sh); here: options, errors that
# name the input and the fix, the node side's document, launchers that fail,
# the store of a soak, Ctrl-C, and burnin-rack's settings, state and summary.
BIT=$(mktemp -d /tmp/fabcheck-cli-burnin.XXXXXX)
printf '#!/bin/sh\necho not json\n' >"$BIT/garbage-worker.sh"
printf '#!/bin/sh\nsleep 30\n' >"$BIT/hang-worker.sh"
chmod +x "$BIT"/*.sh
printf 'nodeA\n# a comment\nnodeB slots=8\n' >"$BIT/hosts"
# Ctrl-C T seconds after the command's first line (it prints it as it sets
# its signal handlers; before them, the SIGINT a background job inherits as
# ignored would be lost: under valgrind on a loaded host the start took more
# than 3 s and the soak then ran its whole 600 s), as a terminal sends it.
# The first line is awaited 120 s at most; the output is shown when it ends.
bi_interrupt_after() {
	local t=$1 pid i out
	shift
	out=$(mktemp "$BIT/int.XXXXXX")
	"$@" >"$out" 2>&1 & pid=$!
	for i in $(seq 1200); do
		[ -s "$out" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	sleep "$t"
	kill -INT $pid
	wait $pid
	i=$?
	cat "$out"
	return $i
}

# ---- preflight --------------------------------------------------------------
expect "preflight help" 0 'usage: fabcheck preflight NODE' -- $FC preflight --help
expect "preflight listed" 0 'preflight +check every node before traffic' -- $FC help
expect_quiet "preflight-probe hidden" 0 -- bash -c "! $FC help | grep -w preflight-probe"
expect "preflight no nodes" 2 'preflight: no nodes; give them as arguments or with --hostfile' -- $FC preflight
expect "preflight bad node" 2 "'a;b' is not a node name" -- $FC preflight 'a;b'
expect "preflight node twice" 2 "node 'a' is given twice" -- $FC preflight a a
expect "preflight bad rate" 2 "--expect-rate: 'fast' is out of range or not a number" -- $FC preflight a --expect-rate fast
expect "preflight bad mtu" 2 "--expect-mtu: '100' is out of range" -- $FC preflight a --expect-mtu 100
expect "preflight bad tclass" 2 "--tclass: '300' is out of range" -- $FC preflight a --tclass 300
expect "preflight bad launcher" 2 "--launcher: 'pbs' is not a launcher; expected ssh, slurm or local" -- $FC preflight a --launcher pbs
expect "preflight missing ssh config" 2 "--ssh-config: cannot read '/nonexistent'" -- $FC preflight a --ssh-config /nonexistent
expect "preflight hostfile and nodes" 2 'give nodes or --hostfile, not both' -- $FC preflight a --hostfile "$BIT/hosts"
expect "preflight unknown option" 2 "run 'fabcheck preflight --help'" -- $FC preflight a --frob
# This host as two local nodes: no RDMA -> a failed check naming each node;
# no PCI GPU or HCA and no mlnx_qos -> skipped with the reason.
expect "preflight local: no RDMA named for both nodes, once" 1 'both nodes: the kernel has no RDMA support.*load the HCA driver' -- \
	$FC preflight --hostfile "$BIT/hosts" --launcher local
expect "preflight local: topology skipped with the reason" 1 'nodeB: PCIe and topology: no PCI GPU or HCA on the node' -- \
	$FC preflight nodeA nodeB --launcher local
expect "preflight local json" 1 '"status": "ok"' -- $FC preflight nodeA --launcher local --json
expect "preflight worker missing" 3 'nodeA: could not be probed: fabcheck is not installed or not runnable there \(exit 127' -- \
	$FC preflight nodeA --launcher local --worker-cmd /nonexistent/fabcheck
expect "preflight worker garbage" 3 "the probe's output is not a JSON document" -- \
	$FC preflight nodeA --launcher local --worker-cmd "$BIT/garbage-worker.sh"
expect "preflight worker hangs: deadline" 3 'both nodes: could not be probed: no answer within 2 s \(--timeout\)' -- \
	$FC preflight nodeA nodeB --launcher local --worker-cmd "$BIT/hang-worker.sh" --timeout 2
expect "preflight unreachable over ssh" 3 'no-such-node.invalid: could not be probed: cannot reach the node over ssh \(exit 255' -- \
	$FC preflight no-such-node.invalid --timeout 5
expect "preflight through srun without a controller" 3 'nodeA: could not be probed: srun gave no answer within 5 s \(--timeout\); srun said: .*cannot stat file /nonexistent/slurm.conf' -- \
	env SLURM_CONF=/nonexistent/slurm.conf $FC preflight nodeA --launcher slurm --timeout 5
expect "preflight-probe document" 0 '"probe": 1' -- $FC preflight-probe --json --no-topo
expect "preflight-probe names the kernel" 0 "\"kernel\": \"$(uname -r)\"" -- $FC preflight-probe --no-topo
expect "preflight-probe bad option" 2 'usage: fabcheck preflight-probe' -- $FC preflight-probe --frob

# ---- the slurm launcher -------------------------------------------------------
expect "pair through srun without a controller" 3 'a: srun started no worker within 5 s \(--timeout 3 s, then 2 s for the worker.s own report\); srun said: .*cannot stat file /nonexistent/slurm.conf.*check that slurmctld answers' -- \
	env SLURM_CONF=/nonexistent/slurm.conf $FC pair a b --launcher slurm --timeout 3 --no-db
expect "pair help names slurm" 0 'ssh\|slurm\|local' -- $FC pair --help

# ---- soak ---------------------------------------------------------------------
expect "soak help" 0 'usage: fabcheck soak NODE' -- $FC soak --help
expect "soak listed" 0 'soak +hours of bidirectional traffic' -- $FC help
expect "soak needs a duration" 2 'soak: --duration T is required' -- $FC soak a b
expect "soak one node" 2 'soak: give at least two nodes' -- $FC soak a --duration 10
expect "soak bad duration" 2 "--duration: 'soon' is not a duration" -- $FC soak a b --duration soon
expect "soak read refused" 2 "--test: 'read' is not a soak test; expected write or send" -- $FC soak a b --duration 10 --test read
expect "soak interval vs slice" 2 'leaves less than two samples in a 4 s --slice' -- $FC soak a b --duration 10 --slice 4 --interval 3
expect "soak bad drop pct" 2 "--drop-pct: '0' is out of range" -- $FC soak a b --duration 10 --drop-pct 0
expect "soak bad launcher" 2 "'pbs' is not a launcher" -- $FC soak a b --duration 10 --launcher pbs
expect "soak node twice" 2 "node 'a' is given twice" -- $FC soak a a --duration 10
expect "soak bad store" 3 '/nonexistent/dir/s.db' -- $FC soak a b --duration 10 --db /nonexistent/dir/s.db
# No RDMA here: each slice fails; runs of failures are one finding with the
# time; nothing measured -> could not run (3); the store holds the run.
# Under valgrind (tests/run-valgrind.sh) one failed slice takes about 8 s on
# a loaded host (three processes under valgrind), so 5 s held one slice and
# no run; on a quiet host 24 s holds 11 slices: the count has two digits.
soak_t=5
[ -n "${VG_LOG_DIR:-}" ] && soak_t=24
# Beside the rack (RACK_BESIDE=1, tests/run-all.sh), which takes the CPUs
# first whenever its guests are busy: 5 s held one slice (15ce092).
[ "${RACK_BESIDE:-0}" = 1 ] && soak_t=24
expect "soak without RDMA: one finding for the run of failed slices" 3 'nodeA-nodeB: traffic failed at [0-9:]+ \(\+[0-9]+ s\) and in [0-9]+ slices in a row, until .*no RDMA device' -- \
	$FC soak nodeA nodeB --launcher local --duration $soak_t --slice 2 --interval 1 --db "$BIT/soak.db"
expect "soak kept in the store as kind soak" 0 '^1\|soak\|fail\|([2-9]|[1-9][0-9]+)$' -- \
	sqlite3 "$BIT/soak.db" "select r.id, r.kind, r.verdict, count(p.id) from runs r join pairs p on p.run = r.id group by r.id"
expect "soak json" 3 '"slices": [0-9]+' -- \
	$FC soak nodeA nodeB nodeC --launcher local --duration 3 --slice 2 --interval 1 --db "$BIT/soak.db" --json
expect "soak ctrl-c keeps the slices" 130 'stopped by a signal after [0-9]+ s of 600 s: the finished slices are kept \(run 3' -- \
	bi_interrupt_after 3 $FC soak nodeA nodeB --launcher local --duration 600 --slice 2 --interval 1 --db "$BIT/soak.db"
expect "soak ctrl-c: the run is marked interrupted" 0 '^3\|soak\|interrupted$' -- \
	sqlite3 "$BIT/soak.db" "select id, kind, verdict from runs where id = 3"

# ---- scripts/burnin-rack --------------------------------------------------------
BR=scripts/burnin-rack
printf 'FABRIC=lab\n# comment\nSTEPS="preflight matrix-cuda nccl"\n\nLAB_TIMEOUT=30s # trailing comment\n' >"$BIT/ok.conf"
printf 'FABRIC=lab\nFROB=1\n' >"$BIT/unknown.conf"
printf 'FABRIC=lab\nMSG_SIZE=$(reboot)\n' >"$BIT/shell.conf"
printf 'FABRIC=lab\nnot a setting\n' >"$BIT/syntax.conf"
printf 'FABRIC=lab\nSTEPS="preflight fly"\n' >"$BIT/steps.conf"
printf 'FABRIC=lab\nLAB_SOAK_SLICE=soon\n' >"$BIT/dur.conf"
expect "burnin help" 0 'usage: scripts/burnin-rack NODE' -- $BR --help
expect "burnin default config: ndr" 0 '^EXPECT_RATE=400$' -- $BR --print-config
expect "burnin fabric profile" 0 '^MIN_GBPS=90$' -- $BR --print-config --fabric roce100
expect "burnin fabric value wins over the plain one" 0 '^MSG_SIZE=64K$' -- $BR --print-config --fabric lab
expect "burnin --set wins" 0 '^SOAK_DURATION=1h$' -- $BR --print-config --fabric lab --set SOAK_DURATION=1h
expect "burnin config file" 0 '^TIMEOUT=30s$' -- $BR --print-config --config "$BIT/ok.conf"
expect "burnin unknown setting named with its line" 2 "unknown.conf line 2: unknown setting 'FROB'" -- $BR --print-config --config "$BIT/unknown.conf"
expect "burnin shell characters refused" 2 'shell.conf line 2: the value of MSG_SIZE has shell characters' -- $BR --print-config --config "$BIT/shell.conf"
expect "burnin not KEY=VALUE" 2 "syntax.conf line 2: 'not a setting' is not KEY=VALUE" -- $BR --print-config --config "$BIT/syntax.conf"
expect "burnin bad step" 2 "STEPS: 'fly' is not a step" -- $BR --print-config --config "$BIT/steps.conf"
expect "burnin bad duration" 2 "SOAK_SLICE: 'soon' is not a duration" -- $BR --print-config --config "$BIT/dur.conf"
expect "burnin bad fabric" 2 "FABRIC 'edr' is not a fabric" -- $BR --print-config --fabric edr
expect "burnin missing config" 2 "--config: cannot read '/nonexistent.conf'" -- $BR a b --config /nonexistent.conf
expect "burnin one node" 2 'give at least two nodes' -- $BR a --fabric lab --out "$BIT/one"
# A name that is not a host name is refused before anything runs, a
# leading '-' included: a hostfile line "--drain" drained nodes unasked.
printf 'nodeA\n--drain\nnodeB\n' >"$BIT/hosts-opt"
printf 'nodeA\n.hidden\n' >"$BIT/hosts-dot"
expect "burnin hostfile line that is an option is refused" 2 "'--drain' is not a node name.*does not begin with '-'.*fix the line in .*hosts-opt" -- \
	env FABCHECK=$FC $BR --hostfile "$BIT/hosts-opt" --launcher local --config "$BIT/ok.conf" --out "$BIT/optline"
expect_quiet "burnin refused hostfile: nothing ran" 0 -- test ! -e "$BIT/optline"
expect "burnin name beginning with '.' is refused" 2 "'.hidden' is not a node name" -- \
	env FABCHECK=$FC $BR --hostfile "$BIT/hosts-dot" --launcher local --config "$BIT/ok.conf" --out "$BIT/dotline"
expect "burnin node after -- beginning with '-' is refused" 2 "'-oProxyCommand=x' is not a node name" -- \
	env FABCHECK=$FC $BR nodeA --launcher local --config "$BIT/ok.conf" --out "$BIT/dashnode" -- -oProxyCommand=x
expect "burnin bad launcher" 2 "--launcher: 'pbs' is not a launcher" -- $BR a b --launcher pbs
expect "burnin resume without --out" 2 '--resume needs --out DIR' -- $BR --resume
expect "burnin resume of nothing" 2 "holds no burn-in" -- $BR --resume --out "$BIT/none"
# --out: another user's folder, or one others can write, is refused
# before anything is written in it (a planted settings.conf link).
mkdir -p "$BIT/theirs" "$BIT/open"
echo keep >"$BIT/victim"
ln -s "$BIT/victim" "$BIT/theirs/settings.conf"
chown -h nobody "$BIT/theirs" "$BIT/theirs/settings.conf" 2>/dev/null
chmod 1777 "$BIT/open"
expect "burnin --out: another user's folder is refused" 2 "--out: '.*theirs' is another user's folder" -- \
	env FABCHECK=$FC $BR nodeA nodeB --launcher local --config "$BIT/ok.conf" --out "$BIT/theirs"
expect "burnin --out: nothing written through its link" 0 '^keep$' -- cat "$BIT/victim"
expect "burnin --out: a folder others can write is refused" 2 "--out: '.*open' is writable by other users" -- \
	env FABCHECK=$FC $BR nodeA nodeB --launcher local --config "$BIT/ok.conf" --out "$BIT/open"
# A burn-in on this host (local launcher): preflight fails (no RDMA), the GPU
# steps are skipped with the reason; exit 1; the folder has the summary.
expect "burnin local: preflight fails, GPU steps skipped" 1 'matrix-cuda +skip +preflight found GPUs on 0 of 2 nodes' -- \
	env FABCHECK=$FC $BR nodeA nodeB --launcher local --config "$BIT/ok.conf" --out "$BIT/run1"
expect "burnin local: the NCCL step skipped, the count of GPU nodes said of the nodes" 0 \
	'^nccl +skip +not every node has GPUs \(preflight: GPUs on 0 of 2 nodes\); NCCL needs GPUs on each' -- \
	cat "$BIT/run1/summary.txt"
expect "burnin summary.json" 0 '"preflight", "status": "fail"' -- cat "$BIT/run1/summary.json"
expect "burnin summary json parses" 0 '^fail 1 3$' -- python3 -c "import json; d = json.load(open('$BIT/run1/summary.json')); print(d['verdict'], d['exit_code'], len(d['steps']))"
expect "burnin state lists the steps" 0 '^preflight 1$' -- cat "$BIT/run1/state"
expect "burnin refuses to overwrite" 2 'holds a burn-in already; continue it with --resume' -- \
	env FABCHECK=$FC $BR nodeA nodeB --launcher local --config "$BIT/ok.conf" --out "$BIT/run1"
# Resume: finished steps are kept, a missing one runs.
sed -i '/^nccl /d' "$BIT/run1/state"
expect "burnin resume keeps finished steps" 1 'preflight: done in an earlier run \(exit 1\); kept' -- \
	env FABCHECK=$FC $BR --resume --out "$BIT/run1" --launcher local --config "$BIT/ok.conf"
expect "burnin resume ran the missing step" 0 '^nccl skip$' -- tail -n 1 "$BIT/run1/state"
expect "burnin resume other nodes" 2 'the nodes differ from those of' -- \
	$BR nodeA nodeC --resume --out "$BIT/run1" --config "$BIT/ok.conf"
# The summary says what a step left out and assumed (issue 39 item 4): the
# matrix step's JSON is a recorded 2-rail matrix whose nodes have a 10 Gb/s
# storage port (left out with its rule); the resumed burn-in keeps the step
# and its summary gives the note in text and JSON.
printf 'FABRIC=lab\nSTEPS="matrix"\nLAB_TIMEOUT=30s\n' >"$BIT/mx.conf"
env FABCHECK=$FC $BR nodeA nodeB --launcher local --config "$BIT/mx.conf" --out "$BIT/run2" >/dev/null 2>&1
env FAKE_DEVICES=tests/data/rails/devices-2rail-storage.json $FC matrix nodeA nodeB --launcher local \
	--worker-cmd tests/cli/rack-worker.sh --timeout 5 --db "$BIT/mx.db" --json >"$BIT/run2/matrix.json" 2>/dev/null
expect "burnin summary: the port the matrix left out, with its rule" 3 \
	'^ +rails: rxe2 left out on 2 nodes \(nodeA and 1 other\): its rate 10 Gb/s differs' -- \
	env FABCHECK=$FC $BR --resume --out "$BIT/run2" --launcher local --config "$BIT/mx.conf"
expect "burnin summary.json: the step's rail_notes" 0 '^1 rxe2 left out' -- python3 -c \
	"import json; n = json.load(open('$BIT/run2/summary.json'))['steps'][0]['rail_notes']; print(len(n), n[0][:14])"
expect "burnin.sbatch outside Slurm" 2 'submit it with sbatch' -- env -u SLURM_JOB_NODELIST scripts/burnin.sbatch
rm -rf "$BIT"
