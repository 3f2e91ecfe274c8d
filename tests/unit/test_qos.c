/* QoS counters and DCB settings parsed from recorded ConnectX-6/7 outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/qos.h"
#include "core/out.h"

#include "tests/unit/finding.h"

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "tests/data/qos/%s", name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static json_t *parse_file(const char *name)
{
	char *t = slurp(name);
	json_t *o = qos_parse_ethtool_s(t);

	free(t);
	assert_non_null(o);
	return o;
}

static void test_ethtool_parse(void **state)
{
	json_t *o = parse_file("ethtool-S_cx6_before.txt");

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(o, "rx_prio3_pause")), 10);
	assert_int_equal(json_integer_value(json_object_get(o, "rx_vport_rdma_unicast_bytes")),
			 37192837465LL);
	assert_null(json_object_get(o, "NIC statistics"));
	assert_int_equal(json_object_size(o), 26);
	json_decref(o);
	assert_null(qos_parse_ethtool_s("no counters here\n"));
	assert_null(qos_parse_ethtool_s(""));
	/* Junk values and names with spaces are not counters. */
	o = qos_parse_ethtool_s("NIC statistics:\n  a: 1x\n  b c: 2\n  d: 3\n");
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 1);
	json_decref(o);
}

static void test_delta_and_reset(void **state)
{
	json_t *b = parse_file("ethtool-S_cx6_before.txt");
	json_t *a = parse_file("ethtool-S_cx6_after.txt");
	json_t *reset, *d;

	(void)state;
	d = qos_delta(b, a, &reset);
	assert_int_equal(json_integer_value(json_object_get(d, "rx_prio5_pause")), 28);
	assert_int_equal(json_integer_value(json_object_get(d, "rx_pause_ctrl_phy")), 28);
	assert_null(json_object_get(d, "rx_prio3_pause")); /* unchanged */
	assert_int_equal(json_array_size(reset), 0);
	json_decref(d);
	json_decref(reset);
	/* Swapped: every counter that moved went backwards. */
	d = qos_delta(a, b, &reset);
	assert_int_equal(json_object_size(d), 0);
	assert_true(json_array_size(reset) > 5);
	json_decref(d);
	json_decref(reset);
	json_decref(a);
	json_decref(b);
}

