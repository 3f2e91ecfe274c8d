# Every CSV through the one cell writer (core/csv.c): a stored name that a
# spreadsheet would take for a formula (OWASP "CSV injection": a leading =,
# +, -, @, tab or CR) is written with a ' before it, in report --csv and in
# report --history --csv. The store is crafted: '@nodeA' is a name a node
# may have (its charset allows '@'), so it survives any name check on read.
# Sourced by tests/cli/run.sh.
CST=$(mktemp -d /tmp/fc-csv-XXXXXX)
$FC matrix --import tests/data/matrix/rack4-healthy.json --db "$CST/a.db" >/dev/null 2>&1
python3 - "$CST/a.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n = "@nodeA"
c.execute("UPDATE runs SET params = replace(params, '\"nodeA\"', ?)", ('"%s"' % n,))
c.execute("UPDATE pairs SET a = replace(a, 'nodeA', ?), b = replace(b, 'nodeA', ?), "
          "doc = replace(doc, '\"nodeA\"', ?)", (n, n, '"%s"' % n))
c.execute("UPDATE links SET a = replace(a, 'nodeA', ?), b = replace(b, 'nodeA', ?)", (n, n))
c.commit()
PY
expect "csv: report --csv of a crafted store" 0 'wrote .*r.csv' -- \
	$FC report --db "$CST/a.db" --csv "$CST/r.csv"
expect "csv: a leading @ is prefixed with '" 0 "^1,'@nodeA,nodeB,(-1,all,)?0\.16," -- cat "$CST/r.csv"
expect_none "csv: no cell begins with @" 0 '(^|,)@' -- cat "$CST/r.csv"
expect "csv: report --history --csv of a crafted store" 0 'wrote .*h.csv' -- \
	$FC report --history --db "$CST/a.db" --csv "$CST/h.csv"
expect "csv history: a leading @ is prefixed with '" 0 "^0,1,'@nodeA,nodeB,-1,all,0\.16,," -- cat "$CST/h.csv"
expect_none "csv history: no cell begins with @" 0 '(^|,)@' -- cat "$CST/h.csv"
# A stored name with an escape sequence (an OSC that sets the terminal's
# title, and a BEL) reaches the terminal escaped (fc_name_show), in the
# TUI's row labels and its detail line (a long name there is cut from its
# start with "~" so that the verdict stays in view: its escaped tail is shown).
$FC matrix --import tests/data/matrix/rack4-healthy.json --db "$CST/e.db" >/dev/null 2>&1
python3 - "$CST/e.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, j = "\x1b]0;pwned\x07nodeA", '"\\u001b]0;pwned\\u0007nodeA"'
c.execute("UPDATE runs SET params = replace(params, '\"nodeA\"', ?)", (j,))
c.execute("UPDATE pairs SET a = replace(a, 'nodeA', ?), b = replace(b, 'nodeA', ?), "
          "doc = replace(doc, '\"nodeA\"', ?)", (n, n, j))
c.execute("UPDATE links SET a = replace(a, 'nodeA', ?), b = replace(b, 'nodeA', ?)", (n, n))
c.commit()
PY
tui_raw() { # the TUI's bytes: "raw" when the name's escape or BEL is in them
	TERM=xterm $FC tui --once --db "$CST/e.db" 2>&1 | python3 -c '
import sys
b = sys.stdin.buffer.read()
print("raw" if b"\x1b]0;pwned" in b or b"\x07" in b else "escaped" if b"]0;pwned\\x07nodeA -> nodeB" in b else "no detail line")'
}
expect "tui: a stored name's escapes are shown escaped" 0 '^escaped$' -- tui_raw
rm -rf "$CST"
