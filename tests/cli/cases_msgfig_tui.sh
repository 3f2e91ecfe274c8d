# Cases for the TUI's messages with figures (sourced by tests/cli/run.sh;
# issue 39 item 5): stores filled from recorded results, each figure of a
# title, a pane or a stop message checked in its place on the screen tmux
# captured (tests/cli/tui_lib.sh).
. tests/cli/tui_lib.sh

# rack4-slowC imported three times: run 3; the cursor starts on nodeC ->
# nodeA, whose recorded read latency at 2 B is p50 141.0, p99 253.8, p99.9
# 352.5 and max 423.0 us (three significant figures on the screen).
for i in 1 2 3; do $FC matrix --import $MXD/rack4-slowC.json --db $TUT/slow.db >/dev/null 2>&1; done
tui_run figs 100x30 - '^  latency: ' -- --db $TUT/slow.db --max-iterations 15
expect "tui title: run 3, 4 nodes, the metric" 0 '^fabcheck tui  run 3 \(matrix\)  4 nodes  bandwidth, % of the best pair$' -- \
	cat $TUT/out-figs.txt
expect "tui detail: the cursor pair's latency percentiles, each in its place" 0 '^  latency:   read 2 B p50 141 p99 254 p99\.9 352 max 423 us$' -- \
	cat $TUT/out-figs.txt

# r (rerun the cursor pair) on run 3, whose stored options carry a
# --worker-cmd this command line does not repeat (resume refuses it,
# tests/cli/cases_matrix.sh): refused, naming that run.
python3 - $TUT/slow.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE runs SET params = json_set(params, '$.pair_args', json(?)) WHERE id = 3",
          ('["--worker-cmd", "/bin/true", "--launcher", "local"]',))
c.commit()
PY
tui_run rerun 160x30 r 'rerun refused' -- --db $TUT/slow.db --max-iterations 15
expect "tui r on run 3 with stored launch options: refused, run 3 named" 0 "  \\| rerun refused: 'matrix --resume 3' says why$" -- \
	cat $TUT/out-rerun.txt

# 4 nodes on 2 rails, nodeC slow on rail 1 (gen_rails.py), imported twice:
# every rail together, then R R (rail 1, by its index and name), R R R
# (the overview of the 2 rails). The trend of nodeC -> nodeA with 1 earlier
# run judges no rail: the rail shown first is not "its worst" (it was
# rail 0, on which the pair passes).
python3 $MXD/gen_rails.py --pair-docs 4 2 port:nodeC:1 > $TUT/r4.json
for i in 1 2; do $FC matrix --import $TUT/r4.json --db $TUT/rails.db >/dev/null 2>&1; done
tui_run rails 120x30 - '^  trend: ' -- --db $TUT/rails.db --max-iterations 15
expect "tui rails: run 2, every rail together" 0 '^fabcheck tui  run 2 \(matrix\)  4 nodes  bandwidth, % of the best pair  every rail together \(R: one rail\)$' -- \
	cat $TUT/out-rails.txt
expect "tui rails: a trend no rail judged is not called the worst rail's" 0 '^  trend:     rail 0 \(rxe0, first of 2 rails\) \[##\] now 0\.169 Gb/s: 1 earlier run, 3 needed to judge it$' -- \
	cat $TUT/out-rails.txt
tui_run rails1 120x30 'R R' 'R: next' -- --db $TUT/rails.db --max-iterations 15
expect "tui rails R R: rail 1 (rxe1)" 0 '^fabcheck tui  run 2 \(matrix\)  4 nodes  bandwidth, % of the best pair  rail 1 \(rxe1\) \(R: next\)$' -- \
	cat $TUT/out-rails1.txt
tui_run railso 120x30 'R R R' 'rails, each' -- --db $TUT/rails.db --max-iterations 15
expect "tui rails R R R: the overview of 2 rails" 0 "^fabcheck tui  run 2 \\(matrix\\)  4 nodes  bandwidth, % of the best pair  nodes x 2 rails, each node's worst pair \\(R: next\\)$" -- \
	cat $TUT/out-railso.txt

# 300 nodes (the schedule's first 8 rounds, node077 slow) imported twice:
# run 2 opens on its one suspect; s shows blocks of 8 nodes; Enter zooms
# into node077's block (72-79) against the block of the cursor's worst
# pair, whose peer is in it.
python3 $MXD/gen.py 300 rack1-node077 0.02 8 > $TUT/r300.json
for i in 1 2; do $FC matrix --import $TUT/r300.json --db $TUT/r300.db >/dev/null 2>&1; done
tui_run big 120x40 - 'suspects \(s: heat map' -- --db $TUT/r300.db --max-iterations 15
expect "tui 300 nodes: run 2, one suspect listed" 0 '^1 suspect, worst first \(share of what each is held to, bad pairs of its measured peers\):$' -- \
	cat $TUT/out-big.txt
expect "tui 300 nodes: the title's run and node count" 0 '^fabcheck tui  run 2 \(matrix\)  300 nodes  bandwidth' -- \
	cat $TUT/out-big.txt
tui_run bigs 120x40 s '  blocks of' -- --db $TUT/r300.db --max-iterations 15
expect "tui 300 nodes s: blocks of 8 nodes" 0 'best pair  blocks of 8 nodes, the worst pair \(z: zoom' -- \
	cat $TUT/out-bigs.txt
