/*
 * CUDA memory through the driver API, loaded at run time by gdr/cudrv.c: one
 * binary runs with and without a GPU (attributes and flags in gdr/cudrv.h).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "gdr/cudrv.h"
#include "gdr/gdr.h"

#define GPU_PAGE (64u << 10) /* allocations rounded to GPU pages */

struct cuda_state {
	struct fc_cuda api;
	fc_cudev cudev;
	fc_cuctx ctx;
};

static const char *node_name(void)
{
	static char host[256];

	if (!host[0] && gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "this node");
	return host;
}

/* Records why opening failed (for reports), logs it once, returns @ret. */
static int __attribute__((format(printf, 3, 4)))
open_fail(struct gdr_dev *dev, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->err, sizeof(dev->err), fmt, ap);
	va_end(ap);
	fc_err("%s", dev->err);
	return ret;
}

static int cuda_load(struct gdr_dev *dev, struct cuda_state *st)
{
	char err[512];
	int ret = fc_cuda_load(&st->api, err, sizeof(err));

	dev->lib = st->api.path;
	if (ret == -ENOENT)
		return open_fail(dev, ret,
				 "cannot load %s on %s (%s): the NVIDIA driver is not installed; fix: install the NVIDIA driver, or, in a bandwidth test, drop --use-cuda to test from host memory",
				 dev->lib, node_name(), err);
	if (ret)
		return open_fail(dev, ret,
				 "%s on %s has no %s: the NVIDIA driver is too old; fix: update the NVIDIA driver",
				 dev->lib, node_name(), err);
	dev->cuda_export = st->api.range_handle != NULL;
	dev->gdr_flush = st->api.flush_rdma != NULL;
	return 0;
}

