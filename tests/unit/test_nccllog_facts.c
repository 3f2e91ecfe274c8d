/*
 * Unit tests of the NCCL log parser on what a log says of the job: one node
 * or many, the HCA lists, Data Direct devices, GPUDirect reasons, stated
 * causes, the HCA of each GPU and the details of each finding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks/nccl/log/nccllog.h"
#include "checks/nccl/log/nccllog_int.h"
#include "tests/unit/nccllog_util.h"

/* One node or one rank: nothing about inter-node sockets; one node of a bigger job is not one. */
static void test_single_node(void **state)
{
	static const char one_rank[] =
		"[rank0]:ws1:77:77 [0] NCCL INFO NET/IB : No device found.\n"
		"[rank0]:ws1:77:77 [0] NCCL INFO NET/Socket : Using [0]enp5s0:192.168.1.20<0>\n"
		"[rank0]:ws1:77:77 [0] NCCL INFO Using network Socket\n"
		"[rank0]:ws1:77:90 [0] NCCL INFO ncclCommInitRank comm 0x5571 rank 0 nranks 1 "
		"cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE\n";
	static const char one_host[] =
		"ws2:10:10 [0] NCCL INFO NET/IB : No device found.\n"
		"ws2:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
		"ws2:10:10 [0] NCCL INFO Using network Socket\n"
		"ws2:10:20 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 - Init START\n"
		"ws2:11:21 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 - Init START\n"
		"ws2:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";
	static const char part[] = /* one node's lines of a 16-rank job */
		"ws3:10:10 [0] NCCL INFO NET/IB : No device found.\n"
		"ws3:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.3<0>\n"
		"ws3:10:10 [0] NCCL INFO Using network Socket\n"
		"ws3:10:20 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1000 - Init START\n";
	json_t *doc;

	(void)state;
	doc = report_str(one_rank);
	assert_true(json_is_true(json_object_get(doc, "single_node")));
	assert_string_equal(str(json_array_get(json_object_get(doc, "ranks"), 0), "host"), "ws1");
	assert_false(has_finding_part(doc, "sockets"));
	assert_string_equal(str(doc, "verdict"), "pass");
	json_decref(doc);
	doc = report_str(one_host);
	assert_true(json_is_true(json_object_get(doc, "single_node")));
	assert_false(has_finding_part(doc, "sockets"));
	json_decref(doc);
	doc = report_str(part);
	assert_true(json_is_false(json_object_get(doc, "single_node")));
	assert_true(has_finding_part(doc, "inter-node traffic uses TCP sockets"));
	json_decref(doc);
}

/* Device lists in every form: 2.3 port lines by verbs index, gIB by its GPUDirect lines. */
static void test_hca_lists(void **state)
{
	json_t *doc;
	const json_t *h;

	(void)state;
	doc = report_file("tests/data/nccl/logs/nccl-2.3.7_ib-port-lines_interleaved_dgx1.log", NULL);
	h = json_array_get(json_object_get(doc, "hcas"), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "index")), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "ibv_index")), 1);
	/* 2.3's NET line is printed by the receiver; NCCL device 0 is mlx5_1 */
	assert_string_equal(str(chan(doc, 0, 15, 0, "receive"), "hca"), "mlx5_1");
	assert_string_equal(str(chan(doc, 3, 15, 0, "receive"), "hca"), "mlx5_4");
	assert_string_equal(str(chan(doc, 0, 15, 0, "receive"), "host"), "dgx1-n07");
	json_decref(doc);
	doc = report_file("tests/data/nccl/logs/nccl-2.23.4_gib-plugin_8nic_k8s.log", NULL);
	assert_string_equal(str(chan(doc, 5, 5, 13, "send"), "hca"), "mlx5_5");
	assert_string_equal(str(json_array_get(json_object_get(doc, "hcas"), 5), "gdr"), "on");
	json_decref(doc);
}

/* mlx5 Data Direct (CX-8, NCCL 2.27.3+): NCCL lists "<hca>_dma" for the HCA
 * (nccl-rules.md section 4, "Data Direct NICs ... appear as <hca>_dma"). The
 * HCA's own name satisfies --expect-hca and the topology's nearest NICs. */
