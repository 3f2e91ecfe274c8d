/* Slurm drains (ctl/drain.h, matrix/mx_drain.h): the reason within Slurm's
 * limit, `scontrol show node` read as data, the resume rule, and which
 * nodes a matrix document names or clears. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/drain.h"
#include "matrix/mx_drain.h"
#include "store/store.h"

static void test_reason_text(void **state)
{
	char buf[FC_DRAIN_REASON_MAX + 1];
	size_t n;

	(void)state;
	n = fc_drain_reason(buf, sizeof(buf), "port", "mlx5_1", "matrix", 12);
	assert_string_equal(buf, "fabcheck: port on mlx5_1 (matrix run 12)");
	assert_int_equal(n, strlen(buf));
	fc_drain_reason(buf, sizeof(buf), "mtu", NULL, "health", 0);
	assert_string_equal(buf, "fabcheck: mtu (health)");
	assert_true(fc_drain_is_ours(buf));
}

/* A part or device of any length: the reason stays within 255 bytes,
 * keeps the run whole and holds nothing but printable ASCII (no quote, no
 * newline that could end up anywhere but the one argument). */
static void test_reason_limit(void **state)
{
	char big[2000], buf[1024];
	size_t n;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	big[10] = '\n';
	big[11] = '"';
	big[12] = (char)0xc3;
	n = fc_drain_reason(buf, sizeof(buf), big, big, "matrix", 123456789);
	assert_true(n <= FC_DRAIN_REASON_MAX);
	assert_int_equal(strlen(buf), n);
	assert_non_null(strstr(buf, " (matrix run 123456789)"));
	assert_true(fc_drain_is_ours(buf));
	for (size_t i = 0; i < n; i++)
		assert_true(buf[i] >= 0x20 && buf[i] < 0x7f && buf[i] != '"');
	/* A small buffer: cut, ended, no overrun. */
	n = fc_drain_reason(buf, 20, "port", "mlx5_1", "matrix", 1);
	assert_true(n < 20);
	assert_int_equal(strlen(buf), n);
}

/* A device name the one check refuses (core/names.h) never reaches the
 * reason; no byte a shell reads ($, `, \\, ") stays in it. */
static void test_reason_names_checked(void **state)
{
	char buf[FC_DRAIN_REASON_MAX + 1];

	(void)state;
	fc_drain_reason(buf, sizeof(buf), "mtu", "eth0$(touch /tmp/x)", "preflight", 1);
	assert_string_equal(buf, "fabcheck: mtu on a device with an invalid name (preflight run 1)");
	fc_drain_reason(buf, sizeof(buf), "-rf", "mlx5_0", "matrix", 2);
	assert_string_equal(buf, "fabcheck: -rf on mlx5_0 (matrix run 2)");
	fc_drain_reason(buf, sizeof(buf), "a$b`c\\d!e", "eth0", "health", 0);
	assert_string_equal(buf, "fabcheck: a?b?c?d?e on eth0 (health)");
	assert_true(fc_drain_device_ok("enp1s0f0np0"));
	assert_true(fc_drain_device_ok(""));
	assert_false(fc_drain_device_ok("-eth0"));
	assert_false(fc_drain_device_ok("eth0 x"));
}

/* The device a pair document's own fault was on ("node_fault_port",
 * pair/pair_msg.c) reaches a reason only as a device name (core/names.h),
 * only beside "node_fault"; over several documents only when they agree. */
