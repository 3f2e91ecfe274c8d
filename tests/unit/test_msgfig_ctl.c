/*
 * Issue 39 item 5, ctl/: the start barrier's warning (ctl/barrier.c) and a
 * captured tool's limits (ctl/child.c), fed known figures and checked
 * whole. The barrier gives the go to the children that wait once one has
 * waited max_wait s; the warning counts those against the children still
 * taking part. fc_capture keeps FC_CHILD_OUT_MAX (8 MiB) of a tool's
 * output and ends a tool at its deadline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "ctl/barrier.h"
#include "ctl/child.h"

#include "lastlog.h"

/* 4 children; 3 say ready (children 0, 1, 3), child 2 never does. With
 * max_wait 7 s nobody goes at once; once child 0 has waited 9 s, the 3
 * waiting go without child 2, each getting its byte. */
static void test_barrier_overdue(void **state)
{
	struct fc_child kids[4];
	struct fc_barrier b;
	int end[4];
	char c;

	(void)state;
	memset(kids, 0, sizeof(kids));
	assert_int_equal(fc_barrier_init(&b, 4, 7, -1), 0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(fc_barrier_pair(&b, k, &end[k]), 0);
	for (int k = 0; k < 4; k++)
		if (k != 2)
			assert_int_equal(write(end[k], "r", 1), 1);
	fc_barrier_step(&b, kids);
	assert_string_equal(last, "");
	assert_true(b.since[0] > 0 && b.since[1] > 0 && b.since[3] > 0 && !b.since[2]);
	b.since[0] = fc_now() - 9;
	fc_barrier_step(&b, kids);
	assert_string_equal(last, "3 of 4 tests waited 7 s for the others to start; they go on without them");
	for (int k = 0; k < 4; k++) {
		if (k != 2) {
			assert_int_equal(read(end[k], &c, 1), 1);
			assert_int_equal(c, 'g');
		}
		close(end[k]);
	}
	fc_barrier_release(&b);
}

/* A tool that says nothing for 30 s, given 1 s: ended, said so. */
static void test_capture_deadline(void **state)
{
	const char *argv[] = { "sleep", "30", NULL };
	char why[256];
	int rc;

	(void)state;
	assert_null(fc_capture(argv, 1, &rc, why, sizeof(why)));
	assert_string_equal(last, "sleep: no answer within 1 s; ending it");
	assert_string_equal(why, "sleep gave no answer within 1 s");
}

/* A tool that writes 9 MiB: more than the 8 MiB kept. */
static void test_capture_too_much(void **state)
{
	const char *argv[] = { "head", "-c", "9437184", "/dev/zero", NULL };
	char why[256];
	int rc;

	(void)state;
	assert_null(fc_capture(argv, 20, &rc, why, sizeof(why)));
	assert_string_equal(why, "head wrote more than 8 MiB; its output was not read");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_barrier_overdue, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_capture_deadline, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_capture_too_much, lastlog_setup, lastlog_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
