/* Unit tests of lab/fabloss.c, lab/fabloss_run.c and core/hostloss.c: the
 * frames the virtual rack's own fabric lost in the host, read from a
 * recorded /proc (a QEMU of the rack, its sockets, /proc/net/udp), and a
 * pair's error counters set aside for them, never for a rail with a fault. */
#include <errno.h>
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

#include "core/hostloss.h"
#include "core/out.h"
#include "core/pairv.h"
#include "lab/fabloss.h"

/* nodeB's QEMU command line as `lab up` started it on this host (/proc/PID/
 * cmdline, 2026-12-06; options that name no fabric cut), NUL separated. */
static const char *const qemu_args[] = {
	"qemu-system-x86_64", "-name", "fabcheck/lead/nodeB", "-accel", "tcg",
	"-append",
	"console=ttyS0 panic=-1 quiet loglevel=4 fc.node=nodeB fc.ip=10.77.1.2 fc.mtu=9000 "
	"fc.mac=52:54:00:77:01:02 fc.rails=2 fc.ip1=10.78.1.2 fc.mac1=52:54:00:79:01:02 "
	"fc.addressing=subnet fc.nodes=4 fc.index=1",
	"-netdev", "socket,id=fab,mcast=230.0.0.1:47001,localaddr=127.0.0.1",
	"-device", "virtio-net-pci,netdev=fab,mac=52:54:00:77:01:02,addr=0x10",
	"-netdev", "user,id=mgmt,hostfwd=tcp:127.0.0.1:31444-:22",
	"-netdev", "socket,id=fab1,mcast=230.0.0.2:47501,localaddr=127.0.0.1",
	"-netdev", "tap,id=stor,ifname=fct1-4-1,script=no,downscript=no",
};

static size_t cmdline(char *buf, size_t len, const char *const *args, size_t n)
{
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(args[i]) + 1;

		assert_true(off + l <= len);
		memcpy(buf + off, args[i], l);
		off += l;
	}
	return off;
}

static void test_parse_cmdline(void **state)
{
	struct fc_fabloss_node nd;
	char buf[2048];
	size_t n = cmdline(buf, sizeof(buf), qemu_args, sizeof(qemu_args) / sizeof(qemu_args[0]));
	static const char *const tap[] = { "x", "-netdev", "tap,id=fab2,ifname=fct1-2-1,script=no",
					   "-append", "fc.node=nodeB fc.ip2=10.79.1.2" };

	(void)state;
	assert_int_equal(fc_fabloss_parse_cmdline(buf, n, &nd), 0);
	assert_string_equal(nd.name, "nodeB");
	assert_string_equal(nd.port[0].ip, "10.77.1.2");
	/* 230.0.0.1 in host order (E6 00 00 01 read little-endian), port 47001 */
	assert_string_equal(nd.port[0].udp, "010000E6:B799");
	assert_string_equal(nd.port[1].ip, "10.78.1.2");
	assert_string_equal(nd.port[1].udp, "020000E6:B98D");
	assert_string_equal(nd.port[2].ip, ""); /* the storage NIC is no rail */
	assert_true(nd.port[0].drops < 0);
	n = cmdline(buf, sizeof(buf), tap, 5);
	assert_int_equal(fc_fabloss_parse_cmdline(buf, n, &nd), 0);
	assert_string_equal(nd.port[2].tap, "fct1-2-1");
	assert_string_equal(nd.port[2].ip, "10.79.1.2");
	assert_int_equal(fc_fabloss_parse_cmdline("qemu\0-m\0" "512", 11, &nd), -EINVAL);
}

/* /proc/net/udp as the kernel prints it (net/ipv4/udp.c udp4_format_sock):
 * two guests' sockets on one group, told apart by their inodes. */
#define UDP_HEAD                                                                          \
	"   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid " \
	" timeout inode ref pointer drops\n"
#define UDP_ROW(sl, local, inode, drops)                                                  \
	"  " sl ": " local " 00000000:0000 07 00000000:00000000 00:00000000 00000000     0 " \
	"       0 " inode " 2 0000000000000000 " drops "\n"

static void test_udp_drops(void **state)
{
	const char *t = UDP_HEAD UDP_ROW("12", "010000E6:B799", "55501", "24396")
		UDP_ROW("13", "010000E6:B799", "55502", "81759")
			UDP_ROW("14", "020000E6:B98D", "55503", "30845");
	unsigned long mine[] = { 7, 55502 }, none[] = { 55503 };

	(void)state;
	assert_true(fc_fabloss_udp_drops(t, "010000E6:B799", mine, 2) == 81759);
	assert_true(fc_fabloss_udp_drops(t, "020000E6:B98D", none, 1) == 30845);
	assert_true(fc_fabloss_udp_drops(t, "010000E6:B799", none, 1) == -1);
	assert_true(fc_fabloss_udp_drops("garbage\n", "010000E6:B799", mine, 2) == -1);
}

/* A recorded /proc and rack folder under @root: nodeB's QEMU (pid 4242)
 * with its rail sockets 55501 (rail 0) and 55503 (rail 1). */
static void write_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

