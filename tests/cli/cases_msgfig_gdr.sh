# Issue 39 item 5 for gdr/ and topo/: messages with figures fed figures known
# beforehand and checked whole where they are printed (sourced by
# tests/cli/run.sh). GPU messages run on the stand-in libcuda of the tests
# (tests/gdr/fakecuda.c, built here into this file's own folder), nvidia-smi
# on a stand-in put first on PATH.
MGD=$(mktemp -d /tmp/fabcheck-cli-msgfig-gdr.XXXXXX)
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$MGD/libfakecuda.so" tests/gdr/fakecuda.c ||
	echo "FAIL: cannot build the fake CUDA driver library"
mkdir -p "$MGD/sys" "$MGD/bin"

# gpu-check on GPU 2 of 3 (the stand-in's buses 3b, 86, 87) with a 5 MiB
# buffer: a blank line, then the GPU's index, bus id and size.
MGD_BLOCK='
GPU 2 (0000:87:00.0), 5 MiB buffer:'
expect "gpu-check: GPU 2 of 3, 0000:87:00.0, 5 MiB, after a blank line" 0 '^same$' -- sh -c \
	"env FABCHECK_LIBCUDA='$MGD/libfakecuda.so' FABCHECK_SYSFS='$MGD/sys' FAKECUDA_GPUS=3 \
	$FC gpu-check -s 5M -n 1 --gpu 2 2>&1 | grep -B1 'buffer:\$' | { [ \"\$(cat)\" = '$MGD_BLOCK' ] && echo same || echo differs; }"

# topo on this host (no GPU, no HCA) with an nvidia-smi that prints a line
# and exits 6: the exit said, NVLink left unknown.
printf '#!/bin/sh\necho "        GPU0"\nexit 6\n' >"$MGD/bin/nvidia-smi"
chmod +x "$MGD/bin/nvidia-smi"
expect "topo: nvidia-smi topo -m exits 6" 3 '^fabcheck: info: nvidia-smi topo -m failed \(exit 6\); NVLink left unknown$' -- \
	env PATH="$MGD/bin:$PATH" $FC -v topo
# an nvidia-smi that never answers: topo waits its 20 s (cmd_topo.c
# NVSMI_DEADLINE_S), says so, and goes on without NVLink.
printf '#!/bin/sh\nexec sleep 60\n' >"$MGD/bin/nvidia-smi"
expect "topo: nvidia-smi topo -m silent for 20 s" 3 \
	'^fabcheck: warning: nvidia-smi topo -m gave no answer within 20 s; NVLink left unknown$' -- \
	env PATH="$MGD/bin:$PATH" timeout 60 $FC topo
# topo on real nvidia-smi topo -m captures (../shared/fixtures/topo): the
# NCCL_IB_HCA advice counts the HCAs it lists. 8 x A800 with 9 NICs: 7 are
# some GPU's nearest (NIC0 and NIC7 are no GPU's), listed by matrix label;
# a 2017 8-GPU PCIe node: its one mlx4_0, singular.
MGT=$FABCHECK_SHARED/fixtures/topo
expect "topo: 7 of 9 NICs nearest to a GPU, the 7 listed" 0 \
	"^  NCCL_IB_HCA==NIC1,NIC2,NIC3,NIC4,NIC5,NIC6,NIC8\$" -- \
	$FC topo --nvidia-smi-topo "$MGT/8xa800-nv8_9nic_numa-affinity-no-gpu-numa-id_TRUNCATED.txt"
expect "topo: 7 HCAs nearest to a GPU, the others farther" 0 \
	"^      7 HCAs nearest to a GPU; '=' makes NCCL match these names exactly \(a bare mlx5_1 also takes mlx5_10..mlx5_19\); the others are farther from every GPU; NICn are matrix labels" -- \
	$FC topo --nvidia-smi-topo "$MGT/8xa800-nv8_9nic_numa-affinity-no-gpu-numa-id_TRUNCATED.txt"
expect "topo: 1 HCA nearest to a GPU (mlx4_0)" 0 \
	"^      1 HCA nearest to a GPU; '=' makes NCCL match these names exactly \(a bare mlx5_1 also takes mlx5_10..mlx5_19\)\$" -- \
	$FC topo --nvidia-smi-topo "$MGT/8gpu-pcie_mlx4_0-column_2017_trailing-spaces_TRUNCATED.txt"
# 8 x H100 that a user posted without its NICs: the GPUs counted, no HCA.
expect "topo: 8 GPUs but no RDMA HCA" 0 \
	"^  - 8 GPUs but no RDMA HCA: NCCL will use TCP sockets between nodes; install the HCA driver \(mlx5_ib\) or add an HCA\$" -- \
	$FC topo --nvidia-smi-topo "$MGT/8xh100-nv18_no-nics_gpu-numa-id_legend-truncated.txt"
# Grace: GPUs on C2C (a GPU NUMA ID) whose nearest HCA is at NODE, past
# the CPU (P2C). One GPU: "reaches its"; a GB200-like tree's 4: "reach their".
printf '\tGPU0\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tNODE\tNODE\t0-71\t0\t\t1\nNIC0\tNODE\t X \tPIX\t\t\t\t\nNIC1\tNODE\tPIX\t X \t\t\t\t\n\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n' >"$MGD/gh200.txt"
expect "topo: 1 C2C GPU reaches its nearest HCA" 0 \
	"^      1 GPU reaches its nearest HCA over C2C to the CPU, then its PCIe \(P2C; GPU0 to mlx5_0 is NODE in PCIe terms\): NCCL 2\.27\.3\+ uses GPUDirect RDMA there by default \(NCCL_NET_GDR_C2C=1 is its default\), 2\.26 only with NCCL_NET_GDR_C2C=1, older releases only with NCCL_NET_GDR_LEVEL=PHB\$" -- \
	$FC topo --nvidia-smi-topo "$MGD/gh200.txt"
tests/topo/mksysfs.sh "$MGD/gb200" gb200 >/dev/null || echo "FAIL: cannot write the gb200 tree"
expect "topo: 4 C2C GPUs reach their nearest HCA" 0 \
	"^      4 GPUs reach their nearest HCA over C2C to the CPU, then its PCIe \(P2C; GPU0 to mlx5_0 is NODE in PCIe terms\)" -- \
	env FABCHECK_SYSFS="$MGD/gb200" $FC topo
rm -rf "$MGD"
