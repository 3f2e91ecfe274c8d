/*
 * The matrix model read from a store with rails (matrix/mx_load.c): the
 * rail cells from the link rows, and from a row's document where its links
 * cannot tell (a rail that did not run), the retest mark of a row that
 * repeats a pair, the error of a row that could not run, a node's link
 * rate; and a refresh that reads the new rows only gives what a load of
 * all of them gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix/mx_model.h"

static char dir[64], path[96];

/* A rail entry: its loaded phase with @gbps (NULL phase when @gbps < 0). */
static json_t *rail(int r, double gbps)
{
	char name[16], subnet[32];

	snprintf(name, sizeof(name), "rxe%d", r);
	snprintf(subnet, sizeof(subnet), "10.%d.0.0/16", r);
	return json_pack("{s:i, s:s, s:s, s:n, s:o}", "rail", r, "name", name, "subnet", subnet,
			 "alone", "loaded",
			 gbps < 0 ? json_null() :
				    json_pack("{s:s, s:[{s:s, s:s, s:i, s:f}, {s:s, s:s, s:i, s:f}]}",
					      "verdict", "pass", "results", "test", "write",
					      "metric", "bw", "size_bytes", 65536, "gbps", gbps,
					      "test", "read", "metric", "lat", "size_bytes", 2,
					      "p50_us", 20 + gbps));
}

/* A row: @g0, @g1 on the two rails (< 0: that rail did not run). */
static void add(struct fc_store *st, int64_t run, const char *a, const char *b, double g0,
		double g1, int retest)
{
	json_t *d = json_pack("{s:s, s:[], s:{s:s, s:f}, s:{s:s, s:f}, s:[o, o], s:[]}", "verdict",
			      "pass", "findings", "a", "node", a, "rate_gbps", 2.5, "b", "node", b,
			      "rate_gbps", 2.5, "rails", rail(0, g0), rail(1, g1), "results");

	if (retest)
		json_object_set_new(d, "retest", json_true());
	assert_int_equal(fc_store_pair_add(st, run, a, b, d), 0);
	json_decref(d);
}

/* A row that could not run: no rails list, an error. */
static void add_error(struct fc_store *st, int64_t run, const char *a, const char *b)
{
	json_t *d = json_pack("{s:s, s:[s], s:s}", "verdict", "error", "findings",
			      "fabcheck: error: nodeC: no route", "error", "nodeC: no route");

	assert_int_equal(fc_store_pair_add(st, run, a, b, d), 0);
	json_decref(d);
}

static int64_t begin(struct fc_store *st)
{
	char *names[] = { "nodeA", "nodeB", "nodeC" };
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	json_t *p = mx_params_new(names, 3, 0, 1, &o, NULL, 60);
	int64_t run;

	json_object_set_new(p, "rails",
			    json_pack("{s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}]}", "list", "rail", 0,
				      "name", "rxe0", "subnet", "10.0.0.0/16", "rail", 1, "name",
				      "rxe1", "subnet", "10.1.0.0/16"));
	run = fc_store_run_begin(st, "matrix", p);
	json_decref(p);
	assert_true(run > 0);
	return run;
}

static const struct fc_mxl_cell *cell(const struct mx_model *m, size_t i)
{
	assert_true(i < m->nrcells);
	return &m->rcells[i];
}

static void same_model(const struct mx_model *x, const struct mx_model *y)
{
	assert_int_equal(x->n, y->n);
	assert_int_equal(x->nres, y->nres);
	assert_int_equal(x->nrcells, y->nrcells);
	for (size_t i = 0; i < x->nres; i++) {
		const struct fc_mx_result *p = &x->res[i], *q = &y->res[i];

		assert_true(p->a == q->a && p->b == q->b && p->state == q->state &&
			    p->retest == q->retest && !memcmp(&p->gbps, &q->gbps, sizeof(double)));
	}
	/* Field by field: the padding of a struct is not part of it. */
	for (size_t i = 0; i < x->nrcells; i++) {
		const struct fc_mxl_cell *p = &x->rcells[i], *q = &y->rcells[i];

		assert_true(p->a == q->a && p->b == q->b && p->rail == q->rail &&
			    p->state == q->state && p->retest == q->retest &&
			    !memcmp(&p->gbps, &q->gbps, sizeof(double)) &&
			    !memcmp(&p->lat_us, &q->lat_us, sizeof(double)));
	}
	for (size_t i = 0; i < x->nres; i++)
		assert_true((!x->res_err[i] && !y->res_err[i]) ||
			    (x->res_err[i] && y->res_err[i] && !strcmp(x->res_err[i], y->res_err[i])));
}

static void test_load(void **state)
{
	struct fc_store *st;
	struct mx_model m, part;
	int64_t run;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fc-load-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.db", dir);
	st = fc_store_open(path);
	assert_non_null(st);
	run = begin(st);
	add(st, run, "nodeA", "nodeB", 10, 11, 0);
	add(st, run, "nodeC", "nodeA", 12, -1, 0); /* rail 1 did not run */
	assert_int_equal(mx_model_load(&part, st, run), 0);
	add_error(st, run, "nodeB", "nodeC");
	add(st, run, "nodeA", "nodeB", 5, 6, 1); /* the retest of the first */
	assert_int_equal(mx_model_load(&m, st, run), 0);

	assert_int_equal(m.nrails, 2);
	assert_int_equal(m.nres, 4);
	assert_true(fabs(m.rate_gbps[0] - 2.5) < 1e-9 && fabs(m.rate_gbps[2] - 2.5) < 1e-9);
	/* The retest mark: on the repeated pair only. */
	assert_int_equal(m.res[0].retest, 0);
	assert_int_equal(m.res[3].retest, 1);
	/* The error: the document's, without the log prefix. */
	assert_null(m.res_err[0]);
	assert_string_equal(m.res_err[2], "nodeC: no route");
	/* Cells: 2 + 1 (rail 1 left out) + 2 (an error on every rail) + 2. */
	assert_int_equal(m.nrcells, 7);
	assert_true(cell(&m, 0)->rail == 0 && cell(&m, 0)->gbps == 10 &&
		    cell(&m, 0)->lat_us == 30 && cell(&m, 0)->state == FC_MX_OK);
	assert_true(cell(&m, 1)->rail == 1 && cell(&m, 1)->gbps == 11);
	assert_true(cell(&m, 2)->a == 2 && cell(&m, 2)->b == 0 && cell(&m, 2)->rail == 0);
	assert_true(cell(&m, 3)->rail == 0 && cell(&m, 3)->state == FC_MX_ERROR &&
		    isnan(cell(&m, 3)->gbps));
	assert_true(cell(&m, 4)->rail == 1 && cell(&m, 4)->state == FC_MX_ERROR);
	assert_true(cell(&m, 5)->gbps == 5 && cell(&m, 5)->retest == 1);
	assert_true(cell(&m, 6)->gbps == 6 && cell(&m, 6)->retest == 1);

	/* The model of the first two rows, refreshed: the same as the load. */
	assert_int_equal(mx_model_refresh(&part, st), 2);
	same_model(&part, &m);
	assert_int_equal(mx_model_refresh(&part, st), 0);
	same_model(&part, &m);
	assert_int_equal(mx_model_analyze(&m), 0);
	mx_model_release(&part);
	mx_model_release(&m);
	fc_store_close(st);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
