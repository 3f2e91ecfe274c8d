/* The `fabcheck matrix --json` document of a model (architecture.md). */
#include <math.h>
#include <string.h>

#include "core/out.h"
#include "matrix/mx_model.h"
#include "matrix/mx_rails.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *cell_verdict(const struct fc_mx_cell *c)
{
	switch (c->state) {
	case FC_MX_OK:
		return c->bad ? "fail" : "pass";
	case FC_MX_FAIL:
		return "fail";
	case FC_MX_ERROR:
		return "error";
	default:
		return "pending";
	}
}

static json_t *pairs_json(const struct mx_model *m)
{
	const struct fc_mx_analysis *an = &m->an;
	json_t *list = json_array();
	char why[256];

	/* One entry per measured direction, nodes in the run's order. */
	for (int a = 0; a < m->n; a++) {
		for (int b = 0; b < m->n; b++) {
			const struct fc_mx_cell *c = a == b ? NULL : fc_mx_cell(an, a, b);
			json_t *e;

			if (!c || c->state == FC_MX_NONE)
				continue;
			e = json_pack("{s:s, s:s, s:o, s:o, s:s}", "a", m->names[a], "b",
				      m->names[b], "gbps", num_or_null(c->gbps), "lat_us",
				      num_or_null(c->lat_us), "verdict", cell_verdict(c));
			if (c->bad) {
				fc_mx_bad_text(an, c, why, sizeof(why));
				json_object_set_new(e, "why", json_string(why));
			}
			if (c->retest) {
				json_object_set_new(e, "retest", json_true());
				json_object_set_new(e, "retest_round", json_integer(c->retest));
			}
			json_array_append_new(list, e);
		}
	}
	return list;
}

static const char *const node_states[] = {
	[FC_MX_NODE_UNTESTED] = "untested",
	[FC_MX_NODE_OK] = "pass",
	[FC_MX_NODE_SUSPECT] = "suspect",
	[FC_MX_NODE_UNREACHABLE] = "unreachable",
};

static json_t *nodes_detail(const struct mx_model *m)
{
	json_t *list = json_array();

	for (int i = 0; i < m->n; i++) {
		const struct fc_mx_node *nd = &m->an.nodes[i];

		json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:i, s:i, s:i, s:s}",
						      "node", m->names[i], "median_gbps",
						      num_or_null(nd->median_gbps), "median_lat_us",
						      num_or_null(nd->median_lat_us), "peers",
						      nd->peers, "bad_peers", nd->bad, "errors",
						      nd->errors, "state", node_states[nd->state]));
	}
	return list;
}

/* What the pair itself said, for an error finding: for a node, an error
 * that names it when one does. */
static const char *error_of(const struct mx_model *m, const struct fc_mx_finding *f)
{
	const char *why = NULL, *e;

	if (f->kind == FC_MX_PAIR_ERROR)
		return mx_model_error(m, f->a, f->b);
	for (int j = 0; j < m->n; j++) {
		if (j == f->a)
			continue;
		for (int d = 0; d < 2; d++) {
			e = d ? mx_model_error(m, j, f->a) : mx_model_error(m, f->a, j);
			if (e && (!why || (strstr(e, m->names[f->a]) && !strstr(why, m->names[f->a]))))
				why = e;
		}
	}
	return why;
}

static void error_text(const struct mx_model *m, const struct fc_mx_finding *f, char *text,
		       size_t len)
{
	const char *why = error_of(m, f);
	char rails[200], none[48];

	/* with rails, a node measured on some: the rails it could not run on */
	if (f->kind == FC_MX_UNREACHABLE && m->nrails &&
	    mx_rails_unchecked_of(m, f->a, rails, sizeof(rails)))
		snprintf(text, len, "node %s: %s on %s, while its other "
			 "rails ran: %s; fix that, then 'fabcheck matrix --resume %lld'",
			 m->names[f->a], fc_mx_none_ran(none, sizeof(none), (int)f->v1), rails,
			 why ? why : "no result", (long long)m->run);
	else if (f->kind == FC_MX_UNREACHABLE)
		snprintf(text, len, "node %s: %s: %s; fix that, then "
			 "'fabcheck matrix --resume %lld'", m->names[f->a],
			 fc_mx_none_ran(none, sizeof(none), (int)f->v1), why ? why : "no result",
			 (long long)m->run);
	else
		snprintf(text, len, "pair %s->%s could not run: %s; fix that, then 'fabcheck "
			 "matrix --resume %lld'", m->names[f->a], m->names[f->b],
			 why ? why : "no result", (long long)m->run);
}

/* A suspect node: its own device's fault on a port its worker named is
 * that port's (level "port" with its "device", drained as "port on DEV",
 * matrix/mx_drain.c), as with rails; else the node's. */
