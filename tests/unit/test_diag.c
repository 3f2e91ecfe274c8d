/*
 * diag/: parsers of recorded tool output, the evidence folder, and each row
 * of the rules table fed recorded evidence (tests/data/diag/, each with a
 * SOURCE naming where its input comes from) or evidence built here.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "diag/diag.h"
#include "diag_util.h"

static void expect_first(const char *fixture, const char *rule, const char *part,
			 const char *subject, const char *conf, const char *evidence)
{
	json_t *doc = diagnose(fixture);
	const json_t *d = first(doc);

	assert_string_equal(str(d, "rule"), rule);
	assert_string_equal(str(d, "part"), part);
	assert_string_equal(str(d, "subject"), subject);
	assert_string_equal(str(d, "confidence"), conf);
	if (evidence && !strstr(str(d, "evidence"), evidence))
		fail_msg("evidence '%s' lacks '%s'", str(d, "evidence"), evidence);
	assert_true(strlen(str(d, "next")) > 20);
	json_decref(doc);
}

static void test_ber_over(void **state)
{
	(void)state;
	/* every figure of the sentence as the fixture's SOURCE works it: 1200
	 * symbol errors over rx_bits_phy +1.2e13 in 60 s, against the 1e-12 target */
	expect_first("mlx5-ber-over", "ber", "cable or transceiver", "nodeC mlx5_3 port 1",
		     "likely", "post-FEC bit error rate 1e-10 over 60 s is above 1e-12 (IEEE "
		     "802.3/IBTA target): traffic is lost (rx_pcs_symbol_err_phy +1200)");
}

static void test_ber_under(void **state)
{
	json_t *doc = diagnose("mlx5-ber-under");
	const json_t *ev = port_evidence(doc, 0);

	(void)state;
	no_part(doc, "cable");
	assert_float_equal(json_real_value(json_object_get(ev, "pre_fec_ber")), 3.1434e-6, 1e-9);
	assert_float_equal(json_real_value(json_object_get(ev, "post_fec_ber")), 0, 0);
	json_decref(doc);
}

static void test_module_hot(void **state)
{
	(void)state;
	expect_first("module-hot", "module_alarm", "transceiver", "nodeB mlx5_1 port 1", "possible",
		     "Module temperature high warning");
}

static void test_pcie_downtrained(void **state)
{
	json_t *doc = diagnose("pcie-aer-downtrained");
	const json_t *lim = by_rule(doc, "pcie_limit"), *br = by_rule(doc, "bridge");

	(void)state;
	assert_non_null(lim);
	assert_non_null(br);
	assert_string_equal(str(lim, "part"), "host PCIe");
	assert_non_null(strstr(str(lim, "evidence"),
			       "mlx5_2 trained to 16 GT/s x8 (capable of 32 GT/s x16): at most about 110 Gb/s, port is 400 Gb/s"));
	assert_string_equal(str(br, "subject"), "nodeD PCIe bridge 0000:16:01.0 (above mlx5_2)");
	assert_non_null(strstr(str(br, "evidence"), "with errors: 32 GT/s x16 of 32 GT/s x16, AER 46 correctable, 0 non-fatal"));
	json_decref(doc);
}

/* The smallest ceiling on the path: the HCA as trained; a GPU at its
 * width and maximum speed (idle GPUs lower their speed). */
