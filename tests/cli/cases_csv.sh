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
expect "csv: a leading @ is prefixed with '" 0 "^1,'@nodeA,nodeB,0\.16," -- cat "$CST/r.csv"
expect "csv: no cell begins with @" 0 '^0$' -- sh -c "grep -c '\(^\|,\)@' '$CST/r.csv'; true"
expect "csv: report --history --csv of a crafted store" 0 'wrote .*h.csv' -- \
	$FC report --history --db "$CST/a.db" --csv "$CST/h.csv"
expect "csv history: a leading @ is prefixed with '" 0 "^0,1,'@nodeA,nodeB,-1,all,0\.16,," -- cat "$CST/h.csv"
expect "csv history: no cell begins with @" 0 '^0$' -- sh -c "grep -c '\(^\|,\)@' '$CST/h.csv'; true"
rm -rf "$CST"
