/*
 * A generated store for the benches: a `matrix --rails` run of N nodes x R
 * rails written through store/ as `matrix` writes it (the run's parameters
 * with its rails, a row per pair with the pair's whole document), every
 * pair of the schedule's first ROUNDS rounds (all when 0), 1% of the
 * (node, rail) ports at half rate and 3% noise elsewhere. The figures come
 * from drand48: seed it first for the same store each time.
 */
#ifndef FC_BENCH_STORE_H
#define FC_BENCH_STORE_H

#include <stdint.h>

struct bench_store_stats {
	int64_t run;
	long rows;
	int bad_ports;
};

/* Writes the run into the store at @path (created). Returns 0, or -1 after
 * the store or the allocation said why. */
int bench_store_write(const char *path, int n, int nrails, int rounds,
		      struct bench_store_stats *out);

#endif
