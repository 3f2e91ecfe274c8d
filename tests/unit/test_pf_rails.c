/*
 * Preflight per rail (checks/preflight/pf_rails.c) on the recorded probe of
 * a virtual-rack node grown to two rails (rxe0 on eth0, rxe1 on eth2, each
 * on its own subnet), and on an 8-GPU, 8-HCA server's topology document.
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
#include "core/out.h"

#include "tests/unit/pf_rec.h"

/* The rxe node's probe with a second rail. */
static json_t *two_rail_probe(int node)
{
	json_t *p = rec_doc("tests/data/preflight/rxe-node.json"), *d1, *port;
	char ip[32];

	port = json_array_get(json_object_get(json_array_get(json_object_get(p, "devices"), 0),
					      "ports"), 0);
	json_object_set_new(port, "subnet", json_string("10.77.4.0/24"));
	d1 = json_deep_copy(json_array_get(json_object_get(p, "devices"), 0));
	json_object_set_new(d1, "name", json_string("rxe1"));
	port = json_array_get(json_object_get(d1, "ports"), 0);
	json_object_set_new(port, "device", json_string("rxe1"));
	json_object_set_new(port, "netdev", json_string("eth2"));
	json_object_set_new(port, "subnet", json_string("10.78.4.0/24"));
	snprintf(ip, sizeof(ip), "::ffff:10.78.4.%d", node + 1);
	json_object_set_new(port, "gid", json_string(ip));
	json_array_append_new(json_object_get(p, "devices"), d1);
	json_object_set_new(json_object_get(p, "netdevs"), "eth2",
			    json_pack("{s:s, s:i}", "name", "eth2", "mtu", 9000));
	return p;
}

static json_t *rack_of(int n, json_t *(*probe)(int))
{
	json_t *nodes = json_array();

	for (int i = 0; i < n; i++)
		rack_add(nodes, probe(i));
	return nodes;
}