tui_run bigz 120x40 Enter 'z: back' -- --db $TUT/r300.db --max-iterations 15
expect "tui 300 nodes Enter: node077's block against its worst peer's" 0 '^ok$' -- python3 -c '
import re, sys
t = open(sys.argv[1]).read()
z = re.search(r"best pair  nodes 72-79 x (\d+)-(\d+) \(z: back\)$", t, re.M)
c = re.search(r"^rack1-node077 -> rack1-node(\d+): BAD", t, re.M)
print("ok" if z and c and int(z[2]) - int(z[1]) == 7 and int(z[1]) <= int(c[1]) <= int(z[2]) else "no")' \
	$TUT/out-bigz.txt
expect "tui 300 nodes Enter: nodes 72-79 x 216-223" 0 'best pair  nodes 72-79 x 216-223 \(z: back\)$' -- \
	cat $TUT/out-bigz.txt

# 8 nodes, the 7 pairs of neighbours (nodeA-nodeB ... nodeG-nodeH) could
# not run: 7 findings; at 80x24 the pane shows 5 and counts the other 2.
python3 $MXD/gen.py 8 > $TUT/g8.json
python3 - $TUT/g8.json > $TUT/e8.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    a, b = ord(r["a"]["node"][-1]), ord(r["b"]["node"][-1])
    if abs(a - b) == 1:
        r.update(verdict="error", error="%s: the worker exited 2" % r["b"]["node"], results=[])
json.dump(d, sys.stdout)
PY
$FC matrix --import $TUT/e8.json --db $TUT/e8.db >/dev/null 2>&1
tui_run many 80x24 - 'more findings' -- --db $TUT/e8.db --max-iterations 15
expect "tui findings pane: 5 of 7 shown, the other 2 counted" 0 "^5 \\.\\.\\. 2 more findings: 'fabcheck report'$" -- \
	bash -c "echo \$(grep -c '^pair node[A-H]->node[A-H] could not run' $TUT/out-many.txt) \$(grep '^\\.\\.\\. ' $TUT/out-many.txt)"

# The recorded series of tests/data/matrix/gen_history.py (nodeA-nodeD 25%
# down on rail 1 in run 7, noise elsewhere): on nodeA -> nodeD (l l) its
# worst rail, flagged, each figure in its place, the same as report
# --history's CSV row of that link (now 0.11798, median 0.167595).
python3 tests/data/matrix/gen_history.py $TUT
for i in 1 2 3 4 5 6; do $FC matrix --import $TUT/rails-$i.json --db $TUT/tr.db >/dev/null 2>&1; done
$FC matrix --import $TUT/rails-7.json --min-rack-pct 70 --db $TUT/tr.db >/dev/null 2>&1
tui_run trend 120x30 'l l' '^nodeA -> nodeD: pass' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: 30% below its median 0.168, now 0.118 Gb/s" 0 '^  trend:     rail 1 \(rxe1, its worst\) \[##\*\*##-\] FLAGGED: 30% below its median 0\.168, now 0\.118 Gb/s$' -- \
	cat $TUT/out-trend.txt
$FC report --history --db $TUT/tr.db --html $TUT/tr.html --csv $TUT/tr.csv >/dev/null 2>&1
expect "tui trend: its figures are the CSV's of that link and rail" 0 '^ok$' -- python3 -c '
import csv, re, sys
row = [r for r in csv.DictReader(open(sys.argv[1])) if (r["a"], r["b"], r["rail"], r["runs_ago"]) == ("nodeA", "nodeD", "1", "0")][0]
now, med = float(row["gbps"]), float(row["median_gbps"])
m = re.search(r"FLAGGED: (\d+)% below its median ([\d.]+), now ([\d.]+) Gb/s", open(sys.argv[2]).read())
want = ("%.0f" % (100 * (1 - now / med)), "%.3g" % med, "%.3g" % now)
print("ok" if m and m.groups() == want else "no: %r %r" % (m and m.groups(), want))' $TUT/tr.csv $TUT/out-trend.txt

# An incast over 4 nodes (tests/cli/rack-worker.sh, one port each): its
# rounds at 80x24 are 5 screen lines past the pane (round 4's wrapped Jain,
# its 3 senders, its window), counted on the pane's last line.
$FC matrix nodeA nodeB nodeC nodeD --pattern incast --launcher local \
	--worker-cmd tests/cli/rack-worker.sh --timeout 5 -d rxe0 --db $TUT/inc.db >/dev/null 2>&1
tui_run incast 80x24 - 'more lines' -- --db $TUT/inc.db --max-iterations 15
expect "tui pattern rounds: the 5 lines past the pane counted" 0 '^  round 4: into nodeD from 3 senders: [^|]* Jain\|\.\.\. 5 more lines \(arrows, PgDn\)$' -- \
	bash -c "grep -A1 '^  round 4: ' $TUT/out-incast.txt | tr '\n' '|' | sed 's/|$//'"

# A run the TUI drives (run 2 of its store), nodeC's worker never
# answering, quit with q: the run, the store and how to finish it.
printf '#!/bin/sh\nMX_HANG_NODE=nodeC exec %s "$@"\n' "$(pwd)/tests/cli/mx-worker.sh" >$TUT/hang.sh
chmod +x $TUT/hang.sh
$FC matrix --import $MXD/rack4-slowC.json --db $TUT/q.db >/dev/null 2>&1
tui_run quitrun 100x30 q - -- nodeA nodeB nodeC --launcher local --worker-cmd $TUT/hang.sh \
	--timeout 20 --db $TUT/q.db --max-iterations 200
expect "tui q on a run it drives: run 2 stopped, kept in its store, finish with --resume 2" 0 "^fabcheck: run 2 stopped; its finished pairs are kept in $TUT/q\.db; finish with 'fabcheck matrix --resume 2 --db $TUT/q\.db'$" -- \
	cat $TUT/out-quitrun.txt
rm -rf "$TUT"
