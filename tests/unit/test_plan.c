/*
 * fabcheck plan arithmetic, against figures worked out by hand below.
 *
 * Reference case: 70B parameters in 16 bit, 64 GPUs (8 nodes x 8 GPUs,
 * one 400 Gb/s NDR port per GPU, 1 us per hop).
 *   M = 70e9 x 2 B = 140e9 B = 140 GB
 *   (n-1)/n = 63/64 = 0.984375
 *   one all-gather or reduce-scatter pass: 140e9 x 63/64 = 137.8125e9 B
 *   DDP:    2 x 137.8125e9 = 275.625e9 B per GPU per step
 *   ZeRO-3: 3 x 137.8125e9 = 413.4375e9 B (all-gather twice = 275.625 GB,
 *           i.e. about twice the 140 GB of parameters, + 137.8 GB of grads)
 *   busbw (nccl run's model, core/busbw.h, ring): 8 rails x 400e9 / 8 B/s
 *     x 0.94 payload = 376e9 B/s
 *   DDP time: 275.625e9 / 376e9 = 0.733045 s + 2 x 63 steps x 1 us = 0.733171 s
 *   ZeRO-3:   413.4375e9 / 376e9 = 1.099568 s + 3 x 63 x 1 us = 1.099757 s
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "core/busbw.h"
#include "plan/zero.h"

#define assert_near(a, b) assert_true(fabs((a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-12)

static void test_busbw_factors(void **state)
{
	(void)state;
	/* nccl-tests: allreduce busbw = algbw x 2(n-1)/n; 8 ranks -> 1.75 */
	assert_near(plan_busbw_factor(PLAN_ALLREDUCE, 8), 1.75);
	/* allgather / reducescatter: (n-1)/n; 8 ranks -> 0.875 */
	assert_near(plan_busbw_factor(PLAN_ALLGATHER, 8), 0.875);
	assert_near(plan_busbw_factor(PLAN_REDUCESCATTER, 2), 0.5);
	assert_near(plan_busbw_factor(PLAN_ALLREDUCE, 1), 0);
	assert_int_equal(plan_ring_steps(PLAN_ALLREDUCE, 64), 126);
	assert_int_equal(plan_ring_steps(PLAN_ALLGATHER, 64), 63);
}

static void test_coll_time(void **state)
{
	(void)state;
	/* 1 GB all-reduce on 8 ranks at 10 GB/s busbw, 5 us per step:
	 * 1e9 x 1.75 / 1e10 = 0.175 s, + 14 x 5e-6 = 70 us -> 0.17507 s */
	assert_near(plan_coll_time(PLAN_ALLREDUCE, 1e9, 8, 1e10, 5e-6), 0.17507);
	/* all-gather of 1 GB output: 1e9 x 0.875 / 1e10 + 7 x 5e-6 = 0.087535 s */
	assert_near(plan_coll_time(PLAN_ALLGATHER, 1e9, 8, 1e10, 5e-6), 0.087535);
	assert_near(plan_coll_time(PLAN_ALLREDUCE, 1e9, 1, 1e10, 5e-6), 0);
}

static void test_traffic_70b(void **state)
{
	double m = 70e9 * 2;

	(void)state;
	assert_near(plan_traffic(PLAN_DDP, m, 64), 275.625e9);
	assert_near(plan_traffic(PLAN_ZERO1, m, 64), 275.625e9);
	assert_near(plan_traffic(PLAN_ZERO2, m, 64), 275.625e9);
	assert_near(plan_traffic(PLAN_ZERO3, m, 64), 413.4375e9);
	/* ZeRO-3 is 1.5 x DDP whatever n */
	assert_near(plan_traffic(PLAN_ZERO3, m, 16) / plan_traffic(PLAN_DDP, m, 16), 1.5);
}

