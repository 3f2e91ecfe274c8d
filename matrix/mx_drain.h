/*
 * What a matrix or soak document names, as the nodes to drain in Slurm and
 * the nodes that passed (ctl/drain.h): pure, documents in, lists out.
 */
#ifndef FC_MX_DRAIN_H
#define FC_MX_DRAIN_H

#include <jansson.h>
#include <stdint.h>

#include "ctl/drain.h"

/* A matrix document: each suspect of level node ("node") or port ("port"
 * on its device) is a target, named by the part its diagnosis calls
 * "likely" (on the node's own device) when it is one of the node's; links
 * and rails drain nothing. Each target was found by comparing the nodes
 * checked ("across"). A node passed when its state is "pass", none of its
 * pairs errored and no suspect names it (a rail bad as a whole changes
 * that for none: mx_drain_unseen says which drains such a run can clear).
 * A node none of whose pairs could run is "unchecked". */
void mx_drain_targets(const json_t *doc, json_t *targets, json_t *passed);
/* ctl/drain.h's unseen for the matrix document @arg: why this run could
 * not have seen the drain on @node's @device ("": the whole node), or
 * NULL. A port drain is seen again when its rail's own analysis held the
 * node against its peers on it (a rail only slower than the best rail
 * included: "nodes_judged"); not on a rail bad as a whole whose nodes
 * could not be told apart, nor a whole node's drain while any rail is. */
const char *mx_drain_unseen(const char *node, const char *part, const char *device, int across,
			    const void *arg);
/* A soak document over @nodes: each suspect (matrix/soak_suspects.c)
 * whose diagnosis is "likely" and names a part of one of its nodes drains
 * that node with the part; a node whose link flapped drains ("link flap"
 * when no diagnosis names a part). A node none of whose slices could run
 * (matrix/soak.c "unrun_slices", store.h fc_pair_end_judged) is listed as
 * not checked, never a target nor passed; the others no suspect names
 * passed (into @passed, NULL: none). */
void mx_drain_soak_targets(const json_t *doc, char *const *nodes, int n, json_t *targets,
			   json_t *passed);
/* The drains of a finished run (when @o asks): none when the run could
 * not measure (@measured 0, fewer than two nodes checked): a finding says so. Returns the commands that
 * failed. */
int mx_drain_run(json_t *doc, struct fc_store *st, int64_t run, const char *kind,
		 const struct fc_drain_opts *o, const json_t *targets, const json_t *passed,
		 int measured);

#endif
