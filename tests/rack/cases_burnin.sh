# Cases for `preflight` and `soak` on the 2-node rack $RACK_NAME (sourced by
# tests/rack/run.sh; helpers in tests/rack/lib.sh). The 3-node Slurm rack
# for burnin-rack and the slurm launcher is a phase of run.sh of its own
# (tests/rack/phase_burnin.sh).
#
# Thresholds: rxe reports 2.5 Gb/s (1X SDR) and the fabric runs MTU 9000
# (active MTU 4096): those are the rack's expected figures. The soak's drop
# threshold is 10% of a pair's median, as per-second samples swing about 4x
# under TCG with other guests on the CPUs (scripts/burnin.conf, fabric lab).
BIR=$(mktemp -d /tmp/fc-rack-burnin-XXXXXX)
PF=("$FC" preflight nodeA nodeB --ssh-config "$SSH_CFG" --timeout 60)

# ---- preflight --------------------------------------------------------------
expect "preflight: healthy rack passes at 2.5 Gb/s, MTU 9000" 0 'verdict: pass' -- \
	"${PF[@]}" --expect-rate 2.5 --expect-mtu 9000
expect_json "preflight json: both nodes, rxe0 ACTIVE, RoCE v2, 9000/4096, versions, skips with reasons" 0 \
	"d['verdict'] == 'pass' and [n['node'] for n in d['nodes']] == ['nodeA', 'nodeB'] and
	 all(p['device'] == 'rxe0' and p['state'] == 'ACTIVE' and p['gid_type'] == 'RoCE v2' and p['netdev_mtu'] == 9000 and p['active_mtu'] == 4096 and p['rate_gbps'] == 2.5 for n in d['nodes'] for p in n['ports']) and
	 all(n['kernel'] and n['gpus'] == 0 for n in d['nodes']) and d['gpu_nodes'] == 0 and
	 any('mlnx_qos is not installed' in s for s in d['skipped']) and any('no PCI GPU or HCA' in s for s in d['skipped'])" \
	-- "${PF[@]}" --expect-rate 2.5 --expect-mtu 9000 --json
# the same fact of both nodes is one line naming them (core/holders.c)
expect "preflight: a rate the rack does not have fails, naming each port" 1 '(both nodes|nodeA, nodeB): rxe0 port 1 runs at 2.5 Gb/s \(1X SDR\), expected 100 Gb/s' -- \
	"${PF[@]}" --expect-rate 100
"$FC" lab fault --name "$RACK_NAME" nodeB mtu 1500 >/dev/null 2>&1
expect "preflight: nodeB at MTU 1500 is named (expected MTU)" 1 'nodeB: eth0 MTU is 1500, expected 9000 \(rxe0 port 1 runs at an active MTU of 1024 B\)' -- \
	"${PF[@]}" --expect-mtu 9000
expect_json "preflight: nodeB at MTU 1500: every finding names nodeB" 1 \
	"d['verdict'] == 'fail' and len(d['findings']) >= 2 and all('nodeB' in f for f in d['findings']) and
	 not any(f.startswith('nodeA') for f in d['findings'])" \
	-- "${PF[@]}" --json
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1
expect "preflight: passes again after clear" 0 'verdict: pass' -- "${PF[@]}" --expect-mtu 9000

# ---- ssh connection sharing (doc/scale.md): a master per node, reused ----------
expect "preflight: ssh shares each node's connection by default" 0 "sharing each node's connection through /(tmp|run)/.*fabcheck-ssh-" -- \
	env -u FABCHECK_SSH_MUX "$FC" -v preflight nodeA nodeB --ssh-config "$SSH_CFG" --timeout 60
BIMUX=$(mktemp -d /tmp/fcmux-XXXXXX)
expect "preflight: through a control folder given (FABCHECK_SSH_MUX)" 0 'verdict: pass' -- \
	env FABCHECK_SSH_MUX="$BIMUX" "${PF[@]}"
