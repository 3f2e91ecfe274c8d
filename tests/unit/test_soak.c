/*
 * Unit tests of the soak analysis (matrix/soak.c) on slices written for the
 * tests in the shape `pair -b --bw -D T --json` gives them: steady traffic,
 * a dip, a failed slice with the link_downed count that rose across it, a
 * carrier change within a slice, error counters; times are checked in wall
 * clock (UTC here) and seconds since the start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/out.h"
#include "matrix/mx_drain.h"
#include "matrix/soak.h"

#include "tests/unit/finding.h"

#define T0 1700000000.0 /* 2023-11-14 22:13:20 UTC */

/* A slice of pair @a-@b from @start to @end with @n samples each way of
 * @g Gb/s (sample @dip_at, if >= 0, at @dip_g for @dip_n samples). */
static json_t *slice(const char *a, const char *b, double start, double end, int n, double g,
		     int dip_at, int dip_n, double dip_g, int downed_a, int downed_b)
{
	json_t *s0 = json_array(), *s1 = json_array(), *doc;

	for (int i = 0; i < n; i++) {
		int dip = dip_at >= 0 && i >= dip_at && i < dip_at + dip_n;

		json_array_append_new(s0, json_real(dip ? dip_g : g));
		json_array_append_new(s1, json_real(g));
	}
	doc = json_pack("{s:s, s:[], s:{s:s, s:i}, s:{s:s, s:i}, s:[{s:s, s:s, s:f, s:f, s:o, s:o}], s:{}}",
			"verdict", "pass", "findings", "a", "node", a, "link_downed", downed_a, "b",
			"node", b, "link_downed", downed_b, "results", "test", "write", "metric",
			"bw", "gbps", 2 * g, "interval_s", 1.0, "samples_a_to_b_gbps", s0,
			"samples_b_to_a_gbps", s1, "counters");
	return json_pack("{s:s, s:s, s:f, s:f, s:o}", "a", a, "b", b, "start", start, "end", end,
			 "doc", doc);
}

/* A slice whose pair ended with @verdict and no figure: "fail" when a data
 * path failed (a work completion error: verbs/bw.c -EIO, the worker's
 * "fail", pair exit 1), "error" when it could not run (ssh, a worker that
 * could not start: matrix/mx_run.c kid_doc). */
static json_t *ended_slice(const char *a, const char *b, double start, double end,
			   const char *verdict, const char *why)
{
	json_t *doc = json_pack("{s:s, s:s, s:[s], s:{s:s}, s:{s:s}, s:[], s:{}}", "verdict",
				verdict, "error", why, "findings", why, "a", "node", a, "b", "node",
				b, "results", "counters");

	return json_pack("{s:s, s:s, s:f, s:f, s:o}", "a", a, "b", b, "start", start, "end", end,
			 "doc", doc);
}

static json_t *failed_slice(const char *a, const char *b, double start, double end,
			    const char *why)
{
	return ended_slice(a, b, start, end, "fail", why);
}

static json_t *analyze(json_t *slices, char **findings_p)
{
	struct fc_soak_opts o = { .drop_pct = 50, .t0 = T0 };
	json_t *doc = fc_doc_new();

	fc_soak_analyze(doc, slices, &o);
	*findings_p = findings_joined(doc);
	return doc;
}

static void test_when(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fc_soak_when(T0 + 35.4, T0, buf, sizeof(buf)), "22:13:55 (+35 s)");
}

