/*
 * The worker's counter collection around a pair run (ctl/worker_qos.c) and
 * the pair's QoS findings (pair/pair_qos.c), on recorded inputs: a ConnectX-7
 * port's sysfs counters laid out in a temporary folder, and `ethtool -S`
 * outputs printed by tests/data/qos/fake-ethtool.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out.h"
#include "core/pairv.h"
#include "pair/pair.h"
#include "ctl/worker_qos.h"

#include "tests/unit/finding.h"

static char root[] = "/tmp/fc-qos-sysfs-XXXXXX";

/* Lays out DIR/mlx5_0/ports/1/<path> files from "path:value" lines. */
static void lay_out(const char *recorded)
{
	char path[600], line[256];
	FILE *in, *out;

	snprintf(path, sizeof(path), "tests/data/qos/%s", recorded);
	in = fopen(path, "r");
	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *colon = strchr(line, ':');

		assert_non_null(colon);
		*colon = '\0';
		snprintf(path, sizeof(path), "%s/mlx5_0/ports/1/%s", root, line);
		out = fopen(path, "w");
		assert_non_null(out);
		fputs(colon + 1, out);
		fclose(out);
	}
	fclose(in);
}

static int setup_root(void **state)
{
	char dir[600];

	(void)state;
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/mlx5_0", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1/hw_counters", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1/counters", root);
	mkdir(dir, 0755);
	setenv("FABCHECK_SYSFS_IB", root, 1);
	setenv("FABCHECK_ETHTOOL", "tests/data/qos/fake-ethtool.sh", 1);
	return 0;
}

