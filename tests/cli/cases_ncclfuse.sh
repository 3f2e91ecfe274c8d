# nccl check-log's busbw expectation on NCCL's merged and fused NICs (issue
# 37 item 2; checks/nccl/log/nccllog_busbw.c, doc/nccl-versions.md),
# sourced by tests/cli/run.sh. The logs are written in NCCL's own format of
# each release class (the INFO lines of src/transport/net_ib.cc at v2.19.3-1
# and v2.20.3-1, net_ib/init.cc at v2.30.7-1), 2 nodes x 4 GPUs, four
# dual-port cards of 2 x 200G per node (mlx5_0+mlx5_1 ... mlx5_6+mlx5_7).
# The model: busbw = min(NICs, GPUs per node) x NIC rate / 8 x 0.94
# (core/busbw.h); two nodes, ring factor 1.
#   a NIC of two 200G ports: 4 x 400 / 8 x 0.94 = 188.0 GB/s;
#   each port a NIC of its own: 4 (GPUs) x 200 / 8 x 0.94 = 94.0 GB/s.
# The old code counted every port as a rail at a port's rate (94.0), so a
# run at 120 GB/s, 64% of what the fused NICs carry, passed at 128%.
NFU=$(mktemp -d /tmp/fabcheck-cli-ncclfuse.XXXXXX)
# nfu_log VERSION LIST EXTRA CHANNEL_DEVS BUSBW: EXTRA's lines follow each
# node's device list; GPU c's channel runs over the c-th of CHANNEL_DEVS.
nfu_log() {
	local v=$1 list=$2 extra=$3 devs=$4 bw=$5 n g c d
	echo "node0:100:100 [0] NCCL INFO NCCL version $v+cuda12.4"
	for n in 0 1; do for g in 0 1 2 3; do
		echo "node$n:10$g:10$g [$g] NCCL INFO comm 0x5 rank $((n * 4 + g)) nRanks 8 nNodes 2 localRanks 4 localRank $g MNNVL 0"
	done; done
	for n in 0 1; do
		echo "node$n:100:100 [0] NCCL INFO NET/IB : Using $list [RO]; OOB ib0:10.0.0.$((n + 1))<0>"
		[ -z "$extra" ] || sed "s/^/node$n:100:100 [0] NCCL INFO /" "$extra"
	done
	c=0
	for d in $devs; do
		echo "node0:10$c:10$c [$c] NCCL INFO Channel 0$c/0 : $((c + 4))[$c] -> $c[$c] [receive] via NET/IB/$d/GDRDMA"
		echo "node1:10$c:10$c [$c] NCCL INFO Channel 0$c/0 : $c[$c] -> $((c + 4))[$c] [receive] via NET/IB/$d/GDRDMA"
		c=$((c + 1))
	done
	echo "# Collective test starting: all_reduce_perf"
	echo "  8589934592    2147483648     float     sum      -1    47133  100.00  $bw      0    47107  100.00  $bw      0"
}
NFU8="[0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB"
# 2.30.7 (net_ib/init.cc): per-device lines with speed=, the plugin's own
# one-port virtual device of each physical one (ndevs=1, at its index), then
# the four fused NICs from index @1 on; @2 ports listed.
nfu_devs() {
	local i k bus
	for i in $(seq 0 $(($2 - 1))); do
		bus=1$((i / 2)):00.$((i % 2))
		[ "$i" -lt 8 ] || bus=2$i:00.0 # storage: a card of one port
		echo "NET/IB: [$i] mlx5_$i:uverbs$i:1/IB provider=Mlx5 speed=200000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:00:01.0/0000:$bus ar=1 oooRqSize=0"
		echo "NET/IB : Made virtual device [$i] name=mlx5_$i speed=200000 ndevs=1 rail=-1 plane=-1"
	done
	for k in 0 1 2 3; do
		echo "NET/IB : Made virtual device [$(($1 + k))] name=mlx5_$((2 * k))+mlx5_$((2 * k + 1)) speed=400000 ndevs=2 rail=-1 plane=-1"
	done
}
nfu_devs 8 8 >"$NFU/x30"
nfu_log 2.30.7 "$NFU8" "$NFU/x30" "8 9 10 11" 120.00 >"$NFU/v30.log"
expect "check-log 2.30.7: a fused NIC counts once at both ports' speed" 0 \
	"nccl-tests' peak busbw 120.0 GB/s is 64% of the 188.0 GB/s the rails can carry \(4 of 4 NICs per node at 400 Gb/s" -- \
	$FC nccl check-log "$NFU/v30.log"
