/*
 * Which NCCL release's rules topo's NCCL choices follow: the library the
 * loader would give a job (libnccl.so.2, or FABCHECK_LIBNCCL as `nccl run`
 * takes it), asked with ncclGetVersion, else the nccl.h a build would use.
 * Codes as NCCL_VERSION_CODE (src/nccl.h.in): major*10000 + minor*100 +
 * patch since 2.9; major*1000 + minor*100 + patch before (2.8.4 = 2804).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/pcitopo.h"

/* NCCL_VERSION_CODE of either encoding as major*10000 + minor*100 + patch. */
static int norm_code(int v)
{
	if (v <= 0)
		return 0;
	return v < 10000 ? v / 1000 * 10000 + v % 1000 / 100 * 100 + v % 100 : v;
}

static int probe_lib(char *how, size_t len)
{
	const char *name = getenv("FABCHECK_LIBNCCL");
	int (*get)(int *);
	int v = 0;
	void *h;

	name = name && *name ? name : "libnccl.so.2";
	/* RTLD_LOCAL: ncclGetVersion only returns NCCL_VERSION_CODE (src/init.cc). */
	h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		fc_dbg("topo: %s not loadable: %s", name, dlerror());
		return 0;
	}
	*(void **)&get = dlsym(h, "ncclGetVersion");
	if (get && get(&v) == 0 && norm_code(v) > 0)
		snprintf(how, len, "%s (ncclGetVersion)", name);
	else
		v = 0;
	dlclose(h);
	return norm_code(v);
}

/* NCCL_MAJOR/MINOR/PATCH of one nccl.h; 0 when it has not all three. */
static int probe_header(const char *path)
{
	char line[256];
	int major = -1, minor = -1, patch = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "#define NCCL_MAJOR %d", &major);
		sscanf(line, "#define NCCL_MINOR %d", &minor);
		sscanf(line, "#define NCCL_PATCH %d", &patch);
	}
	fclose(f);
	if (major < 2 || minor < 0 || minor > 99 || patch < 0 || patch > 99)
		return 0;
	return major * 10000 + minor * 100 + patch;
}

int topo_nccl_version_probe(char *how, size_t len)
{
	const char *cuda = getenv("CUDA_HOME");
	char paths[3][512] = { "/usr/include/nccl.h", "/usr/local/include/nccl.h", "" };
	int v = probe_lib(how, len);

	if (cuda && *cuda && strlen(cuda) < 400)
		snprintf(paths[2], sizeof(paths[2]), "%s/include/nccl.h", cuda);
	for (int i = 0; !v && i < 3; i++)
		if (paths[i][0] && (v = probe_header(paths[i])))
			snprintf(how, len, "%s", paths[i]);
	return v;
}

const char *topo_nccl_version_str(int code, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
	return buf;
}

void topo_nccl_set_version(struct topo *t, int version, const char *how)
{
	t->nccl_version = version > 0 ? version : TOPO_NCCL_NEWEST;
	snprintf(t->nccl_how, sizeof(t->nccl_how), "%s", how ? how : "given");
	topo_nccl_fuse(t);
}

int topo_nccl_rules(const struct topo *t, const char **how_p)
{
	/* Decided once, on first use: a cache in the tree the caller holds. */
	struct topo *w = (struct topo *)t;
	char how[128], ver[16];

	if (!w->nccl_version) {
		int v = topo_nccl_version_probe(how, sizeof(how));

		if (v)
			topo_nccl_set_version(w, v, how);
		else
			topo_nccl_set_version(w, TOPO_NCCL_NEWEST, NULL);
		if (!v)
			snprintf(w->nccl_how, sizeof(w->nccl_how),
				 "no libnccl.so.2 or nccl.h found: the newest rules known here (NCCL %s)",
				 topo_nccl_version_str(TOPO_NCCL_NEWEST, ver, sizeof(ver)));
	}
	if (how_p)
		*how_p = w->nccl_how;
	return w->nccl_version;
}
