/*
 * Unit tests of the gdr module's pure parts and the host backend: GPU spec
 * parsing, GPU choice on recorded sysfs trees (tests/data/gdr, written by
 * tests/gdr/mksysfs.sh), the registration decision on recorded inputs,
 * the --validate pattern, and fill / verify on host memory.
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
#include <unistd.h>

#include "topo/pcitopo.h"
#include "core/log.h"
#include "core/vmsg.h"
#include "gdr/gdr.h"

#define TREE_2S "tests/data/gdr/two-socket"
#define TREE_NP "tests/data/gdr/no-peermem"

static void test_gpu_spec(void **state)
{
	struct gdr_gpu_req r;
	uint64_t a, b;

	(void)state;
	assert_int_equal(gdr_parse_gpu_spec("--use-cuda", NULL, &r), 0);
	assert_int_equal(r.how, GDR_GPU_NEAREST);
	assert_int_equal(gdr_parse_gpu_spec("--use-cuda", "", &r), 0);
	assert_int_equal(r.how, GDR_GPU_NEAREST);
	assert_int_equal(gdr_parse_gpu_spec("--use-cuda", "3", &r), 0);
	assert_int_equal(r.how, GDR_GPU_INDEX);
	assert_int_equal(r.index, 3);
	assert_int_equal(gdr_parse_gpu_spec("--use-cuda", "0000:3b:00.0", &r), 0);
	assert_int_equal(r.how, GDR_GPU_BUS);
	assert_string_equal(r.bus_id, "0000:3b:00.0");
	assert_int_equal(gdr_parse_gpu_spec("--use-cuda", "3B:00.0", &r), 0);
	assert_int_equal(r.how, GDR_GPU_BUS);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "abc", &r), 0);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "-1", &r), 0);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "1x", &r), 0);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "0000:zz:00.0", &r), 0);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "0000:3b:00.8", &r), 0);
	assert_int_not_equal(gdr_parse_gpu_spec("--use-cuda", "0000:3b:20.0", &r), 0);
	/* One GPU, three spellings (cuDeviceGetPCIBusId, NVML, lspci). */
	assert_int_equal(gdr_bdf_parse("0000:3B:00.0", &a), 0);
	assert_int_equal(gdr_bdf_parse("00000000:3b:00.0", &b), 0);
	assert_true(a == b);
	assert_int_equal(gdr_bdf_parse("3b:00.0", &b), 0);
	assert_true(a == b);
	assert_int_equal(gdr_bdf_parse("0000:3b:00.1", &b), 0);
	assert_true(a != b);
}

static void test_gdr_mode(void **state)
{
	enum gdr_mode m;

	(void)state;
	assert_int_equal(gdr_parse_mode("--gdr", "dma-buf", &m), 0);
	assert_int_equal(m, GDR_MODE_DMABUF);
	assert_int_equal(gdr_parse_mode("--gdr", "peermem", &m), 0);
	assert_int_equal(m, GDR_MODE_PEERMEM);
	assert_int_equal(gdr_parse_mode("--gdr", "auto", &m), 0);
	assert_int_equal(m, GDR_MODE_AUTO);
	assert_int_equal(gdr_parse_mode("--gdr", "host", &m), -EINVAL);
}

static void mkgpu(struct gdr_gpu_info *g, int index, const char *bus)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", bus);
	g->dist = TOPO_UNKNOWN;
}

static void test_gpu_pick(void **state)
{
	struct gdr_gpu_info g[3];
	struct gdr_gpu_req r = { 0 };
	char err[256];

	(void)state;
	mkgpu(&g[0], 0, "0000:3B:00.0");
	mkgpu(&g[1], 1, "0000:86:00.0");
	mkgpu(&g[2], 2, "0000:3D:00.0");
	r.how = GDR_GPU_INDEX;
	r.index = 2;
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), 2);
	r.index = 7;
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "GPU 7 not found"));
	assert_non_null(strstr(err, "1 (0000:86:00.0)"));
	r.how = GDR_GPU_BUS;
	snprintf(r.bus_id, sizeof(r.bus_id), "86:00.0");
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), 1);
	snprintf(r.bus_id, sizeof(r.bus_id), "0000:af:00.0");
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no GPU at bus id 0000:af:00.0"));
	/* Nearest without any distance known: the first GPU. */
	r.how = GDR_GPU_NEAREST;
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), 0);
	g[1].dist = TOPO_PXB;
	g[2].dist = TOPO_PHB;
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), 1);
	g[2].dist = TOPO_PXB; /* a tie goes to the lower index */
	assert_int_equal(gdr_gpu_pick(g, 3, &r, err, sizeof(err)), 1);
	assert_int_equal(gdr_gpu_pick(g, 0, &r, err, sizeof(err)), -ENODEV);
}

