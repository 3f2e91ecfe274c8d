/*
 * The store's link rows: one (pair, rail) result each (see store.h). Written
 * beside each pair row, filled from the documents when a store of schema 1
 * is upgraded, and read back per run or per link. A store of schema 1 opened
 * read-only has no link rows: they are read from its documents instead, by
 * the same code that writes them.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "store/store.h"
#include "store/store_int.h"

/* @base (rail -1, the pair's figures) as the links of @doc: a link per rail
 * when it has a "rails" list, else @base itself. */
static int doc_links(const json_t *doc, const struct fc_store_link *base, fc_store_link_cb cb,
		     void *arg)
{
	struct fc_pair_rail r;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && fc_pair_doc_rail(doc, i, &r); i++) {
		struct fc_store_link l = *base;

		l.rail = r.rail >= 0 ? r.rail : (int)i;
		l.device = r.name;
		l.subnet = r.subnet;
		l.verdict = r.verdict ? r.verdict : "error";
		l.gbps = r.gbps;
		l.lat_us = r.lat_us;
		rc = cb(&l, arg);
	}
	return i ? rc : cb(base, arg);
}


struct inserter {
	struct fc_store *st;
	sqlite3_stmt *s;
};

static int insert_link(const struct fc_store_link *l, void *arg)
{
	struct inserter *in = arg;
	sqlite3_stmt *s = in->s;
	int rc = 0;

	if (sqlite3_bind_int64(s, 1, l->pair) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, l->run) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, l->a, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 4, l->b, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(s, 5, l->rail) != SQLITE_OK ||
	    sqlite3_bind_text(s, 6, l->device, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 7, l->subnet, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_text(s, 8, l->verdict, -1, SQLITE_STATIC) != SQLITE_OK ||
	    store_bind_num(s, 9, store_doc_real(l->gbps)) != SQLITE_OK ||
	    store_bind_num(s, 10, store_doc_real(l->lat_us)) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_DONE)
		rc = store_fail(in->st, "cannot record a link result");
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}

