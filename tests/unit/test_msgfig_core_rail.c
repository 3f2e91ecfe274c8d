/* Rail matching's messages with figures fed known figures (issue 39 item
 * 5; scripts/msg_catalogue.py lists them): the recorded port lists of
 * tests/data/rails/ changed so that each figure of a finding differs from
 * the others (a count of leaves, of rails, of ports, of units), and each
 * finding checked whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/rail_rec.h"

/* The finding whose text is exactly @want (its count). */
static int exactly(const struct fc_rail_map *m, const char *want)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++)
		c += !strcmp(m->findings[i].text, want);
	return c;
}

static void must_have(const struct fc_rail_map *m, const char *want)
{
	if (exactly(m, want) != 1) {
		show(m);
		fail_msg("no finding '%s'", want);
	}
}

/* Every port of a node on its rack's switch, 7 ports a node (the eighth
 * taken out): the warning counts 7, names both switches, and the LLDP note
 * counts the 2 leaves. */
static void test_tor_seven(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("tor-2rack.json", &r);
	for (int i = 0; i < r.n; i++)
		r.nodes[i].nports = 7;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 7);
	must_have(&m, "not rail-optimized: every port of a node reaches one switch (rack1-tor, rack2-tor; 7 ports a node): the rails are the ports in PCIe order, all through the node's switch, and traffic between rails never leaves it, so each port is tested through that switch; a rail-optimized fabric cables each of a node's NICs to the leaf of its own rail");
	must_have(&m, "rails matched by the LLDP neighbour each port reaches (2 leaf switches)");
	fc_rail_map_release(&m);
}

/* Four leaves of two rails each, leaf4's ports recabled to leaf3: leaf3
 * carries 4 rails, leaf1 and leaf2 2 each; 3 leaves in all. */
static void test_leaf_rails(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("two-rails-leaf.json", &r);
	for (int i = 0; i < r.n; i++)
		for (int j = 6; j < 8; j++) {
			assert_string_equal(r.ports[i][j].lldp, "leaf4");
			snprintf(r.ports[i][j].lldp, sizeof(r.ports[i][j].lldp), "leaf3");
		}
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 8);
	must_have(&m, "leaf leaf3 carries 4 rails: a node's ports on it are told apart by their position on the node (NUMA node, PCI address)");
	must_have(&m, "leaf leaf1 carries 2 rails: a node's ports on it are told apart by their position on the node (NUMA node, PCI address)");
	assert_int_equal(count_text(&m, " carries ", NULL), 3);
	must_have(&m, "rails matched by the LLDP neighbour each port reaches (3 leaf switches)");
	fc_rail_map_release(&m);
}

/* Two scalable units of 8 leaves (lldp-2su.json) and a third of two nodes
 * with 5 ports each, on leaves su3-leaf-r1..r5: 3 units, 21 leaves; the
 * third unit has 5 rails of 8, and its nodes no port on rails 5 to 7 (each
 * rail spanning the leaves of the two other units). */
static void test_three_units(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("lldp-2su.json", &r);
	assert_int_equal(r.n, 4);
	for (int i = 4; i < 6; i++) {
		memcpy(r.ports[i], r.ports[i - 2], sizeof(r.ports[i]));
		for (int j = 0; j < 5; j++) {
			struct fc_rail_port *p = &r.ports[i][j];

			snprintf(p->lldp, sizeof(p->lldp), "su3-leaf-r%d", j + 1);
			snprintf(p->subnet, sizeof(p->subnet), "100.64.%d.%d/31", j, 2 * i);
			snprintf(p->gateway, sizeof(p->gateway), "100.64.%d.%d", j, 2 * i);
		}
		snprintf(r.names[i], sizeof(r.names[i]), "dgx-su3-0%d", i - 3);
		r.nodes[i] = (struct fc_rail_node){ .name = r.names[i], .ports = r.ports[i],
						    .nports = 5 };
	}
	r.n = 6;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 8);
	must_have(&m, "rails matched by the LLDP neighbour each port reaches (21 leaf switches)");
	must_have(&m, "3 scalable units (groups of leaves no node reaches across): rail K of each joined by the leaves' names with the unit's number left out");
	must_have(&m, "the scalable unit of leaf su3-leaf-r1 has 5 rails, another has 8: its nodes have no port on the others");
	must_have(&m, "dgx-su3-01 has no active port on rail 6 (leaves su1-leaf-r7, su2-leaf-r7; mlx5_6 on the other nodes): a port down or a cable out?");
	fc_rail_map_release(&m);
	/* the third unit's nodes with one port each: "1 rail" (it said "1
	 * rails") */
	r.nodes[4].nports = r.nodes[5].nports = 1;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	must_have(&m, "the scalable unit of leaf su3-leaf-r1 has 1 rail, another has 8: its nodes have no port on the others");
	fc_rail_map_release(&m);
}

/* Two nodes of 34 ports: 34 rails, the first 32 tested; once on shared
 * subnets, once on a leaf a port (LLDP, a /31 each). */
static void many_ports(struct fc_rail_port ports[2][34], int lldp)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 34; j++) {
			struct fc_rail_port *p = &ports[i][j];

			memset(p, 0, sizeof(*p));
			snprintf(p->dev, sizeof(p->dev), "mlx5_%d", j);
			p->port = 1;
			p->active = 1;
			p->link_layer = FC_RAIL_LL_ETH;
			p->rate = 400;
			p->numa = j / 17;
			p->prefix_len = lldp ? 31 : 24;
			snprintf(p->pci, sizeof(p->pci), "0000:%02x:00.0", j + 1);
			snprintf(p->netdev, sizeof(p->netdev), "ens%dnp0", j);
			if (lldp) {
				snprintf(p->subnet, sizeof(p->subnet), "100.64.%d.%d/31", j, 2 * i);
				snprintf(p->lldp, sizeof(p->lldp), "leaf%d", j + 1);
			} else {
				snprintf(p->subnet, sizeof(p->subnet), "10.%d.0.0/24", j);
			}
		}
}

