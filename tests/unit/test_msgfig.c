/* Messages with figures fed known figures (issue 39 item 5, "true
 * sentences"): a count beside its own total, and the noun's number
 * following the count. scripts/msg_catalogue.py lists every such message;
 * each test here drives the function that prints one with figures whose
 * right sentence is known, 1 (the singular) among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "diag/diag.h"
#include "matrix/mx_pattern.h"
#include "matrix/mxan.h"
#include "topo/topo_report.h"
#include "tests/unit/memtext.h"

static int has_finding(const json_t *doc, const char *want)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (strstr(json_string_value(f), want))
			return 1;
	return 0;
}

static void test_plural(void **state)
{
	(void)state;
	assert_string_equal(fc_s(0), "s");
	assert_string_equal(fc_s(1), "");
	assert_string_equal(fc_s(2), "s");
	assert_string_equal(fc_s(-1), "s");
}

/* The summary under a floor above every pair: "all 6 pairs of 4 nodes", as
 * the finding counts them; it read "every pair (6 of 4 nodes)", a count of
 * pairs out of a count of nodes. */
static void test_floor_pairs_of_nodes(void **state)
{
	json_t *doc = json_pack("{s:s, s:[s], s:{s:f, s:i, s:i, s:i, s:f}}", "verdict", "fail",
				"findings", "every pair is below --min-gbps 1", "floor", "min_gbps",
				1.0, "pairs", 12, "nodes", 4, "rails", 2, "best_gbps", 0.172);
	char *s, buf[512];

	(void)state;
	setenv("COLUMNS", "300", 1);
	s = render(fc_summary_render, doc);
	assert_non_null(strstr(s, "  all 12 pairs of 4 nodes on 2 rails: --min-gbps 1 is over the "
				  "best pair's 0.172 Gb/s (certain)"));
	free(s);
	json_object_set_new(json_object_get(doc, "floor"), "pairs", json_integer(1));
	json_object_set_new(json_object_get(doc, "floor"), "nodes", json_integer(2));
	json_object_set_new(json_object_get(doc, "floor"), "rails", json_integer(1));
	s = render(fc_summary_render, doc);
	assert_non_null(strstr(s, "  the 1 pair of 2 nodes: --min-gbps 1 is over the best pair's "
				  "0.172 Gb/s (certain)"));
	free(s);
	json_decref(doc);
	/* the finding above it: the same count, the singular for one pair */
	fc_mx_floor_text(buf, sizeof(buf), 1, 1, 2, 1, 0.172);
	assert_non_null(strstr(buf, "every pair is below --min-gbps 1 (1 pair of 2 nodes, the best "
				    "0.172 Gb/s)"));
	fc_mx_floor_text(buf, sizeof(buf), 1, 12, 4, 2, 0.172);
	assert_non_null(strstr(buf, "(12 pairs of 4 nodes on 2 rails, the best 0.172 Gb/s)"));
}

static json_t *entry(const char *subject, const char *evidence)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "rule", "drops", "subject", subject,
			 "part", "buffers or QoS configuration", "confidence", "likely",
			 "evidence", evidence, "next", "check drops on the switch ports");
}

/* A problem said once for two entries: "the 1 other alike" was the
 * plural's slip; with four, "the 3 others". */
static void test_diag_others_alike(void **state)
{
	json_t *doc = json_pack("{s:s, s:[o, o], s:[]}", "verdict", "warn", "diagnosis",
				entry("rail 0 alone: nodeA rxe0 <-> nodeB rxe0", "retries +73"),
				entry("rail 0 loaded: nodeA rxe0 <-> nodeB rxe0", "retries +56"),
				"findings");
	char *d;

	(void)state;
	setenv("COLUMNS", "300", 1);
	d = render(diag_render, doc);
	assert_non_null(strstr(d, "evidence (rail 0 alone; the 1 other alike, each in --json): "
				  "retries +73\n"));
	free(d);
	json_array_append_new(json_object_get(doc, "diagnosis"),
			      entry("rail 1 alone: nodeA rxe1 <-> nodeB rxe1", "retries +81"));
	json_array_append_new(json_object_get(doc, "diagnosis"),
			      entry("rail 1 loaded: nodeA rxe1 <-> nodeB rxe1", "retries +55"));
	d = render(diag_render, doc);
	assert_non_null(strstr(d, "evidence (rail 0 alone; the 3 others alike, each in --json): "));
	free(d);
	json_decref(doc);
}

/* A pattern's rounds: one flow, one round, one sender are singular. */
static void test_pattern_flows(void **state)
{
	json_t *doc = json_pack(
		"{s:{s:s, s:[{s:i, s:i, s:f}, {s:i, s:s, s:i, s:f, s:f, s:s, s:f}]}}", "pattern",
		"name", "incast", "rounds", "round", 1, "flows", 1, "total_gbps", 9.6, "round", 2,
		"receiver", "nodeA", "flows", 1, "aggregate_gbps", 9.5, "ceiling_gbps", 10.0,
		"ceiling_is", "port", "jain", 1.0);
	char *t;

	(void)state;
	t = render(mx_pattern_render, doc);
	assert_non_null(strstr(t, "pattern incast, 2 rounds ("));
	assert_non_null(strstr(t, "  round 1: 1 flow, 9.6 Gb/s in all\n"));
	assert_non_null(strstr(t, "  round 2: into nodeA from 1 sender: 9.5 Gb/s of 10 Gb/s (port)"));
	free(t);
	json_object_set_new(json_array_get(json_object_get(json_object_get(doc, "pattern"),
							   "rounds"), 0),
			    "flows", json_integer(4));
	json_array_remove(json_object_get(json_object_get(doc, "pattern"), "rounds"), 1);
	t = render(mx_pattern_render, doc);
	assert_non_null(strstr(t, "pattern incast, 1 round ("));
	assert_non_null(strstr(t, "  round 1: 4 flows, 9.6 Gb/s in all\n"));
	free(t);
	json_decref(doc);
}

/* One GPU and no RDMA HCA: "1 GPU", not "1 GPU(s)". */
static void test_topo_one_gpu(void **state)
{
	struct topo_view *v = calloc(1, sizeof(*v));
	json_t *doc = fc_doc_new();

	(void)state;
	assert_non_null(v);
	v->source = "nvidia-smi";
	v->ngpus = 1;
	snprintf(v->gpu[0].name, sizeof(v->gpu[0].name), "GPU0");
	v->row_known[0] = 1;
	topo_view_report(v, doc);
	assert_true(has_finding(doc, "1 GPU but no RDMA HCA: NCCL will use TCP sockets"));
	json_decref(doc);
	doc = fc_doc_new();
	v->ngpus = 2;
	snprintf(v->gpu[1].name, sizeof(v->gpu[1].name), "GPU1");
	v->row_known[1] = 1;
	topo_view_report(v, doc);
	assert_true(has_finding(doc, "2 GPUs but no RDMA HCA"));
	json_decref(doc);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plural),
		cmocka_unit_test(test_floor_pairs_of_nodes),
		cmocka_unit_test(test_diag_others_alike),
		cmocka_unit_test(test_pattern_flows),
		cmocka_unit_test(test_topo_one_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
