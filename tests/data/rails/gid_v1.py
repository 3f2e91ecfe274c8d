#!/usr/bin/env python3
# gid_v1.py IN OUT: the recorded rack IN (tests/data/rails/*.json) with each
# port's GID recorded as RoCE v1, as a node whose HCAs run RoCE v1 lists it
# (verbs/dev.c gid_type): preflight's "no RoCE v2 GID (best is RoCE v1)" on
# every port, the same fact of most nodes, for the cases that group findings.
# IN's ports carry no gid_type, and a GID of no recorded type is no finding.
import json
import sys

d = json.load(open(sys.argv[1]))
for n in d["nodes"]:
    for dev in n["devices"]:
        for p in dev["ports"]:
            p["gid_type"] = "RoCE v1"
json.dump(d, open(sys.argv[2], "w"), indent=1)
