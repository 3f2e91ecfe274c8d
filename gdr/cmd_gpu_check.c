/*
 * fabcheck gpu-check: a self-check of GPU memory for GPUDirect RDMA on this
 * node. Allocates GPU memory, fills it, exports it as a dma-buf, copies it
 * back and verifies it, times the copies, and registers it with an HCA
 * where there is one. Exits 3 where there is no GPU.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "gdr/gdr.h"
#include "src/cmds.h"

const char usage_gpu_check[] =
	"usage: fabcheck gpu-check [--gpu N|BUS_ID] [--size S] [--iters N] [-d DEV]\n"
	"                          [--gdr auto|dmabuf|peermem] [--json]\n"
	"       fabcheck gpu-check --from BUNDLE [--gpu N|BUS_ID] [-d DEV] [--json]\n"
	"\n"
	"Checks GPU memory for GPUDirect RDMA on this node: lists the GPUs, then on\n"
	"the chosen one allocates --size bytes, fills them from the host, exports them\n"
	"as a dma-buf, copies them back and verifies every byte (first bad offset on a\n"
	"mismatch), times the copies in both directions, and registers the memory with\n"
	"the HCA (dma-buf first, then peermem) where there is one.\n"
	"\n"
	"  --gpu N|BUS_ID   GPU by index or PCI bus id (default: nearest the HCA)\n"
	"  -s, --size S     buffer size, K/M/G suffixes (default 64M)\n"
	"  -n, --iters N    timed copies each way (default 5, after one warm-up)\n"
	"  -d, --device DEV HCA for the registration and the distance (default: first)\n"
	"  --gdr MODE       registration: auto (dma-buf, then peermem), dmabuf, peermem\n"
	"  --from BUNDLE    a node capture (fabcheck capture): the pairing only, without\n"
	"                   a GPU: the GPU (N in bus order, as nvidia-smi numbers them),\n"
	"                   its HCA and their PCIe distance, judged as here\n"
	"  -j, --json       one JSON document on stdout\n"
	"  -h, --help       this text\n"
	"\n"
	"The CUDA driver is loaded at run time from libcuda.so.1. FABCHECK_LIBCUDA=PATH\n"
	"loads another library instead (a test and diagnostic hook), FABCHECK_SYSFS=DIR\n"
	"reads a recorded sysfs tree instead of /sys.\n"
	"\n"
	"Exit: 0 pass, 1 a check failed (mismatch, registration refused), 2 usage,\n"
	"3 no CUDA driver or GPU.\n";

struct gc_opts {
	struct gdr_gpu_req req;
	uint64_t size;
	int iters;
	const char *hca;
	enum gdr_mode mode;
	const char *from;
};

/*
 * --size's bound: past the memory of any GPU (the largest, B300 and MI355X,
 * carry 288 GB by their makers' datasheets), so that the driver, not this
 * bound, says what fits: a size past the GPU's memory gets the driver's
 * CUDA_ERROR_OUT_OF_MEMORY (exit 3) on an H200 (141 GB) as on a 16 GB GPU.
 */
#define GC_SIZE_MAX (1ULL << 40)

#define GC_SEED_COPY 0x6764722d636f7079ULL
#define GC_SEED_FILL 0x6764722d66696c6cULL

static int gc_gpu(void *dst, const char *arg, const struct fc_opt *o)
{
	return gdr_parse_gpu_spec(fc_opt_what(o), arg, &((struct gc_opts *)dst)->req);
}

static int gc_mode(void *dst, const char *arg, const struct fc_opt *o)
{
	return gdr_parse_mode(fc_opt_what(o), arg, &((struct gc_opts *)dst)->mode);
}

