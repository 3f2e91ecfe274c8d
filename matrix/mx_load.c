/*
 * The matrix model read from the store (mx_model_load, mx_model_refresh).
 *
 * At rack scale the documents are most of the store (some gigabytes for a
 * full 1,024 x 8 matrix) and parsing them most of the time, so the rows
 * are read by their columns only, and a row's document is opened only for
 * what the columns lack: why a pair could not run (an error row), a
 * node's link rate not yet known, and the retest mark of a row that
 * repeats an a -> b already read (a retest always does: it measures again
 * a direction measured bad). The rail cells come from the store's link
 * rows, a row per (pair, rail); a row whose links cannot tell a rail left
 * without a phase from one that ran without figures (a link with verdict
 * error and no figure) has its cells read from its document, as before.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "matrix/mx_rails.h"

static int add_node(struct mx_model *m, const char *name)
{
	char **nn = realloc(m->names, ((size_t)m->n + 1) * sizeof(*nn));
	double *nr;

	if (!nn)
		return -ENOMEM;
	m->names = nn;
	nr = realloc(m->rate_gbps, ((size_t)m->n + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	m->rate_gbps = nr;
	m->rate_gbps[m->n] = NAN;
	m->names[m->n] = strdup(name);
	if (!m->names[m->n])
		return -ENOMEM;
	if (!m->by_name && !(m->by_name = json_object()))
		return -ENOMEM;
	/* Names the model got otherwise first (NULL index): indexed too. */
	for (int k = (int)json_object_size(m->by_name); k < m->n; k++)
		if (json_object_set_new(m->by_name, m->names[k], json_integer(k)))
			return -ENOMEM;
	if (json_object_set_new(m->by_name, name, json_integer(m->n))) {
		free(m->names[m->n]);
		return -ENOMEM;
	}
	return m->n++;
}

static int params_read(struct mx_model *m, const char *db)
{
	const json_t *p = m->info.params;

	if (mx_params_check(p, (long long)m->info.id, db))
		return -EINVAL;
	m->both = json_is_true(json_object_get(p, "both_directions"));
	m->retest = json_is_true(json_object_get(p, "retest"));
	mx_params_opts(p, &m->opts);
	return 0;
}

/* Whether a -> b was read before; marks it. The bits are n x n, grown
 * (and moved) when a node is added. Returns 1, 0 or -ENOMEM. */
static int seen_before(struct mx_model *m, int a, int b)
{
	size_t bit;
	int was;

	if (m->n > m->seen_n) {
		int nn = m->n > 2 * m->seen_n ? m->n : 2 * m->seen_n;
		unsigned char *s = calloc(((size_t)nn * (size_t)nn + 7) / 8, 1);

		if (!s)
			return -ENOMEM;
		for (int i = 0; i < m->seen_n; i++)
			for (int j = 0; j < m->seen_n; j++) {
				size_t o = (size_t)i * (size_t)m->seen_n + (size_t)j;
				size_t q = (size_t)i * (size_t)nn + (size_t)j;

				if (m->seen[o / 8] & (1u << (o % 8)))
					s[q / 8] |= (unsigned char)(1u << (q % 8));
			}
		free(m->seen);
		m->seen = s;
		m->seen_n = nn;
	}
	bit = (size_t)a * (size_t)m->seen_n + (size_t)b;
	was = !!(m->seen[bit / 8] & (1u << (bit % 8)));
	m->seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
	return was;
}

/* The device of the own fault @doc names for an end of @r (the node's,
 * checked: store.h fc_pair_doc_fault_dev). */
static void note_fault_dev(struct mx_model *m, const struct fc_mx_result *r, const json_t *doc)
{
	int port;
	const char *dev = fc_pair_doc_fault_dev(doc, &port);

	if (!m->fault_dev && !(m->fault_dev = json_object()))
		return;
	fc_fault_dev_note(m->fault_dev, m->names[(r->fault & FC_MX_FAULT_A) ? r->a : r->b], dev,
			  port);
}

/* The --retest round of a row's document: "retest_round" (1 to
 * FC_MX_RETEST_ROUNDS; 1 when absent, as a store from before the rounds
 * or a history retest writes it, or out of that range: the store travels),
 * 0 for a row that is no retest. */
static int retest_round(const json_t *doc)
{
	json_int_t round = json_integer_value(json_object_get(doc, "retest_round"));

	if (!json_is_true(json_object_get(doc, "retest")))
		return 0;
	return round >= 1 && round <= FC_MX_RETEST_ROUNDS ? (int)round : 1;
}

