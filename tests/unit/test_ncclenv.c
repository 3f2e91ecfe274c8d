/*
 * fabcheck nccl env: snippet parsing, each status, each conflict, the
 * libnccl.so.2 name scan (on a library built here, and on the installed
 * one when there is one).
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

#include "checks/nccl/env/ncclenv.h"
#include "core/out.h"

/* ---- helpers ---- */

static struct ncclenv_vars parse_ok(const char *text)
{
	struct ncclenv_vars vs = { 0 };

	assert_int_equal(ncclenv_parse(text, "test", &vs), 0);
	return vs;
}

static const struct ncclenv_var *var(const struct ncclenv_vars *vs, size_t i)
{
	assert_true(i < vs->n);
	return &vs->v[i];
}

/* Runs the checks on @text; returns the document (caller frees). */
static json_t *check(const char *text, const struct ncclenv_host *h, const char *topo)
{
	struct ncclenv_vars vs = parse_ok(text);
	struct ncclenv_opts o = { .host = h };
	json_t *t = NULL, *doc;

	o.known = ncclenv_shipped_names(&o.n_known);
	if (topo) {
		t = json_loads(topo, 0, NULL);
		assert_non_null(t);
	}
	o.topo = t;
	doc = ncclenv_check(&o, &vs);
	assert_non_null(doc);
	json_decref(t);
	ncclenv_vars_free(&vs);
	return doc;
}

/* The entry of the last variable named @name. */
static const json_t *entry(const json_t *doc, const char *name)
{
	const json_t *list = json_object_get(doc, "variables"), *found = NULL;
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (!strcmp(fc_jstr(v, "name", ""), name))
			found = v;
	assert_non_null(found);
	return found;
}

static void assert_status(const json_t *doc, const char *name, const char *status,
			  const char *why_part)
{
	const json_t *e = entry(doc, name);

	if (strcmp(fc_jstr(e, "status", ""), status) ||
	    (why_part && !strstr(fc_jstr(e, "why", ""), why_part)))
		fail_msg("%s: status %s why '%s'; wanted %s with '%s'", name,
			 fc_jstr(e, "status", ""), fc_jstr(e, "why", ""), status,
			 why_part ? why_part : "");
}

/* check() of @text, @h and @topo, and assert_status() of its @name. */
static void check_status(const char *text, const struct ncclenv_host *h, const char *topo,
			 const char *name, const char *status, const char *why_part)
{
	json_t *doc = check(text, h, topo);

	assert_status(doc, name, status, why_part);
	json_decref(doc);
}

/* ---- parsing ---- */

static void test_parse_forms(void **state)
{
	/* export with several names, plain assignment, comments, quotes,
	 * a continued mpirun line with -x, -genv, setenv, env, docker -e. */
	const char *text =
		"#!/bin/bash\n"
		"# NCCL_COMMENTED=1\n"
		"export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV   # trailing comment\n"
		"NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'\n"
		"OTHER=1 NCCL_ALGO=\"Ring,Tree\" python x.py NCCL_NOT_AT_START\n"
		"mpirun -np 16 -x NCCL_IB_GID_INDEX=3 \\\n"
		"   -x LD_LIBRARY_PATH -x NCCL_PROTO=^LL128 ./a.out\n"
		"mpiexec -genv NCCL_NET_GDR_LEVEL PHB ./b; setenv NCCL_CROSS_NIC 1\n"
		"env NCCL_BUFFSIZE=4194304 ./c && docker run -e NCCL_P2P_LEVEL=NVL img\n"
		"export NCCL_SOCKET_IFNAME=$IFACE NCCL_X='$LITERAL'\n";
	struct ncclenv_vars vs = parse_ok(text);

	(void)state;
	assert_int_equal(vs.n, 12);
	assert_string_equal(var(&vs, 0)->name, "NCCL_DEBUG");
	assert_string_equal(var(&vs, 0)->value, "INFO");
	assert_int_equal(var(&vs, 0)->line, 3);
	assert_string_equal(var(&vs, 1)->value, "INIT,ENV");
	assert_string_equal(var(&vs, 2)->value, "=mlx5_0:1,mlx5_1:1");
	assert_int_equal(var(&vs, 2)->line, 4);
	assert_string_equal(var(&vs, 3)->name, "NCCL_ALGO");
	assert_string_equal(var(&vs, 3)->value, "Ring,Tree");
	assert_string_equal(var(&vs, 4)->name, "NCCL_IB_GID_INDEX");
	assert_int_equal(var(&vs, 4)->line, 6);
	assert_string_equal(var(&vs, 5)->name, "NCCL_PROTO");
	assert_string_equal(var(&vs, 5)->value, "^LL128");
	assert_int_equal(var(&vs, 5)->line, 7); /* line of the word itself */
	assert_string_equal(var(&vs, 6)->name, "NCCL_NET_GDR_LEVEL");
	assert_string_equal(var(&vs, 6)->value, "PHB");
	assert_string_equal(var(&vs, 7)->name, "NCCL_CROSS_NIC");
	assert_string_equal(var(&vs, 8)->name, "NCCL_BUFFSIZE");
	assert_string_equal(var(&vs, 9)->name, "NCCL_P2P_LEVEL");
	assert_string_equal(var(&vs, 10)->name, "NCCL_SOCKET_IFNAME");
	assert_true(var(&vs, 10)->dynamic);
	assert_string_equal(var(&vs, 11)->value, "$LITERAL");
	assert_false(var(&vs, 11)->dynamic); /* single quotes do not expand */
	ncclenv_vars_free(&vs);
}

