/*
 * NCCL's virtual NICs: the ports of one card fused into one network device,
 * by release (NVIDIA/nccl, read at the tags):
 *
 *   up to 2.19.4   none: every active port is a device of its own.
 *   2.20.3 - 2.23.4  the IB plugin merges them (src/transport/net_ib.cc
 *                ncclIbInit, ncclIbFindMatchingDev), NCCL_IB_MERGE_NICS=1 by
 *                default: in device order a port joins the first merged
 *                device (of fewer than NCCL_IB_MAX_DEVS_PER_NIC = 2 ports)
 *                whose first port has the same PCI path once the function,
 *                and with NCCL_IB_MERGE_VFS=1 (its default) the device
 *                number, are read as 0 (ncclIbGetPciPath), the same
 *                sys_image_guid and the same link layer. The merged device
 *                is the network device, at its first port's place, named
 *                "mlx5_0+mlx5_1", its ports' speeds added.
 *   2.22.3 - 2.23.4  and none at all when the merged devices are not all of
 *                one size ("Detected a mix of single and multiple-port NICs.
 *                Force-disabling NCCL_IB_MERGE_NICS").
 *   2.24.3+      NCCL's topology fuses them (src/graph/topo.cc
 *                ncclTopoMakeVNics, ncclTopoAutoMerge, ncclTopoGetPath):
 *                each unplaced device in device order takes every unplaced
 *                one within NCCL_NET_MERGE_LEVEL, up to
 *                NCCL_NET_MAX_DEVS_PER_NIC (4). Its default PORT is the
 *                functions of one PCI device (bus ids equal but for their
 *                last character, under one parent); LOC fuses nothing; PIX,
 *                PXB, PHB, SYS by the path between the ports. The value is
 *                matched as a case-sensitive prefix, and one that matches no
 *                name is LOC (xml.h kvConvertToInt). The IB plugin refuses a
 *                fusion under NCCL_IB_MERGE_NICS=0 or of ports of different
 *                link layers (net_ib.cc ncclIbMakeVDeviceInternal): 2.24.3 -
 *                2.25.1 then fail to initialise (ncclTopoMakeVnic: "Try
 *                setting NCCL_NET_MERGE_LEVEL=LOC"), 2.26.2+ keep those ports
 *                apart ("Marking physical devices as unplaced"). The virtual
 *                NIC is numbered after every physical device, its speed is
 *                its ports' together, and its place in NCCL's node order is
 *                the release's (pcitopo_ncclpath.c added_at). With
 *                NCCL_TOPO_DUMP_FILE set NCCL uses the physical devices
 *                (ncclTopoProcessNet, usePhysicalDevices).
 *
 * Device order: ibv_get_device_list order up to 2.29.3 (taken as name
 * order), PCI order from 2.29.7 (net_ib/init.cc ncclIbCompareDevs). The
 * sys_image_guid a recorded tree does not keep is not compared: the
 * functions of one card share it (it names the card's firmware image).
 * Not modelled: two ports of one PCI function (mlx4), NCCL_NET_FORCE_MERGE,
 * NCCL_NET_MERGE_POLICY=RAIL (2.30.7).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/pcitopo.h"
#include "topo/pcitopo_int.h"

#define NICS_MAX 64

/* An integer NCCL parameter (misc/param.cc: strtoll, a value that is not a
 * number keeps the default). */
static int env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return dflt;
	v = strtol(s, &end, 0);
	return *end ? dflt : (int)v;
}

/* NCCL_NET_MERGE_LEVEL as a class (topo.cc nicPathKvList); TOPO_X is LOC
 * and PORT, TOPO_X + 0.5 in NCCL's order, is -1 here. */
static int merge_level(char *why, size_t len)
{
	static const struct {
		const char *s;
		int level;
	} kv[] = { { "LOC", TOPO_X },	  { "PORT", -1 },	   { "PIX", TOPO_PIX },
		   { "PXB", TOPO_PXB },	  { "P2C", TOPO_PXB },	   { "PXN", TOPO_PXB },
		   { "PHB", TOPO_PHB },	  { "SYS", TOPO_SYS } };
	const char *s = getenv("NCCL_NET_MERGE_LEVEL");

	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (!strncmp(s, kv[i].s, strlen(kv[i].s)))
			return kv[i].level;
	snprintf(why, len, "NCCL_NET_MERGE_LEVEL=%.32s names no level, which NCCL reads as LOC", s);
	return TOPO_X;
}

