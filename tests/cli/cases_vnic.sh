# NCCL's virtual NICs in the GPU-to-HCA model (topo/pcitopo_vnic.c; issue 37
# item 2), sourced by tests/cli/run.sh. A recorded tree (tests/topo/mksysfs.sh
# h100dual): one dual-port card, 2 x 200G on functions .0 and .1 (mlx5_0,
# mlx5_1), under GPU0's Gen5 switch; 400G mlx5_2 under GPU1's switch (socket
# 0), 400G mlx5_3 under GPU2's (socket 1). The release comes from the
# libnccl.so.2 stand-in (tests/ncclrun/fakenccl.c). Expectations worked from
# NCCL's rules, read at the tags:
#   the PCIe links are Gen5 x16, 48 GB/s (topo.cc ncclTopoAddPci); one 200G
#   port is a 25 GB/s NET link, a 400G port or the fused pair 50 (topo.cc
#   ncclTopoAddNet: speed / 8000), so a path is 25 or 48 GB/s.
#   Unfused (up to 2.19.4; 2.22.3-2.23.4 here, where the single-port mlx5_2
#   and mlx5_3 meet the dual-port card: net_ib.cc "a mix of single and
#   multiple-port NICs"; NCCL_IB_MERGE_NICS=0; NCCL_NET_MERGE_LEVEL=LOC;
#   NCCL_TOPO_DUMP_FILE): GPU0's best bandwidth is 48 to mlx5_2 (PHB, the
#   other host bridge of its socket) and mlx5_3 (SYS); PHB wins
#   (ncclTopoGetLocal), and no GPU gets the card's ports: NCCL_IB_HCA is
#   =mlx5_2,mlx5_3.
#   Fused (2.20.3-2.21.5 by the IB plugin, net_ib.cc ncclIbFindMatchingDev;
#   2.24.3+ by topo.cc ncclTopoAutoMerge at PORT): mlx5_0+mlx5_1 is one 400G
#   NIC at 48 GB/s and PIX: GPU0's; NCCL_IB_HCA names all four ports.
VN=$(mktemp -d /tmp/fabcheck-cli-vnic.XXXXXX)
VNL=$VN/libnccl.so.2
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$VNL" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libnccl stand-in"
tests/topo/mksysfs.sh "$VN/t" h100dual || echo "FAIL: cannot write the h100dual tree"
FABCHECK_SYSFS=$VN/t $FC capture -o "$VN/cap" >/dev/null 2>&1 || echo "FAIL: cannot capture the h100dual tree"

# vn CODE [VAR=VALUE...]: GPU0's NIC and path, the NCCL_IB_HCA advice, and
# why NCCL fuses ports or not, under release CODE.
vn() {
	local code=$1
	shift
	env FABCHECK_LIBNCCL="$VNL" FAKENCCL_VERSION="$code" "$@" $FC topo --sysfs "$VN/t" --json |
		jq -r '[.gpus[0].nccl_nic, .gpus[0].nccl_path, (.recommendations[] | select(.env == "NCCL_IB_HCA") | .value), "|", .nccl_rules.vnic_rule] | join(" ")'
}
UNFUSED='^mlx5_2 PHB =mlx5_2,mlx5_3 \| '
FUSED='^mlx5_0\+mlx5_1 PIX =mlx5_0,mlx5_1,mlx5_2,mlx5_3 \| '

expect "vnic 2.19.3: every port its own device, GPU0 on the 400G PHB HCA" 0 \
	"${UNFUSED}NCCL before 2.20.3 fuses no ports" -- vn 21903
expect "vnic 2.20.3: the IB plugin merges the card's ports, GPU0's PIX NIC" 0 \
	"${FUSED}NCCL 2.20.3-2.23.4's IB plugin fuses the ports of one card" -- vn 22003
expect "vnic 2.23.4: a mix of single- and dual-port cards, none merged" 0 \
	"${UNFUSED}NCCL 2.22.3-2.23.4 fuses no ports where single- and multi-port cards meet" -- vn 22304
expect "vnic 2.24.3: NCCL_NET_MERGE_LEVEL PORT fuses them" 0 \
	"${FUSED}NCCL 2.24.3\+ fuses the ports of one card \(topo.cc ncclTopoMakeVNics" -- vn 22403
