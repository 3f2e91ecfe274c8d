/*
 * The HCA NCCL gives each GPU and the GPU it gives each HCA (topo/
 * pcitopo_nccl.c, through gdr_nearest_hca and gdr_gpu_spread as gpu-check and
 * --use-cuda use them) on sysfs trees of four layouts (tests/topo/mksysfs.sh).
 * The rule asserted: design/nccl-rules.md section 4, "Preferred NICs of a
 * GPU", and NVIDIA/nccl src/graph/topo.cc (2.30.7) ncclTopoGetLocal,
 * ncclTopoGetLocalNetType, ncclTopoGetLocalGpu:
 *   local NICs = highest bandwidth, then lowest path type; k = dev mod
 *   localGpuCount; mirrorBits(k, n) when n is a power of two; NIC =
 *   local[(k + channel mod netsPerGpu) mod n].
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

#define TREES_SCENARIOS "a100pxb h100 flat gb200 dgx"
#include "tests/unit/sysfs_trees.h"

/* The HCA gpu-check takes for GPU @i (its bus id, as CUDA gives it). */
static const char *hca_of(const struct topo *t, int i)
{
	static char buf[32];

	assert_int_equal(gdr_nearest_hca(t, topo_gpu(t, i)->bdf, buf, sizeof(buf)), 0);
	return buf;
}

/* The GPU index --use-cuda takes for @hca (CUDA lists every GPU, bus order,
 * with 8-digit domains as cuDeviceGetPCIBusId writes them). */
static int gpu_of(const struct topo *t, const char *hca)
{
	struct gdr_gpu_info g[16];
	int n = 0;

	for (const struct topo_dev *d; n < 16 && (d = topo_gpu(t, n)); n++) {
		g[n] = (struct gdr_gpu_info){ .index = n };
		snprintf(g[n].bus_id, sizeof(g[n].bus_id), "0000%s", d->bdf);
	}
	return g[gdr_gpu_spread(g, n, t, hca, 0)].index;
}

static void check_pairs(const char *sc, const char *const *want, int n)
{
	struct topo *t = load(sc);
	char hca[16];

	for (int i = 0; i < n; i++) {
		assert_string_equal(hca_of(t, i), want[i]);
		assert_int_equal(gpu_of(t, want[i]), i);
		snprintf(hca, sizeof(hca), "%s", want[i]);
		assert_string_equal(topo_nccl_nic_gpu(t, hca)->name, topo_gpu(t, i)->name);
	}
	topo_free(t);
}

/* DGX A100: two GPUs and two HCAs per complex, all four pairs PXB. NCCL:
 * n = 2 local NICs, 2 local GPUs, GPU1 -> mirrorBits(1 mod 2, 2) = 1 ->
 * mlx5_1 (the first by name, mlx5_0, before). */
static void test_a100(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
					    "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7" };
	(void)state;
	check_pairs("a100pxb", want, 8);
}

/* DGX H100: one PIX HCA per GPU; natural order keeps mlx5_10 after mlx5_9.
 * The storage HCAs (mlx5_1: NODE, i.e. PHB to NCCL, from GPU0-3) are no
 * GPU's local NIC, so NCCL pairs no GPU with them. */
static void test_h100(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5",
					    "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11" };
	struct topo *t;

	(void)state;
	check_pairs("h100", want, 8);
	t = load("h100");
	assert_null(topo_nccl_nic_gpu(t, "mlx5_1"));
	assert_null(topo_nccl_nic_gpu(t, "mlx5_8"));
	topo_free(t);
}

/* HGX with a flat switch: 4 GPUs and 4 HCAs PIX to all. n = 4, a power of
 * two: GPU dev d takes local[mirrorBits(d mod 4, 4)]: 0->0, 1->2, 2->1,
 * 3->3; on socket 1 the local list in natural order is mlx5_8, mlx5_9,
 * mlx5_10, mlx5_11 (strcmp would put mlx5_10 first). */
static void test_flat(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_2", "mlx5_1", "mlx5_3",
					    "mlx5_8", "mlx5_10", "mlx5_9", "mlx5_11" };
	struct topo *t;
	const struct topo_dev *loc[8];

	(void)state;
	check_pairs("flat", want, 8);
	t = load("flat");
	assert_int_equal(topo_nccl_local(t, topo_gpu(t, 5), loc, 8), 4);
	assert_string_equal(loc[2]->name, "mlx5_10");
	/* netsPerGpu = ceil(4 / 4) = 1: every channel of GPU5 on mlx5_10 */
	assert_string_equal(topo_nccl_gpu_nic(t, "GPU5", 3)->name, "mlx5_10");
	topo_free(t);
}

/* GB200: GPUs reach the HCAs of their own Grace through the CPU (C2C then
 * PCIe; NODE in sysfs, one class to NCCL), so both HCAs of a socket tie for
 * both its GPUs: GPU1 -> mirrorBits(1, 2) = 1 -> mlx5_1. */
static void test_gb200(void **state)
{
	static const char *const want[] = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3" };

	(void)state;
	check_pairs("gb200", want, 4);
}

/* Fewer HCAs than GPUs (dgx: 2 GPUs and 1 HCA per switch): both GPUs use
 * it; it pairs with the first (GPU0), as NCCL's ncclTopoGetLocalGpu does. */
static void test_shared_hca(void **state)
{
	struct topo *t = load("dgx");

	(void)state;
	assert_string_equal(hca_of(t, 0), "mlx5_0");
	assert_string_equal(hca_of(t, 1), "mlx5_0");
	assert_int_equal(gpu_of(t, "mlx5_1"), 2);
	assert_int_equal(topo_nccl_class(TOPO_NODE), TOPO_PHB);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100),	 cmocka_unit_test(test_h100),
		cmocka_unit_test(test_flat),	 cmocka_unit_test(test_gb200),
		cmocka_unit_test(test_shared_hca),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
