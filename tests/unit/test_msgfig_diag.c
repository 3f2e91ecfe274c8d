/* diagnose's messages with figures fed known figures (issue 39 item 5;
 * scripts/msg_catalogue.py lists them): the recorded evidence folders of
 * tests/data/diag/ and snapshots built here, each entry's evidence and next
 * step checked whole, the figures in their places. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/readfile.h"
#include "diag/diag.h"
#include "diag_util.h"

static void is(const json_t *e, const char *key, const char *want)
{
	if (strcmp(str(e, key), want))
		fail_msg("%s:\n  is   %s\n  want %s", key, str(e, key), want);
}

static void holds(const json_t *e, const char *key, const char *want)
{
	if (!strstr(str(e, key), want))
		fail_msg("%s:\n  is   %s\n  lacks %s", key, str(e, key), want);
}

/* 200 Gb/s on 2 of its module's 4 lanes, lane 3's transmitter faulted:
 * the reduced link's 200 against the 400 it should carry; the next step
 * names the lane and the rate to train to. */
static void test_tx_fault_reduced(void **state)
{
	json_t *doc = diagnose("cmis-tx-fault-2of4");
	const json_t *d = first(doc);

	(void)state;
	holds(d, "evidence", "; the test ran on the reduced link: its figures are judged against 200 Gb/s, not the 400 Gb/s the port should carry");
	is(d, "next", "replace the transceiver of nodeA mlx5_0 (ethtool -m eth2: Tx fault on lane 3) with a known-good one; the port should train to 400 Gb/s on 4 lanes (sysfs rate; 'ethtool eth2' Speed and Lanes); then re-run 'fabcheck pair nodeA nodeB -d mlx5_0'");
	json_decref(doc);
}

/* A 56G port that advertises no mode above 40G: 40 against 56, and the
 * speed in Mb/s (56000) ethtool -s takes. */
static void test_advertised_modes(void **state)
{
	json_t *doc = diagnose("ethtool-link-adv-40of56");
	const json_t *d = first(doc);

	(void)state;
	holds(d, "evidence", "; the test ran on the reduced link: its figures are judged against 40 Gb/s, not the 56 Gb/s the port should carry");
	is(d, "next", "advertise the modes the HCA supports ('ethtool -s eth2 autoneg on', or 'ethtool -s eth2 speed 56000 autoneg on'), check the switch port allows 56 Gb/s on 4 lanes, and confirm 'ethtool eth2' Speed; then re-run 'fabcheck pair nodeA nodeB -d mlx4_0'");
	json_decref(doc);
}

/* The switch port counts errors on what nodeA mlx5_1 sends, whose module
 * reports lane 2's transmitter faulted. */
static void test_far_tx_fault(void **state)
{
	json_t *doc = diagnose("ib-far-tx-fault");
	const json_t *d = first(doc);

	(void)state;
	is(d, "evidence", "the switch port at the other end of the cable counts errors on what this port sends (symbol_error +4078, port_rcv_errors +366, link_error_recovery +1, perfquery); 3.7e-10 errors per bit over 60 s, bits from the port rate (limit 1e-12), and this port's module reports its lane 2 transmitter faulted (Tx fault) (ethtool -m): the fault is at the end that transmits");
	is(d, "next", "replace the transceiver of nodeA mlx5_1 (mlxlink -d mlx5_1 -m, lane 2) with a known-good one and re-run 'fabcheck pair nodeA PEER -d mlx5_1:1': the switch port's errors (perfquery) should stop");
	json_decref(doc);
}

/* nodeF's dual-port card with errors on both ports. */
static void test_hca_all_ports(void **state)
{
	json_t *doc = diagnose("hca-all-ports");

	(void)state;
	is(first(doc), "evidence", "physical errors or flaps on all 2 ports of the card in the same window, each with its own cable");
	json_decref(doc);
}

/* A three-port card (functions .0 to .2) whose ports failed all 4 tests
 * they ran in (its first port in two); the other ends single-port cards. */
