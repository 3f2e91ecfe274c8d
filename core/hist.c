#include "core/hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int fc_hist_init(struct fc_hist *h, double lo, double hi)
{
	memset(h, 0, sizeof(*h));
	if (!(lo > 0) || !(hi > lo))
		return -EINVAL;
	h->lo = lo;
	h->octaves = (int)ceil(log2(hi / lo)) + 1;
	h->count = calloc((size_t)h->octaves * FC_HIST_SUB, sizeof(*h->count));
	return h->count ? 0 : -ENOMEM;
}

void fc_hist_release(struct fc_hist *h)
{
	free(h->count);
	memset(h, 0, sizeof(*h));
}

/* Bucket of @v, -1 below lo, -2 above the last octave. */
static long bucket(const struct fc_hist *h, double v)
{
	double x = v / h->lo, m;
	int e;

	if (!(x >= 1))
		return -1;
	m = frexp(x, &e); /* x = m * 2^e, 0.5 <= m < 1 */
	if (e - 1 >= h->octaves)
		return -2;
	return (long)(e - 1) * FC_HIST_SUB + (long)((2 * m - 1) * FC_HIST_SUB);
}

static double midpoint(const struct fc_hist *h, long b)
{
	long oct = b / FC_HIST_SUB, sub = b % FC_HIST_SUB;

	return ldexp(h->lo, (int)oct) * (1 + (sub + 0.5) / FC_HIST_SUB);
}

static void keep_top(struct fc_hist *h, double v)
{
	int kept = h->n < FC_HIST_TOP ? (int)h->n : FC_HIST_TOP; /* before this one */
	int i = kept < FC_HIST_TOP ? kept : FC_HIST_TOP - 1;

	if (kept == FC_HIST_TOP && v <= h->top[FC_HIST_TOP - 1])
		return;
	for (; i > 0 && h->top[i - 1] < v; i--)
		h->top[i] = h->top[i - 1];
	h->top[i] = v;
}

void fc_hist_add(struct fc_hist *h, double v)
{
	long b = bucket(h, v);
	double d;

	if (!h->n) {
		h->min = h->max = h->shift = v;
	} else {
		h->min = v < h->min ? v : h->min;
		h->max = v > h->max ? v : h->max;
	}
	keep_top(h, v);
	h->n++;
	d = v - h->shift;
	h->sum += d;
	h->sumsq += d * d;
	if (b == -1)
		h->under++;
	else if (b == -2)
		h->over++;
	else
		h->count[b]++;
}

double fc_hist_rank(const struct fc_hist *h, uint64_t k)
{
	uint64_t seen = h->under;
	long nb = (long)h->octaves * FC_HIST_SUB;

	if (!h->n)
		return 0;
	if (k < 1)
		k = 1;
	if (k > h->n)
		k = h->n;
	if (k == 1)
		return h->min;
	if (h->n - k < FC_HIST_TOP)
		return h->top[h->n - k];
	if (k <= seen)
		return h->min; /* below the buckets: the smallest is all we know */
	for (long b = 0; b < nb; b++) {
		seen += h->count[b];
		if (seen >= k) {
			double v = midpoint(h, b);

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double fc_hist_pct(const struct fc_hist *h, double p)
{
	double rank = ceil(p / 100.0 * (double)h->n - 1e-9);

	return fc_hist_rank(h, rank < 1 ? 1 : (uint64_t)rank);
}

double fc_hist_mean(const struct fc_hist *h)
{
	return h->n ? h->shift + h->sum / (double)h->n : 0;
}

double fc_hist_stdev(const struct fc_hist *h)
{
	double n = (double)h->n, var;

	if (h->n < 2)
		return 0;
	var = (h->sumsq - h->sum * h->sum / n) / (n - 1);
	return var > 0 ? sqrt(var) : 0;
}

uint64_t fc_hist_below(const struct fc_hist *h, double v)
{
	long b = bucket(h, v), nb = (long)h->octaves * FC_HIST_SUB;
	uint64_t c = h->under;

	if (b == -1)
		return v > h->min ? h->under : 0;
	if (b == -2)
		b = nb;
	for (long i = 0; i < b; i++)
		c += h->count[i];
	return c;
}
