/*
 * A latency round times the round only (issue 40, item 3), counted on the
 * fake HCA (tests/fake/fake_hca.h), not timed: between the poll that
 * brings the answer and the next post, the timing side reads the clock
 * once (the round's one stamp) and calls nothing else of verbs; the
 * answering side, between the poll that brings the message and its
 * answer, neither reads the clock nor calls anything else. On both, the
 * request posted there is the one prepared before (not built anew: a
 * canary planted in its wr_id when the answer came is still there at the
 * post) and nothing is recorded before the post (the side's histogram
 * and counts as they were). Clock reads are counted by defining
 * clock_gettime here (the library's fc_now calls it); verbs calls by
 * wrapping the fake's post_send, post_recv, poll_cq. Read latency has no
 * answering side of its own (the peer's HCA answers a read). The same
 * bound holds with --validate (send, write with immediate, read; fabcheck's
 * method): each message stamped and checked outside the path, all good.
 * Write latency by polling (the default write mode) has messages no
 * wrapper sees come, bytes in memory: test_write_poll_round lands them
 * itself (struct answer), on each side run alone.
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

/* Planted in the prepared request's wr_id when the answer comes (arm):
 * lat.c sets no wr_id, so a request built anew before the post has 0. */
#define CANARY 0xfab0c0de5eedbeefULL