static int same_parent(const struct topo_dev *a, const struct topo_dev *b)
{
	if (a->depth != b->depth || strcmp(a->root, b->root))
		return 0;
	for (int i = 0; i < a->depth; i++)
		if (strcmp(a->chain[i], b->chain[i]))
			return 0;
	return 1;
}

/* The first @n characters of two bus ids ("0000:16:00.1": 11 is the
 * function's, 8 the device's) under one parent. */
static int same_pci(const struct topo_dev *a, const struct topo_dev *b, size_t n)
{
	a = topo_place(a);
	b = topo_place(b);
	return same_parent(a, b) && !strncmp(a->bdf, b->bdf, n);
}

static const char *link_layer(const struct topo_dev *d)
{
	for (int i = 0; i < d->nports; i++)
		if (strstr(d->ports[i].state, "ACTIVE"))
			return d->ports[i].link_layer;
	return "";
}

static int cmp_bdf(const void *a, const void *b)
{
	return strcmp(topo_place(*(const struct topo_dev *const *)a)->bdf,
		      topo_place(*(const struct topo_dev *const *)b)->bdf);
}

/* The devices NCCL lists, in its device order. */
static int listed(const struct topo *t, const struct topo_dev **out)
{
	const struct topo_dev *d;
	int n = 0;

	for (int i = 0; (d = topo_nic(t, i)) && n < NICS_MAX; i++)
		if (topo_nccl_net(d))
			out[n++] = d;
	if (t->nccl_version >= 22907)
		qsort(out, (size_t)n, sizeof(*out), cmp_bdf);
	return n;
}

static void set_group(const struct topo_dev **g, int n)
{
	for (int i = 0; n > 1 && i < n; i++) {
		struct topo_dev *d = (struct topo_dev *)g[i];

		memcpy(d->vnic, g, (size_t)n * sizeof(*g));
		d->nvnic = n;
	}
}

/* 2.20.3 - 2.23.4: the IB plugin's merge. Returns the groups made. */
static int plugin_merge(struct topo *t, const struct topo_dev **nics, int n)
{
	const struct topo_dev *g[NICS_MAX][2];
	int ng = 0, size[NICS_MAX], vfs = env_int("NCCL_IB_MERGE_VFS", 1);

	for (int i = 0; i < n; i++) {
		int k = 0;

		while (k < ng && !(size[k] < 2 && same_pci(g[k][0], nics[i], vfs ? 7 : 10) &&
				   !strcmp(link_layer(g[k][0]), link_layer(nics[i]))))
			k++;
		if (k == ng)
			size[ng++] = 0;
		g[k][size[k]++] = nics[i];
	}
	for (int k = 1; t->nccl_version >= 22203 && k < ng; k++)
		if (size[k] != size[0]) {
			snprintf(t->vnic_how, sizeof(t->vnic_how),
				 "NCCL 2.22.3-2.23.4 fuses no ports where single- and multi-port cards meet (net_ib.cc: a mix of single and multiple-port NICs)");
			return 0;
		}
	for (int k = 0; k < ng; k++)
		set_group(g[k], size[k]);
	return ng;
}

/* Whether the IB plugin fuses @g (net_ib.cc ncclIbMakeVDeviceInternal). */
static const char *refused(const struct topo_dev **g, int n, int merge_nics)
{
	if (!merge_nics)
		return "NCCL_IB_MERGE_NICS=0";
	for (int i = 1; i < n; i++)
		if (strcmp(link_layer(g[i]), link_layer(g[0])))
			return "ports of different link layers";
	return NULL;
}

int topo_nccl_same_card(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n > 1 && n == strlen(b) && !strncmp(a, b, n - 1);
}

static int within(const struct topo_dev *a, const struct topo_dev *b, int level)
{
	if (level < 0)
		return same_pci(a, b, 0) &&
		       topo_nccl_same_card(topo_place(a)->bdf, topo_place(b)->bdf);
	return (int)topo_nccl_class(topo_dev_distance(topo_place(a), topo_place(b))) <= level;
}

/* What NCCL says when the IB plugin refuses to fuse @a and @b. */
static void say_refused(struct topo *t, const struct topo_dev *a, const struct topo_dev *b,
			const char *no)
{
	snprintf(t->vnic_how, sizeof(t->vnic_how),
		 t->nccl_version < 22602 ?
			 "NCCL 2.24.3-2.25.1 stops at init: it fuses %s+%s, which the IB plugin refuses (%s; net_ib.cc ncclIbMakeVDeviceInternal): set NCCL_NET_MERGE_LEVEL=LOC to keep the ports apart" :
			 "NCCL keeps %s and %s apart: the IB plugin refuses to fuse them (%s; topo.cc ncclTopoAutoMerge)",
		 a->name, b->name, no);
}

