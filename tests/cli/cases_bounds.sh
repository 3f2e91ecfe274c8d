# Bounded reads (issue 23): stored numbers range-checked on read like the
# command line's, stored figures that are no measurement taken as not
# measured, diagnose's test.json a regular file of bounded size, a hostfile
# with no endless line and no device. Sourced by tests/cli/run.sh.
BDT=$(mktemp -d /tmp/fc-bounds-XXXXXX)
bcraft() { # DB SQL
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$1" "$2"
}
MXW=(--launcher local --worker-cmd "$(pwd)/tests/cli/mx-worker.sh" --timeout 10)
$FC matrix --screen nodeA nodeB nodeC nodeD "${MXW[@]}" --db "$BDT/s.db" >/dev/null 2>&1
bcraft "$BDT/s.db" "UPDATE runs SET params = json_set(params, '\$.screen.max_rounds', 100000000), ended = NULL"
expect "stored max_rounds of 1e8: refused on resume" 3 \
	"run 1 in .*s.db: its stored 'max_rounds' \(1e\+08\) is not a number from 1 to 4096 or 0, as --max-rounds takes" -- \
	timeout 30 $FC matrix --resume 1 --db "$BDT/s.db" "${MXW[@]}"
$FC matrix --import tests/data/matrix/rack4-healthy.json --db "$BDT/i.db" >/dev/null 2>&1
cp "$BDT/i.db" "$BDT/d.db"
bcraft "$BDT/d.db" "UPDATE runs SET params = json_set(params, '\$.deadline_s', 1e300)"
expect "stored deadline of 1e300: refused on resume" 3 "its stored 'deadline_s' \(1e\+300\) is not a number from 1 to 86400 or 0" -- \
	$FC matrix --resume 1 --db "$BDT/d.db" "${MXW[@]}"
cp "$BDT/i.db" "$BDT/t.db"
bcraft "$BDT/t.db" "UPDATE runs SET params = json_set(params, '\$.min_rack_pct', -5)"
expect "stored --min-rack-pct of -5: refused by report" 3 "its stored 'min_rack_pct' \(-5\) is not a number from 0 to 100" -- \
	$FC report --db "$BDT/t.db" --csv "$BDT/t.csv"
cp "$BDT/i.db" "$BDT/f.db"
bcraft "$BDT/f.db" "UPDATE pairs SET gbps = -1e308 WHERE a = 'nodeA' AND b = 'nodeB'"
bcraft "$BDT/f.db" "UPDATE links SET gbps = -1e308 WHERE a = 'nodeA' AND b = 'nodeB'"
expect "stored -1e308 Gb/s: said to be no measurement" 0 'a stored figure of -1e\+308 is no measurement' -- \
	$FC report --db "$BDT/f.db" --csv "$BDT/f.csv"
expect "stored -1e308 Gb/s: not measured in the CSV" 0 '^1,nodeA,nodeB,(-1,all,)?,105,' -- cat "$BDT/f.csv"
expect_none "stored -1e308 Gb/s: no inf in the history report" 0 '[iI][nN][fF]' -- \
	$FC report --history --db "$BDT/f.db" --csv "$BDT/fh.csv"
expect_none "stored -1e308 Gb/s: no inf in the history CSV" 0 '[iI][nN][fF]|e\+308' -- cat "$BDT/fh.csv"
# The figures inside a stored pair document (what the TUI's detail, a
# resume and the rails' figures re-read) are bounded as live results are:
# a result that holds one is left out, said naming the store and the run.
cp "$BDT/i.db" "$BDT/doc.db"
bcraft "$BDT/doc.db" "UPDATE pairs SET doc = json_set(doc, '\$.results[0].gbps', -1e308, '\$.results[1].gbps', 5000, '\$.a.rate_gbps', 1e9)"
bdoc=(env TERM=xterm COLUMNS=160 LINES=40 timeout 20 $FC tui --db "$BDT/doc.db" --run 1 --once)
expect "stored document with -1e308 Gb/s: said, naming the store and the run" 0 \
	"store $BDT/doc.db: run 1, pair nodeA-nodeD \(row 1\): a stored result's \"gbps\" of -1e\+308 is no measurement" -- "${bdoc[@]}"
expect "stored document: 5000 Gb/s is above any port" 0 \
	"a stored result's \"gbps\" of 5000 is no measurement \(negative, not finite or above 3200\)" -- "${bdoc[@]}"
expect "stored document: the TUI's detail shows neither figure" 0 '^ok$' -- \
	sh -c "out=\$(TERM=xterm COLUMNS=160 LINES=40 timeout 20 $FC tui --db '$BDT/doc.db' --run 1 --once 2>/dev/null); case \$out in *e+308* | *'5000 Gb'*) echo shown ;; *width:*) echo ok ;; *) echo no-detail ;; esac"
mkdir "$BDT/ev"
mkfifo "$BDT/ev/test.json"
expect "diagnose: a FIFO named test.json is refused, not waited on" 2 \
	"test.json': not a regular file \\(a device, a folder, or a FIFO where only files" -- timeout 20 $FC diagnose "$BDT/ev"
rm "$BDT/ev/test.json"
truncate -s 17M "$BDT/ev/test.json"
expect "diagnose: a test.json over 16 MiB is refused" 2 "test.json': over 16 MiB" -- timeout 20 $FC diagnose "$BDT/ev"
expect "hostfile: a device is refused" 2 'hostfile /dev/zero: is not a regular file' -- \
	timeout 20 $FC matrix --hostfile /dev/zero --launcher local
{ echo nodeA; head -c 5000 /dev/zero | tr '\0' n; echo; } >"$BDT/long.txt"
expect "hostfile: a line over 4096 bytes is refused" 2 'long.txt line 2: longer than 4096 bytes' -- \
	$FC matrix --hostfile "$BDT/long.txt" --launcher local
rm -rf "$BDT"
