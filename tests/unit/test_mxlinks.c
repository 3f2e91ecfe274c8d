/* The model's rail cells read from the store's link rows equal those read
 * from the documents (a store of schema 1), row for row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix/mx_model.h"

static char dir[64], path[96];

static json_t *phase(const char *verdict, double gbps)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:i, s:f}, {s:s, s:s, s:i, s:f}]}", "verdict",
			 verdict, "results", "test", "write", "metric", "bw", "size_bytes",
			 1048576, "gbps", gbps, "test", "read", "metric", "lat", "size_bytes", 2,
			 "p50_us", 3.14159265358979);
}

/* A rail entry: @ph (stolen) its loaded phase, NULL for none. */
static json_t *rail(int r, const char *subnet, json_t *ph)
{
	char name[16];

	snprintf(name, sizeof(name), "mlx5_%d", r);
	return json_pack("{s:i, s:s, s:s, s:n, s:o}", "rail", r, "name", name, "subnet", subnet,
			 "alone", "loaded", ph ? ph : json_null());
}

static void add(struct fc_store *st, int64_t run, const char *a, const char *b,
		const char *verdict, json_t *rails, int retest)
{
	json_t *d = json_pack("{s:s, s:[s], s:{s:s}, s:{s:s}, s:[]}", "verdict", verdict,
			      "findings", "setup failed", "a", "node", a, "b", "node", b,
			      "results");

	if (rails)
		json_object_set_new(d, "rails", rails);
	if (retest)
		json_object_set_new(d, "retest", json_true());
	assert_int_equal(fc_store_pair_add(st, run, a, b, d), 0);
	json_decref(d);
}

/* Rows of every kind: both rails, one without a phase, one on a rail the
 * rack does not have, a pair that could not run or failed without rails,
 * a retest. */
static int64_t fill(struct fc_store *st)
{
	char *names[] = { "n1", "n2", "n3", "n4" };
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	json_t *params = mx_params_new(names, 4, 0, 0, &o, NULL, 60);
	int64_t run;

	json_object_set_new(params, "rails",
			    json_pack("{s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}]}", "list", "rail", 0,
				      "name", "mlx5_0", "subnet", "10.0.0.0/16", "rail", 1, "name",
				      "mlx5_1", "subnet", "10.1.0.0/16"));
	run = fc_store_run_begin(st, "matrix", params);
	json_decref(params);
	assert_true(run > 0);
	/* More digits than a stored document keeps: the link rows keep as many. */
	add(st, run, "n1", "n2", "pass",
	    json_pack("[o, o]", rail(0, "10.0.0.0/16", phase("pass", 390.123456789123)),
		      rail(1, "10.1.0.0/16", phase("fail", 120))), 0);
	add(st, run, "n3", "n4", "pass",
	    json_pack("[o, o]", rail(0, "10.0.0.0/16", phase("pass", 380)),
		      rail(1, "10.1.0.0/16", NULL)), 0);
	add(st, run, "n1", "n3", "pass",
	    json_pack("[o, o]", rail(0, "10.9.0.0/16", phase("pass", 10)),
		      rail(1, "10.1.0.0/16", phase("pass", 385))), 0);
	add(st, run, "n2", "n4", "error", NULL, 0);
	add(st, run, "n1", "n4", "fail", json_pack("[o]", rail(1, "10.1.0.0/16", NULL)), 0);
	add(st, run, "n1", "n2", "pass",
	    json_pack("[o, o]", rail(0, "10.0.0.0/16", phase("pass", 391)),
		      rail(1, "10.1.0.0/16", phase("pass", 389))), 1);
	return run;
}

static int same_num(double x, double y)
{
	return (isnan(x) && isnan(y)) || x == y;
}

static void assert_same_cells(const struct mx_model *x, const struct mx_model *y)
{
	assert_int_equal(x->nrcells, y->nrcells);
	for (size_t i = 0; i < x->nrcells; i++) {
		const struct fc_mxl_cell *c = &x->rcells[i], *d = &y->rcells[i];

		assert_int_equal(c->a, d->a);
		assert_int_equal(c->b, d->b);
		assert_int_equal(c->rail, d->rail);
		assert_int_equal(c->state, d->state);
		assert_int_equal(c->retest, d->retest);
		assert_true(same_num(c->gbps, d->gbps));
		assert_true(same_num(c->lat_us, d->lat_us));
	}
}

/* Takes the store back to schema 1: no link rows, read from the documents. */
static void downgrade(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE links; PRAGMA user_version = 1;", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_links_as_docs(void **state)
{
	struct fc_store *st = *state;
	struct mx_model fromlinks, fromdocs;
	int64_t run = fill(st);

	assert_true(fc_store_has_links(st));
	assert_int_equal(mx_model_load(&fromlinks, st, run), 0);
	/* 2 + 1 + 1 + 2 errors + 2 fails + 2 (the retest) cells. */
	assert_int_equal(fromlinks.nrcells, 10);
	assert_true(fromlinks.rcells[0].gbps == 390.1234568);
	assert_int_equal(fromlinks.rcells[4].state, FC_MX_ERROR);
	assert_int_equal(fromlinks.rcells[5].rail, 1);
	assert_int_equal(fromlinks.rcells[7].state, FC_MX_FAIL);
	assert_int_equal(fromlinks.rcells[9].retest, 1);
	/* A row added later comes from its document (refresh), after them. */
	add(st, run, "n3", "n4", "pass",
	    json_pack("[o, o]", rail(0, "10.0.0.0/16", phase("pass", 377)),
		      rail(1, "10.1.0.0/16", phase("pass", 378))), 0);
	assert_int_equal(mx_model_refresh(&fromlinks, st), 1);
	assert_int_equal(fromlinks.nrcells, 12);
	assert_true(fromlinks.rcells[11].gbps == 378);
	fc_store_close(st);
	downgrade();
	st = fc_store_open_ro(path);
	assert_non_null(st);
	assert_false(fc_store_has_links(st));
	assert_int_equal(mx_model_load(&fromdocs, st, run), 0);
	assert_same_cells(&fromlinks, &fromdocs);
	fc_store_close(st);
	mx_model_release(&fromlinks);
	mx_model_release(&fromdocs);
	unlink(path);
}

/* A new store in a new folder, as *state. */
static int setup(void **state)
{
	strcpy(dir, "/tmp/fc-mxlinks-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/m.db", dir);
	*state = fc_store_open(path);
	return *state ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_links_as_docs, setup),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	rmdir(dir);
	return rc;
}
