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
	sed -E 's/started [^;]*; verdict/started -; verdict/' "$RPT/$1.html" | sha256sum | cut -c1-16
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
report_case r64 "64 nodes x 8 rails" "8e220f527b9009f7 1052dd1ffc27f762 c9918a5bfa21c972" \
	python3 $MXD/gen_rails.py --pair-docs 64 8 port:gpu05:3
report_case r300r "300 nodes x 2 rails, 8 rounds" "5fded521733efea1 d55435726f33e7a8 ed724ffbc2ac9c0a" \
	python3 $MXD/gen_rails.py --pair-docs 300 2 port:gpu77:1 8
report_case r300 "300 nodes, 8 rounds" "3d4ed2b60881a01d 9e98d3e98232b3f6 74c12e162586f76d" \
	python3 $MXD/gen.py 300 rack1-node077 0.02 8
# matrix's text report of the same runs (it builds no pairs list above 12
# nodes now) is as before too (its summary says no latency where none was
# measured, where it said ", -").
expect "matrix text of 64 x 8 as before" 0 '^807d57345ad9d6ef$' -- bash -c \
	"$FC matrix --import $RPT/r64.json --db $RPT/t64.db 2>/dev/null | sha256sum | cut -c1-16"
expect "matrix text of 300 nodes as before" 0 '^907931de93b91e7b$' -- bash -c \
	"$FC matrix --import $RPT/r300.json --db $RPT/t300.db 2>/dev/null | sha256sum | cut -c1-16"
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
rm -rf "$RPT"
