/* fabcheck plan: communication arithmetic for fabric and parallelism. */
#include <stdio.h>
#include <string.h>

#include "core/summary.h"
#include "core/busbw.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/out.h"
#include "plan/dsconfig.h"
#include "plan/plan_db.h"
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
	"      --efficiency E      share of the modelled busbw reached (default 1.0)\n"
	"      --db FILE           the fabric as measured: the newest of the last matrix\n"
	"                          run (per-rail medians) and the last nccl run (busbw)\n"
	"                          in that store, instead of a nominal fabric\n"
	"      --ds-config FILE    a DeepSpeed JSON config: the collectives of one step\n"
	"                          from its ZeRO stage, bucket sizes, overlap_comm and\n"
	"                          gradient_accumulation_steps (precision from fp16/bf16)\n"
	"  -s, --strategy S        ddp, zero1, zero2, zero3 or all (default)\n"
	"  -c, --compute-ms T      compute time per step: how much overlap can hide\n"
	"      --overlap F         share of compute communication may overlap (default 1.0;\n"
	"                          with --ds-config 1 if overlap_comm is true, else 0)\n"
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
	"  busbw         nccl run's model (core/busbw.h): min(NICs, GPUs) per node x\n"
	"                link rate / 8 x 0.94 (the payload NCCL delivers, nccl-tests\n"
	"                issue 290) for a ring across nodes, x efficiency\n"
	"  DeepSpeed     stage 0 all-reduce once a step (5e8-element buffers); 1 and 2\n"
	"                reduce-scatter of gradients (stage 2 every micro-batch) +\n"
	"                all-gather of parameters once a step; 3 every micro-batch two\n"
	"                all-gathers (prefetch buckets) + a reduce-scatter (reduce\n"
	"                buckets); calls add ring steps x latency each\n"
	"  exposed       max(0, communication - overlap x compute)\n"
	"\n"
	"Exit: 0 (1 never: this is arithmetic; warnings when the chosen fabric\n"
	"makes communication the bottleneck), 2 usage error.\n";

struct plan_args {
	double params, bpp, gbps, lat_us, eff, compute_ms, overlap;
	int gpus, gpn, nics, collectives, strategy; /* strategy -1 = all */
	const struct plan_fabric *fabric;	      /* NULL = all */
	const char *db, *ds_path;
	struct ds_config ds;
	struct ds_coll colls[DS_MAX_COLLS];
	int ncolls;
	struct plan_measured meas;
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
		FCO_STR("db", 0, db),
		FCO_STR("ds-config", 0, ds_path),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "plan", .usage = usage_plan, .no_args = "options only (see --help)",
};

/* --ds-config and --db: read now, so that a bad file is a usage error. */
static int parse_files(struct plan_args *a)
{
	char why[512];

	if (a->db && (a->gbps > 0 || a->fabric)) {
		fc_err("plan: --db takes the fabric from the store; leave out --fabric and --gbps");
		return -1;
	}
	if (a->ds_path) {
		if (ds_config_load(a->ds_path, &a->ds, why, sizeof(why))) {
			fc_err("--ds-config %s: %s", a->ds_path, why);
			return -1;
		}
		a->ncolls = ds_step_colls(&a->ds, a->params, a->colls);
		a->bpp = a->ds.elem_bytes;
		if (a->overlap < 0)
			a->overlap = a->ds.overlap_comm;
	}
	if (a->overlap < 0)
		a->overlap = 1;
	if (a->db && plan_db_fabric(a->db, &a->meas, why, sizeof(why))) {
		fc_err("%s", why);
		return -1;
	}
	return 0;
}

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
	return parse_files(a);
}

/* The name of strategy @s, or of the DeepSpeed config's stage. */
static const char *strat_name(const struct plan_args *a, int s)
{
	static const char *const ds[] = { "ds-zero0", "ds-zero1", "ds-zero2", "ds-zero3" };

	return a->ds_path ? ds[a->ds.stage] : plan_strategy_name(s);
}

