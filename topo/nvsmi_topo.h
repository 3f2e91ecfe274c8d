/*
 * Parser of `nvidia-smi topo -m` text: the matrix of GPU/NIC labels and
 * cells (X, NV#, PIX, PXB, PHB, NODE, SYS), the affinity columns, the NIC
 * legend. Tolerates what pasted output looks like (FORMATS.md section 2):
 * prompts and indents, TABs or spaces, lost TABs that fuse cells
 * ("NODEPXB", "NIC8NIC9"), trailing blanks, truncated excerpts, a second
 * (-p2p) matrix after the first. Pure: libc and jansson.
 */
#ifndef FC_NVSMI_TOPO_H
#define FC_NVSMI_TOPO_H

#include <jansson.h>
#include <stddef.h>

/* Columns read (GPUs and NICs together); a wider table is cut and says so. */
#define NVSMI_MAX_COLS 512
#define NVSMI_CELL_LEN 8
#define NVSMI_LABEL_LEN 32

struct nvsmi_topo {
	int ncols;
	char label[NVSMI_MAX_COLS][NVSMI_LABEL_LEN]; /* "GPU0", "NIC3", "mlx5_0" */
	int is_gpu[NVSMI_MAX_COLS];
	char nic_dev[NVSMI_MAX_COLS][NVSMI_LABEL_LEN]; /* device from the NIC legend; "" */
	int ngpus, nnics;
	int row_seen[NVSMI_MAX_COLS];
	char cell[NVSMI_MAX_COLS][NVSMI_MAX_COLS][NVSMI_CELL_LEN]; /* [row][col]; "" */
	int has_cpu_aff, has_numa_aff, has_gpu_numa;
	char cpu_aff[NVSMI_MAX_COLS][64];
	int numa_aff[NVSMI_MAX_COLS]; /* -1 when absent or N/A */
	int gpu_numa[NVSMI_MAX_COLS]; /* -1 when absent or N/A */
	int legend_seen, nic_legend_seen;
	int cols_cut;  /* header columns past NVSMI_MAX_COLS, not read */
	int lines_cut; /* lines longer than the reader takes, cut at their end */
	int truncated; /* GPU or NIC rows missing, or any of the cuts above */
};

/*
 * Parses @len bytes of @text. @src names the input in the error message.
 * Returns 0 and a new matrix in *out_p (free with free()), -EINVAL when the
 * text holds no matrix header ("GPU0 ..."), -ENOMEM.
 */
int nvsmi_topo_parse(const char *text, size_t len, const char *src,
		     struct nvsmi_topo **out_p);

/* Rank of a cell for "nearest": X 0, NV# 1, PIX 2, PXB 3, PHB 4, NODE 5,
 * SYS 6, anything else (empty, SOC, ...) 7. */
int nvsmi_cell_rank(const char *cell);
/* Cell between columns @a and @b: row a, else row b (the matrix is
 * symmetric); NULL when neither row was in the text. */
const char *nvsmi_topo_cell(const struct nvsmi_topo *m, int a, int b);
/* Column index of @label, or -1. */
int nvsmi_topo_col(const struct nvsmi_topo *m, const char *label);
/*
 * The NIC columns nearest to GPU column @gpu: all at the lowest PCIe rank,
 * in column order, at most @max into @out. Returns the count; 0 when the
 * GPU row is missing or there are no NIC columns.
 */
int nvsmi_topo_nearest_nics(const struct nvsmi_topo *m, int gpu, int *out, int max);
/* The components of a graph over @n nodes (at most NVSMI_MAX_COLS):
 * comp[i], from 0, for each node that @member(@arg, i) takes (each node when
 * @member is NULL), -1 for the others; @joined(@arg, u, v) says whether the
 * member u has an edge to v. Returns the number of components. */
int nvsmi_components(int n, int (*member)(const void *arg, int i),
		     int (*joined)(const void *arg, int u, int v), const void *arg, int *comp);

/* NVLink islands: comp[col] = island number of each GPU column (GPUs
 * linked by NV# cells share one); returns the number of islands. */
int nvsmi_topo_islands(const struct nvsmi_topo *m, int comp[NVSMI_MAX_COLS]);

/* Summary in the shape of the fixtures' .expect.json: gpus, nics, nvlink,
 * gpu_pairs (every pair known), nearest_nic, truncated, nic_legend. */
json_t *nvsmi_topo_summary(const struct nvsmi_topo *m);

#endif
