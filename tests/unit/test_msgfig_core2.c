/* Messages with figures of pair's verdict (core/pairv.c), the incast's
 * outcomes (core/congest.c), the store's pair rows and a baseline judged
 * over a stored run (store/, baseline/), fed known figures (issue 39 item
 * 5; scripts/msg_catalogue.py lists them) and checked whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/bl_pair.h"
#include "core/baseline.h"
#include "core/congest.h"
#include "core/log.h"
#include "core/out.h"
#include "core/pairv.h"
#include "store/store.h"

static int has_finding(const json_t *doc, const char *needle)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (strstr(json_string_value(f), needle))
			return 1;
	json_dumpf(json_object_get(doc, "findings"), stderr, JSON_INDENT(1));
	return 0;
}

/* A pair of a 400 Gb/s port (nodeA) and a 200 Gb/s one (nodeB, payload
 * ceiling 190.125 Gb/s at path MTU 2048 B with 70 B of headers), 150 Gb/s
 * measured at 1 MiB. */
static json_t *pair_doc(void)
{
	json_t *doc = fc_doc_new();

	json_object_set_new(doc, "a", json_pack("{s:s, s:s, s:i, s:i, s:f, s:f}", "node", "nodeA",
						"device", "mlx5_0", "port", 1, "mtu", 4096,
						"rate_gbps", 400.0, "payload_gbps", 385.0));
	json_object_set_new(doc, "b", json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:{s:i, s:i}}",
						"node", "nodeB", "device", "mlx5_1", "port", 1,
						"mtu", 2048, "rate_gbps", 200.0, "payload_gbps",
						190.125, "payload", "mtu", 2048, "header_bytes", 70));
	json_object_set_new(doc, "results",
			    json_pack("[{s:s, s:s, s:i, s:f, s:f}]", "test", "write", "metric", "bw",
				      "size_bytes", 1 << 20, "gbps", 150.0, "a_to_b_gbps", 150.0));
	return doc;
}

/* The floor from the slower port's payload ceiling: 85% of 190.125 Gb/s,
 * its 200 Gb/s, MTU 2048 B, 70 B of headers. */
static void test_pair_payload_floor(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 85 };
	json_t *doc = pair_doc();

	(void)state;
	fc_pair_verdict(doc, &lim);
	assert_true(has_finding(doc, "(85% of 190.125 Gb/s, the payload ceiling of the slower port's 200 Gb/s at path MTU 2048 B with 70 B of headers a packet)"));
	json_decref(doc);
}

/* nodeA's HCA on a PCIe link trained down to 8 GT/s x8 (at most about 61
 * Gb/s), below the slower port's payload ceiling of 190.125 Gb/s. */
static void test_pair_pcie_below(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 85 };
	json_t *doc = pair_doc();

	(void)state;
	json_object_set_new(json_object_get(doc, "a"), "pcie_ceiling",
			    json_pack("{s:f, s:s, s:s, s:f, s:i, s:i, s:b}", "gbps", 61.0, "role",
				      "hca", "bdf", "0000:3b:00.0", "gts", 8.0, "width", 8,
				      "max_payload_bytes", 512, "downtrained", 1));
	fc_pair_verdict(doc, &lim);
	assert_true(has_finding(doc, "nodeA mlx5_0 (PCIe 0000:3b:00.0) trained to 8 GT/s x8 (trained down), max payload 512 B: at most about 61 Gb/s, below the port's payload ceiling of 190.125 Gb/s: bandwidth is judged against the PCIe ceiling; the link trained below its capability"));
	json_decref(doc);
}

/* An incast into nodeD whose own port dropped 1234 packets for want of
 * receive buffers. */
static void test_incast_drain(void **state)
{
	static const char *const senders[] = { "nodeA", "nodeB", "nodeC" };
	const double g[] = { 30, 31, 29 };
	struct fc_incast_obs o = { .receiver = "nodeD", .nsenders = 3, .sender = senders,
				   .gbps = g, .ceiling_gbps = 96, .rx_drop_receiver = 1234 };
	json_t *out = json_object(), *e;
	size_t i;
	int seen = 0;

	(void)state;
	assert_int_equal(fc_incast_judge(&o, out), 2);
	json_array_foreach(json_object_get(out, "outcomes"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "outcome")), "receiver cannot drain")) {
			assert_string_equal(json_string_value(json_object_get(e, "evidence")), "1234 packets dropped for want of receive buffers on nodeD's own port: its host (PCIe, receive queues) cannot drain the port");
			seen++;
		}
	assert_int_equal(seen, 1);
	json_decref(out);
}

static char logged[1024];

static void keep(enum fc_log_level lvl, const char *msg)
{
	if (lvl == FC_LOG_ERR)
		snprintf(logged, sizeof(logged), "%s", msg);
}

/* A store with no pair row 99; then its pairs table dropped under it: run
 * 7's results cannot be read back for a baseline. */
static void test_store_rows(void **state)
{
	char dir[] = "/tmp/fc-msgfig-XXXXXX", path[128], cmd[512], want[256];
	struct fc_baseline bl = { 0 };
	struct fc_store *st;
	json_t *doc = fc_doc_new();

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.db", dir);
	st = fc_store_open(path);
	assert_non_null(st);
	fc_log_hook = keep;
	assert_null(fc_store_pair_doc(st, 99));
	snprintf(want, sizeof(want), "store %s: no pair row 99", path);
	assert_string_equal(logged, want);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
		 "c.execute(\"DROP TABLE links\"); c.execute(\"DROP TABLE pairs\"); c.commit()' %s",
		 path);
	assert_int_equal(system(cmd), 0);
	fc_bl_judge_run(st, 7, &bl, "fleet.json", doc);
	fc_log_hook = NULL;
	assert_true(has_finding(doc, "the results of run 7 could not be read back for the baseline fleet.json"));
	fc_store_close(st);
	json_decref(doc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_payload_floor),
		cmocka_unit_test(test_pair_pcie_below),
		cmocka_unit_test(test_incast_drain),
		cmocka_unit_test(test_store_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
