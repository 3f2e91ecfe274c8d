#!/usr/bin/env python3
"""Writes the recorded port lists of the addressing plans (issue 24) that
tests/unit/test_rail.c and test_rail_plans.c match: the fields `fabcheck devices --json` gives
for each port ("addrs", "gateway", "numa_node", "pci", "lldp", "mgmt").
Run from the repository root: python3 tests/data/rails/gen-plans.py"""
import ipaddress
import json

def port(dev, ll="Ethernet", rate=200.0, netdev="", addrs=(), **kw):
    p = {"device": dev, "port": 1, "state": "ACTIVE", "link_layer": ll,
         "active_mtu": 4096, "max_mtu": 4096, "rate_gbps": rate, "netdev": netdev,
         "addrs": list(addrs)}
    # "subnet" as the worker writes it: the first IPv4 address's (older
    # workers wrote only that, "" for IPv6-only ports)
    v4 = [a for a in addrs if ":" not in a]
    if v4 and "subnet" not in kw:
        p["subnet"] = str(ipaddress.ip_interface(v4[0]).network)
    p.update(kw)
    return {"name": dev, "fw_ver": "28.39.1002", "transport": "IB", "ports": [p]}

def write(name, desc, nodes):
    with open("tests/data/rails/" + name, "w") as f:
        json.dump({"description": desc,
                   "nodes": [{"name": n, "devices": d} for n, d in nodes]}, f, indent=1)
        f.write("\n")

NODES = ["gpu01", "gpu02", "gpu03"]
PCI = ["0000:17:00.0", "0000:3d:00.0", "0000:a8:00.0", "0000:d1:00.0"]