static void test_data_direct(void **state)
{
	static const char text[] =
		"h1:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda12.9\n"
		"h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0_dma:1/IB [1]mlx5_1_dma:1/IB [RO]; OOB ib0:10.0.0.1<0>\n"
		"h1:1:1 [0] NCCL INFO Using network IB\n";
	static const char *const want[] = { "mlx5_0", "mlx5_1:1" };
	static const char *const gone[] = { "mlx5_2" };
	struct ncl_expect exp = { .hcas = want, .nhcas = 2 };
	json_t *doc, *gpu;
	const json_t *h;

	(void)state;
	doc = report_text(text, strlen(text), 0, &exp);
	h = json_array_get(json_object_get(doc, "hcas"), 0);
	assert_string_equal(str(h, "name"), "mlx5_0_dma");
	assert_true(json_is_true(json_object_get(h, "data_direct")));
	assert_false(has_finding_part(doc, "--expect-hca"));
	json_decref(doc);
	exp.hcas = gone;
	exp.nhcas = 1;
	doc = report_text(text, strlen(text), 0, &exp);
	assert_true(has_finding_part(doc, "not mlx5_2"));
	json_decref(doc);
	gpu = json_pack("{s:[s]}", "nearest_nics", "mlx5_0");
	assert_true(ncl_topo_nearest(gpu, "mlx5_0_dma"));
	assert_true(ncl_topo_nearest(gpu, "mlx5_0"));
	assert_false(ncl_topo_nearest(gpu, "mlx5_1_dma"));
	assert_false(ncl_topo_nearest(gpu, "mlx5_0_dmax"));
	json_decref(gpu);
	assert_true(ncl_hca_same("mlx5_0_dma", "mlx5_0", 6));
	assert_false(ncl_hca_same("mlx5_10", "mlx5_1", 6));
}

/* 2.4's GPUDirect reason: ">=" and 2.4's distance numbers (NODE 3, PHB 2). */
static void test_gdr_reason_24(void **state)
{
	static const char log[] =
		"NCCL version 2.4.8+cuda10.1\n"
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
		"h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 "
		"(distance 3 >= 2)\n"
		"h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/IB/0\n";
	json_t *doc = report_str(log);

	(void)state;
	assert_string_equal(str(doc, "gdr"), "off");
	assert_true(has_finding_part(doc, "the GPU-HCA distance 3 (NODE) is beyond the GPUDirect "
				     "limit 2 (PHB)"));
	assert_false(has_finding_part(doc, "nvidia_peermem"));
	json_decref(doc);
}

/* The reasons NCCL prints for sockets, in each version's words. */
static void test_stated_causes(void **state)
{
	static const struct {
		const char *log, *want;
	} cases[] = {
		{ "h:1:1 [0] NCCL INFO Net/IB: call to devices() returned 0 devices\n"
		  "h:1:1 [0] NCCL INFO Using internal Network Socket\n",
		  "NET/IB found no usable device" },
		{ "\nh:1:1 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
		  "h:1:1 [0] NCCL INFO Using internal Network Socket\n",
		  "could not load the verbs library" },
		{ "h:1:2 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). "
		  "ncclNetPlugin symbols v4 and lower are not supported.\n"
		  "h:1:2 [0] NCCL INFO Using network Socket\n",
		  "NCCL rejected the net plugin" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = report_str(cases[i].log);

		assert_string_equal(str(doc, "network"), "Socket");
		assert_true(json_is_true(json_object_get(doc, "socket_fallback")));
		assert_true(has_finding_part(doc, cases[i].want));
		assert_false(has_finding_part(doc, "does not show why"));
		json_decref(doc);
	}
}

/* Per GPU with --topo: its HCA against its rail-local one, and PXN through the rail's GPU. */
static void test_gpu_rails(void **state)
{
	json_error_t jerr;
	json_t *topo = json_load_file("tests/data/nccl/topo-8gpu-8hca.json", 0, &jerr);
	static const char pxn_far[] =
		"n1:5:6 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB "
		"[3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; "
		"OOB ib0:10.0.0.1<0>\n"
		"n1:5:6 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 "
		"commId 0x2 - Init START\n"
		"n1:8:9 [3] NCCL INFO comm 0x4 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 5d000 "
		"commId 0x2 - Init START\n"
		"n1:5:6 [0] NCCL INFO Channel 03/1 : 0[0] -> 11[3] [send] via NET/IB/5(3)/GDRDMA\n";
	struct ncl_expect exp = { .topo = topo };
	const json_t *r, *p;
	json_t *doc;

	(void)state;
	assert_non_null(topo);
	doc = report_file("tests/data/nccl/logs/nccl-2.21.5_8rail-pxn_one-port-down_ompi.log", &exp);
	r = by_rank(doc, "gpu_rails", 0);
	assert_non_null(r);
	assert_string_equal(str(r, "gpu"), "GPU0");
	assert_true(json_is_true(json_object_get(r, "rail_local")));
	p = json_array_get(json_object_get(r, "pxn"), 0);
	assert_int_equal(json_integer_value(json_object_get(p, "proxy_rank")), 3);
	assert_string_equal(str(p, "hca"), "mlx5_3");
	assert_string_equal(str(p, "proxy_gpu"), "GPU3");
	assert_true(json_is_true(json_object_get(p, "proxy_local")));
	/* the second node's GPU5 lost mlx5_5, the device indexes after it shift */
	r = by_rank(doc, "gpu_rails", 13);
	assert_true(json_is_false(json_object_get(r, "rail_local")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "hcas"), 0)),
			    "mlx5_4");
	assert_true(json_is_true(json_object_get(by_rank(doc, "gpu_rails", 14), "rail_local")));
	assert_true(has_finding_part(doc, "rank 13 (hgx-r07-n2, GPU5) moves data on mlx5_4"));
	assert_true(has_finding_part(doc, "NCCL does not list it"));
	assert_false(has_finding_part(doc, "PXN"));
	json_decref(doc);
	/* PXN on an HCA local to neither GPU */
	doc = report_text(pxn_far, strlen(pxn_far), 0, &exp);
	assert_true(has_finding_part(doc, "rank 0 (GPU0) sends by PXN through rank 3, whose HCA mlx5_5"));
	p = json_array_get(json_object_get(by_rank(doc, "gpu_rails", 0), "pxn"), 0);
	assert_true(json_is_false(json_object_get(p, "proxy_local")));
	json_decref(doc);
	/* without --topo nothing is said per GPU */
	doc = report_file("tests/data/nccl/logs/nccl-2.21.5_8rail-pxn_one-port-down_ompi.log", NULL);
	assert_null(json_object_get(doc, "gpu_rails"));
	json_decref(doc);
	json_decref(topo);
}

