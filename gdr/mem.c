/*
 * Memory for the verbs data path: the dispatch over the ops tables, the
 * host backend, registration with the HCA, and --validate fill / verify.
 */
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "gdr/gdr.h"
#include "gdr/numa.h"

#define STAGE_CHUNK (4u << 20) /* staging buffer for GPU fill / verify */

/* ---- host backend ---- */

static int host_init(struct gdr_dev *dev, const struct gdr_gpu_req *req,
		     const struct topo *topo, const char *hca)
{
	(void)req;
	(void)topo;
	(void)hca;
	dev->lib = "";
	return 0;
}

/* The huge page size (Hugepagesize in /proc/meminfo), 2 MiB if unsaid. */
static size_t huge_page_size(void)
{
	char line[128];
	size_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb ? kb << 10 : 2u << 20;
}

static void *host_map(struct gdr_dev *dev, struct gdr_mem *m)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (dev->hugepages ? MAP_HUGETLB : 0);
	void *p = mmap(NULL, m->alloc_len, PROT_READ | PROT_WRITE, flags, -1, 0);

	if (p != MAP_FAILED)
		return p;
	if (dev->hugepages)
		fc_err("--hugepages: cannot map %zu bytes in %zu KiB huge pages: %m; reserve at least %zu huge pages (echo %zu > /proc/sys/vm/nr_hugepages, or hugepages=N on the kernel command line)",
		       m->alloc_len, m->page >> 10, m->alloc_len / m->page, m->alloc_len / m->page);
	else
		fc_err("cannot allocate %zu bytes of host memory: %m", m->alloc_len);
	return NULL;
}

static int host_alloc(struct gdr_dev *dev, struct gdr_mem *m, size_t len)
{
	void *p;

	m->page = dev->hugepages ? huge_page_size() : (size_t)sysconf(_SC_PAGESIZE);
	m->alloc_len = (len + m->page - 1) / m->page * m->page;
	p = host_map(dev, m);
	if (!p)
		return -ENOMEM;
	/* On the HCA's node, before the first touch places the pages. */
	if (dev->numa_node >= 0 && dev->numa_node < 64) {
		unsigned long mask = 1UL << dev->numa_node;

		if (mbind(p, m->alloc_len, MPOL_PREFERRED, &mask, 64, 0))
			fc_warn("cannot place the buffer on NUMA node %d: %m", dev->numa_node);
	}
	/* Touch every page now so the first timed pass does not fault. */
	memset(p, 0, m->alloc_len);
	m->base = p;
	m->iova = (uint64_t)(uintptr_t)p;
	m->numa_node = gdr_numa_of_addr(p);
	return 0;
}

static void host_free(struct gdr_mem *m)
{
	munmap(m->base, m->alloc_len);
}

static int host_copy_from(struct gdr_mem *m, uint64_t off, const void *src, size_t len)
{
	memcpy((char *)m->base + off, src, len);
	return 0;
}

static int host_copy_to(struct gdr_mem *m, void *dst, uint64_t off, size_t len)
{
	memcpy(dst, (char *)m->base + off, len);
	return 0;
}

static int host_sync(struct gdr_dev *dev)
{
	(void)dev;
	return 0;
}

static int host_reg(struct gdr_mem *m, struct ibv_pd *pd, int access,
		    enum gdr_reg_method method, char *why, size_t whylen)
{
	(void)method;
	m->mr = ibv_reg_mr(pd, m->base, m->len, access);
	if (!m->mr) {
		int err = errno ? errno : EINVAL;

		snprintf(why, whylen, "ibv_reg_mr of %zu bytes of host memory: %s", m->len,
			 strerror(err));
		return -err;
	}
	return 0;
}

static void host_release(struct gdr_dev *dev)
{
	(void)dev;
}

const struct gdr_ops gdr_host_ops = {
	.name = "host",
	.init = host_init,
	.alloc = host_alloc,
	.free = host_free,
	.copy_from_host = host_copy_from,
	.copy_to_host = host_copy_to,
	.sync = host_sync,
	.reg = host_reg,
	.release = host_release,
};

/* ---- dispatch ---- */

int gdr_dev_open(struct gdr_dev *dev, enum gdr_kind kind, enum gdr_mode mode,
		 const struct gdr_gpu_req *req, const struct topo *topo, const char *hca)
{
	struct gdr_gpu_req nearest = { .how = GDR_GPU_NEAREST };
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->kind = kind;
	dev->mode = mode;
	dev->ops = kind == GDR_CUDA ? &gdr_cuda_ops : &gdr_host_ops;
	dev->gpu.index = -1;
	dev->numa_node = -1;
	ret = dev->ops->init(dev, req ? req : &nearest, topo, hca);
	if (ret) {
		/* init logs; keep the message for JSON reports. */
		dev->ops = NULL;
	}
	return ret;
}

void gdr_dev_close(struct gdr_dev *dev)
{
	if (dev->ops)
		dev->ops->release(dev);
	free(dev->gpus);
	dev->gpus = NULL;
	dev->ops = NULL;
}

