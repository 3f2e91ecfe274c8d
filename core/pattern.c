/* Traffic patterns: the rounds of incast, fanout, bisection, alltoall (core/pattern.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pattern.h"

static const char *const names[] = { "pairs", "incast", "fanout", "bisection", "alltoall" };

int fc_pattern_parse(const char *name, enum fc_pattern *out)
{
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum fc_pattern)i;
			return 0;
		}
	return -1;
}

const char *fc_pattern_name(enum fc_pattern p)
{
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* Room for @nrounds rounds of up to @per flows each. */
static int plan_alloc(struct fc_pplan *pl, int nrounds, int per)
{
	memset(pl, 0, sizeof(*pl));
	pl->r = calloc((size_t)nrounds, sizeof(*pl->r));
	if (!pl->r)
		return -1;
	pl->nrounds = nrounds;
	for (int i = 0; i < nrounds; i++) {
		pl->r[i].f = calloc((size_t)(per > 0 ? per : 1), sizeof(*pl->r[i].f));
		pl->r[i].target = -1;
		if (!pl->r[i].f)
			return -1;
	}
	return 0;
}

static void add(struct fc_pplan *pl, int round, int src, int dst)
{
	pl->r[round].f[pl->r[round].n++] = (struct fc_flow){ src, dst };
	pl->flows++;
}

static int incast(struct fc_pplan *pl, int n, int k, int reverse)
{
	if (k <= 0 || k > n - 1)
		k = n - 1;
	if (plan_alloc(pl, n, k))
		return -1;
	for (int i = 0; i < n; i++) {
		pl->r[i].target = i;
		for (int j = 1; j <= k; j++)
			add(pl, i, reverse ? i : (i + j) % n, reverse ? (i + j) % n : i);
	}
	return 0;
}

static const int *sort_leaf;
static int by_leaf(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	int la = sort_leaf ? sort_leaf[a] : 0, lb = sort_leaf ? sort_leaf[b] : 0;

	return la != lb ? (la > lb) - (la < lb) : (a > b) - (a < b);
}

static int bisection(struct fc_pplan *pl, int n, const int *leaf)
{
	int *ord = malloc(sizeof(int) * (size_t)n), na = n / 2, nb = n - n / 2;

	if (!ord || plan_alloc(pl, 2 * nb, na)) {
		free(ord);
		return -1;
	}
	for (int i = 0; i < n; i++)
		ord[i] = i;
	sort_leaf = leaf;
	qsort(ord, (size_t)n, sizeof(int), by_leaf);
	sort_leaf = NULL;
	for (int r = 0; r < nb; r++)
		for (int j = 0; j < na; j++) {
			int a = ord[j], b = ord[na + (j + r) % nb];

			add(pl, r, a, b);
			add(pl, nb + r, b, a);
			pl->crosses += 2 * (leaf && leaf[a] != leaf[b]);
		}
	free(ord);
	return 0;
}

/* The end of the group that starts at @g: @k nodes on, or the last node
 * too when it would be left alone. */
static int group_end(int g, int n, int k)
{
	int end = g + k < n ? g + k : n;

	return n - end == 1 ? n : end;
}

static int alltoall(struct fc_pplan *pl, int n, int k)
{
	int per = 0;

	if (k <= 1 || k > n)
		k = n;
	for (int g = 0; g < n; g = group_end(g, n, k))
		per += (group_end(g, n, k) - g) * (group_end(g, n, k) - g - 1);
	if (plan_alloc(pl, 1, per))
		return -1;
	for (int g = 0; g < n; g = group_end(g, n, k))
		for (int a = g; a < group_end(g, n, k); a++)
			for (int b = g; b < group_end(g, n, k); b++)
				if (a != b)
					add(pl, 0, a, b);
	return 0;
}

int fc_pattern_plan(enum fc_pattern p, int n, int k, const int *leaf, struct fc_pplan *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (n < 2)
		return -1;
	switch (p) {
	case FC_PAT_INCAST:
		rc = incast(out, n, k, 0);
		break;
	case FC_PAT_FANOUT:
		rc = incast(out, n, k, 1);
		break;
	case FC_PAT_BISECTION:
		rc = bisection(out, n, leaf);
		break;
	case FC_PAT_ALLTOALL:
		rc = alltoall(out, n, k);
		break;
	default:
		return 0;
	}
	if (rc)
		fc_pattern_release(out);
	return rc;
}

void fc_pattern_release(struct fc_pplan *pl)
{
	for (int i = 0; pl->r && i < pl->nrounds; i++)
		free(pl->r[i].f);
	free(pl->r);
	memset(pl, 0, sizeof(*pl));
}

double fc_jain(const double *x, int n)
{
	double s = 0, sq = 0;

	for (int i = 0; i < n; i++) {
		s += x[i];
		sq += x[i] * x[i];
	}
	return n > 0 && sq > 0 ? s * s / (n * sq) : NAN;
}

int fc_pattern_shared_leaves(int nf, const int *src, const int *dst, int nleaves, int *shared)
{
	int n = 0;

	for (int l = 0; l < nleaves; l++) {
		shared[l] = nf > 0;
		for (int i = 0; i < nf && shared[l]; i++)
			shared[l] = src[i] == l || dst[i] == l;
		n += shared[l];
	}
	return n;
}
