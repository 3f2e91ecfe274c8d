/*
 * One module's lanes against each other and its lane flags
 * (diag/modlanes.c diag_module_lanes, diag_module_signals) on the real
 * Mellanox SR4 capture
 * (tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt:
 * lanes transmit 1.44, 1.20, 1.26, 1.27 dBm, warnings -8.40 and 2.40 dBm;
 * bias 6.750 mA on every lane, warnings 6.000-8.000 mA; receive -0.12,
 * -0.09, 0.55, 0.55 dBm, warnings -10.30 and 2.40 dBm), with one line
 * edited or added per test (said at each). The capture's ethtool prints no
 * lane flag lists; a newer ethtool prints them after "Revision Compliance"
 * (qsfp.c sff8636_show_page_zero, then sff8636_show_signals), and the
 * added lines are in that form.
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

#define SR4 "tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt"
#define TX2 "Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm"
#define BIAS3 "Laser tx bias current (Channel 3)         : 6.750 mA"
#define RX3 "Rcvr signal avg optical power(Channel 3)  : 1.1340 mW / 0.55 dBm"
#define REV "Revision Compliance                       : SFF-8636 Rev 2.5/2.6/2.7\n"

/* The capture with @from replaced by @to (NULL: as captured), judged with
 * the port on @width lanes. */
static void module(const char *from, const char *to, int width, struct diag_module *m)
{
	char *out = capture_edited(SR4, from, to);

	assert_int_equal(diag_parse_module(out, m), 0);
	diag_module_judge(m, width);
	free(out);
}

/* diag_module_lanes of the edited capture: how many, @why and @part. */
static int lanes(const char *from, const char *to, int width, char *why, char *part)
{
	struct diag_module m;

	module(from, to, width, &m);
	return diag_module_lanes(&m, 0, why, 1024, part, 96);
}

/* The capture as captured: its lanes sit within 0.24 dB (transmit), 0 mA
 * (bias) and 0.67 dB (receive) of each other; nothing is apart. Its receive
 * high warning threshold is read (2.40 dBm). */
static void test_captured_quiet(void **state)
{
	char why[1024], part[96];
	struct diag_module m;

	(void)state;
	assert_int_equal(lanes(NULL, NULL, 4, why, part), 0);
	assert_string_equal(why, "");
	module(NULL, NULL, 4, &m);
	assert_true(m.rx_hi_warn_dbm > 2.39 && m.rx_hi_warn_dbm < 2.41);
	assert_int_equal(diag_module_signals(&m, 1, why, 1024, part, 96), 0);
}

/* Lane 2 transmits 0.3981 mW / -4.00 dBm: 5.27 dB from the other lanes'
 * median 1.27 dBm, 4.40 dB left to its low warning -8.40 dBm: named, at
 * this module's lane 2 transmitter. */
static void test_tx_lane_apart(void **state)
{
	char why[1024], part[96];

	(void)state;
	assert_int_equal(lanes(TX2, "Transmit avg optical power (Channel 2)    : 0.3981 mW / -4.00 dBm",
			       4, why, part),
			 1);
	assert_string_equal(part, "transceiver (lane 2 transmitter)");
	assert_string_equal(why, "lane 2 transmit power -4.00 dBm where the module's 3 other lanes in use read 1.26 to 1.44 dBm: 5.27 dB from their median 1.27 dBm, more than the 4.40 dB left to its own low warning threshold -8.40 dBm");
}

/* Lane 2 at 0.6310 mW / -2.00 dBm: 3.27 dB from the others, 6.40 dB left
 * to its warning: not yet half the way, not named. */
static void test_tx_lane_near(void **state)
{
	char why[1024], part[96];

	(void)state;
	assert_int_equal(lanes(TX2, "Transmit avg optical power (Channel 2)    : 0.6310 mW / -2.00 dBm",
			       4, why, part),
			 0);
}

