#!/usr/bin/env python3
"""Writes pair documents in the shape of `fabcheck pair --json`
(architecture.md) for matrix tests: a rack at Soft-RoCE-under-TCG speed
(about 0.16 Gb/s), optionally with one node rate-limited, in the order of the
round-robin schedule (its first ROUNDS rounds when given, as a screen leaves a
run). Usage: gen.py NODES [SLOW_NODE [SLOW_GBPS [ROUNDS]]] > FILE"""
import json, sys

n = int(sys.argv[1])
slow = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
slow_gbps = float(sys.argv[3]) if len(sys.argv) > 3 else 0.02
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else None
nodes = ["node%s" % chr(ord("A") + i) for i in range(n)] if n <= 26 else \
        ["rack1-node%03d" % i for i in range(n)]

def port(node):
    return {"node": node, "device": "rxe0", "port": 1, "link_layer": "Ethernet",
            "gid_index": 1, "mtu": 1024, "rate_gbps": 10.0, "memory": "host"}

def doc(a, b, k):
    bad = slow in (a, b)
    gbps = slow_gbps if bad else 0.160 + 0.003 * (k % 5)
    lat = 95.0 + (k % 7) * 2 + (40 if bad else 0)
    counters = {a: {"rcvd_seq_err": 0}, b: {"rcvd_seq_err": 0}}
    if bad:
        counters[slow]["rcvd_seq_err"] = 3
    return {"verdict": "pass", "findings": [], "a": port(a), "b": port(b),
            "results": [
                {"test": "write", "metric": "bw", "size_bytes": 65536, "iters": 200,
                 "gbps": round(gbps * 0.9, 4), "msg_rate_mpps": 0.0003},
                {"test": "write", "metric": "bw", "size_bytes": 1048576, "iters": 50,
                 "gbps": round(gbps, 4), "msg_rate_mpps": 0.00002},
                {"test": "read", "metric": "lat", "size_bytes": 2, "iters": 200,
                 "min_us": lat - 10, "p50_us": lat, "p99_us": lat * 1.8,
                 "p999_us": lat * 2.5, "max_us": lat * 3, "avg_us": lat + 2,
                 "stdev_us": 4.1}],
            "counters": counters}

# The circle schedule, as core/sched.c makes it.
m = n + (n & 1)
out, k = [], 0
for r in range(m - 1 if rounds is None else min(rounds, m - 1)):
    pairs = [(r, m - 1, r & 1)] + [((r + i) % (m - 1), (r - i + m - 1) % (m - 1), 0)
                                   for i in range(1, m // 2)]
    for x, y, flip in pairs:
        if x >= n or y >= n:
            continue
        a, b = (nodes[y], nodes[x]) if flip else (nodes[x], nodes[y])
        out.append(doc(a, b, k))
        k += 1
json.dump({"nodes": nodes, "results": out}, sys.stdout, indent=1)
print()
