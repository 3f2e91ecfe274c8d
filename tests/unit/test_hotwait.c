/*
 * Issue 40, item 4: the GPU flush's wait busy-polls on a hardware HCA and
 * yields the CPU only on a software provider (verbs/loop.c
 * vb_flush_wait), and the bandwidth loop keeps what its threads write
 * often on cache lines apart (verbs/bw_run.h). Yields are counted by
 * defining sched_yield here (the library's call resolves to it); the wait
 * runs on the fake HCA (tests/fake/fake_hca.h), whose completion shows
 * after a set number of empty polls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/fake/fake_hca.h"
#include "verbs/bw_run.h"

static unsigned long yields;

int sched_yield(void)
{
	yields++;
	return (int)syscall(SYS_sched_yield);
}

/* The empty polls before the read's completion shows. */
#define EMPTY 100

/* Posts one signalled RDMA READ of a byte on a loop-only fake side (no
 * peer: nothing copied), as vb_loop_read posts its own, and waits for it
 * with the provider marked @soft. Returns vb_flush_wait's result. */
static int flush_once(int soft, int post, unsigned long *polls)
{
	struct fk_cfg cfg = { .nqps = 1, .tx_depth = 4, .threads = 1, .max_size = 64,
			      .timeout = 0.05, .max_inline = 0 };
	struct fk_side s;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	int err;

	assert_int_equal(fk_side_init(&s, &cfg), 0);
	sge = (struct ibv_sge){ .addr = (uintptr_t)vb_rx(&s.r, 0), .length = 1,
				.lkey = s.r.mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)vb_tx(&s.r, 0);
	wr.wr.rdma.rkey = s.r.mr->rkey;
	s.r.soft = soft;
	fk_set_delay(&s, EMPTY);
	if (post)
		assert_int_equal(ibv_post_send(s.r.qp[0], &wr, &bad), 0);
	yields = 0;
	err = vb_flush_wait(&s.r, &s.scq[0].cq);
	*polls = s.scq[0].polls;
	fk_side_free(&s);
	return err;
}

/* A hardware HCA: 100 empty polls and no yield; a software provider: a
 * yield after each empty poll, none after the completion. */
static void test_flush_busy_polls(void **state)
{
	unsigned long polls;

	(void)state;
	assert_int_equal(flush_once(0, 1, &polls), 0);
	assert_int_equal(polls, EMPTY + 1);
	if (yields)
		fail_msg("hardware HCA: the flush yielded %lu times in %d empty polls", yields, EMPTY);
	assert_int_equal(flush_once(1, 1, &polls), 0);
	assert_int_equal(polls, EMPTY + 1);
	assert_int_equal(yields, EMPTY);
}

/* A read that never completes: the wait still ends at the timeout, on a
 * hardware HCA without one yield. */
static void test_flush_timeout(void **state)
{
	unsigned long polls;

	(void)state;
	assert_int_equal(flush_once(0, 0, &polls), -ETIMEDOUT);
	assert_true(polls > 0);
	assert_int_equal(yields, 0);
}

static int line_of(size_t off)
{
	return (int)(off / BW_LINE);
}

/* The stop flag, read by every thread at each turn, on a line no thread
 * writes often: not the byte counter's, which every thread adds to; and
 * each thread's own state (an array of them, one a thread) on lines no
 * other thread's state or the shared counter touches. */
static void test_hot_lines(void **state)
{
	(void)state;
	assert_int_equal(_Alignof(struct bw_shared) % BW_LINE, 0);
	if (line_of(offsetof(struct bw_shared, stop)) == line_of(offsetof(struct bw_shared, bytes)))
		fail_msg("the stop flag shares a cache line with the byte counter every thread adds to");
	assert_int_not_equal(line_of(offsetof(struct bw_shared, stop)),
			     line_of(offsetof(struct bw_shared, t0_ns)));
	/* each thread's state starts a line, and ends before the next's */
	assert_int_equal(_Alignof(struct bw_run) % BW_LINE, 0);
	assert_int_equal(sizeof(struct bw_run) % BW_LINE, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_busy_polls),
		cmocka_unit_test(test_flush_timeout),
		cmocka_unit_test(test_hot_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
