/* Unit tests of the pair core: wire messages, statistics, verdict, counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fc.h"
#include "core/out.h"
#include "core/pairv.h"
#include "core/stats.h"
#include "core/wire.h"
#include "ctl/chan.h"
#include "diag/diag.h"
#include "pair/pair.h"
#include "verbs/res.h"

#include "tests/unit/finding.h"

static void test_wire_roundtrip(void **state)
{
	json_t *body = json_pack("{s:s, s:i}", "dev", "rxe0", "qps", 4), *msg = NULL;
	char *line, why[256];

	(void)state;
	line = fc_wire_format(FC_WIRE_VERSION, 7, "setup", body);
	assert_non_null(line);
	assert_int_equal(line[strlen(line) - 1], '\n');
	assert_null(strchr(line, '\n') + 1 == line + strlen(line) ? NULL : "two lines");
	assert_int_equal(fc_wire_parse(line, strlen(line) - 1, FC_WIRE_VERSION, 7, &msg, NULL,
				       why, sizeof(why)), 0);
	assert_string_equal(fc_wire_type(msg), "setup");
	assert_string_equal(fc_jstr(msg, "dev", ""), "rxe0");
	assert_int_equal((int)fc_jnum(msg, "qps", 0), 4);
	/* The body is not changed. */
	assert_null(json_object_get(body, "seq"));
	json_decref(msg);
	json_decref(body);
	free(line);
}

static void test_wire_refusals(void **state)
{
	static const struct {
		const char *line;
		const char *why;
	} cases[] = {
		{ "not json", "not JSON" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"seq\":1,\"type\":\"hello\"}", "no protocol version" },
		{ "{\"v\":2,\"seq\":1,\"type\":\"hello\"}", "wire protocol 2" },
		{ "{\"v\":1,\"type\":\"hello\"}", "no sequence number" },
		{ "{\"v\":1,\"seq\":3,\"type\":\"hello\"}", "out of order: expected 1" },
		{ "{\"v\":1,\"seq\":1}", "no valid \"type\"" },
		{ "{\"v\":1,\"seq\":1,\"type\":\"Hello!\"}", "no valid \"type\"" },
		{ "{\"v\":1,\"seq\":1,\"type\":\"a\",\"type\":\"b\"}", "not JSON" },
		{ "{\"v\":1,\"seq\":-1,\"type\":\"hello\"}", "no sequence number" },
	};
	char why[256];
	json_t *msg;
	int peer = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		msg = NULL;
		why[0] = '\0';
		assert_int_equal(fc_wire_parse(cases[i].line, strlen(cases[i].line), 1, 1, &msg,
					       &peer, why, sizeof(why)), -EPROTO);
		assert_null(msg);
		if (!strstr(why, cases[i].why))
			fail_msg("case %zu: '%s' does not say '%s'", i, why, cases[i].why);
	}
	assert_int_equal(peer, 2);
}

/* The refusals' figures, each distinct (issue 39 item 5): this side
 * speaks protocol 3 and waits for message 5. */
static void test_wire_figures(void **state)
{
	static const struct {
		const char *line;
		const char *why;
	} cases[] = {
		{ "{\"v\":7,\"seq\":5,\"type\":\"hello\"}",
		  "it speaks wire protocol 7, this fabcheck speaks 3: install the same fabcheck version on every node" },
		{ "{\"v\":3,\"seq\":9,\"type\":\"hello\"}", "message 9 is out of order: expected 5" },
		{ "{\"v\":3,\"seq\":5,\"type\":\"Hi\"}", "message 5 has no valid \"type\"" },
	};
	char why[256], want[128];
	size_t n = FC_WIRE_MAX_LINE + 10;
	char *big = malloc(n);
	json_t *msg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		msg = NULL;
		assert_int_equal(fc_wire_parse(cases[i].line, strlen(cases[i].line), 3, 5, &msg,
					       NULL, why, sizeof(why)), -EPROTO);
		assert_string_equal(why, cases[i].why);
	}
	assert_non_null(big);
	memset(big, 'x', n);
	assert_int_equal(fc_wire_parse(big, n, 3, 5, &msg, NULL, why, sizeof(why)), -E2BIG);
	snprintf(want, sizeof(want), "message of %zu bytes is over the %d-byte limit", n,
		 FC_WIRE_MAX_LINE);
	assert_string_equal(why, want);
	free(big);
}

