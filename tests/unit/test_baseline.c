/* Unit tests of the fleet's baseline (core/baseline.c, baseline/bl_pair.c):
 * the pruning, the profile match and its refusal, and judging documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/bl_pair.h"
#include "core/baseline.h"

/* A fleet of 95 healthy results around 392 Gb/s and 5 outliers 20-40%
 * below: the pruned mean is the healthy mean, the outliers dropped. */
static void test_prune_fleet(void **state)
{
	double v[100], healthy = 0;
	struct fc_bl_stat st;

	(void)state;
	for (int i = 0; i < 95; i++) {
		v[i] = 392 * (1 + 0.01 * ((i % 7) - 3) / 3.0);
		healthy += v[i];
	}
	healthy /= 95;
	for (int i = 95; i < 100; i++)
		v[i] = 392 * (0.6 + 0.05 * (i - 95));
	assert_int_equal(fc_bl_prune(v, 100, 5, &st), 0);
	assert_int_equal(st.count, 95);
	assert_int_equal(st.pruned, 5);
	assert_true(fabs(st.mean - healthy) < 1e-9);
	assert_true(st.min > 392 * 0.98);
}

/* The rule is applied again against each new mean: 93 is within 5% of the
 * first mean (pulled down by a 10), not of the second. */
static void test_prune_iterates(void **state)
{
	double v[] = { 100, 100, 100, 100, 100, 100, 100, 100, 93, 10 };
	struct fc_bl_stat st;

	(void)state;
	assert_int_equal(fc_bl_prune(v, 10, 5, &st), 0);
	assert_int_equal(st.pruned, 2);
	assert_int_equal(st.count, 8);
	assert_true(st.rounds >= 3);
	assert_true(fabs(st.mean - 100) < 1e-9);
	/* Within 5% of the mean is kept: 96 against a mean of 99.2. */
	double w[] = { 100, 100, 100, 100, 96 };
	assert_int_equal(fc_bl_prune(w, 5, 5, &st), 0);
	assert_int_equal(st.pruned, 0);
	assert_int_equal(st.count, 5);
	/* Nothing finite: no baseline. */
	double z[] = { NAN, -1 };
	assert_int_equal(fc_bl_prune(z, 2, 5, &st), -1);
}

static struct fc_bl_profile prof(double rate, double size)
{
	struct fc_bl_profile p = { .hca = "0x2c9:4129", .rate_gbps = rate,
				   .link_layer = "InfiniBand", .test = "write",
				   .size_bytes = size, .direction = "uni", .pattern = "pairs" };
	return p;
}

/* Another rate or size is refused, naming what differs. */
static void test_find_refuses(void **state)
{
	struct fc_bl_entry e[] = { { .prof = prof(400, 65536), .st = { .mean = 392, .count = 9 } } };
	struct fc_baseline b = { .e = e, .n = 1, .below_pct = 5 };
	struct fc_bl_profile p = prof(400, 65536);
	char why[400];

	(void)state;
	assert_ptr_equal(fc_bl_find(&b, &p, why, sizeof(why)), &e[0]);
	p = prof(200, 65536);
	assert_null(fc_bl_find(&b, &p, why, sizeof(why)));
	assert_non_null(strstr(why, "differs in its port rate"));
	p = prof(400, 1048576);
	assert_null(fc_bl_find(&b, &p, why, sizeof(why)));
	assert_non_null(strstr(why, "differs in its message size"));
	p = prof(400, 65536);
	strcpy(p.hca, "0x2c9:4123");
	assert_null(fc_bl_find(&b, &p, why, sizeof(why)));
	assert_non_null(strstr(why, "differs in its HCA model"));
}

/* A file round trip, and files that are not baselines. */
static void test_load(void **state)
{
	struct fc_bl_entry e = { .prof = prof(400, 65536), .st = { .mean = 392, .count = 9 } };
	json_t *doc = fc_bl_doc(&e, 1, 5);
	struct fc_baseline b;

	(void)state;
	assert_int_equal(fc_bl_load(&b, doc, "t.json"), 0);
	assert_int_equal(b.n, 1);
	assert_true(fabs(b.e[0].st.mean - 392) < 1e-9);
	assert_string_equal(b.e[0].prof.hca, "0x2c9:4129");
	fc_bl_release(&b);
	json_object_set_new(json_array_get(json_object_get(doc, "profiles"), 0), "mean_gbps",
			    json_real(-1));
	assert_int_equal(fc_bl_load(&b, doc, "t.json"), -1);
	json_decref(doc);
	doc = json_pack("{s:i, s:[]}", "fabcheck_baseline", 2, "profiles");
	assert_int_equal(fc_bl_load(&b, doc, "t.json"), -1);
	json_decref(doc);
}

