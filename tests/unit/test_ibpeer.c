/*
 * The switch each InfiniBand port reaches: smpquery nodeinfo output
 * (core/smpinfo.c) on the recorded outputs of tests/data/ibpeer (each names
 * its source in its first line), and ctl/ibpeer.c asking a stand-in
 * smpquery (a script on PATH that prints those outputs) for each port.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out.h"
#include "core/smpinfo.h"
#include "core/util.h"
#include "ctl/ibpeer.h"
#include "ctl/nodesrc.h"

#define DATA "tests/data/ibpeer/"

static char *slurp(const char *file)
{
	static char buf[8192];

	assert_true(fc_read_file(file, buf, sizeof(buf)) > 0);
	return buf;
}

static void test_nodeinfo_parse(void **state)
{
	struct fc_smp_nodeinfo ni;

	(void)state;
	assert_int_equal(fc_smp_nodeinfo_parse(slurp(DATA "smpquery-nodeinfo_dr-0-1_switch.txt"),
					       &ni), 0);
	assert_string_equal(ni.type, "Switch");
	assert_string_equal(ni.guid, "0xfc6a1c0300e1f2a0");
	assert_int_equal(ni.local_port, 17);
	assert_int_equal(ni.num_ports, 65);
	assert_int_equal(fc_smp_nodeinfo_parse(
				 slurp(DATA "smpquery-nodeinfo_dr-0-1_hca-back-to-back.txt"), &ni), 0);
	assert_string_equal(ni.type, "Channel Adapter");
	assert_string_equal(ni.guid, "0x1070fd0300a1b2c4"); /* the node's, not PortGuid */
	/* what smpquery prints without umad access: no NodeInfo */
	assert_int_equal(fc_smp_nodeinfo_parse(slurp(DATA "smpquery_no-umad.txt"), &ni), -EINVAL);
	/* short GUIDs are widened; a bad or too long one is no GUID */
	assert_int_equal(fc_smp_nodeinfo_parse("NodeType:....Switch\nGuid:.....0x2c9\n", &ni), 0);
	assert_string_equal(ni.guid, "0x00000000000002c9");
	assert_int_equal(ni.local_port, -1);
	assert_int_equal(fc_smp_nodeinfo_parse("NodeType:....Switch\nGuid:.....0x12g4\n", &ni),
			 -EINVAL);
	assert_int_equal(fc_smp_nodeinfo_parse("NodeType:..Switch\nGuid:..0x11112222333344445\n",
					       &ni), -EINVAL);
	assert_int_equal(fc_smp_nodeinfo_parse("Guid:.....0x2c9\n", &ni), -EINVAL);
	assert_int_equal(fc_smp_nodeinfo_parse("", &ni), -EINVAL);
}

static void test_nodedesc_parse(void **state)
{
	char d[72];

	(void)state;
	assert_int_equal(fc_smp_nodedesc_parse(slurp(DATA "smpquery-nodedesc_dr-0-1_switch.txt"), d,
					       sizeof(d)), 0);
	assert_string_equal(d, "MF0;ib-leaf-01:MQM9790/U1");
	/* 32 characters or more: one dot; a control byte shown as '?' */
	assert_int_equal(fc_smp_nodedesc_parse("Node Description:.a-name-of-exactly-thirty-two-chr\n",
					       d, sizeof(d)), 0);
	assert_string_equal(d, "a-name-of-exactly-thirty-two-chr");
	assert_int_equal(fc_smp_nodedesc_parse("Node Description:....sw\x1b[2Jx\n", d, sizeof(d)), 0);
	assert_string_equal(d, "sw?[2Jx");
	/* cut to the room given */
	assert_int_equal(fc_smp_nodedesc_parse("Node Description:..abcdef\n", d, 4), 0);
	assert_string_equal(d, "abc");
	/* NodeInfo, an error, an empty description: none */
	assert_int_equal(fc_smp_nodedesc_parse(slurp(DATA "smpquery-nodeinfo_dr-0-1_switch.txt"), d,
					       sizeof(d)), -EINVAL);
	assert_int_equal(fc_smp_nodedesc_parse(slurp(DATA "smpquery_no-umad.txt"), d, sizeof(d)),
			 -EINVAL);
	assert_int_equal(fc_smp_nodedesc_parse("Node Description:........\n", d, sizeof(d)), -EINVAL);
}

