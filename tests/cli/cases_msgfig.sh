# Cases for messages with figures (sourced by tests/cli/run.sh; issue 39
# item 5), each fed figures known beforehand and checked whole. matrix's
# findings and the store's messages: recorded pair documents
# (tests/data/matrix/gen.py) imported into a store twice, so that the run
# is 2 and no other figure of a finding is 2 by chance.
MFT=$(mktemp -d /tmp/fc-mxfigs-XXXXXX)
MXD=tests/data/matrix
# 5 nodes, the schedule's first 2 rounds: 2 pairs a round (one node sits
# out), 4 of the 5 * 4 / 2 = 10 pairs.
python3 $MXD/gen.py 5 - 0.02 2 > $MFT/p5.json
$FC matrix --import $MFT/p5.json --db $MFT/p5.db >/dev/null 2>&1
expect "matrix: run 2 is incomplete, 4 of 10 pairs measured" 0 "run 2 is incomplete: 4 of 10 pairs measured; finish it with 'fabcheck matrix --resume 2'" -- \
	$FC matrix --import $MFT/p5.json --db $MFT/p5.db
# 4 nodes: nodeD's 3 pairs could not run, nor nodeA's with nodeB.
python3 $MXD/gen.py 4 > $MFT/g4.json
python3 - $MFT/g4.json > $MFT/e4.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    ab = {r["a"]["node"], r["b"]["node"]}
    why = "nodeD: no 'hello' from the worker" if "nodeD" in ab else \
          "nodeB: the worker exited 2" if ab == {"nodeA", "nodeB"} else None
    if why:
        r.update(verdict="error", error=why, results=[])
json.dump(d, sys.stdout)
EOF
$FC matrix --import $MFT/e4.json --db $MFT/e4.db >/dev/null 2>&1
$FC matrix --import $MFT/e4.json --db $MFT/e4.db > $MFT/e4.txt 2>&1
expect "matrix: a node none of whose 3 pairs ran, resume run 2" 0 '^1$' -- \
	grep -cF "node nodeD: none of its 3 pairs could run: nodeD: no 'hello' from the worker; fix that, then 'fabcheck matrix --resume 2'" $MFT/e4.txt
expect "matrix: a pair that could not run, resume run 2" 0 '^1$' -- \
	grep -cF "pair nodeA->nodeB could not run: nodeB: the worker exited 2; fix that, then 'fabcheck matrix --resume 2'" $MFT/e4.txt

# baseline over p5.db's 2 runs (4 pairs each, gen.py's 2 message sizes):
# no profile reaches --min-count 50; --runs 1 reads one, 2 both.
expect "baseline: no profile has 50 results, 2 runs read" 3 "baseline: no profile in $MFT/p5.db has 50 or more results \(runs read: 2\); run the matrix on healthy nodes first, or lower --min-count" -- \
	$FC baseline --db $MFT/p5.db --min-count 50 -o $MFT/bl.json
expect "baseline: of 1 run, 7% below" 0 '^baseline of 1 run, rule: more than 7% below the pruned mean$' -- \
	$FC baseline --db $MFT/p5.db --runs 1 --below-pct 7 -o $MFT/bl.json
expect "baseline: of 2 runs, 9% below" 0 '^baseline of 2 runs, rule: more than 9% below the pruned mean$' -- \
	$FC baseline --db $MFT/p5.db --runs 2 --below-pct 9 -o $MFT/bl.json
expect "matrix --resume 2 with node names" 2 'matrix --resume 2: the nodes come from the run; drop the node names' -- \
	$FC matrix --resume 2 nodeA nodeB --db $MFT/p5.db
# bl.json (2 profiles) with profile 1's mean made -1, then its test 5.
python3 - $MFT/bl.json $MFT/neg.json $MFT/typ.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["profiles"][1]["mean_gbps"] = -1
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1]))
d["profiles"][1]["test"] = 5
json.dump(d, open(sys.argv[3], "w"))
PY
expect "baseline file: profile 1's mean -1" 2 "baseline $MFT/neg\.json: profile 1: mean_gbps must be a positive figure and count at least 1; write the file with 'fabcheck baseline'" -- \
	$FC report --db $MFT/p5.db --baseline $MFT/neg.json --csv $MFT/x.csv
expect "baseline file: profile 1's test 5, a string of at most 15 bytes" 2 "baseline $MFT/typ\.json: profile 1: its profile has no valid \"test\" \(a string of at most 15 bytes\); write the file with 'fabcheck baseline'" -- \
	$FC report --db $MFT/p5.db --baseline $MFT/typ.json --csv $MFT/x.csv
