# Cases for `report` at rack scale (sourced by tests/cli/run.sh): what it
# writes of a 64-node, 8-rail store (a cell per pair) and of 300-node stores
# (blocks), with and without rails, is byte for byte what it wrote when it
# built the run's whole JSON document (the SHA-256 below were taken from
# that build, 5dd4777), the start time aside. A change to the reports'
# format changes them: check the new output, then write its digests here.
RPT=$(mktemp -d /tmp/fc-report-XXXXXX)
MXD=tests/data/matrix
# report_sums NAME: the digests of NAME's HTML, CSV and Prometheus text,
# the run's start time taken out (local time in the page, unix time in
# the metrics).
report_sums() {
	sed -E 's/started [^;]*;/started -;/' "$RPT/$1.html" | sha256sum | cut -c1-16
	sha256sum < "$RPT/$1.csv" | cut -c1-16
	sed -E 's/^(fabcheck_matrix_start_time_seconds\{run="1"\}) .*/\1 -/' "$RPT/$1.prom" |
		sha256sum | cut -c1-16
}
# report_case NAME DESC SUMS GENERATOR...: imports what GENERATOR writes,
# reports it and compares the digests with SUMS (three, space-separated).
report_case() {
	local name=$1 desc=$2 want=$3
	shift 3
	"$@" > "$RPT/$name.json"
	$FC matrix --import "$RPT/$name.json" --db "$RPT/$name.db" >/dev/null 2>&1
	expect "report $desc: html, csv, prom as before" 0 "^$want\$" -- bash -c \
		"$FC report --db $RPT/$name.db --html $RPT/$name.html --csv $RPT/$name.csv \
		--prom $RPT/$name.prom >/dev/null && echo \$(report_sums $name)"
}
export -f report_sums
export RPT
# The rails' port suspect gives its evidence in the single-port words since
# db7c262 (issue 39 item 5): the HTML's findings item and matrix's finding
# line for gpu05/gpu77 changed, "bad with most of its peers on that rail,
# median 0.02 Gb/s against 0.166 Gb/s" -> "bad with 63 of 63 peers (below
# 90% of the rack median 0.166 Gb/s; the slowest 0.02 Gb/s, with gpu01; its
# median 0.02 Gb/s)", nothing else (diffed against 4156a42's output; CSV and
# Prometheus text the same): HTML 8e220f527b9009f7 -> a373e18c6b046173 and
# 5fded521733efea1 -> ae56947dc40ce97d, matrix text f2c86bc5440839d7 ->
# b21c1d748e53f8b4.
# The page opens with the summary (issue 39 items 1 and 7: a section
# "summary" after the h1; the verdict said there, no longer in the run's
# line) and the heat maps' label bands are as deep as their labels need
# (report_svg.c label_bands), nothing else: diffed against 3edd301's pages
# with the summary, the style lines and the SVG coordinates taken out, the
# same (the start time's sed is now "started ...;", as the run's line ends
# there): HTML a373e18c6b046173 -> 341621b51b3036b4, ae56947dc40ce97d ->
# 872be045f821569b, 3d4ed2b60881a01d -> f3f171284d5236c7.
report_case r64 "64 nodes x 8 rails" "341621b51b3036b4 1052dd1ffc27f762 c9918a5bfa21c972" \
	python3 $MXD/gen_rails.py --pair-docs 64 8 port:gpu05:3
report_case r300r "300 nodes x 2 rails, 8 rounds" "872be045f821569b d55435726f33e7a8 ed724ffbc2ac9c0a" \
	python3 $MXD/gen_rails.py --pair-docs 300 2 port:gpu77:1 8
report_case r300 "300 nodes, 8 rounds" "f3f171284d5236c7 9e98d3e98232b3f6 74c12e162586f76d" \
	python3 $MXD/gen.py 300 rack1-node077 0.02 8
