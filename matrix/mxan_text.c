/* The words of a matrix analysis: one line per finding. */
#include "matrix/mxan.h"
#include "core/out.h"
#include "core/util.h"
#include "store/store.h" /* fc_fault_dev_words */

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

const char *fc_mx_none_ran(char *buf, size_t len, int pairs)
{
	if (pairs == 1)
		snprintf(buf, len, "its one pair could not run");
	else
		snprintf(buf, len, "none of its %d pairs could run", pairs);
	return buf;
}

/* A bad pair of @node with a peer it was judged on was measured again. */
static int node_retested(const struct fc_mx_analysis *an, int node)
{
	for (int j = 0; j < an->n; j++) {
		const struct fc_mx_cell *x = fc_mx_cell(an, node, j), *y = fc_mx_cell(an, j, node);

		if (j != node && an->nodes[j].state == FC_MX_NODE_OK &&
		    ((x->retest && x->bad) || (y->retest && y->bad)))
			return 1;
	}
	return 0;
}

/* "bad with 3 of 3 peers (below 0.05 Gb/s; the slowest 0.02 Gb/s, with
 * nodeA; its median 0.02 Gb/s)": the pairs it was judged on, and its
 * median only where that is below a bar too; ", still bad on retest"
 * when one of them was measured again. */
void fc_mx_node_why(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
		    const char *const *names, char *buf, size_t len)
{
	const struct fc_mx_opts *o = &an->opts;
	struct fc_mx_cell u = { .bad = f->why };
	double med = an->nodes[f->a].median_gbps;
	char why[256], worst[96] = "", mtext[64] = "", fig[32];
	int low = isfinite(med) && ((o->min_gbps > 0 && med < o->min_gbps && (an->judge & FC_MX_BAD_ABS)) ||
				    (o->min_rack_pct > 0 && isfinite(an->rack_median_gbps) &&
				     med < an->rack_median_gbps * o->min_rack_pct / 100));

	if (f->why & FC_MX_BAD_OWN) { /* mxan.h: its worker said so */
		snprintf(buf, len,
			 "its own RDMA device, port or rail could not be set up or connected in "
			 "%d of its %d pair%s (its worker said so: the node's fault, not a link's)",
			 f->nbad, f->peers, fc_s(f->peers));
		return;
	}
	fc_mx_bad_text(an, &u, why, sizeof(why));
	if ((f->why & (FC_MX_BAD_ABS | FC_MX_BAD_RACK)) && isfinite(f->worst_gbps) &&
	    f->worst_peer >= 0)
		snprintf(worst, sizeof(worst), "; the slowest %s, with %s",
			 fc_fmt_figure(f->worst_gbps, "%.3g", "Gb/s", fig, sizeof(fig)),
			 names[f->worst_peer]);
	if (low)
		snprintf(mtext, sizeof(mtext), "; its median %s",
			 fc_fmt_figure(med, "%.3g", "Gb/s", fig, sizeof(fig)));
	snprintf(buf, len, "bad with %d of %d peer%s (%s%s%s)%s", f->nbad, f->peers,
		 fc_s(f->peers), why, worst, mtext,
		 node_retested(an, f->a) ? ", still bad on retest" : "");
}

void fc_mx_own_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
		    const char *const *names, const char *dev, int port, char *buf, size_t len)
{
	char why[512], on[96];

	fc_mx_node_why(an, f, names, why, sizeof(why));
	snprintf(buf, len,
		 "suspect node %s%s: %s: check its HCA, that port's state and cable, and its "
		 "RDMA setup ('fabcheck devices' on it)",
		 names[f->a], fc_fault_dev_words(on, sizeof(on), dev, port), why);
}

static void node_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
		      const char *const *names, char *buf, size_t len)
{
	char why[512];

	if (f->why & FC_MX_BAD_OWN) {
		fc_mx_own_text(an, f, names, NULL, 0, buf, len);
		return;
	}
	fc_mx_node_why(an, f, names, why, sizeof(why));
	snprintf(buf, len,
		 "suspect node %s: %s: check its HCA, cable, switch port and PCIe link, "
		 "then run 'fabcheck pair' against a good node",
		 names[f->a], why);
}

int fc_mx_link_why(const struct fc_mx_analysis *an, const struct fc_mx_finding *f, char *buf,
		   size_t len)
{
	struct fc_mx_cell u;
	char why[256], v1[32];

	u.bad = (fc_mx_cell(an, f->a, f->b)->bad | fc_mx_cell(an, f->b, f->a)->bad) & an->judge;
	fc_mx_bad_text(an, &u, why, sizeof(why));
	snprintf(buf, len, "%s (%s)", fc_fmt_figure(f->v1, "%.3g", "Gb/s", v1, sizeof(v1)), why);
	return fc_mx_cell(an, f->a, f->b)->retest || fc_mx_cell(an, f->b, f->a)->retest;
}

const struct fc_mx_finding *fc_mx_finding_of(const struct fc_mx_analysis *an,
					     enum fc_mx_kind kind, int a)
{
	for (int i = 0; i < an->nfindings; i++)
		if (an->findings[i].kind == kind && (a < 0 || an->findings[i].a == a))
			return &an->findings[i];
	return NULL;
}

