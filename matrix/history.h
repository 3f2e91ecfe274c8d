/*
 * Every link against its own past: a link of this run is flagged when its
 * bandwidth is more than drop_pct below the median of its last k runs
 * (at least min_runs of them). Pure: series in, flags out. The defaults
 * come from `make bench-history` (tests/bench/bench_history.c): under 1%
 * false flags over 100 nightly runs of healthy noise (see doc/matrix-screen.md).
 */
#ifndef FC_HISTORY_H
#define FC_HISTORY_H

#include <stddef.h>

#define FC_HIST_K_MAX 30

struct fc_hist_opts {
	int k;		 /* past runs the median is taken over */
	double drop_pct; /* flagged when more than this share below the median */
	int min_runs;	 /* fewer past runs than this: never flagged */
};
#define FC_HIST_OPTS_DEFAULT { .k = 7, .drop_pct = 15, .min_runs = 3 }

/* One result of a link in one run: run 0 is the run judged, 1 the one
 * before, and so on (a later point of the same link and run replaces). */
struct fc_hist_point {
	int a, b, rail;
	int run; /* 0 .. k */
	double gbps;
};

struct fc_hist_link {
	int a, b, rail;		     /* a < b */
	double now, median, drop_pct; /* drop_pct: (median - now) / median, in %, NAN */
	int runs;		     /* past runs with a figure */
	int flagged;
	double *series; /* k + 1: [0] = now, [i] = i runs ago; NAN where none */
};

/* 1 when @now is more than o->drop_pct below the median of the @npast
 * figures of @past (NAN ones skipped; sorted in place), 0 when not;
 * *median_p gets that median (NAN when under min_runs). */
int fc_hist_flag(double *past, int npast, double now, const struct fc_hist_opts *o,
		 double *median_p);

/* Judges @l from its series (l->series[0 .. o->k], NAN where none; [0]
 * this run's figure): sets now, median, drop_pct, runs and flagged. */
void fc_hist_judge(struct fc_hist_link *l, const struct fc_hist_opts *o);
/* The key links are ordered by, worst first (descending): drop_pct, and
 * links without one (fewer past runs than min_runs) after every other. */
double fc_hist_order(const struct fc_hist_link *l);

/* Every link measured in run 0, with its series and flag, into *out_p
 * (*nout_p long, worst drop first; free with fc_hist_free). 0, -EINVAL
 * (k out of 1..FC_HIST_K_MAX) or -ENOMEM. */
int fc_hist_links(const struct fc_hist_point *p, size_t np, const struct fc_hist_opts *o,
		  struct fc_hist_link **out_p, int *nout_p);

void fc_hist_free(struct fc_hist_link *links);

#endif
