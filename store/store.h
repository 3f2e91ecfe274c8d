/*
 * The result store: one SQLite file (default fabcheck.db) that keeps every
 * run and every pair result, read by the TUI, the reports and --resume.
 *
 * A run is one command invocation (kind "pair", "matrix" or "soak") with its
 * parameters; a pair row is one finished `fabcheck pair --json` document of
 * that run, kept whole, plus indexed columns for the common questions.
 * Each pair is committed on its own, so a crash loses no finished pair.
 * A link row is one (pair, rail) result of a pair row (schema 2): a row per
 * rail of a `pair --rails` document, else one (rail -1) for the pair.
 * WAL mode lets a reader (the TUI) follow a run that another process writes.
 */
#ifndef FC_STORE_H
#define FC_STORE_H

#include <jansson.h>
#include <stdint.h>

#define FC_STORE_DEFAULT "fabcheck.db"
/* Schema version kept in PRAGMA user_version. A store of an older one is
 * upgraded when a command opens it to write, and read as it stands by the
 * read-only ones. */
#define FC_STORE_SCHEMA 2

struct fc_store;

/* Opens (creating when missing) the store at @path. Returns NULL after
 * logging an error naming the file and the fix. */
struct fc_store *fc_store_open(const char *path);
/* Opens the existing store at @path for reading only (report, the tui
 * following a run): a missing file, one that is not a fabcheck store or
 * one it cannot read is an error naming the path (logged); nothing is
 * created or written. Writes through it fail. */
struct fc_store *fc_store_open_ro(const char *path);
void fc_store_close(struct fc_store *st);
/* The path the store was opened with. */
const char *fc_store_path(const struct fc_store *st);
/* True when the store keeps link rows (schema 2 and up): fc_store_links
 * reads them without opening a document. */
int fc_store_has_links(const struct fc_store *st);

/* Starts a run of @kind ("pair", "matrix", "soak") with @params (any JSON,
 * may be NULL; not stolen). Returns the run id (> 0) or a negative errno. */
int64_t fc_store_run_begin(struct fc_store *st, const char *kind, const json_t *params);
/* Adds the finished pair @a -> @b of @run: @pair_doc is the document of
 * `fabcheck pair --json` (not stolen). Committed before it returns.
 * Returns 0 or a negative errno. */
int fc_store_pair_add(struct fc_store *st, int64_t run, const char *a, const char *b,
		      const json_t *pair_doc);
/* Groups the writes until fc_store_commit into one transaction (a bulk
 * import: one sync instead of one per pair; a crash loses the group). */
int fc_store_begin(struct fc_store *st);
int fc_store_commit(struct fc_store *st);

/* Marks @run finished with @verdict ("pass", "warn", "fail", ...). */
int fc_store_run_end(struct fc_store *st, int64_t run, const char *verdict);
/* Replaces the parameters of @run (for example the schedule's progress). */
int fc_store_run_set_params(struct fc_store *st, int64_t run, const json_t *params);

/* One run as read back. */
struct fc_store_run {
	int64_t id;
	char kind[16];
	char verdict[16]; /* "" while the run has not ended */
	double started;	  /* unix time, seconds */
	double ended;	  /* 0 while running */
	int64_t npairs;	  /* pair rows stored so far */
	json_t *params;	  /* owned; NULL when none; free with fc_store_run_release */
};
void fc_store_run_release(struct fc_store_run *r);

/* Reads run @id into *out_p. Returns 0, -ENOENT (logged) or another
 * negative errno. */
int fc_store_run_get(struct fc_store *st, int64_t id, struct fc_store_run *out_p);
/* The id of the newest run of @kind (any kind when NULL), 0 when none, or a
 * negative errno. */
int64_t fc_store_run_latest(struct fc_store *st, const char *kind);

typedef int (*fc_store_run_cb)(const struct fc_store_run *r, void *arg);
/* Calls @cb for the newest @limit runs (all when <= 0), newest first; a
 * non-zero return from @cb stops and is returned. */
