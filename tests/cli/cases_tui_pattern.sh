# Cases for the TUI of a pattern run (matrix --pattern; sourced by
# tests/cli/run.sh): it opens on the rounds, as matrix prints them (each
# receiver's senders, the aggregate against the port's ceiling, Jain's
# index, the named outcome), p switches to the heat map and back, the
# arrows scroll rounds longer than the screen. Stores filled by the
# stand-in worker (tests/cli/rack-worker.sh); asserted on capture-pane.
. tests/cli/tui_lib.sh
TPW=(--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5 -d rxe0)

# Incast over 3 nodes, nodeC's worker sending 0.5 Gb/s: into nodeA and
# nodeB it is the starved sender (2.4 + 0.5 Gb/s, Jain 0.700).
RW_GBPS_HOST=nodeC RW_GBPS_SLOW=0.5 $FC matrix nodeA nodeB nodeC --pattern incast "${TPW[@]}" \
	--db $TUT/inc.db >/dev/null 2>&1
tui_run rounds 120x30 - 'round 3: into nodeC' -- --db $TUT/inc.db --max-iterations 15
expect "tui pattern: opens on the rounds, the pattern named" 0 'incast rounds \(p: heat map\)' -- \
	cat $TUT/out-rounds.txt
expect "tui pattern: a round's receiver, aggregate against the ceiling, Jain" 0 \
	'^  round 1: into nodeA from 2 senders: 2.9 Gb/s of 2.5 Gb/s \(port rate\), Jain 0.700$' -- \
	cat $TUT/out-rounds.txt
expect "tui pattern: each sender's share" 0 '^    nodeC -> nodeB  0.5 Gb/s$' -- cat $TUT/out-rounds.txt
expect "tui pattern: the starved sender's outcome, named" 0 \
	'^    warn: unfair: nodeC sent 0.5 Gb/s against a fair share of 1.45 Gb/s \(Jain 0.700\): check its path to nodeA' -- \
	cat $TUT/out-rounds.txt
expect "tui pattern: the fair round" 0 'round 3: into nodeC from 2 senders: 4.8 Gb/s of 2.5 Gb/s \(port rate\), Jain 1.000' -- \
	cat $TUT/out-rounds.txt
expect "tui pattern: the schedule is the pattern's flows" 0 'round 3/3  flows 6/6 ' -- cat $TUT/out-rounds.txt
expect "tui pattern: clean stderr (sanitizers)" 0 '^exit=0$' -- cat $TUT/out-rounds.txt
# p: the heat map of the same flows, nodeC marked; p again: the rounds.
# A run that takes keys lives 50 refreshes (about 10 s; tui_run ends it as
# soon as the screen shows what is wanted): with 15 (3 s) the TUI of a loaded
# host exited before PgDn reached it, and its last screen was the first page
# (make check at 92118af, CLI step beside the fuzzers).
tui_run heat 120x30 p '^\*C ' -- --db $TUT/inc.db --max-iterations 50
expect "tui pattern p: the heat map, the rounds one key away" 0 '\(p: incast rounds\)' -- cat $TUT/out-heat.txt
expect "tui pattern p: the slow sender's row marked" 0 '^\*C +21! +21!' -- cat $TUT/out-heat.txt
tui_run back 120x30 'p p' - -- --db $TUT/inc.db --max-iterations 50
expect "tui pattern p p: back on the rounds" 0 '^  round 2: into nodeB' -- cat $TUT/out-back.txt

# 4 nodes at 80x24: 4 rounds of 3 senders, more rows than the screen (long
# lines wrap at words); the last says how many more, PgDn shows the end.
$FC matrix nodeA nodeB nodeC nodeD --pattern incast "${TPW[@]}" --db $TUT/inc4.db >/dev/null 2>&1
tui_run long 80x24 - 'more lines' -- --db $TUT/inc4.db --max-iterations 15
expect "tui pattern 80x24: the rows left below, counted" 0 '^\.\.\. [0-9]+ more lines \(arrows, PgDn\)' -- \
	cat $TUT/out-long.txt
expect "tui pattern 80x24: the Jain index wrapped under its round" 0 '^      1.000$' -- cat $TUT/out-long.txt
expect "tui pattern 80x24: fits 80 columns" 0 '^width ([0-7][0-9]|80)$' -- max_width $TUT/out-long.txt
# (150 iterations: under CLI_JOBS=4 the first screen can come late enough
# that 50 ended the TUI before the key reached it; the case waits at most 10 s
# for the TUI's own end after the pattern is seen)
tui_run end 80x24 NPage '^    nodeC -> nodeD  2.4 Gb/s' -- --db $TUT/inc4.db --max-iterations 150
expect "tui pattern PgDn: the last round" 0 '^    nodeC -> nodeD  2.4 Gb/s' -- cat $TUT/out-end.txt
rm -rf "$TUT"
