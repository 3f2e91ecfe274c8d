/* Links against their own past (matrix/history.h): a step down, noise only, gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "matrix/history.h"
#include "tests/bench/hist_sim.h"

static const struct fc_hist_opts dflt = FC_HIST_OPTS_DEFAULT;

/* A recorded series, newest first: ten nights near 190 Gb/s with jitter
 * and one dip, then the step down to 140. */
static const double healthy[] = { 191.2, 188.4, 190.9, 121.0, 189.7, 192.3, 187.8, 190.1,
				  189.0, 191.5 };

static void test_step_down_flagged(void **state)
{
	double past[7], med;

	(void)state;
	for (int i = 0; i < 7; i++)
		past[i] = healthy[i];
	assert_int_equal(fc_hist_flag(past, 7, 140.0, &dflt, &med), 1);
	assert_true(fabs(med - 189.7) < 1e-9); /* the dip does not move the median */
	for (int i = 0; i < 7; i++)
		past[i] = healthy[i];
	assert_int_equal(fc_hist_flag(past, 7, 165.0, &dflt, &med), 0); /* 13% below */
}

/* Each night of the series against the nights before it: the one dip is
 * the only flag of noise alone. */
static void test_noise_only(void **state)
{
	int flags = 0;

	(void)state;
	for (int t = 0; t + 3 < 10; t++) {
		double past[7];
		int np = 0;

		for (int i = t + 1; i < 10 && np < 7; i++)
			past[np++] = healthy[i];
		flags += fc_hist_flag(past, np, healthy[t], &dflt, NULL);
	}
	assert_int_equal(flags, 1); /* night 3, the dip */
}

static void test_too_few_runs(void **state)
{
	double past[] = { 190, NAN, 191, NAN }, med;

	(void)state;
	assert_int_equal(fc_hist_flag(past, 4, 10, &dflt, &med), 0);
	assert_true(isnan(med));
}

/* Points of several links and runs: worst drop first, a later point of
 * the same run replaces, a link absent from run 0 is left out. */
static void test_links(void **state)
{
	struct fc_hist_point p[] = {
		{ 0, 1, 0, 0, 50 },  { 1, 0, 0, 1, 100 }, { 0, 1, 0, 2, 101 }, { 0, 1, 0, 3, 99 },
		{ 2, 3, 0, 0, 100 }, { 2, 3, 0, 1, 100 }, { 3, 2, 0, 2, 100 }, { 2, 3, 0, 3, 100 },
		{ 2, 3, 0, 0, 60 },  /* replaces 2-3's run 0 */
		{ 4, 5, 0, 1, 100 }, { 4, 5, 0, 2, 100 },
		{ 0, 1, 1, 0, 98 },  { 0, 1, 1, 1, 100 }, { 0, 1, 1, 2, 100 }, { 0, 1, 1, 3, 100 },
	};
	struct fc_hist_opts o = dflt;
	struct fc_hist_link *l;
	int n;

	(void)state;
	assert_int_equal(fc_hist_links(p, sizeof(p) / sizeof(p[0]), &o, &l, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].a, 0);
	assert_int_equal(l[0].b, 1);
	assert_int_equal(l[0].rail, 0);
	assert_true(l[0].flagged);
	assert_true(fabs(l[0].drop_pct - 50) < 1e-9);
	assert_int_equal(l[1].a, 2);
	assert_true(fabs(l[1].now - 60) < 1e-9);
	assert_true(l[1].flagged);
	assert_int_equal(l[1].runs, 3);
	assert_false(l[2].flagged); /* rail 1 of 0-1: 2% */
	assert_true(isnan(l[0].series[4]));
	fc_hist_free(l);
	o.k = 0;
	assert_int_equal(fc_hist_links(p, 1, &o, &l, &n), -EINVAL);
}