expect "ssh sharing: a master running for each of the two nodes" 0 '^2$' -- bash -c \
	"n=0; for s in $BIMUX/*; do ssh -O check -S \"\$s\" x 2>&1 | grep -q 'Master running' && n=\$((n + 1)); done; echo \$n"
for s in "$BIMUX"/*; do ssh -O exit -S "$s" x >/dev/null 2>&1; done
rm -rf "$BIMUX"

# ---- soak: 60 s with nodeB's link down in the middle ---------------------------
# The link goes down 20 s in and comes back 15 s later; the soak must report
# the flap on nodeB (and the pair's failed traffic) with its time. A slice
# cut mid-test fails (failed_slices); one that starts while the port is
# down cannot set up and is counted apart (unrun_slices, matrix/soak.c).
SOAK=("$FC" soak nodeA nodeB --ssh-config "$SSH_CFG" --duration 60 --slice 10 --interval 1
	--drop-pct 10 --test write -s 64K --min-gbps 0.0001 --timeout 15 --db "$BIR/soak.db" --json)
"${SOAK[@]}" >"$BIR/soak.json" 2>"$BIR/soak.err" &
SOAKPID=$!
sleep 20
"$FC" lab fault --name "$RACK_NAME" nodeB down >/dev/null 2>&1
sleep 15
"$FC" lab fault --name "$RACK_NAME" nodeB clear >/dev/null 2>&1
wait $SOAKPID
rc=$?
if [ $rc -eq 1 ]; then ok "soak with a flap exits 1"; else not_ok "soak with a flap exits 1" "exit $rc" "$(tail -n 20 "$BIR/soak.err")"; fi
expect_json "soak: the flap is on nodeB, timed inside the soak; nodeA has none" 0 \
	"any(e['kind'] == 'flap' and e['node'] == 'nodeB' and 0 <= e['since_start_s'] <= 60 and ':' in e['when'] for e in d['events']) and
	 not any(e['kind'] == 'flap' and e.get('node') == 'nodeA' for e in d['events']) and
	 d['nodes']['nodeB']['flaps'] and not d['nodes']['nodeA']['flaps'] and
	 any(f.startswith('nodeB: link flap: link_downed rose by') for f in d['findings'])" \
	-- cat "$BIR/soak.json"
expect_json "soak: nodeA-nodeB has samples before and after, and the failed traffic has its time" 0 \
	"len(d['pairs']) == 1 and d['pairs'][0]['a'] == 'nodeA' and
	 d['pairs'][0]['failed_slices'] + d['pairs'][0]['unrun_slices'] >= 1 and
	 d['pairs'][0]['slices'] > d['pairs'][0]['failed_slices'] + d['pairs'][0]['unrun_slices'] and
	 d['pairs'][0]['median_a_to_b_gbps'] > 0 and
	 any(e['kind'] == 'failed' and e['pair'] == 'nodeA-nodeB' and 15 <= e['since_start_s'] <= 75 for e in d['events'])" \
	-- cat "$BIR/soak.json"
expect "soak: the slices are in the store as a soak run" 0 '^1\|soak\|fail\|[3-9]$' -- \
	sqlite3 "$BIR/soak.db" "select r.id, r.kind, r.verdict, count(p.id) from runs r join pairs p on p.run = r.id group by r.id"
# The TUI follows the soak through the store.
tmux new-session -d -s "fcbi-$$" -x 100 -y 30 \
	"$(printf '%q ' "$FC" tui --run 1 --db "$BIR/soak.db" --max-iterations 30); sleep 30"
tmux_wait "fcbi-$$" "$BIR/tui.txt" 'run 1 \(soak\) +2 nodes'
tmux kill-session -t "fcbi-$$" 2>/dev/null
expect "tui follows the soak run" 0 'run 1 \(soak\) +2 nodes' -- cat "$BIR/tui.txt"
rm -rf "$BIR"
