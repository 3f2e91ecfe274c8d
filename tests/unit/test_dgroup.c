/* Unit tests of the diagnosis said once (core/dgroup.h): entries that name
 * the same part, as sure, with the same next step are one problem in the
 * diagnosis block and in the summary under the verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dgroup.h"
#include "core/summary.h"
#include "diag/diag.h"
#include "tests/unit/memtext.h"

#define NEXT_QOS "not the cable: check drops on the switch ports"

static json_t *entry(const char *subject, const char *part, const char *evidence)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "rule", "drops", "subject", subject,
			 "part", part, "confidence", "likely", "evidence", evidence, "next",
			 NEXT_QOS);
}

/* The demo's pair: each rail alone and loaded named the same part with
 * its own counters, and one other part beside them. */
static json_t *demo_list(void)
{
	json_t *l = json_array();

	json_array_append_new(l, entry("rail 0 alone: nodeA rxe0 <-> nodeB rxe0", "buffers or QoS configuration",
				       "retries; nodeA: completer_retry_err +73"));
	json_array_append_new(l, entry("rail 0 loaded: nodeA rxe0 <-> nodeB rxe0", "buffers or QoS configuration",
				       "retries; nodeA: completer_retry_err +56"));
	json_array_append_new(l, entry("rail 1 alone: nodeA rxe1 <-> nodeB rxe1", "buffers or QoS configuration",
				       "retries; nodeA: completer_retry_err +81"));
	json_array_append_new(l, entry("rail 1 loaded: nodeA rxe1 <-> nodeB rxe1", "buffers or QoS configuration",
				       "retries; nodeA: completer_retry_err +55"));
	json_array_append_new(l, entry("rail 1 loaded: nodeA rxe1", "host PCIe", "AER"));
	return l;
}

static void test_groups_demo(void **state)
{
	json_t *l = demo_list();
	struct fc_dgroup g[5];

	(void)state;
	assert_int_equal(fc_dgroups(l, g), 2);
	assert_int_equal(g[0].n, 4);
	assert_int_equal(g[0].first, 0);
	assert_int_equal(g[0].same_evidence, 0);
	assert_string_equal(g[0].subject, "nodeA rxe0/rxe1 <-> nodeB rxe0/rxe1 on rails 0 and 1");
	assert_int_equal(g[1].n, 1);
	assert_string_equal(g[1].subject, "rail 1 loaded: nodeA rxe1");
	json_decref(l);
}

/* One phase only: said; a swapped direction is not merged into one side. */
static void test_groups_phase_and_direction(void **state)
{
	json_t *l = json_array();
	struct fc_dgroup g[2];

	(void)state;
	json_array_append_new(l, entry("rail 0 loaded: nodeB rxe0 -> nodeA rxe0", "p", "e"));
	json_array_append_new(l, entry("rail 1 loaded: nodeA rxe1 -> nodeB rxe1", "p", "e"));
	assert_int_equal(fc_dgroups(l, g), 1);
	assert_int_equal(g[0].same_evidence, 1);
	assert_string_equal(g[0].subject,
			    "nodeB rxe0 -> nodeA rxe0; nodeA rxe1 -> nodeB rxe1 on rails 0 and 1, loaded");
	json_decref(l);
}

/* Subjects that are not a rail's phase: the distinct ones, listed. */
static void test_groups_plain(void **state)
{
	json_t *l = json_array();
	struct fc_dgroup g[3];

	(void)state;
	json_array_append_new(l, entry("nodeA mlx5_0 port 1", "p", "e"));
	json_array_append_new(l, entry("nodeA mlx5_1 port 1", "p", "e"));
	json_array_append_new(l, entry("nodeA mlx5_0 port 1", "p", "e"));
	assert_int_equal(fc_dgroups(l, g), 1);
	assert_int_equal(g[0].n, 3);
	assert_string_equal(g[0].subject, "nodeA mlx5_0 port 1/mlx5_1 port 1");
	json_decref(l);
}

/* The block says the problem once, with the first entry's evidence and how
 * many more; the summary names it once, under the verdict's own line. */
static void test_render_once(void **state)
{
	json_t *doc = json_pack("{s:s, s:o, s:[]}", "verdict", "warn", "diagnosis", demo_list(),
				"findings");
	char *d = render(diag_render, doc), *s;

	(void)state;
	setenv("COLUMNS", "200", 1);
	s = render(fc_summary_render, doc);
	assert_non_null(strstr(d, "  likely   nodeA rxe0/rxe1 <-> nodeB rxe0/rxe1 on rails 0 and 1: "
				  "buffers or QoS configuration\n           evidence (rail 0 alone; the 3 "
				  "others alike, each in --json): retries; nodeA: completer_retry_err +73\n"));
	assert_null(strstr(d, "+56"));
	assert_string_equal(s, "verdict: warn, 2 problems named:\n"
			       "  nodeA rxe0/rxe1 <-> nodeB rxe0/rxe1 on rails 0 and 1: buffers or QoS "
			       "configuration (likely); next: " NEXT_QOS "\n"
			       "  rail 1 loaded: nodeA rxe1: host PCIe (likely); next: " NEXT_QOS "\n");
	free(d);
	free(s);
	json_decref(doc);
}

/* At 100 columns a long place leaves too little of the step: the step on
 * its own line under the problem, not cut to nothing; a line that shows
 * enough of it is cut at a word. */
static void test_summary_next_under(void **state)
{
	json_t *doc = json_pack("{s:s, s:o, s:[]}", "verdict", "warn", "diagnosis", demo_list(),
				"findings");
	char *s;

	(void)state;
	setenv("COLUMNS", "100", 1);
	s = render(fc_summary_render, doc);
	assert_string_equal(s, "verdict: warn, 2 problems named:\n"
			       "  nodeA rxe0/rxe1 <-> nodeB rxe0/rxe1 on rails 0 and 1: buffers or QoS "
			       "configuration (likely)\n"
			       "    next: " NEXT_QOS "\n"
			       "  rail 1 loaded: nodeA rxe1: host PCIe (likely); next: not the cable: "
			       "check drops on the switch ...\n");
	free(s);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_demo),
		cmocka_unit_test(test_groups_phase_and_direction),
		cmocka_unit_test(test_groups_plain),
		cmocka_unit_test(test_render_once),
		cmocka_unit_test(test_summary_next_under),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
