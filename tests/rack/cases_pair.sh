# Cases for 'fabcheck pair' on the 2-node rack $RACK_NAME: real rdma_rxe
# between two QEMU kernels (sourced by tests/rack/run.sh; helpers in
# tests/rack/lib.sh).
#
# Thresholds: rxe reports its port as 2.5 Gb/s (1X SDR) whatever the real
# speed, and under TCG the rack moves about 0.16 Gb/s at best, much less while
# other guests share the CPUs. The default verdict (90% of the port's rate at
# 1 MiB and more) can never pass here, so every case that wants a pass gives
# the rack's own floor explicitly: --min-gbps 0.0001 (traffic moved at all).
# Iteration counts are small: the whole file runs in about 2-3 minutes.
read -r PNET < <("$FC" lab status --name "$RACK_NAME" --json | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["fabric"]["subnet"].rsplit(".", 1)[0])')
P=("$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db --timeout 15)
FLOOR=(--min-gbps 0.0001)
# The floor alone would pass a figure ten times wrong, so the cases also ask
# that the port counters agree with what the pair says it moved
# (counters_check, core/ctrcheck.h: none below what the results need, none
# above what they explain when nothing was retried) and that each one-way
# bandwidth figure is the bytes behind it over its seconds.
CC="d['counters_check']['verdict'] == 'agree'"
FIG="all(abs(r['gbps'] * r['seconds'] * 1e9 / 8 - sum(r['timed_bytes'])) <= 1e-6 * sum(r['timed_bytes'])
	 for r in d['results'] if r['metric'] == 'bw' and not r['bidir'])"

# ---- every test and metric, relayed exchange, host memory ------------------
expect_json "pair: write/read/send bw+lat, relayed, host memory, the counters agree" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and $FIG and
	 d['counters_check']['unit'] == 'packets' and d['counters_check']['path_mtu'] == 4096 and
	 all(r['posted'][0] == r['iters'] + r['method']['warmup'] for r in d['results']) and
	 all(r['timed_bytes'] == [r['iters'] * 16384, 0] for r in d['results'] if r['metric'] == 'bw') and
	 [(r['test'], r['metric']) for r in d['results']] == [(t, m) for t in ('write', 'read', 'send') for m in ('bw', 'lat')] and
	 all(r['gbps'] > 0 and r['size_bytes'] == 16384 and r['iters'] == 20 and r['msg_rate_mpps'] > 0 for r in d['results'] if r['metric'] == 'bw') and
	 all(0 < r['min_us'] <= r['p50_us'] <= r['max_us'] and r['stdev_us'] >= 0 and r['samples'] == 20 and
	     r['p90_us'] is None and r['p999_us'] is None and any('p999_us not reported' in n for n in r['notes'])
	     for r in d['results'] if r['metric'] == 'lat') and
	 [(s['node'], s['device'], s['port'], s['link_layer'], s['gid_index'], s['gid'], s['mtu'], s['rate_gbps'], s['memory']) for s in (d['a'], d['b'])]
	 == [('nodeA', 'rxe0', 1, 'Ethernet', 1, '::ffff:$PNET.1', 4096, 2.5, 'host'), ('nodeB', 'rxe0', 1, 'Ethernet', 1, '::ffff:$PNET.2', 4096, 2.5, 'host')] and
	 d['path_mtu'] == 4096 and d['options']['exchange'] == 'relayed' and
	 d['counters']['nodeA'].get('sent_pkts', 0) > 0 and d['counters']['nodeB'].get('rcvd_pkts', 0) > 0" \
	-- "${P[@]}" "${FLOOR[@]}" --test write,read,send -s 16K -n 20 --json