/* The GPUs of the two-socket tree in CUDA index order 0..2. */
static void tree_gpus(struct gdr_gpu_info g[3])
{
	mkgpu(&g[0], 0, "0000:3B:00.0"); /* socket 0, under mlx5_0's switch */
	mkgpu(&g[1], 1, "0000:86:00.0"); /* socket 1, two switches from mlx5_1 */
	mkgpu(&g[2], 2, "0000:3D:00.0"); /* socket 0, under mlx5_0's switch */
}

static int pick_near(struct gdr_gpu_info *g, const struct topo *t, const char *hca)
{
	struct gdr_gpu_req r = { .how = GDR_GPU_NEAREST };
	char err[128];

	gdr_gpu_distances(g, 3, t, hca);
	return gdr_gpu_pick(g, 3, &r, err, sizeof(err));
}

static void test_choice_on_tree(void **state)
{
	struct gdr_gpu_info g[3];
	struct topo *t = NULL;
	char hca[32];

	(void)state;
	assert_int_equal(topo_load(TREE_2S, &t), 0);
	topo_nccl_set_version(t, TOPO_NCCL_NEWEST, "test");
	tree_gpus(g);
	/* Shared switch: both socket-0 GPUs are PIX; the lower index wins. */
	assert_int_equal(pick_near(g, t, "mlx5_0"), 0);
	assert_int_equal(g[0].dist, TOPO_PIX);
	assert_int_equal(g[2].dist, TOPO_PIX);
	assert_int_equal(g[1].dist, TOPO_SYS);
	/* Nested switches on socket 1: PXB beats the other socket. */
	assert_int_equal(pick_near(g, t, "mlx5_1"), 1);
	assert_int_equal(g[1].dist, TOPO_PXB);
	assert_int_equal(g[0].dist, TOPO_SYS);
	/* An HCA on its own root port: PHB at best (worse than PXB). */
	assert_int_equal(pick_near(g, t, "mlx5_2"), 1);
	assert_int_equal(g[1].dist, TOPO_PHB);
	/* Another host bridge of socket 0: NODE. */
	assert_int_equal(pick_near(g, t, "mlx5_3"), 0);
	assert_int_equal(g[0].dist, TOPO_NODE);
	/* An HCA the tree does not have (rxe): distance unknown, GPU 0. */
	assert_int_equal(pick_near(g, t, "rxe0"), 0);
	assert_int_equal(g[0].dist, TOPO_UNKNOWN);
	/* The HCA nearest a chosen GPU. */
	assert_int_equal(gdr_nearest_hca(t, "0000:86:00.0", hca, sizeof(hca)), 0);
	assert_string_equal(hca, "mlx5_1");
	assert_int_equal(gdr_nearest_hca(t, "0000:3d:00.0", hca, sizeof(hca)), 0);
	assert_string_equal(hca, "mlx5_0");
	assert_int_equal(gdr_nearest_hca(t, "0000:af:00.0", hca, sizeof(hca)), -ENOENT);
	assert_int_equal(gdr_nearest_hca(NULL, "0000:86:00.0", hca, sizeof(hca)), -ENOENT);
	topo_free(t);

	assert_int_equal(topo_load(TREE_NP, &t), 0);
	tree_gpus(g);
	assert_int_equal(pick_near(g, t, "mlx5_0"), 0);
	assert_int_equal(g[0].dist, TOPO_PHB);
	assert_int_equal(g[1].dist, TOPO_UNKNOWN); /* not in this tree */
	topo_free(t);
}

