/* Unit tests of the traffic patterns and the incast judgment
 * (core/pattern.c, core/congest.c), on recorded counter sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/congest.h"
#include "core/pattern.h"
#include "matrix/mx_pattern.h"

/* Every node receives in exactly one incast round, from every other; with
 * --fan-in K each node sends in exactly K rounds; fanout is the reverse. */
static void test_incast(void **state)
{
	(void)state;
	for (int n = 2; n <= 9; n++)
		for (int k = 0; k < n; k++) {
			struct fc_pplan pl;
			int recv[9] = { 0 }, sent[9] = { 0 }, kk = k ? k : n - 1;

			assert_int_equal(fc_pattern_plan(FC_PAT_INCAST, n, k, NULL, &pl), 0);
			assert_int_equal(pl.nrounds, n);
			for (int r = 0; r < pl.nrounds; r++) {
				assert_int_equal(pl.r[r].n, kk);
				for (int f = 0; f < pl.r[r].n; f++) {
					assert_int_equal(pl.r[r].f[f].dst, pl.r[r].target);
					assert_int_not_equal(pl.r[r].f[f].src, pl.r[r].target);
					sent[pl.r[r].f[f].src]++;
				}
				recv[pl.r[r].target]++;
			}
			for (int i = 0; i < n; i++) {
				assert_int_equal(recv[i], 1);
				assert_int_equal(sent[i], kk);
			}
			fc_pattern_release(&pl);
		}
	struct fc_pplan pl;
	assert_int_equal(fc_pattern_plan(FC_PAT_FANOUT, 4, 0, NULL, &pl), 0);
	for (int f = 0; f < pl.r[2].n; f++)
		assert_int_equal(pl.r[2].f[f].src, 2);
	fc_pattern_release(&pl);
	assert_int_equal(fc_pattern_plan(FC_PAT_INCAST, 1, 0, NULL, &pl), -1);
}

/* Bisection: every flow crosses the halves; each (A, B) pair once each way;
 * within a round no node sends twice or receives twice; with two leaves of
 * four nodes each (given interleaved), every flow crosses the leaves. */
static void test_bisection(void **state)
{
	static const int leaf[] = { 0, 1, 0, 1, 0, 1, 0, 1 };

	(void)state;
	for (int n = 2; n <= 9; n++) {
		struct fc_pplan pl;
		int seen[9][9] = { { 0 } }, half[9];

		assert_int_equal(fc_pattern_plan(FC_PAT_BISECTION, n, 0, NULL, &pl), 0);
		for (int i = 0; i < n; i++)
			half[i] = i >= n / 2;
		for (int r = 0; r < pl.nrounds; r++) {
			int out[9] = { 0 }, in[9] = { 0 };

			for (int f = 0; f < pl.r[r].n; f++) {
				const struct fc_flow *fl = &pl.r[r].f[f];

				assert_int_not_equal(half[fl->src], half[fl->dst]);
				assert_int_equal(++out[fl->src], 1);
				assert_int_equal(++in[fl->dst], 1);
				seen[fl->src][fl->dst]++;
			}
		}
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++)
				assert_int_equal(seen[a][b], half[a] != half[b]);
		fc_pattern_release(&pl);
	}
	struct fc_pplan pl;
	assert_int_equal(fc_pattern_plan(FC_PAT_BISECTION, 8, 0, leaf, &pl), 0);
	assert_int_equal(pl.crosses, pl.flows);
	assert_int_equal(pl.flows, 32);
	fc_pattern_release(&pl);
}

/* Alltoall: groups of K, every ordered pair of a group once, none across
 * groups; a lone last node joins the group before it. */
