/*
 * pair --rails --use-cuda: the GPU each rail's pair takes (gdr_gpu_pick,
 * then gdr_gpu_spread, as the worker does for --use-cuda alone) on recorded
 * sysfs trees of 8-GPU, 8-HCA servers written by tests/topo/mksysfs.sh
 * (a100: two GPUs and two HCAs under each PCIe switch; hgx: a GPU and its
 * HCA under each second-level switch), and the report's check that no two
 * rails of a node shared a GPU (pair/pair_railgpu.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "gdr/gdr.h"
#include "pair/pair.h"
#include "topo/pcitopo.h"

#define TREES_SCENARIOS "a100 hgx dgx"
#include "tests/unit/finding.h"
#include "tests/unit/sysfs_trees.h"

/* The tree's GPUs as the CUDA driver lists them (index = bus order). */
static int tree_gpus(const struct topo *t, struct gdr_gpu_info *g, int max)
{
	int n = 0;

	for (const struct topo_dev *d; n < max && (d = topo_gpu(t, n)); n++) {
		g[n] = (struct gdr_gpu_info){ .index = n };
		snprintf(g[n].bus_id, sizeof(g[n].bus_id), "%s", d->bdf);
	}
	return n;
}

/* The GPU the worker takes for HCA @hca with --use-cuda (nearest); with
 * @spread 0 the choice before gdr_gpu_spread (lowest index on ties). */
static int worker_pick(const struct topo *t, struct gdr_gpu_info *g, int n, const char *hca,
		       int spread)
{
	struct gdr_gpu_req req = { .how = GDR_GPU_NEAREST };
	char why[256];
	int pos;

	gdr_gpu_distances(g, n, t, hca);
	pos = gdr_gpu_pick(g, n, &req, why, sizeof(why));
	assert_true(pos >= 0);
	return spread ? gdr_gpu_spread(g, n, t, hca, pos) : pos;
}

/* The report's rails list for rails mlx5_0..mlx5_{nrails-1} on both nodes
 * (two servers of tree @sc), each side on the GPU the worker takes. */
static json_t *rails_of(const char *sc, int nrails, int spread, int *gpus_out)
{
	struct topo *t = load(sc);
	struct gdr_gpu_info g[16];
	int n = tree_gpus(t, g, 16);
	json_t *rails = json_array();

	for (int r = 0; r < nrails; r++) {
		char dev[16];
		int pos;
		json_t *side;

		snprintf(dev, sizeof(dev), "mlx5_%d", r);
		pos = worker_pick(t, g, n, dev, spread);
		gpus_out[r] = g[pos].index;
		side = json_pack("{s:s, s:i, s:i, s:s, s:s, s:i}", "device", dev, "port", 1, "gpu",
				 g[pos].index, "gpu_bus_id", g[pos].bus_id, "gpu_distance",
				 topo_dist_name(g[pos].dist), "gpu_count", n);
		json_array_append_new(rails, json_pack("{s:i, s:s, s:O, s:o}", "rail", r, "name", dev,
						       "a", side, "b", side));
	}
	topo_free(t);
	return rails;
}

/* a100: mlx5_0 and mlx5_1 tie on GPU0 and GPU1 (PIX). Before the spread
 * both took GPU0 (found, per node); with it each rail has its own GPU, the
 * one NCCL pairs with it. */
static void test_a100_rails(void **state)
{
	int gpu[8];
	json_t *doc = fc_doc_new(), *rails = rails_of("a100", 8, 0, gpu);

	(void)state;
	assert_int_equal(gpu[0], 0);
	assert_int_equal(gpu[1], 0);
	pair_rail_gpus_check(doc, rails, "nodeA", "nodeB");
	assert_true(has_finding_part(doc, "nodeA: rails 0 (mlx5_0) and 1 (mlx5_1) both had "
					  "their buffers on GPU 0 (0000:03:00.0) although the "
					  "node has 8 GPUs for 8 rails"));
	assert_true(has_finding_part(doc, "nodeB: rails 6 (mlx5_6) and 7 (mlx5_7) both"));
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	json_decref(rails);
	json_decref(doc);

	doc = fc_doc_new();
	rails = rails_of("a100", 8, 1, gpu);
	for (int r = 0; r < 8; r++)
		assert_int_equal(gpu[r], r);
	assert_string_equal(fc_jstr(json_object_get(json_array_get(rails, 1), "a"), "gpu_distance",
				    ""), "PIX");
	pair_rail_gpus_check(doc, rails, "nodeA", "nodeB");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	json_decref(rails);
	json_decref(doc);
}

/* hgx: each HCA has one nearest GPU; the spread changes nothing. */
static void test_hgx_rails(void **state)
{
	int gpu[8], plain[8];
	json_t *doc = fc_doc_new(), *rails = rails_of("hgx", 8, 1, gpu), *r0;

	(void)state;
	json_decref(rails_of("hgx", 8, 0, plain));
	for (int r = 0; r < 8; r++) {
		assert_int_equal(gpu[r], r);
		assert_int_equal(plain[r], r);
	}
	pair_rail_gpus_check(doc, rails, "nodeA", "nodeB");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	/* nodeB's rail 3 on rail 2's GPU: named on nodeB alone */
	r0 = json_deep_copy(json_object_get(json_array_get(rails, 3), "a"));
	json_object_set_new(r0, "gpu", json_integer(2));
	json_object_set_new(json_array_get(rails, 3), "b", r0);
	pair_rail_gpus_check(doc, rails, "nodeA", "nodeB");
	assert_true(has_finding_part(doc, "nodeB: rails 2 (mlx5_2) and 3 (mlx5_3) both had"));
	assert_false(has_finding_part(doc, "nodeA:"));
	json_decref(rails);
	json_decref(doc);
}

/* dgx: 4 HCAs for 8 GPUs, one HCA a switch: each rail its switch's first
 * GPU. Two rails on one GPU of a node with fewer GPUs than rails: a note. */
static void test_fewer_gpus(void **state)
{
	int gpu[4];
	json_t *doc = fc_doc_new(), *rails = rails_of("dgx", 4, 1, gpu);
	char *notes;

	(void)state;
	assert_int_equal(gpu[0], 0);
	assert_int_equal(gpu[1], 2);
	assert_int_equal(gpu[3], 6);
	for (int r = 0; r < 4; r++) {
		json_object_set_new(json_object_get(json_array_get(rails, (size_t)r), "a"),
				    "gpu_count", json_integer(1));
		json_object_set_new(json_object_get(json_array_get(rails, (size_t)r), "a"), "gpu",
				    json_integer(0));
	}
	pair_rail_gpus_check(doc, rails, "nodeA", "nodeB");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	notes = json_dumps(json_object_get(doc, "notes"), 0);
	assert_non_null(notes);
	assert_non_null(strstr(notes, "nodeA: rails 0 and 1 share GPU 0: the node has 1 GPU for 4 rails"));
	free(notes);
	json_decref(rails);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100_rails),
		cmocka_unit_test(test_hgx_rails),
		cmocka_unit_test(test_fewer_gpus),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
