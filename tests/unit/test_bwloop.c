/*
 * The data path's loops (verbs/bw.c, verbs/lat.c) on the fake HCA
 * (tests/fake/fake_hca.h): the knobs' rule (verbs/knobs.c) over the whole
 * grid, the real loop over a grid of knobs ending with the right counts,
 * perftest's usual message-rate line, delays and completion errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

#include "core/fc.h"
#include "tests/fake/fake_hca.h"

/* Two connected fake sides of @nqps QPs over @threads CQ sets. */
static void pair_up(struct fk_side *a, struct fk_side *b, int nqps, int tx_depth, int threads,
		    uint64_t max_size)
{
	struct fk_cfg c = { .nqps = nqps, .tx_depth = tx_depth, .threads = threads,
			    .max_size = max_size, .timeout = 5, .max_inline = 236 };

	assert_int_equal(fk_side_init(a, &c), 0);
	assert_int_equal(fk_side_init(b, &c), 0);
	fk_connect(a, b);
}

static void unpair(struct fk_side *a, struct fk_side *b)
{
	fk_side_free(a);
	fk_side_free(b);
}

/* A bandwidth test of @op as the controller sends it (verbs/test.h). */
static struct vb_test bw_test(enum vb_op op, uint64_t size, uint64_t iters, int active)
{
	return (struct vb_test){ .op = op, .size = size, .iters = iters, .active = active,
				 .passive = !active && op == VB_SEND, .interval = 0.1,
				 .method = VB_METHOD_FABCHECK, .warmup = 0,
				 .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				 .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1 };
}

/* The rule over every post list 1..128, CQ moderation 1..128 (and the
 * method's) and window 1..512: what settles fits, a refusal is only of an
 * explicit --cq-mod (or a list longer than -t) and names the options, and
 * an explicit pair that fits is kept as asked. */
static void test_rule_grid(void **state)
{
	uint64_t refused = 0, changed = 0;

	(void)state;
	for (int w = 1; w <= 512; w++)
		for (int l = 1; l <= 128; l++)
			for (int c = 0; c <= 128; c++) {
				struct vb_knob_in in = { .method = c & 1 ? VB_METHOD_PERFTEST :
									   VB_METHOD_FABCHECK,
							 .op = VB_WRITE, .size = 64, .tx_depth = w,
							 .window = w, .nqps = 1, .post_list = l,
							 .cq_mod = c };
				struct vb_knob_out out;
				int rc = vb_knobs_settle(&in, &out);

				if (rc < 0) {
					refused++;
					assert_true(l > w || (c > 0 && !vb_knobs_fit(l, c < w ? c : w, w)));
					assert_non_null(strstr(out.why, "--post-list"));
					continue;
				}
				assert_true(vb_knobs_fit(out.post_list, out.cq_mod, w));
				if (c > 0 && c <= w)
					assert_int_equal(out.cq_mod, c);
				assert_int_equal(out.post_list, l);
				changed += rc == 1;
			}
	assert_true(refused > 0 && changed > 0);
}

/* The loop's arithmetic as a model: lists of @l requests while they fit
 * in @w, one in @c signalled; then a completion frees every request up to
 * the last signalled one. 1 when the fill stops with none in flight. */
static int stalls(int l, int c, int w)
{
	int out = 0, since = 0;

	for (int round = 0; round <= c + 1; round++) {
		int j = (w - out) / l; /* lists that fit */

		out += j * l;
		since = (since + j * l) % c;
		if (since == out)
			return 1; /* every request in flight unsignalled */
		out = since;	  /* all up to the last signalled one completed */
	}
	return 0;
}

/* vb_knobs_fit against that model (window 1..200, list and CQ moderation 1..64). */
static void test_rule_exact(void **state)
{
	(void)state;
	for (int w = 1; w <= 200; w++)
		for (int l = 1; l <= 64 && l <= w; l++)
			for (int c = 1; c <= 64; c++)
				if (vb_knobs_fit(l, c, w) != !stalls(l, c, w))
					fail_msg("post list %d, cq-mod %d, window %d: rule %d, model %d", l, c,
						 w, vb_knobs_fit(l, c, w), !stalls(l, c, w));
}

