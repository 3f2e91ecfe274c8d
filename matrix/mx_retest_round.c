/* The rounds of `matrix --retest` (see mx_session.h mx_session_retest and
 * mxan.h FC_MX_RETEST_ROUNDS): what each round queues and why it ran. */
#include "matrix/mx_session.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mx_model.h"

/* The analysis of the first pass, @m's figures before any retest (a later
 * figure of the same a -> b still replaces an earlier one): into @an, or
 * with rails into @ran. 0 or a negative errno. */
static int first_pass(const struct mx_model *m, struct fc_mx_analysis *an,
		      struct fc_mxl_analysis *ran)
{
	size_t k = 0;
	int rc;

	if (m->nrails) {
		struct fc_mxl_cell *c = calloc(m->nrcells + 1, sizeof(*c));

		if (!c)
			return -ENOMEM;
		for (size_t i = 0; i < m->nrcells; i++)
			if (!m->rcells[i].retest)
				c[k++] = m->rcells[i];
		rc = fc_mxl_analyze(m->n, m->nrails, c, k, &m->opts, ran);
		free(c);
	} else {
		struct fc_mx_result *r = calloc(m->nres + 1, sizeof(*r));

		if (!r)
			return -ENOMEM;
		for (size_t i = 0; i < m->nres; i++)
			if (!m->res[i].retest)
				r[k++] = m->res[i];
		rc = fc_mx_analyze(m->n, r, k, &m->opts, an);
		free(r);
	}
	return rc;
}

/* Appends "X -> Y Gb/s" to @buf when the median @was is not @now at the
 * precision the grid shows them; returns 1 when it moved. */
static int median_moved(char *buf, size_t len, const char *label, double was, double now)
{
	char a[32], b[32];
	size_t used = strlen(buf);

	snprintf(a, sizeof(a), "%.3g", was);
	snprintf(b, sizeof(b), "%.3g", now);
	if (!isfinite(was) || !isfinite(now) || !strcmp(a, b))
		return 0;
	snprintf(buf + used, len - used, "%s%s%s -> %s Gb/s", used ? "; " : "", label, a, b);
	return 1;
}

/* Why round 2 ran: "the median moved (rail 0 (rxe0): 0.05 -> 0.0802
 * Gb/s)" for each rail (or the run) a planned pair is on whose median the
 * first round moved; else "the suspects changed" (a retest that cleared a
 * suspect node leaves its other bad pairs to be judged as links). */
static void round2_why(const struct mx_model *m, const struct fc_mx_analysis *first,
		       const struct fc_mxl_analysis *rfirst, const struct fc_mxl_cell *plan,
		       int cnt, char *buf, size_t len)
{
	char moved[192] = "", label[96];
	int any = 0;

	if (!m->nrails) {
		any = median_moved(moved, sizeof(moved), "", first->rack_median_gbps,
				   m->an.rack_median_gbps);
	} else {
		for (int r = 0; r < m->nrails; r++) {
			int on = 0;

			for (int i = 0; i < cnt; i++)
				on |= plan[i].rail == r;
			snprintf(label, sizeof(label), "rail %d (%s): ", m->rails[r].index,
				 m->rails[r].name);
			if (on)
				any |= median_moved(moved, sizeof(moved), label,
						    rfirst->rails[r].rack_median_gbps,
						    m->ran.rails[r].rack_median_gbps);
		}
	}
	if (any)
		snprintf(buf, len, "the median moved (%s)", moved);
	else
		snprintf(buf, len, "the suspects changed");
}

/* The cells of round @round: round 1 the suspects' (fc_mx_retest_plan,
 * fc_mxl_retest_plan), round 2 the new suspects' against the first pass
 * (fc_mx_retest_plan_new), its why into @why. The count or -errno. */
static int round_plan(const struct mx_model *m, int round, struct fc_mxl_cell *plan, int max,
		      char *why, size_t len)
{
	struct fc_mx_analysis first = { 0 };
	struct fc_mxl_analysis rfirst = { 0 };
	int *a, *b, cnt;

	if (m->nrails) {
		if (round == 1) {
			snprintf(why, len, "the suspects of the first pass");
			return fc_mxl_retest_plan(&m->ran, plan, max);
		}
		cnt = first_pass(m, NULL, &rfirst);
		if (!cnt)
			cnt = fc_mxl_retest_plan_new(&m->ran, &rfirst, plan, max);
		if (cnt > 0)
			round2_why(m, NULL, &rfirst, plan, cnt, why, len);
		fc_mxl_release(&rfirst);
		return cnt;
	}
	a = calloc(2 * ((size_t)max + 1), sizeof(*a));
	if (!a)
		return -ENOMEM;
	b = a + max + 1;
	if (round == 1) {
		snprintf(why, len, "the suspects of the first pass");
		cnt = fc_mx_retest_plan(&m->an, a, b, max);
	} else {
		cnt = first_pass(m, &first, NULL);
		if (!cnt)
			cnt = fc_mx_retest_plan_new(&m->an, &first, a, b, max);
	}
	for (int i = 0; i < cnt; i++)
		plan[i] = (struct fc_mxl_cell){ .a = a[i], .b = b[i], .rail = -1, .gbps = NAN,
						.lat_us = NAN };
	if (round > 1 && cnt > 0)
		round2_why(m, &first, NULL, plan, cnt, why, len);
	fc_mx_release(&first);
	free(a);
	return cnt;
}

int mx_session_retest(struct mx_session *s, const struct mx_model *m)
{
	int round = s->retested + 1, max = m->n * (m->nrails ? m->nrails : 1) * 4 + 8, cnt;
	struct mx_retest_round *rr;
	struct fc_mxl_cell *plan;

	if (!s->retest || round > FC_MX_RETEST_ROUNDS)
		return 0;
	s->retested = round;
	rr = &s->rounds[round - 1];
	plan = calloc((size_t)max, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	cnt = round_plan(m, round, plan, max, rr->why, sizeof(rr->why));
	/* Each document says its round ("retest_round", mx_run.c). */
	for (int i = 0; i < cnt; i++)
		if (mx_run_add_rail(&s->r, plan[i].a, plan[i].b, round,
				    plan[i].rail >= 0 ? m->rails[plan[i].rail].name : NULL))
			cnt = -ENOMEM;
	rr->pairs = cnt > 0 ? cnt : 0;
	free(plan);
	return cnt;
}

json_t *mx_session_retests_doc(const struct mx_session *s)
{
	json_t *list;

	if (!s->rounds[0].pairs)
		return NULL;
	list = json_array();
	for (int i = 0; i < FC_MX_RETEST_ROUNDS && s->rounds[i].pairs; i++)
		json_array_append_new(list, json_pack("{s:i, s:i, s:s}", "round", i + 1, "pairs",
						      s->rounds[i].pairs, "why",
						      s->rounds[i].why));
	return list;
}
