/*
 * The GPU-NIC paths as NCCL's topology sees them, by release: which HCAs are
 * network devices, their speed, Broadcom PEX switch flattening, path class
 * and bandwidth, and the order NCCL keeps its nodes in (which decides ties).
 * Releases by tag of NVIDIA/nccl; "2.20.3+" = first tag that has it.
 */
#include <string.h>

#include "topo/pcitopo.h"
#include "topo/pcitopo_int.h"

enum topo_dist topo_nccl_class(enum topo_dist d)
{
	/* nccl-rules.md section 2: NCCL has no NODE, separate host bridges of
	 * one NUMA node are PHB to it. */
	return d == TOPO_NODE ? TOPO_PHB : d;
}

static int port_active(const struct topo_port *p)
{
	/* net_ib.cc (2.18.3) / net_ib/init.cc (2.30.7) ncclIbInitDevices: a
	 * port whose state is not IBV_PORT_ACTIVE, or whose link layer is not
	 * InfiniBand or Ethernet, is skipped. sysfs writes "4: ACTIVE". */
	return strstr(p->state, "ACTIVE") && !strstr(p->state, "INIT") &&
	       (!strcmp(p->link_layer, "InfiniBand") || !strcmp(p->link_layer, "Ethernet"));
}

int topo_nccl_net(const struct topo_dev *nic)
{
	if (!nic || nic->kind != TOPO_KIND_NIC)
		return 0;
	if (!nic->nports)
		return 1; /* a tree without ports/: nothing says it is down */
	for (int i = 0; i < nic->nports; i++)
		if (port_active(&nic->ports[i]))
			return 1;
	return 0;
}

static int port_mbps(const struct topo_dev *nic)
{
	int best = 0;

	for (int i = 0; nic && i < nic->nports; i++)
		if (port_active(&nic->ports[i]) && nic->ports[i].rate_mbps > best)
			best = nic->ports[i].rate_mbps;
	return best;
}

int topo_nccl_nic_mbps(const struct topo_dev *nic)
{
	int sum = 0;

	/* a virtual NIC's speed is its ports' together (net_ib.cc 2.20.3
	 * mergedDev.speed, 2.24.3+ ncclIbMakeVDeviceInternal); one port
	 * whose speed is not known leaves it unknown */
	if (!nic || nic->nvnic < 2 || nic->vnic[0] != nic)
		return port_mbps(nic);
	for (int i = 0; i < nic->nvnic; i++) {
		if (!port_mbps(nic->vnic[i]))
			return 0;
		sum += port_mbps(nic->vnic[i]);
	}
	return sum;
}

