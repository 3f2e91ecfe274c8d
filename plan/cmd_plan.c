/* fabcheck plan: communication arithmetic for fabric and parallelism. */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/out.h"
#include "plan/zero.h"
#include "core/util.h"
#include "src/cmds.h"

const char usage_plan[] =
	"usage: fabcheck plan --params N --gpus G [options]\n"
	"\n"
	"Per-step traffic of data-parallel training and its time on the usual\n"
	"fabrics: which fabric makes communication the bottleneck.\n"
	"\n"
	"  -p, --params N          model parameters: 70B, 1.3T, 350M (K M B T = 1e3..1e12)\n"
	"  -b, --bytes-per-param B bytes per parameter and per gradient (default 2: bf16/fp16)\n"
	"  -g, --gpus G            data-parallel GPUs\n"
	"  -n, --gpus-per-node N   GPUs per node (default 8)\n"
	"      --nics-per-node N   fabric ports per node (default: one per GPU)\n"
	"  -f, --fabric F          100gbe, 200gbe, 400gbe (RoCEv2), hdr, ndr, or all (default)\n"
	"      --gbps X            a measured per-port rate instead of a fabric\n"
	"      --lat-us X          per-hop latency with --gbps (default 2)\n"
	"      --efficiency E      share of the line rate NCCL reaches (default 1.0)\n"
	"  -s, --strategy S        ddp, zero1, zero2, zero3 or all (default)\n"
	"  -c, --compute-ms T      compute time per step: how much overlap can hide\n"
	"      --overlap F         share of compute communication may overlap (default 1.0)\n"
	"      --collectives K     collective calls per pass (buckets, layers; default 1):\n"
	"                          multiplies the latency term\n"
	"  -j, --json              one JSON document on stdout\n"
	"\n"
	"Formulas (model M = params x bytes per param, n GPUs, ring collectives):\n"
	"  DDP           all-reduce of gradients: 2(n-1)/n x M sent per GPU per step\n"
	"  ZeRO-1, -2    reduce-scatter of gradients + all-gather of parameters:\n"
	"                (n-1)/n x M each, 2(n-1)/n x M in all (as DDP)\n"
	"  ZeRO-3        all-gather of parameters before forward and before backward\n"
	"                + reduce-scatter of gradients: 3(n-1)/n x M (about 2 x M by\n"
	"                all-gather: 70B params in 16 bit = 140 GB per all-gather pass)\n"
	"  time          t = bytes x factor / busbw + steps x latency, with the\n"
	"                nccl-tests factors busbw = algbw x 2(n-1)/n (all-reduce),\n"
	"                x (n-1)/n (all-gather, reduce-scatter); steps 2(n-1) or n-1\n"
	"  busbw per GPU link rate / 8 x NICs per node / GPUs per node x efficiency\n"
	"  exposed       max(0, communication - overlap x compute)\n"
	"\n"
	"Exit: 0 (1 never: this is arithmetic; warnings when the chosen fabric\n"
	"makes communication the bottleneck), 2 usage error.\n";

struct plan_args {
	double params, bpp, gbps, lat_us, eff, compute_ms, overlap;
	int gpus, gpn, nics, collectives, strategy; /* strategy -1 = all */
	const struct plan_fabric *fabric;	      /* NULL = all */
};

static int parse_strategy(void *dst, const char *s, const struct fc_opt *o)
{
	struct plan_args *a = dst;

	(void)o;
	if (!strcmp(s, "all")) {
		a->strategy = -1;
		return 0;
	}
	for (int i = 0; i < PLAN_NSTRAT; i++)
		if (!strcmp(s, plan_strategy_name(i))) {
			a->strategy = i;
			return 0;
		}
	fc_err("--strategy: '%s' is not a strategy; expected ddp, zero1, zero2, zero3 or all", s);
	return -1;
}

