/* The matrix model: a run read back from the store, and its analysis. */
#include "matrix/mx_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"
#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_pattern.h"
#include "matrix/mx_rails.h"

enum fc_mx_state mx_state_of(const char *verdict)
{
	if (!strcmp(verdict, "pass") || !strcmp(verdict, "warn"))
		return FC_MX_OK;
	if (!strcmp(verdict, "fail"))
		return FC_MX_FAIL;
	return FC_MX_ERROR;
}

unsigned char mx_fault_bits(const struct mx_model *m, int a, int b, const char *node_fault)
{
	if (!node_fault)
		return 0;
	return (unsigned char)((!strcmp(m->names[a], node_fault) ? FC_MX_FAULT_A : 0) |
			       (!strcmp(m->names[b], node_fault) ? FC_MX_FAULT_B : 0));
}

int mx_model_node(const struct mx_model *m, const char *name)
{
	const json_t *i;

	/* Hashed: looked up twice per row, half a million rows at 1,024 nodes. */
	if (m->by_name) {
		i = json_object_get(m->by_name, name);
		return i ? (int)json_integer_value(i) : -1;
	}
	for (int k = 0; k < m->n; k++)
		if (!strcmp(m->names[k], name))
			return k;
	return -1;
}

json_t *mx_params_new(char **nodes, int n, int both, int retest, const struct fc_mx_opts *o,
		      const json_t *pair_args, double deadline_s)
{
	json_t *p = json_object(), *list = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(list, json_string(nodes[i]));
	json_object_set_new(p, "nodes", list);
	json_object_set_new(p, "both_directions", json_boolean(both));
	json_object_set_new(p, "retest", json_boolean(retest));
	json_object_set_new(p, "min_gbps", json_real(o->min_gbps));
	json_object_set_new(p, "min_rack_pct", json_real(o->min_rack_pct));
	json_object_set_new(p, "max_lat_us", json_real(o->max_lat_us));
	json_object_set_new(p, "asym_pct", json_real(o->asym_pct));
	json_object_set_new(p, "pair_args", pair_args ? json_deep_copy(pair_args) : json_array());
	json_object_set_new(p, "deadline_s", json_real(deadline_s));
	return p;
}

void mx_params_opts(const json_t *p, struct fc_mx_opts *o)
{
	struct fc_mx_opts d = FC_MX_OPTS_DEFAULT;

	o->min_gbps = fc_jnum(p, "min_gbps", d.min_gbps);
	o->min_rack_pct = fc_jnum(p, "min_rack_pct", d.min_rack_pct);
	o->max_lat_us = fc_jnum(p, "max_lat_us", d.max_lat_us);
	o->asym_pct = fc_jnum(p, "asym_pct", d.asym_pct);
}

/* Whether the number at @key of @obj (absent: fine) is within [@min, @max],
 * or is 0 where @zero_ok; logs why not. */
static int stored_ok(const json_t *obj, const char *key, double min, double max, int zero_ok,
		     const char *opt, long long run, const char *db)
{
	const json_t *v = json_object_get(obj, key);
	double d = json_number_value(v);

	if (!v || (json_is_number(v) && ((d >= min && d <= max) || (zero_ok && d == 0))))
		return 1;
	fc_err("run %lld in %s: its stored '%s' (%g) is not a number from %g to %g%s, as %s takes: "
	       "the store was changed outside fabcheck; start a new run",
	       run, db, key, json_is_number(v) ? d : NAN, min, max, zero_ok ? " or 0" : "", opt);
	return 0;
}

int mx_params_check(const json_t *p, long long run, const char *db)
{
	const json_t *scr = json_object_get(p, "screen");

	return stored_ok(p, "min_gbps", 0, MX_MIN_GBPS_MAX, 0, "--min-gbps", run, db) &&
			       stored_ok(p, "max_lat_us", 0, MX_MAX_LAT_US_MAX, 0, "--max-lat-us", run, db) &&
			       stored_ok(p, "min_rack_pct", 0, 100, 0, "--min-rack-pct", run, db) &&
			       stored_ok(p, "asym_pct", 0, 100, 0, "--asym-pct", run, db) &&
			       stored_ok(p, "deadline_s", 1, MX_DEADLINE_MAX, 1, "--deadline", run, db) &&
			       stored_ok(scr, "max_rounds", 1, MX_MAX_ROUNDS_MAX, 1, "--max-rounds", run, db) ?
		       0 :
		       -EINVAL;
}

int mx_model_analyze(struct mx_model *m)
{
	int rc;

	if (m->analyzed)
		return 0;
	/* Again as results come in: the analyses reuse their memory. */
	rc = fc_mx_reanalyze(m->n, m->res, m->nres, &m->opts, &m->an);
	if (!rc && m->nrails)
		rc = mx_rails_analyze(m);
	if (rc) {
		fc_err("cannot analyse run %lld: %s", (long long)m->run, strerror(-rc));
		return rc;
	}
	m->analyzed = 1;
	return 0;
}

