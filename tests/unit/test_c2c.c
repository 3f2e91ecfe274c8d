/*
 * Grace nodes as NCCL sees them (topo/pcitopo_nccl.c, gdr/probe.c): GPUs on
 * a C2C link to their CPU (GB200-, GH200-like sysfs trees from
 * tests/topo/mksysfs.sh), the P2C class, NCCL's GPUDirect verdict by release
 * (NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr at v2.25.1, v2.26.2,
 * v2.27.3, v2.29.2, v2.30.7; design/nccl-rules.md section 3 item 5), and the
 * dma-buf PCIe mapping only where NCCL's mode is "PCI"; mlx5 Data Direct
 * (GB300-like tree): NCCL's <hca>_dma at the DMA function's place
 * (src/transport/net_ib/init.cc 2.27.3+), in topo, the GPU pairing and the
 * names check-log matches.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"
#include "core/out.h"
#include "gdr/gdr.h"
#include "topo/pcitopo.h"
#include "topo/topo_report.h"

#define TREES_SCENARIOS "gb200 gh200 h100 gb300"
#include "tests/unit/sysfs_trees.h"
#include "tests/unit/topo_doc.h"

static int has_text(const json_t *arr, const char *key, const char *a)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x) {
		const char *s = key ? fc_jstr(x, key, "") : json_string_value(x);

		if (s && strstr(s, a))
			return 1;
	}
	return 0;
}

/* GB200: each GPU reaches the HCAs of its own Grace through the CPU. NCCL
 * 2.27.3+ default: P2C, GPUDirect on (NCCL_NET_GDR_C2C=1), so neither the
 * "staged through host memory" warning nor NCCL_NET_GDR_LEVEL=PHB. */
static void test_gb200_report(void **state)
{
	struct topo *t = load("gb200");
	json_t *doc = report(t), *g0;

	(void)state;
	g0 = json_array_get(json_object_get(doc, "gpus"), 0);
	assert_false(has_text(json_object_get(doc, "findings"), NULL, "staged through host memory"));
	assert_null(rec(doc, "NCCL_NET_GDR_LEVEL"));
	assert_string_equal(rec(doc, "NCCL_NET_GDR_C2C"), "1");
	assert_true(json_is_true(json_object_get(g0, "c2c")));
	assert_string_equal(fc_jstr(g0, "nccl_path", ""), "P2C");
	assert_string_equal(fc_jstr(json_object_get(g0, "nccl_gdr"), ">=2.27.3", ""), "Default");
	assert_string_equal(fc_jstr(json_object_get(g0, "nccl_gdr"), "<2.26", ""), "off");
	json_decref(doc);
	topo_free(t);
}

/* The GPU-HCA class gpu-check and the pair workers report on GB200: P2C to
 * the own Grace's HCAs, SYS to the other's; no "NCCL will not use it". */
static void test_gb200_gpu_findings(void **state)
{
	struct topo *t = load("gb200");
	struct gdr_gpu_info g[4] = { { .index = 0 } };
	json_t *doc = fc_doc_new();

	(void)state;
	snprintf(g[0].bus_id, sizeof(g[0].bus_id), "0008:01:00.0");
	gdr_gpu_distances(g, 1, t, "mlx5_0");
	assert_string_equal(topo_dist_name(g[0].dist), "P2C");
	gdr_gpu_findings(doc, "nodeA", &g[0], "mlx5_0");
	assert_false(has_text(json_object_get(doc, "findings"), NULL, "will not use it"));
	assert_true(has_text(json_object_get(doc, "findings"), NULL,
			     "NCCL 2.27.3+ uses GPUDirect RDMA on this path by default"));
	gdr_gpu_distances(g, 1, t, "mlx5_2");
	assert_string_equal(topo_dist_name(g[0].dist), "SYS");
	json_decref(doc);
	topo_free(t);
}

/* NCCL's verdict per release on the paths of a C2C GPU and a PCIe GPU
 * (default settings unless given). */
