/*
 * The matrix analysis at rack scale (matrix/mxan.c, matrix/mxlevel.c): the
 * medians by selection equal the sorted ones, a fixed-seed rack of 160
 * nodes x 4 rails (enough for the rails to be shared out between threads)
 * analyses to what the definitions give when computed the slow way, and an
 * analysis done again into the memory of an earlier one equals a fresh one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "matrix/mxlevel.h"

#define N 160
#define RAILS 4
#define BAD_NODE 7 /* slow on every rail: level node */
#define BAD_PORT 42 /* slow on rail 2 only: level port */
#define BAD_PORT_RAIL 2

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* fc_median_hi/lo against a sort, on shapes that trouble a selection. */
static void test_median_select(void **state)
{
	static double v[301], w[301], c[301];
	double hi, lo;

	(void)state;
	srand48(7);
	for (int shape = 0; shape < 6; shape++)
		for (size_t n = 1; n <= 301; n += shape < 2 ? 1 : 7) {
			for (size_t i = 0; i < n; i++)
				v[i] = shape == 0 ? drand48() :
				       shape == 1 ? (double)(lrand48() % 5) : /* many ties */
				       shape == 2 ? (double)i :		      /* sorted */
				       shape == 3 ? (double)(n - i) :	      /* reversed */
				       shape == 4 ? 1.0 :		      /* all equal */
						    (double)(i < n / 2 ? i : n - i); /* organ pipe */
			memcpy(w, v, n * sizeof(*v));
			qsort(w, n, sizeof(*w), cmp);
			memcpy(c, v, n * sizeof(*v));
			hi = fc_median_hi(c, n);
			memcpy(c, v, n * sizeof(*v));
			lo = fc_median_lo(c, n);
			if (hi != w[n / 2] || lo != w[(n - 1) / 2])
				fail_msg("shape %d, n %zu: hi %g lo %g, sorted %g %g", shape, n, hi,
					 lo, w[n / 2], w[(n - 1) / 2]);
		}
}

/* A rack: every pair once, one direction; bad ports halve a rail's
 * bandwidth; one pair in a hundred errors; one in fifty measured again
 * (a retest row that replaces the first). */
static size_t gen(struct fc_mxl_cell *cells)
{
	size_t k = 0;

	srand48(18);
	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < N; a++)
			for (int b = a + 1; b < N; b++) {
				int x = (a + b) & 1 ? b : a, y = x == a ? b : a;
				int err = drand48() < 0.01;

				if (pass && drand48() >= 0.02)
					continue;
				for (int r = 0; r < RAILS; r++) {
					double g = 100 * (1 + 0.03 * (drand48() - 0.5));
					int slow = a == BAD_NODE || b == BAD_NODE ||
						   ((a == BAD_PORT || b == BAD_PORT) &&
						    r == BAD_PORT_RAIL);

					cells[k++] = (struct fc_mxl_cell){
						.a = x, .b = y, .rail = r,
						.gbps = err ? NAN : slow ? g / 2 : g,
						.lat_us = err || drand48() < 0.01 ? NAN : 3 + drand48(),
						.state = err ? FC_MX_ERROR :
							 drand48() < 0.002 ? FC_MX_FAIL : FC_MX_OK,
						.retest = pass };
				}
			}
	return k;
}

/* Node @i's median on rail @r, its peers and bad peers, the slow way:
 * the latest cell of each direction, then a sort. */
static void reference(const struct fc_mxl_cell *cells, size_t nc, int r, int i,
		      const struct fc_mx_analysis *ra, double *med, int *peers, int *bad)
{
	static const struct fc_mxl_cell *last[N][N];
	static double v[2 * N];
	size_t k = 0;

	memset(last, 0, sizeof(last));
	for (size_t c = 0; c < nc; c++)
		if (cells[c].rail == r)
			last[cells[c].a][cells[c].b] = &cells[c];
	*peers = *bad = 0;
	for (int j = 0; j < N; j++) {
		int ran = 0;

		for (int d = 0; d < 2 && j != i; d++) {
			const struct fc_mxl_cell *c = d ? last[j][i] : last[i][j];

			if (!c || (c->state != FC_MX_OK && c->state != FC_MX_FAIL))
				continue;
			ran = 1;
			if (isfinite(c->gbps))
				v[k++] = c->gbps;
		}
		if (ran) {
			++*peers;
			*bad += fc_mx_pair_bad(ra, i, j);
		}
	}
	qsort(v, k, sizeof(*v), cmp);
	*med = k ? v[k / 2] : NAN;
}