int fc_store_run_list(struct fc_store *st, int limit, fc_store_run_cb cb, void *arg);

/* One pair row as read back; the strings live until the callback returns. */
struct fc_store_pair {
	int64_t id;	/* row id: grows with each added pair */
	int64_t run;
	const char *a, *b;
	const char *verdict;
	double gbps;	/* write bandwidth at the largest size, NAN when none */
	double size_bytes; /* the size of that bandwidth figure, 0 when none */
	double lat_us;	/* read latency p50, NAN when none */
	double time;	/* unix time it was stored */
	const char *doc; /* the whole pair document as JSON text (NULL: not read) */
};
typedef int (*fc_store_pair_cb)(const struct fc_store_pair *p, void *arg);

/* Calls @cb for each pair of @run with row id > @after_id, in row order
 * (pass 0 for all; the TUI passes the last id it saw to read only what is
 * new). A non-zero return from @cb stops and is returned. */
int fc_store_pairs(struct fc_store *st, int64_t run, int64_t after_id, fc_store_pair_cb cb,
		   void *arg);
/* Calls @cb for the newest @limit results (all when <= 0) of the pair @a,
 * @b in either direction across all runs, newest first. */
/* As fc_store_pairs, without reading the documents (doc NULL): at rack
 * scale they are gigabytes, the columns a few megabytes. */
int fc_store_pairs_brief(struct fc_store *st, int64_t run, int64_t after_id,
			 fc_store_pair_cb cb, void *arg);
/* The document of pair row @id (malloc'd text, the caller frees it), or
 * NULL (logged). */
char *fc_store_pair_doc(struct fc_store *st, int64_t id);
int fc_store_pair_history(struct fc_store *st, const char *a, const char *b, int limit,
			  fc_store_pair_cb cb, void *arg);

/* One (pair, rail) result as read back; the strings live until the
 * callback returns. */
struct fc_store_link {
	int64_t pair, run; /* the pair row it belongs to, its run */
	const char *a, *b;
	int rail;	      /* the rail's index in the pair document; -1: no rails */
	const char *device;   /* the rail's name ("" for -1) */
	const char *subnet;   /* its subnet ("" when not known) */
	const char *verdict;  /* that rail's (the pair's for -1) */
	double gbps, lat_us;  /* NAN when none */
};
typedef int (*fc_store_link_cb)(const struct fc_store_link *l, void *arg);

/* Calls @cb for each link result of @run, in row order. A non-zero return
 * from @cb stops and is returned. */
int fc_store_links(struct fc_store *st, int64_t run, fc_store_link_cb cb, void *arg);
/* Calls @cb for each link result of the pair @a, @b (either direction, any
 * rail) in the runs @first_run .. @last_run, in row order. */
int fc_store_link_history(struct fc_store *st, const char *a, const char *b,
			  int64_t first_run, int64_t last_run, fc_store_link_cb cb, void *arg);
/* Calls @cb for each link result of the runs @runs[0 .. @nruns) (1 .. 64
 * of them), grouped by pair: ordered by the pair's names (the lower first,
 * either direction together), then row order. SQLite sorts the rows in its
 * sorter, which spills to temporary files past its cache: the memory does
 * not grow with the number of rows. */
int fc_store_links_by_pair(struct fc_store *st, const int64_t *runs, int nruns,
			  fc_store_link_cb cb, void *arg);
/* The ids of the newest @max runs of @kind before run @before, newest
 * first, into @ids. Returns how many, or a negative errno. */
int fc_store_runs_before(struct fc_store *st, const char *kind, int64_t before, int max,
			 int64_t *ids);

/* Pure helpers (no database): the figures the indexed columns hold, taken
 * from a pair document. Bandwidth: write bw at the largest size (any bw
 * test when there is no write); latency: read p50 (any latency test when
 * there is no read). Return NAN when the document has none. */
double fc_pair_doc_gbps(const json_t *doc, double *size_bytes_p);
double fc_pair_doc_lat_us(const json_t *doc);

