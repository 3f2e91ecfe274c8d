/*
 * NCCL's virtual NICs in the GPU-to-HCA model (topo/pcitopo_vnic.c) on
 * layouts of tests/topo/mksysfs.sh. Each expectation is worked from
 * NVIDIA/nccl's code at the tags, not from fabcheck's output:
 *   which ports fuse: 2.20.3 - 2.23.4 the IB plugin (net_ib.cc ncclIbInit,
 *   ncclIbFindMatchingDev: one PCI path with the function read as 0, two
 *   ports at most; 2.22.3+ none where merged devices of different sizes
 *   meet); 2.24.3+ topo.cc ncclTopoAutoMerge at NCCL_NET_MERGE_LEVEL (PORT:
 *   the functions of one device), refused by net_ib.cc
 *   ncclIbMakeVDeviceInternal for ports of different link layers;
 *   speed: the ports' together (mergedDev.speed, vDev speed), so a fused
 *   2 x 200G card is min(48, 50) = 48 GB/s on Gen5 x16 like a 400G port;
 *   place in NCCL's node order, which decides ties (ncclTopoGetLocal keeps
 *   it): 2.20.3 - 2.23.4 the merged device at its first port's index;
 *   2.24.3 - 2.26.6 a made-up PCI node added last under the ports' parent
 *   (ncclTopoGetVNicParent; the ports keep their own functions' paths,
 *   ncclIbGetPciPath); 2.27.3+ the ports share function 0's path again and
 *   the virtual NIC is a net of that card's node, at its place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/pcitopo.h"

#define TREES_SCENARIOS "h100dual dualtie"
#include "tests/unit/sysfs_trees.h"

/* NCCL's name of the NIC @gpu gets on @channel under release @version. */
static const char *nic_at(struct topo *t, int version, const char *gpu, int channel)
{
	static char buf[64];
	const struct topo_dev *n;

	topo_nccl_set_version(t, version, "test");
	n = topo_nccl_gpu_nic(t, gpu, channel);
	return n ? topo_nccl_name(n, buf, sizeof(buf)) : "(none)";
}

/* A dual-port card under GPU0's switch, 400G HCAs on the other switches:
 * fused, the card is a 48 GB/s PIX NIC and GPU0's; unfused, its 200G ports
 * are 25 GB/s and GPU0 goes to mlx5_2 (48, PHB) past them. */
static void test_dual_card_by_release(void **state)
{
	struct topo *t = load("h100dual");
	const struct topo_dev *p0 = topo_find(t, "mlx5_0"), *p1 = topo_find(t, "mlx5_1");
	char name[64];

	(void)state;
	assert_string_equal(nic_at(t, 21903, "GPU0", 0), "mlx5_2");
	assert_int_equal(topo_nccl_nic_mbps(p0), 200000);
	assert_string_equal(nic_at(t, 22003, "GPU0", 0), "mlx5_0+mlx5_1");
	assert_int_equal(topo_nccl_nic_mbps(p0), 400000);
	assert_ptr_equal(topo_nccl_vnic(t, p1), p0);
	assert_false(topo_nccl_netdev(t, p1));
	assert_true(topo_nccl_used(t, p1));
	assert_string_equal(topo_nccl_name(p1, name, sizeof(name)), "mlx5_0+mlx5_1");
	assert_string_equal(topo_nccl_nic_gpu(t, "mlx5_1")->name, "GPU0");
	assert_string_equal(nic_at(t, 22105, "GPU0", 0), "mlx5_0+mlx5_1");
	/* 2.22.3+: the card's merged device (2) beside mlx5_2's and mlx5_3's (1) */
	assert_string_equal(nic_at(t, 22203, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22304, "GPU0", 0), "mlx5_2");
	assert_false(topo_nccl_used(t, p1));
	assert_string_equal(nic_at(t, 22403, "GPU0", 0), "mlx5_0+mlx5_1");
	assert_string_equal(nic_at(t, 23007, "GPU0", 0), "mlx5_0+mlx5_1");
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 0), topo_nccl_gpu_nic(t, "GPU0", 0)),
			 TOPO_PIX);
	/* the other GPUs keep their own 400G HCA in every release */
	assert_string_equal(nic_at(t, 23007, "GPU1", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 21903, "GPU2", 0), "mlx5_3");
	topo_free(t);
}

