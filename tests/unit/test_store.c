/* Unit tests of the SQLite result store on a temporary file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"

struct tmpdb {
	char dir[64];
	char path[96];
};

static int setup(void **state)
{
	struct tmpdb *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/fc-store-XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->path, sizeof(t->path), "%s/t.db", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmpdb *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

/* A pair document like `fabcheck pair --json` writes. */
static json_t *pair_doc(const char *verdict, double gbps_64k, double gbps_1m, double p50)
{
	return json_pack("{s:s, s:[], s:{s:s}, s:{s:s}, s:["
			 "{s:s, s:s, s:i, s:f},"
			 "{s:s, s:s, s:i, s:f},"
			 "{s:s, s:s, s:i, s:f, s:f},"
			 "{s:s, s:s, s:i, s:f, s:f}]}",
			 "verdict", verdict, "findings", "a", "node", "n1", "b", "node", "n2",
			 "results",
			 "test", "write", "metric", "bw", "size_bytes", 1048576, "gbps", gbps_1m,
			 "test", "write", "metric", "bw", "size_bytes", 65536, "gbps", gbps_64k,
			 "test", "read", "metric", "lat", "size_bytes", 64, "p50_us", p50 + 5,
			 "p99_us", 99.0,
			 "test", "read", "metric", "lat", "size_bytes", 2, "p50_us", p50,
			 "p99_us", 90.0);
}

static void test_doc_figures(void **state)
{
	json_t *d = pair_doc("pass", 5.0, 9.5, 31.0);
	json_t *only_read;
	double size = 0;

	(void)state;
	assert_true(fabs(fc_pair_doc_gbps(d, &size) - 9.5) < 1e-9);
	assert_true(size == 1048576);
	assert_true(fabs(fc_pair_doc_lat_us(d) - 31.0) < 1e-9);
	/* No write bw: fall back to another bw test; no result at all: NAN. */
	only_read = json_pack("{s:[{s:s, s:s, s:i, s:f}]}", "results", "test", "read",
			      "metric", "bw", "size_bytes", 4096, "gbps", 2.5);
	assert_true(fabs(fc_pair_doc_gbps(only_read, &size) - 2.5) < 1e-9);
	assert_true(size == 4096);
	assert_true(isnan(fc_pair_doc_lat_us(only_read)));
	json_decref(only_read);
	only_read = json_object();
	assert_true(isnan(fc_pair_doc_gbps(only_read, NULL)));
	json_decref(only_read);
	json_decref(d);
}

struct collect {
	int n;
	char names[16][32];
	double gbps[16], lat[16];
	int64_t last_id;
	int newest_first;
	char verdict[16][16];
};

static int collect_pair(const struct fc_store_pair *p, void *arg)
{
	struct collect *c = arg;
	json_t *doc = json_loads(p->doc, 0, NULL);

	assert_non_null(doc);
	json_decref(doc);
	if (c->newest_first)
		assert_true(c->n == 0 || p->id < c->last_id);
	else
		assert_true(p->id > c->last_id);
	c->last_id = p->id;
	assert_true(c->n < 16); /* the arrays' size */
	snprintf(c->names[c->n], sizeof(c->names[0]), "%s-%s", p->a, p->b);
	snprintf(c->verdict[c->n], sizeof(c->verdict[0]), "%s", p->verdict);
	c->gbps[c->n] = p->gbps;
	c->lat[c->n] = p->lat_us;
	c->n++;
	return 0;
}