static json_t *fabric_json(const struct plan_args *a, const char *name, const char *desc,
			   double gbps, double busbw, double lat_us, int nodes, json_t *doc)
{
	double model = a->params * a->bpp, compute = a->compute_ms / 1e3;
	json_t *f = json_pack("{s:s, s:s, s:o, s:f, s:f}", "name", name, "desc", desc,
			      "link_gbps", gbps > 0 ? json_real(gbps) : json_null(), "lat_us",
			      lat_us, "busbw_gbytes_per_s", busbw / 1e9);
	json_t *res = json_array();

	for (int s = 0; s < (a->ds_path ? 1 : PLAN_NSTRAT); s++) {
		double comm = 0;
		json_t *r;

		if (!a->ds_path && a->strategy >= 0 && a->strategy != s)
			continue;
		if (nodes > 1 && a->ds_path)
			comm = ds_step_time(a->colls, a->ncolls, a->gpus, busbw, lat_us * 1e-6);
		else if (nodes > 1)
			comm = plan_comm_time(s, model, a->gpus, busbw, lat_us * 1e-6,
					      a->collectives);
		r = json_pack("{s:s, s:f}", "strategy", strat_name(a, s), "comm_ms", comm * 1e3);
		if (a->compute_ms > 0) {
			double exp = plan_exposed(comm, compute, a->overlap);

			json_object_set_new(r, "hidden_ms", json_real((comm - exp) * 1e3));
			json_object_set_new(r, "exposed_ms", json_real(exp * 1e3));
			json_object_set_new(r, "step_ms", json_real((compute + exp) * 1e3));
			json_object_set_new(r, "bottleneck", json_boolean(exp > 0));
			if (exp > 0 && doc)
				fc_finding(doc, FC_WARN,
					   "%s on %s: communication takes %.0f ms a step, compute %.0f ms: %.0f ms exposed (%.0f%% of the step); use a faster fabric, a larger batch per step, or fewer GPUs per model copy",
					   strat_name(a, s), desc, comm * 1e3, a->compute_ms,
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

/* Bytes/s of busbw on @gbps links: core/busbw.h's model for a ring. */
static double nominal_busbw(const struct plan_args *a, double gbps, int nodes)
{
	return busbw_rails(BUSBW_ALGO_RING, a->nics, gbps, a->gpn, nodes, NULL) * 1e9 * a->eff;
}

static const char *measured_desc(const struct plan_args *a)
{
	static char d[160];
	const struct plan_measured *m = &a->meas;

	if (!strcmp(m->source, "nccl"))
		snprintf(d, sizeof(d), "nccl run %lld (%d node%s x %d GPU%s, peak busbw %.1f GB/s)",
			 (long long)m->run, m->nodes, fc_s(m->nodes), m->gpus_per_node,
			 fc_s(m->gpus_per_node), m->busbw_gbytes);
	else /* 3 significant digits: a soft-RoCE rack's 0.02 Gb/s is not 0.0 */
		snprintf(d, sizeof(d), "matrix run %lld (%d rail%s, slowest %s%s%.3g Gb/s median)",
			 (long long)m->run, m->rails, fc_s(m->rails), m->slowest,
			 m->slowest[0] ? " at " : "at ", m->rail_gbps);
	return d;
}

/* The DeepSpeed config as read and the collectives of one step. */
static json_t *ds_json(const struct plan_args *a)
{
	const struct ds_config *c = &a->ds;
	json_t *l = json_array();

	for (int i = 0; i < a->ncolls; i++)
		json_array_append_new(l, json_pack("{s:s, s:s, s:f, s:f, s:f}", "op",
						   plan_op_name(a->colls[i].op), "of",
						   a->colls[i].what, "calls_per_step",
						   a->colls[i].calls, "bytes_per_step",
						   a->colls[i].bytes, "bytes_per_call",
						   a->colls[i].bucket_bytes));
	return json_pack("[{s:s, s:s, s:i, s:s, s:f, s:f, s:f, s:b, s:i, s:o, s:f}]", "name",
			 strat_name(a, 0), "ds_config", a->ds_path, "stage", c->stage, "dtype",
			 c->dtype, "reduce_bucket_size", c->reduce_bucket, "allgather_bucket_size",
			 c->allgather_bucket, "stage3_prefetch_bucket_size", c->prefetch_bucket,
			 "overlap_comm", c->overlap_comm, "gradient_accumulation_steps", c->gas,
			 "collectives", l, "traffic_bytes_per_gpu",
			 ds_step_traffic(a->colls, a->ncolls, a->gpus));
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
	for (int s = 0; !a->ds_path && s < PLAN_NSTRAT; s++) {
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
	if (a->ds_path) {
		json_decref(strat);
		strat = ds_json(a);
	}
	json_object_set_new(doc, "strategies", strat);
	json_object_set_new(doc, "fabric_from", json_string(a->db ? a->meas.source : a->gbps > 0 ?
								       "--gbps" : "nominal"));
	if (a->db) {
		json_array_append_new(fabs, fabric_json(a, a->meas.source, measured_desc(a), 0,
							plan_measured_busbw(&a->meas, a->gpn, nodes) *
								1e9 * a->eff,
							a->lat_us, nodes, doc));
	} else if (a->gbps > 0) {
		json_array_append_new(fabs, fabric_json(a, "measured", "the measured rate", a->gbps,
							nominal_busbw(a, a->gbps, nodes), a->lat_us,
							nodes, doc));
	} else {
		for (size_t i = 0; i < nf; i++)
			if (!a->fabric || a->fabric == &f[i])
				json_array_append_new(
					fabs, fabric_json(a, f[i].name, f[i].desc, f[i].gbps,
							  nominal_busbw(a, f[i].gbps, nodes),
							  f[i].lat_us, nodes, a->fabric ? doc : NULL));
	}
	json_object_set_new(doc, "fabrics", fabs);
	if (a->compute_ms > 0)
		json_object_set_new(doc, "bottleneck_fabrics", bottlenecks(fabs));
	return doc;
}

static void render_strategies(FILE *out, const json_t *strats)
{
	struct fc_table *t = fc_table_new(3, "STRATEGY", "PER GPU PER STEP", "COLLECTIVES");
	const json_t *v;
	size_t i;

	json_array_foreach(strats, i, v) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%s", fc_jstr(v, "name", ""));
		fc_table_addf(t, 1, "%.1f GB", fc_jnum(v, "traffic_bytes_per_gpu", 0) / 1e9);
		fc_table_addf(t, 2, "%s", fc_jstr(v, "collectives", ""));
	}
	fc_table_print(t, out, "");
	fc_table_free(t);
}

/* The DeepSpeed config's step: what it was read as, one row a collective. */
static void render_ds(FILE *out, const json_t *v)
{
	struct fc_table *t = fc_table_new(4, "COLLECTIVE", "CALLS/STEP", "PER CALL", "PER STEP");
	const json_t *c;
	size_t i;

	fprintf(out, "%s: ZeRO stage %d, %s, gradient_accumulation_steps %d, overlap_comm %s; "
		     "buckets (elements): reduce %.4g, allgather %.4g, stage3 prefetch %.4g\n",
		fc_jstr(v, "ds_config", ""), (int)fc_jnum(v, "stage", 0), fc_jstr(v, "dtype", ""),
		(int)fc_jnum(v, "gradient_accumulation_steps", 1),
		json_is_true(json_object_get(v, "overlap_comm")) ? "true" : "false",
		fc_jnum(v, "reduce_bucket_size", 0), fc_jnum(v, "allgather_bucket_size", 0),
		fc_jnum(v, "stage3_prefetch_bucket_size", 0));
	json_array_foreach(json_object_get(v, "collectives"), i, c) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%s of %s", fc_jstr(c, "op", ""), fc_jstr(c, "of", ""));
		fc_table_addf(t, 1, "%.0f", fc_jnum(c, "calls_per_step", 0));
		fc_table_addf(t, 2, "%.3g GB", fc_jnum(c, "bytes_per_call", 0) / 1e9);
		fc_table_addf(t, 3, "%.1f GB", fc_jnum(c, "bytes_per_step", 0) / 1e9);
	}
	fc_table_print(t, out, "  ");
	fc_table_free(t);
	fprintf(out, "  sent per GPU per step: %.1f GB\n",
		fc_jnum(v, "traffic_bytes_per_gpu", 0) / 1e9);
}

static void render(FILE *out, const json_t *doc)
{
	const json_t *in = json_object_get(doc, "inputs"), *v, *f, *r;
	int nodes = (int)fc_jnum(in, "nodes", 1), has_compute = fc_jnum(in, "compute_ms", 0) > 0;
	int gpus = (int)fc_jnum(in, "gpus", 0), nics = (int)fc_jnum(in, "nics_per_node", 0);
	struct fc_table *t;
	const char *key;
	size_t i, k;

	fc_put_paraf(out, 2, "model: %.4g billion params x %g B = %.4g GB; %d GPU%s on %d node%s (%d per node, %d NIC%s per node)",
		fc_jnum(in, "params", 0) / 1e9, fc_jnum(in, "bytes_per_param", 0),
		fc_jnum(in, "model_bytes", 0) / 1e9, gpus, fc_s(gpus), nodes, fc_s(nodes),
		(int)fc_jnum(in, "gpus_per_node", 0), nics, fc_s(nics));
	fputc('\n', out);
	v = json_array_get(json_object_get(doc, "strategies"), 0);
	if (json_object_get(v, "ds_config"))
		render_ds(out, v);
	else
		render_strategies(out, json_object_get(doc, "strategies"));
	if (nodes < 2) {
		fprintf(out, "\none node: collectives stay on NVLink/PCIe; the fabric carries none of it\n");
		return;
	}
	fprintf(out, "\ncommunication per step (ring, efficiency %g, overlap %g%s; fabric %s):\n",
		fc_jnum(in, "efficiency", 1), fc_jnum(in, "overlap", 1),
		has_compute ? "; exposed = not hidden by compute" : "",
		!strcmp(fc_jstr(doc, "fabric_from", ""), "nominal") ? "nominal" :
		!strcmp(fc_jstr(doc, "fabric_from", ""), "--gbps") ? "at --gbps" :
								    "as the store measured it");
	t = fc_table_new(6, "FABRIC", "LINK", "LATENCY", "BUSBW", "STRATEGY",
			 has_compute ? "COMM / EXPOSED" : "COMM");
	json_array_foreach(json_object_get(doc, "fabrics"), i, f) {
		json_array_foreach(json_object_get(f, "results"), k, r) {
			fc_table_row(t);
			if (k == 0) {
				fc_table_addf(t, 0, "%s", fc_jstr(f, "desc", ""));
				if (fc_jnum(f, "link_gbps", 0) > 0)
					fc_table_addf(t, 1, "%g Gb/s", fc_jnum(f, "link_gbps", 0));
				else
					fc_table_addf(t, 1, "measured");
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
	fputc('\n', out);
	fc_put_paraf(out, 2, "formulas: DDP 2(n-1)/n x M; ZeRO-1/2 (n-1)/n x M reduce-scatter + (n-1)/n x M all-gather;");
	fc_put_paraf(out, 2, "ZeRO-3 2 x (n-1)/n x M all-gather + (n-1)/n x M reduce-scatter; t = bytes x factor / busbw + steps x latency");
}

int cmd_plan(struct fc_ctx *ctx, int argc, char **argv)
{
	struct plan_args a = { .bpp = 2, .gpn = 8, .lat_us = 2, .eff = 1, .overlap = -1,
			       .collectives = 1, .strategy = -1 };

	if (parse_args(argc, argv, ctx, &a))
		return FC_EXIT_USAGE;
	return fc_emit(ctx, build(&a), render);
}
