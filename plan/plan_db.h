/*
 * fabcheck plan --db: the fabric as the store last measured it, instead of
 * a nominal one: the newest of the last matrix run (its per-rail median
 * bandwidths) and the last nccl run (its peak busbw).
 */
#ifndef FC_PLAN_DB_H
#define FC_PLAN_DB_H

#include <stddef.h>
#include <stdint.h>

#define PLAN_MAX_RAILS 32

struct plan_measured {
	const char *source; /* "matrix" or "nccl" */
	int64_t run;
	double started;	    /* unix time */
	/* matrix: rails seen, the slowest rail's median (Gb/s) and its name */
	int rails;
	double rail_gbps;
	char slowest[32];
	/* nccl: peak busbw (GB/s) and the run's size */
	double busbw_gbytes;
	int nodes, gpus_per_node;
};

/* Reads the store @path (read-only). 0, or a negative errno with the
 * reason, naming the file and the fix, in @why. */
int plan_db_fabric(const char *path, struct plan_measured *m, char *why, size_t len);
/* The all_reduce busbw (GB/s) the measured fabric gives @nodes nodes of
 * @gpus_per_node GPUs: nccl run's figure as it is; a matrix's through
 * core/busbw.h's model (ring) with the slowest rail's median on each rail. */
double plan_measured_busbw(const struct plan_measured *m, int gpus_per_node, int nodes);

#endif
