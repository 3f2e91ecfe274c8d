# Cases for `fabcheck nccl env` (sourced by tests/cli/run.sh).
NE=tests/data/ncclenv
netmp=$(mktemp -d /tmp/fc-cli-ncclenv-XXXXXX)
# A recorded /sys: two interfaces, one HCA, no peermem, no nvidia driver.
mkdir -p "$netmp/sys/class/net/eth0" "$netmp/sys/class/net/lo" "$netmp/sys/class/infiniband/mlx5_0"
# A stand-in libnccl.so.2 with three names, for the library path.
printf 'const char *const n[] = { "NCCL_IB_HCA set to %%s", "NCCL_DEBUG", "NCCL_FAKE_NEW" };\nint f(int i) { return n[i][0]; }\n' >"$netmp/fake.c"
cc -shared -fPIC -o "$netmp/libnccl.so.2" "$netmp/fake.c"
printf 'export NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ib0 NCCL_NET_GDR_LEVEL=PHB NCCL_IB_HCA=mlx5_4\n' >"$netmp/host.sh"
printf "export NCCL_DEBUG='INFO\n" >"$netmp/badquote.sh"
echo '{"gpus": 1}' >"$netmp/badtopo.json"
printf 'export NCCL_SOCKET_IFNAME=eth\xff0 NCCL_DEBUG=INFO\n' >"$netmp/latin1.sh"

expect "nccl-env help" 0 'usage: fabcheck nccl env' -- $FC nccl env --help
expect "nccl-env bad option" 2 'usage: fabcheck nccl env' -- $FC nccl env --frob
expect "nccl-env extra arg" 2 "unexpected argument 'x'" -- $FC nccl env x
expect "nccl-env no file" 2 "--file /nonexistent.sh: cannot open" -- $FC nccl env -f /nonexistent.sh
expect "nccl-env unterminated quote" 2 "badquote.sh:1: quote not closed" -- $FC nccl env -f "$netmp/badquote.sh"
expect "nccl-env topo not json" 2 "--topo $NE/job.sh: .*expected the JSON of 'fabcheck topo --json'" -- $FC nccl env -f $NE/clean.env --topo $NE/job.sh
expect "nccl-env topo wrong shape" 2 'no "gpus" and "nics" lists' -- $FC nccl env -f $NE/clean.env --topo "$netmp/badtopo.json"
expect "nccl-env lib and shipped" 2 'exclude each other' -- $FC nccl env --shipped --nccl-lib x
expect "nccl-env lib missing" 3 '/nonexistent/libnccl.so.2: cannot open' -- $FC nccl env --nccl-lib /nonexistent/libnccl.so.2
expect "nccl-env lib not nccl" 3 'no NCCL_\* names inside' -- $FC nccl env --nccl-lib "$netmp/badtopo.json"
# Every status from one job script; the typo gets its suggestion.
expect "nccl-env statuses" 1 'NCCL_SOCKET_IFNAMES=eth0 \(line 4\): no NCCL reads NCCL_SOCKET_IFNAMES.*did you mean NCCL_SOCKET_IFNAME\?' -- $FC nccl env -f $NE/job.sh --shipped --no-host
# The table's WHY is cut to the terminal at a word (issue 39 item 3); the
# finding under it says the whole text.
expect "nccl-env: the table row fits 100 columns, its WHY cut at a word" 1 '^5 +NCCL_MAX_NRINGS +8 +deprecated +renamed NCCL_MAX_NCHANNELS in 2\.5 .* \.\.\.$' -- \
	env -u COLUMNS $FC nccl env -f $NE/job.sh --shipped --no-host
