# Issue 39 item 5 for checks/ (nccl check-log, preflight): each message with
# figures fed figures known beforehand, distinct where they could be swapped,
# and checked whole where it is printed (sourced by tests/cli/run.sh). The
# logs are real captures (tests/real/nccl, ../shared/fixtures/nccl-logs) or
# written here in NCCL's own line formats, each figure counted by hand.
MCK=$(mktemp -d /tmp/fabcheck-cli-msgfig-checks.XXXXXX)
MNL=$FABCHECK_SHARED/fixtures/nccl-logs
MTD=tests/data/nccl

# ---- nccl check-log: the summary and the tables ------------------------------
# A real log whose 5 error lines ("file.cc:N -> 3") come from 4 places:
# bootstrap.cc:256 is printed by two ranks (pids 892208 and 892210); 1 WARN.
expect "check-log: 5 error lines from 4 source locations, 1 WARN" 1 \
	'^  warnings    1 distinct NCCL WARN, 5 error lines from 4 source locations$' -- \
	$FC nccl check-log "$MNL/nccl-2.2x_h100_ibext-v6-sharp_socket-family-warn.log"
# A real log of 3 error lines at 3 places: lines and places agree, said once.
expect "check-log: 3 error lines, each its own place" 1 \
	'^  warnings    1 distinct NCCL WARN, 3 error lines$' -- \
	$FC nccl check-log tests/real/nccl/ml-eng_azure_net-ib-completion-error-12_wrapped-warn.log
# NCCL's merged virtual devices (real log): index 2 is merged into 1.
expect "check-log: HCA 2 merged into NET device 1" 0 '^  2 \(merged 1\)  mlx5_0  1     RoCE  -$' -- \
	$FC nccl check-log "$MNL/nccl-2.2x_roce-merged-vnics_ibext-v8.log"
# 2.30.7's fused NICs (net_ib/init.cc "Made virtual device"): the ports
# mlx5_0 and mlx5_1 at indexes 0 and 1, NIC 2 fuses both.
{
	echo "node0:100:100 [0] NCCL INFO NCCL version 2.30.7+cuda12.4"
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>"
	for i in 0 1; do
		echo "node0:100:100 [0] NCCL INFO NET/IB: [$i] mlx5_$i:uverbs$i:1/IB provider=Mlx5 speed=200000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:00:01.0/0000:10:00.$i ar=1 oooRqSize=0"
	done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=400000 ndevs=2 rail=-1 plane=-1"
} >"$MCK/fused.log"
expect "check-log: port 1 fused into NIC 2" 0 '^  1 \(fused 2\)  mlx5_1  1     IB    -$' -- \
	$FC nccl check-log "$MCK/fused.log"
# 8 x H100 on one node at 123.4 GB/s: 123.4 / 460 (the published low) = 27%.
for g in 0 1 2 3 4 5 6 7; do
	echo "node0:10$g:10$g [$g] NCCL INFO comm 0x5 rank $g nRanks 8 nNodes 1 localRanks 8 localRank $g MNNVL 0"
done >"$MCK/ranks8"
mck_onenode() {
	cat "$MCK/ranks8"
	echo "# Collective test starting: all_reduce_perf"
	for g in 0 1 2 3 4 5 6 7; do
		printf '#  Rank %2d Group  0 Pid  58543 on      node0 device  %d [0x%02x] %s\n' $g $g $((24 + g)) "$1"
	done
	echo "  8589934592    2147483648     float     sum      -1    47133  100.00  $2      0    47107  100.00  $2      0"
}
mck_onenode "NVIDIA H100 80GB HBM3" 123.40 >"$MCK/h100.log"
mck_onenode "NVIDIA B200" 700.00 >"$MCK/b200.log"
expect "check-log: inside a node, measured 123 GB/s, 27% of 460" 0 \
	'^  inside a node: 8 x NVIDIA H100 80GB HBM3 over NVLink/NVSwitch, ~460-480 GB/s all_reduce busbw \(published nccl-tests figure\); measured 123, 27%$' -- \
	$FC nccl check-log "$MCK/h100.log"
