# Cases for the memory options of 'fabcheck pair' (--validate, --use-cuda,
# --gdr) on the 2-node rack $RACK_NAME (sourced by tests/rack/run.sh; helpers
# in tests/rack/lib.sh).
#
# Host memory is real: --validate fills the sender's slots with a pattern,
# poisons the receiver's, and checks every received byte over real rdma_rxe.
# The rack has no GPU: the --use-cuda cases run the worker against the
# test-only stand-in for libcuda.so.1 (tests/gdr/fakecuda.c, "GPU memory" is
# host memory there) and a recorded sysfs tree, through the worker command
# (ssh runs it by the node's shell). They test fabcheck's plumbing: options
# relayed to the workers, the registration plan against the real rxe verbs
# (which takes no dma-buf), registration by the peermem route on a real MR,
# inline sends off, --validate through the GPU copy path, and the errors.
ROOT=$(pwd)
FAKE=$ROOT/build/tests/libfakecuda.so
mkdir -p build/tests
[ -f "$FAKE" ] || ${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$FAKE" tests/gdr/fakecuda.c
FAKE_NF=$ROOT/build/tests/libfakecuda-noflush.so
[ -f "$FAKE_NF" ] || ${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -DFAKE_NO_FLUSH -o "$FAKE_NF" tests/gdr/fakecuda.c
T2S=$ROOT/tests/data/gdr/two-socket
TNP=$ROOT/tests/data/gdr/no-peermem
G=("$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db --timeout 15 --min-gbps 0.0001)
BIN=$(readlink -f "$FC")
# fakew VAR=VALUE...: a worker command on the stand-in driver.
fakew() { echo "env $* FABCHECK_LIBCUDA=$FAKE $BIN"; }

# ---- host memory: --validate on write, read and send ------------------------
# vok: every validated result of the document checked every message the
# other side sent (the reader: its own reads), in every slot due, with no
# problem and nothing stray.
VOK="all(v['memory'] == 'host' and v['messages_validated'] == v['sent'] > 0 and
	 v['messages_bad'] == 0 and 'problem' not in v and v['stray'] == 0 and
	 v['slots_checked'] == v['slots_due'] > 0 and
	 v['bytes_checked'] == r['size_bytes'] * v['messages_validated']
	 for r in d['results'] for v in (r.get('validate_a'), r.get('validate_b')) if v)"
expect_json "validate: write, read, send bandwidth on host memory, every message" 0 \
	"d['verdict'] in ('pass', 'warn') and not any('--validate' in f for f in d['findings']) and
	 [r['test'] for r in d['results']] == ['write', 'read', 'send'] and
	 [r.get('validate_a') is None for r in d['results']] == [True, False, True] and
	 [r.get('validate_b') is None for r in d['results']] == [False, True, False] and
	 [r['validate_b' if r['test'] != 'read' else 'validate_a']['opcode'] for r in d['results']] ==
	 ['RDMA WRITE WITH IMMEDIATE', 'RDMA READ', 'SEND WITH IMMEDIATE'] and
	 all(v['numbered_headers'] == (r['test'] != 'read') and v['sent'] >= 20
	     for r in d['results'] for v in (r.get('validate_a'), r.get('validate_b')) if v) and $VOK" \
	-- "${G[@]}" --test write,read,send --bw -s 16K -n 20 --validate --json
# 1 MiB messages: 4,095 chunk marks each (core/vmsg.h), every one renumbered
# by the sender and poisoned by the receiver; a healthy link passes.
expect_json "validate: 1 MiB writes and sends, every chunk's mark checked" 0 \
	"d['verdict'] in ('pass', 'warn') and [r['test'] for r in d['results']] == ['write', 'send'] and $VOK" \
	-- "${G[@]}" --test write,send --bw -s 1M -n 12 --validate --json
# Latency: write by immediate (the default with --validate), send and read;
# the ping-pongs are checked on both sides, the reads by the reader.
expect_json "validate: write, read, send latency, every message" 0 \
	"d['verdict'] in ('pass', 'warn') and not any('--validate' in f for f in d['findings']) and
	 [(r['test'], r['metric']) for r in d['results']] == [('write', 'lat'), ('read', 'lat'), ('send', 'lat')] and
	 d['results'][0]['lat_mode'] == 'imm' and
	 [(r.get('validate_a') is None, r.get('validate_b') is None) for r in d['results']] ==
	 [(False, False), (False, True), (False, False)] and $VOK" \
	-- "${G[@]}" --test write,read,send --lat -s 100 -n 30 --validate --json
expect "validate: the report says what was checked" 0 \
	'send +lat +100 B +node[AB]: 1[0-9] of 1[0-9] messages good, [0-9]+ B checked, [0-9]+ of [0-9]+ slots, host memory$' \
	-- "${G[@]}" --test send --lat -s 100 -n 10 --validate
# Every slot of the cycle written and checked: 4 KiB messages cycle over 16
# slots (4 per QP), 4 QPs on 2 threads with post lists of 4.
expect_json "validate: -q 4 --threads 2 --post-list 4, every slot checked" 0 \
	"d['verdict'] in ('pass', 'warn') and not any('--validate' in f for f in d['findings']) and
	 all(r['threads'] == 2 and r['post_list'] == 4 for r in d['results']) and
	 [(r['validate_b']['slots'], r['validate_b']['slots_checked']) for r in d['results']] == [(16, 16)] * 2 and $VOK" \
	-- "${G[@]}" --test write,send --bw -s 4K -n 40 -q 4 --threads 2 --post-list 4 --validate --json
# Long enough (about 1 s here) for both directions to run together: a 20-message
# run ended on one side before the other began, so no common window was measured.
expect_json "validate: bidirectional write checks both sides" 0 \
	"d['verdict'] in ('pass', 'warn') and
	 all(k in d['results'][0] for k in ('validate_a', 'validate_b')) and $VOK" \
	-- "${G[@]}" --test write --bw -b -s 8K -n 1000 --validate --json

# ---- --use-cuda where there is no driver -------------------------------------
expect "use-cuda: no libcuda on the nodes" 3 \
	'node[AB]: cannot load libcuda.so.1 on node[AB] .*fix: install the NVIDIA driver, or, in a bandwidth test, drop --use-cuda' \
	-- "${G[@]}" --test write --bw -s 8K -n 5 --use-cuda

# ---- --use-cuda on the stand-in driver ---------------------------------------
expect_json "use-cuda: peermem route on rxe, validate through the GPU copy path" 0 \
	"d['verdict'] in ('pass', 'warn') and
	 [(s['memory'], s['gpu'], s['gpu_bus_id'], s['max_inline']) for s in (d['a'], d['b'])]
	 == [('cuda:0 (peermem)', 0, '0000:3B:00.0', 0)] * 2 and
	 [(r['test'], r['metric']) for r in d['results']] == [('write', 'bw'), ('write', 'lat'), ('read', 'bw'), ('read', 'lat')] and
	 d['results'][1]['lat_mode'] == 'imm' and d['results'][1]['min_us'] > 0 and
	 all(v['memory'] == 'cuda:0 (peermem)' and v['numbered_headers'] is False and
	     v['flush'] == 'cuFlushGPUDirectRDMAWrites' and v['loopback_reads'] == 0 and
	     v['messages_validated'] == v['sent'] >= 10 and 'problem' not in v and v['stray'] == 0
	     for r in d['results'] for v in (r.get('validate_a'), r.get('validate_b')) if v) and
	 [(r.get('validate_a') is None, r.get('validate_b') is None) for r in d['results']] ==
	 [(True, False), (False, False), (False, True), (False, True)]" \
	-- env FABCHECK_WORKER_CMD="$(fakew FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" -s 8K -n 10 -d rxe0 --use-cuda --validate --json
# A driver without cuFlushGPUDirectRDMAWrites: a loopback RDMA READ on the
# real rxe0 before each check (one a message), as NCCL flushes.
expect_json "use-cuda: no driver flush, a loopback RDMA READ before each check" 0 \
	"d['verdict'] in ('pass', 'warn') and
	 [(r['test'], r['metric']) for r in d['results']] == [('write', 'bw'), ('write', 'lat')] and
	 all(v['flush'] == 'loopback RDMA READ' and v['loopback_reads'] == v['messages_validated'] == v['sent'] >= 10 and
	     'problem' not in v and v['stray'] == 0
	     for r in d['results'] for v in (r.get('validate_a'), r.get('validate_b')) if v) and
	 d['results'][1]['validate_a']['flush'] == 'loopback RDMA READ'" \
	-- env FABCHECK_WORKER_CMD="env FABCHECK_SYSFS=$T2S FABCHECK_LIBCUDA=$FAKE_NF $BIN" \
	"${G[@]}" --test write -s 8K -n 10 -d rxe0 --use-cuda --validate --json
expect "use-cuda: a corrupting GPU copy is caught" 1 \
	'nodeB: --validate: write of 8192 B: [0-9]+ of [0-9]+ messages failed \(cuda:1 \(peermem\) memory\); the first, in slot 0, the payload check: QP 0, message 0 for slot 0 \(8192 B\): payload: .*offset 4113' \
	-- env FABCHECK_WORKER_CMD="$(fakew FAKECUDA=corrupt FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" --test write --bw -s 8K -n 10 -d rxe0 --use-cuda=1 --validate
expect "use-cuda: a failing GPUDirect flush before the check" 1 \
	'cuFlushGPUDirectRDMAWrites: .*801' \
	-- env FABCHECK_WORKER_CMD="$(fakew FAKECUDA=flushfail FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" --test write --bw -s 8K -n 10 -d rxe0 --use-cuda --validate
expect "use-cuda: neither dma-buf nor peermem" 3 \
	'neither dma-buf nor peermem is available .*refuses dma-buf MRs.*fix: modprobe nvidia-peermem' \
	-- env FABCHECK_WORKER_CMD="$(fakew FAKECUDA=nodmabuf FABCHECK_SYSFS=$TNP)" \
	"${G[@]}" --test write --bw -s 8K -n 5 --use-cuda
expect "use-cuda: --gdr dmabuf on rxe (no dma-buf MRs)" 3 \
	'--gdr dmabuf: dma-buf is not available: the kernel or rdma-core refuses dma-buf MRs' \
	-- env FABCHECK_WORKER_CMD="$(fakew FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" --test write --bw -s 8K -n 5 --use-cuda --gdr dmabuf
expect "use-cuda: GPU index not on the node" 3 \
	'GPU 7 not found; this node has 2 GPUs' \
	-- env FABCHECK_WORKER_CMD="$(fakew FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" --test write --bw -s 8K -n 5 -d rxe0 --use-cuda=7
# Without -d, --use-cuda=1 takes the HCA nearest GPU 1 in the tree (mlx5_1),
# which the rack does not have: the worker says so.
expect "use-cuda=N: the HCA nearest that GPU" 3 "no RDMA device 'mlx5_1' here" \
	-- env FABCHECK_WORKER_CMD="$(fakew FABCHECK_SYSFS=$T2S)" \
	"${G[@]}" --test write --bw -s 8K -n 5 --use-cuda=1

# ---- gpu-check on a node: registration with the real rxe0 ----------------------
expect "gpu-check: peermem registration on rxe0" 0 'registration +peermem on rxe0' \
	-- ssh -F "$SSH_CFG" nodeA "$(fakew FABCHECK_SYSFS=$T2S) gpu-check -s 1M -n 1 -d rxe0"
expect "gpu-check: rxe0 takes no dma-buf, no peermem" 1 \
	'neither dma-buf nor peermem is available .*the kernel or rdma-core refuses dma-buf MRs' \
	-- ssh -F "$SSH_CFG" nodeA "$(fakew FABCHECK_SYSFS=$TNP) gpu-check -s 1M -n 1 -d rxe0"
