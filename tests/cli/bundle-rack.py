#!/usr/bin/env python3
"""A rack of captures from recorded inputs, for the replay tests.

usage: bundle-rack.py CAPTURE PORTS.json OUT
       bundle-rack.py --fix BUNDLE REL...

CAPTURE is a bundle `fabcheck capture` wrote on this host; PORTS.json a
recorded rack (tests/data/rails/*.json: {"nodes": [{"name", "devices"}]}, the
devices as `fabcheck devices --json` lists them). For each node, OUT/NAME is
CAPTURE with the node's name as its host (node.json, the manifest) and its
device list as what libibverbs listed (verbs/devices.json), each file's size
and CRC32C in the manifest made to match, as a capture of that node would
hold them. Nothing else of CAPTURE changes.

--fix: the manifest of BUNDLE made to match each REL as it now is (its size
and CRC32C), so a test can hold a file whose content is bad but whose
manifest entry is right.
"""
import json
import os
import shutil
import sys


def crc32c(data):
    """CRC-32C (Castagnoli, reflected 0x82F63B78), as core/crc32c.c."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def put(root, man, rel, data, source):
    with open(os.path.join(root, rel), "wb") as f:
        f.write(data)
    entry = {"path": rel, "bytes": len(data), "crc32c": "%08x" % crc32c(data), "from": source}
    man["files"] = [e for e in man["files"] if e["path"] != rel] + [entry]
    man["not_read"] = [e for e in man.get("not_read", []) if e.get("path") != rel]


def fix(bundle, rels):
    mpath = os.path.join(bundle, "manifest.json")
    man = json.load(open(mpath))
    for rel in rels:
        with open(os.path.join(bundle, rel), "rb") as f:
            data = f.read()
        for e in man["files"]:
            if e["path"] == rel:
                e["bytes"], e["crc32c"] = len(data), "%08x" % crc32c(data)
    with open(mpath, "w") as f:
        json.dump(man, f, indent=1)


def main():
    if sys.argv[1] == "--fix":
        fix(sys.argv[2], sys.argv[3:])
        return
    cap, ports, out = sys.argv[1:4]
    rack = json.load(open(ports))
    os.makedirs(out, exist_ok=True)
    for node in rack["nodes"]:
        root = os.path.join(out, node["name"])
        shutil.copytree(cap, root, symlinks=True)
        man = json.load(open(os.path.join(root, "manifest.json")))
        facts = json.load(open(os.path.join(root, "node.json")))
        facts["host"] = man["host"] = node["name"]
        put(root, man, "node.json", json.dumps(facts, indent=1).encode(),
            "gethostname, uname, libibverbs' file name")
        os.makedirs(os.path.join(root, "verbs"), exist_ok=True)
        put(root, man, "verbs/devices.json", json.dumps(node["devices"], indent=1).encode(),
            "libibverbs (as 'fabcheck devices --json')")
        with open(os.path.join(root, "manifest.json"), "w") as f:
            json.dump(man, f, indent=1)


if __name__ == "__main__":
    main()