static void test_path_ceiling(void **state)
{
	struct diag_set s;
	struct diag_port p = { 0 };
	json_t *c;

	(void)state;
	assert_int_equal(diag_set_read(DATA "pcie-aer-downtrained", &s), 0);
	c = diag_path_ceiling_json(&s.ports[0]);
	assert_non_null(c);
	assert_string_equal(str(c, "role"), "hca");
	assert_float_equal(json_real_value(json_object_get(c, "gbps")), 109.5, 0.5);
	assert_true(json_is_true(json_object_get(c, "downtrained")));
	json_decref(c);
	diag_set_release(&s);

	p.npcie = 3;
	p.pcie[0] = (struct diag_pcie){ .role = "bridge", .cur_gts = 2.5, .cur_width = 1 };
	p.pcie[1] = (struct diag_pcie){ .role = "hca", .cur_gts = 32, .max_gts = 32,
					.cur_width = 16, .max_width = 16, .mps = 256 };
	p.pcie[2] = (struct diag_pcie){ .role = "gpu", .cur_gts = 2.5, .max_gts = 32,
					.cur_width = 16, .max_width = 16, .mps = 256 };
	c = diag_path_ceiling_json(&p); /* the idle GPU's 2.5 GT/s does not count */
	assert_float_equal(json_real_value(json_object_get(c, "gbps")), diag_pcie_gbps(32, 16, 256), 1e-9);
	assert_false(json_is_true(json_object_get(c, "downtrained")));
	json_decref(c);
	p.pcie[2].cur_width = 8; /* a GPU trained to half its width limits */
	c = diag_path_ceiling_json(&p);
	assert_string_equal(str(c, "role"), "gpu");
	assert_float_equal(json_real_value(json_object_get(c, "gbps")), diag_pcie_gbps(32, 8, 256), 1e-9);
	assert_true(json_is_true(json_object_get(c, "downtrained")));
	json_decref(c);
	p.npcie = 1;
	assert_null(diag_path_ceiling_json(&p)); /* a bridge alone is no ceiling */
}

static void test_hca_aer(void **state)
{
	(void)state;
	expect_first("hca-aer", "hca_aer", "HCA", "nodeE mlx5_0 (PCIe 0000:b3:00.0)", "likely",
		     "5 correctable, 5 non-fatal, 0 fatal");
}

static void test_ib_flaps(void **state)
{
	(void)state;
	expect_first("ib-flaps", "link_flap", "cable or transceiver", "nodeC mlx5_3 port 1",
		     "likely", "link_downed +2");
}

static void test_perfquery_far(void **state)
{
	(void)state;
	json_t *doc;
	const json_t *cable;

	expect_first("perfquery-far", "far_end", "the switch port at the other end (or its module)",
		     "nodeA mlx5_1 port 1", "likely", "symbol_error +4078");
	doc = diagnose("perfquery-far");
	assert_non_null(strstr(str(first(doc), "next"), "spare one on the same switch"));
	cable = entry(doc, 1);
	assert_string_equal(str(cable, "part"), "the cable");
	assert_string_equal(str(cable, "confidence"), "possible");
	json_decref(doc);
}

static void test_hca_all_ports(void **state)
{
	json_t *doc = diagnose("hca-all-ports");
	const json_t *d = first(doc), *cable = by_rule(doc, "phys_errors");

	(void)state;
	assert_string_equal(str(d, "rule"), "hca_all_ports");
	assert_string_equal(str(d, "subject"), "nodeF mlx5_4");
	assert_non_null(cable);
	assert_string_equal(str(cable, "confidence"), "possible");
	json_decref(doc);
}

/* Every port says once what it does not expose. */
static void test_not_exposed_once(void **state)
{
	json_t *doc = diagnose("pcie-aer-downtrained");
	const json_t *p = port_evidence(doc, 0), *n;
	size_t i, module = 0, far = 0;

	(void)state;
	json_array_foreach(json_object_get(p, "notes"), i, n) {
		module += strstr(json_string_value(n), "transceiver readings not exposed") != NULL;
		far += strstr(json_string_value(n), "far end (switch port) not seen: perfquery: the subnet could not be queried") != NULL;
	}
	assert_int_equal(module, 1);
	assert_int_equal(far, 1);
	json_decref(doc);
}

/* ---- recorded on the virtual rack (SOURCE in each) ------------------------ */

static void no_cable(const json_t *doc)
{
	none_with(doc, "part", "cable");
	none_with(doc, "next", "swap the cable");
}