static json_t *card_set(const char *dev_a, const char *bdf_a, const char *node_b,
			const char *dev_b, const char *bdf_b)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:i, s:[{s:s, s:s}]}, {s:s, s:s, s:i, s:[{s:s, s:s}]}]}",
			 "verdict", "fail", "evidence", "node", "nodeF", "device", dev_a, "port", 1,
			 "pcie", "role", "hca", "bdf", bdf_a, "node", node_b, "device", dev_b, "port",
			 1, "pcie", "role", "hca", "bdf", bdf_b);
}

static void test_card_tests(void **state)
{
	json_t *sets = json_pack("[o, o, o, o]",
				 card_set("mlx5_0", "0000:17:00.0", "nodeB", "mlx5_0", "0000:31:00.0"),
				 card_set("mlx5_1", "0000:17:00.1", "nodeB", "mlx5_1", "0000:32:00.0"),
				 card_set("mlx5_2", "0000:17:00.2", "nodeB", "mlx5_2", "0000:33:00.0"),
				 card_set("mlx5_0", "0000:17:00.0", "nodeC", "mlx5_0", "0000:41:00.0"));
	json_t *doc = json_pack("{s:[]}", "diagnosis");

	(void)state;
	diag_cards(doc, sets);
	json_decref(sets);
	assert_int_equal(ndiag(doc), 1);
	is(entry(doc, 0), "subject", "nodeF HCA PCIe 0000:17:00");
	is(entry(doc, 0), "evidence", "every test of each of its 3 ports failed (4 of 4 tests: mlx5_0 port 1, mlx5_1 port 1, mlx5_2 port 1): the card is what they share");
	json_decref(doc);
}

/* A CX-3's link at 40 Gb/s where it supports 56 (tests/real/ethtool_link),
 * the partner made to advertise 40 only: the partner limits it. A 40G module (BR,
 * Nominal 10300 MBd x 4 lanes) on ports of 100G: at 40 the module limits
 * it; at 10 the port is below what the module is built for. */
#define CX3 "tests/real/ethtool_link/idx57556095253_cx3-56g_lp-40-56_adv-40.txt"
#define SR4_40G "tests/real/ethtool_m/noc-cumulus_swp13_finisar-qsfp-sr4_dark-lanes-inf-dbm.txt"

static void test_link_limits(void **state)
{
	size_t len;
	char *text = fc_read_regular("capture", CX3, 1 << 16, 0, &len), note[400];
	struct diag_link l, l100 = { .known = 1, .sup_mbps = 100000, .sup_lanes = 4,
				     .adv_mbps = 100000, .adv_lanes = 4, .lp_mbps = 100000,
				     .lp_lanes = 4 };
	struct diag_module m;
	struct diag_expect e;

	(void)state;
	assert_non_null(text);
	assert_int_equal(diag_parse_link(text, &l), 0);
	free(text);
	l.lp_mbps = 40000;
	diag_link_note(&l, NULL, 40, note, sizeof(note));
	assert_string_equal(note, "the link runs at 40 Gb/s, the most its link partner advertises, where the HCA supports 56 Gb/s on 4 lanes: the partner (switch port or its setting) limits it");
	text = fc_read_regular("capture", SR4_40G, 1 << 16, 0, &len);
	assert_non_null(text);
	assert_int_equal(diag_parse_module(text, &m), 0);
	free(text);
	diag_link_note(&l100, &m, 40, note, sizeof(note));
	assert_string_equal(note, "the link runs at 40 Gb/s, what its module is built for (ethtool -m BR, Nominal x 4 lanes), where the HCA supports 100 Gb/s on 4 lanes: the module limits it");
	memset(&e, 0, sizeof(e));
	diag_expect_link(10, &l100, &m, &e);
	if (!strstr(e.why, ", and its module is built for 40 Gb/s (ethtool -m BR, Nominal x 4 lanes)"))
		fail_msg("why: %s", e.why);
}

/* A module whose active application uses 4 host lanes, its port at 100
 * Gb/s on 1: it should run at 400 on 4, surely. */