expect "check-log 2.30.7: the fused NICs are said" 0 \
	"NCCL's NICs of several ports: mlx5_0\+mlx5_1 \(400 Gb/s\), mlx5_2\+mlx5_3 \(400 Gb/s\), mlx5_4\+mlx5_5 \(400 Gb/s\), mlx5_6\+mlx5_7 \(400 Gb/s\)" -- \
	$FC nccl check-log "$NFU/v30.log"
# a one-port virtual device of the plugin fuses nothing: no fused_into
expect "check-log 2.30.7: ndevs=1 devices are the ports themselves" 0 '^8,8,9,9,10,10,11,11 0$' -- sh -c \
	"$FC nccl check-log $NFU/v30.log --json | jq -r '[([.hcas[].net_dev] | map(tostring) | join(\",\")), ([.hcas[] | select(.fused_into == .index)] | length)] | join(\" \")'"
# the same cards with two 200G storage ports listed ([8], [9]; the fused
# NICs are then [10]-[13]), no channel lines: the fastest NET devices are
# the fused NICs (400); neither the storage ports (200) nor the fused
# ports (no NET devices of their own) are counted
nfu_devs 10 10 >"$NFU/x30s"
nfu_log 2.30.7 "$NFU8 [8]mlx5_8:1/IB [9]mlx5_9:1/IB" "$NFU/x30s" "" 120.00 >"$NFU/v30s.log"
expect "check-log 2.30.7: listed storage ports do not lower it" 0 \
	"120.0 GB/s is 64% of the 188.0 GB/s the rails can carry" -- $FC nccl check-log "$NFU/v30s.log"
expect "check-log 2.30.7: NICs counted, the storage ports left" 0 'NICs counted: 4 of the 6 listed, the fastest' -- \
	$FC nccl check-log "$NFU/v30s.log"
# 2.20.3-2.23.4: the IB plugin's merged list, channel lines by merged index,
# no speeds printed (--rail-gbps: each port's rate)
NFU21="[0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]={[2] mlx5_2:1/IB, [3] mlx5_3:1/IB} [2]={[4] mlx5_4:1/IB, [5] mlx5_5:1/IB} [3]={[6] mlx5_6:1/IB, [7] mlx5_7:1/IB}"
nfu_log 2.21.5 "$NFU21" "" "0 1 2 3" 120.00 >"$NFU/v21.log"
expect "check-log 2.21.5: a merged NIC counts once at both ports' rate" 0 \
	"120.0 GB/s is 64% of the 188.0 GB/s the rails can carry \(4 of 4 NICs per node at 400 Gb/s" -- \
	$FC nccl check-log "$NFU/v21.log" --rail-gbps 200
expect_none "check-log 2.21.5: the port rate given is no mismatch (guard)" 0 'the NCCL log gives' -- \
	$FC nccl check-log "$NFU/v21.log" --rail-gbps 200
# 2.20.3-2.21.5 merge where single- and dual-port cards meet: a single port
# is printed at its own index, numbered by its place (NET/IB/2 is mlx5_3)
nfu_log 2.21.5 "[0]mlx5_0:1/IB [1]={[1] mlx5_1:1/IB, [2] mlx5_2:1/IB} [3]mlx5_3:1/IB" "" "0 1 2" 60.00 >"$NFU/v21m.log"
expect "check-log 2.21.5: each channel's device by its place in a merged list" 0 '^mlx5_0,mlx5_1\+mlx5_2,mlx5_3 0,1,1,2$' -- sh -c \
	"$FC nccl check-log $NFU/v21m.log --json | jq -r '[([.channels[] | select(.rank < 4) | .hca] | unique | join(\",\")), ([.hcas[].net_dev] | map(tostring) | join(\",\"))] | join(\" \")'"
# up to 2.19: each port is a NIC of its own, one per GPU counted (a guard:
# the old code counts the same)
nfu_log 2.19.3 "$NFU8" "" "0 2 4 6" 90.00 >"$NFU/v19.log"
expect "check-log 2.19.3: unfused ports, one per GPU (guard)" 0 '^4 200 94$' -- sh -c \
	"$FC nccl check-log $NFU/v19.log --rail-gbps 200 --json | jq -r '.rails | [.count, .rate_gbit_s, .expected_busbw_gbytes_s] | map(tostring) | join(\" \")'"
expect_none "check-log 2.19.3: no NIC of several ports" 0 'NICs of several ports' -- \
	$FC nccl check-log "$NFU/v19.log" --rail-gbps 200
