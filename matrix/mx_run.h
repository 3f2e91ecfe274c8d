/*
 * The matrix runner: runs the schedule's pairs as `fabcheck pair A B --json`
 * child processes of this same binary, a round at a time (no node in two
 * tests at once), and stores each result as it finishes. With a traffic
 * pattern (core/pattern.h) a round is a set of flows in which one node may
 * send or receive several at once: they start together, each test of each
 * flow on one start signal (ctl/barrier.h, pair --sync-fd). Driven by
 * mx_run_poll() so that the TUI can interleave it with its input.
 */
#ifndef FC_MX_RUN_H
#define FC_MX_RUN_H

#include <jansson.h>
#include <signal.h>
#include <stdint.h>

#include "core/pattern.h"
#include "ctl/barrier.h"
#include "store/store.h"

struct mx_job {
	int a, b;
	int round; /* -1 for a retest or a rerun */
	int retest; /* its --retest round (1, 2), 0: none */
	char rail[64]; /* "": every rail the pair options name; else that rail alone */
};

struct fc_child;

typedef void (*mx_result_fn)(void *arg, const struct mx_job *job, const json_t *doc);
struct mx_runner;
/* Plans the next round in place of the circle schedule (matrix --screen):
 * queues its pairs with mx_run_add and returns 1, or 0 when there is no
 * round left, or a negative errno. */
typedef int (*mx_plan_fn)(void *arg, struct mx_runner *r);

struct mx_runner {
	struct fc_store *st;
	int64_t run;
	int n;
	char **names;		/* borrowed */
	int both;
	const json_t *pair_args; /* borrowed: strings passed to each `pair` */
	double deadline_s;	/* a pair still running after this is killed */
	const char *exe;	/* the binary to run, default /proc/self/exe */
	volatile sig_atomic_t *stop; /* set by a signal handler: stop now */
	const char *evidence_dir; /* each pair --save-evidence DIR/NNN-A-B, or NULL */
	mx_result_fn on_result;	/* after each stored result (may be NULL) */
	void *arg;
	mx_plan_fn plan;	/* NULL: the circle schedule */
	int fanout;		/* workers at once, two a pair (ctl/scale.h); 0: the default */
	void *plan_arg;
	enum fc_pattern pattern; /* FC_PAT_PAIRS: the circle schedule of pairs */
	int pattern_k;		/* its --fan-in or --group, 0: all */

	/* State. */
	unsigned char *done; /* n * n: a -> b already measured in this run */
	int round, rounds;
	struct mx_job *queue;
	int nq, qcap;
	struct fc_child *kids;	/* the running pairs, and their jobs */
	struct mx_job *kid_jobs;
	int nkids;
	int *busy; /* per node: running now */
	int stored, errors, usage_error, planned_all;
	int spawned; /* evidence folders numbered (--save-evidence) */
	int started; /* pairs this process started */
	int evfd;    /* evidence_dir, opened as an evidence folder (core/safefile.h) */
	struct fc_pplan pplan;	/* a pattern's rounds */
	int *leaf;		/* each node's leaf on the first rail (bisection), NULL unknown */
	struct fc_barrier bar;	/* a pattern round's start signal, slot k: kids[k] */
	int bar_on;
};

/* Prepares @r (fields above the "State" line set by the caller) and marks
 * the pairs @st already holds for the run as done (for --resume): a pair
 * whose result ran (pass, warn, fail) is not run again; one that errored is.
 * Returns 0 or a negative errno. */
int mx_run_init(struct mx_runner *r);
void mx_run_release(struct mx_runner *r);

/* Queues one pair outside the schedule (--retest, the TUI's rerun). */
int mx_run_add(struct mx_runner *r, int a, int b, int retest);
/* The same on one rail (pair --rails RAIL). */
int mx_run_add_rail(struct mx_runner *r, int a, int b, int retest, const char *rail);

/* Starts what may start, waits up to @timeout_ms for children, stores what
 * finished. Returns 1 while there is more to do, 0 when the schedule and
 * the queue are done, -EINTR when *stop was set (children are ended and
 * their partial results dropped), or another negative errno. */
int mx_run_poll(struct mx_runner *r, int timeout_ms);

/* Pairs running now, for the TUI. */
int mx_run_active(const struct mx_runner *r, struct mx_job *out, int max);

#endif
