/*
 * GPUDirect RDMA memory for the verbs data path.
 *
 * One ops table per memory kind (host, CUDA), chosen when a device is
 * opened. CUDA comes from the driver API loaded at run time with
 * dlopen("libcuda.so.1"); no CUDA header or library is needed to build.
 * FABCHECK_LIBCUDA=PATH loads another library instead: a test and
 * diagnostic hook (the CLI tests point it at a fake driver that returns
 * CUDA error codes, to exercise the error paths on machines with no GPU).
 *
 * GPU memory is registered with the HCA by dma-buf first
 * (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr), then by peermem
 * (ibv_reg_mr on the device pointer, with nvidia_peermem loaded). There is
 * no fallback to host memory: when neither works the caller gets an error
 * that says what to fix.
 */
#ifndef FC_GDR_H
#define FC_GDR_H

#include <jansson.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/pcitopo.h"

struct ibv_pd;
struct ibv_mr;

enum gdr_kind { GDR_HOST, GDR_CUDA };

/* --gdr: how GPU memory may be registered. */
enum gdr_mode { GDR_MODE_AUTO, GDR_MODE_DMABUF, GDR_MODE_PEERMEM };

/* How a region was (or will be) registered. */
enum gdr_reg_method { GDR_REG_NONE, GDR_REG_HOST, GDR_REG_DMABUF, GDR_REG_PEERMEM };

const char *gdr_kind_name(enum gdr_kind k);
const char *gdr_mode_name(enum gdr_mode m);
const char *gdr_method_name(enum gdr_reg_method m);
/* Parses "auto", "dmabuf" (or "dma-buf"), "peermem"; logs and returns
 * -EINVAL otherwise. */
int gdr_parse_mode(const char *opt, const char *text, enum gdr_mode *out_p);

/* ---- GPU choice (pure) ---- */

enum gdr_gpu_how { GDR_GPU_NEAREST, GDR_GPU_INDEX, GDR_GPU_BUS };

struct gdr_gpu_req {
	enum gdr_gpu_how how;
	int index;	 /* GDR_GPU_INDEX */
	char bus_id[32]; /* GDR_GPU_BUS, as typed */
};

/*
 * --use-cuda[=SPEC]: NULL or "" -> nearest the HCA; digits -> index;
 * [DOMAIN:]BUS:DEV.FN in hex -> bus id. Logs and returns -EINVAL on
 * anything else, naming @opt.
 */
int gdr_parse_gpu_spec(const char *opt, const char *text, struct gdr_gpu_req *req);

/* Parses a PCI address "0000:3b:00.0", "00000000:3B:00.0" or "3b:00.0"
 * into one comparable number; returns -EINVAL if it is not one. */
int gdr_bdf_parse(const char *text, uint64_t *out_p);

struct gdr_gpu_info {
	int index;
	char name[96];
	char bus_id[32];   /* as the driver prints it */
	int dmabuf;	   /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	int gdr;	   /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	int cc;		   /* compute capability x 10 (90 Hopper); 0 unknown */
	int flush_opts;	   /* ..._GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS; -1 unknown */
	int wr_order;	   /* ..._GPU_DIRECT_RDMA_WRITES_ORDERING; -1 unknown */
	enum topo_dist dist; /* to the chosen HCA (topo_gdr_distance: P2C on
			      * Grace), TOPO_UNKNOWN if none */
	int c2c;	   /* the GPU reaches its CPU over C2C (topo_dev.c2c) */
};