static void test_rack_loss(void **state)
{
	json_t *doc = diagnose("rack-loss");
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "drops");
	assert_string_equal(str(d, "subject"), "nodeB rxe0 -> nodeA rxe0");
	assert_non_null(strstr(str(d, "evidence"), "at nodeB's egress"));
	no_cable(doc);
	json_decref(doc);
}

static void test_rack_mtu(void **state)
{
	json_t *doc = diagnose("rack-mtu");

	(void)state;
	assert_string_equal(str(first(doc), "part"), "configuration (MTU)");
	no_cable(doc);
	json_decref(doc);
}

static void test_rack_healthy(void **state)
{
	json_t *doc = diagnose("rack-healthy");

	(void)state;
	no_cable(doc);
	json_decref(doc);
}

/* ---- evidence built here, for the rows over a whole test ---------------- */

/* Two rxe ports with the given hw_counters after (all zero before). */
static json_t *run_pair(json_t *test, const char *a_after[], const char *b_after[])
{
	const char *zero[] = { "hw_counters/out_of_seq_request", "0", "hw_counters/rcvd_seq_err",
			       "0", "hw_counters/duplicate_request", "0", "hw_counters/sent_pkts",
			       "0", "hw_counters/rcvd_pkts", "0", "hw_counters/link_downed", "0",
			       "carrier_changes", "2", NULL };
	const char *none[] = { NULL };
	const struct side sd[] = { { "nodeA", "rxe0", none, a_after },
				   { "nodeB", "rxe0", none, b_after } };

	return run_sides_on(test, zero, sd, 2);
}

static void test_drops_direction(void **state)
{
	/* loss at nodeB's egress (the rack's `loss 5` on nodeB, a write and a read
	 * test): nodeB's read responses are lost, so nodeA asks again and nodeB
	 * sees duplicates; rxe itself drops a few of what nodeA sends */
	const char *a[] = { "hw_counters/rcvd_seq_err", "69", "hw_counters/completer_retry_err",
			    "488", "hw_counters/sent_pkts", "9000", "hw_counters/rcvd_pkts", "9000",
			    NULL };
	const char *b[] = { "hw_counters/out_of_seq_request", "73", "hw_counters/duplicate_request",
			    "3443", NULL };
	json_t *doc = run_pair(pair_doc(4096, 4096, 0, 1), a, b);
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "drops");
	assert_string_equal(str(d, "part"), "buffers or QoS configuration");
	assert_string_equal(str(d, "subject"), "nodeB rxe0 -> nodeA rxe0");
	assert_string_equal(str(d, "confidence"), "likely"); /* 4073 of 18000 packets */
	assert_non_null(strstr(str(d, "evidence"), "what nodeB sent to nodeA was lost (3443 sequence gaps, NAKs and duplicates, 142 the other way): at nodeB's egress"));
	assert_non_null(strstr(str(d, "evidence"), "none exposed here"));
	assert_null(strstr(str(d, "next"), "swap the cable"));
	json_decref(doc);
}

/* A healthy but busy Soft-RoCE pair (the rack, write and read at 64 KiB):
 * rxe retries both ways; drops, never the cable. */
static void test_healthy_busy_rxe(void **state)
{
	const char *a[] = { "hw_counters/rcvd_seq_err", "65", "hw_counters/completer_retry_err",
			    "125", NULL };
	const char *b[] = { "hw_counters/out_of_seq_request", "70", "hw_counters/duplicate_request",
			    "372", NULL };
	json_t *doc = run_pair(pair_doc(4096, 4096, 0, 1), a, b);

	(void)state;
	assert_string_equal(str(first(doc), "rule"), "drops");
	assert_string_equal(str(first(doc), "subject"), "nodeA rxe0 <-> nodeB rxe0");
	no_cable(doc);
	json_decref(doc);
}

