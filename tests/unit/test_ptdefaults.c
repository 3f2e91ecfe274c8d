/*
 * doc/pair-bench.md's table, row by row, against the settings the code
 * resolves: --perftest (perftest's defaults, from its source) and
 * fabcheck's method, on the fake HCA (tests/fake/fake_hca.h) where a row
 * is about what the loops do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pair/pair.h"
#include "tests/fake/fake_hca.h"

static struct fk_side side;

/* A fake HCA of @nqps QPs, 128 deep, messages up to @max_size. */
static struct fk_cfg fake_cfg(int nqps, uint64_t max_size)
{
	return (struct fk_cfg){ .nqps = nqps, .tx_depth = 128, .threads = 1, .max_size = max_size,
				.timeout = 5, .max_inline = 236 };
}

static int setup(void **state)
{
	struct fk_cfg c = fake_cfg(4, 1 << 20);

	(void)state;
	return fk_side_init(&side, &c);
}

static int teardown(void **state)
{
	(void)state;
	fk_side_free(&side);
	return 0;
}

/* An active test of @op in method @m, @iters rounds (0: by duration), one
 * request a post, the knobs left to the method. */
static struct vb_test base_test(enum vb_method m, enum vb_op op, int lat, uint64_t size,
				uint64_t iters)
{
	return (struct vb_test){ .op = op, .lat = lat, .size = size, .iters = iters, .active = 1,
				 .interval = 0.1, .method = m, .warmup = VB_KNOB_DEFAULT,
				 .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				 .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1 };
}

static struct vb_test resolved(enum vb_method m, enum vb_op op, int lat, uint64_t size,
			       int post_list, int all_sizes)
{
	struct vb_test t = base_test(m, op, lat, size, 1000);

	t.post_list = post_list;
	t.all_sizes = all_sizes;
	assert_int_equal(vb_test_resolve(&side.r, &t), 0);
	return t;
}

/* A test run between two connected fake sides: @ta from side a, its
 * passive twin @tb on side b. */
struct run {
	struct fk_side a, b;
	struct vb_test ta, tb;
	struct vb_result ra, rb;
};

/* Connects two fake sides of @nqps QPs (messages up to @max_size) and
 * resolves @t on a and its passive twin on b. */
static void run_open(struct run *x, const struct vb_test *t, int nqps, uint64_t max_size)
{
	struct fk_cfg c = fake_cfg(nqps, max_size);

	x->ta = *t;
	x->tb = *t;
	x->tb.active = 0;
	x->tb.passive = 1;
	assert_int_equal(fk_side_init(&x->a, &c), 0);
	assert_int_equal(fk_side_init(&x->b, &c), 0);
	fk_connect(&x->a, &x->b);
	assert_int_equal(vb_test_resolve(&x->a.r, &x->ta), 0);
	assert_int_equal(vb_test_resolve(&x->b.r, &x->tb), 0);
}

/* Prepares b, then a (the receives posted before the sender starts), and
 * runs both at once; neither side may fail. */
static void run_go(struct run *x)
{
	int ea, eb;

	assert_int_equal(vb_test_prepare(&x->b.r, &x->tb), 0);
	assert_int_equal(vb_test_prepare(&x->a.r, &x->ta), 0);
	fk_run_pair(&x->a, &x->ta, &x->ra, &ea, &x->b, &x->tb, &x->rb, &eb);
	assert_int_equal(ea, 0);
	assert_int_equal(eb, 0);
}

static void run_close(struct run *x)
{
	vb_result_release(&x->ra);
	vb_result_release(&x->rb);
	fk_side_free(&x->a);
	fk_side_free(&x->b);
}

#define PT VB_METHOD_PERFTEST
#define FC VB_METHOD_FABCHECK

/* | warm-up | none | one untimed window per QP (bandwidth), 10% of the rounds up to 200 (latency) | */
static void test_row_warmup(void **state)
{
	(void)state;
	assert_int_equal(resolved(PT, VB_WRITE, 0, 64, 1, 0).warmup, 0);
	assert_int_equal(resolved(PT, VB_WRITE, 1, 2, 1, 0).warmup, 0);
	assert_int_equal(resolved(FC, VB_WRITE, 0, 64, 1, 0).warmup, 128);
	assert_int_equal(resolved(FC, VB_WRITE, 1, 2, 1, 0).warmup, 100);
}

/* | CQ moderation | 100, every one above 8 KiB unless -a, capped at the depth,
 * the post list's length with one | min(64, depth / 2) | */
