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

/* Gb/s (1e9 bit/s) for @bytes moved in @seconds; 0 when seconds <= 0. */
double fc_gbps(uint64_t bytes, double seconds);

/* Adds "min_us", "p50_us", ... to @obj for stats kept in seconds. */
void fc_lat_stats_json(json_t *obj, const struct fc_lat_stats *s);

#endif