static void test_many_rails(void **state)
{
	static struct fc_rail_port ports[2][34];
	struct fc_rail_node nodes[2];
	struct fc_rail_map m;

	(void)state;
	for (int lldp = 0; lldp < 2; lldp++) {
		many_ports(ports, lldp);
		for (int i = 0; i < 2; i++)
			nodes[i] = (struct fc_rail_node){ .name = i ? "gpu02" : "gpu01",
							  .ports = ports[i], .nports = 34 };
		assert_int_equal(fc_rail_match(nodes, 2, NULL, &m), 0);
		assert_int_equal(m.by, lldp ? FC_RAIL_BY_LLDP : FC_RAIL_BY_SUBNET);
		assert_int_equal(m.nrails, 32);
		must_have(&m, "34 rails found, only the first 32 are tested");
		if (lldp)
			must_have(&m, "rails matched by the LLDP neighbour each port reaches (more than 32 leaf switches)");
		fc_rail_map_release(&m);
	}
}

/* Rails by position (one subnet manager, switches not read): gpu02's
 * mlx5_3 on NUMA node 0 where the others have it on 1, so it sorts to
 * position 2, where the other nodes have NUMA node 1. */
static void test_numa_odd(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("ib-one-sm-pci.json", &r);
	assert_string_equal(r.ports[1][3].dev, "mlx5_3");
	assert_int_equal(r.ports[1][3].numa, 1);
	r.ports[1][3].numa = 0;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.by, FC_RAIL_BY_POSITION);
	must_have(&m, "mlx5_3 of gpu02 is at position 2 on NUMA node 0, where the other nodes have NUMA node 1: the rack is not uniform, and rails by position may pair the wrong ports");
	fc_rail_map_release(&m);
}

/* gpu02's mlx5_2 trained on 1 lane of 4 (100 of 400 Gb/s): one lane, and
 * the lanes of gpu01's port of the same name. It said "1 lanes". */
static void test_one_lane(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("ib-one-sm-pci.json", &r);
	for (int i = 0; i < r.n; i++)
		for (int j = 0; j < r.nodes[i].nports; j++)
			r.ports[i][j].width = 4;
	assert_string_equal(r.ports[1][2].dev, "mlx5_2");
	r.ports[1][2].rate = 100;
	r.ports[1][2].width = 1;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	must_have(&m, "mlx5_2 of gpu02 runs at 100 Gb/s on 1 lane, below the 400 Gb/s of the rails: it runs on 1 lane where gpu01's runs on 4, so it stays on its rail as a port trained below its rate, not a storage or front-end NIC: reseat or replace its cable or transceiver (ethtool -m: a lane's Tx fault), check the switch port's speed");
	fc_rail_map_release(&m);
}

/* Routed RoCE without LLDP, 3 ports a node: the gateways' 3 pools. */
static void test_gateway_pools(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("routed-31.json", &r);
	for (int i = 0; i < r.n; i++)
		r.nodes[i].nports = 3;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_int_equal(m.nrails, 3);
	if (!strstr(m.assumed, "routed RoCE: rails matched by the leaf each port's gateway is on, assumed from the gateways' 3 pools (10.1.0.0/29, 10.2.0.16/29, 10.3.0.32/29)"))
		fail_msg("assumed: %s", m.assumed);
	fc_rail_map_release(&m);
}

/* Two units on one IB subnet, every switch read (no node description):
 * 4 ports a node on 8 switches; with one unit's nodes alone, 4. */
static void test_ib_switches(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-switches-2su.json", NULL, &r, &m);
	must_have(&m, "rails matched by the switch each InfiniBand port reaches (8 switches)");
	fc_rail_map_release(&m);
	r.n = 2;
	assert_int_equal(fc_rail_match(r.nodes, r.n, NULL, &m), 0);
	must_have(&m, "rails matched by the switch each InfiniBand port reaches (4 switches)");
	fc_rail_map_release(&m);
}

/* 8 nodes of 8 rail ports and 5 storage ports of their own names each (40
 * kinds left out): 32 named one a line, then the 8 more, the first of them
 * on gpu06 (its third storage port: 6 nodes x 5 + 2 = 32 before it). */
static void test_left_out_rest(void **state)
{
	static struct fc_rail_port ports[8][13];
	static char names[8][16];
	struct fc_rail_node nodes[8];
	struct fc_rail_map m;

	(void)state;
	storage_rack(ports, names, nodes);
	assert_int_equal(fc_rail_match(nodes, 8, NULL, &m), 0);
	assert_int_equal(m.nrails, 8);
	must_have(&m, "8 more ports left out (the first on gpu06) by a rule, beyond the 32 kinds named above one a line; --exclude-dev for the ports that are not the GPU fabric's leaves them out without notes");
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tor_seven),     cmocka_unit_test(test_leaf_rails),
		cmocka_unit_test(test_three_units),   cmocka_unit_test(test_many_rails),
		cmocka_unit_test(test_numa_odd),      cmocka_unit_test(test_one_lane),
		cmocka_unit_test(test_gateway_pools), cmocka_unit_test(test_ib_switches),
		cmocka_unit_test(test_left_out_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
