/* Records sorted on disk by SQLite (see spill.h). */
#include "store/spill.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

struct fc_spill {
	sqlite3 *db;
	sqlite3_stmt *add;
	char *what;
};

static int spill_fail(struct fc_spill *sp, const char *doing)
{
	fc_err("%s: cannot %s in a temporary SQLite database (%s); set TMPDIR to a folder "
	       "with room", sp->what, doing, sp->db ? sqlite3_errmsg(sp->db) : "out of memory");
	return -EIO;
}

struct fc_spill *fc_spill_open(const char *what)
{
	struct fc_spill *sp = calloc(1, sizeof(*sp));

	if (!sp || !(sp->what = strdup(what))) {
		fc_err("%s: out of memory", what);
		free(sp);
		return NULL;
	}
	/* "": a private temporary database on disk; its pages stay in a cache
	 * of 1 MB (half SQLite's default) and go to the file past that, and the
	 * sorter keeps about as much in memory before it writes a sorted run to
	 * a temporary file (SQLite's vdbesort.c: the cache's size, no less than
	 * SQLITE_SORTER_PMASZ pages). */
	if (sqlite3_open_v2("", &sp->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(sp->db, "PRAGMA temp_store = FILE; PRAGMA journal_mode = OFF;"
			 "PRAGMA cache_size = -1024;"
			 "PRAGMA synchronous = OFF;"
			 "CREATE TABLE r (key REAL NOT NULL, seq INTEGER NOT NULL, rec BLOB);"
			 "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sp->db, "INSERT INTO r VALUES (?, ?, ?)", -1, &sp->add, NULL) !=
		    SQLITE_OK) {
		spill_fail(sp, "make a table");
		fc_spill_close(sp);
		return NULL;
	}
	return sp;
}

int fc_spill_add(struct fc_spill *sp, double key, int64_t seq, const void *rec, size_t len)
{
	int rc = sqlite3_bind_double(sp->add, 1, key) != SQLITE_OK ||
		 sqlite3_bind_int64(sp->add, 2, seq) != SQLITE_OK ||
		 sqlite3_bind_blob(sp->add, 3, rec, (int)len, SQLITE_STATIC) != SQLITE_OK ||
		 sqlite3_step(sp->add) != SQLITE_DONE;

	sqlite3_reset(sp->add);
	return rc ? spill_fail(sp, "add a record") : 0;
}

int fc_spill_each(struct fc_spill *sp, int (*cb)(const void *rec, size_t len, void *arg),
		  void *arg)
{
	sqlite3_stmt *s;
	int rc, cbrc = 0;

	if (sqlite3_prepare_v2(sp->db, "SELECT rec FROM r ORDER BY key DESC, seq", -1, &s, NULL) !=
	    SQLITE_OK)
		return spill_fail(sp, "sort the records");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW &&
	       !(cbrc = cb(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0), arg)))
		;
	if (!cbrc && rc != SQLITE_DONE)
		cbrc = spill_fail(sp, "read the sorted records");
	sqlite3_finalize(s);
	return cbrc;
}

void fc_spill_close(struct fc_spill *sp)
{
	if (!sp)
		return;
	sqlite3_finalize(sp->add);
	sqlite3_close(sp->db);
	free(sp->what);
	free(sp);
}
