# Issue 39 items 1 and 4 across the commands that judge (sourced by
# tests/cli/run.sh). cases_summary.sh holds pair's and matrix's summaries;
# here the others: each command's text on a recorded input, at 100 columns,
# ends with its verdict and its problem lines, in a line budget; and each
# command that runs pairs (matrix, soak, tui, nccl run, burnin-rack) says
# which ports it left out with their rule and which rails it matched by
# position ("assumed"), in its text and its --json, as pair and preflight do.
A4T=$(mktemp -d /tmp/fabcheck-cli-answer39.XXXXXX)
A4W=(--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5)


# ---- item 1: the answer first ----------------------------------------------
# a1_end FILE: the text from its last "verdict:" line to its end, checked:
# "verdict: V, nothing named" alone, or "verdict: V, N problem(s) named:"
# then one line per problem (its next step, or the rest of its sentence, on
# a second 4 spaces in), at most 6 and "... and K more", every line within
# 100 columns. Prints "ok N" or why not.
a1_end() {
	awk '/^verdict: / {n = NR; delete l} {l[NR] = $0} END {
		if (!n) { print "no: no verdict line"; exit }
		h = l[n]; w = 0; for (i = n; i <= NR; i++) if (length(l[i]) > 100) w++
		if (w) { print "no: " w " lines over 100 columns"; exit }
		if (h ~ /^verdict: (pass|warn|fail), nothing named$/ && n == NR) { print "ok 0"; exit }
		if (h !~ /^verdict: (pass|warn|fail), [0-9]+ problems? named:$/) { print "no: " h; exit }
		split(h, f, " "); want = f[3] + 0; got = 0; more = 0
		for (i = n + 1; i <= NR; i++) {
			if (l[i] ~ /^  \.\.\. and [0-9]+ more /) { more = 1; continue }
			if (l[i] ~ /^    [^ ]/ && i > n + 1 && l[i - 1] ~ /^  [^ ]/) continue
			if (l[i] !~ /^  [^ ]/) { print "no: not a problem line: " l[i]; exit }
			got++
		}
		print (got == want || (more && got == 6)) ? "ok " want : "no: " got " lines for " want " problems"
	}' "$1"
}
# a1 NAME EXIT BUDGET LINE -- CMD...: CMD's text at 100 columns exits EXIT,
# ends with its verdict and problem lines (a1_end), a problem line matches
# LINE (an extended regex; "" for "nothing named"), in at most BUDGET lines.
a1() {
	local name=$1 rc=$2 budget=$3 want=$4 out
	out=$A4T/a1-$(tr -c 'A-Za-z0-9\n' _ <<<"$1").txt
	shift 5
	env COLUMNS=100 "$@" >"$out" 2>&1
	echo $? >"$out.rc"
	expect "answer first, $name: exit $rc, ends with the verdict and its problem lines" 0 "^$rc ok [0-9]+$" -- \
		bash -c "echo \$(cat $out.rc) \$(a1_end $out)" 
	[ -n "$want" ] && expect "answer first, $name: the problem's line" 0 "$want" -- \
		bash -c "awk '/^verdict: / {n = NR} n && NR > n' $out"
	expect "answer first, $name: at most $budget lines" 0 '^ok' -- \
		bash -c "n=\$(wc -l <$out); [ \$n -le $budget ] && echo ok \$n || echo no: \$n"
}
export -f a1_end
# The recorded inputs: captures of the recorded sysfs trees (as
# cases_capture.sh makes them), a rack of 4 captures with nodeC's ports
# swapped, NCCL logs, nvidia-smi topo matrices, evidence folders, a fleet's
# stored runs and a baseline.
for t in dgx split empty; do tests/topo/mksysfs.sh "$A4T/$t" $t >/dev/null 2>&1; done
FABCHECK_SYSFS=$A4T/dgx $FC capture -o "$A4T/cap-dgx" >/dev/null 2>&1
FABCHECK_SYSFS=$A4T/split $FC capture -o "$A4T/cap-split" >/dev/null 2>&1
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$A4T/cap-2s" >/dev/null 2>&1
env NCCL_IB_HCA==mlx5_0,mlx5_9 NCCL_SOCKET_IFNAME=ens1f0 NCCL_FOO=1 FABCHECK_SYSFS=$A4T/dgx \
	$FC capture -o "$A4T/cap-env" >/dev/null 2>&1