# The store's figures (store/store.c, store_read.c) on p5.db, run 2 its last.
expect "store: no run 7 of 2" 3 "store $MFT/p5.db: no run 7; 'fabcheck report --list' shows the runs" -- \
	$FC report --db $MFT/p5.db --run 7 --html $MFT/x.html
cp $MFT/p5.db $MFT/new.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 9"); c.commit()' $MFT/new.db
expect "store: schema 9 refused by a reader of 1 to 2" 3 "store $MFT/new.db: written by a newer fabcheck \(schema 9, this one knows 1 to 2\); give --db with a store fabcheck wrote" -- \
	$FC report --db $MFT/new.db --html $MFT/x.html
expect "store: schema 9 refused by a writer of 2" 3 "store $MFT/new.db: written by a newer fabcheck \(schema 9, this one knows 2\); upgrade fabcheck or pass --db with another file" -- \
	$FC matrix --import $MFT/p5.json --db $MFT/new.db
# A link row's 2e9 Gb/s, past the store's bound of twice FC_GBPS_MAX (1600).
cp $MFT/p5.db $MFT/odd.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE links SET gbps = 2e9 WHERE rowid = 2"); c.commit()' $MFT/odd.db
expect "store: a link's 2e+09 Gb/s above 3200 not taken" 0 'store: a stored figure of 2e\+09 is no measurement \(negative, not finite, or above 3200\): taken as not measured' -- \
	$FC report --history --db $MFT/odd.db --csv $MFT/odd.csv
# Schema 1 (no link rows) upgraded to 2 by a writer.
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE links"); c.execute("PRAGMA user_version = 1"); c.commit()' $MFT/p5.db
expect "store: upgraded from schema 1 to 2" 0 "store $MFT/p5.db: upgraded from schema 1 to 2 \(a row per pair and rail result\); a fabcheck older than this one no longer opens it" -- \
	$FC matrix --import $MFT/p5.json --db $MFT/p5.db
# pair's count of its arguments, plural and singular.
expect "pair: 3 arguments where two nodes are due" 2 'pair: expected two nodes \(fabcheck pair NODE_A NODE_B\), got 3 arguments$' -- \
	$FC pair nodeA nodeB nodeC
expect "pair: 1 argument where two nodes are due" 2 'pair: expected two nodes \(fabcheck pair NODE_A NODE_B\), got 1 argument$' -- \
	$FC pair nodeA
# nccl run's limits, refused before any node is reached.
expect "nccl run: --min-bytes 4096 above --max-bytes 1024" 2 'nccl run: --min-bytes 4096 is above --max-bytes 1024; swap them' -- \
	$FC nccl run --min-bytes 4096 --max-bytes 1024 nodeA nodeB
expect "nccl run: 30 nodes x 9 GPUs past 256 ranks" 2 'nccl run: 30 nodes x 9 GPUs is more than the 256 ranks one controller drives; split the run' -- \
	$FC nccl run --gpus-per-node 9 $(seq -f "n%02g" 1 30)
# nccl env's value checks (checks/nccl/env/ncclenv_kb.c: NCCL_IB_TIMEOUT
# 1 to 31, NCCL_IB_RETRY_CNT 0 to 7, sizes as plain byte counts; at most 32
# devices in NCCL_IB_HCA).
printf 'NCCL_IB_TIMEOUT=40\nNCCL_IB_RETRY_CNT=x7\nNCCL_BUFFSIZE=4M\nNCCL_IB_HCA=%s\n' "$(seq -s, -f 'mlx5_%g' 0 32)" > $MFT/nccl.env
$FC nccl env --file $MFT/nccl.env > $MFT/nccl.txt 2>&1
expect "nccl env: NCCL_IB_TIMEOUT 40 out of 1 to 31" 0 '^1$' -- \
	grep -cF '  - NCCL_IB_TIMEOUT=40 (line 1): 40 is out of range; accepted: 1 to 31' $MFT/nccl.txt
expect "nccl env: NCCL_IB_RETRY_CNT x7 not an integer of 0 to 7" 0 '^1$' -- \
	grep -cF '  - NCCL_IB_RETRY_CNT=x7 (line 2): '"'x7'"' is not an integer: NCCL logs "Invalid value" and uses its default; accepted: 0 to 7' $MFT/nccl.txt
expect "nccl env: NCCL_BUFFSIZE 4M is 4194304 bytes" 0 '^1$' -- \
	grep -cF "  - NCCL_BUFFSIZE=4M (line 3): '4M': NCCL reads sizes as plain byte counts and uses its default for this; write 4194304" $MFT/nccl.txt