static void test_parse_errors(void **state)
{
	struct ncclenv_vars vs = { 0 };

	(void)state;
	assert_int_not_equal(ncclenv_parse("export NCCL_DEBUG='INFO\n", "bad.sh", &vs), 0);
	ncclenv_vars_free(&vs);
	assert_int_not_equal(ncclenv_parse("NCCL_A=\"x\n\n", "bad.sh", &vs), 0);
	ncclenv_vars_free(&vs);
	vs = parse_ok("");
	assert_int_equal(vs.n, 0);
	ncclenv_vars_free(&vs);
	/* CRLF env file, escaped quote inside double quotes. */
	vs = parse_ok("NCCL_DEBUG=WARN\r\nNCCL_X=\"a\\\"b\"\r\n");
	assert_int_equal(vs.n, 2);
	assert_string_equal(var(&vs, 0)->value, "WARN"); /* CR is blank */
	assert_string_equal(var(&vs, 1)->value, "a\"b");
	ncclenv_vars_free(&vs);
}

/* ---- statuses ---- */

static void test_status_name(void **state)
{
	json_t *doc = check("export NCCL_DEBUG=INFO NCCL_DEBUG_SUBMIT=INIT NCCL_SOCKET_IFNAMES=eth0\n"
			    "export NCCL_MAX_NRINGS=8 NCCL_IB_GDR_LEVEL=2 NCCL_ASYNC_ERROR_HANDLING=1\n"
			    "export NCCL_TOTALLY_MADE_UP_THING=1\n",
			    NULL, NULL);

	(void)state;
	assert_status(doc, "NCCL_DEBUG", "ok", NULL);
	assert_status(doc, "NCCL_DEBUG_SUBMIT", "unknown", "did you mean NCCL_DEBUG_SUBSYS?");
	assert_string_equal(fc_jstr(entry(doc, "NCCL_DEBUG_SUBMIT"), "suggestion", ""),
			    "NCCL_DEBUG_SUBSYS");
	assert_status(doc, "NCCL_SOCKET_IFNAMES", "unknown", "NCCL_SOCKET_IFNAME?");
	assert_status(doc, "NCCL_TOTALLY_MADE_UP_THING", "unknown", "ignores it");
	assert_null(json_object_get(entry(doc, "NCCL_TOTALLY_MADE_UP_THING"), "suggestion"));
	assert_status(doc, "NCCL_MAX_NRINGS", "deprecated", "use NCCL_MAX_NCHANNELS");
	assert_status(doc, "NCCL_IB_GDR_LEVEL", "deprecated", "use NCCL_NET_GDR_LEVEL");
	assert_status(doc, "NCCL_ASYNC_ERROR_HANDLING", "deprecated", "PyTorch");
	/* unknown and deprecated warn, they do not fail */
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 6);
	json_decref(doc);
}

