/*
 * `make bench-history`: the defaults of the history flag (matrix/history.h)
 * from simulated nights (tests/bench/hist_sim.h). 20,000 healthy links over
 * 100 nightly runs with 3% jitter and dips (a reading at 30-85% of the
 * rate) on 5% of readings, judged on one reading (as `matrix` did) or as
 * `matrix` does now at its defaults, without --retest: a link flagged on
 * its first reading is measured again and the latest judged; then links
 * that step down to 75% at night 50. Prints, per (k, drop), the share of
 * healthy link-nights flagged and the share of stepped links flagged on the
 * night of the step. Not a test (tests/unit/test_history.c asserts the
 * defaults' row).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/bench/hist_sim.h"

#define LINKS 20000
#define NIGHTS 100

/* Share of nights flagged (from night k on) and of steps caught. */
static void run(const struct fc_hist_opts *o, int again, double *false_p, double *caught_p)
{
	static double v[NIGHTS];
	struct hist_sim sim = { 88172645463325252ull };
	double past[FC_HIST_K_MAX];
	long flags = 0, nights = 0, caught = 0;

	for (int l = 0; l < LINKS; l++) {
		int step = l % 2; /* half the links step down at night 50 */

		for (int t = 0; t < NIGHTS; t++) {
			double level = step && t >= NIGHTS / 2 ? 0.75 : 1;
			int f;

			if (t < o->k) {
				v[t] = hist_sim_read(&sim, level);
				continue;
			}
			for (int i = 0; i < o->k; i++)
				past[i] = v[t - 1 - i];
			f = hist_sim_judge(&sim, past, o->k, level, again, o, &v[t]);
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
	struct fc_hist_opts dflt = FC_HIST_OPTS_DEFAULT;

	printf("history flag: %d links x %d nights, 3%% jitter, 5%% dips; a step to 75%% at night "
	       "%d (defaults: k %d, drop %.0f%%)\n%4s %6s  %22s  %22s\n%4s %6s  %10s %11s  %10s %11s\n",
	       LINKS, NIGHTS, NIGHTS / 2, dflt.k, dflt.drop_pct, "", "", "one reading",
	       "flagged read again", "k", "drop", "false %", "step caught", "false %",
	       "step caught");
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		for (size_t j = 0; j < sizeof(drops) / sizeof(drops[0]); j++) {
			struct fc_hist_opts o = { .k = ks[i], .drop_pct = drops[j], .min_runs = 3 };
			double f0, c0, f1, c1;

			run(&o, 0, &f0, &c0);
			run(&o, 1, &f1, &c1);
			printf("%4d %5.0f%%  %9.3f%% %10.1f%%  %9.3f%% %10.1f%%%s\n", o.k, o.drop_pct,
			       f0, c0, f1, c1,
			       o.k == dflt.k && o.drop_pct == dflt.drop_pct ? "  <- defaults" : "");
		}
	}
	return 0;
}
