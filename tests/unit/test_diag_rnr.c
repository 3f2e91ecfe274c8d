/*
 * Loss at the application's posting (diag/rules_test.c rnr_site, issue 37
 * item 1): receive-not-ready counters name the end whose receives were not
 * posted, the receiver, not the switch's buffers or the QoS settings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diag/diag.h"
#include "diag_util.h"

static json_t *pair_run(const char **ab, const char **aa, const char **bb, const char **ba)
{
	const struct side sd[] = { { "nodeA", "mlx5_0", ab, aa }, { "nodeB", "mlx5_0", bb, ba } };

	return run_sides(pair_doc(4096, 4096, 0, 1), sd, 2);
}

/* mlx5: nodeA received RNR NAKs (rnr_nak_retry_err), nodeB dropped for lack
 * of a receive WQE (out_of_buffer): nodeB's receive posting, what nodeA
 * sent to it. */
static void test_rnr_names_receiver_posting(void **state)
{
	const char *ab[] = { "hw_counters/rnr_nak_retry_err", "0", NULL };
	const char *aa[] = { "hw_counters/rnr_nak_retry_err", "3000", NULL };
	const char *bb[] = { "hw_counters/out_of_buffer", "0", NULL };
	const char *ba[] = { "hw_counters/out_of_buffer", "3000", NULL };
	json_t *doc = pair_run(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_string_equal(str(d, "part"), "receiver's application (its receive posting)");
	assert_string_equal(str(d, "subject"), "nodeA mlx5_0 -> nodeB mlx5_0");
	assert_non_null(strstr(str(d, "evidence"), "lost at nodeB's side: nodeB (nodeA received RNR NAKs from it"));
	assert_non_null(strstr(str(d, "next"), "post more receives"));
	json_decref(doc);
}

/* rnr_nak_retry_err alone, at nodeB: it is nodeA that did not post. */
static void test_rnr_received_names_other_end(void **state)
{
	const char *ab[] = { "hw_counters/out_of_sequence", "0", NULL };
	const char *aa[] = { "hw_counters/out_of_sequence", "0", NULL };
	const char *bb[] = { "hw_counters/rnr_nak_retry_err", "0", NULL };
	const char *ba[] = { "hw_counters/rnr_nak_retry_err", "800", NULL };
	json_t *doc = pair_run(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_string_equal(str(d, "part"), "receiver's application (its receive posting)");
	assert_string_equal(str(d, "subject"), "nodeB mlx5_0 -> nodeA mlx5_0");
	json_decref(doc);
}

/* A few RNR NAKs beside many sequence gaps: the path lost the packets; the
 * RNR events are listed but do not name the part. */
static void test_rnr_minority_not_the_site(void **state)
{
	const char *ab[] = { "hw_counters/out_of_sequence", "0", "hw_counters/rnr_nak_retry_err", "0", NULL };
	const char *aa[] = { "hw_counters/out_of_sequence", "0", "hw_counters/rnr_nak_retry_err", "10", NULL };
	const char *bb[] = { "hw_counters/out_of_sequence", "0", NULL };
	const char *ba[] = { "hw_counters/out_of_sequence", "5000", NULL };
	json_t *doc = pair_run(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_string_not_equal(str(d, "part"), "receiver's application (its receive posting)");
	assert_non_null(strstr(str(d, "evidence"), "rnr_nak_retry_err +10"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rnr_names_receiver_posting),
		cmocka_unit_test(test_rnr_received_names_other_end),
		cmocka_unit_test(test_rnr_minority_not_the_site),
	};

	return cmocka_run_group_tests_name("diag receive not ready", tests, NULL, NULL);
}
