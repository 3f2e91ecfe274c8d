/*
 * The switch each InfiniBand port reaches: the NodeInfo of its neighbour,
 * read over umad by infiniband-diags' smpquery (direct route 0,PORT), for
 * `fabcheck devices --json` and the rail matching (core/rail.h).
 */
#ifndef FC_CTL_IBPEER_H
#define FC_CTL_IBPEER_H

#include <jansson.h>

/*
 * Asks the neighbour of each ACTIVE InfiniBand port of @devices and keeps
 * the outcome on the port: "switch_guid" (and "switch_desc") where it is a
 * switch, "peer_type" otherwise (e.g. a cable straight to another HCA),
 * "peer_port" (the neighbour's port the query came in on), or
 * "switch_error" (why not read). A port's own failure (smpquery refused or
 * no NodeInfo: no umad access to that HCA, a MAD that failed) does not stop
 * the next port's question; a failure of the node's (smpquery missing, not
 * executable, or silent within its deadline) does: each later port gets
 * "switch_error" "not asked: ..." (and, when capturing, a not_read entry).
 * @doc's "switch_note" counts the ports not read and names the first reason.
 */
void fc_ib_switches_add(json_t *devices, json_t *doc);
/* The same with smpquery's answers from @s (live, recorded or replayed). */
struct fc_src;
void fc_ib_switches_add_src(struct fc_src *s, json_t *devices, json_t *doc);

#endif
