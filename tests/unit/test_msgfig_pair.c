/*
 * Messages with figures, fed known figures (issue 39 item 5), class by
 * class, in the file that prints the most of them: pair's text
 * (pair/pair_out.c pair_render). One pair document holds a distinct figure
 * in every slot a line prints (no two alike, none a default), and each
 * test asserts the line that carries its class: sizes in B, counts and
 * their totals ("N of M"), rates with their units, percentages, durations.
 * A figure printed from the wrong member, a share printed as a fraction, a
 * size in the wrong unit or a count out of another total fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pairv.h"
#include "pair/pair.h"

#include "memtext.h"

/* Every figure distinct: a line that printed the wrong member shows it. */
static const char DOC[] =
	"{\"a\": {\"node\": \"nodeA\", \"device\": \"mlx5_3\", \"port\": 1, \"link_layer\": \"InfiniBand\","
	"  \"lid\": 417, \"mtu\": 4096, \"rate_gbps\": 200, \"width\": \"4X\", \"rate\": \"HDR\","
	"  \"memory\": \"host\", \"max_inline\": 220, \"payload_gbps\": 193.5,"
	"  \"payload\": {\"header_bytes\": 58}},"
	" \"b\": {\"node\": \"nodeB\", \"device\": \"mlx5_4\", \"port\": 2, \"link_layer\": \"InfiniBand\","
	"  \"lid\": 418, \"mtu\": 2048, \"rate_gbps\": 100, \"memory\": \"host\","
	"  \"payload_gbps\": 96.75, \"payload\": {\"header_bytes\": 58}},"
	" \"nodes\": [\"nodeA\", \"nodeB\"],"
	" \"options\": {\"launcher\": \"ssh\", \"exchange\": \"tcp\", \"qps\": 3, \"tx_depth\": 129},"
	" \"path_mtu\": 2048,"
	" \"results\": [{\"test\": \"write\", \"metric\": \"bw\", \"size_bytes\": 65536, \"iters\": 5003,"
	"  \"gbps\": 91.125, \"a_to_b_gbps\": 45.5, \"b_to_a_gbps\": 45.625, \"msg_rate_mpps\": 0.1738,"
	"  \"seconds\": 2.875, \"method\": {\"inline\": 0},"
	"  \"overlap\": {\"window_s\": 2.345, \"share\": 0.87, \"clock_uncertainty_s\": 0.0015},"
	"  \"intervals_a_to_b\": {\"n\": 41, \"min_gbps\": 11.125, \"median_gbps\": 44.25,"
	"   \"max_gbps\": 46.5, \"dips_total\": 3, \"dip_below_gbps\": 22.125},"
	"  \"intervals_b_to_a\": {\"n\": 43, \"min_gbps\": 40.375, \"median_gbps\": 44.75,"
	"   \"max_gbps\": 47.25, \"dips_total\": 1, \"dip_below_gbps\": 22.375},"
	"  \"validate_a\": {\"messages_validated\": 997, \"sent\": 1001, \"bytes_checked\": 65339392,"
	"   \"slots_checked\": 63, \"slots\": 64, \"memory\": \"host\"}},"
	"  {\"test\": \"read\", \"metric\": \"lat\", \"size_bytes\": 2, \"iters\": 1007,"
	"   \"method\": {\"inline\": 188}}],"
	" \"counters\": {\"nodeA\": {\"port_xmit_data\": 5, \"port_rcv_data\": 0, \"port_xmit_packets\": 9},"
	"  \"nodeB\": {\"port_xmit_data\": 0, \"port_rcv_data\": 7, \"port_rcv_packets\": 0,"
	"   \"port_xmit_packets\": 0, \"unicast_rcv_packets\": 0}},"
	" \"counters_check\": {\"source\": \"port counters\", \"verdict\": \"pass\", \"unit\": \"B\","
	"  \"directions\": [{\"from\": \"nodeA\", \"to\": \"nodeB\", \"sent\": 1000, \"received\": 998,"
	"   \"least\": 990, \"most\": 1013, \"verdict\": \"pass\"}]},"
	" \"store\": {\"run\": 17, \"path\": \"/tmp/fc-17.db\"}}";