void fc_mx_floor_why(char *buf, size_t len, double min_gbps, int pairs, int nodes, int nrails,
		     double best)
{
	char fig[32], rails[48] = "";

	if (nrails > 1)
		snprintf(rails, sizeof(rails), " on %d rails", nrails);
	snprintf(buf, len, "every pair%s is below --min-gbps %g (%d pair%s of %d nodes%s, the best %s)",
		 nrails > 1 ? " on every rail" : "", min_gbps, pairs, fc_s(pairs), nodes, rails,
		 fc_fmt_figure(best, "%.3g", "Gb/s", fig, sizeof(fig)));
}

void fc_mx_rack_wide_why(char *buf, size_t len, const struct fc_mx_finding *f)
{
	snprintf(buf, len, "%d of %d nodes are bad with most of their peers", f->a, f->b);
}

void fc_mx_floor_text(char *buf, size_t len, double min_gbps, int pairs, int nodes, int nrails,
		      double best)
{
	char why[256];

	fc_mx_floor_why(why, sizeof(why), min_gbps, pairs, nodes, nrails, best);
	snprintf(buf, len,
		 "%s: the floor is above what this fabric carries, or the whole fabric is slow "
		 "(check the switch and the ports' rate)",
		 why);
}

void fc_mx_floor_doc(json_t *doc, double min_gbps, int pairs, int nodes, int nrails, double best)
{
	json_object_set_new(doc, "floor",
			    json_pack("{s:f, s:i, s:i, s:i, s:f}", "min_gbps", min_gbps, "pairs", pairs,
				      "nodes", nodes, "rails", nrails > 1 ? nrails : 1, "best_gbps",
				      best));
}

/* The whole rack: every pair below the floor, or the nodes that remain
 * all bad with each other. */
static void rack_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f, char *buf,
		      size_t len)
{
	if (f->kind == FC_MX_FLOOR) {
		fc_mx_floor_text(buf, len, an->opts.min_gbps, f->a, f->b, 0, f->v2);
		return;
	}
	{
		struct fc_mx_cell u = { .bad = 0 };
		char why[256];
		int figures = 0;

		for (int i = 0; i < an->n; i++)
			for (int j = 0; j < an->n; j++)
				if (i != j && an->nodes[i].state == FC_MX_NODE_OK &&
				    an->nodes[j].state == FC_MX_NODE_OK) {
					u.bad |= fc_mx_cell(an, i, j)->bad & an->judge;
					figures += fc_mx_cell(an, i, j)->state == FC_MX_OK ||
						   (fc_mx_cell(an, i, j)->state == FC_MX_FAIL &&
						    (isfinite(fc_mx_cell(an, i, j)->gbps) ||
						     isfinite(fc_mx_cell(an, i, j)->lat_us)));
				}
		fc_mx_bad_text(an, &u, why, sizeof(why));
		/* Every pair failed on its data path, no figure: each end's
		 * device was set up (a node's own device would be its own
		 * finding, mxan.h FC_MX_BAD_OWN), the paths between them
		 * failed; no pair among them worked to hold a node against. */
		if (!figures && u.bad == FC_MX_BAD_VERDICT)
			snprintf(buf, len,
				 "%d nodes are bad with each other, every one of their %d pairs failed "
				 "by pair with no figure, though each node's device was set up: no pair "
				 "among them worked, so the nodes cannot be told apart and none is "
				 "named; the fabric between them (the switch, its configuration) or a "
				 "setting they all share (MTU, GID index, PFC): check the switch",
				 f->a, f->b);
		else
			snprintf(buf, len,
			 "%d nodes are bad with each other, every one of their %d pairs (%s): none "
			 "of them stands out, so none is named; the rack's own spread is wider than "
			 "the thresholds allow (--min-rack-pct, --min-gbps) or the fabric between "
			 "them is slow (check the switch)",
			 f->a, f->b, why);
	}
}

void fc_mx_finding_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
			const char *const *names, char *buf, size_t len)
{
	char why[256], none[48];
	int retest = 0;

	switch (f->kind) {
	case FC_MX_SUSPECT_NODE:
		node_text(an, f, names, buf, len);
		break;
	case FC_MX_FLOOR:
	case FC_MX_SPREAD:
		rack_text(an, f, buf, len);
		break;
	case FC_MX_SUSPECT_LINK:
		retest = fc_mx_link_why(an, f, why, sizeof(why));
		/* Two nodes with no other peer (a matrix of two): the one pair
		 * cannot tell its link from either node. */
		if (an->nodes[f->a].peers == 1 && an->nodes[f->b].peers == 1)
			snprintf(buf, len,
				 "suspect link %s-%s: %s, their only pair%s: two nodes alone cannot "
				 "tell the link from either node; check the cables and switch ports "
				 "between them, then test each against a third node",
				 names[f->a], names[f->b], why, retest ? ", still bad on retest" : "");
		else
			snprintf(buf, len,
				 "suspect link %s-%s: %s while both nodes are fine with their "
				 "other peers%s: check the cables and switch ports between them",
				 names[f->a], names[f->b], why, retest ? ", still bad on retest" : "");
		break;
	case FC_MX_UNREACHABLE:
		snprintf(buf, len,
			 "node %s: %s: check that ssh to it works and "
			 "that fabcheck is installed there ('fabcheck devices' on it)",
			 names[f->a], fc_mx_none_ran(none, sizeof(none), (int)f->v1));
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
		fc_mx_rack_wide_why(why, sizeof(why), f);
		snprintf(buf, len,
			 "%s: the thresholds may not fit this fabric (--min-gbps, --min-rack-pct) "
			 "or the whole fabric is degraded (check the switch)",
			 why);
		break;
	default:
		snprintf(buf, len, "unknown finding");
	}
}
