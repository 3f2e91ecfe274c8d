/*
 * The judgments of a matrix run's traffic pattern (matrix --pattern), from
 * its stored flows (each pair document's "matrix": round, pattern, target):
 *  - incast: per receiver, the aggregate against its port's ceiling, Jain's
 *    fairness over the senders' shares, and the congestion counters that
 *    moved on the ports of its round, as named outcomes (core/congest.h);
 *  - fanout: per sender, its aggregate against its port's ceiling and
 *    Jain's fairness over the receivers' shares;
 *  - alltoall: per group, each node's in and out aggregates, Jain's index
 *    over what each received, and the incast's congestion outcomes;
 *  - bisection: per round, the total against the sum of the senders' ports.
 * Each round's rates are over the window all its flows ran in, when they
 * stored their byte curves (mx_pattern_flow.c).
 * Read back from the store, so `report` judges a stored run the same way.
 */
#ifndef FC_MX_PATTERN_H
#define FC_MX_PATTERN_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/pattern.h"
#include "store/store.h"

/* Sets "pattern" in @doc for @run when its flows carry one, with a finding
 * for each outcome worse than pass. Returns 0, or -errno (store). */
int mx_pattern_doc(struct fc_store *st, int64_t run, json_t *doc);
/* Each of the @n nodes' leaf on the first rail, numbered (the "leaf" of
 * its port in the run's @params rails, matrix/mx_rails.c), for a
 * bisection's halves; NULL (to free otherwise) when a node's is unknown or
 * all share one. */
int *mx_pattern_leaves(const json_t *params, const char *const *names, int n);
/* The traffic pattern run @params keep ("pattern": {name, k}, matrix/
 * mx_session.c): *@p (FC_PAT_PAIRS when none) and *@k. -EINVAL when what
 * they keep is not a pattern fabcheck wrote (the store travels). */
int mx_pattern_params(const json_t *params, enum fc_pattern *p, int *k);
/* The text of @doc's "pattern" (nothing when it has none). */
void mx_pattern_render(FILE *f, const json_t *doc);

#endif