/* Per side (each runs on a thread of its own in fk_run_pair). */
struct watch {
	struct ibv_context *ctx;
	const struct vb_result *res; /* the side's result (NULL: not watched) */
	int armed;		/* a poll brought something; no post since */
	unsigned long clk_at;	/* clocks then */
	unsigned long calls;	/* other verbs calls since */
	uint64_t n_at, msgs_at;	/* res's histogram and message counts then */
	unsigned long rounds;	/* posts that followed a poll that brought something */
	unsigned long max_clocks, max_calls;
	unsigned long rebuilt;	/* of those, requests built anew since (canary gone) */
	unsigned long recorded;	/* rounds with res's counts moved before the post */
	struct ibv_cq *arm_cq;	/* the CQ whose completions bring the message (NULL: any) */
	int plant;		/* plant the canary (latency: one request, lat.c's l->wr) */
	struct ibv_send_wr *wr;	/* the request last posted */
	uint64_t wr_id;		/* its wr_id under the canary */
	int planted;
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

/*
 * The messages of write latency by polling, landed by this file on one
 * side that runs alone (its peer's buffer takes its writes, but nothing
 * runs there), written into the side's own rx slot as the peer's write
 * would be (both sides lay their slots out alike).
 *  - The timing side: each write it posts is kept (rec) and its answer,
 *    the same slot with the same two marker bytes (the round's pass, the
 *    last flag), lands at the side's first clock read after the post.
 *  - The answering side: the timing side's writes so kept land in turn,
 *    the first before the run, each next one at the side's first clock
 *    read after it posted its answer and then polled (answered() reaps),
 *    or at its second clock read after the post, whichever comes first.
 * Waiting for the byte (verbs/lat.c wait_byte) the side reads the clock
 * every 1024 empty spins, so the message lands while it waits, in its one
 * thread: no race with a peer's thread. A clock read of the side's before
 * its wait would land the message there, and what follows be counted as
 * between the message and the post (a bound too strict, never too loose).
 */
#define ANS_MAX 512
struct answer {
	struct fk_side *s;	/* the side (NULL: no landing) */
	int replay;		/* land rec in turn (answering side), not the side's own */
	int due;		/* a message to land at the side's next clock read */
	int polled;		/* it polled since its last post */
	int reads;		/* its clock reads since its last post */
	struct rec {
		uint64_t off;	/* its slot's offset in a buffer half */
		uint32_t len;
		uint8_t msg[64];
	} rec[ANS_MAX];		/* the timing side's writes, as posted */
	unsigned nrec, next;
	unsigned long landed;
};
static struct answer ans;

static int ans_side(const struct ibv_context *ctx)
{
	return ans.s && ctx == &ans.s->ctx;
}

/* Something came (a completion, or a landed message): from here to the
 * next post is the path the bound is on. */
static void arm(struct watch *x)
{
	x->armed = 1;
	x->clk_at = clocks;
	x->calls = 0;
	if (x->res) {
		x->n_at = x->res->lat.n;
		x->msgs_at = x->res->msgs;
	}
	if (x->plant && x->wr && !(x->planted && x->wr->wr_id == CANARY)) {
		x->wr_id = x->wr->wr_id;
		x->wr->wr_id = CANARY;
		x->planted = 1;
	}
}

static int poll_w(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct watch *x = of(cq->context);
	int got = real_poll(cq, n, wc);

	if (ans_side(cq->context))
		ans.polled = 1;
	if (got > 0 && !x->by_landing && (!x->arm_cq || cq == x->arm_cq))
		arm(x);
	else if (x->armed)
		x->calls++;
	return got;
}

static int recv_w(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct watch *x = of(qp->context);

	if (x->armed)
		x->calls++;
	return real_recv(qp, wr, bad);
}

static void catch_write(const struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	struct rec *m = &ans.rec[ans.nrec];

	if (!ans_side(qp->context))
		return;
	ans.polled = ans.reads = 0;
	if (ans.replay) {
		ans.due = ans.next < ans.nrec;
		return;
	}
	if (wr->opcode != IBV_WR_RDMA_WRITE || wr->num_sge != 1 ||
	    wr->sg_list[0].length > sizeof(m->msg) || ans.nrec == ANS_MAX)
		return;
	m->off = wr->wr.rdma.remote_addr - vb_peer_rx(&ans.s->r, 0);
	m->len = wr->sg_list[0].length;
	memcpy(m->msg, (const void *)(uintptr_t)wr->sg_list[0].addr, m->len);
	ans.nrec++;
	ans.due = 1;
}

static void put(const struct rec *m)
{
	memcpy(vb_rx(&ans.s->r, 0) + m->off, m->msg, m->len);
}

static void land(void)
{
	if (!ans.due || (ans.replay && !ans.polled && ++ans.reads < 2))
		return;
	ans.due = 0;
	ans.landed++;
	put(&ans.rec[ans.replay ? ans.next++ : ans.nrec - 1]);
	arm(of(&ans.s->ctx)); /* this clock read was before the landing */
}

static int post_w(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct watch *x = of(qp->context);
	int kept = x->planted && wr == x->wr && wr->wr_id == CANARY;

	if (x->planted && x->wr->wr_id == CANARY)
		x->wr->wr_id = x->wr_id;
	if (x->armed) {
		x->rounds++;
		if (clocks - x->clk_at > x->max_clocks)
			x->max_clocks = clocks - x->clk_at;
		if (x->calls > x->max_calls)
			x->max_calls = x->calls;
		x->rebuilt += x->planted && !kept;
		x->recorded += x->res && (x->res->lat.n != x->n_at || x->res->msgs != x->msgs_at);
		x->armed = 0;
	}
	x->planted = 0;
	x->wr = wr;
	catch_write(qp, wr);
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

/* Watches side @s as w[@k], a latency side of @op whose result is
 * @res: a message comes as a receive completion, a read's answer as its
 * send completion (the send completions reaped otherwise are not one). */
static void watch_lat(struct fk_side *s, int k, enum vb_op op, const struct vb_result *res)
{
	watch_side(s, k);
	w[k].arm_cq = op == VB_READ ? s->r.scq : s->r.rcq;
	w[k].plant = 1;
	w[k].res = res;
}

/* w[@k]'s worst round against the bound: @clk clock reads (the timing
 * side's one stamp; none on the answering side), no other verbs call,
 * the request prepared before posted as it was, nothing recorded; at
 * least @min rounds seen. @what names the side and case. */
static void bound(int k, unsigned long min, unsigned long clk, const char *what)
{
	const struct watch *x = &w[k];

	print_message("%s: %lu rounds seen, worst %lu clock reads and %lu verbs calls; %lu requests built anew, %lu rounds recorded before the post\n",
		      what, x->rounds, x->max_clocks, x->max_calls, x->rebuilt, x->recorded);
	if (x->rounds < min || x->max_clocks != clk || x->max_calls || x->rebuilt || x->recorded)
		fail_msg("%s: between a message's arrival and the next post the worst round read the clock %lu times and made %lu other verbs calls; %lu requests were built anew and %lu rounds recorded there (%lu rounds seen); want %lu, 0, 0 and 0 (at least %lu rounds)",
			 what, x->max_clocks, x->max_calls, x->rebuilt, x->recorded, x->rounds,
			 clk, min);
}

/* "@op @mode, @m's method, @side" into @buf (@val: validated). */
static const char *case_name(char *buf, size_t len, enum vb_op op, enum vb_lat_mode mode,
			     enum vb_method m, int val, const char *side)
{
	snprintf(buf, len, "%s%s, %s%s, %s", vb_op_name(op),
		 op != VB_WRITE ? "" : mode == VB_LAT_IMM ? " with immediate" : " by polling",
		 vb_method_name(m), !val ? "" : val == 1 ? ", --validate" : ", --validate (GPU)",
		 side);
	return buf;
}

/* Gets side @s ready for @t: validated into @v when @val, 64 B messages
 * in host memory (1: each message's number stamped) or as in GPU memory
 * (2: no stamp, each slot's message filled once). */
static void ready(struct fk_side *s, struct vb_test *t, int val, struct vb_val *v)
{
	if (val) {
		t->size = 64;
		assert_int_equal(fk_val_side(s, t, v, 64, val == 1), 0);
		return;
	}
	assert_int_equal(vb_test_resolve(&s->r, t), 0);
	assert_int_equal(vb_test_prepare(&s->r, t), 0);
}

/* 300 rounds of @op (@mode for write) in method @m, validated when @val
 * (ready); the bound per side. */
static void rounds(enum vb_op op, enum vb_lat_mode mode, enum vb_method m, int val)
{
	struct vb_test ta = lat_test(op, mode, m);
	struct vb_test tb = ta;
	struct fk_side a, b;
	struct vb_result ra, rb;
	struct vb_val va, vb;
	char what[112];
	int ea, eb;

	tb.active = 0;
	tb.passive = op != VB_READ;
	assert_int_equal(fk_side_init(&a, &lat_cfg), 0);
	assert_int_equal(fk_side_init(&b, &lat_cfg), 0);
	fk_connect(&a, &b);
	watch_lat(&a, 0, op, &ra);
	watch_lat(&b, 1, op, &rb);
	ready(&b, &tb, val, &vb);
	ready(&a, &ta, val, &va);
	fk_run_pair(&a, &ta, &ra, &ea, &b, &tb, &rb, &eb);
	assert_int_equal(ea, 0);
	assert_int_equal(eb, 0);
	/* every round counted, as before (n - 1 in perftest's method) */
	assert_int_equal(ra.lat.n, m == VB_METHOD_PERFTEST ? 299 : 300);
	bound(0, 299, 1, case_name(what, sizeof(what), op, mode, m, val, "timing side"));
	if (op != VB_READ) /* a read's answer is the peer HCA's */
		bound(1, 300, 0, case_name(what, sizeof(what), op, mode, m, val, "answering side"));
	if (val) { /* every message checked where it landed, none bad */
		case_name(what, sizeof(what), op, mode, m, val, "both sides");
		print_message("%s: %llu and %llu messages checked, %llu and %llu bad\n", what,
			      (unsigned long long)va.tally.msgs, (unsigned long long)vb.tally.msgs,
			      (unsigned long long)va.tally.bad, (unsigned long long)vb.tally.bad);
		assert_int_equal(va.tally.bad + vb.tally.bad, 0);
		assert_true(va.sent >= 300);
		assert_int_equal(va.tally.msgs, op == VB_READ ? va.sent : vb.sent);
		assert_int_equal(vb.tally.msgs, op == VB_READ ? 0 : va.sent);
	}
	vb_result_release(&ra);
	vb_result_release(&rb);
	fk_side_free(&a);
	fk_side_free(&b);
}

/* @op (@mode for write) in both methods, and validated (host and GPU
 * memory) in fabcheck's
 * (the worker refuses --validate in perftest's, whose one buffer holds
 * every message: ctl/worker_gdr.c val_prepare). */
static void all_rounds(enum vb_op op, enum vb_lat_mode mode)
{
	rounds(op, mode, VB_METHOD_FABCHECK, 0);
	rounds(op, mode, VB_METHOD_PERFTEST, 0);
	rounds(op, mode, VB_METHOD_FABCHECK, 1);
	rounds(op, mode, VB_METHOD_FABCHECK, 2);
}

static void test_send_round(void **state)
{
	(void)state;
	all_rounds(VB_SEND, VB_LAT_POLL);
}

static void test_write_imm_round(void **state)
{
	(void)state;
	all_rounds(VB_WRITE, VB_LAT_IMM);
}

static void test_read_round(void **state)
{
	(void)state;
	all_rounds(VB_READ, VB_LAT_POLL);
}

/* Write latency by polling in @m's method, side @active (the timing side,
 * else the answering side) run alone with the messages landed by this
 * file (struct answer; the answering side's are the timing side's writes
 * of the run before). */
static void write_poll_side(enum vb_method m, int active)
{
	struct vb_test t = lat_test(VB_WRITE, VB_LAT_POLL, m);
	struct fk_side a, b;
	struct vb_result res;
	char what[112];
	unsigned nrec = ans.nrec;
	int err;

	t.active = active;
	t.passive = !active;
	assert_int_equal(fk_side_init(&a, &lat_cfg), 0);
	assert_int_equal(fk_side_init(&b, &lat_cfg), 0);
	fk_connect(&a, &b);
	memset(w, 0, sizeof(w));
	watch_lat(&a, 0, VB_WRITE, &res);
	w[0].by_landing = 1;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	if (active) {
		ans = (struct answer){ .s = &a };
	} else {
		assert_true(nrec >= 300 && nrec < ANS_MAX);
		ans.s = &a;
		ans.replay = 1;
		ans.landed = ans.due = ans.polled = ans.reads = 0;
		ans.next = 1;
		put(&ans.rec[0]); /* the first before the run: no post before it */
	}
	err = vb_test_run(&a.r, &t, &res);
	ans.s = NULL;
	ans.due = 0;
	assert_int_equal(err, 0);
	case_name(what, sizeof(what), VB_WRITE, VB_LAT_POLL, m, 0,
		  active ? "timing side" : "answering side");
	if (active) {
		/* every round counted, as before (n - 1 in perftest's method) */
		assert_int_equal(res.lat.n, m == VB_METHOD_PERFTEST ? 299 : 300);
		assert_int_equal(w[0].rounds + 1, ans.landed);
		bound(0, 299, 1, what);
	} else {
		/* every message answered; the bound on all but the first */
		assert_int_equal(res.msgs, nrec);
		assert_int_equal(fk_posts(&a, 0), nrec);
		assert_int_equal(ans.landed, nrec - 1);
		assert_int_equal(w[0].rounds, nrec - 1);
		bound(0, nrec - 1, 0, what);
	}
	vb_result_release(&res);
	fk_side_free(&a);
	fk_side_free(&b);
}

static void test_write_poll_round(void **state)
{
	(void)state;
	write_poll_side(VB_METHOD_FABCHECK, 1);
	write_poll_side(VB_METHOD_FABCHECK, 0);
	write_poll_side(VB_METHOD_PERFTEST, 1);
	write_poll_side(VB_METHOD_PERFTEST, 0);
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
