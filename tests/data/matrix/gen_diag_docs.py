#!/usr/bin/env python3
# gen_diag_docs.py IN OUT: the recorded rails run IN (rails-docs-4x2-port.json)
# with a diagnosis put into each pair document of nodeC, as pair --rails
# writes them (rail 0's and rail 1's rows); for the matrix's and the TUI's
# suspect diagnosis cases.
import json
import sys

d = json.load(open(sys.argv[1]))
for p in d["results"]:
    if "nodeC" in (p["a"]["node"], p["b"]["node"]):
        p["diagnosis"] = [
            {"subject": "rail 0 loaded: nodeC rxe0", "part": "host PCIe", "confidence": "possible",
             "evidence": "rail 0 evidence", "next": "rail 0 step"},
            {"subject": "rail 1 loaded: nodeC rxe1 port 1", "part": "cable or transceiver",
             "confidence": "likely", "evidence": "symbol errors +812 on nodeC rxe1", "next": "reseat the cable"}]
json.dump(d, open(sys.argv[2], "w"))
