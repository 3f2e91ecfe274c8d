/* LLDP neighbours from lldpctl -f json (core/lldp.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "core/lldp.h"

/* Two interfaces (a list): a named chassis, and one known by its id only
 * with a port description only. */
static void test_two(void **state)
{
	json_t *doc = json_load_file("tests/data/lldp/lldpctl-two.json", 0, NULL);
	char ch[64], pt[32];

	(void)state;
	assert_non_null(doc);
	assert_int_equal(fc_lldp_neighbour(doc, "ens1", ch, sizeof(ch), pt, sizeof(pt)), 0);
	assert_string_equal(ch, "leaf01");
	assert_string_equal(pt, "swp7");
	assert_int_equal(fc_lldp_neighbour(doc, "ens2", ch, sizeof(ch), pt, sizeof(pt)), 0);
	assert_string_equal(ch, "00:1c:0f:5f:c7:d1");
	assert_string_equal(pt, "Ethernet7/1");
	assert_int_equal(fc_lldp_neighbour(doc, "ens3", ch, sizeof(ch), pt, sizeof(pt)), -ENOENT);
	json_decref(doc);
}

/* One interface: an object, not a list; nothing else is a neighbour. */
static void test_one_and_bad(void **state)
{
	json_t *one = json_loads("{\"lldp\": {\"interface\": {\"eth2\": {\"chassis\": "
				 "{\"spine1\": {}}, \"port\": {\"id\": {\"value\": \"e1\"}}}}}}",
				 0, NULL);
	json_t *bad = json_loads("{\"lldp\": {\"interface\": {\"eth2\": {\"chassis\": 3}}}}", 0,
				 NULL);
	char ch[64], pt[32];

	(void)state;
	assert_int_equal(fc_lldp_neighbour(one, "eth2", ch, sizeof(ch), pt, sizeof(pt)), 0);
	assert_string_equal(ch, "spine1");
	assert_string_equal(pt, "e1");
	assert_int_equal(fc_lldp_neighbour(bad, "eth2", ch, sizeof(ch), pt, sizeof(pt)), -ENOENT);
	assert_int_equal(fc_lldp_neighbour(NULL, "eth2", ch, sizeof(ch), pt, sizeof(pt)), -ENOENT);
	json_decref(one);
	json_decref(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_one_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
