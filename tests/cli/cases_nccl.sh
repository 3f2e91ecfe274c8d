# Cases for `fabcheck nccl` (sourced by tests/cli/run.sh).
NL=$FABCHECK_SHARED/fixtures/nccl-logs
TD=tests/data/nccl
expect "nccl no subcommand" 2 'usage: fabcheck nccl' -- $FC nccl
expect "nccl --help" 0 'check-log' -- $FC nccl --help
expect "nccl check-log --help" 0 'usage: fabcheck nccl check-log' -- $FC nccl check-log --help
expect "nccl help check-log" 0 'usage: fabcheck nccl check-log' -- $FC nccl help check-log
expect "nccl unknown subcommand" 2 "'bogus' is not a fabcheck nccl command" -- $FC nccl bogus
expect "check-log no file" 2 'no log file given' -- $FC nccl check-log
expect "check-log bad option" 2 'usage: fabcheck nccl check-log' -- $FC nccl check-log --frob x
expect "check-log missing file" 3 'nope.log: cannot open: No such file' -- $FC nccl check-log nope.log
expect "check-log directory" 3 'cannot read: Is a directory' -- $FC nccl check-log tests
expect "check-log not a log" 3 'notalog.txt: no NCCL lines found' -- $FC nccl check-log $TD/notalog.txt
expect "check-log not a log json" 3 '"verdict": "fail"' -- $FC nccl check-log --json $TD/notalog.txt
expect "check-log empty expect-net" 2 "expect-net: '' is not a network" -- \
	$FC nccl check-log --expect-net '' $TD/crlf.log
expect "check-log odd expect-net" 2 "expect-net: 'a;b' is not a network" -- \
	$FC nccl check-log --expect-net 'a;b' $TD/crlf.log
expect "check-log bad hca port" 2 "expect-hca: 'mlx5_0:x' is not a HCA list" -- \
	$FC nccl check-log --expect-hca mlx5_0:x $TD/crlf.log
expect "check-log empty hca list" 2 "expect-hca: ',' is not a HCA list" -- \
	$FC nccl check-log --expect-hca , $TD/crlf.log
expect "check-log topo missing" 3 'topo nope.json: cannot read' -- \
	$FC nccl check-log --topo nope.json $TD/crlf.log
expect "check-log topo not json" 3 'not JSON' -- $FC nccl check-log --topo $TD/crlf.log $TD/crlf.log
expect "check-log topo wrong shape" 3 'no "gpus" list' -- \
	$FC nccl check-log --topo <(echo '{"nics":[]}') $TD/crlf.log
expect "check-log topo nearest" 0 'rank 0 \(n1, GPU0\) moves data on mlx5_1' -- \
	$FC nccl check-log --topo $TD/topo.json $TD/topo-near.log
expect "check-log stdin" 0 'version     2.11.4' -- bash -c "$FC nccl check-log - < $TD/crlf.log"
expect "check-log two files" 0 'notalog.txt holds no NCCL lines' -- \
	$FC nccl check-log $TD/crlf.log $TD/notalog.txt
expect "check-log tables" 0 'NET/IB/0/GDRDMA +mlx5_2' -- $FC nccl check-log $TD/crlf.log
expect "check-log json valid" 0 '"network": "IB"' -- \
	bash -c "set -o pipefail; $FC nccl check-log --json $TD/interleaved.log | python3 -m json.tool"
# Its figures (issue 39 item 5): 17 lines; 16 NCCL lines (15 records, the
# glued line holding two, and the bare "NCCL version" line); 3 NET channel
# lines, 2 of them /GDRDMA.
expect "check-log counts its lines" 0 '^NCCL log: 1 file, 17 lines, 16 NCCL lines$' -- \
	$FC nccl check-log $TD/interleaved.log
expect "check-log counts the NET channels with GDRDMA" 0 '\(2 of 3 NET channels with /GDRDMA\)' -- \
	$FC nccl check-log $TD/interleaved.log
expect "check-log expect-net IB on sockets" 1 'but IB was expected' -- \
	$FC nccl check-log --expect-net IB "$NL/nccl-2.5.6_ib-disabled_socket-ipv6.log"
expect "check-log expect-hca missing" 1 'not mlx5_0 \(--expect-hca\)' -- \
	$FC nccl check-log --expect-hca mlx5_0,mlx5_10 "$NL/nccl-2.11.4_a100_4hca-ib_gdrdma.log"
expect "check-log expect-gdr off" 1 'GPUDirect RDMA is off' -- \
	$FC nccl check-log --expect-gdr "$NL/nccl-2.2x_ib_no-gdr_p2p-direct_init-timings.log"
expect "check-log all met" 0 'verdict: pass' -- $FC nccl check-log --expect-net IB \
	--expect-hca mlx5_10,mlx5_13:1 --expect-gdr "$NL/nccl-2.11.4_a100_4hca-ib_gdrdma.log"
