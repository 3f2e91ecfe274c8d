/*
 * nccl check-log: the busbw to expect from the log's nodes, GPUs and HCAs
 * (core/busbw.h, the model nccl run uses) and nccl-tests' measured figure
 * judged against it, on logs written like the public ones cited below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "core/out.h"
#include "nccllog_util.h"

#define assert_close(a, b) assert_true(fabs((a) - (double)(b)) < 1e-6 * fabs((double)(b)) + 1e-9)

/* An NCCL_DEBUG=INFO log of @nodes nodes x @gpn ranks with @nhca HCAs
 * named in the IB list (no rates: NCCL before 2.27 prints none), then
 * nccl-tests' lines with @oop and @ip busbw at the largest size. */
static json_t *report(int nodes, int gpn, int nhca, const char *coll, double oop, double ip,
		      const struct ncl_expect *exp)
{
	char log[8192], list[512] = "";
	size_t off = 0, lo = 0;
	json_t *doc;

	for (int h = 0; h < nhca; h++)
		lo += (size_t)snprintf(list + lo, sizeof(list) - lo, " [%d]mlx5_%d:1/IB", h, h);
	for (int n = 0; n < nodes; n++)
		for (int g = 0; g < gpn; g++) {
			int r = n * gpn + g;

			off += (size_t)snprintf(log + off, sizeof(log) - off,
				"node%d:%d:%d [%d] NCCL INFO comm 0x5%d rank %d nRanks %d nNodes %d "
				"localRanks %d localRank %d MNNVL 0\n",
				n, 100 + g, 100 + g, g, r, r, nodes * gpn, nodes, gpn, g);
		}
	off += (size_t)snprintf(log + off, sizeof(log) - off,
				"node0:100:100 [0] NCCL INFO NET/IB : Using%s ; OOB ib0:10.0.0.1<0>\n",
				list);
	if (coll)
		off += (size_t)snprintf(log + off, sizeof(log) - off,
					"# Collective test starting: %s_perf\n", coll);
	off += (size_t)snprintf(log + off, sizeof(log) - off,
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"     1048576        262144     float     sum      -1    100.0   10.49   19.66      0    101.0   10.38   19.46      0\n"
		"  8589934592    2147483648     float     sum      -1    47133  182.25  %.2f      0    47107  182.35  %.2f    N/A\n"
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 139.652\n", oop, ip);
	doc = report_text(log, off, 0, exp);
	assert_non_null(doc);
	return doc;
}

/*
 * NDR 400: NVIDIA on two nodes with eight NDR NICs, NCCL_ALGO=RING, "you
 * should see 46-48GB/s per NIC" (github.com/NVIDIA/nccl-tests/issues/290).
 *   expected: 8 rails x 400 / 8 x 0.94 = 376 GB/s (two nodes: ring and tree
 *   both factor 1)
 *   a healthy 46 GB/s per NIC: 368 GB/s, 368 / 376 = 97.9%: no warning;
 *   half the rails dead (184 GB/s, 48.9%): a warning under the 80% floor.
 */
static void test_ndr(void **state)
{
	struct ncl_expect exp = { .rail_gbps = 400 };
	json_t *doc = report(2, 8, 8, "all_reduce", 364.49, 368.0, &exp), *r;

	(void)state;
	r = json_object_get(doc, "rails");
	assert_non_null(r);
	assert_close(fc_jnum(r, "expected_busbw_gbytes_s", 0), 376);
	assert_close(fc_jnum(r, "measured_busbw_gbytes_s", 0), 368); /* in place, the better */
	assert_close(fc_jnum(r, "share", 0), 368.0 / 376);
	assert_close(fc_jnum(r, "avg_busbw_gbytes_s", 0), 139.652);
	assert_string_equal(fc_jstr(r, "rate_from", ""), "--rail-gbps");
	assert_false(has_finding_part(doc, "the rails can carry"));
	json_decref(doc);
	doc = report(2, 8, 8, "all_reduce", 180.0, 184.0, &exp);
	assert_true(has_finding_part(doc, "nccl-tests' peak busbw 184.0 GB/s is 49% of the 376.0 GB/s"));
	json_decref(doc);
}

/*
 * HDR 200: three nodes of 8 A100 with four HDR HCAs each, all_reduce_perf
 * peak busbw "about 96GB/s", 24 GB/s per NIC
 * (github.com/NVIDIA/nccl-tests/issues/119). NCCL may choose the tree on
 * three nodes, so the expectation is its (n-1)/n:
 *   4 x 200 / 8 x 0.94 = 94 GB/s x 23/24 = 90.083 GB/s; 96 is 106.6%.
 */
static void test_hdr(void **state)
{
	struct ncl_expect exp = { .rail_gbps = 200 };
	json_t *doc = report(3, 8, 4, NULL, 95.5, 96.0, &exp), *r;

	(void)state;
	r = json_object_get(doc, "rails");
	assert_close(fc_jnum(r, "expected_busbw_gbytes_s", 0), 94.0 * 23 / 24);
	assert_string_equal(fc_jstr(r, "algorithm", ""), "tree");
	assert_int_equal((int)fc_jnum(r, "used_per_node", 0), 4);
	assert_close(fc_jnum(r, "share", 0), 96.0 / (94.0 * 23 / 24));
	assert_false(has_finding_part(doc, "the rails can carry"));
	json_decref(doc);
}

/* What cannot be judged says why: no rate, another collective, one node;
 * a log without nccl-tests' rows and no option gets no "rails" at all. */
static void test_not_judged(void **state)
{
	struct ncl_expect none = { 0 }, one = { .rail_gbps = 400, .nnodes = 1 };
	json_t *doc = report(2, 8, 8, "all_reduce", 300, 300, &none);

	(void)state;
	assert_non_null(strstr(fc_jstr(json_object_get(doc, "rails"), "why_none", ""),
			       "--rail-gbps"));
	json_decref(doc);
	doc = report(2, 8, 8, "all_gather", 300, 300, &none);
	assert_string_equal(fc_jstr(json_object_get(doc, "rails"), "collective", ""),
			    "all_gather");
	json_decref(doc);
	doc = report(2, 8, 8, "all_reduce", 300, 300, &one);
	assert_non_null(strstr(fc_jstr(json_object_get(doc, "rails"), "why_none", ""),
			       "one node"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ndr),
		cmocka_unit_test(test_hdr),
		cmocka_unit_test(test_not_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
