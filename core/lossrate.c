/* Loss as a rate, and two rates compared (core/lossrate.h). */
#include <math.h>
#include <string.h>

#include "core/congest.h"
#include "core/lossrate.h"
#include "core/out.h"

void fc_loss_count(struct fc_loss *l, const char *name, double delta)
{
	enum fc_cg_class c = fc_cg_class_of(name);

	if (!(delta > 0))
		return;
	if (c == FC_CG_RETRANS)
		l->retrans += delta;
	if (c == FC_CG_RX_DROP)
		l->drops += delta;
	if (fc_cg_is_retry(name))
		l->retries += delta;
}

void fc_loss_counters(struct fc_loss *l, const json_t *counters)
{
	const char *node, *name;
	json_t *set, *v;

	json_object_foreach((json_t *)counters, node, set)
		json_object_foreach(set, name, v)
			if (json_is_number(v))
				fc_loss_count(l, name, json_number_value(v));
}

/* The packets of one result at @mtu: its messages, each in
 * ceil(size / mtu) packets, at least one. */
static double result_packets(const json_t *r, double mtu)
{
	const json_t *posted = json_object_get(r, "posted");
	double size = fc_jnum(r, "size_bytes", 0), msgs = 0;

	for (size_t i = 0; i < json_array_size(posted); i++)
		msgs += json_number_value(json_array_get(posted, i));
	if (!(msgs > 0)) /* no "posted": the timed iterations, each way when bidirectional */
		msgs = fc_jnum(r, "iters", 0) * (json_is_true(json_object_get(r, "bidir")) ? 2 : 1);
	return msgs > 0 ? msgs * (size > mtu ? ceil(size / mtu) : 1) : 0;
}

/* The path MTU of @d, else the smaller of its ports' active MTUs, else
 * @dflt. */
static double doc_mtu(const json_t *d, double dflt)
{
	double a = fc_jnum(json_object_get(d, "a"), "mtu", 0);
	double b = fc_jnum(json_object_get(d, "b"), "mtu", 0);

	if (fc_jnum(d, "path_mtu", 0) > 0)
		return fc_jnum(d, "path_mtu", 0);
	if (a > 0 && b > 0)
		return a < b ? a : b;
	return a > 0 ? a : b > 0 ? b : dflt;
}

static double results_packets(const json_t *results, double mtu)
{
	double n = 0;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
		n += result_packets(r, mtu);
	return n;
}

double fc_loss_packets(const json_t *doc)
{
	/* Unknown MTU: RoCE's and InfiniBand's largest, 4096 (the fewest
	 * packets, so the highest loss rate the counts allow). */
	double mtu = doc_mtu(doc, 4096), n = 0;
	const json_t *rails = json_object_get(doc, "rails");
	size_t i;
	json_t *r;

	if (!json_array_size(rails))
		return results_packets(json_object_get(doc, "results"), mtu);
	json_array_foreach(rails, i, r) /* the top-level results aggregate "loaded" */
		for (int k = 0; k < 2; k++) {
			const json_t *ph = json_object_get(r, k ? "alone" : "loaded");

			n += results_packets(json_object_get(ph, "results"), doc_mtu(ph, mtu));
		}
	return n;
}

/* P(X >= k) for X ~ Binomial(n, p), k and n whole: the terms summed from
 * k away from the mode (they fall from there), until they no longer count. */
static double binom_upper(double k, double n, double p)
{
	double lp, lq, lc, s = 0, t;

	if (k <= 0 || p >= 1)
		return 1;
	if (k > n || p <= 0)
		return 0;
	lp = log(p);
	lq = log1p(-p);
	lc = lgamma(n + 1);
	if (k > n * p) {
		for (double j = k; j <= n; j++) {
			t = exp(lc - lgamma(j + 1) - lgamma(n - j + 1) + j * lp + (n - j) * lq);
			s += t;
			if (t <= s * 1e-17)
				break;
		}
		return s < 1 ? s : 1;
	}
	for (double j = k - 1; j >= 0; j--) { /* 1 - P(X <= k - 1) */
		t = exp(lc - lgamma(j + 1) - lgamma(n - j + 1) + j * lp + (n - j) * lq);
		s += t;
		if (t <= s * 1e-17)
			break;
	}
	return s < 1 ? 1 - s : 0;
}

double fc_poisson_rate_p(double x1, double t1, double x0, double t0)
{
	x1 = floor(x1 + 0.5);
	x0 = floor(x0 + 0.5);
	if (!(t1 > 0) || !(t0 > 0) || x1 < 0 || x0 < 0 || !isfinite(x1 + x0))
		return 1;
	return binom_upper(x1, x1 + x0, t1 / (t1 + t0));
}