expect "nccl env: 33 devices in NCCL_IB_HCA, 32 read" 0 '^1$' -- \
	grep -cF 'mlx5_32 (line 4): 33 devices listed; NCCL reads at most 32 (16 before 2.18.5)' $MFT/nccl.txt
# plan --ds-config's checks (plan/dsconfig.c): a ZeRO stage of 0 to 3,
# whole accumulation steps from 1 to 1e6, the JSON's line and column
# (jansson's: from 1, the offending token's).
printf '{"zero_optimization": {"stage": 5}}\n' > $MFT/s5.json
expect "plan --ds-config: stage 5 of 0 to 3" 2 'zero_optimization.stage: 5 is not a whole number from 0 to 3$' -- \
	$FC plan --params 7B --gpus 32 --ds-config $MFT/s5.json
printf '{"zero_optimization": {"stage": 2}, "gradient_accumulation_steps": 2.5}\n' > $MFT/g.json
expect "plan --ds-config: 2.5 accumulation steps" 2 'gradient_accumulation_steps: 2\.5 is not a whole number from 1 to 1e\+06$' -- \
	$FC plan --params 7B --gpus 32 --ds-config $MFT/g.json
printf '{"zero_optimization":\n   {"stage": 2 x}}\n' > $MFT/bad.json
expect "plan --ds-config: not JSON at line 2, column 16" 2 "bad\.json: not a JSON file \(line 2, column 16: '}' expected near 'x'\)" -- \
	$FC plan --params 7B --gpus 32 --ds-config $MFT/bad.json
# soak: an --interval of 5 s gives one sample in a 9 s slice.
expect "soak: --interval 5 s in a 9 s --slice" 2 'soak: --interval 5 s leaves less than two samples in a 9 s --slice; shorten the interval or lengthen the slice' -- \
	$FC soak --duration 60 --interval 5 --slice 9 nodeA nodeB
# nccl check-log's GPUDirect counts: interleaved.log's 3 NET channel lines,
# the send one without /GDRDMA; the real 2.11.4 log's 8, none with it
# (grep -c 'via NET' and 'GDRDMA' on the file: 8 and 0).
expect "check-log: 1 of 3 NET channels lack /GDRDMA, 1 send, 0 receive" 0 'GPUDirect RDMA is only partly on: 1 of 3 NET channels lack /GDRDMA \(1 send, 0 receive side\); only the send side' -- \
	$FC nccl check-log tests/data/nccl/interleaved.log
expect "check-log: none of 8 NET channel lines with /GDRDMA" 0 'GPUDirect RDMA is off \(none of 8 NET channel lines has /GDRDMA\): data is staged through host memory' -- \
	$FC nccl check-log tests/data/nccl/logs/nccl-2.11.4_gdr-off-distance-phb_ompi.log
# nccl env --file's parse: a quote left open on line 2; a name set on line
# 1 and again on line 3.
printf 'NCCL_DEBUG=INFO\nNCCL_IB_HCA="mlx5_0\nNCCL_IB_TC=106\n' > $MFT/quote.env
expect "nccl env: quote not closed on line 2" 2 "quote\.env:2: quote not closed; close it or remove the stray quote" -- \
	$FC nccl env --file $MFT/quote.env
printf 'NCCL_DEBUG=INFO\nNCCL_IB_TC=106\nNCCL_DEBUG=WARN\n' > $MFT/twice.env
expect "nccl env: NCCL_DEBUG of line 1 set again on line 3" 0 "  - NCCL_DEBUG=INFO \(line 1\): set again on line 3 with 'WARN', which wins" -- \
	$FC nccl env --file $MFT/twice.env
# --topo files that are not JSON, the fault on line 2.
printf '{"gpus":\n[1,,]}\n' > $MFT/topo.json
expect "nccl env --topo: not JSON on line 2" 2 "--topo $MFT/topo\.json: .* \(line 2\); expected the JSON of 'fabcheck topo --json'" -- \
	$FC nccl env --topo $MFT/topo.json --file $MFT/twice.env
expect "nccl check-log --topo: not JSON on line 2" 3 "--topo $MFT/topo\.json: not JSON: .* \(line 2\); give the output of 'fabcheck topo --json'" -- \
	$FC nccl check-log --topo $MFT/topo.json tests/data/nccl/interleaved.log
# A file that cannot be read has no line to name (jansson's -1 was printed
# as "(line -1)"); a document of the wrong kind neither; a parse error does.
expect "nccl env --topo: a missing file, no line" 2 "--topo $MFT/none\.json: cannot read it: No such file or directory; expected the JSON of 'fabcheck topo --json'$" -- \
	$FC nccl env --topo $MFT/none.json --file $MFT/twice.env
