/*
 * GPU to HCA as NCCL ranks it (topo/pcitopo_nccl.c, pcitopo_ncclpath.c) on
 * server layouts of tests/topo/mksysfs.sh that the older model got wrong.
 * Each expectation is worked from NVIDIA/nccl's rules (design/nccl-rules.md
 * section 4), not from fabcheck's output:
 *   candidates (topo.cc ncclTopoGetLocal): network devices with an active
 *   port (net_ib ncclIbInitDevices skips the others), highest path bandwidth
 *   (PCIe links and the NIC's NET link, mbps / 8000 GB/s: a 400G NDR port on
 *   Gen5 x16 is min(48, 50) = 48, a 200G HDR one 25), then lowest path type;
 *   Broadcom PEX switches flattened (topo.cc ncclTopoFlattenBcmSwitches);
 *   the pick by release (ncclTopoGetLocalNet / ncclTopoGetLocalNetType).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gdr/gdr.h"
#include "topo/pcitopo.h"

#define TREES_SCENARIOS "h100stor h100down h100dpu pex flat a100"
#include "tests/unit/sysfs_trees.h"

static const char *nic_of(const struct topo *t, const char *gpu, int channel)
{
	const struct topo_dev *n = topo_nccl_gpu_nic(t, gpu, channel);

	return n ? n->name : "(none)";
}

/* The HCA gpu-check --gpu takes for GPU @i (topo_nccl_gpu_nic, channel 0). */
static const char *hca_of(const struct topo *t, int i)
{
	static char buf[32];

	assert_int_equal(gdr_nearest_hca(t, topo_gpu(t, i)->bdf, buf, sizeof(buf)), 0);
	return buf;
}

/* DGX H100 on Gen5 with 200G storage HCAs on the switches of GPU1 and GPU5:
 * the storage HCA is PIX like the compute one, but its path is 25 GB/s
 * against 48, so it is no candidate: GPU1 -> mlx5_3 on every channel. The
 * older model tied them and gave GPU1 mlx5_1 (the first in order). */
static void test_storage_same_switch(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5",
					    "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11" };
	struct topo *t = load("h100stor");
	const struct topo_dev *loc[8];

	(void)state;
	for (int i = 0; i < 8; i++)
		assert_string_equal(hca_of(t, i), want[i]);
	assert_int_equal(topo_nccl_local(t, topo_gpu(t, 1), loc, 8), 1);
	assert_string_equal(nic_of(t, "GPU1", 1), "mlx5_3");
	assert_int_equal(topo_nccl_nic_mbps(topo_find(t, "mlx5_1")), 200000);
	assert_null(topo_nccl_nic_gpu(t, "mlx5_1"));
	assert_null(topo_nccl_nic_gpu(t, "mlx5_7"));
	assert_false(topo_nccl_used(t, topo_find(t, "mlx5_1")));
	assert_true(topo_nccl_used(t, topo_find(t, "mlx5_3")));
	topo_free(t);
}

/* mlx5_3, GPU1's only PIX HCA at 400G, has its port DOWN: NCCL does not list
 * it. GPU1's candidates are then the 400G HCAs through its CPU (PHB, 48 GB/s,
 * above the 25 of the storage HCA at PIX), in node order mlx5_0, mlx5_4,
 * mlx5_5; local GPUs of mlx5_0: GPU0 alone. 2.30.7: k = 1 mod 1 = 0, three
 * NICs per GPU: channels 0, 1, 2 -> mlx5_0, mlx5_4, mlx5_5. 2.21.5: k = 1:
 * channel 0 -> mlx5_4. */
static void test_port_down(void **state)
{
	struct topo *t = load("h100down");
	const struct topo_dev *loc[8];

	(void)state;
	assert_false(topo_nccl_net(topo_find(t, "mlx5_3")));
	assert_null(topo_nccl_nic_gpu(t, "mlx5_3"));
	assert_int_equal(topo_nccl_local(t, topo_gpu(t, 1), loc, 8), 3);
	assert_string_equal(loc[0]->name, "mlx5_0");
	assert_string_equal(loc[1]->name, "mlx5_4");
	assert_string_equal(loc[2]->name, "mlx5_5");
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 1), loc[0]), TOPO_PHB);
	assert_string_equal(hca_of(t, 1), "mlx5_0");
	assert_string_equal(nic_of(t, "GPU1", 1), "mlx5_4");
	assert_string_equal(nic_of(t, "GPU1", 2), "mlx5_5");
	topo_nccl_set_version(t, 22105, "test");
	assert_string_equal(nic_of(t, "GPU1", 0), "mlx5_4");
	topo_free(t);
}

