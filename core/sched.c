/* The circle method: node M-1 stays put, the others turn around it. */
#include "core/sched.h"

#include <errno.h>

/* Node count rounded up to even; the extra slot (n when n is odd) is the bye. */
static int even_of(int n)
{
	return n + (n & 1);
}

int fc_sched_rounds(int n, int both)
{
	if (n < 2 || n > FC_SCHED_MAX_NODES)
		return 0;
	return (even_of(n) - 1) * (both ? 2 : 1);
}

int fc_sched_round_max(int n)
{
	return n / 2;
}

static void add_pair(struct fc_pair_idx *out, int *cnt, int n, int x, int y, int flip)
{
	if (x >= n || y >= n) /* the bye */
		return;
	out[*cnt].a = flip ? y : x;
	out[*cnt].b = flip ? x : y;
	(*cnt)++;
}

int fc_sched_round(int n, int both, int r, struct fc_pair_idx *out)
{
	int m = even_of(n), turn = m - 1, rounds = fc_sched_rounds(n, both);
	int cnt = 0, rev = 0, k;

	if (r < 0 || r >= rounds)
		return -EINVAL;
	if (r >= turn) { /* the second pass of --both-directions */
		r -= turn;
		rev = 1;
	}
	/* The fixed node meets the node at the top of the circle; alternate
	 * the side so that it is not always the one named first. */
	add_pair(out, &cnt, n, r, m - 1, (r & 1) ^ rev);
	for (k = 1; k < m / 2; k++)
		add_pair(out, &cnt, n, (r + k) % turn, (r - k + turn) % turn, rev);
	return cnt;
}
