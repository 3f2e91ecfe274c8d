/*
 * Software RDMA devices (core/softdev.h) and the judgments that model them:
 * pair --rails' rails loaded below alone (pair/pair_loaded.c, diag rule
 * rails_slow) and the drops row's next step (diag/rules_test.c r_loss), each
 * against the same figures on hardware HCAs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/softdev.h"
#include "diag/diag.h"
#include "pair/pair.h"
#include "diag_util.h"

/* ibv_devinfo's vendor_id of each, else the name rdma link add gives. */
static void test_soft_vendor_and_name(void **state)
{
	(void)state;
	assert_true(fc_rdma_soft("eth0_rxe", 0xffffff));
	assert_true(fc_rdma_soft("siw_eno1", 0x626d74));
	assert_true(fc_rdma_soft("rxe0", -1));
	assert_true(fc_rdma_soft("siw0", -1));
	assert_false(fc_rdma_soft("mlx5_0", 0x02c9));
	assert_false(fc_rdma_soft("mlx5_0", -1));
	assert_false(fc_rdma_soft(NULL, -1));
}

static json_t *side(const char *dev, const char *hca)
{
	json_t *o = json_pack("{s:s}", "device", dev);

	if (hca)
		json_object_set_new(o, "hca", json_string(hca));
	return o;
}

static void test_soft_side(void **state)
{
	json_t *s;

	(void)state;
	assert_true(fc_rdma_soft_side(s = side("roce_a", "0xffffff:0")));
	json_decref(s);
	assert_false(fc_rdma_soft_side(s = side("mlx5_3", "0x15b3:4129")));
	json_decref(s);
	assert_true(fc_rdma_soft_side(s = side("rxe1", NULL)));
	json_decref(s);
	/* not "0xVENDOR:PART": the vendor unknown, the name decides */
	assert_false(fc_rdma_soft_side(s = side("bnxt_re0", "ffffff")));
	json_decref(s);
	assert_false(fc_rdma_soft_side(NULL));
}

/* A rail of pair --rails: alone 0.18 Gb/s (passed), loaded 0.0903. */
static json_t *rail(const char *dev, const char *hca)
{
	return json_pack("{s:i, s:s, s:o, s:o, s:f, s:f, s:s, s:b}", "rail", 0, "name", dev, "a",
			 side(dev, hca), "b", side(dev, hca), "alone_gbps", 0.18, "loaded_gbps",
			 0.0903, "verdict", "pass", "host_limited", 0);
}

static void test_loaded_cpu_vs_host(void **state)
{
	json_t *doc = json_object(), *soft = rail("rxe0", "0xffffff:0"), *hw = rail("mlx5_0", "0x15b3:4129");
	json_t *ok = rail("rxe0", NULL);

	(void)state;
	assert_int_equal(pair_loaded_judge(doc, soft, "pass", 90, 2), PAIR_LOADED_CPU);
	assert_true(json_is_true(json_object_get(soft, "cpu_limited")));
	assert_false(json_is_true(json_object_get(soft, "host_limited")));
	assert_string_equal(str(soft, "verdict"), "pass");
	assert_null(json_object_get(doc, "findings"));
	assert_int_equal(pair_loaded_judge(doc, hw, "pass", 90, 2), PAIR_LOADED_HOST);
	assert_true(json_is_true(json_object_get(hw, "host_limited")));
	assert_string_equal(str(hw, "verdict"), "fail");
	assert_string_equal(str(doc, "verdict"), "fail");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			       "rail 0 (mlx5_0): 0.18 Gb/s alone but 0.0903 Gb/s (50%) with all 2 rails loaded"));
	/* at --min-loaded-pct 50 it moved enough; a rail failed alone is not judged here */
	assert_int_equal(pair_loaded_judge(doc, ok, "pass", 50, 2), PAIR_LOADED_OK);
	assert_int_equal(pair_loaded_judge(doc, ok, "fail", 90, 2), PAIR_LOADED_OK);
	json_decref(soft);
	json_decref(hw);
	json_decref(ok);
	json_decref(doc);
}