#define FC_OPT_T struct gc_opts
static const struct fc_opts gc_spec = {
	.opt = (const struct fc_opt[]){
		FCO_CALL("gpu", 0, gc_gpu, required_argument),
		FCO_SIZE("size", 's', size, 4096, GC_SIZE_MAX),
		FCO_INT("iters", 'n', iters, 1, 10000),
		FCO_STR("device", 'd', hca),
		FCO_STR("from", 0, from),
		FCO_CALL("gdr", 0, gc_mode, required_argument),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "gpu-check", .usage = usage_gpu_check, .no_args = "use --gpu to choose a GPU",
};

static int parse_opts(struct fc_ctx *ctx, int argc, char **argv, struct gc_opts *o)
{
	*o = (struct gc_opts){ .size = 64ULL << 20, .iters = 5, .mode = GDR_MODE_AUTO };
	return fc_opts_parse(ctx, &gc_spec, o, argc, argv);
}

/* The HCA to register with: -d, else the first RDMA device; NULL if none. */
static struct ibv_context *open_hca(const char *want, char *name, size_t len)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ibctx = NULL;

	name[0] = 0;
	for (int i = 0; list && list[i] && !ibctx; i++) {
		if (want && strcmp(want, ibv_get_device_name(list[i])))
			continue;
		ibctx = ibv_open_device(list[i]);
		if (ibctx)
			snprintf(name, len, "%s", ibv_get_device_name(list[i]));
	}
	if (list)
		ibv_free_device_list(list);
	return ibctx;
}

static json_t *gpus_json(const struct gdr_dev *dev)
{
	json_t *arr = json_array();

	for (int i = 0; i < dev->ngpus && dev->gpus; i++) {
		const struct gdr_gpu_info *g = &dev->gpus[i];

		json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:b, s:b, s:s, s:i, s:i, s:i}",
						     "index", g->index, "name", g->name, "bus_id",
						     g->bus_id, "dma_buf", g->dmabuf, "gdr_rdma", g->gdr,
						     "distance", topo_dist_name(g->dist),
						     "compute_capability", g->cc, "flush_writes_options",
						     g->flush_opts, "writes_ordering", g->wr_order));
	}
	return arr;
}

static double gbps(uint64_t bytes, int iters, double secs)
{
	return secs > 0 ? (double)bytes * iters * 8 / secs / 1e9 : 0;
}

/* Timed copies host -> GPU -> host of a pattern, then a byte-wise check. */
static int timed_copies(json_t *doc, struct gdr_mem *m, const struct gc_opts *o)
{
	const struct gdr_ops *ops = m->dev->ops;
	int pin_a, pin_b, ret = -ENOMEM;
	void *src, *dst;
	int64_t bad;
	double t0;

	src = gdr_staging_alloc(m->dev, o->size, &pin_a);
	dst = src ? gdr_staging_alloc(m->dev, o->size, &pin_b) : NULL;
	if (!dst)
		goto out_free;
	gdr_pattern_fill(src, 0, o->size, GC_SEED_COPY);
	memset(dst, 0, o->size);
	ret = ops->copy_from_host(m, 0, src, o->size); /* warm-up */
	t0 = fc_now();
	for (int i = 0; i < o->iters && !ret; i++)
		ret = ops->copy_from_host(m, 0, src, o->size);
	ret = ret ? ret : ops->sync(m->dev);
	json_object_set_new(doc, "h2d_gbps", json_real(gbps(o->size, o->iters, fc_now() - t0)));
	ret = ret ? ret : ops->copy_to_host(m, dst, 0, o->size);
	t0 = fc_now();
	for (int i = 0; i < o->iters && !ret; i++)
		ret = ops->copy_to_host(m, dst, 0, o->size);
	ret = ret ? ret : ops->sync(m->dev);
	json_object_set_new(doc, "d2h_gbps", json_real(gbps(o->size, o->iters, fc_now() - t0)));
	json_object_set_new(doc, "pinned", json_boolean(pin_a && pin_b));
	if (ret)
		goto out_free;
	bad = gdr_pattern_check(dst, 0, o->size, GC_SEED_COPY);
	json_object_set_new(doc, "copy_check", bad < 0 ? json_string("ok") :
					       json_sprintf("mismatch at offset %lld", (long long)bad));
	if (bad >= 0)
		fc_finding(doc, FC_FAIL,
			   "GPU %d returned different data than was written: first bad byte at offset %lld of %llu; the GPU or its PCIe path corrupts data: run nvidia-smi -q -d ECC,PAGE_RETIREMENT and check dmesg for Xid errors",
			   m->dev->gpu.index, (long long)bad, (unsigned long long)o->size);
out_free:
	if (dst)
		gdr_staging_free(m->dev, dst, pin_b);
	if (src)
		gdr_staging_free(m->dev, src, pin_a);
	return ret;
}

