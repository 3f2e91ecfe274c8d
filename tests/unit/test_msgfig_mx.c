/* Messages with figures of the matrix's text fed known figures (issue 39
 * item 5, "true sentences"): the rails' suspects (matrix/mxlevel_text.c),
 * a pattern's rounds (mx_pattern_text.c), the screen's stop
 * (screen_round.c), the rack-wide finding (mxan_text.c) and the soak's
 * error counters (soak.c). Each figure is distinct within its sentence,
 * so a count said for its total (or one rail's figure for another's)
 * shows; scripts/msg_catalogue.py lists the messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "matrix/mx_pattern.h"
#include "matrix/mxan.h"
#include "matrix/mxlevel.h"
#include "matrix/screen.h"
#include "matrix/soak.h"
#include "tests/unit/memtext.h"

#define NN 5
#define NR 5

static const char *const nodes[NN] = { "nodeA", "nodeB", "nodeC", "nodeD", "nodeE" };
static const char *const rails[NR] = { "rxe0", "rxe1", "rxe2", "rxe3", "rxe4" };

/* An analysis with rails written by hand: every node passes on every
 * rail, no finding, until a test says otherwise. */
struct hand {
	struct fc_mxl_analysis an;
	struct fc_mx_analysis ra[NR];
	struct fc_mx_node nd[NR][NN];
	struct fc_mx_cell cells[NR][NN * NN];
	struct fc_mx_finding f[NR][2];
};

static void hand_init(struct hand *h, int n, int nrails)
{
	memset(h, 0, sizeof(*h));
	h->an.n = n;
	h->an.nrails = nrails;
	h->an.rails = h->ra;
	for (int r = 0; r < nrails; r++) {
		h->ra[r] = (struct fc_mx_analysis){ .n = n, .cells = h->cells[r], .nodes = h->nd[r],
						    .findings = h->f[r], .findings_cap = 2,
						    .rack_median_gbps = NAN, .judge = 0xff,
						    .opts = FC_MX_OPTS_DEFAULT };
		for (int i = 0; i < n; i++)
			h->nd[r][i] = (struct fc_mx_node){ .median_gbps = NAN, .median_lat_us = NAN,
							   .state = FC_MX_NODE_OK };
	}
}

/* Node @i suspect on rail @r, its finding @f (kind and node set here). */
static void hand_suspect(struct hand *h, int r, int i, struct fc_mx_finding f)
{
	h->nd[r][i].state = FC_MX_NODE_SUSPECT;
	f.kind = FC_MX_SUSPECT_NODE;
	f.a = i;
	h->f[r][h->ra[r].nfindings++] = f;
}

