/*
 * A generated matrix run in a result store, for the benchmarks that read
 * a rack-scale run back (make bench-report): N nodes x R rails, every pair
 * of the round-robin schedule once (or its first ROUNDS rounds, as a screen
 * leaves a run), each stored as a `pair --rails --loaded-only --json`
 * document, in the schedule's order. A share of the (node, rail) ports is
 * at half rate, the rest within +-noise of 390 Gb/s a rail. Seeded: the
 * same rack every time. Not a test, and nothing of it is in the product.
 */
#ifndef FC_BENCH_GEN_STORE_H
#define FC_BENCH_GEN_STORE_H

#include <stdint.h>

struct gen_rack {
	int nodes, rails; /* 2 .. FC_SCHED_MAX_NODES, 1 .. FC_MXL_RAILS_MAX */
	int rounds;	  /* the schedule's first rounds, 0: all of them */
	double bad_pct;	  /* share of the ports at half rate, at least one */
	double noise_pct; /* +- on healthy cells */
	long seed;
};
#define GEN_RACK_DEFAULT { .nodes = 1024, .rails = 8, .bad_pct = 1, .noise_pct = 3, .seed = 18 }

/* Writes the run into the store at @path (a new file: an existing one is
 * removed first). Returns the run's id (> 0) or a negative errno (logged). */
int64_t gen_store(const char *path, const struct gen_rack *r);

#endif