/* The --validate helpers themselves: fill on the GPU, verify back. */
static int validate_helpers(json_t *doc, struct gdr_mem *m)
{
	uint64_t bad = 0;
	int ret = gdr_mem_fill(m, 0, m->len, GC_SEED_FILL);

	ret = ret ? ret : gdr_mem_verify(m, 0, m->len, GC_SEED_FILL, &bad);
	if (ret < 0)
		return ret;
	json_object_set_new(doc, "validate", ret ? json_sprintf("mismatch at offset %llu",
								 (unsigned long long)bad) :
						    json_string("ok"));
	if (ret)
		fc_finding(doc, FC_FAIL,
			   "--validate pattern on GPU %d: first bad byte at offset %llu; the GPU or its PCIe path corrupts data: check dmesg for Xid errors",
			   m->dev->gpu.index, (unsigned long long)bad);
	return 0;
}

static void dmabuf_export(json_t *doc, struct gdr_mem *m)
{
	uint64_t off;
	int fd;

	if (!m->dev->cuda_export || !m->dev->gpu.dmabuf) {
		json_object_set_new(doc, "dmabuf_export", json_string("unsupported"));
		fc_finding(doc, FC_WARN,
			   "GPU %d cannot export dma-buf (%s): GPUDirect RDMA needs nvidia_peermem here; for dma-buf use driver 515+ with the open kernel modules and CUDA 11.7+",
			   m->dev->gpu.index, m->dev->cuda_export ? "the GPU does not report support" :
								  "the driver lacks cuMemGetHandleForAddressRange");
		return;
	}
	fd = gdr_cuda_export_dmabuf(m, &off);
	json_object_set_new(doc, "dmabuf_export", json_string(fd >= 0 ? "ok" : "refused"));
	/* The PCIe mapping where NCCL's mode is "PCI" (gdr_dev_set_path). */
	if (fd >= 0)
		json_object_set_new(doc, "dmabuf_mapping",
				    json_string(m->dev->dmabuf_pcie && !m->reg_note[0] ? "pcie" : "default"));
	if (fd >= 0)
		close(fd);
	else
		fc_finding(doc, FC_FAIL,
			   "GPU %d reports dma-buf support but refused to export %zu bytes: update the NVIDIA driver, or use --gdr peermem",
			   m->dev->gpu.index, m->len);
}