static void test_alltoall(void **state)
{
	static const struct { int n, k, last_group; } c[] = { { 8, 4, 4 }, { 9, 4, 5 }, { 10, 4, 2 },
							      { 5, 0, 5 } };

	(void)state;
	for (size_t t = 0; t < sizeof(c) / sizeof(c[0]); t++) {
		struct fc_pplan pl;
		int seen[10][10] = { { 0 } }, n = c[t].n, k = c[t].k ? c[t].k : n;

		assert_int_equal(fc_pattern_plan(FC_PAT_ALLTOALL, n, c[t].k, NULL, &pl), 0);
		assert_int_equal(pl.nrounds, 1);
		for (int f = 0; f < pl.r[0].n; f++)
			seen[pl.r[0].f[f].src][pl.r[0].f[f].dst]++;
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++) {
				int ga = a / k, gb = b / k, last = (n - c[t].last_group) / k;

				ga = a >= n - c[t].last_group ? last : ga;
				gb = b >= n - c[t].last_group ? last : gb;
				assert_int_equal(seen[a][b], a != b && ga == gb);
			}
		fc_pattern_release(&pl);
	}
}

static void test_jain(void **state)
{
	double eq[] = { 5, 5, 5, 5 }, one[] = { 8, 0, 0, 0 }, z[] = { 0, 0 };

	(void)state;
	assert_true(fabs(fc_jain(eq, 4) - 1) < 1e-12);
	assert_true(fabs(fc_jain(one, 4) - 0.25) < 1e-12);
	assert_true(isnan(fc_jain(z, 2)));
}

/* A receiver's round from recorded counters: (name, delta) as a worker
 * reads them, summed by class. */
struct rec {
	const char *name;
	double delta;
};

/* The pairs of the same ports: clean (no loss in 19200 packets), or losing
 * at 8 retransmissions started in 19200 packets (what a round of 9600
 * packets with 4 is not above); a round's flows moved 9600 packets. */
static const struct fc_loss clean_pairs = { .packets = 19200 };
static const struct fc_loss lossy_pairs = { .retries = 8, .retrans = 400, .packets = 19200 };

static const struct fc_loss *pairs_of(int pairs_clean)
{
	return pairs_clean ? &clean_pairs : &lossy_pairs;
}

static void round_of(struct fc_loss *l, double *sum, const struct rec *c, int nc)
{
	l->packets = 9600;
	for (int i = 0; i < nc; i++) {
		sum[fc_cg_class_of(c[i].name)] += c[i].delta;
		fc_loss_count(l, c[i].name, c[i].delta);
	}
}
static const char *first_outcome(const struct rec *c, int nc, const double *g, int pairs_clean,
				 double rx_drop, int *level)
{
	static const char *const senders[] = { "n1", "n2", "n3" };
	static char name[64];
	struct fc_incast_obs o = { .receiver = "n0", .nsenders = 3, .sender = senders, .gbps = g,
				   .ceiling_gbps = 392, .pairs = pairs_of(pairs_clean),
				   .rx_drop_receiver = rx_drop };
	json_t *out = json_object();

	round_of(&o.loss, o.sum, c, nc);
	*level = fc_incast_judge(&o, out);
	snprintf(name, sizeof(name), "%s",
		 json_string_value(json_object_get(
			 json_array_get(json_object_get(out, "outcomes"), 0), "outcome")) ?: "none");
	json_decref(out);
	return name;
}