static void test_status_invalid(void **state)
{
	json_t *doc = check("NCCL_NET_GDR_LEVEL=phb\nNCCL_P2P_LEVEL=NODE\nNCCL_ALGO=Ring,Butterfly\n"
			    "NCCL_PROTO=^LL128\nNCCL_IB_HCA='mlx5_0, mlx5_1'\nNCCL_IB_DISABLE=true\n"
			    "NCCL_BUFFSIZE=4M\nNCCL_IB_TIMEOUT=40\nNCCL_DEBUG=verbose\n"
			    "NCCL_DEBUG_SUBSYS=INIT,NETWORK\nNCCL_IB_ADDR_RANGE=10.0.0.0/33\n"
			    "NCCL_NTHREADS=100\nNCCL_IB_GID_INDEX=0x3\nNCCL_ALGO_X=1\n",
			    NULL, NULL);

	(void)state;
	assert_status(doc, "NCCL_NET_GDR_LEVEL", "invalid", "exact case");
	assert_status(doc, "NCCL_P2P_LEVEL", "invalid", "use PHB");
	assert_status(doc, "NCCL_ALGO", "invalid", "'Butterfly'");
	assert_status(doc, "NCCL_PROTO", "ok", NULL);
	assert_status(doc, "NCCL_IB_HCA", "invalid", "' mlx5_1'");
	assert_status(doc, "NCCL_IB_DISABLE", "invalid", "write 1 or 0");
	assert_status(doc, "NCCL_BUFFSIZE", "invalid", "write 4194304");
	assert_status(doc, "NCCL_IB_TIMEOUT", "invalid", "1 to 31");
	assert_status(doc, "NCCL_DEBUG", "invalid", "VERSION|WARN|INFO");
	assert_status(doc, "NCCL_DEBUG_SUBSYS", "invalid", "'NETWORK'");
	assert_status(doc, "NCCL_IB_ADDR_RANGE", "invalid", "CIDR");
	assert_status(doc, "NCCL_NTHREADS", "invalid", "64, 128, 256 or 512");
	assert_status(doc, "NCCL_IB_GID_INDEX", "ok", NULL); /* strtoll base 0 */
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	json_decref(doc);
}

static void test_values_accepted(void **state)
{
	static const char *const good[][2] = {
		{ "NCCL_NET_GDR_LEVEL", "PXB" }, { "NCCL_NET_GDR_LEVEL", "3" },
		{ "NCCL_P2P_LEVEL", "NVL" }, { "NCCL_ALGO", "^nvls,tree" },
		{ "NCCL_ALGO", "allreduce:tree,ring;allgather:ring" },
		{ "NCCL_PROTO", "Simple,LL" }, { "NCCL_IB_HCA", "^=mlx5_2:1,mlx5_3" },
		{ "NCCL_IB_HCA", "mlx5_0:1:0:1" }, { "NCCL_SOCKET_IFNAME", "^docker,lo" },
		{ "NCCL_IB_ADDR_RANGE", "fd00::/64" }, { "NCCL_NETDEVS_POLICY", "MAX:2" },
		{ "NCCL_DEBUG", "info" }, { "NCCL_IB_GID_INDEX", "-1" },
		{ "NCCL_CROSS_NIC", "2" }, { "NCCL_BUFFSIZE", "8388608" },
	};
	static const char *const bad[][2] = {
		{ "NCCL_IB_HCA", "=^mlx5_0" }, { "NCCL_IB_HCA", "mlx5_0:x" },
		{ "NCCL_IB_HCA", "^" }, { "NCCL_SOCKET_IFNAME", "eth0," },
		{ "NCCL_NETDEVS_POLICY", "MAX:0" }, { "NCCL_ALGO", "" },
		{ "NCCL_ALGO", "allreduce-tree" }, { "NCCL_CROSS_NIC", "3" },
		{ "NCCL_NET_GDR_LEVEL", "pxb" },
	};
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (ncclenv_value_check(good[i][0], good[i][1], why, sizeof(why)))
			fail_msg("%s=%s rejected: %s", good[i][0], good[i][1], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ncclenv_value_check(bad[i][0], bad[i][1], why, sizeof(why)))
			fail_msg("%s=%s accepted", bad[i][0], bad[i][1]);
}

