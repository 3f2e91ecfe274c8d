/*
 * A latency round times the round only (issue 40, item 3), counted on the
 * fake HCA (tests/fake/fake_hca.h), not timed: between the poll that
 * brings the answer and the next post, the timing side reads the clock
 * once (the round's one stamp) and calls nothing else of verbs; the
 * answering side, between the poll that brings the message and its
 * answer, neither reads the clock nor calls anything else. Clock reads
 * are counted by defining clock_gettime here (the library's fc_now calls
 * it); verbs calls by wrapping the fake's post_send, post_recv, poll_cq.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/fake/fake_hca.h"

static __thread unsigned long clocks; /* this thread's clock reads */

int clock_gettime(clockid_t id, struct timespec *ts)
{
	clocks++;
	return (int)syscall(SYS_clock_gettime, id, ts);
}

/* Per side (each runs on a thread of its own in fk_run_pair). */
struct watch {
	struct ibv_context *ctx;
	int armed;		/* a poll brought something; no post since */
	unsigned long clk_at;	/* clocks then */
	unsigned long calls;	/* other verbs calls since */
	unsigned long rounds;	/* posts that followed a poll that brought something */
	unsigned long max_clocks, max_calls;
};

static struct watch w[2];
static int (*real_post)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
static int (*real_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **);
static int (*real_poll)(struct ibv_cq *, int, struct ibv_wc *);

static struct watch *of(struct ibv_context *ctx)
{
	return ctx == w[0].ctx ? &w[0] : &w[1];
}

static int poll_w(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct watch *x = of(cq->context);
	int got = real_poll(cq, n, wc);

	if (got > 0) {
		x->armed = 1;
		x->clk_at = clocks;
		x->calls = 0;
	} else if (x->armed) {
		x->calls++;
	}
	return got;
}

static int recv_w(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct watch *x = of(qp->context);

	if (x->armed)
		x->calls++;
	return real_recv(qp, wr, bad);
}

static int post_w(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct watch *x = of(qp->context);

	if (x->armed) {
		x->rounds++;
		if (clocks - x->clk_at > x->max_clocks)
			x->max_clocks = clocks - x->clk_at;
		if (x->calls > x->max_calls)
			x->max_calls = x->calls;
		x->armed = 0;
	}
	return real_post(qp, wr, bad);
}

static void watch_side(struct fk_side *s, int k)
{
	real_post = s->ctx.ops.post_send;
	real_recv = s->ctx.ops.post_recv;
	real_poll = s->ctx.ops.poll_cq;
	s->ctx.ops.post_send = post_w;
	s->ctx.ops.post_recv = recv_w;
	s->ctx.ops.poll_cq = poll_w;
	memset(&w[k], 0, sizeof(w[k]));
	w[k].ctx = &s->ctx;
}

/* 300 rounds of @op (@mode for write) in method @m; the counts per side. */
static void rounds(enum vb_op op, enum vb_lat_mode mode, enum vb_method m)
{
	struct fk_cfg c = { .nqps = 1, .tx_depth = 128, .threads = 1, .max_size = 64,
			    .timeout = 5 };
	struct vb_test ta = { .op = op, .lat = 1, .size = 8, .iters = 300, .active = 1,
			      .interval = 0.1, .method = m, .warmup = VB_KNOB_DEFAULT,
			      .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			      .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1,
			      .lat_mode = mode };
	struct vb_test tb = ta;
	struct fk_side a, b;
	struct vb_result ra, rb;
	int ea, eb;

	tb.active = 0;
	tb.passive = op != VB_READ;
	assert_int_equal(fk_side_init(&a, &c), 0);
	assert_int_equal(fk_side_init(&b, &c), 0);
	fk_connect(&a, &b);
	watch_side(&a, 0);
	watch_side(&b, 1);
	assert_int_equal(vb_test_resolve(&a.r, &ta), 0);
	assert_int_equal(vb_test_resolve(&b.r, &tb), 0);
	assert_int_equal(vb_test_prepare(&b.r, &tb), 0);
	assert_int_equal(vb_test_prepare(&a.r, &ta), 0);
	fk_run_pair(&a, &ta, &ra, &ea, &b, &tb, &rb, &eb);
	assert_int_equal(ea, 0);
	assert_int_equal(eb, 0);
	/* every round counted, as before (n - 1 in perftest's method) */
	assert_int_equal(ra.lat.n, m == VB_METHOD_PERFTEST ? 299 : 300);
	if (w[0].rounds < 299 || w[0].max_clocks != 1 || w[0].max_calls)
		fail_msg("%s %s, %s: the timing side's worst round read the clock %lu times and made %lu other verbs calls between the answer and the next post (%lu rounds seen); want 1 and 0",
			 vb_op_name(op), mode == VB_LAT_IMM ? "imm" : "", vb_method_name(m),
			 w[0].max_clocks, w[0].max_calls, w[0].rounds);
	if (op != VB_READ && (w[1].rounds < 300 || w[1].max_clocks || w[1].max_calls))
		fail_msg("%s, %s: the answering side's worst round read the clock %lu times and made %lu other verbs calls before answering (%lu rounds seen); want 0 and 0",
			 vb_op_name(op), vb_method_name(m), w[1].max_clocks, w[1].max_calls,
			 w[1].rounds);
	vb_result_release(&ra);
	vb_result_release(&rb);
	fk_side_free(&a);
	fk_side_free(&b);
}

static void test_send_round(void **state)
{
	(void)state;
	rounds(VB_SEND, VB_LAT_POLL, VB_METHOD_FABCHECK);
	rounds(VB_SEND, VB_LAT_POLL, VB_METHOD_PERFTEST);
}

static void test_write_imm_round(void **state)
{
	(void)state;
	rounds(VB_WRITE, VB_LAT_IMM, VB_METHOD_FABCHECK);
	rounds(VB_WRITE, VB_LAT_IMM, VB_METHOD_PERFTEST);
}

static void test_read_round(void **state)
{
	(void)state;
	rounds(VB_READ, VB_LAT_POLL, VB_METHOD_FABCHECK);
	rounds(VB_READ, VB_LAT_POLL, VB_METHOD_PERFTEST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_round),
		cmocka_unit_test(test_write_imm_round),
		cmocka_unit_test(test_read_round),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