static json_t *port(const char *dev, const char *ll, const char *state)
{
	return json_pack("{s:s, s:[{s:s, s:i, s:s, s:s}]}", "name", dev, "ports", "device", dev,
			 "port", 1, "link_layer", ll, "state", state);
}

static json_t *port_of(json_t *devs, size_t i)
{
	return json_array_get(json_object_get(json_array_get(devs, i), "ports"), 0);
}

static char bin[] = "/tmp/fabcheck-ibpeer-XXXXXX";

/* A stand-in smpquery: the switch for mlx5_0 and mlx5_4, an HCA for
 * mlx5_1, no answer for mlx5_9 (past the 5 s deadline), no umad access for
 * any other device; it records how it was asked. */
static void fake_smpquery(void)
{
	char path[128], cwd[512];
	FILE *f;

	assert_non_null(mkdtemp(bin));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/smpquery", bin);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$*\" >>%s/args\ncase $2 in\n"
		   "mlx5_0|mlx5_4) [ \"$6\" = nodedesc ] && exec grep -v '^# synth' %s/" DATA
		   "smpquery-nodedesc_dr-0-1_switch.txt\n"
		   "\tgrep -v '^# synth' %s/" DATA "smpquery-nodeinfo_dr-0-1_switch.txt ;;\n"
		   "mlx5_1) grep -v '^# synth' %s/" DATA "smpquery-nodeinfo_dr-0-1_hca-back-to-back.txt ;;\n"
		   "mlx5_9) exec sleep 30 ;;\n"
		   "*) grep -v '^#' %s/" DATA "smpquery_no-umad.txt >&2; exit 255 ;;\nesac\n",
		bin, cwd, cwd, cwd, cwd);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static char *args_read(void)
{
	static char args[1024];
	char path[256];

	snprintf(path, sizeof(path), "%s/args", bin);
	if (fc_read_file(path, args, sizeof(args)) < 0)
		args[0] = 0;
	unlink(path);
	return args;
}

/* Each port's outcome is kept and a port's own failure does not stop the
 * next port's question. */
