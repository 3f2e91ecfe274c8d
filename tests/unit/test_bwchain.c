/*
 * The bandwidth loop's work-request chains (verbs/chain.c, verbs/bw.c) on
 * the fake HCA: each QP's chain is built once per test and posted again
 * (the fake counts the posts and the requests built since their last
 * post), and the requests posted again land where the slots say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/fc.h"
#include "verbs/chain.h"
#include "tests/fake/fake_hca.h"

static void pair_up(struct fk_side *a, struct fk_side *b, int nqps, int threads, uint64_t size)
{
	struct fk_cfg c = { .nqps = nqps, .tx_depth = 128, .threads = threads, .max_size = size,
			    .timeout = 5, .max_inline = 236 };

	assert_int_equal(fk_side_init(a, &c), 0);
	assert_int_equal(fk_side_init(b, &c), 0);
	fk_connect(a, b);
}

static struct vb_test write_test(enum vb_method m, uint64_t iters, int post_list, int threads)
{
	return (struct vb_test){ .op = VB_WRITE, .size = 64, .iters = iters, .active = 1,
				 .interval = 0.1, .method = m, .warmup = VB_KNOB_DEFAULT,
				 .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				 .cycle = VB_CYCLE_DEFAULT, .post_list = post_list,
				 .threads = threads };
}

static uint64_t lists(uint64_t n, int len)
{
	return (n + (uint64_t)len - 1) / (uint64_t)len;
}

/* Each QP: one ibv_post_send per list, and no request built in the steady
 * state: the chain's own (one list, or a ring's, each seen built at its
 * first post) and the list that ends each pass. */
static void test_chain_built_once(void **state)
{
	static const int ls[] = { 1, 8, 32 }, ths[] = { 1, 2 };
	static const enum vb_method ms[] = { VB_METHOD_FABCHECK, VB_METHOD_PERFTEST };

	(void)state;
	for (size_t mi = 0; mi < FC_ARRAY_SIZE(ms); mi++)
		for (size_t li = 0; li < FC_ARRAY_SIZE(ls); li++)
			for (size_t ti = 0; ti < FC_ARRAY_SIZE(ths); ti++) {
				struct fk_side a, b;
				struct vb_test t = write_test(ms[mi], 1, ls[li], ths[ti]);
				struct vb_result res;
				uint64_t warm, passes, own[2], longest = 0, iters;

				pair_up(&a, &b, 3, ths[ti], 64);
				assert_int_equal(vb_test_resolve(&a.r, &t), 0);
				/* each thread's chain (its QPs' count sets a ring's
				 * length); the run goes round the longest twice */
				for (int k = 0; k < ths[ti]; k++) {
					own[k] = (uint64_t)vb_chain_size(&t, ls[li],
									 (3 - k + ths[ti] - 1) / ths[ti]);
					longest = own[k] > longest ? own[k] : longest;
				}
				iters = 200 * (uint64_t)ls[li] + 2 * longest + 3;
				t = write_test(ms[mi], iters, ls[li], ths[ti]);
				if (ms[mi] == VB_METHOD_FABCHECK)
					t.warmup = VB_KNOB_ON;
				assert_int_equal(vb_test_resolve(&a.r, &t), 0);
				assert_int_equal(vb_test_prepare(&a.r, &t), 0);
				assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
				assert_int_equal(res.msgs, 3 * iters);
				warm = t.warmup > 0 ? (uint64_t)t.warmup : 0;
				passes = warm ? 2 : 1;
				for (int q = 0; q < 3; q++) {
					uint64_t fresh = fk_fresh(&a, q);
					uint64_t most = passes * (uint64_t)ls[li] + own[q % ths[ti]];

					assert_int_equal(fk_posts(&a, q),
							 lists(warm, ls[li]) + lists(iters, ls[li]));
					if (fresh > most)
						fail_msg("%s --post-list %d --threads %d: QP %d: %llu of %llu requests built anew, at most %llu",
							 vb_method_name(ms[mi]), ls[li], ths[ti], q,
							 (unsigned long long)fresh,
							 (unsigned long long)(warm + iters),
							 (unsigned long long)most);
				}
				vb_result_release(&res);
				fk_side_free(&a);
				fk_side_free(&b);
			}
}

