/*
 * fabcheck pair's controller, inside the pair folder: the run's state
 * (pair/pair_run.c) and what its parts share: the messages with the two
 * workers (pair/pair_msg.c) and the tests (pair/pair_one.c).
 */
#ifndef FC_PAIR_RUN_INT_H
#define FC_PAIR_RUN_INT_H

#include "pair/pair.h"

struct pair_run {
	struct pair_cfg *cfg;
	struct fc_chan ch[2];
	struct fc_chan *chans[2];
	json_t *doc;
	json_t *setup[2];
	json_t *ev[2]; /* the workers' evidence (pair_ev.c) */
	size_t ev_used[2];
	int exit;
	int in_test; /* waiting for the results of a test under way */
	double deadline_at; /* --deadline as fc_now() time, 0: none */
};

/* Seconds a worker has past --timeout to send its own report of a failure
 * (verbs/test.c gives up at --timeout without a completion): each wait for
 * a message is --timeout plus this (ctl/chan.h fc_chan_recv_grace). */
#define PRUN_GRACE_S 2

/* Records an infrastructure or worker failure; returns -EIO. */
int prun_fail(struct pair_run *p, int code, const char *fmt, const char *a, const char *b);
/* A signal came (fc_stop): the run ends here; returns -EIO. */
int prun_interrupted(struct pair_run *p);
/* Waits for @type from @side's worker (its evidence kept on the way):
 * 0 and the message in *@msg_p (or dropped when @msg_p is NULL); -ETIME
 * within a test (judged by the caller); else the failure recorded. */
int prun_expect(struct pair_run *p, int side, const char *type, json_t **msg_p);
/* Sends @type to both workers (@body0 to A, @body1 to B); takes both. */
int prun_send_both(struct pair_run *p, const char *type, json_t *body0, json_t *body1);
/* Runs every test the configuration asks for, in order. */
int prun_tests(struct pair_run *p);

#endif