static int parse_fabric(void *dst, const char *s, const struct fc_opt *o)
{
	struct plan_args *a = dst;

	(void)o;
	if (!strcmp(s, "all"))
		a->fabric = NULL;
	else if (!(a->fabric = plan_fabric_find(s))) {
		fc_err("--fabric: '%s' is not a fabric; expected 100gbe, 200gbe, 400gbe, hdr, ndr or all (or --gbps X)",
		       s);
		return -1;
	}
	return 0;
}

static int parse_params(void *dst, const char *s, const struct fc_opt *o)
{
	return plan_parse_count(fc_opt_what(o), s, &((struct plan_args *)dst)->params);
}

#define FC_OPT_T struct plan_args
static const struct fc_opts plan_spec = {
	.opt = (const struct fc_opt[]){
		FCO_CALL("params", 'p', parse_params, required_argument),
		FCO_DOUBLE("bytes-per-param", 'b', bpp, 0.125, 64),
		FCO_INT("gpus", 'g', gpus, 1, 1 << 20),
		FCO_INT("gpus-per-node", 'n', gpn, 1, 64),
		FCO_INT("nics-per-node", 0, nics, 1, 64),
		FCO_CALL("fabric", 'f', parse_fabric, required_argument),
		FCO_DOUBLE("gbps", 0, gbps, 0.001, 1e5),
		FCO_DOUBLE("lat-us", 0, lat_us, 0, 1e6),
		FCO_DOUBLE("efficiency", 0, eff, 0.01, 1),
		FCO_CALL("strategy", 's', parse_strategy, required_argument),
		FCO_DOUBLE("compute-ms", 'c', compute_ms, 0, 1e9),
		FCO_DOUBLE("overlap", 0, overlap, 0, 1),
		FCO_INT("collectives", 0, collectives, 1, 1 << 20),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "plan", .usage = usage_plan, .no_args = "options only (see --help)",
};

static int parse_args(int argc, char **argv, struct fc_ctx *ctx, struct plan_args *a)
{
	if (fc_opts_parse(ctx, &plan_spec, a, argc, argv))
		return -1;
	if (a->params <= 0 || a->gpus <= 0) {
		fc_err("plan: --params and --gpus are required (e.g. --params 70B --gpus 64)");
		return -1;
	}
	if (a->gpus > a->gpn && a->gpus % a->gpn) {
		fc_err("plan: --gpus %d is not a multiple of --gpus-per-node %d; give whole nodes",
		       a->gpus, a->gpn);
		return -1;
	}
	if (!a->nics)
		a->nics = a->gpn;
	return 0;
}

static json_t *fabric_json(const struct plan_args *a, const char *name, const char *desc,
			   double gbps, double lat_us, int nodes, json_t *doc)
{
	double busbw = plan_gpu_busbw(gbps, a->nics, a->gpn, a->eff);
	double model = a->params * a->bpp, compute = a->compute_ms / 1e3;
	json_t *f = json_pack("{s:s, s:s, s:f, s:f, s:f}", "name", name, "desc", desc,
			      "link_gbps", gbps, "lat_us", lat_us, "busbw_gbytes_per_s",
			      busbw / 1e9);
	json_t *res = json_array();

	for (int s = 0; s < PLAN_NSTRAT; s++) {
		double comm;
		json_t *r;

		if (a->strategy >= 0 && a->strategy != s)
			continue;
		comm = nodes > 1 ? plan_comm_time(s, model, a->gpus, busbw, lat_us * 1e-6,
						  a->collectives) : 0;
		r = json_pack("{s:s, s:f}", "strategy", plan_strategy_name(s), "comm_ms",
			      comm * 1e3);
		if (a->compute_ms > 0) {
			double exp = plan_exposed(comm, compute, a->overlap);

			json_object_set_new(r, "hidden_ms", json_real((comm - exp) * 1e3));
			json_object_set_new(r, "exposed_ms", json_real(exp * 1e3));
			json_object_set_new(r, "step_ms", json_real((compute + exp) * 1e3));
			json_object_set_new(r, "bottleneck", json_boolean(exp > 0));
			if (exp > 0 && doc)
				fc_finding(doc, FC_WARN,
					   "%s on %s: communication takes %.0f ms a step, compute %.0f ms: %.0f ms exposed (%.0f%% of the step); use a faster fabric, a larger batch per step, or fewer GPUs per model copy",
					   plan_strategy_name(s), desc, comm * 1e3, a->compute_ms,
					   exp * 1e3, 100 * exp / (compute + exp));
		}
		json_array_append_new(res, r);
	}
	json_object_set_new(f, "results", res);
	return f;
}

/* {"zero3": ["100gbe", ...]}: fabrics on which a strategy's communication
 * is not hidden by compute. */
static json_t *bottlenecks(const json_t *fabs)
{
	json_t *out = json_object(), *f, *r;
	size_t i, k;

	json_array_foreach(fabs, i, f) {
		json_array_foreach(json_object_get(f, "results"), k, r) {
			const char *s = fc_jstr(r, "strategy", "?");
			json_t *l = json_object_get(out, s);

			if (!l) {
				l = json_array();
				json_object_set_new(out, s, l);
			}
			if (json_is_true(json_object_get(r, "bottleneck")))
				json_array_append_new(l, json_string(fc_jstr(f, "name", "?")));
		}
	}
	return out;
}

static json_t *build(const struct plan_args *a)
{
	json_t *doc = fc_doc_new(), *strat = json_array(), *fabs = json_array();
	int nodes = a->gpus > a->gpn ? a->gpus / a->gpn : 1;
	double model = a->params * a->bpp;
	size_t nf;
	const struct plan_fabric *f = plan_fabrics(&nf);

	json_object_set_new(doc, "inputs",
			    json_pack("{s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:i}",
				      "params", a->params, "bytes_per_param", a->bpp,
				      "model_bytes", model, "gpus", a->gpus, "gpus_per_node",
				      a->gpn, "nodes", nodes, "nics_per_node", a->nics,
				      "efficiency", a->eff, "compute_ms", a->compute_ms,
				      "overlap", a->overlap, "collectives_per_pass",
				      a->collectives));
	for (int s = 0; s < PLAN_NSTRAT; s++) {
		struct plan_coll c[3];
		int k = plan_strategy_colls(s, c);
		char what[256] = "";
		size_t off = 0;

		if (a->strategy >= 0 && a->strategy != s)
			continue;
		for (int i = 0; i < k && off < sizeof(what); i++)
			off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s%s of %s",
						i ? " + " : "", c[i].count > 1 ? "2 x " : "",
						plan_op_name(c[i].op), c[i].what);
		json_array_append_new(strat, json_pack("{s:s, s:s, s:f}", "name",
						       plan_strategy_name(s), "collectives", what,
						       "traffic_bytes_per_gpu",
						       plan_traffic(s, model, a->gpus)));
	}
	json_object_set_new(doc, "strategies", strat);
	if (a->gbps > 0) {
		json_array_append_new(fabs, fabric_json(a, "measured", "the measured rate", a->gbps,
							a->lat_us, nodes, doc));
	} else {
		for (size_t i = 0; i < nf; i++)
			if (!a->fabric || a->fabric == &f[i])
				json_array_append_new(fabs, fabric_json(a, f[i].name, f[i].desc,
									f[i].gbps, f[i].lat_us, nodes,
									a->fabric ? doc : NULL));
	}
	json_object_set_new(doc, "fabrics", fabs);
	if (a->compute_ms > 0)
		json_object_set_new(doc, "bottleneck_fabrics", bottlenecks(fabs));
	return doc;
}