void mx_model_release(struct mx_model *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	json_decref(m->by_name);
	free(m->seen);
	free(m->rate_gbps);
	for (size_t i = 0; i < m->nres; i++)
		free(m->res_err[i]);
	free(m->res_err);
	json_decref(m->fault_dev);
	free(m->res);
	free(m->res_id);
	fc_mx_release(&m->an);
	mx_rails_release(m);
	fc_store_run_release(&m->info);
	memset(m, 0, sizeof(*m));
}

/* True when the schedule's a -> b (or b -> a without --both-directions)
 * has a first (non-retest) measurement that ran or errored. */
static int sched_done(const struct mx_model *m, const unsigned char *seen, int a, int b)
{
	return seen[a * m->n + b] || (!m->both && seen[b * m->n + a]);
}

/* A pattern run's schedule is its rounds of flows (core/pattern.h), each
 * flow a directed pair that the pattern runs once: @p counts those measured
 * (@seen) of them all, and its first round with one still to run. -1 when
 * @m is not a pattern run. */
static int pattern_progress(const struct mx_model *m, const unsigned char *seen,
			    struct mx_progress *p)
{
	enum fc_pattern pat;
	struct fc_pplan pl;
	int k, rc, *leaf;

	if (mx_pattern_params(m->info.params, &pat, &k) || pat == FC_PAT_PAIRS)
		return -1;
	leaf = pat == FC_PAT_BISECTION ?
		       mx_pattern_leaves(m->info.params, (const char *const *)m->names, m->n) :
		       NULL;
	rc = fc_pattern_plan(pat, m->n, k, leaf, &pl);
	free(leaf);
	if (rc)
		return -1;
	p->rounds = p->round = pl.nrounds;
	p->total = pl.flows;
	for (int r = 0; r < pl.nrounds; r++) {
		int all = 1;

		for (int i = 0; i < pl.r[r].n; i++) {
			if (seen[pl.r[r].f[i].src * m->n + pl.r[r].f[i].dst])
				p->done++;
			else
				all = 0;
		}
		if (!all && p->round == pl.nrounds)
			p->round = r;
	}
	fc_pattern_release(&pl);
	return 0;
}

/* The matrix's own schedule (core/sched.h): its directed pairs, or its
 * pairs in either direction without --both-directions. */
static void pairs_progress(const struct mx_model *m, const unsigned char *seen,
			   struct fc_pair_idx *pi, struct mx_progress *p)
{
	int rounds = fc_sched_rounds(m->n, m->both);

	p->rounds = p->round = rounds;
	p->total = m->n * (m->n - 1) / (m->both ? 1 : 2);
	for (int r = 0; r < rounds; r++) {
		int cnt = fc_sched_round(m->n, m->both, r, pi), all = 1;

		for (int k = 0; k < cnt; k++) {
			if (sched_done(m, seen, pi[k].a, pi[k].b))
				p->done++;
			else
				all = 0;
		}
		if (!all && p->round == rounds)
			p->round = r;
	}
}

void mx_model_progress(const struct mx_model *m, double now, struct mx_progress *p)
{
	int n = m->n;
	unsigned char *seen = calloc((size_t)n * (size_t)n + 1, 1);
	struct fc_pair_idx *pi = calloc((size_t)fc_sched_round_max(n) + 1, sizeof(*pi));

	memset(p, 0, sizeof(*p));
	p->rounds = fc_sched_rounds(n, m->both);
	p->total = n * (n - 1) / (m->both ? 1 : 2);
	p->left_s = NAN;
	p->elapsed_s = (m->info.ended > 0 ? m->info.ended : now) - m->info.started;
	if (!seen || !pi)
		goto out_free;
	for (size_t i = 0; i < m->nres; i++)
		if (!m->res[i].retest && m->res[i].state != FC_MX_NONE)
			seen[m->res[i].a * n + m->res[i].b] = 1;
	if (pattern_progress(m, seen, p)) {
		p->done = 0;
		pairs_progress(m, seen, pi, p);
	}
	if (p->done >= p->total)
		p->left_s = 0;
	else if (p->done > 0 && m->last_time > m->info.started)
		p->left_s = (m->last_time - m->info.started) / p->done * (p->total - p->done);
out_free:
	free(seen);
	free(pi);
}

const struct fc_mx_cell *mx_model_show(const struct mx_model *m, int a, int b, int *mirrored_p)
{
	const struct fc_mx_cell *c;

	*mirrored_p = 0;
	if (!m->analyzed || a == b || a < 0 || b < 0 || a >= m->n || b >= m->n)
		return NULL;
	c = fc_mx_cell(&m->an, a, b);
	if (c->state != FC_MX_NONE)
		return c;
	c = fc_mx_cell(&m->an, b, a);
	if (!m->both && c->state != FC_MX_NONE) {
		*mirrored_p = 1;
		return c;
	}
	return NULL;
}

