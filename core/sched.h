/*
 * The round-robin "circle" schedule of a node-pair matrix: every pair of N
 * nodes meets exactly once, in rounds where no node is in two tests. N even:
 * N-1 rounds of N/2 pairs; N odd: N rounds of (N-1)/2 pairs, each node
 * sitting out (a bye) in exactly one round. Pure: no allocation.
 */
#ifndef FC_SCHED_H
#define FC_SCHED_H

/* The largest matrix fabcheck schedules. */
#define FC_SCHED_MAX_NODES 4096

struct fc_pair_idx {
	int a, b; /* node indices; a is the side named first to `pair` */
};

/* Rounds for @n nodes (0 when n < 2); doubled with @both (each pair run
 * once per direction: the second half repeats the first, reversed). */
int fc_sched_rounds(int n, int both);
/* Pairs in each round: n/2 (the most a round holds). */
int fc_sched_round_max(int n);
/* Fills @out (room for fc_sched_round_max(n)) with round @r's pairs and
 * returns their count, or -EINVAL for a round out of range. */
int fc_sched_round(int n, int both, int r, struct fc_pair_idx *out);

#endif
