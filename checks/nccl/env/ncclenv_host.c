/* Facts about this node that NCCL settings depend on. */
#include "checks/nccl/env/ncclenv.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_add(char ***list, size_t *n, const char *name)
{
	char **l;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], name))
			return 0;
	l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*list = l;
	l[*n] = strdup(name);
	if (!l[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int list_dir(const char *path, char ***list, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0; /* absent: no such devices */
	while (!rc && (e = readdir(d)))
		if (e->d_name[0] != '.')
			rc = list_add(list, n, e->d_name);
	closedir(d);
	if (*n)
		qsort(*list, *n, sizeof(**list), cmp_str);
	return rc;
}

static int list_ifaddrs(char ***list, size_t *n)
{
	struct ifaddrs *ifa, *i;
	int rc = 0;

	if (getifaddrs(&ifa)) {
		fc_warn("cannot list network interfaces: %s", strerror(errno));
		return 0;
	}
	for (i = ifa; i && !rc; i = i->ifa_next)
		if (i->ifa_name)
			rc = list_add(list, n, i->ifa_name);
	freeifaddrs(ifa);
	if (*n)
		qsort(*list, *n, sizeof(**list), cmp_str);
	return rc;
}

int ncclenv_host_probe(const char *sysfs, struct ncclenv_host *h)
{
	/* The files NCCL's IB plugin looks for (nccl-rules.md §3). */
	static const char *const peermem[] = { "kernel/mm/memory_peers/nv_mem/version",
					       "kernel/mm/memory_peers/nv_mem_nc/version",
					       "kernel/mm/memory_peers/nvidia-peermem/version",
					       "module/nvidia_peermem/version",
					       "module/nvidia_peermem" };
	const char *root = sysfs ? sysfs : "/sys";
	char path[512];
	int rc;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/class/net", root);
	rc = sysfs ? list_dir(path, &h->ifnames, &h->n_if) : list_ifaddrs(&h->ifnames, &h->n_if);
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	if (!rc)
		rc = list_dir(path, &h->rdma, &h->n_rdma);
	if (rc) {
		fc_err("probing %s: out of memory", root);
		ncclenv_host_free(h);
		return rc;
	}
	for (size_t i = 0; i < FC_ARRAY_SIZE(peermem) && !h->peermem; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, peermem[i]);
		if (access(path, F_OK) == 0) {
			h->peermem = 1;
			snprintf(h->peermem_path, sizeof(h->peermem_path), "%s", path);
		}
	}
	snprintf(path, sizeof(path), "%s/module/nvidia", root);
	h->nvidia = access(path, F_OK) == 0;
	return 0;
}

void ncclenv_host_free(struct ncclenv_host *h)
{
	for (size_t i = 0; i < h->n_if; i++)
		free(h->ifnames[i]);
	for (size_t i = 0; i < h->n_rdma; i++)
		free(h->rdma[i]);
	free(h->ifnames);
	free(h->rdma);
	memset(h, 0, sizeof(*h));
}
