# Cases for GPU to HCA as NCCL ranks it (topo/pcitopo_nccl.c), sourced by
# tests/cli/run.sh: recorded trees of tests/topo/mksysfs.sh, the NCCL release
# given by the libnccl.so.2 stand-in (tests/ncclrun/fakenccl.c,
# FAKENCCL_VERSION) through FABCHECK_LIBNCCL, and check-log on a log whose
# HCA list holds 200G storage HCAs. Expectations are worked from NCCL's rules
# in the comments of tests/unit/test_ncclrank.c.
NKR=$(mktemp -d /tmp/fabcheck-cli-ncclrank.XXXXXX)
NKN=$NKR/libnccl.so.2
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$NKN" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libnccl stand-in"
for s in h100stor h100down h100dpu pex; do tests/topo/mksysfs.sh "$NKR/$s" $s; done
V2307="env FABCHECK_LIBNCCL=$NKN FAKENCCL_VERSION=23007"

expect "topo: the NCCL release is said" 0 '^NCCL rules: 2.21.5 \(.*libnccl.so.2 \(ncclGetVersion\)\)$' -- \
	env FABCHECK_LIBNCCL=$NKN FAKENCCL_VERSION=22105 $FC topo --sysfs "$NKR/h100stor"
expect "topo: no NCCL found, the newest rules said" 0 'NCCL rules: 2.30.7 \(no libnccl.so.2 or nccl.h found' -- \
	env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent $FC topo --sysfs "$NKR/h100stor"
# 200G storage HCA on GPU1's switch: 25 GB/s against 48, never a tie
expect "topo: storage HCA on the GPU's switch is not NCCL's pick" 0 '^mlx5_3 PIX mlx5_9 none$' -- sh -c \
	"$V2307 $FC topo --sysfs $NKR/h100stor --json | jq -r '[.gpus[1].nccl_nic, .gpus[1].nccl_path, .gpus[5].nccl_nic, (.nics[] | select(.name==\"mlx5_1\") | .nccl_gpu // \"none\")] | join(\" \")'"
expect "topo: NCCL_IB_HCA leaves storage out" 0 'NCCL_IB_HCA==mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11$' -- \
	$V2307 $FC topo --sysfs "$NKR/h100stor"
expect "topo: NCCL_IB_HCA leaves the DPU port out" 0 'mlx5_12: BlueField DPU port ties with the compute HCAs, so NCCL puts GPU channels on it unless NCCL_IB_HCA leaves it out' -- \
	$V2307 $FC topo --sysfs "$NKR/h100dpu"
expect_none "topo: the DPU port is not advised" 0 'NCCL_IB_HCA=.*mlx5_12' -- \
	$V2307 $FC topo --sysfs "$NKR/h100dpu"
# mlx5_3's port DOWN: GPU1 goes to the 400G HCAs through its CPU; 2.30.7 k = 1 mod 1
expect "topo: an HCA whose port is down is no candidate (2.30.7)" 0 '^mlx5_0 PHB$' -- sh -c \
	"$V2307 $FC topo --sysfs $NKR/h100down --json | jq -r '[.gpus[1].nccl_nic, .gpus[1].nccl_path] | join(\" \")'"
expect "topo: the same under 2.21.5's rule (k = 1)" 0 '^mlx5_4$' -- sh -c \
	"env FABCHECK_LIBNCCL=$NKN FAKENCCL_VERSION=22105 $FC topo --sysfs $NKR/h100down --json | jq -r '.gpus[1].nccl_nic'"
expect "topo: the down HCA is named" 0 'mlx5_3: no active port' -- $V2307 $FC topo --sysfs "$NKR/h100down"
# Broadcom PEX flattened: GPU1 and mlx5_0 in sibling sub-switches are PIX
expect "topo: PEX switch flattened" 0 '^mlx5_1 PIX$' -- sh -c \
	"$V2307 $FC topo --sysfs $NKR/pex --json | jq -r '[.gpus[1].nccl_nic, .gpus[1].nccl_path] | join(\" \")'"