# Real logs: NVIDIA/nccl#2397 (2.30.4, ports of 100G: the issue's topology
# dump, tests/real/topo-extra/), every channel over the fused NET/IB/2;
# the synthesized fixture of a 2.20+ merged list (../shared/fixtures).
NFUR=tests/real/topo-extra/gh-nccl-2397_2.30.4_2node-2xa100_cx6dx-2port-fused-vnic_EXCERPT.log
expect "real log 2.30.4: one fused NIC of 200 Gb/s, not two rails" 0 '^1 200 23.5 mlx5_0\+mlx5_1$' -- sh -c \
	"$FC nccl check-log $NFUR --rail-gbps 100 --json | jq -r '.rails | [.count, .rate_gbit_s, .expected_busbw_gbytes_s, .nics[0].name] | map(tostring) | join(\" \")'"
NFUM=../shared/fixtures/nccl-logs/nccl-2.2x_roce-merged-vnics_ibext-v8.log
expect "fixture 2.2x merged list: NET/IBext_v8/1 is mlx5_0+mlx5_1, one NIC" 0 '^1 200 mlx5_0\+mlx5_1 true$' -- sh -c \
	"$FC nccl check-log $NFUM --rail-gbps 100 --gpus-per-node 1 --json | jq -r '.rails | [.count, .rate_gbit_s, .nics[1].name, .nics[1].used] | map(tostring) | join(\" \")'"
# check-log --topo judges each channel by NCCL's ranking of the node's
# layout (topo/pcitopo_nccl.c, the model topo and gpu-check use): on the
# recorded h100stor tree (tests/topo/mksysfs.sh) GPU1's switch holds the
# 400G mlx5_3 and the 200G storage mlx5_1; NCCL ranks by path bandwidth
# counting the NIC's speed (topo.cc ncclTopoAddNet: speed / 8000), so GPU1's
# NIC is mlx5_3. A log whose GPU1 runs over mlx5_1 was passed (mlx5_1 is as
# near as mlx5_3); it is now named, with the NIC NCCL should use.
cc -Wall -Wextra -Werror -shared -fPIC -o "$NFU/libnccl.so.2" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libnccl stand-in"
tests/topo/mksysfs.sh "$NFU/stor" h100stor >/dev/null
env FABCHECK_LIBNCCL="$NFU/libnccl.so.2" FAKENCCL_VERSION=23007 $FC topo --sysfs "$NFU/stor" --json >"$NFU/stor.json"
nfu_stor() { # the HCA index each of GPU0-7 uses
	local g bus=(03 13 23 33 83 93 a3 b3) nic=("$@")
	echo "node0:100:100 [0] NCCL INFO NCCL version 2.30.7+cuda12.9"
	for g in 0 1 2 3 4 5 6 7; do
		echo "node0:10$g:10$g [$g] NCCL INFO comm 0x5 rank $g nranks 16 cudaDev $g nvmlDev $g busId ${bus[g]}000 commId 0x1 - Init START"
	done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [8]mlx5_8:1/IB [9]mlx5_9:1/IB [10]mlx5_10:1/IB [11]mlx5_11:1/IB [RO]; OOB ib0:10.0.0.1<0>"
	for g in 0 1 2 3 4 5 6 7; do
		echo "node0:10$g:10$g [$g] NCCL INFO Channel 00/0 : $((g + 8))[$g] -> $g[$g] [receive] via NET/IB/${nic[g]}/GDRDMA"
	done
}
nfu_stor 0 1 4 5 6 9 10 11 >"$NFU/stor-bad.log"
nfu_stor 0 3 4 5 6 9 10 11 >"$NFU/stor-ok.log"
expect "check-log --topo: a GPU on the storage port beside its compute HCA is named" 0 \
	"rank 1 \(node0, GPU1\) moves data on mlx5_1 \(channel 0\) but NCCL's ranking of the --topo layout gives it mlx5_3 \(path bandwidth counting each NIC's speed, active ports only; NCCL 2.30.7 rules\): a slower or idle port" -- \
	$FC nccl check-log --topo "$NFU/stor.json" "$NFU/stor-bad.log"
expect "check-log --topo: every GPU on NCCL's own pick, nothing said (guard)" 0 '^verdict: pass' -- \
	$FC nccl check-log --topo "$NFU/stor.json" "$NFU/stor-ok.log"
