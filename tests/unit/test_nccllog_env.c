/*
 * Unit tests of check-log's judgement of the NCCL_* settings a log echoes
 * (checks/nccl/log/nccllog_env.c, with the knowledge of `nccl env`), on small logs
 * written for the purpose under tests/data/nccl/env-*.log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "core/out.h"

#include "tests/unit/finding.h"

static json_t *report(const char *path, const json_t *topo)
{
	struct ncl_expect exp = { .topo = topo };
	struct ncl_log *lg = ncl_log_new();
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;
	json_t *doc;

	assert_non_null(lg);
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		ncl_log_feed(lg, buf, n);
	fclose(f);
	ncl_log_end_file(lg, path);
	doc = ncl_log_report(lg, &exp);
	ncl_log_free(lg);
	assert_non_null(doc);
	return doc;
}

/* The env_status entry of @name: its status, and its why in *why_p. */
static const char *status_of(const json_t *doc, const char *name, const char **why_p)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(doc, "env_status"), i, e)
		if (!strcmp(fc_jstr(e, "name", ""), name)) {
			if (why_p)
				*why_p = fc_jstr(e, "why", "");
			return fc_jstr(e, "status", "");
		}
	return "absent";
}

static void test_notes_only(void **state)
{
	json_t *doc = report("tests/data/nccl/env-notes.log", NULL);
	const char *why;

	(void)state;
	assert_string_equal(status_of(doc, "NCCL_MAX_NRINGS", &why), "deprecated");
	assert_non_null(strstr(why, "NCCL_MAX_NCHANNELS"));
	/* NCCL echoed it, so NCCL reads it: not a typo */
	assert_string_equal(status_of(doc, "NCCL_FUTURE_KNOB", &why), "unknown");
	assert_non_null(strstr(why, "this NCCL echoed it"));
	assert_string_equal(status_of(doc, "NCCL_P2P_LEVEL", NULL), "ok");
	assert_int_equal(json_array_size(json_object_get(doc, "env_status")), 3);
	/* notes, not findings: a clean IB + GPUDirect log stays a pass */
	assert_int_equal(findings_with(doc, "NCCL_"), 0);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	/* "env" keeps its shape: name -> value */
	assert_string_equal(fc_jstr(json_object_get(doc, "env"), "NCCL_MAX_NRINGS", ""), "4");
	json_decref(doc);
}

static void test_misread(void **state)
{
	json_t *doc = report("tests/data/nccl/env-misread.log", NULL);
	const char *why;

	(void)state;
	assert_string_equal(status_of(doc, "NCCL_ALGO", &why), "invalid");
	assert_non_null(strstr(why, "'Foo'"));
	assert_string_equal(status_of(doc, "NCCL_CROSS_NIC", &why), "invalid");
	assert_non_null(strstr(why, "0 to 2"));
	assert_string_equal(status_of(doc, "NCCL_IB_HCA", &why), "invalid");
	assert_non_null(strstr(why, "port number"));
	/* rejected by NCCL itself: reported once, by the existing finding */
	assert_string_equal(status_of(doc, "NCCL_IB_TIMEOUT", &why), "invalid");
	assert_int_equal(findings_with(doc, "NCCL_IB_TIMEOUT"), 1);
	assert_int_equal(findings_with(doc, "NCCL_ALGO=Ring,Foo (echoed by NCCL)"), 1);
	assert_int_equal(findings_with(doc, "NCCL_CROSS_NIC=5 (echoed by NCCL)"), 1);
	assert_int_equal(findings_with(doc, "NCCL_IB_HCA=mlx5_0:x (echoed by NCCL)"), 1);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	json_decref(doc);
}

static void test_conflict(void **state)
{
	json_t *doc = report("tests/data/nccl/env-conflict.log", NULL);
	const char *why;

	(void)state;
	assert_string_equal(status_of(doc, "NCCL_IB_DISABLE", &why), "conflict");
	assert_non_null(strstr(why, "NCCL_IB_GID_INDEX has no effect"));
	assert_string_equal(status_of(doc, "NCCL_IB_GID_INDEX", NULL), "conflict");
	/* one line for the conflict, not one per variable */
	assert_int_equal(findings_with(doc, "(echoed by NCCL)"), 1);
	assert_int_equal(findings_with(doc, "NCCL_IB_DISABLE=1 (echoed by NCCL): makes NCCL use TCP sockets"), 1);
	json_decref(doc);
}

static void test_gdr_level_against_topo(void **state)
{
	json_t *topo = json_pack("{s:[{s:s, s:[s]}], s:[{s:s}], s:{s:{s:s}}}", "gpus", "name",
				 "GPU0", "nearest_nics", "mlx5_0", "nics", "name", "mlx5_0",
				 "matrix", "GPU0", "mlx5_0", "PXB");
	json_t *doc = report("tests/data/nccl/env-gdr-level.log", topo);
	const char *why;

	(void)state;
	assert_string_equal(status_of(doc, "NCCL_NET_GDR_LEVEL", &why), "conflict");
	assert_non_null(strstr(why, "GPU0 (PXB)"));
	assert_int_equal(findings_with(doc, "NCCL_NET_GDR_LEVEL=PIX (echoed by NCCL)"), 1);
	json_decref(doc);
	/* without the topology the level cannot be judged against a path */
	doc = report("tests/data/nccl/env-gdr-level.log", NULL);
	assert_string_equal(status_of(doc, "NCCL_NET_GDR_LEVEL", NULL), "ok");
	assert_int_equal(findings_with(doc, "(echoed by NCCL)"), 0);
	json_decref(doc);
	json_decref(topo);
}

static void test_no_env(void **state)
{
	json_t *doc = report("tests/data/nccl/topo-near.log", NULL);

	(void)state;
	assert_true(json_is_array(json_object_get(doc, "env_status")));
	assert_int_equal(json_array_size(json_object_get(doc, "env_status")), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notes_only),
		cmocka_unit_test(test_misread),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_gdr_level_against_topo),
		cmocka_unit_test(test_no_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