static void test_steady(void **state)
{
	json_t *sl = json_array(), *doc, *p;
	char *f;
	int good;

	(void)state;
	for (int k = 0; k < 3; k++)
		json_array_append_new(sl, slice("nodeA", "nodeB", T0 + 12 * k, T0 + 12 * k + 11, 10,
						0.15 + 0.01 * k, -1, 0, 0, 0, 0));
	doc = fc_doc_new();
	good = fc_soak_analyze(doc, sl, &(struct fc_soak_opts){ .drop_pct = 50, .t0 = T0 });
	assert_int_equal(good, 3);
	json_decref(doc);
	doc = analyze(sl, &f);
	assert_string_equal(f, "");
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	p = json_array_get(json_object_get(doc, "pairs"), 0);
	assert_int_equal(json_integer_value(json_object_get(p, "slices")), 3);
	assert_int_equal(json_array_size(json_object_get(p, "samples")), 60);
	assert_float_equal(fc_jnum(p, "median_a_to_b_gbps", 0), 0.16, 1e-9);
	assert_float_equal(fc_jnum(p, "min_b_to_a_gbps", 0), 0.15, 1e-9);
	free(f);
	json_decref(doc);
	json_decref(sl);
}

static void test_drop(void **state)
{
	json_t *sl = json_array(), *doc, *ev;
	char *f;

	(void)state;
	json_array_append_new(sl, slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0));
	/* Samples 3 and 4 of the second slice (ending at +22 s) at 0.01:
	 * sample k of n is at end - (n - 1 - k) s: +16 and +17 s. */
	json_array_append_new(sl, slice("nodeA", "nodeB", T0 + 12, T0 + 22, 10, 0.15, 3, 2, 0.01, 0, 0));
	doc = analyze(sl, &f);
	assert_non_null(strstr(f, "nodeA-nodeB: A->B bandwidth dropped to 0.01 Gb/s (7% of its median 0.15 Gb/s) at 22:13:36 (+16 s) for 2 samples"));
	assert_null(strstr(f, "B->A"));
	ev = json_array_get(json_object_get(doc, "events"), 0);
	assert_string_equal(fc_jstr(ev, "kind", ""), "drop");
	assert_float_equal(fc_jnum(ev, "since_start_s", 0), 16, 1e-6);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	json_decref(sl);
}

static void test_flap_across_failed_slice(void **state)
{
	json_t *sl = json_array(), *doc, *ev, *flaps;
	char *f;

	(void)state;
	json_array_append_new(sl, slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 4));
	json_array_append_new(sl, failed_slice("nodeA", "nodeB", T0 + 12, T0 + 20,
					       "nodeB: rxe0 qp 0x16: send completed with error 'transport retry counter exceeded'"));
	json_array_append_new(sl, failed_slice("nodeA", "nodeB", T0 + 22, T0 + 25,
					       "nodeB: rxe0 qp 0x16: send completed with error 'transport retry counter exceeded'"));
	json_array_append_new(sl, slice("nodeA", "nodeB", T0 + 32, T0 + 42, 10, 0.15, -1, 0, 0, 0, 5));
	doc = analyze(sl, &f);
	assert_non_null(strstr(f, "nodeB: link flap: link_downed rose by 1 between 22:13:20 (+0 s) and 22:13:52 (+32 s)"));
	assert_non_null(strstr(f, "nodeA-nodeB: traffic failed at 22:13:40 (+20 s) and in 2 slices in a row, until 22:13:45 (+25 s): nodeB: rxe0 qp 0x16"));
	assert_null(strstr(f, "nodeA: link flap"));
	/* In time order: the flap window opens first. */
	ev = json_object_get(doc, "events");
	assert_int_equal(json_array_size(ev), 2);
	assert_string_equal(fc_jstr(json_array_get(ev, 0), "kind", ""), "flap");
	assert_string_equal(fc_jstr(json_array_get(ev, 0), "node", ""), "nodeB");
	assert_string_equal(fc_jstr(json_array_get(ev, 1), "kind", ""), "failed");
	flaps = json_object_get(json_object_get(json_object_get(doc, "nodes"), "nodeB"), "flaps");
	assert_int_equal(json_array_size(flaps), 1);
	assert_float_equal(fc_jnum(json_array_get(flaps, 0), "to_s", 0), 32, 1e-6);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(doc, "pairs"), 0),
							    "failed_slices")), 2);
	free(f);
	json_decref(doc);
	json_decref(sl);
}

