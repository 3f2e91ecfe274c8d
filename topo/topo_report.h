/*
 * The report of `fabcheck topo`: a view of GPUs, HCAs and distance cells
 * built from sysfs (with NVLink cells from nvidia-smi when known) or from an
 * nvidia-smi matrix alone, then the JSON document (architecture.md), NVLink
 * islands, nearest HCAs, findings and recommended NCCL settings.
 */
#ifndef FC_TOPO_REPORT_H
#define FC_TOPO_REPORT_H

#include <jansson.h>

#include "topo/nvsmi_topo.h"
#include "topo/pcitopo.h"

#define TV_MAX NVSMI_MAX_COLS

struct tv_dev {
	char name[32];	/* "GPU0", "mlx5_0" (or "NIC3" when the legend is missing) */
	char label[32]; /* matrix label: "GPU0", "NIC0", "mlx5_0" */
	char bus_id[TOPO_BDF_LEN]; /* "" when unknown */
	int numa;		   /* -1 unknown */
	int has_rdma;		   /* NIC with an RDMA device */
	int c2c;		   /* GPU on a C2C link to its CPU (topo_gpu_c2c_id) */
	/* GPU, from nvidia-smi topo -m as printed; "" when not there */
	char cpu_aff[64], numa_aff[64], gpu_numa[16];
};

struct topo_view {
	const char *source; /* "sysfs", "nvidia-smi", "sysfs+nvidia-smi" */
	int ngpus, nnics;
	struct tv_dev gpu[TV_MAX], nic[TV_MAX];
	int row_known[TV_MAX];			/* GPU row present */
	char gg[TV_MAX][TV_MAX][NVSMI_CELL_LEN]; /* GPU-GPU cell, "" unknown */
	char gn[TV_MAX][TV_MAX][NVSMI_CELL_LEN]; /* GPU-NIC cell, "" unknown */
	int nvlink_known;
	int truncated;
	int cols_cut; /* nvidia-smi columns past NVSMI_MAX_COLS; sysfs devices past TV_MAX */
};

/* From sysfs; @m (may be NULL) adds NV# cells when its GPU count matches.
 * Adds a finding to @doc when it does not. */
void topo_view_from_sysfs(struct topo_view *v, const struct topo *t,
			  const struct nvsmi_topo *m, json_t *doc);
void topo_view_from_nvsmi(struct topo_view *v, const struct nvsmi_topo *m);

/* Nearest NICs of GPU @g (indexes into v->nic); returns the count. */
int topo_view_nearest(const struct topo_view *v, int g, int *out, int max);

/* The NICs NCCL ranks first for GPU @g by the cells (NODE ties with PHB;
 * the table shows no speed); -1 when the table cannot say (a C2C GPU that
 * prints SYS to every NIC). Returns the count. */
int topo_view_nccl_nics(const struct topo_view *v, int g, int *out, int max);

/* Adds gpus, nics, matrix, islands, findings and recommendations of the
 * view to @doc. */
void topo_view_report(const struct topo_view *v, json_t *doc);

/* Findings and recommendations only sysfs can give: PCIe links, ACS,
 * peermem, RoCE netdevs, NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX. */
void topo_sysfs_report(const struct topo *t, const struct topo_view *v, json_t *doc);

/* Appends {"env", "value", "why"} to doc's "recommendations". */
void topo_recommend(json_t *doc, const char *env, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
