/*
 * Parser of `nvidia-smi topo -m` text: the matrix of GPU/NIC labels and
 * cells (X, NV#, PIX, PXB, PHB, NODE, SYS), the affinity columns, the NIC
 * legend. Tolerates what pasted output looks like (FORMATS.md section 2 and
 * the captures of tests/real/topo): prompts and indents, TABs or spaces, lost
 * TABs that fuse cells ("NODEPXB", "NIC8NIC9") or the CPU and NUMA affinity
 * ("0-45,92-1370"), the terminal's underline around the header (ESC[4m ...
 * ESC[0m, or "[4m" as a paste shows it), rule lines and column bars a person
 * drew ("-----", box drawing, "|"), a grep excerpt whose first GPU is not
 * GPU0, NUMA affinity lists ("0,3-9,11-17"), trailing blanks, truncated
 * excerpts, a second (-p2p) matrix after the first. Pure: libc and jansson.
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
	int numa_aff[NVSMI_MAX_COLS]; /* first node of the NUMA affinity; -1 absent or N/A */
	char numa_list[NVSMI_MAX_COLS][64]; /* NUMA affinity as printed: "0", "0,3-9,11-17" */
	int gpu_numa[NVSMI_MAX_COLS]; /* -1 when absent or N/A */
	char gpu_numa_txt[NVSMI_MAX_COLS][16]; /* GPU NUMA ID as printed: "2", "N/A" */
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

/*
 * 1 when GPU column @c has its memory on a NUMA node of its own (a number in
 * GPU NUMA ID): a GPU on a coherent chip-to-chip link to a Grace CPU (GH200,
 * GB200, GB300). nvidia-smi has no cell for C2C and prints SYS between such a
 * GPU and every NIC, though a NIC on its own CPU is reached GPU->C2C->CPU->
 * PCIe (NCCL: P2C). Source: the GB200 captures in tests/real/topo (GPU NUMA ID
 * 2, 10, 18, 26: the GPUs' HBM nodes, the CPUs being nodes 0 and 1) against
 * every x86 capture there, which prints N/A; NCCL topo.cc ncclTopoAddC2c.
 */
int nvsmi_topo_gpu_c2c(const struct nvsmi_topo *m, int c);

/* Summary in the shape of the fixtures' .expect.json: gpus, nics, nvlink,
 * gpu_pairs (every pair known), nearest_nic, truncated, nic_legend, and per
 * GPU as printed: cpu_affinity, numa_affinity, gpu_numa_id; c2c (GPU labels
 * nvsmi_topo_gpu_c2c takes). */
json_t *nvsmi_topo_summary(const struct nvsmi_topo *m);

#endif
