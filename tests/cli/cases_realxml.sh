# GPU to HCA and Broadcom PEX flattening on real NCCL topology dumps (issue
# 37 item 2), sourced by tests/cli/run.sh. Each tests/real/topo-extra/*.xml
# (an NCCL_TOPO_DUMP_FILE, kept byte for byte) is written back as a recorded
# sysfs tree by tests/topo/xml2sysfs.py and judged under each NCCL release its
# expectation names (the libnccl.so.2 stand-in, tests/ncclrun/fakenccl.c):
# topo --sysfs's bcm_fused (the Broadcom sub-switches that release fuses, and
# into which switch), each GPU's nccl_nic among the capture's candidates and
# its nccl_path, the NCCL_IB_HCA advice, and gpu-check --from (a capture of
# the tree) per GPU. The expectations are read off the XML by NCCL's rules
# (tests/real/topo-extra/README.md), never from fabcheck's output.
RX=$(mktemp -d /tmp/fabcheck-cli-realxml.XXXXXX)
RXN=$RX/libnccl.so.2
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$RXN" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libnccl stand-in"

# "2.20.3" -> 22003, as NCCL_VERSION_CODE
rx_code() {
	local IFS=.
	set -- $1
	echo $(($1 * 10000 + $2 * 100 + $3))
}

# rx_nics EXPECT BUS REL: the NICs NCCL ranks first for that GPU under that
# release (nics_by_release where the releases differ: NCCL 2.20.3+ fuses the
# ports of one card into one NIC, "mlx5_0+mlx5_1"), comma-separated.
rx_nics() {
	jq -r --arg g "$2" --arg r "$3" '(.nccl[$g].nics_by_release[$r] // .nccl[$g].nics) | join(",")' "$1"
}

# rx_one EXPECT: a line per fact fabcheck gets wrong, then "FACTS RIGHT".
rx_one() {
	local e=$1 b d rel code out facts=0 right=0 bus want got i
	b=$(basename "$e" .expect.json)
	d=$RX/$b
	if ! tests/topo/xml2sysfs.py "${e%.expect.json}.xml" "$d" 2>"$d.err"; then
		echo "$b: no tree: $(cat "$d.err")"
		echo "0 0"
		return
	fi
	FABCHECK_SYSFS=$d $FC capture -o "$d.cap" >/dev/null 2>&1
	for rel in $(jq -r '.bcm_fused | keys[]' "$e"); do
		code=$(rx_code "$rel")
		out=$d.$code.json
		env FABCHECK_LIBNCCL="$RXN" FAKENCCL_VERSION="$code" $FC topo --sysfs "$d" --json >"$out" 2>/dev/null
		facts=$((facts + 1))
		want=$(jq -c --arg r "$rel" '.bcm_fused[$r] | sort' "$e")
		got=$(jq -c '[.nccl_rules.bcm_fused[]? | [.switch, .into]] | sort' "$out")
		if [ "$want" = "$got" ]; then right=$((right + 1)); else
			echo "$b $rel: bcm_fused $got, the capture gives $want"
		fi
		for bus in $(jq -r '.nccl | keys[]' "$e"); do
			facts=$((facts + 2))
			want=",$(rx_nics "$e" "$bus" "$rel"),"
			got=$(jq -r --arg g "$bus" '.gpus[] | select(.bus_id == $g) | "\(.nccl_nic) \(.nccl_path)"' "$out")
			case $want in *,"${got% *}",*) right=$((right + 1)) ;; *)
				echo "$b $rel: GPU $bus: nccl_nic ${got% *}, not one of $want" ;;
			esac
			want=$(jq -r --arg g "$bus" '.nccl[$g].path' "$e")
			if [ "${got#* }" = "$want" ]; then right=$((right + 1)); else
				echo "$b $rel: GPU $bus: nccl_path ${got#* }, the capture gives $want"
			fi
		done
		facts=$((facts + 1))
		want="=$(jq -r '.nccl_ib_hca | join(",")' "$e")"
		got=$(jq -r '.recommendations[] | select(.env == "NCCL_IB_HCA") | .value' "$out")
		if [ "$want" = "$got" ]; then right=$((right + 1)); else
			echo "$b $rel: NCCL_IB_HCA $got, the capture gives $want"
		fi
	done
	# gpu-check --from: the newest release's pick per GPU, by fabcheck's index
	for bus in $(jq -r '.nccl | keys[]' "$e"); do
		facts=$((facts + 1))
		i=$(jq -r --arg g "$bus" '[.gpus[].bus_id] | index($g)' "$out")
		want=",$(rx_nics "$e" "$bus" "$rel"),"
		got=$(env FABCHECK_LIBNCCL="$RXN" FAKENCCL_VERSION="$code" \
			$FC gpu-check --from "$d.cap" --gpu "$i" --json 2>/dev/null | jq -r '.gpu.nccl_nic // .gpu.hca // "none"')
		case $want in *,"$got",*) right=$((right + 1)) ;; *)
			echo "$b: gpu-check --from --gpu $i ($bus) pairs $got, not one of $want" ;;
		esac
	done
	echo "$facts $right"
}

