/* The matrix model over a real store: progress, cells shown, the document. */
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

#include "core/sched.h"
#include "matrix/mx_model.h"

static char dir[64], path[96];

static json_t *doc(const char *a, const char *b, const char *verdict, double gbps)
{
	return json_pack("{s:s, s:[], s:{s:s, s:f}, s:{s:s, s:f}, s:[{s:s, s:s, s:i, s:f},"
			 "{s:s, s:s, s:i, s:f}]}",
			 "verdict", verdict, "findings", "a", "node", a, "rate_gbps", 2.5, "b",
			 "node", b, "rate_gbps", 2.5, "results", "test", "write", "metric", "bw",
			 "size_bytes", 1048576, "gbps", gbps, "test", "read", "metric", "lat",
			 "size_bytes", 2, "p50_us", 30.0);
}

static void add(struct fc_store *st, int64_t run, const char *a, const char *b, double gbps)
{
	json_t *d = doc(a, b, "pass", gbps);

	assert_int_equal(fc_store_pair_add(st, run, a, b, d), 0);
	json_decref(d);
}

static void test_model(void **state)
{
	char *names[] = { "n1", "n2", "n3", "n4" };
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	struct fc_store *st;
	struct mx_progress p;
	struct mx_model m;
	json_t *params, *d;
	int64_t run;
	int mir;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fc-model-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.db", dir);
	st = fc_store_open(path);
	assert_non_null(st);
	params = mx_params_new(names, 4, 0, 1, &o, NULL, 60);
	run = fc_store_run_begin(st, "matrix", params);
	json_decref(params);
	/* Round 1 of the schedule of 4 nodes, then one pair of round 2. */
	{
		struct fc_pair_idx pi[2];
		int cnt = fc_sched_round(4, 0, 0, pi);

		for (int i = 0; i < cnt; i++)
			add(st, run, names[pi[i].a], names[pi[i].b], 9.0 + i);
		assert_int_equal(fc_sched_round(4, 0, 1, pi), 2);
		add(st, run, names[pi[0].a], names[pi[0].b], 2.0);
	}
	assert_int_equal(mx_model_load(&m, st, run), 0);
	assert_int_equal(m.n, 4);
	assert_true(m.retest);
	assert_true(fabs(m.rate_gbps[0] - 2.5) < 1e-9);
	mx_model_progress(&m, m.info.started + 30, &p);
	assert_int_equal(p.total, 6);
	assert_int_equal(p.done, 3);
	assert_int_equal(p.rounds, 3);
	assert_int_equal(p.round, 1); /* round 2 (index 1) is under way */
	assert_true(isfinite(p.left_s) && p.left_s >= 0);
	assert_int_equal(mx_model_analyze(&m), 0);

	/* One direction measured: shown both ways, mirrored. */
	{
		const struct fc_mx_result *r = &m.res[0];

		assert_non_null(mx_model_show(&m, r->a, r->b, &mir));
		assert_int_equal(mir, 0);
		assert_non_null(mx_model_show(&m, r->b, r->a, &mir));
		assert_int_equal(mir, 1);
		assert_null(mx_model_show(&m, r->a, r->a, &mir));
		assert_true(fabs(mx_model_share(&m, fc_mx_cell(&m.an, r->a, r->b)) -
				 r->gbps / 10.0) < 1e-9);
	}

	/* New rows only on refresh. */
	assert_int_equal(mx_model_refresh(&m, st), 0);
	add(st, run, "n1", "n9", 5.0); /* a node outside the list is added */
	assert_int_equal(mx_model_refresh(&m, st), 1);
	assert_int_equal(m.n, 5);
	assert_int_equal(mx_model_node(&m, "n9"), 4);

	/* The document of the contract. */
	assert_int_equal(mx_model_analyze(&m), 0);
	d = mx_model_doc(&m);
	assert_int_equal(json_array_size(json_object_get(d, "nodes")), 5);
	assert_int_equal(json_array_size(json_object_get(d, "pairs")), 4);
	assert_non_null(json_object_get(d, "suspects"));
	assert_true(json_is_integer(json_object_get(d, "rounds")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(d, "pairs"), 0), "verdict")), "pass");
	/* Incomplete: a warning that says how to finish it. */
	{
		char *f = json_dumps(json_object_get(d, "findings"), 0);

		assert_non_null(strstr(f, "--resume"));
		free(f);
	}
	/* The brief document is the whole one less its pairs, in its order. */
	{
		json_t *b = mx_model_doc_brief(&m);
		char *tb = json_dumps(b, JSON_COMPACT), *td;

		assert_null(json_object_get(b, "pairs"));
		json_object_del(d, "pairs");
		td = json_dumps(d, JSON_COMPACT);
		assert_string_equal(tb, td);
		free(tb);
		free(td);
		json_decref(b);
	}
	json_decref(d);
	mx_model_release(&m);
	fc_store_close(st);
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.db-shm", dir);
	unlink(path);
}

static void test_heat(void **state)
{
	unsigned char lo[3], mid[3], hi[3];

	(void)state;
	mx_heat_rgb(0, lo);
	mx_heat_rgb(0.5, mid);
	mx_heat_rgb(1, hi);
	assert_true(lo[0] > 200 && lo[1] < 60);	  /* red */
	assert_true(mid[0] > 240 && mid[1] > 200); /* yellow */
	assert_true(hi[1] > 140 && hi[0] < 40);	  /* green */
	mx_heat_rgb(NAN, lo);
	assert_true(lo[0] > 200 && lo[1] < 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_heat),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	rmdir(dir);
	return rc;
}
