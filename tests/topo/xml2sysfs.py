#!/usr/bin/env python3
"""A recorded sysfs tree with the PCIe layout of an NCCL topology dump.

usage: xml2sysfs.py TOPO.xml DIR

TOPO.xml is what NCCL writes with NCCL_TOPO_DUMP_FILE (tests/real/topo-extra/):
<cpu numaid> nodes holding <pci> nodes, each a PCIe switch (class 0x0604) or
an endpoint with a <gpu> or a <nic> of <net name speed port> children. DIR
gets the layout `fabcheck topo --sysfs` and `fabcheck capture` (through
FABCHECK_SYSFS) read: devices/, bus/pci/devices/, class/infiniband/.

NCCL builds that XML by climbing sysfs two components at a time (src/graph/
xml.cc ncclTopoGetXmlFromSys, 2.30.7): the bridge just above a device is a
switch downstream port and is skipped, the next one is the switch, named by
its upstream port, whose vendor, device and subsystem ids the <pci> node
keeps; a host bridge (pci0000:xx) ends the climb at the CPU of the device's
numa_node. This writes the tree back: every <pci> node at the bus id the dump
gives, with its class, ids and link; one downstream port per child of a
switch (device numbers 01.. on the bus after the switch's, so they never meet
a dumped device at xx:00.x); a root port and a host bridge of its own above
each top-level node of a CPU. Every <net> becomes an InfiniBand device at its
NIC's function (port N of a multi-port NIC on function N-1, which NCCL's IB
plugin folds back to function 0), state ACTIVE, link layer by the NIC's class
(0x0207 InfiniBand, else Ethernet), rate speed/1000 Gb/sec. A dump cut short
(an EXCERPT) is read up to its last complete node; a NIC with no <net> left
is written as a plain endpoint. A layout the writer cannot keep apart (two
nodes at one bus id) is named on stderr and the exit is 1.
"""
import os
import re
import sys

TAG = re.compile(r"<(/?)([A-Za-z]+)((?:\s+[A-Za-z_]+=\"[^\"]*\")*)\s*(/?)>")
ATTR = re.compile(r"([A-Za-z_]+)=\"([^\"]*)\"")


def parse(text):
    """The element tree as (name, attrs, children); unclosed tags close at EOF."""
    root = ("doc", {}, [])
    stack = [root]
    for m in TAG.finditer(text):
        close, name, attrs, empty = m.groups()
        if close:
            if len(stack) > 1 and stack[-1][0] == name:
                stack.pop()
            continue
        node = (name, dict(ATTR.findall(attrs)), [])
        stack[-1][2].append(node)
        if not empty:
            stack.append(node)
    return root


def gts(speed):
    """"16 GT/s", "32.0 GT/s PCIe" -> "16.0 GT/s PCIe" as sysfs writes it."""
    m = re.match(r"\s*([0-9.]+)", speed or "")
    return "%.1f GT/s PCIe" % float(m.group(1)) if m else None


class Tree:
    def __init__(self, root):
        self.root = root
        self.used = set()
        for d in ("devices", "bus/pci/devices", "class/infiniband"):
            os.makedirs(os.path.join(root, d), exist_ok=True)

    def put(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text + "\n")

    def pci(self, parent, bdf, attrs, numa, klass=None):
        if bdf in self.used:
            raise ValueError("two nodes at %s" % bdf)
        self.used.add(bdf)
        path = "%s/%s" % (parent, bdf)
        os.makedirs(os.path.join(self.root, "devices", path))
        vals = {"class": klass or attrs.get("class", "0x000000"), "numa_node": str(numa)}
        for k in ("vendor", "device", "subsystem_vendor", "subsystem_device"):
            if k in attrs:
                vals[k] = attrs[k]
        speed, width = gts(attrs.get("link_speed")), attrs.get("link_width")
        if speed:
            vals["current_link_speed"] = vals["max_link_speed"] = speed
        if width:
            vals["current_link_width"] = vals["max_link_width"] = width
        for k, v in vals.items():
            self.put("devices/%s/%s" % (path, k), v)
        os.symlink("../../../devices/" + path, os.path.join(self.root, "bus/pci/devices", bdf))
        return path

    def port(self, parent, bus, k, child, vendor, numa):
        """A bridge (root or downstream port) at bus:k+1.0 over child, at
        the child's link."""
        bdf = "%s:%02x:%02x.0" % (bus[0], bus[1], k + 1)
        link = {a: child[1][a] for a in ("link_speed", "link_width") if a in child[1]}
        return self.pci(parent, bdf, dict(link, vendor=vendor), numa, "0x060400")

    def ib(self, path, net, klass):
        d = "class/infiniband/%s" % net["name"]
        os.makedirs(os.path.join(self.root, d, "ports/1"))
        os.symlink("../../../devices/" + path, os.path.join(self.root, d, "device"))
        self.put(d + "/ports/1/state", "4: ACTIVE")
        self.put(d + "/ports/1/link_layer",
                 "InfiniBand" if klass.startswith("0x0207") else "Ethernet")
        mbps = int(net.get("speed", "0") or 0)
        if mbps > 0:
            self.put(d + "/ports/1/rate", "%g Gb/sec (4X)" % (mbps / 1000.0))


def split_bdf(bdf):
    dom, bus, _ = bdf.split(":")
    return dom, int(bus, 16)


def write(t, parent, node, numa):
    name, attrs, kids = node
    bdf = attrs["busid"]
    nets = [n for k in kids if k[0] == "nic" for n in k[2] if n[0] == "net" and "name" in n[1]]
    if nets:
        klass = attrs.get("class", "0x020700")
        for i, net in enumerate(sorted(nets, key=lambda n: int(n[1].get("port", "1")))):
            fbdf = bdf[:-1] + str(i)
            path = t.pci(parent, fbdf, attrs, numa)
            t.ib(path, net[1], klass)
        return
    path = t.pci(parent, bdf, attrs, numa)
    subs = [k for k in kids if k[0] == "pci"]
    dom, bus = split_bdf(bdf)
    for i, sub in enumerate(subs):
        write(t, t.port(path, (dom, bus + 1), i, sub, attrs.get("vendor", "0x0000"), numa),
              sub, numa)


def build(doc, root):
    t = Tree(root)
    cpu_vendor = {"GenuineIntel": "0x8086", "AuthenticAMD": "0x1022", "AMD": "0x1022"}
    system = next((k for k in doc[2] if k[0] == "system"), ("system", {}, []))
    for cpu in (k for k in system[2] if k[0] == "cpu"):
        numa = int(cpu[1].get("numaid", "-1"))
        vendor = cpu_vendor.get(cpu[1].get("vendor"), "0x0000")
        for top in (k for k in cpu[2] if k[0] == "pci" and "busid" in k[1]):
            dom, bus = split_bdf(top[1]["busid"])
            hb = "pci%s:%02x" % (dom, bus)
            write(t, t.port(hb, (dom, bus), 0x1e, top, vendor, numa), top, numa)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        build(parse(open(sys.argv[1]).read()), sys.argv[2])
    except (ValueError, KeyError) as e:
        sys.stderr.write("%s: no tree: %s\n" % (sys.argv[1], e))
        sys.exit(1)


if __name__ == "__main__":
    main()
