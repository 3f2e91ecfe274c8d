/* The SQLite result store (see store.h). */
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "store/store_int.h"

/* How long a writer waits for another process holding the lock. */
#define STORE_BUSY_MS 10000


static const char schema_v1[] =
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" kind TEXT NOT NULL,"
	" params TEXT,"
	" started REAL NOT NULL,"
	" ended REAL,"
	" verdict TEXT);"
	"CREATE TABLE pairs ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" run INTEGER NOT NULL REFERENCES runs(id),"
	" a TEXT NOT NULL,"
	" b TEXT NOT NULL,"
	" verdict TEXT NOT NULL,"
	" gbps REAL,"
	" size_bytes REAL,"
	" lat_us REAL,"
	" time REAL NOT NULL,"
	" doc TEXT NOT NULL);"
	"CREATE INDEX pairs_run ON pairs(run, id);"
	"CREATE INDEX pairs_ab ON pairs(a, b, time);"
	"PRAGMA user_version = 1;";

/* Schema 2: a row per (pair, rail) result (store/links.c), so that a
 * link's history on one rail is read without opening the documents. */
static const char schema_v2[] =
	"CREATE TABLE links ("
	" pair INTEGER NOT NULL REFERENCES pairs(id),"
	" run INTEGER NOT NULL REFERENCES runs(id),"
	" a TEXT NOT NULL,"
	" b TEXT NOT NULL,"
	" rail INTEGER NOT NULL," /* -1: a pair run without rails, as a whole */
	" device TEXT NOT NULL,"  /* the rail's name, '' for -1 */
	" subnet TEXT NOT NULL,"
	" verdict TEXT NOT NULL,"
	" gbps REAL,"
	" lat_us REAL);"
	"CREATE INDEX links_run ON links(run);"
	"CREATE INDEX links_ab ON links(a, b, run);"
	"PRAGMA user_version = 2;";

/* Step i takes a store of schema i to i + 1 (0: a new file). */
static const char *const schema_steps[FC_STORE_SCHEMA] = { schema_v1, schema_v2 };

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Logs the database's last error for @what and returns -EIO. */
int store_fail(struct fc_store *st, const char *what)
{
	fc_err("store %s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	return -EIO;
}

int store_each_row(struct fc_store *st, sqlite3_stmt *s,
		   int (*row)(sqlite3_stmt *, const struct store_cb *), const struct store_cb *cb,
		   const char *what)
{
	int rc, cbrc = 0;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW && !(cbrc = row(s, cb)))
		;
	if (!cbrc && rc != SQLITE_DONE)
		cbrc = store_fail(st, what);
	sqlite3_finalize(s);
	return cbrc;
}

static int store_exec(struct fc_store *st, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fc_err("store %s: %s: %s", st->path, what, msg ? msg : "unknown error");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static int store_prepare(struct fc_store *st, const char *sql, sqlite3_stmt **stmt_p)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt_p, NULL) != SQLITE_OK)
		return store_fail(st, "cannot prepare a query");
	return 0;
}

/* The integer of the first row of @sql into *@v_p: 0, or -EIO logged with @what. */
static int store_query_int(struct fc_store *st, const char *sql, const char *what, int *v_p)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prepare(st, sql, &s);
	if (rc)
		return rc;
	if (sqlite3_step(s) != SQLITE_ROW)
		rc = store_fail(st, what);
	else
		*v_p = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc;
}

static int store_user_version(struct fc_store *st, int *ver_p)
{
	return store_query_int(st, "PRAGMA user_version", "cannot read the schema version", ver_p);
}

/* Counts the tables of a version-0 file: a non-empty one is not ours. */
static int store_table_count(struct fc_store *st, int *n_p)
{
	return store_query_int(st, "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
			       "cannot read the file; is it a SQLite database?", n_p);
}

/* The steps from schema @ver to this one's, inside the caller's
 * transaction; each step's rows are filled from the rows already there. */
static int store_upgrade(struct fc_store *st, int ver)
{
	int rc = 0;

	for (int v = ver; v < FC_STORE_SCHEMA && !rc; v++) {
		rc = store_exec(st, schema_steps[v], "cannot create the tables");
		if (!rc && v == 1)
			rc = store_links_fill(st);
	}
	if (!rc && ver > 0)
		fc_warn("store %s: upgraded from schema %d to %d (a row per pair and rail result); "
			"a fabcheck older than this one no longer opens it", st->path, ver,
			FC_STORE_SCHEMA);
	return rc;
}