# check-log: 2 x 8 ranks, 8 x 400G compute + 2 x 200G storage HCAs listed.
# The GPUs use the 400G ones: 8 x 400 / 8 x 0.94 = 376 GB/s; 200 is 53%.
{
	for n in 0 1; do for g in 0 1 2 3 4 5 6 7; do
		echo "node$n:10$g:10$g [$g] NCCL INFO comm 0x5 rank $((n * 8 + g)) nRanks 16 nNodes 2 localRanks 8 localRank $g MNNVL 0"
	done; done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [8]mlx5_8:1/IB [9]mlx5_9:1/IB ; OOB ib0:10.0.0.1<0>"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		sp=400000
		case $i in 1 | 7) sp=200000 ;; esac
		echo "node0:100:100 [0] NCCL INFO NET/IB: [$i] mlx5_$i:$i:1/IB provider=Mlx5 speed=$sp context=0x1 pciPath=/sys/devices/pci0000:00/0000:00:01.0/0000:0$i:00.0 ar=0"
	done
	echo "# Collective test starting: all_reduce_perf"
	echo "  8589934592    2147483648     float     sum      -1    47133  100.00  200.00      0    47107  100.00  199.00      0"
} >"$NKR/stor.log"
expect "check-log: storage HCAs do not lower the expectation" 0 "nccl-tests' peak busbw 200.0 GB/s is 53% of the 376.0 GB/s" -- \
	$FC nccl check-log "$NKR/stor.log"
expect "check-log: the HCAs counted are said" 0 'HCAs counted: 8 of the 10 listed, the fastest' -- \
	$FC nccl check-log "$NKR/stor.log"
# with channel lines, the HCAs they use are counted: here 4 of them
{
	cat "$NKR/stor.log"
	for c in 0 1 2 3; do
		echo "node0:100:100 [$c] NCCL INFO Channel 0$c/0 : $((c + 8))[$c] -> $c[$c] [receive] via NET/IB/$((c * 2))/GDRDMA"
	done
} >"$NKR/chan.log"
expect "check-log: the HCAs of the channel lines" 0 'HCAs counted: 4 of the 10 listed, the HCAs its channel lines use' -- \
	$FC nccl check-log "$NKR/chan.log"
# The intra-node expectation: 8 x H100 SXM on one node, published 460-480
# GB/s (nccllog_intra.c); 300 is 65% of 460, 470 is above the floor.
onenode() {
	for g in 0 1 2 3 4 5 6 7; do
		echo "node0:10$g:10$g [$g] NCCL INFO comm 0x5 rank $g nRanks 8 nNodes 1 localRanks 8 localRank $g MNNVL 0"
	done
	echo "# Collective test starting: all_reduce_perf"
	for g in 0 1 2 3 4 5 6 7; do
		printf '#  Rank %2d Group  0 Pid  58543 on      node0 device  %d [0x%02x] %s\n' $g $g $((24 + g)) "$1"
	done
	echo "  8589934592    2147483648     float     sum      -1    47133  100.00  $2      0    47107  100.00  $2      0"
}
onenode "NVIDIA H100 80GB HBM3" 300.00 >"$NKR/h100slow.log"
onenode "NVIDIA H100 80GB HBM3" 470.00 >"$NKR/h100ok.log"
onenode "NVIDIA B200" 700.00 >"$NKR/b200.log"
expect "check-log: one node below the NVLink figure" 0 "300.0 GB/s on one node is 65% of the 460-480 GB/s published for 8 x NVIDIA H100" -- \
	$FC nccl check-log "$NKR/h100slow.log"
expect_none "check-log: one node at the NVLink figure" 0 'on one node is [0-9]+% of' -- \
	$FC nccl check-log "$NKR/h100ok.log"
expect "check-log: the NVLink figure is stated" 0 'inside a node: 8 x NVIDIA H100 80GB HBM3 over NVLink/NVSwitch, ~460-480 GB/s' -- \
	$FC nccl check-log "$NKR/h100ok.log"
expect "check-log: B200 has no published figure" 0 'inside a node: 8 x NVIDIA B200 over NVLink/NVSwitch: not known \(no published' -- \
	$FC nccl check-log "$NKR/b200.log"
# nccl run with nodeB's rxe1 down (tests/data/rails/down-2rail, each node
# its own port list under the stand-in srun): the failure names nodeB and
# its port, and nodeA's two rails stay in NCCL_IB_HCA (the previous code
# matched one rail for both nodes and named nothing).
mkdir -p "$NKR/srun"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$NKR/srun/srun"
NKD=(env PATH="$NKR/srun:$PATH" FAKE_DEVICES_DIR=tests/data/rails/down-2rail FAKE_MODE=noise)
expect "nccl run: one node's port down is named as a failure" 3 'nodeB: port rxe1:1 is down: NCCL lists only active ports' -- \
	"${NKD[@]}" $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5