static void test_peermem_probe(void **state)
{
	char seen[256] = "";

	(void)state;
	assert_int_equal(gdr_peermem_loaded(TREE_2S, seen, sizeof(seen)), 1);
	assert_non_null(strstr(seen, "module/nvidia_peermem"));
	seen[0] = 0;
	assert_int_equal(gdr_peermem_loaded(TREE_NP, seen, sizeof(seen)), 0);
	assert_string_equal(seen, "");
}

struct reg_case {
	const char *name;
	struct gdr_reg_inputs in;
	int ret;
	enum gdr_reg_method first, second;
	const char *msg; /* must appear in plan.msg */
};

static void test_reg_decide(void **state)
{
	/* Inputs as recorded on: an H100 node with open modules and
	 * mlx5 (driver 12.4), an A100 with proprietary modules (no dma-buf
	 * attribute), an old 11.4 driver, a kernel without dma-buf MRs. */
	static const struct reg_case cases[] = {
		{ "h100 open modules, peermem too",
		  { GDR_MODE_AUTO, 12040, 1, 1, 1, 1 }, 0, GDR_REG_DMABUF, GDR_REG_PEERMEM,
		  "dma-buf" },
		{ "h100 open modules, no peermem",
		  { GDR_MODE_AUTO, 12040, 1, 1, 1, 0 }, 0, GDR_REG_DMABUF, GDR_REG_NONE,
		  "dma-buf" },
		{ "verbs not probed yet",
		  { GDR_MODE_AUTO, 12040, 1, 1, -1, 0 }, 0, GDR_REG_DMABUF, GDR_REG_NONE,
		  "dma-buf" },
		{ "a100 proprietary modules, peermem",
		  { GDR_MODE_AUTO, 12020, 1, 0, 1, 1 }, 0, GDR_REG_PEERMEM, GDR_REG_NONE,
		  "does not report dma-buf" },
		{ "driver 11.4, peermem",
		  { GDR_MODE_AUTO, 11040, 0, 0, 1, 1 }, 0, GDR_REG_PEERMEM, GDR_REG_NONE,
		  "(11.4) has no cuMemGetHandleForAddressRange" },
		{ "kernel without dma-buf, no peermem",
		  { GDR_MODE_AUTO, 12040, 1, 1, 0, 0 }, -EOPNOTSUPP, GDR_REG_NONE,
		  GDR_REG_NONE, "modprobe nvidia-peermem" },
		{ "proprietary modules, no peermem",
		  { GDR_MODE_AUTO, 12020, 1, 0, 1, 0 }, -EOPNOTSUPP, GDR_REG_NONE,
		  GDR_REG_NONE, "neither dma-buf nor peermem" },
		{ "--gdr dmabuf on a kernel without it",
		  { GDR_MODE_DMABUF, 12040, 1, 1, 0, 1 }, -EOPNOTSUPP, GDR_REG_NONE,
		  GDR_REG_NONE, "or --gdr peermem (nvidia_peermem is loaded)" },
		{ "--gdr dmabuf where it works: no fallback",
		  { GDR_MODE_DMABUF, 12040, 1, 1, 1, 1 }, 0, GDR_REG_DMABUF, GDR_REG_NONE,
		  "--gdr dmabuf" },
		{ "--gdr peermem without the module",
		  { GDR_MODE_PEERMEM, 12040, 1, 1, 1, 0 }, -EOPNOTSUPP, GDR_REG_NONE,
		  GDR_REG_NONE, "modprobe nvidia-peermem, or use --gdr dmabuf" },
		{ "rdma-core older than 34 (no ibv_reg_dmabuf_mr), peermem",
		  { GDR_MODE_AUTO, 12040, 1, 1, -2, 1 }, 0, GDR_REG_PEERMEM, GDR_REG_NONE,
		  "rdma-core older than 34" },
		{ "rdma-core older than 34, no peermem",
		  { GDR_MODE_AUTO, 12040, 1, 1, -2, 0 }, -EOPNOTSUPP, GDR_REG_NONE,
		  GDR_REG_NONE, "libibverbs has no ibv_reg_dmabuf_mr" },
		{ "--gdr peermem with the module",
		  { GDR_MODE_PEERMEM, 12040, 1, 1, 1, 1 }, 0, GDR_REG_PEERMEM, GDR_REG_NONE,
		  "--gdr peermem" },
	};
	struct gdr_reg_plan plan;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct reg_case *c = &cases[i];
		int ret = gdr_reg_decide(&c->in, &plan);

		if (ret != c->ret || plan.first != c->first || plan.second != c->second ||
		    !strstr(plan.msg, c->msg))
			fail_msg("case '%s': ret %d first %s second %s msg '%s'", c->name, ret,
				 gdr_method_name(plan.first), gdr_method_name(plan.second),
				 plan.msg);
	}
}

