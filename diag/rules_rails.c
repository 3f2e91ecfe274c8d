/*
 * The row over a whole pair --rails test (see the table in diag/rules.c):
 * every rail of the pair slow with all rails loaded (rule rails_slow).
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/softdev.h"
#include "diag/rules.h"

/* pair --rails (pair/pair_rails.c): "rails": [{rail, a, b, alone_gbps,
 * loaded_gbps, host_limited, verdict}]. Rails of hardware HCAs that pass
 * alone and fall short together point at the host path they share (its
 * PCIe switch, root complex, NUMA placement), every rail so: likely. A rail
 * of software devices (core/softdev.h: rxe, siw) shares its node's CPU by
 * design, not a PCIe path: never named here (pair says it as a note,
 * pair/pair_loaded.c; a document recorded before that model marked such
 * rails host_limited). */
void diag_r_rails_slow(struct diag_ctx *c)
{
	const json_t *rails = json_object_get(c->test, "rails"), *r;
	char ev[600] = "", subj[300];
	size_t i, host = 0, used;

	json_array_foreach(rails, i, r) {
		if (!json_is_true(json_object_get(r, "host_limited")) ||
		    fc_rdma_soft_side(json_object_get(r, "a")) ||
		    fc_rdma_soft_side(json_object_get(r, "b")))
			continue;
		host++;
		used = strlen(ev);
		snprintf(ev + used, sizeof(ev) - used, "%srail %d %.3g Gb/s alone, %.3g with every rail loaded",
			 used ? "; " : "", (int)fc_jnum(r, "rail", 0), fc_jnum(r, "alone_gbps", 0),
			 fc_jnum(r, "loaded_gbps", 0));
	}
	if (json_array_size(rails) < 2 || !host)
		return;
	snprintf(subj, sizeof(subj), "%s <-> %s, every rail loaded",
		 fc_jstr(json_object_get(c->test, "a"), "node", "?"),
		 fc_jstr(json_object_get(c->test, "b"), "node", "?"));
	diag_emit(c, "rails_slow", subj, "host PCIe", host == json_array_size(rails),
		  "compare each HCA's PCIe link under load (lspci -vv LnkSta) and the switch and root ports they share, and the NUMA placement of the workers; each rail alone passes",
		  ev);
}
