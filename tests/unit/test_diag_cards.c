/* The card over several tests (diag/cards.c, rule "hca_all_tests"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diag/diag.h"

/* One test's document: its verdict and its two ports. */
static json_t *set(const char *verdict, const char *dev_a, const char *bdf_a, const char *dev_b,
		   const char *bdf_b)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:i, s:[{s:s, s:s}]}, {s:s, s:s, s:i, s:[{s:s, s:s}]}]}",
			 "verdict", verdict, "evidence", "node", "nodeF", "device", dev_a, "port", 1,
			 "pcie", "role", "hca", "bdf", bdf_a, "node", "nodeB", "device", dev_b, "port",
			 1, "pcie", "role", "hca", "bdf", bdf_b);
}

static json_t *judge(json_t *sets)
{
	json_t *doc = json_pack("{s:[]}", "diagnosis");

	diag_cards(doc, sets);
	json_decref(sets);
	return doc;
}

static const char *field(const json_t *doc, size_t i, const char *k)
{
	const char *s = json_string_value(
		json_object_get(json_array_get(json_object_get(doc, "diagnosis"), i), k));

	return s ? s : "";
}

/* Both ports of nodeF's dual-port card (functions .0 and .1) failed their
 * rail's test; nodeB's two single-port cards did too, one test each. */
static void test_card_every_test_failed(void **state)
{
	json_t *doc = judge(json_pack("[o, o]",
				      set("fail", "mlx5_0", "0000:17:00.0", "mlx5_0", "0000:31:00.0"),
				      set("fail", "mlx5_1", "0000:17:00.1", "mlx5_1", "0000:32:00.0")));

	(void)state;
	assert_int_equal(json_array_size(json_object_get(doc, "diagnosis")), 1);
	assert_string_equal(field(doc, 0, "rule"), "hca_all_tests");
	assert_string_equal(field(doc, 0, "part"), "HCA");
	assert_string_equal(field(doc, 0, "confidence"), "likely");
	assert_string_equal(field(doc, 0, "subject"), "nodeF HCA PCIe 0000:17:00");
	assert_non_null(strstr(field(doc, 0, "evidence"), "every test of each of its 2 ports failed"));
	json_decref(doc);
}

/* One of the card's ports passed a test: not the card. */
static void test_card_one_passed(void **state)
{
	json_t *doc = judge(json_pack("[o, o]",
				      set("fail", "mlx5_0", "0000:17:00.0", "mlx5_0", "0000:31:00.0"),
				      set("pass", "mlx5_1", "0000:17:00.1", "mlx5_1", "0000:32:00.0")));

	(void)state;
	assert_int_equal(json_array_size(json_object_get(doc, "diagnosis")), 0);
	json_decref(doc);
}

/* Both ends are dual-port cards that failed every test: the tests cannot
 * tell them apart, each "possible". */
static void test_card_both_ends(void **state)
{
	json_t *doc = judge(json_pack("[o, o]",
				      set("fail", "mlx5_0", "0000:17:00.0", "mlx5_0", "0000:31:00.0"),
				      set("fail", "mlx5_1", "0000:17:00.1", "mlx5_1", "0000:31:00.1")));

	(void)state;
	assert_int_equal(json_array_size(json_object_get(doc, "diagnosis")), 2);
	assert_string_equal(field(doc, 0, "confidence"), "possible");
	assert_string_equal(field(doc, 1, "confidence"), "possible");
	assert_string_equal(field(doc, 1, "subject"), "nodeB HCA PCIe 0000:31:00");
	json_decref(doc);
}

/* Tests with no verdict (no test.json) say nothing about the card. */
static void test_card_no_verdict(void **state)
{
	json_t *a = set("fail", "mlx5_0", "0000:17:00.0", "mlx5_0", "0000:31:00.0");
	json_t *b = set("fail", "mlx5_1", "0000:17:00.1", "mlx5_1", "0000:32:00.0");
	json_t *doc;

	(void)state;
	json_object_del(a, "verdict");
	json_object_del(b, "verdict");
	doc = judge(json_pack("[o, o]", a, b));
	assert_int_equal(json_array_size(json_object_get(doc, "diagnosis")), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_every_test_failed), cmocka_unit_test(test_card_one_passed),
		cmocka_unit_test(test_card_both_ends), cmocka_unit_test(test_card_no_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