static void test_fault_dev(void **state)
{
	static const char *const docs[] = {
		"{\"node_fault\": \"n3\", \"node_fault_port\": {\"device\": \"mlx5_3\", \"port\": 1}}",
		"{\"node_fault\": \"n3\", \"node_fault_port\": {\"device\": \"mlx5_3\", \"port\": 300}}",
		"{\"node_fault\": \"n3\", \"node_fault_port\": {\"device\": \"mlx5_3$(touch /tmp/x)\"}}",
		"{\"node_fault\": \"n3\", \"node_fault_port\": {\"device\": \"-rf\", \"port\": 1}}",
		"{\"connect_fault\": \"n3\", \"node_fault_port\": {\"device\": \"mlx5_3\", \"port\": 1}}",
		"{\"node_fault\": \"n3\"}",
	};
	static const char *const want[] = { "mlx5_3", "mlx5_3", NULL, NULL, NULL, NULL };
	static const int want_port[] = { 1, 0, 0, 0, 0, 0 };
	char buf[FC_DRAIN_REASON_MAX + 1];
	json_t *seen = json_object();
	int port;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_t *d = json_loads(docs[i], 0, NULL);
		const char *dev;

		assert_non_null(d);
		dev = fc_pair_doc_fault_dev(d, &port);
		if (want[i])
			assert_string_equal(dev, want[i]);
		else
			assert_null(dev);
		assert_int_equal(port, want_port[i]);
		json_decref(d);
	}
	/* n1: two documents on mlx5_3 port 1; n2: mlx5_3 then mlx5_4; n3:
	 * mlx5_3 then one that could not say; n4: none */
	fc_fault_dev_note(seen, "n1", "mlx5_3", 1);
	fc_fault_dev_note(seen, "n1", "mlx5_3", 1);
	fc_fault_dev_note(seen, "n2", "mlx5_3", 1);
	fc_fault_dev_note(seen, "n2", "mlx5_4", 1);
	fc_fault_dev_note(seen, "n3", "mlx5_3", 1);
	fc_fault_dev_note(seen, "n3", NULL, 0);
	fc_fault_dev_note(seen, "n3", "mlx5_3", 1);
	assert_string_equal(fc_fault_dev_of(seen, "n1", &port), "mlx5_3");
	assert_int_equal(port, 1);
	assert_null(fc_fault_dev_of(seen, "n2", &port));
	assert_null(fc_fault_dev_of(seen, "n3", &port));
	assert_null(fc_fault_dev_of(seen, "n4", &port));
	assert_string_equal(fc_fault_dev_words(buf, sizeof(buf), "mlx5_3", 1), " on mlx5_3 port 1");
	assert_string_equal(fc_fault_dev_words(buf, sizeof(buf), "mlx5_3", 0), " on mlx5_3");
	assert_string_equal(fc_fault_dev_words(buf, sizeof(buf), NULL, 1), "");
	json_decref(seen);
}

static const char show_drained[] =
	"NodeName=nodeB Arch=x86_64 CoresPerSocket=1 \n"
	"   CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=0.01\n"
	"   NodeAddr=10.0.0.2 NodeHostName=nodeB Version=22.05.8\n"
	"   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
	"   Partitions=rack \n"
	"   Reason=fabcheck: port on rxe0 (matrix run 3) State=IDLE [root@2026-12-01T22:00:00]\n";

static void test_show_node(void **state)
{
	char st[64], rs[256];

	(void)state;
	assert_int_equal(fc_slurm_node_parse(show_drained, "nodeB", st, sizeof(st), rs, sizeof(rs)),
			 0);
	/* The State= inside the reason is the reason's, not the node's. */
	assert_string_equal(st, "IDLE+DRAIN");
	assert_string_equal(rs, "fabcheck: port on rxe0 (matrix run 3) State=IDLE");
	assert_int_equal(fc_slurm_node_parse(show_drained, "nodeA", st, sizeof(st), rs, sizeof(rs)),
			 -ENOENT);
	assert_int_equal(fc_slurm_node_parse("Node nodeZ not found\n", "nodeZ", st, sizeof(st), rs,
					     sizeof(rs)),
			 -ENOENT);
	assert_int_equal(fc_slurm_node_parse("NodeName=nodeA\n   State=IDLE ThreadsPerCore=1\n",
					     "nodeA", st, sizeof(st), rs, sizeof(rs)),
			 0);
	assert_string_equal(st, "IDLE");
	assert_string_equal(rs, "");
}

