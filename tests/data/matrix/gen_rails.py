#!/usr/bin/env python3
"""Writes a matrix with rails in the shape of `fabcheck matrix --rails --json`
(architecture.md: pairs gain `rail`), at Soft-RoCE-under-TCG speed (about
0.16 Gb/s), one direction per pair in the order of the round-robin schedule,
every rail of a pair in the same round. Usage:
  gen_rails.py NODES RAILS [FAULT] > FILE
  gen_rails.py --pair-docs NODES RAILS [FAULT [ROUNDS]] > FILE   (for matrix
      --import: {"nodes", "results"} of `pair --rails --loaded-only --json`
      documents; of the schedule's first ROUNDS rounds when given)
FAULT: port:NODE:RAIL (that node slow on that rail), node:NODE (slow on every
rail), rail:RAIL (every pair slow on that rail), link:NODE:NODE:RAIL (one
pair slow on one rail), down:NODE:RAIL (nothing runs on that port)."""
import json, sys

docs = sys.argv[1] == "--pair-docs"
args = sys.argv[2:] if docs else sys.argv[1:]
n, nr = int(args[0]), int(args[1])
fault = args[2].split(":") if len(args) > 2 else ["none"]
rounds = int(args[3]) if len(args) > 3 else None
if n <= 8 and nr <= 2:
    nodes = ["node%s" % chr(ord("A") + i) for i in range(n)]
    rails = ["rxe%d" % r for r in range(nr)]
else:
    nodes = ["gpu%02d" % (i + 1) for i in range(n)]
    rails = ["mlx5_%d" % r for r in range(nr)]

def cell(a, b, r, k):
    kind = fault[0]
    slow = (kind == "port" and fault[1] in (a, b) and int(fault[2]) == r) or \
           (kind == "node" and fault[1] in (a, b)) or \
           (kind == "rail" and int(fault[1]) == r) or \
           (kind == "link" and {a, b} == {fault[1], fault[2]} and int(fault[3]) == r)
    down = kind == "down" and fault[1] in (a, b) and int(fault[2]) == r
    if down:
        return {"a": a, "b": b, "rail": r, "device": rails[r], "gbps": None,
                "lat_us": None, "verdict": "error"}
    gbps = 0.02 if slow else 0.160 + 0.003 * ((k + r) % 5)
    lat = 95.0 + ((k + r) % 7) * 2 + (40 if slow else 0)
    return {"a": a, "b": b, "rail": r, "device": rails[r], "gbps": gbps,
            "lat_us": lat, "verdict": "pass"}

m = n + (n & 1)
pairs, k = [], 0
for rnd in range(m - 1 if rounds is None else min(rounds, m - 1)):
    sched = [(rnd, m - 1, rnd & 1)] + [((rnd + i) % (m - 1), (rnd - i + m - 1) % (m - 1), 0)
                                       for i in range(1, m // 2)]
    for x, y, flip in sched:
        if x >= n or y >= n:
            continue
        a, b = (nodes[y], nodes[x]) if flip else (nodes[x], nodes[y])
        for r in range(nr):
            pairs.append(cell(a, b, r, k))
        k += 1
def phase(c):
    if c["verdict"] == "error":
        return {"verdict": "fail", "findings": ["setup failed"], "results": [], "counters": {}}
    return {"verdict": "pass", "findings": [], "counters": {},
            "results": [{"test": "write", "metric": "bw", "size_bytes": 1048576, "iters": 50,
                         "gbps": c["gbps"]},
                        {"test": "read", "metric": "lat", "size_bytes": 2, "iters": 200,
                         "p50_us": c["lat_us"]}]}
if docs:
    out = []
    for i in range(0, len(pairs), nr):
        cs = pairs[i:i + nr]
        rails_l = [{"rail": c["rail"], "name": c["device"],
                    "subnet": "10.%d.1.0/24" % (77 + c["rail"]), "alone": None,
                    "loaded": phase(c)} for c in cs]
        tot = sum(c["gbps"] or 0 for c in cs)
        out.append({"verdict": "pass", "findings": [], "a": {"node": cs[0]["a"]},
                    "b": {"node": cs[0]["b"]}, "counters": {}, "rails": rails_l,
                    "results": [{"test": "write", "metric": "bw", "size_bytes": 1048576,
                                 "iters": 50, "gbps": tot}]})
    json.dump({"nodes": nodes, "results": out}, sys.stdout, indent=1)
    print()
    sys.exit(0)
json.dump({"fault": ":".join(fault), "nodes": nodes,
           "rails": [{"rail": r, "name": rails[r]} for r in range(nr)],
           "pairs": pairs}, sys.stdout, indent=1)
print()
