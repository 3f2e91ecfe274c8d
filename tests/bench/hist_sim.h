/*
 * Simulated nights of one link for the history flag (matrix/history.h):
 * 3% jitter, and dips (a reading at 30-85% of the rate: a loaded host, a
 * reroute) on 5% of readings. Used by `make bench-history` and by
 * tests/unit/test_history.c. hist_sim_judge scores exactly what `matrix`
 * reports at its defaults: a link flagged on its first reading is measured
 * again (mx_session_retest_history) and the latest reading is judged.
 */
#ifndef FC_HIST_SIM_H
#define FC_HIST_SIM_H

#include <math.h>

#include "matrix/history.h"

struct hist_sim {
	unsigned long long rng;
};

static inline double hist_sim_uni(struct hist_sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / 9007199254740992.0;
}

/* One reading of a link at @level of its rate. */
static inline double hist_sim_read(struct hist_sim *s, double level)
{
	double v = level * (1 + 0.03 * sqrt(-2 * log(hist_sim_uni(s) + 1e-12)) *
				      cos(2 * M_PI * hist_sim_uni(s)));

	if (hist_sim_uni(s) < 0.05)
		v *= 0.3 + 0.55 * hist_sim_uni(s);
	return v;
}

/* The night's verdict on a link with @npast past figures: with @again, a
 * first reading that is flagged is read once more (at @level) and the
 * latest judged, as the product does; *kept_p gets the reading kept (the
 * next night's past). */
static inline int hist_sim_judge(struct hist_sim *s, double *past, int npast, double level,
				 int again, const struct fc_hist_opts *o, double *kept_p)
{
	double tmp[FC_HIST_K_MAX], v = hist_sim_read(s, level);
	int f;

	for (int i = 0; i < npast; i++)
		tmp[i] = past[i];
	f = fc_hist_flag(tmp, npast, v, o, NULL);
	if (f && again) {
		v = hist_sim_read(s, level);
		for (int i = 0; i < npast; i++)
			tmp[i] = past[i];
		f = fc_hist_flag(tmp, npast, v, o, NULL);
	}
	*kept_p = v;
	return f;
}

#endif
