# GPU to HCA on real captures (issue 37 item 2), sourced by tests/cli/run.sh.
# Each tests/real/topo capture whose expectation holds "nccl_nics" (per GPU,
# the NICs NCCL ranks first, read off the capture's cells: the lowest path
# type, NODE tying with PHB; null where the table cannot say) is replayed two
# ways:
#  * the table alone, `topo -t FILE`: the JSON's nccl_nics per GPU, and
#    NCCL_IB_HCA within them (a GB200's all-SYS rows are C2C: no advice);
#  * a PCIe tree with the capture's distances (tests/topo/smi2sysfs.py),
#    through NCCL's model of topo/pcitopo_nccl.c: `topo --sysfs` (its
#    nccl_nic per GPU and NCCL_IB_HCA) and `gpu-check --from` a capture of
#    that tree, for every GPU. The tree's cells are checked against the
#    capture's first, so a wrong tree cannot pass for a right pick.
# Rules: the newest NCCL release's (no libnccl.so.2 found).
RT=$(mktemp -d /tmp/fabcheck-cli-realtopo.XXXXXX)
RTENV="env FABCHECK_LIBNCCL=/nonexistent CUDA_HOME=/nonexistent"

# The expectation's NIC labels as the tree names them: a capture without a
# NIC legend is written in NICn labels, its tree names them mlx5_n.
RTNAMES='(.nic_legend // {}) as $l | .nccl_nics |= map_values(if . == null then null else
	split(",") | map(if $l[.] == null and test("^NIC[0-9]+$") then "mlx5_" + .[3:] else . end) | join(",") end)'

# rt_one EXPECT: one line per GPU whose pick is not among its candidates, a
# line per cell the tree gets wrong, then "GPUS RIGHT HCA_OK" on the last line.
rt_one() {
	local e=$1 b d gpus right=0 hca_ok=0 i want pick
	b=$(basename "$e" .expect.json)
	d=$RT/$b
	# capture label -> device name, and per GPU the candidates (",a,b,")
	jq -r '(.nic_legend // {}) as $l | range(.nics) | "NIC\(.) \($l["NIC\(.)"] // "mlx5_\(.)")"' \
		"$e" >"$d.names"
	if ! tests/topo/smi2sysfs.py "$e" "$d/sys" 2>"$d.err"; then
		echo "$b: no tree: $(cat "$d.err")"
		echo "0 0 0"
		return
	fi
	$RTENV $FC topo --sysfs "$d/sys" --json >"$d.topo.json" 2>/dev/null
	jq -r --slurpfile t "$d.topo.json" --rawfile n "$d.names" '
		($n | split("\n") | map(select(length > 0) | split(" ")) | map({(.[0]): .[1]}) | add) as $nm
		| ($t[0].nics | map({(.label): .name}) | add) as $sn
		| ($t[0].matrix) as $m
		| .cells | to_entries[] | select(.key | test("^GPU[0-9]+,NIC[0-9]+$"))
		| (.key | split(",")) as $k
		| ($m[$k[0]] | to_entries | map(select($sn[.key] == $nm[$k[1]])) | .[0].value) as $got
		| select($got != .value) | "'"$b"': tree cell \(.key) is \($got), the capture prints \(.value)"' \
		"$e"
	FABCHECK_SYSFS=$d/sys $FC capture -o "$d/cap" >/dev/null 2>&1
	gpus=$(jq -r '.nccl_nics | to_entries | map(select(.value != null)) | length' "$e")
	for i in $(jq -r '.nccl_nics | to_entries[] | select(.value != null) | .key[3:]' "$e"); do
		want=",$(jq -r "$RTNAMES | .nccl_nics.GPU$i" "$e"),"
		pick=$(jq -r ".gpus[$i].nccl_nic // \"none\"" "$d.topo.json")
		case $want in *,"$pick",*) ;; *)
			echo "$b: GPU$i: topo's nccl_nic $pick, not one of $want"
			continue ;;
		esac
		pick=$($FC gpu-check --from "$d/cap" --gpu "$i" --json 2>/dev/null | jq -r '.gpu.hca // "none"')
		case $want in *,"$pick",*) right=$((right + 1)) ;; *)
			echo "$b: GPU$i: gpu-check --from pairs $pick, not one of $want" ;;
		esac
	done
	want=",$(jq -r "$RTNAMES"' | [.nccl_nics[] | select(. != null)] | join(",")' "$e"),"
	pick=$(jq -r '.recommendations[] | select(.env == "NCCL_IB_HCA") | .value[1:]' "$d.topo.json")
	hca_ok=1
	for i in ${pick//,/ }; do
		case $want in *,"$i",*) ;; *) hca_ok=0; echo "$b: NCCL_IB_HCA holds $i, no GPU's candidate" ;; esac
	done
	[ -n "$pick" ] || { hca_ok=0; echo "$b: no NCCL_IB_HCA advice"; }
	echo "$gpus $right $hca_ok"
}

rt_all() {
	local e n=0 gpus=0 right=0 hca=0 last
	for e in tests/real/topo/*.expect.json; do
		jq -e '.nccl_nics | to_entries | map(select(.value != null)) | length > 0' "$e" \
			>/dev/null 2>&1 || continue
		rt_one "$e" >"$RT/out"
		sed '$d' "$RT/out"
		last=$(tail -n 1 "$RT/out")
		set -- $last
		n=$((n + 1)) gpus=$((gpus + $1)) right=$((right + $2)) hca=$((hca + $3))
	done
	echo "real layouts: $n captures, $right of $gpus GPUs paired among the capture's candidates, NCCL_IB_HCA within them on $hca"
}
expect "real layouts: NCCL's pick per GPU (topo --sysfs, gpu-check --from)" 0 \
	'^real layouts: 16 captures, 103 of 103 GPUs paired among the capture.s candidates, NCCL_IB_HCA within them on 16$' -- rt_all

# The tables alone: nccl_nics per GPU as the capture's expectation says.
rt_table() {
	local e b
	for e in tests/real/topo/*.expect.json; do
		jq -e 'has("nccl_nics")' "$e" >/dev/null || continue
		b=${e%.expect.json}
		cmp -s <(jq -c '.nccl_nics' "$e") \
			<($FC topo --json -t "$b.txt" --sysfs "$RT/empty" 2>/dev/null |
				jq -c '[.gpus[] | select(has("nccl_nics")) | {(.name): (.nccl_nics | if . == null then null else join(",") end)}] | add') ||
			echo "differ: $(basename "$b")"
	done
	echo checked
}
mkdir -p "$RT/empty/bus/pci/devices"
expect "real tables: topo -t gives each GPU the capture's NCCL candidates" 0 '^checked$' -- rt_table
expect_none "real tables: differ" 0 'differ' -- rt_table

# GB200 (all-SYS C2C rows): no GPU's NICs are in the table, so no NCCL_IB_HCA
GB=tests/real/topo/idx61093033028_4xgb200-nv18_8nic-all-sys_numa-lists.txt
expect_none "real GB200: no NCCL_IB_HCA from all-SYS C2C rows" 0 'NCCL_IB_HCA' -- \
	$FC topo --sysfs "$RT/empty" -t "$GB"
expect "real GB200: nccl_nics unknown for every GPU" 0 '^\[true,true,true,true\]$' -- \
	sh -c "$FC topo --json --sysfs $RT/empty -t $GB | jq -c '[.gpus[] | has(\"nccl_nics\") and .nccl_nics == null]'"
