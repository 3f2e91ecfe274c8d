/*
 * Issue 39 item 5 for gdr/: messages with figures fed figures known
 * beforehand, distinct where two could be swapped, and checked whole.
 *   gdr/numa.c: a side whose CPUs are on node 0, GPU on node 3 and HCA on
 *   node 1; the setup on a sysfs tree written here (an HCA on node 9, which
 *   this host does not have; an HCA whose local CPUs 1000-1001 it has not);
 *   gdr/opts.c: GPU 2 whose path to mlx5_3 is unknown;
 *   gdr/mem.c: 5 MiB + 1 byte in huge pages where none are reserved (3
 *   pages of 2 MiB), 2^60 bytes of host memory, a buffer placed on node 9,
 *   and 5 MiB + 3 bytes refused by the HCA (tests/unit/fake_verbs.h);
 *   gdr/cmd_gpu_check.c: the copy rates of a document, Gb/s and GB/s;
 *   gdr/cuda.c: a staging buffer of 2^60 bytes in host memory.
 * The messages that go to the log are caught through fc_log_hook.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/fake_verbs.h"

#include "core/log.h"
#include "core/out.h"
#include "tests/unit/memtext.h"
#include "tests/unit/msgfig.h"
#include "gdr/gdr.h"
#include "gdr/numa.h"

static char logged[8192];

static void keep(enum fc_log_level lvl, const char *msg)
{
	size_t n = strlen(logged);

	(void)lvl;
	snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

/* @want was logged as a line of its own; else fails showing the log. */
static void logged_line(const char *want)
{
	char line[2048];

	snprintf(line, sizeof(line), "%s\n", want);
	if (!strstr(logged, line))
		fail_msg("not logged: %s\nlogged:\n%s", want, logged);
}

static int setup(void **state)
{
	(void)state;
	logged[0] = '\0';
	fc_log_hook = keep;
	return 0;
}

static void test_numa_findings(void **state)
{
	json_t *doc = fc_doc_new();
	json_t *side = json_pack("{s:s, s:s, s:{s:i, s:i, s:i, s:i}}", "node", "nodeB", "device",
				 "mlx5_3", "numa", "hca", 1, "buffer", 1, "cpus", 0, "gpu", 3);

	(void)state;
	gdr_numa_findings(doc, side);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 2);
	assert_true(has_finding(doc, "nodeB: the worker's CPUs are on NUMA node 0, mlx5_3 on node 1: run it on the HCA's CPUs (its cpuset or taskset may forbid them)"));
	assert_true(has_finding(doc, "nodeB: the GPU is on NUMA node 3, mlx5_3 on node 1: GPUDirect traffic crosses the socket link; use the HCA nearest the GPU (-d, or --use-cuda without -d)"));
	json_decref(side);
	json_decref(doc);
}

static void test_gpu_path_unknown(void **state)
{
	struct gdr_gpu_info g = { .index = 2, .bus_id = "0000:86:00.0", .dist = TOPO_UNKNOWN };
	json_t *doc = fc_doc_new();

	(void)state;
	gdr_gpu_findings(doc, "nodeB", &g, "mlx5_3");
	assert_true(has_finding(doc, "nodeB: the PCIe path from GPU 2 (0000:86:00.0) to mlx5_3 is unknown: check that the HCA is a PCI device and /sys is readable"));
	json_decref(doc);
}

/* @root/class/infiniband/@dev/device/ with numa_node @node and, unless
 * NULL, local_cpulist @cpus. */
static void write_hca(const char *root, const char *dev, const char *node, const char *cpus)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/class/infiniband/%s/device", root, dev);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/numa_node", root, dev);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", node);
	fclose(f);
	if (!cpus)
		return;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/local_cpulist", root, dev);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", cpus);
	fclose(f);
}

static void test_numa_setup(void **state)
{
	char root[] = "/tmp/fabcheck-msgfig-gdr.XXXXXX", cmd[64];
	struct gdr_numa n;

	(void)state;
	if (numa_available() < 0 || numa_max_node() >= 9 || sysconf(_SC_NPROCESSORS_CONF) > 1000)
		skip(); /* the figures below are of nodes and CPUs this host must lack */
	assert_non_null(mkdtemp(root));
	write_hca(root, "mlx5_7", "9", NULL);
	write_hca(root, "mlx5_6", "6", "1000-1001");
	setenv("FABCHECK_SYSFS", root, 1);
	gdr_numa_setup(&n, "mlx5_7", NULL);
	assert_string_equal(n.why, "node 9 has no CPUs: threads not pinned");
	assert_int_equal(n.pinned, 0);
	gdr_numa_setup(&n, "mlx5_6", NULL);
	assert_string_equal(n.why, "cannot pin to the CPUs of node 6: Invalid argument");
	assert_int_equal(n.pinned, 0);
	unsetenv("FABCHECK_SYSFS");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* Hugepagesize of /proc/meminfo in KiB; 0 if not said. */
static size_t huge_kib(void)
{
	char line[128];
	size_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f) && sscanf(line, "Hugepagesize: %zu kB", &kb) != 1)
		;
	if (f)
		fclose(f);
	return kb;
}

