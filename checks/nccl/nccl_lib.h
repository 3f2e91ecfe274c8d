/*
 * The CUDA driver API and NCCL, loaded at run time: dlopen("libcuda.so.1")
 * and dlopen("libnccl.so.2"), with our own minimal declarations. Nothing of
 * CUDA or NCCL is needed to build. FABCHECK_LIBCUDA=PATH and
 * FABCHECK_LIBNCCL=PATH load other libraries instead (test and diagnostic
 * hooks: the CLI tests use stand-ins to reach every error path without a
 * GPU).
 */
#ifndef FC_CTL_NCCL_LIB_H
#define FC_CTL_NCCL_LIB_H

#include <stddef.h>
#include <stdint.h>

typedef int ncr_cures;
typedef unsigned long long ncr_devptr;
typedef void *ncr_cuctx;
typedef void *ncr_custream;

#define NCR_CUDA_SUCCESS 0
#define NCR_CUDA_NOT_READY 600

struct ncr_cuda {
	void *h;
	char path[256];
	ncr_cures (*init)(unsigned);
	ncr_cures (*driver_version)(int *);
	ncr_cures (*device_count)(int *);
	ncr_cures (*device_get)(int *, int);
	ncr_cures (*device_name)(char *, int, int);
	ncr_cures (*device_bus_id)(char *, int, int);
	ncr_cures (*ctx_retain)(ncr_cuctx *, int);
	ncr_cures (*ctx_release)(int);
	ncr_cures (*ctx_set)(ncr_cuctx);
	ncr_cures (*stream_create)(ncr_custream *, unsigned);
	ncr_cures (*stream_destroy)(ncr_custream);
	ncr_cures (*stream_query)(ncr_custream);
	ncr_cures (*stream_sync)(ncr_custream);
	ncr_cures (*mem_alloc)(ncr_devptr *, size_t);
	ncr_cures (*mem_free)(ncr_devptr);
	ncr_cures (*memset_d32)(ncr_devptr, unsigned, size_t);
	ncr_cures (*memcpy_dtoh)(void *, ncr_devptr, size_t);
	ncr_cures (*error_string)(ncr_cures, const char **); /* may be NULL */
};

typedef struct {
	char internal[128];
} ncr_unique_id;
typedef void *ncr_comm;

#define NCR_NCCL_FLOAT32 7
#define NCR_NCCL_SUM 0
#define NCR_NCCL_IN_PROGRESS 7

struct ncr_nccl {
	void *h;
	char path[256];
	int (*get_version)(int *);
	int (*get_unique_id)(ncr_unique_id *);
	int (*comm_init_rank)(ncr_comm *, int, ncr_unique_id, int);
	int (*all_reduce)(const void *, void *, size_t, int, int, ncr_comm, ncr_custream);
	int (*comm_destroy)(ncr_comm);
	int (*comm_abort)(ncr_comm); /* may be NULL */
	const char *(*error_string)(int);
	int (*async_error)(ncr_comm, int *);
};

/*
 * Loads the driver: 0, or -ENOENT (no library), -ENOSYS (an entry point is
 * missing: a driver too old or not a CUDA driver). @why says which and what
 * to do; nothing is logged.
 */
int ncr_cuda_load(struct ncr_cuda *c, char *why, size_t len);
void ncr_cuda_unload(struct ncr_cuda *c);
/* "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected". */
const char *ncr_cuda_strerror(const struct ncr_cuda *c, ncr_cures r, char *buf, size_t len);

/* Loads NCCL: 0, -ENOENT or -ENOSYS with @why, as ncr_cuda_load. */
int ncr_nccl_load(struct ncr_nccl *n, char *why, size_t len);
void ncr_nccl_unload(struct ncr_nccl *n);

#endif
