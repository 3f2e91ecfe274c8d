# Cases for `matrix`, `tui` and `report` on real Soft-RoCE (sourced by
# tests/rack/run.sh; helpers in tests/rack/lib.sh):
#   1. on the 2-node rack $RACK_NAME: one pair through the matrix, and the
#      TUI running the matrix itself, in tmux;
#   2. (the 4-node matrices: see section 2 below for where they are checked)
# The rack runs about 0.01-0.2 Gb/s under TCG, and rxe reports a 2.5 Gb/s rate
# that means nothing here, so the thresholds are explicit and relative:
# --min-gbps 0.001 (turns off pair's share of link rate) and --min-rack-pct 30
# (healthy pairs on a loaded 2-core host spread over 3x: 0.014 to 0.047 Gb/s
# in one run).
MXR=$(mktemp -d /tmp/fc-rack-matrix-XXXXXX)
PAIR_OPTS=(--test write --bw -n 100 -s 64K --min-gbps 0.001 --timeout 60)
MX_OPTS=(--min-rack-pct 30 --asym-pct 30 --retest)

# ---- 1. the 2-node rack -------------------------------------------------------
expect "matrix on 2 nodes passes" 0 'verdict: pass' -- \
	"$FC" matrix nodeA nodeB --ssh-config "$SSH_CFG" "${PAIR_OPTS[@]}" "${MX_OPTS[@]}" \
	--db "$MXR/two.db"
expect_json "matrix on 2 nodes: one measured pair" 0 \
	"d['verdict'] == 'pass' and len(d['pairs']) == 1 and d['pairs'][0]['gbps'] > 0.001 and d['suspects'] == []" \
	-- "$FC" matrix --resume 1 --db "$MXR/two.db" --ssh-config "$SSH_CFG" --json

# The TUI running the matrix itself: watch it until the pair is in.
TFC=$FC
tmux new-session -d -s "fcmx-$$" -x 100 -y 30 \
	"$(printf '%q ' "$TFC" tui nodeA nodeB --ssh-config "$SSH_CFG" "${PAIR_OPTS[@]}" --db "$MXR/tui.db" --max-iterations 400) 2>$MXR/tui.err; echo \$? >$MXR/tui.rc; sleep 60"
for i in $(seq 120); do
	tmux capture-pane -p -t "fcmx-$$" >"$MXR/tui.txt" 2>/dev/null
	grep -q 'pairs 1/1' "$MXR/tui.txt" && grep -q 'matrix done' "$MXR/tui.txt" && break
	sleep 0.5
done
tmux send-keys -t "fcmx-$$" q
for i in $(seq 50); do [ -s "$MXR/tui.rc" ] && break; sleep 0.2; done
tmux kill-session -t "fcmx-$$" 2>/dev/null
expect "tui ran the matrix on the rack" 0 'pairs 1/1 .* pass' -- cat "$MXR/tui.txt"
expect "tui shows the pair's bandwidth" 0 'bandwidth: write 64 KiB [0-9.]+ Gb/s' -- cat "$MXR/tui.txt"
expect "tui exits 0 on q after the run" 0 '^0$' -- cat "$MXR/tui.rc"
expect "tui's run is in the store" 0 '^ +1  matrix .* 1 pair +pass +2 nodes' -- \
	"$FC" report --list --db "$MXR/tui.db"

# ---- 2. four nodes: where they are checked (issue 36 item 5) --------------------
# This file booted a 4-node rack of its own for a healthy and a faulted
# matrix (about 140 s of the rack stage: a 20 s boot, 13 s and 106 s of
# matrices). The wire's part of it, a slowed node named from real traffic,
# is shown by phase_burnin's drain (nodeC at 2 Mbit/s named and drained by
# a 3-node matrix through srun), phase_rails (one port of a 4-node 2-rail
# rack slowed, named alone) and phase_drain (a rate-faulted rail drained).
# Its judgments of the stored runs ("matrix on a healthy 4-node rack
# passes", "healthy: 6 pairs, no suspect", "matrix names the slowed node and
# exits 1", "faulted: nodeC and no other is suspect") run, same assertions,
# in tests/cli/cases_mxdraw.sh on the real controller over the stand-in
# worker (4 nodes, nodeC slow both ways), with its TUI, HTML and Prometheus
# checks; --both-directions is in tests/cli/cases_bothdir.sh.
rm -rf "$MXR"
