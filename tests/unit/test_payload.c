/* Unit tests of the payload ceiling (core/payload.c) against figures worked
 * out by hand: rate * MTU / (MTU + header bytes per packet). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>

#include "core/payload.h"

#define W4X 2 /* active_width code of 4X */

static double ceiling(int eth, unsigned speed, unsigned speed_ex, int mtu)
{
	struct fc_link l = { .is_ethernet = eth, .width = W4X, .speed = speed,
			     .speed_ex = speed_ex, .mtu = mtu };
	struct fc_ceiling c;

	assert_int_equal(fc_payload_ceiling(&l, &c), 0);
	return c.payload_gbps;
}

#define near(a, b) assert_true(fabs((a) - (b)) < 1e-3)

/* InfiniBand, LID-routed: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B a packet.
 *   EDR 4X 100 Gb/s: 100 * 1024 / 1050 = 97.5238, 100 * 4096 / 4122 = 99.3692
 *   HDR 4X 200:      195.0476, 198.7385
 *   NDR 4X 400:      390.0952, 397.4770
 *   XDR 4X 800 (active_speed_ex 256): 780.1905, 794.9539 */
static void test_ib(void **state)
{
	(void)state;
	near(ceiling(0, 32, 0, 1024), 97.5238);
	near(ceiling(0, 32, 0, 4096), 99.3692);
	near(ceiling(0, 64, 0, 1024), 195.0476);
	near(ceiling(0, 64, 0, 4096), 198.7385);
	near(ceiling(0, 128, 0, 1024), 390.0952);
	near(ceiling(0, 128, 0, 4096), 397.4770);
	near(ceiling(0, 0, 256, 1024), 780.1905);
	near(ceiling(0, 0, 256, 4096), 794.9539);
}

/* RoCE v2 over IPv4, untagged: preamble 8 + Ethernet 14 + IPv4 20 + UDP 8 +
 * BTH 12 + ICRC 4 + FCS 4 + gap 12 = 82 B a packet.
 *   100 GbE: 100 * 1024 / 1106 = 92.5859 (92.6%: jumbo frames off), 100 * 4096 / 4178 = 98.0373
 *   200 GbE: 185.1718, 196.0747
 *   400 GbE: 370.3436, 392.1494 */
static void test_roce(void **state)
{
	struct fc_link l = { .is_ethernet = 1, .width = W4X, .speed = 32, .mtu = 4096,
			     .ipv6 = 1, .vlan = 1 };
	struct fc_ceiling c;

	(void)state;
	near(ceiling(1, 32, 0, 1024), 92.5859);
	near(ceiling(1, 32, 0, 4096), 98.0373);
	near(ceiling(1, 64, 0, 1024), 185.1718);
	near(ceiling(1, 64, 0, 4096), 196.0747);
	near(ceiling(1, 128, 0, 1024), 370.3436);
	near(ceiling(1, 128, 0, 4096), 392.1494);
	/* IPv6 (40) and a VLAN tag (4): 106 B, 100 * 4096 / 4202 = 97.4774 */
	assert_int_equal(fc_payload_ceiling(&l, &c), 0);
	assert_int_equal(c.overhead, 106);
	near(c.payload_gbps, 97.4774);
	/* the share of the port rate at MTU 1024: 92.6% */
	l = (struct fc_link){ .is_ethernet = 1, .width = W4X, .speed = 32, .mtu = 1024 };
	assert_int_equal(fc_payload_ceiling(&l, &c), 0);
	assert_true(c.share > 0.9258 && c.share < 0.9259);
}

/* Encodings: QDR 4X reports 40 Gb/s of signal, 8b/10b leaves 32:
 * 32 * 4096 / 4122 = 31.7982. FDR 4X: 4 * 14.0625 * 64 / 66 = 54.5454 data,
 * * 4096 / 4122 = 54.2014. A GRH (40 B more) on EDR: 100 * 4096 / 4162. */
static void test_encoding_and_grh(void **state)
{
	struct fc_link l = { .width = W4X, .speed = 32, .mtu = 4096, .global = 1 };
	struct fc_ceiling c;
	unsigned w, s, x;

	(void)state;
	near(ceiling(0, 4, 0, 4096), 31.7982);
	near(ceiling(0, 16, 0, 4096), 54.2014);
	assert_int_equal(fc_payload_ceiling(&l, &c), 0);
	near(c.payload_gbps, 98.4142);
	/* unknown rate or MTU: no ceiling */
	l.speed = 3;
	assert_int_equal(fc_payload_ceiling(&l, &c), -EINVAL);
	l.speed = 32;
	l.mtu = 0;
	assert_int_equal(fc_payload_ceiling(&l, &c), -EINVAL);
	/* sysfs's rate text, for XDR without active_speed_ex */
	assert_int_equal(fc_rate_text_parse("800 Gb/sec (4X XDR)", &w, &s, &x), 0);
	assert_true(w == W4X && s == 0 && x == 256);
	assert_int_equal(fc_rate_text_parse("200 Gb/sec (4X HDR)", &w, &s, &x), 0);
	assert_true(w == W4X && s == 64 && x == 0);
	assert_int_equal(fc_rate_text_parse("2.5 Gb/sec (1X SDR)", &w, &s, &x), 0);
	assert_true(w == 1 && s == 1);
	assert_int_equal(fc_rate_text_parse("fast", &w, &s, &x), -EINVAL);
	assert_int_equal(fc_rate_text_parse("10 Gb/sec (3X QDR)", &w, &s, &x), -EINVAL);
	assert_int_equal(fc_rate_text_parse("10 Gb/sec (4X ZDR)", &w, &s, &x), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib),
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_encoding_and_grh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