static void test_counters(void **state)
{
	json_t *sl = json_array(), *s, *doc;
	char *f;

	(void)state;
	for (int k = 0; k < 2; k++) {
		s = slice("nodeA", "nodeC", T0 + 11 * k, T0 + 11 * k + 10, 10, 0.15, -1, 0, 0, 0, 0);
		json_object_set_new(json_object_get(json_object_get(s, "doc"), "counters"), "nodeC",
				    json_pack("{s:i, s:i, s:i}", "rcvd_seq_err", 3, "sent_pkts", 900,
					      "netdev_carrier_changes", k));
		json_array_append_new(sl, s);
	}
	doc = analyze(sl, &f);
	assert_non_null(strstr(f, "nodeC: error counters rose over the soak: rcvd_seq_err +6: packets were lost"));
	assert_null(strstr(f, "sent_pkts"));
	assert_non_null(strstr(f, "nodeC: link flap: netdev_carrier_changes rose by 1 during the slice from 22:13:31 (+11 s) to 22:13:41 (+21 s)"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
			 json_object_get(doc, "nodes"), "nodeC"), "counters"), "sent_pkts")), 1800);
	free(f);
	json_decref(doc);
	json_decref(sl);
}

/* @s's document gets diagnosis entry @part (subject @subject), and the bw
 * result @gbps. */
static json_t *diagnosed(json_t *s, const char *subject, const char *part, double gbps)
{
	json_t *doc = json_object_get(s, "doc");

	json_object_set_new(doc, "diagnosis",
			    json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "subject", subject, "part", part,
				      "confidence", "likely", "evidence", "ev", "next", "step"));
	json_object_set_new(json_array_get(json_object_get(doc, "results"), 0), "gbps",
			    json_real(gbps));
	return s;
}

static const json_t *suspect(const json_t *doc, const char *level, const char *node)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "suspects"), i, s)
		if (!strcmp(fc_jstr(s, "level", ""), level) &&
		    (!node || !strcmp(fc_jstr(s, "node", ""), node)))
			return s;
	return NULL;
}

/* A link with a drop takes the diagnosis of its slowest slice; a node with
 * error counters that of the slice where they rose most. */
static void test_suspects_diagnosis(void **state)
{
	json_t *sl = json_array(), *s, *doc;
	const json_t *x, *d;
	char *f;

	(void)state;
	json_array_append_new(sl, diagnosed(slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0),
					    "nodeA rxe0", "none-1", 0.3));
	json_array_append_new(sl, diagnosed(slice("nodeA", "nodeB", T0 + 12, T0 + 22, 10, 0.15, 3, 2, 0.01, 0, 0),
					    "nodeB rxe0 port 1", "cable or transceiver", 0.2));
	s = diagnosed(slice("nodeA", "nodeB", T0 + 24, T0 + 34, 10, 0.15, -1, 0, 0, 0, 0), "nodeB rxe0",
		      "host PCIe", 0.29);
	json_object_set_new(json_object_get(json_object_get(s, "doc"), "counters"), "nodeB",
			    json_pack("{s:i}", "rcvd_seq_err", 7));
	json_array_append_new(sl, s);
	doc = analyze(sl, &f);
	x = suspect(doc, "link", NULL);
	assert_non_null(x);
	assert_string_equal(fc_jstr(x, "reason", ""), "bandwidth drops");
	assert_string_equal(json_string_value(json_array_get(json_object_get(x, "link"), 1)), "nodeB");
	d = json_object_get(x, "diagnosis");
	assert_string_equal(fc_jstr(d, "part", ""), "cable or transceiver");
	assert_string_equal(fc_jstr(d, "subject", ""), "nodeB rxe0 port 1");
	assert_string_equal(fc_jstr(d, "next", ""), "step");
	x = suspect(doc, "node", "nodeB");
	assert_non_null(x);
	assert_string_equal(fc_jstr(x, "reason", ""), "error counters");
	assert_string_equal(fc_jstr(json_object_get(x, "diagnosis"), "part", ""), "host PCIe");
	assert_null(suspect(doc, "node", "nodeA"));
	free(f);
	json_decref(doc);
	json_decref(sl);
}

