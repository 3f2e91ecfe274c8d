/* Analysis of a node-pair matrix (see mxan.h). */
#include "matrix/mxan.h"
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct fc_mx_cell *cell(struct fc_mx_analysis *an, int a, int b)
{
	return &an->cells[(size_t)a * (size_t)an->n + (size_t)b];
}

int fc_mx_pair_bad(const struct fc_mx_analysis *an, int a, int b)
{
	return fc_mx_cell(an, a, b)->bad || fc_mx_cell(an, b, a)->bad;
}

int fc_mx_failed(const struct fc_mx_analysis *an)
{
	for (int i = 0; i < an->nfindings; i++) {
		enum fc_mx_kind k = an->findings[i].kind;

		if (k == FC_MX_RACK_WIDE || k == FC_MX_FLOOR ||
		    (k == FC_MX_SPREAD && an->findings[i].fail))
			return 1;
	}
	return an->nsuspects > 0;
}

static int pair_errored(const struct fc_mx_analysis *an, int a, int b)
{
	return fc_mx_cell(an, a, b)->state == FC_MX_ERROR ||
	       fc_mx_cell(an, b, a)->state == FC_MX_ERROR;
}

static int fill_cells(struct fc_mx_analysis *an, const struct fc_mx_result *res, size_t nres)
{
	for (size_t i = 0; i < nres; i++) {
		const struct fc_mx_result *r = &res[i];
		struct fc_mx_cell *c;

		if (r->a < 0 || r->b < 0 || r->a >= an->n || r->b >= an->n || r->a == r->b)
			return -EINVAL;
		c = cell(an, r->a, r->b);
		if (!fc_mx_ran(c) && (r->state == FC_MX_OK || r->state == FC_MX_FAIL))
			an->nmeasured++;
		else if (fc_mx_ran(c) && !(r->state == FC_MX_OK || r->state == FC_MX_FAIL))
			an->nmeasured--;
		c->gbps = r->gbps;
		c->lat_us = r->lat_us;
		c->state = (unsigned char)r->state;
		c->retest = (unsigned char)(r->retest < 0 ? 0 : r->retest > 255 ? 255 : r->retest);
		c->fault = r->fault & (FC_MX_FAULT_A | FC_MX_FAULT_B);
		an->nfaults += c->fault != 0;
	}
	return 0;
}

/* Per-node medians over both directions, then the rack's. */
static void medians(struct fc_mx_analysis *an, double *scratch, double *scratch2)
{
	int n = an->n, i, j;
	size_t k, kl, nm = 0, nl = 0;

	an->best_gbps = NAN;
	for (i = 0; i < n; i++) {
		k = kl = 0;
		for (j = 0; j < n; j++) {
			const struct fc_mx_cell *c[2] = { cell(an, i, j), cell(an, j, i) };

			for (int d = 0; d < 2 && i != j; d++) {
				if (!fc_mx_ran(c[d]))
					continue;
				if (isfinite(c[d]->gbps)) {
					scratch[k++] = c[d]->gbps;
					if (isnan(an->best_gbps) || c[d]->gbps > an->best_gbps)
						an->best_gbps = c[d]->gbps;
				}
				if (isfinite(c[d]->lat_us))
					scratch2[kl++] = c[d]->lat_us;
			}
		}
		an->nodes[i].median_gbps = fc_median_hi(scratch, k);
		an->nodes[i].median_lat_us = fc_median_lo(scratch2, kl);
	}
	for (i = 0; i < n; i++) {
		if (isfinite(an->nodes[i].median_gbps))
			scratch[nm++] = an->nodes[i].median_gbps;
		if (isfinite(an->nodes[i].median_lat_us))
			scratch2[nl++] = an->nodes[i].median_lat_us;
	}
	an->rack_median_gbps = fc_median_hi(scratch, nm);
	an->rack_median_lat_us = fc_median_lo(scratch2, nl);
}