static void test_app_lanes(void **state)
{
	struct diag_module m;
	struct diag_expect e;

	(void)state;
	assert_int_equal(diag_parse_module("\tModule temperature : 40.00 degrees C / 104.00 degrees F\n", &m), 0);
	m.app_lanes = 0xf;
	diag_expect_rate(100, 1, &m, NULL, 0, &e);
	assert_true(e.gbps == 400 && e.width == 4 && e.likely);
	assert_string_equal(e.why, "its module's active application uses 4 host lanes");
}

/* A module at 74.5 C with no thresholds of its own: the commercial case
 * limit, 70.0 C, stands for the alarm. */
static void test_module_hot(void **state)
{
	struct diag_module m;
	char why[512];

	(void)state;
	assert_int_equal(diag_parse_module("\tModule temperature : 74.50 degrees C / 166.10 degrees F\n", &m), 0);
	assert_int_equal(diag_module_verdict(&m, why, sizeof(why)), 1);
	assert_string_equal(why, "module at 74.5 C, at or above the commercial limit 70.0 C");
}

/* symbol_error at its 16-bit maximum after the test. */
static void test_counter_max(void **state)
{
	const char *b[] = { "time", "100", "counters/symbol_error", "65000", NULL };
	const char *a[] = { "time", "160", "counters/symbol_error", "65535", NULL };
	json_t *doc = run_port(b, a);

	(void)state;
	assert_true(has_note(doc, 0, "symbol_error is at its maximum (65535) and no longer counts: clear it (perfquery -R) and re-run"));
	json_decref(doc);
}

/* DCQCN at work on a 200G port, nothing lost: 31400 packets ECN-marked,
 * 70000 CNPs sent and 123000 handled in the 60 s window, each its own
 * delta (before and after differ in each). */
static void test_congestion_counts(void **state)
{
	const char *b[] = { "time", "100", "rate", "200 Gb/sec (4X HDR)", "link_layer", "Ethernet",
			    "netdev", "eth3", "hw_counters/np_cnp_sent", "500",
			    "hw_counters/rp_cnp_handled", "900",
			    "hw_counters/np_ecn_marked_roce_packets", "7", NULL };
	const char *a[] = { "time", "160", "rate", "200 Gb/sec (4X HDR)", "link_layer", "Ethernet",
			    "netdev", "eth3", "hw_counters/np_cnp_sent", "70500",
			    "hw_counters/rp_cnp_handled", "123900",
			    "hw_counters/np_ecn_marked_roce_packets", "31407", NULL };
	struct side sd[] = { { "nodeA", "mlx5_2", b, a }, { "nodeB", "mlx5_2", b, b } };
	json_t *doc = run_sides(NULL, sd, 2);

	(void)state;
	holds(first(doc), "evidence", "ECN-marked packets +31400, CNPs sent +70000 and handled +123000; no drop, retry or physical error");
	json_decref(doc);
}

/* Two ends set apart (the catalogue sees no words around these figures,
 * "%s %d B" and "0x%02x", so each is checked here whole): nodeA's netdev
 * MTU 9000 B against nodeB's 1500 B beside the active MTUs 4096 and 1024;
 * PFC on priority 3 (0x08) at nodeA, none at nodeB. */
static void test_config_ends(void **state)
{
	json_t *doc = diagnose("rack-mtu");

	(void)state;
	is(by_rule(doc, "config"), "evidence", "active MTU in bytes: nodeA 4096, nodeB 1024 (netdev MTU: nodeA eth0 9000 B, nodeB eth0 1500 B)");
	json_decref(doc);
	doc = diagnose("qos-mismatch");
	is(by_rule(doc, "config"), "evidence", "trust mode: nodeA dscp, nodeB pcp; PFC on priorities (bit per priority): nodeA 0x08, nodeB 0x00");
	json_decref(doc);
}

/* The re-run a physical-layer suspect names: with the test's peer, its
 * device and port and the peer's device ("-d mlx5_3:2,mlx5_1"); with no
 * test, PEER. */