/* RNR NAKs both ways (rxe: nodeA received them, nodeB sent them, and
 * mlx5's out_of_buffer): loss in a run without --validate; in a validated
 * one the receive cap's (a receive posted again only once its message
 * was checked), so no drops row; the evidence still lists the class. */
static void test_rnr_validated(void **state)
{
	const char *a0[] = { "hw_counters/rcvd_rnr_err", "0", "hw_counters/sent_pkts", "0",
			     "hw_counters/rcvd_pkts", "0", NULL };
	const char *a1[] = { "hw_counters/rcvd_rnr_err", "400", "hw_counters/sent_pkts", "9000",
			     "hw_counters/rcvd_pkts", "9000", NULL };
	const char *b0[] = { "hw_counters/send_rnr_err", "0", "hw_counters/out_of_buffer", "0",
			     NULL };
	const char *b1[] = { "hw_counters/send_rnr_err", "400", "hw_counters/out_of_buffer", "400",
			     NULL };
	const struct side sd[] = { { "nodeA", "rxe0", a0, a1 }, { "nodeB", "rxe0", b0, b1 } };

	(void)state;
	for (int val = 0; val < 2; val++) {
		json_t *t = pair_doc(4096, 4096, 0, 1), *doc;
		char *ev;

		json_object_set_new(t, "options", json_pack("{s:b}", "validate", val));
		doc = run_sides(t, sd, 2);
		assert_int_equal(by_rule(doc, "drops") != NULL, !val);
		ev = json_dumps(json_object_get(doc, "evidence"), 0);
		assert_non_null(ev);
		assert_non_null(strstr(ev, "receive_not_ready"));
		free(ev);
		json_decref(doc); /* @t went with the set (diag_set_release) */
	}
}

static void test_congestion(void **state)
{
	const char *a[] = { "hw_counters/out_of_seq_request", "5", "hw_counters/np_cnp_sent", "300",
			    NULL };
	const char *b[] = { "hw_counters/np_cnp_sent", "0", NULL };
	json_t *doc;

	(void)state;
	doc = run_pair(pair_doc(4096, 4096, 0, 1), a, b);
	/* np_cnp_sent is absent before: not a delta, so no congestion yet */
	assert_string_equal(str(first(doc), "rule"), "drops");
	json_decref(doc);
}

static void test_congestion_moving(void **state)
{
	const char *a[] = { "hw_counters/out_of_seq_request", "5", "carrier_changes", "2",
			    "ethtool-S.txt", "NIC statistics:\n     rx_prio3_pause: 900\n", NULL };
	const char *b[] = { NULL };
	const char *zero[] = { "ethtool-S.txt", "NIC statistics:\n     rx_prio3_pause: 100\n",
			       "hw_counters/out_of_seq_request", "0", NULL };
	const struct side sd[] = { { "nodeA", "mlx5_0", zero, a }, { "nodeB", "mlx5_0", b, b } };
	json_t *doc = run_sides(pair_doc(4096, 4096, 0, 1), sd, 2);

	(void)state;
	assert_string_equal(str(first(doc), "rule"), "congestion");
	assert_string_equal(str(first(doc), "part"), "congestion or flow control");
	json_decref(doc);
}

static void test_config_mtu(void **state)
{
	const char *a[] = { "mtu", "9000", "netdev", "eth0", NULL };
	const char *b[] = { "mtu", "1500", "netdev", "eth0", NULL };
	json_t *doc = run_pair(pair_doc(4096, 1024, 0, 1), a, b);
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "config");
	assert_string_equal(str(d, "part"), "configuration (MTU)");
	assert_non_null(strstr(str(d, "evidence"), "active MTU in bytes: nodeA 4096, nodeB 1024"));
	assert_non_null(strstr(str(d, "evidence"), "netdev MTU: nodeA eth0 9000 B, nodeB eth0 1500 B"));
	json_decref(doc);
}