/* How GPUDirect RDMA writes are made visible before the CPU checks them. */
enum gdr_flush_how {
	GDR_FLUSH_NONE,	    /* host memory, or the GPU orders the writes itself */
	GDR_FLUSH_CUDA,	    /* cuFlushGPUDirectRDMAWrites */
	GDR_FLUSH_LOOPBACK, /* a loopback RDMA READ on the QP, as NCCL flushes */
};
struct gdr_flush_in {
	int cuda_sym;	/* the driver has cuFlushGPUDirectRDMAWrites */
	int flush_opts; /* FLUSH_WRITES_OPTIONS bits (1 HOST: the call works); -1 unknown */
	int wr_order;	/* WRITES_ORDERING: 0 NONE, 100 OWNER, 200 ALL_DEVICES; -1 unknown */
	int c2c_near;	/* the GPU reaches its CPU over C2C and the NIC is <= PXB */
};
/*
 * The flush a validation check needs (gdr/gpu_pick.c): none where the GPU
 * orders GPUDirect writes for its owner's reads (WRITES_ORDERING OWNER or
 * ALL_DEVICES); the loopback READ where the GPU's C2C path and the NIC's
 * PCIe path are unordered (NCCL's ncclTopoFlushC2c, src/graph/paths.cc
 * ncclTopoNeedFlush, where cuFlushGPUDirectRDMAWrites is no use); the driver
 * call where FLUSH_WRITES_OPTIONS has HOST; else the loopback READ (as NCCL
 * flushes on compute capability < 9.0). @why (may be NULL) says which.
 */
enum gdr_flush_how gdr_flush_decide(const struct gdr_flush_in *in, char *why, size_t len);
const char *gdr_flush_name(enum gdr_flush_how h);

/*
 * Picks the GPU that @req names among @gpus (index order). For
 * GDR_GPU_NEAREST the smallest distance wins, the lowest index on ties
 * (gdr_gpu_spread then shares ties among the HCAs that have them).
 * Returns the position in @gpus, or -ENODEV (no GPU) / -ENOENT (no such
 * index or bus id) with a message in @err that lists what exists.
 */
int gdr_gpu_pick(const struct gdr_gpu_info *gpus, int n, const struct gdr_gpu_req *req,
		 char *err, size_t errlen);

/* ---- Topology glue (shared PCIe distance code in checks/pcitopo) ---- */

/* Sets gpus[i].dist to NCCL's class of the path to HCA @hca (name or bus
 * id) in @topo (topo_gdr_distance) and gpus[i].c2c; TOPO_UNKNOWN without a
 * topology or HCA (a software HCA has no PCI). */
void gdr_gpu_distances(struct gdr_gpu_info *gpus, int n, const struct topo *topo,
		       const char *hca);
/*
 * The GPU NCCL pairs with HCA @hca (topo_nccl_nic_gpu: NCCL's local GPUs of
 * the HCA, the first whose NIC on channel 0 it is), as its position in
 * @gpus (matched by bus id), so every rail's pair, started apart, lands on
 * the GPU NCCL would drive it from. @pos (what gdr_gpu_pick chose) when the
 * topology lacks @hca, no GPU of NCCL's uses it, or CUDA does not list it.
 */
int gdr_gpu_spread(const struct gdr_gpu_info *gpus, int n, const struct topo *topo,
		   const char *hca, int pos);
/* The HCA NCCL gives GPU @bus_id on channel 0 (topo_nccl_gpu_nic) into
 * @buf; -ENOENT when the topology has no HCA or no such GPU. */
int gdr_nearest_hca(const struct topo *topo, const char *bus_id, char *buf, size_t len);
/* NCCL's name of that NIC (topo_nccl_name): "mlx5_0+mlx5_1" where the
 * release fuses the ports of one card, of which gdr_nearest_hca gives the
 * first to test; NULL when it gives none. */
const char *gdr_nccl_nic(const struct topo *topo, const char *bus_id, char *buf, size_t len);
/* dev->flush and flush_why for the chosen GPU (gdr_flush_decide). */
struct gdr_dev;
void gdr_dev_set_flush(struct gdr_dev *dev, int c2c_near);
/* What the chosen GPU's path to its HCA asks for, as NCCL decides it:
 * dev->dmabuf_pcie where NCCL's mode is "PCI" (topo_nccl_pcie_map: a C2C
 * GPU, the HCA reached over PCIe, not through the CPU), and the flush with
 * c2c_near where the GPU is C2C and the HCA <= PXB (paths.cc
 * ncclTopoNeedFlush). */
