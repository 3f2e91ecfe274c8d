/* Matrix analysis on generated results: who is blamed, and why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mxan.h"
#include "core/stats.h"
#include "core/sched.h"

static const char *const names[] = { "nodeA", "nodeB", "nodeC", "nodeD", "nodeE",
				     "nodeF", "nodeG", "nodeH" };

/* Bandwidth of a healthy pair with some jitter (deterministic). */
static double healthy(int a, int b)
{
	return 0.160 + 0.004 * ((a * 7 + b * 3) % 5);
}

struct gen {
	struct fc_mx_result r[256];
	size_t n;
};

static void put(struct gen *g, int a, int b, double gbps, enum fc_mx_state st)
{
	g->r[g->n++] = (struct fc_mx_result){ .a = a, .b = b, .gbps = gbps,
					      .lat_us = isnan(gbps) ? NAN : 30 + a + b,
					      .state = st };
}

/* All pairs of @n nodes through the real schedule; @slow(a, b) returns a
 * bandwidth or a negative value for "healthy". */
static void gen_matrix(struct gen *g, int n, int both, double (*slow)(int, int))
{
	struct fc_pair_idx p[8];

	g->n = 0;
	for (int r = 0; r < fc_sched_rounds(n, both); r++) {
		int cnt = fc_sched_round(n, both, r, p);

		for (int i = 0; i < cnt; i++) {
			double v = slow(p[i].a, p[i].b);

			put(g, p[i].a, p[i].b, v < 0 ? healthy(p[i].a, p[i].b) : v, FC_MX_OK);
		}
	}
}

static int count_kind(const struct fc_mx_analysis *an, enum fc_mx_kind k)
{
	int c = 0;

	for (int i = 0; i < an->nfindings; i++)
		c += an->findings[i].kind == k;
	return c;
}

static const struct fc_mx_finding *first_kind(const struct fc_mx_analysis *an,
					      enum fc_mx_kind k)
{
	for (int i = 0; i < an->nfindings; i++)
		if (an->findings[i].kind == k)
			return &an->findings[i];
	return NULL;
}

static double slow_c(int a, int b)
{
	return a == 2 || b == 2 ? 0.020 : -1; /* nodeC rate-limited */
}

static void test_slow_node_named(void **state)
{
	struct fc_mx_analysis an;
	struct gen g;
	char text[512];

	(void)state;
	gen_matrix(&g, 4, 0, slow_c);
	assert_int_equal(g.n, 6);
	assert_int_equal(fc_mx_analyze(4, g.r, g.n, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 1);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 1);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 0);
	assert_int_equal(first_kind(&an, FC_MX_SUSPECT_NODE)->a, 2);
	assert_int_equal(an.nodes[2].state, FC_MX_NODE_SUSPECT);
	assert_int_equal(an.nodes[2].bad, 3);
	assert_int_equal(an.nodes[0].bad, 1);
	assert_int_equal(an.nodes[0].state, FC_MX_NODE_OK);
	/* The rack median is not dragged down by the slow node. */
	assert_true(an.rack_median_gbps > 0.15);
	assert_true(fabs(an.nodes[2].median_gbps - 0.020) < 1e-9);
	assert_int_equal(an.nbad_pairs, 3);
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_SUSPECT_NODE), names, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeC"));
	assert_non_null(strstr(text, "3 of 3 peers"));
	assert_non_null(strstr(text, "below 90% of the rack median"));
	fc_mx_release(&an);
}

static double none_slow(int a, int b)
{
	(void)a;
	(void)b;
	return -1;
}

static void test_healthy_rack_passes(void **state)
{
	struct fc_mx_analysis an;
	struct gen g;

	(void)state;
	for (int n = 2; n <= 8; n++) {
		gen_matrix(&g, n, 1, none_slow);
		assert_int_equal(fc_mx_analyze(n, g.r, g.n, NULL, &an), 0);
		assert_int_equal(an.nfindings, 0);
		assert_int_equal(an.nbad_pairs, 0);
		assert_int_equal(an.nmeasured, n * (n - 1));
		for (int i = 0; i < n; i++)
			assert_int_equal(an.nodes[i].state, FC_MX_NODE_OK);
		fc_mx_release(&an);
	}
}

static double slow_link_be(int a, int b)
{
	return (a == 1 && b == 4) || (a == 4 && b == 1) ? 0.05 : -1;
}

