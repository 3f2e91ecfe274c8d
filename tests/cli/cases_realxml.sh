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
			want=",$(jq -r --arg g "$bus" '.nccl[$g].nics | join(",")' "$e"),"
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
		want=",$(jq -r --arg g "$bus" '.nccl[$g].nics | join(",")' "$e"),"
		got=$(env FABCHECK_LIBNCCL="$RXN" FAKENCCL_VERSION="$code" \
			$FC gpu-check --from "$d.cap" --gpu "$i" --json 2>/dev/null | jq -r '.gpu.hca // "none"')
		case $want in *,"$got",*) right=$((right + 1)) ;; *)
			echo "$b: gpu-check --from --gpu $i ($bus) pairs $got, not one of $want" ;;
		esac
	done
	echo "$facts $right"
}

rx_all() {
	local e n=0 facts=0 right=0
	for e in tests/real/topo-extra/*.expect.json; do
		rx_one "$e" >"$RX/out"
		sed '$d' "$RX/out"
		set -- $(tail -n 1 "$RX/out")
		n=$((n + 1)) facts=$((facts + $1)) right=$((right + $2))
	done
	echo "real NCCL dumps: $n captures, $right of $facts facts right"
}
expect "real NCCL dumps: Broadcom PEX fusing and each GPU's HCA by release" 0 \
	'^real NCCL dumps: 2 captures, 141 of 141 facts right$' -- rx_all
