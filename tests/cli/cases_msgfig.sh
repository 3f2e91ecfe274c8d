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
rm -rf "$MFT"
