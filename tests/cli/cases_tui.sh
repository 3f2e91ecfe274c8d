# Cases for `tui` (sourced by tests/cli/run.sh): the dashboard driven in
# tmux over stores filled from recorded results, asserted on capture-pane.
. tests/cli/tui_lib.sh

$FC matrix --import $MXD/rack4-slowC.json --db $TUT/slow.db >/dev/null 2>&1
tui_run slow 100x30 - '^\*C +12! ' -- --db $TUT/slow.db --max-iterations 15
expect "tui draws the matrix" 0 '^\\ +A +B +C +D' -- cat $TUT/out-slow.txt
expect "tui marks the suspect row" 0 '^\*C +12! +12! +- +12!' -- cat $TUT/out-slow.txt
expect "tui marks no other row" 0 '^ok$' -- only_suspect $TUT/out-slow.txt C
expect "tui names the suspect" 0 'suspect node nodeC: bad with 3 of 3 peers' -- cat $TUT/out-slow.txt
expect "tui status line" 0 'round 3/3  pairs 6/6 .* fail' -- cat $TUT/out-slow.txt
expect "tui cursor detail (starts on the suspect)" 0 'counters:  nodeC rcvd_seq_err \+3' -- \
	cat $TUT/out-slow.txt
expect "tui detail latency percentiles" 0 'latency: +read 2 B p50 [0-9]+ p99' -- cat $TUT/out-slow.txt
expect "tui footer keys" 0 'q quit  m metric  r rerun pair  arrows/hjkl move' -- cat $TUT/out-slow.txt
expect "tui exits 0 after --max-iterations" 0 '^exit=0$' -- cat $TUT/out-slow.txt
expect "tui restores the terminal" 0 '^terminal restored$' -- cat $TUT/out-slow.txt
expect "tui clean stderr (sanitizers)" 0 '^ok$' -- \
	sh -c "grep -q -E 'ERROR|runtime error' $TUT/out-slow.err && echo dirty || echo ok"

# Keys: move the cursor (j, l), switch the metric twice (to latency).
tui_run keys 100x30 'k h m m' 'latency p50, us' -- --db $TUT/slow.db --max-iterations 15
expect "tui m switches to latency" 0 'latency p50, us' -- cat $TUT/out-keys.txt
expect "tui latency cells" 0 '^\*C +1[0-9][0-9]! ' -- cat $TUT/out-keys.txt
# (B, A) was measured as A -> B: the detail shows the measured direction.
expect "tui k/h move the cursor" 0 '^nodeA -> nodeB: pass' -- cat $TUT/out-keys.txt

# Without colours (vt100), at 80x24, with 130 nodes: labels compressed to
# what differs (rack1-node077 -> 077), one glyph per pair, the suspect marked.
python3 $MXD/gen.py 130 rack1-node077 > $TUT/r130.json
$FC matrix --import $TUT/r130.json --db $TUT/big.db >/dev/null 2>&1
tui_run big 80x24 - '^\*077 !!!!' -- --db $TUT/big.db --max-iterations 15
expect "tui 130 nodes in 80x24" 0 'run 1 \(matrix\)  130 nodes' -- cat $TUT/out-big.txt
expect "tui 130 nodes: compressed labels, suspect row" 0 '^\*077 !!!!!!!!' -- cat $TUT/out-big.txt
expect "tui 130 nodes: fits 80 columns" 0 '^width ([0-7][0-9]|80)$' -- max_width $TUT/out-big.txt
TERM=vt100 tui_run mono 80x24 - '^\*C +12! ' -- --db $TUT/slow.db --max-iterations 15
expect "tui without colours still marks bad cells" 0 '^\*C +12! +12!' -- cat $TUT/out-mono.txt

# A resize redraws at the new size (KEY_RESIZE): 80x24 up to 120x40, so
# the 130-node heat map grows past 80 columns.
tui_run resize 80x24 resize:120x40 '.{81}' -- --db $TUT/big.db --max-iterations 15
expect "tui resized to 120x40 uses it" 0 '^width (8[1-9]|9[0-9]|1[01][0-9]|120)$' -- \
	max_width $TUT/out-resize.txt
expect "tui resized: still drawn" 0 '^\*077 !!!!' -- cat $TUT/out-resize.txt

# Too small a terminal says so.
tui_run small 60x15 - 'needs 80x24' -- --db $TUT/slow.db --max-iterations 10
expect "tui too small" 0 'needs 80x24; this terminal is 60x15' -- cat $TUT/out-small.txt
# q ends it long before its 200 iterations (40 s) would.
tui_run quit 100x30 q - -- --db $TUT/slow.db --max-iterations 200
expect "tui quits on q" 0 '^exit=0$' -- cat $TUT/out-quit.txt

# Following a run that another process writes (a replay at 0.4 s a pair).
$FC matrix --import $MXD/rack4-slowC.json --db $TUT/live.db --pace 0.4 >/dev/null 2>&1 &
live=$!
# (the TUI once the run is in the store, not after a fixed time)
for i in $(seq 100); do $FC report --list --db $TUT/live.db 2>/dev/null | grep -q ' matrix ' && break; sleep 0.1; done
tui_run live 100x30 - 'pairs [1-4]/6 .*running' -- --db $TUT/live.db --max-iterations 25
expect "tui follows a run being written: partial" 0 'pairs [1-4]/6 .*running' -- cat $TUT/out-live.txt
wait $live
tui_run live2 100x30 - 'pairs 6/6 .* fail' -- --db $TUT/live.db --max-iterations 10
expect "tui follows a run being written: complete" 0 'pairs 6/6 .* fail' -- cat $TUT/out-live2.txt

