/*
 * Communication arithmetic of data-parallel training: per-step traffic of
 * DDP and ZeRO stages, ring collective times at a bus bandwidth (the
 * nccl-tests busbw formulas), and how much compute can hide.
 */
#ifndef FC_PLAN_H
#define FC_PLAN_H

#include <stddef.h>

struct plan_fabric {
	const char *name; /* option value: "ndr" */
	const char *desc; /* "InfiniBand NDR" */
	double gbps;	  /* per link, 1e9 bit/s */
	double lat_us;	  /* one hop through one switch, RDMA write */
};

/* The usual fabrics, slowest first. */
const struct plan_fabric *plan_fabrics(size_t *n);
const struct plan_fabric *plan_fabric_find(const char *name);

enum plan_op { PLAN_ALLREDUCE, PLAN_ALLGATHER, PLAN_REDUCESCATTER };
const char *plan_op_name(enum plan_op op);

/* busbw / algbw: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n. */
double plan_busbw_factor(enum plan_op op, int n);
/* Ring steps: all-reduce 2(n-1), all-gather and reduce-scatter n-1. */
int plan_ring_steps(enum plan_op op, int n);
/*
 * Seconds for one ring collective over @n ranks on a buffer of @bytes (the
 * all-reduce buffer, the all-gather output, the reduce-scatter input) at
 * bus bandwidth @busbw (bytes/s) and @lat seconds per ring step:
 *   t = bytes * factor / busbw + steps * lat
 */
double plan_coll_time(enum plan_op op, double bytes, int n, double busbw, double lat);

enum plan_strategy { PLAN_DDP, PLAN_ZERO1, PLAN_ZERO2, PLAN_ZERO3, PLAN_NSTRAT };
const char *plan_strategy_name(enum plan_strategy s);
/* The collectives one step runs, each on the whole model (@count times). */
struct plan_coll {
	enum plan_op op;
	int count;
	const char *what;
};
int plan_strategy_colls(enum plan_strategy s, struct plan_coll out[3]);
/* Bytes each GPU sends per step for a model of @model_bytes on @n GPUs:
 * DDP, ZeRO-1, ZeRO-2 2(n-1)/n x model; ZeRO-3 3(n-1)/n x model. */
double plan_traffic(enum plan_strategy s, double model_bytes, int n);
/* Seconds of communication per step; @calls = collective calls per pass
 * (buckets or layers), which multiply the latency term only. */
double plan_comm_time(enum plan_strategy s, double model_bytes, int n, double busbw,
		      double lat, int calls);

/* Exposed communication after overlap: max(0, comm - overlap x compute). */
double plan_exposed(double comm, double compute, double overlap);

/* Counts with K, M, B (or G), T suffixes (powers of 1000): "70B", "1.3T".
 * Returns 0, or -EINVAL after logging "OPT: 'X' is not ...". */
int plan_parse_count(const char *opt, const char *text, double *out);

#endif