/* The flush before a validation check, per attribute set (cuda.h:
 * CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS bit 1 = HOST,
 * ..._WRITES_ORDERING 0 NONE / 100 OWNER / 200 ALL_DEVICES; NCCL's
 * ncclTopoNeedFlush in src/graph/paths.cc for the C2C case). */
static void test_flush_decide(void **state)
{
	static const struct {
		struct gdr_flush_in in;
		enum gdr_flush_how want;
		const char *why;
	} cases[] = {
		{ { 1, 1, 0, 0 }, GDR_FLUSH_CUDA, "FLUSH_WRITES_OPTIONS has HOST" },
		{ { 1, 0, 0, 0 }, GDR_FLUSH_LOOPBACK, "does not support cuFlush" },
		{ { 1, -1, -1, 0 }, GDR_FLUSH_LOOPBACK, "does not support cuFlush" },
		{ { 0, 1, 0, 0 }, GDR_FLUSH_LOOPBACK, "no cuFlushGPUDirectRDMAWrites (CUDA 11.3+)" },
		{ { 1, 1, 100, 0 }, GDR_FLUSH_NONE, "OWNER" },
		{ { 0, -1, 200, 0 }, GDR_FLUSH_NONE, "OWNER" },
		{ { 1, 1, 100, 1 }, GDR_FLUSH_LOOPBACK, "C2C" },
		{ { 1, 1, 0, 1 }, GDR_FLUSH_LOOPBACK, "ncclTopoNeedFlush" },
	};
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum gdr_flush_how h = gdr_flush_decide(&cases[i].in, why, sizeof(why));

		if (h != cases[i].want || !strstr(why, cases[i].why))
			fail_msg("case %zu: %s (%s)", i, gdr_flush_name(h), why);
	}
	assert_string_equal(gdr_flush_name(GDR_FLUSH_NONE), "none");
}

static void test_pattern(void **state)
{
	uint8_t a[10000], b[10000];

	(void)state;
	gdr_pattern_fill(a, 0, sizeof(a), 42);
	assert_int_equal(gdr_pattern_check(a, 0, sizeof(a), 42), -1);
	/* A slice filled at its own offset equals the slice of the whole. */
	gdr_pattern_fill(b, 1237, 5003, 42);
	assert_memory_equal(b, a + 1237, 5003);
	assert_int_equal(gdr_pattern_check(a + 1237, 1237, 5003, 42), -1);
	/* Data at the wrong offset is caught (a shifted buffer). */
	assert_int_not_equal(gdr_pattern_check(a + 8, 0, 4096, 42), -1);
	/* Another seed, another pattern. */
	assert_int_equal(gdr_pattern_check(a, 0, sizeof(a), 43), 0);
	a[9001] ^= 1;
	assert_int_equal(gdr_pattern_check(a, 0, sizeof(a), 42), 9001);
	assert_int_equal(gdr_pattern_check(a + 5000, 5000, 5000, 42), 9001);
	/* Not a constant or a repeating byte. */
	assert_true(a[0] != a[1] || a[1] != a[2] || a[2] != a[3]);
}

