/* The virtual rack's messages with figures fed known figures (issue 39
 * item 5; scripts/msg_catalogue.py lists them), without a rack: lab
 * calibrate's refusals of its arguments, the starvation judgment's
 * sentences. No QEMU is started. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/fc.h"
#include "core/log.h"
#include "lab/starve.h"

static char logged[1024];

static void keep(enum fc_log_level lvl, const char *msg)
{
	if (lvl == FC_LOG_ERR)
		snprintf(logged, sizeof(logged), "%s", msg);
}

static int calibrate(int argc, char **argv)
{
	struct fc_ctx ctx = { 0 };
	int rc;

	logged[0] = 0;
	fc_log_hook = keep;
	rc = fc_lab_calibrate(&ctx, argc, argv);
	fc_log_hook = NULL;
	return rc;
}

/* Each refusal names its own input: a bad name alone said "or --mtu 0 is
 * no MTU" of an --mtu never given; an MTU of 70000 is said with its
 * figure and the range. */
static void test_calibrate_refusals(void **state)
{
	char *bad_name[] = { "calibrate", "--name", "Bad", NULL };
	char *bad_mtu[] = { "calibrate", "--name", "lab2", "--mtu", "70000", NULL };

	(void)state;
	assert_int_equal(calibrate(3, bad_name), FC_EXIT_USAGE);
	assert_string_equal(logged, "lab calibrate: 'Bad' is not a rack name; use 1 to 32 lowercase letters, digits or '-', starting with a letter");
	assert_int_equal(calibrate(5, bad_mtu), FC_EXIT_USAGE);
	assert_string_equal(logged, "lab calibrate: --mtu 70000 is no MTU; give the rack's MTU in bytes, 1 to 65535 (left out: 9000)");
}

/* A calibration pair at 0.061 Gb/s where this host's best is 0.173 (below
 * half of it): starved, both figures in their places; a wait of 40% over
 * 0.37 s runnable: too little to judge, said with its 0.37 s. */
static void test_starve_sentences(void **state)
{
	struct fc_starve_fig f = { .wait_pct = -1, .calib_gbps = 0.061, .baseline_gbps = 0.173 };
	char why[1024];

	(void)state;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_string_equal(why, "the virtual rack was starved: the host is busy; results are not about the nodes (its calibration pair moved 0.061 Gb/s, below half of this host's best 0.173 Gb/s); run it on a quiet host");
	f = (struct fc_starve_fig){ .wait_pct = 40, .runnable_s = 0.37, .calib_gbps = -1,
				    .baseline_gbps = -1 };
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_string_equal(why, "the virtual rack's guests were too idle (0.37 s runnable) to tell whether the host starved them");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_refusals),
		cmocka_unit_test(test_starve_sentences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
