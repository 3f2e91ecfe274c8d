/*
 * fabcheck nccl run: busbw against what the rails can carry (the model is
 * busbw_rails of core/busbw.h; doc/nccl-run.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/nccl/run/nccl_run.h"
#include "checks/nccl/log/nccllog.h"
#include "core/out.h"
#include "store/store.h"

static double peak_busbw(const json_t *doc)
{
	double peak = 0;
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(doc, "results"), i, e)
		if (fc_jnum(e, "busbw_gbytes_s", 0) > peak)
			peak = fc_jnum(e, "busbw_gbytes_s", 0);
	return peak;
}

void ncr_rails_report(struct ncr_state *s)
{
	const struct ncr_cfg *cfg = s->cfg;
	struct ncl_busbw_in in = {
		.hcas = json_object_get(json_object_get(s->doc, "nccl_log"), "hcas"),
		.channels = json_object_get(json_object_get(s->doc, "nccl_log"), "channels"),
		.rail_gbps = cfg->rail_gbps, .nnodes = cfg->nnodes,
		.gpus_per_node = cfg->gpus_per_node, .nccl_algo = cfg->nccl_algo,
		.measured = peak_busbw(s->doc), .measured_as = "peak busbw",
	};

	ncl_intra_judge(s->doc, s->n ? fc_jstr(s->r[0].setup, "gpu_name", "") : "", cfg->nnodes,
			cfg->gpus_per_node, in.measured, "peak busbw");
	ncl_busbw_judge(s->doc, &in);
}

void ncr_store_record(struct ncr_state *s)
{
	struct fc_store *st;
	json_t *p;
	int64_t run;

	if (!s->cfg->db)
		return;
	if (!(st = fc_store_open(s->cfg->db))) {
		fc_finding(s->doc, FC_WARN, "--db %s: the run is not recorded (see above)",
			   s->cfg->db);
		return;
	}
	p = json_pack("{s:i, s:i, s:f, s:O?}", "nodes", s->cfg->nnodes, "gpus_per_node",
		      s->cfg->gpus_per_node, "peak_busbw_gbytes_s", peak_busbw(s->doc), "rails",
		      json_object_get(s->doc, "rails"));
	run = fc_store_run_begin(st, "nccl", p);
	if (run <= 0 || fc_store_run_end(st, run, "done"))
		fc_finding(s->doc, FC_WARN, "--db %s: the run could not be recorded", s->cfg->db);
	else
		json_object_set_new(s->doc, "stored_run", json_integer(run));
	json_decref(p);
	fc_store_close(st);
}

void ncr_rails_render(FILE *f, const json_t *doc)
{
	ncl_busbw_render(f, doc);
}
