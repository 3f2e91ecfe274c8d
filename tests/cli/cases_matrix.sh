# Cases for `matrix` and `report` on this host (sourced by tests/cli/run.sh):
# options and errors, and the analysis of recorded results (--import).
MXT=$(mktemp -d /tmp/fc-matrix-XXXXXX)
MXD=tests/data/matrix
# json_check FILE PYTHON-EXPR: prints "ok" when the expression over the
# document d holds (python3 is in the test dependencies).
json_check() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("ok" if eval(sys.argv[2]) else "no: " + json.dumps(d)[:300])' "$1" "$2"
}

expect "matrix help" 0 'usage: fabcheck matrix' -- $FC matrix --help
expect "matrix no nodes" 2 'at least two nodes' -- $FC matrix --db $MXT/a.db
expect "matrix one node" 2 'at least two nodes' -- $FC matrix nodeA --db $MXT/a.db
expect "matrix node twice" 2 "node 'nodeA' is given twice" -- $FC matrix nodeA nodeB nodeA
expect "matrix bad node name" 2 "'no;de' is not a node name" -- $FC matrix nodeA 'no;de'
expect "matrix bad option" 2 'usage: fabcheck matrix' -- $FC matrix --frob nodeA nodeB
expect "matrix bad rack pct" 2 "min-rack-pct: '150'" -- $FC matrix --min-rack-pct 150 a b
expect "matrix tui-only option" 2 "not one of this command's" -- $FC matrix --once a b
expect "matrix hostfile missing" 2 'hostfile /nonexistent-fc: No such file' -- \
	$FC matrix --hostfile /nonexistent-fc
printf 'nodeA # the first\n\n# a comment\nnodeB slots=8\nbad!name\n' > $MXT/hosts
expect "matrix hostfile bad line" 2 "hosts line 5: 'bad!name' is not a node name" -- \
	$FC matrix --hostfile $MXT/hosts
expect "matrix hostfile and nodes" 2 'not both' -- $FC matrix --hostfile $MXT/hosts nodeC
# Nothing invented or dropped: a comment of any length stays a comment
# (one past 1,023 bytes once made a node of its tail), every word counts.
{ printf '# %s nodeZ\n' "$(head -c 1100 /dev/zero | tr '\0' x)"; printf 'nodeA slots=8\nnodeB # b\n'
  printf '%s\n' "$(head -c 3000 /dev/zero | tr '\0' '#')"; } > $MXT/hosts-long
expect "hostfile long comments: only the two nodes" 3 'matrix run 1 in .*: 2 nodes, 1 pair in 1 round of up to 1$' -- \
	$FC matrix --hostfile $MXT/hosts-long --launcher local --worker-cmd $(pwd)/tests/cli/mx-worker.sh \
	--timeout 5 --db $MXT/hosts.db
printf 'nodeA\nnodeB nodeC\n' > $MXT/hosts-two
expect "hostfile two names on a line" 2 "hosts-two line 2: 'nodeC' after the node name 'nodeB'; give one node a line" -- \
	$FC matrix --hostfile $MXT/hosts-two
printf 'nodeA\0nodeC\nnodeB\n' > $MXT/hosts-nul
expect "hostfile with a NUL byte" 2 "hosts-nul line 1: holds a NUL byte" -- $FC matrix --hostfile $MXT/hosts-nul
expect "hostfile is a folder" 2 "hostfile $MXT: is a directory" -- $FC matrix --hostfile $MXT
expect "hostfile read error" 2 'hostfile /proc/self/mem: cannot read line 1: Input/output error' -- \
	$FC matrix --hostfile /proc/self/mem
expect "preflight hostfile is a folder" 2 "hostfile $MXT: is a directory" -- $FC preflight --hostfile $MXT
expect "matrix db folder missing" 3 'store /nonexistent-fc/x.db: cannot open.*folder exists' -- \
	$FC matrix --db /nonexistent-fc/x.db nodeA nodeB
echo 'not a database, some text that is long enough to be read' > $MXT/text.db
expect "matrix db not sqlite" 3 'store .*text.db: is not a SQLite database' -- $FC matrix --db $MXT/text.db nodeA nodeB

