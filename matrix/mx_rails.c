/*
 * matrix --rails: the rack's rails (matched once over every node's ports,
 * kept in the run's parameters), a cell per (pair, rail) read from each
 * pair's "rails" list, their culprit levels (matrix/mxlevel.h), and their
 * part of the matrix document.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "core/out.h"
#include "core/summary.h"
#include "matrix/mx_model.h"
#include "matrix/mx_rails.h"
#include "pair/pair.h"
#include "store/store.h"

/* ---- the model: a cell per (pair, rail) -------------------------------- */

int mx_rails_load(struct mx_model *m)
{
	const json_t *list = json_object_get(json_object_get(m->info.params, "rails"), "list");
	size_t i;
	json_t *v;

	m->nrails = 0;
	if (!json_array_size(list))
		return 0;
	m->rails = calloc(json_array_size(list), sizeof(*m->rails));
	if (!m->rails)
		return -ENOMEM;
	json_array_foreach(list, i, v) {
		struct mx_rail *r = &m->rails[m->nrails++];

		snprintf(r->name, sizeof(r->name), "%s", fc_jstr(v, "name", "?"));
		snprintf(r->subnet, sizeof(r->subnet), "%s", fc_jstr(v, "subnet", ""));
		r->index = (int)fc_jnum(v, "rail", (double)i);
	}
	return 0;
}

int mx_rail_find(const struct mx_model *m, const char *name, const char *subnet)
{
	for (int r = 0; r < m->nrails; r++)
		if (*subnet ? !strcmp(subnet, m->rails[r].subnet) :
			      !strcmp(name, m->rails[r].name))
			return r;
	return -1;
}