/* Only a drain whose reason is still fabcheck's is undone. */
static void test_resume_rule(void **state)
{
	(void)state;
	assert_true(fc_drain_may_resume("IDLE+DRAIN", "fabcheck: port on rxe0 (matrix run 3)"));
	assert_true(fc_drain_may_resume("MIXED+DRAIN", "fabcheck: mtu on eth1 (health)"));
	assert_false(fc_drain_may_resume("IDLE+DRAIN", "bad DIMM, ticket 123"));
	assert_false(fc_drain_may_resume("IDLE+DRAIN", "Fabcheck: typed by hand"));
	assert_false(fc_drain_may_resume("IDLE+DRAIN", "see fabcheck: later"));
	assert_false(fc_drain_may_resume("IDLE+DRAIN", ""));
	assert_false(fc_drain_may_resume("IDLE", "fabcheck: port on rxe0 (matrix run 3)"));
	assert_false(fc_drain_may_resume("DOWN", "fabcheck: port on rxe0 (matrix run 3)"));
}

/* A port suspect is drained with its device, a link drains nothing, and
 * the node of a link is not a pass. */
static void test_matrix_targets(void **state)
{
	json_t *doc = json_loads(
		"{\"suspects\": ["
		" {\"level\": \"port\", \"node\": \"n3\", \"device\": \"mlx5_1\", \"reason\": \"r3\"},"
		" {\"level\": \"node\", \"node\": \"n4\", \"reason\": \"r4\"},"
		" {\"level\": \"link\", \"node\": \"n1\", \"link\": [\"n1\", \"n2\"], \"reason\": \"l\"}],"
		" \"per_node\": [{\"node\": \"n1\", \"state\": \"pass\", \"errors\": 0},"
		" {\"node\": \"n2\", \"state\": \"pass\", \"errors\": 0},"
		" {\"node\": \"n3\", \"state\": \"pass\", \"errors\": 0},"
		" {\"node\": \"n5\", \"state\": \"pass\", \"errors\": 0},"
		" {\"node\": \"n6\", \"state\": \"pass\", \"errors\": 2},"
		" {\"node\": \"n7\", \"state\": \"unreachable\", \"errors\": 3}]}",
		0, NULL);
	json_t *t = json_array(), *p = json_array();

	(void)state;
	assert_non_null(doc);
	mx_drain_targets(doc, t, p);
	assert_int_equal(json_array_size(t), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "node")), "n3");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "device")),
			    "mlx5_1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "part")),
			    "node");
	assert_int_equal(json_array_size(p), 1);
	assert_string_equal(json_string_value(json_array_get(p, 0)), "n5");
	json_array_clear(t);
	json_array_clear(p);
	/* A rail bad as a whole leaves the passes as they are: which drains
	 * they clear is mx_drain_unseen's (test_rail_unseen). */
	json_array_append_new(json_object_get(doc, "suspects"),
			      json_pack("{s:s, s:n}", "level", "rail", "node"));
	mx_drain_targets(doc, t, p);
	assert_int_equal(json_array_size(t), 2);
	assert_int_equal(json_array_size(p), 1);
	json_decref(t);
	json_decref(p);
	json_decref(doc);
}

/* Which drains a matrix with a rail bad as a whole can clear: a port on
 * a rail whose own analysis held each node against its peers (only slower
 * than the best rail, as the rack's emulator makes one: tests/data/matrix/
 * rack3-clean-rail0slow.json) was seen; a port on a rail whose nodes could
 * not be told apart, or a whole node while such a rail is, was not. Each
 * node's own device names its rail (rail_ports: nodeC's rail 1 is mlx5_4). */
