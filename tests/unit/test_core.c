/* Unit tests of the pure core: parsing, GID choice, rates, output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gid.h"
#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(fc_parse_size("-s", "64K", 1, 1ULL << 30, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(fc_parse_size("-s", "1MiB", 1, 1ULL << 30, &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(fc_parse_size("-s", "2", 1, 1ULL << 30, &v), 0);
	assert_int_equal(v, 2);
	assert_int_not_equal(fc_parse_size("-s", "abc", 1, 100, &v), 0);
	assert_int_not_equal(fc_parse_size("-s", "10X", 1, 100, &v), 0);
	assert_int_not_equal(fc_parse_size("-s", "2G", 1, 1 << 20, &v), 0);
	assert_int_not_equal(fc_parse_size("-s", "0", 1, 100, &v), 0);
	assert_int_not_equal(fc_parse_size("-s", "99999999999999999999K", 1, 100, &v), 0);
	assert_int_not_equal(fc_parse_size("-s", "", 1, 100, &v), 0);
}

static void test_parse_numbers(void **state)
{
	int i;
	double d;
	uint64_t u;

	(void)state;
	assert_int_equal(fc_parse_int("-n", "12", 1, 100, &i), 0);
	assert_int_equal(i, 12);
	assert_int_not_equal(fc_parse_int("-n", "12a", 1, 100, &i), 0);
	assert_int_not_equal(fc_parse_int("-n", "0", 1, 100, &i), 0);
	assert_int_equal(fc_parse_double("--min-gbps", "1.5", 0, 1e6, &d), 0);
	assert_true(d == 1.5);
	assert_int_not_equal(fc_parse_double("--min-gbps", "nan", 0, 1e6, &d), 0);
	assert_int_not_equal(fc_parse_u64("-n", "-1", 1, 10, &u), 0);
	assert_int_equal(fc_parse_duration("-D", "5m", 0, 1e6, &d), 0);
	assert_true(d == 300);
	assert_int_equal(fc_parse_duration("-D", "250ms", 0, 1e6, &d), 0);
	assert_true(d > 0.249 && d < 0.251);
	assert_int_not_equal(fc_parse_duration("-D", "5y", 0, 1e6, &d), 0);
}

static void mkgid(struct fc_gid *g, int idx, const char *text, enum fc_gid_type t,
		  const char *nd)
{
	memset(g, 0, sizeof(*g));
	g->index = idx;
	assert_int_equal(fc_gid_parse(text, g->raw), 0);
	g->type = t;
	snprintf(g->netdev, sizeof(g->netdev), "%s", nd);
}

static void test_gid_choice_rxe(void **state)
{
	/* The GID table rxe shows on the rack: link-local v1/v2, IPv4 v1/v2. */
	struct fc_gid g[4];

	(void)state;
	mkgid(&g[0], 0, "fe80::5054:ff:fe12:3401", FC_GID_ROCE_V1, "eth0");
	mkgid(&g[1], 1, "fe80::5054:ff:fe12:3401", FC_GID_ROCE_V2, "eth0");
	mkgid(&g[2], 2, "::ffff:10.77.0.1", FC_GID_ROCE_V1, "eth0");
	mkgid(&g[3], 3, "::ffff:10.77.0.1", FC_GID_ROCE_V2, "eth0");
	assert_int_equal(fc_gid_choose(g, 4, 1, "eth0"), 3);
	/* Without the IPv4 v2 GID, link-local v2 beats IPv4 v1. */
	assert_int_equal(fc_gid_choose(g, 3, 1, "eth0"), 1);
	assert_true(fc_gid_is_ipv4_mapped(g[3].raw));
	assert_true(fc_gid_is_link_local(g[0].raw));
}

static void test_gid_choice_netdev_and_ib(void **state)
{
	struct fc_gid g[3];

	(void)state;
	/* Two IPv4 RoCE v2 GIDs: the one on the fabric netdev wins. */
	mkgid(&g[0], 3, "::ffff:192.168.1.5", FC_GID_ROCE_V2, "mgmt0");
	mkgid(&g[1], 5, "::ffff:10.1.0.5", FC_GID_ROCE_V2, "ens1f0");
	assert_int_equal(fc_gid_choose(g, 2, 1, "ens1f0"), 1);
	assert_int_equal(fc_gid_choose(g, 2, 1, NULL), 0);
	/* IB port: index 0 wins; IB-typed GIDs are unusable on Ethernet. */
	mkgid(&g[0], 0, "fe80::248a:703:49:d4f0", FC_GID_IB, "");
	mkgid(&g[1], 1, "fec0::248a:703:49:d4f0", FC_GID_IB, "");
	assert_int_equal(fc_gid_choose(g, 2, 0, NULL), 0);
	assert_int_equal(fc_gid_choose(g, 2, 1, NULL), -1);
	/* Zero GIDs are never chosen. */
	memset(&g[2], 0, sizeof(g[2]));
	assert_int_equal(fc_gid_choose(&g[2], 1, 0, NULL), -1);
}

