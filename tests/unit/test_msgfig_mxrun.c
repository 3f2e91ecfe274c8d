/*
 * Issue 39 item 5, matrix/mx_run.c: a pair child that ends without its
 * JSON document. The runner runs a stand-in for `fabcheck pair` (a script
 * written here, as mx_runner's exe) that says one error line and exits 1,
 * the code of a pair that ran and judged: without its document the stored
 * one is an infrastructure error that names the exit code and the child's
 * last words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/out.h"
#include "matrix/mx_run.h"
#include "store/store.h"
#include "tests/unit/tmptree.h"

static json_t *got;

static void keep(void *arg, const struct mx_job *job, const json_t *doc)
{
	(void)arg;
	(void)job;
	json_decref(got);
	got = json_deep_copy(doc);
}

static void test_pair_without_doc(void **state)
{
	char *top = tmpdir(), db[128], exe[128];
	char *names[] = { "nodeA", "nodeB" };
	volatile sig_atomic_t stop = 0;
	json_t *args = json_array(), *params = json_object();
	struct mx_runner r = { 0 };
	FILE *f;
	int rc;

	(void)state;
	snprintf(db, sizeof(db), "%s/m.db", top);
	snprintf(exe, sizeof(exe), "%s/pair.sh", top);
	assert_non_null(f = fopen(exe, "w"));
	fputs("#!/bin/sh\necho 'fabcheck: error: cannot reach nodeB' >&2\nexit 1\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(exe, 0755), 0);
	assert_non_null(r.st = fc_store_open(db));
	assert_true((r.run = fc_store_run_begin(r.st, "matrix", params)) > 0);
	r.n = 2;
	r.names = names;
	r.pair_args = args;
	r.deadline_s = 30;
	r.exe = exe;
	r.stop = &stop;
	r.on_result = keep;
	assert_int_equal(mx_run_init(&r), 0);
	while ((rc = mx_run_poll(&r, 100)) > 0)
		;
	assert_int_equal(rc, 0);
	assert_non_null(got);
	assert_string_equal(fc_jstr(got, "verdict", ""), "error");
	assert_string_equal(fc_jstr(got, "error", ""),
			    "pair exited 1 without a JSON document: fabcheck: error: cannot reach nodeB");
	mx_run_release(&r);
	fc_store_close(r.st);
	json_decref(got);
	json_decref(args);
	json_decref(params);
	rmtree(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_without_doc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