static void test_host_backend(void **state)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct gdr_dev dev;
	struct gdr_mem m;
	uint64_t bad = 0;
	char desc[32];
	int lvl = fc_log_level;

	(void)state;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	assert_int_equal(gdr_mem_alloc(&dev, &m, (1 << 20) + 3), 0);
	assert_int_equal((uintptr_t)m.base % pg, 0);
	assert_int_equal(m.alloc_len % pg, 0);
	assert_true(m.alloc_len >= m.len && m.alloc_len / pg > 256);
	assert_true(m.iova == (uint64_t)(uintptr_t)m.base);
	assert_string_equal(gdr_mem_describe(&m, desc, sizeof(desc)), "host");
	assert_int_equal(gdr_mem_fill(&m, 100, 500000, 7), 0);
	assert_int_equal(gdr_mem_verify(&m, 100, 500000, 7, &bad), 0);
	assert_int_equal(gdr_mem_verify(&m, 100, 500000, 8, &bad), 1);
	((uint8_t *)m.base)[123457] ^= 0xff;
	assert_int_equal(gdr_mem_verify(&m, 100, 500000, 7, &bad), 1);
	assert_int_equal(bad, 123457);
	/* The end of the buffer, then past it. */
	assert_int_equal(gdr_mem_fill(&m, m.len - 10, 10, 1), 0);
	assert_int_equal(gdr_mem_verify(&m, m.len - 10, 10, 1, &bad), 0);
	fc_log_level = -1;
	assert_int_equal(gdr_mem_fill(&m, m.len - 10, 11, 1), -ERANGE);
	assert_int_equal(gdr_mem_verify(&m, m.len + 1, 1, 1, &bad), -ERANGE);
	fc_log_level = lvl;
	gdr_mem_free(&m);
	assert_int_equal(gdr_mem_alloc(&dev, &m, 1), 0);
	assert_int_equal(m.alloc_len, pg);
	gdr_mem_free(&m);
	gdr_dev_close(&dev);
}

/* Issue 39 item 5: the range refusals whole, on a host buffer of
 * 1048579 bytes (1 MiB + 3): 11 bytes from 10 before its end, 9 bytes
 * from 4 before it, 3 slots of 4096 B from 1048000. */
static char range_said[512];

static void range_keep(enum fc_log_level lvl, const char *msg)
{
	(void)lvl;
	snprintf(range_said, sizeof(range_said), "%s", msg);
}

static void test_range_refusals(void **state)
{
	struct gdr_dev dev;
	struct gdr_mem m;

	(void)state;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	assert_int_equal(gdr_mem_alloc(&dev, &m, (1 << 20) + 3), 0);
	fc_log_hook = range_keep;
	assert_int_equal(gdr_mem_fill(&m, m.len - 10, 11, 1), -ERANGE);
	assert_string_equal(range_said, "range 1048569+11 is outside the 1048579-byte buffer");
	assert_int_equal(gdr_mem_poison_at(&m, (uint8_t *)m.base + m.len - 4, 9), -ERANGE);
	assert_string_equal(range_said, "--validate: cannot poison bytes 1048575+9 of the 1048579-byte buffer");
	assert_int_equal(gdr_mem_fill_msgs(&m, 1048000, 4096, 3, 0, 4096, 7, 0, 0), -ERANGE);
	assert_string_equal(range_said, "--validate: slots 1048000+12288 are outside the 1048579-byte buffer");
	fc_log_hook = NULL;
	gdr_mem_free(&m);
	gdr_dev_close(&dev);
}

static void test_slots(void **state)
{
	const uint64_t stride = 8192, half = 8 * stride;
	struct fc_vmsg_id id = { .tag = 77, .seq = 5, .slot = 1, .len = 5000 };
	struct fc_vmsg_bad bad;
	struct gdr_dev dev;
	struct gdr_mem m;
	uint8_t *tx, *rx, img[5000];
	int64_t first;
	int lvl = fc_log_level;

	(void)state;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	assert_int_equal(gdr_mem_alloc(&dev, &m, 2 * half), 0);
	tx = m.base;
	rx = tx + half;
	/* Source: slot j holds message j % 4 for slot j; the rx half poisoned. */
	assert_int_equal(gdr_mem_fill_msgs(&m, 0, stride, 8, 4, 5000, 77, half, half), 0);
	assert_int_equal(fc_vmsg_check(tx + 5 * stride, 5000, &id, UINT32_MAX, &bad), FC_VMSG_SLOT);
	id.seq = 1;
	id.slot = 5;
	assert_int_equal(fc_vmsg_check(tx + 5 * stride, 5000, &id, UINT32_MAX, &bad), FC_VMSG_OK);
	/* Nothing arrived: every header still poisoned. */
	assert_int_equal(gdr_mem_stray(&m, half, stride, 8, FC_VMSG_HDR, &first), 0);
	assert_int_equal(first, -1);
	/* A message read back, its header poisoned after its check. */
	memcpy(rx + 3 * stride, tx + 3 * stride, 5000);
	assert_int_equal(gdr_mem_stray(&m, half, stride, 8, FC_VMSG_HDR, &first), 1);
	assert_int_equal(first, 3);
	assert_int_equal(gdr_mem_read_at(&m, rx + 3 * stride, 5000, img), 0);
	assert_memory_equal(img, tx + 3 * stride, 5000);
	assert_int_equal(gdr_mem_poison_at(&m, rx + 3 * stride, FC_VMSG_HDR), 0);
	assert_int_equal(gdr_mem_stray(&m, half, stride, 8, FC_VMSG_HDR, &first), 0);
	/* Past the buffer. */
	fc_log_level = -1;
	assert_int_equal(gdr_mem_read_at(&m, rx + half - 10, 11, img), -ERANGE);
	/* a whole message may be poisoned (GPU memory), not past the buffer */
	assert_int_equal(gdr_mem_poison_at(&m, rx + 3 * stride, 65), 0);
	assert_int_equal(gdr_mem_poison_at(&m, rx + half - 10, 11), -ERANGE);
	assert_int_equal(gdr_mem_stray(&m, half, stride, 9, FC_VMSG_HDR, &first), -ERANGE);
	fc_log_level = lvl;
	assert_true(gdr_mem_host_accessible(&m));
	gdr_mem_free(&m);
	gdr_dev_close(&dev);
}