static void test_two_rails_healthy(void **state)
{
	json_t *nodes = rack_of(3, two_rail_probe), *doc;
	char *f = judge(nodes, &lab, &doc);
	const json_t *rails = json_object_get(doc, "rails");

	(void)state;
	assert_int_equal(json_array_size(rails), 2);
	assert_string_equal(fc_jstr(json_array_get(rails, 1), "name", ""), "rxe1");
	assert_string_equal(fc_jstr(json_array_get(rails, 1), "subnet", ""), "10.78.4.0/24");
	assert_null(strstr(f, "rail"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* nodeB's rail 1 netdev at MTU 1500 (active MTU 1024): named per rail, once. */
static void test_rail1_mtu_lowered(void **state)
{
	json_t *nodes = rack_of(3, two_rail_probe), *doc;
	char *f;

	(void)state;
	json_object_set_new(json_object_get(json_object_get(probe_of(nodes, 1), "netdevs"), "eth2"),
			    "mtu", json_integer(1500));
	json_object_set_new(port_of(nodes, 1, 1), "active_mtu", json_integer(1024));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: the netdev MTU of its port on rail 1 (rxe1) is 1500 B where "
				  "the other nodes have 9000 B"));
	assert_non_null(strstr(f, "nodeB: the active MTU of its port on rail 1 (rxe1) is 1024 B"));
	assert_null(strstr(f, "rxe1 port 1 netdev MTU")); /* not again per device name */
	assert_null(strstr(f, "rail 0"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* nodeC's cables swapped: matched by subnet, named, and its rail 1 port is
 * its rxe0 (no false MTU finding from the swap). */
static void test_rail_swap(void **state)
{
	json_t *nodes = rack_of(3, two_rail_probe), *doc, *d0, *d1;
	char *f;

	(void)state;
	d0 = port_of(nodes, 2, 0);
	d1 = port_of(nodes, 2, 1);
	json_object_set_new(d0, "subnet", json_string("10.78.4.0/24"));
	json_object_set_new(d1, "subnet", json_string("10.77.4.0/24"));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "ports of nodeC: rxe1 on rail 0"));
	assert_non_null(strstr(f, "rxe0 on rail 1"));
	assert_string_equal(fc_jstr(json_object_get(json_array_get(json_object_get(doc, "rails"), 1),
						    "devices"), "nodeC", ""), "rxe0");
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* An 8-GPU, 8-HCA server: GPU i under the PCIe switch of mlx5_i, but GPU5's
 * switch lost its HCA (mlx5_5 down the tree, SYS) and GPU7's nearest rail
 * HCA is NODE away. */
static json_t *gpu8_probe(int node)
{
	json_t *p = two_rail_probe(node), *devs = json_array(), *hcas = json_array();
	json_t *gpus = json_array(), *nics = json_array(), *matrix = json_object();

	for (int i = 0; i < 8; i++) {
		char dev[16], sub[32], lbl[16], g[16];
		json_t *row = json_object();

		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		snprintf(sub, sizeof(sub), "fe80:0000:0000:%04x", 0x10 + i);
		json_array_append_new(devs, json_pack("{s:s, s:s, s:[{s:s, s:i, s:s, s:s, s:f, s:i, s:s}]}",
						      "name", dev, "fw_ver", "28.39.1002", "ports",
						      "device", dev, "port", 1, "state", "ACTIVE",
						      "link_layer", "InfiniBand", "rate_gbps", 400.0,
						      "active_mtu", 4096, "subnet", sub));
		json_array_append_new(hcas, json_pack("{s:s, s:s, s:{s:f, s:i}}", "name", dev, "fw_ver",
						      "28.39.1002", "pcie", "gts", 32.0, "width", 16));
		snprintf(lbl, sizeof(lbl), "NIC%d", i);
		json_array_append_new(nics, json_pack("{s:s, s:s}", "name", dev, "label", lbl));
		snprintf(g, sizeof(g), "GPU%d", i);
		for (int k = 0; k < 8; k++) {
			char nl[16];
			const char *d = k == i ? "PIX" : (k / 2 == i / 2 ? "PXB" : k / 4 == i / 4 ? "NODE" : "SYS");

			if (i == 5 && k == 5)
				d = "SYS";
			if (i == 5 && k == 4)
				d = "PXB";
			if (i == 7)
				d = k == 7 ? "SYS" : k >= 4 ? "NODE" : "SYS";
			snprintf(nl, sizeof(nl), "NIC%d", k);
			json_object_set_new(row, nl, json_string(d));
		}
		json_object_set_new(matrix, g, row);
		json_array_append_new(gpus, json_pack("{s:s}", "name", g));
	}
	json_object_set_new(p, "devices", devs);
	json_object_set_new(p, "hcas", hcas);
	json_object_set_new(p, "topo", json_pack("{s:s, s:[], s:o, s:o, s:o, s:b}", "verdict", "pass",
						 "findings", "gpus", gpus, "nics", nics, "matrix",
						 matrix, "peermem", 1));
	return p;
}

static void test_gpu_rail_local(void **state)
{
	json_t *nodes = rack_of(2, gpu8_probe), *doc;
	char *f = judge(nodes, &lab, &doc);

	(void)state;
	assert_int_equal(json_array_size(json_object_get(doc, "rails")), 8);
	assert_non_null(strstr(f, "nodeA: GPU7 has no rail-local HCA: its nearest rail HCA, mlx5_4 "
				  "(rail 4), is NODE"));
	assert_non_null(strstr(f, "nodeA: GPU4 and GPU5 share their nearest HCA mlx5_4 (rail 4) "
				  "although the node has 8 rail HCAs for 8 GPUs"));
	assert_non_null(strstr(f, "nodeB: GPU4 and GPU5 share"));
	assert_null(strstr(f, "GPU0 has no"));
	assert_null(strstr(f, "GPU6 has no"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* The HCA PCIe link of one rail trained down: named per rail, across nodes
 * (three nodes: the odd one by majority) or within the node (two nodes: its
 * other rails outvote it). Links the probe could not read are not compared. */
static json_t *hca_pcie(json_t *nodes, int node, int rail)
{
	return json_object_get(json_array_get(json_object_get(probe_of(nodes, node), "hcas"),
					      (size_t)rail), "pcie");
}

static void test_rail_pcie_link(void **state)
{
	json_t *nodes = rack_of(3, gpu8_probe), *doc;
	char *f;

	(void)state;
	json_object_set_new(hca_pcie(nodes, 1, 3), "width", json_integer(8));
	json_object_set_new(hca_pcie(nodes, 2, 6), "gts", json_real(16));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: the PCIe link width of its HCA on rail 3 (mlx5_3) is x8 "
				  "where the other nodes have x16"));
	assert_non_null(strstr(f, "nodeC: the PCIe link speed of its HCA on rail 6 (mlx5_6) is "
				  "16 GT/s where the other nodes have 32 GT/s"));
	assert_null(strstr(f, "nodeA: the PCIe"));
	assert_null(strstr(f, "rail 3 (mlx5_3) is 16"));
	assert_null(strstr(f, "its other rails' HCAs")); /* three nodes: once, across them */
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	json_decref(nodes);

	nodes = rack_of(2, gpu8_probe);
	json_object_set_new(hca_pcie(nodes, 1, 3), "width", json_integer(8));
	json_object_del(json_array_get(json_object_get(probe_of(nodes, 0), "hcas"), 5), "pcie");
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: the PCIe link width of its HCA mlx5_3 on rail 3 is x8 where "
				  "its other rails' HCAs have x16"));
	assert_non_null(strstr(f, "the PCIe link width of its HCA on rail 3 (mlx5_3) differs across "
				  "nodes (nodeA x16, nodeB x8)"));
	assert_null(strstr(f, "nodeA: the PCIe"));
	assert_null(strstr(f, "rail 5 (mlx5_5)")); /* one node's link unknown: nothing to compare */
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* One node's port on rail 3 trained on 2 of its 4 lanes: named by the
 * model diagnose uses (diag/expect.c), with its lanes and its peers, and
 * kept on its rail (core/rail_rate.c), not left out for its rate. */
/* How many lines of @f name both @a and @b. */
static int lines_naming(const char *f, const char *a, const char *b)
{
	int n = 0;

	for (const char *l = f; l && *l;) {
		size_t len = strcspn(l, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		n += strstr(line, a) && strstr(line, b);
		l += len + (l[len] == '\n');
	}
	return n;
}

static void test_rail_rate_lanes(void **state)
{
	json_t *nodes = rack_of(3, gpu8_probe), *doc, *port;
	char *f;

	(void)state;
	port = port_of(nodes, 1, 3);
	json_object_set_new(port, "rate_gbps", json_integer(100));
	json_object_set_new(port, "width", json_string("2X"));
	f = judge(nodes, &lab, &doc);
	/* one finding for the one fault: not the rail's rate agreement, nor the
	 * per-port model's line beside the rails' */
	assert_int_equal(lines_naming(f, "nodeB", "mlx5_3"), 1);
	assert_null(strstr(f, "the rate of its port on rail 3"));
	assert_null(strstr(f, "nodeA: mlx5_3"));
	assert_null(strstr(f, "nodeC: mlx5_3"));
	/* kept on its rail (it is on the rail's subnet), not left out as storage */
	assert_non_null(strstr(f, "mlx5_3 of nodeB runs at 100 Gb/s on 2 lanes, below the 400 Gb/s "
				  "of the rails: it is on subnet fe80:0000:0000:0013"));
	assert_null(strstr(f, "no active port on rail 3"));
	assert_null(strstr(f, "left out"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rails_healthy), cmocka_unit_test(test_rail_rate_lanes),
		cmocka_unit_test(test_rail1_mtu_lowered),
		cmocka_unit_test(test_rail_swap),
		cmocka_unit_test(test_gpu_rail_local),
		cmocka_unit_test(test_rail_pcie_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
