/* NUMA locality: sysfs CPU lists, and the finding when HCA, buffer and CPUs differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "gdr/numa.h"

#include "tests/unit/finding.h"

#define UNUSED __attribute__((unused))

static void test_cpulist(void **state UNUSED)
{
	cpu_set_t s;

	assert_int_equal(gdr_cpulist_parse("0-3,8,10-11\n", &s), 7);
	assert_true(CPU_ISSET(0, &s) && CPU_ISSET(3, &s) && CPU_ISSET(8, &s) && CPU_ISSET(11, &s));
	assert_false(CPU_ISSET(4, &s) || CPU_ISSET(9, &s));
	assert_int_equal(fc_cpu_nth(&s, 0), 0);
	assert_int_equal(fc_cpu_nth(&s, 4), 8);
	assert_int_equal(fc_cpu_nth(&s, 7), 0); /* wraps */
	assert_int_equal(gdr_cpulist_parse("5", &s), 1);
	assert_int_equal(gdr_cpulist_parse("", &s), -EINVAL);
	assert_int_equal(gdr_cpulist_parse("3-1", &s), -EINVAL);
	assert_int_equal(gdr_cpulist_parse("0-x", &s), -EINVAL);
	assert_int_equal(gdr_cpulist_parse("1;2", &s), -EINVAL);
	CPU_ZERO(&s);
	assert_int_equal(fc_cpu_nth(&s, 0), -1);
}

static void test_findings(void **state UNUSED)
{
	json_t *doc = fc_doc_new();
	json_t *local = json_pack("{s:s, s:s, s:{s:i, s:i, s:i}}", "node", "n1", "device", "mlx5_0",
				  "numa", "hca", 1, "buffer", 1, "cpus", 1);
	json_t *far = json_pack("{s:s, s:s, s:{s:i, s:i, s:i, s:i}}", "node", "n2", "device",
				"mlx5_3", "numa", "hca", 1, "buffer", 0, "cpus", 0, "gpu", 0);
	json_t *rxe = json_pack("{s:s, s:s, s:{s:n, s:i, s:i}}", "node", "n3", "device", "rxe0",
				"numa", "hca", "buffer", 0, "cpus", 0);

	gdr_numa_findings(doc, local);
	gdr_numa_findings(doc, rxe);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	gdr_numa_findings(doc, far);
	assert_int_equal(findings_with(doc, "n2: the buffer is on NUMA node 0, mlx5_3 on node 1"), 1);
	assert_int_equal(findings_with(doc, "n2: the worker's CPUs are on NUMA node 0"), 1);
	assert_int_equal(findings_with(doc, "n2: the GPU is on NUMA node 0"), 1);
	assert_int_equal(fc_doc_verdict(doc), FC_WARN);
	json_decref(local);
	json_decref(far);
	json_decref(rxe);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
