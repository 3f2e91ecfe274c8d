/*
 * The switch each InfiniBand port reaches: the NodeInfo of its neighbour,
 * read over umad by infiniband-diags' smpquery (direct route 0,PORT), for
 * `fabcheck devices --json` and the rail matching (core/rail.h).
 */
#ifndef FC_CTL_IBPEER_H
#define FC_CTL_IBPEER_H

#include <jansson.h>

/*
 * Adds "switch_guid" to each ACTIVE InfiniBand port of @devices whose
 * neighbour is a switch ("peer_type" otherwise, e.g. a cable straight to
 * another HCA). Where smpquery is missing, refused (no umad access, not
 * root) or silent within its deadline, the first failure goes into @doc's
 * "switch_note", once, and no other port is asked.
 */
void fc_ib_switches_add(json_t *devices, json_t *doc);
/* The same with smpquery's answers from @s (live, recorded or replayed). */
struct fc_src;
void fc_ib_switches_add_src(struct fc_src *s, json_t *devices, json_t *doc);

#endif