# Every fixture: the verdict its expectations state, the matching exit code,
# and a JSON document that parses.
if [ -d "$NL" ]; then
	for log in "$NL"/*.log; do
		b=$(basename "$log" .log)
		hint=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict_hint"])' \
			"$NL/$b.expect.json")
		rc=0
		[ "$hint" = fail ] && rc=1
		expect "fixture $b" "$rc" "^verdict: $hint(, |\$)" -- $FC nccl check-log "$log"
		expect "fixture $b json" "$rc" "\"verdict\": \"$hint\"" -- \
			bash -c "set -o pipefail; $FC nccl check-log --json '$log' | python3 -m json.tool"
	done
else
	expect "nccl fixtures present" 0 'x' -- false
fi

# check-log judges the NCCL_* settings a log echoes as `nccl env` does (issue 8 item 6)
expect "check-log env notes keep a pass" 0 'NCCL_MAX_NRINGS +4 +deprecated.*verdict: pass' -- \
	bash -c "$FC nccl check-log $TD/env-notes.log | tr '\n' ' '"
expect "check-log env misread" 0 'NCCL_CROSS_NIC=5 \(echoed by NCCL\): 5 is out of range' -- \
	$FC nccl check-log $TD/env-misread.log
expect "check-log env status json" 0 '^NCCL_ALGO=invalid NCCL_CROSS_NIC=invalid NCCL_IB_HCA=invalid NCCL_IB_TIMEOUT=invalid$' -- \
	bash -c "$FC nccl check-log --json $TD/env-misread.log | jq -r '[.env_status[] | \"\(.name)=\(.status)\"] | sort | join(\" \")'"
# (one finding; the summary under the verdict names it again, its problem)
expect "check-log env conflict one line" 0 '^1$' -- \
	bash -c "$FC nccl check-log $TD/env-conflict.log | grep -c '^  - .*(echoed by NCCL):'"
expect "check-log env gdr level vs topo" 0 'NCCL_NET_GDR_LEVEL=PIX \(echoed by NCCL\): PIX is stricter than the path from GPU0 \(PXB\)' -- \
	$FC nccl check-log --topo $TD/topo-pxb.json $TD/env-gdr-level.log
# Nothing cut without a word: a 5,000-host log keeps every host; files past
# the 1,024 listed are said (in the findings and in "cut").
NCT=$(mktemp -d /tmp/fabcheck-cli-nccl.XXXXXX)
python3 -c "
for h in range(5000): print('n%05d:%d:%d [0] NCCL INFO Bootstrap : Using ib0:10.1.%d.%d<0>' % (h, 100 + h, 100 + h, h // 250, h % 250))" >"$NCT/5k.log"
expect "check-log 5,000 hosts: every host kept" 0 '^5000 None$' -- sh -c \
	"$FC nccl check-log '$NCT/5k.log' --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d[\"hosts\"], d[\"cut\"])'"
mkdir "$NCT/many"
for i in $(seq 1030); do
	echo "h$i:1:1 [0] NCCL INFO Bootstrap : Using ib0:10.2.0.1<0>" >"$NCT/many/r$i.log"
done
expect "check-log 1,030 files: the cut is said" 0 '^1024 6 True$' -- sh -c \
	"$FC nccl check-log '$NCT'/many/*.log --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"files\"]), d[\"cut\"][\"files\"][\"not_listed\"], any(\"6 files past the first 1024\" in f for f in d[\"findings\"]))'"
rm -rf "$NCT"
# The busbw to expect and nccl-tests' figure judged (worked in tests/unit/test_nclbusbw.c):
# two nodes of 8 ranks, 8 HCAs at 400 Gb/s: 8 x 400 / 8 x 0.94 = 376 GB/s; 368 measured = 98%.
NBW=$(mktemp -d)
{
	for n in 0 1; do for g in 0 1 2 3 4 5 6 7; do
		echo "node$n:10$g:10$g [$g] NCCL INFO comm 0x5 rank $((n * 8 + g)) nRanks 16 nNodes 2 localRanks 8 localRank $g MNNVL 0"
	done; done
	echo "node0:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB ; OOB ib0:10.0.0.1<0>"
	echo "# Collective test starting: all_reduce_perf"
	echo "  8589934592    2147483648     float     sum      -1    47133  182.25  364.49      0    47107  182.35  368.00      0"
	echo "# Avg bus bandwidth    : 139.652"
} >"$NBW/ok.log"
sed 's/364.49/150.00/; s/368.00/180.00/' "$NBW/ok.log" >"$NBW/slow.log"
expect "check-log busbw expected and measured" 0 '8 x 400 Gb/s rails \(--rail-gbps\), ring: at most ~376 GB/s busbw across nodes; measured 368 \(nccl-tests. peak busbw\), 98%' -- \
	$FC nccl check-log --rail-gbps 400 "$NBW/ok.log"
expect "check-log busbw under the floor" 0 "nccl-tests' peak busbw 180.0 GB/s is 48% of the 376.0 GB/s the rails can carry" -- \
	$FC nccl check-log --rail-gbps 400 "$NBW/slow.log"
expect "check-log busbw without a rate" 0 'not known \(the NCCL log gives no link rate' -- \
	$FC nccl check-log "$NBW/ok.log"
expect "check-log --rail-gbps not a rate" 2 'rail-gbps' -- $FC nccl check-log --rail-gbps fast "$NBW/ok.log"
rm -rf "$NBW"
