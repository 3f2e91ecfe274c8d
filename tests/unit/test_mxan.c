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

/* Every pair below --min-gbps: one finding about the floor, no suspects. */
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
	assert_int_equal(an.nfindings, 1);
	assert_int_equal(count_kind(&an, FC_MX_FLOOR), 1);
	assert_int_equal(an.nsuspects, 0);
	assert_true(fc_mx_failed(&an));
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_FLOOR), names, text, sizeof(text));
	assert_non_null(strstr(text, "every pair is below --min-gbps 1 (10 pairs of 5 nodes"));
	assert_non_null(strstr(text, "the floor is above what this fabric carries"));
	fc_mx_release(&an);
	/* Under the floor, one node far below the others is still named. */
	for (size_t i = 0; i < g.n; i++)
		if (g.r[i].a == 3 || g.r[i].b == 3)
			g.r[i].gbps = 0.02;
	assert_int_equal(fc_mx_analyze(5, g.r, g.n, &o, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_FLOOR), 1);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 1);
	assert_int_equal(first_kind(&an, FC_MX_SUSPECT_NODE)->a, 3);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 0);
	fc_mx_finding_text(&an, first_kind(&an, FC_MX_SUSPECT_NODE), names, text, sizeof(text));
	assert_null(strstr(text, "below 1 Gb/s"));
	assert_non_null(strstr(text, "below 90% of the rack median"));
	fc_mx_release(&an);
	/* Without the absolute threshold the same rack passes. */
	gen_matrix(&g, 5, 0, none_slow);
	assert_int_equal(fc_mx_analyze(5, g.r, g.n, NULL, &an), 0);
	assert_int_equal(an.nfindings, 0);
	assert_false(fc_mx_failed(&an));
	fc_mx_release(&an);
}

/*
 * The 4-node rack with nodeD's sends held to 20 Mbit/s, --min-gbps 0.05,
 * both directions: nodeD -> x at 0.0193-0.0196 Gb/s, x -> nodeD at line
 * rate; among the three healthy nodes every pair has one direction a few
 * percent under 90% of the rack median, 0.0988 Gb/s, as the emulator's
 * spread gives. Every node is bad with 3 of its 3 peers. Before, the tie
 * named nodeA and nodeB ("bad with 3 of 3 peers (its median 0.0988 Gb/s;
 * below 0.05 Gb/s, below 90% of the rack median 0.0988 Gb/s)") and the
 * link nodeC-nodeD.
 */
static const struct fc_mx_result rack4_d20[] = {
	{ 3, 0, 0.0195, 40, FC_MX_OK, 0, 0 }, { 0, 3, 0.1010, 30, FC_MX_OK, 0, 0 },
	{ 3, 1, 0.0193, 40, FC_MX_OK, 0, 0 }, { 1, 3, 0.0991, 30, FC_MX_OK, 0, 0 },
	{ 3, 2, 0.0196, 40, FC_MX_OK, 0, 0 }, { 2, 3, 0.0988, 30, FC_MX_OK, 0, 0 },
	{ 0, 1, 0.0988, 30, FC_MX_OK, 0, 0 }, { 1, 0, 0.0850, 30, FC_MX_OK, 0, 0 },
	{ 0, 2, 0.0860, 30, FC_MX_OK, 0, 0 }, { 2, 0, 0.1005, 30, FC_MX_OK, 0, 0 },
	{ 1, 2, 0.0990, 30, FC_MX_OK, 0, 0 }, { 2, 1, 0.0870, 30, FC_MX_OK, 0, 0 },
};

static void test_explain_away_recorded(void **state)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	const struct fc_mx_finding *f;
	struct fc_mx_analysis an;
	char text[512];

	(void)state;
	o.min_gbps = 0.05;
	assert_int_equal(fc_mx_analyze(4, rack4_d20, 12, &o, &an), 0);
	assert_true(fabs(an.rack_median_gbps - 0.0988) < 1e-9);
	for (int i = 0; i < 4; i++)
		assert_int_equal(an.nodes[i].bad, 3); /* the raw counts */
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 1);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_LINK), 0);
	assert_int_equal(count_kind(&an, FC_MX_FLOOR), 0);
	f = first_kind(&an, FC_MX_SUSPECT_NODE);
	assert_int_equal(f->a, 3);
	fc_mx_finding_text(&an, f, names, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeD: bad with 3 of 3 peers (below 0.05 Gb/s, "
				     "below 90% of the rack median 0.0988 Gb/s; the slowest "
				     "0.0193 Gb/s, with nodeB)"));
	/* Its median (line rate one way) is not below anything: not said. */
	assert_null(strstr(text, "its median"));
	/* The other three, bad with each other by a few percent: one warning. */
	f = first_kind(&an, FC_MX_SPREAD);
	assert_non_null(f);
	assert_int_equal(f->a, 3);
	assert_int_equal(f->fail, 0);
	fc_mx_finding_text(&an, f, names, text, sizeof(text));
	assert_non_null(strstr(text, "3 nodes are bad with each other, every one of their 3 pairs "
				     "(below 90% of the rack median 0.0988 Gb/s)"));
	assert_null(strstr(text, "below 0.05"));
	for (int i = 0; i < 3; i++)
		assert_int_equal(an.nodes[i].state, FC_MX_NODE_OK);
	assert_int_equal(an.nsuspects, 1);
	fc_mx_release(&an);
}

