/*
 * A port against what it should run at (diag/expect.c, issue 37 item 1):
 * its module's lanes, the same port on its peers, a transmitter fault
 * named at the end that transmits, physical errors judged as a rate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diag/diag.h"
#include "diag_util.h"

/* The entry whose subject starts with @node, or NULL. */
static const json_t *naming(const json_t *doc, const char *node)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (!strncmp(str(e, "subject"), node, strlen(node)))
			return e;
	return NULL;
}

/* 400G on 2 of its module's 4 lanes, lane 3's transmitter faulted, the
 * test passed at 90% of the reduced rate: named before any test, at the
 * module's lane 3 transmitter, and the reduced rate said. */
static void test_tx_fault_two_of_four(void **state)
{
	json_t *doc = diagnose("cmis-tx-fault-2of4");
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "port_below");
	assert_string_equal(str(d, "subject"), "nodeA mlx5_0 port 1");
	assert_string_equal(str(d, "part"), "transceiver (lane 3 transmitter)");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_non_null(strstr(str(d, "evidence"),
			       "runs at 200 Gb/s on 2 lanes where it should run at 400 Gb/s on 4 lanes"));
	assert_non_null(strstr(str(d, "evidence"), "transmitter fault on lane 3"));
	assert_non_null(strstr(str(d, "evidence"), "the other node (nodeB) runs the same port at 400 Gb/s"));
	assert_non_null(strstr(str(d, "evidence"), "judged against 200 Gb/s, not the 400 Gb/s"));
	assert_non_null(strstr(str(d, "next"), "Tx fault on lane 3"));
	assert_true(has_note(doc, 0, "module lane 3 reports a transmitter fault"));
	assert_false(has_note(doc, 0, "module lanes 3"));
	assert_null(naming(doc, "nodeB"));
	json_decref(doc);
}

/* The switch port counts errors on what this port sends and this port's
 * module reports a transmitter fault: this module first, the switch port
 * second. */
static void test_far_errors_tx_fault(void **state)
{
	json_t *doc = diagnose("ib-far-tx-fault");
	const json_t *d = first(doc), *sw = entry(doc, 1);

	(void)state;
	assert_string_equal(str(d, "rule"), "far_end");
	assert_string_equal(str(d, "subject"), "nodeA mlx5_1 port 1");
	assert_string_equal(str(d, "part"), "transceiver (lane 2 transmitter)");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_non_null(strstr(str(d, "evidence"), "the fault is at the end that transmits"));
	assert_string_equal(str(sw, "part"), "the switch port at the other end (or its module)");
	assert_string_equal(str(sw, "confidence"), "possible");
	json_decref(doc);
}

/* nodeA's port on 2 lanes where nodeB's and nodeC's run on 4: named once
 * over every folder, likely; in each of its folders, possible (one peer). */
static void test_rack_peers(void **state)
{
	static const char *const folders[] = { "001-nodeA-nodeB", "002-nodeA-nodeC",
					       "003-nodeB-nodeC", NULL };
	json_t *sets, *doc = rack("rack-peers-2x", folders, &sets);
	const json_t *d = by_rule(doc, "port_peers"), *e;
	size_t i, n = 0;

	(void)state;
	assert_non_null(d);
	assert_string_equal(str(d, "subject"), "nodeA mlx5_0 port 1");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_string_equal(str(d, "part"), "cable or transceiver (lanes)");
	assert_non_null(strstr(str(d, "evidence"), "2 of 2 other nodes (nodeB, nodeC) run the same port at 400 Gb/s on 4 lanes"));
	json_array_foreach(json_object_get(doc, "diagnosis"), i, e) {
		assert_string_equal(str(e, "subject"), "nodeA mlx5_0 port 1");
		n += !strcmp(str(e, "rule"), "port_below") && !strcmp(str(e, "confidence"), "possible");
	}
	assert_int_equal(n, 2);
	json_decref(doc);
	json_decref(sets);
}

/* nodeC's MTU and trust mode differ from both other nodes' on the same
 * port: named once each over every folder, nodeC alone. */