int gdr_mem_alloc(struct gdr_dev *dev, struct gdr_mem *m, size_t len)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->dev = dev;
	m->dmabuf_fd = -1;
	m->numa_node = -1;
	m->len = len;
	if (!len) {
		fc_err("cannot allocate 0 bytes of %s memory", dev->ops->name);
		return -EINVAL;
	}
	ret = dev->ops->alloc(dev, m, len);
	if (ret)
		m->dev = NULL;
	return ret;
}

void gdr_mem_free(struct gdr_mem *m)
{
	if (!m->dev)
		return;
	gdr_mem_dereg(m);
	m->dev->ops->free(m);
	m->dev = NULL;
	m->base = NULL;
}

typedef struct ibv_mr *(*reg_dmabuf_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);

/* ibv_reg_dmabuf_mr, looked up at run time: rdma-core added it in 34
 * (IBVERBS_1.12), and a binary that imported it would not start on older
 * ones. NULL when this libibverbs lacks it. */
static reg_dmabuf_fn reg_dmabuf_sym(void)
{
	static reg_dmabuf_fn fn;
	static int looked;

	if (!looked) {
		fn = (reg_dmabuf_fn)dlsym(RTLD_DEFAULT, "ibv_reg_dmabuf_mr");
		looked = 1;
	}
	return fn;
}

struct ibv_mr *gdr_ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len,
				     uint64_t iova, int fd, int access)
{
	reg_dmabuf_fn fn = reg_dmabuf_sym();

	if (!fn) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return fn(pd, off, len, iova, fd, access);
}

int gdr_verbs_dmabuf_supported(struct ibv_pd *pd)
{
	struct ibv_mr *mr;

	if (!reg_dmabuf_sym())
		return -2;
	/* fd -1 is refused with EBADF where dma-buf MRs exist at all. */
	errno = 0;
	mr = gdr_ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
	if (mr) {
		ibv_dereg_mr(mr);
		return 1;
	}
	return errno != EOPNOTSUPP && errno != EPROTONOSUPPORT;
}

static const char *reg_fix(enum gdr_reg_method method, int err)
{
	if (err == ENOMEM || err == EAGAIN)
		return "raise the locked-memory limit (ulimit -l unlimited, or LimitMEMLOCK=infinity for the service)";
	switch (method) {
	case GDR_REG_DMABUF:
		return "check that the HCA driver takes dma-buf (mlx5 on Linux 5.12+ and rdma-core 34+), or use --gdr peermem with nvidia_peermem loaded";
	case GDR_REG_PEERMEM:
		return "check that nvidia_peermem matches the running NVIDIA driver (modprobe -r nvidia-peermem; modprobe nvidia-peermem) and see dmesg";
	default:
		return "check the HCA and the memory limits (ulimit -l) and see dmesg";
	}
}

/* Decides how GPU memory is registered on @pd; logs the error. */
static int plan_cuda_reg(struct gdr_mem *m, struct ibv_pd *pd, const char *node)
{
	struct gdr_reg_inputs in = {
		.mode = m->dev->mode,
		.driver_version = m->dev->driver_version,
		.cuda_export = m->dev->cuda_export,
		.cuda_dmabuf = m->dev->gpu.dmabuf,
		.verbs_dmabuf = gdr_verbs_dmabuf_supported(pd),
		.peermem = gdr_peermem_loaded(gdr_sysfs_root(), NULL, 0),
	};
	int ret = gdr_reg_decide(&in, &m->plan);

	if (ret && node)
		fc_err("node %s: %s", node, m->plan.msg);
	else if (ret)
		fc_err("%s", m->plan.msg);
	return ret;
}

/* Registers with relaxed PCIe ordering (as perftest does by default); a
 * device that refuses the flag gets the registration without, said in
 * m->reg_note. */
static int reg_relaxed(struct gdr_mem *m, struct ibv_pd *pd, int access,
		       enum gdr_reg_method method, char *why, size_t whylen)
{
	int ret = m->dev->ops->reg(m, pd, access | IBV_ACCESS_RELAXED_ORDERING, method, why,
				   whylen);

	m->relaxed = !ret;
	if (!ret)
		return 0;
	ret = m->dev->ops->reg(m, pd, access, method, why, whylen);
	if (!ret) {
		snprintf(m->reg_note, sizeof(m->reg_note),
			 "relaxed ordering refused by the device: registered without it");
		fc_info("%s", m->reg_note);
	}
	return ret;
}

