/* Unit tests of the pair's counters check (core/ctrcheck.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/ctrcheck.h"
#include "core/out.h"

#include "tests/unit/finding.h"

/* A pair document: one-way results, counters and options from JSON text. */
static json_t *doc_of(const char *results, const char *ca, const char *cb, const char *exchange)
{
	char text[4096];
	json_error_t err;
	json_t *doc;

	snprintf(text, sizeof(text),
		 "{\"verdict\": \"pass\", \"findings\": [], \"path_mtu\": 4096,"
		 " \"a\": {\"node\": \"nodeA\", \"device\": \"rxe0\", \"gid\": \"::ffff:10.0.0.1\","
		 " \"payload\": {\"header_bytes\": 82}},"
		 " \"b\": {\"node\": \"nodeB\", \"device\": \"rxe0\", \"gid\": \"::ffff:10.0.0.2\"},"
		 " \"options\": {\"exchange\": \"%s\", \"qps\": 1},"
		 " \"results\": %s, \"counters\": {\"nodeA\": %s, \"nodeB\": %s}}",
		 exchange, results, ca, cb);
	doc = json_loads(text, 0, &err);
	if (!doc)
		fail_msg("bad test document: %s: %s", err.text, text);
	fc_counters_check(doc);
	return doc;
}

static const json_t *dir_of(const json_t *doc, int k)
{
	return json_array_get(json_object_get(json_object_get(doc, "counters_check"), "directions"),
			      (size_t)k);
}

static const char *check_verdict(const json_t *doc)
{
	return fc_jstr(json_object_get(doc, "counters_check"), "verdict", "?");
}

/* Every kind of test into the two directions, by hand. */
static void test_account(void **state)
{
	json_t *results = json_loads(
		"[{\"test\": \"write\", \"size_bytes\": 16384, \"posted\": [40, 0], \"timed_bytes\": [327680, 0]},"
		" {\"test\": \"write\", \"size_bytes\": 6000, \"posted\": [100, 0]},"
		" {\"test\": \"read\", \"size_bytes\": 16384, \"posted\": [40, 0], \"timed_bytes\": [327680, 0]},"
		" {\"test\": \"write\", \"size_bytes\": 2, \"posted\": [1100, 1100]},"
		" {\"test\": \"send\", \"size_bytes\": 16384, \"posted\": [0, 40]},"
		" {\"test\": \"write\", \"size_bytes\": 1048576, \"complete\": false}]",
		0, NULL);
	struct fc_ctr_dir d[2];

	(void)state;
	assert_non_null(results);
	/* The test cut short has no "posted": one not accounted. */
	assert_int_equal(fc_ctr_account(results, 4096, d), 1);
	/* a->b: the writes' payload; 6000 B is two packets at 4096 B. */
	assert_int_equal(d[0].moved_bytes, 40 * 16384 + 100 * 6000 + 1100 * 2);
	assert_int_equal(d[0].timed_bytes, 327680);
	assert_int_equal(d[0].data_pkts, 160 + 200 + 1100);
	assert_int_equal(d[0].req_pkts, 40); /* nodeA's reads ask for data */
	assert_int_equal(d[0].ack_pkts, 1100 + 160); /* for nodeB's writes and sends */
	assert_int_equal(d[0].messages, 40 + 100 + 1100);
	/* b->a: the read's data, nodeB's answers and sends. */
	assert_int_equal(d[1].moved_bytes, 40 * 16384 + 1100 * 2 + 40 * 16384);
	assert_int_equal(d[1].timed_bytes, 327680);
	assert_int_equal(d[1].data_pkts, 160 + 1100 + 160);
	assert_int_equal(d[1].req_pkts, 0);
	assert_int_equal(d[1].ack_pkts, 160 + 200 + 1100);

	fc_ctr_bounds(&d[0], 0, 82, 0);
	assert_true(d[0].least == 1500 && d[0].most == 1460 + 40 + 1260);
	fc_ctr_bounds(&d[0], 0, 82, 8);
	assert_true(d[0].most == 2768);
	fc_ctr_bounds(&d[0], 1, 82, 0);
	assert_true(d[0].least == (double)(40 * 16384 + 100 * 6000 + 2200));
	assert_true(d[0].most == d[0].least + 2760.0 * (82 + CTR_HDR_SLACK));
	fc_ctr_bounds(&d[0], 1, 82, 2);
	assert_true(d[0].most == d[0].least + 2760.0 * (82 + CTR_HDR_SLACK) + 2 * CTR_CM_BYTES);
	json_decref(results);
}

#define W16K "[{\"test\": \"write\", \"size_bytes\": 16384, \"posted\": [40, 0]}]"
#define W16K_10X "[{\"test\": \"write\", \"size_bytes\": 16384, \"posted\": [400, 0]}]"