int topo_nic_is_dpu(const struct topo_dev *nic)
{
	/* mlx5_core_pci_table (drivers/net/ethernet/mellanox/mlx5/core/main.c) */
	static const unsigned ids[] = { 0xa2d2, 0xa2d6, 0xa2dc };

	for (size_t i = 0; nic && nic->vendor == 0x15b3 && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (nic->device == ids[i])
			return 1;
	return 0;
}

/*
 * Broadcom PEX generation of a switch at @level (0 the top switch, 1 a
 * switch below it), as topo.cc getBcmGen (2.20.3+) reads NCCL's 64-bit id
 * vendor<<48 | device<<32 | subsystem vendor<<16 | subsystem device
 * (ncclTopoGetIntDevice), the low 12 bits masked: Gen4 0x1000c0101000a000
 * at either level (2.9.6+), Gen5 0x1000c03010000000 | level<<12 (2.20.3+).
 */
static int bcm_gen(const struct topo_dev *sw, int level, int version)
{
	if (!sw || sw->vendor != 0x1000 || sw->subsys_vendor != 0x1000)
		return 0;
	if (version >= 20906 && sw->device == 0xc010 && (sw->subsys_device & 0xf000) == 0xa000)
		return 4;
	if (version >= 22003 && sw->device == 0xc030 &&
	    (sw->subsys_device & 0xf000) == (unsigned)level << 12)
		return 5;
	return 0;
}

/* Whether ncclTopoFlattenBcmSwitches fuses switch @sub into its parent @up:
 * 2.9.6 - 2.19 only when @sub's id equals @up's (topo.cc 2.18.3, "Only fuse
 * sub switches with the same device ID"), 2.20.3+ by getBcmGen. */
static int bcm_fuses(const struct topo_dev *up, const struct topo_dev *sub, int version)
{
	int gen = bcm_gen(up, 0, version);

	if (!gen || !sub)
		return 0;
	if (version < 22003)
		return sub->vendor == up->vendor && sub->device == up->device &&
		       sub->subsys_vendor == up->subsys_vendor &&
		       sub->subsys_device == up->subsys_device;
	return bcm_gen(sub, 1, version) == gen;
}

/*
 * The switches NCCL sees above @d, top first, as indexes into d->chain: the
 * bridge just above a device is a downstream port and skipped, the next is
 * the switch (xml.cc ncclTopoGetXmlFromSys). @fused[k] (may be NULL) is 1
 * where that switch is a Broadcom sub-switch fused into the one before it,
 * whose devices then hang from the parent. A switch fused into once gets
 * subsystem device 0xffff and fuses no more (topo.cc 2.30.7).
 */
static int nccl_climb(const struct topo *t, const struct topo_dev *d,
		      int idx[TOPO_MAX_DEPTH], int fused[TOPO_MAX_DEPTH])
{
	int n = 0, version = topo_nccl_rules(t, NULL);

	for (int i = d->depth - 2; i >= 0; i -= 2)
		idx[n++] = i;
	for (int i = 0; i < n / 2; i++) { /* top first */
		int x = idx[i];

		idx[i] = idx[n - 1 - i];
		idx[n - 1 - i] = x;
	}
	for (int k = 0; fused && k < n; k++)
		fused[k] = k > 0 && !fused[k - 1] &&
			   bcm_fuses(topo_find(t, d->chain[idx[k - 1]]),
				     topo_find(t, d->chain[idx[k]]), version);
	return n;
}

/* The switches NCCL sees above @d, nearest first, as bus ids; a fused
 * Broadcom sub-switch is gone. */
static int nccl_switches(const struct topo *t, const struct topo_dev *d,
			 const char *out[TOPO_MAX_DEPTH])
{
	int idx[TOPO_MAX_DEPTH], fused[TOPO_MAX_DEPTH], n = nccl_climb(t, d, idx, fused), m = 0;

	for (int k = n - 1; k >= 0; k--)
		if (!fused[k])
			out[m++] = d->chain[idx[k]];
	return m;
}

const char *topo_nccl_fused_into(const struct topo *t, const char *sw)
{
	int idx[TOPO_MAX_DEPTH], fused[TOPO_MAX_DEPTH];

	for (int i = 0; sw && i < t->ndevs; i++) {
		const struct topo_dev *d = &t->devs[i];
		int n = d->kind == TOPO_KIND_GPU || d->kind == TOPO_KIND_NIC ?
				nccl_climb(t, d, idx, fused) : 0;

		for (int k = 1; k < n; k++)
			if (fused[k] && !strcmp(d->chain[idx[k]], sw))
				return d->chain[idx[k - 1]];
	}
	return NULL;
}

/* PCIe class of two devices as paths.cc ncclTopoSetPaths types it: PIX
 * through one switch, PXB through several (a switch-to-switch hop), PHB
 * through the CPU, SYS across CPUs. */
static enum topo_dist pci_class(const struct topo *t, const struct topo_dev *a,
				const struct topo_dev *b)
{
	const char *sa[TOPO_MAX_DEPTH], *sb[TOPO_MAX_DEPTH];
	int na, nb;

	if (a == b || !strcmp(a->bdf, b->bdf))
		return TOPO_X;
	if (strcmp(a->root, b->root))
		return a->numa == b->numa ? TOPO_PHB : TOPO_SYS;
	if (a->depth && a->depth == b->depth && !strcmp(a->chain[a->depth - 1], b->chain[b->depth - 1]))
		return TOPO_PIX; /* functions of one card, one bridge's bus */
	na = nccl_switches(t, a, sa);
	nb = nccl_switches(t, b, sb);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (!strcmp(sa[i], sb[j]))
				return i == 0 && j == 0 ? TOPO_PIX : TOPO_PXB;
	return TOPO_PHB;
}

enum topo_dist topo_nccl_distance(const struct topo *t, const struct topo_dev *a,
				  const struct topo_dev *b)
{
	const struct topo_dev *g = a && a->kind == TOPO_KIND_GPU ? a : b;
	const struct topo_dev *n = g == a ? b : a;
	enum topo_dist d;

	if (!a || !b)
		return TOPO_UNKNOWN;
	if (g->kind != TOPO_KIND_GPU || n->kind != TOPO_KIND_NIC)
		return pci_class(t, a, b);
	/* a Data Direct HCA sits at its DMA function (net_ib/init.cc 2.27.3+) */
	d = pci_class(t, g, n->dd ? n->dd : n);
	/* a virtual NIC hangs from its ports' common parent (topo.cc
	 * ncclTopoGetVNicParent): as far as its farthest port */
	for (int i = 1; n->nvnic > 1 && n->vnic[0] == n && i < n->nvnic; i++) {
		enum topo_dist e = pci_class(t, g, topo_place(n->vnic[i]));

		d = e > d ? e : d;
	}
	/* C2C + PHB is P2C (paths.cc 2.27.3+; topo_gdr_distance) */
	return g->c2c && d == TOPO_PHB && topo_nccl_rules(t, NULL) >= 22703 ? TOPO_P2C : d;
}

/* A link's bandwidth as NCCL counts it (topo.cc ncclTopoAddPci, xml.cc
 * kvDictPciGen): lanes x the speed code (2.5 GT/s 15, 5 30, 8 60, 16 120,
 * 32 240) / 80 GB/s; the lower of the device's and its port's maximum
 * (xml.cc reads max_link_speed/width of both). 0 when sysfs does not say. */
static double link_bw(const struct topo *t, const struct topo_dev *d)
{
	const struct topo_dev *port;

	d = d->dd ? d->dd : d; /* a Data Direct HCA's place (topo_set_data_direct) */
	port = d->depth ? topo_find(t, d->chain[d->depth - 1]) : NULL;
	double gts = d->link.max_gts;
	int w = d->link.max_width;

	if (port && port->link.max_gts > 0 && (gts <= 0 || port->link.max_gts < gts))
		gts = port->link.max_gts;
	if (port && port->link.max_width > 0 && (w <= 0 || port->link.max_width < w))
		w = port->link.max_width;
	if (gts <= 0 || w <= 0)
		return 0;
	return w * gts * (gts < 8 ? 6.0 : 7.5) / 80.0;
}

static double min_known(double x, double y)
{
	return x <= 0 ? y : y > 0 && y < x ? y : x;
}

/* The path's bandwidth: its slowest end link and, on a NIC, its NET link of
 * speed/8000 GB/s (topo.cc ncclTopoAddNet: net.bw = mbps / 8000.0); a speed
 * the tree does not record limits nothing (0 unknown, any). */
double topo_nccl_path_bw(const struct topo *t, const struct topo_dev *a,
			 const struct topo_dev *b)
{
	double bw = min_known(link_bw(t, a), link_bw(t, b));

	if (a->kind == TOPO_KIND_NIC && topo_nccl_nic_mbps(a) > 0)
		bw = min_known(bw, topo_nccl_nic_mbps(a) / 8000.0);
	if (b->kind == TOPO_KIND_NIC && topo_nccl_nic_mbps(b) > 0)
		bw = min_known(bw, topo_nccl_nic_mbps(b) / 8000.0);
	return bw;
}

/*
 * NCCL's node order, which ncclTopoGetLocal keeps among equals. Nodes are
 * made walking the XML tree (topo.cc ncclTopoAddCpu/ncclTopoAddPci), whose
 * branches are in the order devices were added: every GPU first, by rank
 * (ncclTopoGetSystem, ncclTopoFillGpu; rank = bus order here), then the
 * network devices by device index (ncclTopoFillNet): ibv_get_device_list
 * order up to 2.29.3 (taken as name order), PCI order from 2.29.7
 * (net_ib/init.cc ncclIbCompareDevs, NCCL_IB_DEVICE_PCI_ORDER=1). Fused
 * ports (topo/pcitopo_vnic.c): 2.20.3 - 2.23.4 the merged device is one
 * device at its first port's place. From 2.24.3 every physical port is
 * added first and the virtual NICs after them (topo.cc ncclTopoProcessNet);
 * 2.24.3 - 2.26.6 give each port its own function's path (net_ib.cc
 * ncclIbGetPciPath), so a virtual NIC is a made-up PCI node added last under
 * its ports' common parent (ncclTopoGetVNicParent, ncclTopoMakePciParent),
 * while the branches above were made by the ports; 2.27.3+ read the
 * function as 0 again, both ports are nets of one NIC node and the virtual
 * NIC joins that node: at its first port's place.
 */
static int lead(const struct topo_dev *d)
{
	return d->nvnic > 1 && d->vnic[0] == d;
}

static int dev_before(int version, const struct topo_dev *o, const struct topo_dev *d)
{
	if (version >= 22907)
		return strcmp(topo_place(o)->bdf, topo_place(d)->bdf) < 0;
	return o->index < d->index;
}

/* When @x was added, seen from the branch at @level of its chain; -1 when
 * nothing of it is there. */
static int added_at(const struct topo *t, const struct topo_dev *x, int level)
{
	int version = topo_nccl_rules(t, NULL), k = 0, nlisted = 0, late;
	const struct topo_dev *o;

	if (x->kind == TOPO_KIND_GPU)
		return x->index;
	if (!topo_nccl_net(x))
		return -1;
	late = version >= 22403 && version < 22703 && x->nvnic > 1 &&
	       level >= topo_place(x)->depth;
	if (x->nvnic > 1 && !lead(x) && (version < 22403 || version >= 22703 || late))
		return -1;
	for (int i = 0; (o = topo_nic(t, i)); i++) {
		if (o == x || !topo_nccl_net(o))
			continue;
		nlisted++;
		if ((version < 22403 && o->nvnic > 1 && !lead(o)) || (late && !lead(o)))
			continue;
		k += dev_before(version, o, x);
	}
	return t->ngpus + (late ? nlisted + 1 : 0) + k;
}

/* Whether @x is in @d's branch at @level: 0 its CPU (NUMA node), 1..depth
 * the branch under chain[level-1] of its host bridge, depth+1 itself. */
static int in_branch(const struct topo_dev *x, const struct topo_dev *d, int level)
{
	if (level == 0)
		return x->numa == d->numa;
	if (level > d->depth)
		return x == d;
	if (strcmp(x->root, d->root) || x->depth < level)
		return 0;
	for (int i = 0; i < level; i++)
		if (strcmp(x->chain[i], d->chain[i]))
			return 0;
	return 1;
}

/* When the branch at @level of device @d's chain was first added to. */
static int branch_added(const struct topo *t, const struct topo_dev *d, int level)
{
	int best = 1 << 30;

	for (int i = 0; i < t->ndevs; i++) {
		const struct topo_dev *x = &t->devs[i];
		int when;

		if ((x->kind == TOPO_KIND_GPU || x->kind == TOPO_KIND_NIC) &&
		    in_branch(topo_place(x), topo_place(d), level) &&
		    (when = added_at(t, x, level)) >= 0 && when < best)
			best = when;
	}
	return best;
}

int topo_nccl_before(const struct topo *t, const struct topo_dev *a, const struct topo_dev *b)
{
	for (int level = 0; level <= topo_place(a)->depth + 1; level++)
		if (!in_branch(topo_place(b), topo_place(a), level))
			return branch_added(t, a, level) < branch_added(t, b, level);
	return 0;
}
