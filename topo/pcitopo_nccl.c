/*
 * The HCA NCCL gives each GPU and the GPU it gives each HCA, on a sysfs tree
 * (design/nccl-rules.md section 4), by the rules of the release
 * topo_nccl_rules gives (NVIDIA/nccl src/graph/topo.cc by tag):
 *
 * Local NICs of a GPU (ncclTopoGetLocal; 2.7+): the network devices (an
 * active port: topo_nccl_net) with the highest path bandwidth, which counts
 * the NIC's speed (a 200G port never ties with a 400G one on Gen5 x16), then
 * the lowest path class (PEX switches flattened: topo_nccl_distance), in
 * NCCL's node order. Local GPUs of a NIC: the same, the other way.
 * The NIC of GPU dev on channel c (ncclTopoGetLocalNet):
 *   2.7 - 2.17   local[dev mod n] on every channel (2.12.12 gpu.dev; 2.11.4
 *                rr = the cudaDev, transport/net.cc)
 *   2.18.1 - 2.18.3  round robin over the local-NIC mask among the GPUs that
 *                share it: local[(c x those GPUs + position) mod n]
 *   2.18.5 - 2.30.4  k = dev, mirrorBits(k, n) when n is a power of two,
 *                plus c mod ceil(n / local GPUs of local[0]); local[k mod n]
 *   2.30.7+      the same with k = dev mod local GPUs (ncclTopoGetLocalNetType)
 * (NCCL_NETDEVS_POLICY AUTO, its default). The GPU of a NIC: the first of its
 * local GPUs whose NIC on channel 0 is that NIC, else on channel 1, ...
 * (ncclTopoGetLocalGpu).
 *
 * The network devices are those of the release: ports of one card fused
 * into one virtual NIC from 2.20.3 (topo/pcitopo_vnic.c), which stands in
 * the lists as its first port.
 *
 * Not modelled: switch uplink bandwidth between the end links, GPUDirect-off
 * rerouting (every pair is taken as GDR-capable), NCCL_NETDEVS_POLICY other
 * than AUTO, a second NET node per port of one multi-port function (mlx5
 * has one port per PCI function).
 */
#include <string.h>

#include "topo/pcitopo.h"
#include "topo/pcitopo_int.h"

#define NCCL_MAXCHANNELS 64 /* src/include/device.h MAXCHANNELS */
#define LOCAL_MAX 64

static const struct topo_dev *nth(const struct topo *t, enum topo_kind k, int i)
{
	return k == TOPO_KIND_GPU ? topo_gpu(t, i) : topo_nic(t, i);
}

/* Insertion into @out[0..n) in NCCL's node order. */
static int add_ordered(const struct topo *t, const struct topo_dev **out, int n,
		       const struct topo_dev *d)
{
	int i = n;

	while (i > 0 && topo_nccl_before(t, d, out[i - 1])) {
		out[i] = out[i - 1];
		i--;
	}
	out[i] = d;
	return n + 1;
}

int topo_nccl_local(const struct topo *t, const struct topo_dev *from,
		    const struct topo_dev **out, int max)
{
	enum topo_kind want = from->kind == TOPO_KIND_GPU ? TOPO_KIND_NIC : TOPO_KIND_GPU;
	const struct topo_dev *all[LOCAL_MAX], *d;
	enum topo_dist best = TOPO_UNKNOWN;
	double bw = -1;
	int n = 0;

	if (from->kind == TOPO_KIND_NIC && !topo_nccl_netdev(t, from))
		return 0;
	for (int i = 0; (d = nth(t, want, i)); i++) {
		enum topo_dist c;
		double b;

		if (want == TOPO_KIND_NIC && !topo_nccl_netdev(t, d))
			continue;
		c = topo_nccl_distance(t, from, d);
		b = topo_nccl_path_bw(t, from, d);
		if (c == TOPO_UNKNOWN)
			continue;
		if (b > bw || (b == bw && c < best)) {
			bw = b;
			best = c;
			n = 0;
		}
		if (b == bw && c == best && n < LOCAL_MAX)
			n = add_ordered(t, all, n, d);
	}
	for (int i = 0; i < n && i < max; i++)
		out[i] = all[i];
	return n < max ? n : max;
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

static int same_set(const struct topo_dev **a, int na, const struct topo_dev **b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* 2.18.1 - 2.18.3 (topo.cc getLocalNetMask and the round robin after it):
 * this GPU's position among the GPUs with the same local NICs, and their
 * count, into *pos and *cnt. */
static void mask_peers(const struct topo *t, const struct topo_dev *g,
		       const struct topo_dev **nets, int n, int *pos, int *cnt)
{
	const struct topo_dev *o, *on[LOCAL_MAX];

	*pos = 0;
	*cnt = 0;
	for (int i = 0; (o = topo_gpu(t, i)); i++) {
		if (!same_set(nets, n, on, topo_nccl_local(t, o, on, LOCAL_MAX)))
			continue;
		if (o == g)
			*pos = *cnt;
		(*cnt)++;
	}
}

static const struct topo_dev *gpu_nic(const struct topo *t, const struct topo_dev *g, int channel)
{
	const struct topo_dev *nets[LOCAL_MAX], *gpus[LOCAL_MAX];
	int n = topo_nccl_local(t, g, nets, LOCAL_MAX), version = topo_nccl_rules(t, NULL);
	int ng, per, k, pos, cnt;

	if (n < 1)
		return NULL;
	if (version < 21801)
		return nets[g->index % n];
	if (version < 21805) {
		mask_peers(t, g, nets, n, &pos, &cnt);
		return nets[(channel * (cnt ? cnt : 1) + pos) % n];
	}
	ng = topo_nccl_local(t, nets[0], gpus, LOCAL_MAX);
	if (ng < 1)
		ng = 1;
	per = (n + ng - 1) / ng;
	k = version >= 23007 ? g->index % ng : g->index;
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
	const struct topo_dev *h = topo_find(t, nic), *gpus[LOCAL_MAX];
	int ng;

	if (!h || h->kind != TOPO_KIND_NIC)
		return NULL;
	h = topo_nccl_vnic(t, h);
	ng = topo_nccl_local(t, h, gpus, LOCAL_MAX);
	for (int c = 0; c < NCCL_MAXCHANNELS && c < t->nnics; c++)
		for (int i = 0; i < ng; i++)
			if (gpu_nic(t, gpus[i], c) == h)
				return gpus[i];
	return NULL;
}

int topo_nccl_used(const struct topo *t, const struct topo_dev *nic)
{
	const struct topo_dev *g;

	nic = topo_nccl_vnic(t, nic);

	for (int i = 0; (g = topo_gpu(t, i)); i++)
		for (int c = 0; c < NCCL_MAXCHANNELS && c < t->nnics; c++)
			if (gpu_nic(t, g, c) == nic)
				return 1;
	return 0;
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
