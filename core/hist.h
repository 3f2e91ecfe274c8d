/*
 * A log-linear histogram: every value counted, in memory fixed at init for
 * any number of values. Each octave [lo * 2^k, lo * 2^(k+1)) is cut into
 * FC_HIST_SUB equal buckets, so a bucket is at most 1/FC_HIST_SUB of its
 * values wide and its midpoint is within 0.5/FC_HIST_SUB (0.4%) of every
 * value in it. Values below lo or above hi are counted apart (and the exact
 * min and max kept). Sum and squares are kept shifted by the first value,
 * so the mean and deviation are exact, not read from buckets.
 *
 * No packaged C library does this (HdrHistogram has no Debian C package);
 * this is the project's own, a few dozen lines.
 */
#ifndef FC_HIST_H
#define FC_HIST_H

#include <stdint.h>

#define FC_HIST_SUB 128
#define FC_HIST_TOP 3 /* largest values kept exactly (perftest drops two) */

struct fc_hist {
	double lo;	   /* lowest value bucketed */
	int octaves;
	uint64_t *count;   /* octaves * FC_HIST_SUB */
	uint64_t n, under, over;
	double min, max;
	double shift;	   /* the first value: sums are of (v - shift) */
	double sum, sumsq;
	double top[FC_HIST_TOP]; /* largest values, top[0] the largest */
};

/* Buckets for values in [lo, hi], 0 < lo < hi. Returns 0 or -ENOMEM/-EINVAL. */
int fc_hist_init(struct fc_hist *h, double lo, double hi);
void fc_hist_release(struct fc_hist *h);
void fc_hist_add(struct fc_hist *h, double v);

/* Value of rank @k (1-based, 1..n) within 0.4% (exact for the smallest and
 * the FC_HIST_TOP largest); 0 when empty. */
double fc_hist_rank(const struct fc_hist *h, uint64_t k);
/* Nearest-rank percentile @p (0 < p <= 100). */
double fc_hist_pct(const struct fc_hist *h, double p);
double fc_hist_mean(const struct fc_hist *h);
/* Sample standard deviation (n - 1). */
double fc_hist_stdev(const struct fc_hist *h);
/* How many values lie below @v, to the bucket @v falls in (0.8%). */
uint64_t fc_hist_below(const struct fc_hist *h, double v);

#endif