expect "nccl-env deprecated" 1 'NCCL_MAX_NRINGS=8 \(line 5\): renamed NCCL_MAX_NCHANNELS .*use NCCL_MAX_NCHANNELS' -- $FC nccl env -f $NE/job.sh --shipped --no-host
expect "nccl-env invalid size" 1 'NCCL_BUFFSIZE=4M \(line 7\): .*write 4194304' -- $FC nccl env -f $NE/job.sh --shipped --no-host
expect "nccl-env ib disable" 1 'NCCL_IB_DISABLE=1 \(line 8\): makes NCCL use TCP sockets, for RoCE as much as for InfiniBand, so NCCL_IB_GID_INDEX has no effect' -- $FC nccl env -f $NE/job.sh --shipped --no-host
expect "nccl-env json" 1 '"status": "invalid",' -- $FC nccl env -f $NE/job.sh --shipped --no-host --json
expect "nccl-env json verdict" 1 '"verdict": "fail"' -- $FC nccl env -f $NE/job.sh --shipped --no-host --json
expect "nccl-env shipped source" 0 'known names: [0-9]+ from the list shipped with fabcheck \(NCCL 2\.28\.9, plus names of 2\.31\.2\)' -- $FC nccl env -f $NE/clean.env --shipped --no-host
expect "nccl-env clean with topo" 0 'verdict: pass' -- $FC nccl env -f $NE/clean.env --topo $NE/topo-2gpu.json --no-host
expect "nccl-env gdr vs topo" 1 'PIX is stricter than the path from GPU1 \(PXB\)' -- $FC nccl env -f /dev/stdin --topo $NE/topo-2gpu.json --no-host --shipped <<<'NCCL_NET_GDR_LEVEL=PIX'
expect "nccl-env stdin" 0 'NCCL settings from -: 1 variable' -- $FC nccl env -f - --no-host --shipped <<<'NCCL_DEBUG=INFO'
# The environment of the process, when no --file.
expect "nccl-env environment" 0 'NCCL_DEBUG_SUBMIT=INIT: no NCCL reads .*NCCL_DEBUG_SUBSYS' -- env NCCL_DEBUG_SUBMIT=INIT $FC nccl env --shipped --no-host
expect "nccl-env environment input" 0 'from the environment' -- env NCCL_DEBUG=INFO $FC nccl env --shipped --no-host
# Against a recorded node: interface, HCA and GPUDirect path.
expect "nccl-env sysfs ifname" 1 'NCCL_SOCKET_IFNAME=ib0 \(line 1\): matches no interface of this node \(eth0, lo\)' -- $FC nccl env -f "$netmp/host.sh" --sysfs "$netmp/sys" --shipped
expect "nccl-env sysfs hca" 1 'NCCL_IB_HCA=mlx5_4 \(line 1\): selects no HCA of this node \(mlx5_0\)' -- $FC nccl env -f "$netmp/host.sh" --sysfs "$netmp/sys" --shipped
expect "nccl-env sysfs gdr" 1 'NCCL_NET_GDR_LEVEL=PHB \(line 1\): no GPUDirect RDMA path on this node' -- $FC nccl env -f "$netmp/host.sh" --sysfs "$netmp/sys" --shipped
# Known names from a library: the one given, or the one the loader finds.
expect "nccl-env nccl-lib" 0 'NCCL_SOCKET_IFNAME=ib0 \(line 1\): the installed NCCL .*does not read it; NCCL 2\.28\.9 does' -- $FC nccl env -f "$netmp/host.sh" --nccl-lib "$netmp/libnccl.so.2" --no-host
expect "nccl-env loader finds lib" 0 "known names: 3 from $netmp/libnccl.so.2" -- env LD_LIBRARY_PATH="$netmp" $FC nccl env -f $NE/clean.env --no-host
expect "nccl-env default source" 0 'known names: [0-9]+ from (/.*libnccl\.so\.2|the list shipped with fabcheck)' -- $FC nccl env -f $NE/clean.env --no-host
# A value that is not UTF-8: kept (its odd byte shown as '?'), judged, named.
expect "nccl-env value not UTF-8: kept and named" 1 "NCCL_SOCKET_IFNAME=eth.0 \\(line 1\\): the value is not valid UTF-8" -- \
	$FC nccl env -f "$netmp/latin1.sh"
expect "nccl-env value not UTF-8: in the JSON" 0 '^ok$' -- sh -c \
	"$FC nccl env -f '$netmp/latin1.sh' --json | python3 -c \"import json,sys; d=json.load(sys.stdin); v=[x for x in d['variables'] if x['name']=='NCCL_SOCKET_IFNAME']; print('ok' if d['verdict']=='fail' and len(d['variables'])==2 and v[0]['value']=='eth?0' and v[0]['status']=='invalid' and any('not valid UTF-8' in f for f in d['findings']) else d)\""
rm -rf "$netmp"