# Recorded results: one node slowed (rate-limited to 0.02 Gb/s in a rack at 0.16).
# --import's errors name the line and the result, counted from 1 (issue
# 39 item 5): the JSON breaks on line 3; the 2nd result has no b.node.
printf '[\n {"a": {"node": "nodeA"}, "b": {"node": "nodeB"}},\n oops\n]\n' >$MXT/bad-line3.json
expect "import: the line the JSON breaks on" 2 \
	"--import $MXT/bad-line3.json: line 3: .*; give a file of 'fabcheck pair --json' documents" -- \
	$FC matrix --import $MXT/bad-line3.json --db $MXT/m.db
printf '[{"a": {"node": "nodeA"}, "b": {"node": "nodeB"}}, {"a": {"node": "nodeC"}, "b": {}}]\n' >$MXT/bad-result2.json
expect "import: the result without a node, counted from 1" 2 \
	"--import $MXT/bad-result2.json: result 2 has no valid b.node; each result must be a 'fabcheck pair --json' document" -- \
	$FC matrix --import $MXT/bad-result2.json --db $MXT/m.db
expect "import slow node: named, exit 1" 1 'suspect node nodeC: bad with 3 of 3 peers' -- \
	$FC matrix --import $MXD/rack4-slowC.json --db $MXT/m.db
$FC matrix --import $MXD/rack4-slowC.json --db $MXT/m.db --json > $MXT/slow.json 2>/dev/null
expect "import slow node json: only nodeC is suspect" 0 '^ok$' -- json_check $MXT/slow.json \
	'd["verdict"] == "fail" and [s["node"] for s in d["suspects"]] == ["nodeC"] and len(d["pairs"]) == 6 and d["rounds"] == 3 and all((p["verdict"] == "fail") == ("nodeC" in (p["a"], p["b"])) for p in d["pairs"])'
expect "import slow node json: per-node medians" 0 '^ok$' -- json_check $MXT/slow.json \
	'[n["state"] for n in d["per_node"]] == ["pass", "pass", "suspect", "pass"] and abs(d["rack_median_gbps"] - 0.16) < 0.01'
expect "import healthy: pass" 0 'verdict: pass' -- \
	$FC matrix --import $MXD/rack4-healthy.json --db $MXT/m.db
expect "import healthy, absolute threshold above the rack" 1 'every pair is below --min-gbps 1 \(6 pairs of 4 nodes' -- \
	$FC matrix --import $MXD/rack4-healthy.json --db $MXT/m.db --min-gbps 1
# No suspect at a relaxed rack share; nodeC's links fell below their own
# past (the healthy runs above are in the same store): a warning.
expect "import, relaxed rack share" 0 'verdict: warn' -- \
	$FC matrix --import $MXD/rack4-slowC.json --db $MXT/m.db --min-rack-pct 10
echo '{"results": [{"verdict": "pass", "a": {"node": "x"}}]}' > $MXT/bad.json
expect "import without b.node" 2 'result 1 has no valid b.node' -- \
	$FC matrix --import $MXT/bad.json --db $MXT/m.db
echo '{ nope' > $MXT/bad.json
expect "import not json" 2 'import .*bad.json: line 1' -- $FC matrix --import $MXT/bad.json
expect "import with nodes" 2 'drop the node names' -- \
	$FC matrix --import $MXD/rack4-slowC.json nodeA nodeB --db $MXT/m.db
# A finished run resumed: nothing to run again, the same verdict.
expect "resume a finished run" 1 'matrix run 1: 4 nodes, 6 of 6 pairs' -- \
	$FC matrix --resume 1 --db $MXT/m.db
expect "resume a finished run: same finding" 1 'suspect node nodeC' -- \
	$FC matrix --resume 1 --db $MXT/m.db
expect "resume unknown run" 2 'no run 99' -- $FC matrix --resume 99 --db $MXT/m.db
expect "resume with nodes" 2 'drop the node names' -- $FC matrix --resume 1 a b --db $MXT/m.db

