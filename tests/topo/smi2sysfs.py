#!/usr/bin/env python3
"""A recorded sysfs tree whose PCIe distances are those a real capture prints.

usage: smi2sysfs.py EXPECT.json DIR

EXPECT.json is the expectation of a real `nvidia-smi topo -m` capture
(tests/real/topo/*.expect.json: "gpus", "nics", "nic_legend", "cells"). DIR
gets the layout `fabcheck topo --sysfs` and `fabcheck capture` (through
FABCHECK_SYSFS) read: devices/, bus/pci/devices/, class/infiniband/.

The tree is the one the cells describe, by nvidia-smi's legend (the legend
block of every capture): SYS crosses NUMA nodes, NODE joins host bridges of
one NUMA node, PHB goes through one host bridge, PXB through several switches
without it, PIX through one switch. Devices are grouped level by level (a
pair whose cell is at or below a level shares that level's part): NUMA node,
host bridge (pci0000:XX), root port with a top switch, second-level switch.
A device alone in its root port's group sits on the root port; the devices of
a group under one switch are PIX, those in different second-level switches
under one top switch PXB (tests/topo/mksysfs.sh builds the same shapes; the
climb NCCL and fabcheck use: topo/pcitopo_dist.c). NV# cells say nothing of
PCIe and are not used. GPUs are numbered in bus order as nvidia-smi numbers
them; NICs are named by the NIC legend (mlx5_<n> for NIC<n> without one).
Every NIC gets one active InfiniBand port at one rate: a capture prints no
link speed, so every path has the same bandwidth and the class decides.

The cells are then computed back from the groups; a cell the tree cannot
give (a table no tree has) is named on stderr and the exit is 1.
"""
import json
import os
import sys

LEVEL = {"PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}
NAME = {v: k for k, v in LEVEL.items()}


def groups(devs, pairs, level):
    """Union of the pairs whose cell is at or below level: dev -> root."""
    up = {d: d for d in devs}

    def find(d):
        while up[d] != d:
            up[d] = up[up[d]]
            d = up[d]
        return d

    for (a, b), lv in pairs.items():
        if lv <= level:
            up[find(a)] = find(b)
    return {d: find(d) for d in devs}


def read(path):
    doc = json.load(open(path))
    gpus = ["GPU%d" % i for i in range(doc["gpus"])]
    nics = ["NIC%d" % i for i in range(doc.get("nics", 0))]
    legend = doc.get("nic_legend", {})
    names = {n: legend.get(n, "mlx5_%s" % n[3:]) for n in nics}
    pairs = {}
    for key, cell in doc.get("cells", {}).items():
        a, b = key.split(",")
        if cell in LEVEL and a in gpus + nics and b in gpus + nics:
            pairs[(a, b)] = LEVEL[cell]
    return gpus, nics, names, pairs


def layout(devs, pairs):
    """Per device: (numa, host bridge, root-port group, leaf group)."""
    g = [groups(devs, pairs, lv) for lv in (4, 3, 2, 1)]
    return {d: tuple(x[d] for x in g) for d in devs}


def cell_of(pa, pb):
    if pa[0] != pb[0]:
        return 5
    if pa[1] != pb[1]:
        return 4
    if pa[2] != pb[2]:
        return 3
    return 1 if pa[3] == pb[3] else 2


class Tree:
    def __init__(self, root):
        self.root = root
        self.nbr = 0
        for d in ("devices", "bus/pci/devices", "class/infiniband"):
            os.makedirs(os.path.join(root, d), exist_ok=True)

    def put(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text + "\n")

    def pci(self, path, klass, vendor, numa):
        bdf = path.rsplit("/", 1)[1]
        os.makedirs(os.path.join(self.root, "devices", path))
        for k, v in (("class", klass), ("vendor", vendor), ("device", "0x1234"),
                     ("numa_node", str(numa)), ("current_link_speed", "16.0 GT/s PCIe"),
                     ("max_link_speed", "16.0 GT/s PCIe"), ("current_link_width", "16"),
                     ("max_link_width", "16")):
            self.put("devices/%s/%s" % (path, k), v)
        os.symlink("../../../devices/" + path, os.path.join(self.root, "bus/pci/devices", bdf))

    def bridge(self, parent, numa):
        k = self.nbr
        self.nbr += 1
        path = "%s/0000:%02x:%02x.0" % (parent, 1 + k // 32, k % 32)
        self.pci(path, "0x060400", "0x10b5", numa)
        return path

    def nic(self, path, name, numa):
        self.pci(path, "0x020700", "0x15b3", numa)
        d = "class/infiniband/%s" % name
        os.makedirs(os.path.join(self.root, d, "ports/1"))
        os.symlink("../../../devices/" + path, os.path.join(self.root, d, "device"))
        self.put(d + "/ports/1/state", "4: ACTIVE")
        self.put(d + "/ports/1/link_layer", "InfiniBand")
        self.put(d + "/ports/1/rate", "400 Gb/sec (4X NDR)")


def build(root, gpus, nics, names, place):
    t = Tree(root)
    numa = {k: i for i, k in enumerate(dict.fromkeys(p[0] for p in place.values()))}
    hbs = {k: i for i, k in enumerate(dict.fromkeys(p[1] for p in place.values()))}
    bdf = {g: "0000:%02x:00.0" % (0x40 + i) for i, g in enumerate(gpus)}
    bdf.update({n: "0000:%02x:00.0" % (0x80 + i) for i, n in enumerate(nics)})
    for top in dict.fromkeys(p[2] for p in place.values()):
        members = [d for d in gpus + nics if place[d][2] == top]
        nm = numa[place[members[0]][0]]
        rp = t.bridge("pci0000:%02x" % hbs[place[members[0]][1]], nm)
        leaves = list(dict.fromkeys(place[d][3] for d in members))
        parent = {}
        if len(members) == 1:
            parent[members[0]] = rp
        else:
            usp = t.bridge(rp, nm)
            for leaf in leaves:
                under = usp if len(leaves) == 1 else t.bridge(t.bridge(usp, nm), nm)
                for d in members:
                    if place[d][3] == leaf:
                        parent[d] = t.bridge(under, nm)
        for d in members:
            path = parent[d] + "/" + bdf[d]
            if d in names:
                t.nic(path, names[d], nm)
            else:
                t.pci(path, "0x030200", "0x10de", nm)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    gpus, nics, names, pairs = read(sys.argv[1])
    place = layout(gpus + nics, pairs)
    bad = ["%s,%s: the capture prints %s, a tree gives %s" % (a, b, NAME[lv],
                                                              NAME[cell_of(place[a], place[b])])
           for (a, b), lv in pairs.items() if cell_of(place[a], place[b]) != lv]
    if bad:
        sys.stderr.write("%s: no PCIe tree has these cells:\n  %s\n" % (sys.argv[1], "\n  ".join(bad)))
        sys.exit(1)
    build(sys.argv[2], gpus, nics, names, place)


if __name__ == "__main__":
    main()