void gdr_dev_set_path(struct gdr_dev *dev);
/* The Data Direct function of each mlx5 HCA of @t, as mlx5dv says it
 * (gdr/ddirect.c), into topo_set_data_direct; the count found. */
int gdr_data_direct_probe(struct topo *t);
/* ibv_reg_dmabuf_mr for an HCA with Data Direct, as NCCL registers there:
 * mlx5dv_reg_dmabuf_mr with MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT; NULL with
 * errno EOPNOTSUPP where libmlx5 lacks it. */
struct ibv_mr *gdr_reg_dmabuf_data_direct(struct ibv_pd *pd, uint64_t off, size_t len,
					  uint64_t iova, int fd, int access);
/* 1 when HCA @hca of @topo DMAs through a Data Direct function. */
int gdr_hca_data_direct(const struct topo *topo, const char *hca);
/* Loads the topology under gdr_sysfs_root() when it has a PCI tree;
 * NULL (and nothing logged) when it has none. */
struct topo *gdr_topo_load(void);

/* ---- Registration decision (pure) ---- */

struct gdr_reg_inputs {
	enum gdr_mode mode;
	int driver_version;  /* cuDriverGetVersion, 0 unknown */
	int cuda_export;     /* cuMemGetHandleForAddressRange is in the driver */
	int cuda_dmabuf;     /* the GPU reports DMA_BUF_SUPPORTED */
	int verbs_dmabuf;    /* 1 kernel+rdma-core take dma-buf, 0 not, -1 not probed,
				-2 libibverbs has no ibv_reg_dmabuf_mr */
	int peermem;	     /* nvidia_peermem (or nv_peer_mem) seen */
};

struct gdr_reg_plan {
	enum gdr_reg_method first;  /* GDR_REG_NONE on error */
	enum gdr_reg_method second; /* tried if @first is refused, or NONE */
	char msg[512];		    /* why (on success) or what to fix (on error) */
};

/* Returns 0 with a plan, or -EOPNOTSUPP with @plan->msg naming what is
 * missing and the fix. Logs nothing. */
int gdr_reg_decide(const struct gdr_reg_inputs *in, struct gdr_reg_plan *plan);

/* ---- Data patterns for --validate (pure) ---- */

/* Writes the pattern for absolute offsets [off, off + len) into @buf. */
void gdr_pattern_fill(void *buf, uint64_t off, size_t len, uint64_t seed);
/* Returns the first absolute offset in [off, off + len) where @buf differs
 * from the pattern, or -1 when it matches. */
int64_t gdr_pattern_check(const void *buf, uint64_t off, size_t len, uint64_t seed);

/* ---- Devices and memory (ops table per kind) ---- */

struct gdr_dev;
struct gdr_mem;

struct gdr_ops {
	const char *name;
	/* Opens the backend and selects a GPU (CUDA). @topo, @hca may be NULL. */
	int (*init)(struct gdr_dev *dev, const struct gdr_gpu_req *req,
		    const struct topo *topo, const char *hca);
	int (*alloc)(struct gdr_dev *dev, struct gdr_mem *m, size_t len);
	void (*free)(struct gdr_mem *m);
	int (*copy_from_host)(struct gdr_mem *m, uint64_t off, const void *src, size_t len);
	int (*copy_to_host)(struct gdr_mem *m, void *dst, uint64_t off, size_t len);
	/* Waits for every copy issued so far. */
	int (*sync)(struct gdr_dev *dev);
	/* Makes GPUDirect RDMA writes seen so far visible to the device's own
	 * reads (NULL: nothing to do, as for host memory). A no-op where the
	 * driver cannot (gdr_dev.gdr_flush 0): the caller flushes by a
	 * loopback RDMA READ then (verbs/loop.c). */
	int (*flush)(struct gdr_dev *dev);
	/* Makes the device's context current on the calling thread (NULL:
	 * nothing to do): a data path thread may check GPU memory. */
	int (*bind)(struct gdr_dev *dev);
	/* Registers by @method; on failure returns -errno and says which
	 * call failed and why in @why. */
	int (*reg)(struct gdr_mem *m, struct ibv_pd *pd, int access,
		   enum gdr_reg_method method, char *why, size_t whylen);
	void (*release)(struct gdr_dev *dev);
};