static void test_wire_size_limit(void **state)
{
	size_t n = FC_WIRE_MAX_LINE + 10;
	char *big = malloc(n), why[256];
	json_t *msg = NULL, *body;
	char *line;

	(void)state;
	memset(big, 'x', n);
	assert_int_equal(fc_wire_parse(big, n, 1, 1, &msg, NULL, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "limit"));
	/* A message that would be too long is not formatted. */
	big[n - 1] = '\0';
	body = json_pack("{s:s}", "pad", big);
	line = fc_wire_format(1, 1, "hello", body);
	assert_null(line);
	assert_int_equal(errno, E2BIG);
	json_decref(body);
	free(big);
}

static void test_linebuf(void **state)
{
	struct fc_linebuf lb;
	char *line, big[300];
	size_t len;

	(void)state;
	fc_linebuf_init(&lb, 100);
	assert_int_equal(fc_linebuf_feed(&lb, "ab", 2), 0);
	assert_int_equal(fc_linebuf_next(&lb, &line, &len), 0);
	assert_int_equal(fc_linebuf_feed(&lb, "c\nde\n\nf", 7), 0);
	assert_int_equal(fc_linebuf_next(&lb, &line, &len), 1);
	assert_string_equal(line, "abc");
	assert_int_equal(len, 3);
	assert_int_equal(fc_linebuf_next(&lb, &line, &len), 1);
	assert_string_equal(line, "de");
	assert_int_equal(fc_linebuf_next(&lb, &line, &len), 1);
	assert_int_equal(len, 0);
	assert_int_equal(fc_linebuf_next(&lb, &line, &len), 0);
	assert_int_equal(fc_linebuf_pending(&lb), 1);
	/* An unterminated line past the limit is refused... */
	memset(big, 'y', sizeof(big));
	assert_int_equal(fc_linebuf_feed(&lb, big, sizeof(big)), -E2BIG);
	fc_linebuf_release(&lb);
	/* ...and so is a long complete line inside one chunk. */
	fc_linebuf_init(&lb, 100);
	big[200] = '\n';
	assert_int_equal(fc_linebuf_feed(&lb, big, 201), -E2BIG);
	fc_linebuf_release(&lb);
}

static void test_stats(void **state)
{
	double s[1000];
	struct fc_lat_stats st;

	(void)state;
	/* 1..1000 shuffled: nearest-rank percentiles are exact. */
	for (int i = 0; i < 1000; i++)
		s[i] = (double)((i * 379) % 1000 + 1);
	assert_int_equal(fc_lat_stats(s, 1000, &st), 0);
	assert_true(st.min == 1 && st.max == 1000);
	assert_true(st.p50 == 500 && st.p90 == 900 && st.p99 == 990 && st.p999 == 999);
	assert_true(fabs(st.avg - 500.5) < 1e-9);
	/* Sample stdev of 1..n is sqrt(n(n+1)/12). */
	assert_true(fabs(st.stdev - sqrt(1000.0 * 1001.0 / 12.0)) < 1e-6);
	assert_int_equal(fc_lat_stats(s, 0, &st), -EINVAL);
	/* One sample: no spread; tiny values keep their precision (no int). */
	s[0] = 1.5e-6;
	assert_int_equal(fc_lat_stats(s, 1, &st), 0);
	assert_true(st.p999 == 1.5e-6 && st.stdev == 0);
	/* Large equal values: no cancellation. */
	for (int i = 0; i < 10; i++)
		s[i] = 1e9 + (i % 2);
	assert_int_equal(fc_lat_stats(s, 10, &st), 0);
	assert_true(fabs(st.stdev - sqrt(10 * 0.25 / 9)) < 1e-6);
	assert_true(fabs(fc_gbps(125000000, 1.0) - 1.0) < 1e-12);
	assert_true(fc_gbps(1, 0) == 0);
}