static void test_rack_reference(void **state)
{
	struct fc_mxl_cell *cells = calloc(2 * N * N * RAILS, sizeof(*cells));
	struct fc_mxl_analysis an;
	size_t nc = gen(cells);
	int nodes = 0, ports = 0;

	(void)state;
	assert_int_equal(fc_mxl_analyze(N, RAILS, cells, nc, NULL, &an), 0);
	for (int r = 0; r < RAILS; r++)
		for (int i = 0; i < N; i++) {
			const struct fc_mx_node *nd = &an.rails[r].nodes[i];
			double med;
			int peers, bad;

			reference(cells, nc, r, i, &an.rails[r], &med, &peers, &bad);
			if (!(med == nd->median_gbps) || peers != nd->peers || bad != nd->bad)
				fail_msg("rail %d node %d: median %g peers %d bad %d, the slow way "
					 "%g %d %d", r, i, nd->median_gbps, nd->peers, nd->bad, med,
					 peers, bad);
		}
	for (int s = 0; s < an.nsuspects; s++) {
		const struct fc_mxl_suspect *x = &an.suspects[s];

		nodes += x->level == FC_MXL_NODE && x->node == BAD_NODE;
		ports += x->level == FC_MXL_PORT && x->node == BAD_PORT &&
			 x->rail == BAD_PORT_RAIL;
		assert_true(x->level != FC_MXL_RAIL);
	}
	assert_int_equal(nodes, 1);
	assert_int_equal(ports, 1);
	fc_mxl_release(&an);
	free(cells);
}

static void same_rail(const struct fc_mx_analysis *x, const struct fc_mx_analysis *y)
{
	assert_int_equal(x->n, y->n);
	assert_memory_equal(x->cells, y->cells, (size_t)x->n * (size_t)x->n * sizeof(*x->cells));
	assert_memory_equal(x->nodes, y->nodes, (size_t)x->n * sizeof(*x->nodes));
	assert_int_equal(x->nfindings, y->nfindings);
	/* Field by field: a finding's padding is not part of it. */
	for (int i = 0; i < x->nfindings; i++) {
		const struct fc_mx_finding *p = &x->findings[i], *q = &y->findings[i];

		assert_true(p->kind == q->kind && p->a == q->a && p->b == q->b &&
			    !memcmp(&p->v1, &q->v1, sizeof(double)) &&
			    !memcmp(&p->v2, &q->v2, sizeof(double)) && p->fail == q->fail);
	}
	assert_true(x->rack_median_gbps == y->rack_median_gbps);
	assert_int_equal(x->nsuspects, y->nsuspects);
	assert_int_equal(x->nbad_pairs, y->nbad_pairs);
	assert_int_equal(x->nmeasured, y->nmeasured);
}

/* Analysed on the first third of the cells, then again on all of them into
 * the same memory: the same as a fresh analysis of all. Then a rack of
 * another size into it: the same as fresh again. */
static void test_reanalyze(void **state)
{
	struct fc_mxl_cell *cells = calloc(2 * N * N * RAILS, sizeof(*cells));
	struct fc_mxl_analysis fresh, again;
	size_t nc = gen(cells);

	(void)state;
	for (size_t i = 0; i < nc; i++)
		assert_true(cells[i].a != cells[i].b);
	assert_int_equal(fc_mxl_analyze(N, RAILS, cells, nc, NULL, &fresh), 0);
	assert_int_equal(fc_mxl_analyze(N, RAILS, cells, nc / 3, NULL, &again), 0);
	assert_int_equal(fc_mxl_reanalyze(N, RAILS, cells, nc, NULL, &again), 0);
	assert_int_equal(again.nsuspects, fresh.nsuspects);
	assert_memory_equal(again.suspects, fresh.suspects,
			    (size_t)fresh.nsuspects * sizeof(*fresh.suspects));
	for (int r = 0; r < RAILS; r++)
		same_rail(&again.rails[r], &fresh.rails[r]);
	/* An index out of range: an error, and the analysis released. */
	cells[0].rail = RAILS;
	assert_int_equal(fc_mxl_reanalyze(N, RAILS, cells, nc, NULL, &again), -EINVAL);
	assert_null(again.rails);
	cells[0].rail = 0;
	fc_mxl_release(&fresh);
	/* Fewer nodes, fewer rails: only the cells among the first 40 nodes. */
	{
		size_t k = 0;

		for (size_t i = 0; i < nc; i++)
			if (cells[i].a < 40 && cells[i].b < 40 && cells[i].rail < 2)
				cells[k++] = cells[i];
		assert_int_equal(fc_mxl_analyze(40, 2, cells, k, NULL, &fresh), 0);
		assert_int_equal(fc_mxl_analyze(N, RAILS, cells, k, NULL, &again), 0);
		assert_int_equal(fc_mxl_reanalyze(40, 2, cells, k, NULL, &again), 0);
		for (int r = 0; r < 2; r++)
			same_rail(&again.rails[r], &fresh.rails[r]);
	}
	fc_mxl_release(&fresh);
	fc_mxl_release(&again);
	free(cells);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_select),
		cmocka_unit_test(test_rack_reference),
		cmocka_unit_test(test_reanalyze),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
