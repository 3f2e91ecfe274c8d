/* Rail matching as fabrics are built (issue 37 item 3), on recorded port
 * lists of each plan (tests/data/rails/, written by gen-plans.py): scalable
 * units, top-of-rack wiring, two rails a leaf, a DOWN port, shifted names,
 * ECMP default routes and swapped cables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "tests/unit/finding.h"
#include "tests/unit/rail_rec.h"

/* Each node's device on each rail is the one named @want(node, rail). */
static void expect_devs(const struct fc_rail_map *m, const struct rec *r, int nrails,
			int (*want)(int node, int rail))
{
	char dev[16];

	show(m);
	assert_int_equal(m->nrails, nrails);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < nrails; k++) {
			snprintf(dev, sizeof(dev), "mlx5_%d", want(i, k));
			assert_string_equal(dev_on(m, r, i, k), dev);
		}
}

static int same(int node, int rail)
{
	(void)node;
	return rail;
}

/* Two scalable units on one IB subnet, every switch read: 8 switches for 4
 * ports a node; each rail spans a leaf of each unit, by switch. */
static void test_ib_switches_2su(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-switches-2su.json", NULL, &r, &m);
	expect_devs(&m, &r, 4, same);
	assert_true(m.by_switch);
	assert_int_equal(m.rails[1].nleaves, 2);
	assert_string_equal(m.rails[1].leaves, "0x7cfe900301a0b001, 0x7cfe900302a0b001");
	assert_int_equal(count_text(&m, "2 scalable units", "in the order of the ports", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_WARN), 0);
	fc_rail_map_release(&m);
}

/* Two scalable units by LLDP (16 leaves for 8 rails): 8 rails, each on a
 * leaf of each unit, joined by the leaves' names; nothing fails. */
static void test_lldp_2su(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("lldp-2su.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, same);
	assert_int_equal(m.by, FC_RAIL_BY_LLDP);
	assert_string_equal(m.rails[2].leaves, "su1-leaf-r3, su2-leaf-r3");
	assert_int_equal(count_text(&m, "2 scalable units", "by the leaves' names", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_WARN), 0);
	fc_rail_map_release(&m);
}

static int su2_shift(int node, int rail)
{
	return rail + (node >= 2 ? 2 : 0);
}

/* Two units on one IB subnet by node description; the second unit's
 * servers name their HCAs mlx5_2..9: each port on its leaf's rail, no
 * swap, no failure; their Ethernet ports left out by link layer. */
static void test_ib_2su_desc(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-2su-desc.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, su2_shift);
	assert_int_equal(m.by, FC_RAIL_BY_SWITCH);
	assert_string_equal(m.rails[7].leaves, "MF0;su1-ib-leaf-r8:MQM9790/U1, "
			    "MF0;su2-ib-leaf-r8:MQM9790/U1");
	assert_string_equal(m.rails[7].name, "mlx5_7");
	assert_int_equal(count_text(&m, "2 scalable units", "by the leaves' names", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_WARN), 0);
	fc_rail_map_release(&m);
}

/* Every port of a node on its rack's switch: one finding (a warning, not a
 * note) that says the rack is not rail-optimized; all eight ports tested,
 * nothing fails. */
static void test_tor(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("tor-2rack.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, same);
	assert_int_equal(count_text(&m, "not rail-optimized", "rack1-tor, rack2-tor",
				    "8 ports a node", "each port is tested through that switch", NULL), 1);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_WARN), 1);
	fc_rail_map_release(&m);
}

/* The same rack through preflight's rails: one finding of the whole
 * document says it, a warning; eight rails, no failure. */
static void test_tor_preflight(void **state)
{
	json_t *rec = rec_doc("tests/data/rails/tor-2rack.json"), *nd;
	json_t *doc = json_object(), *probes[MAXN];
	const char *names[MAXN];
	size_t i;
	int n = 0;

	(void)state;
	json_object_set_new(doc, "findings", json_array());
	json_array_foreach(json_object_get(rec, "nodes"), i, nd) {
		names[n] = json_string_value(json_object_get(nd, "name"));
		probes[n++] = json_pack("{s:O}", "devices", json_object_get(nd, "devices"));
	}
	assert_int_equal(pf_check_rails(doc, names, (const json_t *const *)probes, n, NULL, NULL), 8);
	assert_int_equal(findings_with(doc, "not rail-optimized"), 1);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 1);
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "warn");
	for (int k = 0; k < n; k++)
		json_decref(probes[k]);
	json_decref(doc);
	json_decref(rec);
}