static void test_rail_unseen(void **state)
{
	json_t *doc = json_loads(
		"{\"rails\": [{\"rail\": 0, \"name\": \"rxe0\"}, {\"rail\": 1, \"name\": \"rxe1\"}],"
		" \"rail_ports\": {\"nodeC\": [{\"device\": \"mlx5_0\"}, {\"device\": \"mlx5_4\"}]},"
		" \"suspects\": [{\"level\": \"rail\", \"rail\": 0, \"node\": null,"
		"  \"rail_name\": \"rxe0\", \"nodes_judged\": true}]}",
		0, NULL);
	char dev[64];

	(void)state;
	assert_non_null(doc);
	assert_null(mx_drain_unseen("nodeA", "port", "rxe0", 3, doc));
	assert_null(mx_drain_unseen("nodeA", "node", "", 3, doc));
	assert_null(mx_drain_unseen("nodeC", "port", "mlx5_0", 3, doc));
	/* rail 1 as rail 0 was with nothing run on it */
	json_array_append_new(json_object_get(doc, "suspects"),
			      json_pack("{s:s, s:i, s:n, s:s, s:b}", "level", "rail", "rail", 1,
					"node", "rail_name", "rxe1", "nodes_judged", 0));
	assert_null(mx_drain_unseen("nodeA", "port", "rxe0", 3, doc));
	assert_null(mx_drain_unseen("nodeC", "cable or transceiver", "mlx5_0", 3, doc));
	assert_non_null(strstr(mx_drain_unseen("nodeA", "port", "rxe1", 3, doc), "rail 1 (rxe1)"));
	assert_non_null(mx_drain_unseen("nodeC", "port", "mlx5_4", 3, doc));
	assert_non_null(mx_drain_unseen("nodeC", "port", "rxe1", 3, doc));
	assert_non_null(mx_drain_unseen("nodeA", "node", "", 3, doc));
	assert_non_null(mx_drain_unseen("nodeA", "port", "mlx5_9", 3, doc));
	/* the device read back from what Slurm shows */
	fc_drain_reason_device("fabcheck: cable or transceiver on mlx5_4 (matrix run 2 across 3 nodes)",
			       dev, sizeof(dev));
	assert_string_equal(dev, "mlx5_4");
	fc_drain_reason_device("fabcheck: node (matrix run 2 across 3 nodes)", dev, sizeof(dev));
	assert_string_equal(dev, "");
	fc_drain_reason_device("ops: on mlx5_1", dev, sizeof(dev));
	assert_string_equal(dev, "");
	json_decref(doc);
}

/* A drain found by comparing nodes says across how many; fabcheck reads
 * its part and that count back from what Slurm shows. */
static void test_reason_across(void **state)
{
	char buf[FC_DRAIN_REASON_MAX + 1], part[128];
	int across;

	(void)state;
	fc_drain_reason_across(buf, sizeof(buf), "mlx5_0 firmware", NULL, "preflight", 3, 4);
	assert_string_equal(buf, "fabcheck: mlx5_0 firmware (preflight run 3 across 4 nodes)");
	assert_int_equal(fc_drain_reason_read(buf, part, sizeof(part), &across), 0);
	assert_string_equal(part, "mlx5_0 firmware");
	assert_int_equal(across, 4);
	fc_drain_reason_across(buf, sizeof(buf), "cable or transceiver", "mlx5_3", "matrix", 12, 1);
	assert_string_equal(buf, "fabcheck: cable or transceiver on mlx5_3 (matrix run 12)");
	assert_int_equal(fc_drain_reason_read(buf, part, sizeof(part), &across), 0);
	assert_string_equal(part, "cable or transceiver");
	assert_int_equal(across, 0);
	assert_int_equal(fc_drain_reason_read("fabcheck: port rate on rxe1 (preflight)", part,
					      sizeof(part), &across),
			 0);
	assert_string_equal(part, "port rate");
	assert_int_equal(fc_drain_reason_read("ops: bad DIMM", part, sizeof(part), &across), -1);
}

/* The part a suspect's "likely" diagnosis names, on the node's own
 * device; a fabric part outside the node (the switch) is no reason to
 * drain it; every node was compared ("across"). */