static void registration(json_t *doc, struct gdr_mem *m, const struct gc_opts *o,
			 const char *want, const char *node)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct gdr_reg_inputs in = {
		.mode = o->mode, .driver_version = m->dev->driver_version,
		.cuda_export = m->dev->cuda_export, .cuda_dmabuf = m->dev->gpu.dmabuf,
		.verbs_dmabuf = -1, .peermem = gdr_peermem_loaded(gdr_sysfs_root(), NULL, 0),
	};
	struct gdr_reg_plan plan;
	struct ibv_context *ibctx;
	struct ibv_pd *pd = NULL;
	char hca[64], desc[64];
	json_t *reg;

	ibctx = open_hca(want, hca, sizeof(hca));
	if (!ibctx) {
		int ok = gdr_reg_decide(&in, &plan) == 0;

		json_object_set_new(doc, "registration",
				    json_pack("{s:n, s:s?, s:s, s:s}", "device", "wanted", want,
					      "plan", ok ? gdr_method_name(plan.first) : "none",
					      "why", plan.msg));
		if (!ok && want)
			fc_finding(doc, FC_FAIL, "%s", plan.msg);
		else if (!ok) /* a GPU node without an HCA: what could be checked was */
			fc_finding(doc, FC_WARN,
				   "no RDMA device on %s: registration with an HCA not tried; GPUDirect RDMA would not work as the node is: %s",
				   node, plan.msg);
		else
			fc_finding(doc, FC_WARN,
				   "%s%s on %s: registration with an HCA not tried; it would use %s",
				   want ? "cannot open RDMA device " : "no RDMA device", want ? want : "",
				   node, plan.msg);
		return;
	}
	pd = ibv_alloc_pd(ibctx);
	reg = json_pack("{s:s}", "device", hca);
	if (!pd)
		fc_finding(doc, FC_FAIL, "%s on %s: cannot allocate a protection domain: %s", hca,
			   node, strerror(errno));
	else if (gdr_mem_reg(m, pd, access, node, hca))
		fc_finding(doc, FC_FAIL,
			   "%s on %s refused to register GPU %d memory (%s); see the error above for the fix",
			   hca, node, m->dev->gpu.index, m->plan.msg[0] ? m->plan.msg : "no plan");
	else
		json_object_set_new(reg, "method", json_string(gdr_method_name(m->method)));
	json_object_set_new(reg, "memory", json_string(gdr_mem_describe(m, desc, sizeof(desc))));
	json_object_set_new(doc, "registration", reg);
	gdr_mem_dereg(m);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ibctx);
}

void gdr_check_render(FILE *f, const json_t *doc)
{
	const json_t *gpu = json_object_get(doc, "gpu"), *reg, *g;
	struct fc_table *t;
	char sz[32], note[192];
	size_t i;

	fprintf(f, "node %s, CUDA driver %s (%s)\n\n", fc_jstr(doc, "node", "?"),
		fc_jstr(doc, "driver_version", "?"), fc_jstr(doc, "library", "?"));
	t = fc_table_new(6, "GPU", "NAME", "BUS ID", "DMA-BUF", "GDR", "TO HCA");
	json_array_foreach(json_object_get(doc, "gpus"), i, g) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%d", (int)fc_jnum(g, "index", -1));
		fc_table_addf(t, 1, "%s", fc_jstr(g, "name", "?"));
		fc_table_addf(t, 2, "%s", fc_jstr(g, "bus_id", "?"));
		fc_table_addf(t, 3, "%s", json_is_true(json_object_get(g, "dma_buf")) ? "yes" : "no");
		fc_table_addf(t, 4, "%s", json_is_true(json_object_get(g, "gdr_rdma")) ? "yes" : "no");
		fc_table_addf(t, 5, "%s", fc_jstr(g, "distance", "?"));
	}
	fc_table_print(t, f, "");
	fc_table_free(t);
	if (!gpu)
		return;
	fprintf(f, "\nGPU %d (%s), %s buffer:\n", (int)fc_jnum(gpu, "index", -1),
		fc_jstr(gpu, "bus_id", "?"),
		fc_fmt_size((uint64_t)fc_jnum(doc, "size_bytes", 0), sz, sizeof(sz)));
	if (*gdr_vnic_note(gpu, note, sizeof(note)))
		fprintf(f, "  HCA                %s%s\n", fc_jstr(gpu, "hca", "?"), note);
	fprintf(f, "  host -> GPU copy   %8.2f GB/s (%.1f Gb/s)\n", fc_jnum(doc, "h2d_gbps", 0) / 8,
		fc_jnum(doc, "h2d_gbps", 0));
	fprintf(f, "  GPU -> host copy   %8.2f GB/s (%.1f Gb/s)%s\n",
		fc_jnum(doc, "d2h_gbps", 0) / 8, fc_jnum(doc, "d2h_gbps", 0),
		json_is_true(json_object_get(doc, "pinned")) ? "" : " (pageable host buffer)");
	fprintf(f, "  copy check         %s\n", fc_jstr(doc, "copy_check", "not run"));
	fprintf(f, "  validate pattern   %s\n", fc_jstr(doc, "validate", "not run"));
	fprintf(f, "  dma-buf export     %s%s\n", fc_jstr(doc, "dmabuf_export", "not run"),
		!strcmp(fc_jstr(doc, "dmabuf_mapping", ""), "pcie") ?
			" (PCIe mapping: a C2C GPU, the HCA on PCIe, as NCCL's mode PCI)" : "");
	fprintf(f, "  GPUDirect flush    %s\n",
		fc_jstr(json_object_get(doc, "flush"), "how", "not decided"));
	fprintf(f, "  nvidia_peermem     %s\n",
		json_is_true(json_object_get(doc, "peermem")) ? "loaded" : "not loaded");
	reg = json_object_get(doc, "registration");
	if (json_is_string(json_object_get(reg, "device")))
		fprintf(f, "  registration       %s on %s\n", fc_jstr(reg, "method", "refused"),
			fc_jstr(reg, "device", "?"));
	else if (reg)
		fprintf(f, "  registration       not tried (%s%s); plan: %s\n",
			json_is_string(json_object_get(reg, "wanted")) ? "cannot open " : "no RDMA device",
			fc_jstr(reg, "wanted", ""), fc_jstr(reg, "plan", "none"));
	fputc('\n', f);
}

