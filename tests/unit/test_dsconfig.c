/*
 * fabcheck plan --ds-config and --db, against examples worked out by hand
 * below (all sizes in bytes, 1 GB = 1e9 B).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/busbw.h"
#include "plan/dsconfig.h"
#include "plan/plan_db.h"
#include "store/store.h"

#define assert_near(a, b) assert_true(fabs((a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-12)

static int load(const char *text, struct ds_config *c, char *why, size_t len)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	int rc;

	assert_non_null(j);
	rc = ds_config_from_json(j, c, why, len);
	json_decref(j);
	return rc;
}

/*
 * ZeRO-2, bf16, 7B parameters on 32 GPUs (4 nodes x 8, one NDR 400 Gb/s
 * port per GPU, 1 us per ring step), gradient_accumulation_steps 4,
 * reduce_bucket_size 2e8, allgather_bucket_size 5e8:
 *   gradients: 7e9 / 2e8 = 35 buckets a micro-batch, x 4 = 140 calls,
 *     4 x 7e9 x 2 B = 56e9 B reduce-scattered a step
 *   parameters: 7e9 / 5e8 = 14 calls, 7e9 x 2 = 14e9 B all-gathered once
 *   sent per GPU: (56e9 + 14e9) x 31/32 = 67.8125e9 B
 *   busbw (core/busbw.h, ring): 8 rails x 400 / 8 x 0.94 = 376 GB/s
 *   time: 67.8125e9 / 376e9 = 0.180352393 s
 *         + (140 + 14) calls x 31 steps x 1 us = 4.774 ms -> 0.185126393 s
 */
static void test_zero2_example(void **state)
{
	struct ds_config c;
	struct ds_coll k[DS_MAX_COLLS];
	char why[256];
	int n;
	double bw;

	(void)state;
	assert_int_equal(load("{\"bf16\": {\"enabled\": true}, \"gradient_accumulation_steps\": 4,"
			      " \"zero_optimization\": {\"stage\": 2, \"reduce_bucket_size\": 2e8,"
			      " \"allgather_bucket_size\": 5e8, \"overlap_comm\": true}}",
			      &c, why, sizeof(why)),
			 0);
	assert_int_equal(c.stage, 2);
	assert_int_equal(c.elem_bytes, 2);
	assert_int_equal(c.overlap_comm, 1);
	n = ds_step_colls(&c, 7e9, k);
	assert_int_equal(n, 2);
	assert_int_equal(k[0].op, PLAN_REDUCESCATTER);
	assert_near(k[0].calls, 140);
	assert_near(k[0].bytes, 56e9);
	assert_near(k[0].bucket_bytes, 4e8);
	assert_int_equal(k[1].op, PLAN_ALLGATHER);
	assert_near(k[1].calls, 14);
	assert_near(k[1].bytes, 14e9);
	assert_near(ds_step_traffic(k, n, 32), 67.8125e9);
	bw = busbw_rails(BUSBW_ALGO_RING, 8, 400, 8, 4, NULL) * 1e9;
	assert_near(bw, 376e9);
	assert_near(ds_step_time(k, n, 32, bw, 1e-6), 0.185126393617021);
	/* ZeRO-1 reduces the gradients once a step, not once a micro-batch:
	 * 35 calls, 14e9 B */
	c.stage = 1;
	n = ds_step_colls(&c, 7e9, k);
	assert_near(k[0].calls, 35);
	assert_near(k[0].bytes, 14e9);
}

/*
 * ZeRO-3 with DeepSpeed's defaults (stage3_prefetch_bucket_size 5e7,
 * reduce_bucket_size 5e8, overlap_comm true at stage 3), fp16, 70B
 * parameters, gradient_accumulation_steps 2, on 64 GPUs:
 *   all-gather before forward: 70e9 / 5e7 = 1400 calls x 2 micro-batches
 *     = 2800, 2 x 70e9 x 2 B = 280e9 B; the same again before backward
 *   reduce-scatter: 70e9 / 5e8 = 140 x 2 = 280 calls, 280e9 B
 *   sent per GPU: 3 x 280e9 x 63/64 = 826.875e9 B
 *   at 376e9 B/s busbw and 1 us a step:
 *     826.875e9 / 376e9 = 2.199135638 s
 *     + (2800 + 2800 + 280) x 63 x 1 us = 0.37044 s -> 2.569575638 s
 */