static void test_row_cq_mod(void **state)
{
	(void)state;
	assert_int_equal(resolved(PT, VB_WRITE, 0, 64, 1, 0).cq_mod, 100);
	assert_int_equal(resolved(PT, VB_WRITE, 0, 8192, 1, 0).cq_mod, 100);
	assert_int_equal(resolved(PT, VB_WRITE, 0, 8193, 1, 0).cq_mod, 1);
	assert_int_equal(resolved(PT, VB_WRITE, 0, 65536, 1, 1).cq_mod, 100); /* -a */
	assert_int_equal(resolved(PT, VB_WRITE, 0, 64, 16, 0).cq_mod, 16);
	assert_int_equal(resolved(PT, VB_SEND, 0, 1 << 20, 64, 0).cq_mod, 64);
	assert_int_equal(resolved(FC, VB_WRITE, 0, 64, 1, 0).cq_mod, 64);
	side.r.tx_depth = 50;
	assert_int_equal(resolved(PT, VB_WRITE, 0, 64, 1, 0).cq_mod, 50);
	assert_int_equal(resolved(FC, VB_WRITE, 0, 64, 1, 0).cq_mod, 25);
	side.r.tx_depth = 128;
}

/* | inline (bandwidth) | none | none | */
static void test_row_inline_bw(void **state)
{
	(void)state;
	assert_int_equal(resolved(PT, VB_WRITE, 0, 64, 1, 0).inline_max, 0);
	assert_int_equal(resolved(FC, VB_SEND, 0, 64, 1, 0).inline_max, 0);
}

/* | inline (latency) | 220 B write, 236 B send on NVIDIA devices, none
 * elsewhere | up to what the QP accepts | */
static void test_row_inline_lat(void **state)
{
	(void)state;
	side.r.vendor_id = 0x02c9;
	assert_int_equal(resolved(PT, VB_WRITE, 1, 2, 1, 0).inline_max, 220);
	assert_int_equal(resolved(PT, VB_SEND, 1, 2, 1, 0).inline_max, 236);
	assert_int_equal(resolved(PT, VB_READ, 1, 2, 1, 0).inline_max, 0);
	side.r.vendor_id = 0x1af4; /* not a device perftest inlines on */
	assert_int_equal(resolved(PT, VB_WRITE, 1, 2, 1, 0).inline_max, 0);
	assert_int_equal(resolved(FC, VB_WRITE, 1, 2, 1, 0).inline_max, 236);
	side.r.vendor_id = 0;
}

/* | buffer | a region per QP (the message or a page); up to half a page by
 * cache lines, larger ones one address | the slots of a 4 MiB working set | */
static void test_row_buffer(void **state)
{
	struct vb_test t = resolved(PT, VB_WRITE, 0, 64, 1, 0);

	(void)state;
	assert_int_equal(vb_test_offset(&t, 0, 0), 0);
	assert_int_equal(vb_test_offset(&t, 0, 1), 64);
	assert_int_equal(vb_test_offset(&t, 0, 64), 0); /* 4096 / 64 steps */
	assert_int_equal(vb_test_offset(&t, 3, 1), 3 * 4096 + 64);
	t = resolved(PT, VB_WRITE, 0, 4096, 1, 0);
	assert_int_equal(vb_test_offset(&t, 2, 7), 2 * 4096);
	t = resolved(PT, VB_WRITE, 0, 1 << 20, 1, 0);
	assert_int_equal(vb_test_offset(&t, 1, 5), 1 << 20);
	t = resolved(FC, VB_WRITE, 0, 1 << 20, 1, 0);
	assert_int_equal(t.cycle, VB_CYCLE_SLOTS);
	assert_int_equal(vb_test_offset(&t, 3, 1), 1 << 20);
	assert_int_equal((uint64_t)t.cyc_nslots * t.cyc_stride, 4 << 20);
}

/* | buffer | a region per QP | (receives): send bandwidth over 4 QPs in
 * perftest's method on the fake: each QP's sender region holds its own
 * byte, and every cache-line step of each receiver region holds that QP's
 * byte (perftest_resources.c ctx_set_recv_wqes: QP i receives into its
 * own region, stepping by increase_loc_addr), none of another QP's. */
static void test_row_buffer_recv(void **state)
{
	struct vb_test t = base_test(PT, VB_SEND, 0, 64, 200);
	struct run x;

	(void)state;
	run_open(&x, &t, 4, 64);
	assert_int_equal(x.tb.pt_nsteps, 64);
	for (int q = 0; q < 4; q++)
		memset(vb_tx(&x.a.r, 0) + vb_test_offset(&x.ta, q, 0), q + 1, (size_t)x.ta.pt_region);
	run_go(&x);
	for (int q = 0; q < 4; q++)
		for (uint64_t k = 0; k < x.tb.pt_nsteps; k++) {
			const uint8_t *p = vb_rx(&x.b.r, 0) + vb_test_offset(&x.tb, q, k);

			for (int i = 0; i < 64; i++)
				if (p[i] != q + 1)
					fail_msg("QP %d, receive step %llu, byte %d: %u, not QP %d's", q,
						 (unsigned long long)k, i, p[i], q);
		}
	run_close(&x);
}