/* The findings of a sink's validate result: each way a run must fail. */
static const char *vfind(const char *extra, int *n_p)
{
	static char last[1024];
	json_t *doc = json_pack("{s:s, s:[]}", "verdict", "pass", "findings");
	json_t *v = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "memory", "host",
			      "slots", 16, "slots_due", 16, "slots_checked", 16, "messages_validated",
			      40, "messages_bad", 0, "sent", 40, "stray", 0);
	json_t *x = json_loads(extra, 0, NULL);

	assert_non_null(x);
	json_object_update(v, x);
	gdr_validate_findings(doc, "nodeB", "write", 4096, v);
	*n_p = (int)json_array_size(json_object_get(doc, "findings"));
	snprintf(last, sizeof(last), "%s %s", json_string_value(json_object_get(doc, "verdict")),
		 *n_p ? json_string_value(json_array_get(json_object_get(doc, "findings"), 0)) : "");
	json_decref(x);
	json_decref(v);
	json_decref(doc);
	return last;
}

/* A worker's GPU bus id is a PCI address (core/names.h) before it is
 * part of a finding: a crafted one is shown as '?'. */
static void test_side_bus_id(void **state)
{
	json_t *doc = json_pack("{s:[]}", "findings");
	json_t *side = json_pack("{s:s, s:i, s:s, s:s, s:s}", "node", "nodeA", "gpu", 0,
				 "gpu_distance", "SYS", "device", "mlx5_0", "gpu_bus_id",
				 "0000:17:00.0;reboot");
	const char *f;

	(void)state;
	gdr_side_findings(doc, side);
	f = json_string_value(json_array_get(json_object_get(doc, "findings"), 0));
	assert_non_null(f);
	assert_null(strstr(f, "reboot"));
	assert_non_null(strstr(f, "nodeA: GPU 0 (?) is SYS from mlx5_0"));
	json_object_set_new(side, "gpu_bus_id", json_string("00000000:17:00.0"));
	gdr_side_findings(doc, side);
	f = json_string_value(json_array_get(json_object_get(doc, "findings"), 1));
	assert_non_null(strstr(f, "nodeA: GPU 0 (00000000:17:00.0) is SYS"));
	json_decref(side);
	json_decref(doc);
}

