/*
 * diagnose's comparisons over every folder with each port's peers on its
 * rail (diag/peerport.c, issue 37 item 1): a node of another model whose
 * device names are shifted (tests/data/diag/rack-shifted, the recorded
 * rack tests/data/rails/ib-shifted-names.json) finds its peers where the
 * rail set places its port, as preflight's module peers do; and the card's
 * health reporters' error counts against the same HCA on the other nodes
 * (tests/data/diag/rack-fw-health), as preflight compares them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/util.h"
#include "diag/diag.h"
#include "diag_util.h"

static const char *const SHIFTED[] = { "001-dgx-su1-01-dgx-su1-02", "002-dgx-su1-01-dgx-su2-01",
				       "003-dgx-su1-02-dgx-su2-01", NULL };

/* The rail set of rail 0 as pf_check_rails gives it for the recorded rack
 * (rails --from on its captures: dgx-su1-02's mlx5_2 with the others'
 * mlx5_0, matched by switch; tests/cli/cases_peers37.sh reads it from the
 * captures themselves). */
static json_t *shifted_rails(void)
{
	return json_pack("{s:{s:{s:i}, s:{s:i}, s:{s:i}}, s:[s], s:s}", "rail_of", "dgx-su1-01",
			 "mlx5_0:1", 0, "dgx-su1-02", "mlx5_2:1", 0, "dgx-su2-01", "mlx5_0:1", 0,
			 "names", "mlx5_0", "matched_by", "switch");
}

/* By device name, dgx-su1-02's mlx5_2 has no peer: its other firmware and
 * its module's readings are named by nothing over every folder. */
static void test_shifted_by_name(void **state)
{
	json_t *sets, *doc = rack("rack-shifted", SHIFTED, &sets);

	(void)state;
	assert_null(by_rule(doc, "port_config_peers"));
	assert_null(by_rule(doc, "module_peers"));
	json_decref(doc);
	json_decref(sets);
}

/* On its rail, dgx-su1-02 mlx5_2 is compared with the others' mlx5_0: its
 * firmware 28.39.1002 against 28.41.1000 (likely) and its module's
 * temperature and lane 2 (possible), each saying its peers are its rail's;
 * the lane 2 its module's own lanes name is the same problem, folded in. */
static void test_shifted_by_rail(void **state)
{
	json_t *rails = shifted_rails(), *sets, *doc = rack_on("rack-shifted", SHIFTED, rails, &sets);
	const json_t *e = by_rule(doc, "port_config_peers");

	(void)state;
	assert_non_null(e);
	assert_string_equal(str(e, "subject"), "dgx-su1-02 mlx5_2 port 1");
	assert_string_equal(str(e, "part"), "HCA (firmware)");
	assert_string_equal(str(e, "confidence"), "likely");
	assert_non_null(strstr(str(e, "evidence"), "HCA firmware is 28.39.1002 where 2 of 2 other nodes have 28.41.1000 on the same port (its peers: the ports on its rail, rail 0 (mlx5_0), matched by switch)"));
	e = by_rule(doc, "module_peers");
	assert_non_null(e);
	assert_string_equal(str(e, "subject"), "dgx-su1-02 mlx5_2 port 1");
	assert_non_null(strstr(str(e, "evidence"), "temperature 52.00 C where the same port's module on 2 other nodes reads 30.56 to 30.56 C"));
	assert_non_null(strstr(str(e, "evidence"), "(its peers: the ports on its rail, rail 0 (mlx5_0), matched by switch); and against the module's own lanes: lane 2 transmit power -4.00 dBm"));
	assert_null(by_rule(doc, "module_lanes"));
	json_decref(doc);
	json_decref(sets);
	json_decref(rails);
}

/* Where the rails place both ports they decide, whatever the names; where
 * they place one or none, the name does. */
static void test_same_port(void **state)
{
	json_t *rails = json_pack("{s:{s:{s:i, s:i}, s:{s:i}}}", "rail_of", "a", "mlx5_0:1", 0,
				  "mlx5_1:1", 1, "b", "mlx5_1:1", 0);
	json_t *a0 = json_pack("{s:s, s:s, s:i}", "node", "a", "device", "mlx5_0", "port", 1);
	json_t *a1 = json_pack("{s:s, s:s, s:i}", "node", "a", "device", "mlx5_1", "port", 1);
	json_t *b1 = json_pack("{s:s, s:s, s:i}", "node", "b", "device", "mlx5_1", "port", 1);
	json_t *c0 = json_pack("{s:s, s:s, s:i}", "node", "c", "device", "mlx5_0", "port", 1);
	char note[200];

	(void)state;
	assert_int_equal(diag_same_port(rails, a0, b1), DIAG_PEER_BY_RAIL);
	assert_int_equal(diag_same_port(rails, a1, b1), 0); /* one name, two rails */
	assert_int_equal(diag_same_port(rails, a0, c0), DIAG_PEER_BY_NAME); /* c: no rails */
	assert_int_equal(diag_same_port(NULL, a1, b1), DIAG_PEER_BY_NAME);
	assert_int_equal(diag_same_port(rails, a0, a1), 0); /* one node */
	diag_peer_note(rails, c0, note, sizeof(note));
	assert_string_equal(note, "");
	json_decref(a0);
	json_decref(a1);
	json_decref(b1);
	json_decref(c0);
	json_decref(rails);
}

static const char *const FW_HEALTH[] = { "001-nodeA-nodeB", "002-nodeA-nodeC", "003-nodeB-nodeC",
					 NULL };

/* nodeC's card reporter fw recovered from 3 errors where nodeA's and
 * nodeB's report none (devlink health show, healthy, the count steady over
 * the test): named once over every folder, possible, as preflight warns;
 * fw_fatal (0 everywhere) is not. */
static void test_reporter_counts(void **state)
{
	json_t *sets, *doc = rack("rack-fw-health", FW_HEALTH, &sets);
	const json_t *e = by_rule(doc, "port_config_peers");

	(void)state;
	assert_non_null(e);
	assert_string_equal(str(e, "subject"), "nodeC mlx5_0 port 1");
	assert_string_equal(str(e, "part"), "HCA (firmware health)");
	assert_string_equal(str(e, "confidence"), "possible");
	assert_non_null(strstr(str(e, "evidence"), "the port's HCA's health reporter fw error count (errors it recovered from, devlink health show) is 3 where 2 of 2 other nodes have 0 on the same port"));
	assert_null(strstr(str(e, "evidence"), "fw_fatal"));
	assert_null(by_rule(doc, "hca_health")); /* healthy, not risen: no fault of its own */
	json_decref(doc);
	json_decref(sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shifted_by_name),
		cmocka_unit_test(test_shifted_by_rail),
		cmocka_unit_test(test_same_port),
		cmocka_unit_test(test_reporter_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
