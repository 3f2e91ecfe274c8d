/*
 * The probe within a deadline (pf_probe_doc_by, checks/preflight/
 * preflight.h): a tool is given what is left of the deadline, and once it
 * is spent no tool starts; each one is listed in "ran_out", which health
 * and preflight take as "could not check". Here on this host's live
 * source (the fake verbs provider of the unit tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/util.h"
#include "ctl/nodesrc.h"

#include "tests/unit/finding.h"

/* A deadline already spent: `fabcheck topo` is not started, and says so. */
static void test_deadline_spent(void **state)
{
	struct fc_src live;
	json_t *doc;

	(void)state;
	fc_src_live(&live, NULL);
	doc = pf_probe_doc_by(&live, 10, fc_now() - 1, 0);
	assert_non_null(doc);
	assert_true(has_text(json_object_get(doc, "ran_out"),
			   "fabcheck topo: not started, the deadline was spent"));
	assert_string_equal(json_string_value(json_object_get(doc, "topo_error")),
			    "not started: the deadline was spent");
	json_decref(doc);
}

/* No deadline (0), and no topo asked: nothing ran out, no "ran_out". */
static void test_no_deadline(void **state)
{
	struct fc_src live;
	json_t *doc;

	(void)state;
	fc_src_live(&live, NULL);
	doc = pf_probe_doc_by(&live, 10, 0, 1);
	assert_non_null(doc);
	assert_null(json_object_get(doc, "ran_out"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline_spent),
		cmocka_unit_test(test_no_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
