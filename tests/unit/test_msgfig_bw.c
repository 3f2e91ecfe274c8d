/*
 * Issue 39 item 5, verbs/bw_run.c: the bandwidth test's threads pinned to
 * the HCA's CPUs, through the real loop on the fake HCA (tests/fake). Two
 * threads given CPUs 1000 and 1001, which no host of the tests has (a
 * cpu_set_t holds 1024): the kernel refuses each (EINVAL), the test runs
 * unpinned, and the warning names the device, each thread (1-based, of
 * 2) with its own CPU, and the kernel's reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "tests/fake/fake_hca.h"

static char warned[1024];

static void keep(enum fc_log_level lvl, const char *msg)
{
	size_t n = strlen(warned);

	if (lvl == FC_LOG_WARN && n < sizeof(warned))
		snprintf(warned + n, sizeof(warned) - n, "%s\n", msg);
}

static void test_pin_refused(void **state)
{
	struct fk_cfg c = { .nqps = 2, .tx_depth = 16, .threads = 2, .max_size = 64,
			    .timeout = 5, .max_inline = 236 };
	struct vb_test t = { .op = VB_WRITE, .size = 64, .iters = 100, .active = 1,
			     .interval = 0.1, .method = VB_METHOD_FABCHECK, .warmup = 0,
			     .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			     .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 2 };
	struct fk_side a, b;
	struct vb_result res;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_CONF) > 1000)
		skip(); /* CPU 1000 may be this host's */
	assert_int_equal(fk_side_init(&a, &c), 0);
	assert_int_equal(fk_side_init(&b, &c), 0);
	fk_connect(&a, &b);
	a.r.pin = 1;
	CPU_ZERO(&a.r.cpus);
	CPU_SET(1000, &a.r.cpus);
	CPU_SET(1001, &a.r.cpus);
	warned[0] = '\0';
	fc_log_hook = keep;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
	fc_log_hook = NULL;
	assert_int_equal(res.msgs, 200);
	/* the two threads warn in either order */
	if (!strstr(warned, "fake0: data path thread 1 of 2: cannot pin to CPU 1000: Invalid argument\n") ||
	    !strstr(warned, "fake0: data path thread 2 of 2: cannot pin to CPU 1001: Invalid argument\n"))
		fail_msg("warned:\n%s", warned);
	vb_result_release(&res);
	fk_side_free(&a);
	fk_side_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
