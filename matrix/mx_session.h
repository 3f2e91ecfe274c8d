/*
 * A matrix run being made: the store, the run (new or resumed), its nodes
 * and pair options, and the runner. Used by `matrix` and by `tui NODE...`.
 */
#ifndef FC_MX_SESSION_H
#define FC_MX_SESSION_H

#include "matrix/mx_cli.h"
#include "matrix/mx_run.h"
#include "matrix/mxan.h"

struct mx_session {
	struct fc_store *st;
	int64_t run;
	json_t *params; /* the run's stored parameters */
	json_t *pair_args; /* checked: the stored ones, on resume with the
			    * command line's launch options */
	char **names;	/* from params */
	int n;
	int both, retest;
	/* The retest rounds queued (FC_MX_RETEST_ROUNDS at most; that many
	 * for a resumed run that was retested: it is not retested again),
	 * each one's pair count and why it ran, for the run's document. */
	int retested;
	struct mx_retest_round {
		int pairs;
		char why[256];
	} rounds[FC_MX_RETEST_ROUNDS];
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
/* Queues the next --retest round once the schedule (or the last round) is
 * done, on @m analysed: round 1 retests the suspects' pairs
 * (fc_mx_retest_plan; with rails each rail's, on that rail alone,
 * fc_mxl_retest_plan); round 2 the suspects that are new after it
 * (fc_mx_retest_plan_new against the first pass's analysis), each pair's
 * document marked with its round. Returns how many were queued (0: no
 * round left, or nothing new), or -ENOMEM. */
struct mx_model;
int mx_session_retest(struct mx_session *s, const struct mx_model *m);
/* The rounds this process ran as the document's "retests" ([{round,
 * pairs, why}]), NULL when none ran. */
json_t *mx_session_retests_doc(const struct mx_session *s);
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
