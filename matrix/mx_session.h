/*
 * A matrix run being made: the store, the run (new or resumed), its nodes
 * and pair options, and the runner. Used by `matrix` and by `tui NODE...`.
 */
#ifndef FC_MX_SESSION_H
#define FC_MX_SESSION_H

#include "matrix/mx_cli.h"
#include "matrix/mx_run.h"

struct mx_session {
	struct fc_store *st;
	int64_t run;
	json_t *params; /* the run's stored parameters */
	json_t *pair_args; /* checked: the stored ones, on resume with the
			    * command line's launch options */
	char **names;	/* from params */
	int n;
	int both, retest, retested;
	int hist_retested; /* the links history flagged were measured again */
	struct mx_runner r;
};

/* The pair options used when the user gives no test selection. */
extern const char *const mx_default_pair_args[];

/* Opens the store and begins a run from @c (or resumes c->resume), ready
 * for mx_run_poll(&s->r, ...). Returns 0, FC_EXIT_USAGE or FC_EXIT_CANT
 * (logged). */
int mx_session_open(struct mx_session *s, const struct mx_cli *c,
		    volatile sig_atomic_t *stop);
/* Queues the --retest pairs once the schedule is done; returns how many. */
int mx_session_retest(struct mx_session *s, const struct fc_mx_analysis *an);
/* The same with rails: each suspect rail's bad pairs against nodes that
 * pass on that rail, on that rail alone. */
struct mx_model;
int mx_session_retest_rails(struct mx_session *s, const struct mx_model *m);
/* Once per run this process measured pairs of, with or without --retest:
 * each link the history flags
 * (matrix/mx_history.h, at its defaults) measured again, in the direction
 * measured, on its rail; the latest reading is the one judged. A night's
 * single dip (a loaded host, a reroute) is not a trend: `make
 * bench-history` shows the false flags at 4.85% of healthy link-nights
 * with one reading and 0.24% with this, a step to 75% still caught on its
 * night. Returns how many were queued. */
int mx_session_retest_history(struct mx_session *s, const struct mx_model *m);
void mx_session_close(struct mx_session *s);

#endif
