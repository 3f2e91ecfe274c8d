/*
 * pair --rails --use-cuda: which GPU each rail's buffers were on, per node
 * (see pair.h). Reads the rails list the report builds; no hardware.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/out.h"
#include "pair/pair.h"

/* Side @s ("a" or "b") of rail entry @r: its GPU index, -1 when host memory. */
static int rail_gpu(const json_t *r, const char *s)
{
	const json_t *g = json_object_get(json_object_get(r, s), "gpu");

	return json_is_integer(g) ? (int)json_integer_value(g) : -1;
}

static void check_side(json_t *doc, const json_t *rails, const char *s, const char *node)
{
	size_t n = json_array_size(rails);

	for (size_t i = 0; i < n; i++) {
		const json_t *ri = json_array_get(rails, i), *si = json_object_get(ri, s);
		int g = rail_gpu(ri, s), count = (int)fc_jnum(si, "gpu_count", 0);

		for (size_t j = 0; g >= 0 && j < i; j++) {
			const json_t *rj = json_array_get(rails, j);

			if (rail_gpu(rj, s) != g)
				continue;
			if (count >= (int)n)
				fc_finding(doc, FC_WARN,
					   "%s: rails %d (%s) and %d (%s) both had their buffers on GPU %d "
					   "(%s) although the node has %d GPUs for %zu rails: their loaded "
					   "figures share one GPU's PCIe link; name each rail's GPU with "
					   "--use-cuda=N on a pair of that rail, or check the GPUs' and "
					   "HCAs' PCIe placement (fabcheck topo)",
					   node, (int)fc_jnum(rj, "rail", 0),
					   fc_jstr(json_object_get(rj, s), "device", "?"),
					   (int)fc_jnum(ri, "rail", 0), fc_jstr(si, "device", "?"), g,
					   fc_name_or_unknown(FC_NAME_BDF, fc_jstr(si, "gpu_bus_id", NULL),
							      "the worker's GPU bus id"), count, n);
			else if (count > 0)
				pair_qos_note(doc, "%s: rails %d and %d share GPU %d: the node has %d "
					      "GPU%s for %zu rails", node, (int)fc_jnum(rj, "rail", 0),
					      (int)fc_jnum(ri, "rail", 0), g, count,
					      count == 1 ? "" : "s", n);
			break;
		}
	}
}

void pair_rail_gpus_check(json_t *doc, const json_t *rails, const char *node_a,
			  const char *node_b)
{
	check_side(doc, rails, "a", node_a);
	check_side(doc, rails, "b", node_b);
}