static void test_slow_link_named(void **state)
{
	struct fc_mx_analysis an;
	const struct fc_mx_finding *f;
	struct gen g;
	char text[512];

	(void)state;
	gen_matrix(&g, 6, 0, slow_link_be);
	assert_int_equal(fc_mx_analyze(6, g.r, g.n, NULL, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 1);
	f = first_kind(&an, FC_MX_SUSPECT_LINK);
	assert_int_equal(f->a, 1);
	assert_int_equal(f->b, 4);
	fc_mx_finding_text(&an, f, names, text, sizeof(text));
	assert_non_null(strstr(text, "suspect link nodeB-nodeE"));
	fc_mx_release(&an);
}

static double slow_c_and_d(int a, int b)
{
	return a == 2 || b == 2 || a == 3 || b == 3 ? 0.03 : -1;
}

static void test_two_bad_nodes(void **state)
{
	struct fc_mx_opts o = { .min_gbps = 0.1, .min_rack_pct = 90, .asym_pct = 90 };
	struct fc_mx_analysis an;
	struct gen g;

	(void)state;
	/* 4 nodes, half of them bad: only the absolute threshold can tell
	 * (the medians cannot say which half is normal). nodeA is bad with 2 of
	 * its 3 peers, but both are explained by the two suspects. */
	gen_matrix(&g, 4, 0, slow_c_and_d);
	assert_int_equal(fc_mx_analyze(4, g.r, g.n, &o, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 2);
	assert_int_equal(an.nodes[2].state, FC_MX_NODE_SUSPECT);
	assert_int_equal(an.nodes[3].state, FC_MX_NODE_SUSPECT);
	assert_int_equal(an.nodes[0].state, FC_MX_NODE_OK);
	assert_int_equal(an.nodes[1].state, FC_MX_NODE_OK);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 0);
	fc_mx_release(&an);
	/* 8 nodes, same two bad. */
	gen_matrix(&g, 8, 0, slow_c_and_d);
	assert_int_equal(fc_mx_analyze(8, g.r, g.n, NULL, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 2);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 0);
	assert_int_equal(count_kind(&an, FC_MX_RACK_WIDE), 0);
	fc_mx_release(&an);
}

static void test_absolute_threshold_rack_wide(void **state)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	struct fc_mx_analysis an;
	struct gen g;
	char text[512];

	(void)state;
	o.min_gbps = 1.0; /* every pair is far below */
	gen_matrix(&g, 5, 0, none_slow);
	assert_int_equal(fc_mx_analyze(5, g.r, g.n, &o, &an), 0);
	assert_int_equal(an.nbad_pairs, 10);
	assert_int_equal(count_kind(&an, FC_MX_RACK_WIDE), 1);
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_RACK_WIDE), names, text, sizeof(text));
	assert_non_null(strstr(text, "--min-gbps"));
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_SUSPECT_NODE), names, text, sizeof(text));
	assert_non_null(strstr(text, "below 1 Gb/s"));
	fc_mx_release(&an);
	/* Without the absolute threshold the same rack passes. */
	assert_int_equal(fc_mx_analyze(5, g.r, g.n, NULL, &an), 0);
	assert_int_equal(an.nfindings, 0);
	fc_mx_release(&an);
}

static double asym(int a, int b)
{
	return a == 0 && b == 3 ? 0.08 : -1; /* only nodeA -> nodeD */
}

static void test_asymmetry(void **state)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	struct fc_mx_analysis an;
	const struct fc_mx_finding *f;
	struct gen g;
	char text[512];

	(void)state;
	o.min_rack_pct = 40; /* 0.08 is half the median: not bad, but asymmetric */
	gen_matrix(&g, 4, 1, asym);
	assert_int_equal(fc_mx_analyze(4, g.r, g.n, &o, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(count_kind(&an, FC_MX_ASYMMETRY), 1);
	f = first_kind(&an, FC_MX_ASYMMETRY);
	assert_int_equal(f->a, 0);
	assert_int_equal(f->b, 3);
	assert_int_equal(f->fail, 0);
	fc_mx_finding_text(&an, f, names, text, sizeof(text));
	assert_non_null(strstr(text, "nodeA->nodeD 0.08 Gb/s"));
	fc_mx_release(&an);
}

static void test_unreachable_and_errors(void **state)
{
	struct fc_mx_analysis an;
	struct gen g = { .n = 0 };

	(void)state;
	/* nodeE (4) unreachable: all its pairs errored; nodeA->nodeB errored once. */
	for (int a = 0; a < 5; a++)
		for (int b = a + 1; b < 5; b++) {
			if (b == 4)
				put(&g, a, b, NAN, FC_MX_ERROR);
			else if (a == 0 && b == 1)
				put(&g, a, b, NAN, FC_MX_ERROR);
			else
				put(&g, a, b, healthy(a, b), FC_MX_OK);
		}
	assert_int_equal(fc_mx_analyze(5, g.r, g.n, NULL, &an), 0);
	assert_int_equal(an.nodes[4].state, FC_MX_NODE_UNREACHABLE);
	assert_int_equal(count_kind(&an, FC_MX_UNREACHABLE), 1);
	assert_int_equal(count_kind(&an, FC_MX_PAIR_ERROR), 1);
	assert_int_equal(first_kind(&an, FC_MX_PAIR_ERROR)->a, 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 0);
	fc_mx_release(&an);
}

static void test_two_nodes_blame_the_link(void **state)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	struct fc_mx_analysis an;
	struct gen g = { .n = 0 };

	(void)state;
	o.min_gbps = 1;
	put(&g, 0, 1, 0.5, FC_MX_OK);
	assert_int_equal(fc_mx_analyze(2, g.r, g.n, &o, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 1);
	fc_mx_release(&an);
}

static void test_pair_verdict_and_retest(void **state)
{
	struct fc_mx_analysis an;
	struct gen g;
	int ra[8], rb[8], n;
	char text[512];

	(void)state;
	/* pair failed nodeB's pairs on its own thresholds (counters, say). */
	gen_matrix(&g, 4, 0, none_slow);
	for (size_t i = 0; i < g.n; i++)
		if (g.r[i].a == 1 || g.r[i].b == 1)
			g.r[i].state = FC_MX_FAIL;
	assert_int_equal(fc_mx_analyze(4, g.r, g.n, NULL, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 1);
	assert_int_equal(first_kind(&an, FC_MX_SUSPECT_NODE)->a, 1);
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_SUSPECT_NODE), names, text, sizeof(text));
	assert_non_null(strstr(text, "failed by pair"));
	/* The retest plan: nodeB against each good node it was bad with. */
	n = fc_mx_retest_plan(&an, ra, rb, 8);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		assert_true(ra[i] == 1 || rb[i] == 1);
		assert_int_not_equal(ra[i], rb[i]);
		assert_true(fc_mx_cell(&an, ra[i], rb[i])->bad);
	}
	fc_mx_release(&an);
	/* The retest passes: later results replace the first ones. */
	for (int i = 0; i < n; i++) {
		g.r[g.n] = (struct fc_mx_result){ .a = ra[i], .b = rb[i], .gbps = 0.16,
						  .lat_us = 30, .state = FC_MX_OK, .retest = 1 };
		g.n++;
	}
	assert_int_equal(fc_mx_analyze(4, g.r, g.n, NULL, &an), 0);
	assert_int_equal(an.nfindings, 0);
	assert_true(fc_mx_cell(&an, ra[0], rb[0])->retest);
	fc_mx_release(&an);
}

