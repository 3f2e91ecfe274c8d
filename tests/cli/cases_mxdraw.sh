# The drawing of a faulted 4-node matrix (sourced by tests/cli/run.sh): the
# TUI, the HTML report (its SVG and what Chromium draws of it) and the
# Prometheus text of a stored run, moved from the rack's cases_matrix
# (issue 36 item 5) with the same assertions. They judge and draw a stored
# run, not the wire: the store here is recorded by the real matrix and pair
# controller over the stand-in rxe worker (tests/cli/rack-worker.sh), 4
# nodes, one direction a pair as the rack runs it, run 1 healthy and run 2
# with nodeC slow both ways (0.2 Gb/s against 2.4, as `lab fault rate`
# slows a node). The rack keeps naming a slowed node from real traffic
# (phase_burnin's drain of nodeC, phase_rails' slowed port, phase_drain's
# rate-faulted rail). Each check is also run on the other run, where it
# must fail. The rack's 4-node cases keep their names here (runs 1 and 2:
# "matrix on a healthy 4-node rack passes", "matrix names the slowed node
# and exits 1"; md_json below).
. tests/cli/tui_lib.sh
MDT=$(mktemp -d /tmp/fc-mxdraw-XXXXXX)
MDW=$(pwd)/tests/cli/rack-worker.sh
MD=(matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd "$MDW" --test write --bw
	-n 100 -s 64K --min-gbps 0.001 --timeout 60 --min-rack-pct 30 --asym-pct 30 --retest
	--db "$MDT/four.db")
expect "matrix on a healthy 4-node rack passes" 0 'verdict: pass' -- $FC "${MD[@]}"
expect "matrix names the slowed node and exits 1" 1 \
	'suspect node nodeC: bad with [23] of 3 peers' -- \
	env RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.2 RW_GBPS_BOTH=1 $FC "${MD[@]}"

# md_json RUN: the two judgments the rack's cases_matrix asked of its stored
# 4-node runs (moved with the rack's own 4-node matrix, issue 36 item 5),
# each printed "ok NAME" or "no NAME": "healthy" (6 pairs, no suspect, the
# 3 rounds of a 4-node schedule) and "faulted" (nodeC alone suspect and
# alone not pass, 6 pairs at least).
md_json() {
	$FC matrix --resume "$1" --db "$MDT/four.db" --launcher local --worker-cmd "$MDW" --json 2>/dev/null |
		python3 -c '
import json, sys
d = json.load(sys.stdin)
checks = {
    "healthy": d["verdict"] == "pass" and len(d["pairs"]) == 6 and d["suspects"] == [] and d["rounds"] == 3,
    "faulted": d["verdict"] == "fail" and [s.get("node") for s in d["suspects"]] == ["nodeC"]
        and [n["node"] for n in d["per_node"] if n["state"] != "pass"] == ["nodeC"] and len(d["pairs"]) >= 6,
}
print(" ".join(("ok " if v else "no ") + k for k, v in checks.items()))'
}
expect "healthy: 6 pairs, no suspect" 0 '^ok healthy no faulted$' -- md_json 1
expect "faulted: nodeC and no other is suspect" 0 '^no healthy ok faulted$' -- md_json 2

# md_draw RUN WANT: the TUI's screen (once it shows WANT), the HTML, the PNG
# and the Prometheus text of stored run RUN, as $MDT/RUN.*.
md_draw() {
	local r=$1
	tui_run "mxdraw$r" 100x30 - "$2" -- --db "$MDT/four.db" --run "$r" --max-iterations 20
	cp "$TUT/out-mxdraw$r.txt" "$MDT/$r.tui.txt"
	$FC report --db "$MDT/four.db" --run "$r" --html "$MDT/$r.html" --prom "$MDT/$r.prom" >"$MDT/$r.report" 2>&1
	(cd "$MDT" && timeout 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --no-first-run --user-data-dir="$MDT/chrome" \
		--window-size=1000,900 --screenshot="$MDT/$r.png" "file://$MDT/$r.html" \
		>/dev/null 2>&1)
}
md_draw 2 'suspect node nodeC'
expect "tui draws the rack's matrix" 0 '^\\ +A +B +C +D' -- cat "$MDT/2.tui.txt"
expect "tui marks nodeC" 0 '^\*C ' -- cat "$MDT/2.tui.txt"
expect "tui marks no other node" 0 '^1$' -- grep -c '^\*' "$MDT/2.tui.txt"
expect "tui shows the finding" 0 'suspect node nodeC' -- cat "$MDT/2.tui.txt"
expect "report html of the faulted run" 0 'wrote .*2.html \(run 2, 4 nodes, verdict fail\)' -- \
	cat "$MDT/2.report"
expect "html: the SVG's bad cells are nodeC's, redder than all away from it" 0 '^ok$' -- \
	python3 tests/cli/check_html.py "$MDT/2.html" 4 nodeC --relative
# (at least the two bad cells of a suspect bad with 2 of its 3 peers)
expect "html in chromium: the heat map's red cells" 0 '^ok 1000x900' -- \
	python3 tests/cli/check_png.py "$MDT/2.png" 1400 0
expect "prom: nodeC suspect" 0 'fabcheck_node_suspect\{node="nodeC",run="2"\} 1' -- \
	cat "$MDT/2.prom"

# The same checks on the healthy run 1: each must fail there.
md_draw 1 '^\\ +A +B +C +D'
expect "mxdraw healthy: tui draws the matrix" 0 '^\\ +A +B +C +D' -- cat "$MDT/1.tui.txt"
expect_none "mxdraw healthy: tui marks no node" 0 '^\*' -- cat "$MDT/1.tui.txt"
expect_none "mxdraw healthy: tui shows no finding" 0 'suspect node nodeC' -- cat "$MDT/1.tui.txt"
expect "mxdraw healthy: report says verdict pass" 0 'wrote .*1.html \(run 1, 4 nodes, verdict pass\)' -- \
	cat "$MDT/1.report"
expect "mxdraw healthy: the SVG check fails" 0 'no bad cell.*suspect labels \[\], want \[.nodeC.\]' -- \
	python3 tests/cli/check_html.py "$MDT/1.html" 4 nodeC --relative
expect "mxdraw healthy: chromium draws no red cell" 0 '^heat map colours missing: [0-9]+ red' -- \
	python3 tests/cli/check_png.py "$MDT/1.png" 1400 0
expect "mxdraw healthy: prom has nodeC not suspect" 0 'fabcheck_node_suspect\{node="nodeC",run="1"\} 0' -- \
	cat "$MDT/1.prom"
rm -rf "$MDT"
