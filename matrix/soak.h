/*
 * Soak analysis: the slices of a soak (each a `pair -b -D T --json` document
 * of one pair, with its wall-clock start and end) turned into per-pair
 * bandwidth series, drops below a share of the pair's own median, link
 * flaps per node (link_downed and netdev carrier changes between and within
 * slices, and slices that failed), and error counter totals per node. Every
 * event has its wall-clock time and its seconds since the soak began.
 * Pure: jansson and libc only; tested on recorded slices.
 */
#ifndef FC_SOAK_H
#define FC_SOAK_H

#include <jansson.h>

struct fc_soak_opts {
	double drop_pct; /* a sample below this % of its series' median is a drop */
	double t0;	 /* unix time the soak began */
};

/*
 * @slices: an array of {"a": A, "b": B, "start": UNIX, "end": UNIX, "doc": PAIR_DOC}
 * in the order they finished. Adds to @doc: "pairs" (per pair: slices,
 * failed slices, median and minimum per direction, samples as [t, gbps]),
 * "nodes" (per node: counter totals, flaps), "events" (in time order) and
 * one finding per event (flaps and failed slices and drops: fail; error
 * counters: warn). Returns the number of slices that produced samples.
 */
int fc_soak_analyze(json_t *doc, const json_t *slices, const struct fc_soak_opts *o);

/*
 * The soak's "suspects" (matrix/soak_suspects.c), from the "pairs", "nodes"
 * and "events" fc_soak_analyze wrote: a link per pair with failed slices or
 * drops, a node (with rails a port: node and device) per node with flaps or
 * error counters, each with "level", "reason" and the "diagnosis" of its
 * worst slice that has one (mx_diag_entry). fc_soak_analyze calls it.
 */
void fc_soak_suspects(json_t *doc, const json_t *slices);
/* The node slice @s's worker named as its own fault ("node_fault" of its
 * document, pair/pair_msg.c: that node's RDMA device, port or rail could
 * not be set up or connected; NODE/RAIL with rails), or NULL. Such a
 * slice is no evidence against its link: its node is a suspect of its own
 * (a port with rails), "its own device", where some slice of the soak
 * measured (a device that worked: else each failure cannot be told from
 * the soak's options or the rack's setup, and nothing is named). */
const char *fc_soak_own_fault(const json_t *s);

/* "16:04:05 (+35 s)" for @t, relative to @t0, into @buf. */
const char *fc_soak_when(double t, double t0, char *buf, size_t len);

#endif