/* A node named after another is judged on the pairs that remain, and its
 * reason states only what those pairs show. */
static double slow_b_lat_and_e(int a, int b)
{
	if (a == 4 || b == 4)
		return 0.02;
	return -1;
}

static void test_reason_is_the_nodes_own(void **state)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	struct fc_mx_analysis an;
	struct gen g;
	char text[512];
	int found = 0;

	(void)state;
	o.max_lat_us = 100;
	gen_matrix(&g, 6, 0, slow_b_lat_and_e);
	/* nodeB: high latency with everyone but nodeE; nodeE: slow. */
	for (size_t i = 0; i < g.n; i++)
		if ((g.r[i].a == 1 || g.r[i].b == 1) && g.r[i].a != 4 && g.r[i].b != 4)
			g.r[i].lat_us = 400;
	assert_int_equal(fc_mx_analyze(6, g.r, g.n, &o, &an), 0);
	assert_int_equal(count_kind(&an, FC_MX_SUSPECT_NODE), 2);
	for (int i = 0; i < an.nfindings; i++) {
		const struct fc_mx_finding *f = &an.findings[i];

		if (f->kind != FC_MX_SUSPECT_NODE)
			continue;
		fc_mx_finding_text(&an, f, names, text, sizeof(text));
		if (f->a == 1) {
			found++;
			/* Judged on its 4 other peers; nodeE's slowness is not its. */
			assert_non_null(strstr(text, "bad with 4 of 4 peers (latency above 100 us): "));
			assert_null(strstr(text, "rack median"));
		} else {
			found += 10;
			assert_int_equal(f->a, 4);
			assert_non_null(strstr(text, "bad with 5 of 5 peers (below 90% of the rack "
						     "median"));
			assert_non_null(strstr(text, "its median 0.02 Gb/s"));
		}
	}
	assert_int_equal(found, 11);
	fc_mx_release(&an);
}

/* Three nodes all bad with each other by as much: none stands out. With
 * a failing verdict the warning is a failure. */
