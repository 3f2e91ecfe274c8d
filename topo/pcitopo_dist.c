/* Distance classes between PCI devices, nearest HCA/GPU, ACS on a path. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/pcitopo.h"

static const char *const dist_names[] = {
	[TOPO_X] = "X",	      [TOPO_PIX] = "PIX", [TOPO_PXB] = "PXB", [TOPO_P2C] = "P2C",
	[TOPO_PHB] = "PHB",   [TOPO_NODE] = "NODE", [TOPO_SYS] = "SYS",
	[TOPO_UNKNOWN] = "?",
};

const char *topo_dist_name(enum topo_dist d)
{
	if ((unsigned)d > TOPO_UNKNOWN)
		return "?";
	return dist_names[d];
}

int topo_dist_parse(const char *s, enum topo_dist *out_p)
{
	for (int d = TOPO_X; d < TOPO_UNKNOWN; d++)
		if (!strcmp(s, dist_names[d])) {
			*out_p = (enum topo_dist)d;
			return 0;
		}
	return -EINVAL;
}

int topo_bdf_norm(const char *in, char out[TOPO_BDF_LEN])
{
	unsigned long dom = 0;
	unsigned bus, dev, fn;
	const char *p = in;
	int colons = 0, n = 0;

	if (!in)
		return -EINVAL;
	for (const char *q = in; *q; q++)
		colons += *q == ':';
	if (colons == 2) {
		char *end;

		dom = strtoul(p, &end, 16);
		if (end == p || *end != ':' || dom > 0xffff)
			return -EINVAL;
		p = end + 1;
	} else if (colons != 1) {
		return -EINVAL;
	}
	if (sscanf(p, "%2x:%2x.%1x%n", &bus, &dev, &fn, &n) != 3 || p[n] || dev > 0x1f ||
	    fn > 7 || !isxdigit((unsigned char)p[0]))
		return -EINVAL;
	snprintf(out, TOPO_BDF_LEN, "%04lx:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

const struct topo_dev *topo_find(const struct topo *t, const char *bus_or_name)
{
	char bdf[TOPO_BDF_LEN];
	int by_bdf;

	if (!t || !bus_or_name)
		return NULL;
	by_bdf = topo_bdf_norm(bus_or_name, bdf) == 0;
	for (int i = 0; i < t->ndevs; i++) {
		const struct topo_dev *d = &t->devs[i];
		size_t n = strlen(d->name);

		if (by_bdf ? !strcmp(d->bdf, bdf) : !strcmp(d->name, bus_or_name))
			return d;
		/* NCCL's name of a Data Direct HCA (topo_nccl_name) */
		if (!by_bdf && d->dd && !strncmp(d->name, bus_or_name, n) &&
		    !strcmp(bus_or_name + n, "_dma"))
			return d;
	}
	return NULL;
}

const struct topo_dev *topo_gpu(const struct topo *t, int i)
{
	return t && i >= 0 && i < t->ngpus ? &t->devs[t->gpus[i]] : NULL;
}

const struct topo_dev *topo_nic(const struct topo *t, int i)
{
	return t && i >= 0 && i < t->nnics ? &t->devs[t->nics[i]] : NULL;
}

/*
 * The switches above a device, nearest first, as NCCL climbs (xml.cc): the
 * bridge right above a device is a downstream port and is skipped, the next
 * one is the switch (its upstream port); repeat up to the host bridge.
 * Returns how many positions of d->chain[] were written to @sw.
 */
static int dev_switches(const struct topo_dev *d, int sw[TOPO_MAX_DEPTH])
{
	int n = 0;

	for (int i = d->depth - 2; i >= 0; i -= 2)
		sw[n++] = i;
	return n;
}

static int same_parent(const struct topo_dev *a, const struct topo_dev *b)
{
	if (a->depth != b->depth || strcmp(a->root, b->root))
		return 0;
	if (a->depth == 0)
		return 0;
	return !strcmp(a->chain[a->depth - 1], b->chain[b->depth - 1]);
}