struct gdr_dev {
	const struct gdr_ops *ops;
	enum gdr_kind kind;
	enum gdr_mode mode;
	struct gdr_gpu_info gpu; /* chosen GPU (CUDA) */
	int ngpus;
	struct gdr_gpu_info *gpus; /* every GPU seen (CUDA), ngpus long */
	int driver_version;
	int cuda_export;	   /* cuMemGetHandleForAddressRange present */
	int gdr_flush;		   /* cuFlushGPUDirectRDMAWrites present (CUDA) */
	enum gdr_flush_how flush;  /* what gdr_flush_decide chose for the GPU */
	int data_direct;	   /* the HCA DMAs through its Data Direct function:
				    * dma-buf MRs by gdr_reg_dmabuf_data_direct */
	int dmabuf_pcie;	   /* export dma-buf with the PCIe mapping flag, as NCCL
				    * does for a C2C GPU with a PCIe NIC (mode "PCI";
				    * gdr_dev_set_path) */
	char flush_why[256];	   /* and why */
	const char *lib;	   /* library loaded */
	int numa_node;		   /* host memory: the node to place it on, -1 anywhere */
	int hugepages;		   /* host memory: in huge pages (--hugepages) */
	void *priv;		   /* backend state */
	char err[512];		   /* why gdr_dev_open failed, for reports */
};

struct gdr_mem {
	struct gdr_dev *dev;
	void *base;	  /* host pointer, or the device pointer as a pointer */
	uint64_t iova;	  /* address to use in SGEs and remote_addr */
	size_t len;	  /* usable length */
	size_t alloc_len; /* rounded to the page size of the kind */
	int dmabuf_fd;	  /* exported dma-buf, -1 when none */
	struct ibv_mr *mr;
	enum gdr_reg_method method;
	struct gdr_reg_plan plan; /* what registration decided */
	int numa_node;	  /* host memory: the node its first page is on, -1 unknown */
	size_t page;	  /* host memory: the page size backing it */
	int relaxed;	  /* registered with IBV_ACCESS_RELAXED_ORDERING */
	char reg_note[256]; /* what registration fell back from, or "" */
};

/*
 * Opens memory of @kind. For GDR_CUDA loads the driver, lists the GPUs,
 * computes their distance in @topo to HCA @hca (name or bus id; both may be
 * NULL) and selects one by @req. Returns 0 or a negative errno after logging what to do:
 * -ENOENT no libcuda, -ENODEV no GPU, -ENXIO no such GPU.
 */
int gdr_dev_open(struct gdr_dev *dev, enum gdr_kind kind, enum gdr_mode mode,
		 const struct gdr_gpu_req *req, const struct topo *topo, const char *hca);
void gdr_dev_close(struct gdr_dev *dev);

/* Allocates @len bytes (page aligned, many pages for large @len). */
int gdr_mem_alloc(struct gdr_dev *dev, struct gdr_mem *m, size_t len);
void gdr_mem_free(struct gdr_mem *m);

/*
 * Registers @m with @pd: host memory with ibv_reg_mr; GPU memory by the
 * plan from gdr_reg_decide (dma-buf, then peermem in auto mode). @node and
 * @devname name this node and the HCA in messages (@node NULL where the log
 * prefix names the node already, as in a worker). 0 or -errno (logged).
 */
int gdr_mem_reg(struct gdr_mem *m, struct ibv_pd *pd, int access, const char *node,
		const char *devname);
