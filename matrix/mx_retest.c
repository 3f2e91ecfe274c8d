/* The pairs a matrix measures again: each suspect's bad pairs in the
 * direction measured bad, beside a good pair of the same moment (see
 * fc_mx_retest_plan in mxan.h). */
#include "matrix/mxan.h"

#include <errno.h>

/* The measured direction of {a, b}, the one that was bad when either was. */
static void measured_dir(const struct fc_mx_analysis *an, int a, int b, int *x, int *y)
{
	int fwd = fc_mx_ran(fc_mx_cell(an, a, b)) &&
		  (fc_mx_cell(an, a, b)->bad || !fc_mx_cell(an, b, a)->bad);

	*x = fwd ? a : b;
	*y = fwd ? b : a;
}

static int planned(const int *out_a, const int *out_b, int cnt, int a, int b)
{
	for (int i = 0; i < cnt; i++)
		if ((out_a[i] == a && out_b[i] == b) || (out_a[i] == b && out_b[i] == a))
			return 1;
	return 0;
}

/* Adds {a, b} in its measured direction unless it is planned already. */
static int plan_add(const struct fc_mx_analysis *an, int a, int b, int *out_a, int *out_b,
		    int cnt, int max)
{
	if (cnt >= max || planned(out_a, out_b, cnt, a, b))
		return cnt;
	measured_dir(an, a, b, &out_a[cnt], &out_b[cnt]);
	return cnt + 1;
}

/* A reference for @x: a good pair of @x with a node that is fine, other than
 * @not, measured again beside the suspect so that the two are judged on
 * readings of the same moment (the host's load, the fabric's state), not
 * against a median taken earlier. */
static int plan_reference(const struct fc_mx_analysis *an, int x, int not, int *out_a,
			  int *out_b, int cnt, int max)
{
	if (an->nodes[x].state != FC_MX_NODE_OK)
		return cnt;
	for (int c = 0; c < an->n; c++) {
		if (c == x || c == not || an->nodes[c].state != FC_MX_NODE_OK ||
		    !fc_mx_pair_ran(an, x, c) || fc_mx_pair_bad(an, x, c))
			continue;
		if (planned(out_a, out_b, cnt, x, c))
			return cnt;
		return plan_add(an, x, c, out_a, out_b, cnt, max);
	}
	return cnt;
}

/* Whether the bad pair {a, b} of @an is new to a later retest round: not
 * bad in @first (the analysis before the retest: it was no suspect's, or
 * not bad then), or not measured again by the retest (no retest figure in
 * a bad direction). A pair bad in both and retested was measured twice
 * bad: it is settled. @first NULL: every bad pair is new (round 1). */
static int pair_new(const struct fc_mx_analysis *an, const struct fc_mx_analysis *first, int a,
		    int b)
{
	const struct fc_mx_cell *x = fc_mx_cell(an, a, b), *y = fc_mx_cell(an, b, a);

	if (!first)
		return 1;
	return !fc_mx_pair_bad(first, a, b) || !((x->retest && x->bad) || (y->retest && y->bad));
}

/* The plan of @an's suspects whose bad pairs are new to it (pair_new). */
static int plan(const struct fc_mx_analysis *an, const struct fc_mx_analysis *first, int *out_a,
		int *out_b, int max)
{
	int cnt = 0, i, j;

	for (int f = 0; f < an->nfindings; f++) {
		const struct fc_mx_finding *fd = &an->findings[f];

		if (fd->kind == FC_MX_SUSPECT_LINK && pair_new(an, first, fd->a, fd->b)) {
			cnt = plan_add(an, fd->a, fd->b, out_a, out_b, cnt, max);
			cnt = plan_reference(an, fd->a, fd->b, out_a, out_b, cnt, max);
			cnt = plan_reference(an, fd->b, fd->a, out_a, out_b, cnt, max);
		}
		if (fd->kind != FC_MX_SUSPECT_NODE)
			continue;
		i = fd->a;
		for (j = 0; j < an->n && cnt < max; j++) {
			if (j == i || an->nodes[j].state != FC_MX_NODE_OK ||
			    !fc_mx_pair_bad(an, i, j) || !pair_new(an, first, i, j))
				continue;
			/* The direction that was measured bad, so the retest replaces it. */
			cnt = plan_add(an, i, j, out_a, out_b, cnt, max);
			cnt = plan_reference(an, j, i, out_a, out_b, cnt, max);
		}
	}
	return cnt;
}

int fc_mx_retest_plan(const struct fc_mx_analysis *an, int *out_a, int *out_b, int max)
{
	return plan(an, NULL, out_a, out_b, max);
}

int fc_mx_retest_plan_new(const struct fc_mx_analysis *an, const struct fc_mx_analysis *first,
			  int *out_a, int *out_b, int max)
{
	if (first->n != an->n)
		return -EINVAL;
	return plan(an, first, out_a, out_b, max);
}
