# Cases for `fabcheck nccl run` (sourced by tests/cli/run.sh). This host has
# no GPU and no libcuda.so.1; the run's plumbing is tested with stand-ins
# for libcuda.so.1 and libnccl.so.2 (tests/ncclrun/*.c, loaded through
# FABCHECK_LIBCUDA / FABCHECK_LIBNCCL) that test fabcheck, not CUDA or NCCL.
NRC=build/tests/libfakencclcuda.so
NRN=build/tests/libfakenccl.so
mkdir -p build/tests
${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$NRC" tests/gdr/fakecuda.c &&
	${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -DFAKE_OLD -o build/tests/libfakencclcuda-old.so tests/gdr/fakecuda.c &&
	${CC:-cc} -Wall -Wextra -Werror -shared -fPIC -o "$NRN" tests/ncclrun/fakenccl.c ||
	echo "FAIL: cannot build the libcuda / libnccl stand-ins"
export FAKENCCL_DIR=$(mktemp -d)
NRTMP=$(mktemp -d) # the ranks' TMPDIR: their NCCL logs go there, and must not stay
RUN="$FC nccl run --launcher local"
FAKES="env TMPDIR=$NRTMP FAKECUDA_BUSES=3b,3c FABCHECK_LIBCUDA=$PWD/$NRC FABCHECK_LIBNCCL=$PWD/$NRN"
# nr_jq FILTER [VAR=VALUE...] [OPTION...] NODE...: `nccl run -e 4K --json` on
# the stand-ins with the environment given, its document through jq -r FILTER.
nr_jq() {
	local q=$1 env=()
	shift
	while [[ $1 == *=* ]]; do env+=("$1"); shift; done
	$FAKES "${env[@]}" $RUN -e 4K --json "$@" | jq -r "$q"
}
REAL_NCCL=$(ldconfig -p 2>/dev/null | awk '/libnccl.so.2 /{print $NF; exit}')
[ -n "$REAL_NCCL" ] || REAL_NCCL=$(ls /usr/local/cuda*/lib*/libnccl.so.2 2>/dev/null | head -1)

# options
expect "nccl run --help" 0 'usage: fabcheck nccl run NODE' -- $FC nccl help run
expect "nccl run no node" 2 'no node given' -- $FC nccl run
expect "nccl run bad node" 2 "'a;b' is not a node name" -- $FC nccl run 'a;b'
expect "nccl run node twice" 2 "node 'n1' is given twice" -- $FC nccl run n1 n1
expect "nccl run bad op" 2 "--op: 'bcast' is not an operation" -- $FC nccl run --op bcast n1
expect "nccl run min above max" 2 'min-bytes 4096 is above --max-bytes 1024' -- \
	$FC nccl run -b 4K -e 1K n1
expect "nccl run bad size" 2 "max-bytes: '1Q'" -- $FC nccl run -e 1Q n1
expect "nccl run bad factor" 2 'step-factor' -- $FC nccl run -f 1 n1
expect "nccl run gpus 0" 2 'gpus-per-node' -- $FC nccl run -g 0 n1
expect "nccl run too many ranks" 2 'more than the 256 ranks' -- $FC nccl run -g 64 a b c d e
expect "nccl run bad launcher" 2 "'rsh' is not a launcher" -- $FC nccl run --launcher rsh n1
expect "nccl run bad log dir" 2 "--log-dir: cannot keep the logs in '/etc/hostname/x': give a new folder" -- \
	$FC nccl run --log-dir /etc/hostname/x n1
expect "nccl run bad expect-net" 2 "expect-net: 'a b' is not a network" -- \
	$FC nccl run --expect-net 'a b' n1

# no GPU here: the real driver is missing
expect "nccl run no libcuda" 3 'localhost: no CUDA driver: cannot load libcuda.so.1.*install the NVIDIA driver' -- \
	$RUN localhost
expect "nccl run no libcuda json" 3 '"verdict": "fail"' -- $RUN --json localhost
expect "nccl run no libcuda, 2 GPUs, one finding" 3 'GPU 0\): no CUDA driver' -- \
	bash -c "$RUN -g 2 --json localhost | python3 -c 'import json, sys; sys.exit(sum(\"no CUDA driver\" in f for f in json.load(sys.stdin)[\"findings\"]) != 1)' && $RUN -g 2 localhost"
# no NCCL
expect "nccl run no libnccl" 3 'no NCCL: cannot load /nonexistent.*install NCCL' -- \
	env FABCHECK_LIBNCCL=/nonexistent FABCHECK_LIBCUDA=$PWD/$NRC $RUN localhost
expect "nccl run no libnccl nor libcuda" 3 'no CUDA driver.*; and no NCCL' -- \
	env FABCHECK_LIBNCCL=/nonexistent FABCHECK_LIBCUDA=/nonexistent $RUN localhost
expect "nccl run not nccl" 3 'has no ncclGetVersion: NCCL is older than 2.4 or this is not NCCL' -- \
	env FABCHECK_LIBNCCL=$PWD/$NRC FABCHECK_LIBCUDA=$PWD/$NRC $RUN localhost
expect "nccl run old driver" 3 'has no cuMemAlloc_v2: the CUDA driver is too old' -- \
	env FABCHECK_LIBNCCL=$PWD/$NRN FABCHECK_LIBCUDA=$PWD/build/tests/libfakencclcuda-old.so $RUN localhost
# the driver says no
expect "nccl run no device" 3 'no GPU: cuInit failed: CUDA_ERROR_NO_DEVICE' -- \
	env FAKECUDA=nodev $FAKES $RUN localhost
expect "nccl run cuInit 802" 3 'no GPU: cuInit failed: .*802.*nvidia-fabricmanager' -- \
	env FAKECUDA=nofm $FAKES $RUN localhost
expect "nccl run stub driver" 3 'CUDA_ERROR_STUB_LIBRARY' -- env FAKECUDA=stub $FAKES $RUN localhost
expect "nccl run more GPUs than there are" 3 'GPU 2 is asked for.*sees 2 GPUs' -- \
	$FAKES $RUN -g 3 -e 4K localhost
expect "nccl run oom" 3 'cannot allocate 2 x 1073741824 bytes on GPU 0.*lower --max-bytes' -- \
	env FAKECUDA=oom $FAKES $RUN localhost
# the real NCCL of this host with the stand-in driver: NCCL's own CUDA calls fail
if [ -n "$REAL_NCCL" ]; then
	expect "nccl run real nccl, no real driver" 3 'ncclCommInitRank \(rank 0 of 1\) failed: .*NCCL error 1.*NCCL cannot use the CUDA driver' -- \
		env FABCHECK_LIBNCCL=$REAL_NCCL FABCHECK_LIBCUDA=$PWD/$NRC $RUN -e 4K --timeout 20 localhost
fi

# the whole run through the stand-ins
expect "nccl run 2 ranks" 0 'all_reduce over 2 ranks.*NCCL 2\.28\.9' -- $FAKES $RUN -g 2 -e 64K localhost
expect "nccl run table" 0 '65536 +16384 +float' -- $FAKES $RUN -g 2 -e 64K localhost
expect "nccl run sockets found in the log" 0 'NCCL log: inter-node traffic uses TCP sockets' -- \
	$FAKES $RUN -g 2 -e 4K localhost
expect "nccl run: too few open files for every rank" 3 'nccl run: 2 workers at once need 70 open files \(3 each and 64 for itself\), but the open-file limit \(RLIMIT_NOFILE\) stops at 69: this controller can drive 1 at once; raise the hard limit' -- \
	bash -c "ulimit -n 69 && $FAKES $RUN -g 2 -e 4K localhost"
expect "nccl run expect-net IB fails" 1 'verdict: fail' -- \
	$FAKES $RUN -g 2 -e 4K --expect-net IB localhost
expect "nccl run IB with GDR passes" 0 'verdict: pass' -- \
	env FAKENCCL=ib $FAKES $RUN -g 2 -e 4K --expect-net IB --expect-gdr localhost
expect "nccl run sizes and busbw" 0 '^3 1024,4096,16384 1$' -- bash -c \
	"$FAKES $RUN -g 2 -b 1K -e 16K -f 4 -n 3 -w 1 --json localhost | jq -r '[(.results|length), ([.results[].size_bytes]|map(tostring)|join(\",\")), ([.results[] | (.busbw_gbytes_s / .algbw_gbytes_s)] | unique | .[0])] | join(\" \")'"
expect "nccl run 1 rank busbw 0" 0 '^0$' -- bash -c \
	"$FAKES $RUN -e 4K --json localhost | jq '[.results[].busbw_gbytes_s] | add'"
expect "nccl run json shape" 0 '^2 2 "pass|warn" 0000:3C:00.0 Socket$' -- bash -c \
	"$FAKES $RUN -g 2 -e 4K --json localhost | jq -r '[.nranks, (.ranks|length), (.verdict|test(\"pass|warn\")|tostring|\"\\\"pass|warn\\\"\"), .ranks[1].gpu_bus_id, .nccl_log.network] | join(\" \")'"
NRSYS=$(mktemp -d)
bash tests/topo/mksysfs.sh "$NRSYS" dgx
expect "nccl run: nearest HCA judged with the node's topology" 0 'topo_node=localhost .*GPU0\).*moves data on mlx5_1' -- bash -c \
	"FAKENCCL=ib,far FABCHECK_SYSFS=$NRSYS $FAKES $RUN -g 2 -e 4K --json localhost | jq -r '\"topo_node=\\(.topo_node) \\(.findings|join(\" \"))\"'"
expect "nccl run: same HCA as topo, no warning" 0 '^pass$' -- bash -c \
	"FAKENCCL=ib FABCHECK_SYSFS=$NRSYS $FAKES $RUN -g 2 -e 4K --json localhost | jq -r .verdict"
rm -rf "$NRSYS"
# busbw against the rails: two nodes, one 400 Gb/s HCA each: 1 x 400/8 x 0.94 = 47 GB/s,
# far above what the stand-in's timing gives; one node expects nothing of the network
expect "nccl run: busbw against the rails" 0 '^47 warn .*of the 47.0 GB/s the rails can carry \(1 of 1 HCAs' -- \
	nr_jq '"\(.rails.expected_busbw_gbytes_s) \(.verdict) \(.findings|join(" "))"' FAKENCCL=ib localhost 127.0.0.1
# one card of two 200G ports that NCCL 2.24+ fuses (FAKENCCL=fused: NET/IB/2
# is mlx5_0+mlx5_1): one NIC of 400, 1 x 400/8 x 0.94 = 47 GB/s; counted as
# two rails of 200 it was 23.5 (one GPU per node drives one of them)
expect "nccl run: a fused dual-port NIC is one rail at both ports' rate" 0 '^1 400 47 mlx5_0\+mlx5_1$' -- \
	nr_jq '.rails | [.count, .rate_gbit_s, .expected_busbw_gbytes_s, .nics[0].name] | map(tostring) | join(" ")' FAKENCCL=ib,fused localhost 127.0.0.1
# --db: the run's peak busbw recorded, and plan --db takes the fabric from it.
expect "nccl run --db, plan --db" 0 'fabric as the store measured it.*nccl run 1 \(2 nodes x 1 GPU, peak busbw' -- bash -c \
	"FAKENCCL=ib $FAKES $RUN -e 4K --db $NRTMP/nr.db --json localhost 127.0.0.1 >/dev/null; $FC plan --params 7B --gpus 16 --db $NRTMP/nr.db | tr '\\n' ' '; rm -f $NRTMP/nr.db*"
expect "nccl run: one node, no rail expectation" 0 '^null one node' -- \
	nr_jq '"\(.rails.expected_busbw_gbytes_s) \(.rails.why_none)"' FAKENCCL=ib localhost
# the algorithm's factor: NCCL_ALGO=Tree on three nodes of one GPU: (n-1)/n = 2/3 of 47 GB/s
expect "nccl run: NCCL_ALGO=Tree on three nodes" 0 '^tree 0.667 31.3 ' -- \
	nr_jq '"\(.rails.algorithm) \(.rails.algorithm_factor*1000|round/1000) \(.rails.expected_busbw_gbytes_s*10|round/10) \(.rails.nccl_algo)"' FAKENCCL=ib NCCL_ALGO=Tree a b c
expect "nccl run: NCCL_ALGO=CollnetDirect is not modelled" 0 '^null none NCCL_ALGO allows no algorithm .*CollNet' -- \
	nr_jq '"\(.rails.expected_busbw_gbytes_s) \(.rails.algorithm) \(.rails.why_none)"' FAKENCCL=ib NCCL_ALGO=CollnetDirect a b
# a value NCCL ignores whole (a word it does not know): every algorithm, the smallest factor
expect "nccl run: NCCL_ALGO that NCCL ignores" 0 "^tree 0.667 'rnig' is not an algorithm NCCL knows" -- \
	nr_jq '"\(.rails.algorithm) \(.rails.algorithm_factor*1000|round/1000) \(.rails.nccl_algo_ignored)"' FAKENCCL=ib NCCL_ALGO=ring,rnig a b c
# no rate in the log (before 2.27): said, and --rail-gbps gives it
expect "nccl run: no link rate in the log" 0 '^null .*give it with --rail-gbps' -- \
	nr_jq '"\(.rails.expected_busbw_gbytes_s) \(.rails.why_none)"' FAKENCCL=ib,norate a b
expect "nccl run --rail-gbps where the log has no rate" 0 '^23.5 --rail-gbps 200$' -- \
	nr_jq '"\(.rails.expected_busbw_gbytes_s) \(.rails.rate_from) \(.rails.rate_gbit_s)"' FAKENCCL=ib,norate --rail-gbps 200 a b
expect "nccl run --rail-gbps against the log's rate" 0 'the NCCL log gives 400 Gb/s for its slowest HCA where --rail-gbps says 200' -- bash -c \
	"FAKENCCL=ib $FAKES $RUN -e 4K --rail-gbps 200 a b"
expect "nccl run --rail-gbps: not a rate" 2 'rail-gbps' -- $RUN --rail-gbps fast a b
# the slurm launcher starts 'nccl-worker' steps: an srun stand-in that runs them here
NRSRUN=$(mktemp -d)
printf '#!/bin/sh\n# srun stand-in: drops its options (--nodelist -N1 -n1 --quiet ...), runs the step here\nwhile [ "${1#-}" != "$1" ]; do shift; done\nexec "$@"\n' >"$NRSRUN/srun"
chmod +x "$NRSRUN/srun"
expect "nccl run --launcher slurm starts nccl-worker steps" 0 'all_reduce over 2 ranks' -- \
	env PATH="$NRSRUN:$PATH" $FAKES $FC nccl run --launcher slurm --worker-cmd "$(realpath "$FC")" -e 4K a b
rm -rf "$NRSRUN"
# A rank that floods its NCCL log (9 MiB, past the controller's 8 MiB bound)
# is refused, naming it; one under the bound is taken.
expect "nccl run: a rank that floods its log is refused" 3 'its NCCL log is over 8 MiB: refused' -- \
	env FAKENCCL=ib FC_REAL="$(realpath "$FC")" FLOOD_MIB=9 $FAKES timeout 120 $RUN --worker-cmd tests/cli/flood-worker.sh -g 2 -e 4K localhost
expect "nccl run: a log under the bound is taken" 0 'all_reduce over 2 ranks' -- \
	env FAKENCCL=ib FC_REAL="$(realpath "$FC")" FLOOD_MIB=1 $FAKES timeout 120 $RUN --worker-cmd tests/cli/flood-worker.sh -g 2 -e 4K localhost
expect "nccl run wrong sums fail" 1 'all_reduce of 1024 bytes gave 2 wrong sums' -- \
	env FAKENCCL=badsum $FAKES $RUN -g 2 -e 4K localhost
expect "nccl run init fails" 1 'ncclCommInitRank \(rank 1 of 2\) failed: internal error.*NCCL said: fake: bootstrap' -- \
	env FAKENCCL=initfail $FAKES $RUN -g 2 -e 4K localhost
expect "nccl run init hangs: deadline" 1 'ncclCommInitRank \(rank 0 of 2\) did not return within its deadline' -- \
	env FAKENCCL=hang $FAKES timeout 30 $RUN -g 2 -e 4K --timeout 2 localhost
expect "nccl run local init error named local" 3 'ncclCommInitRank \(rank [01] of 2\) failed: .*a local fault of this rank, not the fabric' -- \
	env FAKENCCL=initusage $FAKES $RUN -g 2 -e 4K localhost
# A rank whose all_reduce never returns: its watchdog ends it at the deadline.
expect "nccl run all_reduce hangs: deadline" 1 'ncclAllReduce of [0-9]+ bytes \(rank 1\) did not return within its deadline' -- \
	env FAKENCCL=arhang $FAKES timeout 60 $RUN -g 2 -e 4K --timeout 2 localhost
# A rank killed mid-run: the run ends, naming it, and no rank is left behind.
# (its own TMPDIR: a killed rank cannot remove its NCCL log)
NRDIE=$(mktemp -d)
expect "nccl run rank killed mid-run" 3 'rank 1 on localhost \(GPU 1\): the worker exited with status 9' -- \
	env FAKENCCL=ardie $FAKES TMPDIR=$NRDIE timeout 60 $RUN -g 2 -e 4K --timeout 5 localhost
rm -rf "$NRDIE"
# The controller killed while a rank hangs inside NCCL: the rank exits too
# (its watchdog sees the controller's pipe close), it does not keep its GPU.
NRHUNG=$(mktemp -d)
expect "nccl run: a hung rank exits when the controller goes away" 0 '^gone$' -- bash -c "
	env FAKENCCL=arhang $FAKES FAKENCCL_DIR=$NRHUNG TMPDIR=$NRHUNG $RUN -g 2 -e 4K --timeout 120 localhost >/dev/null 2>&1 &
	c=\$!
	for i in \$(seq 100); do ls $NRHUNG/hung.* >/dev/null 2>&1 && break; sleep 0.1; done
	kill -9 \$c; p=\$(ls $NRHUNG | sed -n 's/^hung\.//p')
	[ -n \"\$p\" ] || { echo no-hung-rank; exit 0; }
	for i in \$(seq 50); do kill -0 \$p 2>/dev/null || { echo gone; exit 0; }; sleep 0.1; done
	kill -9 \$p; echo still-there"
rm -rf "$NRHUNG"
expect "nccl run no log" 0 'no rank sent NCCL_DEBUG=INFO lines back' -- \
	env FAKENCCL=nolog $FAKES $RUN -e 4K localhost
NRLOG=$(mktemp -d)
expect "nccl run log-dir" 0 'Init COMPLETE' -- bash -c \
	"$FAKES $RUN -g 2 -e 4K --log-dir $NRLOG/logs localhost >/dev/null && cat $NRLOG/logs/localhost-rank1.log"
# --log-dir is written as --save-evidence (core/safefile.c): a link planted
# at a log's name is removed, not followed; a folder that is not fabcheck's
# (it holds files) is refused before the run.
echo keep >"$NRLOG/victim"
ln -sf "$NRLOG/victim" "$NRLOG/logs/localhost-rank0.log"
expect "nccl run log-dir: a planted link is not followed" 0 '^keep file$' -- bash -c \
	"$FAKES $RUN -g 2 -e 4K --log-dir $NRLOG/logs localhost >/dev/null; echo \$(cat $NRLOG/victim) \$([ -f $NRLOG/logs/localhost-rank0.log ] && [ ! -L $NRLOG/logs/localhost-rank0.log ] && echo file)"
# a folder (not empty) at rank 1's log name: it is not removed, that log
# is not written, the run goes on; the warning names the rank.
rm -f "$NRLOG/logs/localhost-rank1.log"
mkdir -p "$NRLOG/logs/localhost-rank1.log/x"
expect "nccl run log-dir: rank 1's log is not kept" 0 "^fabcheck: warning: --log-dir: rank 1's log is not kept\$" -- \
	$FAKES $RUN -g 2 -e 4K --log-dir $NRLOG/logs localhost
rm -rf "$NRLOG/logs/localhost-rank1.log"
expect "nccl run log-dir: a folder that is not fabcheck's is refused" 2 \
	"folder '$NRLOG' already holds files and is not a fabcheck evidence folder" -- \
	$FAKES $RUN -g 2 -e 4K --log-dir "$NRLOG" localhost
expect "nccl run NCCL_* relayed to the ranks" 0 '^3$' -- \
	nr_jq '.nccl_log.env.NCCL_IB_GID_INDEX' NCCL_IB_GID_INDEX=3 localhost
expect "nccl run: a stalled stream hits its deadline" 1 \
	'all_reduce of 1024 bytes did not complete within 1 s on rank 1: a peer rank stalled' -- \
	env FAKECUDA=stall $FAKES timeout 30 $RUN -g 2 -e 4K --timeout 1 localhost
# a controller killed while NCCL init hangs: its ranks notice and exit, cleaning up
expect "nccl run: ranks exit when the controller dies" 0 '^ranks 2, left 0$' -- bash -c "
	FAKENCCL=hang $FAKES $RUN -g 2 -e 4K --timeout 60 localhost >/dev/null 2>&1 & c=\$!
	sleep 2; ranks=\$(pgrep -P \$c); kill -9 \$c
	for t in \$(seq 50); do # up to 10 s on a loaded machine; zombies count as gone
		left=0
		for p in \$ranks; do
			st=\$(ps -o stat= -p \$p 2>/dev/null)
			[ -n \"\$st\" ] && [ \"\${st#Z}\" = \"\$st\" ] && left=\$((left + 1))
		done
		[ \$left -eq 0 ] && break; sleep 0.2
	done
	echo \"ranks \$(echo \$ranks | wc -w), left \$left\"
	[ \$left -eq 0 ] || kill -9 \$ranks 2>/dev/null"
expect "nccl run leaves no temp files" 0 '^0$' -- bash -c "ls -A $NRTMP | wc -l"
rm -rf "$NRLOG" "$FAKENCCL_DIR" "$NRTMP"