/* Send latency on the fake, @iters rounds: messages with an immediate
 * value each side sent, and the samples. */
static void send_lat(enum vb_method m, uint64_t *imms_a, uint64_t *imms_b, uint64_t *samples)
{
	struct vb_test t = base_test(m, VB_SEND, 1, 8, 300);
	struct run x;

	t.warmup = 0;
	run_open(&x, &t, 1, 8);
	run_go(&x);
	*imms_a = x.a.qp[0].imms;
	*imms_b = x.b.qp[0].imms;
	*samples = x.ra.lat.n;
	run_close(&x);
}

/* | send latency | SEND (the last round with an immediate, to end it) |
 * SEND WITH IMMEDIATE | and | latency sample | post to post: iters - 1
 * samples | post to answer: one a round | */
static void test_row_send_lat(void **state)
{
	uint64_t ia, ib, n;

	(void)state;
	send_lat(PT, &ia, &ib, &n);
	assert_int_equal(ia, 1);
	assert_int_equal(ib, 1);
	assert_int_equal(n, 299);
	send_lat(FC, &ia, &ib, &n);
	assert_int_equal(ia, 300);
	assert_int_equal(ib, 300);
	assert_int_equal(n, 300);
}

/* | default length | 1,000 iterations, 5,000 for write bandwidth (per QP) |
 * latency 10,000 rounds, bandwidth 2 s per size | */
static void test_row_length(void **state)
{
	struct pair_cfg cfg = { .method = PT };
	uint64_t n;
	double d;

	(void)state;
	pair_test_length(&cfg, VB_WRITE, 0, &n, &d);
	assert_true(n == 5000 && d == 0);
	pair_test_length(&cfg, VB_READ, 0, &n, &d);
	assert_true(n == 1000 && d == 0);
	pair_test_length(&cfg, VB_SEND, 1, &n, &d);
	assert_true(n == 1000 && d == 0);
	cfg.method = FC;
	pair_test_length(&cfg, VB_WRITE, 1, &n, &d);
	assert_true(n == 10000 && d == 0);
	pair_test_length(&cfg, VB_WRITE, 0, &n, &d);
	assert_true(n == 0 && d == 2.0);
	cfg.iters = 77;
	pair_test_length(&cfg, VB_WRITE, 0, &n, &d);
	assert_true(n == 77 && d == 0);
}

/* | -D | a quarter of the duration in whole seconds cut at each end, in
 * every test: bandwidth and message rate count what completed in between
 * over its time, latency the rounds in between | from the first post to the
 * last completion, every round | */
static void test_row_duration(void **state)
{
	double lo, hi;

	(void)state;
	assert_true(vb_pt_margin(2) == 0);
	assert_true(vb_pt_margin(3.9) == 0);
	assert_true(vb_pt_margin(4) == 1);
	assert_true(vb_pt_margin(10) == 2);
	assert_true(vb_pt_margin(100) == 25);
	vb_pt_window(100, 10, &lo, &hi);
	assert_true(lo == 102 && hi == 108);
	vb_pt_window(100, 2, &lo, &hi); /* no margin: the duration, no drain after it */
	assert_true(lo == 100 && hi == 102);
}

/* The -D row for latency: write latency (by immediate) for 4 s on the fake
 * in perftest's method counts only the rounds of the middle 2 s: their
 * post-to-post samples add up to at most the window (every round of the
 * 4 s before: about 4 s). */
static void test_row_duration_lat(void **state)
{
	struct vb_test t = base_test(PT, VB_WRITE, 1, 8, 0);
	struct run x;
	const struct vb_result *ra = &x.ra, *rb = &x.rb;
	double sum;

	(void)state;
	t.duration = 4;
	t.warmup = 0;
	t.lat_mode = VB_LAT_IMM;
	run_open(&x, &t, 1, 8);
	run_go(&x);
	/* write and send report half the round trip (as perftest) */
	sum = 2 * fc_hist_mean(&ra->lat) * (double)ra->lat.n;
	assert_true(ra->lat.n > 10 && ra->msgs == ra->lat.n && ra->lat.n < rb->msgs);
	if (sum > 2.0 + 1e-3 || sum < 1.5)
		fail_msg("the samples add up to %.3f s, not the 2 s window", sum);
	run_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_warmup),
		cmocka_unit_test(test_row_cq_mod),
		cmocka_unit_test(test_row_inline_bw),
		cmocka_unit_test(test_row_inline_lat),
		cmocka_unit_test(test_row_buffer),
		cmocka_unit_test(test_row_buffer_recv),
		cmocka_unit_test(test_row_send_lat),
		cmocka_unit_test(test_row_length),
		cmocka_unit_test(test_row_duration),
		cmocka_unit_test(test_row_duration_lat),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
