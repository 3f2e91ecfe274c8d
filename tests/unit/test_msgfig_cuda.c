/*
 * Issue 39 item 5, gdr/cuda.c: GPU memory's registration with an HCA, on
 * the stand-in CUDA driver (tests/gdr/fakecuda.c, built for the unit tests
 * as build/tests/libfakecuda-unit.so, loaded through FABCHECK_LIBCUDA) and
 * the fake libibverbs of fake_verbs.h. 5 MiB + 3 bytes of GPU 1's memory
 * (5242883: the size as asked, not a page-rounded one), each registration
 * refused in its own way, the sentence checked whole:
 *   peermem: ibv_reg_mr refused (ENOMEM);
 *   dma-buf: the driver refuses the export (FAKECUDA=noexport);
 *   SYNC_MEMOPS refused by the driver (FAKECUDA=nosyncops): a warning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fake_verbs.h"

#include "core/log.h"
#include "gdr/gdr.h"

static char logged[4096];

static void keep(enum fc_log_level lvl, const char *msg)
{
	size_t n = strlen(logged);

	if (lvl <= FC_LOG_WARN && n < sizeof(logged))
		snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

/* GPU 1 of the stand-in's 2 in FAKECUDA mode @mode, 5 MiB + 3 bytes of its
 * memory in @m, registered by @method alone; the registration's result. */
static int reg_alone(struct gdr_dev *dev, struct gdr_mem *m, const char *mode,
		     enum gdr_reg_method method)
{
	struct gdr_gpu_req req = { .how = GDR_GPU_INDEX, .index = 1 };
	struct gdr_reg_plan plan = { .first = method, .second = GDR_REG_NONE };
	struct ibv_pd pd = { 0 };

	setenv("FAKECUDA", mode, 1);
	logged[0] = '\0';
	fc_log_hook = keep;
	assert_int_equal(gdr_dev_open(dev, GDR_CUDA, GDR_MODE_AUTO, &req, NULL, NULL), 0);
	assert_int_equal(gdr_mem_alloc(dev, m, (5u << 20) + 3), 0);
	return gdr_mem_reg_plan(m, &pd, IBV_ACCESS_LOCAL_WRITE, &plan, "nodeB", "mlx5_3");
}

static void done(struct gdr_dev *dev, struct gdr_mem *m)
{
	fc_log_hook = NULL;
	gdr_mem_dereg(m);
	gdr_mem_free(m);
	gdr_dev_close(dev);
}

static void logged_has(const char *want)
{
	if (!strstr(logged, want))
		fail_msg("not logged: %s\nlogged:\n%s", want, logged);
}

static void test_peermem_refused(void **state)
{
	struct gdr_dev dev;
	struct gdr_mem m;

	(void)state;
	fv_roomy("mlx5_3");
	fv.fail_mr = 1;
	assert_int_equal(reg_alone(&dev, &m, "", GDR_REG_PEERMEM), -ENOMEM);
	logged_has("ibv_reg_mr of 5242883 bytes of GPU 1 memory (peermem): Cannot allocate memory");
	done(&dev, &m);
	fv.fail_mr = 0;
}

static void test_export_refused(void **state)
{
	struct gdr_dev dev;
	struct gdr_mem m;

	(void)state;
	fv_roomy("mlx5_3");
	assert_true(reg_alone(&dev, &m, "noexport", GDR_REG_DMABUF) < 0);
	logged_has("cuMemGetHandleForAddressRange on GPU 1 refused the export");
	done(&dev, &m);
}

static void test_syncops_refused(void **state)
{
	struct gdr_dev dev;
	struct gdr_mem m;

	(void)state;
	fv_roomy("mlx5_3");
	fv.fail_mr = 1;
	reg_alone(&dev, &m, "nosyncops", GDR_REG_PEERMEM);
	logged_has("GPU 1: cannot set SYNC_MEMOPS on the buffer\n");
	done(&dev, &m);
	fv.fail_mr = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peermem_refused),
		cmocka_unit_test(test_export_refused),
		cmocka_unit_test(test_syncops_refused),
	};

	setenv("FABCHECK_LIBCUDA", "build/tests/libfakecuda-unit.so", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