expect "pair: text report names the choices and the tables" 0 \
	"a +nodeA +rxe0:1 +RoCE v2 +1 ::ffff:$PNET\.1 +4096 B +2\.5 Gb/s 1X SDR +host.*path MTU 4096 B.*TEST +SIZE +ITERS +BW .*write +4 KiB +10 +[0-9.]+ Gb/s.*latency in us .*P99\.9.*write( \(poll\))? +4 KiB +10 +[0-9.]+ " \
	-- bash -c "$(printf '%q ' "${P[@]}" "${FLOOR[@]}") --test write -s 4K -n 10 | tr '\n' ' '"
expect "pair: text report: the counters check, each direction" 0 \
	"port counters against the results \(sent_pkts/rcvd_pkts \(packets\)\): agree +nodeA->nodeB: sent [0-9]+, received [0-9]+, at least 40 and at most [0-9]+ packets: agree" \
	-- bash -c "$(printf '%q ' "${P[@]}" "${FLOOR[@]}") --test write --bw -s 4K -n 20 | tr '\n' ' '"

# ---- rdma_cm instead of the relayed exchange --------------------------------
expect_json "pair --cm: write, send, 2 QPs, connected by rdma_cm" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and d['counters_check']['rdma_cm'] and d['options']['exchange'] == 'rdma_cm' and
	 [(r['test'], r['metric']) for r in d['results']] == [('write', 'bw'), ('write', 'lat'), ('send', 'bw'), ('send', 'lat')] and
	 all(r.get('gbps', 1) > 0 and r.get('p50_us', 1) > 0 for r in d['results']) and d['path_mtu'] == 4096" \
	-- "${P[@]}" "${FLOOR[@]}" --cm --test write,send -q 2 -s 8K -n 20 --json

# ---- several QPs, both directions, reverse, all sizes -----------------------
# 250 messages a QP (8 MiB each way): 20 ended on one side before the other
# began on a loaded host (no common window, 0 Gb/s).
expect_json "pair -q 4 -b: both directions measured, both agree with the counters" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and all(x['least'] > 0 for x in d['counters_check']['directions']) and len(d['results']) == 1 and
	 d['results'][0]['qps'] == 4 and d['results'][0]['bidir'] and
	 d['results'][0]['a_to_b_gbps'] > 0 and d['results'][0]['b_to_a_gbps'] > 0 and
	 abs(d['results'][0]['gbps'] - d['results'][0]['a_to_b_gbps'] - d['results'][0]['b_to_a_gbps']) < 1e-9 and
	 0 < d['results'][0]['overlap']['share'] <= 1 and d['results'][0]['overlap']['clock_uncertainty_s'] < 0.5" \
	-- "${P[@]}" "${FLOOR[@]}" --test write --bw -q 4 -b -s 8K -n 250 --json
# One worker 2 s late on purpose (tests/rack/late-worker.sh holds nodeB's
# start and its "go"): both ran together for at most 2 s of 6 (less when
# the loaded host delays nodeB more); the figures are over that window only
# and the overlap is a finding.
expect_json "pair -b with nodeB 2 s late: the overlap said, the sum over the common window only" 0 \
	"$CC and (r := d['results'][0]) and (o := r['overlap']) and
	 0 < o['share'] < 0.8 and 0 < o['window_s'] < 3 and 5 < o['run_s'] < 10 and
	 o['starts_s'][1] - o['starts_s'][0] > 1.8 and
	 abs(r['gbps'] - r['a_to_b_gbps'] - r['b_to_a_gbps']) < 1e-9 and
	 r['a_to_b_own_window_gbps'] > 0 and r['b_to_a_own_window_gbps'] > 0 and
	 any('ran together for' in f for f in d['findings'])" \
	-- "${P[@]}" "${FLOOR[@]}" --worker-cmd "$PWD/tests/rack/late-worker.sh" --timeout 20 \
	--test write --bw -b -s 8K -D 4 --json
expect_json "pair --reverse: nodeB sends" 0 \
	"$CC and $FIG and d['results'][0]['posted'][0] == 0 and d['counters_check']['directions'][1]['moved_bytes'] > 0 and len(d['results']) == 1 and 'b_to_a_gbps' in d['results'][0] and 'a_to_b_gbps' not in d['results'][0]" \
	-- "${P[@]}" "${FLOOR[@]}" --test send --bw --reverse -s 8K -n 20 --json