int mx_rails_reserve(struct mx_model *m, size_t more)
{
	struct fc_mxl_cell *p;

	if (m->nrcells + more <= m->rcap)
		return 0;
	p = realloc(m->rcells, (m->nrcells + more) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->rcells = p;
	m->rcap = m->nrcells + more;
	return 0;
}

static int add_cell(struct mx_model *m, struct fc_mxl_cell c)
{
	if (m->nrcells == m->rcap) {
		size_t cap = m->rcap ? 2 * m->rcap : 64;
		struct fc_mxl_cell *p = realloc(m->rcells, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->rcells = p;
		m->rcap = cap;
	}
	m->rcells[m->nrcells++] = c;
	return 0;
}

int mx_rails_add(struct mx_model *m, int a, int b, const struct mx_rail_fig *f, size_t nf,
		 int retest, enum fc_mx_state row_state)
{
	int rc = 0, any = 0, measured = 0;

	for (size_t i = 0; i < nf; i++)
		measured |= f[i].rail >= 0 && !isnan(f[i].gbps);
	for (size_t i = 0; !rc && i < nf; i++) {
		if (f[i].rail < 0)
			continue;
		any = 1;
		/* A pair that could not run (fc_pair_end_judged) and measured
		 * no rail at all: ssh, the launcher or a worker failed for the
		 * pair, and each rail's child with it: no evidence against
		 * either node. When another rail measured, those reached the
		 * nodes: a rail with no figure keeps its verdict (its port). */
		rc = add_cell(m, (struct fc_mxl_cell){ .a = a, .b = b, .rail = f[i].rail,
						       .gbps = f[i].gbps, .lat_us = f[i].lat_us,
						       .state = row_state == FC_MX_ERROR && !measured ?
								FC_MX_ERROR :
								f[i].state,
						       .retest = retest, .fault = f[i].fault });
	}
	/* No rail measured (the pair could not run): an error on every rail. */
	for (int r = 0; !any && !rc && r < m->nrails; r++)
		rc = add_cell(m, (struct fc_mxl_cell){ .a = a, .b = b, .rail = r, .gbps = NAN,
						       .lat_us = NAN,
						       .state = row_state == FC_MX_ERROR ?
									FC_MX_ERROR : FC_MX_FAIL,
						       .retest = retest });
	return rc;
}

int mx_rails_row(struct mx_model *m, int a, int b, const char *text, int retest,
		 enum fc_mx_state row_state)
{
	json_t *doc = json_loads(text, 0, NULL);
	struct mx_rail_fig *f = NULL;
	struct fc_pair_rail e;
	size_t nf = 0;
	int rc = 0;

	for (size_t i = 0; !rc && fc_pair_doc_rail(doc, i, &e); i++) {
		if (!e.phase)
			continue;
		if (fc_resize((void **)&f, nf + 1, sizeof(*f))) {
			rc = -ENOMEM;
			break;
		}
		f[nf++] = (struct mx_rail_fig){ .rail = mx_rail_find(m, e.name, e.subnet),
						.gbps = e.gbps, .lat_us = e.lat_us,
						.state = mx_state_of(e.verdict),
						.fault = mx_fault_bits(m, a, b, e.node_fault) };
	}
	if (!rc)
		rc = mx_rails_add(m, a, b, f, nf, retest, row_state);
	free(f);
	json_decref(doc);
	return rc;
}

int mx_rails_analyze(struct mx_model *m)
{
	return fc_mxl_reanalyze(m->n, m->nrails, m->rcells, m->nrcells, &m->opts, &m->ran);
}

void mx_rails_release(struct mx_model *m)
{
	free(m->rails);
	free(m->rcells);
	fc_mxl_release(&m->ran);
	m->rails = NULL;
	m->rcells = NULL;
	m->nrails = 0;
	m->nrcells = m->rcap = 0;
}

/* ---- the document ------------------------------------------------------- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *cell_verdict(const struct fc_mx_cell *c)
{
	return c->state == FC_MX_ERROR ? "error" :
	       c->state == FC_MX_FAIL || c->bad ? "fail" : "pass";
}

/* Node @node's own device on rail position @r, as the rails were matched
 * (params "rails" "ports": servers of another model name the HCA on a
 * rail otherwise), else the rail's name. */
const char *mx_rail_own_device(const struct mx_model *m, const char *node, int r)
{
	const json_t *ports = json_object_get(json_object_get(m->info.params, "rails"), "ports");

	return fc_jstr(json_array_get(json_object_get(ports, node), (size_t)r), "device",
		       m->rails[r].name);
}

int mx_rails_unchecked_of(const struct mx_model *m, int i, char *buf, size_t len)
{
	size_t off = 0;
	int n = 0;

	if (len)
		buf[0] = 0;
	for (int k = 0; k < m->ran.nunchecked; k++) {
		const struct fc_mxl_unchecked *u = &m->ran.unchecked[k];

		if (u->node != i)
			continue;
		n++;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%srail %d (%s)", off ? ", " : "",
						m->rails[u->rail].index, m->rails[u->rail].name);
	}
	return n;
}

static json_t *pairs_json(const struct mx_model *m)
{
	json_t *list = json_array(), *e;

	for (int r = 0; r < m->nrails; r++) {
		const struct fc_mx_analysis *ra = &m->ran.rails[r];

		for (int a = 0; a < m->n; a++)
			for (int b = 0; b < m->n; b++) {
				const struct fc_mx_cell *c = a == b ? NULL : fc_mx_cell(ra, a, b);

				if (!c || c->state == FC_MX_NONE)
					continue;
				e = json_pack("{s:s, s:s, s:i, s:s, s:[s, s], s:o, s:o, s:s, s:b}",
					      "a", m->names[a], "b", m->names[b], "rail",
					      m->rails[r].index, "device", m->rails[r].name,
					      "devices", mx_rail_own_device(m, m->names[a], r),
					      mx_rail_own_device(m, m->names[b], r),
					      "gbps", num_or_null(c->gbps), "lat_us",
					      num_or_null(c->lat_us), "verdict",
					      cell_verdict(c), "retest", c->retest);
				/* its --retest round (mx_session.h) */
				if (c->retest)
					json_object_set_new(e, "retest_round",
							    json_integer(c->retest));
				json_array_append_new(list, e);
			}
	}
	return list;
}

static json_t *rails_json(const struct mx_model *m)
{
	json_t *list = json_array();

	const json_t *how = json_object_get(json_object_get(m->info.params, "rails"), "list");
	static const char *const keys[] = { "matched_by", "switch", "switch_desc", "leaf", "leaves" };

	for (int r = 0; r < m->nrails; r++) {
		json_t *o = json_pack("{s:i, s:s, s:s, s:o}", "rail", m->rails[r].index, "name",
				      m->rails[r].name, "subnet", m->rails[r].subnet, "median_gbps",
				      num_or_null(m->ran.rails[r].rack_median_gbps));
		const json_t *h = json_array_get(how, (size_t)r);

		/* how the rail was matched (mx_rails_params' map_json) */
		for (size_t k = 0; o && k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!json_is_null(json_object_get(h, keys[k])) && json_object_get(h, keys[k]))
				json_object_set(o, keys[k], json_object_get(h, keys[k]));
		json_array_append_new(list, o);
	}
	return list;
}

/* The ports none of whose pairs could run on their rail while the node's
 * other rails ran (fc_mxl_unchecked): "unchecked_ports", each with a
 * warning; never suspects, never drained (mx_drain_unseen keeps a drain
 * on such a port). A rail on which no pair at all could run while other
 * rails ran ("unchecked_rails") has one warning for its ports. */
static void unchecked_ports(const struct mx_model *m, json_t *doc)
{
	json_t *list = json_array(), *rails = json_array();

	for (int r = 0; r < m->nrails; r++) {
		if (!(m->ran.unchecked_rails >> r & 1))
			continue;
		fc_finding(doc, FC_WARN,
			   "rail %d (%s): could not check it: no pair could run on it (ssh, the launcher, a worker that crashed or timed out; a fault the worker found on a node is a fail), while other rails ran: not judged, not its switch's fault, never drained; the pairs' errors say why",
			   m->rails[r].index, m->rails[r].name);
		json_array_append_new(rails, json_pack("{s:i, s:s}", "rail", m->rails[r].index,
						       "rail_name", m->rails[r].name));
	}
	for (int k = 0; k < m->ran.nunchecked; k++) {
		const struct fc_mxl_unchecked *u = &m->ran.unchecked[k];
		const char *node = m->names[u->node], *dev = mx_rail_own_device(m, node, u->rail);

		if (!(m->ran.unchecked_rails >> u->rail & 1))
			fc_finding(doc, FC_WARN,
				   "%s on rail %d (%s): could not check %s: none of its pairs on that rail could run (ssh, the launcher, a worker that crashed or timed out; a fault the worker found on the node is a fail), while its other rails ran: not judged, never drained; the pairs' errors say why",
				   node, m->rails[u->rail].index, m->rails[u->rail].name, dev);
		json_array_append_new(list, json_pack("{s:s, s:i, s:s, s:s}", "node", node, "rail",
						      m->rails[u->rail].index, "rail_name",
						      m->rails[u->rail].name, "device", dev));
	}
	json_object_set_new(doc, "unchecked_ports", list);
	json_object_set_new(doc, "unchecked_rails", rails);
}

/* Each rail's own findings that no suspect carries: a link asymmetric on
 * that rail, nodes all bad with each other on it (FC_MX_SPREAD, a fail
 * when an absolute bar or pair's verdict made them bad), each said as the
 * single-port analysis says it (fc_mx_finding_text), after the rail: the
 * same results say the same thing with rails as without. A rail that is a
 * suspect as a whole has its finding already. */
static void rail_findings(const struct mx_model *m, json_t *doc)
{
	char text[768];

	for (int r = 0; r < m->nrails; r++) {
		const struct fc_mx_analysis *ra = &m->ran.rails[r];
		int whole = 0;

		for (int k = 0; k < m->ran.nsuspects; k++)
			whole |= m->ran.suspects[k].level == FC_MXL_RAIL && m->ran.suspects[k].rail == r;
		for (int i = 0; i < ra->nfindings; i++) {
			const struct fc_mx_finding *f = &ra->findings[i];

			if (f->kind != FC_MX_ASYMMETRY && (f->kind != FC_MX_SPREAD || whole))
				continue;
			fc_mx_finding_text(ra, f, (const char *const *)m->names, text, sizeof(text));
			fc_finding(doc, f->fail ? FC_FAIL : FC_WARN, "rail %d (%s): %s",
				   m->rails[r].index, m->rails[r].name, text);
		}
	}
}

void mx_rails_doc(const struct mx_model *m, json_t *doc, json_t *suspects, int pairs)
{
	const json_t *rp = json_object_get(m->info.params, "rails"), *f;
	const char **rn = calloc((size_t)m->nrails + 1, sizeof(*rn));
	json_t *notes = json_array();
	char text[768];
	size_t i;

	json_object_set_new(doc, "rails", rails_json(m));
	json_object_set(doc, "rail_ports", json_object_get(rp, "ports"));
	if (pairs)
		json_object_set_new(doc, "pairs", pairs_json(m));
	json_array_foreach(json_object_get(rp, "findings"), i, f) {
		const char *sev = fc_jstr(f, "severity", "note");

		if (strcmp(sev, "note"))
			fc_finding(doc, !strcmp(sev, "fail") ? FC_FAIL : FC_WARN, "%s",
				   fc_jstr(f, "text", "?"));
		else /* ports left out with their rule, rails assumed: said, not judged */
			json_array_append(notes, json_object_get(f, "text"));
	}
	json_object_set_new(doc, "rail_notes", notes);
	json_object_set(doc, "rails_assumed", json_is_string(json_object_get(rp, "assumed")) ?
						      json_object_get(rp, "assumed") : json_null());
	if (m->ran.floor) {
		fc_mx_floor_text(text, sizeof(text), m->ran.rails[0].opts.min_gbps, m->ran.floor_pairs,
				 m->ran.floor_nodes, m->ran.floor, m->ran.floor_best_gbps);
		fc_finding(doc, FC_FAIL, "%s", text);
		fc_mx_floor_doc(doc, m->ran.rails[0].opts.min_gbps, m->ran.floor_pairs,
				m->ran.floor_nodes, m->ran.floor, m->ran.floor_best_gbps);
	}
	for (int r = 0; rn && r < m->nrails; r++)
		rn[r] = m->rails[r].name;
	unchecked_ports(m, doc);
	rail_findings(m, doc);
	for (int k = 0; rn && k < m->ran.nsuspects; k++) {
		const struct fc_mxl_suspect *s = &m->ran.suspects[k];
		json_t *o;

		fc_mxl_suspect_text(&m->ran, s, (const char *const *)m->names, rn, text,
				    sizeof(text));
		fc_finding(doc, FC_FAIL, "%s", text);
		o = json_pack("{s:s, s:o, s:s}", "level", fc_mxl_level_name(s->level), "rail",
			      s->rail < 0 ? json_null() : json_integer(m->rails[s->rail].index),
			      "reason", text);
		json_object_set_new(o, "node", s->node < 0 ? json_null() : json_string(m->names[s->node]));
		/* each node's own device on the rail, and the rail's name */
		if (s->rail >= 0 && s->node >= 0)
			json_object_set_new(o, "device",
					    json_string(mx_rail_own_device(m, m->names[s->node], s->rail)));
		else if (s->rail >= 0)
			json_object_set_new(o, "device", json_string(m->rails[s->rail].name));
		if (s->rail >= 0)
			json_object_set_new(o, "rail_name", json_string(m->rails[s->rail].name));
		if (s->level == FC_MXL_RAIL)
			json_object_set_new(o, "nodes_judged", json_boolean(s->nodes_judged));
		if (s->level == FC_MXL_LINK)
			json_object_set_new(o, "link", json_pack("[s, s]", m->names[s->node],
								 m->names[s->peer]));
		if (s->level == FC_MXL_LINK && s->rail >= 0)
			json_object_set_new(o, "devices",
					    json_pack("[s, s]", mx_rail_own_device(m, m->names[s->node], s->rail),
						      mx_rail_own_device(m, m->names[s->peer], s->rail)));
		json_array_append_new(suspects, o);
	}
	free(rn);
}

int mx_rails_notes_lines(FILE *f, const json_t *doc)
{
	const json_t *n;
	size_t i;
	int k = 0;

	json_array_foreach(json_object_get(doc, "rail_notes"), i, n)
		if (json_is_string(n) && ++k) /* fitted to the terminal, whole in --json */
			fc_put_wrapped(f, "rails: ", 2, json_string_value(n), 0, FC_WRAP_LINES);
	return k;
}

void mx_rails_notes_render(FILE *f, const json_t *doc)
{
	if (mx_rails_notes_lines(f, doc))
		fputc('\n', f);
}