/* Registers by @plan (first, then second), as gdr_mem_reg does once it
 * has decided; logs a refused registration naming @node, @devname, the
 * call, errno and the fix. */
int gdr_mem_reg_plan(struct gdr_mem *m, struct ibv_pd *pd, int access,
		     const struct gdr_reg_plan *plan, const char *node, const char *devname);
void gdr_mem_dereg(struct gdr_mem *m);
uint32_t gdr_mem_lkey(const struct gdr_mem *m);
uint32_t gdr_mem_rkey(const struct gdr_mem *m);

/* "host", "cuda:0 (dmabuf)", "cuda:1 (peermem)" for reports. */
const char *gdr_mem_describe(const struct gdr_mem *m, char *buf, size_t len);

/* Fills [off, off + len) with the pattern for @seed (through a host
 * staging buffer for GPU memory). */
int gdr_mem_fill(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed);
/* Copies [off, off + len) back and checks it: 0 match, 1 mismatch with
 * *bad_off_p set to the first bad absolute offset, or -errno. */
int gdr_mem_verify(struct gdr_mem *m, uint64_t off, size_t len, uint64_t seed,
		   uint64_t *bad_off_p);

/* Host buffer for timed copies to and from @dev's memory: pinned through
 * the driver for CUDA (*pinned_p = 1), page aligned otherwise. */
void *gdr_staging_alloc(struct gdr_dev *dev, size_t len, int *pinned_p);
void gdr_staging_free(struct gdr_dev *dev, void *p, int pinned);

/*
 * --validate by messages (gdr/vcheck.c): slot j of [tx, tx + stride *
 * nslots) gets message j % part for slot j of the test (core/vmsg.h: header
 * with seq, slot, length, @tag; CRC32C of the payload), [rx, rx + rx_len)
 * is poisoned. GPU memory goes through a host image, one device copy and
 * a synchronisation.
 */
int gdr_mem_fill_msgs(struct gdr_mem *m, uint64_t tx, uint64_t stride, uint32_t nslots,
		      uint32_t part, uint32_t len, uint32_t tag, uint64_t rx, size_t rx_len);
/* Host image of @len bytes at @p (inside @m) in @out: GPU memory after
 * GPUDirect writes are flushed, through the driver. 0 or -errno (logged). */
int gdr_mem_read_at(struct gdr_mem *m, const void *p, size_t len, void *out);
/* The same copy with no flush first (the copy ceiling's timing). */
int gdr_mem_copy_at(struct gdr_mem *m, const void *p, size_t len, void *out);
/* Writes the poison over @len (at most 64) bytes at @p inside @m. */
int gdr_mem_poison_at(struct gdr_mem *m, void *p, size_t len);
/* Slots of [rx, rx + stride * nslots) whose first @hl bytes are not all
 * poison (a message arrived after its check, or outside any): their count
 * (the first in *first_p, -1 when none), or -errno. */
int gdr_mem_stray(struct gdr_mem *m, uint64_t rx, uint64_t stride, uint32_t nslots, size_t hl,
		  int64_t *first_p);

/*
 * True when the CPU may read and write the memory. GPU memory is not: the
 * data path must not use IBV_SEND_INLINE on it, nor poll it or memset it
 * from the CPU (use completions, and gdr_mem_fill to set it).
 */
int gdr_mem_host_accessible(const struct gdr_mem *m);

/* Recomputes the distances of @dev's GPUs to HCA @hca once it is chosen. */
void gdr_dev_set_hca(struct gdr_dev *dev, const struct topo *topo, const char *hca);

/* ---- Test options and reports (pure) ---- */

/* What a test asks of the memory on each node. Zeroed = host memory. */
struct gdr_opts {
	enum gdr_kind kind; /* GDR_CUDA when --use-cuda was given */
	struct gdr_gpu_req req;
	enum gdr_mode mode;
	int validate;	    /* --validate: fill, transfer, verify */
	int hugepages;	    /* --hugepages: host memory in huge pages */
};