python3 tests/data/rails/gid_v1.py tests/data/rails/roce-4x2-swap.json "$A4T/swap-v1.json"
python3 tests/cli/bundle-rack.py "$A4T/cap-split" "$A4T/swap-v1.json" "$A4T/rk" >/dev/null 2>&1
A1RK=("$A4T/rk/nodeA" "$A4T/rk/nodeB" "$A4T/rk/nodeC" "$A4T/rk/nodeD")
A1TF=$FABCHECK_SHARED/fixtures/topo
A1BL=$A4T/bl
mkdir -p "$A1BL"
for n in 1 2 3; do
	python3 tests/data/baseline/gen_fleet.py 8 $n >"$A1BL/h$n.json"
	$FC matrix --import "$A1BL/h$n.json" --db "$A1BL/fleet.db" >/dev/null 2>&1
done
python3 tests/data/baseline/gen_fleet.py 8 4 node03 8 >"$A1BL/s4.json"
$FC baseline --db "$A1BL/fleet.db" -o "$A1BL/bl.json" >/dev/null 2>&1

# Each command that judges, on its recorded input. The budgets are this
# code's line counts (issue 39: "at most a few lines" of summary; a finding
# wraps to 3 lines at most, each problem's summary line is one). Where the
# command names no part (no diagnosis, no suspects), its findings are its
# problems, one line each, the same sentence on several nodes one line
# (core/summary.c from_findings): the old summary said "N findings above,
# no part named; the first: ..." and named one.
a1 "preflight --from" 1 19 '^  vm: PCIe link of mlx5_2 \(0000:85:00\.0\) trained at x8 of x16: reseat' -- \
	$FC preflight --from "$A4T/cap-dgx"
a1 "preflight --from a rack" 1 126 '^  all 4 nodes: PCIe link of GPU0 ' -- \
	$FC preflight --from "${A1RK[@]}"
expect "answer first, preflight --from a rack: 13 problems, 6 shown, the rest counted" 0 \
	'^verdict: fail, 13 problems named: .*  \.\.\. and 7 more \(above, and in --json\) $' -- \
	bash -c "awk '/^verdict: / {n = NR} n && NR >= n' $A4T/a1-preflight___from_a_rack.txt | tr '\n' ' '"
a1 "preflight of 2 nodes" 1 17 '^  both nodes: the kernel has no RDMA support' -- \
	env FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC preflight nodeA nodeB --launcher local
a1 "health --from" 1 18 '^  n1: the kernel has no RDMA support \(no ib_uverbs\): load the HCA driver' -- \
	$FC health --from "$A4T/cap-dgx" --node n1
# topo's budgets: its matrix in one block of cells a space wider than
# their widest word (it took two blocks of nvidia-smi's 8 at 100 columns,
# 9 more lines), each recommendation's reason whole, wrapped (4 more). Each
# budget counts a second line for a problem whose sentence holds its step
# past the first (core/summary.c put_problem).
a1 "topo --from" 0 56 '^  PCIe link of mlx5_2 \(0000:85:00\.0\) trained at x8 of x16' -- \
	$FC topo --from "$A4T/cap-dgx"
a1 "topo -t" 0 53 '^  the nvidia-smi matrix is cut short' -- \
	$FC topo --sysfs "$A4T/empty" -t "$A1TF/8gpu-8nic_tab-separated_pix-switches_TRUNCATED.txt"
a1 "gpu-check --from" 0 5 '' -- $FC gpu-check --from "$A4T/cap-2s"
a1 "nccl env --from" 1 21 '^  NCCL_IB_HCA==mlx5_0,mlx5_9: names mlx5_9, which this node does not have' -- \
	$FC nccl env --from "$A4T/cap-env"
a1 "nccl check-log" 0 35 '^  NCCL rejected NCCL_IB_TIMEOUT=abc and used its default; fix the value$' -- \
	$FC nccl check-log tests/data/nccl/mixed.log
a1 "nccl check-log of a real failure" 1 16 '^  NCCL failed after init, in the proxy thread' -- \
	$FC nccl check-log tests/real/nccl/ml-eng_azure_net-ib-completion-error-12_wrapped-warn.log
a1 "rails --from" 1 20 '^  ports of nodeC: rxe1 on rail 0 \(10\.0\.0\.0/24, rxe0 on the other nodes\)' -- \
	$FC rails --from "${A1RK[@]}"
a1 "matrix --baseline" 1 33 "^  node03: 7 of its 7 links below the fleet's baseline" -- \
	$FC matrix --import "$A1BL/s4.json" --db "$A1BL/c.db" --baseline "$A1BL/bl.json"
$FC matrix --import "$A1BL/s4.json" --db "$A1BL/r.db" >/dev/null 2>&1
a1 "report --baseline" 1 10 "^  node03: 7 of its 7 links below the fleet's baseline" -- \
	$FC report --db "$A1BL/r.db" --baseline "$A1BL/bl.json"
