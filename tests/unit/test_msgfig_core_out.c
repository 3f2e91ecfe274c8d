/* The --json document's "error" when a command ends with no verdict
 * (core/out.c error_json; issue 39 item 5): the exit code it names when
 * nothing was logged, and the count of the errors past the FC_LOG_KEEP (8)
 * it keeps. A binary of its own: the errors logged are counted for the
 * whole process: the tests run in their order, the first with none
 * logged, each later one adding to the errors before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"

/* fc_out_finish's document for exit @rc of "fabcheck soak" (stdout caught
 * in a file and decoded). */
static json_t *finish(int rc)
{
	struct fc_ctx ctx = { .json = 1, .cmd_path = "fabcheck soak" };
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	json_error_t je;
	json_t *doc;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stdout);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	assert_int_equal(fc_out_finish(&ctx, rc), rc);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	doc = json_loadf(tmp, 0, &je);
	fclose(tmp);
	assert_non_null(doc);
	return doc;
}

static const char *err_str(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(json_object_get(doc, "error"), key));
}

/* Exit 3 (could not run) with no error logged: the command and its code. */
static void test_exit_unsaid(void **state)
{
	json_t *doc;

	(void)state;
	assert_int_equal(fc_log_errors(NULL, 0), 0);
	doc = finish(FC_EXIT_CANT);
	assert_string_equal(err_str(doc, "message"), "fabcheck soak exited 3 without saying why");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "error"),
							    "exit_code")), 3);
	assert_string_equal(err_str(doc, "code"), "cant_run");
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			    "fabcheck soak exited 3 without saying why");
	json_decref(doc);
}

/* 9 errors logged: 8 kept as findings, then "... and 1 more error" (it
 * said "1 more errors"). */
static void test_one_more_error(void **state)
{
	const json_t *f;
	json_t *doc;

	(void)state;
	for (int i = 1; i <= 9; i++)
		fc_err("soak: error number %d", i);
	doc = finish(FC_EXIT_CANT);
	f = json_object_get(doc, "findings");
	assert_int_equal(json_array_size(f), 9);
	assert_string_equal(json_string_value(json_array_get(f, 7)), "soak: error number 8");
	assert_string_equal(json_string_value(json_array_get(f, 8)),
			    "... and 1 more error (see stderr)");
	json_decref(doc);
}

/* Two more (11 in the process): still the first 8, then "... and 3 more". */
static void test_more_errors(void **state)
{
	const json_t *f;
	json_t *doc;

	(void)state;
	for (int i = 10; i <= 11; i++)
		fc_err("soak: error number %d", i);
	doc = finish(FC_EXIT_CANT);
	f = json_object_get(doc, "findings");
	assert_int_equal(json_array_size(f), 9);
	assert_string_equal(json_string_value(json_array_get(f, 0)), "soak: error number 1");
	assert_string_equal(json_string_value(json_array_get(f, 7)), "soak: error number 8");
	assert_string_equal(json_string_value(json_array_get(f, 8)),
			    "... and 3 more errors (see stderr)");
	assert_string_equal(err_str(doc, "message"), "soak: error number 1");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_unsaid),
		cmocka_unit_test(test_one_more_error),
		cmocka_unit_test(test_more_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