# A signal restores the terminal too.
tmux new-session -d -s "fctui-$$-sig" -x 100 -y 30 \
	"stty -a > $TUT/sig.before; $(printf '%q ' "$TFC") tui --db $TUT/slow.db 2> $TUT/sig.err; echo \$? > $TUT/sig.rc; stty -a > $TUT/sig.after; sleep 30"
# (the TUI's pid as soon as it runs: a loaded host starts it late)
for i in $(seq 100); do
	sigpid=$(pgrep -P "$(tmux list-panes -t "fctui-$$-sig" -F '#{pane_pid}')" -f ' tui ')
	[ -n "$sigpid" ] && break
	sleep 0.1
done
# (once it has drawn: the terminal is then in the TUI's modes)
tui_seen "fctui-$$-sig" $TUT/sig 600 '[^[:space:]]'
kill -TERM $sigpid 2>/dev/null
for i in $(seq 50); do [ -s $TUT/sig.rc ] && break; sleep 0.1; done
tmux kill-session -t "fctui-$$-sig" 2>/dev/null
expect "tui on SIGTERM restores the terminal" 0 '^restored$' -- \
	sh -c "[ -s $TUT/sig.rc ] && cmp -s $TUT/sig.before $TUT/sig.after && echo restored"

# r reruns the cursor pair with the run's own pair options, into the run;
# its --launcher and --worker-cmd only when the tui's command line repeats
# them (a store does not choose what runs on the nodes).
$FC matrix nodeA nodeB --launcher local --worker-cmd "$(pwd)/tests/cli/mx-worker.sh" \
	--timeout 5 --db $TUT/rr.db >/dev/null 2>&1
tui_run rerun-refused 160x30 r 'rerun refused' -- --db $TUT/rr.db --max-iterations 25
expect "tui r: stored launch options not repeated" 0 'rerun refused: .matrix --resume 1. says why' -- \
	cat $TUT/out-rerun-refused.txt
expect "tui r: nothing rerun" 0 '^ +1  matrix .* 1 pair +fail' -- $FC report --list --db $TUT/rr.db
tui_run rerun 100x30 r 'rerun of nodeA -> nodeB queued' -- --db $TUT/rr.db --max-iterations 25 --launcher local \
	--worker-cmd "$(pwd)/tests/cli/mx-worker.sh"
expect "tui r queues a rerun" 0 'rerun of nodeA -> nodeB queued' -- cat $TUT/out-rerun.txt
expect "tui rerun is stored in the run" 0 '^ +1  matrix .* 2 pairs' -- $FC report --list --db $TUT/rr.db
# (--worker-cmd of the run: the test worker's own message, and the retest mark)
expect "tui rerun carries the run's pair options" 0 '^ok$' -- sh -c \
	"sqlite3 $TUT/rr.db \"select doc from pairs where id = 2\" | grep '\"retest\": *true' | grep -q 'test worker' && echo ok"

$FC matrix --resume 1 --db $TUT/empty.db >/dev/null 2>&1 # an empty store
expect "tui no run in the store" 3 'no matrix run in' -- $FC tui --db $TUT/empty.db --once
expect "tui one node" 2 'at least two nodes' -- $FC tui nodeA --db $TUT/empty.db
expect "tui nodes and --run" 2 'not both' -- $FC tui nodeA nodeB --run 1 --db $TUT/empty.db
expect "tui matrix-only option" 2 "not one of this command's" -- $FC tui --resume 1
# Rails (matrix --rails): R shows one rail's heat map, then the nodes x
# rails overview where nodeC's rail 1 is the one suspect cell.
$FC matrix --import $MXD/rails-docs-4x2-port.json --db $TUT/rails.db >/dev/null 2>&1
tui_run rail1 100x30 'R R' 'rail 1 \(rxe1\)' -- --db $TUT/rails.db --max-iterations 15
expect "tui R R: rail 1's heat map, nodeC its suspect" 0 'rail 1 \(rxe1\)' -- cat $TUT/out-rail1.txt
expect "tui rail 1: only nodeC marked" 0 '^ok$' -- only_suspect $TUT/out-rail1.txt C
tui_run railov 100x30 'R R R' 'nodes x 2 rails' -- --db $TUT/rails.db --max-iterations 15
expect "tui R R R: the nodes x rails overview" 0 'nodes x 2 rails' -- cat $TUT/out-railov.txt
expect "tui overview: nodeC bad on rail 1 only" 0 '^ C +[0-9]+ +[0-9]+!' -- cat $TUT/out-railov.txt
# The TUI says what the run left out, as matrix does (issue 39 item 4): a
# 2-rail matrix whose nodes have a 10 Gb/s storage port (rxe2, left out with
# its rule; the stand-in worker), followed from its store.
env FAKE_DEVICES=tests/data/rails/devices-2rail-storage.json $FC matrix nodeA nodeB nodeC --launcher local \
	--worker-cmd tests/cli/rack-worker.sh --timeout 5 --db $TUT/left.db >/dev/null 2>&1
tui_run left 100x30 - '^rails: rxe2 left out' -- --db $TUT/left.db --max-iterations 15
expect "tui: the port the run left out, with its rule" 0 \
	'^rails: rxe2 left out on 3 nodes \(nodeA and 2 others\): its rate 10 Gb/s differs' -- cat $TUT/out-left.txt
# The title line fits the terminal cut at a word with " ..." (issue 39 item
# 3), not cut mid-word by the terminal ("(R: one ra").
expect "tui: the title line cut at a word at 100 columns" 0 '^fabcheck tui  run [0-9]+ .* \.\.\.$' -- \
	bash -c "head -n 1 $TUT/out-left.txt | sed 's/ *$//'"
rm -rf "$TUT"