/* One write bandwidth run through the real loop on @a (connected to an
 * idle @b, reused run after run); asserts its counts. */
static void run_write(struct fk_side *a, int threads, int post_list, int cq_mod, uint64_t iters)
{
	struct vb_test t = bw_test(VB_WRITE, 64, iters, 1);
	struct vb_result res;
	uint64_t before[VB_MAX_QPS];
	int nqps = a->r.nqps, tx_depth = a->r.tx_depth, err;

	t.post_list = post_list;
	t.cq_mod = cq_mod ? cq_mod : VB_KNOB_DEFAULT;
	t.threads = threads;
	if (vb_test_resolve(&a->r, &t)) {
		/* refused: only an explicit CQ moderation the rule says stalls */
		assert_true(cq_mod > 0 && !vb_knobs_fit(post_list, cq_mod < tx_depth ? cq_mod : tx_depth,
							tx_depth));
		return;
	}
	for (int q = 0; q < nqps; q++)
		before[q] = fk_sent(a, q);
	assert_int_equal(vb_test_prepare(&a->r, &t), 0);
	err = vb_test_run(&a->r, &t, &res);
	if (err || res.msgs != iters * (uint64_t)nqps)
		fail_msg("-q %d --threads %d -t %d --post-list %d --cq-mod %d (ran %d) -n %llu: err %d, %llu messages",
			 nqps, threads, tx_depth, post_list, cq_mod, t.cq_mod,
			 (unsigned long long)iters, err, (unsigned long long)res.msgs);
	assert_int_equal(t.threads, threads);
	assert_int_equal(res.bytes, res.msgs * 64);
	assert_int_equal(res.posted, iters * (uint64_t)nqps);
	for (int q = 0; q < nqps; q++)
		assert_int_equal(fk_sent(a, q) - before[q], iters);
	assert_int_equal(fk_overruns(a), 0);
	assert_int_equal(a->enomem, 0);
	vb_result_release(&res);
}

/* The real loop over a grid of post list, CQ moderation (0: the
 * method's), tx depth, QPs and threads: each run ends, with every message. */
static void test_loop_grid(void **state)
{
	static const int ls[] = { 1, 2, 3, 16, 32, 33, 64, 67, 100, 128 };
	static const int cs[] = { 0, 1, 3, 16, 32, 64, 100, 128 };
	static const int ws[] = { 1, 2, 3, 16, 64, 127, 128, 129, 512 };
	static const int qs[] = { 1, 3, 8 };
	static const int ths[] = { 1, 2, 4 };
	int runs = 0;

	(void)state;
	for (size_t wi = 0; wi < FC_ARRAY_SIZE(ws); wi++)
		for (size_t qi = 0; qi < FC_ARRAY_SIZE(qs); qi++)
			for (size_t ti = 0; ti < FC_ARRAY_SIZE(ths) && ths[ti] <= qs[qi]; ti++) {
				struct fk_side a, b;

				pair_up(&a, &b, qs[qi], ws[wi], ths[ti], 64);
				for (size_t li = 0; li < FC_ARRAY_SIZE(ls) && ls[li] <= ws[wi]; li++)
					for (size_t ci = 0; ci < FC_ARRAY_SIZE(cs); ci++, runs++)
						/* not a multiple of the list: the last one is short */
						run_write(&a, ths[ti], ls[li], cs[ci],
							  (uint64_t)3 * ws[wi] + 7);
				unpair(&a, &b);
			}
	assert_true(runs > 1000);
}

/* Resolves and prepares @tb on @b, then @ta on @a (the receives posted
 * before the sender starts, as the workers' "ready"), runs both at once;
 * both must end without error. */
static void run_both(struct fk_side *a, struct vb_test *ta, struct vb_result *ra,
		     struct fk_side *b, struct vb_test *tb, struct vb_result *rb)
{
	int ea, eb;

	assert_int_equal(vb_test_resolve(&a->r, ta), 0);
	assert_int_equal(vb_test_resolve(&b->r, tb), 0);
	assert_int_equal(vb_test_prepare(&b->r, tb), 0);
	assert_int_equal(vb_test_prepare(&a->r, ta), 0);
	fk_run_pair(a, ta, ra, &ea, b, tb, rb, &eb);
	assert_int_equal(ea, 0);
	assert_int_equal(eb, 0);
}