expect "check-log: inside a node of 8 x B200: not known" 0 \
	'^  inside a node: 8 x NVIDIA B200 over NVLink/NVSwitch: not known \(no published nccl-tests figure\)$' -- \
	$FC nccl check-log "$MCK/b200.log"
# Two nodes of 8 ranks, NCCL_ALGO=Tree, 4 rails at 200 Gb/s: a node carries
# 4 x 200 / 8 x 0.94 = 94 GB/s; a tree on two nodes sends half its traffic
# over the network: 2 x (16 - 1) / 16 x 94 = 176.25, printed 176.2.
{
	for n in 0 1; do for g in 0 1 2 3 4 5 6 7; do
		echo "node$n:10$g:10$g [$g] NCCL INFO comm 0x5 rank $((n * 8 + g)) nRanks 16 nNodes 2 localRanks 8 localRank $g MNNVL 0"
	done; done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB ib0:10.0.0.1<0>"
	echo "node0:100:100 [0] NCCL INFO NCCL_ALGO set by environment to Tree"
} >"$MCK/tree.log"
expect "check-log: 4 rails of 200 Gb/s, tree: 94 GB/s" 0 \
	'^  4 x 200 Gb/s rails \(--rail-gbps\), tree: at most ~94 GB/s busbw across nodes$' -- \
	$FC nccl check-log "$MCK/tree.log" --rail-gbps 200
expect "check-log: a tree on two nodes, up to 176.2 GB/s" 0 \
	'^  on two nodes a tree sends half its traffic over the network: up to 176.2 GB/s, where the path inside the node allows it$' -- \
	$FC nccl check-log "$MCK/tree.log" --rail-gbps 200

# ---- nccl check-log: findings ------------------------------------------------
# A real log of 7 IB ports and 2 RoCE ports in one device list.
expect "check-log: 7 InfiniBand and 2 RoCE ports" 0 \
	'^  - the IB device list mixes InfiniBand \(7\) and RoCE \(2\) ports; NCCL can put channels on the odd device: choose one kind with NCCL_IB_HCA \(for example NCCL_IB_HCA==mlx5_8,mlx5_9,mlx5_10,mlx5_11,mlx5_12,mlx5_14,mlx5_15\)$' -- \
	$FC nccl check-log "$MNL/nccl-2.7.6_a100_ib-7hca-plus-2roce.log"
# 9 distinct WARNs: 6 listed one by one, the other 3 counted.
{
	echo "ha:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>"
	for i in 1 2 3 4 5 6 7 8 9; do echo "ha:1:1 [0] NCCL WARN test warning number $i"; done
} >"$MCK/warns.log"
expect "check-log: 6 WARNs listed, 3 more counted" 0 \
	'^  - 3 more distinct NCCL WARN messages \(see "warnings" in --json\)$' -- \
	$FC nccl check-log "$MCK/warns.log"
expect "check-log: the summary counts all 9 WARNs" 0 '^  warnings    9 distinct NCCL WARN, 0 error lines$' -- \
	$FC nccl check-log "$MCK/warns.log"
# Real: builds of two NCCL eras on two hosts, each with its pid.
expect "check-log: two hosts, two pids, two eras" 0 \
	'^  - mixed NCCL builds: host hgx-b13 \(pid 549201\) prints the wording of NCCL 2.19 - 2.20 \("NET/Plugin : dlerror="\) but host hgx-b12 \(pid 2240607\) that of NCCL 2.17 - 2.18 \("NET/Plugin : Plugin load \(libnccl-net.so\) returned "\); install one NCCL version on every node$' -- \
	$FC nccl check-log "$MNL/nccl-2.19.3_roce-2hca_dgxh100.log"
# A bare version line of 2.17.1 and a process (pid 4242) worded as 2.19-2.20.
printf '%s\n' "NCCL version 2.17.1+cuda12.0" \
	"hx:4242:4242 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" \
	>"$MCK/era.log"
