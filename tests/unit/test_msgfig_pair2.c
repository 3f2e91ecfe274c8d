/*
 * Issue 39 item 5, pair/ beyond pair_render (test_msgfig_pair.c): the
 * messages with figures of the evidence a worker sends (pair_ev.c), the
 * GID agreement (pair_link.c), a worker's result figures (pair_bw.c), the
 * window both directions ran in (pair_bw.c), the QoS notes (pair_qos.c)
 * and the rails table's heading (pair_rails_io.c), each fed distinct
 * figures and checked whole.
 *
 * The bounds are the program's own (pair/pair.h, diag/diag.h): a file of
 * a snapshot at most DIAG_SNAP_FILE_MAX (1 MiB, said 1024 KiB), a
 * snapshot DIAG_SNAP_TOTAL_MAX (16 MiB), a side's evidence PAIR_EV_MAX
 * (a snapshot before and one after: 32 MiB); a port number is a u8 of 1
 * to 255 (ibv_query_port(3)).
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
#include <unistd.h>

#include "diag/diag.h"
#include "pair/pair.h"

#include "memtext.h"
#include "lastlog.h"

/* A file of 1024 KiB and one byte more in two pieces; then a side past
 * its 32 MiB of evidence. */
static void test_evidence_bounds(void **state)
{
	json_t *ev = json_object(), *m;
	size_t used = 0, half = DIAG_SNAP_FILE_MAX / 2;
	char why[256], *piece = malloc(half + 2);

	(void)state;
	assert_non_null(piece);
	memset(piece, 'x', half + 1);
	piece[half + 1] = '\0';
	m = json_pack("{s:s, s:{s:s}}", "phase", "after", "files", "sys/ports/1/counters", piece);
	assert_int_equal(pair_ev_absorb(ev, &used, m, why, sizeof(why)), 0);
	piece[half] = '\0';
	json_decref(m);
	m = json_pack("{s:s, s:{s:s}}", "phase", "after", "files", "sys/ports/1/counters", piece);
	assert_int_equal(pair_ev_absorb(ev, &used, m, why, sizeof(why)), -E2BIG);
	assert_string_equal(why, "its evidence file 'sys/ports/1/counters' is over 1024 KiB (a snapshot's files are at most that)");
	json_decref(m);

	used = PAIR_EV_MAX - PAIR_EV_MSG_MIN + 1;
	m = json_pack("{s:s, s:{}}", "phase", "before", "files");
	assert_int_equal(pair_ev_absorb(ev, &used, m, why, sizeof(why)), -E2BIG);
	assert_string_equal(why, "it sent more than 32 MiB of evidence (a snapshot before and one after the tests, of 16 MiB at most each)");
	json_decref(m);
	json_decref(ev);
	free(piece);
}

/* --save-evidence of a side whose setup named port 300 of mlx5_3: refused
 * before any file is made, and the verdict says it was not saved. */
static void test_evidence_port(void **state)
{
	char dir[] = "/tmp/fc-msgfig-pair2-XXXXXX", sub[64];
	json_t *doc = json_pack("{s:{s:s, s:s, s:i}, s:{s:s}, s:[]}", "a", "node", "nodeA",
				"device", "mlx5_3", "port", 300, "b", "node", "nodeB", "findings");
	json_t *ev[2] = { json_pack("{s:{}}", "before"), json_object() };
	struct pair_cfg cfg = { .evidence_dir = sub };
	struct diag_set s = { 0 };
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/ev", dir);
	pair_ev_finish(doc, &s, ev, &cfg);
	assert_string_equal(last, "evidence: port 300 of mlx5_3 is not a port number (1 to 255)");
	text = json_dumps(json_object_get(doc, "findings"), 0);
	assert_non_null(strstr(text, "the evidence was not saved to "));
	free(text);
	json_decref(doc);
	json_decref(ev[0]);
	json_decref(ev[1]);
	snprintf(sub, sizeof(sub), "rm -rf %s", dir); /* mkdtemp's name: no shell word */
	assert_int_equal(system(sub), 0);
}

static json_t *gid_side(const char *node, const char *type, const char *gid, int index)
{
	return json_pack("{s:s, s:s, s:s, s:i}", "node", node, "gid_type", type, "gid", gid,
			 "gid_index", index);
}

