/*
 * The smallest PCIe payload ceiling on a port's path (diag.h): the HCA's
 * link as trained, and with GPU memory the GPU's link at its trained width
 * and its maximum speed (a GPU lowers its link speed when idle, so the
 * speed read before a test says nothing of the speed during it). Bridges
 * are left to the bridge rule: their links carry the same traffic as the
 * device below them and their speed follows it.
 */
#include <string.h>

#include "diag/diag.h"

static double element_gbps(const struct diag_pcie *d, int gpu)
{
	double gts = gpu && d->max_gts > d->cur_gts ? d->max_gts : d->cur_gts;

	return diag_pcie_gbps(gts, d->cur_width, d->mps);
}

static int downtrained(const struct diag_pcie *d, int gpu)
{
	return (d->max_width > 0 && d->cur_width > 0 && d->cur_width < d->max_width) ||
	       (!gpu && d->max_gts > 0 && d->cur_gts > 0 && d->cur_gts < d->max_gts);
}

json_t *diag_path_ceiling_json(const struct diag_port *p)
{
	const struct diag_pcie *best = NULL;
	double best_gbps = 0;
	int gpu;

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];
		int is_gpu = !strcmp(d->role, "gpu");
		double g;

		if (!is_gpu && strcmp(d->role, "hca"))
			continue;
		g = element_gbps(d, is_gpu);
		if (g > 0 && (!best || g < best_gbps)) {
			best = d;
			best_gbps = g;
		}
	}
	if (!best)
		return NULL;
	gpu = !strcmp(best->role, "gpu");

	return json_pack("{s:f, s:s, s:s, s:f, s:i, s:f, s:i, s:i, s:b, s:s}", "gbps", best_gbps,
			 "role", best->role, "bdf", best->bdf, "gts",
			 gpu && best->max_gts > best->cur_gts ? best->max_gts : best->cur_gts,
			 "width", best->cur_width, "max_gts", best->max_gts, "max_width",
			 best->max_width, "max_payload_bytes", best->mps > 0 ? best->mps : 256,
			 "downtrained", downtrained(best, gpu), "basis",
			 gpu ? "the GPU's trained width at its maximum speed (a GPU lowers its link speed when idle)" :
			       "the HCA's link as trained");
}