# matrix's text report of the same runs (it builds no pairs list above 12
# nodes now) is as before too (its summary says no latency where none was
# measured, where it said ", -"), and since issue 39 ends with the summary
# under the verdict (the text up to "verdict:" still 807d57345ad9d6ef and
# 907931de93b91e7b; the summary's lines fitted to COLUMNS=100), its first
# line the verdict's ("verdict: fail, 1 problem named:", where
# 9c3ebe566e4012ae and 7fa3efdd42e012fd had "verdict: fail" and "summary:
# fail, 1 problem named:"; nothing else changed). The suspect's finding
# wraps at 100 columns under its bullet (issue 39 item 3, 457eaef), its
# words the same (diffed against 0861a0b's output: only that line, now 3):
# b21c1d748e53f8b4 -> f71a43bc679d8e64, 8060fbd6505b8baa -> 5a697534aeff5a9c.
# The suspect's summary line takes a second line for the rest of its step
# where it was cut at 100 columns ("... that node's HCA, cable or ..."),
# nothing else (diffed against 34a8032's output): f71a43bc679d8e64 ->
# bdc85920022dbaf8, 5a697534aeff5a9c -> 464be529ed0e3c3d.
expect "matrix text of 64 x 8 as before" 0 '^bdc85920022dbaf8$' -- bash -c \
	"COLUMNS=100 $FC matrix --import $RPT/r64.json --db $RPT/t64.db 2>/dev/null | sha256sum | cut -c1-16"
expect "matrix text of 300 nodes as before" 0 '^464be529ed0e3c3d$' -- bash -c \
	"COLUMNS=100 $FC matrix --import $RPT/r300.json --db $RPT/t300.db 2>/dev/null | sha256sum | cut -c1-16"
# The digests compare more than empty files.
# 9 heat maps (every rail together, then each) of 64 x 63 cells.
expect "report 64 x 8: a cell per pair and rail" 0 '^36288$' -- sh -c \
	"grep -c '<rect class=\"cell ' $RPT/r64.html"
expect "report 300 x 2: blocks, the bad port's" 0 'class="cell block bad".*<title>gpu71 \.\. gpu80 -&gt; .*: worst gpu77 -&gt;' -- \
	cat $RPT/r300r.html
# The nodes and rails table: a healthy node coloured by its own median on
# rail 3 (green, as on its other rails), its bad pair naming the suspect.
expect "report 64 x 8: a healthy node is not painted by the bad port" 0 \
	'<td>gpu04</td>(<td class="rail-cell" style="background:#2a9d54">0.166 Gb/s</td>){3}<td class="rail-cell" style="background:#2a9d54">0.166 Gb/s<br><small>worst 0.02 Gb/s, with <b class="bad-peer">gpu05</b> \(suspect\)' -- \
	cat $RPT/r64.html
expect "report 64 x 8: the summary has no latency where none was measured" 0 'rack median 1.33 Gb/s\.</p>' -- \
	cat $RPT/r64.html
# 100 nodes x 8 rails: 9 heat maps of 9,900 cells would pass the page's
# 65,280; each is 25 x 25 blocks of 4 nodes instead.
python3 $MXD/gen_rails.py --pair-docs 100 8 port:gpu07:2 4 > $RPT/r100.json
$FC matrix --import $RPT/r100.json --db $RPT/r100.db >/dev/null 2>&1
expect "report 100 x 8: blocks of 4 nodes, 25 a side, 9 maps" 0 '^5625$' -- sh -c \
	"$FC report --db $RPT/r100.db --html $RPT/r100.html >/dev/null && grep -c '<rect class=\"cell block ' $RPT/r100.html"
expect "report 100 x 8: the bad port's block" 0 'class="cell block bad".*<title>gpu05 \.\. gpu08 -&gt; .*: worst gpu07 -&gt;' -- \
	cat $RPT/r100.html
