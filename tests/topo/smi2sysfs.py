#!/usr/bin/env python3
"""A recorded sysfs tree whose PCIe distances are those a real capture prints.

usage: smi2sysfs.py EXPECT.json DIR [IBSTAT.txt]

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
With IBSTAT.txt (an ibstat capture of the same node, tests/real/ibv/: per
CA its port's state, physical state, rate and link layer, and its System
image GUID), each NIC's port is written as that capture prints it instead:
"Down"/"Disabled" as sysfs's "1: DOWN"/"3: Disabled", the rate as
"<rate> Gb/sec (4X <speed>)". ibstat prints the rate only, not the lanes;
4 lanes at the speed that gives that rate is assumed (the kernel's
rate_show format, drivers/infiniband/core/sysfs.c); a link layer of
"Ethernet" is a RoCE port. A CA the ibstat does not list keeps the default.
With it, the PCIe links are the parts' own too (NCCL ranks a GPU's NICs
by path bandwidth, the slower end of each link counted: topo/
pcitopo_ncclpath.c link_bw): a NIC's by its CA type (PCIE_OF), the GPUs'
and the switches' PCIe Gen5 x16 when the table joins the GPUs by NV18
(Hopper SXM5: the H100 and H200 datasheets give PCIe Gen5 x16 for the SXM5
GPU, on a Gen5 board).
CAs with one System image GUID (the firmware image of one card: the ports
of a dual-port ConnectX) that the table puts on one switch are written as
the functions .0, .1 of one PCI device, as such a card enumerates.

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
        self.gen5 = None  # "32.0 GT/s PCIe" for the GPUs and switches of a Gen5 board
        for d in ("devices", "bus/pci/devices", "class/infiniband"):
            os.makedirs(os.path.join(root, d), exist_ok=True)

    def put(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text + "\n")

    def pci(self, path, klass, vendor, numa, gts=None):
        bdf = path.rsplit("/", 1)[1]
        gts = gts or (self.gen5 if klass != "0x020700" else None) or "16.0 GT/s PCIe"
        os.makedirs(os.path.join(self.root, "devices", path))
        for k, v in (("class", klass), ("vendor", vendor), ("device", "0x1234"),
                     ("numa_node", str(numa)), ("current_link_speed", gts),
                     ("max_link_speed", gts), ("current_link_width", "16"),
                     ("max_link_width", "16")):
            self.put("devices/%s/%s" % (path, k), v)
        os.symlink("../../../devices/" + path, os.path.join(self.root, "bus/pci/devices", bdf))

    def bridge(self, parent, numa):
        k = self.nbr
        self.nbr += 1
        path = "%s/0000:%02x:%02x.0" % (parent, 1 + k // 32, k % 32)
        self.pci(path, "0x060400", "0x10b5", numa)
        return path

    def nic(self, path, name, numa, port=None):
        self.pci(path, "0x020700", "0x15b3", numa, PCIE_OF.get((port or {}).get("type")))
        d = "class/infiniband/%s" % name
        os.makedirs(os.path.join(self.root, d, "ports/1"))
        os.symlink("../../../devices/" + path, os.path.join(self.root, d, "device"))
        state, phys, rate, ll = ("4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand")
        if port:
            state = STATE[port["state"]]
            phys = PHYS[port["phys_state"]]
            rate = "%d Gb/sec (4X %s)" % (port["rate"], SPEED[port["rate"] // 4])
            ll = port["link_layer"]
        self.put(d + "/ports/1/state", state)
        self.put(d + "/ports/1/phys_state", phys)
        self.put(d + "/ports/1/link_layer", ll)
        self.put(d + "/ports/1/rate", rate)


# ibstat's words (infiniband-diags, ibstat.c port_state_str/port_phy_state_str)
# as the kernel's sysfs writes them (drivers/infiniband/core/sysfs.c
# state_show, phys_state_show); the speed name of each per-lane rate
# (include/rdma/ib_verbs.h enum ib_port_speed: SDR 2.5 .. NDR 100 Gb/s).
STATE = {"Down": "1: DOWN", "Initializing": "2: INIT", "Armed": "3: ARMED",
         "Active": "4: ACTIVE"}
PHYS = {"Sleep": "1: Sleep", "Polling": "2: Polling", "Disabled": "3: Disabled",
        "LinkUp": "5: LinkUp"}
# A ConnectX's own PCIe link by its CA type (ibstat "CA type": the PCI
# device id): ConnectX-7 (MT4129) PCIe Gen5 x16, ConnectX-6 Dx (MT4125)
# PCIe Gen4 x16, ConnectX-6 (MT4123) Gen4 x16 (the NVIDIA ConnectX-7,
# ConnectX-6 Dx and ConnectX-6 adapter card user manuals, specifications).
PCIE_OF = {"MT4129": "32.0 GT/s PCIe", "MT4125": "16.0 GT/s PCIe", "MT4123": "16.0 GT/s PCIe"}
SPEED = {2: "SDR", 5: "DDR", 10: "QDR", 14: "FDR", 25: "EDR", 50: "HDR", 100: "NDR"}


def build(root, gpus, nics, names, place, ports=None, gen5=False):
    t = Tree(root)
    t.gen5 = "32.0 GT/s PCIe" if gen5 else None
    ports = ports or {}
    card = {}  # (System image GUID, leaf group) -> (parent, bus, next function)
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
            guid = ports.get(names.get(d), {}).get("sys_guid")
            if guid and (guid, place[d][3]) in card:
                up, bus, fn = card[(guid, place[d][3])]
                card[(guid, place[d][3])] = (up, bus, fn + 1)
                path = "%s/%s.%d" % (up, bus, fn)
            elif guid:
                card[(guid, place[d][3])] = (parent[d], bdf[d][:-2], 1)
            if d in names:
                t.nic(path, names[d], nm, ports.get(names[d]))
            else:
                t.pci(path, "0x030200", "0x10de", nm)


def ibstat(path):
    """CA name -> its port 1 as ibstat prints it, and its System image GUID."""
    out, ca = {}, None
    for line in open(path):
        key, _, val = line.strip().partition(": ")
        if line.startswith("CA '"):
            ca = out.setdefault(line.split("'")[1], {})
        elif ca is not None and key in ("CA type", "State", "Physical state", "Rate",
                                        "Link layer", "System image GUID"):
            ca[{"CA type": "type", "State": "state", "Physical state": "phys_state",
                "Rate": "rate", "Link layer": "link_layer",
                "System image GUID": "sys_guid"}[key]] = \
                int(val) if key == "Rate" else val
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[1])
    gpus, nics, names, pairs = read(sys.argv[1])
    place = layout(gpus + nics, pairs)
    bad = ["%s,%s: the capture prints %s, a tree gives %s" % (a, b, NAME[lv],
                                                              NAME[cell_of(place[a], place[b])])
           for (a, b), lv in pairs.items() if cell_of(place[a], place[b]) != lv]
    if bad:
        sys.stderr.write("%s: no PCIe tree has these cells:\n  %s\n" % (sys.argv[1], "\n  ".join(bad)))
        sys.exit(1)
    ports = ibstat(sys.argv[3]) if len(sys.argv) == 4 else {}
    nv18 = json.load(open(sys.argv[1])).get("cells", {}).get("GPU0,GPU1") == "NV18"
    build(sys.argv[2], gpus, nics, names, place, ports, gen5=bool(ports) and nv18)


if __name__ == "__main__":
    main()
