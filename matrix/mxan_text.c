/* The words of a matrix analysis: one line per finding. */
#include "matrix/mxan.h"
#include "core/out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fc_mx_bad_text(const struct fc_mx_analysis *an, const struct fc_mx_cell *c, char *buf,
		    size_t len)
{
	const struct fc_mx_opts *o = &an->opts;
	size_t off = 0;
	char fig[32];

	buf[0] = 0;
#define APPEND(...)                                                                \
	do {                                                                       \
		int w_ = snprintf(buf + off, len - off, "%s", off ? ", " : "");   \
		if (w_ > 0 && (size_t)w_ < len - off)                             \
			off += (size_t)w_;                                         \
		w_ = snprintf(buf + off, len - off, __VA_ARGS__);                 \
		if (w_ > 0 && (size_t)w_ < len - off)                             \
			off += (size_t)w_;                                         \
	} while (0)
	if (c->bad & FC_MX_BAD_ABS)
		APPEND("below %g Gb/s", o->min_gbps);
	if (c->bad & FC_MX_BAD_RACK)
		APPEND("below %g%% of the rack median %s", o->min_rack_pct,
		       fc_fmt_figure(an->rack_median_gbps, "%.3g", "Gb/s", fig, sizeof(fig)));
	if (c->bad & FC_MX_BAD_LAT)
		APPEND("latency above %g us", o->max_lat_us);
	if (c->bad & FC_MX_BAD_VERDICT)
		APPEND("failed by pair");
#undef APPEND
}

/* The union of the bad reasons of @node's bad pairs, as one cell. */
static struct fc_mx_cell node_bad_union(const struct fc_mx_analysis *an, int node, int *retest_p)
{
	struct fc_mx_cell u = { 0 };

	*retest_p = 0;
	for (int j = 0; j < an->n; j++) {
		if (j == node)
			continue;
		u.bad |= fc_mx_cell(an, node, j)->bad | fc_mx_cell(an, j, node)->bad;
		if ((fc_mx_cell(an, node, j)->retest && fc_mx_cell(an, node, j)->bad) ||
		    (fc_mx_cell(an, j, node)->retest && fc_mx_cell(an, j, node)->bad))
			*retest_p = 1;
	}
	return u;
}

void fc_mx_finding_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
			const char *const *names, char *buf, size_t len)
{
	const struct fc_mx_node *nd = f->a >= 0 && f->a < an->n ? &an->nodes[f->a] : NULL;
	struct fc_mx_cell u;
	char why[256], v1[32];
	int retest = 0;

	switch (f->kind) {
	case FC_MX_SUSPECT_NODE:
		u = node_bad_union(an, f->a, &retest);
		fc_mx_bad_text(an, &u, why, sizeof(why));
		snprintf(buf, len,
			 "suspect node %s: bad with %d of %d peers (its median %s; %s)%s: "
			 "check its HCA, cable, switch port and PCIe link, then run 'fabcheck pair' "
			 "against a good node",
			 names[f->a], nd->bad, nd->peers,
			 fc_fmt_figure(f->v1, "%.3g", "Gb/s", v1, sizeof(v1)), why,
			 retest ? ", still bad on retest" : "");
		break;
	case FC_MX_SUSPECT_LINK:
		u.bad = fc_mx_cell(an, f->a, f->b)->bad | fc_mx_cell(an, f->b, f->a)->bad;
		retest = fc_mx_cell(an, f->a, f->b)->retest || fc_mx_cell(an, f->b, f->a)->retest;
		fc_mx_bad_text(an, &u, why, sizeof(why));
		snprintf(buf, len,
			 "suspect link %s-%s: %s (%s) while both nodes are fine with their "
			 "other peers%s: check the cables and switch ports between them",
			 names[f->a], names[f->b], fc_fmt_figure(f->v1, "%.3g", "Gb/s", v1, sizeof(v1)),
			 why, retest ? ", still bad on retest" : "");
		break;
	case FC_MX_UNREACHABLE:
		snprintf(buf, len,
			 "node %s: none of its %d pairs could run: check that ssh to it works and "
			 "that fabcheck is installed there ('fabcheck devices' on it)",
			 names[f->a], (int)f->v1);
		break;
	case FC_MX_PAIR_ERROR:
		snprintf(buf, len,
			 "pair %s->%s could not run: see its error with 'fabcheck pair %s %s', "
			 "then 'fabcheck matrix --resume' to finish the run",
			 names[f->a], names[f->b], names[f->a], names[f->b]);
		break;
	case FC_MX_ASYMMETRY:
		snprintf(buf, len,
			 "link %s-%s is asymmetric: %s->%s %.3g Gb/s, %s->%s %.3g Gb/s (%.0f%%): "
			 "compare both ports' counters and the switch's per-direction settings",
			 names[f->a], names[f->b], names[f->a], names[f->b], f->v1, names[f->b],
			 names[f->a], f->v2, 100 * fmin(f->v1, f->v2) / fmax(f->v1, f->v2));
		break;
	case FC_MX_RACK_WIDE:
		snprintf(buf, len,
			 "%d of %d nodes are bad with most of their peers: the thresholds may not "
			 "fit this fabric (--min-gbps, --min-rack-pct) or the whole fabric is "
			 "degraded (check the switch)",
			 f->a, f->b);
		break;
	default:
		snprintf(buf, len, "unknown finding");
	}
}
