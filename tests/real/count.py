#!/usr/bin/env python3
"""The corpus against issue 36's minimums, counted from SOURCES.tsv.

usage: tests/real/count.py [--check]

Prints one line per class: the captures SOURCES.tsv lists for it, the
minimum the issue asks, and the folders counted. --check exits 1 when a
capture has no SOURCES.tsv row, a row names no file, or a capture has no
.expect.json (the minimums are reported, not enforced: a class short of
its minimum is a gap to say, not a test to fail).
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# class, minimum (issue 36 item 4), folders, a test on the row (None: all)
CLASSES = [
    ("nvidia-smi topo -m", 20, ["topo"], None),
    ("ethtool -S / -m of mlx5 host ports", 10, ["ethtool", "ethtool_m"],
     lambda row: "switch port" not in row["where"] and "not an mlx5" not in row["where"]),
    ("ethtool -m of switch ports (same decoder, not counted above)", 0, ["ethtool_m"],
     lambda row: "switch port" in row["where"]),
    ("ethtool -m of other host ports (mlx4, NIC unnamed; not counted)", 0, ["ethtool_m"],
     lambda row: "not an mlx5" in row["where"]),
    ("ibstat / ibv_devinfo -v", 5, ["ibv"], None),
    ("ip -j addr / ip -j link / lldpctl -f json of GPU fabrics", 5, ["ip", "lldp"], None),
    ("lspci -vvv LnkCap/LnkSta", 5, ["lspci"], None),
    ("NCCL logs beyond ../shared/fixtures", 1, ["nccl"], None),
    ("mlnx_qos -i (trust, PFC, dscp2prio of mlx5 ports)", 0, ["mlnx_qos"], None),
    ("ethtool DEV link modes", 0, ["ethtool_link"], None),
    ("devlink dev info / health", 0, ["devlink"], None),
    ("ibnetdiscover of a GPU fabric", 0, ["ibnetdiscover"], None),
]


def captures():
    """Every capture file under the folders (not its .expect.json)."""
    out = set()
    for d in sorted(os.listdir(HERE)):
        full = os.path.join(HERE, d)
        if not os.path.isdir(full):
            continue
        for f in os.listdir(full):
            if not f.endswith(".expect.json") and f not in ("README.md", "SOURCES.tsv"):
                out.add(f"{d}/{f}")
    return out


def folder_rows():
    """Rows of the SOURCES.tsv a folder keeps of its own (topo-extra/, kept
    apart from the corpus until it is counted): listed, not counted."""
    rows = []
    for d in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, d, "SOURCES.tsv")
        if os.path.isfile(path):
            with open(path, encoding="utf-8", newline="") as f:
                rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


def main():
    with open(os.path.join(HERE, "SOURCES.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    files = captures()
    listed = {r["file"] for r in rows + folder_rows()}
    problems = [f"{p}: no row in SOURCES.tsv" for p in sorted(files - listed)]
    problems += [f"{p}: a row in SOURCES.tsv, no such file" for p in sorted(listed - files)]
    for p in sorted(files):
        if not os.path.exists(os.path.join(HERE, os.path.splitext(p)[0] + ".expect.json")):
            problems.append(f"{p}: no .expect.json")
    for name, minimum, folders, test in CLASSES:
        n = sum(1 for r in rows if r["file"].split("/")[0] in folders and (not test or test(r)))
        mark = "" if n >= minimum else f"  SHORT by {minimum - n}"
        print(f"{name:62} {n:3} (minimum {minimum}; {', '.join(f + '/' for f in folders)}){mark}")
    print(f"{'all captures in SOURCES.tsv':62} {len(rows):3} (minimum 60)")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems and "--check" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