static void test_counter_names(void **state)
{
	(void)state;
	assert_true(fc_counter_is_error("rcvd_seq_err"));
	assert_true(fc_counter_is_error("out_of_seq_request"));
	assert_true(fc_counter_is_error("duplicate_request"));
	assert_true(fc_counter_is_error("retry_exceeded_err"));
	assert_true(fc_counter_is_error("link_downed"));
	assert_true(fc_counter_is_error("symbol_error"));
	assert_true(fc_counter_is_error("port_xmit_discards"));
	assert_true(fc_counter_is_error("local_ack_timeout_err"));
	assert_true(fc_counter_is_error("out_of_buffer"));
	assert_false(fc_counter_is_error("sent_pkts"));
	assert_false(fc_counter_is_error("rcvd_pkts"));
	assert_false(fc_counter_is_error("rdma_sends"));
	assert_false(fc_counter_is_error("port_xmit_data"));
	assert_false(fc_counter_is_error("ack_deferred"));
}

static void test_counters_delta(void **state)
{
	json_t *b = json_pack("{s:I, s:I, s:I}", "sent_pkts", (json_int_t)100, "rcvd_seq_err",
			      (json_int_t)3, "gone", (json_int_t)1);
	json_t *a = json_pack("{s:I, s:I, s:I}", "sent_pkts", (json_int_t)250, "rcvd_seq_err",
			      (json_int_t)3, "new", (json_int_t)9);
	json_t *d = fc_counters_delta(b, a);

	(void)state;
	assert_int_equal(json_object_size(d), 1);
	assert_int_equal(json_integer_value(json_object_get(d, "sent_pkts")), 150);
	json_decref(a);
	json_decref(b);
	json_decref(d);
}

/* A recorded rack run (rxe: 2.5 Gb/s reported, ~0.16 Gb/s real). */
static json_t *rack_doc(double gbps, int mtu_b, json_int_t seq_err)
{
	json_t *doc = fc_doc_new();

	json_object_set_new(doc, "a", json_pack("{s:s, s:s, s:i, s:i, s:f}", "node", "nodeA",
						"device", "rxe0", "port", 1, "mtu", 4096,
						"rate_gbps", 2.5));
	json_object_set_new(doc, "b", json_pack("{s:s, s:s, s:i, s:i, s:f}", "node", "nodeB",
						"device", "rxe0", "port", 1, "mtu", mtu_b,
						"rate_gbps", 2.5));
	json_object_set_new(doc, "results",
			    json_pack("[{s:s, s:s, s:i, s:f, s:f, s:[f,f,f,f,f], s:f},"
				      " {s:s, s:s, s:i, s:f, s:f, s:[f,f,f,f,f], s:f},"
				      " {s:s, s:s, s:i, s:f}]",
				      "test", "write", "metric", "bw", "size_bytes", 65536, "gbps",
				      gbps, "a_to_b_gbps", gbps, "samples_a_to_b_gbps", gbps,
				      gbps, gbps, gbps, gbps, "interval_s", 0.1,
				      "test", "write", "metric", "bw", "size_bytes", 1 << 20, "gbps",
				      gbps, "a_to_b_gbps", gbps, "samples_a_to_b_gbps", gbps,
				      gbps, 0.01, gbps, gbps, "interval_s", 0.1,
				      "test", "read", "metric", "lat", "size_bytes", 2, "p50_us",
				      300.0));
	json_object_set_new(doc, "counters",
			    json_pack("{s:{s:I}, s:{s:I, s:I}}", "nodeA", "sent_pkts",
				      (json_int_t)10, "nodeB", "rcvd_seq_err", seq_err,
				      "rcvd_pkts", (json_int_t)10));
	return doc;
}

