# A figure that was not measured is never printed as a number: "-" in text
# and HTML, null in JSON, left out of CSV and Prometheus; the HTML legend
# says what each mark means. A bandwidth-only run (no latency measured) from
# the recorded slow-node rack (sourced by tests/cli/run.sh).
FGT=$(mktemp -d /tmp/fc-figures-XXXXXX)
python3 - tests/data/matrix/rack4-slowC.json "$FGT/bw-only.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["results"]:
    p["results"] = [r for r in p["results"] if r["metric"] == "bw"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect "figures: bw-only matrix text has no nan, no latency in the summary" 0 '^ok$' -- bash -c "
	$FC matrix --import $FGT/bw-only.json --db $FGT/m.db 2>&1 | python3 -c '
import re, sys
t = sys.stdin.read()
ok = not re.search(r\"\\bnan\\b|\\binf\\b\", t, re.I) and re.search(r\"rack median [0-9.]+ Gb/s\\n\", t) and \"suspect node nodeC\" in t
print(\"ok\" if ok else t)'"
expect "figures: bw-only matrix json has null latency" 0 '^ok$' -- bash -c "
	$FC matrix --import $FGT/bw-only.json --db $FGT/j.db --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = d[\"rack_median_lat_us\"] is None and all(n[\"median_lat_us\"] is None for n in d[\"per_node\"]) and all(p[\"lat_us\"] is None for p in d[\"pairs\"])
print(\"ok\" if ok else json.dumps(d)[:400])'"
$FC report --db "$FGT/m.db" --run 1 --html "$FGT/r.html" --csv "$FGT/r.csv" --prom "$FGT/r.prom" --prom-all-pairs >/dev/null 2>&1
expect "figures: html has no nan, no latency in the summary, - in the table" 0 '^ok$' -- python3 -c '
import re, sys
h = open(sys.argv[1]).read()
ok = (not re.search(r"\bnan\b|\binf\b", h, re.I) and re.search(r"rack median [0-9.]+ Gb/s\.</p>", h)
      and re.search(r"<td>[0-9.]+ Gb/s</td><td>-</td>", h) and re.search(r"Gb/s, -</title>", h))
print("ok" if ok else "no")' "$FGT/r.html"
expect "figures: html legend says what each mark means" 0 '^ok$' -- python3 -c '
import re, sys
h = open(sys.argv[1]).read()
items = re.findall(r"<ul id=\"legend\">(.*?)</ul>", h, re.S)
marks = re.findall(r"</span> ([^<]+)</li>", items[0]) if items else []
ok = len(marks) >= 6 and all(re.match(r"^[^:]+: \S.{10,}", m) for m in marks) and \
     any(m.startswith("black border: ") for m in marks) and any(m.startswith("grey: ") for m in marks)
print("ok" if ok else "no: %r" % marks)' "$FGT/r.html"
expect "figures: csv leaves latency out" 0 '^ok$' -- python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("ok" if len(rows) == 6 and all(r["lat_us"] == "" and float(r["gbps"]) > 0 for r in rows) else rows)' "$FGT/r.csv"
expect "figures: prometheus has no latency sample and no nan" 0 '^ok$' -- python3 -c '
import sys
t = open(sys.argv[1]).read()
lat = [l for l in t.splitlines() if l.startswith("fabcheck_pair_latency")]
print("ok" if not lat and "nan" not in t.lower() and "fabcheck_pair_bandwidth_gbps{" in t else t[:300])' "$FGT/r.prom"
rm -rf "$FGT"
