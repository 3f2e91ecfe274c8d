/* LLDP neighbours from lldpctl -f json (core/lldp.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "core/lldp.h"

/* The neighbour of @ifname in @doc is @ch on port @pt (NULL: none). */
static void neighbour_is(const json_t *doc, const char *ifname, const char *ch, const char *pt)
{
	char c[64], p[32];
	int rc = fc_lldp_neighbour(doc, ifname, c, sizeof(c), p, sizeof(p));

	if (!ch) {
		assert_int_equal(rc, -ENOENT);
		return;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(c, ch);
	assert_string_equal(p, pt);
}

/* Two interfaces (a list): a named chassis, and one known by its id only
 * with a port description only. */
static void test_two(void **state)
{
	json_t *doc = json_load_file("tests/data/lldp/lldpctl-two.json", 0, NULL);

	(void)state;
	assert_non_null(doc);
	neighbour_is(doc, "ens1", "leaf01", "swp7");
	neighbour_is(doc, "ens2", "00:1c:0f:5f:c7:d1", "Ethernet7/1");
	neighbour_is(doc, "ens3", NULL, NULL);
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

/* lldpcli -f json0 (every value in a list): a chassis without a system
 * name is known by its id, a port without an id by its description; an
 * interface without a chassis, or not listed, has no neighbour. */
static void test_json0(void **state)
{
	json_t *doc = json_loads(
		"{\"lldp\": [{\"interface\": ["
		"{\"name\": \"ens1np0\", \"chassis\": [{\"id\": [{\"type\": \"mac\", "
		"\"value\": \"70:06:92:6e:32:64\"}], \"name\": [{\"value\": \"leaf1\"}]}], "
		"\"port\": [{\"id\": [{\"type\": \"local\", \"value\": \"Ethernet8\"}]}]},"
		"{\"name\": \"ens2np0\", \"chassis\": [{\"id\": [{\"value\": \"aa:bb\"}]}], "
		"\"port\": [{\"descr\": [{\"value\": \"swp3\"}]}]},"
		"{\"name\": \"ens3np0\", \"chassis\": [], \"port\": []}]}]}", 0, NULL);

	(void)state;
	assert_non_null(doc);
	neighbour_is(doc, "ens1np0", "leaf1", "Ethernet8");
	neighbour_is(doc, "ens2np0", "aa:bb", "swp3");
	neighbour_is(doc, "ens3np0", NULL, NULL);
	neighbour_is(doc, "ens4np0", NULL, NULL);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_one_and_bad),
		cmocka_unit_test(test_json0),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