/* Slices that could not run (ssh's exit 255, a worker that could not
 * start) are said as failed traffic but are no evidence: no suspect; a
 * failed data path beside them still is. */
static void test_unrun_no_suspect(void **state)
{
	json_t *sl = json_array(), *doc;
	const json_t *p;
	char *f;

	(void)state;
	json_array_append_new(sl, slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0));
	for (int k = 0; k < 2; k++)
		json_array_append_new(sl, ended_slice("nodeA", "nodeC", T0 + 12 * k, T0 + 12 * k + 10,
						      "error", "ssh nodeC: exit 255: Connection refused"));
	doc = analyze(sl, &f);
	assert_int_equal(json_array_size(json_object_get(doc, "suspects")), 0);
	p = json_array_get(json_object_get(doc, "pairs"), 1);
	assert_string_equal(fc_jstr(p, "b", ""), "nodeC");
	assert_int_equal(fc_jnum(p, "unrun_slices", -1), 2);
	/* counted apart: no traffic of theirs failed, nothing was judged */
	assert_int_equal(fc_jnum(p, "failed_slices", -1), 0);
	assert_string_equal(fc_jstr(p, "verdict", ""), "error");
	free(f);
	json_decref(doc);
	json_array_append_new(sl, failed_slice("nodeA", "nodeC", T0 + 30, T0 + 40, "retry exceeded"));
	doc = analyze(sl, &f);
	assert_non_null(suspect(doc, "link", NULL));
	p = json_array_get(json_object_get(doc, "pairs"), 1);
	assert_int_equal(fc_jnum(p, "failed_slices", -1), 1);
	assert_int_equal(fc_jnum(p, "unrun_slices", -1), 2);
	assert_string_equal(fc_jstr(p, "verdict", ""), "fail");
	free(f);
	json_decref(doc);
	json_decref(sl);
}

/* A slice whose worker named its own node's device (the pair document's
 * "node_fault": "fail" as pair --rails keeps such a rail) is no evidence
 * against the link: that node is the suspect, "own", where another slice
 * measured; where none did, nothing is named. */
static void test_own_fault(void **state)
{
	json_t *sl = json_array(), *s, *doc;
	const json_t *x, *p;
	char *f;

	(void)state;
	json_array_append_new(sl, slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0));
	s = failed_slice("nodeA", "nodeC", T0 + 12, T0 + 22, "nodeC: no RDMA device 'rxe1'");
	json_object_set_new(json_object_get(s, "doc"), "node_fault", json_string("nodeC"));
	json_array_append_new(sl, s);
	doc = analyze(sl, &f);
	assert_null(suspect(doc, "link", NULL));
	x = suspect(doc, "node", "nodeC");
	assert_non_null(x);
	assert_true(json_is_true(json_object_get(x, "own")));
	assert_non_null(strstr(fc_jstr(x, "reason", ""), "nodeC: its own RDMA device, port or rail "
							 "could not be set up or connected in 1 slice"));
	assert_null(suspect(doc, "node", "nodeA"));
	p = json_array_get(json_object_get(doc, "pairs"), 1);
	assert_int_equal(fc_jnum(p, "failed_slices", -1), 0);
	assert_int_equal(fc_jnum(p, "unrun_slices", -1), 1);
	free(f);
	json_decref(doc);
	/* nothing measured: nothing named */
	json_array_remove(sl, 0);
	doc = analyze(sl, &f);
	assert_int_equal(json_array_size(json_object_get(doc, "suspects")), 0);
	free(f);
	json_decref(doc);
	json_decref(sl);
}