const struct fc_mx_cell *mx_model_show_in(const struct mx_model *m,
					  const struct fc_mx_analysis *an, int a, int b,
					  int *mirrored_p)
{
	const struct fc_mx_cell *c;

	if (an == &m->an)
		return mx_model_show(m, a, b, mirrored_p);
	*mirrored_p = 0;
	if (a == b || a < 0 || b < 0 || a >= an->n || b >= an->n)
		return NULL;
	c = fc_mx_cell(an, a, b);
	if (c->state != FC_MX_NONE)
		return c;
	c = fc_mx_cell(an, b, a);
	*mirrored_p = !m->both && c->state != FC_MX_NONE;
	return *mirrored_p ? c : NULL;
}

double mx_model_share_in(const struct fc_mx_analysis *an, const struct fc_mx_cell *c)
{
	if (!c || !isfinite(c->gbps) || !isfinite(an->best_gbps) || an->best_gbps <= 0)
		return NAN;
	return fmax(0, fmin(1, c->gbps / an->best_gbps));
}

const struct fc_mx_cell *mx_model_worst(const struct fc_mx_analysis *an, int node)
{
	const struct fc_mx_cell *worst = NULL;

	for (int j = 0; j < an->n; j++)
		for (int d = 0; d < 2 && j != node; d++) {
			const struct fc_mx_cell *c = d ? fc_mx_cell(an, j, node) :
							 fc_mx_cell(an, node, j);

			if (c->state != FC_MX_NONE && isfinite(c->gbps) &&
			    (!worst || c->gbps < worst->gbps))
				worst = c;
		}
	return worst;
}

/* @c is worse than the block's worst so far. */
static int worse(const struct fc_mx_analysis *an, const struct fc_mx_cell *c,
		 const struct fc_mx_cell *w)
{
	double sc = mx_model_share_in(an, c), sw;

	if (!w || (c->bad && !w->bad))
		return 1;
	if (!c->bad != !w->bad)
		return 0;
	sw = mx_model_share_in(an, w);
	return isfinite(sc) && (!isfinite(sw) || sc < sw);
}

void mx_model_block(const struct mx_model *m, const struct fc_mx_analysis *an, int a0, int b0,
		    int g, struct mx_block *k)
{
	int a1 = a0 + g < an->n ? a0 + g : an->n, b1 = b0 + g < an->n ? b0 + g : an->n;

	*k = (struct mx_block){ .wa = -1, .wb = -1 };
	for (int a = a0; a < a1; a++)
		for (int b = b0; b < b1; b++) {
			int mirrored;
			const struct fc_mx_cell *c = a == b ? NULL :
						     mx_model_show_in(m, an, a, b, &mirrored);

			if (!c)
				continue;
			if (c->state == FC_MX_ERROR) {
				k->errors++;
				continue;
			}
			k->measured++;
			k->bad += c->bad != 0;
			if (worse(an, c, k->worst)) {
				k->worst = c;
				k->wa = a;
				k->wb = b;
			}
		}
}

double mx_model_share(const struct mx_model *m, const struct fc_mx_cell *c)
{
	double best = m->an.best_gbps;

	if (!c || !isfinite(c->gbps) || !isfinite(best) || best <= 0)
		return NAN;
	return fmax(0, fmin(1, c->gbps / best));
}

void mx_heat_rgb(double share, unsigned char rgb[3])
{
	/* ColorBrewer RdYlGn end points and middle. */
	static const double stops[3][3] = { { 215, 48, 39 }, { 254, 224, 139 }, { 26, 152, 80 } };
	double t = isfinite(share) ? fmax(0, fmin(1, share)) : 0;
	int lo = t < 0.5 ? 0 : 1;
	double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;

	for (int i = 0; i < 3; i++)
		rgb[i] = (unsigned char)lround(stops[lo][i] + (stops[lo + 1][i] - stops[lo][i]) * u);
}

const char *mx_model_fault_dev(const struct mx_model *m, int i, int *port_p)
{
	*port_p = 0;
	return i >= 0 && i < m->n ? fc_fault_dev_of(m->fault_dev, m->names[i], port_p) : NULL;
}

const char *mx_model_error(const struct mx_model *m, int a, int b)
{
	for (size_t i = m->nres; i-- > 0;)
		if (m->res[i].a == a && m->res[i].b == b)
			return m->res_err[i];
	return NULL;
}

int mx_model_finding_text(const struct mx_model *m, const struct fc_mx_finding *f, char *buf,
			  size_t len)
{
	int port;
	const char *dev = f->kind == FC_MX_SUSPECT_NODE && (f->why & FC_MX_BAD_OWN) ?
				  mx_model_fault_dev(m, f->a, &port) : NULL;

	if (!dev) {
		fc_mx_finding_text(&m->an, f, (const char *const *)m->names, buf, len);
		return 0;
	}
	fc_mx_own_text(&m->an, f, (const char *const *)m->names, dev, port, buf, len);
	return 1;
}