static int store_setup_schema(struct fc_store *st)
{
	int ver = 0, ntables = 0, rc;

	rc = store_exec(st, "BEGIN IMMEDIATE", "cannot lock the file to set it up");
	if (rc)
		return rc;
	rc = store_user_version(st, &ver);
	if (rc)
		goto out_rollback;
	if (ver == FC_STORE_SCHEMA) {
		st->schema = ver;
		return store_exec(st, "COMMIT", "cannot commit");
	}
	if (ver > FC_STORE_SCHEMA) {
		fc_err("store %s: written by a newer fabcheck (schema %d, this one knows %d); "
		       "upgrade fabcheck or pass --db with another file",
		       st->path, ver, FC_STORE_SCHEMA);
		rc = -EPROTO;
		goto out_rollback;
	}
	if (ver == 0) {
		rc = store_table_count(st, &ntables);
		if (rc)
			goto out_rollback;
		if (ntables) {
			fc_err("store %s: is a SQLite file that fabcheck did not write; "
			       "pass --db with another file", st->path);
			rc = -EPROTO;
			goto out_rollback;
		}
	}
	rc = store_upgrade(st, ver);
	if (rc)
		goto out_rollback;
	rc = store_exec(st, "COMMIT", "cannot commit the new tables");
	if (!rc)
		st->schema = FC_STORE_SCHEMA;
	return rc;

out_rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* A handle on @path opened with @flags, checked to be a SQLite file;
 * NULL after logging why. */
static struct fc_store *store_new(const char *path, int flags, const char *fix)
{
	struct fc_store *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return NULL;
	st->path = strdup(path);
	if (!st->path)
		goto out_free;
	rc = sqlite3_open_v2(path, &st->db, flags, NULL);
	if (rc != SQLITE_OK) {
		fc_err("store %s: cannot open: %s; %s", path,
		       st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc), fix);
		goto out_close;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	if (sqlite3_exec(st->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) ==
	    SQLITE_NOTADB) {
		fc_err("store %s: is not a SQLite database; pass --db with another file", path);
		goto out_close;
	}
	return st;

out_close:
	sqlite3_close(st->db);
	free(st->path);
out_free:
	free(st);
	errno = EIO;
	return NULL;
}

static int store_shm_exists(const char *path)
{
	char shm[4096];

	snprintf(shm, sizeof(shm), "%s-shm", path);
	return access(shm, F_OK) == 0;
}

/* Opens @path as a file no one writes ("immutable" in a file: URI). */
static struct fc_store *store_open_immutable(const char *path)
{
	struct fc_store *st;
	size_t len = strlen(path), off = 0;
	char *uri = malloc(len * 3 + 32);

	if (!uri)
		return NULL;
	off += (size_t)sprintf(uri, "file:");
	for (const char *p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("/-_.~", c))
			uri[off++] = (char)c;
		else
			off += (size_t)sprintf(uri + off, "%%%02X", c);
	}
	strcpy(uri + off, "?immutable=1");
	st = store_new(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, "check that it can be read");
	free(uri);
	if (st) {
		free(st->path);
		st->path = strdup(path);
		if (!st->path) {
			fc_store_close(st);
			return NULL;
		}
	}
	return st;
}

struct fc_store *fc_store_open_ro(const char *path)
{
	struct fc_store *st;
	struct stat sb;
	int ver = 0;