/* Lane 3's bias 7.600 mA: 0.85 mA above the other lanes' 6.750, 0.40 mA
 * left to its high warning 8.000 mA: named at its transmitter. */
static void test_bias_lane_apart(void **state)
{
	char why[1024], part[96];

	(void)state;
	assert_int_equal(lanes(BIAS3, "Laser tx bias current (Channel 3)         : 7.600 mA", 4, why,
			       part),
			 1);
	assert_string_equal(part, "transceiver (lane 3 transmitter)");
	assert_non_null(strstr(why, "lane 3 laser bias 7.60 mA where the module's 3 other lanes in use read 6.75 to 6.75 mA: 0.85 mA from their median 6.75 mA, more than the 0.40 mA left to its own high warning threshold 8.00 mA"));
}

/* Lane 3 receives 0.2000 mW / -6.99 dBm: 6.90 dB from the others' median
 * -0.09 dBm, 3.31 dB left to its low warning -10.30 dBm: the light
 * arriving, named at the far end's transmitter or the fibre. */
static void test_rx_lane_apart(void **state)
{
	char why[1024], part[96];

	(void)state;
	assert_int_equal(lanes(RX3, "Rcvr signal avg optical power(Channel 3)  : 0.2000 mW / -6.99 dBm",
			       4, why, part),
			 1);
	assert_string_equal(part, "far end's transmitter or fibre (lane 3)");
	assert_non_null(strstr(why, "lane 3 receive power -6.99 dBm where the module's 3 other lanes in use read -0.12 to 0.55 dBm"));
}

/* The port on 2 lanes: lane 2 at -4.00 dBm has one sibling in use, which
 * cannot tell which of the two is apart: not named. */
static void test_two_lanes_not_judged(void **state)
{
	char why[1024], part[96];

	(void)state;
	assert_int_equal(lanes(TX2, "Transmit avg optical power (Channel 2)    : 0.3981 mW / -4.00 dBm",
			       2, why, part),
			 0);
}

/* Lane flags named at the end that transmits: Rx loss of signal on lane 2
 * is the far end's; Tx loss of signal on lane 1 this end's host side;
 * Tx loss of lock parsed; a Tx fault on lane 3 this module's transmitter,
 * only when asked for (diagnose names it by the port's rate). */
static void test_signals(void **state)
{
	char why[1024], part[96];
	struct diag_module m;

	(void)state;
	module(REV, REV "\tRx loss of signal                         : [ No, Yes, No, No ]\n", 4, &m);
	assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 1);
	assert_string_equal(part, "far end's transmitter or fibre (lane 2)");
	assert_string_equal(why, "'Rx loss of signal' on lane 2 (no light arrives: the far end's transmitter or the fibre)");
	module(REV, REV "\tTx loss of signal                         : [ Yes, No, No, No ]\n"
			"\tTx loss of lock                           : [ Yes, No, No, No ]\n",
	       4, &m);
	assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 2);
	assert_string_equal(part, "HCA or transceiver host side (lane 1)");
	assert_non_null(strstr(why, "'Tx loss of lock' on lane 1"));
	module(REV, REV "\tTx fault                                  : [ No, No, Yes, No ]\n", 4, &m);
	assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 1);
	assert_string_equal(part, "transceiver (lane 3 transmitter)");
	assert_int_equal(diag_module_signals(&m, 0, why, sizeof(why), part, sizeof(part)), 0);
}

/* Loss of signal on a lane the port does not use (lane 4 of a port on 2
 * lanes): no light is expected there, nothing named. */
static void test_signals_unused_lane(void **state)
{
	char why[1024], part[96];
	struct diag_module m;

	(void)state;
	module(REV, REV "\tRx loss of signal                         : [ No, No, No, Yes ]\n", 2, &m);
	assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 0);
}

