/* Rail matching on recorded port lists (tests/data/rails/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/rail_rec.h"

static void test_roce_healthy(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-4x2.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 2);
	assert_int_equal(m.link_layer, FC_RAIL_LL_ETH);
	assert_false(m.by_name);
	assert_string_equal(m.rails[0].name, "rxe0");
	assert_string_equal(m.rails[0].subnet, "10.0.0.0/24");
	assert_string_equal(m.rails[1].name, "rxe1");
	assert_string_equal(m.rails[1].subnet, "10.99.0.0/24");
	for (int i = 0; i < 4; i++) {
		assert_string_equal(dev_on(&m, &r, i, 0), "rxe0");
		assert_string_equal(dev_on(&m, &r, i, 1), "rxe1");
	}
	assert_int_equal(m.nfindings, 0);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_NOTE);
	fc_rail_map_release(&m);
}

/* nodeC's NICs swapped between segments: matched by subnet, the finding
 * names the node and both devices. */
static void test_roce_swap(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-4x2-swap.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(dev_on(&m, &r, 2, 0), "rxe1");
	assert_string_equal(dev_on(&m, &r, 2, 1), "rxe0");
	assert_string_equal(dev_on(&m, &r, 3, 0), "rxe0");
	assert_int_equal(m.nfindings, 1);
	assert_int_equal(m.findings[0].sev, FC_RAIL_FAIL);
	assert_int_equal(m.findings[0].node, 2);
	assert_int_equal(count_text(&m, "nodeC", "rxe1 on rail 0", "rxe0 on rail 1", "swapped",
				    NULL),
			 1);
	fc_rail_map_release(&m);
}

static void test_roce_one_subnet(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-4x2-one-subnet.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 2);
	/* nodeB keeps rxe0 on rail 0 and has nothing on rail 1. */
	assert_string_equal(dev_on(&m, &r, 1, 0), "rxe0");
	assert_string_equal(dev_on(&m, &r, 1, 1), "-");
	assert_int_equal(count_text(&m, "rxe0 and rxe1 of nodeB", "10.0.0.0/24",
				    "two rails on one subnet", "rxe1 is left out", NULL),
			 1);
	assert_int_equal(count_text(&m, "nodeB has no active port on rail 1", NULL), 1);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_FAIL);
	fc_rail_map_release(&m);
}

/* nodeD's rail 1 on a subnet nobody else has; nodeB's rail 1 port down. */
static void test_roce_odd_and_down(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-4x2-odd.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(m.rails[1].subnet, "10.99.0.0/24");
	assert_int_equal(count_text(&m, "rxe1 of nodeD", "10.98.0.0/24", "no other node",
				    NULL),
			 1);
	assert_int_equal(count_text(&m, "nodeD has no active port on rail 1", NULL), 1);
	assert_int_equal(count_text(&m, "nodeB has no active port on rail 1",
				    "rxe1 port 1 is not active", NULL),
			 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 3);
	fc_rail_map_release(&m);
}

/* No port to match: nodes with no port at all, and nodes whose every port
 * --exclude-dev leaves out, are "none" with the reason, never "matched by
 * device name" (nothing was compared). */
static void test_no_port_to_match(void **state)
{
	const char *excl[] = { "rxe0", "rxe1" };
	struct fc_rail_opts o = { .exclude = excl, .nexclude = 2 };
	struct fc_rail_node none[2] = { { .name = "nodeA" }, { .name = "nodeB" } };
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	assert_int_equal(fc_rail_match(none, 2, NULL, &m), 0);
	assert_int_equal(m.by, FC_RAIL_BY_NONE);
	assert_false(m.by_name);
	assert_int_equal(m.nrails, 0);
	assert_string_equal(fc_rail_by_name(m.by), "none");
	assert_int_equal(count_text(&m, "no port to match", "no node reports an RDMA port", NULL), 1);
	assert_int_equal(count_text(&m, "device name", NULL), 0);
	fc_rail_map_release(&m);

	load("roce-4x2.json", &r);
	assert_int_equal(fc_rail_match(r.nodes, r.n, &o, &m), 0);
	assert_int_equal(m.by, FC_RAIL_BY_NONE);
	assert_int_equal(count_text(&m, "no port to match", "every port was left out", NULL), 1);
	fc_rail_map_release(&m);
}