static void test_bad_input(void **state)
{
	struct fc_mx_analysis an;
	struct fc_mx_result r = { .a = 0, .b = 5, .state = FC_MX_OK };

	(void)state;
	assert_int_equal(fc_mx_analyze(4, &r, 1, NULL, &an), -EINVAL);
	r.b = 0;
	assert_int_equal(fc_mx_analyze(4, &r, 1, NULL, &an), -EINVAL);
	assert_int_equal(fc_mx_analyze(0, NULL, 0, NULL, &an), 0);
	assert_true(isnan(an.rack_median_gbps));
	fc_mx_release(&an);
}

static void test_median(void **state)
{
	double v[] = { 5, 1, 3 }, w[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(fc_median(v, 3) == 3);
	assert_true(fc_median(w, 4) == 2.5);
	assert_true(isnan(fc_median(w, 0)));
	assert_true(fc_median_hi(w, 4) == 3);
	assert_true(fc_median_lo(w, 4) == 2);
	assert_true(fc_median_hi(v, 3) == 3 && fc_median_lo(v, 3) == 3);
	assert_true(isnan(fc_median_hi(w, 0)) && isnan(fc_median_lo(w, 0)));
}

/* Two pairs of four nodes, one through a slow node (a screen's first
 * round): the healthy pair is the reference, so the slow pair is below 40%
 * of it; the mean of the two node-median middles (0.0446) would pass it. */
static void test_two_pairs_one_slow(void **state)
{
	struct fc_mx_result r[] = {
		{ .a = 0, .b = 3, .gbps = 0.0694, .lat_us = 10, .state = FC_MX_OK },
		{ .a = 2, .b = 1, .gbps = 0.0197, .lat_us = 30, .state = FC_MX_OK },
	};
	struct fc_mx_opts o = { .min_rack_pct = 40 };
	struct fc_mx_analysis an;

	(void)state;
	assert_int_equal(fc_mx_analyze(4, r, 2, &o, &an), 0);
	assert_true(an.rack_median_gbps == 0.0694);
	assert_true(an.rack_median_lat_us == 10);
	assert_true(fc_mx_cell(&an, 2, 1)->bad & FC_MX_BAD_RACK);
	assert_int_equal(fc_mx_cell(&an, 0, 3)->bad, 0);
	fc_mx_release(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_two_pairs_one_slow),
		cmocka_unit_test(test_slow_node_named),
		cmocka_unit_test(test_healthy_rack_passes),
		cmocka_unit_test(test_slow_link_named),
		cmocka_unit_test(test_two_bad_nodes),
		cmocka_unit_test(test_absolute_threshold_rack_wide),
		cmocka_unit_test(test_asymmetry),
		cmocka_unit_test(test_unreachable_and_errors),
		cmocka_unit_test(test_two_nodes_blame_the_link),
		cmocka_unit_test(test_pair_verdict_and_retest),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