static void test_comm_time_70b_ndr(void **state)
{
	const struct plan_fabric *ndr = plan_fabric_find("ndr");
	double bw, m = 140e9;

	(void)state;
	assert_non_null(ndr);
	/* nccl run's model (core/busbw.h), a ring across 8 nodes: 8 rails x
	 * 400 / 8 x 0.94 = 376 GB/s */
	bw = busbw_rails(BUSBW_ALGO_RING, 8, ndr->gbps, 8, 8, NULL) * 1e9;
	assert_near(bw, 376e9);
	/* DDP: 275.625e9 / 376e9 = 0.733045213 s + 126 x 1 us = 0.733171213 s */
	assert_near(plan_comm_time(PLAN_DDP, m, 64, bw, ndr->lat_us * 1e-6, 1), 0.733171212765957);
	/* ZeRO-3: 413.4375e9 / 376e9 = 1.099567819 s + 189 us = 1.099756819 s */
	assert_near(plan_comm_time(PLAN_ZERO3, m, 64, bw, ndr->lat_us * 1e-6, 1), 1.099756819148936);
	/* 100 collective calls per pass multiply only the latency:
	 * 1.099567819 + 100 x 189 us = 1.118467819 s */
	assert_near(plan_comm_time(PLAN_ZERO3, m, 64, bw, 1e-6, 100), 1.118467819148936);
	/* 4 NICs for 8 GPUs: half the node's rate, 188 GB/s */
	assert_near(busbw_rails(BUSBW_ALGO_RING, 4, 400, 8, 8, NULL), 188);
	/* 100 GbE, one NIC per GPU: 8 x 12.5 x 0.94 = 94 GB/s */
	assert_near(busbw_rails(BUSBW_ALGO_RING, 8, plan_fabric_find("100gbe")->gbps, 8, 8, NULL), 94);
}

static void test_overlap(void **state)
{
	(void)state;
	/* ZeRO-3 on NDR (8.268939 s) with 6 s of compute: 2.268939 s exposed */
	assert_near(plan_exposed(8.268939, 6.0, 1.0), 2.268939);
	/* DDP on NDR (5.512626 s) hides under 6 s */
	assert_near(plan_exposed(5.512626, 6.0, 1.0), 0);
	/* only half the compute overlappable: 5.512626 - 3 = 2.512626 */
	assert_near(plan_exposed(5.512626, 6.0, 0.5), 2.512626);
}

static void test_parse_count(void **state)
{
	double v;

	(void)state;
	assert_int_equal(plan_parse_count("--params", "70B", &v), 0);
	assert_near(v, 70e9);
	assert_int_equal(plan_parse_count("--params", "1.3t", &v), 0);
	assert_near(v, 1.3e12);
	assert_int_equal(plan_parse_count("--params", "350M", &v), 0);
	assert_near(v, 350e6);
	assert_int_equal(plan_parse_count("--params", "125000", &v), 0);
	assert_near(v, 125000);
	assert_int_not_equal(plan_parse_count("--params", "70X", &v), 0);
	assert_int_not_equal(plan_parse_count("--params", "-5B", &v), 0);
	assert_int_not_equal(plan_parse_count("--params", "0", &v), 0);
	assert_int_not_equal(plan_parse_count("--params", "B", &v), 0);
	assert_int_not_equal(plan_parse_count("--params", "", &v), 0);
}

static void test_fabrics(void **state)
{
	size_t n;
	const struct plan_fabric *f = plan_fabrics(&n);

	(void)state;
	assert_int_equal(n, 5);
	for (size_t i = 1; i < n; i++)
		assert_true(f[i].gbps >= f[i - 1].gbps); /* slowest first */
	assert_near(plan_fabric_find("HDR")->gbps, 200);
	assert_near(plan_fabric_find("400gbe")->gbps, 400);
	assert_null(plan_fabric_find("xdr"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busbw_factors),  cmocka_unit_test(test_coll_time),
		cmocka_unit_test(test_traffic_70b),    cmocka_unit_test(test_comm_time_70b_ndr),
		cmocka_unit_test(test_overlap),	       cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_fabrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