expect_json "pair -a --max-size 4K: read latency at every size from 2 B" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and [r['size_bytes'] for r in d['results']] == [2 ** k for k in range(1, 13)] and
	 all(r['metric'] == 'lat' and r['p50_us'] > 0 for r in d['results'])" \
	-- "${P[@]}" "${FLOOR[@]}" --test read --lat -a --max-size 4K -n 20 --json
expect_json "pair -D: a duration instead of a count" 0 \
	"$CC and $FIG and d['results'][0]['seconds'] >= 0.9 and d['results'][0]['iters'] > 0 and len(d['results'][0]['samples_a_to_b_gbps']) >= 5 and
	 d['results'][0]['intervals_a_to_b']['n'] >= 5 and
	 d['results'][0]['intervals_a_to_b']['min_gbps'] <= d['results'][0]['intervals_a_to_b']['median_gbps'] <= d['results'][0]['intervals_a_to_b']['max_gbps']" \
	-- "${P[@]}" "${FLOOR[@]}" --test write --bw -s 8K -D 1 --json
# Every round of a -D latency run is counted: the answering side's count less
# the warm-up is the samples, the histogram's rounds and the iterations. CI
# runs 5 s; the same case at -D 60 was run by hand (doc/pair-bench.md).
expect_json "pair -D latency: every round counted" 0 \
	"$CC and (r := d['results'][0]) and
	 r['samples'] > 100 and r['samples'] == r['rounds_answered'] - r['method']['warmup'] and
	 r['iters'] == r['samples'] and r['min_us'] <= r['p50_us'] <= r['max_us'] and
	 (r['p99_us'] is None) == (r['samples'] < 1000) and r['p999_us'] is None" \
	-- "${P[@]}" "${FLOOR[@]}" --test write --lat -D "${RACK_LAT_D:-5}" --json
# perftest's method runs every test and says so.
expect_json "pair --perftest: every test, perftest's knobs and statistics" 0 \
	"$CC and $FIG and d['options']['method'] == 'perftest' and
	 [(r['test'], r['metric']) for r in d['results']] == [(t, m) for t in ('write', 'read', 'send') for m in ('bw', 'lat')] and
	 all(r['method']['name'] == 'perftest' and r['method']['warmup'] == 0 and r['method']['buffer'] == 'per_qp' for r in d['results']) and
	 all(r['method']['inline'] == 0 and r['method']['cq_mod'] == 1 and r['gbps'] > 0 for r in d['results'] if r['metric'] == 'bw') and
	 all(r['stats_method'] == 'perftest' and r['samples'] == 49 and 0 < r['min_us'] <= r['p50_us'] <= r['max_us'] for r in d['results'] if r['metric'] == 'lat')" \
	-- "${P[@]}" "${FLOOR[@]}" --perftest --test write,read,send -s 16K -n 50 --json
expect_json "pair --launcher local in one guest: rxe loopback, one port's counters" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and d['counters_check']['one_port'] and d['options']['launcher'] == 'local' and d['results'][0]['gbps'] > 0" \
	-- rexec nodeA fabcheck pair x y --launcher local --no-db "${FLOOR[@]}" --test write --bw -s 4K -n 20 --json

# ---- verdicts -----------------------------------------------------------------
expect "pair default verdict: 90% of rxe's payload ceiling fails at 1 MiB" 1 \
	'write bandwidth at 1 MiB nodeA->nodeB: [0-9.]+ Gb/s is below 2\.206 Gb/s \(90% of 2\.451 Gb/s, the payload ceiling of the slower port.s 2\.5 Gb/s at path MTU 4096 B with 82 B of headers a packet\)' \
	-- "${P[@]}" --test write --bw -s 1M -n 4