static void test_slow_clean(void **state)
{
	const char *none[] = { NULL };
	json_t *doc = run_pair(pair_doc(4096, 4096, 0.02, 0.008), none, none);
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "slow_clean");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_non_null(strstr(str(d, "evidence"), "0.008 Gb/s is below the floor of 0.02 Gb/s"));
	json_decref(doc);
}

static void test_flap_mid_soak(void **state)
{
	const char *a[] = { "carrier_changes", "4", "hw_counters/rcvd_seq_err", "30", NULL };
	const char *none[] = { NULL };
	json_t *doc = run_pair(pair_doc(4096, 4096, 0, 1), a, none);
	const json_t *d = first(doc);

	(void)state;
	assert_string_equal(str(d, "rule"), "link_flap");
	assert_string_equal(str(d, "subject"), "nodeA rxe0 port 1");
	assert_non_null(strstr(str(d, "evidence"), "netdev_carrier_changes +2"));
	assert_null(by_rule(doc, "drops")); /* the flap explains the loss */
	json_decref(doc);
}

/* pair --rails: both rails pass alone and fall short loaded: the host. */
static void test_rails_slow(void **state)
{
	json_t *doc = json_pack("{s:s, s:{s:s}, s:{s:s}, s:[{s:i, s:f, s:f, s:b}, {s:i, s:f, s:f, s:b}]}",
				"verdict", "fail", "a", "node", "nodeA", "b", "node", "nodeB", "rails",
				"rail", 0, "alone_gbps", 0.15, "loaded_gbps", 0.06, "host_limited", 1,
				"rail", 1, "alone_gbps", 0.14, "loaded_gbps", 0.05, "host_limited", 1);
	struct diag_set s = { 0 };
	const json_t *d;

	(void)state;
	diag_run(doc, &s);
	d = first(doc);
	assert_string_equal(str(d, "rule"), "rails_slow");
	assert_string_equal(str(d, "part"), "host PCIe");
	assert_string_equal(str(d, "confidence"), "likely");
	assert_string_equal(str(d, "subject"), "nodeA <-> nodeB, every rail loaded");
	assert_non_null(strstr(str(d, "evidence"), "rail 1 0.14 Gb/s alone, 0.05 with every rail loaded"));
	json_decref(doc);
}

static void test_healthy_pass(void **state)
{
	const char *none[] = { NULL };
	json_t *t = pair_doc(4096, 4096, 0, 1), *doc;

	(void)state;
	json_object_set_new(t, "verdict", json_string("pass"));
	doc = run_pair(t, none, none);
	assert_int_equal(ndiag(doc), 0);
	json_decref(doc);
}

/* ---- parsers ------------------------------------------------------------ */

static void test_parsers(void **state)
{
	struct diag_module m;
	json_t *pq = diag_parse_perfquery("# Port counters: Lid 34 port 17 (CapMask: 0x5A00)\n"
					  "PortSelect:......................17\n"
					  "CounterSelect:...................0x0000\n"
					  "SymbolErrorCounter:..............65535\n"
					  "LinkDownedCounter:...............3\n"
					  "Garbage line\n");

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(pq, "symbol_error")), 65535);
	assert_int_equal(json_integer_value(json_object_get(pq, "link_downed")), 3);
	assert_null(json_object_get(pq, "CounterSelect"));
	json_decref(pq);
	assert_null(diag_parse_perfquery("ibwarn: [1234] mad_rpc_open_port: can't open UMAD port\n"));
	assert_float_equal(diag_parse_rate("400 Gb/sec (4X NDR)"), 400, 0);
	assert_float_equal(diag_parse_rate("garbage"), 0, 0);
	assert_int_equal(diag_parse_aer("RxErr 2\nBadTLP 1\nTOTAL_ERR_COR 3\n"), 3);
	assert_int_equal(diag_parse_aer("nothing here"), -1);
	assert_int_equal(diag_parse_module("netlink error: Operation not supported\n", &m), -1);
	assert_int_equal(diag_parse_module("\tModule temperature : 41.5 degrees C / 106 degrees F\n"
					   "\tRcvr signal avg optical power(Channel 2) : 0.0100 mW / -20.00 dBm\n",
					   &m), 0);
	diag_module_judge(&m, 0);
	assert_float_equal(m.temp_c, 41.5, 1e-9);
	assert_float_equal(m.rx_dbm_min, -20, 1e-9);
	assert_int_equal(diag_counter_class("rx_prio5_pause"), DIAG_C_PAUSE);
	assert_int_equal(diag_counter_class("rx_pcs_symbol_err_phy"), DIAG_C_POSTFEC);
	assert_int_equal(diag_counter_class("rx_err_lane_0_phy"), DIAG_C_NONE);
	assert_int_equal(diag_counter_class("np_cnp_sent"), DIAG_C_ECN);
}