static void test_validate_findings(void **state)
{
	int n;

	(void)state;
	assert_string_equal(vfind("{}", &n), "pass ");
	assert_int_equal(n, 0);
	assert_non_null(strstr(vfind("{\"messages_validated\": 39, \"messages_bad\": 1, \"problem\": \"duplicate\", \"bad_slot\": 3, \"why\": \"QP 0, message 3 for slot 3 (4096 B): duplicate: message 2 arrived again\"}", &n),
			       "fail nodeB: --validate: write of 4096 B: 1 of 40 messages failed (host memory); the first, in slot 3, the duplicate check: QP 0, message 3"));
	assert_non_null(strstr(vfind("{\"messages_validated\": 38}", &n),
			       "fail nodeB: --validate: write of 4096 B: 38 of 40 messages were checked"));
	assert_non_null(strstr(vfind("{\"messages_validated\": 0, \"sent\": 0}", &n),
			       "0 of 0 messages were checked"));
	assert_non_null(strstr(vfind("{\"slots_checked\": 15}", &n),
			       "a good message was checked in 15 of the 16 slots"));
	assert_non_null(strstr(vfind("{\"stray\": 2, \"stray_slot\": 7}", &n),
			       "2 slots (the first: 7) were written after their message was checked"));
	assert_int_equal(n, 1);
}

static void test_opts_wire(void **state)
{
	struct gdr_opts o = { 0 }, back;
	char why[128];
	json_t *j;

	(void)state;
	/* Host memory by default. */
	j = gdr_opts_json(&o);
	assert_string_equal(json_string_value(json_object_get(j, "memory")), "host");
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.kind, GDR_HOST);
	json_decref(j);
	/* --use-cuda=0000:86:00.0 --gdr peermem --validate */
	assert_int_equal(gdr_opts_use_cuda(&o, "0000:86:00.0"), 0);
	o.mode = GDR_MODE_PEERMEM;
	o.validate = 1;
	j = gdr_opts_json(&o);
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.kind, GDR_CUDA);
	assert_int_equal(back.req.how, GDR_GPU_BUS);
	assert_string_equal(back.req.bus_id, "0000:86:00.0");
	assert_int_equal(back.mode, GDR_MODE_PEERMEM);
	assert_int_equal(back.validate, 1);
	json_decref(j);
	/* --use-cuda=2 and --use-cuda alone. */
	assert_int_equal(gdr_opts_use_cuda(&o, "2"), 0);
	j = gdr_opts_json(&o);
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.req.how, GDR_GPU_INDEX);
	assert_int_equal(back.req.index, 2);
	json_decref(j);
	assert_int_equal(gdr_opts_use_cuda(&o, NULL), 0);
	j = gdr_opts_json(&o);
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.req.how, GDR_GPU_NEAREST);
	json_decref(j);
	/* What a worker must refuse. */
	j = json_pack("{s:s}", "memory", "rocm");
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "\"memory\""));
	json_decref(j);
	j = json_pack("{s:s, s:s}", "memory", "cuda", "gpu", "0000:zz:00.0");
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), -EPROTO);
	json_decref(j);
	j = json_pack("{s:s, s:i}", "memory", "cuda", "gpu", -1);
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), -EPROTO);
	json_decref(j);
	j = json_pack("{s:s, s:s}", "memory", "host", "gdr", "magic");
	assert_int_equal(gdr_opts_from_json(j, &back, why, sizeof(why)), -EPROTO);
	json_decref(j);
}

static void test_report(void **state)
{
	struct gdr_dev dev = { .kind = GDR_CUDA, .gpu = { .index = 1, .name = "H100",
							   .bus_id = "0000:86:00.0",
							   .dist = TOPO_PHB } };
	struct gdr_mem m = { .dev = &dev, .method = GDR_REG_DMABUF };
	json_t *side = json_object(), *doc = json_pack("{s:s, s:[]}", "verdict", "pass",
						       "findings");

	(void)state;
	gdr_mem_report(side, &m, "mlx5_2");
	assert_string_equal(json_string_value(json_object_get(side, "memory")),
			    "cuda:1 (dmabuf)");
	assert_string_equal(json_string_value(json_object_get(side, "gpu_bus_id")),
			    "0000:86:00.0");
	assert_string_equal(json_string_value(json_object_get(side, "gpu_distance")), "PHB");
	gdr_mem_findings(doc, "nodeB", &m, "mlx5_2");
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "warn");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			       "nodeB: GPU 1 (0000:86:00.0) is PHB from mlx5_2, worse than PXB"));
	/* SYS: a finding of its own, the inter-socket link named. */
	json_array_clear(json_object_get(doc, "findings"));
	dev.gpu.dist = TOPO_SYS;
	gdr_mem_findings(doc, "nodeB", &m, "mlx5_2");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			       "nodeB: GPU 1 (0000:86:00.0) is SYS from mlx5_2: they sit on different sockets"));
	assert_null(strstr(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			   "worse than PXB"));
	/* PXB and better: no finding. */
	json_array_clear(json_object_get(doc, "findings"));
	dev.gpu.dist = TOPO_PXB;
	gdr_mem_findings(doc, "nodeB", &m, "mlx5_2");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	m.method = GDR_REG_PEERMEM;
	json_object_clear(side);
	gdr_mem_report(side, &m, NULL);
	assert_string_equal(json_string_value(json_object_get(side, "memory")),
			    "cuda:1 (peermem)");
	json_decref(side);
	json_decref(doc);
}