static void test_levels(void **state)
{
	(void)state;
	/* Old numbering maps 0 LOC, 1 PIX, 2 PXB, 3 PHB, >=4 SYS. */
	assert_string_equal(ncclenv_level_name(ncclenv_level_parse("2")), "PXB");
	assert_string_equal(ncclenv_level_name(ncclenv_level_parse("9")), "SYS");
	assert_int_equal(ncclenv_level_parse("phb"), -1);
	assert_true(ncclenv_level_parse("PIX") < ncclenv_level_parse("PXB"));
	assert_true(ncclenv_level_parse("PXB") < ncclenv_level_parse("PHB"));
	assert_int_equal(ncclenv_topo_dist("NODE"), ncclenv_level_parse("PHB"));
	assert_int_equal(ncclenv_topo_dist("NV12"), ncclenv_level_parse("NVL"));
	assert_int_equal(ncclenv_topo_dist("bogus"), -1);
	assert_int_equal(ncclenv_edit_distance("NCCL_DEBUG_SUBMIT", "NCCL_DEBUG_SUBSYS"), 3);
	assert_int_equal(ncclenv_edit_distance("", "abc"), 3);
}

/* ---- conflicts ---- */

static const char topo_json[] =
	"{\"gpus\":[{\"name\":\"GPU0\",\"bus_id\":\"0000:07:00.0\",\"nearest_nics\":[\"mlx5_0\"]},"
	"{\"name\":\"GPU1\",\"bus_id\":\"0000:0f:00.0\",\"nearest_nics\":[\"mlx5_1\"]}],"
	"\"nics\":[{\"name\":\"mlx5_0\"},{\"name\":\"mlx5_1\"},{\"name\":\"mlx5_10\"}],"
	"\"matrix\":{\"GPU0\":{\"GPU1\":\"NV12\",\"NIC0\":\"PIX\",\"NIC1\":\"SYS\",\"NIC2\":\"SYS\"},"
	"\"GPU1\":{\"GPU0\":\"NV12\",\"NIC0\":\"SYS\",\"NIC1\":\"PXB\",\"NIC2\":\"NODE\"}}}";

/* A GB200-like node as fabcheck topo writes it: C2C GPUs (tests/unit/
 * test_c2c.c), the HCA through the CPU. */
static const char grace_json[] =
	"{\"gpus\":[{\"name\":\"GPU0\",\"bus_id\":\"0008:01:00.0\",\"c2c\":true,"
	"\"nearest_nics\":[\"mlx5_0\"],\"nccl_nic\":\"mlx5_0\",\"nccl_path\":\"P2C\"}],"
	"\"nics\":[{\"name\":\"mlx5_0\"}],\"matrix\":{\"GPU0\":{\"NIC0\":\"NODE\"}}}";

static void test_conflict_ib_disable(void **state)
{
	char *rdma[] = { "mlx5_0" };
	struct ncclenv_host h = { .rdma = rdma, .n_rdma = 1, .peermem = 1 };
	json_t *doc;

	(void)state;
	doc = check("export NCCL_IB_DISABLE=1 NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=3\n"
		    "export NCCL_NET_GDR_LEVEL=PHB NCCL_DEBUG=INFO\n", NULL, NULL);
	assert_status(doc, "NCCL_IB_DISABLE", "conflict", "for RoCE as much as for InfiniBand");
	assert_status(doc, "NCCL_IB_HCA", "conflict", "NCCL_IB_DISABLE=1");
	assert_status(doc, "NCCL_IB_GID_INDEX", "conflict", "TCP sockets");
	assert_status(doc, "NCCL_NET_GDR_LEVEL", "conflict", "no effect");
	assert_status(doc, "NCCL_DEBUG", "ok", NULL);
	/* One finding for the group, not one per variable. */
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 1);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "fail");
	json_decref(doc);
	/* Alone, on a node with RDMA devices: still a conflict. */
	check_status("NCCL_IB_DISABLE=1\n", &h, NULL, "NCCL_IB_DISABLE", "conflict",
		     "1 RDMA device (mlx5_0)");
	/* Alone, on a node without: fine. NCCL_NET=Socket acts the same. */
	check_status("NCCL_IB_DISABLE=1\n", NULL, NULL, "NCCL_IB_DISABLE", "ok", NULL);
	check_status("NCCL_NET=socket NCCL_IB_TC=106\n", NULL, NULL, "NCCL_IB_TC", "conflict",
		     "NCCL_NET=socket");
	/* NCCL_IB_DISABLE=0 disables nothing. */
	check_status("NCCL_IB_DISABLE=0 NCCL_IB_TC=106\n", NULL, NULL, "NCCL_IB_TC", "ok", NULL);
}