static void test_gid_type_parse(void **state)
{
	enum fc_gid_type t;

	(void)state;
	assert_int_equal(fc_gid_type_parse("RoCE v2", &t), 0);
	assert_int_equal(t, FC_GID_ROCE_V2);
	assert_int_equal(fc_gid_type_parse("IB/RoCE v1", &t), 0);
	assert_int_equal(t, FC_GID_ROCE_V1);
	assert_int_not_equal(fc_gid_type_parse("RoCE v3", &t), 0);
}

static void test_rates(void **state)
{
	(void)state;
	/* rxe: 1X SDR = 2.5 Gb/s; ConnectX-6 HDR 4X = 200; NDR 4X = 400. */
	assert_true(fc_port_rate_gbps(1, 1, 0) == 2.5);
	assert_true(fc_port_rate_gbps(2, 64, 0) == 200.0);
	assert_true(fc_port_rate_gbps(2, 128, 0) == 400.0);
	assert_true(fc_port_rate_gbps(2, 32, 0) == 100.0);
	assert_true(fc_port_rate_gbps(16, 128, 0) == 200.0);
	assert_true(fc_port_rate_gbps(3, 64, 0) == 0.0);
	assert_string_equal(fc_port_speed_name(64, 0), "HDR");
	assert_string_equal(fc_port_width_name(2), "4X");
	assert_int_equal(fc_mtu_bytes(5), 4096);
	assert_int_equal(fc_mtu_bytes(3), 1024);
	assert_int_equal(fc_mtu_bytes(9), 0);
	assert_int_equal(fc_mtu_enum(2048), 4);
	assert_int_equal(fc_mtu_enum(1500), 0);
}

static void test_doc_verdict(void **state)
{
	json_t *doc = fc_doc_new();

	(void)state;
	assert_int_equal(fc_doc_verdict(doc), FC_PASS);
	fc_finding(doc, FC_WARN, "w %d", 1);
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	assert_int_equal(fc_doc_exit(doc), 0);
	fc_finding(doc, FC_FAIL, "f");
	fc_finding(doc, FC_WARN, "w2");
	assert_int_equal(fc_doc_verdict(doc), FC_FAIL);
	assert_int_equal(fc_doc_exit(doc), 1);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			    "w 1");
	json_decref(doc);
}

static void test_table(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fc_table *t = fc_table_new(2, "A", "LONGHEAD");

	(void)state;
	fc_table_add(t, "wide-cell", "x");
	fc_table_row(t);
	fc_table_addf(t, 1, "%d", 42);
	fc_table_print(t, f, "");
	fclose(f);
	assert_string_equal(buf, "A          LONGHEAD\nwide-cell  x\n           42\n");
	free(buf);
	fc_table_free(t);
}

/* fc_put_wrapped (issue 39 item 3): @text wrapped at words under @lead,
 * its next lines @hang in, none past @cols; at most @lines lines, the last
 * cut at a word with " ..." when more is left. */
__attribute__((noinline)) static char *wrapped(const char *lead, int hang, const char *text, int cols, int lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fc_put_wrapped(f, lead, hang, text, cols, lines);
	fclose(f);
	return buf;
}

static void test_put_wrapped(void **state)
{
	static const char text[] = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
	char letters[51], accents[61], *s;

	(void)state;
	s = wrapped("  - ", 4, text, 30, 3);
	assert_string_equal(s, "  - alpha beta gamma delta\n    epsilon zeta eta theta\n"
			       "    iota kappa lambda mu\n");
	free(s);
	s = wrapped("  - ", 4, text, 30, 2);
	assert_string_equal(s, "  - alpha beta gamma delta\n    epsilon zeta eta theta ...\n");
	free(s);
	s = wrapped("  - ", 4, text, 30, 1);
	assert_string_equal(s, "  - alpha beta gamma delta ...\n");
	free(s);
	s = wrapped("  - ", 4, "short", 30, 1);
	assert_string_equal(s, "  - short\n");
	free(s);
	/* one word longer than the line: broken inside it */
	memset(letters, 'x', 50);
	letters[50] = 0;
	s = wrapped("x: ", 2, letters, 40, 3);
	assert_string_equal(s, "x: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  xxxxxxxxxxxxx\n");
	free(s);
	/* ... never inside a UTF-8 character: 41 columns hold 20 of "é" */
	for (int i = 0; i < 30; i++)
		memcpy(accents + 2 * i, "\xc3\xa9", 2);
	accents[60] = 0;
	s = wrapped("", 2, accents, 41, 3);
	assert_int_equal(strchr(s, '\n') - s, 40);
	assert_int_equal(strlen(s), 40 + 1 + 2 + 20 + 1);
	free(s);
}