static json_t *side(const char *node, const char *dev)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:s}", "node", node, "device", dev, "link_layer",
			 "InfiniBand", "rate_gbps", 400.0, "hca", "0x2c9:4129");
}

static json_t *pair_doc(const char *a, const char *b, double g)
{
	return json_pack("{s:o, s:o, s:[{s:s, s:s, s:f, s:f}]}", "a", side(a, "mlx5_0"), "b",
			 side(b, "mlx5_0"), "results", "test", "write", "metric", "bw",
			 "size_bytes", 65536.0, "gbps", g);
}

static void count_sample(const struct fc_bl_sample *s, void *arg)
{
	int *n = arg;

	assert_true(s->rail == 0 || s->rail == 1);
	assert_string_equal(s->prof.pattern, s->gbps > 300 ? "pairs" : "pairs+rails");
	(*n)++;
}

/* A document with rails: a sample per rail and phase, the rail's own sides. */
static void test_rail_samples(void **state)
{
	json_t *doc = json_pack("{s:o, s:o, s:[]}", "a", side("n1", "mlx5_0"), "b",
				side("n2", "mlx5_0"), "rails");
	int n = 0;

	(void)state;
	for (int r = 0; r < 2; r++)
		json_array_append_new(json_object_get(doc, "rails"),
				      json_pack("{s:i, s:o, s:o, s:{s:[{s:s, s:s, s:f, s:f}]},"
						" s:{s:[{s:s, s:s, s:f, s:f}]}}",
						"rail", r, "a", side("n1", r ? "mlx5_3" : "mlx5_0"),
						"b", side("n2", r ? "mlx5_3" : "mlx5_0"), "alone",
						"results", "test", "write", "metric", "bw",
						"size_bytes", 65536.0, "gbps", 390.0, "loaded",
						"results", "test", "write", "metric", "bw",
						"size_bytes", 65536.0, "gbps", 290.0));
	fc_bl_doc_samples(doc, count_sample, &n);
	assert_int_equal(n, 4);
	json_decref(doc);
}

static void pattern_sample(const struct fc_bl_sample *s, void *arg)
{
	assert_string_equal(s->prof.pattern, arg);
}

/* A flow of a matrix's traffic pattern is a profile of its own: an incast
 * flow shares its receiver's port, it is not a pair alone. */
static void test_pattern_samples(void **state)
{
	json_t *doc = pair_doc("n1", "n2", 130);

	(void)state;
	fc_bl_doc_samples(doc, pattern_sample, "pairs");
	json_object_set_new(doc, "matrix", json_pack("{s:s, s:i}", "pattern", "incast", "round", 1));
	fc_bl_doc_samples(doc, pattern_sample, "incast");
	json_decref(doc);
}

/* A node 8% slow with each of its 3 peers is named once, as the node;
 * a link 8% slow between healthy nodes is named as the link. */
static void test_judge(void **state)
{
	struct fc_bl_entry e = { .prof = prof(400, 65536), .st = { .mean = 392, .count = 30 } };
	struct fc_baseline b = { .e = &e, .n = 1, .below_pct = 5 };
	static const char *const nodes[] = { "n1", "n2", "n3", "n4", "n5", "n6" };
	struct fc_bl_judge j;
	json_t *doc = json_pack("{s:s, s:[]}", "verdict", "pass", "findings");
	const char *f0;

	(void)state;
	fc_bl_judge_init(&j, &b);
	for (int a = 0; a < 4; a++)
		for (int c = a + 1; c < 4; c++) {
			json_t *d = pair_doc(nodes[a], nodes[c], c == 3 ? 392 * 0.92 : 391);

			fc_bl_judge_doc(&j, d);
			json_decref(d);
		}
	json_t *d = pair_doc("n5", "n6", 392 * 0.92);
	fc_bl_judge_doc(&j, d);
	json_decref(d);
	assert_int_equal(j.defective, 4);
	assert_int_equal(fc_bl_judge_finish(&j, doc, "b.json"), 4);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 2);
	f0 = json_string_value(json_array_get(json_object_get(doc, "findings"), 0));
	assert_non_null(strstr(f0, "n4: 3 of its 3 links below the fleet's baseline"));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 1)),
			       "n5 -> n6: 1 result below"));
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "fail");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prune_fleet),    cmocka_unit_test(test_prune_iterates),
		cmocka_unit_test(test_find_refuses),   cmocka_unit_test(test_load),
		cmocka_unit_test(test_rail_samples),   cmocka_unit_test(test_judge),
		cmocka_unit_test(test_pattern_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
