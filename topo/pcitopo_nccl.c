/*
 * The HCA NCCL gives each GPU and the GPU it gives each HCA, on a sysfs tree
 * (design/nccl-rules.md section 4; NVIDIA/nccl src/graph/topo.cc 2.30.7,
 * ncclTopoGetLocal, ncclTopoGetLocalNetType, ncclTopoGetLocalGpu).
 *
 * Local NICs of a GPU: those with the highest path bandwidth, then the lowest
 * path class, in device order. Local GPUs of a NIC: the same, the other way.
 * The NIC of GPU dev on channel c: k = dev mod (local GPUs of its first local
 * NIC), bit-mirrored within log2(n) bits when the n local NICs are a power of
 * two, plus c mod ceil(n / local GPUs) (NCCL_NETDEVS_POLICY=AUTO); the NIC is
 * local[k mod n]. The GPU of a NIC: the first of its local GPUs whose NIC on
 * channel 0 is that NIC, else on channel 1, ... (ncclTopoGetLocalGpu).
 *
 * The path class is NCCL's (topo_gdr_distance): on Grace a C2C GPU's HCAs
 * on its own CPU are P2C, better than PHB (2.27.3+); a Data Direct HCA is
 * placed at its DMA function (net_ib/init.cc gives NCCL that pciPath).
 *
 * Not modelled: the NIC port rate (NCCL's NET link; fabcheck does not read
 * it), intermediate switch links, GPUDirect-off rerouting (every pair is
 * taken as GDR-capable), NCCL_NETDEVS_POLICY other than AUTO.
 */
#include <string.h>

#include "topo/pcitopo.h"

#define NCCL_MAXCHANNELS 64 /* src/include/device.h MAXCHANNELS */

enum topo_dist topo_nccl_class(enum topo_dist d)
{
	/* nccl-rules.md section 2: NCCL has no NODE, separate host bridges of
	 * one NUMA node are PHB to it. */
	return d == TOPO_NODE ? TOPO_PHB : d;
}

/* A link's bandwidth as NCCL counts it (topo.cc ncclTopoAddPci): lanes x
 * the speed code (2.5 GT/s 15, 5 30, 8 60, 16 120, 32 240, i.e. 7.5 per
 * GT/s) / 80 GB/s; the lower of the device's and its port's maximum
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
	return gts > 0 && w > 0 ? w * gts * 7.5 / 80.0 : 0;
}

/* The path's bandwidth: its slowest end link (0 unknown, any). */
static double path_bw(const struct topo *t, const struct topo_dev *a, const struct topo_dev *b)
{
	double x = link_bw(t, a), y = link_bw(t, b);

	if (x <= 0)
		return y;
	return y > 0 && y < x ? y : x;
}

static const struct topo_dev *nth(const struct topo *t, enum topo_kind k, int i)
{
	return k == TOPO_KIND_GPU ? topo_gpu(t, i) : topo_nic(t, i);
}

int topo_nccl_local(const struct topo *t, const struct topo_dev *from,
		    const struct topo_dev **out, int max)
{
	enum topo_kind want = from->kind == TOPO_KIND_GPU ? TOPO_KIND_NIC : TOPO_KIND_GPU;
	enum topo_dist best = TOPO_UNKNOWN;
	double bw = -1;
	const struct topo_dev *d;
	int n = 0;

	for (int i = 0; (d = nth(t, want, i)); i++) {
		enum topo_dist c = topo_nccl_class(topo_gdr_distance(from, d));
		double b = path_bw(t, from, d);

		if (c == TOPO_UNKNOWN)
			continue;
		if (b > bw || (b == bw && c < best)) {
			bw = b;
			best = c;
			n = 0;
		}
		if (b == bw && c == best && n < max)
			out[n++] = d;
	}
	return n;
}

/* NCCL's mirrorBits (topo.h): @val's low log2(@pow2) bits reversed. */
static int mirror_bits(int val, int pow2)
{
	int m = 0;

	for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
		if (val & b)
			m |= mb;
	return m;
}

