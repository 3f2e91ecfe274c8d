/*
 * TEST ONLY: a stand-in for libcuda.so.1 that exports the driver entry
 * points fabcheck loads (GPU memory in gdr/, and the rank worker of
 * `fabcheck nccl run`) and answers with CUDA error codes, so that
 * fabcheck's handling of "driver present but no device", "stub library",
 * "no such GPU", "no dma-buf", a corrupting copy, a stalled stream, ... is
 * tested on machines without a GPU. It tests fabcheck's error handling, not
 * CUDA: "device memory" is host memory here, streams do nothing. Loaded
 * through FABCHECK_LIBCUDA=path. The one stand-in of the tests
 * (tests/cli/cases_gdr.sh, cases_ncclrun.sh, tests/rack/cases_gdr.sh).
 *
 * FAKECUDA selects the behaviour (comma separated):
 *   nodev    cuInit -> CUDA_ERROR_NO_DEVICE     zero   0 devices
 *   stub     cuInit -> CUDA_ERROR_STUB_LIBRARY  fail   cuInit -> 999
 *   nofm     cuInit -> 802 (no fabric manager)  mismatch cuInit -> 803
 *   nodmabuf DMA_BUF_SUPPORTED = 0              oom    cuMemAlloc -> OOM
 *   corrupt  every device-to-host copy flips the byte at offset 4113
 *   noexport cuMemGetHandleForAddressRange -> CUDA_ERROR_NOT_SUPPORTED
 *   nopcie   cuMemGetHandleForAddressRange refuses the PCIe mapping flag
 *   pcieonly cuMemGetHandleForAddressRange takes only the PCIe mapping flag
 *   flushfail cuFlushGPUDirectRDMAWrites -> CUDA_ERROR_NOT_SUPPORTED
 *   nosyncops cuPointerSetAttribute(SYNC_MEMOPS) -> CUDA_ERROR_INVALID_VALUE
 *   stall    streams never finish (cuStreamQuery -> CUDA_ERROR_NOT_READY)
 *   querybad cuDeviceGetPCIBusId of the last GPU -> CUDA_ERROR_INVALID_DEVICE
 *   ctxfail  cuDevicePrimaryCtxRetain -> CUDA_ERROR_DEVICES_UNAVAILABLE
 *   setctxfail cuCtxSetCurrent -> CUDA_ERROR_INVALID_CONTEXT
 *   htodfail cuMemcpyHtoD -> CUDA_ERROR_ILLEGAL_ADDRESS  dtohfail the same
 *            for cuMemcpyDtoH   syncfail the same for cuCtxSynchronize
 * (the codes and names as cuda.h's CUresult enum gives them).
 * FAKECUDA_GPUS sets the device count (default 2), FAKECUDA_NAME their name
 * (cuDeviceGetName; default "Fake GPU N (test library)"); FAKECUDA_BUSES their
 * PCI bus numbers, comma separated hex (default 3b,86). FAKECUDA_CC (80),
 * FAKECUDA_FLUSHOPTS (1) and FAKECUDA_ORDER (0) answer the compute
 * capability and the GPUDirect flush-options and writes-ordering attributes.
 * FAKECUDA_MEM_MIB gives the GPU's memory: a larger cuMemAlloc gets
 * CUDA_ERROR_OUT_OF_MEMORY (default: as much as the host lends).
 * Built with -DFAKE_OLD it lacks cuMemAlloc_v2 (a driver too old); with
 * -DFAKE_NO_FLUSH it lacks cuFlushGPUDirectRDMAWrites (before CUDA 11.3).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <unistd.h>

#include "../fake/fake_mode.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;

#define EXPORT __attribute__((visibility("default")))

static int ctx_token;

static int mode(const char *what)
{
	return fake_mode("FAKECUDA", what);
}

static int ngpus(void)
{
	const char *e = getenv("FAKECUDA_GPUS");

	return mode("zero") ? 0 : e ? atoi(e) : 2;
}

/* The bus number of GPU @d: the d-th of FAKECUDA_BUSES, else 3b, 86, 87... */
static unsigned bus_of(int d)
{
	const char *p = getenv("FAKECUDA_BUSES");

	for (int i = 0; p && *p; i++) {
		if (i == d)
			return (unsigned)strtoul(p, NULL, 16);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return d == 0 ? 0x3b : 0x85 + (unsigned)d;
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
	if (mode("nofm"))
		return 802;
	if (mode("mismatch"))
		return 803;
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
	*n = ngpus();
	return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal);
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	if (ordinal < 0 || ordinal >= ngpus())
		return 101;
	*d = ordinal;
	return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d);
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	const char *as = getenv("FAKECUDA_NAME"); /* a model's name, for checks by model */

	if (as)
		snprintf(name, (size_t)len, "%s", as);
	else
		snprintf(name, (size_t)len, "Fake GPU %d (test library)", d);
	return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d);
EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	(void)d;
	const char *e;

	if (attr == 124)
		*v = !mode("nodmabuf");
	else if (attr == 116)
		*v = 1;
	else if (attr == 75 || attr == 76) /* compute capability, FAKECUDA_CC (80) */
		*v = (e = getenv("FAKECUDA_CC")) ? (attr == 75 ? atoi(e) / 10 : atoi(e) % 10) :
						 (attr == 75 ? 8 : 0);
	else if (attr == 117) /* GPUDirect flush options, FAKECUDA_FLUSHOPTS (1: HOST) */
		*v = (e = getenv("FAKECUDA_FLUSHOPTS")) ? atoi(e) : 1;
	else if (attr == 118) /* GPUDirect writes ordering, FAKECUDA_ORDER (0: NONE) */
		*v = (e = getenv("FAKECUDA_ORDER")) ? atoi(e) : 0;
	else
		return 1;
	return 0;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d);
EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
	if (mode("querybad") && d == ngpus() - 1)
		return 101;
	snprintf(buf, (size_t)len, "0000:%02X:00.0", bus_of(d));
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	(void)d;
	if (mode("ctxfail"))
		return 46;
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
	return c == &ctx_token && !mode("setctxfail") ? 0 : 201;
}

EXPORT CUresult cuCtxSynchronize(void);
EXPORT CUresult cuCtxSynchronize(void)
{
	return mode("syncfail") ? 700 : 0;
}

#ifndef FAKE_OLD
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len);
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len)
{
	void *m;

	const char *mib = getenv("FAKECUDA_MEM_MIB");

	if (mode("oom") || (mib && len > strtoull(mib, NULL, 10) << 20))
		return 2;
	/* C11 wants the size a multiple of the alignment (ASan checks it). */
	m = aligned_alloc(65536, (len + 65535) & ~(size_t)65535);
	if (!m)
		return 2;
	*p = (CUdeviceptr)(unsigned long)m;
	return 0;
}
#endif

EXPORT CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n);
EXPORT CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n)
{
	unsigned *u = (unsigned *)(unsigned long)p;

	for (size_t i = 0; i < n; i++)
		u[i] = v;
	return 0;
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

EXPORT CUresult cuMemFree_v2(CUdeviceptr p);
EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(unsigned long)p);
	return 0;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len);
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len)
{
	if (mode("htodfail"))
		return 700;
	memcpy((void *)(unsigned long)dst, src, len);
	return 0;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len);
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len)
{
	if (mode("dtohfail"))
		return 700;
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
	return attr == 6 && !mode("nosyncops") ? 0 : 1;
}

EXPORT CUresult cuGetErrorString(CUresult r, const char **s);
EXPORT CUresult cuGetErrorString(CUresult r, const char **s)
{
	*s = r == 100 ? "no CUDA-capable device is detected" :
	     r == 34 ? "CUDA driver is a stub library" :
	     r == 2 ? "out of memory" :
	     r == 46 ? "CUDA-capable device(s) is/are busy or unavailable" :
	     r == 101 ? "invalid device ordinal" :
	     r == 201 ? "invalid device context" :
	     r == 700 ? "an illegal memory access was encountered" : "unknown error";
	return 0;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **s);
EXPORT CUresult cuGetErrorName(CUresult r, const char **s)
{
	switch (r) {
	case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 34: *s = "CUDA_ERROR_STUB_LIBRARY"; return 0;
	case 46: *s = "CUDA_ERROR_DEVICES_UNAVAILABLE"; return 0;
	case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
	case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
	case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
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
	if (type != 1 || flags > 1 || (flags && mode("nopcie")) || (!flags && mode("pcieonly")) || p % (unsigned long)pg ||
	    len % (unsigned long)pg)
		return 1;
	fd = memfd_create("fakecuda-dmabuf", MFD_CLOEXEC);
	if (fd < 0)
		return 999;
	*(int *)h = fd;
	return 0;
}

#ifndef FAKE_NO_FLUSH
/* Flushes nothing (host memory); checks the arguments fabcheck passes. */
EXPORT CUresult cuFlushGPUDirectRDMAWrites(int target, int scope);
EXPORT CUresult cuFlushGPUDirectRDMAWrites(int target, int scope)
{
	if (target != 0 || scope != 100)
		return 1;
	return mode("flushfail") ? 801 : 0;
}
#endif