static void test_matrix_likely_part(void **state)
{
	json_t *doc = json_loads(
		"{\"suspects\": ["
		" {\"level\": \"node\", \"node\": \"n2\", \"reason\": \"slow\", \"diagnosis\":"
		"  {\"subject\": \"n2 mlx5_3 port 1\", \"part\": \"cable or transceiver\","
		"   \"confidence\": \"likely\", \"evidence\": \"symbol errors\"}},"
		" {\"level\": \"port\", \"node\": \"n3\", \"device\": \"mlx5_1\", \"reason\": \"slow\", \"diagnosis\":"
		"  {\"subject\": \"n3 mlx5_1 port 1\", \"part\": \"the switch port at the other end (or its module)\","
		"   \"confidence\": \"likely\"}},"
		" {\"level\": \"node\", \"node\": \"n4\", \"reason\": \"slow\", \"diagnosis\":"
		"  {\"subject\": \"n4 mlx5_0 port 1\", \"part\": \"HCA\", \"confidence\": \"possible\"}}],"
		" \"per_node\": [{\"node\": \"n1\", \"state\": \"pass\", \"errors\": 0},"
		" {\"node\": \"n2\", \"state\": \"fail\"}, {\"node\": \"n3\", \"state\": \"fail\"},"
		" {\"node\": \"n4\", \"state\": \"fail\"}, {\"node\": \"n5\", \"state\": \"unreachable\"}]}",
		0, NULL);
	json_t *t = json_array(), *p = json_array();

	(void)state;
	assert_non_null(doc);
	mx_drain_targets(doc, t, p);
	assert_int_equal(json_array_size(t), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "part")),
			    "cable or transceiver");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "device")),
			    "mlx5_3");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(t, 0), "across")), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "part")), "port");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "device")),
			    "mlx5_1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 2), "part")), "node");
	assert_int_equal(json_array_size(json_object_get(doc, "unchecked")), 1);
	json_decref(t);
	json_decref(p);
	json_decref(doc);
}

/* Soak: a flap drains (its part when the diagnosis is likely), error
 * counters and a failed link drain only at "likely" and only the node the
 * diagnosis names; a possible one drains nothing; the others pass. */
static void test_soak_classes(void **state)
{
	json_t *doc = json_loads(
		"{\"suspects\": ["
		" {\"level\": \"port\", \"node\": \"a\", \"device\": \"mlx5_0\", \"reason\": \"link flaps\"},"
		" {\"level\": \"node\", \"node\": \"b\", \"reason\": \"error counters\", \"diagnosis\":"
		"  {\"subject\": \"b mlx5_2 port 1\", \"part\": \"cable or transceiver\", \"confidence\": \"likely\"}},"
		" {\"level\": \"link\", \"link\": [\"c\", \"d\"], \"reason\": \"failed slices\", \"diagnosis\":"
		"  {\"subject\": \"d mlx5_1\", \"part\": \"HCA\", \"confidence\": \"likely\"}},"
		" {\"level\": \"node\", \"node\": \"e\", \"reason\": \"error counters\", \"diagnosis\":"
		"  {\"subject\": \"e mlx5_0 port 1\", \"part\": \"cable or transceiver\", \"confidence\": \"possible\"}}],"
		" \"pairs\": [{\"a\": \"a\", \"b\": \"b\", \"slices\": 3, \"unrun_slices\": 0},"
		" {\"a\": \"c/rxe1\", \"b\": \"d/rxe1\", \"slices\": 3, \"unrun_slices\": 1},"
		" {\"a\": \"e\", \"b\": \"f\", \"slices\": 3, \"unrun_slices\": 0},"
		" {\"a\": \"f\", \"b\": \"g\", \"slices\": 2, \"unrun_slices\": 2}]}",
		0, NULL);
	char *nodes[] = { "a", "b", "c", "d", "e", "f", "g" };
	json_t *t = json_array(), *p = json_array();

	(void)state;
	assert_non_null(doc);
	mx_drain_soak_targets(doc, nodes, 7, t, p);
	assert_int_equal(json_array_size(t), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "part")), "link flap");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "device")), "mlx5_0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "node")), "b");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "device")), "mlx5_2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 2), "node")), "d");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 2), "part")), "HCA");
	assert_int_equal(json_array_size(p), 1);
	assert_string_equal(json_string_value(json_array_get(p, 0)), "f");
	/* g: none of its slices could run (ssh): not checked, not passed */
	assert_int_equal(json_array_size(json_object_get(doc, "unchecked")), 1);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(doc, "unchecked"), 0), "node")),
			    "g");
	json_decref(t);
	json_decref(p);
	json_decref(doc);
}

/* A soak's suspects name each node's own device on the rail (soak_suspects.c:
 * a server of another model names it otherwise): a flap drains that device,
 * a failed link the device of the side its diagnosis names ("devices"). */
