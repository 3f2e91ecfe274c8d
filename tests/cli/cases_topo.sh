# Cases for `fabcheck topo` (sourced by tests/cli/run.sh): recorded sysfs
# trees written here by tests/topo/mksysfs.sh, the nvidia-smi fixtures, a
# fake nvidia-smi on PATH, bad paths and options.
TOPO_TMP=$(mktemp -d /tmp/fabcheck-cli-topo.XXXXXX)
for s in dgx hgx split empty; do tests/topo/mksysfs.sh "$TOPO_TMP/$s" $s; done
TF=$FABCHECK_SHARED/fixtures/topo
E=$TOPO_TMP/empty

expect "topo --help" 0 'usage: fabcheck topo' -- $FC topo --help
expect "topo bad option" 2 'usage: fabcheck topo' -- $FC topo --frob
expect "topo extra arg" 2 "unexpected argument 'x'" -- $FC topo x
expect "topo empty --sysfs" 2 '--sysfs: empty path' -- $FC topo --sysfs ''
expect "topo missing --sysfs" 3 'cannot read /nonexistent/bus/pci/devices' -- \
	$FC topo --sysfs /nonexistent
expect "topo missing matrix" 3 "cannot open '/nonexistent.txt'" -- \
	$FC topo --sysfs "$E" --nvidia-smi-topo /nonexistent.txt
expect "topo matrix is a dir" 3 'is a directory' -- $FC topo --sysfs "$E" -t "$TOPO_TMP"
expect "topo not a matrix" 3 "no 'nvidia-smi topo -m' matrix found" -- \
	$FC topo --sysfs "$E" -t "$FABCHECK_SHARED/fixtures/FORMATS.md"
# Nothing to check: no GPU, no HCA, no matrix -> exit 3 with the fix.
expect "topo empty tree" 3 'no NVIDIA GPU .* run on a GPU node' -- $FC topo --sysfs "$E"
expect "topo empty tree json" 3 '"verdict": "fail"' -- $FC topo --json --sysfs "$E"
expect "topo this host" 3 'no NVIDIA GPU' -- env PATH=/usr/bin:/bin $FC topo

# Every fixture parses and reports (the matrix alone: the tree has no GPU).
for f in "$TF"/*.txt; do
	expect "topo fixture $(basename "$f")" 0 '"source": "nvidia-smi"' -- \
		$FC topo --json --sysfs "$E" -t "$f"
done
expect "topo dgx1 islands" 0 'NVLink islands: \{GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7\}' -- \
	$FC topo --sysfs "$E" -t "$TF/dgx1-v100_8gpu_nv1-nv2-cube-mesh_4mlx5-columns_cpu-affinity-only.txt"
expect "topo 4gpu nearest NODE" 0 'GPU2, GPU3: nearest HCA NIC2 is NODE' -- \
	$FC topo --sysfs "$E" -t "$TF/4gpu-4nic_node-sys-pix_nic-rows_legend_nic-legend-truncated.txt"
expect "topo truncated matrix" 0 'matrix is cut short' -- \
	$FC topo --sysfs "$E" -t "$TF/a100-sxm4_nv12_18-mlx5-named-columns_numa-affinity-no-gpu-numa-id_TRUNCATED.txt"
expect "topo matrix on stdin" 0 'NV18' -- \
	bash -c "$FC topo --sysfs '$E' -t - < '$TF/8xh100-nv18_no-nics_gpu-numa-id_legend-truncated.txt'"
expect "topo: 8 GPUs and no HCA, counted (issue 39 item 5)" 0 \
	'8 GPUs but no RDMA HCA: NCCL will use TCP sockets between nodes; install the HCA driver' -- \
	$FC topo --sysfs "$E" -t "$TF/8xh100-nv18_no-nics_gpu-numa-id_legend-truncated.txt"

# What real machines printed (tests/real/topo): every table is read; a GB200's
# all-SYS rows are C2C to its Grace CPU, not "the other socket"; the NUMA list,
# CPU affinity and GPU NUMA ID reach the JSON.
R=tests/real/topo
for f in "$R"/*.txt; do
	expect "topo real $(basename "$f")" 0 '"source": "nvidia-smi"' -- \
		$FC topo --json --sysfs "$E" -t "$f"
done
GB=$R/idx61093033028_4xgb200-nv18_8nic-all-sys_numa-lists.txt
expect "topo real GB200 is C2C" 0 'GPU0, GPU1, GPU2, GPU3: on a C2C link to a Grace CPU' -- \
	$FC topo --sysfs "$E" -t "$GB"
expect "topo real GB200 not the other socket" 0 '^verdict: pass' -- $FC topo --sysfs "$E" -t "$GB"
expect "topo real GB200 json" 0 '"numa_affinity": "1,19-25,27-33", "gpu_numa_id": "26"' -- \
	bash -c "$FC topo --json --sysfs '$E' -t '$GB' | tr -d '\n' | sed 's/  */ /g'"