static void test_zero3_defaults(void **state)
{
	struct ds_config c;
	struct ds_coll k[DS_MAX_COLLS];
	char why[256];
	int n;

	(void)state;
	assert_int_equal(load("{\"fp16\": {\"enabled\": true}, \"gradient_accumulation_steps\": 2,"
			      " \"zero_optimization\": {\"stage\": 3}}", &c, why, sizeof(why)), 0);
	assert_int_equal(c.overlap_comm, 1);
	assert_near(c.prefetch_bucket, 5e7);
	n = ds_step_colls(&c, 70e9, k);
	assert_int_equal(n, 3);
	assert_near(k[0].calls, 2800);
	assert_near(k[1].calls, 2800);
	assert_near(k[2].calls, 280);
	assert_near(k[0].bytes + k[1].bytes + k[2].bytes, 840e9);
	assert_near(ds_step_traffic(k, n, 64), 826.875e9);
	assert_near(ds_step_time(k, n, 64, 376e9, 1e-6), 2.569575638297872);
	/* one node's worth of ranks: nothing crosses a fabric */
	assert_near(ds_step_time(k, n, 1, 376e9, 1e-6), 0);
}

/*
 * No zero_optimization: stage 0, fp32, overlap_comm false. 1.3B
 * parameters all-reduced in 5e8-element buffers: ceil(1.3e9 / 5e8) = 3
 * calls, 1.3e9 x 4 B = 5.2e9 B; per GPU on 16 GPUs 5.2e9 x 2 x 15/16
 * = 9.75e9 B.
 */
static void test_stage0(void **state)
{
	struct ds_config c;
	struct ds_coll k[DS_MAX_COLLS];
	char why[256];

	(void)state;
	assert_int_equal(load("{\"train_batch_size\": 64}", &c, why, sizeof(why)), 0);
	assert_int_equal(c.stage, 0);
	assert_int_equal(c.elem_bytes, 4);
	assert_int_equal(c.overlap_comm, 0);
	assert_int_equal(ds_step_colls(&c, 1.3e9, k), 1);
	assert_int_equal(k[0].op, PLAN_ALLREDUCE);
	assert_near(k[0].calls, 3);
	assert_near(k[0].bytes, 5.2e9);
	assert_near(ds_step_traffic(k, 1, 16), 9.75e9);
}

/* Each bad value is refused, and the message names its key. */
static void test_bad_input(void **state)
{
	static const struct {
		const char *json, *key;
	} bad[] = {
		{ "{\"zero_optimization\": {\"stage\": 4}}", "zero_optimization.stage" },
		{ "{\"zero_optimization\": {\"stage\": \"2\"}}", "zero_optimization.stage" },
		{ "{\"zero_optimization\": {\"stage\": 1.5}}", "zero_optimization.stage" },
		{ "{\"zero_optimization\": 2}", "zero_optimization" },
		{ "{\"zero_optimization\": {\"reduce_bucket_size\": \"auto\"}}",
		  "zero_optimization.reduce_bucket_size: \"auto\"" },
		{ "{\"zero_optimization\": {\"reduce_bucket_size\": 0}}",
		  "zero_optimization.reduce_bucket_size" },
		{ "{\"zero_optimization\": {\"allgather_bucket_size\": 1e15}}",
		  "zero_optimization.allgather_bucket_size" },
		{ "{\"zero_optimization\": {\"stage3_prefetch_bucket_size\": -5}}",
		  "zero_optimization.stage3_prefetch_bucket_size" },
		{ "{\"zero_optimization\": {\"overlap_comm\": 1}}", "zero_optimization.overlap_comm" },
		{ "{\"gradient_accumulation_steps\": \"auto\"}", "gradient_accumulation_steps" },
		{ "{\"gradient_accumulation_steps\": 0}", "gradient_accumulation_steps" },
		{ "{\"bf16\": {\"enabled\": \"auto\"}}", "bf16.enabled" },
		{ "{\"fp16\": true}", "fp16" },
		{ "{\"fp16\": {\"enabled\": true}, \"bf16\": {\"enabled\": true}}", "bf16.enabled" },
		{ "[1, 2]", "one JSON object" },
	};
	struct ds_config c;
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_not_equal(load(bad[i].json, &c, why, sizeof(why)), 0);
		if (!strstr(why, bad[i].key))
			fail_msg("%s: '%s' does not name '%s'", bad[i].json, why, bad[i].key);
	}
	assert_int_not_equal(ds_config_load("/nonexistent/ds.json", &c, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "/nonexistent/ds.json"));
}