/* --use-cuda[=SPEC]: sets kind and the GPU request (NULL SPEC: nearest). */
int gdr_opts_use_cuda(struct gdr_opts *o, const char *spec);
/* The options as the controller sends them to a worker:
 * {"memory": "host"|"cuda", "gpu": null|N|"BUS"|"nearest", "gdr": MODE,
 *  "validate": bool, "hugepages": bool} */
json_t *gdr_opts_json(const struct gdr_opts *o);
/* Reads them back; -EPROTO with @why on anything else. */
int gdr_opts_from_json(const json_t *j, struct gdr_opts *o, char *why, size_t len);
/* Adds "memory" ("host", "cuda:0 (dmabuf)") and, for GPU memory, "gpu",
 * "gpu_name", "gpu_bus_id", "gpu_distance", "gpu_hca" to a side's report. */
void gdr_mem_report(json_t *side, const struct gdr_mem *m, const char *hca);
/* A warning when the GPU is farther than PXB from the HCA, or the path is
 * unknown while an HCA is named. */
/* " (a port of NCCL's virtual NIC mlx5_0+mlx5_1)" when the "gpu" object
 * @gpu's hca is one port of its nccl_nic, else "", into @buf. */
const char *gdr_vnic_note(const json_t *gpu, char *buf, size_t len);
void gdr_gpu_findings(json_t *doc, const char *node, const struct gdr_gpu_info *g,
		      const char *hca);
void gdr_mem_findings(json_t *doc, const char *node, const struct gdr_mem *m,
		      const char *hca);

/* The distance warning from a side of a pair report ("node", "device",
 * "gpu", "gpu_bus_id", "gpu_distance"); nothing for host memory. */
void gdr_side_findings(json_t *doc, const json_t *side);
/* Failures from a sink's "validate" result (ctl/worker_gdr.c): a bad
 * message ("problem", "why"), fewer messages checked than "sent", slots
 * never checked, or "stray" slots. */
void gdr_validate_findings(json_t *doc, const char *node, const char *test, uint64_t size,
			   const json_t *v);

/* ---- Probes of this host ---- */

/* True when nvidia_peermem / nv_peer_mem is loaded under @sysfs; names
 * the path seen in @seen (may be NULL). */
int gdr_peermem_loaded(const char *sysfs, char *seen, size_t len);
/* 1 when kernel and rdma-core take dma-buf MRs on @pd, 0 when not
 * (EOPNOTSUPP / EPROTONOSUPPORT), as NCCL probes it. */
int gdr_verbs_dmabuf_supported(struct ibv_pd *pd);
/* ibv_reg_dmabuf_mr resolved at run time (rdma-core 34+); NULL with errno
 * EOPNOTSUPP where libibverbs lacks it. */
struct ibv_mr *gdr_ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len,
				     uint64_t iova, int fd, int access);
/* gpu-check --from BUNDLE (gdr/gc_from.c): the pairing of GPU @req and HCA
 * @hca (NULL: as the live check chooses) on a node capture, without a GPU;
 * the exit code. */
struct fc_ctx;
int gdr_check_from(struct fc_ctx *ctx, const char *from, const struct gdr_gpu_req *req,
		   const char *hca);
/* gpu-check's text of its document @doc (gdr/cmd_gpu_check.c): the GPUs,
 * the chosen one's copy rates, checks and registration. */
void gdr_check_render(FILE *f, const json_t *doc);

/* Root of sysfs ("/sys", or $FABCHECK_SYSFS for tests on recorded trees). */
const char *gdr_sysfs_root(void);

/* The CUDA ops; exposed for the self-check. */
extern const struct gdr_ops gdr_host_ops;
extern const struct gdr_ops gdr_cuda_ops;

/* Exports a dma-buf fd for [0, len) of CUDA memory @m (closed by the
 * caller). Returns the fd or -errno (logged). */
int gdr_cuda_export_dmabuf(struct gdr_mem *m, uint64_t *offset_p);

#endif