static void test_gdr_by_release(void **state)
{
	struct topo_gdr_env c2c_on = { -1, 1 }, c2c_off = { -1, 0 }, phb = { TOPO_PHB, -1 };

	(void)state;
	/* P2C: before 2.26 it is PHB, off at PXB; 2.26 off unless asked */
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22501, NULL), TOPO_GDR_OFF);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22501, &phb), TOPO_GDR_DEFAULT);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22602, NULL), TOPO_GDR_OFF);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22602, &c2c_on), TOPO_GDR_DEFAULT);
	/* 2.27.3+: on by default, mode Default; NCCL_NET_GDR_C2C=0 turns it off */
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22703, NULL), TOPO_GDR_DEFAULT);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22902, NULL), TOPO_GDR_DEFAULT);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 23007, &c2c_off), TOPO_GDR_OFF);
	assert_int_equal(topo_nccl_gdr(TOPO_P2C, 1, 22801, &c2c_off), TOPO_GDR_OFF);
	/* a C2C GPU with a NIC by its own PCIe: mode PCI from 2.26 */
	assert_int_equal(topo_nccl_gdr(TOPO_PIX, 1, 23007, NULL), TOPO_GDR_PCI);
	assert_int_equal(topo_nccl_gdr(TOPO_PXB, 1, 22602, NULL), TOPO_GDR_PCI);
	assert_int_equal(topo_nccl_gdr(TOPO_PIX, 1, 22503, NULL), TOPO_GDR_DEFAULT);
	/* PCIe GPUs: PXB on, PHB (NODE) off, PHB on at level PHB, never PCI */
	assert_int_equal(topo_nccl_gdr(TOPO_PXB, 0, 23007, NULL), TOPO_GDR_DEFAULT);
	assert_int_equal(topo_nccl_gdr(TOPO_NODE, 0, 23007, NULL), TOPO_GDR_OFF);
	assert_int_equal(topo_nccl_gdr(TOPO_NODE, 0, 23007, &phb), TOPO_GDR_DEFAULT);
	assert_int_equal(topo_nccl_gdr(TOPO_SYS, 1, 23007, NULL), TOPO_GDR_OFF);
}

/* The flush and the dma-buf mapping gpu-check takes for a GPU and its HCA,
 * as NCCL: PCIe mapping and the loopback READ for a C2C GPU with a PCIe NIC
 * by it (mlx5_1, PIX on gh200); neither at P2C (mlx5_0); never on a PCIe
 * GPU (h100, PIX). */
static void path_of(const char *sc, const char *gpu_bus, const char *hca, struct gdr_dev *dev)
{
	struct topo *t = load(sc);

	memset(dev, 0, sizeof(*dev));
	dev->gdr_flush = 1;
	dev->gpu.flush_opts = 1; /* HOST: cuFlushGPUDirectRDMAWrites works */
	dev->gpu.wr_order = 0;
	dev->gpus = &dev->gpu;
	dev->ngpus = 1;
	snprintf(dev->gpu.bus_id, sizeof(dev->gpu.bus_id), "%s", gpu_bus);
	gdr_dev_set_hca(dev, t, hca);
	dev->gpus = NULL;
	topo_free(t);
}

static void test_pcie_mapping(void **state)
{
	struct gdr_dev dev;

	(void)state;
	path_of("gh200", "0000:3b:00.0", "mlx5_1", &dev);
	assert_int_equal(dev.gpu.dist, TOPO_PIX);
	assert_int_equal(dev.dmabuf_pcie, 1);
	assert_int_equal(dev.flush, GDR_FLUSH_LOOPBACK);
	path_of("gh200", "0000:3b:00.0", "mlx5_0", &dev);
	assert_int_equal(dev.gpu.dist, TOPO_P2C);
	assert_int_equal(dev.dmabuf_pcie, 0);
	assert_int_equal(dev.flush, GDR_FLUSH_CUDA);
	path_of("h100", "0000:03:00.0", "mlx5_0", &dev);
	assert_int_equal(dev.gpu.dist, TOPO_PIX);
	assert_int_equal(dev.dmabuf_pcie, 0);
	assert_int_equal(dev.flush, GDR_FLUSH_CUDA);
}

/* The C2C fact: the kernel's list of superchip GPU ids, overridable. */
static void test_c2c_fact(void **state)
{
	struct topo *t = load("h100");

	(void)state;
	assert_true(topo_gpu_c2c_id(0x10de, 0x2941));
	assert_true(topo_gpu_c2c_id(0x10de, 0x31c2));
	assert_false(topo_gpu_c2c_id(0x10de, 0x2330)); /* H100 SXM */
	assert_false(topo_gpu_c2c_id(0x15b3, 0x2941));
	assert_false(topo_gpu(t, 0)->c2c);
	assert_int_equal(topo_set_c2c(t, "GPU0", 1), 0);
	assert_true(topo_gpu(t, 0)->c2c);
	assert_int_equal(topo_set_c2c(t, "mlx5_0", 1), -ENOENT);
	topo_free(t);
}

/* GB300: the Data Direct functions under GPU0's and GPU1's switches serve
 * mlx5_1 and mlx5_0 (the tie mlx5dv gives at run time; sysfs lacks it). */
static struct topo *load_gb300(void)
{
	struct topo *t = load("gb300");