static void test_details(void **state)
{
	json_t *doc;
	const json_t *c;

	(void)state;
	/* merged virtual devices: NET dev 1 is the merge of mlx5_0 and mlx5_1 */
	doc = fixture("nccl-2.2x_roce-merged-vnics_ibext-v8.log", NULL);
	c = chan(doc, 0, 2, 0, "send");
	assert_non_null(c);
	assert_string_equal(str(c, "hca"), "mlx5_0+mlx5_1");
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(doc, "hcas"), 2), "merged_into")), 1);
	json_decref(doc);
	/* mixed builds by wording */
	doc = fixture("nccl-2.19.3_roce-2hca_dgxh100.log", NULL);
	assert_true(has_finding_part(doc, "mixed NCCL builds"));
	json_decref(doc);
	/* an error that reached init: fail, the WARN quoted */
	doc = fixture("nccl-2.2x_h100_ibext-v6-sharp_socket-family-warn.log", NULL);
	assert_true(json_is_true(json_object_get(doc, "init_failed")));
	assert_true(has_finding_part(doc, "bootstrap.cc:256"));
	json_decref(doc);
	/* errors inside the IB transport only: not an init failure */
	doc = fixture("nccl-2.29.7_no-libibverbs_socket_gin.log", NULL);
	assert_true(json_is_false(json_object_get(doc, "init_failed")));
	json_decref(doc);
	/* IPv6 with scope and an alias interface */
	doc = fixture("nccl-2.5.6_ib-disabled_socket-ipv6.log", NULL);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "bootstrap"), 0)),
			    "ip6tnl0 fe80::c41a:7eff:fe3b:19d2%ip6tnl0");
	json_decref(doc);
	doc = fixture("nccl-2.4.8_mlx4-ib_nic-distance.log", NULL);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "bootstrap"), 1)),
			    "ib0:0 10.62.45.21");
	assert_true(has_finding_part(doc, "GPUs 0,1 on zeus3102 are at distance SYS"));
	json_decref(doc);
	/* versions, settings */
	doc = report_file("tests/data/nccl/mixed.log", NULL);
	assert_true(has_finding_part(doc, "several NCCL versions"));
	assert_true(has_finding_part(doc, "NCCL_IB_HCA==mlx5_1"));
	assert_true(has_finding_part(doc, "NCCL rejected NCCL_IB_TIMEOUT=abc"));
	assert_true(has_finding_part(doc, "NCCL_SOCKET_NTHREADS differs"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_node),
		cmocka_unit_test(test_hca_lists),
		cmocka_unit_test(test_data_direct),
		cmocka_unit_test(test_gdr_reason_24),
		cmocka_unit_test(test_stated_causes),
		cmocka_unit_test(test_gpu_rails),
		cmocka_unit_test(test_details),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