static void test_switches_add(void **state)
{
	json_t *devs = json_array(), *doc = fc_doc_new();
	const char *old = getenv("PATH");
	char path[4096];

	(void)state;
	fake_smpquery();
	json_array_append_new(devs, port("mlx5_0", "InfiniBand", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_1", "InfiniBand", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_2", "InfiniBand", "DOWN"));
	json_array_append_new(devs, port("rxe0", "Ethernet", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_3", "InfiniBand", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_4", "InfiniBand", "ACTIVE"));
	snprintf(path, sizeof(path), "%s:%s", bin, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	fc_ib_switches_add(devs, doc);
	assert_string_equal(fc_jstr(port_of(devs, 0), "switch_guid", ""), "0xfc6a1c0300e1f2a0");
	assert_string_equal(fc_jstr(port_of(devs, 0), "switch_desc", ""), "MF0;ib-leaf-01:MQM9790/U1");
	assert_int_equal(fc_jnum(port_of(devs, 0), "peer_port", 0), 17);
	assert_null(json_object_get(port_of(devs, 1), "switch_desc"));
	assert_null(json_object_get(port_of(devs, 1), "switch_guid"));
	assert_string_equal(fc_jstr(port_of(devs, 1), "peer_type", ""), "Channel Adapter");
	assert_null(json_object_get(port_of(devs, 2), "switch_guid"));
	assert_null(json_object_get(port_of(devs, 2), "switch_error"));
	assert_null(json_object_get(port_of(devs, 3), "switch_error"));
	/* mlx5_3 refused (its own outcome), mlx5_4 asked after it all the same */
	assert_non_null(strstr(fc_jstr(port_of(devs, 4), "switch_error", ""),
			       "smpquery -C mlx5_3 -P 1 -D nodeinfo 0,1 (infiniband-diags): "
			       "smpquery: iberror: failed: Failed to open"));
	assert_null(json_object_get(port_of(devs, 4), "switch_guid"));
	assert_string_equal(fc_jstr(port_of(devs, 5), "switch_guid", ""), "0xfc6a1c0300e1f2a0");
	assert_null(json_object_get(port_of(devs, 5), "switch_error"));
	assert_non_null(strstr(fc_jstr(doc, "switch_note", ""),
			       "not read on 1 of 4 ports (each port's switch_error says why): "
			       "smpquery -C mlx5_3 -P 1 -D nodeinfo 0,1"));
	/* asked over the direct route out of each ACTIVE InfiniBand port */
	assert_string_equal(args_read(),
			    "-C mlx5_0 -P 1 -D nodeinfo 0,1\n-C mlx5_0 -P 1 -D nodedesc 0,1\n"
			    "-C mlx5_1 -P 1 -D nodeinfo 0,1\n-C mlx5_3 -P 1 -D nodeinfo 0,1\n"
			    "-C mlx5_4 -P 1 -D nodeinfo 0,1\n-C mlx5_4 -P 1 -D nodedesc 0,1");
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	json_decref(devs);
	json_decref(doc);
}

/* A failure of the node's (no smpquery; no answer within the deadline):
 * the later ports are not asked, each says so, and a capture lists each
 * as not read. */
static void test_switches_node_failure(void **state)
{
	json_t *devs = json_array(), *doc = fc_doc_new(), *e;
	const char *old = getenv("PATH");
	char path[4096], dir[] = "/tmp/fabcheck-ibpeer-cap-XXXXXX";
	struct fc_bundle_w w;
	struct fc_src rec;
	double t0;

	(void)state;
	json_array_append_new(devs, port("mlx5_0", "InfiniBand", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_4", "InfiniBand", "ACTIVE"));
	setenv("PATH", "/nonexistent", 1);
	fc_ib_switches_add(devs, doc);
	assert_non_null(strstr(fc_jstr(port_of(devs, 0), "switch_error", ""),
			       "nodeinfo 0,1 (infiniband-diags): cannot run smpquery"));
	assert_non_null(strstr(fc_jstr(port_of(devs, 1), "switch_error", ""),
			       "not asked: smpquery -C mlx5_0 -P 1 -D nodeinfo 0,1 "
			       "(infiniband-diags): cannot run smpquery"));
	assert_null(json_object_get(port_of(devs, 0), "switch_guid"));
	assert_null(json_object_get(port_of(devs, 1), "switch_guid"));
	assert_non_null(strstr(fc_jstr(doc, "switch_note", ""), "not read on 2 of 2 ports"));
	json_decref(devs);
	json_decref(doc);

	/* silent past the deadline, recorded: mlx5_0 not asked, listed */
	devs = json_array();
	doc = fc_doc_new();
	json_array_append_new(devs, port("mlx5_9", "InfiniBand", "ACTIVE"));
	json_array_append_new(devs, port("mlx5_0", "InfiniBand", "ACTIVE"));
	snprintf(path, sizeof(path), "%s:%s", bin, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	assert_non_null(mkdtemp(dir));
	rmdir(dir);
	assert_int_equal(fc_bw_open(&w, dir), 0);
	fc_src_live(&rec, &w);
	t0 = fc_now();
	fc_ib_switches_add_src(&rec, devs, doc);
	assert_true(fc_now() - t0 < 9); /* one deadline (5 s), not two */
	assert_string_equal(args_read(), "-C mlx5_9 -P 1 -D nodeinfo 0,1");
	assert_non_null(strstr(fc_jstr(port_of(devs, 0), "switch_error", ""),
			       "smpquery gave no answer within 5 s"));
	assert_non_null(strstr(fc_jstr(port_of(devs, 1), "switch_error", ""),
			       "not asked: smpquery -C mlx5_9 -P 1 -D nodeinfo 0,1"));
	assert_int_equal(json_array_size(w.not_read), 2);
	e = json_array_get(w.not_read, 1);
	assert_string_equal(fc_jstr(e, "input", ""), "smpquery -C mlx5_0 -P 1 -D nodeinfo 0,1");
	assert_string_equal(fc_jstr(e, "path", ""), "cmd/smpquery_-C_mlx5-0_-P_1_-D_nodeinfo_0-1");
	assert_non_null(strstr(fc_jstr(e, "why", ""), "not asked: smpquery -C mlx5_9"));
	assert_non_null(strstr(fc_jstr(json_array_get(w.not_read, 0), "why", ""),
			       "gave no answer within 5 s"));
	fc_bw_abort(&w);
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	snprintf(path, sizeof(path), "rm -rf '%s' '%s'", bin, dir);
	assert_int_equal(system(path), 0);
	json_decref(devs);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodeinfo_parse),
		cmocka_unit_test(test_nodedesc_parse),
		cmocka_unit_test(test_switches_add),
		cmocka_unit_test(test_switches_node_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