expect "topo real B300 pasted escape" 0 '"cpu_affinity": "64-127,192-255"' -- \
	$FC topo --json --sysfs "$E" -t "$R/gh-sglang-26039_8xb300-nv18_9nic-pxb_pasted-4m-escape_tabs.txt"

# Recorded trees.
expect "topo dgx degraded link" 0 'mlx5_2 \(0000:85:00.0\) trained at x8 of x16' -- \
	$FC topo --sysfs "$TOPO_TMP/dgx"
expect "topo dgx acs" 0 'ACS redirect is on at bridge 0000:22:00.0' -- \
	$FC topo --sysfs "$TOPO_TMP/dgx"
expect "topo dgx json hca" 0 '"value": "=mlx5_0,mlx5_1,mlx5_2,mlx5_3"' -- \
	$FC topo --json --sysfs "$TOPO_TMP/dgx"
expect "topo dgx json nearest" 0 '"nearest_dist": "PIX"' -- \
	$FC topo --json --sysfs "$TOPO_TMP/dgx"
expect "topo dgx + matrix" 0 '"GPU1": "NV18"' -- \
	$FC topo --json --sysfs "$TOPO_TMP/dgx" \
	-t "$TF/hgx-h100_tab-separated_10nic_nic-rows-trailing-tabs_TRUNCATED.txt"
expect "topo dgx + other host's matrix" 0 'nvidia-smi shows 2 GPUs but sysfs has 8' -- \
	$FC topo --sysfs "$TOPO_TMP/dgx" -t "$TF/2gpu_node_indented-and-line-wrapped-legend_plus-p2p.txt"
expect "topo hgx pass" 0 'verdict: pass' -- $FC topo --sysfs "$TOPO_TMP/hgx"
expect "topo split mtu" 0 'netdev ens1f0 has MTU 1500 B' -- $FC topo --sysfs "$TOPO_TMP/split"
expect "topo split gdr level" 0 'NCCL_NET_GDR_LEVEL=PHB' -- $FC topo --sysfs "$TOPO_TMP/split"
expect "topo split peermem" 0 'modprobe nvidia-peermem' -- $FC topo --sysfs "$TOPO_TMP/split"
expect "topo split gid index" 0 'NCCL_IB_GID_INDEX=3' -- $FC topo --sysfs "$TOPO_TMP/split"

# nvidia-smi found on PATH is run (with a deadline) when --sysfs is not given.
mkdir -p "$TOPO_TMP/bin" "$TOPO_TMP/bad"
printf '#!/bin/sh\ncat "%s"\n' "$TF/4xh100-nv6_4nic-pix_per-gpu-numa_legend-truncated.txt" \
	>"$TOPO_TMP/bin/nvidia-smi"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$TOPO_TMP/bad/nvidia-smi"
chmod +x "$TOPO_TMP/bin/nvidia-smi" "$TOPO_TMP/bad/nvidia-smi"
expect "topo runs nvidia-smi" 0 '"source": "nvidia-smi"' -- \
	env PATH="$TOPO_TMP/bin:/usr/bin:/bin" $FC topo --json
