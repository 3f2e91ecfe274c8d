/* Private to store/: the handle's layout. */
#ifndef FC_STORE_INT_H
#define FC_STORE_INT_H

#include <sqlite3.h>

#include "core/fc.h"
#include "core/util.h"
#include "store/store.h"

struct fc_store {
	sqlite3 *db;
	char *path;
	int schema; /* its PRAGMA user_version: below FC_STORE_SCHEMA only read-only */
};

#include <math.h>

static inline const char *store_col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

/* A stored figure (Gb/s, microseconds): a column's number, NAN ("not
 * measured") when NULL, and when negative, not finite or above @max, which
 * is then no measurement (a store changed outside fabcheck): said once. */
double store_col_fig(sqlite3_stmt *s, int i, double max);
/* A column's number, NAN when NULL. */
static inline double store_col_num(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
/* The most a stored pair's Gb/s figure may be: both ways at the fastest
 * port (FC_GBPS_MAX each way); and its latency: the top of --max-lat-us. */
#define STORE_GBPS_MAX (2 * FC_GBPS_MAX)
#define STORE_LAT_US_MAX FC_LAT_US_MAX /* core/util.h */

/* store/docfig.c: the document @text of pair row @id (run @run, nodes
 * @a, @b) of the store @path with each stored result whose figures are no
 * measurement (negative, not finite, Gb/s above STORE_GBPS_MAX, latency
 * above STORE_LAT_US_MAX) left out, said naming the store, the run and the
 * pair: NULL when none is (read @text as it is), else the new text (free
 * it). What resume, report and the TUI re-read is bounded as a live
 * result is. */
char *store_doc_bounded(const char *path, int64_t run, int64_t id, const char *a,
			const char *b, const char *text);

/* store/docfig.c: takes out of a run's stored parameters @params (of run
 * @run) each figure that is no measurement (the bound of fc_figure_max:
 * nccl run's "peak_busbw_gbytes_s", which plan --db reads), said. */
void store_params_bounded(json_t *params, int64_t run);

/* Binds @v, or NULL when it is not finite. */
static inline int store_bind_num(sqlite3_stmt *s, int idx, double v)
{
	return isfinite(v) ? sqlite3_bind_double(s, idx, v) : sqlite3_bind_null(s, idx);
}

/* The significant digits of the numbers in the stored documents. */
#define STORE_DOC_PRECISION 10
/* @v as a stored document holds it (STORE_DOC_PRECISION digits): what a
 * link row keeps, so that the figures read from link rows are the same as
 * the ones read from the documents of a store without them. */
double store_doc_real(double v);

/* Logs the database's last error for @what; -EIO. */
int store_fail(struct fc_store *st, const char *what);

/* A caller's callback over rows of one kind, and its argument. */
struct store_cb {
	union {
		fc_store_run_cb run;
		fc_store_pair_cb pair;
		fc_store_link_cb link;
	} fn;
	void *arg;
	struct fc_store *st; /* the store read, for messages (pair rows) */
};
/* Steps @s, calling @row(@s, @cb) for each row until one returns non-zero,
 * and finalizes @s. Returns that value, 0, or -EIO (logged with @what). */
int store_each_row(struct fc_store *st, sqlite3_stmt *s,
		   int (*row)(sqlite3_stmt *, const struct store_cb *), const struct store_cb *cb,
		   const char *what);
/* store/links.c: the link rows of the pair row l->pair (rail -1 and the
 * pair's figures in @base; a row per rail instead when @doc has rails). */
int store_links_add(struct fc_store *st, const struct fc_store_link *base, const json_t *doc);
/* The link rows of every pair row there (the step to schema 2). */
int store_links_fill(struct fc_store *st);

#endif
