/*
 * NUMA locality of a worker: the node of the HCA (or of the GPU it feeds)
 * from sysfs numa_node / local_cpulist, the buffer placed there (libnuma),
 * the threads pinned to its CPUs, and what really happened, for the report.
 */
#ifndef FC_GDR_NUMA_H
#define FC_GDR_NUMA_H

#include <jansson.h>
#include <sched.h>
#include <stddef.h>

struct gdr_numa {
	int hca_node;	     /* -1: sysfs does not say (no PCI device, or one node) */
	char hca_cpulist[256];
	int gpu_node;	     /* with GPU memory: the GPU's node, -1 unknown */
	int want_node;	     /* where the buffer and threads should be, -1: anywhere */
	cpu_set_t cpus;	     /* the CPUs threads are pinned to (empty: not pinned) */
	int ncpus;
	int pinned;	     /* 1 when this process was pinned to @cpus */
	char why[256];	     /* why not, when nothing was pinned or placed */
};

/* Parses a sysfs CPU list ("0-3,8,10-11") into @set; -EINVAL on anything
 * else. Returns the number of CPUs. */
int gdr_cpulist_parse(const char *text, cpu_set_t *set);

/* Reads the locality of HCA @dev (and of the GPU at @gpu_bus, NULL for host
 * memory) under gdr_sysfs_root(), then pins this process to the chosen
 * node's CPUs. Never fails: what could not be done is said in @n->why. */
void gdr_numa_setup(struct gdr_numa *n, const char *dev, const char *gpu_bus);
/* The node of the page at @p (touched), -1 when the kernel does not say. */
int gdr_numa_of_addr(const void *p);
/* The node of the CPUs in @set when they all sit on one, else -1. */
int gdr_numa_of_cpus(const cpu_set_t *set);

/* "numa": {"hca": N|null, "buffer": N|"gpu"|null, "cpus": N|null,
 * "cpu_list": "0-7"|null, "pinned": bool, "note": "..."} of a side. */
json_t *gdr_numa_json(const struct gdr_numa *n, int buffer_node, int gpu_memory);
/* A warning when a side's HCA, buffer and CPUs are not on one node (pure,
 * from the side's report). */
void gdr_numa_findings(json_t *doc, const json_t *side);

#endif