static void test_rack_config_peers(void **state)
{
	static const char *const folders[] = { "001-nodeA-nodeB", "002-nodeA-nodeC",
					       "003-nodeB-nodeC", NULL };
	json_t *sets, *doc = rack("rack-config-peers", folders, &sets);
	const json_t *e;
	size_t i, n = 0;

	(void)state;
	json_array_foreach(json_object_get(doc, "diagnosis"), i, e) {
		if (strcmp(str(e, "rule"), "port_config_peers"))
			continue;
		n++;
		assert_string_equal(str(e, "subject"), "nodeC mlx5_0 port 1");
		assert_string_equal(str(e, "confidence"), "likely");
	}
	assert_int_equal(n, 2);
	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (!strcmp(str(e, "part"), "configuration (MTU)") && !strcmp(str(e, "rule"), "port_config_peers"))
			assert_non_null(strstr(str(e, "evidence"), "netdev MTU is 1500 where 2 of 2 other nodes have 9000"));
		else if (!strcmp(str(e, "rule"), "port_config_peers"))
			assert_non_null(strstr(str(e, "evidence"), "trust mode is pcp where 2 of 2 other nodes have dscp"));
	json_decref(doc);
	json_decref(sets);
}

/* The model alone: peers, a module with light on lanes the link does not
 * use (a breakout's other port may light them), the application. */
static void test_model(void **state)
{
	struct diag_module m;
	struct diag_expect e;
	struct diag_peer_rate two[] = { { "nodeB", 400, 4 }, { "nodeC", 400, 4 } };
	struct diag_peer_rate split[] = { { "nodeB", 400, 4 }, { "nodeC", 200, 2 }, { "nodeD", 200, 2 } };

	(void)state;
	diag_expect_rate(200, 2, NULL, two, 2, &e);
	assert_true(e.gbps == 400 && e.width == 4 && e.likely && e.peers_at == 2);
	diag_expect_rate(200, 2, NULL, two, 1, &e);
	assert_true(e.gbps == 400 && !e.likely);
	diag_expect_rate(200, 2, NULL, split, 3, &e); /* most run at 200: not below */
	assert_true(e.gbps == 0);
	diag_expect_rate(400, 4, NULL, two, 2, &e);
	assert_true(e.gbps == 0);
	/* four lanes lit on a 2-lane link, no fault, no application: possible */
	assert_int_equal(diag_parse_module("\tRcvr signal avg optical power (Channel 1) : 1.0 mW / 0 dBm\n"
					   "\tRcvr signal avg optical power (Channel 2) : 1.0 mW / 0 dBm\n"
					   "\tRcvr signal avg optical power (Channel 3) : 1.0 mW / 0 dBm\n"
					   "\tRcvr signal avg optical power (Channel 4) : 1.0 mW / 0 dBm\n"
					   "\tLaser tx bias current (Channel 1) : 7.0 mA\n"
					   "\tLaser tx bias current (Channel 2) : 7.0 mA\n"
					   "\tLaser tx bias current (Channel 3) : 7.0 mA\n"
					   "\tLaser tx bias current (Channel 4) : 7.0 mA\n",
					   &m), 0);
	diag_module_judge(&m, 2);
	diag_expect_rate(200, 2, &m, NULL, 0, &e);
	assert_true(e.gbps == 400 && e.width == 4 && !e.likely);
	/* the active application on lanes 1-2: the link uses all it is set for */
	m.app_lanes = 0x3;
	diag_expect_rate(200, 2, &m, NULL, 0, &e);
	assert_true(e.gbps == 0);
	/* on 4 lanes: at its module's width */
	m.app_lanes = 0;
	diag_expect_rate(400, 4, &m, NULL, 0, &e);
	assert_true(e.gbps == 0);
}

/* ethtool's CMIS lane lists (cmis.c cmis_show_signals). */
static void test_parse_lane_lists(void **state)
{
	struct diag_module m;

	(void)state;
	assert_int_equal(diag_parse_module("\tModule temperature                        : 40.00 degrees C / 104.00 degrees F\n"
					   "\tRx loss of signal                         : [ No, No, No, Yes, No, No, No, No ]\n"
					   "\tTx loss of signal                         : None\n"
					   "\tTx fault                                  : [ Yes, No, Yes, No, No, No, No, No ]\n",
					   &m), 0);
	assert_int_equal(m.tx_fault, 0x5);
	assert_int_equal(m.rx_los, 0x8);
	assert_int_equal(m.tx_los, 0);
}

/* Errors under their limit per bit are not a suspect, so loss with them is
 * still judged: the drops row names the buffers. */
static void test_loss_with_errors_under_limit(void **state)
{
	static const char *b[] = { "time", "100", "rate", "100 Gb/sec (4X EDR)", "link_layer",
				   "Ethernet", "counters/symbol_error", "0", "hw_counters/out_of_sequence",
				   "0", "hw_counters/packet_seq_err", "0", NULL };
	static const char *a[] = { "time", "160", "rate", "100 Gb/sec (4X EDR)", "link_layer",
				   "Ethernet", "counters/symbol_error", "1", "hw_counters/out_of_sequence",
				   "5000", "hw_counters/packet_seq_err", "4000", NULL };
	json_t *doc = run_port(b, a);

	(void)state;
	assert_null(by_rule(doc, "phys_errors"));
	assert_non_null(by_rule(doc, "drops"));
	json_decref(doc);
}