/* A table wider than COLUMNS (issue 39 item 3): every line fits, the
 * widest text column gives way, cut at a word with " ...", and the
 * figures are whole. */
static void test_table_fits(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fc_table *t = fc_table_new(3, "NODE", "BW", "REASON");
	int lines = 0;

	(void)state;
	setenv("COLUMNS", "60", 1);
	fc_table_add(t, "nodeA", "123.456 Gb/s",
		     "the port's error counters rose while the test ran: a cable or a transceiver");
	fc_table_add(t, "nodeB", "2.4 Gb/s", "ok");
	fc_table_print(t, f, "  ");
	fclose(f);
	unsetenv("COLUMNS");
	for (const char *p = buf, *e; *p; p = e + 1, lines++) {
		e = strchr(p, '\n');
		assert_non_null(e);
		assert_true(e - p <= 60);
	}
	assert_int_equal(lines, 3);
	assert_non_null(strstr(buf, "  nodeA  123.456 Gb/s  the port's error counters rose ...\n"));
	assert_non_null(strstr(buf, "  nodeB  2.4 Gb/s      ok\n"));
	free(buf);
	fc_table_free(t);
}

/* A table of figures (fc_table_whole) wider than COLUMNS: its columns fold
 * into bands 4 spaces in, under their own header, no cell cut; a table of
 * a dozen narrow columns folds the same once narrowing cannot fit it. A
 * line of prose (fc_put_paraf) wraps at words, its next lines @hang in,
 * every word kept (no " ..."). */
static void test_table_folds(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fc_table *t = fc_table_new(4, "DEV", "RATE", "GID", "CEILING");
	struct fc_table *n = fc_table_new(5, "A", "B", "C", "D", "E");

	(void)state;
	setenv("COLUMNS", "40", 1);
	fc_table_whole(t);
	fc_table_add(t, "mlx5_0", "400 Gb/s (4X NDR)", "fe80::a088:c203:61:f5d2 (IB)",
		     "389.120 Gb/s at 4096 B");
	fc_table_print(t, f, "");
	fc_table_add(n, "1234.567 Gb/s", "1234.567 Gb/s", "1234.567 Gb/s", "1234.567 Gb/s",
		     "1234.567 Gb/s");
	fc_table_print(n, f, "");
	fc_put_paraf(f, 2, "%s: %s", "rail 0 (rxe0)",
		     "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu");
	fclose(f);
	unsetenv("COLUMNS");
	assert_string_equal(buf, "DEV     RATE\n    GID\n    CEILING\n"
				 "mlx5_0  400 Gb/s (4X NDR)\n    fe80::a088:c203:61:f5d2 (IB)\n"
				 "    389.120 Gb/s at 4096 B\n"
				 "A              B\n    C              D\n    E\n"
				 "1234.567 Gb/s  1234.567 Gb/s\n    1234.567 Gb/s  1234.567 Gb/s\n"
				 "    1234.567 Gb/s\n"
				 "rail 0 (rxe0): alpha beta gamma delta\n"
				 "  epsilon zeta eta theta iota kappa\n  lambda mu\n");
	free(buf);
	fc_table_free(t);
	fc_table_free(n);
}

static void test_fmt_and_names(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fc_fmt_size(65536, b, sizeof(b)), "64 KiB");
	assert_string_equal(fc_fmt_size(3 << 20, b, sizeof(b)), "3 MiB");
	assert_string_equal(fc_fmt_size(1000, b, sizeof(b)), "1000 B");
	assert_true(fc_valid_node_name("nodeA"));
	assert_true(fc_valid_node_name("user@gpu-01.rack3"));
	assert_false(fc_valid_node_name("-oProxyCommand=x"));
	assert_false(fc_valid_node_name("a b"));
	assert_false(fc_valid_node_name("a;rm"));
	assert_false(fc_valid_node_name(""));
	assert_false(fc_valid_node_name("node[1-4]")); /* a glob, a Slurm hostlist */
	assert_true(fc_valid_node_name("fe80::1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_gid_choice_rxe),
		cmocka_unit_test(test_gid_choice_netdev_and_ib),
		cmocka_unit_test(test_gid_type_parse),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_doc_verdict),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fits),
		cmocka_unit_test(test_table_folds),
		cmocka_unit_test(test_put_wrapped),
		cmocka_unit_test(test_fmt_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
