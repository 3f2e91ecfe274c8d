/*
 * The all_reduce busbw to expect inside one node, over NVLink and NVSwitch,
 * for the 8-GPU servers whose nccl-tests figure has been published; stated
 * for every job of such GPUs, judged against nccl-tests' peak when the job
 * runs on one node (the network is then not on the path).
 *
 * Figures (all_reduce_perf, large sizes, busbw):
 *   8 x H100 SXM (NVLink 4, NVSwitch): 460 - 480 GB/s. Source: Alaya NeW,
 *     "NCCL-tests in practice - the mandatory pre-launch health check"
 *     (docs.alayanew.com/en/docs/tech-blog/2026-05-06-nccl-tests), its
 *     reference table "8xH100 SXM5 NVLink-only 460-480", read at large sizes
 *     with ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8; the same page
 *     calls more than 20% below it a fault, NCL_BUSBW_FLOOR's 80%.
 *   8 x H200 SXM: the same NVLink 4 at 900 GB/s per GPU through the same
 *     NVSwitch generation (NVIDIA H200 Tensor Core GPU datasheet), so the
 *     H100 SXM figure.
 *   8 x B200: no published nccl-tests figure was found: not stated.
 * PCIe and NVL cards ("H100 PCIe", "H100 NVL", "H200 NVL") have no NVSwitch
 * and no figure here.
 */
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "checks/nccl/log/nccllog_int.h"
#include "core/out.h"

#define INTRA_GPUS 8
#define INTRA_SRC "Alaya NeW tech blog 2026-05-06 'NCCL-tests in practice', 8xH100 SXM5 NVLink-only 460-480 GB/s"

struct intra_fig {
	const char *gpu; /* in the name nvidia-smi / CUDA gives */
	double lo, hi;	 /* GB/s; 0: none published */
};

static const struct intra_fig figs[] = {
	{ "H100", 460, 480 },
	{ "H200", 460, 480 },
	{ "B200", 0, 0 },
};

static const struct intra_fig *fig_of(const char *name)
{
	if (!name[0] || strstr(name, "PCIe") || strstr(name, "NVL"))
		return NULL;
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++)
		if (strstr(name, figs[i].gpu))
			return &figs[i];
	return NULL;
}

void ncl_intra_judge(json_t *doc, const char *gpu, int nodes, int gpn, double peak,
		     const char *measured_as)
{
	const struct intra_fig *f = fig_of(gpu ? gpu : "");
	double got = nodes == 1 ? peak : 0, share;
	json_t *o;

	if (!f || gpn != INTRA_GPUS)
		return;
	o = json_pack("{s:s, s:i, s:s}", "gpu", gpu, "gpus", gpn, "path",
		      "NVLink/NVSwitch");
	json_object_set_new(doc, "intra_node", o);
	if (!(f->lo > 0)) {
		json_object_set_new(o, "why_none", json_string("no published nccl-tests figure"));
		return;
	}
	share = got > 0 ? got / f->lo : 0;
	json_object_set_new(o, "expected_busbw_gbytes_s", json_real(f->lo));
	json_object_set_new(o, "published_high_gbytes_s", json_real(f->hi));
	json_object_set_new(o, "source", json_string(INTRA_SRC));
	if (got > 0) {
		json_object_set_new(o, "measured_busbw_gbytes_s", json_real(got));
		json_object_set_new(o, "share", json_real(share));
	}
	if (share > 0 && share < NCL_BUSBW_FLOOR)
		fc_finding(doc, FC_WARN,
			   "%s %.1f GB/s on one node is %.0f%% of the %.0f-%.0f GB/s published for %d x %s over NVLink: check NVLink (nvidia-smi nvlink -s), NCCL_P2P_DISABLE and NCCL_NVLS_ENABLE",
			   measured_as, got, 100 * share, f->lo, f->hi, gpn, gpu);
}

void ncl_intra_report(const struct ncl_log *lg, int nodes, int gpn, json_t *doc)
{
	ncl_intra_judge(doc, lg->tests_gpu, nodes, gpn, lg->tests_peak_busbw,
			"nccl-tests' peak busbw");
}

void ncl_intra_render(FILE *f, const json_t *doc)
{
	const json_t *o = json_object_get(doc, "intra_node");

	if (!o)
		return;
	if (fc_jnum(o, "expected_busbw_gbytes_s", 0) > 0)
		fprintf(f, "  inside a node: %d x %s over NVLink/NVSwitch, ~%.0f-%.0f GB/s all_reduce busbw (published nccl-tests figure)%s",
			(int)fc_jnum(o, "gpus", 0), fc_jstr(o, "gpu", "?"),
			fc_jnum(o, "expected_busbw_gbytes_s", 0), fc_jnum(o, "published_high_gbytes_s", 0),
			fc_jnum(o, "share", 0) > 0 ? "" : "\n");
	else
		fprintf(f, "  inside a node: %d x %s over NVLink/NVSwitch: not known (%s)\n",
			(int)fc_jnum(o, "gpus", 0), fc_jstr(o, "gpu", "?"), fc_jstr(o, "why_none", "?"));
	if (fc_jnum(o, "share", 0) > 0)
		fprintf(f, "; measured %.0f, %.0f%%\n", fc_jnum(o, "measured_busbw_gbytes_s", 0),
			100 * fc_jnum(o, "share", 0));
}
