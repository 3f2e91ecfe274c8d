# Cases for the TUI's trend line (sourced by tests/cli/run.sh): the cursor
# link against its own past runs in the store, on the rail shown or its
# worst rail, over the recorded series of tests/data/matrix/gen_history.py
# (nodeA-nodeD 25% down on rail 1 in run 7, noise elsewhere).
. tests/cli/tui_lib.sh

python3 tests/data/matrix/gen_history.py $TUT
for i in 1 2 3 4 5 6; do
	$FC matrix --import $TUT/rails-$i.json --db $TUT/tr.db >/dev/null 2>&1
done
$FC matrix --import $TUT/rails-7.json --min-rack-pct 70 --db $TUT/tr.db >/dev/null 2>&1
cp $TUT/tr.db $TUT/tr1.db

# The cursor starts on nodeA -> nodeB: every rail shown, its worst rail's trend.
tui_run tr0 120x30 - '^  trend: ' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: the cursor link, its worst rail, within its past" 0 \
	'^  trend: +rail [01] \(rxe[01], its worst\) \[[=+*#]{7}\] ok: [0-9]% (below|above) its median 0\.1[0-9]*, now 0\.1[0-9]* Gb/s$' -- \
	cat $TUT/out-tr0.txt
# l l: onto nodeA -> nodeD; its worst rail is rail 1, flagged.
tui_run tr1 120x30 'l l' '^nodeA -> nodeD: pass' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: nodeA -> nodeD" 0 '^nodeA -> nodeD: pass' -- cat $TUT/out-tr1.txt
expect "tui trend: the flagged rail, its step down drawn" 0 \
	'^  trend: +rail 1 \(rxe1, its worst\) \[[+*#]{6}[_.:-]\] FLAGGED: [23][0-9]% below its median 0\.1[0-9]*, now 0\.1[0-9]* Gb/s$' -- \
	cat $TUT/out-tr1.txt
# R: rail 0 alone, where the same pair is within its past; R again: rail 1.
tui_run tr2 120x30 'l l R' 'trend: +rail 0 \(rxe0\) ' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: rail 0 of that pair within its past" 0 \
	'^  trend: +rail 0 \(rxe0\) \[[=+*#]{7}\] ok: [0-9]% (below|above) its median' -- cat $TUT/out-tr2.txt
tui_run tr3 120x30 'l l R R' 'trend: +rail 1 \(rxe1\) ' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: rail 1 alone, flagged" 0 \
	'^  trend: +rail 1 \(rxe1\) \[.{7}\] FLAGGED: [23][0-9]% below' -- cat $TUT/out-tr3.txt
# On rail 1 alone, the detail is that rail's cell, named so; at 80 columns a
# long line is cut at a word's end with a marker, not in mid-word.
tui_run tr5 80x30 'l l R R' '^nodeA -> nodeD on rail 1' -- --db $TUT/tr.db --max-iterations 15
expect "tui detail: the rail shown, named" 0 '^nodeA -> nodeD on rail 1 \(rxe1\): pass$' -- cat $TUT/out-tr5.txt
expect "tui detail: a long line cut at a word with ' ...'" 0 \
	'^  trend: +rail 1 \(rxe1\) \[.{7}\] FLAGGED: [23][0-9]% below its median 0\.1[0-9]* \.\.\.$' -- cat $TUT/out-tr5.txt
# The suspects list's detail has the trend too (s: the list).
tui_run tr4 120x30 'l l s' '^  trend: +rail 1 \(rxe1, its worst\).* FLAGGED' -- --db $TUT/tr.db --max-iterations 15
expect "tui trend: under the list" 0 '^  trend: +rail 1 \(rxe1, its worst\).* FLAGGED' -- cat $TUT/out-tr4.txt

# A store of schema 1 (no link rows): read from its documents, left as it was.
python3 - $TUT/tr1.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DROP TABLE links")
c.execute("PRAGMA user_version = 1")
c.commit()
PY
tui_run tr5 120x30 'l l' 'FLAGGED' -- --db $TUT/tr1.db --max-iterations 15
expect "tui trend on a schema 1 store" 0 \
	'^  trend: +rail 1 \(rxe1, its worst\) \[.{7}\] FLAGGED: [23][0-9]% below' -- \
	cat $TUT/out-tr5.txt
expect "tui trend: schema 1 store left as it was" 0 '^1$' -- python3 -c '
import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' $TUT/tr1.db

# Without rails: three runs, too few to judge (3 earlier ones needed).
for i in 1 2 3; do
	$FC matrix --import tests/data/matrix/rack4-healthy.json --db $TUT/few.db >/dev/null 2>&1
done
tui_run tr6 100x30 - '^  trend: ' -- --db $TUT/few.db --max-iterations 15
expect "tui trend without rails: too few runs" 0 \
	'^  trend: +\[###\] now 0\.1[0-9]* Gb/s: 2 earlier runs, 3 needed to judge it$' -- \
	cat $TUT/out-tr6.txt
expect "tui trend: clean exit" 0 '^exit=0$' -- cat $TUT/out-tr6.txt
expect "tui trend: clean stderr (sanitizers)" 0 '^ok$' -- \
	sh -c "grep -q -E 'ERROR|runtime error' $TUT/out-tr1.err $TUT/out-tr5.err && echo dirty || echo ok"
rm -rf "$TUT"