static void test_run_roundtrip(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st = fc_store_open(t->path);
	json_t *params = json_pack("{s:[s,s,s]}", "nodes", "n1", "n2", "n3");
	json_t *d1 = pair_doc("pass", 5.0, 9.5, 31.0);
	json_t *d2 = pair_doc("fail", 1.0, 2.0, 80.0);
	struct collect c = { 0 };
	struct fc_store_run r;
	int64_t run, other;

	(void)state;
	assert_non_null(st);
	run = fc_store_run_begin(st, "matrix", params);
	assert_true(run > 0);
	assert_int_equal(fc_store_pair_add(st, run, "n1", "n2", d1), 0);
	assert_int_equal(fc_store_pair_add(st, run, "n3", "n1", d2), 0);
	other = fc_store_run_begin(st, "pair", NULL);
	assert_true(other > run);
	assert_int_equal(fc_store_pair_add(st, other, "n1", "n2", d2), 0);

	assert_int_equal(fc_store_pairs(st, run, 0, collect_pair, &c), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.names[0], "n1-n2");
	assert_string_equal(c.names[1], "n3-n1");
	assert_string_equal(c.verdict[1], "fail");
	assert_true(fabs(c.gbps[0] - 9.5) < 1e-9 && fabs(c.lat[1] - 80.0) < 1e-9);

	/* Only what is new after the last id seen. */
	memset(&c, 0, sizeof(c));
	assert_int_equal(fc_store_pair_add(st, run, "n2", "n3", d1), 0);
	assert_int_equal(fc_store_pairs(st, run, 0, collect_pair, &c), 0);
	assert_int_equal(c.n, 3);
	{
		struct collect c2 = { .last_id = 0 };
		int64_t after;

		memset(&c, 0, sizeof(c));
		assert_int_equal(fc_store_pairs(st, run, 0, collect_pair, &c), 0);
		after = c.last_id - 1;
		c2.last_id = after;
		assert_int_equal(fc_store_pairs(st, run, after, collect_pair, &c2), 0);
		assert_int_equal(c2.n, 1);
		assert_string_equal(c2.names[0], "n2-n3");
	}

	/* History of n1-n2 in either direction across runs, newest first. */
	memset(&c, 0, sizeof(c));
	c.newest_first = 1;
	assert_int_equal(fc_store_pair_history(st, "n2", "n1", 10, collect_pair, &c), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.verdict[0], "fail"); /* the later run's */
	memset(&c, 0, sizeof(c));
	c.newest_first = 1;
	assert_int_equal(fc_store_pair_history(st, "n1", "n2", 1, collect_pair, &c), 0);
	assert_int_equal(c.n, 1);

	assert_int_equal(fc_store_run_get(st, run, &r), 0);
	assert_string_equal(r.kind, "matrix");
	assert_string_equal(r.verdict, "");
	assert_int_equal(r.npairs, 3);
	assert_true(r.ended == 0 && r.started > 1e9);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r.params, "nodes"),
							    2)), "n3");
	fc_store_run_release(&r);
	assert_int_equal(fc_store_run_end(st, run, "fail"), 0);
	assert_int_equal(fc_store_run_get(st, run, &r), 0);
	assert_string_equal(r.verdict, "fail");
	assert_true(r.ended >= r.started);
	fc_store_run_release(&r);
	assert_int_equal(fc_store_run_latest(st, "matrix"), run);
	assert_int_equal(fc_store_run_latest(st, NULL), other);
	assert_int_equal(fc_store_run_latest(st, "soak"), 0);
	assert_int_equal(fc_store_run_get(st, 999, &r), -ENOENT);
	assert_int_equal(fc_store_run_end(st, 999, "pass"), -ENOENT);

	json_decref(params);
	json_decref(d1);
	json_decref(d2);
	fc_store_close(st);
}

