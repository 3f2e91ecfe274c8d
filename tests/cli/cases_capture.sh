# Cases for `fabcheck capture` and `--from` (sourced by tests/cli/run.sh):
# a capture of each recorded sysfs tree (tests/topo/mksysfs.sh) judged with
# --from gives the JSON the live judgment gives on that tree; broken bundles
# get an error naming the file, and nothing outside a bundle is read.
CAP_TMP=$(mktemp -d /tmp/fabcheck-cli-capture.XXXXXX)
CAP_HOST=$(hostname)
for s in dgx hgx split h100 gb200 gh200; do tests/topo/mksysfs.sh "$CAP_TMP/$s" $s; done

expect "capture --help" 0 'usage: fabcheck capture' -- $FC capture --help
expect "capture bad option" 2 'usage: fabcheck capture' -- $FC capture --frob
expect "capture empty output" 2 'empty path' -- $FC capture -o ''
mkdir -p "$CAP_TMP/full" && touch "$CAP_TMP/full/x"
expect "capture into a folder not empty" 3 "folder '$CAP_TMP/full' is not empty" -- \
	$FC capture -o "$CAP_TMP/full"

# live and replayed judgment, byte for byte (preflight: but the launcher's name)
cap_same() { # SCENARIO: topo and preflight, live on the tree vs --from its capture
	local s=$1 c
	c=$CAP_TMP/cap-$s
	FABCHECK_SYSFS=$CAP_TMP/$s $FC capture -o "$c" >/dev/null 2>&1 || { echo "capture failed"; return; }
	cmp <(FABCHECK_SYSFS=$CAP_TMP/$s $FC topo --json 2>&1) <($FC topo --json --from "$c" 2>&1) &&
		echo "topo same"
	cmp <(FABCHECK_SYSFS=$CAP_TMP/$s $FC preflight --launcher local --worker-cmd "$FC" \
		"$CAP_HOST" --json 2>/dev/null | jq -S 'del(.expect.launcher)') \
	    <($FC preflight --from "$c" --json 2>/dev/null | jq -S 'del(.expect.launcher)') &&
		echo "preflight same"
}
for s in dgx hgx split h100 gb200 gh200; do
	expect "capture $s: topo and preflight --from equal live" 0 \
		'^topo same.preflight same$' -- bash -c "$(declare -f cap_same); CAP_TMP=$CAP_TMP FC=$FC CAP_HOST=$CAP_HOST; cap_same $s | paste -sd' '" 
done
expect "capture dgx: the judgment is not empty" 1 \
	'PCIe link of mlx5_2 \(0000:85:00.0\) trained at x8 of x16' -- $FC preflight --from "$CAP_TMP/cap-dgx"
expect "capture dgx: topo --from names the degraded link" 0 'mlx5_2 \(0000:85:00.0\) trained at x8' -- \
	$FC topo --from "$CAP_TMP/cap-dgx"

# A node with neither GPU nor HCA (the virtual rack's: Soft-RoCE has no PCI
# function): the replayed finding names the node's /sys, as the live one on
# the node does, not the folder the bundle was opened in.
NG=$CAP_TMP/nogpu/bus/pci/devices/0000:00:03.0
mkdir -p "$NG" "$CAP_TMP/nogpu/class/infiniband" && echo 0x1af4 >"$NG/vendor" && echo 0x020000 >"$NG/class"
FABCHECK_SYSFS=$CAP_TMP/nogpu $FC capture -o "$CAP_TMP/cap-nogpu" >/dev/null 2>&1
expect "capture without GPU or HCA: topo --from names the node's /sys" 3 \
	'"no NVIDIA GPU and no RDMA HCA found under /sys"' -- $FC topo --json --from "$CAP_TMP/cap-nogpu"

# health, nccl env and the rail plan read a capture as they read the node
expect_quiet "capture dgx: health --from equals live" 0 -- bash -c \
	"cmp <(FABCHECK_SYSFS=$CAP_TMP/dgx $FC health --no-state --node n1 --json 2>&1) <($FC health --from $CAP_TMP/cap-dgx --node n1 --json 2>&1)"
expect "capture dgx: health --from judges it" 1 'n1: PCIe link of mlx5_2 \(0000:85:00.0\) trained at x8 of x16' -- \
	$FC health --from "$CAP_TMP/cap-dgx" --node n1
expect "capture: health --from names the capture's host" 0 "^\"${CAP_HOST%%.*}\"\$" -- \
	bash -c "$FC health --from $CAP_TMP/cap-dgx --json | jq .node"
expect "capture: health --from with --drain-self" 2 '--from judges a capture: give it without' -- \
	$FC health --from "$CAP_TMP/cap-dgx" --drain-self
# the port counters come from the capture: a symbol error recorded between two
cp -a "$CAP_TMP/dgx" "$CAP_TMP/dgxc" && mkdir -p "$CAP_TMP/dgxc/class/infiniband/mlx5_0/ports/1/counters" &&
	for c in symbol_error link_downed; do echo 0 >"$CAP_TMP/dgxc/class/infiniband/mlx5_0/ports/1/counters/$c"; done
FABCHECK_SYSFS=$CAP_TMP/dgxc $FC capture -o "$CAP_TMP/cap-c0" >/dev/null 2>&1
echo 7 >"$CAP_TMP/dgxc/class/infiniband/mlx5_0/ports/1/counters/symbol_error"
FABCHECK_SYSFS=$CAP_TMP/dgxc $FC capture -o "$CAP_TMP/cap-c7" >/dev/null 2>&1
# (libibverbs lists no device here: the captures get node hn's, mlx5_0 port 1)
echo '{"nodes": [{"name": "hn", "devices": [{"name": "mlx5_0", "ports": [{"device": "mlx5_0",
	"port": 1, "state": "ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 400}]}]}]}' >"$CAP_TMP/hn.json"
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-c0" "$CAP_TMP/hn.json" "$CAP_TMP/hc0"
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-c7" "$CAP_TMP/hn.json" "$CAP_TMP/hc7"
$FC health --from "$CAP_TMP/hc0/hn" --state "$CAP_TMP/hst.json" >/dev/null 2>&1
expect "capture: health --from reads the counters recorded" 1 \
	'hn: mlx5_0 port 1 error counters moved since the last check \([0-9TZ:-]+\): symbol_error \+7' -- \
	$FC health --from "$CAP_TMP/hc7/hn" --state "$CAP_TMP/hst.json"
