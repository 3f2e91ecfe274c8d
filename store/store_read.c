/* Reading the result store back: runs, a run's pairs, a pair's history. */
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "store/store_int.h"

void fc_store_run_release(struct fc_store_run *r)
{
	json_decref(r->params);
	r->params = NULL;
}

#define RUN_COLS                                                                   \
	"SELECT id, kind, verdict, started, ended, params,"                        \
	" (SELECT count(*) FROM pairs WHERE pairs.run = runs.id) FROM runs"

static void run_from_row(sqlite3_stmt *s, struct fc_store_run *r)
{
	const char *params = (const char *)sqlite3_column_text(s, 5);

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	snprintf(r->kind, sizeof(r->kind), "%s", store_col_text(s, 1));
	snprintf(r->verdict, sizeof(r->verdict), "%s", store_col_text(s, 2));
	r->started = sqlite3_column_double(s, 3);
	r->ended = sqlite3_column_double(s, 4);
	r->npairs = sqlite3_column_int64(s, 6);
	r->params = params ? json_loads(params, 0, NULL) : NULL;
}

int fc_store_run_get(struct fc_store *st, int64_t id, struct fc_store_run *out_p)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, RUN_COLS " WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read runs");
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		run_from_row(s, out_p);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		fc_err("store %s: no run %lld; 'fabcheck report --list' shows the runs",
		       st->path, (long long)id);
		rc = -ENOENT;
	} else {
		rc = store_fail(st, "cannot read a run");
	}
	sqlite3_finalize(s);
	return rc;
}

int64_t fc_store_run_latest(struct fc_store *st, const char *kind)
{
	sqlite3_stmt *s;
	int64_t id = 0;
	int rc;

	rc = sqlite3_prepare_v2(st->db,
				"SELECT id FROM runs WHERE ?1 IS NULL OR kind = ?1"
				" ORDER BY id DESC LIMIT 1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, "cannot read runs");
	if (kind)
		sqlite3_bind_text(s, 1, kind, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		id = store_fail(st, "cannot read runs");
	sqlite3_finalize(s);
	return id;
}

static int run_row(sqlite3_stmt *s, const struct store_cb *cb)
{
	struct fc_store_run r;
	int cbrc;

	run_from_row(s, &r);
	cbrc = cb->fn.run(&r, cb->arg);
	fc_store_run_release(&r);
	return cbrc;
}

int fc_store_run_list(struct fc_store *st, int limit, fc_store_run_cb cb, void *arg)
{
	struct store_cb rcb = { .fn.run = cb, .arg = arg };
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, RUN_COLS " ORDER BY id DESC LIMIT ?", -1, &s, NULL) !=
	    SQLITE_OK)
		return store_fail(st, "cannot read runs");
	sqlite3_bind_int(s, 1, limit > 0 ? limit : -1);
	return store_each_row(st, s, run_row, &rcb, "cannot read runs");
}

#define PAIR_COLS "SELECT id, run, a, b, verdict, gbps, size_bytes, lat_us, time, doc FROM pairs"

static int pair_row(sqlite3_stmt *s, const struct store_cb *cb)
{
	struct fc_store_pair p;

	p.id = sqlite3_column_int64(s, 0);
	p.run = sqlite3_column_int64(s, 1);
	p.a = store_col_text(s, 2);
	p.b = store_col_text(s, 3);
	p.verdict = store_col_text(s, 4);
	p.gbps = store_col_num(s, 5);
	p.size_bytes = sqlite3_column_double(s, 6);
	p.lat_us = store_col_num(s, 7);
	p.time = sqlite3_column_double(s, 8);
	p.doc = store_col_text(s, 9);
	return cb->fn.pair(&p, cb->arg);
}

/* Steps @s, calling @cb per row; finalizes @s. */
static int pair_rows(struct fc_store *st, sqlite3_stmt *s, fc_store_pair_cb cb, void *arg)
{
	struct store_cb rcb = { .fn.pair = cb, .arg = arg };

	return store_each_row(st, s, pair_row, &rcb, "cannot read pair results");
}

int fc_store_pairs(struct fc_store *st, int64_t run, int64_t after_id, fc_store_pair_cb cb,
		   void *arg)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, PAIR_COLS " WHERE run = ? AND id > ? ORDER BY id", -1,
			       &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read pair results");
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, after_id);
	return pair_rows(st, s, cb, arg);
}

int fc_store_pair_history(struct fc_store *st, const char *a, const char *b, int limit,
			  fc_store_pair_cb cb, void *arg)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db,
			       PAIR_COLS " WHERE (a = ?1 AND b = ?2) OR (a = ?2 AND b = ?1)"
					 " ORDER BY time DESC, id DESC LIMIT ?3",
			       -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read pair results");
	sqlite3_bind_text(s, 1, a, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 3, limit > 0 ? limit : -1);
	return pair_rows(st, s, cb, arg);
}