static void test_pcie_ceiling(void **state)
{
	(void)state;
	/* 16 GT/s x8, 256 B: 128 * 128/130 * 256/280 * 0.95 */
	assert_float_equal(diag_pcie_gbps(16, 8, 256), 109.5, 0.5);
	/* Gen5 x16 carries a 400 Gb/s port, Gen4 x16 does not */
	assert_true(diag_pcie_gbps(32, 16, 256) > 400);
	assert_true(diag_pcie_gbps(16, 16, 256) < 400);
	/* 8b/10b at 5 GT/s */
	assert_float_equal(diag_pcie_gbps(5, 8, 128), 5 * 8 * 0.8 * 128.0 / 152 * 0.95, 1e-9);
	assert_float_equal(diag_pcie_gbps(0, 8, 256), 0, 0);
}

/* ---- the evidence folder ------------------------------------------------- */

static void rm_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A reading written as a capture (diag/snapcap.c) and read back through the
 * bundle reader: every file back under its snapshot name, byte for byte,
 * the port's files where `fabcheck capture` keeps them, a FILE.why as the
 * manifest's "not_read", a name with ".." never written. */
static void test_snap_roundtrip(void **state)
{
	char dir[] = "/tmp/fc-diag-XXXXXX", path[128];
	json_t *s = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "counters/symbol_error", "12\n",
			      "pcie/hca-0000:17:00.0/current_link_speed", "16.0 GT/s PCIe\n",
			      "netdev", "eth2\n", "mtu", "4200\n", "ethtool-S.txt", "rx_bits_phy: 9\n",
			      "ethtool-m.txt.why", "'ethtool -m' failed (exit 1)\n", "../escape", "x"),
	       *back;
	struct stat st;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(diag_snap_write_bundle(dfd, "before", dir, s, "nodeA#2", "mlx5_0", 1), 0);
	close(dfd);
	snprintf(path, sizeof(path), "%s/before/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/before/cmd/ethtool_-S_eth2", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/before/sys/class/net/eth2/mtu", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/before", dir);
	back = diag_snap_read_bundle(path);
	assert_non_null(back);
	json_object_del(s, "../escape"); /* never written */
	assert_true(json_equal(back, s));
	json_decref(back);
	json_decref(s);
	rm_tree(dir);
}

/* A reading's file within a capture's bound (16 MiB) but over a snapshot
 * file's (1 MiB), or not text, is refused, not judged. */