# A store the user may only read: chmod 0444 in a folder it cannot write,
# used by an unprivileged user (made here when the tests run as root).
RO=$(mktemp -d /tmp/fabcheck-cli-ro.XXXXXX)
RW=$(mktemp -d /tmp/fabcheck-cli-rw.XXXXXX)
$FC matrix --import $MXD/rack4-slowC.json --db $RO/r.db >/dev/null 2>&1
chmod 0444 $RO/r.db
chmod 0755 $RO
chmod 1777 $RW
AS=()
if [ "$(id -u)" = 0 ]; then
	id fabcheck-ro >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin fabcheck-ro
	AS=(setpriv --reuid=fabcheck-ro --regid=fabcheck-ro --clear-groups)
fi
expect "read-only store: report --list" 0 '^ +1  matrix .* 6 pairs  fail +4 nodes' -- \
	"${AS[@]}" $FC report --list --db $RO/r.db
expect "read-only store: report --csv" 0 "wrote $RW/r.csv \(run 1, 4 nodes, verdict fail\)" -- \
	"${AS[@]}" $FC report --db $RO/r.db --csv $RW/r.csv
expect "read-only store: tui --once" 0 'suspect node nodeC' -- \
	"${AS[@]}" $FC tui --once --db $RO/r.db
expect "read-only store: writing is refused, naming the file" 3 "store $RO/r.db: cannot write it: Permission denied" -- \
	"${AS[@]}" $FC matrix --import $MXD/rack4-slowC.json --db $RO/r.db
expect "read-only folder: a new store is refused" 3 "cannot write in its folder $RO: Permission denied" -- \
	"${AS[@]}" $FC matrix --import $MXD/rack4-slowC.json --db $RO/new.db
expect "read-only store: nothing written beside it" 0 '^r.db$' -- ls $RO
# Read-only commands on a mistyped path: an error naming it, no new file.
expect "report on a missing store" 3 "store $RO/typo.db: No such file or directory" -- \
	$FC report --list --db $RO/typo.db
expect "tui on a missing store" 3 "store $RO/typo.db: No such file or directory" -- \
	$FC tui --once --db $RO/typo.db
expect "report on a folder" 3 "store $RO: is not a file" -- $FC report --list --db $RO
expect "missing store: no file made" 0 '^r.db$' -- ls $RO
rm -rf "$RO" "$RW"

# report
expect "report help" 0 'usage: fabcheck report' -- $FC report --help
expect "report no output" 2 'give at least one of --html' -- $FC report --db $MXT/m.db
# An empty store (a command that writes makes it; this one then finds no run).
$FC matrix --resume 1 --db $MXT/empty.db >/dev/null 2>&1
expect "report empty store" 3 'no matrix run in' -- $FC report --db $MXT/empty.db --csv $MXT/x.csv
expect "report unknown run" 3 'no run 42' -- $FC report --db $MXT/m.db --run 42 --csv $MXT/x.csv
expect "report list" 0 '^ +1  matrix .* 6 pairs  fail +4 nodes' -- $FC report --list --db $MXT/m.db
expect "report unwritable" 3 'cannot write /nonexistent-fc/r.html' -- \
	$FC report --db $MXT/m.db --run 1 --html /nonexistent-fc/r.html
expect "report all three" 0 'wrote .*r.prom \(run 1, 4 nodes, verdict fail\)' -- \
	$FC report --db $MXT/m.db --run 1 --html $MXT/r.html --csv $MXT/r.csv --prom $MXT/r.prom
expect "report csv rows" 0 '^7 ' -- wc -l $MXT/r.csv
expect "report csv nodeC pairs fail" 0 '1,nodeB,nodeC,-1,all,0.02,[0-9.]+,fail,0' -- cat $MXT/r.csv
expect "report prom node verdicts" 0 'fabcheck_node_suspect\{node="nodeC",run="1"\} 1' -- \
	cat $MXT/r.prom
expect "report prom gauges typed" 0 '# TYPE fabcheck_pair_bandwidth_gbps gauge' -- cat $MXT/r.prom
# The textfile collector's format, line by line.
expect "report prom syntax" 0 '^ok$' -- python3 -c '
import re,sys
ok = all(re.match(r"^(# (HELP|TYPE) \w+ .+|\w+\{(\w+=\"[^\"]*\",?)+\} -?[0-9.e+-]+)$", l)
         for l in open(sys.argv[1]).read().splitlines())