	if (!path || !*path)
		path = FC_STORE_DEFAULT;
	if (stat(path, &sb)) {
		fc_err("store %s: %m; give --db with the file a run was kept in", path);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		fc_err("store %s: is not a file; give --db with the file a run was kept in", path);
		errno = EINVAL;
		return NULL;
	}
	st = store_new(path, SQLITE_OPEN_READONLY, "check that it can be read");
	if (st && sqlite3_exec(st->db, "PRAGMA user_version", NULL, NULL, NULL) != SQLITE_OK &&
	    !store_shm_exists(path)) {
		/* A WAL file whose folder the reader cannot write: with no -shm
		 * file no writer is at work, so the file is read as it stands. */
		fc_store_close(st);
		st = store_open_immutable(path);
	}
	if (!st)
		return NULL;
	/* An older schema is read as it stands (nothing is written here):
	 * store/links.c reads its link results from the documents. */
	if (store_user_version(st, &ver) == 0 && (ver < 1 || ver > FC_STORE_SCHEMA))
		fc_err("store %s: %s (schema %d, this one knows 1 to %d); give --db with a store "
		       "fabcheck wrote", path, ver > FC_STORE_SCHEMA ? "written by a newer "
		       "fabcheck" : "is not a fabcheck store", ver, FC_STORE_SCHEMA);
	if (ver < 1 || ver > FC_STORE_SCHEMA) {
		fc_store_close(st);
		errno = EPROTO;
		return NULL;
	}
	st->schema = ver;
	return st;
}

/* A store this command would write: the file (when there) and its folder
 * (SQLite keeps its -wal and -shm files beside it) must be writable. */
