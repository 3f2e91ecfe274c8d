# Cases for messages with figures of ctl/ and pair/ (sourced by
# tests/cli/run.sh; issue 39 item 5), each fed figures known beforehand and
# checked whole: what the controller says of a worker that dies by a
# signal, writes a line without end, says hello with its pid, or reports
# progress whose count stays; srun refusing a step; a control folder
# too long for ssh; a worker whose controller falls silent. The workers are
# stand-ins written here, speaking the wire protocol (worker_lib.sh).
MP=$(mktemp -d /tmp/fc-msgfig-pair2-XXXXXX)
cat >"$MP/worker.sh" <<EOF
#!/usr/bin/env bash
[ "\${1:-}" = devices ] && exit 0
read -r _hello || exit 0
. $(pwd)/tests/cli/worker_lib.sh
EOF
cat >>"$MP/worker.sh" <<'EOF'
case ${W_MODE:-} in
# SIGUSR1 is signal 10 on x86-64 and arm64 (signal(7))
signal) echo "worker: stopped by a test" >&2; kill -s USR1 $$ ;;
# 70000 bytes and no newline: over the wire's 65536-byte line (core/wire.h)
longline) head -c 70000 /dev/zero | tr '\0' x; sleep 10 ;;
hello) say '"hello","version":"9.9","host":"fakehost-7","pid":4242'; read -r _; exit 5 ;;
# the test's count of messages done stays at 7 while progress keeps coming;
# creep: it grows by one a report, too slowly to end the test
stall|creep)
	say '"hello","version":"0","host":"fake","pid":1'
	next setup || exit 1
	say '"setup","device":"fake0","port":1,"link_layer":"Ethernet","mtu":4096,"rate_gbps":2.5,"memory":"host"'
	next connect || exit 1
	say '"connected","path_mtu":4096'
	while next test; do
		t=$msg
		say '"ready"'
		next go || exit 1
		case $t in *'"active":true'*) ;; *) say '"result","seconds":1,"bytes":0,"msgs":0'; continue ;; esac
		d=7
		while :; do
			say "\"progress\",\"done\":$d"
			[ "$W_MODE" = creep ] && d=$((d + 1))
			read -r -t 0.2 _ping
			rc=$?
			[ $rc -eq 0 ] || [ $rc -gt 128 ] || exit 0
		done
	done ;;
esac
EOF
chmod +x "$MP/worker.sh"
MPL=(--launcher local --timeout 3 --no-db --worker-cmd "$MP/worker.sh")
expect "msgfig: a worker killed by signal 10, its last words" 3 \
	'^  - (a|b): the worker was killed by signal 10; it said: worker: stopped by a test$' -- \
	env W_MODE=signal $FC pair "${MPL[@]}" a b
expect "msgfig: a worker's line over 65536 bytes" 3 \
	"^  - (a|b): refused the worker's output: a line over 65536 bytes without a newline$" -- \
	env W_MODE=longline $FC pair "${MPL[@]}" a b
expect "msgfig: -v names the worker's pid, version and host" 3 \
	'^fabcheck: info: a: worker 4242 \(fabcheck 9\.9\) on host fakehost-7$' -- \
	env W_MODE=hello $FC -v pair "${MPL[@]}" a b
# --timeout 3 s: each wait is 3 s and the worker's 2 s (pair_run_int.h
# PRUN_GRACE_S); progress whose count stays ends the test at twice that,
# 10 s, which the finding says (it said "6 s (twice --timeout) with no
# message done" beside "7 messages").
expect "msgfig: a count of messages that stays, 10 s" 1 \
	"the link is slow: 7 messages in (9|10) s of a 2 s test \(0\.000[0-9]+ Gb/s\) when 10 s \(twice the wait: --timeout 3 s, then 2 s for the worker's own report\) with the count of messages done not growing, the worker sending only progress, came;" -- \
	env W_MODE=stall timeout 60 $FC pair "${MPL[@]}" a b --test write --bw -s 64K
# A count that grows, too slowly: the wait goes on to the test's own
# deadline (pair_test_budget: 200 warm-up and N rounds at 1 Mbit/s and 1 ms
# each, and --timeout 3 s), never shorter than one wait (3 s, then 2 s): 100
# rounds, 3 s, end at the 5 s wait; 3000 rounds, 6 s, at that deadline.
expect "msgfig: a slow count, the test's own deadline of 3 s before the 5 s wait" 1 \
	"the link is slow: [0-9]+ of 100 round trips in (4|5) s \([0-9.]+ us a round trip\) when the end of the wait \(5 s: --timeout 3 s, then 2 s for the worker's own report; the test's own deadline, 3 s, came before it\) came;" -- \
	env W_MODE=creep timeout 60 $FC pair "${MPL[@]}" a b --test write --lat -s 2 --iters 100
expect "msgfig: a slow count to the test's own deadline of 6 s" 1 \
	"the link is slow: [0-9]+ of 3000 round trips in (5|6) s \([0-9.]+ us a round trip\) when the test's own deadline \(6 s: its length at 1 Mbit/s and 1 ms a message, and --timeout\) came;" -- \
	env W_MODE=creep timeout 60 $FC pair "${MPL[@]}" a b --test write --lat -s 2 --iters 3000
