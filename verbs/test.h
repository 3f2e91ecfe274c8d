/* The data path: bandwidth and latency loops over connected QPs. */
#ifndef FC_VERBS_TEST_H
#define FC_VERBS_TEST_H

#include <stdint.h>

#include "verbs/res.h"

enum vb_op { VB_WRITE, VB_READ, VB_SEND };

struct vb_test {
	enum vb_op op;
	int lat;	  /* 0 bandwidth, 1 latency */
	uint64_t size;
	uint64_t iters;	  /* per QP for bandwidth, in all for latency */
	double duration;  /* > 0: run this many seconds instead of iters */
	int active;	  /* bw: this side posts; lat: this side starts each round */
	int passive;	  /* bw: receives the peer's sends; lat: answers */
	double interval;  /* bandwidth sample interval, seconds */
};

struct vb_result {
	double seconds;	  /* bw: first post to last completion */
	uint64_t bytes, msgs;
	double *samples;  /* bw: Gb/s per interval; lat: seconds per round */
	size_t nsamples, cap;
};

/* Parses "write", "read", "send". Returns 0 or -EINVAL. */
int vb_op_parse(const char *s, enum vb_op *op_p);
const char *vb_op_name(enum vb_op op);

/* Gets the buffers ready before the controller says go: receives posted,
 * the latency flags cleared. */
int vb_test_prepare(struct vb_res *r, const struct vb_test *t);
int vb_test_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);
void vb_result_release(struct vb_result *res);

/* Shared by the loops (verbs/bw.c, verbs/lat.c). */
struct vb_clock {
	double last_progress, next_cb, next_abort;
	uint64_t done;
	const char *what;
};
void vb_clock_start(struct vb_clock *c, const char *what);
/* Deadline, controller and progress checks; 0 or -ETIMEDOUT/-ECANCELED. */
int vb_clock_tick(struct vb_res *r, struct vb_clock *c, double now);
int vb_result_push(struct vb_result *res, double v);
int vb_bw_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);
int vb_lat_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res);

#endif