/* The real captures of tests/real/ethtool_m as captured (all but the
 * QSFP-DD of test_real_qdd_lane4_bias), each lane with light in use: no
 * lane apart and no lane flag. The lanes of the real
 * CWDM4 lit at 40G spread 0.98 dB in transmit power (-0.36 to 0.62 dBm,
 * warnings -4.00 and 2.50) and 4.1 mA in bias (37.926 to 42.068 mA,
 * warnings 30-50 mA): within their module's window, not apart. A guard:
 * what a spread picked by hand (a percent of the bias, a dB figure) would
 * name on healthy real modules. */
static void test_real_captures_quiet(void **state)
{
	static const char *const real[] = {
		"cwdm4-docs_cx4-cx416a_ens16f1np1_finisar-cwdm4-mlx-oui_40g-lit",
		"cwdm4-docs_cx4-cx416a_ens16f1np1_finisar-cwdm4_laser-off-40dbm",
		"lore-20240521_cx3-mlx4_eth3_avago-qsfp_lane1-only",
		"lore-20240523_cx3-mlx4_eth2_avago-40g-sr4_lane1-only_thresholds",
		"noc-cumulus_swp13_finisar-qsfp-sr4_dark-lanes-inf-dbm",
		"noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4",
		"noc-sn2100_swp4_hisense-qsfp28-sr4",
	};
	char path[256], why[1024], part[96];
	struct diag_module m;

	(void)state;
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		char *text;

		snprintf(path, sizeof(path), "tests/real/ethtool_m/%s.txt", real[i]);
		text = capture_edited(path, NULL, NULL);
		assert_int_equal(diag_parse_module(text, &m), 0);
		free(text);
		diag_module_judge(&m, 0);
		assert_int_equal(diag_module_lanes(&m, 0, why, sizeof(why), part, sizeof(part)), 0);
		assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 0);
	}
}

/* The real CMIS QSFP-DD (Arista QDD-400G-XDR4, netdev RFC of 2024-10-15)
 * as captured, its four lit lanes in use: lane 4's bias 110.100 mA beside
 * the others' 72.900-83.806 mA (median 81.878) is 28.22 mA from them with
 * 14.90 mA left to its own high warning 125.000 mA: named at its lane 4
 * transmitter, which also gives the least light (1.58 dBm beside 2.03-2.17):
 * the most current for the least light. No flag of the module says so
 * (every lane flag Off). */
static void test_real_qdd_lane4_bias(void **state)
{
	char *text = capture_edited("tests/real/ethtool_m/lore-20241015_host-unnamed-nic_arista-qdd-400g-xdr4_cmis-4of8_temp-warn-on.txt",
				    NULL, NULL);
	char why[1024], part[96];
	struct diag_module m;

	(void)state;
	assert_int_equal(diag_parse_module(text, &m), 0);
	free(text);
	diag_module_judge(&m, 4);
	assert_int_equal(diag_module_lanes(&m, 0, why, sizeof(why), part, sizeof(part)), 1);
	assert_string_equal(part, "transceiver (lane 4 transmitter)");
	assert_string_equal(why, "lane 4 laser bias 110.10 mA where the module's 3 other lanes in use read 72.90 to 83.81 mA: 28.22 mA from their median 81.88 mA, more than the 14.90 mA left to its own high warning threshold 125.00 mA");
	assert_int_equal(diag_module_signals(&m, 1, why, sizeof(why), part, sizeof(part)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_quiet),	    cmocka_unit_test(test_tx_lane_apart),
		cmocka_unit_test(test_tx_lane_near),	    cmocka_unit_test(test_bias_lane_apart),
		cmocka_unit_test(test_rx_lane_apart),	    cmocka_unit_test(test_two_lanes_not_judged),
		cmocka_unit_test(test_signals),		    cmocka_unit_test(test_signals_unused_lane),
		cmocka_unit_test(test_real_captures_quiet), cmocka_unit_test(test_real_qdd_lane4_bias),
	};

	return cmocka_run_group_tests_name("diag module lanes", tests, NULL, NULL);
}