/* A BlueField-3 400G port on GPU2's switch ties with mlx5_4 (both PIX, 48
 * GB/s): local [mlx5_4, mlx5_12], one local GPU, two NICs per GPU: channel 0
 * mlx5_4, channel 1 the DPU port, which is why NCCL_IB_HCA must leave it out. */
static void test_dpu(void **state)
{
	struct topo *t = load("h100dpu");

	(void)state;
	assert_true(topo_nic_is_dpu(topo_find(t, "mlx5_12")));
	assert_false(topo_nic_is_dpu(topo_find(t, "mlx5_4")));
	assert_string_equal(nic_of(t, "GPU2", 0), "mlx5_4");
	assert_string_equal(nic_of(t, "GPU2", 1), "mlx5_12");
	assert_true(topo_nccl_used(t, topo_find(t, "mlx5_12")));
	topo_free(t);
}

/* Broadcom PEX: GPU1 and mlx5_1 each in a sub-switch of their own, beside
 * GPU0 + mlx5_0. Flattened (Gen5 from 2.20.3, Gen4 from 2.9.6) all four are
 * PIX: local [mlx5_0, mlx5_1], local GPUs of mlx5_0 GPU0 and GPU1: GPU1 ->
 * mirrorBits(1 mod 2, 2) = 1 -> mlx5_1. Unflattened GPU1 reaches both at
 * PXB and the older model gave it mlx5_0. */
static void test_pex(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3" };
	struct topo *t = load("pex");

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_string_equal(hca_of(t, i), want[i]);
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 1), topo_find(t, "mlx5_0")), TOPO_PIX);
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 3), topo_find(t, "mlx5_2")), TOPO_PIX);
	assert_string_equal(topo_nccl_nic_gpu(t, "mlx5_1")->name, "GPU1");
	/* 2.19: Gen5 not yet flattened; Gen4 is (equal ids at both levels) */
	topo_nccl_set_version(t, 21903, "test");
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 1), topo_find(t, "mlx5_0")), TOPO_PXB);
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 3), topo_find(t, "mlx5_2")), TOPO_PIX);
	/* 2.9.5: no flattening at all */
	topo_nccl_set_version(t, 20905, "test");
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 3), topo_find(t, "mlx5_2")), TOPO_PXB);
	topo_free(t);
}

/* The spreading rule of each release, on a flat switch of 4 GPUs and 4 HCAs
 * (GPU4-7 with mlx5_8..11) and on 2 GPUs + 2 HCAs a switch (a100):
 *   2.17.1  local[dev mod n]: GPU1 -> mlx5_1, GPU5 -> mlx5_9
 *   2.18.3  mask round robin, position 1 of 4: GPU1 -> mlx5_1 on channel 0
 *           and 1 ((1 x 4 + 1) mod 4 = 1)
 *   2.18.5+ mirrorBits: GPU1 -> mlx5_2, GPU5 -> mirrorBits(5, 4) = 2 -> mlx5_10 */
static void test_spread_by_release(void **state)
{
	struct topo *t = load("flat");

	(void)state;
	topo_nccl_set_version(t, 21701, "test");
	assert_string_equal(nic_of(t, "GPU1", 0), "mlx5_1");
	assert_string_equal(nic_of(t, "GPU5", 0), "mlx5_9");
	topo_nccl_set_version(t, 21803, "test");
	assert_string_equal(nic_of(t, "GPU1", 0), "mlx5_1");
	assert_string_equal(nic_of(t, "GPU1", 1), "mlx5_1");
	assert_string_equal(nic_of(t, "GPU2", 0), "mlx5_2");
	topo_nccl_set_version(t, 21805, "test");
	assert_string_equal(nic_of(t, "GPU1", 0), "mlx5_2");
	assert_string_equal(nic_of(t, "GPU5", 0), "mlx5_10");
	topo_free(t);
	/* a100: GPUs 2k, 2k+1 and mlx5_2k, mlx5_2k+1 per switch; 2.18.3: GPU3 is
	 * second of the two sharing them -> (0 x 2 + 1) mod 2 -> mlx5_3 */
	t = load("a100");
	topo_nccl_set_version(t, 21803, "test");
	assert_string_equal(nic_of(t, "GPU3", 0), "mlx5_3");
	assert_string_equal(nic_of(t, "GPU2", 1), "mlx5_2");
	topo_free(t);
}

static void test_version_names(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(topo_nccl_version_str(22703, buf, sizeof(buf)), "2.27.3");
	assert_string_equal(topo_nccl_version_str(TOPO_NCCL_NEWEST, buf, sizeof(buf)), "2.30.7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storage_same_switch),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_dpu),
		cmocka_unit_test(test_pex),
		cmocka_unit_test(test_spread_by_release),
		cmocka_unit_test(test_version_names),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