/* The requests QP 0..2 wrote anew between two posts in a run of @n full
 * lists (and a short one) after a warm-up. */
static uint64_t moved_in(int post_list, int threads, uint64_t n)
{
	struct fk_side a, b;
	struct vb_test t = write_test(VB_METHOD_FABCHECK, n * (uint64_t)post_list + 3, post_list,
				      threads);
	struct vb_result res;
	uint64_t moved = 0;

	pair_up(&a, &b, 3, threads, 64);
	t.warmup = VB_KNOB_ON;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
	assert_int_equal(res.msgs, 3 * t.iters);
	for (int q = 0; q < 3; q++)
		moved += fk_moved(&a, q);
	vb_result_release(&res);
	fk_side_free(&a);
	fk_side_free(&b);
	return moved;
}

/* Lists in fabcheck's method go round its cycle of slots (1024 of 64 B)
 * as a ring (within L1 every 8th slot, each page still reached, or for
 * short lists every slot within L2): in the steady state a post writes no
 * request's addresses, so a run of 4096 more lists moves no more requests
 * than a short one (and none at all: each ring request keeps its slot). */
static void test_chain_ring_no_moves(void **state)
{
	static const int ls[] = { 1, 2, 4, 8, 32 }, ths[] = { 1, 2 };

	(void)state;
	for (size_t li = 0; li < FC_ARRAY_SIZE(ls); li++)
		for (size_t ti = 0; ti < FC_ARRAY_SIZE(ths); ti++) {
			uint64_t m0 = moved_in(ls[li], ths[ti], 64);
			uint64_t m1 = moved_in(ls[li], ths[ti], 64 + 4096);

			if (m1 != m0 || m1)
				fail_msg("fabcheck --post-list %d --threads %d: %llu requests moved in a run of 4096 more lists than one that moved %llu (a ring moves none)",
					 ls[li], ths[ti], (unsigned long long)m1, (unsigned long long)m0);
		}
}

/* Which lists are rings, over which slots (verbs/chain.h, VB_RING_*):
 * fabcheck's method at 64 B (1024 slots, CQ moderation 64 at -t 128), a
 * ring of every slot only within the L2 budget for lists shorter than 8;
 * else every 2^k-th slot, the fewest that fit the L1 budget, each step
 * within a page (64 at most of 64 B); else a list that moves. perftest's
 * method never (it moves its one request, as perftest does). */
static void test_chain_ring_choice(void **state)
{
	static const struct { int len, own, ring; uint32_t thin; } cs[] = {
		{ 1, 1, 128, 8 },    /* 128 x 144 B = 18 KiB */
		{ 8, 1, 128, 8 },
		{ 32, 1, 128, 8 },   /* 256 slots: 36 KiB, over 32 */
		{ 32, 2, 64, 16 },   /* 2 x 64 x 144 B */
		/* thinned, 64 requests at least (the CQ moderation): 6 x 9 KiB,
		 * over 32 KiB; every slot: 6 x 147 KiB, within 1 MiB */
		{ 4, 6, 1024, 1 },
		{ 4, 8, 4, 1 },      /* 8 x 147 KiB beyond it: moves */
		{ 32, 8, 32, 1 },    /* 8 x 64 x 144 B = 72 KiB however thin: moves */
	};
	struct fk_side a, b;
	struct vb_test t = write_test(VB_METHOD_FABCHECK, 1000, 1, 1);

	(void)state;
	pair_up(&a, &b, 3, 1, 64);
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(t.cyc_nslots, 1024);
	assert_int_equal(t.cyc_stride, 64);
	assert_int_equal(t.cq_mod, 64);
	for (size_t i = 0; i < FC_ARRAY_SIZE(cs); i++) {
		int n = vb_chain_size(&t, cs[i].len, cs[i].own);
		uint32_t thin = vb_chain_thin(&t, cs[i].len, cs[i].own);

		if (n != cs[i].ring || thin != cs[i].thin)
			fail_msg("--post-list %d, %d QPs a thread: a chain of %d requests every %u slots; want %d every %u",
				 cs[i].len, cs[i].own, n, thin, cs[i].ring, cs[i].thin);
	}
	t = write_test(VB_METHOD_PERFTEST, 1000, 1, 1);
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_chain_size(&t, 1, 1), 1);
	assert_int_equal(vb_chain_thin(&t, 1, 1), 1);
	fk_side_free(&a);
	fk_side_free(&b);
}

