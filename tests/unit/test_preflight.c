/*
 * Unit tests of preflight's judgement (checks/preflight/preflight.c) on probe
 * documents recorded for the tests (tests/data/preflight/: a Soft-RoCE node
 * of the virtual rack, a ConnectX-7 node with a GPU), changed one field at a
 * time: each problem is named with its node and part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/util.h"
#include "core/out.h"

#include "tests/unit/pf_rec.h"

static void test_majority(void **state)
{
	const char *a[] = { "9000", "9000", "1500" };
	const char *b[] = { "9000", "1500" };
	const char *c[] = { NULL, "x", NULL };
	const char *d[] = { "1", "2", "3", "1" };

	(void)state;
	assert_int_equal(fc_majority(a, 3), 0);
	assert_int_equal(fc_majority(b, 2), -1);
	assert_int_equal(fc_majority(c, 3), 1);
	assert_int_equal(fc_majority(d, 4), -1);
}

static void test_healthy_rack(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/rxe-node.json"), *nodes = rack(p, 3), *doc;
	char *f = judge(nodes, &(struct pf_opts){ .expect_rate_gbps = 2.5, .expect_mtu = 9000,
						  .tclass = 106 }, &doc);

	(void)state;
	assert_string_equal(f, "");
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	assert_int_equal(json_integer_value(json_object_get(doc, "gpu_nodes")), 0);
	/* No PCI device and no mlnx_qos: both skipped with the reason. */
	assert_int_equal(json_array_size(json_object_get(doc, "skipped")), 6);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "skipped"), 1)),
			       "mlnx_qos is not installed"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
	json_decref(p);
}

static void test_mtu_fault_named(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/rxe-node.json"), *nodes = rack(p, 3);
	char *f;

	(void)state;
	/* lab fault nodeB mtu 1500: eth0 at 1500, rxe0 follows at 1024. */
	json_object_set_new(json_object_get(json_object_get(probe_of(nodes, 1), "netdevs"), "eth0"),
			    "mtu", json_integer(1500));
	json_object_set_new(port_of(nodes, 1, 0), "active_mtu", json_integer(1024));
	f = judge(nodes, &lab, NULL);
	assert_non_null(strstr(f, "nodeB: rxe0 port 1 netdev MTU is 1500 B where the other nodes have 9000 B"));
	assert_non_null(strstr(f, "nodeB: rxe0 port 1 active MTU is 1024 B where the other nodes have 4096 B"));
	assert_null(strstr(f, "nodeA"));
	assert_null(strstr(f, "nodeC"));
	free(f);
	/* With the expected MTU, nodeB alone, and on 2 nodes as well. */
	f = judge(nodes, &(struct pf_opts){ .expect_mtu = 9000, .tclass = 106 }, NULL);
	assert_non_null(strstr(f, "nodeB: eth0 MTU is 1500, expected 9000"));
	free(f);
	json_array_remove(nodes, 2);
	f = judge(nodes, &lab, NULL);
	assert_non_null(strstr(f, "netdev MTU differs across nodes (nodeA 9000 B, nodeB 1500 B)"));
	assert_non_null(strstr(f, "nodeB: rxe0 port 1 runs at an active MTU of 1024 B because eth0 has MTU 1500"));
	free(f);
	json_decref(nodes);
	json_decref(p);
}

