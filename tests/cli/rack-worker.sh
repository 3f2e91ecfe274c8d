#!/usr/bin/env bash
# A worker that speaks the whole protocol as a healthy rxe port of the
# virtual rack would (2.5 Gb/s SDR 1X, RoCE v2, MTU 4096), for the CLI's
# golden-output cases: `fabcheck pair --launcher local --worker-cmd THIS`.
# Bandwidth tests move RW_GBPS (default 2.4) Gb/s; latency tests 40 us p50.
# RW_COUNTERS_DEV names a device whose error counters rose: its "finish"
# reports RW_COUNTERS (a JSON object of deltas). `devices --json`: the port
# list FAKE_DEVICES names. RW_GO_LOG names a file each "go" is logged to
# ("HOST DEV SECONDS" as date +%s.%N), for the cases that check which flows
# start together; RW_SLOW_HOST's worker is RW_SLOW_S seconds late to be
# ready for its first test (a slow node the others must wait for);
# RW_GBPS_HOST's worker (or each of several, between spaces) moves
# RW_GBPS_SLOW Gb/s (a starved sender); with
# RW_GBPS_BOTH=1 so does every worker whose peer is RW_GBPS_HOST (a node
# slow both ways, as `lab fault rate` makes one): each worker's "setup"
# then names its host, which the controller hands the peer in "connect";
# with RW_GBPS_DEV only that device (a rail's port: both ends of a rail's
# pair use the rail's device) is slowed, as `lab fault --rail N rate`. A
# bandwidth result carries its byte curve (2 s at that rate from the go,
# "t0" on the clock it answers "clock" with), as a real worker's does;
# RW_CURVE_HOST's is RW_CURVE instead ([[s since the go, bytes], ...]);
# RW_T0_SHARED (a file): every worker of a round reports one go time.
# RW_EVIDENCE names a recorded evidence folder (doc/diagnose.md): each
# worker sends its port's before/ and after/ files from HOST/DEV-1/ as the
# real worker sends its readings (before its setup reply, before finish).
# RW_SCHEDSTAT_FILE: nodeA's worker writes RW_SCHEDSTAT into it at its first
# "go" (a QEMU thread's figures in the middle of the run, for
# tests/cli/cases_starve.sh's /proc of recorded figures).
# RW_COUNTERS_FROM_EV=1: "finish" reports what moved between the recorded
# before/ and after/ hw_counters of RW_EVIDENCE's port, as the real worker
# reports its port's deltas. RW_LAT_NOTES=1: a latency test of fewer than
# 1000 (10000) rounds leaves out p99 (p99.9) with the note the real worker
# writes (core/stats.c pct_json: a rank needs 10 / (1 - p) rounds).
# RW_RAILS_GBPS ("DEV:ALONE:LOADED ..."): a bandwidth test on DEV moves
# ALONE Gb/s in the first worker of its host and device, LOADED in a later
# one (each worker counts itself in the file RW_RAILS_DIR/HOST.DEV, a fresh
# folder per run: pair --rails runs each rail alone, then every rail
# loaded, a worker each); the figures recorded on the demo rack. RW_HCA: the
# "hca" (vendor id:part id) its setup reports, as the real worker's does
# (verbs/res.c; rxe reports 0xffffff:0); none when unset.
# RW_NODEV_HOST's worker (or each of several, between spaces) answers its
# setup as the real worker does when its own RDMA device cannot be opened
# (ctl/worker.c: an RDMA fault, kind "node"; pair names it "node_fault");
# with RW_NODEV_DEV only for that device (one rail's port). Its error names
# the device and port it tried ("device", "port": the setup's device, else
# rxe0, the port its setup reply names when none is asked for, as the real
# worker names the port it opened); RW_NODEV_UNSAID=1 names none, as the
# real worker when it found no RDMA device at all; RW_NODEV_NAME names that
# instead (a worker that names what is not a device). RW_NOCONN_HOST
# (RW_NOCONN_DEV) likewise fails its connect, as a worker whose peer's
# address cannot be reached does (kind "node", "stage": "connect").
# RW_SEQ_GBPS ("HOST:PEER:DEV:G1,G2,... ..."): the pair HOST-PEER (either
# way) on DEV moves G1 Gb/s the first time it is measured, G2 the second
# (a retest), and so on, the last figure for any later one (each worker
# counts its measurements of its peer in the file RW_SEQ_DIR/HOST.PEER.DEV,
# a fresh folder per run): the figures of a noisy rack, pair by pair, for
# the --retest rounds (tests/cli/cases_retest2.sh). It names each worker's
# host in its setup, as RW_GBPS_BOTH does.
if [ "${1:-}" = devices ]; then
	# fake-worker.sh's listing: FAKE_DEVICES, or under the stand-in srun
	# each node's own FAKE_DEVICES_DIR/NODE.json
	FAKE_MODE='' exec "$(dirname "$0")/fake-worker.sh" devices