static void test_rerun_with_peer(void **state)
{
	const char *b[] = { "time", "100", "rate", "100 Gb/sec (4X EDR)", "counters/symbol_error", "0", NULL };
	const char *a[] = { "time", "160", "rate", "100 Gb/sec (4X EDR)", "counters/symbol_error", "9000", NULL };
	json_t *test = json_pack("{s:s, s:{s:s, s:s, s:i}, s:{s:s, s:s, s:i}, s:[]}", "verdict", "warn",
				 "a", "node", "nodeA", "device", "mlx5_3", "port", 2, "b", "node",
				 "nodeB", "device", "mlx5_1", "port", 1, "results");
	struct diag_set s = { 0 };
	json_t *sa = snap(a), *sb = snap(b), *doc;

	(void)state;
	s.test = test;
	diag_set_add(&s, "nodeA", "mlx5_3", 2, sb, sa);
	diag_set_add(&s, "nodeB", "mlx5_1", 1, sb, sb);
	json_decref(sa);
	json_decref(sb);
	doc = run_set(&s);
	holds(by_rule(doc, "phys_errors"), "next", "re-run 'fabcheck pair nodeA nodeB -d mlx5_3:2,mlx5_1'");
	json_decref(doc);
	doc = run_port(b, a);
	holds(by_rule(doc, "phys_errors"), "next", "re-run 'fabcheck pair nodeA PEER -d mlx5_0:1'");
	json_decref(doc);
}

/* One lane (an SFP module; a 1X link): a 10G SFP+ module (BR, Nominal
 * 10300 MBd, one lane) in a port of 25 Gb/s on 1 lane, and a 25 Gb/s link
 * of 1 lane with symbol errors. Each said "1 lanes". */
static void test_one_lane(void **state)
{
	struct diag_module m;
	struct diag_link l = { .known = 1, .sup_mbps = 25000, .sup_lanes = 1, .adv_mbps = 25000,
			       .adv_lanes = 1, .lp_mbps = 25000, .lp_lanes = 1 };
	struct diag_expect e;
	char note[400];
	const char *b[] = { "time", "100", "rate", "25 Gb/sec (1X EDR)", "counters/symbol_error", "0", NULL };
	const char *a[] = { "time", "160", "rate", "25 Gb/sec (1X EDR)", "counters/symbol_error", "50", NULL };
	json_t *doc;

	(void)state;
	assert_int_equal(diag_parse_module("\tBR, Nominal                               : 10300MBd\n"
					   "\tLaser output power                        : 0.5000 mW / -3.01 dBm\n"
					   "\tReceiver signal average optical power     : 0.4000 mW / -3.98 dBm\n",
					   &m), 0);
	diag_link_note(&l, &m, 10, note, sizeof(note));
	assert_string_equal(note, "the link runs at 10 Gb/s, what its module is built for (ethtool -m BR, Nominal x 1 lane), where the HCA supports 25 Gb/s on 1 lane: the module limits it");
	memset(&e, 0, sizeof(e));
	diag_expect_link(1, &l, &m, &e);
	if (!strstr(e.why, ", and its module is built for 10 Gb/s (ethtool -m BR, Nominal x 1 lane)"))
		fail_msg("why: %s", e.why);
	doc = run_port(b, a);
	assert_true(has_note(doc, 0, "bits in the window estimated as the port rate (25 Gb/s, 1 lane x 25 Gb/s) x 60.0 s"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_fault_reduced), cmocka_unit_test(test_advertised_modes),
		cmocka_unit_test(test_far_tx_fault),	 cmocka_unit_test(test_hca_all_ports),
		cmocka_unit_test(test_card_tests),	 cmocka_unit_test(test_link_limits),
		cmocka_unit_test(test_app_lanes),	 cmocka_unit_test(test_module_hot),
		cmocka_unit_test(test_counter_max),	 cmocka_unit_test(test_congestion_counts),
		cmocka_unit_test(test_config_ends),	 cmocka_unit_test(test_rerun_with_peer),
		cmocka_unit_test(test_one_lane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