expect "pair --max-lat-us: a ceiling below rxe's latency fails" 1 \
	'read latency at 2 B: p50 [0-9.]+ us is above --max-lat-us 1\.00 us' \
	-- "${P[@]}" "${FLOOR[@]}" --test read --lat -n 20 --max-lat-us 1

# ---- the defaults, and a deadline shorter than the run --------------------------
# The plain defaults (write and read, 2 s of 1 MiB bandwidth, 10,000 latency
# rounds) took 154 s on a loaded rack: each bandwidth test warms up with 128
# messages of 1 MiB (the default tx depth) and drains as many in flight at
# about 5 MB/s, and a latency round takes about 1 ms. This case keeps the
# default tests, sizes, verdict and timeout, and shortens only the length:
# -D 1 and 4 messages in flight. 90% of rxe's 2.5 Gb/s fails (exit 1), every
# test still reported, none lost as a silent worker.
t0=$SECONDS
expect_json "pair with the default tests, sizes and verdict (-D 1 -t 4): 4 results, a bandwidth verdict" 1 \
	"[(r['test'], r['metric'], r['size_bytes']) for r in d['results']] ==
	 [('write', 'bw', 1048576), ('write', 'lat', 2), ('read', 'bw', 1048576), ('read', 'lat', 2)] and
	 any(f.startswith('write bandwidth at 1 MiB nodeA->nodeB: ') and 'is below 2.206 Gb/s' in f for f in d['findings']) and
	 not any('no message from' in f or 'giving up' in f for f in d['findings']) and $CC" \
	-- "$FC" pair nodeA nodeB --ssh-config "$SSH_CFG" --no-db -D 1 -t 4 --json
echo "    pair with the default tests at -D 1 -t 4: $((SECONDS - t0)) s"
# 20,000 bandwidth messages of 2 B take a few seconds, 20,000 latency rounds
# more than 12: the deadline comes in the latency test, which is judged on
# what it moved; the bandwidth test before it stays in the report.
t0=$SECONDS
expect_json "pair --deadline shorter than the run: the finished test kept, the cut one a slow link" 1 \
	"len(d['results']) == 2 and d['results'][0]['metric'] == 'bw' and 'complete' not in d['results'][0] and
	 d['results'][0]['gbps'] > 0 and d['results'][0]['posted'][0] == 20000 + d['results'][0]['method']['warmup'] and
	 d['results'][1]['metric'] == 'lat' and d['results'][1]['complete'] is False and d['results'][1]['seconds'] > 0 and
	 any(f.startswith('write latency at 2 B: the link is slow: ') and 'the tests finished before it are kept' in f
	     for f in d['findings']) and
	 d['counters_check']['verdict'] == 'not_judged'" \
	-- "${P[@]}" "${FLOOR[@]}" --test write -s 2 -n 20000 --deadline 12 --json
echo "    pair --deadline 12 (20,000 messages and rounds of 2 B): $((SECONDS - t0)) s"
[ $((SECONDS - t0)) -le 30 ] && ok "deadline: answered in $((SECONDS - t0)) s" ||
	not_ok "deadline: answered soon after it" "took $((SECONDS - t0)) s (--deadline 12)"

# ---- faults -------------------------------------------------------------------
"$FC" lab fault --name "$RACK_NAME" nodeB loss 5 >/dev/null 2>&1
t0=$SECONDS
expect_json "pair with 5% loss on nodeB: pass or warn, counters move and cover the results, no hang" 0 \
	"d['verdict'] in ('pass', 'warn') and $CC and not d['counters_check']['above_judged'] and len(d['results']) == 4 and
	 any('error counter' in f for f in d['findings'])" \
	-- "${P[@]}" "${FLOOR[@]}" --test write,read -s 16K -n 30 --json
[ $((SECONDS - t0)) -lt 60 ] && ok "loss: finished in $((SECONDS - t0)) s" || not_ok "loss: no hang" "took $((SECONDS - t0)) s"
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1

