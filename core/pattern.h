/*
 * Traffic patterns beyond one pair at a time: the rounds of flows that
 * many-to-one (incast), one-to-many (fanout), half-to-half (bisection) and
 * all-to-all traffic make, as SuperBench's one-to-many / many-to-one runs of
 * perftest (microsoft/superbenchmark, ib-traffic, "pattern") and nccl-tests'
 * alltoall lay them out. Each round's flows start together. Pure code.
 */
#ifndef FC_PATTERN_H
#define FC_PATTERN_H

enum fc_pattern { FC_PAT_PAIRS, FC_PAT_INCAST, FC_PAT_FANOUT, FC_PAT_BISECTION, FC_PAT_ALLTOALL };

/* The pattern named @name ("pairs", "incast", ...): 0, or -1. */
int fc_pattern_parse(const char *name, enum fc_pattern *out);
const char *fc_pattern_name(enum fc_pattern p);

struct fc_flow {
	int src, dst; /* node indexes: src writes to dst */
};
struct fc_pround {
	struct fc_flow *f;
	int n;
	int target; /* incast: the receiver; fanout: the sender; else -1 */
};
struct fc_pplan {
	struct fc_pround *r;
	int nrounds;
	int crosses; /* bisection: flows whose ends are on different leaves */
	int flows;   /* all flows of the plan */
};

/*
 * The rounds of @p over @n nodes (2 or more; pairs is the matrix's own
 * schedule, core/sched.h, and gives none here):
 *  - incast: n rounds; in round i, @k other nodes (k = n - 1 when 0 or
 *    larger) write to node i at once: the k that follow i in the ring, so
 *    each node sends in exactly k rounds;
 *  - fanout: the same with every flow reversed;
 *  - bisection: the nodes ordered by @leaf (NULL: unknown, taken in order)
 *    and split in halves A and B, so that the halves differ in their
 *    leaves as far as the plan allows; round r: A[j] -> B[(j + r) mod |B|]
 *    for every j at once, |B| rounds, then the same from B to A: every flow
 *    crosses between the halves, each A-B pair in each direction once;
 *  - alltoall: groups of @k nodes in order (k 0: all; a lone last node
 *    joins the group before it), one round in which every node writes to
 *    every other of its group at once.
 * Returns 0, or -1 (n < 2, no memory).
 */
int fc_pattern_plan(enum fc_pattern p, int n, int k, const int *leaf, struct fc_pplan *out);
void fc_pattern_release(struct fc_pplan *pl);

/*
 * The leaves every slow flow of a bisection touches: flow i runs from a
 * node on leaf @src[i] to one on @dst[i] (0 <= leaf < @nleaves). Sets
 * @shared[l] for each leaf that is an end of every one of the @nf flows and
 * returns how many (0 when @nf is 0). One leaf: its uplinks are what the
 * slow flows have in common; two: the spine paths between them; none: the
 * shortfall is spread over the spine.
 */
int fc_pattern_shared_leaves(int nf, const int *src, const int *dst, int nleaves, int *shared);

/* Jain's fairness index of @n shares: (sum x)^2 / (n sum x^2), 1 when all
 * are equal, 1/n when one takes everything (R. Jain, D. Chiu, W. Hawe, "A
 * Quantitative Measure of Fairness and Discrimination for Resource
 * Allocation in Shared Computer Systems", DEC TR-301, 1984). NAN when
 * nothing moved. */
double fc_jain(const double *x, int n);

#endif