/* A backend whose registrations fail as an HCA refuses them, to check
 * what is reported (no verbs call is made). */
static int refuse_mask; /* bit per method that is refused */

static int refusing_reg(struct gdr_mem *m, struct ibv_pd *pd, int access,
			enum gdr_reg_method method, char *why, size_t whylen)
{
	(void)m;
	(void)pd;
	(void)access;
	if (!(refuse_mask & (1 << method)))
		return 0;
	snprintf(why, whylen, "ibv_reg_%s of 4096 bytes: Bad address",
		 method == GDR_REG_DMABUF ? "dmabuf_mr" : "mr");
	return -EFAULT;
}

/* Runs gdr_mem_reg_plan with stderr captured into @out. */
static int reg_captured(struct gdr_mem *m, const struct gdr_reg_plan *plan, char *out,
			size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = gdr_mem_reg_plan(m, NULL, 0, plan, "nodeB", "mlx5_1");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = 0;
	fclose(tmp);
	return ret;
}

static void test_reg_refused(void **state)
{
	struct gdr_ops ops = gdr_host_ops;
	struct gdr_reg_plan plan = { .first = GDR_REG_DMABUF, .second = GDR_REG_PEERMEM };
	struct gdr_dev dev = { .kind = GDR_CUDA, .ops = &ops, .gpu = { .index = 1 } };
	struct gdr_mem m = { .dev = &dev, .len = 4096, .dmabuf_fd = -1 };
	char log[2048];

	(void)state;
	ops.reg = refusing_reg;
	/* dma-buf refused, peermem works: a warning, then peermem. */
	refuse_mask = 1 << GDR_REG_DMABUF;
	assert_int_equal(reg_captured(&m, &plan, log, sizeof(log)), 0);
	assert_int_equal(m.method, GDR_REG_PEERMEM);
	assert_non_null(strstr(log, "node nodeB, device mlx5_1: dmabuf registration refused"));
	assert_non_null(strstr(log, "trying peermem"));
	/* Both refused: one error naming node, device, call, errno and fix. */
	refuse_mask = (1 << GDR_REG_DMABUF) | (1 << GDR_REG_PEERMEM);
	m.method = GDR_REG_NONE;
	assert_int_equal(reg_captured(&m, &plan, log, sizeof(log)), -EFAULT);
	assert_int_equal(m.method, GDR_REG_NONE);
	assert_non_null(strstr(log, "error: node nodeB, device mlx5_1: registration refused: ibv_reg_mr of 4096 bytes: Bad address (errno 14); fix: check that nvidia_peermem matches"));
	/* --gdr dmabuf: no second try. */
	plan.second = GDR_REG_NONE;
	assert_int_equal(reg_captured(&m, &plan, log, sizeof(log)), -EFAULT);
	assert_null(strstr(log, "trying"));
	assert_non_null(strstr(log, "ibv_reg_dmabuf_mr of 4096 bytes: Bad address (errno 14); fix: check that the HCA driver takes dma-buf"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_spec),
		cmocka_unit_test(test_gdr_mode),
		cmocka_unit_test(test_gpu_pick),
		cmocka_unit_test(test_choice_on_tree),
		cmocka_unit_test(test_peermem_probe),
		cmocka_unit_test(test_reg_decide),
		cmocka_unit_test(test_flush_decide),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_host_backend),
		cmocka_unit_test(test_range_refusals),
		cmocka_unit_test(test_reg_refused),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_opts_wire),
		cmocka_unit_test(test_side_bus_id),
		cmocka_unit_test(test_validate_findings),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