static int cuda_start(struct gdr_dev *dev, struct cuda_state *st)
{
	const struct fc_cuda *api = &st->api;
	char e[256];
	fc_cures r;
	int n = 0;

	r = api->init(0);
	if (r == FC_CUDA_ERROR_NO_DEVICE)
		return open_fail(dev, -ENODEV,
				 "no CUDA device on %s (cuInit: %s); fix: check nvidia-smi and the driver, or, in a bandwidth test, drop --use-cuda",
				 node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
	if (r == FC_CUDA_ERROR_STUB_LIBRARY)
		return open_fail(dev, -ENOENT,
				 "%s on %s is the CUDA toolkit's stub, not the driver (cuInit: %s); fix: install the NVIDIA driver, or drop the stubs folder from LD_LIBRARY_PATH",
				 dev->lib, node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
	if (r != FC_CUDA_SUCCESS && *fc_cuda_init_advice(r))
		return open_fail(dev, -EIO, "cuInit failed on %s: %s%s", node_name(),
				 fc_cuda_strerror(api, r, e, sizeof(e)), fc_cuda_init_advice(r));
	if (r != FC_CUDA_SUCCESS)
		return open_fail(dev, -EIO,
				 "cuInit failed on %s: %s; fix: check nvidia-smi and dmesg (driver and kernel module versions must match)",
				 node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
	if (api->driver_version(&dev->driver_version) != FC_CUDA_SUCCESS)
		dev->driver_version = 0;
	r = api->device_count(&n);
	if (r != FC_CUDA_SUCCESS || n <= 0)
		return open_fail(dev, -ENODEV,
				 "no CUDA device on %s (cuDeviceGetCount: %s, %d devices); fix: check nvidia-smi, or, in a bandwidth test, drop --use-cuda",
				 node_name(), r ? fc_cuda_strerror(api, r, e, sizeof(e)) : "ok", n);
	dev->ngpus = n;
	return 0;
}

/* Compute capability and the GPUDirect flush attributes (-1 unknown). */
static void list_flush_attrs(const struct fc_cuda *api, struct gdr_gpu_info *g, fc_cudev d)
{
	int ma = 0, mi = 0;

	if (api->device_attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) ||
	    api->device_attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d))
		ma = mi = 0;
	g->cc = ma * 10 + mi;
	if (api->device_attr(&g->flush_opts, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, d))
		g->flush_opts = -1;
	if (api->device_attr(&g->wr_order, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, d))
		g->wr_order = -1;
}

/* Fills dev->gpus with what the driver says about each GPU. */
static int cuda_list(struct gdr_dev *dev, struct cuda_state *st, const struct topo *topo,
		     const char *hca)
{
	const struct fc_cuda *api = &st->api;
	char e[256];
	fc_cudev d;
	fc_cures r;

	dev->gpus = calloc((size_t)dev->ngpus, sizeof(*dev->gpus));
	if (!dev->gpus)
		return open_fail(dev, -ENOMEM, "out of memory listing %d GPUs", dev->ngpus);
	for (int i = 0; i < dev->ngpus; i++) {
		struct gdr_gpu_info *g = &dev->gpus[i];

		g->index = i;
		r = api->device_get(&d, i);
		if (!r)
			r = api->device_bus_id(g->bus_id, (int)sizeof(g->bus_id), d);
		if (r)
			return open_fail(dev, -EIO, "cannot query GPU %d on %s: %s", i,
					 node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
		if (api->device_name(g->name, (int)sizeof(g->name), d))
			snprintf(g->name, sizeof(g->name), "?");
		/* Drivers older than the attribute answer INVALID_VALUE: no. */
		if (api->device_attr(&g->dmabuf, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d))
			g->dmabuf = 0;
		if (api->device_attr(&g->gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, d))
			g->gdr = 0;
		list_flush_attrs(api, g, d);
	}
	gdr_gpu_distances(dev->gpus, dev->ngpus, topo, hca);
	return 0;
}

static int cuda_select(struct gdr_dev *dev, struct cuda_state *st, const struct gdr_gpu_req *req,
		       const struct topo *topo, const char *hca)
{
	const struct fc_cuda *api = &st->api;
	char why[384], e[256];
	fc_cures r;
	int pos;

	pos = gdr_gpu_pick(dev->gpus, dev->ngpus, req, why, sizeof(why));
	if (pos >= 0 && req->how == GDR_GPU_NEAREST && hca)
		pos = gdr_gpu_spread(dev->gpus, dev->ngpus, topo, hca, pos);
	if (pos < 0)
		return open_fail(dev, -ENXIO, "%s on %s; fix: pick one of those with --use-cuda=N or =BUS_ID",
				 why, node_name());
	dev->gpu = dev->gpus[pos];
	dev->data_direct = gdr_hca_data_direct(topo, hca);
	gdr_dev_set_path(dev);
	r = api->device_get(&st->cudev, dev->gpu.index);
	if (!r)
		r = api->ctx_retain(&st->ctx, st->cudev);
	if (r)
		return open_fail(dev, -EIO,
				 "cannot create a context on GPU %d (%s) on %s: %s; fix: check nvidia-smi (compute mode, other processes)",
				 dev->gpu.index, dev->gpu.bus_id, node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
	r = api->ctx_set_current(st->ctx);
	if (r) {
		api->ctx_release(st->cudev);
		st->ctx = NULL;
		return open_fail(dev, -EIO, "cannot use the context of GPU %d on %s: %s",
				 dev->gpu.index, node_name(), fc_cuda_strerror(api, r, e, sizeof(e)));
	}
	return 0;
}

static int cuda_init(struct gdr_dev *dev, const struct gdr_gpu_req *req,
		     const struct topo *topo, const char *hca)
{
	struct cuda_state *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return open_fail(dev, -ENOMEM, "out of memory");
	ret = cuda_load(dev, st);
	if (ret)
		goto out_free;
	ret = cuda_start(dev, st);
	if (!ret)
		ret = cuda_list(dev, st, topo, hca);
	if (!ret)
		ret = cuda_select(dev, st, req, topo, hca);
	if (ret)
		goto out_close;
	dev->priv = st;
	return 0;
out_close:
	free(dev->gpus);
	dev->gpus = NULL;
	fc_cuda_unload(&st->api);
out_free:
	free(st);
	return ret;
}

static void cuda_release(struct gdr_dev *dev)
{
	struct cuda_state *st = dev->priv;

	if (!st)
		return;
	if (st->ctx)
		st->api.ctx_release(st->cudev);
	fc_cuda_unload(&st->api);
	free(st);
	dev->priv = NULL;
}

static struct cuda_state *state_of(const struct gdr_mem *m)
{
	return m->dev->priv;
}

static int cuda_alloc(struct gdr_dev *dev, struct gdr_mem *m, size_t len)
{
	struct cuda_state *st = dev->priv;
	fc_cuptr p = 0;
	char e[256];
	fc_cures r;

	m->alloc_len = (len + GPU_PAGE - 1) / GPU_PAGE * GPU_PAGE;
	r = st->api.mem_alloc(&p, m->alloc_len);
	if (r) {
		fc_err("cannot allocate %zu bytes on GPU %d (%s) on %s: %s%s", m->alloc_len,
		       dev->gpu.index, dev->gpu.bus_id, node_name(), fc_cuda_strerror(&st->api, r, e, sizeof(e)),
		       r == FC_CUDA_ERROR_OUT_OF_MEMORY ? "; fix: use a smaller --size or free the GPU" : "");
		return r == FC_CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	m->base = (void *)(uintptr_t)p;
	m->iova = p;
	return 0;
}

static void cuda_free(struct gdr_mem *m)
{
	state_of(m)->api.mem_free((fc_cuptr)m->iova);
}

static int cuda_copy_from(struct gdr_mem *m, uint64_t off, const void *src, size_t len)
{
	const struct fc_cuda *api = &state_of(m)->api;
	char e[256];
	fc_cures r = api->memcpy_htod((fc_cuptr)(m->iova + off), src, len);

	if (r) {
		fc_err("copy of %zu bytes to GPU %d failed: %s", len, m->dev->gpu.index,
		       fc_cuda_strerror(api, r, e, sizeof(e)));
		return -EIO;
	}
	return 0;
}

static int cuda_copy_to(struct gdr_mem *m, void *dst, uint64_t off, size_t len)
{
	const struct fc_cuda *api = &state_of(m)->api;
	char e[256];
	fc_cures r = api->memcpy_dtoh(dst, (fc_cuptr)(m->iova + off), len);

	if (r) {
		fc_err("copy of %zu bytes from GPU %d failed: %s", len, m->dev->gpu.index,
		       fc_cuda_strerror(api, r, e, sizeof(e)));
		return -EIO;
	}
	return 0;
}

static int cuda_sync(struct gdr_dev *dev)
{
	struct cuda_state *st = dev->priv;
	char e[256];
	fc_cures r = st->api.ctx_sync();

	if (r) {
		fc_err("GPU %d on %s: cuCtxSynchronize: %s", dev->gpu.index, node_name(),
		       fc_cuda_strerror(&st->api, r, e, sizeof(e)));
		return -EIO;
	}
	return 0;
}

int gdr_cuda_export_dmabuf(struct gdr_mem *m, uint64_t *offset_p)
{
	const struct fc_cuda *api = &state_of(m)->api;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	fc_cuptr start = m->iova & ~(pg - 1);
	uint64_t off = m->iova - start;
	size_t span = (size_t)((m->len + off + pg - 1) & ~(pg - 1));
	char e[256];
	int fd = -1;
	fc_cures r;

	if (!api->range_handle) {
		fc_err("the CUDA driver has no cuMemGetHandleForAddressRange (needs 11.7 or newer)");
		return -EOPNOTSUPP;
	}
	/* The range must start and end on host pages. The PCIe mapping only
	 * where NCCL asks for it (net_ib, mode "PCI": a C2C GPU, the NIC on
	 * PCIe), first; the default mapping otherwise or as the fallback. */
	r = m->dev->dmabuf_pcie ? api->range_handle(&fd, start, span, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
						    CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE) : 1;
	if ((r || fd < 0) && m->dev->dmabuf_pcie) {
		snprintf(m->reg_note, sizeof(m->reg_note),
			 "the driver has no PCIe mapping type for dma-buf: default mapping");
	}
	if (r || fd < 0) {
		fd = -1;
		r = api->range_handle(&fd, start, span, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	}
	if (r || fd < 0) {
		fc_err("cuMemGetHandleForAddressRange on GPU %d (%zu bytes): %s", m->dev->gpu.index,
		       span, fc_cuda_strerror(api, r, e, sizeof(e)));
		return r == FC_CUDA_ERROR_INVALID_VALUE || !r ? -EINVAL : -EOPNOTSUPP;
	}
	*offset_p = off;
	return fd;
}

static int reg_dmabuf(struct gdr_mem *m, struct ibv_pd *pd, int access, char *why, size_t len)
{
	uint64_t off = 0;
	int fd = gdr_cuda_export_dmabuf(m, &off), err;

	if (fd < 0) {
		snprintf(why, len, "cuMemGetHandleForAddressRange on GPU %d refused the export",
			 m->dev->gpu.index);
		return fd;
	}
	/* A Data Direct HCA: through its DMA function, as NCCL (net_ib/reg.cc). */
	m->mr = m->dev->data_direct ?
			gdr_reg_dmabuf_data_direct(pd, off, m->len, m->iova, fd, access) : NULL;
	if (!m->mr && m->dev->data_direct)
		snprintf(m->reg_note, sizeof(m->reg_note),
			 "mlx5dv_reg_dmabuf_mr with DATA_DIRECT refused (%s): plain dma-buf MR",
			 strerror(errno));
	if (!m->mr)
		m->mr = gdr_ibv_reg_dmabuf_mr(pd, off, m->len, m->iova, fd, access);
	if (!m->mr) {
		err = errno ? errno : EINVAL;
		close(fd);
		snprintf(why, len, "ibv_reg_dmabuf_mr of %zu bytes of GPU %d memory: %s", m->len,
			 m->dev->gpu.index, strerror(err));
		return -err;
	}
	m->dmabuf_fd = fd;
	return 0;
}

static int reg_peermem(struct gdr_mem *m, struct ibv_pd *pd, int access, char *why, size_t len)
{
	int err;

	m->mr = ibv_reg_mr(pd, m->base, m->len, access);
	if (!m->mr) {
		err = errno ? errno : EINVAL;
		snprintf(why, len, "ibv_reg_mr of %zu bytes of GPU %d memory (peermem): %s", m->len,
			 m->dev->gpu.index, strerror(err));
		return -err;
	}
	return 0;
}

/* Keeps CUDA copies ordered with the HCA's accesses, as NCCL does, on
 * either registration path. */
static void sync_memops(struct gdr_mem *m)
{
	const struct fc_cuda *api = &state_of(m)->api;
	unsigned int one = 1;

	if (!api->pointer_set_attr ||
	    api->pointer_set_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (fc_cuptr)m->iova))
		fc_warn("GPU %d: cannot set SYNC_MEMOPS on the buffer", m->dev->gpu.index);
}

static int cuda_flush(struct gdr_dev *dev)
{
	struct cuda_state *st = dev->priv;
	char e[256];
	fc_cures r;

	/* Otherwise the caller flushes another way, or none is needed
	 * (gdr_dev.flush, gdr_flush_decide). */
	if (!st->api.flush_rdma || dev->flush != GDR_FLUSH_CUDA)
		return 0;
	r = st->api.flush_rdma(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
			       CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
	if (r) {
		fc_err("GPU %d on %s: cuFlushGPUDirectRDMAWrites: %s", dev->gpu.index, node_name(),
		       fc_cuda_strerror(&st->api, r, e, sizeof(e)));
		return -EIO;
	}
	return 0;
}

static int cuda_bind(struct gdr_dev *dev)
{
	struct cuda_state *st = dev->priv;
	char e[256];
	fc_cures r = st->api.ctx_set_current(st->ctx);

	if (r) {
		fc_err("GPU %d on %s: cuCtxSetCurrent: %s", dev->gpu.index, node_name(),
		       fc_cuda_strerror(&st->api, r, e, sizeof(e)));
		return -EIO;
	}
	return 0;
}

static int cuda_reg(struct gdr_mem *m, struct ibv_pd *pd, int access,
		    enum gdr_reg_method method, char *why, size_t whylen)
{
	sync_memops(m);
	if (method == GDR_REG_DMABUF)
		return reg_dmabuf(m, pd, access, why, whylen);
	if (method == GDR_REG_PEERMEM)
		return reg_peermem(m, pd, access, why, whylen);
	snprintf(why, whylen, "GPU memory cannot be registered as %s", gdr_method_name(method));
	return -EINVAL;
}

const struct gdr_ops gdr_cuda_ops = {
	.name = "cuda",
	.init = cuda_init,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.copy_from_host = cuda_copy_from,
	.copy_to_host = cuda_copy_to,
	.sync = cuda_sync,
	.flush = cuda_flush,
	.bind = cuda_bind,
	.reg = cuda_reg,
	.release = cuda_release,
};

void *gdr_staging_alloc(struct gdr_dev *dev, size_t len, int *pinned_p)
{
	struct cuda_state *st = dev->kind == GDR_CUDA ? dev->priv : NULL;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p = NULL;

	*pinned_p = 0;
	if (st && st->api.host_alloc && st->api.host_free &&
	    st->api.host_alloc(&p, len) == FC_CUDA_SUCCESS && p) {
		*pinned_p = 1;
		return p;
	}
	p = aligned_alloc(pg, (len + pg - 1) / pg * pg);
	if (!p)
		fc_err("cannot allocate a %zu-byte host buffer: %m", len);
	return p;
}

void gdr_staging_free(struct gdr_dev *dev, void *p, int pinned)
{
	struct cuda_state *st = dev->kind == GDR_CUDA ? dev->priv : NULL;

	if (pinned && st)
		st->api.host_free(p);
	else
		free(p);
}
