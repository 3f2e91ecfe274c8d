/* Latency and bandwidth statistics from every sample (see stats.h). */
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double fc_percentile_sorted(const double *sorted, size_t n, double p)
{
	double rank;
	size_t k;

	if (!n)
		return 0;
	rank = ceil(p / 100.0 * (double)n - 1e-9); /* 99.9% of 1000 is 999, not 1000 */
	k = rank < 1 ? 1 : (size_t)rank;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

int fc_lat_stats(double *samples, size_t n, struct fc_lat_stats *out)
{
	double sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	qsort(samples, n, sizeof(*samples), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	out->n = n;
	out->avg = sum / (double)n;
	/* Two passes: no cancellation from sum-of-squares. */
	for (size_t i = 0; i < n; i++)
		sq += (samples[i] - out->avg) * (samples[i] - out->avg);
	out->stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->min = samples[0];
	out->max = samples[n - 1];
	out->p50 = fc_percentile_sorted(samples, n, 50);
	out->p90 = fc_percentile_sorted(samples, n, 90);
	out->p99 = fc_percentile_sorted(samples, n, 99);
	out->p999 = fc_percentile_sorted(samples, n, 99.9);
	return 0;
}

double fc_gbps(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes * 8.0 / seconds / 1e9 : 0;
}

void fc_lat_stats_json(json_t *obj, const struct fc_lat_stats *s)
{
	json_object_set_new(obj, "min_us", json_real(s->min * 1e6));
	json_object_set_new(obj, "p50_us", json_real(s->p50 * 1e6));
	json_object_set_new(obj, "p90_us", json_real(s->p90 * 1e6));
	json_object_set_new(obj, "p99_us", json_real(s->p99 * 1e6));
	json_object_set_new(obj, "p999_us", json_real(s->p999 * 1e6));
	json_object_set_new(obj, "max_us", json_real(s->max * 1e6));
	json_object_set_new(obj, "avg_us", json_real(s->avg * 1e6));
	json_object_set_new(obj, "stdev_us", json_real(s->stdev * 1e6));
}

double fc_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
