/* The CUDA driver API loaded at run time: one table of entry points (see cudrv.h). */
#include "gdr/cudrv.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/fc.h"
#include "gdr/dl.h"

#define SYM(field, req, ...) FC_DL_SYM(struct fc_cuda, field, req, __VA_ARGS__)

static const struct fc_dl_sym cuda_syms[] = {
	SYM(init, 1, "cuInit"),
	SYM(driver_version, 1, "cuDriverGetVersion"),
	SYM(device_count, 1, "cuDeviceGetCount"),
	SYM(device_get, 1, "cuDeviceGet"),
	SYM(device_name, 1, "cuDeviceGetName"),
	SYM(device_attr, 1, "cuDeviceGetAttribute"),
	SYM(device_bus_id, 1, "cuDeviceGetPCIBusId"),
	SYM(ctx_retain, 1, "cuDevicePrimaryCtxRetain"),
	SYM(ctx_release, 1, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
	SYM(ctx_set_current, 1, "cuCtxSetCurrent"),
	SYM(ctx_sync, 1, "cuCtxSynchronize"),
	SYM(stream_create, 1, "cuStreamCreate"),
	SYM(stream_destroy, 1, "cuStreamDestroy_v2"),
	SYM(stream_query, 1, "cuStreamQuery"),
	SYM(stream_sync, 1, "cuStreamSynchronize"),
	SYM(mem_alloc, 1, "cuMemAlloc_v2"),
	SYM(mem_free, 1, "cuMemFree_v2"),
	SYM(memset_d32, 1, "cuMemsetD32_v2"),
	SYM(memcpy_htod, 1, "cuMemcpyHtoD_v2"),
	SYM(memcpy_dtoh, 1, "cuMemcpyDtoH_v2"),
	SYM(host_alloc, 0, "cuMemAllocHost_v2"),
	SYM(host_free, 0, "cuMemFreeHost"),
	SYM(pointer_set_attr, 0, "cuPointerSetAttribute"),
	SYM(error_name, 0, "cuGetErrorName"),
	SYM(error_string, 0, "cuGetErrorString"),
	SYM(range_handle, 0, "cuMemGetHandleForAddressRange"),
	SYM(flush_rdma, 0, "cuFlushGPUDirectRDMAWrites"),
};

int fc_cuda_load(struct fc_cuda *c, char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	return fc_dl_load(&c->lib, &c->path, "FABCHECK_LIBCUDA", "libcuda.so.1", c, cuda_syms,
			  FC_ARRAY_SIZE(cuda_syms), err, len);
}

void fc_cuda_unload(struct fc_cuda *c)
{
	if (c->lib)
		dlclose(c->lib);
	c->lib = NULL;
}

const char *fc_cuda_init_advice(fc_cures r)
{
	/* cuda.h: "the system is not yet ready ... fabric manager" (802) and
	 * "mismatch between the versions of the display driver and the CUDA
	 * driver" (803). */
	if (r == FC_CUDA_ERROR_SYSTEM_NOT_READY)
		return "; fix: on NVSwitch systems (HGX, DGX) start the fabric manager (systemctl start nvidia-fabricmanager; its version must equal the driver's) and check nvidia-smi -q | grep -i fabric";
	if (r == FC_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
		return "; fix: the CUDA user-space driver (libcuda.so) and the kernel module differ in version: reboot after a driver update, or reinstall one driver (cat /proc/driver/nvidia/version against the libcuda.so version)";
	return "";
}

const char *fc_cuda_strerror(const struct fc_cuda *c, fc_cures r, char *buf, size_t len)
{
	const char *name = NULL, *what = NULL;

	if (!c->error_name || c->error_name(r, &name) != FC_CUDA_SUCCESS)
		name = NULL;
	if (!c->error_string || c->error_string(r, &what) != FC_CUDA_SUCCESS)
		what = NULL;
	if (name)
		snprintf(buf, len, "%s (%d)%s%s", name, r, what ? ": " : "", what ? what : "");
	else
		snprintf(buf, len, "CUDA error %d%s%s", r, what ? ": " : "", what ? what : "");
	return buf;
}
