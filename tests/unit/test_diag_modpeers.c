/*
 * A module's readings against the same port's module on other nodes
 * (diag/modpeers.c diag_module_peer), in units of its own warning window:
 * the real Mellanox SR4 capture
 * (tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt:
 * 30.56 C, high warning 70.00 C; 3.2350 V, warnings 3.1350-3.4650 V; lanes
 * transmit 1.20-1.44 dBm, warnings -8.40 and 2.40 dBm; bias 6.750 mA,
 * warnings 6.000-8.000 mA) as every peer, and as the module judged with one
 * line edited at a time (each edit said at its test).
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

/* The capture's readings with @from replaced by @to (NULL: as captured),
 * its part number @pn ("" as captured). */
static json_t *readings(const char *from, const char *to, const char *pn)
{
	char *out = capture_edited(SR4, from, to), cap_pn[48];
	struct diag_module m;
	json_t *r;

	assert_int_equal(diag_parse_module(out, &m), 0);
	diag_module_judge(&m, 4);
	diag_module_pn(out, cap_pn, sizeof(cap_pn));
	r = diag_module_readings(&m, *pn ? pn : cap_pn);
	free(out);
	return r;
}

/* The module edited (@from -> @to) against three peers as captured (or of
 * part @peer_pn): how many readings named, what in @why. */
static int judge(const char *from, const char *to, const char *peer_pn, char *why, size_t len,
		 const char **part)
{
	json_t *own = readings(from, to, ""), *p[3];
	int r;

	for (int i = 0; i < 3; i++)
		p[i] = readings(NULL, NULL, peer_pn);
	r = diag_module_peer(own, (const json_t *const *)p, 3, why, len, part);
	for (int i = 0; i < 3; i++)
		json_decref(p[i]);
	json_decref(own);
	return r;
}

#define TEMP "Module temperature                        : 30.56 degrees C / 87.01 degrees F"
#define TX2 "Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm"
#define BIAS3 "Laser tx bias current (Channel 3)         : 6.750 mA"
#define VOLT "Module voltage                            : 3.2350 V"

/* The readings a peer compares, with the module's own windows. */
static void test_readings_of_capture(void **state)
{
	json_t *r = readings(NULL, NULL, "");
	const json_t *rd = json_object_get(r, "readings"), *t = json_object_get(rd, "temperature");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(r, "pn")), "MMA1B00-C100D");
	assert_float_equal(json_real_value(json_object_get(t, "value")), 30.56, 1e-9);
	assert_true(json_is_null(json_object_get(t, "warn_lo")));
	assert_float_equal(json_real_value(json_object_get(t, "warn_hi")), 70.0, 1e-9);
	t = json_object_get(rd, "lane 4 laser bias");
	assert_float_equal(json_real_value(json_object_get(t, "warn_lo")), 6.0, 1e-9);
	assert_float_equal(json_real_value(json_object_get(t, "warn_hi")), 8.0, 1e-9);
	t = json_object_get(rd, "lane 1 transmit power");
	assert_float_equal(json_real_value(json_object_get(t, "value")), 1.4376, 1e-3);
	assert_float_equal(json_real_value(json_object_get(t, "warn_lo")), -8.40, 1e-9);
	assert_float_equal(json_real_value(json_object_get(t, "warn_hi")), 2.40, 1e-9);
	t = json_object_get(rd, "supply voltage");
	assert_float_equal(json_real_value(json_object_get(t, "warn_lo")), 3.135, 1e-9);
	assert_int_equal(json_object_size(rd), 10); /* temperature, voltage, 4 x (tx, bias) */
	json_decref(r);
}

/* The same module as its peers: nothing. */
static void test_same_quiet(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(NULL, NULL, "", why, sizeof(why), &part), 0);
	assert_string_equal(why, "");
}

/* 52.00 C: 21.44 C from its peers, 18.00 C left to its 70.00 C warning. */
static void test_temperature_apart(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(TEMP, "Module temperature                        : 52.00 degrees C / 125.60 degrees F",
			       "", why, sizeof(why), &part), 1);
	assert_string_equal(why, "temperature 52.00 C where the same port's module on 3 other nodes reads 30.56 to 30.56 C: 21.44 C from their median 30.56 C, more than the 18.00 C left to its own high warning threshold 70.00 C");
	assert_string_equal(part, "transceiver (its temperature: the module or the airflow over it)");
}

/* 45.00 C: 14.44 C warmer than its peers, 25.00 C left to its warning:
 * nearer its peers than its threshold, not named. */
static void test_temperature_within_half(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(TEMP, "Module temperature                        : 45.00 degrees C / 113.00 degrees F",
			       "", why, sizeof(why), &part), 0);
}

/* Lane 2 at -4.00 dBm: named, at the transmitter; lane 3's bias at 7.600 mA
 * (0.85 mA above its peers, 0.40 mA below its 8.000 mA warning): named. */
static void test_tx_and_bias_apart(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(TX2, "Transmit avg optical power (Channel 2)    : 0.3981 mW / -4.00 dBm", "", why,
			       sizeof(why), &part), 1);
	assert_non_null(strstr(why, "lane 2 transmit power -4.00 dBm where the same port's module on 3 other nodes reads 1.20 to 1.20 dBm: 5.20 dB from their median 1.20 dBm, more than the 4.40 dB left to its own low warning threshold -8.40 dBm"));
	assert_string_equal(part, "transceiver (its transmitter)");
	assert_int_equal(judge(BIAS3, "Laser tx bias current (Channel 3)         : 7.600 mA", "", why, sizeof(why),
			       &part), 1);
	assert_non_null(strstr(why, "lane 3 laser bias 7.60 mA where the same port's module on 3 other nodes reads 6.75 to 6.75 mA: 0.85 mA from their median 6.75 mA, more than the 0.40 mA left to its own high warning threshold 8.00 mA"));
}

/* A supply of 3.1500 V: 0.085 V below its peers, 0.015 V above its 3.1350
 * V low warning: named at the supply. */
static void test_voltage_apart(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(VOLT, "Module voltage                            : 3.1500 V", "", why, sizeof(why),
			       &part), 1);
	assert_string_equal(part, "transceiver supply (the module or the port's cage)");
}

/* Beyond its own warning threshold (-9.00 dBm under -8.40): the module's
 * own rule names it (diag_module_limits), not this one. */
static void test_beyond_warning_left_to_module(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(TX2, "Transmit avg optical power (Channel 2)    : 0.1259 mW / -9.00 dBm", "", why,
			       sizeof(why), &part), 0);
}

/* Peers of another part number are not its peers: nothing compared. */
static void test_other_part_not_compared(void **state)
{
	char why[2048];
	const char *part;

	(void)state;
	assert_int_equal(judge(TEMP, "Module temperature                        : 52.00 degrees C / 125.60 degrees F",
			       "FTL410QE2C", why, sizeof(why), &part), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readings_of_capture),
		cmocka_unit_test(test_same_quiet),
		cmocka_unit_test(test_temperature_apart),
		cmocka_unit_test(test_temperature_within_half),
		cmocka_unit_test(test_tx_and_bias_apart),
		cmocka_unit_test(test_voltage_apart),
		cmocka_unit_test(test_beyond_warning_left_to_module),
		cmocka_unit_test(test_other_part_not_compared),
	};

	return cmocka_run_group_tests_name("diag module peers", tests, NULL, NULL);
}