static int teardown_root(void **state)
{
	char cmd[700];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static json_int_t num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* One collection: before, then after with the "after" recordings. */
static json_t *collect(struct vb_port_info *pi, const char *eth_before,
		       const char *eth_after, json_t **notes_p)
{
	struct vb_res r = { .pi = pi };
	struct wk_qos q = { 0 };
	json_t *out;

	lay_out("mlx5_hw_counters_cx7_before.txt");
	setenv("FAKE_ETHTOOL_OUT", eth_before, 1);
	wk_qos_before(&q, &r);
	lay_out("mlx5_hw_counters_cx7_after.txt");
	setenv("FAKE_ETHTOOL_OUT", eth_after, 1);
	out = wk_qos_after(&q, &r, notes_p);
	wk_qos_release(&q);
	return out;
}

static void test_collect_cx7(void **state)
{
	struct vb_port_info pi = { .dev = "mlx5_0", .port = 1, .is_ethernet = 1,
				   .netdev = "ens1f0np0" };
	json_t *notes, *c, *eth;

	(void)state;
	c = collect(&pi, "tests/data/qos/ethtool-S_cx6_before.txt",
		    "tests/data/qos/ethtool-S_cx6_after.txt", &notes);
	assert_int_equal(json_array_size(notes), 0);
	/* Moved: ECN marks, sequence errors, traffic. */
	assert_int_equal(num(c, "np_ecn_marked_roce_packets"), 500);
	assert_int_equal(num(c, "out_of_sequence"), 5);
	assert_int_equal(num(c, "rx_write_requests"), 100000);
	assert_int_equal(num(c, "port_rcv_packets"), 100000);
	/* Congestion counters that did not move are there, at zero. */
	assert_int_equal(num(c, "np_cnp_sent"), 0);
	assert_int_equal(num(c, "rp_cnp_handled"), 0);
	assert_int_equal(num(c, "rp_cnp_ignored"), 0);
	assert_int_equal(num(c, "local_ack_timeout_err"), 0);
	assert_int_equal(num(c, "rnr_nak_retry_err"), 0);
	/* Others that did not move are not. */
	assert_null(json_object_get(c, "lifespan"));
	assert_null(json_object_get(c, "port_xmit_discards"));
	/* The netdev's pause and discard counters, zero ones included. */
	eth = json_object_get(c, "netdev");
	assert_non_null(eth);
	assert_int_equal(num(eth, "rx_prio5_pause"), 28);
	assert_int_equal(num(eth, "rx_pause_ctrl_phy"), 28);
	assert_int_equal(num(eth, "rx_prio3_pause"), 0);
	assert_int_equal(num(eth, "rx_prio3_pause_duration"), 0);
	assert_int_equal(num(eth, "rx_out_of_buffer"), 0);
	assert_null(json_object_get(eth, "rx_packets"));
	assert_null(json_object_get(eth, "rx_prio3_bytes"));
	json_decref(c);
	json_decref(notes);
}

static void test_collect_no_ethtool(void **state)
{
	struct vb_port_info pi = { .dev = "mlx5_0", .port = 1, .is_ethernet = 1,
				   .netdev = "eth0" };
	json_t *notes, *c;

	(void)state;
	/* A netdev without statistics: ethtool fails, said in a note. */
	c = collect(&pi, "none", "none", &notes);
	assert_null(json_object_get(c, "netdev"));
	assert_int_equal(num(c, "np_ecn_marked_roce_packets"), 500);
	assert_int_equal(json_array_size(notes), 1);
	assert_true(has_text(notes, "'ethtool -S eth0' failed (exit 94: no stats available)"));
	json_decref(c);
	json_decref(notes);
	/* A virtual NIC's statistics: no pause, priority or discard counter. */
	c = collect(&pi, "tests/data/qos/ethtool-S_virtio.txt", "tests/data/qos/ethtool-S_virtio.txt",
		    &notes);
	assert_null(json_object_get(c, "netdev"));
	assert_int_equal(json_array_size(notes), 1);
	assert_true(has_text(notes, "netdev eth0 exposes no pause, priority or discard counters"));
	json_decref(c);
	json_decref(notes);
	/* No ethtool at all. */
	setenv("FABCHECK_ETHTOOL", "/nonexistent/ethtool", 1);
	c = collect(&pi, "none", "none", &notes);
	assert_true(has_text(notes, "ethtool is not installed"));
	assert_null(json_object_get(c, "netdev"));
	json_decref(c);
	json_decref(notes);
	setenv("FABCHECK_ETHTOOL", "tests/data/qos/fake-ethtool.sh", 1);
	/* InfiniBand: no Ethernet counters and nothing to say about them. */
	pi.is_ethernet = 0;
	pi.netdev[0] = '\0';
	c = collect(&pi, "none", "none", &notes);
	assert_int_equal(json_array_size(notes), 0);
	assert_int_equal(num(c, "np_cnp_sent"), 0);
	json_decref(c);
	json_decref(notes);
}

/* A pair document as pair_run builds it, with @ca as nodeA's counters. */
static json_t *pair_doc(struct pair_cfg *cfg, json_t *ca)
{
	json_t *doc = fc_doc_new();

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->label[0], sizeof(cfg->label[0]), "nodeA");
	snprintf(cfg->label[1], sizeof(cfg->label[1]), "nodeB");
	cfg->tclass = cfg->sl = -1;
	json_object_set_new(doc, "a", json_pack("{s:s, s:s, s:i, s:s}", "node", "nodeA",
						"device", "mlx5_0", "port", 1, "link_layer",
						"Ethernet"));
	json_object_set_new(doc, "b", json_pack("{s:s, s:s, s:i, s:s}", "node", "nodeB",
						"device", "mlx5_1", "port", 1, "link_layer",
						"Ethernet"));
	json_object_set_new(doc, "results", json_array());
	json_object_set_new(doc, "counters", json_pack("{s:o, s:{}}", "nodeA", ca, "nodeB"));
	return doc;
}