static void test_host_alloc(void **state)
{
	size_t kib = huge_kib(), len = (5u << 20) + 1;
	struct gdr_dev dev;
	struct gdr_mem m;
	char want[512];

	(void)state;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	/* 2^60 bytes: no host lends that */
	assert_int_equal(gdr_mem_alloc(&dev, &m, (size_t)1 << 60), -ENOMEM);
	/* mmap's errno after it: ENOMEM from the kernel, EINVAL under valgrind */
	if (!strstr(logged, "cannot allocate 1152921504606846976 bytes of host memory: "))
		fail_msg("not logged: the 2^60 bytes; logged:\n%s", logged);
	/* node 9 is not this host's: placed where the kernel puts it, said */
	if (numa_available() >= 0 && numa_max_node() < 9) {
		dev.numa_node = 9;
		assert_int_equal(gdr_mem_alloc(&dev, &m, 4096), 0);
		logged_line("cannot place the buffer on NUMA node 9: Invalid argument");
		gdr_mem_free(&m);
		dev.numa_node = -1;
	}
	/* 5 MiB + 1 in 2 MiB pages: 6 MiB mapped, 3 pages to reserve */
	dev.hugepages = 1;
	if (kib != 2048 || gdr_mem_alloc(&dev, &m, len) == 0) {
		gdr_dev_close(&dev);
		skip(); /* huge pages reserved here, or not of 2 MiB */
	}
	snprintf(want, sizeof(want),
		 "--hugepages: cannot map 6291456 bytes in 2048 KiB huge pages: %s; reserve at least 3 huge pages (echo 3 > /proc/sys/vm/nr_hugepages, or hugepages=N on the kernel command line)",
		 strerror(ENOMEM));
	logged_line(want);
	gdr_dev_close(&dev);
}

/* Host memory refused by the HCA (fake_verbs: ibv_reg_mr fails, ENOMEM). */
static void test_host_reg(void **state)
{
	struct ibv_pd pd = { 0 };
	struct gdr_dev dev;
	struct gdr_mem m;

	(void)state;
	fv_reset("mlx5_3");
	fv_port(1, IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND, 7, 1);
	fv.fail_mr = 1;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	assert_int_equal(gdr_mem_alloc(&dev, &m, (5u << 20) + 3), 0);
	assert_int_equal(gdr_mem_reg(&m, &pd, IBV_ACCESS_LOCAL_WRITE, "nodeB", "mlx5_3"), -ENOMEM);
	logged_line("node nodeB, device mlx5_3: registration refused: ibv_reg_mr of 5242883 bytes of host memory: Cannot allocate memory (errno 12); fix: raise the locked-memory limit (ulimit -l unlimited, or LimitMEMLOCK=infinity for the service)");
	gdr_mem_free(&m);
	gdr_dev_close(&dev);
}

/* Under ASan a request no host can hold returns NULL, as libc's does,
 * instead of ending the test (the staging buffer's 2^60 bytes below). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* The copies' host buffer without CUDA's pinned memory (a host device):
 * 2^60 bytes refused, the size and the system's reason said. */
static void test_staging_refused(void **state)
{
	struct gdr_dev dev;
	int pinned = 1;

	(void)state;
	assert_int_equal(gdr_dev_open(&dev, GDR_HOST, GDR_MODE_AUTO, NULL, NULL, NULL), 0);
	assert_null(gdr_staging_alloc(&dev, (size_t)1 << 60, &pinned));
	assert_int_equal(pinned, 0);
	logged_line("cannot allocate a 1152921504606846976-byte host buffer: Cannot allocate memory");
	gdr_dev_close(&dev);
}

/* gpu-check's copy rates: the document keeps Gb/s (bits), the text says
 * GB/s (bytes, an eighth) beside them; 100 and 41.6 Gb/s are 12.50 and
 * 5.20 GB/s. A pageable host buffer is said. */
static void test_copy_rates(void **state)
{
	json_t *doc = json_pack("{s:s, s:s, s:s, s:[], s:{s:i, s:s}, s:I, s:f, s:f, s:b}",
				"node", "nodeB", "driver_version", "12.4", "library", "libcuda.so.1",
				"gpus", "gpu", "index", 2, "bus_id", "0000:87:00.0", "size_bytes",
				(json_int_t)5 << 20, "h2d_gbps", 100.0, "d2h_gbps", 41.6, "pinned", 0);
	char *text = render(gdr_check_render, doc);

	(void)state;
	if (!strstr(text, "\nGPU 2 (0000:87:00.0), 5 MiB buffer:\n"
			  "  host -> GPU copy      12.50 GB/s (100.0 Gb/s)\n"
			  "  GPU -> host copy       5.20 GB/s (41.6 Gb/s) (pageable host buffer)\n"))
		fail_msg("gpu-check's copy lines:\n%s", text);
	free(text);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_numa_findings, setup),
		cmocka_unit_test_setup(test_gpu_path_unknown, setup),
		cmocka_unit_test_setup(test_numa_setup, setup),
		cmocka_unit_test_setup(test_host_alloc, setup),
		cmocka_unit_test_setup(test_host_reg, setup),
		cmocka_unit_test(test_copy_rates),
		cmocka_unit_test_setup(test_staging_refused, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