expect_quiet "capture dgx: nccl env --from equals live" 0 -- bash -c \
	"export NCCL_IB_HCA==mlx5_0,mlx5_9 NCCL_SOCKET_IFNAME=ens1f0 NCCL_FOO=1;
	 FABCHECK_SYSFS=$CAP_TMP/dgx $FC capture -o $CAP_TMP/cap-env >/dev/null 2>&1 &&
	 cmp <($FC nccl env --sysfs $CAP_TMP/dgx --json | jq -S 'del(.input)') \
	     <(env -u NCCL_IB_HCA -u NCCL_SOCKET_IFNAME -u NCCL_FOO $FC nccl env --from $CAP_TMP/cap-env --json | jq -S 'del(.input)')"
expect "capture: nccl env --from judges the recorded variables on its node" 1 \
	'NCCL_IB_HCA==mlx5_0,mlx5_9: names mlx5_9, which this node does not have \(HCAs: mlx5_0, mlx5_1, mlx5_2, mlx5_3\)' -- \
	$FC nccl env --from "$CAP_TMP/cap-env"
expect "capture: nccl env --from with --sysfs" 2 '--from judges against the capture.s node' -- \
	$FC nccl env --from "$CAP_TMP/cap-env" --sysfs /sys
# the rail plan: a rack of captures made from a recorded rack's port lists
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-split" tests/data/rails/roce-4x2-swap.json "$CAP_TMP/rk"
RK=("$CAP_TMP/rk/nodeA" "$CAP_TMP/rk/nodeB" "$CAP_TMP/rk/nodeC" "$CAP_TMP/rk/nodeD")
expect "capture rack: rails --from prints the plan" 1 \
	'^0 +rxe0 +subnet +10\.0\.0\.0/24 +nodeA: rxe0 port 1 eth0$' -- $FC rails --from "${RK[@]}"
expect "capture rack: rails --from, nodeC's ports swapped" 1 \
	'^ +nodeC: rxe1 port 1 eth0$' -- $FC rails --from "${RK[@]}"
expect "capture rack: rails --from, the swap a finding" 1 'ports of nodeC: rxe1 on rail 0' -- \
	$FC rails --from "${RK[@]}"
expect_quiet "capture rack: rails --from matches as preflight --from does" 0 -- bash -c \
	"cmp <($FC rails --from ${RK[*]} --json | jq -c '[.rails[] | [.rail, .name, .subnet, .matched_by, .devices]]') \
	     <($FC preflight --from ${RK[*]} --json | jq -c '[.rails[] | [.rail, .name, .subnet, .matched_by, .devices]]')"
expect_quiet "capture dgx: rails --from equals live" 0 -- bash -c \
	"cmp <(FABCHECK_SYSFS=$CAP_TMP/dgx $FC rails --launcher local --worker-cmd $FC $CAP_HOST --json 2>/dev/null | jq -S 'del(.launcher)') \
	     <($FC rails --from $CAP_TMP/cap-dgx --json 2>/dev/null | jq -S 'del(.launcher)') &&
	 $FC rails --from $CAP_TMP/cap-dgx --json | jq -e '.matched_by == \"none\"' >/dev/null"
expect "capture: rails --from with --drain" 2 'rails: prints the plan; no Slurm action' -- \
	$FC rails --from "$CAP_TMP/cap-dgx" --drain

# gpu-check's pairing without a GPU: on a capture of the two-socket tree the
# GPU, its HCA and their distance (and the pairing's finding) are what the
# live check gives there with a (stand-in) driver listing the tree's 3 GPUs
CAP_CUDA=$CAP_TMP/libfakecuda.so
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$CAP_CUDA" tests/gdr/fakecuda.c
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$CAP_TMP/cap-2s" >/dev/null 2>&1
gc_pair() { # ARGS...: the GPU object and the pairing findings, lower case
	jq -c '[(.gpu | .bus_id |= ascii_downcase), [.findings[] | select(test(" is [A-Z0-9]+ from ")) | sub("^[^:]*: "; "") | ascii_downcase]]'
}
gc_same() {
	local g d
	for g in 0 1 2 0000:86:00.0 ""; do for d in "" mlx5_0 mlx5_1 mlx5_2; do
		cmp <(FAKECUDA_GPUS=3 FAKECUDA_BUSES=3b,3d,86 FABCHECK_LIBCUDA=$CAP_CUDA FABCHECK_SYSFS=tests/data/gdr/two-socket \
			$FC gpu-check -s 1M -n 1 ${g:+--gpu $g} ${d:+-d $d} --json | gc_pair) \
		    <($FC gpu-check --from $CAP_TMP/cap-2s ${g:+--gpu $g} ${d:+-d $d} --json | gc_pair) >/dev/null ||
			echo "differ: --gpu '$g' -d '$d'"
	done; done
	$FC gpu-check --from $CAP_TMP/cap-2s --gpu 2 --json | jq -e '.gpu.hca == "mlx5_1"' >/dev/null || echo "no pairing"
}
expect_quiet "capture two-socket: gpu-check --from pairs as the live check" 0 -- bash -c \
	"$(declare -f gc_pair gc_same); CAP_TMP=$CAP_TMP CAP_CUDA=$CAP_CUDA FC=$FC; gc_same"
expect "capture two-socket: gpu-check --from, the other socket a finding" 0 \
	'GPU 0 \(0000:3b:00.0\) is SYS from mlx5_1: they sit on different sockets' -- \
	$FC gpu-check --from "$CAP_TMP/cap-2s" --gpu 0 -d mlx5_1
expect "capture two-socket: gpu-check --from, no such GPU" 3 \
	'GPU 7 not found; this node has 3 GPUs: 0 \(0000:3b:00.0\), 1 \(0000:3d:00.0\), 2 \(0000:86:00.0\)' -- \
	$FC gpu-check --from "$CAP_TMP/cap-2s" --gpu 7