static void test_incast_outcomes(void **state)
{
	const double fair[] = { 130, 130, 130 }, starved[] = { 180, 180, 20 };
	const struct rec pfc[] = { { "rx_prio3_pause", 5120 }, { "tx_prio3_pause_duration", 880 },
				   { "rcvd_pkts", 1e6 } };
	const struct rec ecn[] = { { "np_ecn_marked_roce_packets", 900 }, { "np_cnp_sent", 850 },
				   { "rp_cnp_handled", 840 } };
	const struct rec lossy[] = { { "out_of_sequence", 311 }, { "local_ack_timeout_err", 4 } };
	const struct rec rxe[] = { { "completer_retry_err", 219 }, { "rcvd_seq_err", 40 } };
	const struct rec lossy_pfc[] = { { "rx_prio3_pause", 10 }, { "packet_seq_err", 7 } };
	int level;

	(void)state;
	assert_string_equal(first_outcome(pfc, 3, fair, 1, 0, &level),
			    "lossless flow control working");
	assert_int_equal(level, 0);
	assert_string_equal(first_outcome(ecn, 3, fair, 1, 0, &level), "ECN/DCQCN working");
	assert_int_equal(level, 0);
	assert_string_equal(first_outcome(lossy, 2, fair, 1, 0, &level), "no working flow control");
	assert_int_equal(level, 2);
	assert_string_equal(first_outcome(rxe, 2, fair, 1, 0, &level), "no working flow control");
	/* The same loss with pairs that lost as often (4 retransmissions started
	 * in 9600 packets against 8 in 19200) is not pinned on flow control. */
	assert_string_equal(first_outcome(lossy, 2, fair, 0, 0, &level), "loss under incast");
	assert_int_equal(level, 1);
	assert_string_equal(first_outcome(lossy_pfc, 2, fair, 1, 0, &level), "loss under incast");
	assert_string_equal(first_outcome(pfc, 3, fair, 1, 1200, &level), "receiver cannot drain");
	assert_int_equal(level, 2);
	assert_string_equal(first_outcome(pfc + 2, 1, starved, 1, 0, &level), "unfair");
	assert_int_equal(level, 1);
	const double low[] = { 60, 60, 60 };
	assert_string_equal(first_outcome(pfc + 2, 1, low, 1, 0, &level), "below the port ceiling");
	assert_string_equal(first_outcome(pfc + 2, 1, fair, 1, 0, &level), "none");
	assert_int_equal(level, 0);
	assert_int_equal(fc_cg_class_of("rx_prio3_pause_duration"), FC_CG_PAUSE_US);
	assert_int_equal(fc_cg_class_of("rx_prio7_buf_discard"), FC_CG_RX_DROP);
	assert_int_equal(fc_cg_class_of("port_rcv_data"), FC_CG_OTHER);
}

/* The first outcome's name and evidence of @out ("none"). */
static const char *first(json_t *out, const char **evidence)
{
	json_t *o = json_array_get(json_object_get(out, "outcomes"), 0);

	*evidence = json_string_value(json_object_get(o, "evidence")) ?: "";
	return json_string_value(json_object_get(o, "outcome")) ?: "none";
}

/* Fanout: n0 writes to three receivers through its 392 Gb/s payload
 * ceiling (a 400G port, core/payload.h). */
static void test_fanout_outcomes(void **state)
{
	static const char *const rx[] = { "n1", "n2", "n3" };
	const double fair[] = { 125, 125, 125 }, starved[] = { 180, 180, 20 }, low[] = { 60, 60, 60 };
	struct fc_fanout_obs o = { .sender = "n0", .nreceivers = 3, .receiver = rx,
				   .ceiling_gbps = 392 };
	const char *ev;
	json_t *out;

	(void)state;
	o.gbps = fair;
	out = json_object();
	assert_int_equal(fc_fanout_judge(&o, out), 0);
	assert_string_equal(first(out, &ev), "none");
	assert_true(fabs(json_real_value(json_object_get(out, "jain")) - 1) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(out, "aggregate_gbps")) - 375) < 1e-9);
	json_decref(out);
	o.gbps = starved;
	out = json_object();
	assert_int_equal(fc_fanout_judge(&o, out), 1);
	assert_string_equal(first(out, &ev), "unfair");
	assert_non_null(strstr(ev, "n3 received 20 Gb/s against a fair share of 126.7 Gb/s"));
	assert_non_null(strstr(ev, "check its path from n0"));
	json_decref(out);
	o.gbps = low;
	out = json_object();
	assert_int_equal(fc_fanout_judge(&o, out), 1);
	assert_string_equal(first(out, &ev), "below the port ceiling");
	assert_non_null(strstr(ev, "180 Gb/s out of n0 against its port's ceiling 392 Gb/s"));
	json_decref(out);
}

