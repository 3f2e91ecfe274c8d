/* Inside matrix/mx_pattern*.c: reading a pattern run's stored flows. */
#ifndef FC_MX_PATTERN_INT_H
#define FC_MX_PATTERN_INT_H

#include <jansson.h>
#include <stdint.h>

#include "core/lossrate.h"
#include "store/store.h"

/* Each flow's write rate in @g (its largest size, every rail together),
 * over the round's common window when every flow stored a byte curve
 * (pair --sync-fd), else each flow's own test; @rd's "window" says which. */
void mx_round_rates(const json_t *flows, double *g, json_t *rd);
/* The payload ceiling of side @ab ("a" or "b") of flow @d, every rail
 * together; *@what: "payload ceiling" or "port rate". */
double mx_side_ceiling(const json_t *d, const char *ab, const char **what);
/* Adds @d's congestion counters to @acc, the largest delta per (node,
 * counter): a round's flows read the same ports over overlapping windows. */
void mx_flow_counters(json_t *acc, const json_t *d);
/* The counters of @acc that moved ({node: {name: delta}}), summed by class
 * into @sum, and the receive drops on @receiver's port into *@rx_drop. */
json_t *mx_counters_sum(json_t *acc, const char *receiver, double *sum, double *rx_drop);

/* The pairs a pattern run @run's flows (@rounds: {round: [documents]}) are
 * held against (mx_pattern_pairs.c): the store's latest pair run before it,
 * its pairs between the same ports; their loss in *@loss, and the summary
 * kept as the pattern's "pairs_run" ({run, pairs, packets, retransmissions
 * started, retransmissions, drops, clean: null when no pair of it is on
 * those ports}). NULL (*@loss zero) when the store has no pair run. */
json_t *mx_pattern_pairs(struct fc_store *st, int64_t run, const json_t *rounds,
			 struct fc_loss *loss);

#endif