static void test_verdict(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 90 };
	json_t *doc;

	(void)state;
	/* Default: 90% of 2.5 Gb/s at 1 MiB fails the rack's 0.16 Gb/s. */
	doc = rack_doc(0.16, 4096, 0);
	fc_pair_verdict(doc, &lim);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	assert_true(has_finding_part(doc, "below 2.250 Gb/s (90% of the slower port's 2.5 Gb/s)"));
	assert_true(has_finding_part(doc, "nodeA->nodeB"));
	/* The dip in one interval is a warning of its own. */
	assert_true(has_finding_part(doc, "dipped to 0.010 Gb/s"));
	assert_true(fabs(fc_jnum(json_object_get(doc, "thresholds"), "min_gbps", 0) - 2.25) < 1e-9);
	json_decref(doc);

	/* The rack's own figure passes; only the largest size is judged. */
	lim.min_gbps = 0.1;
	doc = rack_doc(0.16, 4096, 0);
	fc_pair_verdict(doc, &lim);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn"); /* the dip */
	assert_false(has_finding_part(doc, "below"));
	json_decref(doc);

	/* Counters, MTU mismatch, latency ceiling. */
	lim.max_lat_us = 100;
	doc = rack_doc(0.16, 1024, 12);
	fc_pair_verdict(doc, &lim);
	assert_true(has_finding_part(doc, "nodeB rxe0 port 1: error counters rose during the test: rcvd_seq_err +12"));
	assert_false(has_finding_part(doc, "rcvd_pkts"));
	assert_true(has_finding_part(doc, "active MTU differs: nodeA rxe0 4096 B, nodeB rxe0 1024 B"));
	assert_true(has_finding_part(doc, "p50 300.00 us is above --max-lat-us 100.00 us"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	json_decref(doc);

	/* Below 1 MiB the link share is not applied. */
	lim = (struct fc_pair_limits){ .min_link_pct = 90 };
	doc = rack_doc(0.16, 4096, 0);
	json_array_remove(json_object_get(doc, "results"), 1);
	fc_pair_verdict(doc, &lim);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	assert_null(json_object_get(json_object_get(doc, "thresholds"), "min_gbps"));
	json_decref(doc);
}

/* A 400 Gb/s port behind an HCA trained to 16 GT/s x8: the floor is 90%
 * of that link's ceiling (the element named), not of the port's. */
static void test_verdict_pcie_floor(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 90 };
	json_t *doc;

	(void)state;
	for (int k = 0; k < 2; k++) {
		double gbps = k ? 105 : 90; /* 90% of 109.5 is 98.6 */

		doc = rack_doc(gbps, 4096, 0);
		json_array_remove(json_object_get(doc, "results"), 0);
		json_object_set_new(json_object_get(doc, "a"), "payload_gbps", json_real(385.0));
		json_object_set_new(json_object_get(doc, "b"), "payload_gbps", json_real(385.0));
		json_object_set_new(json_object_get(doc, "b"), "pcie_ceiling",
				    json_pack("{s:f, s:s, s:s, s:f, s:i, s:i, s:b}", "gbps", 109.5,
					      "role", "hca", "bdf", "0000:3b:00.0", "gts", 16.0,
					      "width", 8, "max_payload_bytes", 256, "downtrained",
					      1));
		fc_pair_verdict(doc, &lim);
		assert_true(has_finding_part(doc, "nodeB rxe0 (PCIe 0000:3b:00.0) trained to 16 GT/s x8 (trained down), max payload 256 B: at most about 110 Gb/s, below the port's payload ceiling of 385.000 Gb/s"));
		assert_true(has_finding_part(doc, "reseat the card"));
		assert_true(fabs(fc_jnum(json_object_get(doc, "thresholds"), "min_gbps", 0) -
				 0.9 * 109.5) < 1e-9);
		assert_int_equal(has_finding_part(doc, "is below 98.550 Gb/s (90% of 109.500 Gb/s, the PCIe ceiling of nodeB rxe0"), !k);
		assert_string_equal(fc_jstr(doc, "verdict", ""), k ? "warn" : "fail");
		json_decref(doc);
	}
	/* A PCIe ceiling above the port's changes nothing. */
	doc = rack_doc(0.16, 4096, 0);
	json_object_set_new(json_object_get(doc, "a"), "pcie_ceiling",
			    json_pack("{s:f, s:s, s:s}", "gbps", 470.0, "role", "hca", "bdf", "x"));
	fc_pair_verdict(doc, &lim);
	assert_true(has_finding_part(doc, "below 2.250 Gb/s (90% of the slower port's 2.5 Gb/s)"));
	assert_false(has_finding_part(doc, "PCIe ceiling"));
	json_decref(doc);
}