expect "nccl run: the healthy nodes keep both rails" 3 'NCCL_IB_HCA==rxe0:1,rxe1:1 \(the 2 rails' -- \
	"${NKD[@]}" $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5
# nccl run says which ports it left out, with the rule, and that rails were
# matched by position ("assumed"), in its text (stdout, not only stderr's
# progress) and in its JSON, as matrix and pair do (issue 39 item 4).
NKS=(env PATH="$NKR/srun:$PATH" FAKE_DEVICES=tests/data/rails/devices-2rail-storage.json FAKE_MODE=noise)
expect "nccl run: the storage port left out, with its rule, in the text" 0 \
	'^rails: rxe2 left out on 2 nodes \(nodeA and 1 other\): its rate 10 Gb/s differs from the 2\.5 Gb/s' -- \
	bash -c "$(printf '%q ' "${NKS[@]}") $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 2>/dev/null; exit 0"
expect "nccl run: the note, then the findings, no two blank lines" 0 '^0$' -- \
	bash -c "$(printf '%q ' "${NKS[@]}") $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 2>/dev/null |
		awk 'p == \"\" && \$0 == \"\" && NR > 1 { d++ } { p = \$0 } END { print d + 0 }'"
expect "nccl run: the storage port left out, in the JSON; nothing assumed" 0 '^1 rxe2 left out on 2 nodes .* null$' -- \
	bash -c "$(printf '%q ' "${NKS[@]}") $FC nccl run nodeA nodeB --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 --json 2>/dev/null |
		jq -r '\"\\(.rail_notes|length) \\(.rail_notes[0]) \\(.rails_assumed)\"'"
# three IB nodes on one subnet manager, switches not read: rails by position
mkdir -p "$NKR/pci"
for i in 0 1 2; do
	jq "{verdict: \"pass\", findings: [], host: .nodes[$i].name, devices: .nodes[$i].devices}" \
		tests/data/rails/ib-one-sm-pci.json >"$NKR/pci/gpu0$((i + 1)).json"
done
NKP=(env PATH="$NKR/srun:$PATH" FAKE_DEVICES_DIR="$NKR/pci" FAKE_MODE=noise)
expect "nccl run: rails assumed from position, in the text" 0 '^rails: rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${NKP[@]}") $FC nccl run gpu01 gpu02 gpu03 --rails mlx5_0,mlx5_1 --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 2>/dev/null; exit 0"
expect "nccl run: rails assumed from position, in the JSON" 0 '^rails assumed from position \(the same NUMA node' -- \
	bash -c "$(printf '%q ' "${NKP[@]}") $FC nccl run gpu01 gpu02 gpu03 --rails mlx5_0,mlx5_1 --launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5 --json 2>/dev/null | jq -r .rails_assumed"
# nccl run on one node of 8 stand-in H100s (FAKECUDA_NAME): the NVLink figure
# is stated and the stand-in's busbw judged against it.
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$NKR/libcuda.so" tests/gdr/fakecuda.c ||
	echo "FAIL: cannot build the libcuda stand-in"
NKC=(env TMPDIR="$NKR" FAKENCCL_DIR="$NKR" FAKECUDA_GPUS=8 FAKECUDA_NAME="NVIDIA H100 80GB HBM3"
	FAKECUDA_BUSES=18,2a,3a,5d,9a,ab,ba,db FABCHECK_LIBCUDA="$NKR/libcuda.so" FABCHECK_LIBNCCL="$NKN")
expect "nccl run: one node judged against the NVLink figure" 0 'GB/s on one node is [0-9]+% of the 460-480 GB/s published for 8 x NVIDIA H100' -- \
	"${NKC[@]}" $FC nccl run --launcher local -g 8 -e 4K localhost
expect "nccl run: the NVLink figure is stated" 0 'inside a node: 8 x NVIDIA H100 80GB HBM3 over NVLink/NVSwitch, ~460-480 GB/s' -- \
	"${NKC[@]}" $FC nccl run --launcher local -g 8 -e 4K localhost
rm -rf "$NKR"