/* NCCL_IB_MERGE_NICS=0, NCCL_NET_MERGE_LEVEL: honoured by release. */
static void test_dual_card_env(void **state)
{
	struct topo *t = load("h100dual");

	(void)state;
	setenv("NCCL_IB_MERGE_NICS", "0", 1);
	assert_string_equal(nic_at(t, 22105, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22501, "GPU0", 0), "mlx5_2");
	assert_non_null(strstr(t->vnic_how, "stops at init"));
	assert_string_equal(nic_at(t, 23007, "GPU0", 0), "mlx5_2");
	assert_non_null(strstr(t->vnic_how, "keeps mlx5_0 and mlx5_1 apart"));
	unsetenv("NCCL_IB_MERGE_NICS");
	setenv("NCCL_NET_MERGE_LEVEL", "LOC", 1);
	assert_string_equal(nic_at(t, 23007, "GPU0", 0), "mlx5_2");
	/* the plugin's merge of 2.20.3 - 2.23.4 does not read it */
	assert_string_equal(nic_at(t, 22105, "GPU0", 0), "mlx5_0+mlx5_1");
	/* PHB: the ports of one CPU fuse, up to four: the card's first port
	 * takes in its second and mlx5_2 (GPU1's switch, PHB), an 800G NIC under
	 * their common parent, the CPU: PHB to GPU0, 48 GB/s, still its best
	 * (mlx5_3 is SYS) */
	setenv("NCCL_NET_MERGE_LEVEL", "PHB", 1);
	assert_string_equal(nic_at(t, 23007, "GPU0", 0), "mlx5_0+mlx5_1+mlx5_2");
	assert_int_equal(topo_nccl_nic_mbps(topo_find(t, "mlx5_0")), 800000);
	assert_int_equal(topo_nccl_distance(t, topo_gpu(t, 0), topo_find(t, "mlx5_0")), TOPO_PHB);
	unsetenv("NCCL_NET_MERGE_LEVEL");
	topo_free(t);
}

/* One switch: GPU0, the dual-port card (mlx5_0, mlx5_1) and a 400G mlx5_2.
 * Fused, the card ties with mlx5_2 (48 GB/s, PIX) and NCCL's node order
 * decides channel 0 (k = mirrorBits(0, 2) = 0): the card's place in 2.21.5
 * and 2.27.3 - 2.29.3 (name order: mlx5_0 first), after mlx5_2 in 2.24.3 -
 * 2.26.6 and from 2.29.7 (PCI order). Unfused (2.19.3; 2.23.4, sizes 2 and
 * 1) mlx5_2 alone is at 48. */
static void test_tie_order(void **state)
{
	struct topo *t = load("dualtie");

	(void)state;
	assert_string_equal(nic_at(t, 21903, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22105, "GPU0", 0), "mlx5_0+mlx5_1");
	assert_string_equal(nic_at(t, 22105, "GPU0", 1), "mlx5_2");
	assert_string_equal(nic_at(t, 22304, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22403, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22403, "GPU0", 1), "mlx5_0+mlx5_1");
	assert_string_equal(nic_at(t, 22606, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 22703, "GPU0", 0), "mlx5_0+mlx5_1");
	assert_string_equal(nic_at(t, 22703, "GPU0", 1), "mlx5_2");
	/* 2.29.7+ number the ports in PCI order (net_ib/init.cc
	 * ncclIbCompareDevs): mlx5_2 at 0000:04:00.0 before the card's 05:00.x */
	assert_string_equal(nic_at(t, 22907, "GPU0", 0), "mlx5_2");
	assert_string_equal(nic_at(t, 23007, "GPU0", 1), "mlx5_0+mlx5_1");
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dual_card_by_release),
		cmocka_unit_test(test_dual_card_env),
		cmocka_unit_test(test_tie_order),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