# .tar.gz: written, read back, judged as the folder
expect_quiet "capture -o FILE.tar.gz" 0 -- bash -c \
	"FABCHECK_SYSFS=$CAP_TMP/split $FC capture -o $CAP_TMP/split.tar.gz --json | jq -e '.files > 50' >/dev/null"
expect "capture tar.gz: one folder in it, manifest first-level" 0 '^[^/]+/manifest.json$' -- \
	bash -c "tar -tzf $CAP_TMP/split.tar.gz | grep manifest.json"
expect_quiet "capture tar.gz: --from equals the folder's" 0 -- bash -c \
	"cmp <($FC topo --json --from $CAP_TMP/split.tar.gz) <($FC topo --json --from $CAP_TMP/cap-split)"
expect "capture tar.gz exists: refused" 3 "split.tar.gz' exists" -- \
	$FC capture -o "$CAP_TMP/split.tar.gz"
expect_quiet "capture tar.gz: the unpacked folder is removed" 0 -- bash -c \
	"export TMPDIR=$CAP_TMP/t; mkdir -p \$TMPDIR; $FC topo --from $CAP_TMP/split.tar.gz >/dev/null; [ -z \"\$(ls -A \$TMPDIR)\" ]"

# a rack of captures
expect "capture: two captures of one host" 3 'a second capture of node' -- \
	$FC preflight --from "$CAP_TMP/cap-dgx" "$CAP_TMP/cap-hgx"
expect "capture: --from with --hostfile" 2 'no --hostfile' -- \
	$FC preflight --from "$CAP_TMP/cap-dgx" --hostfile /dev/null

# what is recorded: NCCL_* only, the manifest's reasons, every file listed
expect_quiet "capture: NCCL_* kept, no other variable" 0 -- bash -c \
	"NCCL_IB_HCA==mlx5_0 FC_SECRET_TOKEN=hunter2-xyz FABCHECK_SYSFS=$CAP_TMP/split $FC capture -o $CAP_TMP/env >/dev/null &&
	 grep -qx 'NCCL_IB_HCA==mlx5_0' $CAP_TMP/env/env/nccl.env && ! grep -rq hunter2-xyz $CAP_TMP/env"
expect "capture: a missing tool is said in the manifest" 0 '"why": "the tool is not installed \(exit 127\)"' -- \
	bash -c "PATH=/nonexistent:/usr/bin:/bin FABCHECK_SYSFS=$CAP_TMP/split $FC capture -o $CAP_TMP/nt >/dev/null; jq '.not_read[] | select(.input == \"nvidia-smi topo -m\")' $CAP_TMP/nt/manifest.json"
# the manifest's other reasons: a tool found but not executable (execvp's
# EACCES: ctl/child.c exits 126), one silent past the 10 s command deadline,
# a settings file the capturing user may not read (run as nobody: root
# reads any file)
CB=$CAP_TMP/bin && mkdir -p "$CB" && chmod 755 "$CAP_TMP" &&
	printf '#!/bin/sh\nexec sleep 60\n' >"$CB/lldpctl" && chmod 755 "$CB/lldpctl" &&
	printf '#!/bin/sh\necho never\n' >"$CB/nvidia-smi" && chmod 644 "$CB/nvidia-smi"
PATH=$CB:/usr/sbin:/usr/bin:/sbin:/bin FABCHECK_SYSFS=$CAP_TMP/split $FC capture -o "$CAP_TMP/rs" >/dev/null 2>&1
expect "capture: a tool that may not be run is said: no permission" 0 \
	'^nvidia-smi topo -m: no permission to run the tool \(exit 126\)$' -- \
	jq -r '.not_read[] | select(.input == "nvidia-smi topo -m") | "\(.input): \(.why)"' "$CAP_TMP/rs/manifest.json"
expect "capture: a tool silent past the deadline is said: timed out" 0 \
	'^lldpctl -f json: lldpctl gave no answer within 10 s cmd/lldpctl_-f_json$' -- \
	jq -r '.not_read[] | select(.input == "lldpctl -f json") | "\(.input): \(.why) \(.path)"' "$CAP_TMP/rs/manifest.json"
expect "capture: the timed-out tool's file is not written" 0 '^absent$' -- \
	bash -c "[ -e $CAP_TMP/rs/cmd/lldpctl_-f_json ] || echo absent"
mkdir -m 777 "$CAP_TMP/np" "$CAP_TMP/nh" && printf 'NCCL_DEBUG=INFO\n' >"$CAP_TMP/nh/.nccl.conf" && chmod 600 "$CAP_TMP/nh/.nccl.conf"
expect "capture: a settings file that may not be read is said: no permission" 0 \
	'^/[^ ]*/nh/.nccl.conf: no permission files/home/.nccl.conf$' -- bash -c \
	"HOME=$CAP_TMP/nh FABCHECK_SYSFS=$CAP_TMP/split setpriv --reuid=65534 --regid=65534 --clear-groups $FC capture -o $CAP_TMP/np/c >/dev/null 2>&1;
	 jq -r '.not_read[] | select(.path == \"files/home/.nccl.conf\") | \"\\(.input): \\(.why) \\(.path)\"' $CAP_TMP/np/c/manifest.json"
expect "capture: bounds in the manifest" 0 '^16777216 268435456 10$' -- \
	jq -r '.bounds | "\(.file_bytes) \(.total_bytes) \(.command_s)"' "$CAP_TMP/cap-split/manifest.json"
expect "capture: every bound of doc/capture.md in the manifest" 0 '^200000 8388608 65536 1048576 2000 60 180$' -- \
	jq -r '.bounds | "\(.files) \(.command_bytes) \(.sysfs_file_bytes) \(.settings_file_bytes) \(.kernel_log_lines) \(.sysfs_s) \(.total_s)"' "$CAP_TMP/cap-split/manifest.json"
expect_quiet "capture: every file is in the manifest, with its command" 0 -- bash -c \
	"cd $CAP_TMP/cap-split && diff <(find . -type f ! -name manifest.json | sed 's|^./||' | sort) <(jq -r '.files[].path' manifest.json | sort) && jq -e '[.files[] | select(.from == \"\")] | length == 0' manifest.json >/dev/null"