static int cant_run(struct fc_ctx *ctx, json_t *doc, const struct gdr_dev *dev)
{
	fc_finding(doc, FC_FAIL, "%s", dev->err[0] ? dev->err : "cannot use the GPU");
	if (ctx->json)
		fc_emit(ctx, doc, NULL);
	else
		json_decref(doc);
	return FC_EXIT_CANT;
}

/*
 * The copy check stages --size twice in host memory (source and destination):
 * a size whose two copies exceed this node's RAM could only end in the OOM
 * killer, so it is refused with what to do instead. 0 if it fits.
 */
static int host_fits(uint64_t size, char *err, size_t len)
{
	long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && pg > 0 ? (uint64_t)pages * (uint64_t)pg : 0;

	if (!ram || size <= ram / 2)
		return 0;
	snprintf(err, len,
		 "the copy check stages --size twice in host memory (2 x %llu bytes), more than "
		 "this node's %llu bytes of RAM: use a --size of at most half the RAM",
		 (unsigned long long)size, (unsigned long long)ram);
	fc_err("%s", err);
	return -1;
}

static void describe_gpu(json_t *doc, const struct gdr_dev *dev, const struct topo *topo,
			 const char *hca, const char *node)
{
	char vbuf[128];

	json_object_set_new(doc, "driver_version",
			    json_sprintf("%d.%d", dev->driver_version / 1000,
					 dev->driver_version % 1000 / 10));
	json_object_set_new(doc, "gpus", gpus_json(dev));
	json_object_set_new(doc, "gpu", json_pack("{s:i, s:s, s:s, s:s?, s:s?}", "index",
						  dev->gpu.index, "bus_id", dev->gpu.bus_id,
						  "distance", topo_dist_name(dev->gpu.dist),
						  "hca", hca, "nccl_nic",
						  gdr_nccl_nic(topo, dev->gpu.bus_id, vbuf, sizeof(vbuf))));
	gdr_gpu_findings(doc, node, &dev->gpu, hca);
}

/* The HCA to measure against: -d, else for --gpu the HCA nearest that GPU
 * (after the GPU is known), else the first HCA of the topology or verbs. */