static void mark_bad(struct fc_mx_analysis *an)
{
	const struct fc_mx_opts *o = &an->opts;
	double floor_rack = o->min_rack_pct > 0 && isfinite(an->rack_median_gbps) ?
				    an->rack_median_gbps * o->min_rack_pct / 100 : -1;
	size_t i, nn = (size_t)an->n * (size_t)an->n;

	for (i = 0; i < nn; i++) {
		struct fc_mx_cell *c = &an->cells[i];

		/* bad starts at 0 (the cells are zeroed); a cell that did not run
		 * is not written, so a sparse matrix's untouched pages stay so. */
		if (!fc_mx_ran(c))
			continue;
		if (c->state == FC_MX_FAIL)
			c->bad |= FC_MX_BAD_VERDICT;
		if (isfinite(c->gbps) && o->min_gbps > 0 && c->gbps < o->min_gbps)
			c->bad |= FC_MX_BAD_ABS;
		if (isfinite(c->gbps) && c->gbps < floor_rack)
			c->bad |= FC_MX_BAD_RACK;
		if (isfinite(c->lat_us) && o->max_lat_us > 0 && c->lat_us > o->max_lat_us)
			c->bad |= FC_MX_BAD_LAT;
	}
}

/* Each unordered pair once, counted for both its nodes. */
static void count_peers(struct fc_mx_analysis *an)
{
	int n = an->n, i, j;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			struct fc_mx_node *x = &an->nodes[i], *y = &an->nodes[j];

			if (fc_mx_pair_ran(an, i, j)) {
				x->peers++;
				y->peers++;
				if (fc_mx_pair_bad(an, i, j)) {
					x->bad++;
					y->bad++;
					an->nbad_pairs++;
				}
			} else if (pair_errored(an, i, j)) {
				x->errors++;
				y->errors++;
			}
		}
	}
	for (i = 0; i < n; i++) {
		struct fc_mx_node *nd = &an->nodes[i];

		if (nd->peers)
			nd->state = FC_MX_NODE_OK;
		else if (nd->errors)
			nd->state = FC_MX_NODE_UNREACHABLE;
	}
}

