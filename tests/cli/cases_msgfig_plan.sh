# Messages with figures of plan/, store/ and src/ (sourced by tests/cli/run.sh;
# issue 39 item 5), each fed figures known beforehand: plan's DeepSpeed step
# as printed lines (compared whole, the blank line under it included), plan
# --db's refusals on stores whose last run is known, the version line.
PFT=$(mktemp -d /tmp/fc-planfigs-XXXXXX)
# --ds-config z2 (cases_plan.sh's): 7e9 params, ZeRO-2 on 32 GPUs; sent per
# GPU per step 31/32 x 70 GB (reduce-scatter 56 GB + all-gather 14 GB) =
# 67.8 GB, then one blank line (there were two: the table's and the
# heading's), then the fabric's heading.
printf '{"bf16": {"enabled": true}, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2, "reduce_bucket_size": 2e8, "allgather_bucket_size": 5e8, "overlap_comm": true}}' >$PFT/z2.json
cat >$PFT/want-ds <<'EOF'
  sent per GPU per step: 67.8 GB

communication per step (ring, efficiency 0.5, overlap 0.75; exposed = not hidden by compute; fabric nominal):
EOF
$FC plan --params 7B --gpus 32 --ds-config $PFT/z2.json --fabric ndr --compute-ms 150 \
	--efficiency 0.5 --overlap 0.75 >$PFT/ds.txt 2>&1
expect "plan --ds-config: sent per GPU per step 67.8 GB, a blank line, the heading" 0 '^same$' -- \
	sh -c 'grep -A2 "sent per GPU per step" "$1" | diff - "$2" && echo same' sh $PFT/ds.txt $PFT/want-ds

# The model's line: the nouns follow their counts (it said "1 GPUs",
# "1 NICs"): one GPU on one node with one NIC; 6 GPUs on 2 nodes of 3 with
# 2 NICs (3e9 params x 2 B = 6 GB).
expect "plan: 1 GPU on 1 node, 1 NIC per node" 0 '^model: 1 billion params x 2 B = 2 GB; 1 GPU on 1 node \(1 per node, 1 NIC per node\)$' -- \
	$FC plan --params 1B --gpus 1 --gpus-per-node 1 --nics-per-node 1
expect "plan: 6 GPUs on 2 nodes, 2 NICs per node" 0 '^model: 3 billion params x 2 B = 6 GB; 6 GPUs on 2 nodes \(3 per node, 2 NICs per node\)$' -- \
	$FC plan --params 3B --gpus 6 --gpus-per-node 3 --nics-per-node 2

# plan --db on stores whose last run has no figure plan can use. A matrix
# of latency results only (gen.py's 4 nodes, the bandwidth results taken
# out), imported three times: run 3 has no bandwidth figure.
python3 tests/data/matrix/gen.py 4 >$PFT/g4.json
python3 - $PFT/g4.json >$PFT/lat.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["results"] = [x for x in r["results"] if x["metric"] == "lat"]
json.dump(d, sys.stdout)
EOF
for i in 1 2 3; do $FC matrix --import $PFT/lat.json --db $PFT/lat.db >/dev/null 2>&1; done
expect "plan --db: matrix run 3 has no bandwidth figure" 2 "error: $PFT/lat\.db: matrix run 3 has no bandwidth figure \(was it a latency run, or did every pair fail\?\)$" -- \
	$FC plan --params 7B --gpus 16 --db $PFT/lat.db
# The same store with its link rows gone (schema 2 kept): run 3's links
# cannot be read.
cp $PFT/lat.db $PFT/nolinks.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE links"); c.commit()' $PFT/nolinks.db
expect "plan --db: the links of matrix run 3 cannot be read" 2 "error: $PFT/nolinks\.db: cannot read the links of matrix run 3$" -- \
	$FC plan --params 7B --gpus 16 --db $PFT/nolinks.db
# The same store whose runs table lost its verdict column (a store another
# program altered): run 3 is listed, and cannot be read.
cp $PFT/lat.db $PFT/nocol.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("ALTER TABLE runs DROP COLUMN verdict"); c.commit()' $PFT/nocol.db
expect "plan --db: run 3 listed and not readable" 2 "error: --db $PFT/nocol\.db: cannot read run 3$" -- \
	$FC plan --params 7B --gpus 16 --db $PFT/nocol.db
# An nccl run after them (run 4) that recorded no busbw, on 5 nodes; then
# one (run 5) of a single node.
cp $PFT/lat.db $PFT/nccl.db
python3 - $PFT/nccl.db <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO runs (id, kind, params, started, ended, verdict) VALUES (4, 'nccl', "
          "'{\"nodes\": 5, \"gpus_per_node\": 8}', 1.7e9, 1.7e9, 'pass')")
c.commit()
EOF
expect "plan --db: nccl run 4 of 5 nodes has no busbw figure" 2 "error: $PFT/nccl\.db: nccl run 4 has no busbw figure$" -- \
	$FC plan --params 7B --gpus 16 --db $PFT/nccl.db
python3 - $PFT/nccl.db <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO runs (id, kind, params, started, ended, verdict) VALUES (5, 'nccl', "
          "'{\"nodes\": 1, \"gpus_per_node\": 8, \"peak_busbw_gbytes_s\": 310.5}', 1.7e9, 1.7e9, 'pass')")
c.commit()
EOF
expect "plan --db: nccl run 5 of one node, its busbw not the network's" 2 "error: $PFT/nccl\.db: nccl run 5 ran on one node: its busbw is not the network's$" -- \
	$FC plan --params 7B --gpus 16 --db $PFT/nccl.db

# The version line: the wire protocol the --json document gives (core/fc.h
# FC_WIRE_VERSION), on a line of its own.
cat >$PFT/want-ver <<'EOF'
fabcheck 0.1.0 (wire protocol 1)
EOF
expect "version: fabcheck 0.1.0, wire protocol 1 as --json says" 0 '^same 1$' -- \
	sh -c '"$1" version | diff - "$2" && echo same $("$1" version --json | python3 -c "import json, sys; print(json.load(sys.stdin)[\"wire_protocol\"])")' \
	sh $FC $PFT/want-ver
rm -rf "$PFT"