static const struct topo_dev *gpu_nic(const struct topo *t, const struct topo_dev *g, int channel)
{
	const struct topo_dev *nets[64], *gpus[64];
	int n = topo_nccl_local(t, g, nets, 64), ng, per, k;

	if (n < 1)
		return NULL;
	ng = topo_nccl_local(t, nets[0], gpus, 64);
	if (ng < 1)
		ng = 1;
	per = (n + ng - 1) / ng;
	k = g->index % ng;
	if ((n & (n - 1)) == 0)
		k = mirror_bits(k, n);
	k += channel % per;
	return nets[k % n];
}

const struct topo_dev *topo_nccl_gpu_nic(const struct topo *t, const char *gpu, int channel)
{
	const struct topo_dev *g = topo_find(t, gpu);

	return g && g->kind == TOPO_KIND_GPU ? gpu_nic(t, g, channel < 0 ? 0 : channel) : NULL;
}

const struct topo_dev *topo_nccl_nic_gpu(const struct topo *t, const char *nic)
{
	const struct topo_dev *h = topo_find(t, nic), *gpus[64];
	int ng;

	if (!h || h->kind != TOPO_KIND_NIC)
		return NULL;
	ng = topo_nccl_local(t, h, gpus, 64);
	for (int c = 0; c < NCCL_MAXCHANNELS; c++)
		for (int i = 0; i < ng; i++)
			if (gpu_nic(t, gpus[i], c) == h)
				return gpus[i];
	return NULL;
}

/* NCCL_NET_GDR_C2C's default: 0 in 2.26, 1 from 2.27.3 (paths.cc NCCL_PARAM). */
static int gdr_c2c_param(int version, const struct topo_gdr_env *env)
{
	if (env && env->gdr_c2c >= 0)
		return env->gdr_c2c;
	return version >= 22703;
}

/*
 * ncclTopoCheckGdr (src/graph/paths.cc) by release, after the GPU and NIC
 * both support GPUDirect RDMA (not checked here) and the read gate:
 * 2.26.2  distance PHB over C2C becomes C2C when NCCL_NET_GDR_C2C=1;
 * 2.27.3 - 2.29.1  distance P2C becomes C2C when NCCL_NET_GDR_C2C=1 (default
 *         1); threshold PXB or NCCL_NET_GDR_LEVEL; on at distance <= threshold;
 * 2.29.2+ threshold P2C when NCCL_NET_GDR_C2C=1, else PXB; on at <= it;
 * mode PCI when the GPU's CPU path is C2C and the distance is not the C2C
 * one (2.26 - 2.29.1: != C2C after the rewrite; 2.29.2+: != P2C).
 * C2C sits below PIX in NCCL's order (nccl-rules.md section 1): it passes
 * every level but LOC.
 */
enum topo_gdr_mode topo_nccl_gdr(enum topo_dist path, int c2c, int version,
				 const struct topo_gdr_env *env)
{
	int level = env && env->level >= 0 ? env->level : -1, via_c2c = 0, on;
	enum topo_dist d = topo_nccl_class(path);

	if (d == TOPO_UNKNOWN)
		return TOPO_GDR_OFF;
	if (d == TOPO_P2C && version < 22703)
		d = TOPO_PHB; /* no P2C class before 2.27.3 */
	if (version >= 22902) {
		if (level < 0)
			level = gdr_c2c_param(version, env) ? TOPO_P2C : TOPO_PXB;
		on = (int)d <= level;
		via_c2c = d == TOPO_P2C;
	} else {
		if (version >= 22600 && c2c && gdr_c2c_param(version, env) &&
		    d == (version >= 22703 ? TOPO_P2C : TOPO_PHB))
			via_c2c = 1;
		if (level < 0)
			level = TOPO_PXB;
		on = via_c2c ? level > TOPO_X : (int)d <= level;
	}
	if (!on)
		return TOPO_GDR_OFF;
	return version >= 22600 && c2c && !via_c2c ? TOPO_GDR_PCI : TOPO_GDR_DEFAULT;
}

int topo_nccl_pcie_map(enum topo_dist path, int c2c)
{
	return c2c && path != TOPO_P2C && path != TOPO_UNKNOWN;
}

const char *topo_gdr_mode_name(enum topo_gdr_mode m)
{
	return m == TOPO_GDR_PCI ? "PCI" : m == TOPO_GDR_DEFAULT ? "Default" : "off";
}