static void test_spread_names_none(void **state)
{
	struct fc_mx_result r[6] = {
		{ 0, 1, 0.100, 30, FC_MX_OK, 0, 0 }, { 1, 0, 0.080, 30, FC_MX_OK, 0, 0 },
		{ 1, 2, 0.100, 30, FC_MX_OK, 0, 0 }, { 2, 1, 0.081, 30, FC_MX_OK, 0, 0 },
		{ 2, 0, 0.100, 30, FC_MX_OK, 0, 0 }, { 0, 2, 0.079, 30, FC_MX_OK, 0, 0 },
	};
	struct fc_mx_analysis an;

	(void)state;
	assert_int_equal(fc_mx_analyze(3, r, 6, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(count_kind(&an, FC_MX_SPREAD), 1);
	assert_false(fc_mx_failed(&an));
	fc_mx_release(&an);
	r[1].state = FC_MX_FAIL;
	r[3].state = FC_MX_FAIL;
	r[5].state = FC_MX_FAIL;
	assert_int_equal(fc_mx_analyze(3, r, 6, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_true(fc_mx_failed(&an));
	fc_mx_release(&an);
}

/* Every pair failed on its data path with no figure, each device set
 * up: none is named, and the words say why (issue 38: no contrast). */
static void test_spread_no_figure(void **state)
{
	struct fc_mx_result r[3] = {
		{ .a = 0, .b = 1, .gbps = NAN, .lat_us = NAN, .state = FC_MX_FAIL },
		{ .a = 1, .b = 2, .gbps = NAN, .lat_us = NAN, .state = FC_MX_FAIL },
		{ .a = 2, .b = 0, .gbps = NAN, .lat_us = NAN, .state = FC_MX_FAIL },
	};
	struct fc_mx_analysis an;
	char text[600];

	(void)state;
	assert_int_equal(fc_mx_analyze(3, r, 3, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_true(fc_mx_failed(&an));
	assert_int_equal(count_kind(&an, FC_MX_SPREAD), 1);
	for (int i = 0; i < an.nfindings; i++)
		if (an.findings[i].kind == FC_MX_SPREAD)
			fc_mx_finding_text(&an, &an.findings[i], names, text, sizeof(text));
	assert_non_null(strstr(text, "no pair among them worked, so the nodes cannot be told apart"));
	assert_null(strstr(text, "spread is wider"));
	fc_mx_release(&an);
}

/* A node whose own device its worker could not set up (the pair
 * document's node_fault, FC_MX_FAULT_*): that node is the suspect, its
 * pairs no error of their own; where no device worked, nothing is named
 * (the run's options cannot be told from the node). */
static void test_own_fault(void **state)
{
	struct fc_mx_result r[6];
	struct fc_mx_analysis an;
	char text[600];
	int k = 0;

	(void)state;
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			r[k++] = (struct fc_mx_result){
				.a = a, .b = b, .gbps = a == 2 || b == 2 ? NAN : 2.4, .lat_us = NAN,
				.state = a == 2 || b == 2 ? FC_MX_ERROR : FC_MX_OK,
				.fault = a == 2 ? FC_MX_FAULT_A : b == 2 ? FC_MX_FAULT_B : 0 };
	assert_int_equal(fc_mx_analyze(4, r, 6, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 1);
	assert_int_equal(an.nfindings, 1);
	assert_int_equal(an.findings[0].kind, FC_MX_SUSPECT_NODE);
	assert_int_equal(an.findings[0].a, 2);
	assert_int_equal(an.findings[0].why, FC_MX_BAD_OWN);
	assert_int_equal(an.nodes[2].state, FC_MX_NODE_SUSPECT);
	assert_int_equal(an.nodes[0].state, FC_MX_NODE_OK);
	fc_mx_finding_text(&an, &an.findings[0], names, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeC: its own RDMA device, port or rail could "
				     "not be set up or connected in 3 of its 3 pairs"));
	/* the port its worker named (issue 38 item 5), with or without its
	 * number; none said: the node's words above */
	fc_mx_own_text(&an, &an.findings[0], names, "mlx5_3", 1, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeC on mlx5_3 port 1: its own RDMA device, "
				     "port or rail could not be set up or connected in 3 of its 3 pairs"));
	fc_mx_own_text(&an, &an.findings[0], names, "mlx5_3", 0, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeC on mlx5_3: its own RDMA device"));
	fc_mx_own_text(&an, &an.findings[0], names, NULL, 1, text, sizeof(text));
	assert_non_null(strstr(text, "suspect node nodeC: its own RDMA device"));
	fc_mx_release(&an);
	/* the same pairs with no node named: could not check, as before */
	for (k = 0; k < 6; k++)
		r[k].fault = 0;
	assert_int_equal(fc_mx_analyze(4, r, 6, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(an.nodes[2].state, FC_MX_NODE_UNREACHABLE);
	fc_mx_release(&an);
	/* every pair's node named, none worked: nothing named */
	for (k = 0; k < 6; k++) {
		r[k].state = FC_MX_ERROR;
		r[k].gbps = NAN;
		r[k].fault = FC_MX_FAULT_A;
	}
	assert_int_equal(fc_mx_analyze(4, r, 6, NULL, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(count_kind(&an, FC_MX_UNREACHABLE), 4);
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
	/* The retest plan: nodeB against each good node it was bad with, and
	 * beside them references among the good nodes (nodeA-nodeC after
	 * nodeB-nodeA, nodeC-nodeA planned already, nodeD-nodeA after nodeB-nodeD). */
	n = fc_mx_retest_plan(&an, ra, rb, 16);
	assert_int_equal(n, 5);
	for (int i = 0, withb = 0; i < n; i++) {
		assert_int_not_equal(ra[i], rb[i]);
		assert_int_not_equal(fc_mx_cell(&an, ra[i], rb[i])->state, FC_MX_NONE);
		if (ra[i] == 1 || rb[i] == 1) {
			withb++;
			assert_true(fc_mx_cell(&an, ra[i], rb[i])->bad);
		} else {
			assert_false(fc_mx_pair_bad(&an, ra[i], rb[i]));
		}
		if (i == n - 1)
			assert_int_equal(withb, 3);
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
		cmocka_unit_test(test_explain_away_recorded),
		cmocka_unit_test(test_reason_is_the_nodes_own),
		cmocka_unit_test(test_spread_names_none),
		cmocka_unit_test(test_asymmetry),
		cmocka_unit_test(test_own_fault),
		cmocka_unit_test(test_spread_no_figure),
		cmocka_unit_test(test_unreachable_and_errors),
		cmocka_unit_test(test_two_nodes_blame_the_link),
		cmocka_unit_test(test_pair_verdict_and_retest),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
