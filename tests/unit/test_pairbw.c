/* Unit tests of the pair controller's arithmetic on recorded reports: both
 * ways over the common window (pair/pair_bw.c), the GID agreement and the
 * payload ceiling of each side (pair/pair_link.c), the floor from it
 * (core/pairv.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/pairv.h"
#include "pair/pair.h"

#include "tests/unit/finding.h"

/* A worker's bandwidth report: @gbps from @t0 (its clock) for @secs, a
 * point every 0.5 s. */
static json_t *report(double t0, double secs, double gbps)
{
	json_t *curve = json_array();

	for (double t = 0; t <= secs + 1e-9; t += 0.5)
		json_array_append_new(curve, json_pack("[f, f]", t, gbps * 1e9 / 8 * t));
	return json_pack("{s:f, s:f, s:f, s:o, s:f, s:[]}", "gbps", gbps, "seconds", secs, "t0",
			 t0, "curve", curve, "msgs", 100.0, "samples_gbps");
}

/* A on its clock 1000 s ahead of ours, from our 10 s to 14 s at 8 Gb/s; B
 * on a clock 50 s behind, from our 12 s to 16 s at 4 Gb/s. Together 12-14 s:
 * 2 s of 6. Each direction over that window; the sum of the two. */
static void test_bidir_skew(void **state)
{
	struct pair_cfg cfg = { .interval = 0.1 };
	json_t *doc = json_pack("{s:[]}", "findings"), *e = json_pack("{s:s, s:I}", "test", "write",
								      "size_bytes", (json_int_t)65536);
	json_t *res[2] = { report(1010, 4, 8), report(-38, 4, 4) };
	int active[2] = { 1, 1 };
	double off[2] = { 1000, -50 };
	const json_t *o;

	(void)state;
	pair_bw_entry(doc, &cfg, e, VB_WRITE, res, active, off, 0.002);
	o = json_object_get(e, "overlap");
	assert_non_null(o);
	assert_true(fabs(json_real_value(json_object_get(o, "window_s")) - 2) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(o, "run_s")) - 6) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(o, "share")) - 1.0 / 3) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(e, "a_to_b_gbps")) - 8) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(e, "b_to_a_gbps")) - 4) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(e, "gbps")) - 12) < 1e-6);
	/* the message rate over the same 2 s, not over the longer side's 4 s */
	assert_true(fabs(json_real_value(json_object_get(e, "msg_rate_mpps")) - 12e9 / 8 / 65536 / 1e6) < 1e-9);
	assert_true(has_text(json_object_get(doc, "findings"), "ran together for 33% of the run"));
	json_decref(e);
	json_decref(doc);
	json_decref(res[0]);
	json_decref(res[1]);

	/* The same runs with the clocks lined up: full overlap, no finding. */
	doc = json_pack("{s:[]}", "findings");
	e = json_pack("{s:s, s:I}", "test", "write", "size_bytes", (json_int_t)65536);
	res[0] = report(1010, 4, 8);
	res[1] = report(-40, 4, 4);
	off[1] = -50;
	pair_bw_entry(doc, &cfg, e, VB_WRITE, res, active, off, 0.002);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(e, "overlap"), "share")) - 1) < 1e-6);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	json_decref(e);
	json_decref(doc);
	json_decref(res[0]);
	json_decref(res[1]);
}

static json_t *side(const char *node, const char *type, const char *gid)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:f, s:{s:i, s:i, s:i, s:b, s:b, s:b}}",
			 "node", node, "device", "mlx5_0", "gid_type", type, "gid", gid,
			 "gid_index", 3, "link_layer", "Ethernet", "rate_gbps", 100.0, "link",
			 "width_code", 2, "speed_code", 32, "speed_ex_code", 0, "vlan", 0,
			 "rocev1", 0, "ipv6", strchr(gid, '.') == NULL);
}

static void test_gid_agreement(void **state)
{
	json_t *a = side("nodeA", "RoCE v2", "::ffff:10.0.0.1");
	json_t *b = side("nodeB", "RoCE v2", "::ffff:10.0.0.2");
	json_t *c = side("nodeB", "RoCE v1", "::ffff:10.0.0.2");
	json_t *d = side("nodeB", "RoCE v2", "fd00::2");
	char why[1000];

	(void)state;
	assert_int_equal(pair_gid_check(why, sizeof(why), a, b), 0);
	assert_int_equal(pair_gid_check(why, sizeof(why), a, c), -1);
	assert_non_null(strstr(why, "GID types differ: nodeA uses RoCE v2"));
	assert_int_equal(pair_gid_check(why, sizeof(why), a, d), -1);
	assert_non_null(strstr(why, "GID address families differ"));
	assert_non_null(strstr(why, "-x A,B"));
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
}

/* 100 GbE RoCE v2 at path MTU 1024: ceiling 100 * 1024 / 1106 = 92.586; the
 * default floor is 90% of it, and MTU 1024 is a finding. */
static void test_ceiling_floor(void **state)
{
	json_t *doc = json_pack("{s:o, s:o, s:[{s:s, s:s, s:I, s:f, s:f}], s:{}, s:[]}", "a",
				side("nodeA", "RoCE v2", "::ffff:10.0.0.1"), "b",
				side("nodeB", "RoCE v2", "::ffff:10.0.0.2"), "results", "test",
				"write", "metric", "bw", "size_bytes", (json_int_t)(1 << 20),
				"a_to_b_gbps", 85.0, "gbps", 85.0, "counters", "findings");
	struct fc_pair_limits lim = { .min_link_pct = 90 };
	const json_t *a;

	(void)state;
	pair_link_ceiling(doc, 1024);
	a = json_object_get(doc, "a");
	assert_true(fabs(json_real_value(json_object_get(a, "payload_gbps")) - 92.5859) < 1e-3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "payload"), "header_bytes")), 82);
	assert_true(has_text(json_object_get(doc, "findings"), "RoCE at path MTU 1024 B carries at most 92.6% of the port rate"));
	fc_pair_verdict(doc, &lim);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(doc, "thresholds"), "min_gbps")) - 83.3273) < 1e-3);
	/* 85 Gb/s is above 90% of the ceiling (83.33), though below 90% of the port rate */
	assert_false(has_text(json_object_get(doc, "findings"), "is below"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bidir_skew),
		cmocka_unit_test(test_gid_agreement),
		cmocka_unit_test(test_ceiling_floor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