/* 8-HCA servers: the Ethernet management NIC left out by link layer, the
 * 200G IB storage HCA by its rate (once looked a ninth rail), and by
 * --exclude-dev without the note; gpu03's mlx5_3/mlx5_5 swapped. */
static void test_ib_8rail(void **state)
{
	const char *excl[] = { "mlx5_8" };
	struct fc_rail_opts o = { .exclude = excl, .nexclude = 1 };
	struct rec r;
	struct fc_rail_map m;
	char want[16];

	(void)state;
	match_file("ib-8rail.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 8);
	assert_int_equal(count_text(&m, "mlx5_8 left out on 4 nodes", "rate 200 Gb/s",
				    "400 Gb/s", NULL), 1);
	fc_rail_map_release(&m);

	assert_int_equal(fc_rail_match(r.nodes, r.n, &o, &m), 0);
	assert_int_equal(m.link_layer, FC_RAIL_LL_IB);
	assert_int_equal(m.nrails, 8);
	for (int k = 0; k < 8; k++) {
		snprintf(want, sizeof(want), "mlx5_%d", k);
		assert_string_equal(m.rails[k].name, want);
		assert_int_equal(m.rails[k].index, k);
	}
	assert_string_equal(m.rails[5].subnet, "fe80:0000:0000:0015");
	assert_string_equal(dev_on(&m, &r, 2, 5), "mlx5_3");
	assert_string_equal(dev_on(&m, &r, 2, 3), "mlx5_5");
	assert_string_equal(dev_on(&m, &r, 1, 5), "mlx5_5");
	assert_int_equal(count_text(&m, "gpu03", "mlx5_5 on rail 3", "mlx5_3 on rail 5",
				    "swapped", NULL),
			 1);
	assert_int_equal(count_text(&m, "another link layer", "mlx5_9", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	fc_rail_map_release(&m);
}

static void test_ib_one_subnet(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-one-subnet.json", NULL, &r, &m);
	assert_true(m.by_name);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(m.rails[2].name, "mlx5_2");
	assert_string_equal(m.rails[2].subnet, "");
	assert_string_equal(dev_on(&m, &r, 1, 2), "mlx5_2");
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	assert_int_equal(count_text(&m, "matched by device name", "one subnet manager", NULL), 1);
	fc_rail_map_release(&m);
}

/* One leaf switch a rail: matched by switch; gpu02's swapped cables found
 * although every port shares one subnet prefix and the names line up. */
static void test_ib_switches(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-switches-swap.json", NULL, &r, &m);
	assert_true(m.by_switch);
	assert_false(m.by_name);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(m.rails[1].peer, "0x7cfe900301a0b001");
	assert_string_equal(m.rails[1].subnet, "");
	assert_string_equal(dev_on(&m, &r, 1, 1), "mlx5_2");
	assert_string_equal(dev_on(&m, &r, 1, 2), "mlx5_1");
	assert_int_equal(count_text(&m, "gpu02", "mlx5_2 on rail 1 (switch 0x7cfe900301a0b001, "
				    "mlx5_1 on the other nodes)", "mlx5_1 on rail 2", "swapped", NULL), 1);
	assert_int_equal(count_text(&m, "matched by the switch", "4 switches", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	fc_rail_map_release(&m);

	/* with each switch's node description: the swap names the switches by it */
	match_file("ib-switches-desc.json", NULL, &r, &m);
	assert_true(m.by_switch);
	assert_string_equal(m.rails[1].peer_desc, "MF0;ib-leaf-02:MQM9790/U1");
	assert_int_equal(count_text(&m, "matched by the switch", "4 switches: 0x7cfe900301a0b000 "
				    "\"MF0;ib-leaf-01:MQM9790/U1\", 0x7cfe900301a0b001", NULL), 1);
	assert_int_equal(count_text(&m, "gpu02", "mlx5_2 on rail 1 (switch 0x7cfe900301a0b001 "
				    "\"MF0;ib-leaf-02:MQM9790/U1\", mlx5_1 on the other nodes)",
				    "swapped", NULL), 1);
	fc_rail_map_release(&m);

	/* the same ports without their switches: by name, the swap unseen, said once */
	match_file("ib-one-subnet.json", NULL, &r, &m);
	assert_false(m.by_switch);
	assert_int_equal(count_text(&m, "the switch 8 InfiniBand ports reach is not known",
				    "smpquery", NULL), 1);
	fc_rail_map_release(&m);
}


static void test_only(void **state)
{
	const char *only[] = { "rxe1" }, *num[] = { "0" }, *bad[] = { "mlx5_0" };
	struct fc_rail_opts o = { .only = only, .nonly = 1 };
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-4x2-swap.json", &o, &r, &m);
	assert_int_equal(m.nrails, 1);
	assert_int_equal(m.rails[0].index, 1);
	assert_string_equal(dev_on(&m, &r, 2, 0), "rxe0"); /* nodeC's rail 1 port */
	fc_rail_map_release(&m);
	o.only = num;
	assert_int_equal(fc_rail_match(r.nodes, r.n, &o, &m), 0);
	assert_int_equal(m.nrails, 1);
	assert_string_equal(m.rails[0].name, "rxe0");
	fc_rail_map_release(&m);
	o.only = bad;
	assert_int_equal(fc_rail_match(r.nodes, r.n, &o, &m), -EINVAL);
	assert_non_null(strstr(m.err, "no rail is named 'mlx5_0'"));
	assert_non_null(strstr(m.err, "1 (rxe1)"));
	fc_rail_map_release(&m);
}

static void test_helpers(void **state)
{
	char buf[64], list[] = "mlx5_0,mlx5_3", empty[] = ",";
	const char *out[4];
	unsigned char gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0x15, 1 };

	(void)state;
	assert_int_equal(fc_rail_subnet_ipv4("10.0.3.7", 24, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "10.0.3.0/24");
	assert_int_equal(fc_rail_subnet_ipv4("172.16.200.9", 12, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "172.16.0.0/12");
	assert_int_equal(fc_rail_subnet_ipv4("10.0.0.1", 33, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(fc_rail_subnet_ipv4("nonsense", 24, buf, sizeof(buf)), -EINVAL);
	fc_rail_subnet_ib(gid, buf, sizeof(buf));
	assert_string_equal(buf, "fe80:0000:0000:0015");
	assert_int_equal(fc_rail_split_list(list, out, 4), 2);
	assert_string_equal(out[1], "mlx5_3");
	assert_int_equal(fc_rail_split_list(empty, out, 4), -EINVAL);
	assert_true(fc_rail_name_cmp("mlx5_2", "mlx5_10") < 0);
	assert_true(fc_rail_name_cmp("mlx5_10", "mlx5_9") > 0);
	assert_int_equal(fc_rail_name_cmp("rxe1", "rxe1"), 0);
	assert_int_equal(fc_rail_ports_from_json(NULL, NULL, 0), -EINVAL);
}

/* The plans of tests/data/rails/gen-plans.py (issue 24). */

/* A /31 per port, no LLDP: every subnet differs, matched by position (4
 * rails, not 0), said to be assumed; gpu02's names out of PCIe order are a
 * note, not a swap. */
static void test_routed_position(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("routed-31.json", NULL, &r, &m);
	/* each rail's gateways in a pool of their own: by the gateway's leaf */
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(dev_on(&m, &r, 1, 0), "mlx5_1"); /* gpu02's first slot */
	assert_string_equal(dev_on(&m, &r, 1, 3), "mlx5_3");
	assert_string_equal(m.rails[1].leaf, "10.2.0.16/29");
	assert_non_null(strstr(m.assumed, "the leaf each port's gateway is on, assumed from the "
					  "gateways' 4 pools (10.1.0.0/29, 10.2.0.16/29, 10.3.0.32/29, "
					  "10.4.0.48/29)"));
	assert_non_null(strstr(m.assumed, "lldpctl"));
	assert_int_equal(count_text(&m, "assumed from position", NULL), 0);
	assert_int_equal(count_text(&m, "gpu02", "not in the PCIe order", NULL), 1);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_NOTE);
	fc_rail_map_release(&m);
}

/* A /31 per port, no lldpd, each leaf's links from its own pool: gpu03's
 * slots 1 and 2 have their gateways in each other's pool, a swap by the
 * gateways' leaves (position alone would pair them with slots 1 and 2). */
static void test_routed_gateway_swap(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("routed-31-gw-swap.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(dev_on(&m, &r, 2, 1), "mlx5_2");
	assert_string_equal(dev_on(&m, &r, 2, 2), "mlx5_1");
	assert_string_equal(dev_on(&m, &r, 0, 1), "mlx5_1");
	assert_int_equal(count_text(&m, "gpu03: mlx5_1 (slot 1) has gateway 10.3.0.36 in slot 2's "
				    "pool 10.3.0.32/29, not in 10.2.0.16/29",
				    "mlx5_2 (slot 2) has gateway 10.2.0.20", "swapped cables?", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	assert_int_equal(count_text(&m, "not in the PCIe order", NULL), 0);
	fc_rail_map_release(&m);
}

/* 200 nodes (more than the 128 a fixed array held): each rail's pool is
 * named by the prefix all of its gateways share (10.R.0.0/23), not the
 * first nodes' (/24). */
static void test_routed_gateway_many(void **state)
{
	enum { N = 200 };
	static struct fc_rail_port ports[N][2];
	static struct fc_rail_node nodes[N];
	static char names[N][16];
	struct fc_rail_map m;

	(void)state;
	for (int i = 0; i < N; i++) {
		for (int r = 0; r < 2; r++) {
			struct fc_rail_port *p = &ports[i][r];

			*p = (struct fc_rail_port){ .port = 1, .active = 1, .link_layer = FC_RAIL_LL_ETH,
						    .rate = 200, .prefix_len = 31, .numa = r };
			snprintf(p->dev, sizeof(p->dev), "mlx5_%d", r);
			snprintf(p->netdev, sizeof(p->netdev), "ens%d", r + 1);
			snprintf(p->subnet, sizeof(p->subnet), "10.%d.%d.%d/31", r + 1, i / 128,
				 2 * (i % 128));
			snprintf(p->gateway, sizeof(p->gateway), "10.%d.%d.%d", r + 1, i / 128,
				 2 * (i % 128));
			snprintf(p->pci, sizeof(p->pci), "0000:%02x:00.0", 0x17 + r);
		}
		snprintf(names[i], sizeof(names[i]), "gpu%03d", i + 1);
		nodes[i] = (struct fc_rail_node){ .name = names[i], .ports = ports[i], .nports = 2 };
	}
	assert_int_equal(fc_rail_match(nodes, N, NULL, &m), 0);
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(m.rails[0].leaf, "10.1.0.0/23");
	assert_string_equal(m.rails[1].leaf, "10.2.0.0/23");
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

/* Every link from one pool: the gateways tell no leaf apart; by position. */
static void test_routed_one_pool(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("routed-31-one-pool.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_POSITION);
	assert_int_equal(m.nrails, 4);
	assert_non_null(strstr(m.assumed, "assumed from position"));
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

/* A /31 per port with lldpd: by the leaf; gpu03's two cables to each
 * other's leaf are a swap that names the node, devices and leaves. */
static void test_routed_lldp_swap(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("routed-31-lldp-swap.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_LLDP);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(m.rails[1].leaf, "leaf2");
	assert_string_equal(dev_on(&m, &r, 2, 1), "mlx5_2");
	assert_int_equal(count_text(&m, "gpu03", "mlx5_2 on rail 1 (leaf leaf2",
				    "mlx5_1 on rail 2 (leaf leaf3", "swapped", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	assert_string_equal(m.assumed, "");
	fc_rail_map_release(&m);
}

/* A /24 per host and rail: no subnet shared, routed; each rail's gateways
 * in a pool of their own (10.R.0.0/22): by the gateway's leaf. */
static void test_per_host_subnets(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("per-host-24.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_string_equal(m.rails[1].leaf, "10.2.0.0/22");
	assert_int_equal(m.nrails, 2);
	for (int i = 0; i < 3; i++)
		assert_string_equal(dev_on(&m, &r, i, 1), "mlx5_1");
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

/* IPv6 addresses only: the /64 of each rail, link-local ones ignored. */
static void test_ipv6_only(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ipv6-only.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_SUBNET);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(m.rails[1].subnet, "fd00:2::/64");
	assert_string_equal(dev_on(&m, &r, 2, 1), "mlx5_1");
	assert_int_equal(m.nfindings, 0);
	fc_rail_map_release(&m);
}

/* One subnet manager, no switch read, PCI addresses known: by position,
 * not by name (gpu03's names out of slot order stay on their slot). */
static void test_ib_one_sm_position(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-one-sm-pci.json", NULL, &r, &m);
	assert_int_equal(m.by, FC_RAIL_BY_POSITION);
	assert_false(m.by_name);
	assert_string_equal(dev_on(&m, &r, 2, 1), "mlx5_2");
	assert_non_null(strstr(m.assumed, "smpquery"));
	fc_rail_map_release(&m);
}

/* A storage NIC at another rate on a shared segment, a management port with
 * the ssh address and a front-end NIC of one node: each left out with its
 * reason in one line; the two rails stay. */
static void test_storage_mgmt(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("roce-storage-mgmt.json", NULL, &r, &m);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(m.rails[1].subnet, "10.2.0.0/24");
	assert_int_equal(count_text(&m, "mlx5_2 left out on 3 nodes", "rate 100 Gb/s", NULL), 1);
	assert_int_equal(count_text(&m, "mlx5_3 left out on 3 nodes", "ssh address", NULL), 1);
	assert_int_equal(count_text(&m, "mlx5_4 of gpu03 left out", "172.16.9.0/24", NULL), 1);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_NOTE);
	fc_rail_map_release(&m);
}

/* Two nodes, nodeB's rxe1 down: nodeA's rxe1 has no peer, but it is a rail
 * gone down, not a storage NIC: a failure, not left out. */
static void test_pair_rail_down(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("roce-4x2-odd.json", &r);
	assert_int_equal(fc_rail_match(r.nodes, 2, NULL, &m), 0);
	assert_int_equal(m.nrails, 1);
	assert_int_equal(count_text(&m, "rxe1 of nodeA", "matches no rail", NULL), 1);
	assert_int_equal(count_text(&m, "left out", NULL), 0);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_FAIL);
	fc_rail_map_release(&m);
}

/* The port of @dev on node @i of @r, with every port's width set to @w. */
static struct fc_rail_port *port_named(struct rec *r, int i, const char *dev, int w)
{
	struct fc_rail_port *hit = NULL;

	for (int a = 0; a < r->n; a++)
		for (int j = 0; j < r->nodes[a].nports; j++) {
			r->ports[a][j].width = w;
			if (a == i && !strcmp(r->ports[a][j].dev, dev))
				hit = &r->ports[a][j];
		}
	assert_non_null(hit);
	return hit;
}

/* A rail port trained below the rails' rate stays on its rail, failed with
 * its rate and the rate expected: on 2 of its 4 lanes (one subnet manager,
 * rails by position: the lanes of the same port on the peers say it), or at
 * a lower lane speed on its rail's own subnet. A storage HCA at a lower
 * rate on its own subnet, even on fewer lanes, is still left out. */
static void test_rate_below_rail(void **state)
{
	struct rec r;
	struct fc_rail_map m;
	struct fc_rail_port *p;

	(void)state;
	load("ib-one-sm-pci.json", &r);
	p = port_named(&r, 1, "mlx5_2", 4);
	p->rate = 200;
	p->width = 2;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 4);
	assert_string_equal(dev_on(&m, &r, 1, 2), "mlx5_2");
	assert_int_equal(count_text(&m, "mlx5_2 of ", "runs at 200 Gb/s on 2 lanes, below the 400 "
				    "Gb/s of the rails", "runs on 2 lanes where", "not a storage", NULL), 1);
	assert_int_equal(count_text(&m, "left out", NULL), 0);
	assert_int_equal(count_text(&m, "no active port", NULL), 0);
	assert_int_equal(fc_rail_worst(&m), FC_RAIL_FAIL);
	fc_rail_map_release(&m);

	load("ib-8rail.json", &r);
	p = port_named(&r, 1, "mlx5_3", 4);
	p->rate = 200;
	port_named(&r, 0, "mlx5_8", 4)->width = 2;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 8);
	assert_string_equal(dev_on(&m, &r, 1, 3), "mlx5_3");
	assert_int_equal(count_text(&m, "mlx5_3 of ", "runs at 200 Gb/s on 4 lanes, below the 400",
				    "is on subnet fe80:0000:0000:0013", NULL), 1);
	assert_int_equal(count_text(&m, "mlx5_8 left out on 4 nodes", "storage or front-end", NULL), 1);
	assert_int_equal(count_text(&m, "mlx5_3", "left out", NULL), 0);
	fc_rail_map_release(&m);
}

static void test_subnet_of(void **state)
{
	const char *v6[] = { "fe80::1/64", "2001:db8:5:7::9/64" }, *both[] = { "fd00::1/64",
									      "10.1.2.3/31" };
	const char *bad[] = { "10.1.2.3", "fe80::1/64" };
	char buf[64];

	(void)state;
	assert_int_equal(fc_rail_subnet_of(v6, 2, buf, sizeof(buf)), 64);
	assert_string_equal(buf, "2001:db8:5:7::/64");
	assert_int_equal(fc_rail_subnet_of(both, 2, buf, sizeof(buf)), 31);
	assert_string_equal(buf, "10.1.2.2/31");
	assert_int_equal(fc_rail_subnet_of(bad, 2, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(fc_rail_subnet_ipv6("fd00:1:2:3:4::1", 127, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fd00:1:2:3:4::/127");
}

/* More kinds of left-out port than the notes hold one line each for: 8
 * nodes of 8 rails at 400 Gb/s, each with 5 storage HCAs of its own names
 * at 200 Gb/s (40 kinds, each on one node). Every port is accounted for:
 * the first kinds a line each, the rest in one line that counts them. */
static void test_left_out_beyond_the_list(void **state)
{
	static struct fc_rail_port ports[8][13];
	static char names[8][16];
	struct fc_rail_node nodes[8];
	struct fc_rail_map m;
	int lines = 0, rest = 0;

	(void)state;
	storage_rack(ports, names, nodes);
	assert_int_equal(fc_rail_match(nodes, 8, NULL, &m), 0);
	assert_int_equal(m.nrails, 8);
	for (int k = 0; k < m.nfindings; k++) {
		const char *t = m.findings[k].text;
		int n;

		if (strstr(t, " left out: its rate 200 Gb/s"))
			lines++;
		else if (sscanf(t, "%d more port", &n) == 1 && strstr(t, " left out (the first on "))
			rest += n;
	}
	assert_true(lines > 0 && lines < 40);
	assert_int_equal(lines + rest, 40);
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_healthy),  cmocka_unit_test(test_roce_swap),
		cmocka_unit_test(test_roce_one_subnet), cmocka_unit_test(test_roce_odd_and_down),
		cmocka_unit_test(test_ib_8rail),       cmocka_unit_test(test_ib_one_subnet),
		cmocka_unit_test(test_ib_switches),
		cmocka_unit_test(test_only),	       cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_routed_position),
		cmocka_unit_test(test_routed_gateway_swap),
		cmocka_unit_test(test_routed_gateway_many),
		cmocka_unit_test(test_routed_one_pool), cmocka_unit_test(test_routed_lldp_swap),
		cmocka_unit_test(test_per_host_subnets), cmocka_unit_test(test_ipv6_only),
		cmocka_unit_test(test_ib_one_sm_position), cmocka_unit_test(test_storage_mgmt),
		cmocka_unit_test(test_subnet_of), cmocka_unit_test(test_rate_below_rail),
		cmocka_unit_test(test_pair_rail_down),
		cmocka_unit_test(test_left_out_beyond_the_list),
		cmocka_unit_test(test_no_port_to_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
