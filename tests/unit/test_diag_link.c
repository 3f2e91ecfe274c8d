/*
 * A port against what both ends of its link support (diag/linkmodes.c,
 * issue 37 item 1): `ethtool DEV`'s supported, advertised and link partner
 * modes, on the real captures in tests/real/ethtool_link and the fixtures
 * built on them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diag/diag.h"
#include "core/readfile.h"
#include "diag_util.h"

/* A ConnectX-3 port at 40G whose partner advertises 56G and which
 * advertises no more than 40G itself: its own advertised modes hold it,
 * named before any test. */
static void test_own_advertised_modes(void **state)
{
	json_t *doc = diagnose("ethtool-link-adv-40of56");
	const json_t *d = first(doc);

	(void)state;
	assert_int_equal(ndiag(doc), 1);
	assert_string_equal(str(d, "rule"), "port_below");
	assert_string_equal(str(d, "subject"), "nodeA mlx4_0 port 1");
	assert_string_equal(str(d, "part"), "configuration (advertised link modes)");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_non_null(strstr(str(d, "evidence"), "runs at 40 Gb/s on 4 lanes where it should run at 56 Gb/s on 4 lanes"));
	assert_non_null(strstr(str(d, "evidence"), "the HCA supports and the link partner advertises up to 56 Gb/s"));
	assert_non_null(strstr(str(d, "evidence"), "judged against 40 Gb/s, not the 56 Gb/s"));
	assert_non_null(strstr(str(d, "next"), "ethtool -s eth2 speed 56000 autoneg on"));
	json_decref(doc);
}

/* A ConnectX-4 Lx port at 10G of its 25G, the partner's modes not
 * reported: possible, and the partner or cable named, not the HCA. */
static void test_partner_not_reported(void **state)
{
	json_t *doc = diagnose("ethtool-link-lp-unknown");
	const json_t *d = first(doc);

	(void)state;
	assert_int_equal(ndiag(doc), 1);
	assert_string_equal(str(d, "rule"), "port_below");
	assert_string_equal(str(d, "part"), "link partner or cable (the partner's modes are not reported)");
	assert_string_equal(str(d, "confidence"), "possible");
	assert_non_null(strstr(str(d, "evidence"), "where it should run at 25 Gb/s on 1 lane"));
	json_decref(doc);
}

static const char *const CX3 = "tests/real/ethtool_link/idx57556095253_cx3-56g_lp-40-56_adv-40.txt";

/* The model on the real capture's modes, then as if the port advertised
 * 56G too (trained below both ends: the link's training), and as if the
 * partner advertised 40G only (the partner limits it: no finding, a note). */
static void test_model(void **state)
{
	size_t len;
	char *text = fc_read_regular("capture", CX3, 1 << 16, 0, &len), note[300];
	struct diag_link l;
	struct diag_expect e;

	(void)state;
	assert_non_null(text);
	assert_int_equal(diag_parse_link(text, &l), 0);
	free(text);
	memset(&e, 0, sizeof(e));
	diag_expect_link(40, &l, NULL, &e);
	assert_true(e.gbps == 56 && e.width == 4 && e.likely);
	l.adv_mbps = 56000, l.adv_lanes = 4;
	memset(&e, 0, sizeof(e));
	diag_expect_link(40, &l, NULL, &e);
	assert_string_equal(e.part, "cable or transceiver (link training)");
	assert_true(e.likely);
	memset(&e, 0, sizeof(e));
	diag_expect_link(56, &l, NULL, &e); /* at what both ends support */
	assert_true(e.gbps == 0);
	l.lp_mbps = 40000;
	memset(&e, 0, sizeof(e));
	diag_expect_link(40, &l, NULL, &e);
	assert_true(e.gbps == 0);
	diag_link_note(&l, NULL, 40, note, sizeof(note));
	assert_non_null(strstr(note, "the most its link partner advertises, where the HCA supports 56 Gb/s"));
	assert_int_equal(diag_parse_link("Settings for eth0:\n\tLink detected: no\n", &l), -1);
	assert_int_equal(diag_parse_link(NULL, &l), -1);
}

/* The same capture with CR LF line ends, as a file saved on Windows or
 * stored so in a repository holds it (tests/real/mlnx_qos: two public notes
 * are): each mode list ends at its own last line. Before, the advertised
 * list ran on into the partner's and read 56G, the most the port does not
 * advertise. */
static void test_crlf_line_ends(void **state)
{
	size_t len, n = 0;
	char *text = fc_read_regular("capture", CX3, 1 << 16, 0, &len), *crlf;
	struct diag_link l;

	(void)state;
	assert_non_null(text);
	crlf = malloc(2 * len + 1);
	assert_non_null(crlf);
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = text[i];
	}
	crlf[n] = '\0';
	assert_int_equal(diag_parse_link(crlf, &l), 0);
	assert_int_equal(l.sup_mbps, 56000);
	assert_int_equal(l.adv_mbps, 40000);
	assert_int_equal(l.adv_lanes, 4);
	assert_int_equal(l.lp_mbps, 56000);
	assert_int_equal(l.speed_mbps, 40000);
	free(crlf);
	free(text);
}

static const char *const SR4_40G = "tests/real/ethtool_m/noc-cumulus_swp13_finisar-qsfp-sr4_dark-lanes-inf-dbm.txt";

/* Both ends at 100G, the module a 40G QSFP+ (the real Finisar SR4: BR,
 * Nominal 10300 MBd, 4 lanes): at 40G the module limits it (a note, no
 * finding); at 10G the port is below what all three carry, 40G. */
static void test_module_limits(void **state)
{
	size_t len;
	char *text = fc_read_regular("capture", SR4_40G, 1 << 16, 0, &len), note[300];
	struct diag_module m;
	struct diag_link l = { .known = 1, .sup_mbps = 100000, .sup_lanes = 4, .adv_mbps = 100000,
			       .adv_lanes = 4, .lp_mbps = 100000, .lp_lanes = 4 };
	struct diag_expect e;

	(void)state;
	assert_non_null(text);
	assert_int_equal(diag_parse_module(text, &m), 0);
	free(text);
	assert_true(m.br_mbd == 10300 && m.nlanes == 4);
	memset(&e, 0, sizeof(e));
	diag_expect_link(40, &l, &m, &e);
	assert_true(e.gbps == 0);
	diag_link_note(&l, &m, 40, note, sizeof(note));
	assert_non_null(strstr(note, "what its module is built for"));
	assert_non_null(strstr(note, "the module limits it"));
	memset(&e, 0, sizeof(e));
	diag_expect_link(10, &l, &m, &e);
	assert_true(e.gbps == 40 && e.width == 4);
	assert_non_null(strstr(e.why, "its module is built for 40 Gb/s"));
	m.br_mbd = 26562; /* a PAM4 lane's baud: not read as a rate */
	memset(&e, 0, sizeof(e));
	diag_expect_link(40, &l, &m, &e);
	assert_true(e.gbps == 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_advertised_modes),
		cmocka_unit_test(test_partner_not_reported),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_crlf_line_ends),
		cmocka_unit_test(test_module_limits),
	};

	return cmocka_run_group_tests_name("diag link modes", tests, NULL, NULL);
}