static char *pair_text(const char *patch_key, json_t *patch)
{
	json_t *doc = json_loads(DOC, 0, NULL);
	char *text;

	assert_non_null(doc);
	if (patch_key)
		json_object_set_new(doc, patch_key, patch);
	text = render(pair_render, doc);
	json_decref(doc);
	return text;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text);
}

/* Sizes: the MTUs of each side and of the path, the headers a packet, the
 * inline limit and what each test sent inline, the message size. */
static void test_sizes(void **state)
{
	char *t = pair_text(NULL, NULL);

	(void)state;
	has(t, "4096 B");
	has(t, "2048 B");
	has(t, "CEILING: the payload the rate carries at the path MTU, 58 B of headers a packet\n");
	has(t, "path MTU 2048 B, 3 QPs for bandwidth, tx depth 129, inline up to 220 B (the QPs' limit): used by write bw none, read lat up to 188 B\n");
	has(t, "  - write 64 KiB both ways:");
	has(t, " 65536 B  nodeA:");
	free(t);
}

/* Counts and their totals: messages and slots validated, the counters that
 * moved of those read, one QP said as one. */
static void test_counts(void **state)
{
	char *t = pair_text(NULL, NULL);

	(void)state;
	has(t, "nodeA: 997 of 1001 messages good, 65339392 B checked, 63 of 64 slots, host memory\n");
	/* traffic only: how many moved of how many read, per node */
	has(t, "no error counter (nodeA 2 of 3, nodeB 1 of 5 moved: traffic; each in --json)\n");
	has(t, "  nodeA->nodeB: sent 1000, received 998, at least 990 and at most 1013 B: pass\n");
	has(t, "\nkept as run 17 in /tmp/fc-17.db\n");
	has(t, "  - write 64 KiB B->A: 43 intervals, min 40.375, median 44.750, max 47.250 Gb/s, 1 dip below 22.375 Gb/s\n");
	free(t);
	t = pair_text("counters", json_pack("{s:{s:i, s:i}, s:{s:i}}", "nodeA", "port_xmit_data", 0,
					    "port_rcv_data", 0, "nodeB", "port_rcv_data", 0));
	has(t, "port counters that moved during the test: none (2 read on nodeA, 1 read on nodeB)\n");
	free(t);
	/* an error counter moved: the block, each node's counters that moved,
	 * "none of" the port's own counters read (4: its netdev's set is not
	 * one of them) and of the netdev's (2) */
	t = pair_text("counters",
		      json_pack("{s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i, s:i, s:{s:i, s:i}}}", "nodeA",
				"symbol_error", 3, "port_xmit_data", 5, "port_rcv_data", 0, "nodeB",
				"port_xmit_data", 0, "port_rcv_data", 0, "port_rcv_errors", 0,
				"port_xmit_discards", 0, "netdev", "rx_discards_phy", 0, "tx_pause_ctrl_phy", 0));
	has(t, "\nport counters that moved during the test:\n  nodeA: symbol_error +3 port_xmit_data +5\n"
	       "  nodeB: none of 4\n  nodeB netdev (ethtool -S): none of 2\n");
	free(t);
}

/* Rates and their units: each side's rate and payload ceiling, each
 * direction's intervals, the table's figures. */
