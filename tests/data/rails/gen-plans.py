#!/usr/bin/env python3
"""Writes the recorded port lists of the addressing plans (issue 24) that
tests/unit/test_rail.c matches: the fields `fabcheck devices --json` gives
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
