/*
 * Unit tests of the NCCL log parser: every fixture of
 * $FABCHECK_SHARED/fixtures/nccl-logs against its .expect.json, and small logs
 * written for the tests (tests/data/nccl/) for what the fixtures lack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "checks/nccl/log/nccllog_int.h"
#include "tests/unit/nccllog_util.h"

static json_t *names_of(const json_t *hcas, const char *key)
{
	json_t *a = json_array(), *h;
	size_t i;

	json_array_foreach(hcas, i, h)
		json_array_append(a, json_object_get(h, key));
	return a;
}


/* "findings_include": every string is part of some finding ("findings_exclude": none). */
static int findings_match(const json_t *want, const json_t *doc, int present, char *got,
			  size_t len)
{
	size_t i;
	json_t *w;

	json_array_foreach(want, i, w)
		if (!json_is_string(w) || has_finding_part(doc, json_string_value(w)) != present) {
			char *dump = json_dumps(json_object_get(doc, "findings"), JSON_COMPACT);

			snprintf(got, len, "%s finding with \"%s\" in %s", present ? "no" : "a",
				 json_is_string(w) ? json_string_value(w) : "?", dump ? dump : "?");
			free(dump);
			return 0;
		}
	return 1;
}

/*
 * Compares one key of an .expect.json with the report; returns 1 when equal.
 * Keys deliberately not compared:
 *   why   free text explaining the expectation to a human reader;
 *   note  informative remark (FORMATS.md: extra keys are informative).
 * Any other key unknown to this table fails the test, so a new expectation
 * key cannot be silently ignored.
 */
