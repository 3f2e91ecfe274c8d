/* `matrix --screen`: the screening schedule driving the runner (see mx_screen.h). */
#include "matrix/mx_screen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "core/summary.h"
#include "matrix/mx_model.h"

json_t *mx_screen_params(int max_rounds, unsigned long long seed)
{
	return json_pack("{s:i, s:I}", "max_rounds", max_rounds, "seed", (json_int_t)seed);
}

static int grow(struct mx_screen *m, size_t need)
{
	if (need <= m->cap)
		return 0;
	if (fc_resize((void **)&m->meas, need, sizeof(*m->meas)) ||
	    fc_resize((void **)&m->res, need, sizeof(*m->res)))
		return -ENOMEM;
	m->cap = need;
	return 0;
}

/* The run's results so far as measurements: a cell per (pair, rail) with
 * rails, else one per pair on rail 0 (the model reads both). */
static int measurements(struct mx_screen *m, const struct mx_model *mm)
{
	size_t n = mm->nrails ? mm->nrcells : mm->nres;

	if (grow(m, n + 1))
		return -ENOMEM;
	m->nmeas = 0;
	for (size_t i = 0; i < n; i++) {
		struct fc_scr_meas *x = &m->meas[m->nmeas];

		if (mm->nrails)
			*x = (struct fc_scr_meas){ .a = mm->rcells[i].a, .b = mm->rcells[i].b,
						   .rail = mm->rcells[i].rail,
						   .gbps = mm->rcells[i].gbps,
						   .lat_us = mm->rcells[i].lat_us,
						   .state = (int)mm->rcells[i].state };
		else
			*x = (struct fc_scr_meas){ .a = mm->res[i].a, .b = mm->res[i].b,
						   .gbps = mm->res[i].gbps,
						   .lat_us = mm->res[i].lat_us,
						   .state = (int)mm->res[i].state };
		if (x->a >= 0 && x->b >= 0 && x->a < m->ss->n && x->b < m->ss->n &&
		    x->rail >= 0 && x->rail < m->rails && x->a != x->b)
			m->nmeas++;
	}
	return 0;
}

/* Reads the run as stored and brings the screen up to date. */
static int catch_up(struct mx_screen *m)
{
	struct mx_model mm;
	int rc = mx_model_load(&mm, m->ss->st, m->ss->run);

	if (rc)
		return rc;
	rc = measurements(m, &mm);
	mx_model_release(&mm);
	if (!rc && m->nmeas)
		rc = fc_scr_analyze(m->ss->n, m->rails, m->meas, m->nmeas, &m->opts, m->res, NULL,
				    NULL);
	if (!rc && m->nmeas)
		rc = fc_screen_update(&m->s, m->res, m->nmeas);
	if (rc)
		fc_err("screen of run %lld: cannot judge the results so far (%s)",
		       (long long)m->ss->run, strerror(-rc));
	return rc;
}

static int plan(void *arg, struct mx_runner *r)
{
	struct mx_screen *m = arg;
	struct fc_scr_pair *p = malloc(((size_t)m->ss->n / 2 + 1) * sizeof(*p));
	char why[320];
	int cnt, rc;

	if (!p)
		return -ENOMEM;
	rc = catch_up(m);
	cnt = rc ? rc : fc_screen_next(&m->s, p);
	for (int i = 0; i < cnt && !rc; i++) {
		rc = mx_run_add(r, p[i].a, p[i].b, 0);
		if (!rc)
			r->queue[r->nq - 1].round = m->s.round - 1;
	}
	free(p);
	if (rc)
		return rc;
	r->round = m->s.round - 1;
	fc_screen_stop_text(&m->s, why, sizeof(why));
	if (cnt > 0)
		fc_err_putf("screen round %d (of at most %d): %d pair%s; %s", m->s.round,
			m->s.max_rounds, cnt, fc_s(cnt), m->s.round > 1 ? why : "seed matching");
	else
		fc_err_putf("screen stopped: %s", why);
	return cnt > 0;
}

static int node_index(const struct mx_session *ss, const char *name)
{
	for (int i = 0; i < ss->n; i++)
		if (!strcmp(ss->names[i], name))
			return i;
	return -1;
}

/* Rounds already stored (a resumed screen): the highest round of a row,
 * and who met whom in each, so that retests still prefer new peers. */
struct stored {
	struct mx_screen *m;
	int rounds;
};

