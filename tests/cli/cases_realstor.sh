# Storage ports on a GPU's PCIe switch, on a real node (issue 37 item 2),
# sourced by tests/cli/run.sh. kvcache-ai/Mooncake#2039 posts one node's
# `nvidia-smi topo -m` (tests/real/topo/gh-mooncake-2039_*) and its `ibstat`
# (tests/real/ibv/gh-mooncake-2039_*): 8 GPUs on NV18, a 400G InfiniBand
# ConnectX-7 (CA type MT4129, Rate 400) at PIX to each GPU, and on the
# switches of GPU0 and GPU4 a dual-port ConnectX-6 Dx each (MT4125, Ethernet,
# one System image GUID per card): mlx5_1 and mlx5_2 Down/Disabled, mlx5_7
# and mlx5_8 Active at 100. The table alone ties GPU0 with mlx5_0, mlx5_1,
# mlx5_2 and GPU4 with mlx5_6, mlx5_7, mlx5_8 (all PIX). tests/topo/smi2sysfs.py
# writes the tree with the ibstat's states, rates and link layers, each
# card's ports as functions of one device, and the parts' PCIe links.
#
# Expectations, worked from the two captures by NCCL's rules (src/graph/
# topo.cc ncclTopoGetLocal: the network devices with the highest path
# bandwidth, then the lowest path type; net_ib: only active ports are
# devices; 2.20.3+ a card's ports fuse into one NIC of both speeds,
# topo/pcitopo_vnic.c): GPU0 has one device at PIX, mlx5_0. GPU4: mlx5_6 at
# min(Gen5 x16 48 GB/s, 400/8 = 50) = 48 GB/s against mlx5_7, mlx5_8 at
# min(Gen4 x16 24, 100/8 = 12.5) = 12.5 each, or fused at min(24, 25) = 24:
# mlx5_6 under every release. Every other GPU: its one PIX HCA. NCCL_IB_HCA:
# the eight 400G HCAs, the CX-6 Dx ports left out (mlx5_7, mlx5_8 given no
# GPU; mlx5_1, mlx5_2 no active port). Operators of a node of the same
# layout and names set exactly that list (tests/real/SOURCES.tsv, search
# index file 53226581302: NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,
# mlx5_9,mlx5_10,mlx5_11). Guard: fabcheck gave these answers before the
# tree carried the captures' speeds (the model was right; this is the first
# real capture that shows it).
RS=$(mktemp -d /tmp/fabcheck-cli-realstor.XXXXXX)
RSN=$RS/libnccl.so.2
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$RSN" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libnccl stand-in"
RS_TOPO=$(ls tests/real/topo/gh-mooncake-2039_*.expect.json)
RS_IBSTAT=$(ls tests/real/ibv/gh-mooncake-2039_*.txt)
tests/topo/smi2sysfs.py "$RS_TOPO" "$RS/t" "$RS_IBSTAT" || echo "FAIL: no tree of the Mooncake#2039 node"
FABCHECK_SYSFS=$RS/t env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent \
	$FC capture -o "$RS/cap" >/dev/null 2>&1
RS_PICK='mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11'
RS_HCA='=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11'

# rs_topo CODE: topo --sysfs under that release ("none": no libnccl, the
# newest rules): each GPU's nccl_nic in order, then NCCL_IB_HCA, one line.
rs_topo() {
	local e="env FABCHECK_LIBNCCL=$RSN FAKENCCL_VERSION=$1"
	[ "$1" = none ] && e="env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent"
	$e $FC topo --sysfs "$RS/t" --json |
		jq -r '[.gpus[].nccl_nic] + [.recommendations[] | select(.env == "NCCL_IB_HCA") | .value] | join(" ")'
}

# The tree's GPU-NIC cells are the capture's (a wrong tree cannot pass).
rs_cells() {
	env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent $FC topo --sysfs "$RS/t" --json |
		jq -c --slurpfile e "$RS_TOPO" '[.matrix | to_entries[] | select(.key | startswith("GPU")) |
			.key as $g | .value | to_entries[] | select(.key | startswith("NIC")) |
			select($e[0].cells["\($g),\(.key)"] != .value) | "\($g),\(.key)"]'
}
expect "real storage ports: the tree has the capture's 96 GPU-NIC cells" 0 '^\[\]$' -- rs_cells

for rel in none 21903 22003 22304 22403 23007; do
	expect "real storage ports, NCCL $rel: each GPU its 400G HCA, the CX-6 Dx ports never" 0 \
		"^$RS_PICK $RS_HCA\$" -- rs_topo "$rel"
done
expect "real storage ports: the fused CX-6 Dx is a 200G NIC (2.30.7)" 0 '^mlx5_7\+mlx5_8 200000$' -- \
	sh -c "env FABCHECK_LIBNCCL=$RSN FAKENCCL_VERSION=23007 $FC topo --sysfs $RS/t --json |
		jq -r '.nccl_rules.vnics[] | \"\(.name) \(.mbps)\"'"
for f in 'mlx5_7, mlx5_8: NCCL.s topology search gives it no GPU' \
	'mlx5_1,mlx5_2: no active port, so NCCL does not list it'; do
	expect "real storage ports: said: ${f%%,*}" 0 "^  - $f" -- \
		env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent $FC topo --sysfs "$RS/t"
done

# gpu-check --from a capture of the tree: GPU0 and GPU4 (the switches with
# the CX-6 Dx cards) pair with their 400G HCA.
rs_gpucheck() {
	for g in 0 1 2 3 4 5 6 7; do
		env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent \
			$FC gpu-check --from "$RS/cap" --gpu "$g" --json 2>/dev/null | jq -r '.gpu.hca // "none"'
	done | paste -sd' '
}
expect "real storage ports: gpu-check --from pairs each GPU with its 400G HCA" 0 "^$RS_PICK\$" -- rs_gpucheck