# Routed RoCE, a /31 per port to its leaf (BGP to the host), no lldpd:
# matched by position (NUMA node, PCIe order). The names are not in PCIe
# order on gpu02 (mlx5_1 is its first slot).
def routed(lldp):
    out = []
    for i, n in enumerate(NODES):
        devs = []
        for r in range(4):
            dev = "mlx5_%d" % r
            if not lldp and i == 1:
                dev = "mlx5_%d" % [1, 0, 2, 3][r]
            leaf, lport = "leaf%d" % (r + 1), "swp%d" % (i + 1)
            if lldp and i == 2 and r in (1, 2):  # gpu03's cables to leaf2, leaf3 swapped
                leaf = "leaf%d" % (4 - r)
            base = 2 * (i + 8 * r)
            kw = dict(gateway="10.%d.0.%d" % (r + 1, base), numa_node=r // 2, pci=PCI[r])
            if lldp:
                kw["lldp"] = {"chassis": leaf, "port": lport}
            devs.append(port(dev, netdev="ens%d" % (r + 1),
                             addrs=["10.%d.0.%d/31" % (r + 1, base + 1)], **kw))
        out.append((n, devs))
    return out

# The same without lldpd where gpu03's slots 1 and 2 are cabled to each
# other's leaf: each leaf numbers its /31s from its own pool, so those two
# ports get their address and gateway from the other leaf's pool.
def routed_gw(swap, one_pool=False):
    out = []
    for i, n in enumerate(NODES):
        devs = []
        for r in range(4):
            leaf = [0, 2, 1, 3][r] if swap and i == 2 else r
            base = 2 * (i + 8 * leaf)
            net = "10.%d.0.%d" % (leaf + 1, base)
            if one_pool:  # every link of every leaf from one pool, in node order
                base = 2 * (4 * i + r)
                net = "10.0.0.%d" % base
            gw = net
            addr = net.rsplit(".", 1)[0] + ".%d/31" % (base + 1)
            devs.append(port("mlx5_%d" % r, netdev="ens%d" % (r + 1), addrs=[addr],
                             gateway=gw, numa_node=r // 2, pci=PCI[r]))
        out.append((n, devs))
    return out

write("routed-31-gw-swap.json", "3 servers, 4 RoCE ports each, a /31 per port, no LLDP, each "
      "leaf's links from its own pool; gpu03's slots 1 and 2 cabled to each other's leaf",
      routed_gw(True))
write("routed-31-one-pool.json", "3 servers, 4 RoCE ports each, a /31 per port, no LLDP, every "
      "link numbered from one pool (the gateways do not tell the leaves apart)",
      routed_gw(False, True))
write("routed-31.json", "3 servers, 4 RoCE ports each, a /31 per port (routed to the leaf), "
      "no LLDP; gpu02's device names out of PCIe order", routed(False))
write("routed-31-lldp-swap.json", "3 servers, 4 RoCE ports each, a /31 per port, lldpd on "
      "every node; gpu03's mlx5_1 and mlx5_2 cabled to each other's leaf", routed(True))

# Per-host subnets: each host's port of rail r in its own /24 (10.r.host.0/24),
# routed; no subnet is shared.
out = []
for i, n in enumerate(NODES):
    out.append((n, [port("mlx5_%d" % r, netdev="ens%d" % (r + 1), numa_node=0, pci=PCI[r],
                         addrs=["10.%d.%d.10/24" % (r + 1, i + 1)],
                         gateway="10.%d.%d.1" % (r + 1, i + 1)) for r in range(2)]))
write("per-host-24.json", "3 servers, 2 RoCE ports each, every host's port in a /24 of "
      "its own (per-host subnets, routed)", out)

# IPv6-only RoCE: a /64 per rail, shared; link-local addresses too.
out = []
for i, n in enumerate(NODES):
    out.append((n, [port("mlx5_%d" % r, netdev="ens%d" % (r + 1),
                         addrs=["fe80::%x/64" % (i + 1), "fd00:%d::%x/64" % (r + 1, i + 1)])
                    for r in range(2)]))
write("ipv6-only.json", "3 servers, 2 RoCE ports each, IPv6 addresses only (a /64 per "
      "rail)", out)

# One IB subnet manager for all rails, no switch known: by position.
out = []
for i, n in enumerate(NODES):
    order = [0, 2, 1, 3] if i == 2 else [0, 1, 2, 3]  # gpu03: names out of slot order
    out.append((n, [port("mlx5_%d" % order[r], ll="InfiniBand", rate=400.0,
                         subnet="fe80:0000:0000:0000", numa_node=r // 2, pci=PCI[r])
                    for r in range(4)]))
write("ib-one-sm-pci.json", "3 servers, 4 IB HCAs each, one subnet manager, switches not "
      "read; gpu03's device names out of PCIe order", out)

# Two rails, a storage NIC at another rate on a shared segment, a management
# port that carries the ssh address, and on gpu03 a front-end NIC of its own.
out = []
for i, n in enumerate(NODES):
    d = [port("mlx5_%d" % r, netdev="ens%d" % (r + 1), addrs=["10.%d.0.%d/24" % (r + 1, i + 1)])
         for r in range(2)]
    d.append(port("mlx5_2", rate=100.0, netdev="stor0", addrs=["10.200.0.%d/24" % (i + 1)]))
    d.append(port("mlx5_3", netdev="mgmt0", addrs=["192.168.0.%d/24" % (i + 1)],
                  mgmt="carries the node's ssh address"))
    if i == 2:
        d.append(port("mlx5_4", netdev="fe0", addrs=["172.16.9.1/24"]))
    out.append((n, d))
write("roce-storage-mgmt.json", "3 servers: 2 rails, a 100G storage NIC on a shared "
      "segment, a management port with the ssh address, gpu03 a front-end NIC of its own", out)

# Fabrics as they are built (issue 37). Eight 400G compute ports a node at
# the PCI addresses and NUMA nodes of a DGX H100's ConnectX-7s (mlx5_0 at
# 18:00.0 ... mlx5_11 at dc:00.0; nvidia-smi topo -m of the DGX H100 user
# guide); a scalable unit has one leaf a rail (NVIDIA DGX SuperPOD reference
# architecture: 2 SUs, 16 leaves; rail N is the NIC in position N of every
# server, on leaf N of its unit: Juniper JVD "Rail Optimized Fabric",
# juniper.net/documentation/us/en/software/jvd/jvd-ai-dc-apstra-nvidia-weka/
# rail_optimized_fabric.html). Leaf names su<U>-leaf-r<R>; an IB leaf's node
# description as the switch sets it ("MF0;<hostname>:MQM9790/U1", the form
# ibswitches and ibnetdiscover print, e.g. "MF0;lpdswitch1:MSB7700/U1").
H100 = ["0000:18:00.0", "0000:40:00.0", "0000:4f:00.0", "0000:5e:00.0",
        "0000:9a:00.0", "0000:c0:00.0", "0000:ce:00.0", "0000:dc:00.0"]
SU_NODES = ["dgx-su1-01", "dgx-su1-02", "dgx-su2-01", "dgx-su2-02"]

def dgx(i, r, dev=None, leaf=None, ll="Ethernet", lport=None, **kw):
    """Port r of node i: a /31 routed to its leaf (Ethernet) or an IB port."""
    dev = dev or "mlx5_%d" % r
    p = dict(numa_node=r // 4, pci=H100[r], **kw)
    if ll == "Ethernet":
        p.update(netdev="ens%dnp0" % (r + 1), addrs=["100.64.%d.%d/31" % (r, 2 * i + 1)],
                 gateway="100.64.%d.%d" % (r, 2 * i))
        if leaf:
            p["lldp"] = {"chassis": leaf, "port": lport or "swp%ds0" % (i + 1)}
        return port(dev, rate=400.0, **p)
    return port(dev, ll="InfiniBand", rate=400.0, subnet="fe80:0000:0000:0000", **p)

# Two scalable units by LLDP: rail r of dgx-su1-* on su1-leaf-r<r+1>, of
# dgx-su2-* on su2-leaf-r<r+1>.
write("lldp-2su.json", "4 DGX H100, 8 RoCE ports each, a /31 per port, lldpd; two "
      "scalable units, a leaf a rail in each (16 leaves)",
      [(n, [dgx(i, r, leaf="su%d-leaf-r%d" % (i // 2 + 1, r + 1)) for r in range(8)])
       for i, n in enumerate(SU_NODES)])

# Two scalable units on one IB subnet, each leaf's GUID and node description
# read (smpquery); the second unit's nodes are another model whose compute
# HCAs are named mlx5_2..mlx5_9 (mlx5_0, mlx5_1 its Ethernet ports).
out = []
for i, n in enumerate(SU_NODES):
    su = i // 2 + 1
    devs = [dgx(i, r, dev="mlx5_%d" % (r + 2 * (su - 1)), ll="InfiniBand",
                switch_guid="0xb83fd20300%02x%02x00" % (su, r),
                switch_desc="MF0;su%d-ib-leaf-r%d:MQM9790/U1" % (su, r + 1)) for r in range(8)]
    if su == 2:
        devs = [port("mlx5_%d" % k, rate=200.0, netdev="eth%d" % k, numa_node=0,
                     pci="0000:2a:00.%d" % k, addrs=["10.40.%d.%d/24" % (k, i + 1)])
                for k in range(2)] + devs
    out.append((n, devs))
write("ib-2su-desc.json", "4 servers on one InfiniBand subnet, 8 HCAs each; two scalable "
      "units (a leaf a rail in each, every switch's GUID and node description read); the "
      "second unit's servers name their HCAs mlx5_2..mlx5_9", out)

# Top-of-rack wiring: every port of a node on its rack's switch, two racks.
write("tor-2rack.json", "4 DGX H100, 8 RoCE ports each, a /31 per port, lldpd; every port "
      "of a node on its rack's top-of-rack switch (not rail-optimized)",
      [(n, [dgx(i, r, leaf="rack%d-tor" % (i // 2 + 1), lport="swp%d" % (8 * (i % 2) + r + 1))
            for r in range(8)]) for i, n in enumerate(SU_NODES)])

# Two rails a leaf: rails 2k and 2k+1 on leaf k+1 (a 64-port leaf, 32 nodes
# x 2 rails).
write("two-rails-leaf.json", "3 DGX H100, 8 RoCE ports each, a /31 per port, lldpd; four "
      "leaves, each carrying two rails",
      [(n, [dgx(i, r, leaf="leaf%d" % (r // 2 + 1), lport="swp%d" % (2 * i + r % 2 + 1))
            for r in range(8)]) for i, n in enumerate(SU_NODES[:3])])

# A DOWN port on a routed plan without lldpd: the gateways' pools tell the
# leaves (100.64.<rail>.0/24); dgx-su1-02's mlx5_1 is down.
out = []
for i, n in enumerate(SU_NODES[:3]):
    devs = [dgx(i, r) for r in range(8)]
    if i == 1:
        devs[1]["ports"][0]["state"] = "DOWN"
    out.append((n, devs))
write("routed-down.json", "3 DGX H100, 8 RoCE ports each, a /31 per port, no lldpd; "
      "dgx-su1-02's mlx5_1 DOWN", out)

# Shifted device names, one leaf a rail read over IB: dgx-su1-02 is another
# model (a BlueField's two Ethernet ports are mlx5_0, mlx5_1; its HCAs
# mlx5_2..mlx5_9).
out = []
for i, n in enumerate(SU_NODES[:3]):
    shift = 2 if i == 1 else 0
    devs = [dgx(i, r, dev="mlx5_%d" % (r + shift), ll="InfiniBand",
                switch_guid="0xb83fd2030001%02x00" % r,
                switch_desc="MF0;su1-ib-leaf-r%d:MQM9790/U1" % (r + 1)) for r in range(8)]
    if shift:
        devs = [port("mlx5_%d" % k, rate=200.0, netdev="eth%d" % k, numa_node=0,
                     pci="0000:2a:00.%d" % k, addrs=["10.40.%d.%d/24" % (k, i + 1)])
                for k in range(2)] + devs
    out.append((n, devs))
write("ib-shifted-names.json", "3 servers, 8 InfiniBand HCAs each, a leaf a rail (switches "
      "read); dgx-su1-02 names its HCAs mlx5_2..mlx5_9", out)

# An ECMP default route over the eight rail ports (a /31 each, BGP to the
# leaves): /proc/net/route shows its first next hop, so each node's mlx5_0
# "carries the node's default route"; the management port carries ssh.
out = []
for i, n in enumerate(SU_NODES[:3]):
    devs = [dgx(i, r, leaf="su1-leaf-r%d" % (r + 1)) for r in range(8)]
    devs[0]["ports"][0]["mgmt"] = "carries the node's default route"
    devs.append(port("mlx5_8", rate=100.0, netdev="eno8303", numa_node=0, pci="0000:04:00.0",
                     addrs=["192.168.10.%d/24" % (i + 11)],
                     mgmt="carries the node's ssh address"))
    out.append((n, devs))
write("ecmp-default.json", "3 DGX H100, 8 RoCE ports each, a /31 per port, lldpd, an ECMP "
      "default route over the rail ports (the first next hop's port flagged), a management "
      "port that carries ssh", out)

# The virtual rack's miswire (tests/rack/phase_rails.sh, `lab fault nodeD
# miswire`, lab/ops.sh's MISWIRE_SCRIPT): each rail a /24 of its own segment
# (lab/lib.sh rail_net: 10.77.<slot> for rail 0, 10.78.<slot> for rail 1;
# rail 0 on eth0, rail 1 on eth2, eth1 the management NIC), node I at host
# I+1. A Soft-RoCE device's PCIe function is its net device's (verbs/
# dev_net.c placement): as `fabcheck devices --json` printed on the rack,
# eth0 is 0000:00:10.0 and eth2 0000:00:12.0, NUMA node -1. nodeD's rxe0 is
# bound to eth2 and rxe1 to eth0; the addresses stay with the segments. So
# the NIC in each slot still reaches its own rail: the cables are right and
# only the device names moved (no swap to name; issue 37 item 3).
# `pair nodeA nodeD` matches these two nodes alone.
RACK_PCI = {"eth0": "0000:00:10.0", "eth2": "0000:00:12.0"}
def rxe(dev, eth, net, host):
    return port(dev, rate=2.5, netdev=eth, addrs=["%s.%d/24" % (net, host)],
                gid_index=3, gid="::ffff:%s.%d" % (net, host),
                pci=RACK_PCI[eth], numa_node=-1)

write("rack-miswire-pair.json", "the virtual rack's pair nodeA nodeD after `lab fault nodeD "
      "miswire` (slot 1): nodeD's rxe0 on rail 1's NIC (eth2), rxe1 on rail 0's (eth0)",
      [("nodeA", [rxe("rxe0", "eth0", "10.77.1", 1), rxe("rxe1", "eth2", "10.78.1", 1)]),
       ("nodeD", [rxe("rxe0", "eth2", "10.78.1", 4), rxe("rxe1", "eth0", "10.77.1", 4)])])

# A swapped pair of cables on a fabric of two scalable units by LLDP: the
# plan of lldp-2su.json where dgx-su2-02's mlx5_3 reaches su2-leaf-r7 and
# its mlx5_6 su2-leaf-r4 (each other's leaf, each on the leaf port the
# other's cable should have had).
def su_swap(i, r):
    rr = {3: 6, 6: 3}.get(r, r) if i == 3 else r
    return dgx(i, r, leaf="su%d-leaf-r%d" % (i // 2 + 1, rr + 1))

write("lldp-2su-swap.json", "4 DGX H100, 8 RoCE ports each, a /31 per port, lldpd; two "
      "scalable units; dgx-su2-02's mlx5_3 and mlx5_6 cabled to each other's leaf",
      [(n, [su_swap(i, r) for r in range(8)]) for i, n in enumerate(SU_NODES)])