# srun that cannot make the step: its exit code (7, distinct) and its words.
mkdir -p "$MP/bin"
printf '#!/bin/sh\necho "srun: error: Unable to create step for job 42: Invalid node name specified" >&2\nexit 7\n' >"$MP/bin/srun"
chmod +x "$MP/bin/srun"
expect "msgfig: srun exit 7 before the worker spoke" 3 \
	"^  - node(A|B): srun could not start the worker \(exit 7: srun: error: Unable to create step for job 42: Invalid node name specified\): check that 'srun --nodelist=node(A|B) -N1 -n1 fabcheck version' works" -- \
	env PATH="$MP/bin:$PATH" $FC pair --launcher slurm --timeout 3 --no-db nodeA nodeB
# FABCHECK_SSH_MUX: a folder of 0700 whose path (52 bytes) is over the 44
# a control folder may have (ctl/ssh_mux.h FC_SSH_MUX_DIR_MAX): that is
# the reason said, not "not a folder of this user's".
mkdir -p "$MP/ssh" && ln -s "$(pwd)/tests/cli/stand-in-ssh.sh" "$MP/ssh/ssh"
printf 'user x\ncontrolmaster false\ncontrolpersist no\n' >"$MP/ssh/g-none"
MPD=$MP/a-control-folder-of-0700
mkdir -m 700 "$MPD"
expect "msgfig: FABCHECK_SSH_MUX of ${#MPD} bytes, over 44" 0 \
	"^fabcheck: warning: FABCHECK_SSH_MUX=$MPD: ${#MPD} bytes, over the 44 a control folder may have \(ssh's socket path in it must fit in 104\): ssh connections are not shared$" -- \
	bash -c "env -u XDG_RUNTIME_DIR PATH='$MP/ssh:$PATH' SSH_ARGV='$MP/argv' SSH_HOME='$MP/ssh' SSH_G_OUT='$MP/ssh/g-none' FABCHECK_SSH_MUX='$MPD' $FC preflight nodeA --timeout 5 2>&1; true"
# The worker's side: hello with --timeout 0 gives the controller 0 * 3 + 10
# s (ctl/wk_io.c) to send the next message or a ping.
expect "msgfig: worker: no message from the controller for 10 s" 3 \
	'^fabcheck worker@n: error: no message from the controller for 10 s, not even a ping: it hangs or its host is unreachable; giving up$' -- \
	bash -c "(printf '%s\n' '{\"v\":1,\"seq\":1,\"type\":\"hello\",\"node\":\"n\",\"timeout\":0}'; sleep 11) | $FC worker"
# --resume-passed (ctl/drain_run.c) on the stand-in Slurm: a 4-node matrix
# that passed (rack4-healthy.json). nodeB's drain came from a comparison
# across 5 nodes: 4 cannot clear it. nodeC's came from one across 3: it is
# resumed, and the 4 compared now are not said to be the drain's 3;
# nodeD's across 4, as this run: resumed by the same comparison.
MPS=$MP/slurm
mkdir -p "$MPS"
printf 'IDLE\n\n' >"$MPS/nodeA"
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1 across 4 nodes)\n' >"$MPS/nodeD"
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1 across 5 nodes)\n' >"$MPS/nodeB"
printf 'IDLE+DRAIN\nfabcheck: node (matrix run 1 across 3 nodes)\n' >"$MPS/nodeC"
FABCHECK_SCONTROL=$(pwd)/tests/cli/stand-in-scontrol.sh FAKE_SLURM=$MPS \
	$FC matrix --import tests/data/matrix/rack4-healthy.json --db "$MP/m.db" --resume-passed >"$MP/resume.txt" 2>&1
expect "msgfig: a drain across 5 nodes is left by a run over 4" 0 \
	'^  left +nodeB +passed, but its drain came from a comparison across 5 nodes and this run compared 4: only a run over as many nodes \(the rack\) can clear it: left drained$' -- \
	cat "$MP/resume.txt"
expect "msgfig: a drain across 3 nodes resumed by a run over 4, both said" 0 \
	'^  resume +nodeC +.* State=RESUME: passed matrix \(node\) across 4 nodes, more than the 3 of the comparison that drained it$' -- \
	cat "$MP/resume.txt"
expect "msgfig: a drain across 4 nodes resumed by a run over as many" 0 \
	'^  resume +nodeD +.* State=RESUME: passed matrix \(node\) across 4 nodes, the comparison that drained it$' -- \
	cat "$MP/resume.txt"
# A capture (.tar.gz, ctl/nodesrc.c) with a member of 17825792 bytes (17
# MiB, sparse): over a file's bound of 16 MiB (core/bundle.h
# FC_BUNDLE_FILE_MAX; 256 MiB in all), refused from tar's listing before
# anything is unpacked.
mkdir -p "$MP/cap" && truncate -s 17825792 "$MP/cap/big"
tar -C "$MP" -czf "$MP/cap.tar.gz" cap
expect "msgfig: a capture member of 17825792 bytes, over 16 MiB" 3 \
	"cap\.tar\.gz: '[^']* 17825792 [^']*cap/big': 17825792 bytes: more than a capture's bound \(16 MiB a file, 256 MiB in all\): refused" -- \
	$FC topo --from "$MP/cap.tar.gz"
rm -rf "$MP"