/* Four leaves, two rails each: eight rails in position order. */
static void test_two_rails_a_leaf(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("two-rails-leaf.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, same);
	assert_string_equal(m.rails[3].leaf, "leaf2");
	assert_int_equal(count_text(&m, "leaf leaf2 carries 2 rails", NULL), 1);
	assert_int_equal(count_text(&m, "not rail-optimized", NULL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

static int down_1(int node, int rail)
{
	return node == 1 && rail == 1 ? -1 : rail;
}

/* A port DOWN on a routed plan (rails by the gateways' pools): the node's
 * other ports stay on their rails; one failure, on the right rail and
 * device, and no swap. */
static void test_routed_down(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("routed-down.json", NULL, &r, &m);
	show(&m);
	assert_int_equal(m.nrails, 8);
	for (int i = 0; i < r.n; i++)
		for (int k = 0; k < 8; k++) {
			char dev[16];

			snprintf(dev, sizeof(dev), "mlx5_%d", down_1(i, k));
			assert_string_equal(dev_on(&m, &r, i, k), down_1(i, k) < 0 ? "-" : dev);
		}
	assert_int_equal(count_text(&m, "dgx-su1-02 has no active port on rail 1",
				    "mlx5_1 port 1 is not active", NULL), 1);
	assert_int_equal(count_text(&m, "swapped", NULL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	fc_rail_map_release(&m);
}

static int node1_shift(int node, int rail)
{
	return rail + (node == 1 ? 2 : 0);
}

/* A server of another model names its HCAs mlx5_2..9: not a swap. */
static void test_shifted_names(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ib-shifted-names.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, node1_shift);
	assert_true(m.by_switch);
	assert_int_equal(count_text(&m, "swapped", NULL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

/* An ECMP default route over the rails flags each node's first rail port:
 * still a rail; the ssh port is the management port. */
static void test_ecmp_default(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("ecmp-default.json", NULL, &r, &m);
	expect_devs(&m, &r, 8, same);
	assert_int_equal(count_text(&m, "mlx5_8 left out on 3 nodes", "ssh address", NULL), 1);
	assert_int_equal(count_text(&m, "mlx5_0", "left out", NULL), 0);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	fc_rail_map_release(&m);
}

/* The virtual rack's `lab fault nodeD miswire` as `pair nodeA nodeD` sees
 * it (tests/rack/phase_rails.sh): nodeD's rxe0 is bound to its rail 1 NIC
 * and rxe1 to its rail 0 NIC. Each NIC, in its PCI slot, still reaches its
 * own rail: the names moved, not the cables. Each rail is matched with
 * nodeD's own device on it, and no swap is named (names do not count). */
static void test_rack_miswire_pair(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("rack-miswire-pair.json", NULL, &r, &m);
	show(&m);
	assert_int_equal(m.by, FC_RAIL_BY_SUBNET);
	assert_int_equal(m.nrails, 2);
	assert_string_equal(m.rails[0].subnet, "10.77.1.0/24");
	assert_string_equal(dev_on(&m, &r, 1, 0), "rxe1");
	assert_string_equal(dev_on(&m, &r, 1, 1), "rxe0");
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 0);
	for (int i = 0; i < m.nfindings; i++)
		assert_null(strstr(m.findings[i].text, "swapped"));
	fc_rail_map_release(&m);
}

/* Two scalable units by LLDP, dgx-su2-02's mlx5_3 and mlx5_6 cabled to each
 * other's leaf: each port on the rail of the leaf it reaches, and that node
 * (alone) named with both devices and rails. */
static void test_lldp_2su_swap(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	match_file("lldp-2su-swap.json", NULL, &r, &m);
	show(&m);
	assert_int_equal(m.by, FC_RAIL_BY_LLDP);
	assert_int_equal(m.nrails, 8);
	assert_string_equal(dev_on(&m, &r, 3, 3), "mlx5_6");
	assert_string_equal(dev_on(&m, &r, 3, 6), "mlx5_3");
	assert_string_equal(dev_on(&m, &r, 1, 3), "mlx5_3");
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	assert_int_equal(count_text(&m, "dgx-su2-02", "mlx5_6 on rail 3", "mlx5_3 on rail 6",
				    "swapped", NULL),
			 1);
	assert_int_equal(count_text(&m, "may be", NULL), 0);
	fc_rail_map_release(&m);
}

/* The same swap by LLDP seen by a pair alone (gpu01 and gpu03, as `pair`
 * matches them): each port on its leaf's rail, gpu03 named, the doubt said. */
static void test_lldp_swap_pair(void **state)
{
	struct rec r;
	struct fc_rail_map m;

	(void)state;
	load("routed-31-lldp-swap.json", &r);
	r.nodes[1] = r.nodes[2];
	assert_int_equal(fc_rail_match(r.nodes, 2, NULL, &m), 0);
	show(&m);
	assert_int_equal(m.by, FC_RAIL_BY_LLDP);
	assert_int_equal(m.nrails, 4);
	assert_int_equal(count_sev(&m, FC_RAIL_FAIL), 1);
	assert_int_equal(count_text(&m, "ports of gpu03", "mlx5_2 on rail 1 (leaf leaf2",
				    "mlx5_1 on rail 2 (leaf leaf3", "may be gpu01's", NULL),
			 1);
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_switches_2su),
		cmocka_unit_test(test_lldp_2su),
		cmocka_unit_test(test_ib_2su_desc),
		cmocka_unit_test(test_tor),
		cmocka_unit_test(test_tor_preflight),
		cmocka_unit_test(test_two_rails_a_leaf),
		cmocka_unit_test(test_routed_down),
		cmocka_unit_test(test_shifted_names),
		cmocka_unit_test(test_ecmp_default),
		cmocka_unit_test(test_rack_miswire_pair),
		cmocka_unit_test(test_lldp_2su_swap),
		cmocka_unit_test(test_lldp_swap_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