# doc/capture.md's Files table names every file the captures above wrote or
# listed as not read, and each of its rows is a file they hold or (a command
# needing an RDMA device) one the capture's code runs, under the name the
# capture gives that command (tests/cli/capdoc.py); one tree gets the NUMA
# nodes and a peer-memory client, which no recorded tree has
X=$CAP_TMP/xtra && cp -a "$CAP_TMP/split" "$X" && mkdir -p "$X/devices/system/node/node0" "$X/kernel/mm/memory_peers/nv_mem" &&
	echo 0-7 >"$X/devices/system/node/node0/cpulist" && echo 10 >"$X/devices/system/node/node0/distance" &&
	echo 1.3 >"$X/kernel/mm/memory_peers/nv_mem/version" && FABCHECK_SYSFS=$X $FC capture -o "$CAP_TMP/cap-xtra" >/dev/null 2>&1
expect_quiet "capture: doc/capture.md names every file a capture writes, and no other" 0 -- \
	python3 tests/cli/capdoc.py doc/capture.md checks/preflight/capture.c checks/preflight/capture_sys.c \
	checks/preflight/pf_probe.c ctl/ibpeer.c -- "$CAP_TMP"/cap-{dgx,hgx,split,h100,gb200,gh200,2s,nogpu,xtra} \
	"$CAP_TMP/nt" "$CAP_TMP/rs"
# the corpus of real captures: each has its source row and its expectation
expect "real captures: each with its source and expectation, counted per class" 0 \
	'^all captures in SOURCES.tsv +[0-9]+ \(minimum 60\)$' -- python3 tests/real/count.py --check

# broken bundles: an error naming the file, exit 3, nothing read outside
cap_bad() { # NAME PATTERN SHELL-EDIT: a copy of cap-split edited, then judged
	local d
	d=$CAP_TMP/bad-$1
	rm -rf "$d"; cp -a "$CAP_TMP/cap-split" "$d"
	(cd "$d" && eval "$3")
	expect "capture bad: $1 (topo)" 3 "$2" -- $FC topo --from "$d"
	expect "capture bad: $1 (preflight)" 3 "$2" -- $FC preflight --from "$d"
	expect "capture bad: $1 (health)" 3 "$2" -- $FC health --from "$d"
	expect "capture bad: $1 (nccl env)" 3 "$2" -- $FC nccl env --from "$d"
	expect "capture bad: $1 (rails)" 3 "$2" -- $FC rails --from "$d"
	expect "capture bad: $1 (gpu-check)" 3 "$2" -- $FC gpu-check --from "$d"
}
cap_bad missing 'sys/class/net/ens1f0/mtu: missing \(the manifest lists it\)' 'rm sys/class/net/ens1f0/mtu'
cap_bad truncated 'node.json: 3 bytes where the manifest says [0-9]+ \(cut short\)' 'truncate -s 3 node.json'
cap_bad binary 'cmd/ip_-j_addr: its content is not what was captured' \
	'n=$(stat -c %s cmd/ip_-j_addr); head -c $n /dev/urandom > cmd/ip_-j_addr'
cap_bad 100MB 'cmd/big: 100 MiB, more than a captured file.s bound of 16 MiB' 'head -c 100M /dev/zero > cmd/big'
cap_bad link-out "sys/class/net/ens1f0/mtu: a link to '/etc/hostname', outside the bundle: refused" \
	'rm sys/class/net/ens1f0/mtu; ln -s /etc/hostname sys/class/net/ens1f0/mtu'
cap_bad link-up "sys/up: a link to '../..', outside the bundle" 'ln -s ../.. sys/up'
cap_bad fifo 'sys/class/net/ens1f0/mtu: neither a file nor a folder' \
	'rm sys/class/net/ens1f0/mtu; mkfifo sys/class/net/ens1f0/mtu'
cap_bad no-manifest 'manifest.json: No such file' 'rm manifest.json'
cap_bad cut-manifest 'manifest.json: not a JSON object' 'truncate -s 40 manifest.json'
cap_bad escaping-name 'an entry of "files" without a plain relative "path"' \
	"jq '.files[0].path = \"../../etc/hostname\"' manifest.json > m && mv m manifest.json"
cap_bad binary-manifest 'manifest.json: not a JSON object' 'head -c 300 /dev/urandom > manifest.json'
# bad content whose manifest entry was made to match (its size and CRC32C):
# the file is still named, never judged as a node called "?"
BR="python3 $(pwd)/tests/cli/bundle-rack.py --fix ."
cap_bad listed-100MB 'cmd/ip_-j_addr: 100 MiB, more than a captured file.s bound of 16 MiB' \
	"head -c 100M /dev/zero > cmd/ip_-j_addr; jq '(.files[] | select(.path == \"cmd/ip_-j_addr\") | .bytes) = 104857600' manifest.json > m && mv m manifest.json"
cap_bad node-binary 'node.json: not a JSON object; capture the node again' "head -c 300 /dev/urandom > node.json; $BR node.json"
cap_bad node-host 'node.json: no "host" that is a node name' "echo '{\"host\": \"a;rm -rf /\"}' > node.json; $BR node.json"
cap_bad node-empty 'node.json: not a JSON object' ": > node.json; $BR node.json"
cap_bad absolute-name 'an entry of "files" without a plain relative "path".*/etc/hostname' \
	"jq '.files[0].path = \"/etc/hostname\"' manifest.json > m && mv m manifest.json"
cap_bad folder-for-file 'sys/class/net/ens1f0/mtu: cannot be read' 'rm sys/class/net/ens1f0/mtu; mkdir sys/class/net/ens1f0/mtu'
rm -rf "$CAP_TMP/bad-devs" && cp -a "$CAP_TMP/cap-split" "$CAP_TMP/bad-devs" && (cd "$CAP_TMP/bad-devs" && mkdir -p verbs &&
	head -c 300 /dev/urandom > verbs/devices.json &&
	jq '.files += [{"path": "verbs/devices.json", "bytes": 0, "crc32c": "0", "from": "x"}]' manifest.json > m &&
	mv m manifest.json && $BR verbs/devices.json)