/* Per rail: each (pair, rail) against its own past on that rail. Rail 1 of
 * the pair runs at half of rail 0 every night (a slower rail) and stays
 * there: not flagged, though below rail 0's figure of tonight; rail 0
 * falls 40% below its own median: flagged. Rail 2 is noise alone. */
static void test_per_rail(void **state)
{
	static const double noise[] = { 0.97, 1.02, 0.99, 1.03, 0.98, 1.01, 1.0 };
	struct fc_hist_point p[3 * 8];
	struct fc_hist_opts o = dflt;
	struct fc_hist_link *l;
	int n, np = 0;

	(void)state;
	for (int run = 0; run <= 7; run++) {
		double f = run ? noise[run - 1] : 1;

		p[np++] = (struct fc_hist_point){ 0, 1, 0, run, run ? 100 * f : 60 };
		p[np++] = (struct fc_hist_point){ 1, 0, 1, run, 50 * f };
		p[np++] = (struct fc_hist_point){ 0, 1, 2, run, 100 * f * (run ? 1 : 0.95) };
	}
	assert_int_equal(fc_hist_links(p, (size_t)np, &o, &l, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].rail, 0);
	assert_true(l[0].flagged);
	assert_true(fabs(l[0].median - 100) < 1e-9);
	assert_true(fabs(l[0].drop_pct - 40) < 1e-9);
	for (int i = 1; i < 3; i++) {
		assert_false(l[i].flagged);
		assert_int_equal(l[i].runs, 7);
		assert_true(l[i].rail == 1 ? fabs(l[i].median - 50) < 1e-9 :
					     fabs(l[i].median - 100) < 1e-9);
	}
	fc_hist_free(l);
	/* The same figures without rails (-1) are a link apart from rail 0. */
	for (int i = 0; i < np; i++)
		if (p[i].rail == 2)
			p[i].rail = -1;
	assert_int_equal(fc_hist_links(p, (size_t)np, &o, &l, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].rail, 0);
	assert_int_equal(l[2].rail == -1 || l[1].rail == -1, 1);
	fc_hist_free(l);
}

/* The simulator's nights at the defaults, scored as `matrix` reports them
 * (a flagged link measured again, the latest judged): under 1% false flags
 * over 100 nightly runs of healthy noise, where one reading gave about 5%;
 * a step to 75% is still caught on its night. */
static void sim_rates(int again, double *false_p, double *caught_p)
{
	struct fc_hist_opts o = FC_HIST_OPTS_DEFAULT;
	struct hist_sim sim = { 88172645463325252ull };
	double v[100], past[FC_HIST_K_MAX];
	long flags = 0, nights = 0, caught = 0, steps = 0;

	for (int l = 0; l < 2000; l++) {
		for (int t = 0; t < 100; t++) {
			double level = l % 2 && t >= 50 ? 0.75 : 1;
			int f;

			if (t < o.k) {
				v[t] = hist_sim_read(&sim, level);
				continue;
			}
			for (int i = 0; i < o.k; i++)
				past[i] = v[t - 1 - i];
			f = hist_sim_judge(&sim, past, o.k, level, again, &o, &v[t]);
			if (!(l % 2) || t < 50) {
				flags += f;
				nights++;
			} else if (t == 50) {
				caught += f;
				steps++;
			}
		}
	}
	*false_p = 100.0 * (double)flags / (double)nights;
	*caught_p = 100.0 * (double)caught / (double)steps;
}

static void test_false_flags_at_defaults(void **state)
{
	double f, c;

	(void)state;
	sim_rates(1, &f, &c);
	assert_true(f < 1.0);
	assert_true(c > 95.0);
	/* One reading, as before: the dips are flagged. */
	sim_rates(0, &f, &c);
	assert_true(f > 3.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_down_flagged),
		cmocka_unit_test(test_noise_only),
		cmocka_unit_test(test_too_few_runs),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_per_rail),
		cmocka_unit_test(test_false_flags_at_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