expect "check-log: version 2.17.1, pid 4242 worded as 2.19 - 2.20" 0 \
	'^  - mixed NCCL builds: the log prints NCCL version 2.17.1 but host hx \(pid 4242\) uses the wording of NCCL 2.19 - 2.20 \("NET/Plugin : dlerror="\); install one NCCL version on every node$' -- \
	$FC nccl check-log "$MCK/era.log"
# 2.4's per-GPU distance lines to 3 HCAs: GPUs 0 and 2 are PHB from their
# nearest, GPU 1 PIX (not named).
{
	echo "NCCL version 2.4.8+cuda10.1"
	echo "h1:5:5 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB ; OOB ib0:10.0.0.1<0>"
	echo "h1:5:7 [0] NCCL INFO CUDA Dev 0[0], IB NIC distance :  SYS SYS PHB"
	echo "h1:5:8 [1] NCCL INFO CUDA Dev 1[1], IB NIC distance :  PIX SYS SYS"
	echo "h1:5:9 [2] NCCL INFO CUDA Dev 2[2], IB NIC distance :  SYS PHB SYS"
} >"$MCK/dist.log"
expect "check-log: GPUs 0,2 PHB from the nearest of 3 IB HCAs" 0 \
	'^  - GPUs 0,2 on h1 are at distance PHB from the nearest of its 3 IB HCAs \(through the CPU root complex\)' -- \
	$FC nccl check-log "$MCK/dist.log"
# Real: 16 ranks on 2 hosts of 8 GPUs and 1 listed HCA; the topology of
# such a node (--topo) has 8 HCAs, 7 of them not listed.
expect "check-log: 8 GPUs on 1 HCA, 1 other host, 7 HCAs unused" 0 \
	'^  - on gpu-a02 \(1 other host alike\) at least 8 GPUs share 1 listed HCA \(mlx5_0\): 8 GPUs per HCA, so each GPU gets 1/8 \(13%\) of one HCA.s bandwidth between nodes when all send at once; the node.s topology \(--topo\) has 7 more HCAs \(mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7\) that NCCL does not list, so NCCL is not using them' -- \
	$FC nccl check-log tests/data/nccl/logs/nccl-2.19.3_8gpu-1hca_srun.log --topo $MTD/topo-8gpu-8hca.json
# 3 hosts of 7 GPUs on 2 listed HCAs: 7 > 2 x 2, up to 4 GPUs an HCA and
# 2/7 of an HCA a GPU; the first host named, the other 2 counted.
for h in 1 2 3; do
	echo "s$h:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.$h<0>"
	for g in 0 1 2 3 4 5 6; do
		echo "s$h:1$g:1$g [$g] NCCL INFO comm 0x5 rank $(((h - 1) * 7 + g)) nRanks 21 nNodes 3 localRanks 7 localRank $g MNNVL 0"
	done
	echo "s$h:10:10 [0] NCCL INFO Channel 00/0 : $(((h - 1) * 7)) -> $((h % 3 * 7)) [send] via NET/IB/0/GDRDMA"
done >"$MCK/share3.log"
expect "check-log: 7 GPUs on 2 HCAs, 2 other hosts alike" 0 \
	'^  - on s1 \(2 other hosts alike\) at least 7 GPUs share 2 listed HCAs \(mlx5_0,mlx5_1\): up to 4 GPUs per HCA, so each GPU gets 2/7 \(29%\) of one HCA.s bandwidth' -- \
	$FC nccl check-log "$MCK/share3.log"