int gdr_mem_reg_plan(struct gdr_mem *m, struct ibv_pd *pd, int access,
		     const struct gdr_reg_plan *plan, const char *node, const char *devname)
{
	enum gdr_reg_method tries[2] = { plan->first, plan->second };
	char why[384];
	int ret = -EINVAL;

	if (plan != &m->plan)
		m->plan = *plan;
	for (int i = 0; i < 2 && tries[i] != GDR_REG_NONE; i++) {
		why[0] = 0;
		ret = reg_relaxed(m, pd, access, tries[i], why, sizeof(why));
		if (!ret) {
			m->method = tries[i];
			return 0;
		}
		if (i == 0 && tries[1] != GDR_REG_NONE) {
			fc_warn("%s%s%sdevice %s: %s registration refused (%s); trying %s",
				node ? "node " : "", node ? node : "", node ? ", " : "", devname,
				gdr_method_name(tries[0]), why, gdr_method_name(tries[1]));
			continue;
		}
		fc_err("%s%s%sdevice %s: registration refused: %s (errno %d); fix: %s",
		       node ? "node " : "", node ? node : "", node ? ", " : "", devname, why, -ret,
		       reg_fix(tries[i], -ret));
	}
	return ret;
}

int gdr_mem_reg(struct gdr_mem *m, struct ibv_pd *pd, int access, const char *node,
		const char *devname)
{
	struct gdr_reg_plan host = { .first = GDR_REG_HOST, .second = GDR_REG_NONE };
	int ret;

	if (m->dev->kind == GDR_HOST)
		return gdr_mem_reg_plan(m, pd, access, &host, node, devname);
	ret = plan_cuda_reg(m, pd, node);
	return ret ? ret : gdr_mem_reg_plan(m, pd, access, &m->plan, node, devname);
}

void gdr_mem_dereg(struct gdr_mem *m)
{
	if (m->mr) {
		ibv_dereg_mr(m->mr);
		m->mr = NULL;
	}
	if (m->dmabuf_fd >= 0) {
		close(m->dmabuf_fd);
		m->dmabuf_fd = -1;
	}
	m->method = GDR_REG_NONE;
}

uint32_t gdr_mem_lkey(const struct gdr_mem *m)
{
	return m->mr ? m->mr->lkey : 0;
}

uint32_t gdr_mem_rkey(const struct gdr_mem *m)
{
	return m->mr ? m->mr->rkey : 0;
}

const char *gdr_mem_describe(const struct gdr_mem *m, char *buf, size_t len)
{
	if (!m->dev || m->dev->kind == GDR_HOST)
		snprintf(buf, len, "host");
	else
		snprintf(buf, len, "cuda:%d (%s)", m->dev->gpu.index,
			 m->method == GDR_REG_NONE ? "not registered" : gdr_method_name(m->method));
	return buf;
}

static int check_range(const struct gdr_mem *m, uint64_t off, size_t len)
{
	if (off > m->len || len > m->len - off) {
		fc_err("range %llu+%zu is outside the %zu-byte buffer", (unsigned long long)off,
		       len, m->len);
		return -ERANGE;
	}
	return 0;
}

/* Fills [off, off + len) with the pattern bytes of offsets [pat, pat + len). */
static int fill_as(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed, uint64_t pat)
{
	size_t chunk = len < STAGE_CHUNK ? len : STAGE_CHUNK;
	void *stage;
	int ret = check_range(m, off, len);

	if (ret || !len)
		return ret;
	if (m->dev->kind == GDR_HOST) {
		gdr_pattern_fill((char *)m->base + off, pat, len, seed);
		return 0;
	}
	stage = malloc(chunk);
	if (!stage)
		return -ENOMEM;
	for (size_t done = 0; done < len && !ret; done += chunk) {
		size_t n = len - done < chunk ? len - done : chunk;

		gdr_pattern_fill(stage, pat + done, n, seed);
		ret = m->dev->ops->copy_from_host(m, off + done, stage, n);
	}
	free(stage);
	return ret;
}

/* 0 match, 1 mismatch (*bad_p = first bad pattern offset), or -errno. */
static int verify_as(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed, uint64_t pat,
		     uint64_t *bad_p)
{
	size_t chunk = len < STAGE_CHUNK ? len : STAGE_CHUNK;
	int64_t bad = -1;
	void *stage;
	int ret = check_range(m, off, len);

	if (ret || !len)
		return ret;
	if (m->dev->kind == GDR_HOST) {
		bad = gdr_pattern_check((char *)m->base + off, pat, len, seed);
		goto out;
	}
	stage = malloc(chunk);
	if (!stage)
		return -ENOMEM;
	for (size_t done = 0; done < len && bad < 0; done += chunk) {
		size_t n = len - done < chunk ? len - done : chunk;

		ret = m->dev->ops->copy_to_host(m, stage, off + done, n);
		if (ret)
			break;
		bad = gdr_pattern_check(stage, pat + done, n, seed);
	}
	free(stage);
	if (ret)
		return ret;
out:
	if (bad < 0)
		return 0;
	*bad_p = (uint64_t)bad;
	return 1;
}

int gdr_mem_fill(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed)
{
	return fill_as(m, off, len, seed, off);
}

int gdr_mem_verify(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed,
		   uint64_t *bad_off_p)
{
	return verify_as(m, off, len, seed, off, bad_off_p);
}

int gdr_mem_host_accessible(const struct gdr_mem *m)
{
	return m->dev && m->dev->kind == GDR_HOST;
}