expect "nccl check-log --topo: a missing file, no line" 3 "--topo $MFT/none\.json: cannot read it: No such file or directory; give the output of 'fabcheck topo --json'$" -- \
	$FC nccl check-log --topo $MFT/none.json tests/data/nccl/interleaved.log
expect "health --probe-doc: a missing file, no line" 3 "--probe-doc $MFT/none\.json: cannot read it: No such file or directory; give a 'fabcheck preflight-probe --json' document$" -- \
	$FC health --probe-doc $MFT/none.json --no-state
echo '[1]' > $MFT/list.json
expect "health --probe-doc: a list, no line" 3 "--probe-doc $MFT/list\.json: not a JSON object; give a 'fabcheck preflight-probe --json' document$" -- \
	$FC health --probe-doc $MFT/list.json --no-state
expect "health --probe-doc: not JSON on line 2" 3 "--probe-doc $MFT/topo\.json: .* \(line 2\); give a 'fabcheck preflight-probe --json' document$" -- \
	$FC health --probe-doc $MFT/topo.json --no-state
# matrix --hostfile: a NUL byte on line 3.
printf 'nodeA\nnodeB\nno\0deC\n' > $MFT/hosts
expect "matrix --hostfile: a NUL byte on line 3" 2 "--hostfile $MFT/hosts line 3: holds a NUL byte; give a text file with one node name a line" -- \
	$FC matrix --hostfile $MFT/hosts
# The worker's input (core/wire.c): a line that is not JSON, its column
# jansson's (the end of the token 'not'), and one over FC_WIRE_MAX_LINE.
expect "worker: a message that is not JSON, at column 3" 3 "refused a message from the controller: message is not JSON \('\[' or '\{' expected near 'not' at column 3\)" -- \
	bash -c "echo 'not json' | $FC worker"
expect "worker: a line over 65536 bytes" 3 "refused the controller's input: a line over 65536 bytes" -- \
	bash -c "python3 -c 'print(\"{\" + \"x\" * 70000)' | $FC worker"
# 13 nodes (past the 12 whose grid matrix prints), imported twice: run 2.
python3 $MXD/gen.py 13 > $MFT/m13.json
$FC matrix --import $MFT/m13.json --db $MFT/m13.db >/dev/null 2>&1
expect "matrix: 13 nodes' grid in tui --run 2" 0 "^\(13 nodes: the grid is in 'fabcheck tui --run 2' and 'fabcheck report'\)$" -- \
	$FC matrix --import $MFT/m13.json --db $MFT/m13.db
# 4097 nodes, one past FC_SCHED_MAX_NODES: refused before anything runs.
seq -f "n%05g" 1 4097 > $MFT/h4097
expect "matrix: 4097 nodes of at most 4096" 2 '^fabcheck: error: 4097 nodes: at most 4096 in one matrix; split the rack$' -- \
	$FC matrix --hostfile $MFT/h4097
expect "soak: 4097 nodes of at most 4096" 2 '^fabcheck: error: soak: 4097 nodes; at most 4096$' -- \
	$FC soak --duration 60 --hostfile $MFT/h4097
# plan --db of a 3-node, 2-rail run with nodeC slow on rail 1: rail 1's
# pairs 0.169, 0.02, 0.02 Gb/s, its median 0.02 (was printed "0.0").
python3 $MXD/gen_rails.py --pair-docs 3 2 port:nodeC:1 > $MFT/r3.json
$FC matrix --import $MFT/r3.json --db $MFT/r3.db >/dev/null 2>&1
expect "plan --db: the slowest rail's 0.02 Gb/s median" 0 '"matrix run 1 \(2 rails, slowest rxe1 at 0\.02 Gb/s median\)"' -- \
	$FC plan --params 7B --gpus 16 --gpus-per-node 8 --db $MFT/r3.db --json
# devices of a node capture with 8 InfiniBand and 2 RoCE ports
# (tests/data/devices, bundle-rack.py): each port's GID table named with its
# device and port, RoCE's mlx5_10 port 1 the ninth.
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$MFT/cap" >/dev/null 2>&1
python3 tests/cli/bundle-rack.py "$MFT/cap" tests/data/devices/ib8-roce2.json "$MFT/dv"
expect "devices: mlx5_10 port 1's GID table" 0 '^mlx5_10 port 1 GID table:$' -- \
	$FC devices --from "$MFT/dv/gpu-node-017"
rm -rf "$MFT"
