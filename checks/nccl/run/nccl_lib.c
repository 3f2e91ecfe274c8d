/* CUDA driver and NCCL loaded at run time (see nccl_lib.h). */
#include "checks/nccl/run/nccl_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "core/fc.h"
#include "gdr/dl.h"

/* @why for what fc_dl_load returned: "no WHAT: cannot load PATH (ERR); FIX", or
 * "PATH has no ERR: OLD" for a missing entry point. Returns @ret. */
static int load_why(int ret, const char *what, const char *path, const char *err,
		    const char *fix, const char *old, char *why, size_t len)
{
	if (ret == -ENOENT)
		snprintf(why, len, "no %s: cannot load %s (%s); %s", what, path, err, fix);
	else if (ret)
		snprintf(why, len, "%s has no %s: %s", path, err, old);
	return ret;
}

int ncr_cuda_load(struct fc_cuda *c, char *why, size_t len)
{
	char err[512];
	int ret = fc_cuda_load(c, err, sizeof(err));

	return load_why(ret, "CUDA driver", c->path, err,
			"install the NVIDIA driver (it provides libcuda.so.1) and run on a node "
			"with a GPU",
			"the CUDA driver is too old or this is not a CUDA driver; install a "
			"current NVIDIA driver",
			why, len);
}

static const struct fc_dl_sym nccl_syms[] = {
	FC_DL_SYM(struct ncr_nccl, get_version, 1, "ncclGetVersion"),
	FC_DL_SYM(struct ncr_nccl, get_unique_id, 1, "ncclGetUniqueId"),
	FC_DL_SYM(struct ncr_nccl, comm_init_rank, 1, "ncclCommInitRank"),
	FC_DL_SYM(struct ncr_nccl, all_reduce, 1, "ncclAllReduce"),
	FC_DL_SYM(struct ncr_nccl, comm_destroy, 1, "ncclCommDestroy"),
	FC_DL_SYM(struct ncr_nccl, error_string, 1, "ncclGetErrorString"),
	FC_DL_SYM(struct ncr_nccl, async_error, 1, "ncclCommGetAsyncError"),
	FC_DL_SYM(struct ncr_nccl, comm_abort, 0, "ncclCommAbort"),
};

int ncr_nccl_load(struct ncr_nccl *n, char *why, size_t len)
{
	char err[512];
	int ret = fc_dl_load(&n->h, &n->path, "FABCHECK_LIBNCCL", "libnccl.so.2", n, nccl_syms,
			     FC_ARRAY_SIZE(nccl_syms), err, sizeof(err));

	return load_why(ret, "NCCL", n->path, err,
			"install NCCL (the libnccl2 package, or the nvidia-nccl-cu* wheel) and "
			"put its folder in LD_LIBRARY_PATH",
			"NCCL is older than 2.4 or this is not NCCL; install a current NCCL", why,
			len);
}

void ncr_nccl_unload(struct ncr_nccl *n)
{
	if (n->h)
		dlclose(n->h);
	n->h = NULL;
}