print("ok" if ok else "bad line")' $MXT/r.prom
expect "report html svg cells and colours" 0 '^ok$' -- python3 tests/cli/check_html.py $MXT/r.html 4 nodeC
# A pair that failed before any figure (a completion error): its cell is as
# red as a cell gets, not the grey of one not measured.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = next(r for r in d["results"] if "nodeC" in (r["a"]["node"], r["b"]["node"]))
r["results"], r["verdict"] = [], "fail"
r["findings"] = ["nodeC: rxe0 qp 0x12: send completed with error \x27remote invalid request error\x27 (status 9)"]
json.dump(d, open(sys.argv[2], "w"))' $MXD/rack4-slowC.json $MXT/nofig.json
$FC matrix --import $MXT/nofig.json --db $MXT/nofig.db >/dev/null 2>&1
expect "report html: a pair failed without a figure is red" 0 '^ok$' -- sh -c \
	"$FC report --db $MXT/nofig.db --run 1 --html $MXT/nofig.html >/dev/null && python3 tests/cli/check_html.py $MXT/nofig.html 4 nodeC"
# The runner for real: `pair` children of this binary with the local
# launcher. This host has no RDMA, so every pair fails to run: exit 3, each
# node named with pair's own reason, every result kept. Both workers of a
# pair fail at once, so which of the two the pair names first is a race:
# the reason quoted for nodeB is its own when one of its pairs named it,
# else its peer's.
expect "runner on a host without RDMA" 3 'node nodeB: none of its 2 pairs could run: node[ABC]: no RDMA device found' -- \
	$FC matrix nodeA nodeB nodeC --launcher local --timeout 5 --db $MXT/run.db
expect "runner stored each result" 0 '^ +1  matrix .* 3 pairs  fail +3 nodes' -- \
	$FC report --list --db $MXT/run.db
expect "runner json" 3 '"state": "unreachable"' -- \
	$FC matrix nodeA nodeB --launcher local --timeout 5 --db $MXT/run.db --json
expect "runner: pair refuses an option" 2 'pair refused the options' -- \
	$FC matrix nodeA nodeB --pair-opt --frob --db $MXT/run.db
# Ctrl-C in the middle of a round: the finished pair is kept, the hung one is
# ended and dropped; --resume runs what is missing (errors again) and ends.
W=$(pwd)/tests/cli/mx-worker.sh
# interrupt_when DB N CMD...: runs CMD, sends it SIGINT once DB holds N
# pair results (polled for at most 60 s; the same under valgrind, which
# starts slowly, as without).
interrupt_when() {
	local db=$1 want=$2 pid i
	shift 2
	"$@" & pid=$!
	for i in $(seq 600); do
		[ "$(sqlite3 "$db" 'select count(*) from pairs' 2>/dev/null)" = "$want" ] && break
		sleep 0.1
	done
	sleep 0.5 # the matrix prints the pair it stored
	kill -INT $pid
	wait $pid
}
MX_HANG_NODE=nodeD expect "ctrl-c keeps finished pairs" 3 'interrupted: 1 pair results of run 1 are kept.*--resume 1' -- \
	interrupt_when $MXT/int.db 1 $FC matrix nodeA nodeB nodeC nodeD --launcher local --worker-cmd $W \
	--timeout 20 --db $MXT/int.db
expect "ctrl-c: the store has the finished pair" 0 '^ +1  matrix .* 1 pair +interrupted +4 nodes' -- \
	$FC report --list --db $MXT/int.db
# The run's --launcher and --worker-cmd are used only when given again.
expect "resume: stored launch options not repeated" 2 \
	"run 1 in $MXT/int.db: its stored pair options carry --worker-cmd '$W'.*give --worker-cmd '$W' on the command line" -- \
	$FC matrix --resume 1 --db $MXT/int.db
expect "resume: another worker command" 2 "carry --worker-cmd '$W'" -- \
	$FC matrix --resume 1 --db $MXT/int.db --launcher local --worker-cmd /bin/true
expect "resume finishes the run" 3 'matrix run 1: 4 nodes, 6 of 6 pairs' -- \
	$FC matrix --resume 1 --db $MXT/int.db --launcher local --worker-cmd $W
