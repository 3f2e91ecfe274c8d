/* Unit tests of each fact once in a list (core/holders.h): the findings
 * that say the same of several nodes or ports grouped by their leading
 * name, and the lead that names them ("all 4 nodes", "nodeA, nodeB rxe0",
 * "link nodeA-nodeB on rxe0, rxe1", "nodeA and 5 others"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/holders.h"

static json_t *strings(const char *const *v)
{
	json_t *a = json_array();

	for (; *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

/* The line of group @i of @list grouped with @words, named against @nodes. */
static char *line_of(const char *const *list, int words, const char *const *nodes, size_t i,
		     size_t max)
{
	json_t *l = strings(list), *n = nodes ? strings(nodes) : NULL,
	       *g = fc_holders_by_lead(l, words);
	char *s = fc_holders_line(json_array_get(g, i), n, max);

	json_decref(l);
	json_decref(n);
	json_decref(g);
	return s;
}

static void test_lead(void **state)
{
	(void)state;
	assert_int_equal(fc_holders_lead("nodeA: x", 4), 5);
	assert_int_equal(fc_holders_lead("nodeA rxe0 port 1: x", 4), 17);
	assert_int_equal(fc_holders_lead("nodeA rxe0 port 1: x", 1), 0);
	/* a phase in brackets is no name: its counters stay per phase */
	assert_int_equal(fc_holders_lead("rail 1 (rxe1) loaded: nodeB rxe1 port 1: x", 4), 0);
	assert_int_equal(fc_holders_lead("no colon here", 4), 0);
}

static void test_every_node(void **state)
{
	static const char *const list[] = { "nodeA: X", "nodeB: Y", "nodeB: X", "nodeC: X",
					    "nodeD: X", NULL };
	static const char *const nodes[] = { "nodeA", "nodeB", "nodeC", "nodeD", NULL };
	json_t *l = strings(list), *g = fc_holders_by_lead(l, 4);
	char *s;

	(void)state;
	assert_int_equal(json_array_size(g), 2); /* X of 4 nodes, Y of one */
	s = line_of(list, 4, nodes, 0, 200);
	assert_string_equal(s, "all 4 nodes: X");
	free(s);
	s = line_of(list, 4, nodes, 1, 200);
	assert_string_equal(s, "nodeB: Y");
	free(s);
	json_decref(l);
	json_decref(g);
}

static void test_some_nodes(void **state)
{
	static const char *const list[] = { "nodeA: X", "nodeB: X", "nodeD: X", "nodeC: Z", NULL };
	static const char *const nodes[] = { "nodeA", "nodeB", "nodeC", "nodeD", NULL };
	static const char *const two[] = { "nodeA: X", "nodeB: X", NULL };
	char *s = line_of(list, 4, nodes, 0, 200);

	(void)state;
	assert_string_equal(s, "nodeA, nodeB, nodeD: X");
	free(s);
	s = line_of(two, 4, nodes + 2, 0, 200); /* nodes C, D: A and B are not all */
	assert_string_equal(s, "nodeA, nodeB: X");
	free(s);
	s = line_of(two, 4, (const char *const[]){ "nodeA", "nodeB", NULL }, 0, 200);
	assert_string_equal(s, "both nodes: X");
	free(s);
}

static void test_shared_words(void **state)
{
	static const char *const ports[] = { "nodeA rxe0: X", "nodeB rxe0: X", NULL };
	static const char *const links[] = { "link nodeA-nodeB on rxe0: X", "link nodeA-nodeB on rxe1: X",
					     NULL };
	char *s = line_of(ports, 4, NULL, 0, 200);

	(void)state;
	assert_string_equal(s, "nodeA, nodeB rxe0: X");
	free(s);
	s = line_of(links, 4, NULL, 0, 200);
	assert_string_equal(s, "link nodeA-nodeB on rxe0, rxe1: X");
	free(s);
}

static void test_counted_past_max(void **state)
{
	static const char *const list[] = { "n01: X", "n03: X", "n05: X", "n07: X", NULL };
	char *s = line_of(list, 4, NULL, 0, 10);

	(void)state;
	assert_string_equal(s, "n01 and 3 others: X");
	free(s);
}

/* A finding with no leading name is its own line; the same one twice is
 * said once. */
static void test_no_lead(void **state)
{
	static const char *const list[] = { "the rack is slow: check the switch", "nodeA: X",
					    "the rack is slow: check the switch", NULL };
	json_t *l = strings(list), *g = fc_holders_by_lead(l, 1);
	char *s = line_of(list, 1, NULL, 0, 200);

	(void)state;
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(s, "the rack is slow: check the switch");
	free(s);
	json_decref(l);
	json_decref(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lead),
		cmocka_unit_test(test_every_node),
		cmocka_unit_test(test_some_nodes),
		cmocka_unit_test(test_shared_words),
		cmocka_unit_test(test_counted_past_max),
		cmocka_unit_test(test_no_lead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
