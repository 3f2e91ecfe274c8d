#!/usr/bin/env python3
"""Writes a matrix with rails in the shape of `fabcheck matrix --rails --json`
(architecture.md: pairs gain `rail`), at Soft-RoCE-under-TCG speed (about
0.16 Gb/s), one direction per pair in the order of the round-robin schedule,
every rail of a pair in the same round. Usage:
  gen_rails.py NODES RAILS [FAULT] > FILE
FAULT: port:NODE:RAIL (that node slow on that rail), node:NODE (slow on every
rail), rail:RAIL (every pair slow on that rail), link:NODE:NODE:RAIL (one
pair slow on one rail), down:NODE:RAIL (nothing runs on that port)."""
import json, sys

n, nr = int(sys.argv[1]), int(sys.argv[2])
fault = sys.argv[3].split(":") if len(sys.argv) > 3 else ["none"]
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
for rnd in range(m - 1):
    sched = [(rnd, m - 1, rnd & 1)] + [((rnd + i) % (m - 1), (rnd - i + m - 1) % (m - 1), 0)
                                       for i in range(1, m // 2)]
    for x, y, flip in sched:
        if x >= n or y >= n:
            continue
        a, b = (nodes[y], nodes[x]) if flip else (nodes[x], nodes[y])
        for r in range(nr):
            pairs.append(cell(a, b, r, k))
        k += 1
json.dump({"fault": ":".join(fault), "nodes": nodes,
           "rails": [{"rail": r, "name": rails[r]} for r in range(nr)],
           "pairs": pairs}, sys.stdout, indent=1)
print()
