/*
 * PCIe distance between a GPU and an HCA from the sysfs device tree, and
 * the peermem probe. The classification is pure (resolved paths in, class
 * out); this is a small adapter until the shared topology code (checks/)
 * lands, after which gdr_path_between() becomes a call into it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/util.h"
#include "gdr.h"

#define MAX_HOPS 32

/* "pci0000:00": a PCI root (host bridge) component. */
static int is_root(const char *c, size_t n)
{
	unsigned dom, bus;
	char tail;

	return n > 3 && !strncmp(c, "pci", 3) && n < 32 &&
	       sscanf(c + 3, "%4x:%2x%c", &dom, &bus, &tail) == 2;
}

static int is_bdf(const char *c, size_t n)
{
	char tmp[32];
	uint64_t v;

	if (n >= sizeof(tmp))
		return 0;
	memcpy(tmp, c, n);
	tmp[n] = 0;
	return gdr_bdf_parse(tmp, &v) == 0 && strchr(tmp, ':') != strrchr(tmp, ':');
}

/*
 * Splits a resolved device path into its root and the chain of PCI
 * devices below it (the device itself last). Returns the chain length,
 * or -1 when there is no PCI root in the path.
 */
static int split_chain(const char *path, const char **root, size_t *rootlen,
		       const char *chain[], size_t lens[])
{
	const char *p = path, *e;
	int n = 0, seen_root = 0;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (!seen_root && is_root(p, (size_t)(e - p))) {
			*root = p;
			*rootlen = (size_t)(e - p);
			seen_root = 1;
		} else if (seen_root && is_bdf(p, (size_t)(e - p)) && n < MAX_HOPS) {
			chain[n] = p;
			lens[n++] = (size_t)(e - p);
		}
		p = e;
	}
	return seen_root && n > 0 ? n : -1;
}

enum gdr_path gdr_path_classify(const char *path_a, int numa_a, const char *path_b,
				int numa_b)
{
	const char *ca[MAX_HOPS], *cb[MAX_HOPS], *ra = NULL, *rb = NULL;
	size_t la[MAX_HOPS], lb[MAX_HOPS], rla = 0, rlb = 0;
	int na, nb, common = 0, hops;

	if (!path_a || !path_b)
		return GDR_PATH_UNKNOWN;
	na = split_chain(path_a, &ra, &rla, ca, la);
	nb = split_chain(path_b, &rb, &rlb, cb, lb);
	if (na < 0 || nb < 0)
		return GDR_PATH_UNKNOWN;
	if (rla != rlb || strncmp(ra, rb, rla)) {
		if (numa_a >= 0 && numa_b >= 0 && numa_a != numa_b)
			return GDR_PATH_SYS;
		return GDR_PATH_NODE;
	}
	/* Bridges above each device: the chain without the device itself. */
	na--;
	nb--;
	while (common < na && common < nb && la[common] == lb[common] &&
	       !strncmp(ca[common], cb[common], la[common]))
		common++;
	if (common == 0)
		return GDR_PATH_PHB;
	/*
	 * Below the common bridge, each device sits behind its own chain of
	 * ports. Under one switch that is one downstream port each (at most
	 * one switch crossed): PIX. More means several switches: PXB.
	 */
	hops = (na - common) + (nb - common);
	return hops <= 2 ? GDR_PATH_PIX : GDR_PATH_PXB;
}

/* Canonical sysfs name of a bus id: "0000:3b:00.0". */
static int canon_bdf(const char *bdf, char *buf, size_t len)
{
	uint64_t v;

	if (gdr_bdf_parse(bdf, &v))
		return -EINVAL;
	snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned)(v >> 16), (unsigned)(v >> 8) & 0xff,
		 (unsigned)(v >> 3) & 0x1f, (unsigned)v & 7);
	return 0;
}

static int resolve_dev(const char *sysfs, const char *bdf, char *path, int *numa)
{
	char canon[32], link[PATH_MAX], buf[32];

	if (canon_bdf(bdf, canon, sizeof(canon)))
		return -EINVAL;
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", sysfs, canon);
	if (!realpath(link, path))
		return -errno;
	snprintf(link, sizeof(link), "%s/numa_node", path);
	*numa = fc_read_file(link, buf, sizeof(buf)) > 0 ? atoi(buf) : -1;
	return 0;
}

enum gdr_path gdr_path_between(const char *sysfs, const char *bdf_a, const char *bdf_b)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	int numa_a, numa_b;

	if (!bdf_a || !bdf_b || resolve_dev(sysfs, bdf_a, pa, &numa_a) ||
	    resolve_dev(sysfs, bdf_b, pb, &numa_b))
		return GDR_PATH_UNKNOWN;
	return gdr_path_classify(pa, numa_a, pb, numa_b);
}

int gdr_hca_bus_id(const char *sysfs, const char *dev, char *buf, size_t len)
{
	char link[PATH_MAX], path[PATH_MAX];
	const char *base;

	snprintf(link, sizeof(link), "%s/class/infiniband/%s/device", sysfs, dev);
	if (!realpath(link, path))
		return -errno;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!is_bdf(base, strlen(base)))
		return -ENODEV; /* a software device (rxe) has no PCI address */
	snprintf(buf, len, "%s", base);
	return 0;
}

int gdr_peermem_loaded(const char *sysfs, char *seen, size_t len)
{
	static const char *const marks[] = {
		"module/nvidia_peermem",
		"kernel/mm/memory_peers/nv_mem/version",
		"kernel/mm/memory_peers/nv_mem_nc/version",
		"kernel/mm/memory_peers/nvidia-peermem/version",
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs, marks[i]);
		if (access(path, F_OK) == 0) {
			if (seen)
				snprintf(seen, len, "%s", path);
			return 1;
		}
	}
	return 0;
}

const char *gdr_sysfs_root(void)
{
	const char *env = getenv("FABCHECK_SYSFS");

	return env && *env ? env : "/sys";
}
