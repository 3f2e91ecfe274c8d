/*
 * fabcheck nccl env: what NCCL will make of a job's NCCL_* settings.
 *
 * Pure parts (snippet parser, knowledge base, checks) take recorded input;
 * the host probe (interfaces, RDMA devices, peermem) and the libnccl.so.2
 * scan are kept apart so tests can feed their own.
 */
#ifndef FC_NCCLENV_H
#define FC_NCCLENV_H

#include <jansson.h>
#include <stddef.h>

#include "core/fc.h"

/* ---- variables read from a snippet or the environment ---- */

struct ncclenv_var {
	char *name;
	char *value;
	int line;    /* line of the snippet, 0 for the environment */
	int dynamic; /* value holds a $expansion or `command`: not checked */
};

struct ncclenv_vars {
	struct ncclenv_var *v;
	size_t n, cap;
};

int ncclenv_vars_add(struct ncclenv_vars *vs, const char *name, const char *value,
		     int line, int dynamic);
void ncclenv_vars_free(struct ncclenv_vars *vs);

/*
 * Parses a shell snippet or env file: `export A=B C=D`, `A=B`, `A=B cmd`,
 * `env A=B cmd`, mpirun `-x A=B`, `-genv A B`, csh `setenv A B`, docker
 * `-e A=B`, quotes, backslash continuations, comments. Keeps only NCCL_*
 * names. Returns 0, or -EINVAL after logging "SRC:LINE: ..." (unterminated
 * quote).
 */
int ncclenv_parse(const char *text, const char *src, struct ncclenv_vars *out);

/* ---- knowledge base (ncclenv_kb.c) ---- */

/* The shipped list: names of NCCL ncclenv_base_version (from its library)
 * and of ncclenv_shipped_version (from its source); all of them, or one
 * part (@newer 0: base, 1: newer). */
extern const char ncclenv_shipped_version[];
extern const char ncclenv_base_version[];
const char *const *ncclenv_shipped_names(size_t *n);
const char *const *ncclenv_shipped_part(int newer, size_t *n);

struct ncclenv_deprecated {
	const char *name;
	const char *replacement; /* NULL: removed without replacement */
	const char *why;
};
/* Entry for a deprecated/renamed/foreign name, or NULL. */
const struct ncclenv_deprecated *ncclenv_deprecated_find(const char *name);

/*
 * Checks @value of @name against NCCL's parser. Returns 1 when NCCL would
 * reject or misread it and writes the reason and the accepted forms to @why;
 * 0 when fine or not checkable (@why may then hold a note, or be empty).
 */
int ncclenv_value_check(const char *name, const char *value, char *why, size_t len);

/* Level names and numbers of NCCL_NET_GDR_LEVEL / NCCL_P2P_LEVEL as NCCL
 * orders them today (LOC 0 ... SYS 9); -1 for a value NCCL does not read. */
int ncclenv_level_parse(const char *value);
/* A path type of `nvidia-smi topo -m` / fabcheck topo (PIX, NODE, NV4, X...)
 * on the same scale; -1 when unknown. */
int ncclenv_topo_dist(const char *type);
const char *ncclenv_level_name(int level);

/* Levenshtein distance, for suggestions. */
int ncclenv_edit_distance(const char *a, const char *b);

/* ---- known names from an installed libnccl.so.2 (ncclenv_lib.c) ---- */

/* Finds libnccl.so.2 as the dynamic loader would (dlopen, then its path).
 * Returns 0 and writes the path, or -ENOENT. */
int ncclenv_lib_find(char *path, size_t len);
/* Collects the distinct "NCCL_[A-Z0-9_]+" strings of the ELF file's
 * .rodata (the whole file when it has no section table). Returns 0 and a
 * sorted array of names (free with ncclenv_names_free), or -errno after
 * logging. */
int ncclenv_lib_scan(const char *path, char ***names, size_t *n);
void ncclenv_names_free(char **names, size_t n);

/* ---- facts about this node (ncclenv_host.c) ---- */

struct ncclenv_host {
	char **ifnames;
	size_t n_if;
	char **rdma;	/* /sys/class/infiniband entries */
	size_t n_rdma;
	int peermem;	/* a peer-memory file NCCL looks for exists */
	int nvidia;	/* the nvidia kernel module is loaded (dma-buf possible) */
	char peermem_path[512];
};

/* Probes @sysfs (NULL: /sys): class/net (or getifaddrs when @sysfs is
 * NULL), class/infiniband, module/nvidia_peermem, kernel/mm/memory_peers,
 * module/nvidia. Returns 0. */
int ncclenv_host_probe(const char *sysfs, struct ncclenv_host *h);
void ncclenv_host_free(struct ncclenv_host *h);

/* ---- the checks (ncclenv_check.c) ---- */

struct ncclenv_opts {
	const char *const *known; /* names NCCL reads */
	size_t n_known;
	const char *known_from;	  /* "libnccl" path, or NULL for the shipped list */
	const struct ncclenv_host *host; /* NULL: no checks against this node */
	const json_t *topo;		 /* fabcheck topo --json document, or NULL */
};

/* Judges every variable; returns {"verdict","findings","variables":[...]}. */
json_t *ncclenv_check(const struct ncclenv_opts *o, const struct ncclenv_vars *vs);

/*
 * For the log checker (`NCCL_X set by environment to Y` lines): judges @n
 * name/value pairs with the shipped list, no host probe, and @topo (or
 * NULL). Same document as ncclenv_check.
 */
json_t *ncclenv_check_vars(const char *const *names, const char *const *values, int n,
			   const json_t *topo);

/* ---- the command (cmd_ncclenv.c) ---- */

int cmd_nccl_env(struct fc_ctx *ctx, int argc, char **argv);
extern const char usage_nccl_env[];

#endif
