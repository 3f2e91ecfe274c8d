#!/usr/bin/env python3
"""Gives the one run of a store (a `matrix --import`) a past: the run becomes
run RUNS and runs 1 .. RUNS-1 before it get its link rows again (no pair
rows: the history reads link rows alone), each figure with noise of up to
NOISE% either way (seeded per run and row). In the run judged, every link
on rail 0 of the first SLOW nodes (by name) runs at 60%, so that each is
flagged against its own past. Usage:
  clone_history.py DB RUNS [SLOW [NOISE]]"""
import random, sqlite3, sys

db, runs = sys.argv[1], int(sys.argv[2])
slow = int(sys.argv[3]) if len(sys.argv) > 3 else 0
noise = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
c = sqlite3.connect(db)
(old,), = c.execute("SELECT id FROM runs")
c.execute("UPDATE runs SET id = ? WHERE id = ?", (runs, old))
for t in ("pairs", "links"):
    c.execute("UPDATE %s SET run = ? WHERE run = ?" % t, (runs, old))
cols = "pair, run, a, b, rail, device, subnet, verdict, gbps, lat_us"
rows = c.execute("SELECT %s FROM links WHERE run = ? ORDER BY rowid" % cols, (runs,)).fetchall()
for r in range(1, runs):
    rnd = random.Random(r)
    c.execute("INSERT INTO runs (id, kind, params, started, ended, verdict) SELECT ?, kind,"
              " params, started - ?, ended - ?, verdict FROM runs WHERE id = ?",
              (r, 86400 * (runs - r), 86400 * (runs - r), runs))
    c.executemany("INSERT INTO links (%s) VALUES (?,?,?,?,?,?,?,?,?,?)" % cols,
                  [(x[0], r) + x[2:8] + (None if x[8] is None else
                                         round(x[8] * rnd.uniform(1 - noise / 100,
                                                                  1 + noise / 100), 6),
                                         x[9]) for x in rows])
names = sorted({x[2] for x in rows} | {x[3] for x in rows})[:slow]
for n in names:
    c.execute("UPDATE links SET gbps = gbps * 0.6 WHERE run = ? AND rail = 0 AND"
              " (a = ? OR b = ?)", (runs, n, n))
c.commit()