static void test_conflict_hca(void **state)
{
	char *rdma[] = { "mlx5_0", "mlx5_1" };
	struct ncclenv_host h = { .rdma = rdma, .n_rdma = 2, .peermem = 1 };
	json_t *doc;

	(void)state;
	check_status("NCCL_IB_HCA=mlx5_1,mlx5_7\n", NULL, topo_json, "NCCL_IB_HCA", "conflict",
		     "names mlx5_7, which the topology");
	check_status("NCCL_IB_HCA==mlx5_4:1\n", NULL, topo_json, "NCCL_IB_HCA", "conflict",
		     "falls back to TCP sockets");
	/* Exclusion of every device is no better. */
	check_status("NCCL_IB_HCA=^mlx5\n", NULL, topo_json, "NCCL_IB_HCA", "conflict",
		     "selects no HCA");
	/* A prefix that also takes mlx5_10: a warning, status ok. */
	doc = check("NCCL_IB_HCA=mlx5_1\n", NULL, topo_json);
	assert_status(doc, "NCCL_IB_HCA", "ok", "'=mlx5_1'");
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	json_decref(doc);
	doc = check("NCCL_IB_HCA==mlx5_1\n", NULL, topo_json);
	assert_status(doc, "NCCL_IB_HCA", "ok", NULL);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	json_decref(doc);
	/* Without --topo, this node's RDMA devices. */
	check_status("NCCL_IB_HCA=mlx5_3:1\n", &h, NULL, "NCCL_IB_HCA", "conflict", "this node");
	check_status("NCCL_IB_HCA=mlx5_0:1,mlx5_1:1\n", &h, NULL, "NCCL_IB_HCA", "ok", NULL);
}

static void test_conflict_ifname(void **state)
{
	char *ifs[] = { "eth0", "ib0", "lo" };
	struct ncclenv_host h = { .ifnames = ifs, .n_if = 3, .peermem = 1 };

	(void)state;
	check_status("NCCL_SOCKET_IFNAME=bond0\n", &h, NULL, "NCCL_SOCKET_IFNAME", "conflict",
		     "eth0, ib0, lo");
	/* a prefix, then the exact name */
	check_status("NCCL_SOCKET_IFNAME=eth\n", &h, NULL, "NCCL_SOCKET_IFNAME", "ok", NULL);
	check_status("NCCL_SOCKET_IFNAME==eth\n", &h, NULL, "NCCL_SOCKET_IFNAME", "conflict",
		     "no interface");
	check_status("NCCL_SOCKET_IFNAME=^eth,ib,lo\n", &h, NULL, "NCCL_SOCKET_IFNAME", "conflict",
		     "no interface");
	check_status("NCCL_SOCKET_IFNAME=^docker,lo\n", &h, NULL, "NCCL_SOCKET_IFNAME", "ok", NULL);
}

static void test_conflict_gdr(void **state)
{
	struct ncclenv_host none = { 0 }, dmabuf = { .nvidia = 1 }, peer = { .peermem = 1 };
	json_t *doc;

	(void)state;
	/* GPU1's nearest HCA is PXB away: PIX turns GPUDirect off for it. */
	doc = check("NCCL_NET_GDR_LEVEL=PIX\n", NULL, topo_json);
	assert_status(doc, "NCCL_NET_GDR_LEVEL", "conflict", "GPU1 (PXB)");
	assert_null(strstr(fc_jstr(entry(doc, "NCCL_NET_GDR_LEVEL"), "why", ""), "GPU0"));
	json_decref(doc);
	/* 1 = PIX */
	check_status("NCCL_NET_GDR_LEVEL=1\n", NULL, topo_json, "NCCL_NET_GDR_LEVEL", "conflict",
		     "use PXB");
	check_status("NCCL_NET_GDR_LEVEL=LOC\n", NULL, topo_json, "NCCL_NET_GDR_LEVEL", "conflict",
		     "GPU0 (PIX), GPU1 (PXB)");
	check_status("NCCL_NET_GDR_LEVEL=PXB\n", NULL, topo_json, "NCCL_NET_GDR_LEVEL", "ok", NULL);
	/* Grace (fabcheck topo on a GB200: NODE in the matrix, P2C to NCCL):
	 * P2C is not stricter than the path; PXB is, and the fix names P2C. */
	check_status("NCCL_NET_GDR_LEVEL=P2C\n", NULL, grace_json, "NCCL_NET_GDR_LEVEL", "ok",
		     NULL);
	check_status("NCCL_NET_GDR_LEVEL=PXB\n", NULL, grace_json, "NCCL_NET_GDR_LEVEL", "conflict",
		     "use P2C");
	/* No peermem and no nvidia driver: no GPUDirect path at all. */
	check_status("NCCL_NET_GDR_LEVEL=PHB\n", &none, NULL, "NCCL_NET_GDR_LEVEL", "conflict",
		     "no GPUDirect RDMA path");
	check_status("NCCL_NET_GDR_LEVEL=PHB\n", &dmabuf, NULL, "NCCL_NET_GDR_LEVEL", "ok",
		     "dma-buf");
	check_status("NCCL_NET_GDR_LEVEL=PHB\n", &peer, NULL, "NCCL_NET_GDR_LEVEL", "ok", NULL);
}

