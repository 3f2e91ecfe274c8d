/*
 * `make bench-history`: the defaults of the history flag (matrix/history.h)
 * from simulated nights. 20,000 healthy links over 100 nightly runs with
 * 3% jitter and dips (a result at 30-85% of the rate) on 5% of results,
 * left in (a full matrix) or retested once with the latest kept (the
 * screen, --retest); then links that step down to 75% at night 50. Prints,
 * per (k, drop), the share of healthy link-nights flagged and the share
 * of stepped links flagged on the night of the step. Not a test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "matrix/history.h"

#define LINKS 20000
#define NIGHTS 100

static unsigned long long rng = 88172645463325252ull;

static double uni(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uni() + 1e-12)) * cos(2 * M_PI * uni());
}

/* One night's figure of a link at @level of its rate. */
static double night(double level, int retest)
{
	double v = level * (1 + 0.03 * gauss());

	if (uni() < 0.05 && (!retest || uni() < 0.05))
		v *= 0.3 + 0.55 * uni();
	return v;
}

/* Share of nights flagged (from night k on) and of steps caught. */
static void run(const struct fc_hist_opts *o, int retest, double *false_p, double *caught_p)
{
	static double v[NIGHTS];
	double past[FC_HIST_K_MAX];
	long flags = 0, nights = 0, caught = 0;

	for (int l = 0; l < LINKS; l++) {
		int step = l % 2; /* half the links step down at night 50 */

		for (int t = 0; t < NIGHTS; t++)
			v[t] = night(step && t >= NIGHTS / 2 ? 0.75 : 1, retest);
		for (int t = o->k; t < NIGHTS; t++) {
			int f;

			for (int i = 0; i < o->k; i++)
				past[i] = v[t - 1 - i];
			f = fc_hist_flag(past, o->k, v[t], o, NULL);
			if (!step || t < NIGHTS / 2) {
				flags += f;
				nights++;
			} else if (t == NIGHTS / 2) {
				caught += f;
			}
		}
	}
	*false_p = 100.0 * (double)flags / (double)nights;
	*caught_p = 100.0 * (double)caught / (LINKS / 2);
}

int main(void)
{
	int ks[] = { 3, 5, 7, 10, 14 };
	double drops[] = { 10, 15, 20, 30 };

	printf("history flag: %d links x %d nights, 3%% jitter, 5%% dips; a step to 75%% at night "
	       "%d\n%4s %6s  %22s  %22s\n%4s %6s  %10s %11s  %10s %11s\n", LINKS, NIGHTS,
	       NIGHTS / 2, "", "", "dips left in", "dips retested once", "k", "drop",
	       "false %", "step caught", "false %", "step caught");
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		for (size_t j = 0; j < sizeof(drops) / sizeof(drops[0]); j++) {
			struct fc_hist_opts o = { .k = ks[i], .drop_pct = drops[j], .min_runs = 3 };
			double f0, c0, f1, c1;

			run(&o, 0, &f0, &c0);
			run(&o, 1, &f1, &c1);
			printf("%4d %5.0f%%  %9.3f%% %10.1f%%  %9.3f%% %10.1f%%\n", o.k, o.drop_pct,
			       f0, c0, f1, c1);
		}
	}
	return 0;
}