/* Message i of QP q lands at slot i of its chains' cycle (fabcheck's
 * slots, every thin-th of them, or perftest's page steps; perftest keeps a
 * list's requests in place): with a pattern in the sender's buffer, every
 * slot reached holds it at the receiver, the chain moved on and wrapped
 * round the cycle; in fabcheck's method every page of the cycle's region
 * is reached. */
static void check_slots(enum vb_method m, int post_list)
{
	struct fk_side a, b;
	struct vb_test t = write_test(m, 1, post_list, 1);
	struct vb_result res;
	uint64_t half, n, reach, thin = 1, pages = 0;

	pair_up(&a, &b, 2, 1, 64);
	t.warmup = 0;
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	n = m == VB_METHOD_PERFTEST ? t.pt_nsteps : t.cyc_nslots;
	if (m == VB_METHOD_FABCHECK)
		thin = vb_chain_thin(&t, post_list, 2);
	t.iters = 2 * n + 5;
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	half = (uint64_t)a.r.stride * a.r.nslots;
	for (uint64_t i = 0; i < half; i++)
		a.r.buf[i] = (uint8_t)(i * 131 + 7);
	memset(b.r.buf + half, 0, (size_t)half);
	assert_int_equal(vb_test_run(&a.r, &t, &res), 0);
	reach = m == VB_METHOD_PERFTEST && post_list > 1 && (uint64_t)post_list < n ?
			(uint64_t)post_list : n / thin;
	for (int q = 0; q < 2; q++)
		for (uint64_t k = 0; k < reach; k++) {
			uint64_t off = vb_test_offset(&t, q, k * thin);

			if (memcmp(b.r.buf + half + off, a.r.buf + off, 64))
				fail_msg("%s --post-list %d: QP %d, slot %llu of %llu (offset %llu, every %llu slots) not written",
					 vb_method_name(m), post_list, q, (unsigned long long)(k * thin),
					 (unsigned long long)n, (unsigned long long)off,
					 (unsigned long long)thin);
			if (m == VB_METHOD_FABCHECK && q == 0 && off / 4096 == pages)
				pages++; /* the next page reached, in order */
		}
	if (m == VB_METHOD_FABCHECK && pages != (n * t.cyc_stride + 4095) / 4096)
		fail_msg("fabcheck --post-list %d: %llu pages of the %llu-byte cycle reached, every %llu slots",
			 post_list, (unsigned long long)pages, (unsigned long long)(n * t.cyc_stride),
			 (unsigned long long)thin);
	vb_result_release(&res);
	fk_side_free(&a);
	fk_side_free(&b);
}

static void test_chain_slots(void **state)
{
	(void)state;
	check_slots(VB_METHOD_FABCHECK, 1);
	check_slots(VB_METHOD_FABCHECK, 4);
	check_slots(VB_METHOD_FABCHECK, 7);
	check_slots(VB_METHOD_FABCHECK, 32);
	check_slots(VB_METHOD_PERFTEST, 1);
	check_slots(VB_METHOD_PERFTEST, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_built_once),
		cmocka_unit_test(test_chain_slots),
		cmocka_unit_test(test_chain_ring_no_moves),
		cmocka_unit_test(test_chain_ring_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
