/*
 * preflight's judgement of each HCA's firmware state and health reporters
 * (checks/preflight/pf_fwstate.c) on a rack of three copies of a recorded
 * ConnectX-7 node (tests/data/preflight/gpu-node.json) whose mlx5_0 carries
 * what the real captures of tests/real/devlink/ print (`devlink dev info`
 * of an mlx5 card at 28.41.1000, `devlink health show` of mlx5's fw and tx
 * reporters), changed one field at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "diag/diag.h"

#include "tests/unit/pf_rec.h"

#define REAL "tests/real/devlink/"
#define INFO_OK REAL "lore-20250318_mlx5-2pf_dev-info_fw-28.41.1000_running-eq-stored.txt"
#define INFO_FAILED REAL "lore-20260408_mlx5_dev-info_stored-255.255.65535_query-failed.txt"
#define HEALTH_OK REAL "lore-20200710_mlx5_health-show_fw-and-port-tx-healthy.txt"
#define HEALTH_ERR REAL "lore-20200915_mlxsw_health_fw-fatal-in-error.txt"

/* The HCA's "devlink" as the probe builds it: the first PCI function of
 * the info capture @info, the reporters of the health capture @health. */
static json_t *devlink_of(const char *info, const char *health)
{
	char *ti = slurp(info), *th = slurp(health);
	json_t *li = diag_parse_devlink_info(ti), *dl;

	assert_non_null(li);
	dl = json_deep_copy(json_array_get(li, 0));
	json_object_set_new(dl, "health", diag_parse_devlink(th));
	json_decref(li);
	free(ti);
	free(th);
	return dl;
}

/* The first HCA of node @i's probe (mlx5_0). */
static json_t *hca0(json_t *nodes, int i)
{
	return json_array_get(json_object_get(probe_of(nodes, i), "hcas"), 0);
}

/* Three copies of the recorded node, each HCA with the healthy captures. */
static json_t *rack3(void)
{
	json_t *p = rec_doc("tests/data/preflight/gpu-node.json"), *nodes = rack(p, 3);

	for (int i = 0; i < 3; i++)
		json_object_set_new(hca0(nodes, i), "devlink", devlink_of(INFO_OK, HEALTH_OK));
	json_decref(p);
	return nodes;
}

static json_t *dl_of(json_t *nodes, int i)
{
	return json_object_get(hca0(nodes, i), "devlink");
}