static int count_runs(const struct fc_store_run *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

static void test_reopen_and_schema(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st = fc_store_open(t->path);
	sqlite3 *db;
	int n = 0;

	assert_non_null(st);
	assert_true(fc_store_run_begin(st, "soak", NULL) > 0);
	fc_store_close(st);
	st = fc_store_open(t->path);
	assert_non_null(st);
	assert_int_equal(fc_store_run_list(st, 0, count_runs, &n), 0);
	assert_int_equal(n, 1);
	fc_store_close(st);

	/* The file is in WAL mode and says its schema version. */
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	{
		sqlite3_stmt *s;

		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
		sqlite3_finalize(s);
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(s, 0), FC_STORE_SCHEMA);
		sqlite3_finalize(s);
	}
	/* A newer schema is refused. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_null(fc_store_open(t->path));
}

/* A `pair --rails` document: rail 0 loaded, rail 1 alone (failed), rail 2
 * with neither phase. */
static json_t *rails_doc(double g0, double g1)
{
	return json_pack("{s:s, s:[], s:[{s:i, s:s, s:s, s:n, s:{s:s, s:[{s:s, s:s, s:i, s:f}]}},"
			 "{s:i, s:s, s:s, s:{s:s, s:[{s:s, s:s, s:i, s:f}]}, s:n},"
			 "{s:i, s:s, s:s}], s:[]}",
			 "verdict", "fail", "findings", "rails",
			 "rail", 0, "name", "rxe0", "subnet", "10.77.1.0/24", "alone", "loaded",
			 "verdict", "pass", "results", "test", "write", "metric", "bw",
			 "size_bytes", 1048576, "gbps", g0,
			 "rail", 1, "name", "rxe1", "subnet", "10.78.1.0/24", "alone", "verdict",
			 "fail", "results", "test", "write", "metric", "bw", "size_bytes", 65536,
			 "gbps", g1, "loaded",
			 "rail", 2, "name", "rxe2", "subnet", "", "results");
}

struct links_seen {
	int n, rails[8];
	char verdict[8][8], device[8][8];
	double gbps[8];
};

static int collect_link(const struct fc_store_link *l, void *arg)
{
	struct links_seen *c = arg;

	if (c->n < 8) {
		c->rails[c->n] = l->rail;
		snprintf(c->verdict[c->n], sizeof(c->verdict[0]), "%s", l->verdict);
		snprintf(c->device[c->n], sizeof(c->device[0]), "%s", l->device);
		c->gbps[c->n] = l->gbps;
	}
	c->n++;
	return 0;
}

/* The store at @path as schema 1 wrote it (no link rows), opened read-only. */
static struct fc_store *open_as_schema1(const char *path)
{
	struct fc_store *st;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE links; PRAGMA user_version = 1", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	st = fc_store_open_ro(path);
	assert_non_null(st);
	return st;
}

/* Each link row as "a-b/run," into @arg (a char[256]). */
static int name_link(const struct fc_store_link *l, void *arg)
{
	char *out = arg;
	size_t at = strlen(out);

	snprintf(out + at, 256 - at, "%s-%s/%lld,", l->a, l->b, (long long)l->run);
	return 0;
}

/* fc_store_links_by_pair: the rows of the runs asked for grouped by pair,
 * either direction together, by the pair's names, then in row order; from
 * the link rows, and from the documents of a store of schema 1. */
static void test_links_by_pair(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st = fc_store_open(t->path);
	json_t *d = pair_doc("pass", 5, 9.5, 4);
	const char *want = "n2-n1/2,n1-n2/1,n3-n1/1,n1-n3/2,n1-n3/2,n2-n3/1,";
	char seen[256] = "";
	int64_t runs[2];

	assert_non_null(st);
	runs[1] = fc_store_run_begin(st, "matrix", NULL);
	runs[0] = fc_store_run_begin(st, "matrix", NULL);
	assert_true(fc_store_run_begin(st, "matrix", NULL) > runs[0]);
	assert_true(runs[1] == 1 && runs[0] == 2);
	assert_int_equal(fc_store_pair_add(st, 1, "n3", "n1", d), 0);
	assert_int_equal(fc_store_pair_add(st, 2, "n2", "n1", d), 0);
	assert_int_equal(fc_store_pair_add(st, 1, "n2", "n3", d), 0);
	assert_int_equal(fc_store_pair_add(st, 3, "n1", "n2", d), 0); /* not asked */
	assert_int_equal(fc_store_pair_add(st, 2, "n1", "n3", d), 0);
	assert_int_equal(fc_store_pair_add(st, 1, "n1", "n2", d), 0);
	assert_int_equal(fc_store_pair_add(st, 2, "n1", "n3", d), 0); /* a retest */
	assert_int_equal(fc_store_links_by_pair(st, runs, 2, name_link, seen), 0);
	assert_string_equal(seen, want);
	assert_int_equal(fc_store_links_by_pair(st, runs, 0, name_link, seen), -EINVAL);
	fc_store_close(st);
	json_decref(d);

	st = open_as_schema1(t->path);
	seen[0] = 0;
	assert_int_equal(fc_store_links_by_pair(st, runs, 2, name_link, seen), 0);
	assert_string_equal(seen, want);
	fc_store_close(st);
}

/* The three link rows of run 2's rails document, as written or as read
 * from the document of a schema 1 store. */
static void check_rails_links(struct fc_store *st, int64_t run)
{
	struct links_seen c = { 0 };

	assert_int_equal(fc_store_links(st, run, collect_link, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.rails[0], 0);
	assert_string_equal(c.device[0], "rxe0");
	assert_string_equal(c.verdict[0], "pass");
	assert_true(fabs(c.gbps[0] - 10) < 1e-9);
	assert_int_equal(c.rails[1], 1);
	assert_string_equal(c.verdict[1], "fail");
	assert_true(fabs(c.gbps[1] - 3) < 1e-9);
	assert_int_equal(c.rails[2], 2);
	assert_string_equal(c.verdict[2], "error");
	assert_true(isnan(c.gbps[2]));
}

static int sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Link rows: one (rail -1) for a pair without rails, one per rail of a
 * rails document; per link across runs; a schema 1 store read read-only
 * from its documents, then upgraded by a writer. */
static void test_links_and_upgrade(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st = fc_store_open(t->path);
	struct links_seen c = { 0 };
	json_t *d1 = pair_doc("pass", 5, 9.5, 4), *d2 = rails_doc(10, 3);
	int64_t r1, r2, ids[4];
	sqlite3 *db;

	assert_non_null(st);
	r1 = fc_store_run_begin(st, "matrix", NULL);
	r2 = fc_store_run_begin(st, "matrix", NULL);
	assert_true(fc_store_run_begin(st, "soak", NULL) > r2);
	assert_int_equal(fc_store_pair_add(st, r1, "n1", "n2", d1), 0);
	assert_int_equal(fc_store_pair_add(st, r2, "n2", "n1", d2), 0);
	assert_int_equal(fc_store_links(st, r1, collect_link, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.rails[0], -1);
	assert_string_equal(c.device[0], "");
	assert_true(fabs(c.gbps[0] - 9.5) < 1e-9);
	check_rails_links(st, r2);
	c.n = 0;
	assert_int_equal(fc_store_link_history(st, "n1", "n2", r1, r2, collect_link, &c), 0);
	assert_int_equal(c.n, 4);
	c.n = 0;
	assert_int_equal(fc_store_link_history(st, "n1", "n2", r2, r2, collect_link, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(fc_store_runs_before(st, "matrix", r2 + 5, 4, ids), 2);
	assert_true(ids[0] == r2 && ids[1] == r1);
	assert_int_equal(fc_store_runs_before(st, "matrix", r2, 4, ids), 1);
	fc_store_close(st);

	/* The same store as schema 1 wrote it: no link rows. */
	st = open_as_schema1(t->path);
	check_rails_links(st, r2);
	c.n = 0;
	assert_int_equal(fc_store_link_history(st, "n2", "n1", r1, r2, collect_link, &c), 0);
	assert_int_equal(c.n, 4);
	fc_store_close(st);
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sql_int(db, "PRAGMA user_version"), 1); /* read-only left it */
	sqlite3_close(db);
	st = fc_store_open(t->path);
	assert_non_null(st);
	check_rails_links(st, r2);
	fc_store_close(st);
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sql_int(db, "PRAGMA user_version"), 2);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM links"), 4);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM links WHERE rail = -1"), 1);
	sqlite3_close(db);
	json_decref(d1);
	json_decref(d2);
}

static void test_foreign_and_bad_files(void **state)
{
	struct tmpdb *t = *state;
	char p[128];
	sqlite3 *db;
	FILE *f;

	/* A SQLite file with someone else's tables. */
	snprintf(p, sizeof(p), "%s/other.db", t->dir);
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE x (y)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_null(fc_store_open(p));
	/* Not a database at all. */
	snprintf(p, sizeof(p), "%s/text.db", t->dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "this is not a database, just some text that is long enough\n");
	fclose(f);
	assert_null(fc_store_open(p));
	/* A folder that does not exist. */
	assert_null(fc_store_open("/nonexistent-fc-dir/x.db"));
}

/* A child that adds pairs and dies without closing loses none of them. */
static void test_crash_keeps_pairs(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st;
	struct collect c = { 0 };
	int64_t run;
	pid_t pid;
	int status;

	st = fc_store_open(t->path);
	assert_non_null(st);
	run = fc_store_run_begin(st, "matrix", NULL);
	fc_store_close(st);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct fc_store *cst = fc_store_open(t->path);
		json_t *d = pair_doc("pass", 1, 2, 3);

		fc_store_pair_add(cst, run, "x", "y", d);
		fc_store_pair_add(cst, run, "y", "z", d);
		_exit(7); /* no close, no checkpoint */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 7);
	st = fc_store_open(t->path);
	assert_non_null(st);
	assert_int_equal(fc_store_pairs(st, run, 0, collect_pair, &c), 0);
	assert_int_equal(c.n, 2);
	fc_store_close(st);
}