static int add_finding(struct fc_mx_analysis *an, enum fc_mx_kind kind, int a, int b,
		       double v1, double v2, int fail)
{
	struct fc_mx_finding *f;

	if (an->nfindings == an->findings_cap) {
		int cap = an->findings_cap ? an->findings_cap * 2 : 8;

		f = realloc(an->findings, (size_t)cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		an->findings = f;
		an->findings_cap = cap;
	}
	an->findings[an->nfindings++] = (struct fc_mx_finding){
		.kind = kind, .a = a, .b = b, .v1 = v1, .v2 = v2, .fail = fail,
		.worst_peer = -1, .worst_gbps = NAN
	};
	return 0;
}

/* Bad on the bits the suspects are judged on. */
static int judged_bad(const struct fc_mx_analysis *an, int a, int b)
{
	return ((fc_mx_cell(an, a, b)->bad | fc_mx_cell(an, b, a)->bad) & an->judge) != 0;
}

static int remains(const struct fc_mx_analysis *an, int i)
{
	return an->nodes[i].state == FC_MX_NODE_OK;
}

/* How bad a bad cell is, 0 to 1: its shortfall from the rack median (or
 * latency's excess over the ceiling); a pair that `pair` failed, 1. */
static double cell_deficit(const struct fc_mx_analysis *an, const struct fc_mx_cell *c)
{
	double d = 0;

	if (!(c->bad & an->judge))
		return 0;
	if (c->bad & an->judge & FC_MX_BAD_VERDICT)
		return 1;
	if ((c->bad & (FC_MX_BAD_ABS | FC_MX_BAD_RACK)) && isfinite(an->rack_median_gbps) &&
	    an->rack_median_gbps > 0)
		d = 1 - c->gbps / an->rack_median_gbps;
	if ((c->bad & FC_MX_BAD_LAT) && c->lat_us > 0)
		d = fmax(d, 1 - an->opts.max_lat_us / c->lat_us);
	return fmin(fmax(d, 0), 1);
}

static double pair_deficit(const struct fc_mx_analysis *an, int a, int b)
{
	return fmax(cell_deficit(an, fc_mx_cell(an, a, b)), cell_deficit(an, fc_mx_cell(an, b, a)));
}

/* The greedy search's counts over the pairs that remain: peers, bad ones,
 * and the sum of the bad ones' deficits. */
struct greedy {
	int *up, *ub;
	double *sd;
};

static double mean_deficit(const struct greedy *g, int i)
{
	return g->ub[i] ? g->sd[i] / g->ub[i] : 0;
}

/* @i has a remaining peer to hold it against: one bad with at most half of
 * its own other remaining peers, or whose other bad pairs are less than
 * half as bad as @i's. Of nodes all bad with each other by as much, none
 * stands out. */
static int has_contrast(const struct fc_mx_analysis *an, int i, const struct greedy *g)
{
	double mine = mean_deficit(g, i);

	for (int j = 0; j < an->n; j++) {
		int others, bad_others, bij;

		if (j == i || !remains(an, j) || !fc_mx_pair_ran(an, i, j))
			continue;
		bij = judged_bad(an, i, j);
		others = g->up[j] - 1;
		bad_others = g->ub[j] - bij;
		if (others >= 1 && 2 * bad_others <= others)
			return 1;
		if (bad_others > 0 &&
		    (g->sd[j] - (bij ? pair_deficit(an, i, j) : 0)) / bad_others < mine / 2)
			return 1;
	}
	return 0;
}

/* @i before @best: a higher share of bad peers, then worse pairs, then
 * more of them. */
static int worse(int i, int best, const struct greedy *g)
{
	long l = (long)g->ub[i] * g->up[best], r = (long)g->ub[best] * g->up[i];

	if (l != r)
		return l > r;
	if (mean_deficit(g, i) != mean_deficit(g, best))
		return mean_deficit(g, i) > mean_deficit(g, best);
	return g->ub[i] > g->ub[best];
}

static double pair_min_gbps(const struct fc_mx_analysis *an, int a, int b);

/* The suspect node finding for @i on the pairs that remain. */
static int add_node_finding(struct fc_mx_analysis *an, int i, const struct greedy *g)
{
	struct fc_mx_finding *f;
	int rc = add_finding(an, FC_MX_SUSPECT_NODE, i, -1, an->nodes[i].median_gbps,
			     an->rack_median_gbps, 1);

	if (rc)
		return rc;
	f = &an->findings[an->nfindings - 1];
	f->peers = g->up[i];
	f->nbad = g->ub[i];
	for (int j = 0; j < an->n; j++) {
		double v;

		if (j == i || !remains(an, j) || !judged_bad(an, i, j))
			continue;
		f->why |= (fc_mx_cell(an, i, j)->bad | fc_mx_cell(an, j, i)->bad) & an->judge;
		v = pair_min_gbps(an, i, j);
		if (isfinite(v) && (isnan(f->worst_gbps) || v < f->worst_gbps)) {
			f->worst_gbps = v;
			f->worst_peer = j;
		}
	}
	return 0;
}

/* @i is a suspect: its pairs no longer count against its peers. */
static void take_suspect(struct fc_mx_analysis *an, struct greedy *g, int i)
{
	an->nodes[i].state = FC_MX_NODE_SUSPECT;
	an->nsuspects++;
	for (int j = 0; j < an->n; j++) {
		if (j == i || !fc_mx_pair_ran(an, i, j))
			continue;
		g->up[j]--;
		if (judged_bad(an, i, j)) {
			g->ub[j]--;
			g->sd[j] -= pair_deficit(an, i, j);
		}
	}
}

/* The end of a -> b whose own device the pair's document named. */
static int own_end(const struct fc_mx_analysis *an, int a, int b, int i)
{
	const struct fc_mx_cell *c = fc_mx_cell(an, a, b);

	return (i == a && (c->fault & FC_MX_FAULT_A)) || (i == b && (c->fault & FC_MX_FAULT_B));
}

/* Pairs of @i whose document named @i's own device (either direction). */
static int own_faults(const struct fc_mx_analysis *an, int i)
{
	int k = 0;

	for (int j = 0; j < an->n; j++)
		k += j != i && (own_end(an, i, j, i) || own_end(an, j, i, i));
	return k;
}

/* Some device worked among these results: a pair measured, or failed on
 * its data path with no node's own device named (both ends set up). */
static int device_worked(const struct fc_mx_analysis *an)
{
	size_t nn = (size_t)an->n * (size_t)an->n;

	if (an->opts.own_contrast)
		return 1;
	for (size_t i = 0; i < nn; i++)
		if (an->cells[i].state == FC_MX_OK ||
		    (an->cells[i].state == FC_MX_FAIL && !an->cells[i].fault))
			return 1;
	return 0;
}

/* Each node whose own device its worker could not set up or connect
 * (mxan.h, FC_MX_BAD_OWN): a suspect of its own, judged on those pairs,
 * before the comparison, so that they count against no peer. */
static int find_own_faults(struct fc_mx_analysis *an, struct greedy *g)
{
	int rc = 0;

	if (!an->nfaults || !device_worked(an))
		return 0;
	for (int i = 0; i < an->n && !rc; i++) {
		int own = own_faults(an, i);
		struct fc_mx_finding *f;

		if (!own)
			continue;
		rc = add_finding(an, FC_MX_SUSPECT_NODE, i, -1, an->nodes[i].median_gbps,
				 an->rack_median_gbps, 1);
		if (rc)
			break;
		f = &an->findings[an->nfindings - 1];
		f->peers = an->nodes[i].peers + an->nodes[i].errors;
		f->nbad = own;
		f->why = FC_MX_BAD_OWN;
		take_suspect(an, g, i);
	}
	return rc;
}

/* Greedy: the worst node first; its pairs no longer count against its
 * peers, so a second bad node is judged on the pairs that remain. */
static int find_suspect_nodes(struct fc_mx_analysis *an, struct greedy *g)
{
	int n = an->n, i, j, best, rc;

	for (i = 0; i < n; i++) {
		g->up[i] = an->nodes[i].peers;
		g->ub[i] = 0;
		g->sd[i] = 0;
		for (j = 0; j < n; j++) {
			if (j == i || !fc_mx_pair_ran(an, i, j) || !judged_bad(an, i, j))
				continue;
			g->ub[i]++;
			g->sd[i] += pair_deficit(an, i, j);
		}
	}
	if ((rc = find_own_faults(an, g)))
		return rc;
	for (;;) {
		best = -1;
		for (i = 0; i < n; i++) {
			if (!remains(an, i) || g->up[i] < 2 || 2 * g->ub[i] <= g->up[i] ||
			    !has_contrast(an, i, g))
				continue;
			if (best < 0 || worse(i, best, g))
				best = i;
		}
		if (best < 0)
			return 0;
		rc = add_node_finding(an, best, g);
		if (rc)
			return rc;
		take_suspect(an, g, best);
	}
}

/* The nodes that remain (no suspect among them), when there are three or
 * more and every pair that ran among them is bad: none is to blame. */
static int find_spread(struct fc_mx_analysis *an, int *spread_p)
{
	int n = an->n, nodes = 0, pairs = 0, bad = 0;
	unsigned char why = 0;

	*spread_p = 0;
	for (int i = 0; i < n; i++) {
		int any = 0;

		if (!remains(an, i))
			continue;
		for (int j = 0; j < n; j++) {
			if (j == i || !remains(an, j) || !fc_mx_pair_ran(an, i, j))
				continue;
			any = 1;
			if (j < i)
				continue;
			pairs++;
			if (judged_bad(an, i, j)) {
				bad++;
				why |= (fc_mx_cell(an, i, j)->bad | fc_mx_cell(an, j, i)->bad) &
				       an->judge;
			}
		}
		nodes += any;
	}
	if (nodes < 3 || pairs < 3 || bad < pairs)
		return 0;
	*spread_p = 1;
	/* Below the rack's own median alone is the rack's spread: a warning;
	 * an absolute bar or pair's own verdict: a failure. */
	return add_finding(an, FC_MX_SPREAD, nodes, pairs, an->rack_median_gbps, 0,
			   (why & ~FC_MX_BAD_RACK) != 0);
}

/* Every pair that ran among three nodes or more is below min_gbps: one
 * finding, and the suspects are judged without the floor. */
static int find_floor(struct fc_mx_analysis *an)
{
	int n = an->n, pairs = 0, tested = 0;
	double best = NAN;

	an->judge = 0xff;
	if (an->opts.min_gbps <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		tested += an->nodes[i].peers > 0;
		for (int j = i + 1; j < n; j++) {
			double v;

			if (!fc_mx_pair_ran(an, i, j))
				continue;
			if (!((fc_mx_cell(an, i, j)->bad | fc_mx_cell(an, j, i)->bad) & FC_MX_BAD_ABS))
				return 0;
			pairs++;
			v = fmax(fc_mx_cell(an, i, j)->gbps, fc_mx_cell(an, j, i)->gbps);
			if (isfinite(v) && (isnan(best) || v > best))
				best = v;
		}
	}
	if (tested < 3 || !pairs)
		return 0;
	an->judge = (unsigned char)~FC_MX_BAD_ABS;
	return add_finding(an, FC_MX_FLOOR, pairs, tested, an->opts.min_gbps, best, 1);
}

static double pair_min_gbps(const struct fc_mx_analysis *an, int a, int b)
{
	const struct fc_mx_cell *x = fc_mx_cell(an, a, b), *y = fc_mx_cell(an, b, a);
	double v = NAN;

	if (fc_mx_ran(x) && isfinite(x->gbps))
		v = x->gbps;
	if (fc_mx_ran(y) && isfinite(y->gbps) && (isnan(v) || y->gbps < v))
		v = y->gbps;
	return v;
}

/* a -> b could not run for its own-device fault of a suspect end: that
 * suspect's finding says it. */
static int explained(const struct fc_mx_analysis *an, int a, int b)
{
	return (own_end(an, a, b, a) && an->nodes[a].state == FC_MX_NODE_SUSPECT) ||
	       (own_end(an, a, b, b) && an->nodes[b].state == FC_MX_NODE_SUSPECT);
}

static int find_links_and_errors(struct fc_mx_analysis *an)
{
	int n = an->n, i, j, spread, rc = find_spread(an, &spread);

	for (i = 0; i < n && !rc && !spread; i++) {
		for (j = i + 1; j < n && !rc; j++) {
			if (fc_mx_pair_ran(an, i, j) && judged_bad(an, i, j) && remains(an, i) &&
			    remains(an, j)) {
				an->nsuspects++;
				rc = add_finding(an, FC_MX_SUSPECT_LINK, i, j, pair_min_gbps(an, i, j),
						 an->rack_median_gbps, 1);
			}
		}
	}
	for (i = 0; i < n && !rc; i++)
		if (an->nodes[i].state == FC_MX_NODE_UNREACHABLE)
			rc = add_finding(an, FC_MX_UNREACHABLE, i, -1, an->nodes[i].errors, 0, 1);
	for (i = 0; i < n && !rc; i++) {
		for (j = 0; j < n && !rc; j++) {
			if (i == j || cell(an, i, j)->state != FC_MX_ERROR ||
			    an->nodes[i].state == FC_MX_NODE_UNREACHABLE ||
			    an->nodes[j].state == FC_MX_NODE_UNREACHABLE || explained(an, i, j))
				continue;
			rc = add_finding(an, FC_MX_PAIR_ERROR, i, j, 0, 0, 1);
		}
	}
	return rc;
}

static int find_asymmetry(struct fc_mx_analysis *an)
{
	int n = an->n, i, j, rc = 0;
	double share = an->opts.asym_pct / 100;

	if (share <= 0)
		return 0;
	for (i = 0; i < n && !rc; i++) {
		for (j = i + 1; j < n && !rc; j++) {
			const struct fc_mx_cell *x = cell(an, i, j), *y = cell(an, j, i);
			double lo, hi;

			if (!fc_mx_ran(x) || !fc_mx_ran(y) || !isfinite(x->gbps) || !isfinite(y->gbps))
				continue;
			lo = fmin(x->gbps, y->gbps);
			hi = fmax(x->gbps, y->gbps);
			if (hi > 0 && lo < share * hi)
				rc = add_finding(an, FC_MX_ASYMMETRY, i, j, x->gbps, y->gbps, 0);
		}
	}
	return rc;
}

static int rack_wide(struct fc_mx_analysis *an)
{
	int i, tested = 0, suspects = 0;

	for (i = 0; i < an->n; i++) {
		tested += an->nodes[i].state == FC_MX_NODE_OK ||
			  an->nodes[i].state == FC_MX_NODE_SUSPECT;
		suspects += an->nodes[i].state == FC_MX_NODE_SUSPECT;
	}
	if (tested >= 3 && 2 * suspects > tested)
		return add_finding(an, FC_MX_RACK_WIDE, suspects, tested, 0, 0, 1);
	return 0;
}

/* The analysis proper, on @out's cells and nodes (zeroed, n set). */
static int analyze_cells(struct fc_mx_analysis *out, const struct fc_mx_result *res, size_t nres)
{
	int n = out->n, rc;
	double *scratch = malloc((4 * (size_t)n + 2) * sizeof(*scratch));

	if (!scratch)
		return -ENOMEM;
	rc = fill_cells(out, res, nres);
	if (rc)
		goto out_free;
	medians(out, scratch, scratch + 2 * n + 1);
	mark_bad(out);
	count_peers(out);
	rc = find_floor(out);
	/* The greedy search's counts reuse the scratch space: up and ub as
	 * ints in the first n doubles, the deficits after them. */
	if (!rc) {
		struct greedy g = { (int *)scratch, (int *)scratch + n, scratch + n };

		rc = find_suspect_nodes(out, &g);
	}
	if (!rc)
		rc = find_links_and_errors(out);
	if (!rc)
		rc = find_asymmetry(out);
	if (!rc)
		rc = rack_wide(out);
out_free:
	free(scratch);
	return rc;
}

/* Zeroes the cells the last analysis wrote. Memory already written costs
 * no page faults, as fresh memory does; the pages it never wrote (most of a
 * sparse screen's) are only read, so they stay unwritten. */
static void clear_cells(struct fc_mx_cell *cells, size_t nn)
{
	static const struct fc_mx_cell zero;

	for (size_t i = 0; i < nn; i++)
		if (memcmp(&cells[i], &zero, sizeof(zero)))
			memset(&cells[i], 0, sizeof(zero));
}

int fc_mx_analyze(int n, const struct fc_mx_result *res, size_t nres,
		  const struct fc_mx_opts *opts, struct fc_mx_analysis *out)
{
	memset(out, 0, sizeof(*out));
	return fc_mx_reanalyze(n, res, nres, opts, out);
}

int fc_mx_reanalyze(int n, const struct fc_mx_result *res, size_t nres,
		    const struct fc_mx_opts *opts, struct fc_mx_analysis *an)
{
	struct fc_mx_opts dflt = FC_MX_OPTS_DEFAULT;
	struct fc_mx_cell *cells = an->cells;
	struct fc_mx_node *nodes = an->nodes;
	int rc;

	if (n < 0) {
		fc_mx_release(an);
		return -EINVAL;
	}
	free(an->findings);
	if (cells && nodes && an->n == n) {
		clear_cells(cells, (size_t)n * (size_t)n + 1);
		memset(nodes, 0, ((size_t)n + 1) * sizeof(*nodes));
	} else {
		free(cells);
		free(nodes);
		cells = calloc((size_t)n * (size_t)n + 1, sizeof(*cells));
		nodes = calloc((size_t)n + 1, sizeof(*nodes));
	}
	memset(an, 0, sizeof(*an));
	an->n = n;
	an->opts = opts ? *opts : dflt;
	an->cells = cells;
	an->nodes = nodes;
	rc = cells && nodes ? analyze_cells(an, res, nres) : -ENOMEM;
	if (rc)
		fc_mx_release(an);
	return rc;
}

void fc_mx_release(struct fc_mx_analysis *an)
{
	free(an->cells);
	free(an->nodes);
	free(an->findings);
	memset(an, 0, sizeof(*an));
}
