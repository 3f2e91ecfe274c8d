/* The card over several tests (diag/cards.c, rule "hca_all_tests"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diag/diag.h"
#include "diag_util.h"

/* One test's document: its verdict and its two ports. */
static json_t *set(const char *verdict, const char *dev_a, const char *bdf_a, const char *dev_b,
		   const char *bdf_b)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:i, s:[{s:s, s:s}]}, {s:s, s:s, s:i, s:[{s:s, s:s}]}]}",
			 "verdict", verdict, "evidence", "node", "nodeF", "device", dev_a, "port", 1,
			 "pcie", "role", "hca", "bdf", bdf_a, "node", "nodeB", "device", dev_b, "port",
			 1, "pcie", "role", "hca", "bdf", bdf_b);
}

/* Two tests: nodeF mlx5_0 (0000:17:00.0) to nodeB mlx5_0 (0000:31:00.0)
 * failed; nodeF mlx5_1 (0000:17:00.1) to nodeB mlx5_1 at @bdf_b ended
 * @verdict. */
static json_t *two_tests(const char *verdict, const char *bdf_b)
{
	return json_pack("[o, o]", set("fail", "mlx5_0", "0000:17:00.0", "mlx5_0", "0000:31:00.0"),
			 set(verdict, "mlx5_1", "0000:17:00.1", "mlx5_1", bdf_b));
}

static json_t *judge(json_t *sets)
{
	json_t *doc = json_pack("{s:[]}", "diagnosis");

	diag_cards(doc, sets);
	json_decref(sets);
	return doc;
}

/* Both ports of nodeF's dual-port card (functions .0 and .1) failed their
 * rail's test; nodeB's two single-port cards did too, one test each. */
static void test_card_every_test_failed(void **state)
{
	json_t *doc = judge(two_tests("fail", "0000:32:00.0"));
	const json_t *d = entry(doc, 0);

	(void)state;
	assert_int_equal(ndiag(doc), 1);
	assert_string_equal(str(d, "rule"), "hca_all_tests");
	assert_string_equal(str(d, "part"), "HCA");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_string_equal(str(d, "subject"), "nodeF HCA PCIe 0000:17:00");
	assert_non_null(strstr(str(d, "evidence"), "every test of each of its 2 ports failed"));
	json_decref(doc);
}

/* One of the card's ports passed a test: not the card. */
static void test_card_one_passed(void **state)
{
	json_t *doc = judge(two_tests("pass", "0000:32:00.0"));

	(void)state;
	assert_int_equal(ndiag(doc), 0);
	json_decref(doc);
}

/* Both ends are dual-port cards that failed every test: the tests cannot
 * tell them apart, each "possible". */
static void test_card_both_ends(void **state)
{
	json_t *doc = judge(two_tests("fail", "0000:31:00.1"));

	(void)state;
	assert_int_equal(ndiag(doc), 2);
	assert_string_equal(str(entry(doc, 0), "confidence"), "possible");
	assert_string_equal(str(entry(doc, 1), "confidence"), "possible");
	assert_string_equal(str(entry(doc, 1), "subject"), "nodeB HCA PCIe 0000:31:00");
	json_decref(doc);
}

/* Tests with no verdict (no test.json) say nothing about the card. */
static void test_card_no_verdict(void **state)
{
	json_t *sets = two_tests("fail", "0000:32:00.0"), *doc;

	(void)state;
	json_object_del(json_array_get(sets, 0), "verdict");
	json_object_del(json_array_get(sets, 1), "verdict");
	doc = judge(sets);
	assert_int_equal(ndiag(doc), 0);
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
