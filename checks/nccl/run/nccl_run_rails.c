/*
 * fabcheck nccl run: busbw against what the rails can carry (the model is
 * busbw_rails of core/busbw.h; doc/nccl-run.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/nccl/run/nccl_run.h"
#include "checks/nccl/env/ncclenv.h"
#include "core/out.h"
#include "store/store.h"

/* The slowest rate among NCCL's HCAs (Gb/s, from 2.27's detail lines); 0 unknown. */
static double log_rate(const json_t *hcas)
{
	double rate = 0;
	size_t i;
	json_t *h;

	json_array_foreach(hcas, i, h) {
		double r = fc_jnum(h, "speed_mbps", 0) / 1000;

		if (!(r > 0))
			return 0;
		rate = !rate || r < rate ? r : rate;
	}
	return rate;
}

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

/* The rate used and where it came from: --rail-gbps, else the log. */
static double rail_rate(struct ncr_state *s, double from_log, const char **src_p)
{
	double opt = s->cfg->rail_gbps;

	*src_p = opt > 0 ? "--rail-gbps" : from_log > 0 ? "NCCL log" : NULL;
	if (opt > 0 && from_log > 0 && fabs(from_log - opt) > 0.01 * opt)
		fc_finding(s->doc, FC_WARN,
			   "the NCCL log gives %g Gb/s for its slowest HCA where --rail-gbps says "
			   "%g: the expectation uses --rail-gbps; check the HCAs' rates "
			   "(fabcheck devices) or the option", from_log, opt);
	return opt > 0 ? opt : from_log;
}

/* Why nothing is expected (NULL: something is). */
static const char *why_none(const struct ncr_state *s, int nrails, double rate, unsigned which)
{
	if (s->cfg->nnodes < 2)
		return "one node: the network is not on the path";
	if (!nrails)
		return "the NCCL log shows no HCA list";
	if (!(rate > 0))
		return "the NCCL log gives no link rate (NCCL 2.27 and later print it with NET); "
		       "give it with --rail-gbps";
	if (!which)
		return "NCCL_ALGO allows no algorithm modelled here (ring, tree, NVLS tree): "
		       "CollNet (IB SHARP) is not";
	return NULL;
}

/* The algorithms NCCL_ALGO allows; one NCCL ignores (a word it does not
 * know: the log's check of the settings names it) allows all. */
static unsigned allowed_algos(const struct ncr_state *s, char *why, size_t len)
{
	const char *v = s->cfg->nccl_algo;

	why[0] = '\0';
	if (v && ncclenv_value_check("NCCL_ALGO", v, why, len))
		return BUSBW_ALGO_ALL;
	why[0] = '\0';
	return busbw_algo_parse(v);
}

void ncr_rails_report(struct ncr_state *s)
{
	const struct ncr_cfg *cfg = s->cfg;
	const json_t *hcas = json_object_get(json_object_get(s->doc, "nccl_log"), "hcas");
	int nrails = (int)json_array_size(hcas);
	int used = nrails < cfg->gpus_per_node ? nrails : cfg->gpus_per_node;
	char ignored[512];
	unsigned algos = allowed_algos(s, ignored, sizeof(ignored)), which;
	const char *src;
	double rate = rail_rate(s, log_rate(hcas), &src);
	double want = busbw_rails(algos, nrails, rate, cfg->gpus_per_node,
				      cfg->nnodes, &which);
	double bound = busbw_rails_bound(algos, nrails, rate, cfg->gpus_per_node,
				       cfg->nnodes);
	double peak = peak_busbw(s->doc);

	json_object_set_new(
		s->doc, "rails",
		json_pack("{s:i, s:o, s:s?, s:i, s:f, s:s?, s:s?, s:s, s:o, s:o, s:o, s:s?}", "count",
			  nrails, "rate_gbit_s", rate > 0 ? json_real(rate) : json_null(),
			  "rate_from", src, "used_per_node", used, "payload_share",
			  BUSBW_RAIL_PAYLOAD, "nccl_algo", cfg->nccl_algo, "nccl_algo_ignored",
			  ignored[0] ? ignored : NULL, "algorithm",
			  which ? busbw_algo_name(which) : "none",
			  "algorithm_factor", which ? json_real(busbw_algo_factor(which, cfg->nnodes,
										cfg->gpus_per_node))
						    : json_null(),
			  "expected_busbw_gbytes_s", want > 0 ? json_real(want) : json_null(),
			  "network_bound_gbytes_s", bound > 0 ? json_real(bound) : json_null(),
			  "why_none", want > 0 ? NULL : why_none(s, nrails, rate, which)));
	if (want > 0 && peak < 0.8 * want)
		fc_finding(s->doc, FC_WARN,
			   "peak busbw %.1f GB/s is %.0f%% of the %.1f GB/s the rails can carry "
			   "(%d of %d HCAs per node at %g Gb/s, %s): check every rail with "
			   "fabcheck pair --rails all, and NCCL_ALGO=Ring for comparison",
			   peak, 100 * peak / want, want, used, nrails, rate, busbw_algo_name(which));
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
	const json_t *r = json_object_get(doc, "rails");

	if (fc_jnum(r, "expected_busbw_gbytes_s", 0) > 0)
		fprintf(f, "  the rails can carry: %.1f GB/s busbw (%d HCAs per node used at %g Gb/s "
			   "(%s), %s, factor %.3f)\n",
			fc_jnum(r, "expected_busbw_gbytes_s", 0), (int)fc_jnum(r, "used_per_node", 0),
			fc_jnum(r, "rate_gbit_s", 0), fc_jstr(r, "rate_from", "?"),
			fc_jstr(r, "algorithm", "?"), fc_jnum(r, "algorithm_factor", 0));
	if (fc_jnum(r, "network_bound_gbytes_s", 0) > 0)
		fprintf(f, "  on two nodes a tree sends half its traffic over the network: up to "
			   "%.1f GB/s, where the path inside the node allows it\n",
			fc_jnum(r, "network_bound_gbytes_s", 0));
	else if (r && fc_jstr(r, "why_none", NULL))
		fprintf(f, "  the rails can carry: not known (%s)\n", fc_jstr(r, "why_none", ""));
}