/* Figures of the virtual rack: 40 writes of 16 KiB, rdma_cm, no retry. */
static void test_agree_and_ten_times(void **state)
{
	const char *ca = "{\"sent_pkts\": 162, \"rcvd_pkts\": 41}";
	const char *cb = "{\"sent_pkts\": 41, \"rcvd_pkts\": 162}";
	json_t *doc = doc_of(W16K, ca, cb, "rdma_cm");
	const json_t *c = json_object_get(doc, "counters_check"), *d = dir_of(doc, 0);

	(void)state;
	assert_string_equal(check_verdict(doc), "agree");
	assert_string_equal(fc_jstr(c, "unit", ""), "packets");
	assert_true(json_is_true(json_object_get(c, "above_judged")));
	assert_string_equal(fc_jstr(d, "from", ""), "nodeA");
	assert_true(fc_jnum(d, "least", 0) == 160 && fc_jnum(d, "most", 0) == 168);
	assert_true(fabs(fc_jnum(d, "ratio", 0) - 162.0 / 160) < 1e-9);
	assert_true(fc_jnum(d, "counted_bytes", 0) == 162.0 * 4096);
	assert_int_equal((int)fc_jnum(d, "moved_bytes", 0), 40 * 16384);
	assert_true(json_is_null(json_object_get(dir_of(doc, 1), "ratio"))); /* nothing needed */
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	json_decref(doc);

	/* The pair claims ten times what moved: fewer counted than needed. */
	doc = doc_of(W16K_10X, ca, cb, "rdma_cm");
	assert_string_equal(check_verdict(doc), "disagree");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "fewer");
	assert_true(has_finding_part(doc, "nodeA->nodeB the results need at least 1600 packets"));
	assert_true(has_finding_part(doc, "the pair reports more than the ports carried"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	json_decref(doc);

	/* Ten times more counted, nothing retried: other traffic, or an under-count. */
	doc = doc_of(W16K, "{\"sent_pkts\": 1620, \"rcvd_pkts\": 41}",
		     "{\"sent_pkts\": 41, \"rcvd_pkts\": 1620}", "relayed");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "more");
	assert_true(has_finding_part(doc, "nodeA->nodeB the ports counted 1620 packets, more than the 160"));
	json_decref(doc);
}

/* Retries resend packets: the most is not judged, the least still is. */
static void test_retries(void **state)
{
	const char *cb = "{\"sent_pkts\": 42, \"rcvd_pkts\": 172, \"duplicate_request\": 1}";
	json_t *doc = doc_of(W16K, "{\"sent_pkts\": 245, \"rcvd_pkts\": 42, \"completer_retry_err\": 2}",
			     cb, "relayed");
	const json_t *c = json_object_get(doc, "counters_check");

	(void)state;
	assert_string_equal(check_verdict(doc), "agree");
	assert_false(json_is_true(json_object_get(c, "above_judged")));
	assert_non_null(strstr(fc_jstr(c, "above_not_judged", ""), "nodeA completer_retry_err +2"));
	assert_true(fabs(fc_jnum(dir_of(doc, 0), "ratio", 0) - 172.0 / 160) < 1e-9);
	json_decref(doc);

	/* The receiver's count is below what is needed: fewer, retries or not. */
	doc = doc_of(W16K, "{\"sent_pkts\": 245, \"rcvd_pkts\": 42, \"completer_retry_err\": 2}",
		     "{\"sent_pkts\": 42, \"rcvd_pkts\": 150}", "relayed");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "fewer");
	json_decref(doc);
}

/* The edge of the tolerance: 1% below the least. */
static void test_tolerance_edge(void **state)
{
	const char *r = "[{\"test\": \"write\", \"size_bytes\": 4096, \"posted\": [1000, 0]}]";
	json_t *doc = doc_of(r, "{\"sent_pkts\": 990, \"rcvd_pkts\": 1000}",
			     "{\"sent_pkts\": 1000, \"rcvd_pkts\": 990}", "relayed");

	(void)state;
	assert_string_equal(check_verdict(doc), "agree");
	json_decref(doc);
	doc = doc_of(r, "{\"sent_pkts\": 989, \"rcvd_pkts\": 1000}",
		     "{\"sent_pkts\": 1000, \"rcvd_pkts\": 1000}", "relayed");
	assert_string_equal(check_verdict(doc), "disagree");
	json_decref(doc);
	/* Above: the 1000 data packets (their ACKs go the other way), then 10%. */
	doc = doc_of(r, "{\"sent_pkts\": 1100, \"rcvd_pkts\": 1000}",
		     "{\"sent_pkts\": 1000, \"rcvd_pkts\": 1100}", "relayed");
	assert_string_equal(check_verdict(doc), "agree");
	json_decref(doc);
	doc = doc_of(r, "{\"sent_pkts\": 1101, \"rcvd_pkts\": 1000}",
		     "{\"sent_pkts\": 1000, \"rcvd_pkts\": 1101}", "relayed");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "more");
	json_decref(doc);
}

