/*
 * The analysis behind the screen. Each result is judged by the one-rail
 * analysis (matrix/mxan) of its rail, one rail at a time, as the levels
 * analysis judges its cells; the culprits are the levels analysis's
 * (matrix/mxlevel.h: link, port, node, rail), run once at the end.
 */
#include "matrix/screen.h"

#include <errno.h>
#include <stdlib.h>

#include "matrix/mxan.h"
#include "matrix/mxlevel.h"

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

static const enum fc_scr_level level_of[] = {
	[FC_MXL_LINK] = FC_SCR_LVL_LINK, [FC_MXL_PORT] = FC_SCR_LVL_PORT,
	[FC_MXL_NODE] = FC_SCR_LVL_NODE, [FC_MXL_RAIL] = FC_SCR_LVL_RAIL,
};

/* The levels analysis over every measurement: its suspects as culprits. */
static int level_culprits(int n, int rails, const struct fc_scr_meas *m, size_t nm,
			  const struct fc_mx_opts *o, struct fc_scr_culprit **v, int *nv)
{
	struct fc_mxl_cell *cells = malloc((nm + 1) * sizeof(*cells));
	struct fc_mxl_analysis an;
	int rc, cap = 0;

	if (!cells)
		return -ENOMEM;
	for (size_t i = 0; i < nm; i++)
		cells[i] = (struct fc_mxl_cell){ .a = m[i].a, .b = m[i].b, .rail = m[i].rail,
						 .gbps = m[i].gbps, .lat_us = m[i].lat_us,
						 .state = (enum fc_mx_state)m[i].state };
	rc = fc_mxl_analyze(n, rails, cells, nm, o, &an);
	free(cells);
	for (int i = 0; i < an.nsuspects && !rc; i++) {
		const struct fc_mxl_suspect *s = &an.suspects[i];
		struct fc_scr_culprit c = { .level = level_of[s->level], .node = -1,
					    .rail = s->rail, .a = -1, .b = -1 };

		if (s->level == FC_MXL_LINK) {
			c.a = s->node;
			c.b = s->peer;
		} else {
			c.node = s->node;
		}
		rc = add_culprit(v, nv, &cap, c);
	}
	fc_mxl_release(&an);
	return rc;
}

/* One rail: its measurements to mxan, the verdicts back. */
static int judge_rail(int n, int rail, const struct fc_scr_meas *m, size_t nm,
		      const struct fc_mx_opts *o, struct fc_mx_result *buf,
		      struct fc_scr_res *out)
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
	fc_mx_release(&an);
	return 0;
}

int fc_scr_analyze(int n, int rails, const struct fc_scr_meas *m, size_t nm,
		   const struct fc_mx_opts *o, struct fc_scr_res *out,
		   struct fc_scr_culprit **culprits_p, int *ncul_p)
{
	struct fc_mx_result *buf = malloc((nm + 1) * sizeof(*buf));
	int rc = 0, nv = 0;

	if (!buf)
		return -ENOMEM;
	if (culprits_p)
		*culprits_p = NULL;
	for (size_t i = 0; i < nm; i++)
		if (m[i].rail < 0 || m[i].rail >= rails)
			rc = -EINVAL;
	for (int r = 0; r < rails && !rc; r++)
		rc = judge_rail(n, r, m, nm, o, buf, out);
	free(buf);
	if (!rc && culprits_p)
		rc = level_culprits(n, rails, m, nm, o, culprits_p, &nv);
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
