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

#include "core/util.h"
#include "gdr/gdr.h"

const char *gdr_sysfs_root(void)
{
	return fc_sysfs_root();
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
	for (int i = 0; i < n; i++) {
		const struct topo_dev *g = topo ? topo_find(topo, gpus[i].bus_id) : NULL;

		gpus[i].dist = g && hca ? topo_gdr_distance(g, topo_find(topo, hca)) : TOPO_UNKNOWN;
		gpus[i].c2c = g && g->c2c;
	}
}

int gdr_gpu_spread(const struct gdr_gpu_info *gpus, int n, const struct topo *topo,
		   const char *hca, int pos)
{
	const struct topo_dev *g = topo ? topo_nccl_nic_gpu(topo, hca) : NULL;
	char bdf[TOPO_BDF_LEN];

	for (int i = 0; g && i < n; i++)
		if (topo_bdf_norm(gpus[i].bus_id, bdf) == 0 && !strcmp(bdf, g->bdf))
			return i;
	return pos;
}

int gdr_nearest_hca(const struct topo *topo, const char *bus_id, char *buf, size_t len)
{
	const struct topo_dev *nic = topo ? topo_nccl_gpu_nic(topo, bus_id, 0) : NULL;

	if (!nic)
		return -ENOENT;
	snprintf(buf, len, "%s", nic->name);
	return 0;
}

const char *gdr_nccl_nic(const struct topo *topo, const char *bus_id, char *buf, size_t len)
{
	const struct topo_dev *nic = topo ? topo_nccl_gpu_nic(topo, bus_id, 0) : NULL;

	return nic ? topo_nccl_name(nic, buf, len) : NULL;
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
		if (dev->gpus[i].index == dev->gpu.index) {
			dev->gpu.dist = dev->gpus[i].dist;
			dev->gpu.c2c = dev->gpus[i].c2c;
		}
	dev->data_direct = gdr_hca_data_direct(topo, hca);
	gdr_dev_set_path(dev);
}

int gdr_hca_data_direct(const struct topo *topo, const char *hca)
{
	const struct topo_dev *n = topo && hca ? topo_find(topo, hca) : NULL;

	return n && n->kind == TOPO_KIND_NIC && n->dd;
}

void gdr_dev_set_path(struct gdr_dev *dev)
{
	const struct gdr_gpu_info *g = &dev->gpu;

	dev->dmabuf_pcie = topo_nccl_pcie_map(g->dist, g->c2c);
	gdr_dev_set_flush(dev, g->c2c && g->dist <= TOPO_PXB);
}

void gdr_dev_set_flush(struct gdr_dev *dev, int c2c_near)
{
	struct gdr_flush_in in = {
		.cuda_sym = dev->gdr_flush, .flush_opts = dev->gpu.flush_opts,
		.wr_order = dev->gpu.wr_order, .c2c_near = c2c_near,
	};

	dev->flush = gdr_flush_decide(&in, dev->flush_why, sizeof(dev->flush_why));
}