# h100dual (a 2 x 200G card under GPU0's switch, 400G mlx5_2 and mlx5_3):
# under 2.30.7 GPU0's NIC is the fused mlx5_0+mlx5_1 (tests/cli/cases_vnic.sh);
# a 2.30.7 log on NET/IB/4 (the virtual NIC after the 4 ports) is NCCL's own
# pick (so is a port of it); a 2.19.3 log with GPU0 on mlx5_3, the other
# socket's, is named, with both releases said.
tests/topo/mksysfs.sh "$NFU/dual" h100dual >/dev/null
env FABCHECK_LIBNCCL="$NFU/libnccl.so.2" FAKENCCL_VERSION=23007 $FC topo --sysfs "$NFU/dual" --json >"$NFU/dual.json"
nfu_dual() { # version, GPU0's device, extra line
	local g bus=(03 13 83) nic=("$2" 2 3)
	echo "node0:100:100 [0] NCCL INFO NCCL version $1+cuda12.9"
	for g in 0 1 2; do
		echo "node0:10$g:10$g [$g] NCCL INFO comm 0x5 rank $g nranks 6 cudaDev $g nvmlDev $g busId ${bus[g]}000 commId 0x1 - Init START"
	done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB ib0:10.0.0.1<0>"
	[ -z "$3" ] || echo "node0:100:100 [0] NCCL INFO $3"
	for g in 0 1 2; do
		echo "node0:10$g:10$g [$g] NCCL INFO Channel 00/0 : $((g + 3))[$g] -> $g[$g] [receive] via NET/IB/${nic[g]}/GDRDMA"
	done
}
nfu_dual 2.30.7 4 "NET/IB : Made virtual device [4] name=mlx5_0+mlx5_1 speed=400000 ndevs=2 rail=-1 plane=-1" >"$NFU/dual30.log"
nfu_dual 2.19.3 3 "" >"$NFU/dual19.log"
expect "check-log --topo: GPU0 on its fused NIC is NCCL's pick (guard)" 0 '^verdict: pass' -- \
	$FC nccl check-log --topo "$NFU/dual.json" "$NFU/dual30.log"
expect "check-log --topo: a layout judged by other rules than the log's says so" 0 \
	'moves data on mlx5_3 \(channel 0\) but NCCL.s ranking of the --topo layout gives it mlx5_0\+mlx5_1 .*NCCL 2.30.7 rules; the log is NCCL 2.19.3' -- \
	$FC nccl check-log --topo "$NFU/dual.json" "$NFU/dual19.log"
# nccl run with one card's two ports as two rails (tests/data/rails/down-card:
# rxe0 and rxe1 are functions .0 and .1 of 0000:17:00, nodeB's rxe1 down):
# the failure names nodeB, its port and its card's port left running alone;
# nodeA keeps both ports in NCCL_IB_HCA (NCCL 2.20.3+ fuses them only when
# both are listed), and the notes say the pair is one NIC to NCCL.
mkdir -p "$NFU/srun"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$NFU/srun/srun"
NFUD=(env PATH="$NFU/srun:$PATH" FAKE_DEVICES_DIR=tests/data/rails/down-card FAKE_MODE=noise)
NFUW=(--launcher slurm --worker-cmd tests/cli/fake-worker.sh --timeout 5)
expect "nccl run: a dual-port card's port down names the node, the port and its card" 3 \
	'nodeB: port rxe1:1 is down \(rxe0, the other port of its card, runs alone, where NCCL 2.20.3\+ fuses' -- \
	"${NFUD[@]}" $FC nccl run nodeA nodeB "${NFUW[@]}"
expect "nccl run: the healthy node keeps both ports of its card (guard)" 3 'NCCL_IB_HCA==rxe0:1,rxe1:1 \(the 2 rails' -- \
	"${NFUD[@]}" $FC nccl run nodeA nodeB "${NFUW[@]}"
expect "nccl run: the two rails of one card are one NIC to NCCL" 0 \
	'^\["rxe0 and rxe1 are the two ports of one card \(nodeA\): NCCL 2.20.3 and later run them as one NIC' -- \
	bash -c "$(printf '%q ' "${NFUD[@]}") $FC nccl run nodeA nodeB ${NFUW[*]} --json 2>/dev/null | jq -c .rail_notes"
expect "nccl run: --rails keeping one port of a card says NCCL runs it alone" 3 \
	'rxe0 is on a rail without rxe1, the other port of its card \(nodeA\): NCCL runs it alone' -- \
	"${NFUD[@]}" $FC nccl run nodeA nodeB "${NFUW[@]}" --rails rxe0
rm -rf "$NFU"