/* perftest's usual message-rate line, --perftest -q 4 --post-list 64
 * (-t 128): it hung, CQ moderation 100 leaving no signalled request in a
 * full window; perftest sets it to the list's length. */
static void test_perftest_q4_post_list_64(void **state)
{
	struct fk_side a, b;
	struct vb_test t = bw_test(VB_WRITE, 64, 5000, 1);
	struct vb_result res;

	(void)state;
	pair_up(&a, &b, 4, 128, 1, 64);
	t.method = VB_METHOD_PERFTEST;
	t.warmup = VB_KNOB_DEFAULT;
	t.post_list = 64;
	a.r.timeout = 1;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(t.cq_mod, 64);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
	assert_int_equal(res.msgs, 4 * 5000);
	vb_result_release(&res);
	unpair(&a, &b);
}

/* Sends: the receiver runs too (its receives cap the sender), with
 * completions that show late; every message arrives, the fins counted. */
static void test_send_counts_delayed(void **state)
{
	struct fk_side a, b;
	struct vb_test ta = bw_test(VB_SEND, 256, 2000, 1), tb = bw_test(VB_SEND, 256, 2000, 0);
	struct vb_result ra, rb;

	(void)state;
	pair_up(&a, &b, 3, 64, 2, 256);
	ta.threads = tb.threads = 2;
	ta.post_list = tb.post_list = 8;
	ta.warmup = VB_KNOB_ON; /* the fabcheck method's warm-up: a window per QP */
	fk_set_delay(&a, 20);
	fk_set_delay(&b, 20);
	run_both(&a, &ta, &ra, &b, &tb, &rb);
	assert_int_equal(ra.msgs, 3 * 2000);
	assert_int_equal(ra.bytes, 3 * 2000 * 256);
	assert_int_equal(ra.posted, 3 * (2000 + (uint64_t)ta.warmup));
	for (int q = 0; q < 3; q++)
		assert_int_equal(fk_sent(&a, q), 2000 + (uint64_t)ta.warmup);
	vb_result_release(&ra);
	vb_result_release(&rb);
	unpair(&a, &b);
}

/* A request completing in error ends the test with an error, not a wait. */
static void test_completion_error(void **state)
{
	struct fk_side a, b;
	struct vb_test t = bw_test(VB_WRITE, 64, 1000, 1);
	struct vb_result res;

	(void)state;
	pair_up(&a, &b, 2, 32, 1, 64);
	a.fault.qp = 1;
	a.fault.seq = 77;
	a.fault.status = IBV_WC_RETRY_EXC_ERR;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	assert_int_equal(vb_test_run(&a.r, &t, &res), -EIO);
	vb_result_release(&res);
	unpair(&a, &b);
}

/* Latency: every round a sample (fabcheck's method), the peer answering each. */
static void test_lat_counts(void **state)
{
	static const enum vb_op ops[] = { VB_WRITE, VB_SEND, VB_READ };

	(void)state;
	for (size_t i = 0; i < FC_ARRAY_SIZE(ops); i++) {
		struct fk_side a, b;
		struct vb_test ta = bw_test(ops[i], 8, 300, 1), tb = bw_test(ops[i], 8, 300, 0);
		struct vb_result ra, rb;

		pair_up(&a, &b, 1, 128, 1, 8);
		ta.lat = tb.lat = 1;
		tb.passive = ops[i] != VB_READ;
		tb.active = 0;
		run_both(&a, &ta, &ra, &b, &tb, &rb);
		assert_int_equal(ra.lat.n, 300);
		assert_int_equal(ra.msgs, 300);
		if (ops[i] != VB_READ)
			assert_int_equal(rb.msgs, 300 + (uint64_t)ta.warmup);
		vb_result_release(&ra);
		vb_result_release(&rb);
		unpair(&a, &b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_exact),
		cmocka_unit_test(test_rule_grid),
		cmocka_unit_test(test_perftest_q4_post_list_64),
		cmocka_unit_test(test_loop_grid),
		cmocka_unit_test(test_send_counts_delayed),
		cmocka_unit_test(test_completion_error),
		cmocka_unit_test(test_lat_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