static void test_port_state_rate_gid(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/rxe-node.json"), *nodes = rack(p, 3), *doc;
	char *f;

	(void)state;
	json_object_set_new(port_of(nodes, 2, 0), "state", json_string("DOWN"));
	json_object_set_new(port_of(nodes, 1, 0), "gid_type", json_string("RoCE v1"));
	f = judge(nodes, &(struct pf_opts){ .expect_rate_gbps = 10, .tclass = 106 }, &doc);
	assert_non_null(strstr(f, "nodeC: rxe0 port 1 is DOWN"));
	assert_non_null(strstr(f, "nodeA: rxe0 port 1 runs at 2.5 Gb/s (1X 2.5 Gb/s), expected 10 Gb/s"));
	assert_non_null(strstr(f, "nodeB: rxe0 port 1 has no RoCE v2 GID (best is RoCE v1)"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	/* A GID whose type was not recorded is no sign of a port without
	 * RoCE v2: it said "has no RoCE v2 GID (best is ?)". */
	json_object_del(port_of(nodes, 1, 0), "gid_type");
	f = judge(nodes, &(struct pf_opts){ .tclass = 106 }, &doc);
	assert_null(strstr(f, "nodeB: rxe0 port 1 has no RoCE v2 GID"));
	assert_null(strstr(f, "best is"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
	json_decref(p);
}

static void test_versions(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/gpu-node.json"), *nodes = rack(p, 4), *h;
	char *qos = slurp("tests/data/qos/mlnx_qos_cx7_dscp_pfc3.txt");
	char *f;

	(void)state;
	json_object_set_new(json_object_get(json_object_get(probe_of(nodes, 0), "qos"), "ens1f0np0"),
			    "text", json_string(qos));
	free(qos);
	h = json_array_get(json_object_get(probe_of(nodes, 3), "hcas"), 0);
	json_object_set_new(h, "fw_ver", json_string("28.37.1014"));
	json_object_set_new(h, "driver_version", json_string("23.10-1.1.9"));
	json_object_set_new(probe_of(nodes, 2), "kernel", json_string("5.15.0-91-generic"));
	f = judge(nodes, &lab, NULL);
	assert_non_null(strstr(f, "nodeD: mlx5_0 firmware is 28.37.1014 where the other nodes have 28.39.1002"));
	assert_non_null(strstr(f, "nodeD: mlx5_0 driver is mlx5_core 23.10-1.1.9 where the other nodes have mlx5_core 24.01-0.3.3"));
	assert_non_null(strstr(f, "nodeC: the kernel is 5.15.0-91-generic where the other nodes have 5.15.0-105-generic"));
	assert_null(strstr(f, "nodeB"));
	free(f);
	json_decref(nodes);
	json_decref(p);
}

/* An HCA whose PCIe link cannot carry its port, named before any traffic. */
static void test_pcie_ceiling(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/gpu-node.json"), *nodes = rack(p, 2), *h;
	char *f;

	(void)state;
	h = json_array_get(json_object_get(probe_of(nodes, 1), "hcas"), 0);
	json_object_set_new(h, "pcie", json_pack("{s:s, s:f, s:i, s:f, s:i, s:i, s:f}", "bdf",
						 "0000:17:00.0", "gts", 16.0, "width", 8, "max_gts",
						 32.0, "max_width", 16, "max_payload_bytes", 256,
						 "ceiling_gbps", 109.5));
	f = judge(nodes, &lab, NULL);
	assert_non_null(strstr(f, "nodeB: mlx5_0 trained to 16 GT/s x8 (capable of 32 GT/s x16): at most about 110 Gb/s over PCIe, port 1 is"));
	assert_null(strstr(f, "nodeA: mlx5_0 trained"));
	free(f);
	json_decref(nodes);
	json_decref(p);
}

static void test_gpu_gdr_topo_qos(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/gpu-node.json"), *nodes = rack(p, 2), *doc, *topo;
	char *qos_bad = slurp("tests/data/qos/mlnx_qos_cx6_pcp_nopfc.txt");
	char *qos_ok = slurp("tests/data/qos/mlnx_qos_cx7_dscp_pfc3.txt");
	char *f;

	(void)state;
	json_object_set_new(json_object_get(json_object_get(probe_of(nodes, 0), "qos"), "ens1f0np0"),
			    "text", json_string(qos_ok));
	json_object_set_new(json_object_get(json_object_get(probe_of(nodes, 1), "qos"), "ens1f0np0"),
			    "text", json_string(qos_bad));
	/* nodeB: no peermem, an old driver (no dma-buf), a degraded link. */
	json_object_del(json_object_get(probe_of(nodes, 1), "modules"), "nvidia_peermem");
	json_object_set_new(json_object_get(probe_of(nodes, 1), "modules"), "nvidia",
			    json_string("470.223.02"));
	topo = json_object_get(probe_of(nodes, 1), "topo");
	json_object_set_new(topo, "peermem", json_false());
	json_object_set_new(topo, "verdict", json_string("warn"));
	json_array_append_new(json_object_get(topo, "findings"),
			      json_string("PCIe link of mlx5_0 (0000:1a:00.0) trained at x8 of x16: reseat the card"));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: 1 GPU but no GPUDirect RDMA path"));
	assert_non_null(strstr(f, "nodeB: PCIe link of mlx5_0 (0000:1a:00.0) trained at x8 of x16"));
	assert_non_null(strstr(f, "nodeB ens1f0np0: trust mode is pcp"));
	assert_null(strstr(f, "nodeA"));
	assert_int_equal(json_integer_value(json_object_get(doc, "gpu_nodes")), 2);
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "nodes"), 0), "gdr", ""),
			    "peermem");
	/* dma-buf: driver 515+ on kernel 5.12+ without peermem. */
	json_decref(doc);
	free(f);
	json_object_set_new(json_object_get(probe_of(nodes, 1), "modules"), "nvidia",
			    json_string("535.104.05"));
	f = judge(nodes, &lab, &doc);
	assert_null(strstr(f, "no GPUDirect RDMA path"));
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "nodes"), 1), "gdr", ""),
			    "dma-buf");
	json_decref(doc);
	free(f);
	free(qos_bad);
	free(qos_ok);
	json_decref(nodes);
	json_decref(p);
}

static void test_unreachable(void **state)
{
	json_t *p = rec_doc("tests/data/preflight/rxe-node.json"), *nodes = rack(p, 2), *doc;
	char *f;

	(void)state;
	json_array_append_new(nodes, json_pack("{s:s, s:s}", "node", "nodeC", "error",
					       "cannot reach the node over ssh (exit 255)"));
	json_object_set_new(json_array_get(nodes, 0), "probe", json_string("garbage"));
	f = judge(nodes, &lab, &doc);
	json_decref(doc);
	doc = fc_doc_new();
	assert_int_equal(pf_check(doc, nodes, &lab), 2);
	assert_non_null(strstr(f, "nodeC: could not be probed: cannot reach the node over ssh"));
	assert_non_null(strstr(f, "nodeA: could not be probed"));
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "nodes"), 2), "status", ""),
			    "unreachable");
	free(f);
	json_decref(doc);
	json_decref(nodes);
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_majority),
		cmocka_unit_test(test_healthy_rack),
		cmocka_unit_test(test_mtu_fault_named),
		cmocka_unit_test(test_port_state_rate_gid),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_pcie_ceiling),
		cmocka_unit_test(test_gpu_gdr_topo_qos),
		cmocka_unit_test(test_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