/* Checks that pairs come in id order; keeps no copy (any number of pairs). */
static int count_in_order(const struct fc_store_pair *p, void *arg)
{
	int64_t *last = arg;

	assert_true(p->id > *last);
	*last = p->id;
	return 0;
}

/* A reader and a writer in two processes at once (the TUI following a run). */
static void test_concurrent_writer(void **state)
{
	struct tmpdb *t = *state;
	struct fc_store *st = fc_store_open(t->path);
	struct collect c = { 0 };
	int64_t run = fc_store_run_begin(st, "matrix", NULL);
	pid_t pid;
	int status, i;

	/* The child must not inherit an open connection (nor its memory). */
	fc_store_close(st);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct fc_store *w = fc_store_open(t->path);
		json_t *d = pair_doc("pass", 1, 2, 3);
		char a[16];
		int rc = 0;

		for (i = 0; i < 50; i++) {
			snprintf(a, sizeof(a), "n%d", i);
			rc |= fc_store_pair_add(w, run, a, "m", d);
		}
		json_decref(d);
		fc_store_close(w);
		_exit(rc ? 1 : 0);
	}
	st = fc_store_open(t->path);
	assert_non_null(st);
	/* Read while the child writes: never an error, always in id order. */
	for (i = 0; i < 20; i++) {
		int64_t last = 0;

		assert_int_equal(fc_store_pairs(st, run, 0, count_in_order, &last), 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	(void)c;
	{
		int n = 0;
		struct fc_store_run r;

		assert_int_equal(fc_store_run_get(st, run, &r), 0);
		n = (int)r.npairs;
		fc_store_run_release(&r);
		assert_int_equal(n, 50);
	}
	fc_store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_figures),
		cmocka_unit_test_setup_teardown(test_run_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_and_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_and_upgrade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_by_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_and_bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_keeps_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