static int prepare_insert(struct fc_store *st, struct inserter *in)
{
	static const char sql[] =
		"INSERT INTO links (pair, run, a, b, rail, device, subnet, verdict, gbps, lat_us)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

	in->st = st;
	if (sqlite3_prepare_v2(st->db, sql, -1, &in->s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot prepare a query");
	return 0;
}

int store_links_add(struct fc_store *st, const struct fc_store_link *base, const json_t *doc)
{
	struct inserter in;
	int rc = prepare_insert(st, &in);

	if (rc)
		return rc;
	rc = doc_links(doc, base, insert_link, &in);
	sqlite3_finalize(in.s);
	return rc;
}



#define DOC_COLS "SELECT id, run, a, b, verdict, gbps, lat_us, doc FROM pairs"

/* The links of a pair row's (DOC_COLS) document; a document that does not
 * parse is the pair as a whole. */
static int doc_row(sqlite3_stmt *s, const struct store_cb *cb)
{
	struct fc_store_link base = {
		.pair = sqlite3_column_int64(s, 0), .run = sqlite3_column_int64(s, 1),
		.a = store_col_text(s, 2), .b = store_col_text(s, 3), .rail = -1, .device = "",
		.subnet = "", .verdict = store_col_text(s, 4), .gbps = store_col_fig(s, 5, STORE_GBPS_MAX),
		.lat_us = store_col_fig(s, 6, STORE_LAT_US_MAX)
	};
	char *bounded = store_doc_bounded(cb->st->path, base.run, base.pair, base.a, base.b,
					  store_col_text(s, 7));
	json_t *doc = json_loads(bounded ? bounded : store_col_text(s, 7), 0, NULL);
	int cbrc = doc_links(doc, &base, cb->fn.link, cb->arg);

	free(bounded);
	json_decref(doc);
	return cbrc;
}

/* Steps @s over pair rows (DOC_COLS), calling @cb for the links of each
 * row's document; finalizes @s. */
static int doc_rows(struct fc_store *st, sqlite3_stmt *s, fc_store_link_cb cb, void *arg)
{
	struct store_cb rcb = { .fn.link = cb, .arg = arg, .st = st };

	return store_each_row(st, s, doc_row, &rcb, "cannot read pair results");
}

int store_links_fill(struct fc_store *st)
{
	struct inserter in;
	sqlite3_stmt *s;
	int rc = prepare_insert(st, &in);

	if (rc)
		return rc;
	if (sqlite3_prepare_v2(st->db, DOC_COLS " ORDER BY id", -1, &s, NULL) != SQLITE_OK)
		rc = store_fail(st, "cannot read pair results");
	else
		rc = doc_rows(st, s, insert_link, &in);
	sqlite3_finalize(in.s);
	return rc;
}

#define LINK_COLS "SELECT pair, run, a, b, rail, device, subnet, verdict, gbps, lat_us FROM links"

static int link_row(sqlite3_stmt *s, const struct store_cb *cb)
{
	struct fc_store_link l = {
		.pair = sqlite3_column_int64(s, 0), .run = sqlite3_column_int64(s, 1),
		.a = store_col_text(s, 2), .b = store_col_text(s, 3), .rail = sqlite3_column_int(s, 4),
		.device = store_col_text(s, 5), .subnet = store_col_text(s, 6),
		.verdict = store_col_text(s, 7), .gbps = store_col_fig(s, 8, STORE_GBPS_MAX),
		.lat_us = store_col_fig(s, 9, STORE_LAT_US_MAX)
	};

	return cb->fn.link(&l, cb->arg);
}

/* Steps @s over link rows (LINK_COLS), calling @cb per row; finalizes @s. */
static int link_rows(struct fc_store *st, sqlite3_stmt *s, fc_store_link_cb cb, void *arg)
{
	struct store_cb rcb = { .fn.link = cb, .arg = arg };

	return store_each_row(st, s, link_row, &rcb, "cannot read link results");
}

/* Prepares @where on the link rows, or on the pair rows' documents in a
 * store of schema 1, and steps it. */
static int links_where(struct fc_store *st, const char *where, sqlite3_stmt **s_p)
{
	char sql[1280];

	snprintf(sql, sizeof(sql), "%s %s", st->schema >= 2 ? LINK_COLS : DOC_COLS, where);
	if (sqlite3_prepare_v2(st->db, sql, -1, s_p, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read link results");
	return 0;
}

static int links_step(struct fc_store *st, sqlite3_stmt *s, fc_store_link_cb cb, void *arg)
{
	return st->schema >= 2 ? link_rows(st, s, cb, arg) : doc_rows(st, s, cb, arg);
}

int fc_store_links(struct fc_store *st, int64_t run, fc_store_link_cb cb, void *arg)
{
	sqlite3_stmt *s;

	if (links_where(st, st->schema >= 2 ? "WHERE run = ?1 ORDER BY rowid" :
					     "WHERE run = ?1 ORDER BY id", &s))
		return -EIO;
	sqlite3_bind_int64(s, 1, run);
	return links_step(st, s, cb, arg);
}

int fc_store_link_history(struct fc_store *st, const char *a, const char *b,
			  int64_t first_run, int64_t last_run, fc_store_link_cb cb, void *arg)
{
	sqlite3_stmt *s;

	if (links_where(st, st->schema >= 2 ?
			"WHERE ((a = ?1 AND b = ?2) OR (a = ?2 AND b = ?1))"
			" AND run BETWEEN ?3 AND ?4 ORDER BY rowid" :
			"WHERE ((a = ?1 AND b = ?2) OR (a = ?2 AND b = ?1))"
			" AND run BETWEEN ?3 AND ?4 ORDER BY id", &s))
		return -EIO;
	sqlite3_bind_text(s, 1, a, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, first_run);
	sqlite3_bind_int64(s, 4, last_run);
	return links_step(st, s, cb, arg);
}

int fc_store_links_by_pair(struct fc_store *st, const int64_t *runs, int nruns,
			  fc_store_link_cb cb, void *arg)
{
	char where[1024];
	size_t at;
	sqlite3_stmt *s;

	if (nruns < 1 || nruns > 64)
		return -EINVAL;
	at = (size_t)snprintf(where, sizeof(where), "WHERE run IN (");
	for (int i = 0; i < nruns && at < sizeof(where); i++)
		at += (size_t)snprintf(where + at, sizeof(where) - at, "%s%lld", i ? "," : "",
				       (long long)runs[i]);
	if (at >= sizeof(where) ||
	    (size_t)snprintf(where + at, sizeof(where) - at, ") ORDER BY min(a, b), max(a, b), %s",
			     st->schema >= 2 ? "rowid" : "id") >= sizeof(where) - at)
		return -EINVAL;
	if (links_where(st, where, &s))
		return -EIO;
	return links_step(st, s, cb, arg);
}

int fc_store_runs_before(struct fc_store *st, const char *kind, int64_t before, int max,
			 int64_t *ids)
{
	sqlite3_stmt *s;
	int n = 0, rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT id FROM runs WHERE kind = ?1 AND id < ?2"
			       " ORDER BY id DESC LIMIT ?3", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read runs");
	sqlite3_bind_text(s, 1, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, before);
	sqlite3_bind_int(s, 3, max);
	while (n < max && (rc = sqlite3_step(s)) == SQLITE_ROW)
		ids[n++] = sqlite3_column_int64(s, 0);
	if (n < max && rc != SQLITE_DONE)
		n = store_fail(st, "cannot read runs");
	sqlite3_finalize(s);
	return n;
}
