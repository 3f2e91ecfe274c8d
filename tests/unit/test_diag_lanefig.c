/*
 * Issue 39 item 5: diag/rules.c's lane and cable sentences fed known,
 * distinct figures. A ConnectX RoCE port (mlx5's ethtool -S names, kernel
 * Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst:
 * rx_err_lane_N_phy the corrected bits of lane N, counted from 0;
 * rx_pcs_symbol_err_phy the errors FEC could not correct) on port 2 of
 * mlx5_0, 60 s at 200 Gb/s (rx_bits_phy +1.2e13): lanes 0-3 corrected
 * +120, +300, +180 and +4800 bits (+5400 in all), and 1200 uncorrected
 * symbols (1e-10 per bit, over the 1e-12 limit: the port has errors).
 * Lane 3 counted from 0 is the module's lane 4; 4800 of 5400 is 88.9%.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"
#include "diag_util.h"

static const char *before[] = {
	"time", "1000", "rate", "200 Gb/sec (4X HDR)", "link_layer", "Ethernet", "netdev", "enp61s0np1",
	"ethtool-S.txt",
	"NIC statistics:\n     rx_bits_phy: 1000\n     rx_corrected_bits_phy: 100\n"
	"     rx_pcs_symbol_err_phy: 0\n     rx_err_lane_0_phy: 10\n     rx_err_lane_1_phy: 20\n"
	"     rx_err_lane_2_phy: 30\n     rx_err_lane_3_phy: 40\n",
	NULL
};
static const char *after[] = {
	"time", "1060", "rate", "200 Gb/sec (4X HDR)", "link_layer", "Ethernet", "netdev", "enp61s0np1",
	"ethtool-S.txt",
	"NIC statistics:\n     rx_bits_phy: 12000000001000\n     rx_corrected_bits_phy: 5500\n"
	"     rx_pcs_symbol_err_phy: 1200\n     rx_err_lane_0_phy: 130\n     rx_err_lane_1_phy: 320\n"
	"     rx_err_lane_2_phy: 210\n     rx_err_lane_3_phy: 4840\n",
	NULL
};

/* nodeA mlx5_0 port 2 diagnosed alone; with @test (NULL: none; the set
 * takes it) naming its peer. */
static json_t *port2(json_t *test)
{
	struct diag_set s = { 0 };
	json_t *b = snap(before), *a = snap(after);

	s.test = test;
	diag_set_add(&s, "nodeA", "mlx5_0", 2, b, a);
	json_decref(b);
	json_decref(a);
	return run_set(&s);
}

static const json_t *rule_of(const json_t *doc, const char *rule)
{
	const json_t *e = by_rule(doc, rule);

	if (!e) {
		json_dumpf(doc, stderr, JSON_INDENT(1));
		fail_msg("no diagnosis by rule %s", rule);
	}
	return e;
}

/* The lane that carries most corrected bits, named by the module's lane
 * (from 1) and by its counter (from 0), its bits of the total. */
static void test_lane_share(void **state)
{
	json_t *doc = port2(NULL);
	const json_t *e = rule_of(doc, "module_lane");

	(void)state;
	assert_string_equal(str(e, "subject"), "nodeA mlx5_0 port 2");
	assert_string_equal(str(e, "part"), "transceiver or fibre (lane 4)");
	assert_string_equal(str(e, "confidence"), "likely");
	assert_string_equal(str(e, "evidence"),
			    "lane 4 carries 89% of the corrected bits (rx_err_lane_3_phy +4800 of +5400), on a port with errors");
	assert_string_equal(str(e, "next"),
			    "clean and inspect both ends of the fibre and the module's connector, read 'ethtool -m enp61s0np1' again (lane 4); swap the transceiver with a known-good one and re-run 'fabcheck pair nodeA PEER -d mlx5_0:2'; if the weak lane stays with the fibre, replace the fibre");
	json_decref(doc);
}

/* The cable's next step names the port and, with the pair's peer known,
 * the re-run of that pair on this port and the peer's device. */
static void test_cable_rerun(void **state)
{
	json_t *test = json_pack("{s:s, s:{s:s, s:s, s:i}, s:{s:s, s:s, s:i}}", "verdict", "warn",
				 "a", "node", "nodeA", "device", "mlx5_0", "port", 2, "b", "node",
				 "nodeB", "device", "mlx5_5", "port", 1);
	json_t *doc = port2(test), *alone;

	(void)state;
	assert_string_equal(str(rule_of(doc, "ber"), "next"),
			    "swap the cable (then the transceiver) of nodeA mlx5_0 port 2 with a known-good one and re-run 'fabcheck pair nodeA nodeB -d mlx5_0:2,mlx5_5'; if it follows the port, try the switch port at the other end");
	assert_non_null(strstr(str(rule_of(doc, "module_lane"), "next"),
			       "re-run 'fabcheck pair nodeA nodeB -d mlx5_0:2,mlx5_5'; if the weak lane"));
	alone = port2(NULL);
	assert_string_equal(str(rule_of(alone, "ber"), "next"),
			    "swap the cable (then the transceiver) of nodeA mlx5_0 port 2 with a known-good one and re-run 'fabcheck pair nodeA PEER -d mlx5_0:2'; if it follows the port, try the switch port at the other end");
	json_decref(alone);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lane_share),
		cmocka_unit_test(test_cable_rerun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
