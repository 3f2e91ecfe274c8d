/*
 * Benchmark of the matrix's pure core at rack scale: the round-robin
 * schedule and the analysis of 512 nodes (130,816 pairs), one slow node.
 * Prints the median of several runs of each. Not a test: `make bench-matrix`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mxan.h"
#include "core/sched.h"
#include "core/util.h"

#define RUNS 7

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static struct fc_mx_result *schedule(int n, int both, size_t *cnt_p)
{
	int rounds = fc_sched_rounds(n, both);
	struct fc_pair_idx *p = malloc((size_t)fc_sched_round_max(n) * sizeof(*p));
	struct fc_mx_result *res = malloc((size_t)n * (size_t)n * sizeof(*res));
	size_t cnt = 0;

	if (!p || !res)
		exit(3);
	for (int r = 0; r < rounds; r++) {
		int k = fc_sched_round(n, both, r, p);

		for (int i = 0; i < k; i++) {
			res[cnt].a = p[i].a;
			res[cnt].b = p[i].b;
			res[cnt].state = FC_MX_OK;
			res[cnt].retest = 0;
			cnt++;
		}
	}
	free(p);
	*cnt_p = cnt;
	return res;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 512, both = argc > 2 && !strcmp(argv[2], "both");
	double ts[RUNS], ta[RUNS], t0;
	struct fc_mx_analysis an;
	struct fc_mx_result *res = NULL;
	size_t cnt = 0;
	int slow = n / 3;

	if (n < 2 || n > FC_SCHED_MAX_NODES) {
		fprintf(stderr, "bench_matrix: nodes must be 2..%d\n", FC_SCHED_MAX_NODES);
		return 2;
	}
	for (int i = 0; i < RUNS; i++) {
		free(res);
		t0 = fc_now();
		res = schedule(n, both, &cnt);
		ts[i] = fc_now() - t0;
	}
	for (size_t i = 0; i < cnt; i++) {
		int a = res[i].a, b = res[i].b;

		res[i].gbps = a == slow || b == slow ? 40 : 190 + (a * 7 + b * 13) % 10;
		res[i].lat_us = 2 + ((a + b) % 7) * 0.1;
	}
	for (int i = 0; i < RUNS; i++) {
		t0 = fc_now();
		if (fc_mx_analyze(n, res, cnt, NULL, &an))
			return 3;
		ta[i] = fc_now() - t0;
		if (an.nsuspects != 1 || an.nodes[slow].state != FC_MX_NODE_SUSPECT) {
			fprintf(stderr, "bench_matrix: expected node %d as the only suspect\n", slow);
			return 1;
		}
		if (i < RUNS - 1)
			fc_mx_release(&an);
	}
	qsort(ts, RUNS, sizeof(double), cmp);
	qsort(ta, RUNS, sizeof(double), cmp);
	printf("matrix core, %d nodes%s: %zu pairs in %d rounds\n", n,
	       both ? " (both directions)" : "", cnt, fc_sched_rounds(n, both));
	printf("  schedule: %8.2f ms (median of %d)\n", ts[RUNS / 2] * 1e3, RUNS);
	printf("  analysis: %8.2f ms (median of %d; %d suspect, %d bad pairs)\n",
	       ta[RUNS / 2] * 1e3, RUNS, an.nsuspects, an.nbad_pairs);
	fc_mx_release(&an);
	free(res);
	return 0;
}
