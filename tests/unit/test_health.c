/* fabcheck health (checks/preflight/health.h): the state file across runs
 * (an error counter that rose, a reset, carrier changes, a PCIe link that
 * trained lower) and the rack's recorded majority. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/health.h"
#include "core/out.h"

static json_t *probe_new(long long sym, long long pkts, long long carrier, int width)
{
	json_t *p = json_loads(
		"{\"devices\": [{\"name\": \"mlx5_0\", \"fw_ver\": \"28.39.1002\", \"ports\": ["
		" {\"port\": 1, \"state\": \"ACTIVE\", \"rate_gbps\": 400, \"netdev\": \"eth2\"}]}],"
		" \"netdevs\": {\"eth2\": {\"mtu\": 9000}}, \"hcas\": [{\"name\": \"mlx5_0\"}]}",
		0, NULL);

	json_object_set_new(p, "counters",
			    json_pack("{s:{s:I, s:I, s:I}}", "mlx5_0:1", "symbol_error",
				      (json_int_t)sym, "port_xmit_packets", (json_int_t)pkts,
				      "link_downed", (json_int_t)0));
	json_object_set_new(json_object_get(json_object_get(p, "netdevs"), "eth2"),
			    "carrier_changes", json_integer(carrier));
	json_object_set_new(json_array_get(json_object_get(p, "hcas"), 0), "pcie",
			    json_pack("{s:f, s:i}", "gts", 32.0, "width", width));
	return p;
}

/* The state written by one check, read back as the next one reads it. */
static json_t *round_trip(const json_t *probe, double t)
{
	json_t *st = hl_state_new("node7", probe, t);
	char *text = json_dumps(st, JSON_COMPACT);
	json_t *back = json_loads(text, 0, NULL);

	free(text);
	json_decref(st);
	assert_non_null(back);
	return back;
}

static int nfindings(const json_t *doc)
{
	return (int)json_array_size(json_object_get(doc, "findings"));
}

/* The one finding of @doc holds @text. */
static void one_finding(const json_t *doc, const char *text)
{
	assert_int_equal(nfindings(doc), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			       text));
}

static void test_state_across_runs(void **state)
{
	json_t *p1 = probe_new(10, 100, 2, 16), *st = round_trip(p1, 1000);
	json_t *p2 = probe_new(10, 5000, 2, 16), *p3 = probe_new(17, 6000, 2, 16);
	json_t *doc = fc_doc_new();

	(void)state;
	/* Traffic moved, errors did not: pass. */
	hl_check_state(doc, "node7", p2, st);
	assert_int_equal(nfindings(doc), 0);
	assert_string_equal(fc_verdict_name(fc_doc_verdict(doc)), "pass");
	/* symbol_error rose by 7 since the first check: fail, named. */
	hl_check_state(doc, "node7", p3, st);
	one_finding(doc, "symbol_error +7");
	assert_string_equal(fc_verdict_name(fc_doc_verdict(doc)), "fail");
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "blame"), 0), "device", ""),
			    "mlx5_0");
	json_decref(doc);
	/* The next check compares with the last one, not the first. */
	json_decref(st);
	st = round_trip(p3, 2000);
	doc = fc_doc_new();
	hl_check_state(doc, "node7", p3, st);
	assert_int_equal(nfindings(doc), 0);
	json_decref(doc);
	/* A reset (lower figures) is no rise. */
	doc = fc_doc_new();
	hl_check_state(doc, "node7", p1, st);
	assert_int_equal(nfindings(doc), 0);
	json_decref(doc);
	/* A state file's time of 1e300 is no time (not a time_t overflow,
	 * which UBSan stops on): said as an unknown time. */
	doc = fc_doc_new();
	{
		json_t *far = round_trip(p1, 1e300);

		hl_check_state(doc, "node7", p3, far);
		one_finding(doc, "since the last check (an unknown time)");
		json_decref(far);
	}
	json_decref(doc);
	/* No state: nothing to compare. */
	doc = fc_doc_new();
	hl_check_state(doc, "node7", p3, NULL);
	assert_int_equal(nfindings(doc), 0);
	json_decref(doc);
	json_decref(st);
	json_decref(p1);
	json_decref(p2);
	json_decref(p3);
}

static void test_carrier_and_pcie(void **state)
{
	json_t *p1 = probe_new(0, 0, 2, 16), *st = round_trip(p1, 1000);
	json_t *flap = probe_new(0, 0, 4, 16), *narrow = probe_new(0, 0, 2, 8);
	json_t *doc = fc_doc_new();

	(void)state;
	hl_check_state(doc, "node7", flap, st);
	one_finding(doc, "eth2 link went down and up since the last check");
	/* carrier_changes 2 at the last check, 4 now: +2 */
	one_finding(doc, "): carrier_changes +2: check the cable, the transceiver and the switch port's log");
	json_decref(doc);
	doc = fc_doc_new();
	hl_check_state(doc, "node7", narrow, st);
	one_finding(doc, "trained to 32 GT/s x8 where it was 32 GT/s x16");
	json_decref(doc);
	json_decref(st);
	json_decref(p1);
	json_decref(flap);
	json_decref(narrow);
}

static void test_reference(void **state)
{
	json_t *ref = json_loads(
		"{\"nodes\": ["
		" {\"node\": \"a\", \"ports\": [{\"device\": \"mlx5_0\", \"port\": 1, \"state\": \"ACTIVE\","
		"  \"rate_gbps\": 400, \"netdev_mtu\": 9000, \"fw_ver\": \"28.39.1002\"}]},"
		" {\"node\": \"b\", \"ports\": [{\"device\": \"mlx5_0\", \"port\": 1, \"state\": \"ACTIVE\","
		"  \"rate_gbps\": 400, \"netdev_mtu\": 9000, \"fw_ver\": \"28.39.1002\"}]},"
		" {\"node\": \"c\", \"ports\": [{\"device\": \"mlx5_0\", \"port\": 1, \"state\": \"ACTIVE\","
		"  \"rate_gbps\": 200, \"netdev_mtu\": 9000, \"fw_ver\": \"28.40.1000\"}]}]}",
		0, NULL);
	json_t *p = probe_new(0, 0, 0, 16), *doc = fc_doc_new();

	(void)state;
	assert_non_null(ref);
	hl_check_reference(doc, "node7", p, ref, "ref.json");
	assert_int_equal(nfindings(doc), 0);
	json_decref(doc);
	json_object_set_new(json_object_get(json_object_get(p, "netdevs"), "eth2"), "mtu",
			    json_integer(1500));
	json_object_set_new(json_array_get(json_object_get(p, "devices"), 0), "fw_ver",
			    json_string("28.40.1000"));
	doc = fc_doc_new();
	hl_check_reference(doc, "node7", p, ref, "ref.json");
	assert_int_equal(nfindings(doc), 2);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			       "firmware is 28.40.1000 where the rack's recorded majority (ref.json) is 28.39.1002"));
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "blame"), 1), "part", ""), "mtu");
	assert_string_equal(fc_jstr(json_array_get(json_object_get(doc, "blame"), 1), "device", ""), "eth2");
	json_decref(doc);
	json_decref(p);
	json_decref(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_across_runs),
		cmocka_unit_test(test_carrier_and_pcie),
		cmocka_unit_test(test_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
