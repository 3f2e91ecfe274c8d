# Cases for the figures of `report --html` (sourced by tests/cli/run.sh;
# issue 39 item 5): each number the page writes, fed by a run whose figures
# are known, checked where it stands. The geometry is report_svg.c's:
# cells of 28 px (27 drawn); label bands as deep as the longest label L
# (characters) needs at 7 px a character: left = 7 L + 8, top =
# ceil(7 L sin 60) + 12, right = ceil(7 L cos 60) + 10 (5-character names:
# 43, 43 and 28); node i's row at y = top + 28 i, node j's column at
# x = left + 28 j; a map of n nodes left + 28 n + right wide (at least
# left + 11 * 18 + 300, the legend's room: 541 for 5 characters) and
# top + 28 n + 40 high; a row label at x = left - 4, y = top + 28 i + 14 + 4,
# a column label at x = left + 28 i + 14, y = top - 4; the legend's 11
# swatches of 18 px from x = left at y = height - 28, its text at
# x = left + 198 + 6, y = height - 18.
RF=$(mktemp -d /tmp/fc-reportfigs-XXXXXX)
MXD=tests/data/matrix
# one_line NAME TEXT FILE: the case NAME, that TEXT stands on one line of FILE.
one_line() { expect "$1" 0 '^1$' -- grep -cF "$2" "$3"; }
# 3 nodes, nodeC at 0.02 Gb/s, the others at 0.166 (gen.py), imported
# twice: the page is run 2's. 3 nodes of 5 characters: 541 x 167 px.
python3 $MXD/gen.py 3 nodeC 0.02 > $RF/m3.json
$FC matrix --import $RF/m3.json --db $RF/m3.db >/dev/null 2>&1
$FC matrix --import $RF/m3.json --db $RF/m3.db >/dev/null 2>&1
$FC report --db $RF/m3.db --html $RF/m3.html >/dev/null 2>&1
one_line "report html: the title names run 2 and its verdict" \
	'<title>fabcheck matrix run 2: fail</title>' $RF/m3.html
one_line "report html: the heat map is 541 x 167 px for 3 nodes" \
	'<svg id="heatmap" xmlns="http://www.w3.org/2000/svg" width="541" height="167" viewBox="0 0 541 167" font-family="sans-serif" font-size="11">' $RF/m3.html
one_line "report html: the background is 541 x 167 px" \
	'<rect width="541" height="167" fill="#ffffff"/>' $RF/m3.html
one_line "report html: nodeC's row label at x 39, y 117, marked suspect" \
	'<text class="row suspect" x="39" y="117" text-anchor="end" fill="#b00000" font-weight="bold">nodeC</text>' $RF/m3.html
one_line "report html: nodeC's column label at 113, 39" \
	'<text class="col suspect" transform="translate(113,39) rotate(-60)" fill="#b00000" font-weight="bold">nodeC</text>' $RF/m3.html
one_line "report html: nodeB with itself, dark at 71, 71" \
	'<rect class="diag" x="71" y="71" width="27" height="27" fill="#444444"/>' $RF/m3.html
# nodeC's row (y 99), nodeB's column (x 71): 0.02 Gb/s, 0.12 of the best
# pair's 0.166: mx_heat_rgb's red (#d73027) to yellow (#fee08b) half at
# 0.24: #e05a3f; bad, so bordered.
one_line "report html: the nodeC -> nodeB cell at 71, 99 with its Gb/s" \
	'<rect class="cell bad" data-a="nodeC" data-b="nodeB" data-gbps="0.02" x="71" y="99" width="27" height="27" fill="#e05a3f" stroke="#000000" stroke-width="2"><title>nodeB -&gt; nodeC: 0.02 Gb/s, 135 us (bad)</title></rect>' $RF/m3.html
one_line "report html: legend swatch 4 (30%) at 97, 139" \
	'<rect class="legend" x="97" y="139" width="18" height="12" fill="#ee9a63"/>' $RF/m3.html
one_line "report html: the legend's text at 247, 149 names the best pair's Gb/s" \
	'<text x="247" y="149">0% .. 100% of the best pair (0.166 Gb/s)</text>' $RF/m3.html
# Every cell where the geometry puts it: parsed, each rect's x from its
# column node's place, y from its row node's, the diagonal's at i = j.
expect "report html: every cell of 3 nodes at its row and column" 0 '^ok 6 3$' -- python3 -c '
import re, sys, xml.etree.ElementTree as ET
h = open(sys.argv[1]).read()
svg = ET.fromstring(re.search(r"<svg id=\"heatmap\".*?</svg>", h, re.S).group(0))
ns = "{http://www.w3.org/2000/svg}"
names = [t.text for t in svg.iter(ns + "text") if t.get("class", "").startswith("row")]
cells = diag = 0
bad = []
for r in svg.iter(ns + "rect"):
    c = r.get("class", "")
    if c.startswith("cell"):
        i, j = names.index(r.get("data-a")), names.index(r.get("data-b"))
        cells += 1
    elif c == "diag":
        i = j = (int(r.get("y")) - 43) // 28
        diag += 1
    else:
        continue
    if (int(r.get("x")), int(r.get("y")), r.get("width"), r.get("height")) != (43 + 28 * j, 43 + 28 * i, "27", "27"):
        bad.append(ET.tostring(r)[:120])
print("ok %d %d" % (cells, diag) if not bad and names == ["nodeA", "nodeB", "nodeC"] else bad)' $RF/m3.html

