/* Latency and bandwidth statistics from every sample (see stats.h). */
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"

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

/*
 * The @k-th smallest of @v (0-based), moving the values around: Hoare's
 * selection (as Wirth writes it), linear on average where a sort is n log
 * n (at 1,000 values, a sixth of qsort's time). After 2 log2(n) + 8
 * partitions it sorts what is left, so no input makes it quadratic.
 * Written here: libc has no selection.
 */
static double select_kth(double *v, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, kk = (long)k;
	int budget = 8;

	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (lo < hi) {
		double x = v[kk];
		long i = lo, j = hi;

		if (budget-- == 0) {
			qsort(v + lo, (size_t)(hi - lo + 1), sizeof(*v), cmp_double);
			break;
		}
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			lo = i;
		if (kk < i)
			hi = j;
	}
	return v[k];
}

double fc_median_hi(double *v, size_t n)
{
	return n ? select_kth(v, n, n / 2) : NAN;
}

double fc_median_lo(double *v, size_t n)
{
	return n ? select_kth(v, n, (n - 1) / 2) : NAN;
}

uint64_t fc_pct_rounds(double p)
{
	return (uint64_t)ceil(10.0 / (1.0 - p / 100.0) - 1e-6);
}

int fc_pct_enough(uint64_t n, double p)
{
	return p < 100 && n >= fc_pct_rounds(p);
}

static void put_us(json_t *obj, const char *key, double secs, int have)
{
	json_object_set_new(obj, key, have ? json_real(secs * 1e6) : json_null());
}

/* The percentiles: nearest rank over all rounds, or perftest's ranks. */
static void pct_json(json_t *obj, const struct fc_hist *h, enum fc_lat_method m,
		     json_t *notes)
{
	json_t *short_keys = json_array();
	static const struct { const char *key; double p; } pcts[] = {
		{ "p50_us", 50 }, { "p90_us", 90 }, { "p99_us", 99 }, { "p999_us", 99.9 },
	};
	uint64_t n = m == FC_LAT_PERFTEST && h->n > 2 ? h->n - 2 : h->n;

	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		double p = pcts[i].p, v;
		int have = fc_pct_enough(n, p);

		/* perftest prints its ranks whatever the rounds: so does its
		 * method, marked where fabcheck's would not report them */
		if (!have && m == FC_LAT_PERFTEST && n > 0) {
			json_array_append_new(notes, json_sprintf(
				"%s as perftest prints it, from %llu rounds; too few for fabcheck's method, which needs %llu (10 / (1 - %g%%))",
				pcts[i].key, (unsigned long long)n,
				(unsigned long long)fc_pct_rounds(p), p));
			json_array_append_new(short_keys, json_string(pcts[i].key));
		} else if (!have) {
			json_array_append_new(notes, json_sprintf(
				"%s not reported: it needs at least %llu rounds (10 / (1 - %g%%)), the run had %llu; raise -n or -D",
				pcts[i].key, (unsigned long long)fc_pct_rounds(p), p,
				(unsigned long long)n));
		}
		if (m == FC_LAT_PERFTEST && n > 0 && p == 50) {
			/* perftest's get_median over the m kept rounds */
			v = n % 2 ? fc_hist_rank(h, n / 2 + 1) :
				    (fc_hist_rank(h, n / 2) + fc_hist_rank(h, n / 2 + 1)) / 2;
			put_us(obj, pcts[i].key, v, 1);
			continue;
		} else if (m == FC_LAT_PERFTEST && n > 0) {
			/* delta[ceil(m * p)], 0-based, of the rounds before the two
			 * largest were dropped (perftest's index reaches them) */
			uint64_t k = (uint64_t)ceil((double)n * p / 100.0) + 1;

			put_us(obj, pcts[i].key, fc_hist_rank(h, k < h->n ? k : h->n), 1);
			continue;
		}
		put_us(obj, pcts[i].key, have ? fc_hist_pct(h, p) : 0, have);
	}
	if (json_array_size(short_keys))
		json_object_set_new(obj, "pct_short", short_keys);
	else
		json_decref(short_keys);
}

void fc_lat_hist_json(json_t *obj, const struct fc_hist *h, enum fc_lat_method m)
{
	json_t *notes = json_array();
	double avg = fc_hist_mean(h), sd = fc_hist_stdev(h), max = h->max;

	if (m == FC_LAT_PERFTEST && h->n > 2) {
		double a = h->top[0] - h->shift, b = h->top[1] - h->shift, k = (double)h->n - 2;
		double s = h->sum - a - b, sq = h->sumsq - a * a - b * b, var;

		avg = h->shift + s / k;
		var = sq / k - (s / k) * (s / k);
		sd = var > 0 ? sqrt(var) : 0;
		max = h->top[1];
	}
	put_us(obj, "min_us", h->min, h->n > 0);
	pct_json(obj, h, m, notes);
	put_us(obj, "max_us", max, h->n > 0);
	put_us(obj, "avg_us", avg, h->n > 0);
	put_us(obj, "stdev_us", sd, h->n > 0);
	json_object_set_new(obj, "rounds", json_integer((json_int_t)h->n));
	json_object_set_new(obj, "stats_method",
			    json_string(m == FC_LAT_PERFTEST ? "perftest" : "fabcheck"));
	if (json_array_size(notes))
		json_object_set_new(obj, "notes", notes);
	else
		json_decref(notes);
}