/* What a row's document adds to its columns: the retest mark, the nodes'
 * link rates, why it could not run (and whose own device). */
static void row_doc(struct mx_model *m, size_t k, const char *text)
{
	struct fc_mx_result *r = &m->res[k];
	json_t *doc;

	if (strstr(text, "\"retest\"") ||
	    ((isnan(m->rate_gbps[r->a]) || isnan(m->rate_gbps[r->b])) &&
	     strstr(text, "rate_gbps"))) {
		doc = json_loads(text, 0, NULL);
		r->retest = retest_round(doc);
		if (isnan(m->rate_gbps[r->a]))
			m->rate_gbps[r->a] = fc_jnum(json_object_get(doc, "a"), "rate_gbps", NAN);
		if (isnan(m->rate_gbps[r->b]))
			m->rate_gbps[r->b] = fc_jnum(json_object_get(doc, "b"), "rate_gbps", NAN);
		json_decref(doc);
	}
	if (r->state == FC_MX_ERROR) {
		const char *why;

		doc = json_loads(text, 0, NULL);
		r->fault = mx_fault_bits(m, r->a, r->b, fc_jstr(doc, "node_fault", NULL));
		if (r->fault)
			note_fault_dev(m, r, doc);
		why = fc_jstr(doc, "error", NULL);
		if (!why && json_array_size(json_object_get(doc, "findings")))
			why = json_string_value(json_array_get(json_object_get(doc, "findings"), 0));
		/* The child's log prefix says nothing here. */
		if (why && !strncmp(why, "fabcheck: error: ", 17))
			why += 17;
		m->res_err[k] = strdup(why ? why : "no result");
		json_decref(doc);
	}
}

struct loader {
	struct mx_model *m;
	struct fc_store *st;
	int rc;
	/* The link rows of the pair row being read (mx_rails_add's). */
	size_t k;		  /* that row's index in m->res */
	struct mx_rail_fig *figs; /* its links so far */
	size_t nfigs, capfigs;
	int nlinks; /* its links read (none: its document tells) */
	int by_doc; /* a link that only its document can tell */
};

static int add_row(const struct fc_store_pair *p, void *arg)
{
	struct loader *ld = arg;
	struct mx_model *m = ld->m;
	struct fc_mx_result *r;
	int a = mx_model_node(m, p->a), b = mx_model_node(m, p->b), again;

	if (a < 0)
		a = add_node(m, p->a);
	if (a >= 0 && b < 0)
		b = add_node(m, p->b);
	if (a < 0 || b < 0)
		return -ENOMEM;
	if (m->nres == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;

		if (fc_resize((void **)&m->res, cap, sizeof(*m->res)) ||
		    fc_resize((void **)&m->res_id, cap, sizeof(*m->res_id)) ||
		    fc_resize((void **)&m->res_err, cap, sizeof(*m->res_err)))
			return -ENOMEM;
		m->cap = cap;
	}
	again = seen_before(m, a, b);
	if (again < 0)
		return again;
	r = &m->res[m->nres];
	*r = (struct fc_mx_result){ .a = a, .b = b, .gbps = p->gbps, .lat_us = p->lat_us,
				    .state = mx_state_of(p->verdict) };
	m->res_err[m->nres] = NULL;
	if (again || r->state == FC_MX_ERROR || isnan(m->rate_gbps[a]) ||
	    isnan(m->rate_gbps[b])) {
		char *text = p->doc ? NULL : fc_store_pair_doc(ld->st, p->id);

		if (!p->doc && !text)
			return -EIO;
		row_doc(m, m->nres, p->doc ? p->doc : text);
		free(text);
	}
	m->res_id[m->nres++] = p->id;
	m->last_id = p->id;
	m->last_time = p->time;
	m->analyzed = 0;
	return 0;
}

/* The cells of row ld->k from the links gathered, or from its document. */
static int flush_row(struct loader *ld)
{
	struct mx_model *m = ld->m;
	const struct fc_mx_result *r = &m->res[ld->k];
	int rc;

	if (ld->by_doc || !ld->nlinks) {
		char *text = fc_store_pair_doc(ld->st, m->res_id[ld->k]);

		rc = text ? mx_rails_row(m, r->a, r->b, text, r->retest, r->state) : -EIO;
		free(text);
	} else {
		rc = mx_rails_add(m, r->a, r->b, ld->figs, ld->nfigs, r->retest, r->state);
	}
	ld->nfigs = 0;
	ld->nlinks = ld->by_doc = 0;
	return rc;
}

