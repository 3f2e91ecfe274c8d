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

static int ran(const struct fc_mx_cell *c)
{
	return c->state == FC_MX_OK || c->state == FC_MX_FAIL;
}

int fc_mx_pair_bad(const struct fc_mx_analysis *an, int a, int b)
{
	return fc_mx_cell(an, a, b)->bad || fc_mx_cell(an, b, a)->bad;
}

static int pair_ran(const struct fc_mx_analysis *an, int a, int b)
{
	return ran(fc_mx_cell(an, a, b)) || ran(fc_mx_cell(an, b, a));
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
		if (!ran(c) && (r->state == FC_MX_OK || r->state == FC_MX_FAIL))
			an->nmeasured++;
		else if (ran(c) && !(r->state == FC_MX_OK || r->state == FC_MX_FAIL))
			an->nmeasured--;
		c->gbps = r->gbps;
		c->lat_us = r->lat_us;
		c->state = (unsigned char)r->state;
		c->retest = (unsigned char)!!r->retest;
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
				if (!ran(c[d]))
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
		if (!ran(c))
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

			if (pair_ran(an, i, j)) {
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
		.kind = kind, .a = a, .b = b, .v1 = v1, .v2 = v2, .fail = fail
	};
	return 0;
}

/* Greedy: the worst node first; its pairs no longer count against its
 * peers, so a second bad node is judged on the pairs that remain. */
static int find_suspect_nodes(struct fc_mx_analysis *an, int *up, int *ub)
{
	int n = an->n, i, j, best, rc;

	for (i = 0; i < n; i++) {
		up[i] = an->nodes[i].peers;
		ub[i] = an->nodes[i].bad;
	}
	for (;;) {
		best = -1;
		for (i = 0; i < n; i++) {
			if (an->nodes[i].state != FC_MX_NODE_OK || up[i] < 2 || 2 * ub[i] <= up[i])
				continue;
			/* Higher share of bad peers, then more of them. */
			if (best < 0 || (long)ub[i] * up[best] > (long)ub[best] * up[i] ||
			    ((long)ub[i] * up[best] == (long)ub[best] * up[i] && ub[i] > ub[best]))
				best = i;
		}
		if (best < 0)
			return 0;
		an->nodes[best].state = FC_MX_NODE_SUSPECT;
		an->nsuspects++;
		rc = add_finding(an, FC_MX_SUSPECT_NODE, best, -1, an->nodes[best].median_gbps,
				 an->rack_median_gbps, 1);
		if (rc)
			return rc;
		for (j = 0; j < n; j++) {
			if (j == best || !pair_ran(an, best, j))
				continue;
			up[j]--;
			if (fc_mx_pair_bad(an, best, j))
				ub[j]--;
		}
	}
}

static double pair_min_gbps(const struct fc_mx_analysis *an, int a, int b)
{
	const struct fc_mx_cell *x = fc_mx_cell(an, a, b), *y = fc_mx_cell(an, b, a);
	double v = NAN;

	if (ran(x) && isfinite(x->gbps))
		v = x->gbps;
	if (ran(y) && isfinite(y->gbps) && (isnan(v) || y->gbps < v))
		v = y->gbps;
	return v;
}

static int find_links_and_errors(struct fc_mx_analysis *an)
{
	int n = an->n, i, j, rc = 0;

	for (i = 0; i < n && !rc; i++) {
		for (j = i + 1; j < n && !rc; j++) {
			enum fc_mx_node_state si = an->nodes[i].state, sj = an->nodes[j].state;

			if (fc_mx_pair_bad(an, i, j) && si == FC_MX_NODE_OK && sj == FC_MX_NODE_OK) {
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
			    an->nodes[j].state == FC_MX_NODE_UNREACHABLE)
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

			if (!ran(x) || !ran(y) || !isfinite(x->gbps) || !isfinite(y->gbps))
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
	/* up/ub of the greedy search reuse the scratch space as ints. */
	rc = find_suspect_nodes(out, (int *)scratch, (int *)scratch + n);
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

int fc_mx_retest_plan(const struct fc_mx_analysis *an, int *out_a, int *out_b, int max)
{
	int cnt = 0, i, j;

	for (int f = 0; f < an->nfindings; f++) {
		const struct fc_mx_finding *fd = &an->findings[f];

		if (fd->kind == FC_MX_SUSPECT_LINK && cnt < max) {
			int fwd = fc_mx_cell(an, fd->a, fd->b)->bad != 0;

			out_a[cnt] = fwd ? fd->a : fd->b;
			out_b[cnt++] = fwd ? fd->b : fd->a;
		}
		if (fd->kind != FC_MX_SUSPECT_NODE)
			continue;
		i = fd->a;
		for (j = 0; j < an->n && cnt < max; j++) {
			if (j == i || an->nodes[j].state != FC_MX_NODE_OK || !fc_mx_pair_bad(an, i, j))
				continue;
			/* The direction that was measured bad, so the retest replaces it. */
			out_a[cnt] = fc_mx_cell(an, i, j)->bad ? i : j;
			out_b[cnt++] = fc_mx_cell(an, i, j)->bad ? j : i;
		}
	}
	return cnt;
}