static int stored_rounds(const struct fc_store_pair *p, void *arg)
{
	struct stored *st = arg;
	json_t *doc = json_loads(p->doc, 0, NULL);
	int round = (int)fc_jnum(json_object_get(doc, "matrix"), "round", 0);

	if (round > st->rounds)
		st->rounds = round;
	if (round > 0)
		fc_screen_met(&st->m->s, node_index(st->m->ss, p->a), node_index(st->m->ss, p->b),
			      round - 1);
	json_decref(doc);
	return 0;
}

int mx_screen_open(struct mx_screen *m, struct mx_session *ss)
{
	const json_t *sp = json_object_get(ss->params, "screen");
	struct fc_scr_opts so = { 0 };
	struct stored done = { .m = m };
	int rc;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(sp))
		return 0;
	m->ss = ss;
	mx_params_opts(ss->params, &m->opts);
	m->rails = (int)json_array_size(json_object_get(json_object_get(ss->params, "rails"),
							"list"));
	if (m->rails < 1)
		m->rails = 1;
	so.max_rounds = (int)fc_jnum(sp, "max_rounds", 0);
	so.seed = (uint64_t)fc_jnum(sp, "seed", 1);
	rc = fc_screen_init(&m->s, ss->n, m->rails, &so);
	if (!rc)
		rc = fc_store_pairs(ss->st, ss->run, 0, stored_rounds, &done);
	if (rc) {
		fc_err("screen of run %lld: cannot start (%s)", (long long)ss->run, strerror(-rc));
		mx_screen_close(m);
		return rc;
	}
	m->s.round = done.rounds < m->s.max_rounds ? done.rounds : m->s.max_rounds;
	ss->r.plan = plan;
	ss->r.plan_arg = m;
	ss->r.rounds = m->s.max_rounds;
	return 1;
}

void mx_screen_close(struct mx_screen *m)
{
	if (m->ss)
		fc_screen_release(&m->s);
	free(m->meas);
	free(m->res);
	memset(m, 0, sizeof(*m));
}

static const char *stop_name(enum fc_scr_stop st)
{
	return st == FC_SCR_STOP_DONE ? "done" : st == FC_SCR_STOP_LIMIT ? "limit" :
	       st == FC_SCR_STOP_STUCK ? "stuck" : "running";
}

json_t *mx_screen_doc(const struct mx_screen *m)
{
	json_t *doc, *doubt = json_array();
	char why[320];

	fc_screen_stop_text(&m->s, why, sizeof(why));
	for (int i = 0; i < m->ss->n; i++) {
		for (int r = 0; r < m->rails; r++) {
			const struct fc_scr_item *x = fc_screen_item(&m->s, i, r);

			if (x->state != FC_SCR_SUSPECT && x->state != FC_SCR_UNKNOWN)
				continue;
			json_array_append_new(doubt, json_pack(
				"{s:s, s:i, s:s, s:i, s:i}", "node", m->ss->names[i], "rail", r,
				"state", fc_screen_state_name(x->state), "passes", x->passes,
				"bad_with_cleared", x->direct));
		}
	}
	doc = json_pack("{s:i, s:i, s:s, s:s, s:i, s:i, s:f, s:i, s:o}", "rounds", m->s.round,
			"max_rounds", m->s.max_rounds, "stop", stop_name(m->s.stop), "why", why,
			"named", m->s.named, "cleared", m->s.cleared, "noise", m->s.noise,
			"confirm_k", m->s.k_confirm, "in_doubt", doubt);
	return doc;
}

static const enum fc_scr_level scr_level[] = {
	[FC_MXL_LINK] = FC_SCR_LVL_LINK, [FC_MXL_PORT] = FC_SCR_LVL_PORT,
	[FC_MXL_NODE] = FC_SCR_LVL_NODE, [FC_MXL_RAIL] = FC_SCR_LVL_RAIL,
};

int mx_screen_hold(const struct mx_screen *m, struct mx_model *mm)
{
	int k = 0, doubt = 0;

	if (!m->ss || !mm->nrails)
		return 0;
	for (int i = 0; i < mm->ran.nsuspects; i++) {
		const struct fc_mxl_suspect *s = &mm->ran.suspects[i];
		struct fc_scr_culprit c = { .level = scr_level[s->level], .node = s->node,
					    .rail = s->rail, .a = s->node, .b = s->peer };

		if (fc_screen_holds(&m->s, &c))
			mm->ran.suspects[k++] = *s;
		else
			doubt++;
	}
	mm->ran.nsuspects = k;
	return doubt;
}