expect "topo nvidia-smi fails" 3 'no NVIDIA GPU' -- \
	env PATH="$TOPO_TMP/bad:/usr/bin:/bin" $FC topo

# Tables wider than the old 64-column limit: every GPU and NIC is kept; past
# the reader's 512 columns the cut is said, in the JSON and as a finding.
wide_check() { # G N: topo on a generated table, then the JSON's counts
	tests/topo/gen_wide.py "$1" "$2" >"$TOPO_TMP/wide.txt"
	$FC topo --json --sysfs "$E" -t "$TOPO_TMP/wide.txt" >"$TOPO_TMP/wide.json"
	local rc=$?
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("exit", sys.argv[2], "gpus", len(d["gpus"]), "nics", len(d["nics"]), "truncated", d["truncated"], "cut", d["columns_cut"], "|", " | ".join(d["findings"]))' "$TOPO_TMP/wide.json" $rc
}
expect "topo 72 columns: every GPU and NIC" 0 'exit [01].*gpus 64 nics 8 truncated False cut 0' -- wide_check 64 8
wide_nearest() { # the nearest NICs of the last GPU of the last table
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["gpus"][-1]["name"], d["gpus"][-1]["nearest_nics"])' "$TOPO_TMP/wide.json"
}
expect "topo 72 columns: nearest NIC from the legend" 0 "^GPU63 \\['mlx5_7'\\]$" -- wide_nearest
expect "topo 308 columns: all kept" 0 'gpus 300 nics 8 truncated False cut 0' -- wide_check 300 8
expect "topo 608 columns: the cut is said" 0 'gpus 512 nics 0 truncated True cut 96 .*96 GPU/NIC columns past the first 512 were not read' -- wide_check 600 8
expect_no_hca_claim() { wide_check 600 8 | grep -c 'no RDMA HCA'; }
expect "topo 608 columns: no false 'no RDMA HCA'" 1 '^0$' -- expect_no_hca_claim
rm -rf "$TOPO_TMP"

# The HCA NCCL gives each GPU and the GPU it gives each HCA (HGX flat switch:
# 4 GPUs and 4 HCAs under one switch; design/nccl-rules.md section 4).
TFLAT=$(mktemp -d)
expect "topo: NCCL's HCA per GPU and GPU per HCA" 0 '^mlx5_10 GPU5 mlx5_2$' -- bash -c \
	"tests/topo/mksysfs.sh $TFLAT flat && $FC topo --sysfs $TFLAT --json | jq -r '.gpus[5].nccl_nic + \" \" + (.nics[] | select(.name==\"mlx5_10\") | .nccl_gpu) + \" \" + .gpus[1].nccl_nic'"
rm -rf "$TFLAT"
# Grace (GB200-like tree: C2C GPUs, HCAs on their Grace's PCIe): P2C, and
# NCCL 2.27.3+'s default GPUDirect there instead of NCCL_NET_GDR_LEVEL=PHB.
TGB=$(mktemp -d)
tests/topo/mksysfs.sh "$TGB/t" gb200
expect "topo: C2C GPU to its Grace's HCA is P2C" 0 'GPU0 +GPU0 +0008:01:00.0 +0 +mlx5_0,mlx5_1 +NODE \(P2C\)' -- \
	$FC topo --sysfs "$TGB/t"
expect "topo: NCCL_NET_GDR_C2C on Grace, not GDR_LEVEL=PHB" 0 '^P2C Default off 1 none$' -- bash -c \
	"$FC topo --sysfs $TGB/t --json | jq -r '[.gpus[0].nccl_path, .gpus[0].nccl_gdr[\">=2.27.3\"], .gpus[0].nccl_gdr[\"<2.26\"], (.recommendations[] | select(.env==\"NCCL_NET_GDR_C2C\") | .value), ([.recommendations[] | select(.env==\"NCCL_NET_GDR_LEVEL\")] | if length == 0 then \"none\" else \"some\" end)] | join(\" \")'"
rm -rf "$TGB"