static char dir[64], path[96];

static void add_pair(struct fc_store *st, int64_t run, const char *a, const char *b, double g0,
		     double g1)
{
	json_t *d = json_pack(
		"{s:s, s:[], s:[{s:i, s:s, s:s, s:{s:s, s:[{s:s, s:s, s:i, s:f}]}}, "
		"{s:i, s:s, s:s, s:{s:s, s:[{s:s, s:s, s:i, s:f}]}}]}",
		"verdict", "pass", "results", "rails", "rail", 0, "name", "mlx5_0", "subnet",
		"10.0.0.0/16", "loaded", "verdict", "pass", "results", "test", "write", "metric",
		"bw", "size_bytes", 1048576, "gbps", g0, "rail", 1, "name", "mlx5_1", "subnet",
		"10.1.0.0/16", "loaded", "verdict", "pass", "results", "test", "write", "metric",
		"bw", "size_bytes", 1048576, "gbps", g1);

	assert_int_equal(fc_store_pair_add(st, run, a, b, d), 0);
	json_decref(d);
}

/*
 * A matrix run with two rails: mlx5_0 at 390, 380, 385 Gb/s (median 385),
 * mlx5_1 at 370, 100, 360 (median 360, the slowest): the fabric carries
 * 360 Gb/s on each rail, 45 GB/s; with 2 rails for 8 GPUs on 4 nodes the
 * ring busbw is 2 x 45 = 90 GB/s (no payload share: it is measured).
 * Then an nccl run, newer: its peak busbw (352 GB/s) as it is.
 */
static void test_db(void **state)
{
	struct plan_measured m;
	struct fc_store *st;
	char why[512];
	int64_t run;
	json_t *p;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fc-dsdb-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.db", dir);
	st = fc_store_open(path);
	assert_non_null(st);
	assert_int_not_equal(plan_db_fabric(path, &m, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no matrix run and no nccl run"));
	run = fc_store_run_begin(st, "matrix", NULL);
	add_pair(st, run, "n1", "n2", 390, 370);
	add_pair(st, run, "n1", "n3", 380, 100);
	add_pair(st, run, "n2", "n3", 385, 360);
	assert_int_equal(fc_store_run_end(st, run, "warn"), 0);
	assert_int_equal(plan_db_fabric(path, &m, why, sizeof(why)), 0);
	assert_string_equal(m.source, "matrix");
	assert_int_equal(m.rails, 2);
	assert_near(m.rail_gbps, 360);
	assert_string_equal(m.slowest, "mlx5_1");
	assert_near(plan_measured_busbw(&m, 8, 4), 90);
	p = json_pack("{s:i, s:i, s:f}", "nodes", 2, "gpus_per_node", 8, "peak_busbw_gbytes_s",
		      352.0);
	run = fc_store_run_begin(st, "nccl", p);
	json_decref(p);
	assert_int_equal(plan_db_fabric(path, &m, why, sizeof(why)), 0);
	assert_string_equal(m.source, "nccl");
	assert_near(plan_measured_busbw(&m, 8, 4), 352);
	fc_store_close(st);
	unlink(path);
	snprintf(why, sizeof(why), "%s-wal", path), unlink(why);
	snprintf(why, sizeof(why), "%s-shm", path), unlink(why);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero2_example), cmocka_unit_test(test_zero3_defaults),
		cmocka_unit_test(test_stage0),	      cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_db),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
