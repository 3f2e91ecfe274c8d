/*
 * NUMA locality (see numa.h): sysfs says where the HCA and the GPU sit,
 * libnuma places memory, sched_setaffinity pins, get_mempolicy checks.
 */
#include "gdr/numa.h"

#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "gdr/gdr.h"

int gdr_cpulist_parse(const char *text, cpu_set_t *set)
{
	const char *p = text;

	CPU_ZERO(set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
			p = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*p == ',')
			p++;
		else if (*p && !isspace((unsigned char)*p))
			return -EINVAL;
		while (isspace((unsigned char)*p))
			p++;
	}
	return CPU_COUNT(set) ? CPU_COUNT(set) : -EINVAL;
}

/* numa_node and local_cpulist of the PCI device behind @dir. */
static int read_locality(const char *dir, char *cpulist, size_t len)
{
	char path[512], buf[32];
	long node;

	snprintf(path, sizeof(path), "%s/numa_node", dir);
	if (fc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	node = strtol(buf, NULL, 10);
	snprintf(path, sizeof(path), "%s/local_cpulist", dir);
	if (cpulist && fc_read_file(path, cpulist, len) <= 0)
		cpulist[0] = '\0';
	return node >= 0 && node < 4096 ? (int)node : -1;
}

static int gpu_node(const char *bus)
{
	char dir[512], bdf[32];
	size_t n = strlen(bus);

	/* The driver prints "00000000:3B:00.0"; sysfs names "0000:3b:00.0". */
	if (n < 12 || n >= sizeof(bdf))
		return -1;
	snprintf(bdf, sizeof(bdf), "%s", bus + n - 12);
	for (char *c = bdf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", gdr_sysfs_root(), bdf);
	return read_locality(dir, NULL, 0);
}

int gdr_numa_of_cpus(const cpu_set_t *set)
{
	int node = -1;

	if (numa_available() < 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int m;

		if (!CPU_ISSET(c, set))
			continue;
		m = numa_node_of_cpu(c);
		if (m < 0 || (node >= 0 && m != node))
			return -1;
		node = m;
	}
	return node;
}

int gdr_numa_of_addr(const void *p)
{
	int node = -1;

	if (get_mempolicy(&node, NULL, 0, (void *)p, MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return node;
}

/* The node's CPUs: local_cpulist when sysfs gave it, else libnuma's. */
static int node_cpus(struct gdr_numa *n)
{
	struct bitmask *bm;

	if (n->hca_cpulist[0] && n->want_node == n->hca_node &&
	    gdr_cpulist_parse(n->hca_cpulist, &n->cpus) > 0)
		return CPU_COUNT(&n->cpus);
	CPU_ZERO(&n->cpus);
	bm = numa_allocate_cpumask();
	if (!bm)
		return 0;
	if (!numa_node_to_cpus(n->want_node, bm))
		for (unsigned c = 0; c < bm->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(bm, c))
				CPU_SET((int)c, &n->cpus);
	numa_free_cpumask(bm);
	return CPU_COUNT(&n->cpus);
}

void gdr_numa_setup(struct gdr_numa *n, const char *dev, const char *gpu_bus)
{
	char dir[512];

	memset(n, 0, sizeof(*n));
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/device", gdr_sysfs_root(), dev);
	n->hca_node = read_locality(dir, n->hca_cpulist, sizeof(n->hca_cpulist));
	n->gpu_node = gpu_bus ? gpu_node(gpu_bus) : -1;
	n->want_node = gpu_bus && n->gpu_node >= 0 ? n->gpu_node : n->hca_node;
	if (n->want_node < 0) {
		snprintf(n->why, sizeof(n->why), "sysfs gives %s no NUMA node (%s): buffer and threads left where the kernel puts them",
			 gpu_bus ? "the GPU and the HCA" : "the HCA",
			 n->hca_cpulist[0] ? "one node" : "no PCI device, or one node");
		return;
	}
	if (numa_available() < 0) {
		snprintf(n->why, sizeof(n->why), "the kernel has no NUMA support: nothing placed");
		n->want_node = -1;
		return;
	}
	n->ncpus = node_cpus(n);
	if (!n->ncpus) {
		snprintf(n->why, sizeof(n->why), "node %d has no CPUs: threads not pinned",
			 n->want_node);
		return;
	}
	if (sched_setaffinity(0, sizeof(n->cpus), &n->cpus)) {
		snprintf(n->why, sizeof(n->why), "cannot pin to the CPUs of node %d: %s",
			 n->want_node, strerror(errno));
		CPU_ZERO(&n->cpus);
		n->ncpus = 0;
		return;
	}
	n->pinned = 1;
}

static json_t *node_or_null(int node)
{
	return node >= 0 ? json_integer(node) : json_null();
}

json_t *gdr_numa_json(const struct gdr_numa *n, int buffer_node, int gpu_memory)
{
	cpu_set_t now;
	int cpus = -1;
	json_t *o;

	if (!sched_getaffinity(0, sizeof(now), &now))
		cpus = gdr_numa_of_cpus(&now);
	o = json_pack("{s:o, s:o, s:o, s:b}", "hca", node_or_null(n->hca_node), "buffer",
		      gpu_memory ? json_string("gpu") : node_or_null(buffer_node), "cpus",
		      node_or_null(cpus), "pinned", n->pinned);
	if (gpu_memory)
		json_object_set_new(o, "gpu", node_or_null(n->gpu_node));
	json_object_set_new(o, "cpu_list", n->hca_cpulist[0] ? json_string(n->hca_cpulist) :
							       json_null());
	if (n->why[0])
		json_object_set_new(o, "note", json_string(n->why));
	return o;
}

void gdr_numa_findings(json_t *doc, const json_t *side)
{
	const json_t *nj = json_object_get(side, "numa");
	const json_t *h = json_object_get(nj, "hca"), *b = json_object_get(nj, "buffer"),
		     *c = json_object_get(nj, "cpus"), *g = json_object_get(nj, "gpu");
	const char *node = fc_jstr(side, "node", "?"), *dev = fc_jstr(side, "device", "?");
	int hn;

	if (!json_is_integer(h))
		return;
	hn = (int)json_integer_value(h);
	if (json_is_integer(b) && json_integer_value(b) != hn)
		fc_finding(doc, FC_WARN,
			   "%s: the buffer is on NUMA node %d, %s on node %d: every byte crosses the socket link (often a 30-50%% loss); check numactl and the memory policy the worker runs under",
			   node, (int)json_integer_value(b), dev, hn);
	if (json_is_integer(c) && json_integer_value(c) != hn)
		fc_finding(doc, FC_WARN,
			   "%s: the worker's CPUs are on NUMA node %d, %s on node %d: run it on the HCA's CPUs (its cpuset or taskset may forbid them)",
			   node, (int)json_integer_value(c), dev, hn);
	if (json_is_integer(g) && json_integer_value(g) != hn)
		fc_finding(doc, FC_WARN,
			   "%s: the GPU is on NUMA node %d, %s on node %d: GPUDirect traffic crosses the socket link; use the HCA nearest the GPU (-d, or --use-cuda without -d)",
			   node, (int)json_integer_value(g), dev, hn);
}