/* A soak of nodeA, nodeB and nodeC whose nodeA-nodeB slice measured and
 * whose nodeA-nodeC and nodeB-nodeC slices each failed for nodeC's own
 * device, its worker naming @dev1 and @dev2 (NULL: it could not say) port
 * 1 ("node_fault_port", pair/pair_msg.c): analysed. */
static json_t *own_on(const char *dev1, const char *dev2, char **f)
{
	json_t *sl = json_array(), *s, *doc;
	const char *dev[2] = { dev1, dev2 };

	json_array_append_new(sl, slice("nodeA", "nodeB", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0));
	for (int k = 0; k < 2; k++) {
		s = failed_slice(k ? "nodeB" : "nodeA", "nodeC", T0 + 12, T0 + 22,
				 "nodeC: no RDMA device");
		json_object_set_new(json_object_get(s, "doc"), "node_fault", json_string("nodeC"));
		if (dev[k])
			json_object_set_new(json_object_get(s, "doc"), "node_fault_port",
					    json_pack("{s:s, s:i}", "device", dev[k], "port", 1));
		json_array_append_new(sl, s);
	}
	doc = analyze(sl, f);
	json_decref(sl);
	return doc;
}

/* Issue 38 item 5: without rails, the device and port nodeC's workers
 * named for its own fault is the suspect's: a port on that device (as
 * with rails), its reason says which, and the drain names it ("port on
 * mlx5_3"). Workers that disagree, one that could not say, or a name that
 * is not a device's (core/names.h): the node, no device, nothing of that
 * name anywhere. */
static void test_own_fault_port(void **state)
{
	char *nodes[] = { "nodeA", "nodeB", "nodeC" };
	const char *bad[][2] = { { "mlx5_3", "mlx5_4" },
				 { "mlx5_3", NULL },
				 { "mlx5_3$(touch /tmp/x)", "mlx5_3$(touch /tmp/x)" } };
	json_t *doc, *t;
	const json_t *x;
	char *f, *js;

	(void)state;
	doc = own_on("mlx5_3", "mlx5_3", &f);
	x = suspect(doc, "port", "nodeC");
	assert_non_null(x);
	assert_null(suspect(doc, "node", "nodeC"));
	assert_string_equal(fc_jstr(x, "device", ""), "mlx5_3");
	assert_true(json_is_true(json_object_get(x, "own")));
	assert_non_null(strstr(fc_jstr(x, "reason", ""),
			       "nodeC on mlx5_3 port 1: its own RDMA device, port or rail could not "
			       "be set up or connected in 2 slices"));
	assert_non_null(strstr(f, "nodeC on mlx5_3 port 1: its own RDMA device"));
	t = json_array();
	mx_drain_soak_targets(doc, nodes, 3, t, NULL);
	assert_int_equal(json_array_size(t), 1);
	assert_string_equal(fc_jstr(json_array_get(t, 0), "node", ""), "nodeC");
	assert_string_equal(fc_jstr(json_array_get(t, 0), "part", ""), "port");
	assert_string_equal(fc_jstr(json_array_get(t, 0), "device", ""), "mlx5_3");
	json_decref(t);
	free(f);
	json_decref(doc);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		doc = own_on(bad[k][0], bad[k][1], &f);
		x = suspect(doc, "node", "nodeC");
		assert_non_null(x);
		assert_null(json_object_get(x, "device"));
		assert_non_null(strstr(fc_jstr(x, "reason", ""), "nodeC: its own RDMA device"));
		js = json_dumps(json_object_get(doc, "suspects"), 0);
		assert_null(strstr(js, "touch"));
		assert_null(strstr(f, "touch"));
		free(js);
		free(f);
		json_decref(doc);
	}
}

/* With rails (slices named NODE/RAIL with their "rail"): the suspect is the
 * link on that device, its failed slice's diagnosis; a steady rail none. */