/* --validate on a 400 Gb/s port: 150 Gb/s measured is a fail against the
 * port (90% of 385), a pass against the validation's own ceiling, the
 * checking side's CRC32C rate (160 Gb/s measured), which the verdict names. */
static void test_verdict_validate_ceiling(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 90 };

	(void)state;
	for (int k = 0; k < 2; k++) {
		json_t *doc = rack_doc(150, 4096, 0);
		json_t *r = json_array_get(json_object_get(doc, "results"), 1);

		json_object_set_new(json_object_get(doc, "a"), "payload_gbps", json_real(385.0));
		json_object_set_new(json_object_get(doc, "b"), "payload_gbps", json_real(385.0));
		if (k)
			json_object_set_new(r, "validate_ceiling_gbps", json_real(160.0));
		fc_pair_verdict(doc, &lim);
		assert_true(fabs(fc_jnum(json_object_get(doc, "thresholds"), "min_gbps", 0) -
				 (k ? 0.9 * 160 : 0.9 * 385)) < 1e-9);
		assert_int_equal(has_finding_part(doc, "is below"), !k);
		json_decref(doc);
	}
}

/* RNR NAKs in a --validate run: the receive cap's, a note and no warning;
 * without --validate an error counter that rose, as before. */
/* --validate on GPU memory: the checking side copies each message out and
 * its poison back (120 Gb/s measured) and checks its CRC32C (600 Gb/s):
 * in series 100 Gb/s, the ceiling pair_val_ceiling keeps from the worker's
 * figures; 95 Gb/s passes against it, named as the copy's. */
static void test_verdict_validate_copy(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 90 };
	json_t *doc = rack_doc(95, 4096, 0);
	json_t *r = json_array_get(json_object_get(doc, "results"), 1);
	json_t *res = json_pack("{s:f, s:f, s:f}", "validate_crc_gbps", 600.0, "validate_copy_gbps",
				120.0, "validate_check_gbps", 100.0);
	json_t *crc_only = json_pack("{s:f}", "validate_crc_gbps", 90.0);
	const char *why;

	(void)state;
	assert_true(fabs(vb_val_ceiling(600, 120) - 100) < 1e-9);
	assert_true(vb_val_ceiling(600, 0) == 600);
	json_object_set_new(json_object_get(doc, "a"), "payload_gbps", json_real(385.0));
	json_object_set_new(json_object_get(doc, "b"), "payload_gbps", json_real(385.0));
	pair_val_ceiling(r, res);
	assert_true(fc_jnum(r, "validate_ceiling_gbps", 0) == 100);
	assert_string_equal(fc_jstr(r, "validate_ceiling_from", ""), "copy");
	fc_pair_verdict(doc, &lim);
	why = fc_jstr(json_object_get(doc, "thresholds"), "min_gbps_from", "");
	assert_true(fabs(fc_jnum(json_object_get(doc, "thresholds"), "min_gbps", 0) - 90) < 1e-9);
	assert_non_null(strstr(why, "copies each message out of GPU memory"));
	assert_non_null(strstr(why, "the copy is the lower"));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "notes"), 0)),
			       "write bandwidth judged against 90% of 100.000 Gb/s, --validate's own ceiling: the checking side copies"));
	assert_false(has_finding_part(doc, "is below"));
	/* the other side checks too, host memory, at less: its CRC is the ceiling */
	pair_val_ceiling(r, crc_only);
	assert_true(fc_jnum(r, "validate_ceiling_gbps", 0) == 90);
	assert_string_equal(fc_jstr(r, "validate_ceiling_from", ""), "crc");
	assert_null(json_object_get(r, "validate_copy_gbps"));
	json_decref(res);
	json_decref(crc_only);
	json_decref(doc);
}

/* Error counters: one finding per node's port, each counter with its delta
 * in it, what such counters mean said once; "counters" keeps every one. */