static void test_rates(void **state)
{
	char *t = pair_text(NULL, NULL);

	(void)state;
	has(t, "200 Gb/s 4X HDR");
	has(t, "100 Gb/s");
	has(t, "193.500 Gb/s");
	has(t, "96.750 Gb/s");
	has(t, "IB, LID 417");
	has(t, "IB, LID 418");
	has(t, "  - write 64 KiB A->B: 41 intervals, min 11.125, median 44.250, max 46.500 Gb/s, 3 dips below 22.125 Gb/s\n");
	has(t, "91.125 Gb/s");
	has(t, "45.500 Gb/s");
	has(t, "45.625 Gb/s");
	has(t, "0.1738 Mpps");
	free(t);
}

/* A percentage from a share (0.87 -> 87%), durations in s and ms. */
static void test_percent_durations(void **state)
{
	char *t = pair_text(NULL, NULL);

	(void)state;
	has(t, "  - write 64 KiB both ways: counted over the 2.345 s both ran, 87% of the run "
	       "(clocks within 1.5 ms)\n");
	has(t, "2.875 s");
	free(t);
}

/* The findings of pair's verdict (core/pairv.c fc_pair_verdict), fed a
 * document with distinct figures; every finding joined, one a line. */
static char *verdict_text(const char *doc_text, const struct fc_pair_limits *lim)
{
	json_t *doc = json_loads(doc_text, 0, NULL), *f;
	char *text = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(doc);
	assert_non_null(m);
	fc_pair_verdict(doc, lim);
	json_array_foreach(json_object_get(doc, "findings"), i, f)
		fprintf(m, "%s\n", json_string_value(f));
	assert_int_equal(fclose(m), 0);
	json_decref(doc);
	return text;
}

/* Sizes (the MTUs and the path's, the message sizes), counts of a total
 * (dips "3 of 41 intervals"), durations (250 ms intervals, at 1.5 s), rates
 * (the median the dips are held against, each dip's figure), latency
 * figures beside their bar. */
static void test_verdict(void **state)
{
	const struct fc_pair_limits lim = { .max_lat_us = 7.25 };
	char *t = verdict_text(
		"{\"a\": {\"node\": \"nodeA\", \"device\": \"mlx5_3\", \"mtu\": 4096},"
		" \"b\": {\"node\": \"nodeB\", \"device\": \"mlx5_4\", \"mtu\": 2048},"
		" \"results\": [{\"test\": \"write\", \"metric\": \"bw\", \"size_bytes\": 65536,"
		"  \"gbps\": 91.125, \"a_to_b_gbps\": 45.5, \"b_to_a_gbps\": 45.625, \"interval_s\": 0.25,"
		"  \"intervals_a_to_b\": {\"n\": 41, \"median_gbps\": 44.25, \"dips_total\": 3,"
		"   \"dips\": [{\"gbps\": 11.125, \"t_s\": 1.5}, {\"gbps\": 12.375, \"t_s\": 3.3}]},"
		"  \"samples_b_to_a_gbps\": [40.5, 41.5, 42.5, 9.875, 43.5, 44.5]},"
		"  {\"test\": \"write\", \"metric\": \"lat\", \"size_bytes\": 2, \"p50_us\": 9.4},"
		"  {\"test\": \"send\", \"metric\": \"lat\", \"size_bytes\": 2}]}",
		&lim);

	(void)state;
	has(t, "active MTU differs: nodeA mlx5_3 4096 B, nodeB mlx5_4 2048 B, so the path runs at "
	       "2048 B:");
	has(t, "write bandwidth nodeA->nodeB dipped below half its median of 44.250 Gb/s in 3 of 41 "
	       "intervals of 250 ms (11.125 Gb/s at 1.5 s, 12.375 Gb/s at 3.3 s, ...):");
	has(t, "write bandwidth nodeB->nodeA dipped to 9.875 Gb/s in one 250 ms interval against a "
	       "median of 42.000 Gb/s:");
	has(t, "write latency at 2 B: p50 9.40 us is above --max-lat-us 7.25 us:");
	has(t, "send latency at 2 B: --max-lat-us is not judged: the run had too few rounds for a "
	       "median (it needs 20); raise -n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_percent_durations),
		cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