static int store_unwritable(const char *path)
{
	char dir[4096];
	char *slash;

	if (access(path, F_OK) == 0 && access(path, W_OK)) {
		fc_err("store %s: cannot write it: %m; read it with 'fabcheck report' or "
		       "'fabcheck tui --run N', or pass --db with a file you may write", path);
		return -EACCES;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = 0;
	if (access(dir, F_OK) == 0 && access(dir, W_OK)) {
		fc_err("store %s: cannot write in its folder %s: %m; pass --db with a file in a "
		       "folder you may write", path, dir);
		return -EACCES;
	}
	return 0;
}

struct fc_store *fc_store_open(const char *path)
{
	struct fc_store *st;

	if (!path || !*path)
		path = FC_STORE_DEFAULT;
	if (store_unwritable(path))
		return NULL;
	st = store_new(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
		       "check that the folder exists and is writable, or pass --db FILE");
	if (!st)
		return NULL;
	/* WAL: readers (the TUI) never block the writer; FULL sync: a pair is on
	 * disk once its commit returns, even across a power loss. */
	if (store_exec(st, "PRAGMA journal_mode = WAL",
		       "cannot switch to WAL mode (is the file on a network filesystem? "
		       "pass --db with a local file)") ||
	    store_exec(st, "PRAGMA synchronous = FULL", "cannot set synchronous mode") ||
	    store_exec(st, "PRAGMA foreign_keys = ON", "cannot enable foreign keys"))
		goto out_close;
	if (store_setup_schema(st))
		goto out_close;
	return st;

out_close:
	fc_store_close(st);
	errno = EIO;
	return NULL;
}

void fc_store_close(struct fc_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

const char *fc_store_path(const struct fc_store *st)
{
	return st->path;
}

int fc_store_has_links(const struct fc_store *st)
{
	return st->schema >= 2;
}

double store_doc_real(double v)
{
	char buf[40];

	/* As jansson writes a real ("%.*g") and reads it back (strtod). */
	if (!isfinite(v))
		return v;
	snprintf(buf, sizeof(buf), "%.*g", STORE_DOC_PRECISION, v);
	return strtod(buf, NULL);
}

/* Binds @params as JSON text (or NULL) to parameter @idx of @s. */
static int bind_json(sqlite3_stmt *s, int idx, const json_t *params)
{
	char *text;

	if (!params)
		return sqlite3_bind_null(s, idx);
	text = json_dumps(params, JSON_COMPACT | JSON_REAL_PRECISION(STORE_DOC_PRECISION));
	if (!text)
		return SQLITE_NOMEM;
	return sqlite3_bind_text(s, idx, text, -1, free);
}

int64_t fc_store_run_begin(struct fc_store *st, const char *kind, const json_t *params)
{
	sqlite3_stmt *s;
	int64_t id = -EIO;

	if (store_prepare(st, "INSERT INTO runs (kind, params, started) VALUES (?, ?, ?)", &s))
		return -EIO;
	if (sqlite3_bind_text(s, 1, kind, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    bind_json(s, 2, params) != SQLITE_OK ||
	    sqlite3_bind_double(s, 3, wall_now()) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_DONE)
		store_fail(st, "cannot record a new run");
	else
		id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return id;
}

/* Binds @run to the last parameter of the UPDATE of a run @s, whose other
 * parameters are bound (@unbound: one of them failed), steps and finalizes
 * it. 0, -EIO (logged with @what) or -ENOENT (no such run). */
static int update_run(struct fc_store *st, int64_t run, sqlite3_stmt *s, int unbound,
		      const char *what)
{
	int rc = 0;

	if (unbound || sqlite3_bind_int64(s, sqlite3_bind_parameter_count(s), run) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_DONE)
		rc = store_fail(st, what);
	else if (sqlite3_changes(st->db) != 1) {
		fc_err("store %s: no run %lld", st->path, (long long)run);
		rc = -ENOENT;
	}
	sqlite3_finalize(s);
	return rc;
}

int fc_store_run_set_params(struct fc_store *st, int64_t run, const json_t *params)
{
	sqlite3_stmt *s;

	if (store_prepare(st, "UPDATE runs SET params = ? WHERE id = ?", &s))
		return -EIO;
	return update_run(st, run, s, bind_json(s, 1, params) != SQLITE_OK,
			  "cannot update a run's parameters");
}

int fc_store_run_end(struct fc_store *st, int64_t run, const char *verdict)
{
	sqlite3_stmt *s;

	if (store_prepare(st, "UPDATE runs SET ended = ?, verdict = ? WHERE id = ?", &s))
		return -EIO;
	return update_run(st, run, s,
			  sqlite3_bind_double(s, 1, wall_now()) != SQLITE_OK ||
				  sqlite3_bind_text(s, 2, verdict, -1, SQLITE_TRANSIENT) != SQLITE_OK,
			  "cannot record the end of a run");
}


int fc_store_pair_add(struct fc_store *st, int64_t run, const char *a, const char *b,
		      const json_t *pair_doc)
{
	static const char sql[] =
		"INSERT INTO pairs (run, a, b, verdict, gbps, size_bytes, lat_us, time, doc)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
	const char *verdict = json_string_value(json_object_get(pair_doc, "verdict"));
	double size = 0, gbps = fc_pair_doc_gbps(pair_doc, &size);
	double lat = fc_pair_doc_lat_us(pair_doc);
	sqlite3_stmt *s;
	int rc = 0;

	if (!json_is_object(pair_doc)) {
		fc_err("store %s: pair %s-%s has no result document", st->path, a, b);
		return -EINVAL;
	}
	if (store_prepare(st, sql, &s))
		return -EIO;
	/* The pair and its links in one savepoint: a commit of their own
	 * outside a transaction, all or none inside one. */
	if (store_exec(st, "SAVEPOINT pair_add", "cannot start a transaction")) {
		sqlite3_finalize(s);
		return -EIO;
	}
	verdict = verdict ? verdict : "error";
	if (sqlite3_bind_int64(s, 1, run) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, a, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_bind_text(s, 3, b, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_bind_text(s, 4, verdict, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    store_bind_num(s, 5, gbps) != SQLITE_OK ||
	    store_bind_num(s, 6, isfinite(gbps) ? size : NAN) != SQLITE_OK ||
	    store_bind_num(s, 7, lat) != SQLITE_OK ||
	    sqlite3_bind_double(s, 8, wall_now()) != SQLITE_OK ||
	    bind_json(s, 9, pair_doc) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
		rc = store_fail(st, "cannot record a pair result");
	sqlite3_finalize(s);
	if (!rc)
		rc = store_links_add(st, &(struct fc_store_link){
					     .pair = sqlite3_last_insert_rowid(st->db), .run = run,
					     .a = a, .b = b, .rail = -1, .device = "", .subnet = "",
					     .verdict = verdict, .gbps = gbps, .lat_us = lat },
				     pair_doc);
	if (rc)
		sqlite3_exec(st->db, "ROLLBACK TO pair_add", NULL, NULL, NULL);
	if (store_exec(st, "RELEASE pair_add", "cannot commit a pair result") && !rc)
		rc = -EIO;
	return rc;
}

int fc_store_begin(struct fc_store *st)
{
	return store_exec(st, "BEGIN IMMEDIATE", "cannot start a transaction");
}

int fc_store_commit(struct fc_store *st)
{
	return store_exec(st, "COMMIT", "cannot commit");
}