/* Each side's node, type, family, GID and index in its place. */
static void test_gid_disagreement(void **state)
{
	json_t *a = gid_side("nodeA", "RoCE v2", "::ffff:10.1.2.3", 3);
	json_t *b = gid_side("nodeB", "RoCE v2", "fd00::5", 5);
	json_t *c = gid_side("nodeC", "RoCE v1", "::ffff:10.1.2.7", 1);
	char why[1000];

	(void)state;
	assert_int_equal(pair_gid_check(why, sizeof(why), a, b), -1);
	assert_string_equal(why, "GID address families differ: nodeA uses RoCE v2 IPv4 GID ::ffff:10.1.2.3 (index 3), nodeB uses RoCE v2 IPv6 GID fd00::5 (index 5); the QPs cannot reach each other: choose GIDs of one type and family on both with -x A,B ('fabcheck devices' lists them)");
	assert_int_equal(pair_gid_check(why, sizeof(why), c, a), -1);
	assert_string_equal(why, "GID types differ: nodeC uses RoCE v1 IPv4 GID ::ffff:10.1.2.7 (index 1), nodeA uses RoCE v2 IPv4 GID ::ffff:10.1.2.3 (index 3); the QPs cannot reach each other: choose GIDs of one type and family on both with -x A,B ('fabcheck devices' lists them)");
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* A worker's result with a negative rate: refused, the key and the figure
 * named. */
static void test_result_figure(void **state)
{
	json_t *r = json_pack("{s:f, s:f, s:f}", "seconds", 2.25, "msgs", 4096.0, "gbps", -3.5);
	char why[256];

	(void)state;
	assert_int_equal(pair_result_check(r, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "its \"gbps\" of -3.5 is no figure (not a finite number of 0 or more)");
	json_decref(r);
}

/*
 * Both ways, side A's curve from 100 s to 106 s on the controller's clock,
 * side B's from 103 s to 107.5 s: they ran together 3 s of the 7.5 s run,
 * 40% (under OVERLAP_MIN, 90%).
 */
static void test_overlap_finding(void **state)
{
	json_t *res[2] = {
		json_pack("{s:f, s:f, s:[[f, f], [f, f], [f, f]]}", "gbps", 8.0, "t0", 100.0,
			  "curve", 0.0, 0.0, 3.0, 3e9, 6.0, 6e9),
		json_pack("{s:f, s:f, s:[[f, f], [f, f]]}", "gbps", 8.0, "t0", 103.0, "curve",
			  0.0, 0.0, 4.5, 4.5e9),
	};
	json_t *doc = json_pack("{s:[]}", "findings");
	json_t *e = json_pack("{s:s, s:s, s:i}", "test", "write", "metric", "bw", "size_bytes",
			      65536);
	struct pair_cfg cfg = { .interval = 0.25 };
	const int active[2] = { 1, 1 };
	const double offset[2] = { 0, 0 };

	(void)state;
	pair_bw_entry(doc, &cfg, e, VB_WRITE, res, active, offset, 0.001);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			    "write bandwidth at 64 KiB both ways: the two directions ran together for 40% of the run (3.000 s of 7.500 s): the figures are over that window only; one worker started late or ended early (a slow node, ssh or CPU contention)");
	json_decref(res[0]);
	json_decref(res[1]);
	json_decref(doc);
	json_decref(e);
}

/* InfiniBand with --cm and --sl 6: the SL is the subnet manager's. */
static void test_cm_sl_note(void **state)
{
	json_t *doc = json_pack("{s:{s:s, s:s}, s:{s:s, s:s}}", "a", "node", "nodeA",
				"link_layer", "InfiniBand", "b", "node", "nodeB", "link_layer",
				"InfiniBand");
	json_t *reply = json_object();
	struct pair_cfg cfg = { .cm = 1, .sl = 6, .tclass = -1 };

	(void)state;
	pair_qos_side(doc, &cfg, 1, reply);
	assert_int_equal(json_array_size(json_object_get(doc, "notes")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "notes"), 0)),
			    "with --cm the SL comes from the subnet manager's path record: --sl 6 is recorded only");
	json_decref(reply);
	json_decref(doc);
}

/* The rails table's heading: which results are above, how many rails. */
static void test_rails_heading(void **state)
{
	json_t *doc = json_pack("{s:s, s:[{s:i}, {s:i}, {s:i}]}", "results_of",
				"every rail loaded", "rails", "rail", 0, "rail", 1, "rail", 2);
	char *t;

	(void)state;
	t = render(pair_rails_table, doc);
	assert_non_null(strstr(t, "\nrails (every rail loaded above; each rail alone, then all 3 at once):\n"));
	free(t);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_evidence_bounds, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_evidence_port, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_gid_disagreement, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_result_figure, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_overlap_finding, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_cm_sl_note, lastlog_setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_rails_heading, lastlog_setup, lastlog_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
