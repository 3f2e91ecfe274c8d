/*
 * One start signal for children that run tests together: each child writes
 * a byte on its socket when it reaches a test and waits for one back (pair
 * --sync-fd); once every child still running waits (or one has waited
 * max_wait s, the others being stuck or far slower), each waiting child
 * gets its go. Used by `pair --rails` (a pair's rails loaded at once) and
 * by `matrix --pattern` (a round's flows at once). When this process is
 * itself such a child (@up, its own --sync-fd), its children's go waits
 * for its parent's: the start signal passes down the tree.
 */
#ifndef FC_BARRIER_H
#define FC_BARRIER_H

#include "ctl/child.h"

struct fc_barrier {
	int n;
	int *fd;	/* -1: not (or no longer) taking part */
	double *since;	/* waiting since, 0: not waiting */
	double max_wait;
	int up;		/* the parent's barrier, -1: none */
	int up_asked;	/* "ready" sent up, its go not yet read */
};

/* Room for @n children, none taking part yet. 0 or -ENOMEM. */
int fc_barrier_init(struct fc_barrier *b, int n, double max_wait, int up);
/* A socket pair for child @k: its end in *child_end (to pass as --sync-fd
 * and close here once the child started), ours kept. 0 or -errno. */
int fc_barrier_pair(struct fc_barrier *b, int k, int *child_end);
/* One step: reads who waits and gives the go when all do. Children that
 * are done leave the barrier. */
void fc_barrier_step(struct fc_barrier *b, const struct fc_child *kids);
void fc_barrier_release(struct fc_barrier *b);

#endif