static void test_verdict_counters_grouped(void **state)
{
	struct fc_pair_limits lim = { .min_gbps = 0.1 };
	json_t *doc = rack_doc(2.4, 4096, 69), *b = json_object_get(json_object_get(doc, "counters"), "nodeB");

	(void)state;
	json_object_set_new(b, "completer_retry_err", json_integer(219));
	json_object_set_new(b, "duplicate_request", json_integer(3443));
	json_object_set_new(json_object_get(json_object_get(doc, "counters"), "nodeA"),
			    "out_of_seq_request", json_integer(73));
	fc_pair_verdict(doc, &lim);
	assert_int_equal(findings_with(doc, "error counter"), 2);
	assert_int_equal(findings_with(doc, FC_CTR_WHY), 1);
	assert_int_equal(findings_with(doc, "nodeA rxe0 port 1: error counters rose during the test: "
					     "out_of_seq_request +73: packets were lost"), 1);
	assert_int_equal(findings_with(doc, "nodeB rxe0 port 1: error counters rose during the test: "
					     "rcvd_seq_err +69, "), 1);
	assert_int_equal(findings_with(doc, "completer_retry_err +219"), 1);
	assert_int_equal(findings_with(doc, "duplicate_request +3443"), 1);
	assert_int_equal(fc_jnum(b, "duplicate_request", 0), 3443);
	json_decref(doc);
}

/* The slow-link finding's figures: a count against its own total, or a
 * timed test's seconds, never "N of 0". */
static void test_moved_text(void **state)
{
	char buf[160];

	(void)state;
	pair_moved_text(buf, sizeof(buf), 5070, 10000, 0, "round trips", 40);
	assert_string_equal(buf, "5070 of 10000 round trips in 40 s");
	pair_moved_text(buf, sizeof(buf), 12, 0, 2, "messages", 31);
	assert_string_equal(buf, "12 messages in 31 s of a 2 s test");
	pair_moved_text(buf, sizeof(buf), 3, 0, 0, "messages", 9);
	assert_string_equal(buf, "3 messages in 9 s");
	/* 5070 round trips in 40 s: 7889.5 us each; none: no mean */
	pair_rate_text(buf, sizeof(buf), 1, 5070, 40, 0);
	assert_string_equal(buf, "7889.5 us a round trip");
	pair_rate_text(buf, sizeof(buf), 1, 0, 40, 0);
	assert_string_equal(buf, "not one round trip");
	pair_rate_text(buf, sizeof(buf), 0, 12, 31, 0.0123);
	assert_string_equal(buf, "0.0123 Gb/s");
}

static void test_verdict_rnr_validated(void **state)
{
	struct fc_pair_limits lim = { .min_link_pct = 90 };

	(void)state;
	assert_true(fc_counter_is_rnr("send_rnr_err") && fc_counter_is_rnr("out_of_buffer"));
	assert_false(fc_counter_is_rnr("retry_rnr_exceeded_err"));
	assert_false(fc_counter_is_rnr("rx_out_of_buffer"));
	for (int val = 0; val < 2; val++) {
		json_t *doc = rack_doc(2.4, 4096, 0), *n;

		json_object_set_new(doc, "options", json_pack("{s:b}", "validate", val));
		json_object_set_new(json_object_get(json_object_get(doc, "counters"), "nodeB"),
				    "send_rnr_err", json_integer(37));
		json_object_set_new(json_object_get(json_object_get(doc, "counters"), "nodeA"),
				    "rcvd_rnr_err", json_integer(37));
		fc_pair_verdict(doc, &lim);
		assert_int_equal(has_finding_part(doc, "error counters rose during the test: send_rnr_err +37"), !val);
		assert_int_equal(has_finding_part(doc, "error counters rose during the test: rcvd_rnr_err +37"), !val);
		n = json_array_get(json_object_get(doc, "notes"), 0);
		assert_int_equal(n && strstr(json_string_value(n), "nodeB send_rnr_err +37") &&
					 strstr(json_string_value(n), "not counted as loss"),
				 val);
		json_decref(doc);
	}
}

