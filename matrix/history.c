/* Every link against its own past (see history.h). */
#include "matrix/history.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

int fc_hist_flag(double *past, int npast, double now, const struct fc_hist_opts *o,
		 double *median_p)
{
	size_t k = 0;
	double med;

	for (int i = 0; i < npast; i++)
		if (isfinite(past[i]))
			past[k++] = past[i];
	med = k && (int)k >= o->min_runs ? fc_median(past, k) : NAN;
	if (median_p)
		*median_p = med;
	return isfinite(med) && isfinite(now) && med > 0 && now < med * (1 - o->drop_pct / 100);
}

/* Points in link order, then input order (a later point replaces). */
struct slot {
	const struct fc_hist_point *p;
	size_t at;
};

static int same_link(const struct fc_hist_point *a, const struct fc_hist_point *b)
{
	int alo = a->a < a->b ? a->a : a->b, ahi = a->a < a->b ? a->b : a->a;
	int blo = b->a < b->b ? b->a : b->b, bhi = b->a < b->b ? b->b : b->a;

	if (alo != blo)
		return alo - blo;
	if (ahi != bhi)
		return ahi - bhi;
	return a->rail - b->rail;
}

static int cmp_slot(const void *x, const void *y)
{
	const struct slot *a = x, *b = y;
	int c = same_link(a->p, b->p);

	return c ? c : (a->at > b->at) - (a->at < b->at);
}

double fc_hist_order(const struct fc_hist_link *l)
{
	return isfinite(l->drop_pct) ? l->drop_pct : -1e9;
}

static int cmp_drop(const void *x, const void *y)
{
	double da = fc_hist_order(x), db = fc_hist_order(y);

	return (da < db) - (da > db);
}

void fc_hist_judge(struct fc_hist_link *l, const struct fc_hist_opts *o)
{
	double past[FC_HIST_K_MAX];

	for (int i = 1; i <= o->k; i++)
		past[i - 1] = l->series[i];
	l->now = l->series[0];
	l->flagged = fc_hist_flag(past, o->k, l->now, o, &l->median);
	l->runs = 0;
	for (int i = 1; i <= o->k; i++)
		l->runs += isfinite(l->series[i]);
	l->drop_pct = isfinite(l->median) && l->median > 0 && isfinite(l->now) ?
			      100 * (l->median - l->now) / l->median : NAN;
}

/* One link from its points [from, to) of @s. */
static int one_link(const struct slot *s, size_t from, size_t to, const struct fc_hist_opts *o,
		    struct fc_hist_link *l, double *series)
{
	const struct fc_hist_point *f = s[from].p;
	int have_now = 0;

	memset(l, 0, sizeof(*l));
	l->series = series;
	l->a = f->a < f->b ? f->a : f->b;
	l->b = f->a < f->b ? f->b : f->a;
	l->rail = f->rail;
	for (int i = 0; i <= o->k; i++)
		l->series[i] = NAN;
	for (size_t i = from; i < to; i++) {
		if (s[i].p->run < 0 || s[i].p->run > o->k)
			continue;
		l->series[s[i].p->run] = s[i].p->gbps;
		have_now |= s[i].p->run == 0;
	}
	if (!have_now)
		return 0;
	fc_hist_judge(l, o);
	return 1;
}

/* Links of @s (sorted) measured in run 0. */
static size_t count_links(const struct slot *s, size_t np)
{
	size_t n = 0;

	for (size_t i = 0, j; i < np; i = j) {
		int now = 0;

		for (j = i; j < np && !same_link(s[i].p, s[j].p); j++)
			now |= s[j].p->run == 0;
		n += now;
	}
	return n;
}

int fc_hist_links(const struct fc_hist_point *p, size_t np, const struct fc_hist_opts *o,
		  struct fc_hist_link **out_p, int *nout_p)
{
	struct fc_hist_link *out = NULL;
	double *series = NULL;
	struct slot *s;
	size_t nl;
	int n = 0;

	*out_p = NULL;
	*nout_p = 0;
	if (o->k < 1 || o->k > FC_HIST_K_MAX)
		return -EINVAL;
	s = malloc((np + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++)
		s[i] = (struct slot){ .p = &p[i], .at = i };
	qsort(s, np, sizeof(*s), cmp_slot);
	nl = count_links(s, np);
	/* One block: the links, then their series. */
	out = malloc((nl + 1) * (sizeof(*out) + ((size_t)o->k + 1) * sizeof(*series)));
	if (!out) {
		free(s);
		return -ENOMEM;
	}
	series = (double *)(out + nl + 1);
	for (size_t i = 0, j; i < np; i = j) {
		for (j = i + 1; j < np && !same_link(s[i].p, s[j].p); j++)
			;
		n += one_link(s, i, j, o, &out[n], series + (size_t)n * ((size_t)o->k + 1));
	}
	free(s);
	qsort(out, (size_t)n, sizeof(*out), cmp_drop);
	*out_p = out;
	*nout_p = n;
	return 0;
}

void fc_hist_free(struct fc_hist_link *links)
{
	free(links);
}