static void test_snap_bundle_bounds(void **state)
{
	char dir[] = "/tmp/fc-diag-XXXXXX", path[64];
	char *big = malloc(DIAG_SNAP_FILE_MAX + 2);
	json_t *s;
	int dfd;

	(void)state;
	assert_non_null(big);
	memset(big, '7', DIAG_SNAP_FILE_MAX + 1);
	big[DIAG_SNAP_FILE_MAX + 1] = 0;
	s = json_pack("{s:s}", "ethtool-S.txt", big);
	free(big);
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(diag_snap_write_bundle(dfd, "after", dir, s, "nodeA", "mlx5_0", 1), 0);
	json_decref(s);
	s = json_pack("{s:s%}", "time", "17\0x", (size_t)4); /* a NUL byte: not text */
	assert_non_null(s);
	assert_int_equal(diag_snap_write_bundle(dfd, "before", dir, s, "nodeA", "mlx5_0", 1), 0);
	json_decref(s);
	close(dfd);
	snprintf(path, sizeof(path), "%s/after", dir);
	assert_null(diag_snap_read_bundle(path));
	snprintf(path, sizeof(path), "%s/before", dir);
	assert_null(diag_snap_read_bundle(path));
	rm_tree(dir);
}

/* A live worker's snapshot may hold anything: a counter that is a number,
 * an object or null instead of its file's text is left out, never read as
 * a string (diag/port.c snap_counters dereferenced NULL). */
static void test_snap_not_strings(void **state)
{
	struct diag_port p;
	json_t *b = json_pack("{s:i, s:{}, s:n, s:s}", "counters/symbol_error", 12,
			      "hw_counters/out_of_sequence", "carrier_changes", "counters/link_downed",
			      "0\n");
	json_t *a = json_pack("{s:f, s:[], s:b, s:s}", "counters/symbol_error", 1e300,
			      "hw_counters/out_of_sequence", "carrier_changes", 1,
			      "counters/link_downed", "2\n");

	(void)state;
	memset(&p, 0, sizeof(p));
	snprintf(p.node, sizeof(p.node), "nodeA");
	snprintf(p.dev, sizeof(p.dev), "mlx5_0");
	diag_port_from_snaps(&p, b, a);
	assert_int_equal(p.have_ib, 1); /* the one string counter is read */
	diag_port_release(&p);
	json_decref(b);
	json_decref(a);
}

static void test_bad_folders(void **state)
{
	struct diag_set s;
	char dir[] = "/tmp/fc-diag-XXXXXX", path[64];
	FILE *f;

	(void)state;
	assert_int_not_equal(diag_set_read("/nonexistent/evidence", &s), 0);
	assert_non_null(mkdtemp(dir));
	assert_int_not_equal(diag_set_read(dir, &s), 0); /* empty: not an evidence folder */
	snprintf(path, sizeof(path), "%s/test.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{ not json", f);
	fclose(f);
	assert_int_not_equal(diag_set_read(dir, &s), 0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ber_over),	 cmocka_unit_test(test_ber_under),
		cmocka_unit_test(test_module_hot),	 cmocka_unit_test(test_pcie_downtrained),
		cmocka_unit_test(test_path_ceiling),
		cmocka_unit_test(test_hca_aer),		 cmocka_unit_test(test_ib_flaps),
		cmocka_unit_test(test_perfquery_far),	 cmocka_unit_test(test_hca_all_ports),
		cmocka_unit_test(test_not_exposed_once), cmocka_unit_test(test_drops_direction),
		cmocka_unit_test(test_congestion),
		cmocka_unit_test(test_rnr_validated),	 cmocka_unit_test(test_congestion_moving),
		cmocka_unit_test(test_healthy_busy_rxe), cmocka_unit_test(test_rack_loss),
		cmocka_unit_test(test_rack_mtu),	  cmocka_unit_test(test_rack_healthy),
		cmocka_unit_test(test_config_mtu),	 cmocka_unit_test(test_slow_clean),
		cmocka_unit_test(test_flap_mid_soak),	 cmocka_unit_test(test_rails_slow),	 cmocka_unit_test(test_healthy_pass),
		cmocka_unit_test(test_parsers),		 cmocka_unit_test(test_pcie_ceiling),
		cmocka_unit_test(test_snap_roundtrip),
		cmocka_unit_test(test_snap_bundle_bounds),
		cmocka_unit_test(test_bad_folders),
		cmocka_unit_test(test_snap_not_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
