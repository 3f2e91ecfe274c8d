/*
 * A latency round times the round only (issue 40, item 3), counted on the
 * fake HCA (tests/fake/fake_hca.h), not timed: between the poll that
 * brings the answer and the next post, the timing side reads the clock
 * once (the round's one stamp) and calls nothing else of verbs; the
 * answering side, between the poll that brings the message and its
 * answer, neither reads the clock nor calls anything else. Clock reads
 * are counted by defining clock_gettime here (the library's fc_now calls
 * it); verbs calls by wrapping the fake's post_send, post_recv, poll_cq.
 * Write latency by polling (the default write mode) has an answer no
 * wrapper sees come, a byte in memory: test_write_poll_round lands it
 * itself (struct answer).
 * The bandwidth loop's clock reads are counted the same way (item 1,
 * verbs/bw.c bw_reap_time): one in BW_CLOCK_REAPS (16) reaps of send
 * completions while they come at the loop's pace on a hardware HCA; one a
 * reap when the loop waited for them, and on a software provider.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/fake/fake_hca.h"

static __thread unsigned long clocks; /* this thread's clock reads */

static void land(void);

int clock_gettime(clockid_t id, struct timespec *ts)
{
	clocks++;
	land();
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
	int by_landing;		/* armed by an answer's landing (land), not by a poll */
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

	if (got > 0 && !x->by_landing) {
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

/*
 * The answer of a write latency round by polling, landed by this file on
 * a timing side that runs alone (its peer's buffer takes its writes, but
 * nothing answers): each write it posts is kept, and lands at the side's
 * first clock read after the post, written into its own rx slot as the
 * peer's answer would be (both sides lay their slots out alike, and the
 * answer carries the same two marker bytes: the round's pass, the last
 * flag). Waiting for that byte (verbs/lat.c wait_byte) the side reads the
 * clock every 1024 empty spins, so the answer lands while it waits, in
 * the one thread: no race with a peer's thread. Any clock read of the
 * side's between its post and its wait would land the answer there, and
 * what follows be counted as between the answer and the next post.
 */
static struct answer {
	struct fk_side *s;	/* the timing side (NULL: no landing) */
	int due;		/* a write posted, its answer not landed */
	uint64_t off;		/* its slot's offset in a buffer half */
	uint32_t len;
	uint8_t msg[64];	/* the message as posted */
	unsigned long landed;
} ans;

static void catch_write(const struct ibv_send_wr *wr)
{
	if (!ans.s || wr->opcode != IBV_WR_RDMA_WRITE || wr->num_sge != 1 ||
	    wr->sg_list[0].length > sizeof(ans.msg))
		return;
	ans.off = wr->wr.rdma.remote_addr - vb_peer_rx(&ans.s->r, 0);
	ans.len = wr->sg_list[0].length;
	memcpy(ans.msg, (const void *)(uintptr_t)wr->sg_list[0].addr, ans.len);
	ans.due = 1;
}

static void land(void)
{
	if (!ans.due)
		return;
	ans.due = 0;
	ans.landed++;
	memcpy(vb_rx(&ans.s->r, 0) + ans.off, ans.msg, ans.len);
	w[0].armed = 1;
	w[0].clk_at = clocks; /* this read was before the landing */
	w[0].calls = 0;
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
	catch_write(wr);
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

/* One QP, 64 B buffers, a 5 s timeout: each latency test's sides. */
static const struct fk_cfg lat_cfg = { .nqps = 1, .tx_depth = 128, .threads = 1,
				       .max_size = 64, .timeout = 5 };

/* 300 rounds of 8 B @op (@mode for write) in method @m, timing side. */
static struct vb_test lat_test(enum vb_op op, enum vb_lat_mode mode, enum vb_method m)
{
	return (struct vb_test){ .op = op, .lat = 1, .size = 8, .iters = 300, .active = 1,
				 .interval = 0.1, .method = m, .warmup = VB_KNOB_DEFAULT,
				 .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				 .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1,
				 .lat_mode = mode };
}

/* 300 rounds of @op (@mode for write) in method @m; the counts per side. */
static void rounds(enum vb_op op, enum vb_lat_mode mode, enum vb_method m)
{
	struct vb_test ta = lat_test(op, mode, m);
	struct vb_test tb = ta;
	struct fk_side a, b;
	struct vb_result ra, rb;
	int ea, eb;

	tb.active = 0;
	tb.passive = op != VB_READ;
	assert_int_equal(fk_side_init(&a, &lat_cfg), 0);
	assert_int_equal(fk_side_init(&b, &lat_cfg), 0);
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

/* Write latency by polling, the timing side: @n rounds of @m's method
 * with the answers landed by this file (struct answer). Between each
 * answer's landing and the next post: the round's one clock read, no
 * verbs call (the marker bytes are written there, as perftest's
 * run_iter_lat_write does). */
static void write_poll_rounds(enum vb_method m)
{
	struct vb_test t = lat_test(VB_WRITE, VB_LAT_POLL, m);
	struct fk_side a, b;
	struct vb_result res;
	int err;

	assert_int_equal(fk_side_init(&a, &lat_cfg), 0);
	assert_int_equal(fk_side_init(&b, &lat_cfg), 0);
	fk_connect(&a, &b);
	watch_side(&a, 0);
	w[0].by_landing = 1;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	ans = (struct answer){ .s = &a };
	err = vb_test_run(&a.r, &t, &res);
	ans.s = NULL;
	ans.due = 0;
	assert_int_equal(err, 0);
	/* every round counted, as before (n - 1 in perftest's method) */
	assert_int_equal(res.lat.n, m == VB_METHOD_PERFTEST ? 299 : 300);
	print_message("write by polling, %s: %lu answers landed, %lu rounds seen, worst %lu clock reads and %lu verbs calls\n",
		      vb_method_name(m), ans.landed, w[0].rounds, w[0].max_clocks, w[0].max_calls);
	if (w[0].rounds < 299 || w[0].rounds + 1 != ans.landed || w[0].max_clocks != 1 ||
	    w[0].max_calls)
		fail_msg("write by polling, %s: the timing side's worst round read the clock %lu times and made %lu other verbs calls between the answer's landing and the next post (%lu rounds seen, %lu answers landed); want 1 and 0",
			 vb_method_name(m), w[0].max_clocks, w[0].max_calls, w[0].rounds,
			 ans.landed);
	vb_result_release(&res);
	fk_side_free(&a);
	fk_side_free(&b);
}

static void test_write_poll_round(void **state)
{
	(void)state;
	write_poll_rounds(VB_METHOD_FABCHECK);
	write_poll_rounds(VB_METHOD_PERFTEST);
}

/* 32768 writes of 64 B in @m's method, post list @list, on one fake side
 * whose completions show after @delay empty polls, the provider @soft:
 * the clock reads of the run; *reaps_p: the reaps that found completions
 * (the posts that followed one). */
static unsigned long bw_clocks(enum vb_method m, int list, int delay, int soft,
			       unsigned long *reaps_p)
{
	struct fk_cfg c = { .nqps = 1, .tx_depth = 128, .threads = 1, .max_size = 64,
			    .timeout = 5 };
	struct vb_test t = { .op = VB_WRITE, .size = 64, .iters = 32768, .active = 1,
			     .interval = 0.1, .method = m, .warmup = 0,
			     .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			     .cycle = VB_CYCLE_DEFAULT, .post_list = list, .threads = 1 };
	struct fk_side a;
	struct vb_result res;
	unsigned long before, n;

	assert_int_equal(fk_side_init(&a, &c), 0);
	a.r.soft = soft;
	fk_set_delay(&a, delay);
	watch_side(&a, 0);
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	before = clocks;
	assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
	n = clocks - before;
	assert_int_equal(res.msgs, 32768);
	assert_true(res.seconds > 0);
	*reaps_p = w[0].rounds;
	vb_result_release(&res);
	fk_side_free(&a);
	return n;
}

/* Completions at the loop's own pace on a hardware HCA (no delay): the
 * clock read about once in 16 reaps (a few more: the pass's start and
 * end), where the loop before read it at every reap. */
static void test_bw_clock_paced(void **state)
{
	static const struct { enum vb_method m; int list; } cs[] = {
		{ VB_METHOD_FABCHECK, 32 }, { VB_METHOD_PERFTEST, 8 }, { VB_METHOD_PERFTEST, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		unsigned long reaps, n = bw_clocks(cs[i].m, cs[i].list, 0, 0, &reaps);

		print_message("%s --post-list %d: %lu clock reads in %lu reaps\n",
			      vb_method_name(cs[i].m), cs[i].list, n, reaps);
		if (reaps < 100 || n > reaps / 16 + 8)
			fail_msg("%s --post-list %d: %lu clock reads in %lu reaps; want at most one in 16 and 8 more",
				 vb_method_name(cs[i].m), cs[i].list, n, reaps);
	}
}

/* The loop waited for each completion (100 empty polls, as on a slow
 * link), or the provider is software: a reading at every reap, so the
 * samples and -D's end keep fresh times (the virtual rack's rxe). */
static void test_bw_clock_waited(void **state)
{
	unsigned long reaps, n;

	(void)state;
	n = bw_clocks(VB_METHOD_FABCHECK, 32, 100, 0, &reaps);
	print_message("waited: %lu clock reads in %lu reaps\n", n, reaps);
	if (reaps < 100 || n < reaps)
		fail_msg("waited 100 empty polls a reap: %lu clock reads in %lu reaps; want one a reap", n, reaps);
	n = bw_clocks(VB_METHOD_FABCHECK, 32, 0, 1, &reaps);
	print_message("software: %lu clock reads in %lu reaps\n", n, reaps);
	if (reaps < 100 || n < reaps)
		fail_msg("software provider: %lu clock reads in %lu reaps; want one a reap", n, reaps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_round),
		cmocka_unit_test(test_write_imm_round),
		cmocka_unit_test(test_read_round),
		cmocka_unit_test(test_write_poll_round),
		cmocka_unit_test(test_bw_clock_paced),
		cmocka_unit_test(test_bw_clock_waited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