# 3 nodes x 2 rails, nodeC slow on rail 1 (gen_rails.py): a column per
# rail, a heat map per rail with its index in its heading and id.
python3 $MXD/gen_rails.py --pair-docs 3 2 port:nodeC:1 > $RF/r3.json
$FC matrix --import $RF/r3.json --db $RF/r3.db >/dev/null 2>&1
$FC report --db $RF/r3.db --html $RF/r3.html >/dev/null 2>&1
one_line "report html: a column per rail, rail 0 and rail 1" \
	'<th>node</th><th>rail 0 (rxe0)</th><th>rail 1 (rxe1)</th></tr>' $RF/r3.html
grep -A1 -F '<h2>Rail 1 (rxe1), row to column</h2>' $RF/r3.html > $RF/r3-rail1.txt
one_line "report html: rail 1's heat map headed and named" \
	'<svg id="heatmap-rail1" xmlns="http://www.w3.org/2000/svg" width="541" height="167" ' $RF/r3-rail1.txt

# 90 nodes x 8 rails (9 maps of 8,010 cells, over the page's 65,280): blocks
# of 3 nodes, 30 a side. The first 4 rounds of the schedule, gpu07's port on
# rail 2 down: its labels "gpu07 +2" of 8 characters (left 64, top 61), on
# rail 2's map the block of gpu07 .. gpu09 (row 2, y 61 + 2 * 28 = 117)
# with gpu82 .. gpu84 (column 27, x 64 + 27 * 28 = 820) holds the 4 pairs
# those rounds ran (b90.json: gpu07-gpu84, gpu08-gpu83, gpu09-gpu82,
# gpu09-gpu84), gpu07's failed (no figure: the worst is "-").
python3 $MXD/gen_rails.py --pair-docs 90 8 down:gpu07:2 4 > $RF/b90.json
$FC matrix --import $RF/b90.json --db $RF/b90.db >/dev/null 2>&1
$FC report --db $RF/b90.db --html $RF/b90.html >/dev/null 2>&1
sed -n '/id="heatmap-rail2"/,/<\/svg>/p' $RF/b90.html > $RF/b90-rail2.svg
one_line "report html: a block of 3 nodes at 820, 117: 1 bad of 4 measured" \
	'<rect class="cell block bad" x="820" y="117" width="27" height="27" fill="#d73027" stroke="#000000" stroke-width="2"><title>gpu07 .. gpu09 -&gt; gpu82 .. gpu84: worst gpu07 -&gt; gpu84 -; 1 bad of 4 measured, 0 could not run</title></rect>' $RF/b90-rail2.svg

# report --history: 4 runs of 3 nodes (gen.py, the same figures each run),
# then a fifth with nodeC at 0.08 Gb/s. Its links with nodeC fall below
# their median of 4 runs (0.163 and 0.16 Gb/s) by 51% and 50%, past the
# default 15% (the last 7 runs looked for, 4 found). A chart is 240 x 60
# px, its top 1.1 times the link's highest figure: nodeA - nodeC's median
# at 60 - 60 / 1.1 = 5.5, the threshold at 60 - 0.85 * 60 / 1.1 = 13.6, run
# 5's 0.08 at 60 - 0.08 / (0.163 * 1.1) * 60 = 33.2, the last of 5 points
# at x = 4 + 4 * 232 / 4 = 236.
python3 $MXD/gen.py 3 > $RF/ok3.json
python3 $MXD/gen.py 3 nodeC 0.08 > $RF/slow3.json
for i in 1 2 3 4; do $FC matrix --import $RF/ok3.json --db $RF/h.db >/dev/null 2>&1; done
$FC matrix --import $RF/slow3.json --db $RF/h.db >/dev/null 2>&1
$FC report --history --db $RF/h.db --html $RF/h.html >/dev/null 2>&1
one_line "report --history html: run 5 in its title" \
	'<title>fabcheck: link history of run 5</title>' $RF/h.html
one_line "report --history html: 3 links, 2 flagged past 15% of their last 7 runs, 4 found" \
	'<p>3 links; 2 flagged: more than 15% below the median of their last 7 runs (4 found). Dashed: the median; dotted: the flag threshold.</p>' $RF/h.html
one_line "report --history html: run 5 in its heading" \
	'<h1>Links against their own past: run 5</h1>' $RF/h.html
grep -F '<td>nodeA - nodeC</td>' $RF/h.html > $RF/h-ac.txt
one_line "report --history html: nodeA - nodeC at 0.08 against 0.163 Gb/s, 51% down" \
	'<tr class="flagged"><td>nodeA - nodeC</td><td>all</td><td>0.08 Gb/s</td><td>0.163 Gb/s</td><td>51%</td><td><svg class="trend" width="240" height="60" viewBox="0 0 240 60"><rect width="240" height="60" fill="#f8f8f8"/>' $RF/h-ac.txt
one_line "report --history html: nodeA - nodeC's median at 5.5, threshold at 13.6" \
	'<line class="median" x1="0" x2="240" y1="5.5" y2="5.5" stroke="#888" stroke-dasharray="4 3"/><line class="threshold" x1="0" x2="240" y1="13.6" y2="13.6" stroke="#d33" stroke-dasharray="1 3"/>' $RF/h-ac.txt
one_line "report --history html: nodeA - nodeC's run 5 at 236, 33.2" \
	'points="4.0,5.5 62.0,5.5 120.0,5.5 178.0,5.5 236.0,33.2 "/><circle class="now" cx="236" cy="33.2" r="3" fill="#d33"/></svg>' $RF/h-ac.txt
rm -rf "$RF"