#define ETH_S(name, n) "NIC statistics:\n     " name ": " n "\n     rx_packets_phy: " n "000\n"

/* A pair whose loss the counters place: @a_* and @b_* nodeA's and nodeB's
 * files before and after. */
static json_t *pair_loss(const char **ab, const char **aa, const char **bb, const char **ba)
{
	const struct side sd[] = { { "nodeA", "rxe0", ab, aa }, { "nodeB", "rxe0", bb, ba } };

	return run_sides(pair_doc(4096, 4096, 0, 1), sd, 2);
}

/* rx_out_of_buffer moved on nodeB alone, nothing else: dropped at nodeB's
 * receive queues, so what nodeA sent to nodeB; not "buffers or QoS". */
static void test_drop_at_receive_queues(void **state)
{
	static const char *ab[] = { "time", "100", "link_layer", "Ethernet", NULL };
	static const char *aa[] = { "time", "160", "link_layer", "Ethernet", NULL };
	static const char *bb[] = { "time", "100", "link_layer", "Ethernet", "ethtool-S.txt",
				    ETH_S("rx_out_of_buffer", "0"), NULL };
	static const char *ba[] = { "time", "160", "link_layer", "Ethernet", "ethtool-S.txt",
				    ETH_S("rx_out_of_buffer", "5000"), NULL };
	json_t *doc = pair_loss(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_string_equal(str(d, "part"), "receiver (its receive queues)");
	assert_string_equal(str(d, "subject"), "nodeA rxe0 -> nodeB rxe0");
	assert_non_null(strstr(str(d, "evidence"), "what nodeA sent to nodeB was lost at nodeB's side: nodeB (its receive queues had no buffer posted"));
	json_decref(doc);
}

/* The switch port at the other end of nodeA's cable discarded what it had
 * to send to nodeA (perfquery PortXmitDiscards): the switch, toward nodeA. */
static void test_drop_in_switch(void **state)
{
#define PQ_DISC(n) "# Port extended counters: Lid 9 port 3\nSymbolErrorCounter:..............0\nPortXmitDiscards:................" n "\n"
	static const char *ab[] = { "time", "100", "link_layer", "InfiniBand", "rate", "200 Gb/sec (4X HDR)",
				    "perfquery-far.txt", PQ_DISC("0"), NULL };
	static const char *aa[] = { "time", "160", "link_layer", "InfiniBand", "rate", "200 Gb/sec (4X HDR)",
				    "perfquery-far.txt", PQ_DISC("900"), NULL };
	static const char *bb[] = { "time", "100", "link_layer", "InfiniBand", "rate", "200 Gb/sec (4X HDR)", NULL };
	static const char *ba[] = { "time", "160", "link_layer", "InfiniBand", "rate", "200 Gb/sec (4X HDR)", NULL };
	json_t *doc = pair_loss(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_string_equal(str(d, "part"), "the switch (its port toward this node)");
	assert_string_equal(str(d, "subject"), "nodeB rxe0 -> nodeA rxe0");
	assert_non_null(strstr(str(d, "evidence"), "PortXmitDiscards, perfquery"));
	json_decref(doc);
}

/* Retries that say nothing about direction are not said to be "both ways". */
static void test_direction_not_known(void **state)
{
	static const char *ab[] = { "time", "100", "hw_counters/local_ack_timeout_err", "0", NULL };
	static const char *aa[] = { "time", "160", "hw_counters/local_ack_timeout_err", "300", NULL };
	static const char *bb[] = { "time", "100", NULL };
	static const char *ba[] = { "time", "160", NULL };
	json_t *doc = pair_loss(ab, aa, bb, ba);
	const json_t *d = by_rule(doc, "drops");

	(void)state;
	assert_non_null(d);
	assert_null(strstr(str(d, "evidence"), "both ways"));
	assert_non_null(strstr(str(d, "evidence"), "in a direction these counters do not tell"));
	assert_string_equal(str(d, "part"), "buffers or QoS configuration");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_fault_two_of_four), cmocka_unit_test(test_far_errors_tx_fault),
		cmocka_unit_test(test_rack_peers),	     cmocka_unit_test(test_model),
		cmocka_unit_test(test_parse_lane_lists),     cmocka_unit_test(test_loss_with_errors_under_limit),
		cmocka_unit_test(test_drop_at_receive_queues), cmocka_unit_test(test_drop_in_switch),
		cmocka_unit_test(test_direction_not_known),   cmocka_unit_test(test_rack_config_peers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
