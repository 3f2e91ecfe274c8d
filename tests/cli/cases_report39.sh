# Cases for the answer first on the HTML report (sourced by tests/cli/run.sh;
# issue 39 items 1 and 7): `report --html` opens with the summary the text
# output ends with (core/summary.c, one printer): the verdict, then one line
# per named problem with where, what, how sure and the next step, before
# the run's figures, findings and heat maps; and the heat map has no blank
# band above it (its column labels' band as deep as its longest label).
R39=$(mktemp -d /tmp/fc-report39-XXXXXX)
MXD=tests/data/matrix
# r39_page NAME JSON [matrix options]: the run imported (its --json document
# kept as NAME.json) and its page written to NAME.html.
r39_page() {
	local name=$1 json=$2
	shift 2
	$FC matrix --import "$json" --db "$R39/$name.db" --json "$@" >"$R39/$name.json" 2>/dev/null
	$FC report --db "$R39/$name.db" --html "$R39/$name.html" >/dev/null 2>&1
}
# r39_summary NAME: what the page says first: "first=TAG" (the element after
# the <h1>), then the summary's lines as text, one a line.
r39_summary() {
	python3 - "$R39/$1.html" <<'PY'
import html, re, sys
page = open(sys.argv[1]).read()
body = page[page.index("<body>") + 6:]
h1 = re.search(r"<h1>.*?</h1>\s*", body, re.S)
rest = body[h1.end():]
print("first=" + re.match(r"<(\w+)[^>]*>", rest).group(0))
sec = re.match(r'<section id="summary">(.*?)</section>', rest, re.S)
for part in re.findall(r"<(?:p|li)[^>]*>(.*?)</(?:p|li)>", sec.group(1) if sec else "", re.S):
    print(html.unescape(re.sub(r"<[^>]+>", "", part)))
PY
}
# r39_same NAME: the page's summary lines are the --json document's
# "summary" (the same lines the text ends with), in order.
r39_same() {
	python3 - "$R39/$1.json" <(r39_summary "$1") <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))["summary"]
got = open(sys.argv[2]).read().splitlines()[1:]
print("same %d" % len(got) if got == want else "differ: %r != %r" % (got, want))
PY
}
export -f r39_summary r39_same
export R39

# A healthy 4-node matrix: the page's first word after its title is the
# verdict, pass.
r39_page ok $MXD/rack4-healthy.json
expect "report html, healthy: the summary is the first thing after the title" 0 \
	'^first=<section id="summary">$' -- r39_summary ok
expect "report html, healthy: it says pass, nothing named" 0 '^verdict: pass, nothing named$' -- \
	r39_summary ok
expect "report html, healthy: the same lines as the text's summary" 0 '^same 1$' -- r39_same ok

# One bad node (nodeC slow with every peer): the summary names nodeC, its
# level and how sure, and the step, as matrix's text ends with it.
r39_page slow $MXD/rack4-slowC.json
expect "report html, one bad node: the summary is first" 0 '^first=<section id="summary">$' -- \
	r39_summary slow
expect "report html, one bad node: verdict fail, one problem" 0 '^verdict: fail, 1 problem named:$' -- \
	r39_summary slow
expect "report html, one bad node: nodeC named with its level, how sure and its step" 0 \
	'^nodeC: node level \((still bad on retest|measured once, not retested)\); .{10,}' -- r39_summary slow
expect "report html, one bad node: the same lines as the text's summary" 0 '^same 2$' -- r39_same slow
expect "report html, one bad node: the summary before the findings and the heat map" 0 '^ok$' -- \
	bash -c "grep -n -e 'id=\"summary\"' -e 'id=\"findings\"' -e '<svg id=\"heatmap\"' $R39/slow.html |
		cut -d: -f1 | tr '\n' ' ' | awk '{ print (\$1 < \$2 && \$2 < \$3) ? \"ok\" : \"order: \" \$0 }'"

# A floor above the fabric (--min-gbps 1 on a healthy 0.166 Gb/s rack): one
# problem, the floor, with its next step; not a node.
r39_page floor $MXD/rack4-healthy.json --min-gbps 1
expect "report html, floor: one problem, the floor and its next step" 0 \
	'^all 6 pairs of 4 nodes: --min-gbps 1 is over the best pair.s [0-9.]+ Gb/s \(certain\); next: give a floor' -- \
	r39_summary floor
expect "report html, floor: the same lines as the text's summary" 0 '^same 2$' -- r39_same floor

# A soak run's page opens with its summary too.
FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC soak nodeA nodeB --duration 4 --slice 2 --interval 1 --launcher local \
	--worker-cmd tests/cli/rack-worker.sh --timeout 5 --db "$R39/soak.db" >/dev/null 2>&1
$FC report --db "$R39/soak.db" --run 1 --html "$R39/soak.html" >/dev/null 2>&1
expect "report html, soak: the summary is the first thing after the title" 0 \
	'^first=<section id="summary">$' -- r39_summary soak
expect "report html, soak: it opens with the verdict" 0 '^verdict: (pass|warn|fail)' -- \
	bash -c "r39_summary soak | sed -n 2p"

# No blank band above the heat map: the column labels' band is as deep as
# the longest label turned 60 degrees needs (7 px a character: 5 for
# "nodeA", 31 px, +12), not 110 px whatever the names; a map of long names
# keeps the room its labels need.
r39_top() { # r39_top NAME: the y of the map's first row, and its longest column label
	python3 - "$R39/$1.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
svg = re.search(r'<svg id="heatmap".*?</svg>', h, re.S).group(0)
y = min(int(v) for v in re.findall(r'<rect class="(?:diag|cell[^"]*)"[^>]* y="(\d+)"', svg))
labels = re.findall(r'<text class="col[^"]*"[^>]*>([^<]*)</text>', svg)
print("top %d longest %d" % (y, max(len(l) for l in labels)))
PY
}
export -f r39_top
expect "report html: short names, the map starts 43 px down, not 110" 0 '^top 43 longest 5$' -- r39_top ok
python3 - $MXD/rack4-healthy.json >"$R39/long-in.json" <<'PY'
import json, sys
d = json.dumps(json.load(open(sys.argv[1])))
for n in "ABCD":
    d = d.replace('"node%s"' % n, '"rack7-row3-gpu%s"' % n)
print(d)
PY
r39_page long "$R39/long-in.json"
# 16-character names are shown as 13 ("rack7-~-gpuA"): 13 * 7 * 0.866 + 12
expect "report html: 13-character labels, the map 91 px down, room for them" 0 '^top 91 longest 13$' -- \
	r39_top long
rm -rf "$R39"