# One node left at MTU 1500 (rxe: 1024 B) against 9000 (4096 B): perftest runs
# silently at the smaller MTU; fabcheck says so.
"$FC" lab fault --name "$RACK_NAME" nodeB mtu 1500 >/dev/null 2>&1
# 10 + 10 warm-up writes of 4 KiB at 1024 B: 80 packets at least.
expect_json "pair with nodeB at MTU 1500: warns of the MTU mismatch, path MTU 1024" 0 \
	"d['verdict'] == 'warn' and $CC and d['counters_check']['path_mtu'] == 1024 and
	 d['counters_check']['directions'][0]['least'] == 80 and d['path_mtu'] == 1024 and d['a']['mtu'] == 4096 and d['b']['mtu'] == 1024 and
	 any(f.startswith('active MTU differs: nodeA rxe0 4096 B, nodeB rxe0 1024 B') for f in d['findings']) and
	 any(f.startswith('RoCE at path MTU 1024 B carries at most 92.6% of the port rate') for f in d['findings']) and
	 abs(d['a']['payload_gbps'] - 2.5 * 1024 / 1106) < 1e-3" \
	-- "${P[@]}" "${FLOOR[@]}" --test write --bw -s 4K -n 10 --json
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1

"$FC" lab fault --name "$RACK_NAME" nodeB down >/dev/null 2>&1
t0=$SECONDS
out=$("${P[@]}" "${FLOOR[@]}" --timeout 8 --test write -s 4K -n 20 2>&1 </dev/null)
rc=$?
if { [ $rc -eq 1 ] || [ $rc -eq 3 ]; } && grep -Eq -- '^  - nodeB: .*(no active port|port)' <<<"$out"; then
	ok "pair with nodeB's link down: exit $rc, a finding about nodeB"
else
	not_ok "pair with nodeB's link down" "exit $rc (want 1 or 3) and a finding about nodeB:" "$out"
fi
[ $((SECONDS - t0)) -le 30 ] && ok "link down: answered in $((SECONDS - t0)) s" ||
	not_ok "link down: within the deadline" "took $((SECONDS - t0)) s"
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1

# ---- wrong choices and names ----------------------------------------------------
expect "pair -d: no such device names the node and the devices" 3 \
	"node[AB]: no RDMA device 'mlx5_9' here \(devices: rxe0\): pass one of them with -d" \
	-- "${P[@]}" -d mlx5_9 -n 5
expect "pair -d DEV:PORT: port 2 of rxe0" 3 'node[AB]: rxe0 port 2 is not active \(or does not exist\)' \
	-- "${P[@]}" -d rxe0:2 -n 5
expect "pair -x: no GID at that index" 3 'node[AB]: rxe0 port 1 has no GID at index 9 \(-x\)' \
	-- "${P[@]}" -x 9 -n 5
expect "pair: unknown node" 3 "nodeZ: cannot reach the node over ssh \(exit 255" \
	-- "$FC" pair nodeA nodeZ --ssh-config "$SSH_CFG" --no-db --timeout 10

# ---- the controller vanishes: the workers clean up and exit -------------------
"${P[@]}" "${FLOOR[@]}" --test write --bw -s 4K -D 60 >/dev/null 2>&1 </dev/null &
ctl=$!
sleep 4
{ kill -KILL "$ctl" && wait "$ctl"; } 2>/dev/null
left=x
for _ in $(seq 10); do
	# -x: the process name, not the command line of the shell running pgrep
	left=$(rexec nodeA 'pgrep -x fabcheck' | tr '\n' ' ')
	rexec nodeB 'pgrep -x fabcheck' | grep -q . && left+=" nodeB"
	[ -z "${left// /}" ] && break
	sleep 1
done
[ -z "${left// /}" ] && ok "controller killed: both workers exit" ||
	not_ok "controller killed: both workers exit" "still running: $left"
