/*
 * TEST ONLY: a stand-in for libcuda.so.1 with the driver entry points
 * `fabcheck nccl-worker` loads, so that the run's plumbing and its error
 * paths are tested on machines without a GPU. It tests fabcheck, not CUDA:
 * "device memory" is host memory, streams do nothing. Loaded through
 * FABCHECK_LIBCUDA=path.
 *
 * FAKECUDA selects the behaviour (comma separated):
 *   nodev  cuInit -> CUDA_ERROR_NO_DEVICE (100)   stub  cuInit -> 34
 *   zero   no device                               oom   cuMemAlloc -> 2
 *   stall  streams never finish (cuStreamQuery -> CUDA_ERROR_NOT_READY)
 * FAKECUDA_GPUS sets the device count (default 2).
 * Built with -DFAKE_OLD it lacks cuMemAlloc_v2 (a driver too old).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define EXPORT __attribute__((visibility("default")))

static int mode(const char *what)
{
	const char *env = getenv("FAKECUDA");
	size_t n = strlen(what);

	for (const char *p = env; p && *p;) {
		if (!strncmp(p, what, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

static int ngpus(void)
{
	const char *e = getenv("FAKECUDA_GPUS");

	return mode("zero") ? 0 : e ? atoi(e) : 2;
}

EXPORT CUresult cuInit(unsigned flags);
EXPORT CUresult cuInit(unsigned flags)
{
	(void)flags;
	return mode("nodev") ? 100 : mode("stub") ? 34 : 0;
}

EXPORT CUresult cuDriverGetVersion(int *v);
EXPORT CUresult cuDriverGetVersion(int *v)
{
	*v = 12040;
	return 0;
}

EXPORT CUresult cuDeviceGetCount(int *n);
EXPORT CUresult cuDeviceGetCount(int *n)
{
	*n = ngpus();
	return 0;
}

EXPORT CUresult cuDeviceGet(int *d, int i);
EXPORT CUresult cuDeviceGet(int *d, int i)
{
	if (i < 0 || i >= ngpus())
		return 101;
	*d = i;
	return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, int d);
EXPORT CUresult cuDeviceGetName(char *name, int len, int d)
{
	snprintf(name, (size_t)len, "Fake GPU %d", d);
	return 0;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *bus, int len, int d);
EXPORT CUresult cuDeviceGetPCIBusId(char *bus, int len, int d)
{
	snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x3b + d);
	return 0;
}

static int ctx_token;

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int d);
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	(void)d;
	*ctx = &ctx_token;
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int d);
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int d)
{
	(void)d;
	return 0;
}

EXPORT CUresult cuCtxSetCurrent(void *ctx);
EXPORT CUresult cuCtxSetCurrent(void *ctx)
{
	return ctx == &ctx_token ? 0 : 201;
}

EXPORT CUresult cuStreamCreate(void **s, unsigned flags);
EXPORT CUresult cuStreamCreate(void **s, unsigned flags)
{
	(void)flags;
	*s = malloc(1);
	return 0;
}

EXPORT CUresult cuStreamDestroy_v2(void *s);
EXPORT CUresult cuStreamDestroy_v2(void *s)
{
	free(s);
	return 0;
}

EXPORT CUresult cuStreamQuery(void *s);
EXPORT CUresult cuStreamQuery(void *s)
{
	(void)s;
	return mode("stall") ? 600 : 0;
}

EXPORT CUresult cuStreamSynchronize(void *s);
EXPORT CUresult cuStreamSynchronize(void *s)
{
	(void)s;
	return 0;
}

#ifndef FAKE_OLD
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len);
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len)
{
	void *m = mode("oom") ? NULL : malloc(len);

	if (!m)
		return 2;
	*p = (CUdeviceptr)(uintptr_t)m;
	return 0;
}
#endif

EXPORT CUresult cuMemFree_v2(CUdeviceptr p);
EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return 0;
}

EXPORT CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n);
EXPORT CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n)
{
	unsigned *u = (unsigned *)(uintptr_t)p;

	for (size_t i = 0; i < n; i++)
		u[i] = v;
	return 0;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	memcpy(dst, (void *)(uintptr_t)src, n);
	return 0;
}

EXPORT CUresult cuGetErrorString(CUresult r, const char **s);
EXPORT CUresult cuGetErrorString(CUresult r, const char **s)
{
	*s = r == 100 ? "no CUDA-capable device is detected" :
	     r == 34 ? "CUDA driver is a stub library" :
	     r == 2 ? "out of memory" : "unknown error";
	return 0;
}