mkdir -p "$A4T/slurm"
for n in nodeA nodeB nodeC nodeD; do printf 'IDLE\n\n' >"$A4T/slurm/$n"; done
a1 "matrix --drain-dry-run" 1 31 '^  nodeC: node level \(measured once, not retested\)' -- \
	env FABCHECK_SCONTROL="$PWD/tests/cli/stand-in-scontrol.sh" FAKE_SLURM="$A4T/slurm" \
	$FC matrix --import tests/data/matrix/rack4-slowC.json --db "$A4T/dr.db" --drain-dry-run
expect "answer first, matrix --drain-dry-run: the drain it would do above the summary" 0 'would-drain +nodeC .*State=DRAIN' -- \
	cat "$A4T/a1-matrix___drain_dry_run.txt"
a1 "diagnose" 1 43 '^  nodeB rxe0 -> nodeA rxe0: buffers or QoS configuration \(likely\)' -- \
	$FC diagnose tests/data/diag/rack-loss
a1 "diagnose of an HCA's AER" 0 14 '^  nodeE mlx5_0 \(PCIe 0000:b3:00\.0\): HCA \(likely\)' -- \
	$FC diagnose tests/data/diag/hca-aer
# plan: its formulas' second line (108 columns) wrapped at words.
a1 "plan" 0 36 '' -- $FC plan --params 70B --gpus 32
# scripts/gpu-selftest on a machine with no GPU (the stand-in nvidia-smi, as
# cases_selftest.sh): its failed step under the verdict, as the commands end.
mkdir -p "$A4T/st"
a1 "gpu-selftest, no GPU" 1 12 '^  gpu: no NVIDIA GPU here \(nvidia-smi -q: ' -- \
	bash -c "cd $A4T/st && env PATH=$PWD/tests/gdr/standin:/usr/bin:/bin STANDIN_SMI=nogpu $PWD/scripts/gpu-selftest --out nogpu"

# ---- item 4: what a run left out and what it assumed ----------------------
# Every node: the 2 rails, a 10 Gb/s storage port (rxe2, left out by the
# rate rule: core/rail_rules.c) and a port of the rails' rate whose net
# device has no IPv4 or IPv6 address (rxe3 on eth7: on no rail, RoCE v2
# needs one: core/rail.c).
A4DEV=$A4T/devices-left.json
jq '.devices += [{name: "rxe3", fw_ver: "28.39.1002", transport: "IB", ports: [{device: "rxe3",
	port: 1, state: "ACTIVE", link_layer: "Ethernet", active_mtu: 4096, max_mtu: 4096,
	rate_gbps: 2.5, netdev: "eth7"}]}]' tests/data/rails/devices-2rail-storage.json >"$A4DEV"
A4LEFT='rxe2 left out on [0-9] nodes \(node[ABC] and [0-9] others?\): its rate 10 Gb/s differs'
A4NOADDR='rxe3 of node[ABC] has no IPv4 or IPv6 address on eth7: it is on no rail'
# a4_both NAME TEXTFILE JSONFILE: the text and the JSON each say both.
a4_both() {
	expect "left out, $1: the storage port and its rule, in the text" 0 "$A4LEFT" -- cat "$2"
	expect "left out, $1: the port with no address, in the text" 0 "$A4NOADDR" -- cat "$2"
	expect "left out, $1: both in the JSON, nothing assumed" 0 '^True True None$' -- python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
print(any(re.search(sys.argv[2], n) for n in d.get("rail_notes") or []),
      any(re.search(sys.argv[3], n) for n in d.get("findings") or []), d.get("rails_assumed", "absent"))' \
		"$3" "$A4LEFT" "$A4NOADDR"
}
env FAKE_DEVICES=$A4DEV COLUMNS=1000 $FC matrix nodeA nodeB nodeC "${A4W[@]}" --db "$A4T/m.db" >"$A4T/m.txt" 2>&1
env FAKE_DEVICES=$A4DEV $FC matrix nodeA nodeB nodeC "${A4W[@]}" --db "$A4T/mj.db" --json >"$A4T/m.json" 2>/dev/null
a4_both matrix "$A4T/m.txt" "$A4T/m.json"
env FAKE_DEVICES=$A4DEV COLUMNS=1000 $FC soak nodeA nodeB nodeC --duration 4 --slice 2 --interval 1 \
	"${A4W[@]}" --db "$A4T/s.db" >"$A4T/s.txt" 2>&1