/* An all-to-all group of four 400G nodes, each 380 Gb/s in and out, with
 * recorded counter sets (the names as mlx5 and rxe report them). */
static const char *a2a(const double *in, const double *outg, const struct rec *c, int nc,
		       const double *drop, int pairs_clean, int *level, const char **ev)
{
	static const char *const nodes[] = { "n0", "n1", "n2", "n3" };
	static const double ceil4[] = { 392, 392, 392, 392 }, none[4] = { 0 };
	static char name[64], evidence[300];
	struct fc_alltoall_obs o = { .nnodes = 4, .node = nodes, .in_gbps = in, .out_gbps = outg,
				     .ceiling_gbps = ceil4, .rx_drop = drop ? drop : none,
				     .pairs = pairs_of(pairs_clean) };
	json_t *out = json_object();

	round_of(&o.loss, o.sum, c, nc);
	*level = fc_alltoall_judge(&o, out);
	snprintf(name, sizeof(name), "%s", first(out, ev));
	snprintf(evidence, sizeof(evidence), "%s", *ev);
	*ev = evidence;
	json_decref(out);
	return name;
}

static void test_alltoall_outcomes(void **state)
{
	const double full[] = { 380, 380, 380, 380 }, one_low[] = { 380, 380, 380, 90 },
		     all_low[] = { 300, 300, 300, 300 }, drop2[] = { 0, 0, 1200, 0 };
	const struct rec pfc[] = { { "rx_prio3_pause", 5120 }, { "tx_prio3_pause_duration", 880 } };
	const struct rec ecn[] = { { "np_cnp_sent", 850 }, { "rp_cnp_handled", 840 } };
	const struct rec lossy[] = { { "out_of_sequence", 311 }, { "local_ack_timeout_err", 4 } };
	const char *ev;
	int level;

	(void)state;
	assert_string_equal(a2a(full, full, pfc, 2, NULL, 1, &level, &ev),
			    "lossless flow control working");
	assert_int_equal(level, 0);
	assert_string_equal(a2a(full, full, ecn, 2, NULL, 1, &level, &ev), "ECN/DCQCN working");
	assert_string_equal(a2a(full, full, lossy, 2, NULL, 1, &level, &ev),
			    "no working flow control");
	assert_int_equal(level, 2);
	assert_string_equal(a2a(full, full, lossy, 2, NULL, 0, &level, &ev), "loss under incast");
	assert_int_equal(level, 1);
	assert_string_equal(a2a(full, full, pfc, 2, drop2, 1, &level, &ev), "receiver cannot drain");
	assert_non_null(strstr(ev, "on n2's own port"));
	assert_int_equal(level, 2);
	assert_string_equal(a2a(one_low, full, NULL, 0, NULL, 1, &level, &ev), "unfair");
	assert_non_null(strstr(ev, "n3 received 90 Gb/s"));
	assert_int_equal(level, 1);
	assert_string_equal(a2a(full, one_low, NULL, 0, NULL, 1, &level, &ev), "unfair");
	assert_non_null(strstr(ev, "n3 sent 90 Gb/s"));
	assert_non_null(strstr(ev, "to the rest of its group"));
	assert_string_equal(a2a(all_low, all_low, NULL, 0, NULL, 1, &level, &ev),
			    "below the port ceiling");
	assert_non_null(strstr(ev, "300 Gb/s into n0"));
	assert_string_equal(a2a(full, full, NULL, 0, NULL, 1, &level, &ev), "none");
	assert_int_equal(level, 0);
}

/* Bisection halves across leaves from a run's rail plan: the leaf each
 * node's first rail port reaches (LLDP neighbour or InfiniBand switch, as
 * matrix/mx_rails.c stores it), nodes given interleaved across two leaves;
 * every flow then crosses the leaves. Unknown or single leaves: none. */
