#!/usr/bin/env python3
"""Pair documents of a rack for `matrix --import`, with a seeded spread.

  gen_fleet.py NODES SEED [SLOW_NODE PCT] [--rate GBPS]

Every ordered pair's write bandwidth at 64 KiB and 1 MiB is a 400 Gb/s
InfiniBand port's payload ceiling (about 392 Gb/s at 4 KiB MTU) times a
spread of +-1.5% (a healthy fleet's run-to-run spread); a pair with
SLOW_NODE is PCT percent slower. The figures are made up for the test, in
the shape `fabcheck pair --json` writes.
"""
import json
import random
import sys


def side(node, rate):
    return {"node": node, "device": "mlx5_0", "port": 1, "link_layer": "InfiniBand",
            "rate_gbps": rate, "hca": "0x2c9:4129", "mtu": 4096, "memory": "host"}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rate = 400.0
    if "--rate" in sys.argv:
        rate = float(sys.argv[sys.argv.index("--rate") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--rate") + 1]]
    n, seed = int(args[0]), int(args[1])
    slow, pct = (args[2], float(args[3])) if len(args) > 3 else (None, 0.0)
    rnd = random.Random(seed)
    nodes = ["node%02d" % i for i in range(n)]
    results = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            f = 1 - pct / 100 if slow in (a, b) else 1.0
            res = []
            for size in (65536, 1048576):
                g = rate * 0.98 * f * (1 + rnd.uniform(-0.015, 0.015))
                res.append({"test": "write", "metric": "bw", "size_bytes": size,
                            "iters": 1000, "gbps": round(g, 2)})
            res.append({"test": "read", "metric": "lat", "size_bytes": 2, "iters": 1000,
                        "p50_us": 2.1, "p99_us": 2.6})
            results.append({"verdict": "pass", "findings": [], "a": side(a, rate),
                            "b": side(b, rate), "results": res, "counters": {}})
    json.dump({"nodes": nodes, "results": results}, sys.stdout)


main()