static void test_suspects_rails(void **state)
{
	json_t *sl = json_array(), *s, *doc;
	const json_t *x;
	char *f;

	(void)state;
	s = diagnosed(slice("nodeA/rxe0", "nodeB/rxe0", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 0),
		      "rail 0 loaded: nodeA rxe0", "none", 0.3);
	json_object_set_new(s, "rail", json_string("rxe0"));
	json_array_append_new(sl, s);
	s = failed_slice("nodeA/rxe1", "nodeB/rxe1", T0, T0 + 10, "retry exceeded");
	json_object_set_new(json_object_get(s, "doc"), "diagnosis",
			    json_pack("[{s:s, s:s}]", "subject", "rail 1 loaded: nodeB rxe1", "part",
				      "switch port"));
	json_object_set_new(s, "rail", json_string("rxe1"));
	json_array_append_new(sl, s);
	doc = analyze(sl, &f);
	assert_int_equal(json_array_size(json_object_get(doc, "suspects")), 1);
	x = suspect(doc, "link", NULL);
	assert_non_null(x);
	assert_string_equal(fc_jstr(x, "device", ""), "rxe1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(x, "link"), 0)), "nodeA");
	assert_string_equal(fc_jstr(json_object_get(x, "diagnosis"), "part", ""), "switch port");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(x, "diagnosis"),
									     "pair"), 1)), "nodeB");
	free(f);
	json_decref(doc);
	json_decref(sl);
}

/* With rails, a node of another model names its port on rail rxe0 rxe2:
 * its flap event and the link suspect name its own device (the slices'
 * "devices", as `soak` records them from each rail's pair). */
static void test_rails_own_device(void **state)
{
	json_t *sl = json_array(), *s, *doc, *ev;
	const json_t *x;
	char *f;

	(void)state;
	for (int k = 0; k < 2; k++) {
		s = k ? failed_slice("nodeA/rxe0", "nodeB/rxe0", T0 + 12, T0 + 20, "retry exceeded")
		      : slice("nodeA/rxe0", "nodeB/rxe0", T0, T0 + 10, 10, 0.15, -1, 0, 0, 0, 4);
		json_object_set_new(s, "rail", json_string("rxe0"));
		json_object_set_new(s, "devices", json_pack("[s, s]", "rxe0", "rxe2"));
		json_array_append_new(sl, s);
	}
	s = slice("nodeA/rxe0", "nodeB/rxe0", T0 + 32, T0 + 42, 10, 0.15, -1, 0, 0, 0, 5);
	json_object_set_new(s, "rail", json_string("rxe0"));
	json_object_set_new(s, "devices", json_pack("[s, s]", "rxe0", "rxe2"));
	json_array_append_new(sl, s);
	doc = analyze(sl, &f);
	ev = json_object_get(doc, "events");
	assert_string_equal(fc_jstr(json_array_get(ev, 0), "kind", ""), "flap");
	assert_string_equal(fc_jstr(json_array_get(ev, 0), "node", ""), "nodeB/rxe0");
	assert_string_equal(fc_jstr(json_array_get(ev, 0), "device", ""), "rxe2");
	x = suspect(doc, "link", NULL);
	assert_non_null(x);
	assert_string_equal(fc_jstr(x, "device", ""), "rxe0");
	assert_string_equal(json_string_value(json_array_get(json_object_get(x, "devices"), 1)),
			    "rxe2");
	free(f);
	json_decref(doc);
	json_decref(sl);
}

static void test_empty(void **state)
{
	json_t *sl = json_array(), *doc;
	char *f;

	(void)state;
	doc = analyze(sl, &f);
	assert_string_equal(f, "");
	assert_int_equal(json_array_size(json_object_get(doc, "pairs")), 0);
	free(f);
	json_decref(doc);
	json_decref(sl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_when),
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_flap_across_failed_slice),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_suspects_diagnosis),
		cmocka_unit_test(test_suspects_rails), cmocka_unit_test(test_unrun_no_suspect),
		cmocka_unit_test(test_rails_own_device),
		cmocka_unit_test(test_own_fault),
		cmocka_unit_test(test_own_fault_port),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