# report --history of the 64 x 8 run given seven runs before it
# (clone_history.py: its link rows again, 3% noise; in the run judged rail 0
# of gpu01 .. gpu09 at 60%: 531 links flagged). Its HTML and CSV are byte for
# byte what the history read whole into memory wrote (digests from b8c00ff).
cp "$RPT/r64.db" "$RPT/h64.db"
python3 $MXD/clone_history.py "$RPT/h64.db" 8 9
expect "report --history 64 x 8: html and csv as before" 0 '^5f0f29a09deeace0 ae922d489d20b026$' -- bash -c \
	"$FC report --history --db $RPT/h64.db --html $RPT/h64.html --csv $RPT/h64.csv >/dev/null &&
	echo \$(sha256sum < $RPT/h64.html | cut -c1-16) \$(sha256sum < $RPT/h64.csv | cut -c1-16)"
expect "report --history 64 x 8: the 500 worst charted, 31 more said, 531 flagged in the csv" 0 \
	'^500 31 531$' -- sh -c "echo \$(grep -c '<svg class=\"trend\"' $RPT/h64.html) \
	\$(grep -o '[0-9]* more flagged links' $RPT/h64.html | cut -d' ' -f1) \$(grep -c ',1\$' $RPT/h64.csv)"
# Its memory (the build without sanitizers; peak resident set from GNU
# time): what report --history takes beyond `report --html` of the same run
# (the run's model) is SQLite's sorter over the store's rows (its cache
# size, 2 MB), the 500 charted links (150 KB) and, with --csv, the CSV's
# on-disk sort (store/spill.c: 1 MB of cache, 1 MB of sorter), whatever
# the number of links and runs: under 4.5 MB, 6 MB with the CSV (2.5 and
# 4.7 MB measured). The history read whole took about 430 bytes a link
# and run kept: 6.9 MB here (16,128 links x 8 runs), 1.1 GB at 1,024 x 8.
FCP=${FC_PLAIN:-./fabcheck}
report_rss() { /usr/bin/time -f %M "$FCP" report --db "$RPT/h64.db" "$@" 2>&1 >/dev/null | tail -1; }
report_history_rss() {
	local base html csv
	base=$(report_rss --html "$RPT/m.html") html=$(report_rss --history --html "$RPT/m.html")
	csv=$(report_rss --history --html "$RPT/m.html" --csv "$RPT/m.csv")
	[ $((html - base)) -lt 4608 ] && [ $((csv - base)) -lt 6144 ] && echo -n within || echo -n over
	echo ": report $base KB; with --history $((html - base)) KB more, with --csv $((csv - base)) KB more"
}
expect "report --history 64 x 8: memory beyond the model's under 4.5 MB (6 MB with --csv)" 0 \
	'^within: report [0-9]+ KB; ' -- report_history_rss
# The report is of a matrix or soak run (issue 39 item 7, seen in Chromium):
# a pair run's page said "fabcheck matrix run 2 ... verdict pass" for a pair
# whose error counters warned, and a soak's said "matrix run" and "finish it
# with 'fabcheck matrix --resume'" of the pairs its slices did not draw.
RPW=(--launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5)
env FAKE_DEVICES=tests/data/rails/devices-2rail.json RW_COUNTERS_DEV=rxe1 \
	RW_COUNTERS='{"completer_retry_err":219}' $FC pair nodeA nodeB "${RPW[@]}" --db $RPT/p.db >/dev/null 2>&1
expect "report of a pair run: refused, naming the run's kind and the fix" 3 \
	"run 1 in .*p\.db is a pair run, not a matrix or soak run: .*'fabcheck report --list' lists the runs" -- \
	$FC report --db $RPT/p.db --run 1 --html $RPT/p.html
env FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC soak nodeA nodeB nodeC "${RPW[@]}" --duration 4 \
	--slice 2 --interval 1 --db $RPT/s.db >/dev/null 2>&1
expect "report of a soak run: its kind, no matrix --resume for the pairs it did not draw" 0 '^1 0$' -- \
	bash -c "$FC report --db $RPT/s.db --run 1 --html $RPT/s.html >/dev/null &&
		echo \$(grep -c '<h1>fabcheck soak run 1</h1>' $RPT/s.html) \$(grep -c 'matrix --resume' $RPT/s.html)"
rm -rf "$RPT"