static void render(FILE *out, const json_t *doc)
{
	const json_t *in = json_object_get(doc, "inputs"), *v, *f, *r;
	int nodes = (int)fc_jnum(in, "nodes", 1), has_compute = fc_jnum(in, "compute_ms", 0) > 0;
	struct fc_table *t;
	const char *key;
	size_t i, k;

	fprintf(out, "model: %.4g billion params x %g B = %.4g GB; %d GPUs on %d node%s (%d per node, %d NICs per node)\n\n",
		fc_jnum(in, "params", 0) / 1e9, fc_jnum(in, "bytes_per_param", 0),
		fc_jnum(in, "model_bytes", 0) / 1e9, (int)fc_jnum(in, "gpus", 0), nodes,
		nodes > 1 ? "s" : "", (int)fc_jnum(in, "gpus_per_node", 0),
		(int)fc_jnum(in, "nics_per_node", 0));
	t = fc_table_new(3, "STRATEGY", "PER GPU PER STEP", "COLLECTIVES");
	json_array_foreach(json_object_get(doc, "strategies"), i, v) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%s", fc_jstr(v, "name", ""));
		fc_table_addf(t, 1, "%.1f GB", fc_jnum(v, "traffic_bytes_per_gpu", 0) / 1e9);
		fc_table_addf(t, 2, "%s", fc_jstr(v, "collectives", ""));
	}
	fc_table_print(t, out, "");
	fc_table_free(t);
	if (nodes < 2) {
		fprintf(out, "\none node: collectives stay on NVLink/PCIe; the fabric carries none of it\n");
		return;
	}
	fprintf(out, "\ncommunication per step (ring, efficiency %g%s):\n",
		fc_jnum(in, "efficiency", 1), has_compute ? "; exposed = not hidden by compute" : "");
	t = fc_table_new(6, "FABRIC", "LINK", "LATENCY", "BUSBW/GPU", "STRATEGY",
			 has_compute ? "COMM / EXPOSED" : "COMM");
	json_array_foreach(json_object_get(doc, "fabrics"), i, f) {
		json_array_foreach(json_object_get(f, "results"), k, r) {
			fc_table_row(t);
			if (k == 0) {
				fc_table_addf(t, 0, "%s", fc_jstr(f, "desc", ""));
				fc_table_addf(t, 1, "%g Gb/s", fc_jnum(f, "link_gbps", 0));
				fc_table_addf(t, 2, "%g us", fc_jnum(f, "lat_us", 0));
				fc_table_addf(t, 3, "%.1f GB/s", fc_jnum(f, "busbw_gbytes_per_s", 0));
			}
			fc_table_addf(t, 4, "%s", fc_jstr(r, "strategy", ""));
			if (has_compute)
				fc_table_addf(t, 5, "%.0f ms / %.0f ms%s", fc_jnum(r, "comm_ms", 0),
					      fc_jnum(r, "exposed_ms", 0),
					      json_is_true(json_object_get(r, "bottleneck")) ?
						      "  bottleneck" : "");
			else
				fc_table_addf(t, 5, "%.0f ms", fc_jnum(r, "comm_ms", 0));
		}
	}
	fc_table_print(t, out, "");
	fc_table_free(t);
	json_object_foreach((json_t *)json_object_get(doc, "bottleneck_fabrics"), key, v) {
		fprintf(out, "%s: communication is the bottleneck on ", key);
		if (!json_array_size(v))
			fprintf(out, "none of these fabrics\n");
		json_array_foreach(v, i, f)
			fprintf(out, "%s%s", i ? ", " : "", json_string_value(f));
		if (json_array_size(v))
			fputc('\n', out);
	}
	fprintf(out, "\nformulas: DDP 2(n-1)/n x M; ZeRO-1/2 (n-1)/n x M reduce-scatter + (n-1)/n x M all-gather;\n"
		     "ZeRO-3 2 x (n-1)/n x M all-gather + (n-1)/n x M reduce-scatter; t = bytes x factor / busbw + steps x latency\n");
}

int cmd_plan(struct fc_ctx *ctx, int argc, char **argv)
{
	struct plan_args a = { .bpp = 2, .gpn = 8, .lat_us = 2, .eff = 1, .overlap = 1,
			       .collectives = 1, .strategy = -1 };

	if (parse_args(argc, argv, ctx, &a))
		return FC_EXIT_USAGE;
	return fc_emit(ctx, build(&a), render);
}