static void test_bisection_leaves(void **state)
{
	static const char *const names[] = { "n0", "n1", "n2", "n3", "n4", "n5" };
	json_t *params = json_loads(
		"{\"rails\": {\"ports\": {"
		"\"n0\": [{\"device\": \"mlx5_0\", \"leaf\": \"leaf-a\"}],"
		"\"n1\": [{\"device\": \"mlx5_0\", \"leaf\": \"leaf-b\"}],"
		"\"n2\": [{\"device\": \"mlx5_0\", \"leaf\": \"leaf-a\"}],"
		"\"n3\": [{\"device\": \"mlx5_0\", \"leaf\": \"leaf-b\"}],"
		"\"n4\": [{\"device\": \"mlx5_0\", \"leaf\": \"leaf-a\"}],"
		"\"n5\": [{\"device\": \"mlx5_0\"}]}}}", 0, NULL);
	struct fc_pplan pl, plain;
	int *leaf;

	(void)state;
	assert_non_null(params);
	assert_null(mx_pattern_leaves(params, names, 6)); /* n5's is unknown */
	leaf = mx_pattern_leaves(params, names, 4);
	assert_non_null(leaf);
	assert_true(leaf[0] == leaf[2] && leaf[1] == leaf[3] && leaf[0] != leaf[1]);
	assert_int_equal(fc_pattern_plan(FC_PAT_BISECTION, 4, 0, leaf, &pl), 0);
	assert_int_equal(pl.flows, 8);
	assert_int_equal(pl.crosses, 8);
	/* without them, halves in the order given: n0,n1 | n2,n3 cross no leaf */
	assert_int_equal(fc_pattern_plan(FC_PAT_BISECTION, 4, 0, NULL, &plain), 0);
	for (int r = 0; r < plain.nrounds; r++)
		for (int f = 0; f < plain.r[r].n; f++)
			assert_int_equal(leaf[plain.r[r].f[f].src] != leaf[plain.r[r].f[f].dst],
					 r % 2 == 1);
	fc_pattern_release(&pl);
	fc_pattern_release(&plain);
	free(leaf);
	const char *same[] = { "n0", "n2", "n4" };
	assert_null(mx_pattern_leaves(params, same, 3)); /* one leaf: nothing to split */
	json_decref(params);
}

/* The leaves a bisection's slow flows share: all through leaf 2 (its
 * uplinks); all between leaves 0 and 3 (the spine between them); spread. */
static void test_shared_leaves(void **state)
{
	const int s1[] = { 0, 1, 2 }, d1[] = { 2, 2, 3 };
	const int s2[] = { 0, 3, 0 }, d2[] = { 3, 0, 3 };
	const int s3[] = { 0, 1 }, d3[] = { 2, 3 };
	int shared[4];

	(void)state;
	assert_int_equal(fc_pattern_shared_leaves(3, s1, d1, 4, shared), 1);
	assert_true(shared[2] && !shared[0] && !shared[1] && !shared[3]);
	assert_int_equal(fc_pattern_shared_leaves(3, s2, d2, 4, shared), 2);
	assert_true(shared[0] && shared[3] && !shared[1] && !shared[2]);
	assert_int_equal(fc_pattern_shared_leaves(2, s3, d3, 4, shared), 0);
	assert_int_equal(fc_pattern_shared_leaves(0, s3, d3, 4, shared), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incast),	 cmocka_unit_test(test_bisection),
		cmocka_unit_test(test_alltoall), cmocka_unit_test(test_jain),
		cmocka_unit_test(test_incast_outcomes),
		cmocka_unit_test(test_fanout_outcomes),
		cmocka_unit_test(test_alltoall_outcomes),
		cmocka_unit_test(test_bisection_leaves),
		cmocka_unit_test(test_shared_leaves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
