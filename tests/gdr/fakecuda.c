/*
 * TEST ONLY: a stand-in for libcuda.so.1 that exports the driver entry
 * points fabcheck loads and answers with CUDA error codes, so that
 * fabcheck's handling of "driver present but no device", "stub library",
 * "no such GPU", "no dma-buf", a corrupting copy, ... is tested on machines
 * without a GPU. It tests fabcheck's error handling, not CUDA: "device
 * memory" is host memory here. Loaded through FABCHECK_LIBCUDA=path.
 *
 * FAKECUDA selects the behaviour (comma separated):
 *   nodev    cuInit -> CUDA_ERROR_NO_DEVICE     zero   0 devices
 *   stub     cuInit -> CUDA_ERROR_STUB_LIBRARY  fail   cuInit -> 999
 *   nodmabuf DMA_BUF_SUPPORTED = 0              oom    cuMemAlloc -> OOM
 *   corrupt  every device-to-host copy flips the byte at offset 4113
 *   noexport cuMemGetHandleForAddressRange -> CUDA_ERROR_NOT_SUPPORTED
 *   nopcie   cuMemGetHandleForAddressRange refuses the PCIe mapping flag
 *   flushfail cuFlushGPUDirectRDMAWrites -> CUDA_ERROR_NOT_SUPPORTED
 * Built with -DFAKE_OLD it lacks cuMemAlloc_v2 (a driver too old).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;

#define EXPORT __attribute__((visibility("default")))

static const char *const bus_ids[] = { "0000:3B:00.0", "0000:86:00.0" };
static int ctx_token;

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

EXPORT CUresult cuInit(unsigned int flags);
EXPORT CUresult cuInit(unsigned int flags)
{
	(void)flags;
	if (mode("nodev"))
		return 100;
	if (mode("stub"))
		return 34;
	if (mode("fail"))
		return 999;
	return 0;
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
	*n = mode("zero") ? 0 : 2;
	return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal);
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	if (ordinal < 0 || ordinal > 1)
		return 101;
	*d = ordinal;
	return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d);
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	snprintf(name, (size_t)len, "Fake GPU %d (test library)", d);
	return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d);
EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	(void)d;
	if (attr == 124)
		*v = !mode("nodmabuf");
	else if (attr == 116)
		*v = 1;
	else
		return 1;
	return 0;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d);
EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
	snprintf(buf, (size_t)len, "%s", bus_ids[d & 1]);
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	*c = &ctx_token;
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d);
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	(void)d;
	return 0;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c);
EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
	return c == &ctx_token ? 0 : 201;
}

EXPORT CUresult cuCtxSynchronize(void);
EXPORT CUresult cuCtxSynchronize(void)
{
	return 0;
}

#ifndef FAKE_OLD
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len);
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len)
{
	void *m;

	if (mode("oom"))
		return 2;
	m = aligned_alloc(65536, len);
	if (!m)
		return 2;
	*p = (CUdeviceptr)(unsigned long)m;
	return 0;
}
#endif

EXPORT CUresult cuMemFree_v2(CUdeviceptr p);
EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(unsigned long)p);
	return 0;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len);
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len)
{
	memcpy((void *)(unsigned long)dst, src, len);
	return 0;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len);
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len)
{
	memcpy(dst, (void *)(unsigned long)src, len);
	if (mode("corrupt") && len > 4113)
		((unsigned char *)dst)[4113] ^= 0x5a;
	return 0;
}

EXPORT CUresult cuMemAllocHost_v2(void **p, size_t len);
EXPORT CUresult cuMemAllocHost_v2(void **p, size_t len)
{
	*p = malloc(len);
	return *p ? 0 : 2;
}

EXPORT CUresult cuMemFreeHost(void *p);
EXPORT CUresult cuMemFreeHost(void *p)
{
	free(p);
	return 0;
}

EXPORT CUresult cuPointerSetAttribute(const void *v, int attr, CUdeviceptr p);
EXPORT CUresult cuPointerSetAttribute(const void *v, int attr, CUdeviceptr p)
{
	(void)v;
	(void)p;
	return attr == 6 ? 0 : 1;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s);
EXPORT CUresult cuGetErrorName(CUresult r, const char **s)
{
	switch (r) {
	case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 34: *s = "CUDA_ERROR_STUB_LIBRARY"; return 0;
	case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
	case 801: *s = "CUDA_ERROR_NOT_SUPPORTED"; return 0;
	case 999: *s = "CUDA_ERROR_UNKNOWN"; return 0;
	}
	return 1;
}

EXPORT CUresult cuMemGetHandleForAddressRange(void *h, CUdeviceptr p, size_t len, int type,
					      unsigned long long flags);
EXPORT CUresult cuMemGetHandleForAddressRange(void *h, CUdeviceptr p, size_t len, int type,
					      unsigned long long flags)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd;

	if (mode("noexport"))
		return 801;
	/* The driver wants host-page aligned ranges; so does this stand-in. */
	if (type != 1 || flags > 1 || (flags && mode("nopcie")) || p % (unsigned long)pg ||
	    len % (unsigned long)pg)
		return 1;
	fd = memfd_create("fakecuda-dmabuf", MFD_CLOEXEC);
	if (fd < 0)
		return 999;
	*(int *)h = fd;
	return 0;
}

/* Flushes nothing (host memory); checks the arguments fabcheck passes. */
EXPORT CUresult cuFlushGPUDirectRDMAWrites(int target, int scope);
EXPORT CUresult cuFlushGPUDirectRDMAWrites(int target, int scope)
{
	if (target != 0 || scope != 100)
		return 1;
	return mode("flushfail") ? 801 : 0;
}