/* One rail of a `pair --rails` document's "rails" list: its figures are
 * those of its "loaded" phase, else of its "alone" one (phase NULL, the
 * figures NAN and verdict NULL when it has neither). The strings live in
 * the document. */
struct fc_pair_rail {
	int rail;		  /* its index in the pair's rails, -1 when not given */
	const char *name, *subnet; /* "" when not given */
	const json_t *phase;
	const char *verdict;
	double gbps, size_bytes, lat_us;
	const char *node_fault; /* the node whose own device failed on it, NULL: none */
};
/* Whose a pair run's end is (issue 38: infrastructure never drains): 1
 * when it judged the fabric, exiting 0 (pass, warn) or 1 (a check failed:
 * a data path the worker saw fail, "fail" in ctl/worker.c, verbs/test.c's
 * "no progress" stall included) with its document; 0 when it could not
 * run, never evidence against a node: no document, exit 2 (usage), 3 (a
 * worker that could not start or set up, "cant"; a node's RDMA device,
 * port or rail that could not be set up, "node", is exit 3 too, but its
 * document names the node, "node_fault", and pair --rails keeps that
 * rail "fail" while the others that could not run are "error"), ssh's 255
 * (ssh(1): "exits with 255 if an error occurred"), any other code, a
 * signal, or killed at its deadline (@code -1). One rule for pair's rails,
 * matrix's pairs and soak's slices; a stored document then says "error". */
int fc_pair_end_judged(int code, const json_t *doc);
/* A stored document's verdict as the same: pass, warn or fail judged;
 * "error" (or none) could not run. */
int fc_pair_doc_judged(const json_t *doc);

/* The device a pair document's own fault was on ("node_fault_port" beside
 * "node_fault", pair/pair_msg.c: the port its worker opened, else the one
 * asked for), its port into *@port_p (0: not said); NULL when the document
 * names none, or names what is not a device name (core/names.h): a
 * worker's or a file's word reaches no reason or command unchecked. */
const char *fc_pair_doc_fault_dev(const json_t *doc, int *port_p);
/* The one device a node's own faults were on, over several documents:
 * fc_fault_dev_note records in @seen (an object) that a document named
 * @node's own fault on @dev, port @port (@dev NULL: it could not say);
 * fc_fault_dev_of gives that device (its port into *@port_p) when every
 * note for @node named the same device and port, else NULL: the drain
 * then names the node, no device. */
void fc_fault_dev_note(json_t *seen, const char *node, const char *dev, int port);
const char *fc_fault_dev_of(const json_t *seen, const char *node, int *port_p);
/* " on mlx5_3 port 1" (" on mlx5_3" for @port 0; "" for @dev NULL) into
 * @buf, for the finding that names that port; returns @buf. */
const char *fc_fault_dev_words(char *buf, size_t len, const char *dev, int port);

/* The @i-th rail of @doc into *out: 1, or 0 past the end (or no list). */
int fc_pair_doc_rail(const json_t *doc, size_t i, struct fc_pair_rail *out);

/* One Slurm action of a run (ctl/drain.h): a drain, a resume, one left
 * alone, or a command that failed; the strings live until the callback
 * returns. */
struct fc_store_action {
	int64_t id, run;
	double time;	     /* unix time; 0 when adding: now */
	const char *node;
	const char *action;  /* "drain", "resume", "would-drain", "left", "failed", ... */
	const char *reason;  /* the reason given to Slurm (or read from it) */
	const char *detail;  /* the finding's full text */
	const char *command; /* the command as run */
	const char *result;  /* "ok" or what went wrong */
};
/* Records @a under @run (its own table, created on the first). 0 or -EIO. */
int fc_store_action_add(struct fc_store *st, int64_t run, const struct fc_store_action *a);
typedef int (*fc_store_action_cb)(const struct fc_store_action *a, void *arg);
/* Calls @cb for each action of @run (every run when <= 0), oldest first; a
 * store without any has none. A non-zero return from @cb stops and is
 * returned. */
int fc_store_actions(struct fc_store *st, int64_t run, fc_store_action_cb cb, void *arg);

#endif
