/*
 * The CUDA driver API and NCCL, loaded at run time: the driver by gdr/cudrv.c,
 * dlopen("libnccl.so.2") here, with our own minimal declarations. Nothing of
 * CUDA or NCCL is needed to build. FABCHECK_LIBCUDA=PATH and
 * FABCHECK_LIBNCCL=PATH load other libraries instead (test and diagnostic
 * hooks: the CLI tests use stand-ins to reach every error path without a
 * GPU).
 */
#ifndef FC_CTL_NCCL_LIB_H
#define FC_CTL_NCCL_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "gdr/cudrv.h"

typedef struct {
	char internal[128];
} ncr_unique_id;
typedef void *ncr_comm;

#define NCR_NCCL_FLOAT32 7
#define NCR_NCCL_SUM 0
#define NCR_NCCL_IN_PROGRESS 7

struct ncr_nccl {
	void *h;
	const char *path; /* the library loaded, or tried */
	int (*get_version)(int *);
	int (*get_unique_id)(ncr_unique_id *);
	int (*comm_init_rank)(ncr_comm *, int, ncr_unique_id, int);
	int (*all_reduce)(const void *, void *, size_t, int, int, ncr_comm, fc_custream);
	int (*comm_destroy)(ncr_comm);
	int (*comm_abort)(ncr_comm); /* may be NULL */
	const char *(*error_string)(int);
	int (*async_error)(ncr_comm, int *);
};

/*
 * Loads the CUDA driver (gdr/cudrv.h): 0, or -ENOENT (no library), -ENOSYS
 * (an entry point is missing: a driver too old or not a CUDA driver). @why
 * says which and what to do; nothing is logged.
 */
int ncr_cuda_load(struct fc_cuda *c, char *why, size_t len);

/* Loads NCCL: 0, -ENOENT or -ENOSYS with @why, as ncr_cuda_load. */
int ncr_nccl_load(struct ncr_nccl *n, char *why, size_t len);
void ncr_nccl_unload(struct ncr_nccl *n);

#endif