/* The data counters (4-byte words) come first where both nodes have them. */
static void test_data_counters(void **state)
{
	/* 655,360 B of payload and 160 packets of 82 B headers: 167,120 words. */
	const char *ca = "{\"port_xmit_data\": 167120, \"port_rcv_data\": 400, \"sent_pkts\": 1, \"rcvd_pkts\": 1}";
	const char *cb = "{\"port_xmit_data\": 400, \"port_rcv_data\": 167120, \"sent_pkts\": 1, \"rcvd_pkts\": 1}";
	json_t *doc = doc_of(W16K, ca, cb, "relayed");
	const json_t *d = dir_of(doc, 0);

	(void)state;
	assert_string_equal(check_verdict(doc), "agree");
	assert_string_equal(fc_jstr(json_object_get(doc, "counters_check"), "unit", ""), "bytes");
	assert_true(fc_jnum(d, "received", 0) == 167120.0 * 4);
	assert_true(fc_jnum(d, "counted_bytes", 0) == 167120.0 * 4);
	json_decref(doc);
	/* A data counter that did not move while data moved. */
	doc = doc_of(W16K, "{\"port_xmit_data\": 0, \"port_rcv_data\": 0}",
		     "{\"port_xmit_data\": 0, \"port_rcv_data\": 0}", "relayed");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "fewer");
	json_decref(doc);
}

static void test_not_judged(void **state)
{
	json_t *doc;

	(void)state;
	doc = doc_of(W16K, "{\"sent_pkts\": 162, \"rcvd_pkts\": 41}", "null", "relayed");
	assert_string_equal(check_verdict(doc), "not_judged");
	assert_non_null(strstr(fc_jstr(json_object_get(doc, "counters_check"), "why", ""), "before its finish"));
	json_decref(doc);
	doc = doc_of(W16K, "{\"link_downed\": 0}", "{\"link_downed\": 0}", "relayed");
	assert_string_equal(check_verdict(doc), "not_judged");
	json_decref(doc);
	doc = doc_of("[]", "{\"sent_pkts\": 0, \"rcvd_pkts\": 0}", "{\"sent_pkts\": 0, \"rcvd_pkts\": 0}",
		     "relayed");
	assert_string_equal(check_verdict(doc), "not_judged");
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	json_decref(doc);
}

/* Both workers on one port: the port's counters hold both directions. */
static void test_one_port(void **state)
{
	json_t *doc = json_loads(
		"{\"verdict\": \"pass\", \"findings\": [], \"path_mtu\": 4096,"
		" \"a\": {\"node\": \"x\", \"device\": \"rxe0\", \"gid\": \"g\"},"
		" \"b\": {\"node\": \"y\", \"device\": \"rxe0\", \"gid\": \"g\"},"
		" \"results\": [{\"test\": \"write\", \"size_bytes\": 2, \"posted\": [100, 100]}],"
		" \"counters\": {\"x\": {\"sent_pkts\": 400, \"rcvd_pkts\": 400},"
		" \"y\": {\"sent_pkts\": 400, \"rcvd_pkts\": 400}}}",
		0, NULL);
	const json_t *c;

	(void)state;
	fc_counters_check(doc);
	c = json_object_get(doc, "counters_check");
	assert_string_equal(fc_jstr(c, "verdict", ""), "agree");
	assert_true(json_is_true(json_object_get(c, "one_port")));
	assert_int_equal((int)json_array_size(json_object_get(c, "directions")), 1);
	assert_true(fc_jnum(dir_of(doc, 0), "least", 0) == 200 && fc_jnum(dir_of(doc, 0), "most", 0) == 400);
	json_decref(doc);
}

/* --validate's loopback flush reads go out of and into the checking side's port. */
static void test_loopback_reads(void **state)
{
	const char *with = "[{\"test\": \"write\", \"size_bytes\": 8192, \"posted\": [20, 0],"
			   " \"validate_b\": {\"loopback_reads\": 20}}]";
	const char *without = "[{\"test\": \"write\", \"size_bytes\": 8192, \"posted\": [20, 0]}]";
	const char *ca = "{\"sent_pkts\": 40, \"rcvd_pkts\": 20}";
	const char *cb = "{\"sent_pkts\": 60, \"rcvd_pkts\": 80}";
	json_t *doc = doc_of(with, ca, cb, "relayed");

	(void)state;
	assert_string_equal(check_verdict(doc), "agree");
	assert_true(fc_jnum(dir_of(doc, 0), "most", 0) == 80 && fc_jnum(dir_of(doc, 1), "most", 0) == 80);
	json_decref(doc);
	doc = doc_of(without, ca, cb, "relayed");
	assert_string_equal(check_verdict(doc), "disagree");
	assert_string_equal(fc_jstr(dir_of(doc, 0), "verdict", ""), "more");
	json_decref(doc);
}

static void test_traffic_names(void **state)
{
	(void)state;
	assert_true(fc_is_traffic_counter("port_xmit_data") && fc_is_traffic_counter("rcvd_pkts"));
	assert_false(fc_is_traffic_counter("port_xmit_discards") || fc_is_traffic_counter("sent"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_account),	     cmocka_unit_test(test_agree_and_ten_times),
		cmocka_unit_test(test_retries),	     cmocka_unit_test(test_tolerance_edge),
		cmocka_unit_test(test_data_counters), cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_one_port),     cmocka_unit_test(test_traffic_names),
		cmocka_unit_test(test_loopback_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
