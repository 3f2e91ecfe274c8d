/*
 * Issue 39 item 5: verbs/knobs.c's sentences (vb_knobs_settle) fed known,
 * distinct figures and checked whole. Each case's figures are worked from
 * the rule in verbs/knobs.c's head comment: a list of L requests fits a
 * window W with one request in C signalled when L <= W and
 * L + C - gcd(L, C) <= W; the method's own CQ moderation is half of -t, at
 * most 64 (vb_cq_mod_default), perftest's 100 capped at its tx depth, which
 * it cuts to -n (perftest_parameters.c, force_dependecies).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "verbs/test.h"

/* Write bandwidth, fabcheck's method unless @in says otherwise. */
static int settle(struct vb_knob_in in, struct vb_knob_out *out)
{
	in.op = VB_WRITE;
	return vb_knobs_settle(&in, out);
}

/* A list of 60 in a window of -t 48: refused, the fix raises -t to 60. */
static void test_list_past_window(void **state)
{
	struct vb_knob_out out;

	(void)state;
	assert_int_equal(settle((struct vb_knob_in){ .method = VB_METHOD_FABCHECK, .size = 65536,
						     .tx_depth = 48, .window = 48, .nqps = 2,
						     .post_list = 60 },
				&out),
			 -1);
	assert_string_equal(out.why,
			    "--post-list 60 is longer than the window (-t 48): raise -t to 60 or shorten the list");
}

/* --validate leaves 12 slots a QP of 3 at 64 KiB under -t 128: a list of
 * 20 is cut to 12; the method's 64 (128 / 2) is cut to the window, 12,
 * unasked (12 + 12 - 12 <= 12 fits), so only the list is said. */
static void test_list_cut_to_validate(void **state)
{
	struct vb_knob_out out;

	(void)state;
	assert_int_equal(settle((struct vb_knob_in){ .method = VB_METHOD_FABCHECK, .size = 65536,
						     .tx_depth = 128, .window = 12, .nqps = 3,
						     .validate = 1, .post_list = 20 },
				&out),
			 1);
	assert_string_equal(out.note,
			    "post list 20 shortened to 12, the window (12 requests per QP, the slots --validate gives each of the 3 QPs at 65536 B (-q, -s))");
	assert_int_equal(out.post_list, 12);
	assert_int_equal(out.cq_mod, 12);
}

/* perftest with -n 40: its tx depth is 40, an asked --cq-mod 50 capped
 * there (the window, -t 128, is larger). */
static void test_cq_mod_cut_to_iters(void **state)
{
	struct vb_knob_out out;

	(void)state;
	assert_int_equal(settle((struct vb_knob_in){ .method = VB_METHOD_PERFTEST, .size = 65536,
						     .tx_depth = 128, .window = 128, .nqps = 1,
						     .post_list = 1, .cq_mod = 50, .iters = 40 },
				&out),
			 1);
	assert_string_equal(out.note, "CQ moderation 50 capped at the tx depth, 40 (-n 40), as perftest does");
	assert_int_equal(out.tx_depth, 40);
	assert_int_equal(out.cq_mod, 40);
}

/* An asked --cq-mod 30 in --validate's window of 24: capped at 24. */
static void test_cq_mod_cut_to_window(void **state)
{
	struct vb_knob_out out;

	(void)state;
	assert_int_equal(settle((struct vb_knob_in){ .method = VB_METHOD_FABCHECK, .size = 4096,
						     .tx_depth = 128, .window = 24, .nqps = 4,
						     .validate = 1, .post_list = 1, .cq_mod = 30 },
				&out),
			 1);
	assert_string_equal(out.note, "CQ moderation 30 capped at the window, 24");
	assert_int_equal(out.cq_mod, 24);
}

/* -t 16, a list of 14, the method's 8: 14 + 8 - 2 = 20 > 16 stalls; 7
 * fits (14 + 7 - 7 = 14), the largest that does. */
static void test_cq_mod_would_stall(void **state)
{
	struct vb_knob_out out;

	(void)state;
	assert_int_equal(settle((struct vb_knob_in){ .method = VB_METHOD_FABCHECK, .size = 65536,
						     .tx_depth = 16, .window = 16, .nqps = 1,
						     .post_list = 14 },
				&out),
			 1);
	assert_string_equal(out.note,
			    "CQ moderation 8 with post list 14 would stall a window of -t 16: one signalled request in 7 instead");
	assert_int_equal(out.post_list, 14);
	assert_int_equal(out.cq_mod, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_past_window),
		cmocka_unit_test(test_list_cut_to_validate),
		cmocka_unit_test(test_cq_mod_cut_to_iters),
		cmocka_unit_test(test_cq_mod_cut_to_window),
		cmocka_unit_test(test_cq_mod_would_stall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
