/*
 * The analysis behind the screen: today the node-pair analysis (core/mxan)
 * on each rail alone. A result is bad by mxan's rules (its verdict, the
 * floors, the share of that rail's median); a suspect node of a rail is a
 * port, a suspect link a link, a rack-wide finding the rail. Naming a whole
 * host or a whole rail from several rails at once is the levels analysis's
 * work, which this function hands over to once it exists.
 */
#include "matrix/screen.h"

#include <errno.h>
#include <stdlib.h>

#include "matrix/mxan.h"

static int add_culprit(struct fc_scr_culprit **v, int *nv, int *cap, struct fc_scr_culprit c)
{
	if (*nv == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct fc_scr_culprit *p = realloc(*v, (size_t)ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = ncap;
	}
	(*v)[(*nv)++] = c;
	return 0;
}

static int rail_culprits(const struct fc_mx_analysis *an, int rail, struct fc_scr_culprit **v,
			 int *nv, int *cap)
{
	int rc = 0;

	for (int i = 0; i < an->nfindings && !rc; i++) {
		const struct fc_mx_finding *f = &an->findings[i];
		struct fc_scr_culprit c = { .node = -1, .rail = rail, .a = -1, .b = -1 };

		if (f->kind == FC_MX_SUSPECT_NODE) {
			c.level = FC_SCR_LVL_PORT;
			c.node = f->a;
		} else if (f->kind == FC_MX_SUSPECT_LINK) {
			c.level = FC_SCR_LVL_LINK;
			c.a = f->a;
			c.b = f->b;
		} else if (f->kind == FC_MX_RACK_WIDE) {
			c.level = FC_SCR_LVL_RAIL;
		} else {
			continue;
		}
		rc = add_culprit(v, nv, cap, c);
	}
	return rc;
}

/* One rail: its measurements to mxan, the verdicts back. */
static int judge_rail(int n, int rail, const struct fc_scr_meas *m, size_t nm,
		      const struct fc_mx_opts *o, struct fc_mx_result *buf,
		      struct fc_scr_res *out, struct fc_scr_culprit **v, int *nv, int *cap)
{
	struct fc_mx_analysis an;
	size_t k = 0;
	int rc;

	for (size_t i = 0; i < nm; i++)
		if (m[i].rail == rail)
			buf[k++] = (struct fc_mx_result){ .a = m[i].a, .b = m[i].b,
							  .gbps = m[i].gbps,
							  .lat_us = m[i].lat_us,
							  .state = (enum fc_mx_state)m[i].state };
	rc = fc_mx_analyze(n, buf, k, o, &an);
	if (rc)
		return rc;
	for (size_t i = 0; i < nm; i++) {
		if (m[i].rail != rail)
			continue;
		out[i] = (struct fc_scr_res){ .a = m[i].a, .b = m[i].b, .rail = rail };
		if (m[i].state != FC_MX_OK && m[i].state != FC_MX_FAIL)
			out[i].bad = -1;
		else
			out[i].bad = fc_mx_cell(&an, m[i].a, m[i].b)->bad != 0;
	}
	rc = v ? rail_culprits(&an, rail, v, nv, cap) : 0;
	fc_mx_release(&an);
	return rc;
}

int fc_scr_analyze(int n, int rails, const struct fc_scr_meas *m, size_t nm,
		   const struct fc_mx_opts *o, struct fc_scr_res *out,
		   struct fc_scr_culprit **culprits_p, int *ncul_p)
{
	struct fc_mx_result *buf = malloc((nm + 1) * sizeof(*buf));
	int rc = 0, nv = 0, cap = 0;

	if (!buf)
		return -ENOMEM;
	if (culprits_p)
		*culprits_p = NULL;
	for (size_t i = 0; i < nm; i++)
		if (m[i].rail < 0 || m[i].rail >= rails)
			rc = -EINVAL;
	for (int r = 0; r < rails && !rc; r++)
		rc = judge_rail(n, r, m, nm, o, buf, out, culprits_p, &nv, &cap);
	free(buf);
	if (rc && culprits_p) {
		free(*culprits_p);
		*culprits_p = NULL;
	}
	if (ncul_p)
		*ncul_p = rc ? 0 : nv;
	return rc;
}

const char *fc_scr_level_name(enum fc_scr_level l)
{
	static const char *const names[] = { [FC_SCR_LVL_PORT] = "port",
					     [FC_SCR_LVL_NODE] = "node",
					     [FC_SCR_LVL_RAIL] = "rail",
					     [FC_SCR_LVL_LINK] = "link" };

	return (unsigned)l < 4 ? names[l] : "?";
}
