/* Reading the result store back: runs, a run's pairs, a pair's history. */
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "store/store_int.h"

double store_col_fig(sqlite3_stmt *s, int i, double max)
{
	static int said;
	double v = store_col_num(s, i);

	if (isnan(v) || (v >= 0 && v <= max))
		return v;
	if (!said++)
		fc_warn("store: a stored figure of %g is no measurement (negative, not finite, or above %g): taken as not measured; the store was changed outside fabcheck",
			v, max);
	return NAN;
}

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
	store_params_bounded(r->params, r->id);
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
/* The columns without the document: read from the index pairs_cols alone
 * where the store has it; the document (kilobytes, in overflow pages) is
 * not read at all. */
#define PAIR_BRIEF "SELECT id, run, a, b, verdict, gbps, size_bytes, lat_us, time FROM pairs"

static int pair_row(sqlite3_stmt *s, const struct store_cb *cb)
{
	struct fc_store_pair p;
	char *bounded;
	int rc;

	p.id = sqlite3_column_int64(s, 0);
	p.run = sqlite3_column_int64(s, 1);
	p.a = store_col_text(s, 2);
	p.b = store_col_text(s, 3);
	p.verdict = store_col_text(s, 4);
	p.gbps = store_col_fig(s, 5, STORE_GBPS_MAX);
	p.size_bytes = sqlite3_column_double(s, 6);
	p.lat_us = store_col_fig(s, 7, STORE_LAT_US_MAX);
	p.time = sqlite3_column_double(s, 8);
	/* A statement without the doc column (PAIR_BRIEF): doc NULL. */
	p.doc = sqlite3_column_count(s) > 9 ? store_col_text(s, 9) : NULL;
	bounded = p.doc ? store_doc_bounded(cb->st->path, p.run, p.id, p.a, p.b, p.doc) : NULL;
	if (bounded)
		p.doc = bounded;
	rc = cb->fn.pair(&p, cb->arg);
	free(bounded);
	return rc;
}

/* Steps @s, calling @cb per row; finalizes @s. */
static int pair_rows(struct fc_store *st, sqlite3_stmt *s, fc_store_pair_cb cb, void *arg)
{
	struct store_cb rcb = { .fn.pair = cb, .arg = arg, .st = st };

	return store_each_row(st, s, pair_row, &rcb, "cannot read pair results");
}

/* The rows of @run after @after_id, with the columns @cols. */
static int run_rows(struct fc_store *st, const char *cols, int64_t run, int64_t after_id,
		    fc_store_pair_cb cb, void *arg)
{
	char sql[256];
	sqlite3_stmt *s;

	snprintf(sql, sizeof(sql), "%s WHERE run = ? AND id > ? ORDER BY id", cols);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read pair results");
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, after_id);
	return pair_rows(st, s, cb, arg);
}

int fc_store_pairs(struct fc_store *st, int64_t run, int64_t after_id, fc_store_pair_cb cb,
		   void *arg)
{
	return run_rows(st, PAIR_COLS, run, after_id, cb, arg);
}

int fc_store_pairs_brief(struct fc_store *st, int64_t run, int64_t after_id,
			 fc_store_pair_cb cb, void *arg)
{
	return run_rows(st, PAIR_BRIEF, run, after_id, cb, arg);
}

char *fc_store_pair_doc(struct fc_store *st, int64_t id)
{
	sqlite3_stmt *s;
	char *doc = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT doc, run, a, b FROM pairs WHERE id = ?", -1, &s,
			       NULL) != SQLITE_OK) {
		store_fail(st, "cannot read a pair result");
		return NULL;
	}
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		doc = store_doc_bounded(st->path, sqlite3_column_int64(s, 1), id,
					store_col_text(s, 2), store_col_text(s, 3),
					store_col_text(s, 0));
		if (!doc)
			doc = strdup(store_col_text(s, 0));
		if (!doc)
			fc_err("store %s: out of memory reading pair row %lld", st->path,
			       (long long)id);
	} else if (rc == SQLITE_DONE) {
		fc_err("store %s: no pair row %lld", st->path, (long long)id);
	} else {
		store_fail(st, "cannot read a pair result");
	}
	sqlite3_finalize(s);
	return doc;
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
