/*
 * Libraries loaded at run time (the CUDA driver, NCCL): the library named by
 * an environment variable or its usual name, and a table of the entry points
 * taken from it, each by its newest name first. The loaders of gdr/cudrv.c
 * and checks/nccl/run/nccl_lib.c are written on these.
 */
#ifndef FC_GDR_DL_H
#define FC_GDR_DL_H

#include <stddef.h>

/* One entry point: where it goes in the API struct and its names. */
struct fc_dl_sym {
	size_t off;
	int required;
	const char *names[3]; /* newest first, NULL ended */
};

#define FC_DL_SYM(type, field, req, ...) \
	{ offsetof(type, field), req, { __VA_ARGS__, NULL } }

/*
 * Opens getenv(@env) when set and not empty, else @dflt, into *@h (*@path
 * names it, a string that outlives the call) and fills the function
 * pointers of @api by @syms (NULL for an entry point it lacks). 0; -ENOENT
 * when it cannot be opened (@err: dlopen's reason); -ENOSYS when a required
 * entry point is missing (@err: the first one's name; the library is closed
 * again). Nothing is logged.
 */
int fc_dl_load(void **h, const char **path, const char *env, const char *dflt, void *api,
	       const struct fc_dl_sym *syms, size_t n, char *err, size_t len);

#endif