static void test_sizes_and_slots(void **state)
{
	struct pair_cfg cfg = { .max_size = 8u << 20 };
	uint64_t sizes[PAIR_MAX_SIZES], stride;
	uint32_t nslots;
	enum fc_launcher l;
	int n;

	(void)state;
	/* Defaults: 1 MiB for bandwidth, 2 B for latency; -s for both. */
	assert_int_equal(pair_sizes(&cfg, 0, sizes), 1);
	assert_int_equal(sizes[0], 1 << 20);
	assert_int_equal(pair_sizes(&cfg, 1, sizes), 1);
	assert_int_equal(sizes[0], 2);
	cfg.size = 4096;
	assert_int_equal(pair_sizes(&cfg, 1, sizes), 1);
	assert_int_equal(sizes[0], 4096);
	/* -a: every power of two from 2 B to --max-size. */
	cfg.size = 0;
	cfg.all_sizes = 1;
	n = pair_sizes(&cfg, 0, sizes);
	assert_int_equal(n, 23);
	assert_int_equal(sizes[0], 2);
	assert_int_equal(sizes[22], 8 << 20);
	cfg.max_size = 5000;
	n = pair_sizes(&cfg, 1, sizes);
	assert_int_equal(n, 12);
	assert_int_equal(sizes[11], 4096);
	/* Slots: page-aligned strides, many pages, at least two slots. */
	vb_slot_layout(2, &stride, &nslots);
	assert_int_equal(stride, 4096);
	assert_int_equal(nslots, 256);
	vb_slot_layout(65536, &stride, &nslots);
	assert_int_equal(stride, 65536);
	assert_int_equal(nslots, 64);
	vb_slot_layout(65537, &stride, &nslots);
	assert_int_equal(stride, 65536 + 4096);
	vb_slot_layout(8 << 20, &stride, &nslots);
	assert_int_equal(stride, 8 << 20);
	assert_int_equal(nslots, 2);
	assert_int_equal(fc_launcher_parse("local", &l), 0);
	assert_int_equal(l, FC_LAUNCH_LOCAL);
	assert_int_equal(fc_launcher_parse("slurm", &l), 0);
	assert_string_equal(fc_launcher_name(l), "slurm");
	assert_int_not_equal(fc_launcher_parse("pbs", &l), 0);
}

/* The worker command reaches the node's shell as its words and nothing
 * more: each word quoted for ssh, separate arguments for srun. */
static void test_launch_argv(void **state)
{
	struct fc_launch l = { .kind = FC_LAUNCH_SSH, .connect_timeout = 7 };
	const char *sub[] = { "worker", NULL }, *argv[FC_LAUNCH_MAX_ARGS];
	char buf[2048], out[256];
	size_t got;
	FILE *sh;
	int n;

	(void)state;
	l.worker_cmd = "fabcheck; touch /tmp/X $(id) `id` it's";
	n = fc_launch_argv(&l, "nodeA", sub, argv, buf, sizeof(buf));
	assert_true(n > 3);
	assert_string_equal(argv[0], "ssh");
	assert_string_equal(argv[n - 2], "nodeA");
	assert_string_equal(argv[n - 1],
			    "'fabcheck;' touch /tmp/X '$(id)' '`id`' 'it'\\''s' worker");
	/* What a POSIX shell makes of the line: the same words, byte for byte. */
	l.worker_cmd = "printf [%s]\\n a;b $(x) it's \"q\" \\ &";
	n = fc_launch_argv(&l, "nodeA", sub, argv, buf, sizeof(buf));
	assert_true(n > 0);
	sh = popen(argv[n - 1], "r");
	assert_non_null(sh);
	got = fread(out, 1, sizeof(out) - 1, sh);
	out[got] = 0;
	assert_int_equal(pclose(sh), 0);
	assert_string_equal(out, "[a;b]\n[$(x)]\n[it's]\n[\"q\"]\n[\\]\n[&]\n[worker]\n");
	/* srun runs the words without a shell: one argument each. */
	l.kind = FC_LAUNCH_SLURM;
	l.worker_cmd = "env A=1 /opt/fabcheck";
	n = fc_launch_argv(&l, "nodeB", sub, argv, buf, sizeof(buf));
	assert_int_equal(n, 11);
	assert_string_equal(argv[1], "--nodelist=nodeB");
	assert_string_equal(argv[7], "env");
	assert_string_equal(argv[8], "A=1");
	assert_string_equal(argv[9], "/opt/fabcheck");
	assert_string_equal(argv[10], "worker");
	assert_null(argv[11]);
	/* No command at all is refused, not run as an empty line. */
	l.worker_cmd = " \t ";
	assert_int_equal(fc_launch_argv(&l, "nodeB", sub, argv, buf, sizeof(buf)), -EINVAL);
	l.kind = FC_LAUNCH_SSH;
	assert_int_equal(fc_launch_argv(&l, "nodeB", sub, argv, buf, sizeof(buf)), -EINVAL);
}

