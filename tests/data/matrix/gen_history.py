#!/usr/bin/env python3
"""Writes a recorded series of seven matrix runs of a 4-node, 2-rail rack
(DIR/rails-1.json .. rails-7.json, for matrix --import, from gen_rails.py
--pair-docs 4 2): every figure with noise of up to 5% either way (a seed per
run), and in run 7 nodeA-nodeD at 75% on rail 1 alone. Usage:
  gen_history.py DIR"""
import json, os, random, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
base = json.loads(subprocess.run([sys.executable, os.path.join(here, "gen_rails.py"),
                                  "--pair-docs", "4", "2"], capture_output=True,
                                 text=True, check=True).stdout)
for run in range(1, 8):
    d = json.loads(json.dumps(base))
    rnd = random.Random(run)
    for r in d["results"]:
        for e in r["rails"]:
            for x in e["loaded"]["results"]:
                if x.get("gbps"):
                    x["gbps"] = round(x["gbps"] * rnd.uniform(0.95, 1.05), 5)
                    if run == 7 and e["rail"] == 1 and \
                       {r["a"]["node"], r["b"]["node"]} == {"nodeA", "nodeD"}:
                        x["gbps"] = round(x["gbps"] * 0.75, 5)
    json.dump(d, open("%s/rails-%d.json" % (sys.argv[1], run), "w"))