fi
read -r hello || exit 0
# shellcheck source=tests/cli/worker_lib.sh
. "$(dirname "$0")/worker_lib.sh"
host=$(sed -n 's/.*"node":"\([^"]*\)".*/\1/p' <<<"$hello")
say "\"hello\",\"version\":\"0\",\"host\":\"${host:-fake}\",\"pid\":1"
next setup || exit 1
dev=$(sed -n 's/.*"dev":"\([^"]*\)".*/\1/p' <<<"$msg")
dev=${dev:-rxe0}
case " ${RW_NODEV_HOST:-} " in
*" ${host:-none} "*)
	if [ -z "${RW_NODEV_DEV:-}" ] || [ "$dev" = "$RW_NODEV_DEV" ]; then
		tried=",\"device\":\"${RW_NODEV_NAME:-$dev}\",\"port\":1"
		[ "${RW_NODEV_UNSAID:-}" = 1 ] && tried=
		say "\"error\",\"kind\":\"node\",\"msg\":\"no RDMA device '$dev' (test worker)\"$tried"
		exit 0
	fi ;;
esac
# ev PHASE: the recorded reading of this port as one "evidence" message.
ev() {
	local d="${RW_EVIDENCE:-}/$host/$dev-1/$1"
	[ -n "${RW_EVIDENCE:-}" ] && [ -d "$d" ] || return 0
	say "\"evidence\",\"phase\":\"$1\",\"files\":$(python3 -c '
import json, os, sys
root, files = sys.argv[1], {}
for top, _, names in os.walk(root):
    for n in names:
        p = os.path.join(top, n)
        files[os.path.relpath(p, root)] = open(p).read()
print(json.dumps(files, separators=(",", ":")))' "$d")"
}
ev before
hostfield=
if [ "${RW_GBPS_BOTH:-}" = 1 ] || [ -n "${RW_SEQ_GBPS:-}" ]; then hostfield="\"host\":\"$host\","; fi
say "\"setup\",$hostfield\"device\":\"$dev\",\"port\":1,\"link_layer\":\"Ethernet\",\"mtu\":4096,\"max_mtu\":4096,\"rate_gbps\":2.5,\"rate\":\"SDR\",\"width\":\"1X\",\"lid\":0,\"memory\":\"host\",\"netdev\":\"eth${dev#rxe}\",${RW_HCA:+\"hca\":\"$RW_HCA\",}\"gid_index\":1,\"gid\":\"::ffff:10.77.1.1\",\"gid_type\":\"RoCE v2\",\"max_inline\":220"
next connect || exit 1
case " ${RW_NOCONN_HOST:-} " in
*" ${host:-none} "*)
	if [ -z "${RW_NOCONN_DEV:-}" ] || [ "$dev" = "$RW_NOCONN_DEV" ]; then
		say '"error","kind":"node","stage":"connect","msg":"cannot reach the peer (test worker)"'
		exit 0
	fi ;;