/* 2.24.3+: ncclTopoAutoMerge. A refused group's ports are set apart from
 * its first (PATH_DIS) and the placing starts over. */
static void topo_merge(struct topo *t, const struct topo_dev **nics, int n, int level)
{
	int apart[NICS_MAX][NICS_MAX];
	int placed[NICS_MAX] = { 0 }, idx[TOPO_VNIC_MAX], merge_nics = env_int("NCCL_IB_MERGE_NICS", 1);
	const struct topo_dev *g[TOPO_VNIC_MAX];
	const char *no;

	memset(apart, 0, sizeof(apart));
	for (int i = 0; i < n; i++) {
		int ng = 1;

		if (placed[i])
			continue;
		placed[i] = 1;
		g[0] = nics[i];
		for (int j = 0; j < n && ng < TOPO_VNIC_MAX; j++)
			if (!placed[j] && !apart[i][j] && within(nics[i], nics[j], level)) {
				placed[j] = 1;
				idx[ng] = j;
				g[ng++] = nics[j];
			}
		if (ng < 2 || !(no = refused(g, ng, merge_nics))) {
			set_group(g, ng);
			continue;
		}
		say_refused(t, g[0], g[1], no);
		placed[i] = 0;
		for (int k = 1; k < ng; k++) {
			placed[idx[k]] = 0;
			apart[i][idx[k]] = apart[idx[k]][i] = 1;
		}
		i = -1;
	}
}

static int fused_any(const struct topo_dev **nics, int n)
{
	for (int i = 0; i < n; i++)
		if (nics[i]->nvnic)
			return 1;
	return 0;
}

/* Whether two of @nics are functions of one card (the default fusions). */
static int card_ports(const struct topo_dev **nics, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (within(nics[i], nics[j], -1))
				return 1;
	return 0;
}

void topo_nccl_fuse(struct topo *t)
{
	const struct topo_dev *nics[NICS_MAX];
	int n, v = t->nccl_version, level = -1;
	char why[96] = "";

	for (int i = 0; i < t->ndevs; i++)
		t->devs[i].nvnic = 0;
	t->vnic_how[0] = 0;
	n = listed(t, nics);
	if (!card_ports(nics, n) && !getenv("NCCL_NET_MERGE_LEVEL"))
		return; /* nothing any release fuses: nothing to say */
	if (v < 22003) {
		snprintf(t->vnic_how, sizeof(t->vnic_how),
			 "NCCL before 2.20.3 fuses no ports: each port of a card is a device of its own");
		return;
	}
	if (v < 22403) {
		if (!env_int("NCCL_IB_MERGE_NICS", 1))
			snprintf(t->vnic_how, sizeof(t->vnic_how), "NCCL_IB_MERGE_NICS=0: no ports fused");
		else
			plugin_merge(t, nics, n);
	} else if (getenv("NCCL_TOPO_DUMP_FILE")) {
		snprintf(t->vnic_how, sizeof(t->vnic_how),
			 "NCCL_TOPO_DUMP_FILE is set: NCCL uses the physical ports (topo.cc ncclTopoProcessNet)");
	} else if ((level = merge_level(why, sizeof(why))) == TOPO_X) {
		snprintf(t->vnic_how, sizeof(t->vnic_how), "%s",
			 why[0] ? why : "NCCL_NET_MERGE_LEVEL=LOC: no ports fused");
	} else {
		topo_merge(t, nics, n, level);
	}
	if (!t->vnic_how[0] && fused_any(nics, n))
		snprintf(t->vnic_how, sizeof(t->vnic_how), "%s",
			 v < 22403 ? "NCCL 2.20.3-2.23.4's IB plugin fuses the ports of one card (net_ib.cc ncclIbInit, NCCL_IB_MERGE_NICS=1)" :
				     level < 0 ? "NCCL 2.24.3+ fuses the ports of one card (topo.cc ncclTopoMakeVNics, NCCL_NET_MERGE_LEVEL=PORT)" :
						 "NCCL 2.24.3+ fuses the ports within NCCL_NET_MERGE_LEVEL (topo.cc ncclTopoMakeVNics)");
}

const struct topo_dev *topo_nccl_vnic(const struct topo *t, const struct topo_dev *nic)
{
	topo_nccl_rules(t, NULL);
	return nic && nic->nvnic > 1 ? nic->vnic[0] : nic;
}

int topo_nccl_netdev(const struct topo *t, const struct topo_dev *nic)
{
	return topo_nccl_net(nic) && topo_nccl_vnic(t, nic) == nic;
}
