/*
 * Virtual NICs of NCCL 2.24+ (NVIDIA/nccl src/graph/topo.cc ncclTopoMakeVNics,
 * ncclTopoAutoMerge): ports closer than NCCL_NET_MERGE_LEVEL (default PORT:
 * the ports of one card) are fused into one device of their summed speed,
 * numbered after the physical ones of the IB list; the physical devices it
 * fuses are then no network devices of their own (ncclTopoUpdateVNics sets
 * net=0), so channel lines name the virtual index, NET/IB/<nphys + k>. A
 * vNIC is made only of two or more devices (ncclTopoMakeVnic skips size 1).
 * The log says which ports a vNIC fuses on the [NET] line of
 * net_ib/init.cc ncclIbMakeVDeviceInternal, "NET/IB : Made virtual device
 * [d] name=a+b speed=S ndevs=N ..."; without it the count NCCL prints at
 * init, "Rank R: K Net devices" (init.cc, K = physical + virtual), still
 * settles one case: two devices listed and one virtual device fuse both.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"

/* "[d] name=a+b speed=S ...": each named port of host @h fused into d. */
void ncl_on_vnic(struct ncl_log *lg, int h, const char *p)
{
	struct ncl_host *host = &lg->hosts[h];
	const char *name;
	long d;

	if (!ncl_skip(&p, "[") || !ncl_num(&p, &d) || !ncl_skip(&p, "]") || d < 0 ||
	    !(name = strstr(p, "name=")))
		return;
	name += 5;
	if (strcspn(name, "+ ") == strcspn(name, " "))
		return; /* one port: 2.30.7's plugin makes one of each physical
			 * device, at its own index (net_ib/init.cc ncclIbInitDevices,
			 * vProps.ndevs = 1), which fuses nothing */
	while (*name && *name != ' ') {
		size_t n = strcspn(name, "+ ");

		for (int i = 0; i < host->nhcas; i++)
			if (ncl_hca_same(host->hcas[i].name, name, n) ||
			    (strlen(host->hcas[i].name) == n && !strncmp(host->hcas[i].name, name, n)))
				host->hcas[i].fused = (int)d + 1;
		name += n + (name[n] == '+');
	}
}

/* "Rank R: K Net devices" (not "CollNet"): 1 when it was one. */
int ncl_on_net_count(struct ncl_log *lg, int h, const char *msg)
{
	const char *p = msg;
	long r, k;

	if (!ncl_skip(&p, "Rank ") || !ncl_num(&p, &r) || !ncl_skip(&p, ": ") || !ncl_num(&p, &k) ||
	    strcmp(p, " Net devices"))
		return 0;
	if (k > lg->hosts[h].net_devs)
		lg->hosts[h].net_devs = (int)k;
	return 1;
}

int ncl_hca_vdev(const struct ncl_host *host, const struct ncl_hca *c)
{
	if (c->fused)
		return c->fused - 1;
	if (host->nhcas == 2 && host->net_devs == 3 && !host->nmerged)
		return 2; /* one vNIC of at least two devices out of two */
	return -1;
}

int ncl_hca_netdev(const struct ncl_host *host, const struct ncl_hca *c)
{
	if (host->nmerged)
		return c->merged >= 0 ? c->merged : c->slot >= 0 ? c->slot : c->index;
	return ncl_hca_vdev(host, c) >= 0 ? ncl_hca_vdev(host, c) : c->index;
}
