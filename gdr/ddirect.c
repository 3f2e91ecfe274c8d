/*
 * mlx5 Data Direct at run time, found as NCCL finds it (src/transport/
 * net_ib/init.cc ncclIbInitDevices, 2.27.3+): for each mlx5 HCA, rdma-core's
 * mlx5dv_get_data_direct_sysfs_path(3) (libmlx5.so.1, symbol version
 * MLX5_1.25, rdma-core providers/mlx5/verbs.c: the kernel's
 * MLX5_IB_METHOD_GET_DATA_DIRECT_SYSFS_PATH) gives the sysfs path of the
 * Data Direct function the HCA DMAs through; 0 on success, ENODEV where the
 * HCA has none, EOPNOTSUPP where the provider or kernel cannot say. The
 * library is loaded at run time (FABCHECK_LIBMLX5 names another): a
 * libibverbs without the mlx5 provider library, or an older one, means no
 * Data Direct, as for NCCL. The answer goes to topo_set_data_direct.
 * GPU memory on such an HCA is registered as NCCL does (net_ib/reg.cc):
 * mlx5dv_reg_dmabuf_mr(3) with MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT (1,
 * rdma-core mlx5_api.h), so the HCA reaches it through the Data Direct
 * function.
 */
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#include "core/fc.h"
#include "core/log.h"
#include "gdr/dl.h"
#include "gdr/gdr.h"

#define MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT 1

struct mlx5dv_api {
	int (*dd_path)(struct ibv_context *ctx, char *buf, size_t len);
	struct ibv_mr *(*reg_dmabuf)(struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova,
				     int fd, int access, int mlx5_access);
};

static const struct fc_dl_sym dd_syms[] = {
	FC_DL_SYM(struct mlx5dv_api, dd_path, 1, "mlx5dv_get_data_direct_sysfs_path"),
	FC_DL_SYM(struct mlx5dv_api, reg_dmabuf, 1, "mlx5dv_reg_dmabuf_mr"),
};

static int mlx5dv_load(struct mlx5dv_api *api, void **h)
{
	const char *lib;
	char err[256];

	if (fc_dl_load(h, &lib, "FABCHECK_LIBMLX5", "libmlx5.so.1", api, dd_syms,
		       FC_ARRAY_SIZE(dd_syms), err, sizeof(err))) {
		fc_dbg("mlx5 Data Direct: %s not usable (%s)", lib, err);
		return -EOPNOTSUPP;
	}
	return 0;
}

struct ibv_mr *gdr_reg_dmabuf_data_direct(struct ibv_pd *pd, uint64_t off, size_t len,
					  uint64_t iova, int fd, int access)
{
	struct mlx5dv_api api = { 0 };
	struct ibv_mr *mr;
	void *h = NULL;
	int err;

	if (mlx5dv_load(&api, &h)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mr = api.reg_dmabuf(pd, off, len, iova, fd, access, MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT);
	err = errno;
	dlclose(h); /* libibverbs holds the provider library: the MR stays usable */
	errno = err;
	return mr;
}

/* The Data Direct path of @dev into @buf: 0, or a positive errno. */
static int dd_path_of(const struct mlx5dv_api *api, struct ibv_device *dev, char *buf,
		      size_t len)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	int r;

	if (!ctx)
		return errno ? errno : ENODEV;
	r = api->dd_path(ctx, buf, len);
	ibv_close_device(ctx);
	return r;
}

int gdr_data_direct_probe(struct topo *t)
{
	struct mlx5dv_api api = { 0 };
	struct ibv_device **list;
	char path[512];
	void *h = NULL;
	int n = 0, found = 0;

	if (!t || !t->nnics || mlx5dv_load(&api, &h))
		return 0;
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		int r;

		/* mlx5 devices only, as NCCL asks only its mlx5 provider */
		if (!name || strncmp(name, "mlx5_", 5) || !topo_find(t, name))
			continue;
		path[0] = '\0';
		r = dd_path_of(&api, list[i], path, sizeof(path));
		if (r == 0 && topo_set_data_direct(t, name, path) == 0)
			found++;
		else if (r == 0)
			fc_warn("mlx5 Data Direct: %s names %s, which is not a PCI function of this host's sysfs; NCCL's %s_dma is left out",
				name, path, name);
		else if (r != ENODEV && r != EOPNOTSUPP && r != EINVAL)
			fc_dbg("mlx5 Data Direct: %s: %s", name, strerror(r));
	}
	if (list)
		ibv_free_device_list(list);
	dlclose(h);
	return found;
}