rx_all() {
	local e n=0 facts=0 right=0
	for e in tests/real/topo-extra/*.xml; do
		rx_one "${e%.xml}.expect.json" >"$RX/out"
		sed '$d' "$RX/out"
		set -- $(tail -n 1 "$RX/out")
		n=$((n + 1)) facts=$((facts + $1)) right=$((right + $2))
	done
	echo "real NCCL dumps: $n captures, $right of $facts facts right"
}
expect "real NCCL dumps: Broadcom PEX fusing and each GPU's HCA by release" 0 \
	'^real NCCL dumps: 3 captures, 179 of 179 facts right$' -- rx_all

# NCCL 2.24+ virtual NICs on a real log (NVIDIA/nccl#2397, NCCL 2.30.4): every
# channel line names NET/IB/2 past the list's [0] mlx5_0 and [1] mlx5_1;
# "Rank R: 3 Net devices" leaves one virtual device of both ports
# (tests/real/topo-extra/README.md). check-log names it and does not say
# the other HCA carries nothing.
RXL=tests/real/topo-extra/gh-nccl-2397_2.30.4_2node-2xa100_cx6dx-2port-fused-vnic_EXCERPT.log
expect "real log: NET/IB/2 is the fused mlx5_0+mlx5_1 on both hosts" 0 '^8 mlx5_0\+mlx5_1 2,2$' -- sh -c \
	"$FC nccl check-log $RXL --json | jq -r '[(.channels | map(select(.net_dev == 2 and .hca == \"mlx5_0+mlx5_1\")) | length), (.channels[0].hca), ([.hcas[].fused_into] | map(tostring) | join(\",\"))] | join(\" \")'"
expect_none "real log: no 'carry nothing' for a virtual NIC of every port" 0 'carry nothing' -- \
	$FC nccl check-log "$RXL"
# The [NET] line that names a virtual NIC's ports (net_ib/init.cc
# ncclIbMakeVDeviceInternal, 2.30.7): three HCAs, [3] fuses two of them, so
# one HCA is left out and the spread finding still names the device.
printf '%s\n' \
	'h1:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda12.9' \
	'h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [RO]; OOB eth0:10.0.0.1<0>' \
	'h1:1:1 [0] NCCL INFO NET/IB : Made virtual device [3] name=mlx5_0+mlx5_1 speed=400000 ndevs=2 rail=-1 plane=3' \
	'h1:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/3' \
	'h1:2:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/3' >"$RX/vdev.log"
expect "made virtual device: its ports named, the third HCA left out" 0 \
	'every GPU.s NET channels use one device \(NET dev 3 mlx5_0\+mlx5_1\) while 3 HCAs are listed' -- \
	$FC nccl check-log "$RX/vdev.log"
