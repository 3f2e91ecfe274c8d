/*
 * fabcheck diagnose: the command (diag/cmd_diagnose.c) given the reader of
 * the rack's rail set for --rails-from: the nodes' captures read and their
 * rails matched as `preflight --from` reads and matches them (pf_from.c,
 * pf_rails.c, core/rail.h), so that the comparisons over every folder take
 * each port's peers on its rail (diag/peerport.c). Here, above diag/, as
 * the layering asks (scripts/layers.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/log.h"
#include "core/out.h"
#include "diag/diag.h"
#include "src/cmds.h"

/* A probe reads nothing live from a capture: its commands' time bound is
 * not used. */
#define DG_REPLAY_TIMEOUT 10.0

static json_t *rails_read(char *const *paths, int n)
{
	json_t *nodes = pf_nodes_from(paths, n, DG_REPLAY_TIMEOUT), *e, *set = NULL, *doc;
	const char **names = calloc((size_t)n + 1, sizeof(*names));
	const json_t **probes = calloc((size_t)n + 1, sizeof(*probes));
	size_t i;
	int bad = 0;

	json_array_foreach(nodes, i, e) {
		bad |= !json_object_get(e, "probe"); /* pf_nodes_from said why */
		if (names && probes) {
			names[i] = fc_jstr(e, "node", "?");
			probes[i] = json_object_get(e, "probe");
		}
	}
	if (!bad && names && probes) {
		doc = fc_doc_new(); /* the rail findings are preflight's to give */
		set = json_object();
		pf_check_rails(doc, names, probes, n, NULL, set);
		json_object_set_new(set, "captures", json_array());
		for (int k = 0; k < n; k++)
			json_array_append_new(json_object_get(set, "captures"), json_string(names[k]));
		json_decref(doc);
	} else if (bad) {
		fc_err("diagnose --rails-from: every capture must be read to match the rails: give "
		       "'fabcheck capture' folders or .tar.gz files of the rack's nodes");
	}
	free(names);
	free(probes);
	json_decref(nodes);
	return set;
}

int cmd_diagnose(struct fc_ctx *ctx, int argc, char **argv)
{
	return diag_cmd(ctx, argc, argv, rails_read);
}