static void test_conflict_other(void **state)
{
	json_t *doc;

	(void)state;
	check_status("NCCL_P2P_DISABLE=1 NCCL_P2P_LEVEL=NVL\n", NULL, NULL, "NCCL_P2P_LEVEL",
		     "conflict", "NCCL_P2P_DISABLE=1");
	/* Set twice: the earlier one is overridden (warning). */
	doc = check("export NCCL_DEBUG=INFO\nexport NCCL_DEBUG=WARN\n", NULL, NULL);
	{
		const json_t *first = json_array_get(json_object_get(doc, "variables"), 0);

		assert_string_equal(fc_jstr(first, "status", ""), "conflict");
		assert_non_null(strstr(fc_jstr(first, "why", ""), "line 2"));
	}
	assert_status(doc, "NCCL_DEBUG", "ok", NULL);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	json_decref(doc);
}

/* The export the log checker uses. */
static void test_check_vars(void **state)
{
	const char *names[] = { "NCCL_IB_HCA", "NCCL_NET_GDR_LEVEL", "NCCL_SOCKET_NTHREAD" };
	const char *values[] = { "mlx5_9", "PIX", "4" };
	json_t *topo = json_loads(topo_json, 0, NULL), *doc;

	(void)state;
	doc = ncclenv_check_vars(names, values, 3, topo);
	assert_non_null(doc);
	assert_status(doc, "NCCL_IB_HCA", "conflict", NULL);
	assert_status(doc, "NCCL_NET_GDR_LEVEL", "conflict", NULL);
	assert_status(doc, "NCCL_SOCKET_NTHREAD", "unknown", "NCCL_SOCKET_NTHREADS");
	json_decref(doc);
	doc = ncclenv_check_vars(names, values, 2, NULL); /* no topology: values only */
	assert_status(doc, "NCCL_IB_HCA", "ok", NULL);
	assert_status(doc, "NCCL_NET_GDR_LEVEL", "ok", NULL);
	json_decref(doc);
	json_decref(topo);
}

/* ---- host probe on a recorded tree ---- */

static void mk(const char *root, const char *rel, int dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (dir) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
		assert_int_equal(system(cmd), 0);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("1.0\n", f);
	fclose(f);
}

static void test_host_probe(void **state)
{
	char root[] = "/tmp/fc-ncclenv-XXXXXX", cmd[128];
	struct ncclenv_host h;

	(void)state;
	assert_non_null(mkdtemp(root));
	mk(root, "class/net/eth0", 1);
	mk(root, "class/net/ib0", 1);
	mk(root, "class/infiniband/mlx5_1", 1);
	mk(root, "class/infiniband/mlx5_0", 1);
	mk(root, "module/nvidia_peermem", 1);
	mk(root, "module/nvidia_peermem/version", 0);
	assert_int_equal(ncclenv_host_probe(root, &h), 0);
	assert_int_equal(h.n_if, 2);
	assert_string_equal(h.ifnames[0], "eth0");
	assert_int_equal(h.n_rdma, 2);
	assert_string_equal(h.rdma[0], "mlx5_0"); /* sorted */
	assert_true(h.peermem);
	assert_false(h.nvidia);
	ncclenv_host_free(&h);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	/* An empty root: nothing, and no peermem. */
	assert_int_equal(ncclenv_host_probe("/nonexistent-fc", &h), 0);
	assert_int_equal(h.n_if + h.n_rdma, 0);
	assert_false(h.peermem);
	ncclenv_host_free(&h);
}

