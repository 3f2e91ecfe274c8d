/*
 * What the gdr module asks of this host besides the driver: the PCIe
 * distance between GPUs and HCAs (through the shared topology code in
 * checks/pcitopo) and whether a peer-memory module is loaded.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdr/gdr.h"

const char *gdr_sysfs_root(void)
{
	const char *env = getenv("FABCHECK_SYSFS");

	return env && *env ? env : "/sys";
}

struct topo *gdr_topo_load(void)
{
	char path[PATH_MAX];
	struct topo *t = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", gdr_sysfs_root());
	if (stat(path, &st) || topo_load(gdr_sysfs_root(), &t))
		return NULL;
	return t;
}

void gdr_gpu_distances(struct gdr_gpu_info *gpus, int n, const struct topo *topo,
		       const char *hca)
{
	for (int i = 0; i < n; i++)
		gpus[i].dist = topo && hca ? topo_distance(topo, gpus[i].bus_id, hca) :
					     TOPO_UNKNOWN;
}

/* Which of @gpus are nearest @nic (a bit per position, the first 64) and at
 * what distance. */
static uint64_t nearest_set(const struct gdr_gpu_info *gpus, int n, const struct topo *topo,
			    const char *nic, enum topo_dist *dist_p)
{
	enum topo_dist best = TOPO_UNKNOWN;
	uint64_t set = 0;

	for (int i = 0; i < n && i < 64; i++) {
		enum topo_dist d = topo_distance(topo, gpus[i].bus_id, nic);

		if (d < best) {
			best = d;
			set = 0;
		}
		if (d == best && d != TOPO_UNKNOWN)
			set |= 1ULL << i;
	}
	*dist_p = best;
	return set;
}

int gdr_gpu_spread(const struct gdr_gpu_info *gpus, int n, const struct topo *topo,
		   const char *hca, int pos)
{
	const struct topo_dev *me = topo ? topo_find(topo, hca) : NULL, *nic;
	enum topo_dist d, dn;
	uint64_t set = me ? nearest_set(gpus, n, topo, me->name, &d) : 0;
	int rank = 0, tied = __builtin_popcountll(set);

	if (tied < 2 || !(set >> pos & 1))
		return pos;
	for (int j = 0; (nic = topo_nic(topo, j)); j++)
		if (strcmp(nic->name, me->name) < 0 && nearest_set(gpus, n, topo, nic->name, &dn) == set &&
		    dn == d)
			rank++;
	rank %= tied;
	for (int i = 0; i < n && i < 64; i++)
		if (set >> i & 1 && !rank--)
			return i;
	return pos;
}

int gdr_nearest_hca(const struct topo *topo, const char *bus_id, char *buf, size_t len)
{
	const struct topo_dev *nic;

	if (!topo || topo_nearest_nics(topo, bus_id, &nic, 1, NULL) < 1)
		return -ENOENT;
	snprintf(buf, len, "%s", nic->name);
	return 0;
}

int gdr_peermem_loaded(const char *sysfs, char *seen, size_t len)
{
	char how[128];

	if (!topo_peermem_probe(sysfs, how, sizeof(how)))
		return 0;
	if (seen)
		snprintf(seen, len, "%s/%s", sysfs, how);
	return 1;
}

void gdr_dev_set_hca(struct gdr_dev *dev, const struct topo *topo, const char *hca)
{
	if (!dev->gpus)
		return;
	gdr_gpu_distances(dev->gpus, dev->ngpus, topo, hca);
	for (int i = 0; i < dev->ngpus; i++)
		if (dev->gpus[i].index == dev->gpu.index)
			dev->gpu.dist = dev->gpus[i].dist;
}