static void test_pause_on_wrong_priority(void **state)
{
	json_t *b = parse_file("ethtool-S_cx6_before.txt");
	json_t *a = parse_file("ethtool-S_cx6_after.txt");
	json_t *d = qos_delta(b, a, NULL);
	json_t *doc = fc_doc_new();

	(void)state;
	/* Traffic class 106 = DSCP 26 -> priority 3; pauses rose on 5. */
	assert_int_equal(qos_tclass_priority(106, NULL), 3);
	qos_counter_findings(doc, "nodeA", "mlx5_0", NULL, d, 106);
	assert_true(has_finding_part(doc, "rx_prio5_pause rose by 28"));
	assert_true(has_finding_part(doc, "priority 3"));
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(doc);
	/* Traffic on priority 5 (DSCP 40 = tclass 160): nothing to say. */
	doc = fc_doc_new();
	qos_counter_findings(doc, "nodeA", "mlx5_0", NULL, d, 160);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	json_decref(doc);
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

static void test_congestion_findings(void **state)
{
	json_t *hw = json_pack("{s:I, s:I, s:I}", "np_ecn_marked_roce_packets",
			       (json_int_t)500, "np_cnp_sent", (json_int_t)0,
			       "packet_seq_err", (json_int_t)3);
	json_t *eth = json_pack("{s:I}", "tx_prio3_pause", (json_int_t)7);
	json_t *doc = fc_doc_new();

	(void)state;
	qos_counter_findings(doc, "nodeB", "mlx5_1", hw, NULL, 106);
	assert_true(has_finding_part(doc, "no CNP sent"));
	assert_true(has_finding_part(doc, "packet_seq_err rose by 3:"));
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(doc);
	/* Same loss while PFC was active on the traffic's priority: a failure. */
	doc = fc_doc_new();
	qos_counter_findings(doc, "nodeB", "mlx5_1", hw, eth, 106);
	assert_true(has_finding_part(doc, "on lossless priority 3"));
	assert_int_equal(fc_doc_verdict(doc), FC_FAIL);
	json_decref(doc);
	/* CNPs sent and handled: clean. */
	json_object_set_new(hw, "np_cnp_sent", json_integer(480));
	json_object_del(hw, "packet_seq_err");
	doc = fc_doc_new();
	qos_counter_findings(doc, "nodeB", "mlx5_1", hw, eth, 106);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	json_decref(doc);
	json_object_set_new(hw, "rp_cnp_ignored", json_integer(9));
	doc = fc_doc_new();
	qos_counter_findings(doc, "nodeB", "mlx5_1", hw, NULL, -1);
	assert_true(has_finding_part(doc, "CNPs ignored"));
	json_decref(doc);
	json_decref(hw);
	json_decref(eth);
}

static void test_mlnx_qos(void **state)
{
	struct qos_dcb dcb;
	char *t = slurp("mlnx_qos_cx7_dscp_pfc3.txt");
	json_t *doc;

	(void)state;
	assert_int_equal(qos_parse_mlnx_qos(t, &dcb), 0);
	free(t);
	assert_string_equal(dcb.trust, "dscp");
	assert_true(dcb.pfc_known && dcb.dscp_known);
	assert_int_equal(dcb.pfc_enabled[3], 1);
	assert_int_equal(dcb.pfc_enabled[0], 0);
	assert_int_equal(dcb.dscp2prio[26], 3);
	assert_int_equal(dcb.dscp2prio[46], 5);
	doc = fc_doc_new();
	qos_dcb_findings(doc, "nodeA", "ens1f0np0", &dcb, 106);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	qos_dcb_findings(doc, "nodeA", "ens1f0np0", &dcb, 0);
	assert_true(has_finding_part(doc, "maps to priority 0, which PFC does not protect"));
	assert_int_equal(fc_doc_verdict(doc), FC_FAIL);
	json_decref(doc);

	t = slurp("mlnx_qos_cx6_pcp_nopfc.txt");
	assert_int_equal(qos_parse_mlnx_qos(t, &dcb), 0);
	free(t);
	assert_string_equal(dcb.trust, "pcp");
	doc = fc_doc_new();
	qos_dcb_findings(doc, "nodeC", "ens2", &dcb, 106);
	assert_true(has_finding_part(doc, "trust mode is pcp"));
	assert_true(has_finding_part(doc, "PFC is enabled on no priority"));
	json_decref(doc);

	/* DSCP 26 remapped to priority 5, PFC on 3 only. */
	t = slurp("mlnx_qos_remapped_dscp26_prio5.txt");
	assert_int_equal(qos_parse_mlnx_qos(t, &dcb), 0);
	free(t);
	assert_int_equal(dcb.dscp2prio[26], 5);
	assert_int_equal(dcb.dscp2prio[27], 3);
	doc = fc_doc_new();
	qos_dcb_findings(doc, "nodeD", "ens3", &dcb, 106);
	assert_true(has_finding_part(doc, "maps to priority 5"));
	json_decref(doc);

	assert_int_not_equal(qos_parse_mlnx_qos("hello\nworld\n", &dcb), 0);
}

static void test_names_and_deltas(void **state)
{
	json_t *b = parse_file("ethtool-S_cx6_before.txt");
	json_t *a = parse_file("ethtool-S_cx6_after.txt");
	json_t *d, *o;

	(void)state;
	assert_true(qos_is_cc_counter("np_ecn_marked_roce_packets"));
	assert_true(qos_is_cc_counter("rp_cnp_ignored"));
	assert_true(qos_is_cc_counter("implied_nak_seq_err"));
	assert_false(qos_is_cc_counter("rx_write_requests"));
	assert_false(qos_is_cc_counter("np_cnp_sent_x"));
	assert_true(qos_is_netdev_counter("rx_prio3_pause"));
	assert_true(qos_is_netdev_counter("tx_pause_ctrl_phy"));
	assert_true(qos_is_netdev_counter("rx_discards_phy"));
	assert_true(qos_is_netdev_counter("rx_out_of_buffer"));
	assert_false(qos_is_netdev_counter("rx_prio3_bytes"));
	assert_false(qos_is_netdev_counter("rx_packets"));
	/* Kept counters with their deltas, zeros included. */
	d = qos_delta_keep(b, a, qos_is_netdev_counter);
	assert_int_equal(json_integer_value(json_object_get(d, "rx_prio5_pause")), 28);
	assert_non_null(json_object_get(d, "rx_prio3_pause"));
	assert_int_equal(json_integer_value(json_object_get(d, "rx_prio3_pause")), 0);
	assert_null(json_object_get(d, "rx_packets"));
	assert_int_equal(json_object_size(d), 10);
	json_decref(d);
	/* Backwards (a reset): left out. */
	d = qos_delta_keep(a, b, NULL);
	assert_null(json_object_get(d, "rx_prio5_pause"));
	assert_int_equal(json_integer_value(json_object_get(d, "module_unplug")), 0);
	json_decref(d);
	/* Traffic class 106: DSCP 26, ECT(0). */
	o = json_object();
	qos_tclass_json(o, 106);
	assert_int_equal(json_integer_value(json_object_get(o, "dscp")), 26);
	assert_int_equal(json_integer_value(json_object_get(o, "ecn")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "tclass")), 106);
	json_decref(o);
	/* Lossless: PFC paused the traffic's priority. */
	o = json_pack("{s:I}", "tx_prio3_pause", (json_int_t)7);
	assert_true(qos_lossless(o, 106));
	assert_false(qos_lossless(o, 160));
	assert_false(qos_lossless(o, -1));
	assert_false(qos_lossless(NULL, 106));
	json_decref(o);
	json_decref(a);
	json_decref(b);
}

static void test_discards(void **state)
{
	json_t *eth = json_pack("{s:I, s:I}", "rx_discards_phy", (json_int_t)5,
				"tx_discards_phy", (json_int_t)0);
	json_t *doc = fc_doc_new();

	(void)state;
	qos_counter_findings(doc, "nodeA", "mlx5_0", NULL, eth, 106);
	assert_true(has_finding_part(doc, "rx_discards_phy rose by 5: the NIC dropped packets"));
	assert_false(has_finding_part(doc, "tx_discards_phy"));
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(doc);
	/* The virtio NIC of the rack: counters, but none of the kept ones. */
	{
		json_t *v = parse_file("ethtool-S_virtio.txt"), *k;

		k = qos_delta_keep(v, v, qos_is_netdev_counter);
		assert_int_equal(json_object_size(k), 0);
		assert_true(json_object_size(v) > 5);
		json_decref(k);
		json_decref(v);
	}
	json_decref(eth);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethtool_parse),
		cmocka_unit_test(test_delta_and_reset),
		cmocka_unit_test(test_pause_on_wrong_priority),
		cmocka_unit_test(test_congestion_findings),
		cmocka_unit_test(test_mlnx_qos),
		cmocka_unit_test(test_names_and_deltas),
		cmocka_unit_test(test_discards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
