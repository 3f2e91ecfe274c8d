/*
 * matrix's history findings name the rail and each node's own device on it
 * (matrix/mx_history.c mx_history_doc), from the run's rail plan in the
 * store (params "rails" "ports", matrix/mx_rails.c mx_rail_own_device): on
 * a rack whose nodeB is another server model, its HCA on rail 1 is mlx5_3,
 * not the rail's name mlx5_1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/out.h"
#include "matrix/mx_history.h"
#include "matrix/mx_model.h"

static json_t *flagged_doc(const char *b0, const char *b1)
{
	static char *names[] = { "nodeA", "nodeB" };
	struct mx_rail rails[2] = { { 0, "mlx5_0", "" }, { 1, "mlx5_1", "" } };
	struct mx_model m = { .n = 2, .names = names, .rails = rails, .nrails = 2 };
	double series[3] = { 10, 20, 20 };
	struct fc_hist_link l = { .a = 0, .b = 1, .rail = 1, .now = 10, .median = 20,
				  .drop_pct = 50, .runs = 2, .flagged = 1, .series = series };
	struct mx_history h = { .o = FC_HIST_OPTS_DEFAULT, .links = &l, .nlinks = 1, .nruns = 2 };
	json_t *doc = fc_doc_new();

	m.info.params = json_pack("{s:{s:{s:[{s:s}, {s:s}], s:[{s:s}, {s:s}]}}}", "rails", "ports",
				  "nodeA", "device", "mlx5_0", "device", "mlx5_1", "nodeB", "device",
				  b0, "device", b1);
	mx_history_doc(&h, &m, doc);
	json_decref(m.info.params);
	return doc;
}

static const char *finding0(const json_t *doc)
{
	return json_string_value(json_array_get(json_object_get(doc, "findings"), 0));
}

static void test_own_devices_named(void **state)
{
	json_t *doc = flagged_doc("mlx5_2", "mlx5_3"), *f;

	(void)state;
	assert_non_null(strstr(finding0(doc), "link nodeA-nodeB on rail 1 (mlx5_1) (nodeA mlx5_1, nodeB mlx5_3): 10 Gb/s is 50% below its median"));
	f = json_array_get(json_object_get(json_object_get(doc, "history"), "flagged"), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(f, "devices"), 0)), "mlx5_1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(f, "devices"), 1)), "mlx5_3");
	assert_int_equal(json_integer_value(json_object_get(f, "rail")), 1);
	json_decref(doc);
}

/* Every node names the rail's device: the finding reads as before. */
static void test_same_names_unchanged(void **state)
{
	json_t *doc = flagged_doc("mlx5_0", "mlx5_1");

	(void)state;
	assert_non_null(strstr(finding0(doc), "link nodeA-nodeB on rail 1 (mlx5_1): 10 Gb/s is 50% below"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_devices_named),
		cmocka_unit_test(test_same_names_unchanged),
	};

	return cmocka_run_group_tests_name("history rail", tests, NULL, NULL);
}
