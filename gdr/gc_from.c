/*
 * gpu-check --from BUNDLE: the GPU-to-HCA pairing of a node capture, where
 * there is no GPU to allocate on. The node is read as the live check reads
 * it (the PCIe tree under the capture's sys/, topo_load), its GPUs listed
 * in bus order (the order nvidia-smi and NCCL number them, and CUDA with
 * CUDA_DEVICE_ORDER=PCI_BUS_ID), and the GPU, its HCA and their distance
 * chosen and judged by the calls the live check makes (gdr_gpu_distances,
 * gdr_gpu_pick, gdr_nearest_hca, gdr_gpu_findings). No copy, no
 * registration: those need the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle.h"
#include "core/log.h"
#include "core/out.h"
#include "gdr/gdr.h"

/* The capture's GPUs as the live list gives them (index, bus id, name). */
static struct gdr_gpu_info *capture_gpus(const struct topo *t, int *n_p)
{
	struct gdr_gpu_info *g = calloc((size_t)t->ngpus + 1, sizeof(*g));

	for (int i = 0; g && i < t->ngpus; i++) {
		g[i].index = i;
		snprintf(g[i].bus_id, sizeof(g[i].bus_id), "%s", topo_gpu(t, i)->bdf);
		snprintf(g[i].name, sizeof(g[i].name), "%s", topo_gpu(t, i)->name);
		g[i].cc = 0;
		g[i].flush_opts = g[i].wr_order = -1;
	}
	*n_p = t->ngpus;
	return g;
}

/* Picks the GPU of @req and its HCA (@hca_opt, else for --gpu the HCA NCCL
 * gives it, else the topology's first) into @doc; 0, or -1 said. */
static int pair(json_t *doc, const struct topo *t, const struct gdr_gpu_req *req,
		const char *hca_opt, const char *node)
{
	char hbuf[64], err[512], vbuf[128];
	const char *hca = hca_opt;
	struct gdr_gpu_info *g;
	int n, pos;

	if (!(g = capture_gpus(t, &n)))
		return -1;
	if (!hca && req->how == GDR_GPU_NEAREST && topo_nic(t, 0))
		hca = snprintf(hbuf, sizeof(hbuf), "%s", topo_nic(t, 0)->name) > 0 ? hbuf : NULL;
	gdr_gpu_distances(g, n, t, hca);
	pos = gdr_gpu_pick(g, n, req, err, sizeof(err));
	if (pos < 0) {
		fc_err("gpu-check --from: %s", err);
		free(g);
		return -1;
	}
	if (!hca && !gdr_nearest_hca(t, g[pos].bus_id, hbuf, sizeof(hbuf)))
		hca = hbuf;
	gdr_gpu_distances(g + pos, 1, t, hca);
	json_object_set_new(doc, "gpu", json_pack("{s:i, s:s, s:s, s:s?, s:s?}", "index", g[pos].index,
						  "bus_id", g[pos].bus_id, "distance",
						  topo_dist_name(g[pos].dist), "hca", hca, "nccl_nic",
						  gdr_nccl_nic(t, g[pos].bus_id, vbuf, sizeof(vbuf))));
	gdr_gpu_findings(doc, node, &g[pos], hca);
	free(g);
	return 0;
}

static void render(FILE *f, const json_t *doc)
{
	const json_t *g = json_object_get(doc, "gpu");
	char note[192];

	fprintf(f, "%s: GPU %d (%s) and %s%s: %s\n(%s)\n\n", fc_jstr(doc, "node", "?"),
		(int)fc_jnum(g, "index", -1), fc_jstr(g, "bus_id", "?"), fc_jstr(g, "hca", "no HCA"),
		gdr_vnic_note(g, note, sizeof(note)), fc_jstr(g, "distance", "?"),
		fc_jstr(doc, "checked", ""));
}

int gdr_check_from(struct fc_ctx *ctx, const char *from, const struct gdr_gpu_req *req,
		   const char *hca)
{
	char err[1024], sys[4096];
	struct fc_bundle *b = fc_bundle_open(from, err, sizeof(err));
	struct topo *t = NULL;
	json_t *doc;
	int rc;

	if (!b) {
		fc_err("--from %s", err);
		return FC_EXIT_CANT;
	}
	if (topo_load(fc_bundle_path(b, "sys", sys, sizeof(sys)), &t)) {
		fc_bundle_close(b);
		return FC_EXIT_CANT;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "node", json_string(fc_bundle_str(b, "host", "?")));
	json_object_set_new(doc, "from", json_string(from));
	json_object_set_new(doc, "checked", json_string("the pairing only: a capture holds no GPU "
							"to copy to or register"));
	rc = pair(doc, t, req, hca, fc_bundle_str(b, "host", "?"));
	topo_free(t);
	fc_bundle_close(b);
	if (rc) {
		json_decref(doc);
		return FC_EXIT_CANT;
	}
	return fc_emit(ctx, doc, render);
}