static int compare_key(const char *key, const json_t *want, const json_t *doc, char *got,
		       size_t len, int *known)
{
	static const char *const same_name[] = { "nccl_version", "network", "gdr",
						 "socket_fallback", "init_complete", "has_warn",
						 "plugin", "single_node" };
	json_t *have = NULL;
	char *dump;
	int eq;

	*known = 1;
	if (!strcmp(key, "why") || !strcmp(key, "note"))
		return 1;
	if (!strcmp(key, "findings_include") || !strcmp(key, "findings_exclude"))
		return findings_match(want, doc, !strcmp(key, "findings_include"), got, len);
	for (size_t i = 0; i < sizeof(same_name) / sizeof(same_name[0]); i++)
		if (!strcmp(key, same_name[i]))
			have = json_incref(json_object_get(doc, key));
	if (!strcmp(key, "hcas"))
		have = names_of(json_object_get(doc, "hcas"), "name");
	else if (!strcmp(key, "hca_links"))
		have = names_of(json_object_get(doc, "hcas"), "link");
	else if (!strcmp(key, "verdict_hint"))
		have = json_incref(json_object_get(doc, "verdict"));
	if (!have && !json_object_get(doc, key) && strcmp(key, "nccl_version") &&
	    strcmp(key, "network") && strcmp(key, "plugin")) {
		*known = 0;
		return 0;
	}
	eq = json_equal(want, have ? have : json_null()) ||
	     (json_is_null(want) && !have);
	dump = json_dumps(have ? have : json_null(), JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(got, len, "%s", dump ? dump : "?");
	free(dump);
	json_decref(have);
	return eq;
}

/* Every <name>.log of @dir against its <name>.expect.json; returns the fixtures. */
static int check_folder(const char *dir)
{
	char path[8192], got[2048];
	int files = 0, keys = 0, bad = 0;
	struct dirent **ents = NULL;
	int n;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		fail_msg("cannot read the fixture folder %s: the NCCL log fixtures are missing",
			 dir);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t nl = strlen(name);
		json_t *want, *doc, *v;
		json_error_t jerr;
		const char *key;

		if (nl < 5 || strcmp(name + nl - 4, ".log"))
			continue;
		files++;
		snprintf(path, sizeof(path), "%s/%.*s.expect.json", dir, (int)(nl - 4), name);
		want = json_load_file(path, 0, &jerr);
		if (!want) {
			print_error("%s: no readable expectations (%s)\n", name, jerr.text);
			bad++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		doc = report_file(path, NULL);
		json_object_foreach(want, key, v) {
			int known;

			keys++;
			if (compare_key(key, v, doc, got, sizeof(got), &known))
				continue;
			bad++;
			if (!known) {
				print_error("%s: expectation key '%s' has no comparison in this "
					    "test; add one\n", name, key);
				continue;
			}
			char *w = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			print_error("%s: %s: want %s, got %s\n", name, key, w ? w : "?", got);
			free(w);
		}
		json_decref(doc);
		json_decref(want);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	print_message("%s: %d fixtures, %d expectation keys, %d mismatches\n", dir, files,
		      keys, bad);
	assert_int_equal(bad, 0);
	return files;
}

static void test_fixtures(void **state)
{
	const char *shared = getenv("FABCHECK_SHARED");
	char dir[4096];

	(void)state;
	if (!shared || !*shared)
		fail_msg("FABCHECK_SHARED is not set; run through tests/run-unit.sh (it points "
			 "it at <repo>/../shared)");
	snprintf(dir, sizeof(dir), "%s/fixtures/nccl-logs", shared);
	assert_true(check_folder(dir) > 0);
}

/* The project's own fixtures: one per class of log that was misread. */
static void test_own_fixtures(void **state)
{
	(void)state;
	assert_true(check_folder("tests/data/nccl/logs") > 0);
}

/* Feeding byte by byte or in odd chunks gives the same report. */
static void test_chunking(void **state)
{
	const char *shared = getenv("FABCHECK_SHARED");
	static const char *const names[] = {
		"nccl-2.4.2_34-roce-devs_empty-oob_horovod.log",
		"nccl-2.2x_ibext-v8_64rank_nvls.log",
		"nccl-ofi_p4d_gdr-disabled_ib-no-device_socket_cloudwatch-prefix.log",
	};
	char path[4096];

	(void)state;
	assert_non_null(shared);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = 0;
		char *text;
		json_t *a, *b, *c;

		snprintf(path, sizeof(path), "%s/fixtures/nccl-logs/%s", shared, names[i]);
		text = slurp(path, &len);
		assert_non_null(text);
		a = report_text(text, len, 0, NULL);
		b = report_text(text, len, 1, NULL);
		c = report_text(text, len, 7, NULL);
		assert_true(json_equal(a, b));
		assert_true(json_equal(a, c));
		json_decref(a);
		json_decref(b);
		json_decref(c);
		free(text);
	}
}

/* Launcher prefixes, framework lines and two records glued on one line. */
static void test_interleaved(void **state)
{
	json_t *doc = report_file("tests/data/nccl/interleaved.log", NULL);
	const json_t *c, *r;

	(void)state;
	assert_string_equal(str(doc, "nccl_version"), "2.18.5");
	assert_string_equal(str(doc, "network"), "IB");
	assert_int_equal(json_array_size(json_object_get(doc, "hcas")), 2);
	assert_string_equal(str(json_object_get(doc, "oob"), "if"), "ib0");
	/* the glued pair: the first keeps its whole "via", the second its host */
	c = chan(doc, 0, 15, 0, "receive");
	assert_non_null(c);
	assert_string_equal(str(c, "via"), "NET/IB/0/GDRDMA");
	assert_string_equal(str(c, "hca"), "mlx5_0");
	assert_string_equal(str(c, "host"), "nodeA");
	c = chan(doc, 1, 1, 8, "send");
	assert_non_null(c);
	assert_string_equal(str(c, "host"), "nodeA");
	assert_true(json_is_false(json_object_get(c, "gdr")));
	assert_string_equal(str(chan(doc, 0, 1, 0, NULL), "transport"), "P2P");
	assert_string_equal(str(chan(doc, 0, 0, 1, NULL), "transport"), "SHM");
	/* send side without GDR, receive side with it: NCCL_NET_GDR_READ=0 */
	assert_string_equal(str(doc, "gdr"), "partial");
	assert_true(has_finding_part(doc, "NCCL_NET_GDR_READ"));
	r = by_rank(doc, "ranks", 8);
	assert_non_null(r);
	assert_string_equal(str(r, "host"), "nodeB");
	assert_string_equal(str(r, "bus_id"), "0000:07:00.0");
	assert_string_equal(str(r, "init"), "complete");
	assert_string_equal(str(by_rank(doc, "ranks", 1), "bus_id"), "0000:0b:00.0");
	assert_true(json_is_true(json_object_get(doc, "init_complete")));
	assert_string_equal(str(json_object_get(doc, "env"), "NCCL_NET_GDR_READ"), "0");
	assert_string_equal(str(doc, "verdict"), "warn");
	json_decref(doc);
}

/* nccl-tests' rank lines: the bus in brackets is one byte, or a
 * domain:bus:device; a bigger one is no bus, not an overflow (the fuzzer's
 * [0x<15 hex digits>]: UBSan's "left shift of 52538954903773325 by 12"). */
static void test_rank_bus(void **state)
{
	json_t *doc = report_str("#   Rank  0 Pid 1 on nodeA device  0 [0x8d] A100-SXM4-40GB\n"
				 "#   Rank  1 Pid 1 on nodeA device  1 [0xbaa8bb16fc8d8d8] A100\n"
				 "#   Rank  2 Pid 1 on nodeA device  2 [0001:07:00] A100\n"
				 "#   Rank  3 Pid 1 on nodeA device  3 [fffffffffffffff:07:00] A100\n");

	(void)state;
	assert_string_equal(str(by_rank(doc, "ranks", 0), "bus_id"), "0000:8d:00.0");
	assert_true(json_is_null(json_object_get(by_rank(doc, "ranks", 1), "bus_id")));
	assert_string_equal(str(by_rank(doc, "ranks", 2), "bus_id"), "0001:07:00.0");
	assert_true(json_is_null(json_object_get(by_rank(doc, "ranks", 3), "bus_id")));
	json_decref(doc);
}

static void test_crlf(void **state)
{
	json_t *doc = report_file("tests/data/nccl/crlf.log", NULL);
	const json_t *h = json_array_get(json_object_get(doc, "hcas"), 0);

	(void)state;
	assert_string_equal(str(doc, "nccl_version"), "2.11.4");
	assert_string_equal(str(h, "name"), "mlx5_2");
	assert_string_equal(str(h, "link"), "RoCE");
	assert_string_equal(str(json_object_get(doc, "env"), "NCCL_IB_GID_INDEX"), "3");
	assert_string_equal(str(json_object_get(doc, "oob"), "addr"), "10.1.1.1");
	assert_string_equal(str(chan(doc, 0, 0, 1, "send"), "via"), "NET/IB/0/GDRDMA");
	assert_string_equal(str(doc, "gdr"), "on");
	assert_string_equal(str(doc, "verdict"), "pass");
	json_decref(doc);
}

static void test_truncated(void **state)
{
	json_t *doc = report_file("tests/data/nccl/truncated.log", NULL);

	(void)state;
	/* the cut device list keeps its complete entry only */
	assert_int_equal(json_array_size(json_object_get(doc, "hcas")), 1);
	/* "via NET/IB/" lost its device: dropped; "GDR" cut from GDRDMA kept */
	assert_int_equal(json_array_size(json_object_get(doc, "channels")), 1);
	assert_string_equal(str(doc, "gdr"), "on");
	/* the last line has no newline and still counts */
	assert_string_equal(str(doc, "network"), "IB");
	assert_true(json_is_true(json_object_get(doc, "has_warn")));
	assert_true(has_finding_part(doc, "message cut off"));
	assert_int_equal(json_object_size(json_object_get(doc, "env")), 0);
	json_decref(doc);
}

static void test_not_a_log(void **state)
{
	struct ncl_log *lg = ncl_log_new();
	size_t len = 0;
	char *text = slurp("tests/data/nccl/notalog.txt", &len);

	(void)state;
	assert_non_null(text);
	ncl_log_feed(lg, text, len);
	ncl_log_end_file(lg, "notalog.txt");
	assert_true(ncl_log_lines(lg) > 3);
	assert_int_equal(ncl_log_nccl_lines(lg), 0);
	ncl_log_free(lg);
	free(text);
}

/* NUL bytes, invalid UTF-8, control characters and a 2 MiB line around valid lines. */
static void test_junk(void **state)
{
	static const char good1[] = "\nh1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:1.2.3.4<0>\n";
	static const char junk[] = "h1:1:1 [0] NCCL INFO Using network \xff\xfe\x00\x01IB\x80\n"
				   "\x00\x00\x00 NCCL WARN \xc3\x28 bad utf8 \xed\xa0\x80\n";
	static const char good2[] = "h1:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA\n";
	size_t big = (2u << 20) + 17, len = 0;
	char *text = malloc(big + sizeof(good1) + sizeof(junk) + sizeof(good2));
	json_t *doc;
	char *dump;

	(void)state;
	assert_non_null(text);
	memcpy(text, junk, sizeof(junk) - 1);
	len = sizeof(junk) - 1;
	memset(text + len, 'A', big);
	memcpy(text + len, "h1:1:1 [0] NCCL INFO ", 21);
	len += big;
	memcpy(text + len, good1, sizeof(good1) - 1);
	len += sizeof(good1) - 1;
	memcpy(text + len, good2, sizeof(good2) - 1);
	len += sizeof(good2) - 1;
	doc = report_text(text, len, 4096, NULL);
	assert_int_equal(json_array_size(json_object_get(doc, "hcas")), 1);
	assert_string_equal(str(doc, "gdr"), "on");
	assert_true(json_is_true(json_object_get(doc, "has_warn")));
	dump = json_dumps(doc, 0); /* every string is valid UTF-8 */
	assert_non_null(dump);
	free(dump);
	json_decref(doc);
	free(text);
}

static void test_topo(void **state)
{
	json_error_t jerr;
	json_t *topo = json_load_file("tests/data/nccl/topo.json", 0, &jerr);
	struct ncl_expect exp = { .topo = topo };
	const char *why = NULL;
	json_t *doc, *bad;

	(void)state;
	assert_non_null(topo);
	assert_int_equal(ncl_topo_check(topo, &why), 0);
	doc = report_file("tests/data/nccl/topo-near.log", &exp);
	/* rank 0 (GPU0, nearest mlx5_0) sends on mlx5_1; rank 1 is on its nearest */
	assert_true(has_finding_part(doc, "rank 0 (n1, GPU0) moves data on mlx5_1"));
	assert_false(has_finding_part(doc, "rank 1 ("));
	json_decref(doc);
	doc = report_file("tests/data/nccl/topo-near.log", NULL);
	assert_false(has_finding_part(doc, "nearest"));
	json_decref(doc);
	bad = json_pack("{s:[{s:s}]}", "gpus", "name", "GPU0");
	assert_int_not_equal(ncl_topo_check(bad, &why), 0);
	assert_non_null(why);
	json_decref(bad);
	json_decref(topo);
}

static void test_expectations(void **state)
{
	static const char *const want_hcas[] = { "mlx5_10", "mlx5_13:1" };
	static const char *const missing[] = { "mlx5_0" };
	struct ncl_expect exp = { .net = "IB" };
	json_t *doc;

	(void)state;
	assert_non_null(getenv("FABCHECK_SHARED"));
	/* sockets where IB is expected: fail, even when IB was disabled on purpose */
	doc = fixture("nccl-2.5.6_ib-disabled_socket-ipv6.log", &exp);
	assert_string_equal(str(doc, "verdict"), "fail");
	assert_true(has_finding_part(doc, "NCCL_IB_DISABLE=1"));
	json_decref(doc);
	/* IB when IB is expected, the listed HCAs present, GDR on: pass */
	exp.hcas = want_hcas;
	exp.nhcas = 2;
	exp.gdr = 1;
	doc = fixture("nccl-2.11.4_a100_4hca-ib_gdrdma.log", &exp);
	assert_string_equal(str(doc, "verdict"), "pass");
	json_decref(doc);
	/* a HCA NCCL does not list: fail */
	exp.hcas = missing;
	exp.nhcas = 1;
	doc = fixture("nccl-2.11.4_a100_4hca-ib_gdrdma.log", &exp);
	assert_string_equal(str(doc, "verdict"), "fail");
	assert_true(has_finding_part(doc, "not mlx5_0"));
	json_decref(doc);
	/* GDR off with --expect-gdr: fail; without: warn */
	exp = (struct ncl_expect){ .gdr = 1 };
	doc = fixture("nccl-2.2x_ib_no-gdr_p2p-direct_init-timings.log", &exp);
	assert_string_equal(str(doc, "verdict"), "fail");
	json_decref(doc);
	/* IBext plugins count as IB; another name does not */
	exp = (struct ncl_expect){ .net = "ib" };
	doc = fixture("nccl-2.22.3_roce-8hca_ibext-v8_cumem.log", &exp);
	assert_string_equal(str(doc, "verdict"), "pass");
	json_decref(doc);
	exp.net = "Socket";
	doc = fixture("nccl-2.22.3_roce-8hca_ibext-v8_cumem.log", &exp);
	assert_string_equal(str(doc, "verdict"), "fail");
	json_decref(doc);
	/* nothing shown: warn that it cannot be confirmed */
	exp = (struct ncl_expect){ .net = "IB", .gdr = 1 };
	doc = fixture("nccl-2.25.1_aks-pods_bootstrap-new-format.log", &exp);
	assert_string_equal(str(doc, "verdict"), "warn");
	assert_true(has_finding_part(doc, "does not show which network"));
	json_decref(doc);
}

/* One HCA for many GPUs: the ratio, the share, and topology HCAs NCCL does not list. */
static void test_share(void **state)
{
	static const char *const fine[] = { "nccl-2.11.4_a100_4hca-ib_gdrdma.log",
					    "nccl-2.3.7_ib_dgx1.log",
					    "nccl-2.18.5_roce-single-hca_h800.log" };
	json_error_t jerr;
	json_t *topo = json_load_file("tests/data/nccl/topo-8gpu-8hca.json", 0, &jerr);
	struct ncl_expect exp = { .topo = topo };
	json_t *doc;

	(void)state;
	assert_non_null(topo);
	doc = report_file("tests/data/nccl/logs/nccl-2.19.3_8gpu-1hca_srun.log", &exp);
	assert_true(has_finding_part(doc, "(1 other host alike) at least 8 GPUs share 1 "
				     "listed HCA (mlx5_0): 8 GPUs per HCA"));
	assert_true(has_finding_part(doc, "has 7 more HCAs (mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,"
				     "mlx5_6,mlx5_7) that NCCL does not list, so NCCL is not "
				     "using them"));
	json_decref(doc);
	/* without --topo nothing is said about HCAs the log cannot show */
	doc = report_file("tests/data/nccl/logs/nccl-2.19.3_8gpu-1hca_srun.log", NULL);
	assert_false(has_finding_part(doc, "does not list"));
	json_decref(doc);
	/* four GPUs on four HCAs, 2.3's eight GPUs on four, one GPU on one: no warning */
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		doc = fixture(fine[i], NULL);
		assert_false(has_finding_part(doc, "GPUs share"));
		json_decref(doc);
	}
	json_decref(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),    cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_interleaved), cmocka_unit_test(test_crlf), cmocka_unit_test(test_rank_bus),
		cmocka_unit_test(test_truncated),   cmocka_unit_test(test_not_a_log),
		cmocka_unit_test(test_junk),	    cmocka_unit_test(test_topo),
		cmocka_unit_test(test_expectations),
		cmocka_unit_test(test_own_fixtures), cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
