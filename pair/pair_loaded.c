/*
 * pair --rails: a rail that passes alone and falls short with every rail
 * loaded (below --min-loaded-pct of its alone figure), judged by a model of
 * what the rails share on each node, which depends on the device
 * (core/softdev.h):
 * - a hardware HCA moves data itself, over its own PCIe link to memory: the
 *   rails share the host path (a PCIe switch or root port, NUMA placement,
 *   memory bandwidth). Falling short there is the host's fault: the rail
 *   fails ("host_limited"; diag rule rails_slow names host PCIe).
 * - a software device (rxe, siw) does the HCA's work on its node's CPU, so
 *   every rail of the node shares that CPU by design: a limit of the device
 *   class, not a fault. Said once for the pair, as a note, the verdict
 *   unchanged ("cpu_limited").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/softdev.h"
#include "core/util.h"
#include "pair/pair.h"

int pair_loaded_judge(json_t *doc, json_t *rail, const char *alone_verdict, double min_pct,
		      int nrails)
{
	double alone = fc_jnum(rail, "alone_gbps", NAN), loaded = fc_jnum(rail, "loaded_gbps", NAN);
	int soft = fc_rdma_soft_side(json_object_get(rail, "a")) ||
		   fc_rdma_soft_side(json_object_get(rail, "b"));

	if (!alone_verdict || !strcmp(alone_verdict, "fail") || !(alone > 0) || !isfinite(loaded) ||
	    min_pct <= 0 || loaded >= alone * min_pct / 100)
		return PAIR_LOADED_OK;
	if (soft) {
		json_object_set_new(rail, "cpu_limited", json_true());
		return PAIR_LOADED_CPU;
	}
	fc_finding(doc, FC_FAIL,
		   "rail %d (%s): %.3g Gb/s alone but %.3g Gb/s (%.0f%%) with all %d rails loaded, "
		   "below --min-loaded-pct %g: the host cannot carry every rail at once (a shared "
		   "PCIe switch, NUMA placement, CPU or memory bandwidth), not the link",
		   (int)fc_jnum(rail, "rail", 0), fc_jstr(rail, "name", "?"), alone, loaded,
		   100 * loaded / alone, nrails, min_pct);
	json_object_set_new(rail, "host_limited", json_true());
	json_object_set_new(rail, "verdict", json_string("fail"));
	return PAIR_LOADED_HOST;
}

void pair_loaded_note(json_t *doc)
{
	const json_t *rails = json_object_get(doc, "rails"), *r;
	char text[1024] = "";
	size_t i, used;

	json_array_foreach(rails, i, r) {
		if (!json_is_true(json_object_get(r, "cpu_limited")))
			continue;
		used = strlen(text);
		snprintf(text + used, sizeof(text) - used, "%srail %d (%s) %.3g Gb/s (%.0f%% of %.3g alone)",
			 used ? ", " : "", (int)fc_jnum(r, "rail", 0), fc_jstr(r, "name", "?"),
			 fc_jnum(r, "loaded_gbps", 0),
			 100 * fc_jnum(r, "loaded_gbps", 0) / fc_jnum(r, "alone_gbps", 1),
			 fc_jnum(r, "alone_gbps", 0));
	}
	if (!*text)
		return;
	pair_qos_note(doc, "all %zu rails loaded, %s: " PAIR_CPU_SHARED
		      ": a limit of the device class, not a fault", json_array_size(rails), text);
	/* the text says it once, under the rails table whose figures it
	 * repeats (pair_rails_table); --json keeps it among the notes */
	json_object_set(doc, "rails_cpu_note",
			json_array_get(json_object_get(doc, "notes"),
				       json_array_size(json_object_get(doc, "notes")) - 1));
}
