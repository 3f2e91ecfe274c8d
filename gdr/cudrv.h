/*
 * The CUDA driver API, loaded at run time: dlopen("libcuda.so.1"), or the
 * library FABCHECK_LIBCUDA names (a test and diagnostic hook: the tests
 * point it at a stand-in driver that answers with CUDA error codes). Only
 * the types, codes and entry points fabcheck uses are declared (values from
 * the CUDA driver API reference), by their versioned names (cuMemAlloc_v2,
 * ...), which is what cuda.h maps the plain names to; no CUDA header is
 * needed to build. One loader for GPU memory (gdr/cuda.c) and the rank
 * worker of `nccl run`.
 */
#ifndef FC_GDR_CUDRV_H
#define FC_GDR_CUDRV_H

#include <stddef.h>

typedef int fc_cures;
typedef int fc_cudev;
typedef unsigned long long fc_cuptr;
typedef struct CUctx_st *fc_cuctx;
typedef struct CUstream_st *fc_custream;

enum {
	FC_CUDA_SUCCESS = 0,
	FC_CUDA_ERROR_INVALID_VALUE = 1,
	FC_CUDA_ERROR_OUT_OF_MEMORY = 2,
	FC_CUDA_ERROR_STUB_LIBRARY = 34,
	FC_CUDA_ERROR_NO_DEVICE = 100,
	FC_CUDA_ERROR_NOT_READY = 600,
	FC_CUDA_ERROR_SYSTEM_NOT_READY = 802,
	FC_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
};

/* Device attributes (CUdevice_attribute) and flags, by their cuda.h names. */
enum {
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118,
	CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,
};
enum { CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6 };
/* cuMemGetHandleForAddressRange: map the dma-buf for PCIe (12.8+, where
 * the GPU has another path, as on Grace Hopper); older drivers refuse it. */
enum { CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1 };
enum { CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 1 };
/* cuFlushGPUDirectRDMAWrites: the current context, up to its owner. */
enum { CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX = 0,
       CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER = 100 };
/* CUflushGPUDirectRDMAWritesOptions (a bit mask) and
 * CUGPUDirectRDMAWritesOrdering: what attributes 117 and 118 answer. */
enum { CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST = 1 };
enum { CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER = 100 };

struct fc_cuda {
	void *lib;
	const char *path; /* the library loaded, or tried */
	/* required: a driver without one of these is refused */
	fc_cures (*init)(unsigned int flags);
	fc_cures (*driver_version)(int *v);
	fc_cures (*device_count)(int *n);
	fc_cures (*device_get)(fc_cudev *d, int ordinal);
	fc_cures (*device_name)(char *name, int len, fc_cudev d);
	fc_cures (*device_attr)(int *v, int attr, fc_cudev d);
	fc_cures (*device_bus_id)(char *buf, int len, fc_cudev d);
	fc_cures (*ctx_retain)(fc_cuctx *ctx, fc_cudev d);
	fc_cures (*ctx_release)(fc_cudev d);
	fc_cures (*ctx_set_current)(fc_cuctx ctx);
	fc_cures (*ctx_sync)(void);
	fc_cures (*stream_create)(fc_custream *s, unsigned int flags);
	fc_cures (*stream_destroy)(fc_custream s);
	fc_cures (*stream_query)(fc_custream s);
	fc_cures (*stream_sync)(fc_custream s);
	fc_cures (*mem_alloc)(fc_cuptr *p, size_t len);
	fc_cures (*mem_free)(fc_cuptr p);
	fc_cures (*memset_d32)(fc_cuptr p, unsigned int v, size_t n);
	fc_cures (*memcpy_htod)(fc_cuptr dst, const void *src, size_t len);
	fc_cures (*memcpy_dtoh)(void *dst, fc_cuptr src, size_t len);
	/* optional: NULL where the driver lacks them */
	fc_cures (*host_alloc)(void **p, size_t len);
	fc_cures (*host_free)(void *p);
	fc_cures (*pointer_set_attr)(const void *v, int attr, fc_cuptr p);
	fc_cures (*error_name)(fc_cures r, const char **s);
	fc_cures (*error_string)(fc_cures r, const char **s);
	fc_cures (*range_handle)(void *handle, fc_cuptr p, size_t len, int type,
				 unsigned long long flags);
	fc_cures (*flush_rdma)(int target, int scope);
};

/*
 * Loads the driver into @c: 0; -ENOENT when the library cannot be loaded
 * (@err: dlopen's reason); -ENOSYS when a required entry point is missing,
 * a driver too old or not a CUDA driver (@err: the entry point's name).
 * c->path names the library in every case; nothing is logged, the caller
 * says what to do.
 */
int fc_cuda_load(struct fc_cuda *c, char *err, size_t len);
void fc_cuda_unload(struct fc_cuda *c);

/* "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected", or
 * "CUDA error 999" when the driver has no name for it. */
const char *fc_cuda_strerror(const struct fc_cuda *c, fc_cures r, char *buf, size_t len);
/* The fix for a cuInit error that names its cause ("" for others):
 * 802 CUDA_ERROR_SYSTEM_NOT_READY (on NVSwitch systems: the fabric manager
 * is not running), 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (the user-space
 * driver library and the kernel module differ). */
const char *fc_cuda_init_advice(fc_cures r);

#endif