static const char *first_hca(const struct topo *topo, char *buf, size_t len)
{
	struct ibv_context *probe;

	if (topo && topo_nic(topo, 0)) {
		snprintf(buf, len, "%s", topo_nic(topo, 0)->name);
		return buf;
	}
	probe = open_hca(NULL, buf, len);
	if (!probe)
		return NULL;
	ibv_close_device(probe);
	return buf;
}

static const char *hca_for_gpu(struct gdr_dev *dev, const struct topo *topo, char *buf,
			       size_t len)
{
	if (gdr_nearest_hca(topo, dev->gpu.bus_id, buf, len))
		return NULL;
	gdr_dev_set_hca(dev, topo, buf);
	return buf;
}

static void run_checks(json_t *doc, struct gdr_mem *m, const struct gc_opts *o,
		       const char *hca, const char *node)
{
	char seen[256] = "";

	json_object_set_new(doc, "size_bytes", json_integer((json_int_t)o->size));
	json_object_set_new(doc, "iters", json_integer(o->iters));
	json_object_set_new(doc, "peermem",
			    json_boolean(gdr_peermem_loaded(gdr_sysfs_root(), seen, sizeof(seen))));
	if (seen[0])
		json_object_set_new(doc, "peermem_path", json_string(seen));
	json_object_set_new(doc, "flush", json_pack("{s:s, s:s}", "how",
						    gdr_flush_name(m->dev->flush), "why",
						    m->dev->flush_why));
	if (timed_copies(doc, m, o) || validate_helpers(doc, m)) {
		fc_finding(doc, FC_FAIL, "copies to or from GPU %d failed (see the error above)",
			   m->dev->gpu.index);
		return;
	}
	dmabuf_export(doc, m);
	registration(doc, m, o, hca, node);
}

int cmd_gpu_check(struct fc_ctx *ctx, int argc, char **argv)
{
	char node[256] = "?", hbuf[64];
	const char *hca = NULL;
	struct topo *topo;
	struct gdr_dev dev;
	struct gdr_mem m;
	struct gc_opts o;
	json_t *doc;
	int ret;

	if (parse_opts(ctx, argc, argv, &o))
		return FC_EXIT_USAGE;
	if (o.from)
		return gdr_check_from(ctx, o.from, &o.req, o.hca);
	gethostname(node, sizeof(node) - 1);
	topo = gdr_topo_load();
	hca = o.hca;
	if (!hca && o.req.how == GDR_GPU_NEAREST)
		hca = first_hca(topo, hbuf, sizeof(hbuf));
	doc = fc_doc_new();
	json_object_set_new(doc, "node", json_string(node));
	ret = gdr_dev_open(&dev, GDR_CUDA, o.mode, &o.req, topo, hca);
	json_object_set_new(doc, "library", json_string(dev.lib ? dev.lib : "libcuda.so.1"));
	if (ret) {
		topo_free(topo);
		return cant_run(ctx, doc, &dev);
	}
	if (!hca)
		hca = hca_for_gpu(&dev, topo, hbuf, sizeof(hbuf));
	describe_gpu(doc, &dev, topo, hca, node);
	if (gdr_mem_alloc(&dev, &m, o.size)) {
		snprintf(dev.err, sizeof(dev.err),
			 "cannot allocate %llu bytes on GPU %d: use a smaller --size or free the GPU",
			 (unsigned long long)o.size, dev.gpu.index);
		gdr_dev_close(&dev);
		topo_free(topo);
		return cant_run(ctx, doc, &dev);
	}
	if (host_fits(o.size, dev.err, sizeof(dev.err))) {
		gdr_mem_free(&m);
		gdr_dev_close(&dev);
		topo_free(topo);
		return cant_run(ctx, doc, &dev);
	}
	run_checks(doc, &m, &o, hca, node);
	gdr_mem_free(&m);
	gdr_dev_close(&dev);
	topo_free(topo);
	return fc_emit(ctx, doc, gdr_check_render);
}
