/* CUDA driver and NCCL loaded at run time (see nccl_lib.h). */
#include "checks/nccl/nccl_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *open_lib(const char *env, const char *dflt, char *path, size_t plen,
		      char *why, size_t len)
{
	const char *over = getenv(env);
	const char *name = over && *over ? over : dflt;
	void *h;

	snprintf(path, plen, "%s", name);
	dlerror();
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		snprintf(why, len, "%s", e ? e : "dlopen failed");
	}
	return h;
}

/* The first of @names that the library exports, or NULL. */
static void *sym(void *h, const char *const *names, const char **missing)
{
	for (; *names; names++) {
		void *p = dlsym(h, *names);

		if (p)
			return p;
	}
	if (!*missing)
		*missing = names[-1];
	return NULL;
}

#define SYM(h, field, miss, ...)                                               \
	do {                                                                   \
		static const char *const names_[] = { __VA_ARGS__, NULL };     \
		*(void **)&(field) = sym((h), names_, &(miss));                  \
	} while (0)

int ncr_cuda_load(struct ncr_cuda *c, char *why, size_t len)
{
	const char *miss = NULL;
	char err[512];

	memset(c, 0, sizeof(*c));
	c->h = open_lib("FABCHECK_LIBCUDA", "libcuda.so.1", c->path, sizeof(c->path), err,
			sizeof(err));
	if (!c->h) {
		snprintf(why, len,
			 "no CUDA driver: cannot load %s (%s); install the NVIDIA driver (it "
			 "provides libcuda.so.1) and run on a node with a GPU",
			 c->path, err);
		return -ENOENT;
	}
	SYM(c->h, c->init, miss, "cuInit");
	SYM(c->h, c->driver_version, miss, "cuDriverGetVersion");
	SYM(c->h, c->device_count, miss, "cuDeviceGetCount");
	SYM(c->h, c->device_get, miss, "cuDeviceGet");
	SYM(c->h, c->device_name, miss, "cuDeviceGetName");
	SYM(c->h, c->device_bus_id, miss, "cuDeviceGetPCIBusId");
	SYM(c->h, c->ctx_retain, miss, "cuDevicePrimaryCtxRetain");
	SYM(c->h, c->ctx_release, miss, "cuDevicePrimaryCtxRelease_v2",
	    "cuDevicePrimaryCtxRelease");
	SYM(c->h, c->ctx_set, miss, "cuCtxSetCurrent");
	SYM(c->h, c->stream_create, miss, "cuStreamCreate");
	SYM(c->h, c->stream_destroy, miss, "cuStreamDestroy_v2");
	SYM(c->h, c->stream_query, miss, "cuStreamQuery");
	SYM(c->h, c->stream_sync, miss, "cuStreamSynchronize");
	SYM(c->h, c->mem_alloc, miss, "cuMemAlloc_v2");
	SYM(c->h, c->mem_free, miss, "cuMemFree_v2");
	SYM(c->h, c->memset_d32, miss, "cuMemsetD32_v2");
	SYM(c->h, c->memcpy_dtoh, miss, "cuMemcpyDtoH_v2");
	if (miss) {
		snprintf(why, len,
			 "%s has no %s: the CUDA driver is too old or this is not a CUDA "
			 "driver; install a current NVIDIA driver",
			 c->path, miss);
		ncr_cuda_unload(c);
		return -ENOSYS;
	}
	*(void **)&c->error_string = dlsym(c->h, "cuGetErrorString");
	return 0;
}

void ncr_cuda_unload(struct ncr_cuda *c)
{
	if (c->h)
		dlclose(c->h);
	c->h = NULL;
}

const char *ncr_cuda_strerror(const struct ncr_cuda *c, ncr_cures r, char *buf, size_t len)
{
	const char *s = NULL;

	if (c->error_string && c->error_string(r, &s) != NCR_CUDA_SUCCESS)
		s = NULL;
	if (r == 100)
		snprintf(buf, len, "CUDA_ERROR_NO_DEVICE (100): %s",
			 s ? s : "no CUDA-capable device is detected");
	else if (r == 34)
		snprintf(buf, len, "CUDA_ERROR_STUB_LIBRARY (34): %s",
			 s ? s : "the CUDA driver is a stub library");
	else
		snprintf(buf, len, "CUDA error %d%s%s", r, s ? ": " : "", s ? s : "");
	return buf;
}

int ncr_nccl_load(struct ncr_nccl *n, char *why, size_t len)
{
	const char *miss = NULL;
	char err[512];

	memset(n, 0, sizeof(*n));
	n->h = open_lib("FABCHECK_LIBNCCL", "libnccl.so.2", n->path, sizeof(n->path), err,
			sizeof(err));
	if (!n->h) {
		snprintf(why, len,
			 "no NCCL: cannot load %s (%s); install NCCL (the libnccl2 package, or "
			 "the nvidia-nccl-cu* wheel) and put its folder in LD_LIBRARY_PATH",
			 n->path, err);
		return -ENOENT;
	}
	SYM(n->h, n->get_version, miss, "ncclGetVersion");
	SYM(n->h, n->get_unique_id, miss, "ncclGetUniqueId");
	SYM(n->h, n->comm_init_rank, miss, "ncclCommInitRank");
	SYM(n->h, n->all_reduce, miss, "ncclAllReduce");
	SYM(n->h, n->comm_destroy, miss, "ncclCommDestroy");
	SYM(n->h, n->error_string, miss, "ncclGetErrorString");
	SYM(n->h, n->async_error, miss, "ncclCommGetAsyncError");
	if (miss) {
		snprintf(why, len,
			 "%s has no %s: NCCL is older than 2.4 or this is not NCCL; install "
			 "a current NCCL",
			 n->path, miss);
		ncr_nccl_unload(n);
		return -ENOSYS;
	}
	*(void **)&n->comm_abort = dlsym(n->h, "ncclCommAbort");
	return 0;
}

void ncr_nccl_unload(struct ncr_nccl *n)
{
	if (n->h)
		dlclose(n->h);
	n->h = NULL;
}