/* The note: once, each CPU-limited rail with its figures. */
static void test_loaded_note(void **state)
{
	json_t *doc = json_object(), *rails = json_array(), *r0 = rail("rxe0", NULL), *r1 = rail("rxe1", NULL);

	(void)state;
	json_object_set_new(r1, "rail", json_integer(1));
	json_object_set_new(r1, "alone_gbps", json_real(0.115));
	json_object_set_new(r1, "loaded_gbps", json_real(0.0679));
	json_object_set_new(r0, "cpu_limited", json_true());
	json_object_set_new(r1, "cpu_limited", json_true());
	json_array_append_new(rails, r0);
	json_array_append_new(rails, r1);
	json_object_set_new(doc, "rails", rails);
	pair_loaded_note(doc);
	assert_int_equal(json_array_size(json_object_get(doc, "notes")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "notes"), 0)),
			    "all 2 rails loaded, rail 0 (rxe0) 0.0903 Gb/s (50% of 0.18 alone), "
			    "rail 1 (rxe1) 0.0679 Gb/s (59% of 0.115 alone): rxe and siw do the HCA's "
			    "work on the node's CPU, which the rails share: a limit of the device class, "
			    "not a fault");
	json_decref(doc);
}

/* A document recorded before the model (rxe rails marked host_limited):
 * the diagnosis names no host PCIe for them; hardware HCAs still. */
static void test_rails_slow_soft(void **state)
{
	const char *devs[2] = { "rxe", "mlx5_" };

	(void)state;
	for (int k = 0; k < 2; k++) {
		char d0[16], d1[16];
		struct diag_set s = { 0 };
		json_t *doc;

		snprintf(d0, sizeof(d0), "%s0", devs[k]);
		snprintf(d1, sizeof(d1), "%s1", devs[k]);
		doc = json_pack("{s:s, s:{s:s}, s:{s:s}, s:[{s:i, s:o, s:o, s:f, s:f, s:b}, {s:i, s:o, s:o, s:f, s:f, s:b}]}",
				"verdict", "fail", "a", "node", "nodeA", "b", "node", "nodeB", "rails",
				"rail", 0, "a", side(d0, NULL), "b", side(d0, NULL), "alone_gbps", 0.18,
				"loaded_gbps", 0.0903, "host_limited", 1, "rail", 1, "a", side(d1, NULL),
				"b", side(d1, NULL), "alone_gbps", 0.115, "loaded_gbps", 0.0679,
				"host_limited", 1);
		diag_run(doc, &s);
		if (k == 0) {
			assert_null(by_rule(doc, "rails_slow"));
			none_with(doc, "part", "PCIe");
		} else {
			assert_string_equal(str(by_rule(doc, "rails_slow"), "part"), "host PCIe");
		}
		json_decref(doc);
	}
}

/* The virtual rack's loss (netem on nodeB, rxe0): drops, with the next
 * step of a software device; the same evidence as mlx5 ports: the fabric's. */
static void test_loss_next_soft(void **state)
{
	struct diag_set s;
	json_t *doc;

	(void)state;
	assert_int_equal(diag_set_read(DATA "rack-loss", &s), 0);
	doc = json_object();
	diag_run(doc, &s);
	assert_string_equal(str(first(doc), "part"), "buffers or QoS configuration");
	assert_non_null(strstr(str(first(doc), "next"), "a software device (rxe, siw) sends and "
					"receives through its node's network stack, on the node's CPU"));
	assert_null(strstr(str(first(doc), "next"), "lossless"));
	json_decref(doc);
	for (int k = 0; k < 2; k++) {
		json_t *sd = json_object_get(s.test, k ? "b" : "a");

		json_object_set_new(sd, "device", json_string("mlx5_0"));
		json_object_set_new(sd, "hca", json_string("0x15b3:4129"));
	}
	doc = json_object();
	diag_run(doc, &s);
	assert_non_null(strstr(str(first(doc), "next"), "re-run with --tclass on a lossless class"));
	json_decref(doc);
	diag_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_vendor_and_name), cmocka_unit_test(test_soft_side),
		cmocka_unit_test(test_loaded_cpu_vs_host),   cmocka_unit_test(test_loaded_note),
		cmocka_unit_test(test_rails_slow_soft),	     cmocka_unit_test(test_loss_next_soft),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