expect "capture bad: a device list that is not JSON is named (preflight)" 1 \
	'verbs/devices.json: not a JSON list' -- $FC preflight --from "$CAP_TMP/bad-devs"

# A capture whose HCA has no sysfs link files (its sysfs copy stopped at its
# bound) is judged from the recorded `lspci -vvv` of the HCA (diag/lspci.c):
# here a real capture's block (tests/real/lspci: LnkSta 2.5GT/s of 16GT/s).
LB=$CAP_TMP/lspci-link LD=sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:02.0/0000:85:00.0
rm -rf "$LB" && cp -a "$CAP_TMP/cap-dgx" "$LB" && (cd "$LB" && mkdir -p verbs && rm "$LD"/*_link_* &&
	echo '[{"name":"mlx5_2","fw_ver":"28.39.1002","transport":"IB","ports":[{"device":"mlx5_2","port":1,"state":"ACTIVE","link_layer":"InfiniBand","active_mtu":4096,"max_mtu":4096,"rate_gbps":200}]}]' >verbs/devices.json &&
	jq --arg d "$LD/" '.files |= map(select((.path | startswith($d) and test("_link_")) | not))
	  | .files |= map(select(.path != "cmd/lspci_-vvv_-s_0000-85-00.0"))
	  | .files += [{"path": "verbs/devices.json", "from": "libibverbs"},
		       {"path": "cmd/lspci_-vvv_-s_0000-85-00.0", "from": "lspci -vvv -s 0000:85:00.0", "exit": 0}]
	  | .not_read |= map(select(.input != "lspci -vvv -s 0000:85:00.0"))' manifest.json >m && mv m manifest.json &&
	cp "$OLDPWD/tests/real/lspci/stelline_asus_01-00.0_rtx6000ada_downgraded.txt" cmd/lspci_-vvv_-s_0000-85-00.0 &&
	$BR verbs/devices.json cmd/lspci_-vvv_-s_0000-85-00.0)
expect "capture without the HCA's sysfs link: judged from its lspci -vvv" 1 \
	'mlx5_2 trained to 2.5 GT/s x16 \(capable of 16 GT/s x16\): at most about 28 Gb/s over PCIe, port 1 is 200 Gb/s' -- \
	$FC preflight --from "$LB"
# A capture without verbs/devices.json (libibverbs listed nothing) is judged on
# the devices its recorded ibstat lists (verbs/devtext.c): a real capture's
# (tests/real/ibv: two ConnectX-6 Dx ports, Active, 100 Gb/s, Ethernet), with
# no GID finding (ibstat records none)
IB=$CAP_TMP/ibstat-devs
rm -rf "$IB" && cp -a "$CAP_TMP/cap-dgx" "$IB" && (cd "$IB" && rm -f verbs/devices.json cmd/ibv-devinfo_-v cmd/ibstat &&
	jq '.files |= map(select(.path != "verbs/devices.json" and .path != "cmd/ibv-devinfo_-v" and .path != "cmd/ibstat"))
	  | .files += [{"path": "cmd/ibstat", "from": "ibstat", "exit": 0}]
	  | .not_read |= map(select(.input != "ibstat" and .input != "ibv_devinfo -v"))' manifest.json >m && mv m manifest.json &&
	cp "$OLDPWD/tests/real/ibv/gh-l2fwd-nv-6_ibstat_2x-cx6dx-100g-eth.txt" cmd/ibstat && $BR cmd/ibstat)
expect "capture without a device list: the ports of its recorded ibstat" 0 \
	'mlx5_0 +1 +ACTIVE +100 Gb/s +- +- +- +not recorded +22.32.2004 .*mlx5_1 +1 +ACTIVE +100 Gb/s +- +- +- +not recorded +22.32.2004' -- \
	bash -c "$FC preflight --from $IB | paste -sd' '"
expect "capture without a device list: the ports in preflight's JSON, no GID finding" 0 \
	'^mlx5_0 1 ACTIVE 100 Ethernet 22.32.2004 mlx5_1 1 ACTIVE 100 Ethernet 22.32.2004 gid-findings 0$' -- bash -c \
	"$FC preflight --from $IB --json | jq -r '[(.nodes[0].ports[] | .device, .port, .state, .rate_gbps, .link_layer, .fw_ver), \"gid-findings\", ([.findings[] | select(test(\"no usable GID\"))] | length)] | join(\" \")'"
# A capture without a netdev's sysfs files gives its MTU and state from the
# recorded `ip -j link` (core/iplink.c): node n2's mlx5_0 port 1 is IPoIB
# ibp12s0 (no sys/class/net/ibp12s0 here), and cmd/ip_-j_link a real
# capture's (tests/real/ip: eight IPoIB links, MTU 2044, UP)
echo '{"nodes": [{"name": "n2", "devices": [{"name": "mlx5_0", "fw_ver": "28.39.1002", "ports": [{"device": "mlx5_0",
	"port": 1, "state": "ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 400, "active_mtu": 4096, "netdev": "ibp12s0"}]}]}]}' >"$CAP_TMP/n2.json"
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-dgx" "$CAP_TMP/n2.json" "$CAP_TMP/ipl" &&
	(cd "$CAP_TMP/ipl/n2" && cp "$OLDPWD/tests/real/ip/gcm_ip-json-link_8x-ibp-ipoib-2044_cx-guids.json" cmd/ip_-j_link && $BR cmd/ip_-j_link)
expect "capture without a netdev's sysfs: its MTU from the recorded ip -j link" 0 '^mlx5_0 ibp12s0 2044$' -- \
	bash -c "$FC preflight --from $CAP_TMP/ipl/n2 --json | jq -r '.nodes[0].ports[] | \"\\(.device) \\(.netdev) \\(.netdev_mtu)\"'"
expect "capture bad: a device list that is not JSON is named (health)" 1 \
	'verbs/devices.json: not a JSON list' -- $FC health --from "$CAP_TMP/bad-devs"
expect "capture bad: not a bundle" 3 'cannot read|No such file' -- $FC topo --from /nonexistent
# .tar.gz: a member past the bound is refused from the listing, before unpacking
mkdir -p "$CAP_TMP/tb/b" && head -c 20M /dev/zero > "$CAP_TMP/tb/b/huge" && tar -czf "$CAP_TMP/huge.tar.gz" -C "$CAP_TMP/tb" b
expect "capture bad tar.gz: 20 MiB member" 3 'b/huge.*more than a capture.s bound' -- \
	$FC topo --from "$CAP_TMP/huge.tar.gz"
rm -rf "$CAP_TMP/tb" && mkdir -p "$CAP_TMP/tb" && cp -a "$CAP_TMP/cap-split" "$CAP_TMP/tb/b" &&
	ln -s /etc "$CAP_TMP/tb/b/sys/etc" && tar -czf "$CAP_TMP/out.tar.gz" -C "$CAP_TMP/tb" b
expect "capture bad tar.gz: a link out" 3 "sys/etc: a link to '/etc', outside the bundle" -- \
	$FC topo --from "$CAP_TMP/out.tar.gz"
head -c 5000 "$CAP_TMP/split.tar.gz" > "$CAP_TMP/cut.tar.gz"
expect "capture bad tar.gz: cut short" 3 'cut.tar.gz: not a readable .tar.gz' -- $FC topo --from "$CAP_TMP/cut.tar.gz"
python3 - "$CAP_TMP/dots.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as tf:
    ti = tarfile.TarInfo("b/../../escape-i36")
    ti.size = 1
    tf.addfile(ti, io.BytesIO(b"x"))
PY
expect "capture bad tar.gz: a member named out of the folder" 3 \
	"b/../../escape-i36': a member whose name leaves the bundle's folder" -- $FC topo --from "$CAP_TMP/dots.tar.gz"
expect_quiet "capture bad tar.gz: nothing written out of the folder" 0 -- bash -c \
	"export TMPDIR=$CAP_TMP/t2; mkdir -p \$TMPDIR; $FC health --from $CAP_TMP/dots.tar.gz >/dev/null 2>&1; ! ls $CAP_TMP/escape-i36 $CAP_TMP/t2/escape-i36 /tmp/escape-i36 2>/dev/null"
printf 'not gzip' > "$CAP_TMP/junk.tar.gz"
expect "capture bad tar.gz: not an archive" 3 'junk.tar.gz: not a readable .tar.gz' -- \
	$FC topo --from "$CAP_TMP/junk.tar.gz"

# The HCA's firmware state and health reporters (devlink dev info, devlink
# health show) replayed from a capture and judged: the dgx capture as node n1
# with mlx5_2 listed (libibverbs lists no device here, so the live probe has
# no HCA to ask devlink about), holding as cmd/devlink_dev_info the real mlx5
# capture (tests/real/devlink/) at mlx5_2's function with 28.43.1000 stored
# (an update flashed, not active), and as cmd/devlink_health_show the real
# fw_fatal reporter in error there.
echo '{"nodes": [{"name": "n1", "devices": [{"name": "mlx5_2", "fw_ver": "28.41.1000", "ports": [{"device": "mlx5_2",
	"port": 1, "state": "ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 400}]}]}]}' >"$CAP_TMP/n1.json"
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-dgx" "$CAP_TMP/n1.json" "$CAP_TMP/dl"
sed -e 1d -e 's/0000:08:00\.0/0000:85:00.0/' -e '14,15s/28\.41\.1000/28.43.1000/' \
	tests/real/devlink/lore-20250318_mlx5-2pf_dev-info_fw-28.41.1000_running-eq-stored.txt \
	>"$CAP_TMP/dl/n1/cmd/devlink_dev_info"
sed -e 1d -e 's/0000:03:00\.0/0000:85:00.0/' tests/real/devlink/lore-20200915_mlxsw_health_fw-fatal-in-error.txt \
	>"$CAP_TMP/dl/n1/cmd/devlink_health_show"
python3 - "$CAP_TMP/dl/n1" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("br", "tests/cli/bundle-rack.py")
br = importlib.util.module_from_spec(spec); spec.loader.exec_module(br)
import json, os
root = sys.argv[1]; mp = os.path.join(root, "manifest.json"); man = json.load(open(mp))
for rel, cmd in (("cmd/devlink_dev_info", "devlink dev info"), ("cmd/devlink_health_show", "devlink health show")):
    br.put(root, man, rel, open(os.path.join(root, rel), "rb").read(), cmd)
json.dump(man, open(mp, "w"), indent=1)
PY
expect "capture: preflight --from names a firmware update not yet active, with the reset" 1 \
	'n1: mlx5_2 \(pci/0000:85:00.0\) runs firmware 28.41.1000 but 28.43.1000 is stored in its flash \(devlink dev info\): the update is not active until the HCA is reset: run .mlxfwreset -d 0000:85:00.0 reset.' -- \
	$FC preflight --from "$CAP_TMP/dl/n1"
expect "capture: preflight --from names the health reporter in error" 1 \
	'n1: mlx5_2 health reporter fw_fatal of pci/0000:85:00.0 is in error \(1 errors, devlink health show\)' -- \
	$FC preflight --from "$CAP_TMP/dl/n1"

# Each port's module (ethtool -m, recorded by the probe, doc/capture.md)
# replayed and judged: a rack of three captures (the dgx capture as n1-n3,
# mlx5_2 port 1 on netdev eth2), each holding as cmd/ethtool_-m_eth2 the real
# Mellanox SR4 capture (tests/real/ethtool_m/); on n3 its lane 2 transmit
# line edited to 0.3981 mW / -4.00 dBm (inside the module's warning window,
# more than half way from its peers' 1.20 dBm to its -8.40 dBm warning). On
# n4, alone, lane 2 edited to 0.0500 mW / -13.01 dBm (under its low alarm).
SR4=tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt
echo '{"nodes": [' >"$CAP_TMP/mods.json"
for n in n1 n2 n3 n4; do
	[ $n = n1 ] || echo , >>"$CAP_TMP/mods.json"
	echo '{"name": "'$n'", "devices": [{"name": "mlx5_2", "fw_ver": "28.41.1000", "ports": [{"device": "mlx5_2",
	"port": 1, "state": "ACTIVE", "link_layer": "Ethernet", "rate_gbps": 100, "width": "4X", "netdev": "eth2"}]}]}' >>"$CAP_TMP/mods.json"
done
echo ']}' >>"$CAP_TMP/mods.json"
python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-dgx" "$CAP_TMP/mods.json" "$CAP_TMP/mods"
for n in n1 n2; do cp "$SR4" "$CAP_TMP/mods/$n/cmd/ethtool_-m_eth2"; done
sed 's|Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm|Transmit avg optical power (Channel 2)    : 0.3981 mW / -4.00 dBm|' "$SR4" >"$CAP_TMP/mods/n3/cmd/ethtool_-m_eth2"
sed 's|Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm|Transmit avg optical power (Channel 2)    : 0.0500 mW / -13.01 dBm|' "$SR4" >"$CAP_TMP/mods/n4/cmd/ethtool_-m_eth2"
for n in n1 n2 n3 n4; do
	python3 - "$CAP_TMP/mods/$n" <<'PY'
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("br", "tests/cli/bundle-rack.py")
br = importlib.util.module_from_spec(spec); spec.loader.exec_module(br)
root = sys.argv[1]; mp = os.path.join(root, "manifest.json"); man = json.load(open(mp))
br.put(root, man, "cmd/ethtool_-m_eth2", open(os.path.join(root, "cmd/ethtool_-m_eth2"), "rb").read(), "ethtool -m eth2")
man["files"][-1]["exit"] = 0
json.dump(man, open(mp, "w"), indent=1)
PY
done
expect "capture: preflight --from names a module reading apart from the same port on the other nodes" 1 \
	"n3: mlx5_2 port 1 \(eth2\) module, transceiver \(its transmitter\): lane 2 transmit power -4.00 dBm where the same port's module on 2 other nodes reads 1.20 to 1.20 dBm: 5.20 dB from their median 1.20 dBm, more than the 4.40 dB left to its own low warning threshold -8.40 dBm \(ethtool -m\)" -- \
	$FC preflight --from "$CAP_TMP/mods/n1" "$CAP_TMP/mods/n2" "$CAP_TMP/mods/n3"
expect_quiet "capture: preflight --from names no module on the healthy nodes" 0 -- bash -c \
	"! $FC preflight --from $CAP_TMP/mods/n1 $CAP_TMP/mods/n2 $CAP_TMP/mods/n3 2>&1 | grep -E 'n[12]: mlx5_2 port 1 \(eth2\) module'"
expect "capture: preflight --from judges a module against its own thresholds" 1 \
	"n4: mlx5_2 port 1 \(eth2\) module: lane 2 transmits -13.01 dBm, below the module's low alarm -11.40 dBm: its transmitter \(ethtool -m eth2\)" -- \
	$FC preflight --from "$CAP_TMP/mods/n4"

# One module's lanes against each other, its port against its lanes, its
# receive power against the other nodes, peers by rail, and a module not
# read (issue 37 item 1), on a second rack of the same captures: every port
# on one subnet (10.0.0.0/24), so the rails match each node's port by it.
# n1-n3 name the port mlx5_2 (eth2); n4 is of another model and names it
# mlx5_3 (eth3). Modules (the real SR4 capture, edits said): n1, n2 as
# captured; n3 lane 3 receives 0.2000 mW / -6.99 dBm (its siblings -0.12 to
# 0.55 dBm, the other nodes' lane 3 0.55 dBm); n4 lane 2 transmits 0.3981 mW
# / -4.00 dBm. n5 alone: its port trained at 50 Gb/s on 2 lanes ("2X") and
# its module's lane 3 transmitter off (0.000 mA, 0.0000 mW / -inf dBm) with
# "Tx fault : [ No, No, Yes, No ]" as a newer ethtool prints it after
# "Revision Compliance" (qsfp.c sff8636_show_signals). n6 alone: the real
# passive copper cable capture (no monitors). n7 alone: n4's module. n8
# alone: the real capture of a 100G CWDM4 (BR, Nominal 25500 MBd, 4 lanes)
# whose port came up at 40G (the post printed Speed 40000Mb/s beside it),
# as captured. n9 alone: the real CMIS QSFP-DD capture (Arista
# QDD-400G-XDR4), its port at 400 Gb/s on 4 lanes, as captured: lane 4's
# bias 110.100 mA beside 72.900-83.806 mA, warning 125 mA.
mkrack() { # OUT NODE:DEV:NETDEV:RATE:WIDTH:MODULE...
	local out=$1 n dev nd rate width f first=1
	shift
	echo '{"nodes": [' >"$out.json"
	for spec in "$@"; do
		IFS=: read -r n dev nd rate width f <<<"$spec"
		[ $first = 1 ] || echo , >>"$out.json"
		first=0
		echo '{"name": "'$n'", "devices": [{"name": "'$dev'", "fw_ver": "28.41.1000", "ports": [{"device": "'$dev'",
		"port": 1, "state": "ACTIVE", "link_layer": "Ethernet", "rate_gbps": '$rate', "width": "'$width'",
		"netdev": "'$nd'", "subnet": "10.0.0.0/24"}]}]}' >>"$out.json"
	done
	echo ']}' >>"$out.json"
	python3 tests/cli/bundle-rack.py "$CAP_TMP/cap-dgx" "$out.json" "$out" >/dev/null
	for spec in "$@"; do
		IFS=: read -r n dev nd rate width f <<<"$spec"
		cp "$f" "$out/$n/cmd/ethtool_-m_$nd"
		python3 - "$out/$n" "$nd" <<'PY'
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("br", "tests/cli/bundle-rack.py")
br = importlib.util.module_from_spec(spec); spec.loader.exec_module(br)
root, nd = sys.argv[1], sys.argv[2]; mp = os.path.join(root, "manifest.json"); man = json.load(open(mp))
rel = "cmd/ethtool_-m_" + nd
br.put(root, man, rel, open(os.path.join(root, rel), "rb").read(), "ethtool -m " + nd)
man["files"][-1]["exit"] = 0
json.dump(man, open(mp, "w"), indent=1)
PY
	done
}
M=$CAP_TMP/lanes
mkdir -p "$M"
sed 's|Rcvr signal avg optical power(Channel 3)  : 1.1340 mW / 0.55 dBm|Rcvr signal avg optical power(Channel 3)  : 0.2000 mW / -6.99 dBm|' "$SR4" >"$M/rx3.txt"
sed 's|Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm|Transmit avg optical power (Channel 2)    : 0.3981 mW / -4.00 dBm|' "$SR4" >"$M/tx2.txt"
sed -e 's|Laser tx bias current (Channel 3)         : 6.750 mA|Laser tx bias current (Channel 3)         : 0.000 mA|' \
	-e 's|Transmit avg optical power (Channel 3)    : 1.3378 mW / 1.26 dBm|Transmit avg optical power (Channel 3)    : 0.0000 mW / -inf dBm|' \
	-e '/Revision Compliance/a\	Tx fault                                  : [ No, No, Yes, No ]' "$SR4" >"$M/fault3.txt"
mkrack "$M/r" n1:mlx5_2:eth2:100:4X:"$SR4" n2:mlx5_2:eth2:100:4X:"$SR4" n3:mlx5_2:eth2:100:4X:"$M/rx3.txt" \
	n4:mlx5_3:eth3:100:4X:"$M/tx2.txt"
mkrack "$M/one" n5:mlx5_2:eth2:50:2X:"$M/fault3.txt" \
	n6:mlx5_2:eth2:100:4X:tests/real/ethtool_m/noc-sn2100_swp13_mellanox-mcp1600-dac_no-dom.txt \
	n7:mlx5_2:eth2:100:4X:"$M/tx2.txt" \
	n8:mlx5_2:eth2:40:4X:tests/real/ethtool_m/cwdm4-docs_cx4-cx416a_ens16f1np1_finisar-cwdm4-mlx-oui_40g-lit.txt \
	n9:mlx5_2:eth2:400:4X:tests/real/ethtool_m/lore-20241015_host-unnamed-nic_arista-qdd-400g-xdr4_cmis-4of8_temp-warn-on.txt
R=("$M/r/n1" "$M/r/n2" "$M/r/n3" "$M/r/n4")
expect "capture: preflight --from compares each lane's receive power with the same port on the other nodes" 1 \
	"n3: mlx5_2 port 1 \(eth2\) module, far end's transmitter or fibre \(lane 3\): lane 3 receives -6.99 dBm where the same port on 3 other nodes receives 0.55 dBm \(median\), 7.5 dB less: more than the 4 dB a compliant channel loses \(ethtool -m\)" -- \
	$FC preflight --from "${R[@]}"
expect "capture: preflight --from finds a port's peers by rail where device names differ" 1 \
	"n4: mlx5_3 port 1 \(eth3\) module, transceiver \(its transmitter\): lane 2 transmit power -4.00 dBm where the same port's module on 3 other nodes reads 1.20 to 1.20 dBm" -- \
	$FC preflight --from "${R[@]}"
expect_quiet "capture: preflight --from names no module of the healthy nodes of the rack by rail" 0 -- bash -c \
	"! $FC preflight --from ${R[*]} 2>&1 | grep -E 'n[12]: mlx5_2 port 1 \(eth2\) (module|runs)'"
expect "capture: preflight --from names a lane apart from its module's other lanes" 1 \
	"n7: mlx5_2 port 1 \(eth2\) module, transceiver \(lane 2 transmitter\): lane 2 transmit power -4.00 dBm where the module's 3 other lanes in use read 1.26 to 1.44 dBm: 5.27 dB from their median 1.27 dBm, more than the 4.40 dB left to its own low warning threshold -8.40 dBm \(ethtool -m\)" -- \
	$FC preflight --from "$M/one/n7"
expect "capture: preflight --from names a port trained on fewer lanes than its module, blaming the transceiver" 1 \
	"n5: mlx5_2 port 1 \(eth2\) runs at 50 Gb/s on 2 lanes where it should run at 100 Gb/s on 4 lanes: its module drives 4 lanes \(light on 3, transmitter fault on lane 3: ethtool -m\)" -- \
	$FC preflight --from "$M/one/n5"
expect "capture: preflight --from --json blames n5's transceiver" 0 '^n5 transceiver mlx5_2$' -- bash -c \
	"$FC preflight --from $M/one/n5 --json | jq -r '.blame[] | select(.part == \"transceiver\") | \"\(.node) \(.part) \(.device)\"'"
expect "capture: preflight --from names a port below the speed its module is built for" 1 \
	"n8: mlx5_2 port 1 \(eth2\) runs at 40 Gb/s on 4 lanes where it should run at 100 Gb/s on 4 lanes: its module is built for 100 Gb/s \(ethtool -m 'BR, Nominal' 25500 MBd x 4 lanes\)" -- \
	$FC preflight --from "$M/one/n8"
expect_quiet "capture: preflight --from names no lane of the real CWDM4 apart (bias 37.9-42.1 mA in a 30-50 mA window)" 0 -- bash -c \
	"! $FC preflight --from $M/one/n8 2>&1 | grep -E 'n8: .*(lane [0-9] (transmit|laser|receive)|module flags)'"
expect "capture: preflight --from names the real QSFP-DD's lane 4 bias apart from its other lanes" 1 \
	"n9: mlx5_2 port 1 \(eth2\) module, transceiver \(lane 4 transmitter\): lane 4 laser bias 110.10 mA where the module's 3 other lanes in use read 72.90 to 83.81 mA: 28.22 mA from their median 81.88 mA, more than the 14.90 mA left to its own high warning threshold 125.00 mA \(ethtool -m\)" -- \
	$FC preflight --from "$M/one/n9"
expect "capture: preflight --from lists a module it could not read as skipped" 1 \
	"^  n6: mlx5_2 port 1 \(eth2\) module: ethtool -m printed no monitor readings$" -- \
	$FC preflight --from "$M/one/n6"
rm -rf "$CAP_TMP"
