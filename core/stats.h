/* Latency and bandwidth statistics in double precision, from every sample. */
#ifndef FC_STATS_H
#define FC_STATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct fc_lat_stats {
	size_t n;
	double min, max, avg, stdev; /* stdev: sample standard deviation (n-1) */
	double p50, p90, p99, p999;  /* nearest-rank percentiles */
};

/*
 * Statistics of @n samples (any unit; the caller's). Sorts @samples in
 * place. Returns 0, or -EINVAL when n is 0.
 */
int fc_lat_stats(double *samples, size_t n, struct fc_lat_stats *out);

/* Nearest-rank percentile @p (0 < p <= 100) of @n sorted samples. */
double fc_percentile_sorted(const double *sorted, size_t n, double p);

/* Median of @v (sorted in place); NAN when @n is 0. */
double fc_median(double *v, size_t n);

/*
 * The upper and lower medians of @v (reordered in place, not sorted; the
 * values finite): of an even count,
 * the higher or the lower of the two middle values, never their mean;
 * NAN when @n is 0. A reference for "what a healthy one does" when faults
 * only push one way: the upper median of bandwidths stays a healthy value
 * while up to half of them are slow (of two, one slow), where the mean of
 * the two middle ones is dragged half way down.
 */
double fc_median_hi(double *v, size_t n);
double fc_median_lo(double *v, size_t n);

/* Gb/s (1e9 bit/s) for @bytes moved in @seconds; 0 when seconds <= 0. */
double fc_gbps(uint64_t bytes, double seconds);

/* Adds "min_us", "p50_us", ... to @obj for stats kept in seconds. */
void fc_lat_stats_json(json_t *obj, const struct fc_lat_stats *s);

/* Whether @n rounds are enough to report percentile @p: n >= 10 / (1 - p). */
int fc_pct_enough(uint64_t n, double p);
/* The rounds percentile @p needs (10 / (1 - p), rounded up). */
uint64_t fc_pct_rounds(double p);

struct fc_hist;
enum fc_lat_method { FC_LAT_FABCHECK, FC_LAT_PERFTEST };

/*
 * Latency summary of a histogram kept in seconds, into @obj as "min_us",
 * "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "avg_us", "stdev_us",
 * "rounds". FC_LAT_FABCHECK: every round; nearest-rank percentiles; sample
 * stdev. FC_LAT_PERFTEST: as perftest's print_report_lat: the two largest
 * rounds dropped, the median of the rest (mean of the middle two when even),
 * "max" the second largest round, 99%/99.9% at ceil(m * p) of the m rounds
 * left, mean and population stdev of those m (perftest truncates the
 * deviation through int; this does not). A percentile the rounds do not
 * support is null, with a line in "notes" saying how many it needs.
 */
void fc_lat_hist_json(json_t *obj, const struct fc_hist *h, enum fc_lat_method m);

#endif