static void text_is(const struct hand *h, const struct fc_mxl_suspect *s, const char *want)
{
	char buf[1024];

	fc_mxl_suspect_text(&h->an, s, nodes, rails, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* The best rail bad as a whole: its own median, no reference to hold it
 * against (it is the reference). */
static void test_rail_best(void **state)
{
	struct hand h;
	struct fc_mxl_suspect s = { .level = FC_MXL_RAIL, .node = -1, .peer = -1, .rail = 1,
				    .gbps = 0.0874, .ref_gbps = 0.0874 };

	(void)state;
	hand_init(&h, 4, 2);
	text_is(&h, &s, "rail 1 (rxe1): bad for every node, median 0.0874 Gb/s (the best rail's): "
			"its pairs are bad with each other: that rail's switch or its configuration");
	/* a rail below the best: both figures, the lower first */
	s.ref_gbps = 0.191;
	text_is(&h, &s, "rail 1 (rxe1): bad for every node, median 0.0874 Gb/s against 0.191 Gb/s "
			"on the best rail: that rail's switch or its configuration");
}

/* A node whose own device failed on every rail it was judged on: the
 * count of those rails, of the run's rails when one could not judge it
 * ("on every rail (3)" of a 4-rail run said the run had 3), then the
 * pairs of the rail they are counted on, named. */
static void test_node_own_every_rail(void **state)
{
	struct hand h;
	struct fc_mxl_suspect s = { .level = FC_MXL_NODE, .node = 2, .peer = -1, .rail = -1,
				    .gbps = NAN, .ref_gbps = NAN, .nrails_bad = 3, .own = 1 };

	(void)state;
	hand_init(&h, 4, 4);
	h.nd[0][2].state = FC_MX_NODE_UNTESTED;
	for (int r = 1; r < 4; r++)
		hand_suspect(&h, r, 2, (struct fc_mx_finding){ .peers = 3, .nbad = 2 + (r > 1),
								.why = FC_MX_BAD_OWN,
								.worst_peer = -1,
								.worst_gbps = NAN });
	text_is(&h, &s, "nodeC: on every rail it was judged on (3 of 4); rail 1 (rxe1): its own "
			"RDMA device, port or rail could not be set up or connected in 2 of its 3 "
			"pairs (its worker said so: the node's fault, not a link's): that node's "
			"HCAs, ports or RDMA setup");
	/* judged on all four: the first of them named */
	hand_suspect(&h, 0, 2, (struct fc_mx_finding){ .peers = 3, .nbad = 1,
							.why = FC_MX_BAD_OWN, .worst_peer = -1,
							.worst_gbps = NAN });
	s.nrails_bad = 4;
	text_is(&h, &s, "nodeC: on every rail (4); rail 0 (rxe0): its own RDMA device, port or rail "
			"could not be set up or connected in 1 of its 3 pairs (its worker said so: "
			"the node's fault, not a link's): that node's HCAs, ports or RDMA setup");
}

/* A node bad on five rails: as many rails' evidence as fit in a line's
 * worth (400 characters), then the count of the others; the two add up
 * to the rails it is bad on. */
static void test_node_more_rails(void **state)
{
	struct hand h;
	struct fc_mxl_suspect s = { .level = FC_MXL_NODE, .node = 1, .peer = -1, .rail = -1,
				    .gbps = 0.0131, .ref_gbps = 0.171, .nrails_bad = 5 };
	char buf[1024];
	const char *p;
	int shown = 0;

	(void)state;
	hand_init(&h, 4, 5);
	for (int r = 0; r < 5; r++) {
		h.ra[r].opts.min_gbps = 0.5;
		h.ra[r].rack_median_gbps = 0.171;
		h.nd[r][1].median_gbps = 0.0131;
		hand_suspect(&h, r, 1, (struct fc_mx_finding){ .peers = 3, .nbad = 2,
								.why = FC_MX_BAD_ABS | FC_MX_BAD_RACK,
								.worst_peer = 0, .worst_gbps = 0.0123 });
	}
	fc_mxl_suspect_text(&h.an, &s, nodes, rails, buf, sizeof(buf));
	assert_non_null(strstr(buf, "nodeB: bad on every rail (5), median 0.0131 Gb/s against "
				    "0.171 Gb/s; rail 0 (rxe0): bad with 2 of 3 peers (below 0.5 "
				    "Gb/s, below 90% of the rack median 0.171 Gb/s; the slowest "
				    "0.0123 Gb/s, with nodeA; its median 0.0131 Gb/s); rail 1 (rxe1): "));
	for (p = buf; (p = strstr(p, "; rail ")); p++)
		shown++;
	assert_int_equal(shown, 2);
	assert_non_null(strstr(buf, "; and on 3 more rails: the host (PCIe switch, NUMA, CPU or "
				    "firmware), not one link"));
	/* rail 4 could not judge it: 4 of the run's 5, 2 shown, 2 more */
	h.nd[4][1].state = FC_MX_NODE_UNTESTED;
	s.nrails_bad = 4;
	fc_mxl_suspect_text(&h.an, &s, nodes, rails, buf, sizeof(buf));
	assert_non_null(strstr(buf, "nodeB: bad on every rail it was judged on (4 of 5), median "
				    "0.0131 Gb/s against 0.171 Gb/s; rail 0 (rxe0): "));
	assert_non_null(strstr(buf, "; and on 2 more rails: the host"));
}

/* A port bad on its rail: the count of the node's other rails that pass,
 * not the rails it has (one not judged), singular for one. */
static void test_port_other_rails(void **state)
{
	struct hand h;
	struct fc_mxl_suspect s = { .level = FC_MXL_PORT, .node = 3, .peer = -1, .rail = 2,
				    .gbps = 0.02, .ref_gbps = 0.17 };

	(void)state;
	hand_init(&h, 5, 4);
	h.nd[2][3].state = FC_MX_NODE_SUSPECT;
	h.nd[3][3].state = FC_MX_NODE_UNTESTED;
	text_is(&h, &s, "nodeD on rail 2 (rxe2): bad with most of its peers, "
			"while it passes on 2 other rails: that node's HCA, cable or switch port on "
			"that rail");
	hand_init(&h, 5, 3);
	s.rail = 1;
	h.nd[1][3].state = FC_MX_NODE_SUSPECT;
	h.nd[2][3].state = FC_MX_NODE_UNREACHABLE;
	text_is(&h, &s, "nodeD on rail 1 (rxe1): bad with most of its peers, "
			"while it passes on 1 other rail: that node's HCA, cable or switch port on "
			"that rail");
}

/* A link of a rail with no finding of its own behind it: its figure, then
 * the one it was held against. */
static void test_link_figures(void **state)
{
	struct hand h;
	struct fc_mxl_suspect s = { .level = FC_MXL_LINK, .node = 0, .peer = 3, .rail = 2,
				    .gbps = 0.0213, .ref_gbps = 0.174 };

	(void)state;
	hand_init(&h, 5, 3);
	text_is(&h, &s, "nodeA - nodeD on rail 2 (rxe2): 0.0213 Gb/s against 0.174 Gb/s, while "
			"both pass with their other peers: the link between those two ports");
}

/* The rack-wide finding: the suspects the analysis counted, of the nodes
 * it tested (mxan.c rack_wide: a = suspects, b = tested). */
static void test_rack_wide(void **state)
{
	struct hand h;
	struct fc_mx_finding f = { .kind = FC_MX_RACK_WIDE, .a = 3, .b = 5, .fail = 1 };
	char buf[512];

	(void)state;
	hand_init(&h, 5, 1);
	fc_mx_finding_text(&h.ra[0], &f, nodes, buf, sizeof(buf));
	assert_string_equal(buf, "3 of 5 nodes are bad with most of their peers: the thresholds "
				 "may not fit this fabric (--min-gbps, --min-rack-pct) or the "
				 "whole fabric is degraded (check the switch)");
}

/* Whether @text holds @line as a whole line. */
static void has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line '%s' in:\n%s", line, text);
}

/* An incast round and an all-to-all round of a pattern: each sender's
 * share, each node's in, out and port, the counters that moved, the
 * window the rates are over. */
static void test_pattern_rounds(void **state)
{
	json_error_t je;
	json_t *doc = json_loads(
		"{\"pattern\": {\"name\": \"incast\", \"rounds\": ["
		" {\"round\": 2, \"receiver\": \"nodeA\", \"flows\": 3, \"aggregate_gbps\": 1.75,"
		"  \"ceiling_gbps\": 2.5, \"ceiling_is\": \"the receiver's port\", \"jain\": 0.912,"
		"  \"senders\": {\"nodeB\": 0.61, \"nodeC\": 0.58, \"nodeD\": 0.56},"
		"  \"counters_moved\": {\"nodeA\": {\"rx_discards_phy\": 1234}},"
		"  \"window\": {\"measured_over\": \"common window\", \"window_s\": 1.875,"
		"   \"share\": 0.94}},"
		" {\"round\": 3, \"flows\": 2, \"total_gbps\": 1.6, \"groups\": [{\"jain\": 0.987,"
		"  \"in_gbps\": {\"nodeA\": 0.81, \"nodeB\": 0.79},"
		"  \"out_gbps\": {\"nodeA\": 0.77, \"nodeB\": 0.83},"
		"  \"ceiling_gbps\": {\"nodeA\": 2.5, \"nodeB\": 2.4},"
		"  \"counters_moved\": {\"nodeB\": {\"out_of_buffer\": 17}}}]}]}}",
		0, &je);
	char *s;

	(void)state;
	assert_non_null(doc);
	s = render(mx_pattern_render, doc);
	has_line(s, "pattern incast, 2 rounds (each round's flows started together):");
	has_line(s, "  round 2: into nodeA from 3 senders: 1.75 Gb/s of 2.5 Gb/s (the receiver's "
		    "port), Jain 0.912");
	has_line(s, "    nodeB -> nodeA  0.61 Gb/s");
	has_line(s, "    nodeC -> nodeA  0.58 Gb/s");
	has_line(s, "    nodeD -> nodeA  0.56 Gb/s");
	has_line(s, "    moved: nodeA rx_discards_phy +1234");
	has_line(s, "    measured over the window all its flows ran in: 1.875 s, 94% of the round");
	has_line(s, "  round 3: 2 flows, 1.6 Gb/s in all");
	has_line(s, "    group 1, 2 nodes, Jain 0.987 over what each received:");
	has_line(s, "      nodeA  in 0.81 Gb/s, out 0.77 Gb/s, port 2.5 Gb/s");
	has_line(s, "      nodeB  in 0.79 Gb/s, out 0.83 Gb/s, port 2.4 Gb/s");
	has_line(s, "      moved: nodeB out_of_buffer +17");
	free(s);
	json_decref(doc);
}

/* The screen's stop: the round limit, the rounds it ran, the items still
 * in doubt, each in its place; singular for one. */
static void test_screen_stop(void **state)
{
	struct fc_screen s;
	char buf[512];

	(void)state;
	memset(&s, 0, sizeof(s));
	s.n = 8;
	s.k_confirm = 2;
	s.stop = FC_SCR_STOP_LIMIT;
	s.round = 7;
	s.max_rounds = 7;
	s.undecided = 3;
	fc_screen_stop_text(&s, buf, sizeof(buf));
	assert_string_equal(buf, "round limit 7 reached with 3 (node, rail) or links still in "
				 "doubt (raise --max-rounds, or run --full)");
	s.undecided = 1;
	fc_screen_stop_text(&s, buf, sizeof(buf));
	assert_string_equal(buf, "round limit 7 reached with 1 (node, rail) or link still in "
				 "doubt (raise --max-rounds, or run --full)");
	s.stop = FC_SCR_STOP_STUCK;
	s.round = 5;
	s.undecided = 2;
	fc_screen_stop_text(&s, buf, sizeof(buf));
	assert_string_equal(buf, "2 (node, rail) or links in doubt after 5 rounds and no cleared "
				 "peer on their rails to test them with (run --full)");
	s.round = 1;
	s.undecided = 1;
	fc_screen_stop_text(&s, buf, sizeof(buf));
	assert_string_equal(buf, "1 (node, rail) or link in doubt after 1 round and no cleared "
				 "peer on their rails to test them with (run --full)");
	s.stop = FC_SCR_RUNNING;
	s.round = 4;
	s.max_rounds = 9;
	s.undecided = 6;
	fc_screen_stop_text(&s, buf, sizeof(buf));
	assert_string_equal(buf, "screening: round 4 of at most 9, 6 in doubt");
}

/* A soak slice of @a-@b whose document says @node's counter @name rose
 * by @delta. */
static json_t *soak_slice(const char *a, const char *b, double start, const char *node,
			  const char *name, int delta)
{
	json_t *doc = json_pack("{s:s, s:[], s:{s:s}, s:{s:s}, s:[], s:{s:{s:i}}}", "verdict",
				"pass", "findings", "a", "node", a, "b", "node", b, "results",
				"counters", node, name, delta);

	return json_pack("{s:s, s:s, s:f, s:f, s:o}", "a", a, "b", b, "start", start, "end",
			 start + 10, "doc", doc);
}

/* The soak's error counters: the sum over its slices, for the node whose
 * counter rose (3 + 4), not a slice's own delta. */
static void test_soak_error_counter(void **state)
{
	struct fc_soak_opts o = { .drop_pct = 50, .t0 = 1700000000.0 };
	json_t *sl = json_array(), *doc = fc_doc_new(), *f;
	size_t i;
	int seen = 0;

	(void)state;
	json_array_append_new(sl, soak_slice("nodeA", "nodeC", o.t0, "nodeC", "rcvd_seq_err", 3));
	json_array_append_new(sl, soak_slice("nodeA", "nodeC", o.t0 + 11, "nodeC", "rcvd_seq_err", 4));
	json_array_append_new(sl, soak_slice("nodeA", "nodeC", o.t0 + 22, "nodeC",
					     "completer_retry_err", 19));
	json_array_append_new(sl, soak_slice("nodeA", "nodeC", o.t0 + 33, "nodeA",
					     "out_of_seq_request", 5));
	fc_soak_analyze(doc, sl, &o);
	/* one finding per port, its counters with their sums; what they mean
	 * once in the report (issue 39 item 2) */
	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		const char *t = json_string_value(f);

		seen += !strcmp(t, "nodeA: error counters rose over the soak: out_of_seq_request +5: "
				   "packets were lost, retried or corrupted (with --save-evidence, "
				   "'fabcheck diagnose' names the likely part)") ||
			!strcmp(t, "nodeC: error counters rose over the soak: rcvd_seq_err +7, "
				   "completer_retry_err +19");
		assert_null(strstr(t, "error counter "));
	}
	assert_int_equal(seen, 2);
	json_decref(doc);
	json_decref(sl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rail_best),
		cmocka_unit_test(test_node_own_every_rail),
		cmocka_unit_test(test_node_more_rails),
		cmocka_unit_test(test_port_other_rails),
		cmocka_unit_test(test_link_figures),
		cmocka_unit_test(test_rack_wide),
		cmocka_unit_test(test_pattern_rounds),
		cmocka_unit_test(test_screen_stop),
		cmocka_unit_test(test_soak_error_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