/* Evidence pieces: joined in order, once, on read; a file over
 * DIAG_SNAP_FILE_MAX and a side over PAIR_EV_MAX are refused. */
static void test_ev_pieces(void **state)
{
	json_t *ev = json_object(), *doc = json_pack("{s:{}, s:{}}", "a", "b"), *evs[2];
	size_t used = 0;
	char why[256], *big = malloc(60001);
	struct diag_set ds = { 0 };
	int idx[2], err = 0;

	(void)state;
	for (int i = 0; i < 3; i++) {
		static const char *const p[] = { "ab", "cd", "ef" };
		json_t *m = json_pack("{s:s, s:{s:s}}", "phase", "before", "files", "f", p[i]);

		assert_int_equal(pair_ev_absorb(ev, &used, m, why, sizeof(why)), 0);
		json_decref(m);
	}
	assert_int_equal(used, 3 * PAIR_EV_MSG_MIN);
	evs[0] = ev;
	evs[1] = json_object();
	pair_ev_read(&ds, doc, evs, idx); /* no device named: no port read */
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "before"), "f")),
			    "abcdef");
	memset(big, 'x', 60000);
	big[60000] = 0;
	for (int i = 0; i < 40 && !err; i++) {
		json_t *m = json_pack("{s:s, s:{s:s}}", "phase", "after", "files", "g", big);

		err = pair_ev_absorb(ev, &used, m, why, sizeof(why));
		json_decref(m);
		assert_true(err || i < 18); /* 18 pieces make 1080000 bytes > 1 MiB */
	}
	assert_int_equal(err, -E2BIG);
	assert_non_null(strstr(why, "'g' is over 1024 KiB"));
	used = PAIR_EV_MAX - 10;
	json_t *m = json_pack("{s:s, s:{}}", "phase", "before", "files");
	assert_int_equal(pair_ev_absorb(ev, &used, m, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "more than 32 MiB of evidence"));
	json_decref(m);
	json_decref(ev);
	json_decref(evs[1]);
	json_decref(doc);
	free(big);
}

/* A worker's result: every number a figure. */
static void test_result_check(void **state)
{
	char why[256];
	json_t *ok = json_pack("{s:f, s:f, s:[f], s:{s:i}}", "seconds", 1.0, "gbps", 97.5,
			       "samples_gbps", 97.0, "method", "cq_mod", -1);
	json_t *neg = json_pack("{s:f, s:f}", "seconds", 1.0, "gbps", -1e308);
	json_t *fast = json_pack("{s:[f]}", "samples_gbps", 1601.0);
	json_t *negt = json_pack("{s:[[f, f]]}", "curve", 0.5, -3.0);

	(void)state;
	assert_int_equal(pair_result_check(ok, why, sizeof(why)), 0);
	assert_int_equal(pair_result_check(neg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"gbps\" of -1e+308"));
	assert_int_equal(pair_result_check(fast, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "above the fastest port"));
	assert_int_equal(pair_result_check(negt, why, sizeof(why)), -EINVAL);
	json_decref(ok);
	json_decref(neg);
	json_decref(fast);
	json_decref(negt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_roundtrip),
		cmocka_unit_test(test_wire_refusals),
		cmocka_unit_test(test_wire_figures),
		cmocka_unit_test(test_wire_size_limit),
		cmocka_unit_test(test_linebuf),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_counters_delta),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_verdict_counters_grouped),
		cmocka_unit_test(test_moved_text),
		cmocka_unit_test(test_verdict_pcie_floor),
		cmocka_unit_test(test_verdict_validate_ceiling),
		cmocka_unit_test(test_verdict_rnr_validated),
		cmocka_unit_test(test_verdict_validate_copy),
		cmocka_unit_test(test_sizes_and_slots),
		cmocka_unit_test(test_launch_argv),
		cmocka_unit_test(test_ev_pieces),
		cmocka_unit_test(test_result_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
