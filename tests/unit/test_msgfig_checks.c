/*
 * Issue 39 item 5 for checks/preflight: messages with figures fed figures
 * known beforehand, distinct where two could be swapped, and checked whole.
 *   health (checks/preflight/health.c hl_in_use): why a port counts as in
 *   use, from carrier_up_count (3 times, 1 time) and link_downed (5 times,
 *   1 time) of probes written here;
 *   preflight's GPU rails (pf_rails.c, through pf_check): 3 GPUs and 4 rail
 *   HCAs, GPU0 NODE from its nearest (rail 3), GPU1 and GPU2 PXB from the
 *   same one (rail 1): 4 HCAs for 3 GPUs;
 *   nccl run's rank result (checks/nccl/run/ncclrt.c): 2 sizes where 1 KiB
 *   to 1 MiB by 4 asks for 6; nccl run's text (nccl_run_out.c): its
 *   header and average bus bandwidth; capture's copy of sysfs past its
 *   deadline (capture_sys.c).
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

#include "checks/nccl/run/nccl_run.h"
#include "checks/nccl/run/ncclrt.h"
#include "checks/preflight/capture.h"
#include "checks/preflight/health.h"
#include "checks/preflight/preflight.h"
#include "core/bundle.h"
#include "core/out.h"
#include "core/util.h"
#include "tests/unit/memtext.h"
#include "tests/unit/msgfig.h"
#include "tests/unit/tmptree.h"

/* A probe of four ports: mlx5_0:1 on eth2, mlx5_1:2 on eth3 (netdevs with
 * carrier_up_count @up0 and @up1), mlx5_2:1 and mlx5_3:1 without a netdev
 * (link_downed @down2 and @down3); none ACTIVE. */
static json_t *used_probe(long long up0, long long up1, long long down2, long long down3)
{
	json_t *p = json_loads(
		"{\"devices\": ["
		" {\"name\": \"mlx5_0\", \"ports\": [{\"port\": 1, \"state\": \"DOWN\", \"netdev\": \"eth2\"}]},"
		" {\"name\": \"mlx5_1\", \"ports\": [{\"port\": 2, \"state\": \"DOWN\", \"netdev\": \"eth3\"}]},"
		" {\"name\": \"mlx5_2\", \"ports\": [{\"port\": 1, \"state\": \"DOWN\"}]},"
		" {\"name\": \"mlx5_3\", \"ports\": [{\"port\": 1, \"state\": \"DOWN\"}]}]}",
		0, NULL);

	assert_non_null(p);
	json_object_set_new(p, "netdevs",
			    json_pack("{s:{s:I}, s:{s:I}}", "eth2", "carrier_up_count",
				      (json_int_t)up0, "eth3", "carrier_up_count", (json_int_t)up1));
	json_object_set_new(p, "counters",
			    json_pack("{s:{s:I}, s:{s:I}}", "mlx5_2:1", "link_downed",
				      (json_int_t)down2, "mlx5_3:1", "link_downed", (json_int_t)down3));
	return p;
}

static void test_health_in_use(void **state)
{
	json_t *p = used_probe(3, 1, 5, 1), *used = hl_in_use(p, NULL);

	(void)state;
	assert_int_equal(json_object_size(used), 4);
	assert_string_equal(fc_jstr(used, "mlx5_0:1", ""),
			    "its link came up 3 times since eth2 was made (carrier_up_count)");
	assert_string_equal(fc_jstr(used, "mlx5_1:2", ""),
			    "its link came up 1 time since eth3 was made (carrier_up_count)");
	assert_string_equal(fc_jstr(used, "mlx5_2:1", ""),
			    "its link was up and went down 5 times (link_downed)");
	assert_string_equal(fc_jstr(used, "mlx5_3:1", ""),
			    "its link was up and went down 1 time (link_downed)");
	json_decref(used);
	json_decref(p);
	/* no count: not shown in use */
	p = used_probe(0, 0, 0, 0);
	used = hl_in_use(p, NULL);
	assert_int_equal(json_object_size(used), 0);
	json_decref(used);
	json_decref(p);
}

/* A node of 4 IB HCAs (mlx5_i on the subnet of rail i) and 3 GPUs; @dist
 * gives GPU g's distance to NIC k as dist[g][k]. */
static const char *const gpu_dist[3][4] = {
	{ "SYS", "SYS", "SYS", "NODE" },
	{ "SYS", "PXB", "NODE", "SYS" },
	{ "NODE", "PXB", "SYS", "SYS" },
};