	assert_int_equal(topo_set_data_direct(t, "mlx5_1",
					      "devices/pci0008:00/0008:00:00.0/0008:01:00.0/0008:02:01.0/0008:04:00.0"), 0);
	assert_int_equal(topo_set_data_direct(t, "mlx5_0",
					      "/sys/devices/pci0009:00/0009:00:00.0/0009:01:00.0/0009:02:01.0/0009:04:00.0"), 0);
	assert_int_equal(topo_set_data_direct(t, "mlx5_2", "0018:04:00.0"), 0);
	assert_int_equal(topo_set_data_direct(t, "mlx5_3", "0019:04:00.0"), 0);
	return t;
}

/* NCCL places mlx5_1_dma where its DMA function is: PIX to GPU0, so GPU0
 * pairs with mlx5_1 (and GPU1 with mlx5_0), where the HCAs' own functions
 * (P2C to both GPUs of a Grace) would give GPU0 mlx5_0. */
static void test_gb300_pairing(void **state)
{
	struct topo *t = load("gb300");
	char buf[32];

	(void)state;
	assert_int_equal(gdr_nearest_hca(t, "0008:03:00.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mlx5_0"); /* no Data Direct known: the PFs */
	assert_null(topo_find(t, "mlx5_0_dma"));
	topo_free(t);
	t = load_gb300();
	assert_int_equal(topo_gdr_distance(topo_gpu(t, 0), topo_find(t, "mlx5_1")), TOPO_PIX);
	assert_int_equal(topo_gdr_distance(topo_gpu(t, 0), topo_find(t, "mlx5_0")), TOPO_P2C);
	assert_int_equal(gdr_nearest_hca(t, "0008:03:00.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mlx5_1"); /* the verbs name, for ibv_open_device */
	assert_int_equal(gdr_nearest_hca(t, "0009:03:00.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mlx5_0");
	assert_int_equal(gdr_nearest_hca(t, "0019:03:00.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mlx5_3");
	assert_string_equal(topo_nccl_nic_gpu(t, "mlx5_1_dma")->name, "GPU0");
	assert_string_equal(topo_nccl_name(topo_find(t, "mlx5_1"), buf, sizeof(buf)), "mlx5_1_dma");
	assert_int_equal(topo_set_data_direct(t, "mlx5_9", "0008:04:00.0"), -ENOENT);
	assert_int_equal(topo_set_data_direct(t, "mlx5_0", "devices/pci0000:00/0000:ff:00.0"), -ENOENT);
	assert_int_equal(topo_set_data_direct(t, "mlx5_0", "0008:03:00.0"), -ENOENT); /* a GPU */
	topo_free(t);
}

/* The topo document names the HCA as NCCL does (mlx5_1_dma), so check-log's
 * expectations (nearest HCAs, the GPU's rail) match NCCL's channel lines;
 * the Data Direct function is no HCA without an RDMA device. The GPU's
 * path to it takes the PCIe mapping and the loopback READ, as NCCL's mode
 * PCI and ncclTopoFlushC2c do. */
static void test_gb300_report(void **state)
{
	struct topo *t = load_gb300();
	json_t *doc = report(t), *g0, *n1;
	struct gdr_dev dev;

	(void)state;
	g0 = json_array_get(json_object_get(doc, "gpus"), 0);
	n1 = json_array_get(json_object_get(doc, "nics"), 1);
	assert_string_equal(fc_jstr(g0, "nccl_nic", ""), "mlx5_1_dma");
	assert_string_equal(fc_jstr(g0, "nearest_dist", ""), "PIX");
	assert_int_equal(json_array_size(json_object_get(g0, "nearest_nics")), 1);
	assert_string_equal(fc_jstr(n1, "nccl_name", ""), "mlx5_1_dma");
	assert_string_equal(fc_jstr(n1, "data_direct", ""), "0008:04:00.0");
	assert_true(ncl_topo_nearest(g0, "mlx5_1_dma"));
	assert_false(ncl_topo_nearest(g0, "mlx5_0_dma"));
	assert_false(has_text(json_object_get(doc, "findings"), NULL, "0008:04:00.0"));
	json_decref(doc);
	topo_free(t);
	memset(&dev, 0, sizeof(dev));
	dev.gpus = &dev.gpu;
	dev.ngpus = 1;
	dev.gdr_flush = 1;
	dev.gpu.flush_opts = 1;
	snprintf(dev.gpu.bus_id, sizeof(dev.gpu.bus_id), "0008:03:00.0");
	t = load_gb300();
	gdr_dev_set_hca(&dev, t, "mlx5_1");
	assert_int_equal(dev.dmabuf_pcie, 1);
	assert_int_equal(dev.flush, GDR_FLUSH_LOOPBACK);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gb200_report),   cmocka_unit_test(test_gb200_gpu_findings),
		cmocka_unit_test(test_gdr_by_release), cmocka_unit_test(test_pcie_mapping),
		cmocka_unit_test(test_c2c_fact),       cmocka_unit_test(test_gb300_pairing),
		cmocka_unit_test(test_gb300_report),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