static json_t *node_suspect(const struct mx_model *m, const struct fc_mx_finding *f,
			    const char *text)
{
	int port;
	const char *dev = (f->why & FC_MX_BAD_OWN) ? mx_model_fault_dev(m, f->a, &port) : NULL;
	json_t *o = json_pack("{s:s, s:s, s:s, s:n}", "node", m->names[f->a], "reason", text,
			      "level", dev ? "port" : "node", "rail");

	if (o && dev) {
		json_object_set_new(o, "device", json_string(dev));
		json_object_set_new(o, "own", json_true());
	}
	return o;
}

static void add_findings(const struct mx_model *m, json_t *doc, json_t *suspects)
{
	const struct fc_mx_analysis *an = &m->an;
	char text[768];

	for (int i = 0; i < an->nfindings; i++) {
		const struct fc_mx_finding *f = &an->findings[i];

		if (f->kind == FC_MX_PAIR_ERROR || f->kind == FC_MX_UNREACHABLE)
			error_text(m, f, text, sizeof(text));
		else
			mx_model_finding_text(m, f, text, sizeof(text));
		/* With rails, the suspects come from each rail (mx_rails_doc). */
		if (m->nrails && (f->kind == FC_MX_SUSPECT_NODE || f->kind == FC_MX_SUSPECT_LINK ||
				  f->kind == FC_MX_RACK_WIDE || f->kind == FC_MX_ASYMMETRY ||
				  f->kind == FC_MX_FLOOR || f->kind == FC_MX_SPREAD))
			continue;
		fc_finding(doc, f->fail ? FC_FAIL : FC_WARN, "%s", text);
		if (f->kind == FC_MX_FLOOR)
			fc_mx_floor_doc(doc, an->opts.min_gbps, f->a, f->b, 0, f->v2);
		if (f->kind == FC_MX_SUSPECT_NODE)
			json_array_append_new(suspects, node_suspect(m, f, text));
		else if (f->kind == FC_MX_SUSPECT_LINK)
			json_array_append_new(suspects,
					      json_pack("{s:[s,s], s:s, s:s, s:n}", "link",
							m->names[f->a], m->names[f->b], "reason",
							text, "level", "link", "rail"));
	}
}

/* With @pairs, a "pairs" entry per measured direction (per rail with
 * rails); without, none: all but that list, in the same order. */
static json_t *model_doc(const struct mx_model *m, int pairs)
{
	json_t *doc = fc_doc_new(), *nodes = json_array(), *suspects = json_array();
	struct mx_progress pr;

	for (int i = 0; i < m->n; i++)
		json_array_append_new(nodes, json_string(m->names[i]));
	mx_model_progress(m, m->info.ended > 0 ? m->info.ended : m->last_time, &pr);
	json_object_set_new(doc, "nodes", nodes);
	json_object_set_new(doc, "rounds", json_integer(pr.rounds));
	json_object_set_new(doc, "run", json_integer(m->run));
	json_object_set_new(doc, "both_directions", json_boolean(m->both));
	json_object_set_new(doc, "pairs_done", json_integer(pr.done));
	json_object_set_new(doc, "pairs_total", json_integer(pr.total));
	json_object_set_new(doc, "rack_median_gbps", num_or_null(m->an.rack_median_gbps));
	json_object_set_new(doc, "rack_median_lat_us", num_or_null(m->an.rack_median_lat_us));
	json_object_set_new(doc, "thresholds",
			    json_pack("{s:o, s:f, s:o}", "min_gbps",
				      m->opts.min_gbps > 0 ? json_real(m->opts.min_gbps) : json_null(),
				      "min_rack_pct", m->opts.min_rack_pct, "max_lat_us",
				      m->opts.max_lat_us > 0 ? json_real(m->opts.max_lat_us) :
							       json_null()));
	/* With rails, mx_rails_doc replaces it with the pairs per rail, in
	 * its place: the aggregates are never built. */
	if (pairs)
		json_object_set_new(doc, "pairs", m->nrails ? json_array() : pairs_json(m));
	json_object_set_new(doc, "per_node", nodes_detail(m));
	add_findings(m, doc, suspects);
	if (m->nrails)
		mx_rails_doc(m, doc, suspects, pairs);
	json_object_set_new(doc, "suspects", suspects);
	/* A screen runs a share of the pairs by design, a soak the pairs its
	 * slices drew: neither is resumed. */
	if (pr.done < pr.total && !json_object_get(m->info.params, "screen") &&
	    strcmp(m->info.kind, "soak"))
		fc_finding(doc, FC_WARN,
			   "run %lld is incomplete: %d of %d %s measured; finish it with "
			   "'fabcheck matrix --resume %lld'",
			   (long long)m->run, pr.done, pr.total,
			   json_object_get(m->info.params, "pattern") ? "flows of its pattern" :
									"pairs",
			   (long long)m->run);
	return doc;
}

json_t *mx_model_doc(const struct mx_model *m)
{
	return model_doc(m, 1);
}

json_t *mx_model_doc_brief(const struct mx_model *m)
{
	return model_doc(m, 0);
}