static void test_soak_targets_own_device(void **state)
{
	json_t *doc = json_loads(
		"{\"suspects\": ["
		" {\"level\": \"port\", \"node\": \"n2\", \"device\": \"mlx5_2\", \"reason\": \"link flaps\"},"
		" {\"level\": \"link\", \"link\": [\"n1\", \"n3\"], \"devices\": [\"mlx5_0\", \"mlx5_4\"],"
		"  \"reason\": \"failed slices\", \"diagnosis\": {\"subject\": \"n3 mlx5_1 port 1\","
		"  \"part\": \"cable or transceiver\", \"confidence\": \"likely\"}}]}",
		0, NULL);
	char *nodes[] = { "n1", "n2", "n3" };
	json_t *t = json_array();

	(void)state;
	assert_non_null(doc);
	mx_drain_soak_targets(doc, nodes, 3, t, NULL);
	assert_int_equal(json_array_size(t), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "node")), "n2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 0), "device")),
			    "mlx5_2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "node")), "n3");
	assert_string_equal(json_string_value(json_object_get(json_array_get(t, 1), "device")),
			    "mlx5_4");
	json_decref(t);
	json_decref(doc);
}

/* A node that could not be checked is never drained, even when a target
 * names it: the drain step refuses it and says so; the other is tried. */
static void test_unchecked_never_drained(void **state)
{
	struct fc_drain_opts o = { .dry_run = 1 };
	json_t *doc = json_object(), *t = json_array(), *slurm;
	size_t i;
	json_t *a;
	char *js;
	int n3 = 0;

	(void)state;
	setenv("FABCHECK_SCONTROL", "/nonexistent/scontrol", 1);
	fc_drain_unchecked(doc, "n7", "none of its pairs could run");
	fc_drain_target(t, "n7", "port", "mlx5_0", "forced");
	fc_drain_target(t, "n3", "port", "mlx5_1", "slow");
	fc_drain_apply(doc, NULL, 1, "matrix", &o, t, NULL);
	slurm = json_object_get(doc, "slurm");
	json_array_foreach(slurm, i, a) {
		assert_string_not_equal(json_string_value(json_object_get(a, "node")), "n7");
		n3 += !strcmp(json_string_value(json_object_get(a, "node")), "n3");
	}
	assert_true(n3 >= 1);
	js = json_dumps(json_object_get(doc, "findings"), 0);
	assert_non_null(js);
	assert_non_null(strstr(js, "n7: not drained"));
	free(js);
	unsetenv("FABCHECK_SCONTROL");
	json_decref(t);
	json_decref(doc);
}

/* One rule for whose a pair's end is (store.h fc_pair_end_judged): exit 0
 * or 1 with a document judged the fabric; ssh's 255, a worker that could
 * not set up (3), usage (2), a signal or kill (-1), no document did not. */
static void test_pair_end_judged(void **state)
{
	json_t *doc = json_pack("{s:s, s:[]}", "verdict", "fail", "results");

	(void)state;
	assert_true(fc_pair_end_judged(0, doc));
	assert_true(fc_pair_end_judged(1, doc));
	assert_false(fc_pair_end_judged(3, doc));
	assert_false(fc_pair_end_judged(255, doc));
	assert_false(fc_pair_end_judged(2, doc));
	assert_false(fc_pair_end_judged(-1, doc));
	assert_false(fc_pair_end_judged(0, NULL));
	assert_true(fc_pair_doc_judged(doc));
	json_object_set_new(doc, "verdict", json_string("error"));
	assert_false(fc_pair_doc_judged(doc));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_text),
		cmocka_unit_test(test_reason_limit),
		cmocka_unit_test(test_reason_names_checked),
		cmocka_unit_test(test_show_node),
		cmocka_unit_test(test_resume_rule),
		cmocka_unit_test(test_matrix_targets),
		cmocka_unit_test(test_rail_unseen),
		cmocka_unit_test(test_reason_across),
		cmocka_unit_test(test_matrix_likely_part),
		cmocka_unit_test(test_soak_classes),
		cmocka_unit_test(test_soak_targets_own_device),
		cmocka_unit_test(test_fault_dev),
		cmocka_unit_test(test_unchecked_never_drained),
		cmocka_unit_test(test_pair_end_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