expect "vnic 2.30.7: fused" 0 "${FUSED}NCCL 2.24.3\+ fuses" -- vn 23007
expect "vnic 2.20.3 with NCCL_IB_MERGE_NICS=0: none" 0 \
	"${UNFUSED}NCCL_IB_MERGE_NICS=0: no ports fused" -- vn 22003 NCCL_IB_MERGE_NICS=0
expect "vnic 2.25.1 with NCCL_IB_MERGE_NICS=0: NCCL stops at init, said" 0 \
	"${UNFUSED}NCCL 2.24.3-2.25.1 stops at init: it fuses mlx5_0\+mlx5_1, which the IB plugin refuses \(NCCL_IB_MERGE_NICS=0" -- \
	vn 22501 NCCL_IB_MERGE_NICS=0
expect "vnic 2.26.2 with NCCL_IB_MERGE_NICS=0: the ports kept apart" 0 \
	"${UNFUSED}NCCL keeps mlx5_0 and mlx5_1 apart: the IB plugin refuses to fuse them \(NCCL_IB_MERGE_NICS=0" -- \
	vn 22602 NCCL_IB_MERGE_NICS=0
expect "vnic 2.30.7 with NCCL_NET_MERGE_LEVEL=LOC: none" 0 \
	"${UNFUSED}NCCL_NET_MERGE_LEVEL=LOC: no ports fused" -- vn 23007 NCCL_NET_MERGE_LEVEL=LOC
expect "vnic 2.30.7 with NCCL_NET_MERGE_LEVEL=port (no such level): LOC" 0 \
	"${UNFUSED}NCCL_NET_MERGE_LEVEL=port names no level, which NCCL reads as LOC" -- \
	vn 23007 NCCL_NET_MERGE_LEVEL=port
expect "vnic 2.30.7 with NCCL_TOPO_DUMP_FILE: physical ports" 0 \
	"${UNFUSED}NCCL_TOPO_DUMP_FILE is set" -- vn 23007 NCCL_TOPO_DUMP_FILE=/dev/null
expect "vnic: each port names its virtual NIC and GPU" 0 '^mlx5_0\+mlx5_1 GPU0 mlx5_0\+mlx5_1 GPU0 50 400000$' -- sh -c \
	"env FABCHECK_LIBNCCL=$VNL FAKENCCL_VERSION=23007 $FC topo --sysfs $VN/t --json | jq -r '[(.nics[] | select(.name == \"mlx5_0\" or .name == \"mlx5_1\") | .nccl_name, .nccl_gpu), (.nccl_rules.vnics[0] | (.mbps / 8000), .mbps)] | map(tostring) | join(\" \")'"
expect "vnic: topo's text names the virtual NIC" 0 \
	'^NCCL virtual NICs: mlx5_0\+mlx5_1 \(400 Gb/s\): NCCL 2.24.3\+ fuses the ports of one card' -- \
	env FABCHECK_LIBNCCL="$VNL" FAKENCCL_VERSION=23007 $FC topo --sysfs "$VN/t"
expect "vnic: NCCL_IB_HCA says why both ports are listed" 0 \
	'NCCL fuses the ports of one card into one NIC, so each is listed: mlx5_0\+mlx5_1' -- \
	env FABCHECK_LIBNCCL="$VNL" FAKENCCL_VERSION=23007 $FC topo --sysfs "$VN/t"
expect "vnic: gpu-check --from names the virtual NIC its HCA is a port of" 0 \
	"GPU 0 \(0000:03:00.0\) and mlx5_0 \(a port of NCCL's virtual NIC mlx5_0\+mlx5_1\): PIX" -- \
	env FABCHECK_LIBNCCL="$VNL" FAKENCCL_VERSION=23007 $FC gpu-check --from "$VN/cap" --gpu 0
expect "vnic: gpu-check --from under 2.19.3 pairs GPU0 with mlx5_2" 0 '^mlx5_2 mlx5_2 NODE$' -- sh -c \
	"env FABCHECK_LIBNCCL=$VNL FAKENCCL_VERSION=21903 $FC gpu-check --from $VN/cap --gpu 0 --json | jq -r '[.gpu.hca, .gpu.nccl_nic, .gpu.distance] | join(\" \")'"