# --topo of 8 GPUs and 8 HCAs; rank r on n1 is GPUr, bus ids of the topology.
MCKB=(18000 2a000 3a000 5d000 9a000 ab000 ba000 db000)
mck_ranks() {
	echo "n1:5:6 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB ib0:10.0.0.1<0>"
	for r in $(seq 0 $(($1 - 1))); do
		echo "n1:5:6 [$r] NCCL INFO comm 0x1 rank $r nranks 16 cudaDev $r nvmlDev $r busId ${MCKB[r]} commId 0x2 - Init START"
	done
}
# Ranks 0-7 each on the HCA of the next GPU: 6 named, 2 counted; with 7
# ranks, 1 counted (its own noun and verb).
for n in 7 8; do
	{
		mck_ranks $n
		for r in $(seq 0 $((n - 1))); do
			echo "n1:5:6 [$r] NCCL INFO Channel 0$r/1 : $r[$r] -> $((r + 8))[$r] [send] via NET/IB/$(((r + 1) % 8))/GDRDMA"
		done
	} >"$MCK/far$n.log"
done
expect "check-log --topo: rank 5 on mlx5_6, channel 5, nearest mlx5_5" 0 \
	'^  - rank 5 \(n1, GPU5\) moves data on mlx5_6 \(channel 5\) but its nearest HCA is mlx5_5 \(--topo\): traffic crosses PCIe bridges or the CPU; NCCL lists it' -- \
	$FC nccl check-log "$MCK/far8.log" --topo $MTD/topo-8gpu-8hca.json
expect "check-log --topo: 2 more ranks past the 6 named" 0 \
	'^  - 2 more ranks use an HCA that is not their nearest$' -- \
	$FC nccl check-log "$MCK/far8.log" --topo $MTD/topo-8gpu-8hca.json
expect "check-log --topo: 1 more rank past the 6 named" 0 \
	'^  - 1 more rank uses an HCA that is not its nearest$' -- \
	$FC nccl check-log "$MCK/far7.log" --topo $MTD/topo-8gpu-8hca.json
# PXN only: rank r sends through rank r+3 on the HCA of GPU r+5 (mod 8),
# local to neither: 6 named, 2 counted; the rails table says each route.
{
	mck_ranks 8
	for r in 0 1 2 3 4 5 6 7; do
		echo "n1:5:6 [$r] NCCL INFO Channel 03/1 : $r[$r] -> $((r + 8))[$r] [send] via NET/IB/$(((r + 5) % 8))($(((r + 3) % 8)))/GDRDMA"
	done
} >"$MCK/pxn.log"
expect "check-log --topo: rank 4 sends by PXN through rank 7 on mlx5_1" 0 \
	'^  - rank 4 \(GPU4\) sends by PXN through rank 7, whose HCA mlx5_1 is not rail-local to either GPU \(--topo\)' -- \
	$FC nccl check-log "$MCK/pxn.log" --topo $MTD/topo-8gpu-8hca.json
expect "check-log --topo: 2 more PXN routes past the 6 named" 0 \
	'^  - 2 more PXN routes on HCAs local to neither GPU$' -- \
	$FC nccl check-log "$MCK/pxn.log" --topo $MTD/topo-8gpu-8hca.json
expect "check-log --topo: the rails table, rank 5 via rank 0" 0 \
	'^  5     n1    GPU5  mlx5_5          -          -      mlx5_2 via rank 0$' -- \
	$FC nccl check-log "$MCK/pxn.log" --topo $MTD/topo-8gpu-8hca.json
# Every NET channel of that log goes through PXN: the log has NET channel
# lines (the old code said it had none).
expect_none "check-log --topo: PXN channels are NET channel lines" 0 'has no NET channel lines' -- \
	$FC nccl check-log "$MCK/pxn.log" --topo $MTD/topo-8gpu-8hca.json
# 16387 hosts: the 3 past 16384 (nccllog_int.h NCL_MAX_HOSTS) gave 6 lines.
awk 'BEGIN { for (i = 1; i <= 16387; i++) { print "h" i ":1:1 [0] NCCL INFO NET/IB : No device found."
	if (i > 16384) print "h" i ":1:1 [0] NCCL INFO Using network Socket" } }' >"$MCK/hosts.log"
expect "check-log: 6 lines of the hosts past 16384 not read" 0 \
	'^  - the log names more than 16384 hosts: 6 NCCL lines of the hosts past that were not read; check the log per job or per group of nodes$' -- \
	$FC nccl check-log "$MCK/hosts.log"

