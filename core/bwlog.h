/*
 * Bandwidth over a whole run in fixed memory: every interval goes into a
 * histogram (min, median, max), the lowest intervals are kept with their
 * times (the dips), and the cumulative bytes are kept as a curve of at most
 * FC_BWLOG_PTS points (halved, every other point dropped, when full), which
 * is what the bidirectional window is cut from. Pure code.
 */
#ifndef FC_BWLOG_H
#define FC_BWLOG_H

#include <jansson.h>
#include <stdint.h>

#include "core/hist.h"

#define FC_BWLOG_LOW 32	  /* lowest intervals kept with their times */
#define FC_BWLOG_PTS 256  /* points of the cumulative curve */
#define FC_DIP_SHARE 0.5  /* an interval under half the median is a dip */

struct fc_bwlog {
	struct fc_hist h;	 /* Gb/s per interval */
	struct { double t, gbps; } low[FC_BWLOG_LOW]; /* t: interval start, s since t0 */
	int nlow;
	double t0, last_t;	 /* first post; the last mark */
	uint64_t last_bytes;
	double pt_t[FC_BWLOG_PTS]; /* seconds since t0 */
	uint64_t pt_b[FC_BWLOG_PTS];
	int npts, stride, skip;
};

/* Starts at @t0 (any clock, seconds) with 0 bytes. Returns 0 or -ENOMEM. */
int fc_bwlog_init(struct fc_bwlog *l, double t0);
void fc_bwlog_release(struct fc_bwlog *l);
/* An interval ends at @t with @total bytes moved since t0. */
void fc_bwlog_mark(struct fc_bwlog *l, double t, uint64_t total);
/* The run ended at @t with @total bytes (a partial interval: on the curve,
 * not among the intervals). */
void fc_bwlog_end(struct fc_bwlog *l, double t, uint64_t total);
/* "intervals": n, min/median/max Gb/s, the dips with their times, how many;
 * "curve": [[seconds since t0, bytes], ...]; "t0". */
void fc_bwlog_json(const struct fc_bwlog *l, json_t *obj);

/* A recorded curve: times on one clock, bytes cumulative, ascending. */
struct fc_curve {
	const double *t;
	const double *bytes;
	int n;
};

/* Bytes moved by @t, interpolated between points (0 before, all after). */
double fc_curve_at(const struct fc_curve *c, double t);

struct fc_common {
	double start, end;	/* the window both ran in (end <= start: none) */
	double share;		/* window / (last end - first start) */
	double gbps[2];		/* each direction over the window */
	double sum;
};

/* The window in which both curves ran, and what each moved in it. */
void fc_bw_common(const struct fc_curve *a, const struct fc_curve *b, struct fc_common *out);
/* The window in which all @n curves ran (the latest start to the earliest
 * end), its share of the whole span, each curve's Gb/s over it in @gbps
 * and their sum (out->gbps unused). Returns 0, or -1 when a curve has under
 * two points or the curves share no window (start/end then say where the
 * window would be). */
int fc_bw_window(const struct fc_curve *c, int n, double *gbps, struct fc_common *out);

#endif