expect "resume re-ran the error and the missing pairs" 0 '^ +1  matrix .* 7 pairs  fail +4 nodes' -- \
	$FC report --list --db $MXT/int.db
# A crafted store: nothing it holds becomes a command. Its stored options
# name a script (that would leave a mark), its nodes a shell line.
printf '#!/bin/sh\ntouch %s/ran\n' "$MXT" >$MXT/evil.sh
chmod +x $MXT/evil.sh
cp $MXT/int.db $MXT/evil.db
craft() { # craft SQL: changes run 1 of evil.db
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' \
		$MXT/evil.db "$1"
}
craft "UPDATE runs SET params = json_set(params, '\$.pair_args', json('[\"--worker-cmd\", \"$MXT/evil.sh\", \"--launcher\", \"local\"]')), ended = NULL WHERE id = 1; "
craft "DELETE FROM pairs WHERE run = 1"
expect "crafted store: stored --worker-cmd refused" 2 "its stored pair options carry --worker-cmd '$MXT/evil.sh'.*give --worker-cmd" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
expect "crafted store: refused for the tui's rerun too" 2 "carry --worker-cmd '$MXT/evil.sh'" -- \
	$FC matrix --resume 1 --db $MXT/evil.db --launcher local
expect_quiet "crafted store: the script did not run" 0 -- bash -c "ls $MXT | grep -x ran; true"
craft "UPDATE runs SET params = json_set(params, '\$.pair_args', json('[\"--pair-opt\", \"x\"]')) WHERE id = 1"
expect "crafted store: an option pair does not know" 3 "stored pair option: '--pair-opt' is not an option of 'fabcheck pair'" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
craft "UPDATE runs SET params = json_set(params, '\$.pair_args', json('[\"-s\", \"3X\"]')) WHERE id = 1"
expect "crafted store: a bad value" 3 "stored pair option: '-s' '3X' is refused" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
craft "UPDATE runs SET params = json_set(params, '\$.pair_args', json('[\"nodeX\"]')) WHERE id = 1"
expect "crafted store: a word that is no option" 3 "stored pair option: 'nodeX' is not an option" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
craft "UPDATE runs SET params = json_set(params, '\$.pair_args', json('[]'), '\$.nodes', json('[\"nodeA\", \"-oProxyCommand=touch $MXT/ran\"]')) WHERE id = 1"
expect "crafted store: a node name that is an ssh option" 3 "'-oProxyCommand=touch $MXT/ran' is not a node name" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
craft "UPDATE runs SET params = json_set(params, '\$.nodes', json('[\"nodeA\", \"nodeA\"]')) WHERE id = 1"
expect "crafted store: a node twice" 3 "node 'nodeA' is given twice" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
craft "UPDATE runs SET params = json_set(params, '\$.nodes', json('[\"nodeA\", 7]')) WHERE id = 1"
expect "crafted store: a node that is no string" 3 "its node list is refused" -- \
	$FC matrix --resume 1 --db $MXT/evil.db
expect_quiet "crafted store: still nothing ran" 0 -- bash -c "ls $MXT | grep -x ran; true"
# A pair past the matrix's deadline (passed to it as pair --deadline) ends
# itself and is reported as could not run, with its cause.
MX_HANG_NODE=nodeB expect "deadline ends a hung pair" 3 "its one pair could not run: nodeB: no 'hello' from the worker by the run's deadline \(--deadline 2 s\)" -- \
	$FC matrix nodeA nodeB --launcher local --worker-cmd $W --timeout 20 --deadline 2 \
	--db $MXT/dl.db

# The page in a real browser: headless Chromium's screenshot shows the heat
# map (6 red cells of nodeC's pairs, 6 green ones: about 730 px each).
shot() {
	(cd "$MXT" && timeout 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --no-first-run --user-data-dir="$MXT/chrome" \
		--window-size=1000,900 --screenshot="$MXT/shot.png" "file://$1" >/dev/null 2>&1)
	python3 tests/cli/check_png.py "$MXT/shot.png" 3000 3000
}
expect "report html in chromium shows the heat map" 0 '^ok 1000x900' -- shot "$MXT/r.html"
rm -rf "$MXT"