env FAKE_DEVICES=$A4DEV $FC soak nodeA nodeB nodeC --duration 4 --slice 2 --interval 1 \
	"${A4W[@]}" --db "$A4T/sj.db" --json >"$A4T/s.json" 2>/dev/null
a4_both soak "$A4T/s.txt" "$A4T/s.json"
# The TUI following the matrix run above: its frame (--once) and its JSON.
env TERM=xterm COLUMNS=1000 LINES=40 timeout 20 $FC tui --db "$A4T/m.db" --run 1 --once >"$A4T/t.txt" 2>&1
$FC tui --db "$A4T/m.db" --run 1 --once --json >"$A4T/t.json" 2>/dev/null
a4_both tui "$A4T/t.txt" "$A4T/t.json"

# nccl run: its ranks' HCAs from the same port lists (stand-in srun and
# worker, as cases_ncclrank.sh).
mkdir -p "$A4T/srun"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$A4T/srun/srun"
A4N=(env PATH="$A4T/srun:$PATH" FAKE_DEVICES=$A4DEV FAKE_MODE=noise)
"${A4N[@]}" COLUMNS=1000 $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh \
	--timeout 5 >"$A4T/n.txt" 2>/dev/null
"${A4N[@]}" $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh \
	--timeout 5 --json >"$A4T/n.json" 2>/dev/null
a4_both "nccl run" "$A4T/n.txt" "$A4T/n.json"
# burnin-rack: a resumed burn-in whose matrix step is the matrix above; its
# summary's text and summary.json's step.
printf 'FABRIC=lab\nSTEPS="matrix"\nLAB_TIMEOUT=30s\n' >"$A4T/mx.conf"
env FABCHECK=$FC scripts/burnin-rack nodeA nodeB nodeC --launcher local --config "$A4T/mx.conf" \
	--out "$A4T/br" >/dev/null 2>&1
cp "$A4T/m.json" "$A4T/br/matrix.json"
env FABCHECK=$FC COLUMNS=1000 scripts/burnin-rack --resume --out "$A4T/br" --launcher local \
	--config "$A4T/mx.conf" >"$A4T/b.txt" 2>&1
python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))["steps"][0]
print(json.dumps({"rail_notes": st["rail_notes"], "findings": st["findings"], "rails_assumed": None}))' \
	"$A4T/br/summary.json" >"$A4T/b.json"
a4_both burnin-rack "$A4T/b.txt" "$A4T/b.json"
# Rails matched by position (three IB nodes on one subnet manager, the
# switches not read: tests/data/rails/ib-one-sm-pci.json), said as
# "assumed" by the TUI and burnin-rack too (matrix, soak and nccl run:
# cases_rails.sh, cases_ncclrank.sh), in their text and their JSON.
mkdir -p "$A4T/pci"
for n in 0 1 2; do
	jq "{verdict: \"pass\", findings: [], host: .nodes[$n].name, devices: .nodes[$n].devices}" \
		tests/data/rails/ib-one-sm-pci.json >"$A4T/pci/gpu0$((n + 1)).json"
done
env PATH="$A4T/srun:$PATH" FAKE_DEVICES_DIR="$A4T/pci" FAKE_MODE=noise $FC matrix gpu01 gpu02 gpu03 \
	--rails mlx5_0,mlx5_1 --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 \
	--db "$A4T/pos.db" --json >"$A4T/pos.json" 2>/dev/null
A4POS='rails assumed from position \(the same NUMA node'
expect "assumed, tui: in the text" 0 "rails: $A4POS" -- \
	env TERM=xterm COLUMNS=1000 LINES=40 timeout 20 $FC tui --db "$A4T/pos.db" --run 1 --once
expect "assumed, tui: in the JSON" 0 "^$A4POS" -- \
	bash -c "$FC tui --db $A4T/pos.db --run 1 --once --json 2>/dev/null | jq -r .rails_assumed"
env FABCHECK=$FC scripts/burnin-rack gpu01 gpu02 gpu03 --launcher local --config "$A4T/mx.conf" \
	--out "$A4T/bp" >/dev/null 2>&1
cp "$A4T/pos.json" "$A4T/bp/matrix.json"
expect "assumed, burnin-rack: in the text" 3 "^ +rails: $A4POS" -- \
	env FABCHECK=$FC COLUMNS=1000 scripts/burnin-rack --resume --out "$A4T/bp" --launcher local --config "$A4T/mx.conf"
expect "assumed, burnin-rack: in summary.json" 0 "^$A4POS" -- \
	bash -c "jq -r '.steps[0].rail_notes[]' $A4T/bp/summary.json"

rm -rf "$A4T"