esac
say '"connected","path_mtu":4096'
gbps=${RW_GBPS:-2.4}
# slow_host NAME: whether NAME is one of RW_GBPS_HOST (names between spaces)
slow_host() { [ -n "$1" ] && case " ${RW_GBPS_HOST:-} " in *" $1 "*) true ;; *) false ;; esac; }
# RW_GBPS_DEV: only that device of the slow hosts is slow (one port, one rail)
if [ -z "${RW_GBPS_DEV:-}" ] || [ "$dev" = "$RW_GBPS_DEV" ]; then
	slow_host "$host" && gbps=${RW_GBPS_SLOW:-0.5}
	peer=$(sed -n 's/.*"type":"setup","host":"\([^"]*\)".*/\1/p' <<<"$msg")
	[ "${RW_GBPS_BOTH:-}" = 1 ] && slow_host "$peer" && gbps=${RW_GBPS_SLOW:-0.5}
fi
# RW_SEQ_GBPS: this pair's figure for its nth measurement on this device.
if [ -n "${RW_SEQ_GBPS:-}" ] && [ -d "${RW_SEQ_DIR:-}" ]; then
	speer=$(sed -n 's/.*"type":"setup","host":"\([^"]*\)".*/\1/p' <<<"$msg")
	echo $$ >>"$RW_SEQ_DIR/$host.$speer.$dev"
	snth=$(wc -l <"$RW_SEQ_DIR/$host.$speer.$dev")
	for e in $RW_SEQ_GBPS; do
		IFS=: read -r sh sp sd sg <<<"$e"
		[ "$sd" = "$dev" ] || continue
		[ "$sh $sp" = "$host $speer" ] || [ "$sh $sp" = "$speer $host" ] || continue
		IFS=, read -r -a sgs <<<"$sg"
		gbps=${sgs[$((snth <= ${#sgs[@]} ? snth - 1 : ${#sgs[@]} - 1))]}
	done
fi
# next_clocked TYPE: next, answering the controller's clock readings on the
# way (pair reads both clocks to put each side's byte curve on its own).
next_clocked() {
	msg=
	while ! next "$1"; do
		case $msg in *'"type":"clock"'*) say "\"clock\",\"now\":$(date +%s.%N)" ;; *) return 1 ;; esac
		msg=
	done
}
# lat_tail TEST: the ranks from p99 on, and the notes of those too few
# rounds leave out (RW_LAT_NOTES).
lat_tail() {
	local n notes= sep= out=
	n=$(sed -n 's/.*"iters":\([0-9]*\).*/\1/p' <<<"$1")
	[ "${RW_LAT_NOTES:-}" = 1 ] || n=
	for kp in p99_us:99:1000:51.3 p999_us:99.9:10000:60.8; do
		IFS=: read -r k p need v <<<"$kp"
		if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$need" ]; then
			notes="$notes$sep\"$k not reported: it needs at least $need rounds (10 / (1 - $p%)), the run had $n; raise -n or -D\""
			sep=,
		else
			out="$out\"$k\":$v,"
		fi
	done
	echo "$out\"max_us\":75.0,\"avg_us\":40.9,\"stdev_us\":3.1,\"notes\":[$notes]"
}
# rails_gbps: gbps for this test under RW_RAILS_GBPS (alone or loaded).
rails_nth=
if [ -n "${RW_RAILS_GBPS:-}" ] && [ -d "${RW_RAILS_DIR:-}" ]; then
	echo $$ >>"$RW_RAILS_DIR/$host.$dev"
	rails_nth=$(wc -l <"$RW_RAILS_DIR/$host.$dev")
fi
rails_gbps() {
	local e d a l
	[ -n "$rails_nth" ] || return 0
	for e in $RW_RAILS_GBPS; do
		IFS=: read -r d a l <<<"$e"
		[ "$d" = "$dev" ] || continue
		gbps=$a
		[ "$rails_nth" -gt 1 ] && gbps=$l
	done
}
# shared_t0 NOW: with RW_T0_SHARED (a file), the go time of the round's
# first worker for every worker of the round (one within 0.5 s of it; the
# rounds are seconds apart): the workers' own clocks at their go differ by
# how late the host ran each (CI once saw 26 ms, enough to move a curve's
# window), and a case that asserts on a curve's window must not depend on it.
shared_t0() {
	(
		flock 9
		last=$(cat "$RW_T0_SHARED" 2>/dev/null)
		if [ -n "$last" ] && awk -v a="$1" -v b="$last" 'BEGIN { exit !(a - b < 0.5 && b - a < 0.5) }'; then
			echo "$last"
		else
			echo "$1" >"$RW_T0_SHARED"
			echo "$1"
		fi
	) 9>>"$RW_T0_SHARED.lock"
}
while next_clocked test; do
	t=$msg
	if [ "$host" = "${RW_SLOW_HOST:-}" ] && [ -z "${slowed:-}" ]; then
		sleep "${RW_SLOW_S:-1}"
		slowed=1
	fi
	say '"ready"'
	next go || exit 1
	t0=$(date +%s.%N)
	[ -n "${RW_T0_SHARED:-}" ] && t0=$(shared_t0 "$t0")
	[ -n "${RW_GO_LOG:-}" ] && echo "$host $dev $t0" >>"$RW_GO_LOG"
	if [ -n "${RW_SCHEDSTAT_FILE:-}" ] && [ "$host" = nodeA ] && [ -z "${sched_done:-}" ]; then
		echo "$RW_SCHEDSTAT" >"$RW_SCHEDSTAT_FILE.new" && mv "$RW_SCHEDSTAT_FILE.new" "$RW_SCHEDSTAT_FILE"
		sched_done=1
	fi
	case $t in
	*'"active":true'*'"metric":"lat"'* | *'"metric":"lat"'*'"active":true'*)
		say "\"result\",\"seconds\":0.4,\"msgs\":10000,\"min_us\":35.1,\"p50_us\":40.2,\"p90_us\":44.0,$(lat_tail "$t")" ;;
	*'"active":true'*)
		rails_gbps
		half=$(awk -v g="$gbps" 'BEGIN { printf "%.0f", g * 1e9 / 8 }')
		curve="[[0,0],[1,$half],[2,$((2 * half))]]"
		[ "$host" = "${RW_CURVE_HOST:-}" ] && curve=$RW_CURVE
		say "\"result\",\"seconds\":2,\"bytes\":550000000,\"msgs\":524,\"gbps\":$gbps,\"samples_gbps\":[$gbps,$gbps,$gbps],\"t0\":$t0,\"curve\":$curve" ;;
	*) say '"result","seconds":2,"bytes":0,"msgs":0' ;;
	esac
done
case $msg in *'"type":"finish"'*) ;; *) exit 0 ;; esac
ev after
if [ "${RW_COUNTERS_FROM_EV:-}" = 1 ] && [ -d "${RW_EVIDENCE:-}/$host/$dev-1/after/hw_counters" ]; then
	say "\"finish\",\"counters\":$(python3 -c '
import json, os, sys
d, out = sys.argv[1], {}
for n in sorted(os.listdir(d + "/after/hw_counters")):
    b = int(open(d + "/before/hw_counters/" + n).read())
    a = int(open(d + "/after/hw_counters/" + n).read())
    if a != b:
        out[n] = a - b
print(json.dumps(out, separators=(",", ":")))' "$RW_EVIDENCE/$host/$dev-1")"
elif [ -n "${RW_COUNTERS_DEV:-}" ] && [ "$dev" = "$RW_COUNTERS_DEV" ]; then
	say "\"finish\",\"counters\":${RW_COUNTERS:-{\}}"
else
	say '"finish","counters":{"completer_retry_err":0,"rcvd_seq_err":0}'
fi
sleep 0.2