# ---- preflight: why a node could not be probed (cmd_preflight.c probe_why) ----
# Stand-in probes through --launcher local, and a stand-in srun on PATH that
# refuses the node: each names its own figure (an exit 4, a 3 s --timeout,
# srun's exit 5, the 1 MiB bound of a probe's output, PF_OUT_MAX).
mkdir -p "$MCK/bin"
printf '#!/bin/sh\necho "preflight-probe: cannot read /sys/class/infiniband" >&2\nexit 4\n' >"$MCK/exit4.sh"
printf '#!/bin/sh\necho "waiting for the GPU driver" >&2\nsleep 30\n' >"$MCK/hang.sh"
printf '#!/bin/sh\nyes x | head -c 1100000\n' >"$MCK/big.sh"
printf '#!/bin/sh\necho "srun: error: Unable to allocate resources: Invalid node name specified" >&2\nexit 5\n' >"$MCK/bin/srun"
chmod +x "$MCK"/*.sh "$MCK/bin/srun"
expect "preflight: the probe exited 4, its last words" 3 \
	'nodeA: could not be probed: the probe exited 4: preflight-probe: cannot read /sys/class/infiniband$' -- \
	$FC preflight nodeA --launcher local --worker-cmd "$MCK/exit4.sh"
expect "preflight: no answer within 3 s, what it said" 3 \
	'nodeA: could not be probed: no answer within 3 s \(--timeout\): the node or its fabcheck hangs; it said: waiting for the GPU driver$' -- \
	$FC preflight nodeA --launcher local --worker-cmd "$MCK/hang.sh" --timeout 3
expect "preflight: a probe past 1 MiB of output" 3 \
	'nodeA: could not be probed: the probe wrote more than 1 MiB; its output was not read$' -- \
	$FC preflight nodeA --launcher local --worker-cmd "$MCK/big.sh"
expect "preflight: srun exit 5 for nodeC" 3 \
	"nodeC: could not be probed: srun failed \(exit 5: srun: error: Unable to allocate resources: Invalid node name specified\): check 'srun --nodelist=nodeC -N1 -n1 true' and SLURM_CONF$" -- \
	env PATH="$MCK/bin:$PATH" $FC preflight nodeC --launcher slurm
# ---- nccl run, nccl-worker, nccl env -----------------------------------------
# The stand-ins of cases_ncclrun.sh (tests/gdr/fakecuda.c, tests/ncclrun/
# fakenccl.c), built into this file's folder; ranks meet under MCK/meet.
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$MCK/libcuda.so" tests/gdr/fakecuda.c &&
	${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$MCK/libnccl.so" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libcuda / libnccl stand-ins"
mkdir -p "$MCK/meet" "$MCK/tmp"
MCKF="env FAKENCCL_DIR=$MCK/meet TMPDIR=$MCK/tmp FAKECUDA_BUSES=3b,3c FABCHECK_LIBCUDA=$MCK/libcuda.so FABCHECK_LIBNCCL=$MCK/libnccl.so"
# 2 nodes x 3 GPUs where the driver sees 1: rank 5 is GPU 2 of the second.
expect "nccl run: GPU 2 of rank 5 where the driver sees 1 GPU" 3 \
	'^  - 127.0.0.1 \(GPU 2\): GPU 2 is asked for \(rank 5; --gpus-per-node\) but the CUDA driver sees 1 GPU here; lower --gpus-per-node or check CUDA_VISIBLE_DEVICES$' -- \
	$MCKF FAKECUDA_GPUS=1 $FC nccl run --launcher local -g 3 -e 4K localhost 127.0.0.1
expect "nccl run: NCCL error 3 of rank 1 of 2" 1 \
	'^  - localhost \(GPU 1\): ncclCommInitRank \(rank 1 of 2\) failed: internal error - please report this issue to the NCCL developers \(NCCL error 3\); NCCL said: fake: bootstrap could not reach rank 0 \(connection refused\)$' -- \
	$MCKF FAKENCCL=initfail $FC nccl run --launcher local -g 2 -e 4K localhost
expect "nccl run: cuMemcpyDtoH on GPU 1 (error 700)" 1 \
	'^  - localhost \(GPU 1\): cuMemcpyDtoH on GPU 1 failed: CUDA_ERROR_ILLEGAL_ADDRESS \(700\): an illegal memory access was encountered$' -- \
	$MCKF FAKECUDA=dtohfail $FC nccl run --launcher local -g 2 -e 4K localhost
# A worker that says one line and is silent for 8 s: with --timeout 1 the
# controller waits 1 s and 5 s of grace (nccl_run.h NCR_GRACE) and says so;
# the old code named the 1 s it then waited for last words instead.
printf '#!/bin/sh\necho "loading NCCL" >&2\nexec sleep 8\n' >"$MCK/silent.sh"
chmod +x "$MCK/silent.sh"
expect "nccl run: silent for 6 s (--timeout 1 s, then 5 s)" 3 \
	"^  - rank 0 on localhost: no message from the worker for 6 s \(--timeout 1 s, then 5 s for the worker's own report\): the node or its fabcheck hangs; rerun with -v to see its log; it said: loading NCCL$" -- \
	$FC nccl run --launcher local --worker-cmd "$MCK/silent.sh" --timeout 1 localhost
# The worker's init with a unique id of 4 hex digits, not 2 x 128.
expect "nccl-worker: a unique id that is not 256 hex digits" 3 \
	"error: the controller's unique id is not 256 hex digits\$" -- \
	sh -c "printf '%s\\n' '{\"v\":1,\"seq\":1,\"type\":\"hello\"}' \
		'{\"v\":1,\"seq\":2,\"type\":\"setup\",\"rank\":0,\"nranks\":1,\"gpu\":0,\"want_topo\":false,\"op\":\"all_reduce\",\"min_bytes\":1024,\"max_bytes\":4096,\"factor\":2,\"iters\":1,\"warmup\":0,\"timeout\":10}' \
		'{\"v\":1,\"seq\":3,\"type\":\"init\",\"unique_id\":\"abc1\"}' | $MCKF $FC nccl-worker"
# nccl env: the shipped list holds 198 names (the quoted NCCL_ names of
# checks/nccl/env/ncclenv_names.c: 2.28.9's, then 2.31.2's newer ones).
expect "nccl env: the shipped list is the 198 names of ncclenv_names.c" 0 '^198$' -- \
	sh -c "grep -o '\"NCCL_[A-Z0-9_]*\"' checks/nccl/env/ncclenv_names.c | sort -u | wc -l"
echo "NCCL_IB_DISABLE=1" >"$MCK/ibdis.env"
expect "nccl env --shipped: 198 known names, NCCL 2.28.9 and 2.31.2" 0 \
	'^known names: 198 from the list shipped with fabcheck \(NCCL 2.28.9, plus names of 2.31.2\)$' -- \
	$FC nccl env --file "$MCK/ibdis.env" --no-host --shipped
# 3 RDMA devices under a recorded sysfs root: NCCL_IB_DISABLE=1 sends over sockets.
mkdir -p "$MCK/sys/class/infiniband/mlx5_0" "$MCK/sys/class/infiniband/mlx5_1" \
	"$MCK/sys/class/infiniband/mlx5_4" "$MCK/sys/class/net"
expect "nccl env: 3 RDMA devices and NCCL_IB_DISABLE=1" 1 \
	'^  - NCCL_IB_DISABLE=1 \(line 1\): this node has 3 RDMA devices \(mlx5_0, ...\) but NCCL_IB_DISABLE=1 makes NCCL send over TCP sockets: drop it unless that is the point$' -- \
	$FC nccl env --file "$MCK/ibdis.env" --sysfs "$MCK/sys"
rm -rf "$MCK"