static void test_pair_findings(void **state)
{
	struct pair_cfg cfg;
	json_t *doc, *f;

	(void)state;
	/* ECN marks without CNPs, sequence errors, pauses on priority 5 while
	 * the traffic used 106 (DSCP 26, priority 3). */
	doc = pair_doc(&cfg, json_pack("{s:I, s:I, s:I, s:{s:I, s:I}}",
				       "np_ecn_marked_roce_packets", (json_int_t)500,
				       "np_cnp_sent", (json_int_t)0, "out_of_sequence",
				       (json_int_t)5, "netdev", "rx_prio5_pause", (json_int_t)28,
				       "rx_prio3_pause", (json_int_t)0));
	cfg.tclass = 106;
	pair_qos_finish(doc, &cfg);
	fc_pair_verdict(doc, &(struct fc_pair_limits){ 0 });
	f = json_object_get(doc, "findings");
	assert_true(has_text(f, "nodeA mlx5_0: 500 ECN-marked RoCE packets received but no CNP sent"));
	assert_true(has_text(f, "rx_prio5_pause rose by 28 but the traffic used priority 3"));
	/* Sequence errors off a lossless class: the verdict's one warning. */
	assert_true(has_text(f, "error counters rose during the test: out_of_sequence +5"));
	assert_false(has_text(f, "out_of_sequence rose by 5:"));
	/* CNP and ECN counters are not errors in themselves. */
	assert_false(has_text(f, "error counter np_ecn_marked"));
	assert_false(fc_counter_is_error("np_cnp_sent"));
	assert_false(fc_counter_is_error("rp_cnp_handled"));
	assert_true(fc_counter_is_error("out_of_sequence"));
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(doc);

	/* The same loss while PFC paused the traffic's own priority: a failure. */
	doc = pair_doc(&cfg, json_pack("{s:I, s:{s:I, s:I}}", "out_of_sequence", (json_int_t)5,
				       "netdev", "tx_prio3_pause", (json_int_t)7,
				       "rx_discards_phy", (json_int_t)3));
	cfg.tclass = 106;
	pair_qos_finish(doc, &cfg);
	f = json_object_get(doc, "findings");
	assert_true(has_text(f, "out_of_sequence rose by 5 on lossless priority 3"));
	assert_true(has_text(f, "rx_discards_phy rose by 3 on a lossless priority"));
	assert_int_equal(fc_doc_verdict(doc), FC_FAIL);
	json_decref(doc);
}

static void test_pair_side(void **state)
{
	struct pair_cfg cfg;
	json_t *doc, *a, *b, *r;

	(void)state;
	doc = pair_doc(&cfg, json_object());
	cfg.tclass = 106;
	cfg.sl = 3;
	r = json_pack("{s:i, s:i}", "qp_tclass", 106, "qp_sl", 3);
	pair_qos_side(doc, &cfg, 0, r);
	json_decref(r);
	/* nodeB's QP came out with another class and SL: said. */
	r = json_pack("{s:i, s:i}", "qp_tclass", 0, "qp_sl", 0);
	pair_qos_side(doc, &cfg, 1, r);
	json_decref(r);
	a = json_object_get(doc, "a");
	b = json_object_get(doc, "b");
	assert_int_equal(num(a, "tclass"), 106);
	assert_int_equal(num(a, "dscp"), 26);
	assert_int_equal(num(a, "ecn"), 2);
	assert_int_equal(num(a, "sl"), 3); /* RoCE: in the address vector, read back */
	assert_int_equal(num(json_object_get(doc, "b"), "sl"), 0);
	assert_int_equal(num(b, "tclass"), 0);
	assert_string_equal(json_string_value(json_object_get(a, "qos_source")), "qp");
	assert_true(has_text(json_object_get(doc, "findings"),
			"nodeB mlx5_1: its QPs carry traffic class 0, not the 106 asked for"));
	assert_true(has_text(json_object_get(doc, "findings"),
			"nodeB mlx5_1: its QPs carry SL 0, not the 3 asked for with --sl"));
	assert_true(has_text(json_object_get(doc, "notes"), "--sl 3 is in the QPs' address vector: on mlx5 RoCE"));
	json_decref(doc);

	/* InfiniBand: the SL read back, the traffic class recorded only. */
	doc = pair_doc(&cfg, json_object());
	json_object_set_new(json_object_get(doc, "a"), "link_layer", json_string("InfiniBand"));
	json_object_set_new(json_object_get(doc, "b"), "link_layer", json_string("InfiniBand"));
	cfg.tclass = 106;
	cfg.sl = 3;
	for (int i = 0; i < 2; i++) {
		r = json_pack("{s:n, s:i}", "qp_tclass", "qp_sl", 3);
		pair_qos_side(doc, &cfg, i, r);
		json_decref(r);
	}
	assert_int_equal(num(json_object_get(doc, "b"), "sl"), 3);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	assert_true(has_text(json_object_get(doc, "notes"), "--tclass 106 is recorded only: on InfiniBand"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_cx7),
		cmocka_unit_test(test_collect_no_ethtool),
		cmocka_unit_test(test_pair_findings),
		cmocka_unit_test(test_pair_side),
	};

	return cmocka_run_group_tests(tests, setup_root, teardown_root);
}
