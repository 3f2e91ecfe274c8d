/* The Slurm actions of a run (ctl/drain.h): a table "actions", created on
 * the first one written, so that a store without any is read as it is. */
#include "store/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/time.h>

#include "core/log.h"
#include "store/store_int.h"

static const char actions_sql[] =
	"CREATE TABLE IF NOT EXISTS actions ("
	" id INTEGER PRIMARY KEY, run INTEGER, time REAL, node TEXT NOT NULL,"
	" action TEXT NOT NULL, reason TEXT, detail TEXT, command TEXT, result TEXT);"
	"CREATE INDEX IF NOT EXISTS actions_run ON actions(run, id);";

static double now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

int fc_store_action_add(struct fc_store *st, int64_t run, const struct fc_store_action *a)
{
	static const char sql[] = "INSERT INTO actions (run, time, node, action, reason, detail,"
				  " command, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	const char *txt[] = { a->node, a->action, a->reason, a->detail, a->command, a->result };
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_exec(st->db, actions_sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "cannot create the table of Slurm actions");
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot record a Slurm action");
	if (sqlite3_bind_int64(s, 1, run) != SQLITE_OK ||
	    sqlite3_bind_double(s, 2, a->time > 0 ? a->time : now_s()) != SQLITE_OK)
		rc = -EIO;
	for (int i = 0; !rc && i < 6; i++)
		if (sqlite3_bind_text(s, i + 3, txt[i] ? txt[i] : "", -1, SQLITE_TRANSIENT) !=
		    SQLITE_OK)
			rc = -EIO;
	if (rc || sqlite3_step(s) != SQLITE_DONE)
		rc = store_fail(st, "cannot record a Slurm action");
	sqlite3_finalize(s);
	return rc;
}

/* 1 when the store has the table, 0 when not, -EIO. */
static int has_actions(struct fc_store *st)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'actions'",
			       -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "cannot read the store's tables");
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "cannot read the store's tables");
	return rc == SQLITE_ROW;
}

int fc_store_actions(struct fc_store *st, int64_t run, fc_store_action_cb cb, void *arg)
{
	sqlite3_stmt *s;
	int rc = has_actions(st);

	if (rc <= 0)
		return rc;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, run, time, node, action, reason, detail, command, result"
			       " FROM actions WHERE run = ?1 OR ?1 <= 0 ORDER BY id",
			       -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, run) != SQLITE_OK)
		return store_fail(st, "cannot read the Slurm actions");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct fc_store_action a = {
			.id = sqlite3_column_int64(s, 0), .run = sqlite3_column_int64(s, 1),
			.time = sqlite3_column_double(s, 2), .node = store_col_text(s, 3),
			.action = store_col_text(s, 4), .reason = store_col_text(s, 5),
			.detail = store_col_text(s, 6), .command = store_col_text(s, 7),
			.result = store_col_text(s, 8),
		};

		rc = cb(&a, arg);
		if (rc) {
			sqlite3_finalize(s);
			return rc;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : store_fail(st, "cannot read the Slurm actions");
	sqlite3_finalize(s);
	return rc;
}