static void recorded(const char *root, const char *drops0, const char *drops1)
{
	char p[512], cmd[2048], udp[1024];
	size_t n = cmdline(cmd, sizeof(cmd), qemu_args, sizeof(qemu_args) / sizeof(qemu_args[0]));

	snprintf(p, sizeof(p), "mkdir -p %s/proc/net %s/proc/4242/fd %s/rack/nodes", root, root, root);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/cmdline", root);
	write_file(p, cmd, n);
	snprintf(p, sizeof(p), "%s/rack/nodes/nodeB.pid", root);
	write_file(p, "4242\n", 5);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/3", root);
	unlink(p);
	assert_int_equal(symlink("socket:[55501]", p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/4", root);
	unlink(p);
	assert_int_equal(symlink("socket:[55503]", p), 0);
	snprintf(udp, sizeof(udp), UDP_HEAD UDP_ROW("1", "010000E6:B799", "55501", "%s")
					UDP_ROW("2", "010000E6:B799", "55502", "999999")
						UDP_ROW("3", "020000E6:B98D", "55503", "%s"),
		 drops0, drops1);
	snprintf(p, sizeof(p), "%s/proc/net/udp", root);
	write_file(p, udp, strlen(udp));
}

static void test_sample(void **state)
{
	char root[] = "/tmp/fabcheck-fabloss.XXXXXX", proc[256], dir[256];
	struct fc_fabloss s;
	int node;

	(void)state;
	assert_non_null(mkdtemp(root));
	recorded(root, "100", "7");
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(dir, sizeof(dir), "%s/rack", root);
	assert_int_equal(fc_fabloss_sample(proc, "/nonexistent", dir, "lead", &s), 1);
	assert_int_equal(fc_fabloss_find(&s, "10.78.1.2", &node), 1);
	assert_int_equal(node, 0);
	assert_true(s.node[0].port[0].drops == 100);
	assert_true(s.node[0].port[1].drops == 7);
	assert_int_equal(fc_fabloss_find(&s, "10.78.1.3", &node), -1);
	/* another rack's name: its QEMU is not this rack's */
	assert_int_equal(fc_fabloss_sample(proc, "/nonexistent", dir, "other", &s), 0);
	snprintf(proc, sizeof(proc), "rm -rf %s", root);
	assert_int_equal(system(proc), 0);
}

static void test_port_faulted(void **state)
{
	char root[] = "/tmp/fabcheck-fabloss.XXXXXX", p[512];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/nodes", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/nodes/nodeA.faults", root);
	write_file(p, "\n", 1); /* cleared: no fault */
	snprintf(p, sizeof(p), "%s/nodes/nodeC.rail1.faults", root);
	write_file(p, "rate=5\n", 7);
	assert_int_equal(fc_fabloss_port_faulted(root, "nodeA", 0), 0);
	assert_int_equal(fc_fabloss_port_faulted(root, "nodeC", 0), 0);
	assert_int_equal(fc_fabloss_port_faulted(root, "nodeC", 1), 1);
	assert_int_equal(fc_fabloss_port_faulted(root, "nodeA", 1), 0);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	assert_int_equal(system(p), 0);
}

/* A pair document of one rail: nodeA 10.77.1.1 -> nodeB 10.77.1.2 (rxe0),
 * nodeA's completer_retry_err and nodeB's out_of_seq_request rose. */
static json_t *pair_doc(void)
{
	return json_pack("{s:{s:s, s:s, s:s, s:i, s:s}, s:{s:s, s:s, s:s, s:i, s:s}, s:[], "
			 "s:{s:{s:i, s:i}, s:{s:i, s:i}}}",
			 "a", "node", "nodeA", "host", "nodeA", "device", "rxe0", "port", 1, "gid",
			 "::ffff:10.77.1.1", "b", "node", "nodeB", "host", "nodeB", "device", "rxe0",
			 "port", 1, "gid", "::ffff:10.77.1.2",
			 "results", "counters", "nodeA", "completer_retry_err", 219, "rcvd_pkts",
			 51445, "nodeB", "out_of_seq_request", 37, "rcvd_pkts", 37764);
}

static double fake_frames;
static const char *fake_faulted; /* the address whose loss the hook leaves to the nodes */
static double fake_loss(const char *node, const char *ip, char *why, size_t len)
{
	snprintf(why, len, "%s %s: %.0f frames", node, ip, fake_frames);
	return fake_faulted && !strcmp(ip, fake_faulted) ? 0 : fake_frames;
}

static void test_pair_set_aside(void **state)
{
	struct fc_pair_limits lim = { 0 };
	json_t *doc = pair_doc(), *hl;

	(void)state;
	/* no hook (every real rack): the counters are a warning */
	fc_host_loss = NULL;
	fc_pair_verdict(doc, &lim);
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	assert_null(json_object_get(doc, "host_loss"));
	json_decref(doc);
	/* the host lost frames at both ports: set aside, with each figure */
	fake_frames = 11561;
	fc_host_loss = fake_loss;
	doc = pair_doc();
	fc_pair_verdict(doc, &lim);
	assert_int_equal(fc_doc_verdict(doc), FC_PASS);
	hl = json_object_get(doc, "host_loss");
	assert_int_equal(json_array_size(hl), 2);
	assert_string_equal(fc_jstr(json_array_get(hl, 0), "node", ""), "nodeA");
	assert_string_equal(fc_jstr(json_array_get(hl, 0), "errors", ""), "completer_retry_err +219");
	assert_true(fc_jnum(json_array_get(hl, 1), "frames_dropped", 0) == 11561);
	assert_string_equal(fc_jstr(json_array_get(hl, 1), "why", ""), "nodeB 10.77.1.2: 11561 frames");
	json_decref(doc);
	/* one end not explained (a fault set there): neither end set aside,
	 * the loss its peer saw is the fault's too */
	fake_faulted = "10.77.1.2";
	doc = pair_doc();
	fc_pair_verdict(doc, &lim);
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	assert_null(json_object_get(doc, "host_loss"));
	json_decref(doc);
	fake_faulted = NULL;
	/* no frame lost there: judged as on any rack */
	fake_frames = 0;
	doc = pair_doc();
	fc_pair_verdict(doc, &lim);
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(doc);
	fc_host_loss = NULL;
}

/* An evidence folder's recorded test: its counters set aside at both ports
 * when it was judged; the offline diagnosis then names no part either. */
static void test_recorded(void **state)
{
	json_t *doc = pair_doc();

	(void)state;
	assert_int_equal(fc_host_loss_recorded(doc), 0);
	json_object_set_new(doc, "host_loss",
			    json_pack("[{s:s, s:s}]", "node", "nodeA", "device", "rxe0"));
	assert_int_equal(fc_host_loss_recorded(doc), 0); /* one end only */
	json_array_append_new(json_object_get(doc, "host_loss"),
			      json_pack("{s:s, s:s}", "node", "nodeB", "device", "rxe1"));
	assert_int_equal(fc_host_loss_recorded(doc), 0); /* another port of nodeB */
	json_array_append_new(json_object_get(doc, "host_loss"),
			      json_pack("{s:s, s:s}", "node", "nodeB", "device", "rxe0"));
	assert_int_equal(fc_host_loss_recorded(doc), 1);
	json_decref(doc);
}

/* The run's hooks on a recorded rack: the frames dropped between the start
 * and the judgment explain the loss; none on a rail with a fault. */
static void test_run_explains(void **state)
{
	char root[] = "/tmp/fabcheck-fabloss.XXXXXX", p[512], why[512];
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(root));
	recorded(root, "100", "7");
	snprintf(p, sizeof(p), "%s/proc", root);
	setenv("FABCHECK_LAB_PROC", p, 1);
	snprintf(p, sizeof(p), "%s/rack", root);
	assert_int_equal(fc_fabloss_begin(p, "lead"), 1);
	assert_true(fc_fabloss_explains("nodeB", "10.77.1.2", why, sizeof(why)) == 0);
	recorded(root, "11661", "7"); /* 11561 more dropped on rail 0, none on rail 1 */
	assert_true(fc_fabloss_explains("nodeB", "10.77.1.2", why, sizeof(why)) == 11561);
	assert_string_equal(why, "the virtual rack's fabric dropped 11561 frames toward nodeB on rail 0 "
				 "in the host during the run (QEMU's multicast socket's receive "
				 "queue, /proc/net/udp): the emulator's loss, not the node's");
	assert_true(fc_fabloss_explains("nodeB", "10.78.1.2", why, sizeof(why)) == 0);
	assert_true(fc_fabloss_explains("nodeZ", "10.77.1.9", why, sizeof(why)) == 0);
	snprintf(p, sizeof(p), "%s/rack/nodes/nodeB.faults", root);
	write_file(p, "loss=5\n", 7);
	assert_true(fc_fabloss_explains("nodeB", "10.77.1.2", why, sizeof(why)) == 0);
	/* the note: the frames set aside, once, among a pair's notes */
	doc = json_pack("{s:{}, s:{}, s:[{s:s, s:s, s:f}, {s:s, s:s, s:f}]}", "a", "lab",
			"host_loss", "node", "nodeA", "device", "rxe0", "frames_dropped", 6815.0,
			"node", "nodeB", "device", "rxe0", "frames_dropped", 6882.0);
	fc_fabloss_note(doc);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "notes"), 0)),
			    "the virtual rack's fabric dropped 13697 frames in the host toward nodeA "
			    "rxe0, nodeB rxe0 (QEMU's queues): their retransmissions are the "
			    "emulator's loss, not the nodes' (in --json \"host_loss\")");
	assert_null(json_object_get(doc, "findings"));
	assert_true(fc_jnum(json_object_get(json_object_get(doc, "lab"), "fabric_drops"),
			    "nodeB rxe0", 0) == 6882);
	json_decref(doc);
	unsetenv("FABCHECK_LAB_PROC");
	snprintf(p, sizeof(p), "rm -rf %s", root);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cmdline), cmocka_unit_test(test_udp_drops),
		cmocka_unit_test(test_sample),	      cmocka_unit_test(test_port_faulted),
		cmocka_unit_test(test_pair_set_aside), cmocka_unit_test(test_run_explains), cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