static int add_link(const struct fc_store_link *l, void *arg)
{
	struct loader *ld = arg;
	struct mx_model *m = ld->m;

	if (l->pair != m->res_id[ld->k])
		return 0; /* a row added since the rows were read: the next refresh's */
	ld->nlinks++;
	if (l->rail < 0)
		return 0; /* no rails list: no rail measured */
	/* no figure: could not run, or failed for a node's own device, which
	 * only the document names (its "node_fault") */
	if (strcmp(l->verdict, "pass") && strcmp(l->verdict, "warn") && isnan(l->gbps) &&
	    isnan(l->lat_us)) {
		ld->by_doc = 1;
		return 0;
	}
	if (ld->nfigs == ld->capfigs) {
		size_t cap = ld->capfigs ? 2 * ld->capfigs : 16;

		if (fc_resize((void **)&ld->figs, cap, sizeof(*ld->figs)))
			return -ENOMEM;
		ld->capfigs = cap;
	}
	ld->figs[ld->nfigs++] = (struct mx_rail_fig){
		.rail = mx_rail_find(m, l->device, l->subnet), .gbps = l->gbps,
		.lat_us = l->lat_us, .state = mx_state_of(l->verdict) };
	return 0;
}

/* The links of the whole run, in row order, walked beside the rows. */
static int add_run_link(const struct fc_store_link *l, void *arg)
{
	struct loader *ld = arg;
	struct mx_model *m = ld->m;
	int rc = 0;

	while (ld->k < m->nres && m->res_id[ld->k] < l->pair) {
		rc = flush_row(ld);
		if (rc)
			return rc;
		ld->k++;
	}
	return ld->k < m->nres ? add_link(l, ld) : 0;
}

/* The rail cells of rows @first .. m->nres - 1. On a load, the run's links
 * in one pass; on a refresh (a few new rows), each new row's own. */
static int read_cells(struct loader *ld, size_t first)
{
	struct mx_model *m = ld->m;
	int rc = 0;

	ld->k = first;
	if (!m->nrails || first == m->nres)
		return 0;
	rc = mx_rails_reserve(m, (m->nres - first) * (size_t)m->nrails);
	if (rc)
		return rc;
	if (!first) {
		rc = fc_store_links(ld->st, m->run, add_run_link, ld);
		for (; !rc && ld->k < m->nres; ld->k++)
			rc = flush_row(ld);
	} else {
		for (; !rc && ld->k < m->nres; ld->k++) {
			const struct fc_mx_result *r = &m->res[ld->k];

			rc = fc_store_link_history(ld->st, m->names[r->a], m->names[r->b], m->run,
						   m->run, add_link, ld);
			if (!rc)
				rc = flush_row(ld);
		}
	}
	free(ld->figs);
	ld->figs = NULL;
	ld->nfigs = ld->capfigs = 0;
	return rc;
}

/* The rows after m->last_id and their cells. */
static int read_rows(struct mx_model *m, struct fc_store *st)
{
	struct loader ld = { .m = m, .st = st };
	size_t first = m->nres;
	int rc = fc_store_pairs_brief(st, m->run, m->last_id, add_row, &ld);

	return rc ? rc : read_cells(&ld, first);
}

int mx_model_load(struct mx_model *m, struct fc_store *st, int64_t run)
{
	const json_t *nodes;
	size_t i;
	json_t *v;
	int rc;

	memset(m, 0, sizeof(*m));
	m->run = run;
	rc = fc_store_run_get(st, run, &m->info);
	if (rc)
		return rc;
	if ((rc = params_read(m, fc_store_path(st)))) {
		mx_model_release(m);
		return rc;
	}
	if (mx_rails_load(m)) {
		mx_model_release(m);
		return -ENOMEM;
	}
	nodes = json_object_get(m->info.params, "nodes");
	json_array_foreach(nodes, i, v) {
		if (json_is_string(v) && mx_model_node(m, json_string_value(v)) < 0 &&
		    add_node(m, json_string_value(v)) < 0) {
			mx_model_release(m);
			return -ENOMEM;
		}
	}
	rc = read_rows(m, st);
	if (rc) {
		if (rc == -ENOMEM)
			fc_err("out of memory reading run %lld", (long long)run);
		mx_model_release(m);
	}
	return rc;
}

int mx_model_refresh(struct mx_model *m, struct fc_store *st)
{
	size_t before = m->nres;
	struct fc_store_run info;
	int rc;

	rc = read_rows(m, st);
	if (rc)
		return rc;
	if (!fc_store_run_get(st, m->run, &info)) {
		fc_store_run_release(&m->info);
		m->info = info;
	}
	return (int)(m->nres - before);
}