static int has(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* ---- names from a library ---- */

/* A library built for the test: names in .rodata, one in .data only, and
 * strings that look like names but are not. */
static void test_lib_scan_built(void **state)
{
	char dir[] = "/tmp/fc-ncclenv-lib-XXXXXX", src[256], so[256], cmd[700];
	char **names = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/fake.c", dir);
	snprintf(so, sizeof(so), "%s/libnccl.so.2", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("const char *const fc_names[] = { \"NCCL_FAKE_ONE\",\n"
	      "  \"NCCL_IB_HCA set to %s\", \"x=NCCL_FAKE_TWO;\", \"NCCL_IB_\",\n"
	      "  \"ncclNCCL_NOT_A_NAME\", \"NCCL_Lowercase\", \"NCCL_FAKE_ONE\" };\n"
	      "char fc_writable[] = \"NCCL_IN_DATA_ONLY\";\n"
	      "int fc_use(int i) { return fc_names[i][0] + fc_writable[i]; }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -O0 -o '%s' '%s'", so, src);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ncclenv_lib_scan(so, &names, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "NCCL_FAKE_ONE"); /* sorted, no duplicates */
	assert_string_equal(names[1], "NCCL_FAKE_TWO");
	assert_string_equal(names[2], "NCCL_IB_HCA");
	assert_false(has(names, n, "NCCL_IN_DATA_ONLY")); /* .data is not read */
	ncclenv_names_free(names, n);
	/* A file that is not ELF is read whole. */
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("junk NCCL_TEXT_NAME junk\n", f);
	fclose(f);
	assert_int_equal(ncclenv_lib_scan(src, &names, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "NCCL_TEXT_NAME");
	ncclenv_names_free(names, n);
	assert_int_not_equal(ncclenv_lib_scan("/nonexistent/libnccl.so.2", &names, &n), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* "NCCL version 2.28.9" in the file -> 22809; 0 when absent. */
static int lib_version(const char *path)
{
	char cmd[4200], buf[64] = "";
	int a = 0, b = 0, c = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "grep -aoE 'NCCL version [0-9]+\\.[0-9]+\\.[0-9]+' '%s' | head -1", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	if (sscanf(buf, "NCCL version %d.%d.%d", &a, &b, &c) != 3)
		return 0;
	return a * 10000 + b * 100 + c;
}

static int version_code(const char *v)
{
	int a = 0, b = 0, c = 0;

	assert_int_equal(sscanf(v, "%d.%d.%d", &a, &b, &c), 3);
	return a * 10000 + b * 100 + c;
}

/* The installed libnccl.so.2, when there is one: no shipped name of the
 * versions it covers may have vanished from it. */
static void test_lib_installed(void **state)
{
	char path[4096];
	char **names = NULL;
	size_t n = 0, missing = 0, checked = 0;
	int ver;

	(void)state;
	if (ncclenv_lib_find(path, sizeof(path))) {
		printf("[ INFO     ] no libnccl.so.2 on this machine: comparison with an installed NCCL not run (the scan was tested on a library built by the test)\n");
		return;
	}
	ver = lib_version(path);
	assert_int_equal(ncclenv_lib_scan(path, &names, &n), 0);
	assert_true(n > 100);
	for (int part = 0; part < 2; part++) {
		const char *pv = part ? ncclenv_shipped_version : ncclenv_base_version;
		size_t np;
		const char *const *shipped = ncclenv_shipped_part(part, &np);

		if (ver < version_code(pv))
			continue;
		for (size_t i = 0; i < np; i++, checked++) {
			if (has(names, n, shipped[i]))
				continue;
			printf("[ INFO     ] %s (NCCL %s) no longer has %s\n", path, pv, shipped[i]);
			missing++;
		}
	}
	printf("[ INFO     ] installed %s (NCCL %d.%d.%d): %zu names; %zu shipped names compared, %zu vanished\n",
	       path, ver / 10000, ver / 100 % 100, ver % 100, n, checked, missing);
	ncclenv_names_free(names, n);
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_status_name),
		cmocka_unit_test(test_status_invalid),
		cmocka_unit_test(test_values_accepted),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_conflict_ib_disable),
		cmocka_unit_test(test_conflict_hca),
		cmocka_unit_test(test_conflict_ifname),
		cmocka_unit_test(test_conflict_gdr),
		cmocka_unit_test(test_conflict_other),
		cmocka_unit_test(test_check_vars),
		cmocka_unit_test(test_host_probe),
		cmocka_unit_test(test_lib_scan_built),
		cmocka_unit_test(test_lib_installed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
