/*
 * A module's numeric readings against its own thresholds (diag/modlimits.c
 * diag_module_limits): the real Mellanox SR4 capture
 * (tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt:
 * transmit 1.20-1.44 dBm, bias 6.750 mA, receive -0.12-0.55 dBm; thresholds
 * tx low alarm -11.40 dBm, low warning -8.40 dBm, bias alarm 5.492-8.500 mA,
 * rx low warning -10.30 dBm), one line changed at a time.
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
#include "diag/rules.h"
#include "diag_util.h"

#define SR4 "tests/real/ethtool_m/noc-cumulus_swp14_mellanox-mma1b00-qsfp28-sr4.txt"

typedef int (*judge_fn)(const struct diag_module *m, char *why, size_t len);

/* The capture with @from replaced by @to, judged on 4 lanes by @fn: its
 * answer, what in @why. */
static int judged_by(judge_fn fn, const char *path, const char *from, const char *to, char *why,
		     size_t len)
{
	char *out = capture_edited(path, from, to);
	struct diag_module m;
	int r;

	assert_int_equal(diag_parse_module(out, &m), 0);
	diag_module_judge(&m, 4);
	r = fn(&m, why, len);
	free(out);
	return r;
}

static int judge_in(const char *path, const char *from, const char *to, char *why, size_t len)
{
	return judged_by(diag_module_limits, path, from, to, why, len);
}

static int judge(const char *from, const char *to, char *why, size_t len)
{
	return judge_in(SR4, from, to, why, len);
}

static void test_real_within(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judge(NULL, NULL, why, sizeof(why)), -1);
	assert_string_equal(why, "");
}

/* Lane 2 transmits -13.01 dBm: under the low alarm, this module's
 * transmitter (the end that transmits). */
static void test_tx_low_alarm(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judge("Transmit avg optical power (Channel 2)    : 1.3181 mW / 1.20 dBm",
			       "Transmit avg optical power (Channel 2)    : 0.0500 mW / -13.01 dBm", why,
			       sizeof(why)),
			 1);
	assert_non_null(strstr(why, "lane 2 transmits -13.01 dBm, below the module's low alarm -11.40 dBm: its transmitter"));
}

static void test_bias_high_alarm(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judge("Laser tx bias current (Channel 3)         : 6.750 mA",
			       "Laser tx bias current (Channel 3)         : 9.100 mA", why, sizeof(why)),
			 1);
	assert_non_null(strstr(why, "lane 3 laser bias 9.100 mA outside the module's alarm range 5.492-8.500 mA"));
}

/* A supply of 3.0500 V: under the capture's low alarm of 3.1000 V, the
 * module's own word (diag_module_verdict). */
static void test_supply_low_alarm(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judged_by(diag_module_verdict, SR4,
				   "Module voltage                            : 3.2350 V",
				   "Module voltage                            : 3.0500 V", why, sizeof(why)),
			 1);
	assert_string_equal(why, "module supply 3.050 V outside its alarm range 3.100-3.500 V");
}

/* Lane 4 receives -11.0 dBm: under the low warning, over the low alarm: a
 * warning of the light that arrives. */
static void test_rx_low_warning(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judge("Rcvr signal avg optical power(Channel 4)  : 1.1340 mW / 0.55 dBm",
			       "Rcvr signal avg optical power(Channel 4)  : 0.0794 mW / -11.00 dBm", why,
			       sizeof(why)),
			 0);
	assert_non_null(strstr(why, "lane 4 receives -11.00 dBm, below the module's low warning -10.30 dBm: the far end's transmitter or the fibre"));
}

/* A CMIS module (tests/data/diag/cmis-4of8-healthy, ethtool cmis.c's
 * layout) in ModuleReady is quiet; in ModuleLowPwr its lanes carry nothing. */
#define CMIS "tests/data/diag/cmis-4of8-healthy/nodeA/mlx5_0-1/after/ethtool-m.txt"
static void test_cmis_module_state(void **state)
{
	char why[400];

	(void)state;
	assert_int_equal(judge_in(CMIS, NULL, NULL, why, sizeof(why)), -1);
	assert_int_equal(judge_in(CMIS, "0x03 (ModuleReady)", "0x01 (ModuleLowPwr)", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "module state ModuleLowPwr, not ModuleReady (ethtool -m 'Module State', CMIS 5 table 8-6)"));
}

/* The module's own word at its two levels (diag_module_verdict; SFF-8472
 * rev 12.4 section 9): the real CMIS QSFP-DD whose "Module temperature high
 * warning" is On at 70.49 C (warning 70 C, alarm 75 C) is a warning (0),
 * not an alarm; the same module at 76.10 C, or with its high alarm flag On,
 * is an alarm (1). With the old verdict every flag was an alarm. */
#define QDD "tests/real/ethtool_m/lore-20241015_host-unnamed-nic_arista-qdd-400g-xdr4_cmis-4of8_temp-warn-on.txt"

static int verdict_in(const char *from, const char *to, char *why, size_t len)
{
	return judged_by(diag_module_verdict, QDD, from, to, why, len);
}

static void test_own_word_levels(void **state)
{
	char why[512];

	(void)state;
	assert_int_equal(verdict_in("", "", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "Module temperature high warning"));
	assert_non_null(strstr(why, "no alarm"));
	assert_int_equal(verdict_in("Module temperature                        : 70.49",
				    "Module temperature                        : 76.10", why, sizeof(why)),
			 1);
	assert_non_null(strstr(why, "76.1 C, at or above its high alarm threshold 75.0 C"));
	assert_int_equal(verdict_in("Module temperature high alarm             : Off",
				    "Module temperature high alarm             : On", why, sizeof(why)),
			 1);
	assert_non_null(strstr(why, "Module temperature high alarm"));
	/* warning flag Off and below the warning threshold: nothing said */
	assert_int_equal(verdict_in("Module temperature high warning           : On",
				    "Module temperature high warning           : Off", why, sizeof(why)),
			 0); /* still 70.49 C >= its 70 C warning threshold */
	assert_non_null(strstr(why, "at or above its high warning threshold 70.0 C (no alarm)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_within),
		cmocka_unit_test(test_tx_low_alarm),
		cmocka_unit_test(test_bias_high_alarm),
		cmocka_unit_test(test_supply_low_alarm),
		cmocka_unit_test(test_rx_low_warning),
		cmocka_unit_test(test_cmis_module_state),
		cmocka_unit_test(test_own_word_levels),
	};

	return cmocka_run_group_tests_name("module limits", tests, NULL, NULL);
}
