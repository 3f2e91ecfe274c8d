#include "core/bwlog.h"

#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

int fc_bwlog_init(struct fc_bwlog *l, double t0)
{
	memset(l, 0, sizeof(*l));
	l->t0 = l->last_t = t0;
	l->stride = 1;
	l->npts = 1; /* (0 s, 0 bytes) */
	/* 1 kb/s to 100 Tb/s */
	return fc_hist_init(&l->h, 1e-6, 1e5);
}

void fc_bwlog_release(struct fc_bwlog *l)
{
	fc_hist_release(&l->h);
}

static void keep_low(struct fc_bwlog *l, double t, double gbps)
{
	int i = l->nlow < FC_BWLOG_LOW ? l->nlow : FC_BWLOG_LOW - 1;

	if (l->nlow == FC_BWLOG_LOW && gbps >= l->low[FC_BWLOG_LOW - 1].gbps)
		return;
	for (; i > 0 && l->low[i - 1].gbps > gbps; i--)
		l->low[i] = l->low[i - 1];
	l->low[i].t = t;
	l->low[i].gbps = gbps;
	if (l->nlow < FC_BWLOG_LOW)
		l->nlow++;
}

/* Full: keep every other point (the first and the newest stay). */
static void halve(struct fc_bwlog *l)
{
	int n = 0;

	for (int i = 0; i < l->npts; i += 2, n++) {
		l->pt_t[n] = l->pt_t[i];
		l->pt_b[n] = l->pt_b[i];
	}
	if ((l->npts - 1) % 2) { /* the newest was odd: keep it too */
		l->pt_t[n] = l->pt_t[l->npts - 1];
		l->pt_b[n] = l->pt_b[l->npts - 1];
		n++;
	}
	l->npts = n;
	l->stride *= 2;
}

static void point(struct fc_bwlog *l, double t, uint64_t total, int force)
{
	if (!force && ++l->skip < l->stride)
		return;
	l->skip = 0;
	if (l->npts == FC_BWLOG_PTS)
		halve(l);
	l->pt_t[l->npts] = t - l->t0;
	l->pt_b[l->npts] = total;
	l->npts++;
}

void fc_bwlog_mark(struct fc_bwlog *l, double t, uint64_t total)
{
	double g = fc_gbps(total - l->last_bytes, t - l->last_t);

	fc_hist_add(&l->h, g);
	keep_low(l, l->last_t - l->t0, g);
	l->last_t = t;
	l->last_bytes = total;
	point(l, t, total, 0);
}

void fc_bwlog_end(struct fc_bwlog *l, double t, uint64_t total)
{
	if (l->npts > 1 && l->pt_t[l->npts - 1] == t - l->t0)
		return;
	point(l, t, total, 1);
}

static int by_time(const void *a, const void *b)
{
	const double *x = a, *y = b; /* the first member is t */

	return *x < *y ? -1 : *x > *y;
}

void fc_bwlog_json(const struct fc_bwlog *l, json_t *obj)
{
	json_t *iv = json_object(), *dips = json_array(), *curve = json_array();
	double med = fc_hist_pct(&l->h, 50), thr = FC_DIP_SHARE * med;
	struct { double t, gbps; } d[FC_BWLOG_LOW];
	int nd = 0;
	uint64_t total;

	for (int i = 0; i < l->nlow; i++)
		if (l->low[i].gbps < thr) {
			d[nd].t = l->low[i].t;
			d[nd++].gbps = l->low[i].gbps;
		}
	qsort(d, (size_t)nd, sizeof(d[0]), by_time);
	for (int i = 0; i < nd; i++)
		json_array_append_new(dips, json_pack("{s:f, s:f}", "t_s", d[i].t, "gbps", d[i].gbps));
	/* All the kept lows are dips: there may be more; count from the buckets. */
	total = nd < FC_BWLOG_LOW ? (uint64_t)nd : fc_hist_below(&l->h, thr);
	if (total < (uint64_t)nd)
		total = (uint64_t)nd;
	json_object_set_new(iv, "n", json_integer((json_int_t)l->h.n));
	json_object_set_new(iv, "min_gbps", json_real(l->h.n ? l->h.min : 0));
	json_object_set_new(iv, "median_gbps", json_real(med));
	json_object_set_new(iv, "max_gbps", json_real(l->h.n ? l->h.max : 0));
	json_object_set_new(iv, "dip_below_gbps", json_real(thr));
	json_object_set_new(iv, "dips", dips);
	json_object_set_new(iv, "dips_total", json_integer((json_int_t)total));
	json_object_set_new(obj, "intervals", iv);
	for (int i = 0; i < l->npts; i++)
		json_array_append_new(curve, json_pack("[f, I]", l->pt_t[i], (json_int_t)l->pt_b[i]));
	json_object_set_new(obj, "curve", curve);
	json_object_set_new(obj, "t0", json_real(l->t0));
}

double fc_curve_at(const struct fc_curve *c, double t)
{
	if (c->n < 1 || t <= c->t[0])
		return c->n ? c->bytes[0] : 0;
	for (int i = 1; i < c->n; i++)
		if (t <= c->t[i]) {
			double span = c->t[i] - c->t[i - 1];

			if (span <= 0)
				return c->bytes[i];
			return c->bytes[i - 1] +
			       (c->bytes[i] - c->bytes[i - 1]) * (t - c->t[i - 1]) / span;
		}
	return c->bytes[c->n - 1];
}

int fc_bw_window(const struct fc_curve *c, int n, double *gbps, struct fc_common *out)
{
	double first = 0, last = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		const double *t = c[i].t;

		if (c[i].n < 2)
			return -1;
		if (!i || t[0] > out->start)
			out->start = t[0];
		if (!i || t[c[i].n - 1] < out->end)
			out->end = t[c[i].n - 1];
		if (!i || t[0] < first)
			first = t[0];
		if (!i || t[c[i].n - 1] > last)
			last = t[c[i].n - 1];
	}
	if (n < 1 || out->end <= out->start || last <= first)
		return -1;
	out->share = (out->end - out->start) / (last - first);
	for (int i = 0; i < n; i++) {
		double moved = fc_curve_at(&c[i], out->end) - fc_curve_at(&c[i], out->start);

		gbps[i] = moved * 8 / (out->end - out->start) / 1e9;
		out->sum += gbps[i];
	}
	return 0;
}

void fc_bw_common(const struct fc_curve *a, const struct fc_curve *b, struct fc_common *out)
{
	struct fc_curve c[2] = { *a, *b };
	double g[2];

	if (fc_bw_window(c, 2, g, out)) {
		double start = out->start, end = out->end;

		memset(out, 0, sizeof(*out));
		if (a->n >= 2 && b->n >= 2) { /* no common window: where it would be */
			out->start = start;
			out->end = end;
		}
		return;
	}
	out->gbps[0] = g[0];
	out->gbps[1] = g[1];
}