enum topo_dist topo_dev_distance(const struct topo_dev *a, const struct topo_dev *b)
{
	int swa[TOPO_MAX_DEPTH], swb[TOPO_MAX_DEPTH];
	int na, nb;

	if (!a || !b)
		return TOPO_UNKNOWN;
	if (a == b || !strcmp(a->bdf, b->bdf))
		return TOPO_X;
	if (strcmp(a->root, b->root))
		return a->numa == b->numa ? TOPO_NODE : TOPO_SYS;
	/* Functions of one card, or devices on one bridge's bus. */
	if (same_parent(a, b))
		return TOPO_PIX;
	na = dev_switches(a, swa);
	nb = dev_switches(b, swb);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			if (swa[i] != swb[j] || strcmp(a->chain[swa[i]], b->chain[swb[j]]))
				continue;
			/* The deepest switch both hang under. */
			return i == 0 && j == 0 ? TOPO_PIX : TOPO_PXB;
		}
	return TOPO_PHB;
}

int topo_gpu_c2c_id(unsigned vendor, unsigned device)
{
	/* nvgrace_gpu_vfio_pci_table (drivers/vfio/pci/nvgrace-gpu/main.c) */
	static const unsigned ids[] = { 0x2342, 0x2345, 0x2348, 0x2941, 0x31c2 };

	for (size_t i = 0; vendor == 0x10de && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (device == ids[i])
			return 1;
	return 0;
}

int topo_set_c2c(struct topo *t, const char *gpu, int c2c)
{
	struct topo_dev *g = (struct topo_dev *)topo_find(t, gpu);

	if (!g || g->kind != TOPO_KIND_GPU)
		return -ENOENT;
	g->c2c = !!c2c;
	return 0;
}

enum topo_dist topo_gdr_distance(const struct topo_dev *a, const struct topo_dev *b)
{
	const struct topo_dev *g = a && a->kind == TOPO_KIND_GPU ? a : b;
	const struct topo_dev *n = g == a ? b : a;
	enum topo_dist d;

	if (!g || !n || g->kind != TOPO_KIND_GPU || n->kind != TOPO_KIND_NIC)
		return topo_dev_distance(a, b);
	/* NCCL's position of a Data Direct HCA is its DMA function. */
	d = topo_dev_distance(g, n->dd ? n->dd : n);
	return g->c2c && (d == TOPO_PHB || d == TOPO_NODE) ? TOPO_P2C : d;
}

int topo_set_data_direct(struct topo *t, const char *hca, const char *path)
{
	struct topo_dev *n = (struct topo_dev *)topo_find(t, hca);
	const char *base = path ? strrchr(path, '/') : NULL;
	const struct topo_dev *f;

	if (!n || n->kind != TOPO_KIND_NIC || !path)
		return -ENOENT;
	f = topo_find(t, base ? base + 1 : path);
	if (!f || f == n || f->kind == TOPO_KIND_GPU || f->kind == TOPO_KIND_BRIDGE)
		return -ENOENT;
	n->dd = f;
	return 0;
}

const char *topo_nccl_name(const struct topo_dev *nic, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	/* a virtual NIC: its ports' names joined by '+' (net_ib.cc 2.24.3
	 * ncclIbMakeVDeviceInternal) */
	for (int i = 0; i < (nic->nvnic > 1 ? nic->nvnic : 1) && n < len; i++) {
		const struct topo_dev *p = nic->nvnic > 1 ? nic->vnic[i] : nic;

		n += (size_t)snprintf(buf + n, len - n, "%s%s%s", i ? "+" : "", p->name,
				      p->dd ? "_dma" : "");
	}
	return buf;
}

enum topo_dist topo_distance(const struct topo *t, const char *bus_a, const char *bus_b)
{
	return topo_dev_distance(topo_find(t, bus_a), topo_find(t, bus_b));
}

int topo_nearest_nics(const struct topo *t, const char *gpu, const struct topo_dev **out,
		      int max, enum topo_dist *dist_p)
{
	const struct topo_dev *g = topo_find(t, gpu);
	enum topo_dist best = TOPO_UNKNOWN;
	int n = 0;

	if (!g || g->kind != TOPO_KIND_GPU)
		return -ENOENT;
	for (int i = 0; i < t->nnics; i++) {
		enum topo_dist d = topo_dev_distance(g, topo_nic(t, i));

		if (d < best)
			best = d;
	}
	for (int i = 0; i < t->nnics && best != TOPO_UNKNOWN; i++) {
		if (topo_dev_distance(g, topo_nic(t, i)) != best)
			continue;
		if (n < max && out)
			out[n] = topo_nic(t, i);
		n++;
	}
	if (dist_p)
		*dist_p = best;
	return n < max ? n : max;
}

const struct topo_dev *topo_nearest_gpu(const struct topo *t, const char *nic,
					enum topo_dist *dist_p)
{
	const struct topo_dev *h = topo_find(t, nic), *best_g = NULL;
	enum topo_dist best = TOPO_UNKNOWN;

	if (!h || h->kind != TOPO_KIND_NIC)
		return NULL;
	for (int i = 0; i < t->ngpus; i++) {
		enum topo_dist d = topo_dev_distance(h, topo_gpu(t, i));

		if (d < best) {
			best = d;
			best_g = topo_gpu(t, i);
		}
	}
	if (dist_p)
		*dist_p = best;
	return best_g;
}

/* Adds chain[from..depth-1] of @d (bridges below the common point). */
static int add_bridges(const struct topo *t, const struct topo_dev *d, int from, int mask,
		       const struct topo_dev **out, int n, int max)
{
	for (int i = from; i < d->depth; i++) {
		const struct topo_dev *br = topo_find(t, d->chain[i]);

		if (!br || br->acs_ctl < 0 || !(br->acs_ctl & mask))
			continue;
		for (int k = 0; k < n && k < max; k++)
			if (out[k] == br)
				goto next;
		if (n < max)
			out[n] = br;
		n++;
next:;
	}
	return n;
}

int topo_acs_on_path(const struct topo *t, const struct topo_dev *a,
		     const struct topo_dev *b, int mask, const struct topo_dev **out,
		     int max)
{
	enum topo_dist d = topo_dev_distance(a, b);
	int common = 0, n;

	if (d != TOPO_PIX && d != TOPO_PXB)
		return 0;
	while (common < a->depth && common < b->depth &&
	       !strcmp(a->chain[common], b->chain[common]))
		common++;
	/* The last common bridge routes the peer traffic too. */
	n = add_bridges(t, a, common ? common - 1 : 0, mask, out, 0, max);
	n = add_bridges(t, b, common, mask, out, n, max);
	return n < max ? n : max;
}

#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d

static unsigned rd32(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 |
	       (unsigned)p[3] << 24;
}

int topo_acs_from_config(const uint8_t *cfg, size_t len)
{
	unsigned off = PCI_EXT_CAP_START;

	if (!cfg || len < PCI_EXT_CAP_START + 4)
		return -ENODATA;
	/* Walk the extended capability list; at most 0x3c0/4 hops. */
	for (int hops = 0; off >= PCI_EXT_CAP_START && off + 8 <= len && hops < 240; hops++) {
		unsigned hdr = rd32(cfg + off);

		if (hdr == 0 || hdr == 0xffffffffu)
			return -1;
		if ((hdr & 0xffff) == PCI_EXT_CAP_ID_ACS)
			return (int)(cfg[off + 6] | (unsigned)cfg[off + 7] << 8) & 0x7f;
		off = (hdr >> 20) & 0xffc;
	}
	return -1;
}

double topo_parse_gts(const char *s)
{
	char *end;
	double v;

	if (!s)
		return 0;
	v = strtod(s, &end);
	if (end == s || v <= 0 || v > 1000 || strncmp(end, " GT/s", 5))
		return 0;
	return v;
}