/* The real captures on every node: nothing about firmware state. */
static void test_same_state_quiet(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f = judge(nodes, &lab, &doc);

	(void)state;
	assert_null(strstr(f, "devlink"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* nodeB flashed 28.43.1000 and was not reset: named once, with the reset. */
static void test_pending_update(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f;

	(void)state;
	json_object_set_new(dl_of(nodes, 1), "stored", json_string("28.43.1000"));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: mlx5_0 (pci/0000:08:00.0) runs firmware 28.41.1000 but 28.43.1000 is stored in its flash (devlink dev info): the update is not active until the HCA is reset: run 'mlxfwreset -d 0000:08:00.0 reset'"));
	/* one finding for the one fault: the stored comparison leaves it */
	assert_null(strstr(f, "nodeB: mlx5_0 has firmware 28.43.1000 stored"));
	assert_null(strstr(f, "nodeA: mlx5_0 (pci"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* Every node but nodeC flashed 28.43.1000: nodeC is the odd one after the
 * next reset, the others each have a pending update. */
static void test_stored_odd(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f;

	(void)state;
	json_object_set_new(dl_of(nodes, 0), "stored", json_string("28.43.1000"));
	json_object_set_new(dl_of(nodes, 1), "stored", json_string("28.43.1000"));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeC: mlx5_0 has firmware 28.41.1000 stored in its flash where 2 other nodes have 28.43.1000 (devlink dev info)"));
	assert_non_null(strstr(f, "nodeA: mlx5_0 (pci/0000:08:00.0) runs firmware 28.41.1000 but 28.43.1000 is stored"));
	assert_non_null(strstr(f, "nodeB: mlx5_0 (pci/0000:08:00.0) runs firmware 28.41.1000 but 28.43.1000 is stored"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* The real capture whose stored version the driver could not read
 * (255.255.65535): not an update to activate, a flash to check. */
static void test_unreadable(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f;

	(void)state;
	json_object_set_new(hca0(nodes, 2), "devlink", devlink_of(INFO_FAILED, HEALTH_OK));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeC: mlx5_0 (pci/0000:00:06.0) runs firmware 22.41.0188, stored 255.255.65535: the driver could not read a firmware version"));
	assert_null(strstr(f, "is not active until the HCA is reset"));
	/* its board differs too: another PSID than its peers' */
	assert_non_null(strstr(f, "nodeC: mlx5_0 board (PSID, devlink dev info) is MT_0000000436 where the other nodes have MT_0000000894"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* nodeC is of another model: its HCA is mlx5_4 (the HCA, its device and its
 * port renamed), on the same subnet as the others' mlx5_0 (every port on
 * 10.0.0.0/24, so the rails match them by it), and its board is another
 * (the real failed-query capture's PSID MT_0000000436). Compared with the
 * HCA on the same rail it is named, as pf_rails.c names a rail's HCA ("its
 * HCA on rail 0 (RAIL)"); by name it had no peer. */
static void test_shifted_name_by_rail(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f;

	(void)state;
	for (int i = 0; i < 3; i++) {
		json_t *dev = json_array_get(json_object_get(probe_of(nodes, i), "devices"), 0);

		json_object_set_new(port_of(nodes, i, 0), "subnet", json_string("10.0.0.0/24"));
		if (i != 2)
			continue;
		json_object_set_new(dev, "name", json_string("mlx5_4"));
		json_object_set_new(port_of(nodes, i, 0), "device", json_string("mlx5_4"));
		json_object_set_new(hca0(nodes, i), "name", json_string("mlx5_4"));
		json_object_set_new(hca0(nodes, i), "devlink", devlink_of(INFO_FAILED, HEALTH_OK));
	}
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeC: its HCA on rail 0 (mlx5_0, the rail's name) board (PSID, devlink dev info) is MT_0000000436 where the other nodes have MT_0000000894"));
	assert_null(strstr(f, "nodeA: its HCA on rail 0"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

/* A reporter in error (the real mlxsw fw_fatal capture) on a rail HCA: a
 * failure naming the reporter, blamed for a drain. */
static void test_reporter_in_error(void **state)
{
	json_t *nodes = rack3(), *doc, *b;
	char *f, *th = slurp(HEALTH_ERR);

	(void)state;
	json_object_set_new(dl_of(nodes, 1), "health", diag_parse_devlink(th));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeB: mlx5_0 health reporter fw_fatal of pci/0000:03:00.0 is in error (1 errors, devlink health show): read 'devlink health diagnose pci/0000:03:00.0 reporter fw_fatal'"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	b = json_object_get(doc, "blame");
	assert_int_equal(json_array_size(b), 1);
	assert_string_equal(fc_jstr(json_array_get(b, 0), "part", ""), "HCA health");
	assert_string_equal(fc_jstr(json_array_get(b, 0), "node", ""), "nodeB");
	free(f);
	free(th);
	json_decref(doc);
	json_decref(nodes);
}

/* A healthy reporter that recovered from errors its peers did not have. */
static void test_error_count_odd(void **state)
{
	json_t *nodes = rack3(), *doc;
	char *f;

	(void)state;
	json_object_set_new(json_array_get(json_object_get(dl_of(nodes, 2), "health"), 1), "error",
			    json_integer(3));
	f = judge(nodes, &lab, &doc);
	assert_non_null(strstr(f, "nodeC: mlx5_0 health reporter tx's error count (devlink health show) is 3 where the other nodes have 0"));
	assert_null(strstr(f, "reporter fw's error count"));
	free(f);
	json_decref(doc);
	json_decref(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_state_quiet),  cmocka_unit_test(test_pending_update),
		cmocka_unit_test(test_stored_odd),	  cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_reporter_in_error), cmocka_unit_test(test_error_count_odd),
		cmocka_unit_test(test_shifted_name_by_rail),
	};

	return cmocka_run_group_tests_name("preflight firmware state", tests, NULL, NULL);
}