static json_t *rails_probe(void)
{
	json_t *devs = json_array(), *hcas = json_array(), *gpus = json_array();
	json_t *nics = json_array(), *matrix = json_object();

	for (int i = 0; i < 4; i++) {
		char dev[16], sub[32], lbl[16];

		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		snprintf(sub, sizeof(sub), "fe80:0000:0000:%04x", 0x20 + i);
		json_array_append_new(devs, json_pack("{s:s, s:s, s:[{s:s, s:i, s:s, s:s, s:f, s:i, s:s}]}",
						      "name", dev, "fw_ver", "28.39.1002", "ports",
						      "device", dev, "port", 1, "state", "ACTIVE",
						      "link_layer", "InfiniBand", "rate_gbps", 400.0,
						      "active_mtu", 4096, "subnet", sub));
		json_array_append_new(hcas, json_pack("{s:s, s:s}", "name", dev, "fw_ver", "28.39.1002"));
		snprintf(lbl, sizeof(lbl), "NIC%d", i);
		json_array_append_new(nics, json_pack("{s:s, s:s}", "name", dev, "label", lbl));
	}
	for (int g = 0; g < 3; g++) {
		char name[16];
		json_t *row = json_object();

		for (int k = 0; k < 4; k++) {
			char nl[16];

			snprintf(nl, sizeof(nl), "NIC%d", k);
			json_object_set_new(row, nl, json_string(gpu_dist[g][k]));
		}
		snprintf(name, sizeof(name), "GPU%d", g);
		json_object_set_new(matrix, name, row);
		json_array_append_new(gpus, json_pack("{s:s}", "name", name));
	}
	return json_pack("{s:o, s:o, s:{}, s:{s:s, s:[], s:o, s:o, s:o, s:b}}", "devices", devs,
			 "hcas", hcas, "netdevs", "topo", "verdict", "pass", "findings", "gpus",
			 gpus, "nics", nics, "matrix", matrix, "peermem", 1);
}

static void test_gpu_rails(void **state)
{
	static const struct pf_opts o = { .tclass = 106 };
	json_t *nodes = json_pack("[{s:s, s:o}, {s:s, s:o}]", "node", "nodeA", "probe",
				  rails_probe(), "node", "nodeB", "probe", rails_probe());
	json_t *doc = fc_doc_new();

	(void)state;
	pf_check(doc, nodes, &o);
	assert_int_equal(json_array_size(json_object_get(doc, "rails")), 4);
	assert_true(has_finding(doc, "nodeB: GPU0 has no rail-local HCA: its nearest rail HCA, mlx5_3 (rail 3), is NODE, not PIX or PXB: its traffic crosses the CPU; seat the GPU and its HCA under one PCIe switch, or check the BIOS's PCIe settings"));
	assert_true(has_finding(doc, "nodeA: GPU1 and GPU2 share their nearest HCA mlx5_1 (rail 1) although the node has 4 rail HCAs for 3 GPUs: one of them has no HCA of its own; check how the HCAs are seated"));
	json_decref(doc);
	json_decref(nodes);
}

/* A rank's result of 2 sizes where the series 1K 4K 16K 64K 256K 1M is 6. */
static void test_rank_result_sizes(void **state)
{
	struct ncr_params p = { .rank = 1, .nranks = 4, .gpu = 1, .op = NCR_ALL_REDUCE,
				.min_bytes = 1024, .max_bytes = 1 << 20, .factor = 4,
				.iters = 20, .warmup = 5, .timeout = 30 };
	struct ncr_rank_result back;
	json_t *m = json_pack("{s:[{s:i, s:f, s:i}, {s:i, s:f, s:i}]}", "sizes", "bytes", 1024,
			      "time_us", 10.0, "wrong", 0, "bytes", 4096, "time_us", 12.0, "wrong", 0);
	char why[256];

	(void)state;
	assert_int_equal(ncr_result_from_json(m, &p, &back, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the result holds 2 sizes where 6 were asked for");
	json_decref(m);
}

/* nccl run's text: the average of the bus bandwidths in GB/s (bytes, as
 * nccl-tests' "Avg bus bandwidth"), the document's own figure. */
static void test_nccl_run_avg(void **state)
{
	json_t *doc = json_pack("{s:s, s:i, s:i, s:s, s:i, s:i, s:[], s:[], s:f}", "op", "all_reduce",
				"nranks", 4, "gpus_per_node", 2, "nccl_version", "2.21.5", "iters", 20,
				"warmup", 5, "ranks", "results", "avg_busbw_gbytes_s", 11.875);
	char *text = render(ncr_render, doc);

	(void)state;
	if (!strstr(text, "all_reduce over 4 ranks (2 per node), NCCL 2.21.5, 20 iterations after 5 warm-up\n") ||
	    !strstr(text, "\n  avg bus bandwidth: 11.875 GB/s\n"))
		fail_msg("nccl run's text:\n%s", text);
	free(text);
	json_decref(doc);
}

/* capture's copy of sysfs past its deadline (a deadline already gone: no
 * folder walked; of the files outside the walks, the two-socket tree has
 * one, nvidia_peermem's version): said as not read, with the count of
 * files it did copy, singular for one. */
static void test_capture_late(void **state)
{
	char *top = tmpdir(), dir[128];
	struct fc_bundle_w w;
	const json_t *last;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/cap", top);
	assert_int_equal(fc_bw_open(&w, dir), 0);
	assert_int_equal(cap_sysfs(&w, "tests/data/gdr/two-socket", fc_now() - 1), 1);
	last = json_array_get(w.not_read, json_array_size(w.not_read) - 1);
	assert_string_equal(fc_jstr(last, "input", ""), "/sys");
	assert_string_equal(fc_jstr(last, "why", ""), "the capture's deadline passed while sysfs was copied, after 1 file: the rest is missing");
	fc_bw_abort(&w);
	rmtree(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_in_use),
		cmocka_unit_test(test_gpu_rails),
		cmocka_unit_test(test_rank_result_sizes),
		cmocka_unit_test(test_nccl_run_avg),
		cmocka_unit_test(test_capture_late),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
