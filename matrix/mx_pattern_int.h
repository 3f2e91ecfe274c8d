/* Inside matrix/mx_pattern*.c: reading a pattern run's stored flows. */
#ifndef FC_MX_PATTERN_INT_H
#define FC_MX_PATTERN_INT_H

#include <jansson.h>

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

#endif
