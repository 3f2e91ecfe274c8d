/*
 * Port-level readings against the same port on the rack's other nodes in
 * diagnose, by preflight's model (core/util.h fc_majority; diag/expect.c
 * port_config_peers, issue 37 item 1): the HCA's firmware and the module's
 * part number besides the MTU, trust, PFC and GID type.
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

static const char *const FOLDERS[] = { "001-nodeA-nodeB", "002-nodeA-nodeC", "003-nodeB-nodeC",
				       NULL };

/* nodeC's HCA firmware and module part differ from nodeA's and nodeB's:
 * each named once over every folder, at nodeC; the firmware likely, the
 * module possible (another part is not by itself a fault). */
static void test_rack_fw_module_peers(void **state)
{
	json_t *sets, *doc = rack("rack-fw-peers", FOLDERS, &sets);
	const json_t *e;
	size_t i;
	int fw = 0, pn = 0;

	(void)state;
	json_array_foreach(json_object_get(doc, "diagnosis"), i, e) {
		if (strcmp(str(e, "rule"), "port_config_peers"))
			continue;
		assert_string_equal(str(e, "subject"), "nodeC mlx5_0 port 1");
		if (!strcmp(str(e, "part"), "HCA (firmware)")) {
			fw++;
			assert_string_equal(str(e, "confidence"), "likely");
			assert_non_null(strstr(str(e, "evidence"),
					       "HCA firmware is 28.36.1010 where 2 of 2 other nodes have 28.39.1002"));
		} else {
			pn++;
			assert_string_equal(str(e, "part"), "cable or transceiver (another part)");
			assert_string_equal(str(e, "confidence"), "possible");
			assert_non_null(strstr(str(e, "evidence"), "LTA8531-PC+ where 2 of 2 other nodes have MMA1B00-C100D"));
		}
	}
	assert_int_equal(fw, 1);
	assert_int_equal(pn, 1);
	json_decref(doc);
	json_decref(sets);
}

/* Two nodes cannot outvote each other: the firmware of one pair's folder
 * alone names nobody across the rack. */
static void test_two_nodes_no_majority(void **state)
{
	static const char *const one[] = { "002-nodeA-nodeC", NULL };
	json_t *sets, *doc = rack("rack-fw-peers", one, &sets);

	(void)state;
	assert_null(by_rule(doc, "port_config_peers"));
	json_decref(doc);
	json_decref(sets);
}

/* The module's part number as ethtool -m prints it, SFF-8636 and CMIS. */
static void test_module_pn(void **state)
{
	char pn[48];

	(void)state;
	diag_module_pn("\tVendor name                               : Mellanox\n"
		       "\tVendor PN                                 : MMA1B00-C100D  \n", pn, sizeof(pn));
	assert_string_equal(pn, "MMA1B00-C100D");
	diag_module_pn("Identifier : 0x18 (QSFP-DD)\n", pn, sizeof(pn));
	assert_string_equal(pn, "");
	diag_module_pn(NULL, pn, sizeof(pn));
	assert_string_equal(pn, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rack_fw_module_peers),
		cmocka_unit_test(test_two_nodes_no_majority),
		cmocka_unit_test(test_module_pn),
	};

	return cmocka_run_group_tests_name("diag rack peers", tests, NULL, NULL);
}
