/* Unit tests of the topology checks: the nvidia-smi parser on every fixture
 * of $FABCHECK_SHARED/fixtures/topo, and the sysfs model on recorded trees
 * written by tests/topo/mksysfs.sh (dgx, hgx, split, empty). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/nvsmi_topo.h"
#include "topo/pcitopo.h"
#include "topo/topo_report.h"
#include "core/log.h"
#include "core/out.h"

static char *slurp(const char *path, size_t *len_p)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len_p = (size_t)n;
	return buf;
}

/* Keys an .expect.json may state. "note" is prose for people, not checked. */
static void check_expect(const char *name, const json_t *got, const json_t *want)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)want, key, v) {
		if (!strcmp(key, "note"))
			continue;
		if (!strcmp(key, "gpu_pairs")) {
			const char *pair;
			json_t *cell;

			json_object_foreach(v, pair, cell) {
				const char *g = json_string_value(
					json_object_get(json_object_get(got, "gpu_pairs"), pair));

				if (!g || strcmp(g, json_string_value(cell)))
					fail_msg("%s: gpu_pairs %s = %s, expected %s", name, pair,
						 g ? g : "(none)", json_string_value(cell));
			}
			continue;
		}
		if (!strcmp(key, "gpus") || !strcmp(key, "nics") || !strcmp(key, "nvlink") ||
		    !strcmp(key, "truncated") || !strcmp(key, "nearest_nic")) {
			if (!json_equal(json_object_get(got, key), v)) {
				char *a = json_dumps(json_object_get(got, key), JSON_COMPACT);
				char *b = json_dumps(v, JSON_COMPACT);

				fail_msg("%s: %s = %s, expected %s", name, key, a, b);
			}
			continue;
		}
		fail_msg("%s: expect key '%s' is not checked by this test", name, key);
	}
}

static void test_fixtures(void **state)
{
	const char *shared = getenv("FABCHECK_SHARED");
	char dir[4096], path[8192];
	struct dirent *de;
	int n = 0;
	DIR *d;

	(void)state;
	if (!shared)
		fail_msg("FABCHECK_SHARED is not set: run through tests/run-unit.sh");
	snprintf(dir, sizeof(dir), "%s/fixtures/topo", shared);
	d = opendir(dir);
	if (!d)
		fail_msg("fixtures missing: cannot open %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), tlen;
		struct nvsmi_topo *m = NULL;
		json_error_t jerr;
		json_t *want, *got;
		char *text;

		if (len < 5 || strcmp(de->d_name + len - 4, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = slurp(path, &tlen);
		assert_int_equal(nvsmi_topo_parse(text, tlen, de->d_name, &m), 0);
		free(text);
		snprintf(path, sizeof(path), "%s/%.*s.expect.json", dir, (int)len - 4, de->d_name);
		want = json_load_file(path, 0, &jerr);
		if (!want)
			fail_msg("%s: %s", path, jerr.text);
		got = nvsmi_topo_summary(m);
		check_expect(de->d_name, got, want);
		json_decref(got);
		json_decref(want);
		free(m);
		n++;
	}
	closedir(d);
	assert_true(n >= 12);
	printf("topo fixtures: %d parsed, every asserted key matched\n", n);
}

static void test_nvsmi_details(void **state)
{
	static const char legend[] =
		"\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
		"GPU0\t X \tNV4\tPIX\tSYS\t0-7\t0\t\t5\n"
		"GPU1\tNV4\t X \tSYS\tPXB\t8-15\t1\t\tN/A\n"
		"NIC0\tPIX\tSYS\t X \tSYS\t\t\t\t\n"
		"NIC1\tSYS\tPXB\tSYS\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n\n"
		"NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_bond_0\n";
	struct nvsmi_topo *m;
	int comp[NVSMI_MAX_COLS], near[4];

	(void)state;
	assert_int_equal(nvsmi_topo_parse(legend, strlen(legend), "t", &m), 0);
	assert_int_equal(m->ngpus, 2);
	assert_int_equal(m->nnics, 2);
	assert_string_equal(m->nic_dev[3], "mlx5_bond_0");
	assert_string_equal(m->cpu_aff[1], "8-15");
	assert_int_equal(m->numa_aff[1], 1);
	assert_int_equal(m->gpu_numa[0], 5);
	assert_int_equal(m->gpu_numa[1], -1);
	assert_false(m->truncated);
	assert_int_equal(nvsmi_topo_nearest_nics(m, 1, near, 4), 1);
	assert_int_equal(near[0], 3);
	assert_int_equal(nvsmi_topo_islands(m, comp), 1);
	assert_string_equal(nvsmi_topo_cell(m, 0, 1), "NV4");
	free(m);
	/* Not a matrix at all, empty input, a p2p-only table. */
	fc_log_level = -1;
	assert_int_equal(nvsmi_topo_parse("hello\nworld\n", 12, "t", &m), -EINVAL);
	assert_int_equal(nvsmi_topo_parse("", 0, "t", &m), -EINVAL);
	fc_log_level = FC_LOG_WARN;
	assert_int_equal(nvsmi_cell_rank("SOC"), 7);
	assert_int_equal(nvsmi_cell_rank("NV18"), 1);
	assert_int_equal(nvsmi_cell_rank("NODE"), 5);
}

/* ---- recorded sysfs trees ---- */

#define TREES_SCENARIOS "dgx hgx split empty"
#include "tests/unit/sysfs_trees.h"
#include "tests/unit/topo_doc.h"
#include "tests/unit/finding.h"

/*
 * What a person does to a table before posting it (written for this test; the
 * real posts are in tests/real/topo): a dashed rule under the header, "|"
 * bars between the cells, the terminal's underline pasted without its ESC.
 * The old parser ended the matrix at the rule and lost every GPU row.
 */
static void test_person_rules(void **state)
{
	static const char dashed[] =
		"\t[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity[0m\n"
		"--------------------------------------------------------\n"
		"GPU0 |  X   | NV4  | PIX  | 0-15   | 0\n"
		"GPU1 | NV4  |  X   | SYS  | 16-31  | 1\n"
		"NIC0 | PIX  | SYS  |  X\n";
	struct nvsmi_topo *m;

	(void)state;
	assert_int_equal(nvsmi_topo_parse(dashed, strlen(dashed), "t", &m), 0);
	assert_int_equal(m->ngpus, 2);
	assert_int_equal(m->nnics, 1);
	assert_true(m->row_seen[0] && m->row_seen[1] && m->row_seen[2]);
	assert_string_equal(nvsmi_topo_cell(m, 0, 2), "PIX");
	assert_string_equal(nvsmi_topo_cell(m, 1, 2), "SYS");
	assert_string_equal(m->cpu_aff[1], "16-31");
	assert_string_equal(m->numa_list[1], "1");
	assert_int_equal(m->numa_aff[1], 1);
	assert_false(m->truncated);
	free(m);
}

static void test_dgx(void **state)
{
	struct topo *t = load("dgx");
	const struct topo_dev *near[8], *acs[8];
	enum topo_dist d;
	json_t *doc;

	(void)state;
	assert_int_equal(t->ngpus, 8);
	assert_int_equal(t->nnics, 4);
	assert_string_equal(topo_gpu(t, 2)->bdf, "0000:23:00.0");
	assert_string_equal(topo_nic(t, 2)->name, "mlx5_2");
	assert_int_equal(topo_gpu(t, 5)->numa, 1);
	assert_int_equal(topo_distance(t, "GPU0", "GPU1"), TOPO_PIX);
	assert_int_equal(topo_distance(t, "GPU0", "mlx5_0"), TOPO_PIX);
	assert_int_equal(topo_distance(t, "0000:03:00.0", "mlx5_1"), TOPO_NODE);
	assert_int_equal(topo_distance(t, "3:00.0", "00000000:85:00.0"), TOPO_SYS);
	/* GPU0 and the onboard Ethernet share only the host bridge. */
	assert_int_equal(topo_distance(t, "GPU0", "0000:0f:00.0"), TOPO_PHB);
	assert_int_equal(topo_distance(t, "GPU0", "GPU0"), TOPO_X);
	assert_int_equal(topo_distance(t, "GPU0", "0000:99:00.0"), TOPO_UNKNOWN);
	assert_int_equal(topo_nearest_nics(t, "GPU6", near, 8, &d), 1);
	assert_string_equal(near[0]->name, "mlx5_3");
	assert_int_equal(d, TOPO_PIX);
	assert_int_equal(topo_nearest_nics(t, "mlx5_0", near, 8, NULL), -ENOENT);
	assert_string_equal(topo_nearest_gpu(t, "mlx5_1", &d)->name, "GPU2");
	assert_null(topo_nearest_gpu(t, "GPU1", NULL));
	assert_int_equal(topo_acs_on_path(t, topo_gpu(t, 2), topo_nic(t, 1),
					  TOPO_ACS_P2P_BREAKING, acs, 8), 1);
	assert_string_equal(acs[0]->bdf, "0000:22:00.0");
	assert_int_equal(acs[0]->acs_ctl, 0x1d);
	assert_int_equal(topo_acs_on_path(t, topo_gpu(t, 0), topo_nic(t, 0),
					  TOPO_ACS_P2P_BREAKING, acs, 8), 0);
	assert_true(t->peermem);
	doc = report(t);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	assert_true(has_finding_both(doc, "mlx5_2 (0000:85:00.0) trained at x8 of x16", "reseat"));
	assert_true(has_finding_both(doc, "ACS redirect is on at bridge 0000:22:00.0", "GPU2 and mlx5_1"));
	assert_true(has_finding_part(doc, "setpci -s 0000:22:00.0"));
	assert_false(has_finding_part(doc, "peer-memory"));
	assert_false(has_finding_part(doc, "mlx5_0 ("));
	assert_string_equal(rec(doc, "NCCL_IB_HCA"), "=mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_string_equal(rec(doc, "NCCL_NET_GDR_LEVEL"), "PXB");
	assert_string_equal(rec(doc, "NCCL_P2P_LEVEL"), "PXB");
	assert_string_equal(rec(doc, "NCCL_SOCKET_IFNAME"), "=eno1");
	assert_null(rec(doc, "NCCL_IB_GID_INDEX"));
	assert_string_equal(fc_jstr(json_object_get(json_object_get(doc, "matrix"), "GPU4"),
				    "NIC2", ""), "PIX");
	json_decref(doc);
	topo_free(t);
}

static void test_hgx(void **state)
{
	struct topo *t = load("hgx");
	const struct topo_dev *near[8];
	json_t *doc, *g;

	(void)state;
	assert_int_equal(t->ngpus, 8);
	assert_int_equal(t->nnics, 8);
	assert_int_equal(topo_distance(t, "GPU0", "GPU1"), TOPO_PXB);
	assert_int_equal(topo_distance(t, "GPU0", "mlx5_1"), TOPO_PXB);
	assert_int_equal(topo_distance(t, "GPU1", "mlx5_1"), TOPO_PIX);
	assert_int_equal(topo_distance(t, "GPU3", "mlx5_0"), TOPO_NODE);
	assert_int_equal(topo_distance(t, "GPU7", "mlx5_0"), TOPO_SYS);
	for (int i = 0; i < 8; i++) {
		char want[16];

		snprintf(want, sizeof(want), "mlx5_%d", i);
		assert_int_equal(topo_nearest_nics(t, topo_gpu(t, i)->bdf, near, 8, NULL), 1);
		assert_string_equal(near[0]->name, want);
	}
	assert_string_equal(t->peermem_how, "kernel/mm/memory_peers/nv_mem/version");
	doc = report(t);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "pass");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	g = json_array_get(json_object_get(doc, "gpus"), 5);
	assert_string_equal(fc_jstr(g, "bus_id", ""), "0000:89:00.0");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "nearest_nics"), 0)),
			    "mlx5_5");
	assert_true(json_is_null(json_object_get(doc, "nvlink_islands")));
	json_decref(doc);
	topo_free(t);
}

static void test_split(void **state)
{
	struct topo *t = load("split");
	const struct topo_dev *near[8];
	enum topo_dist d;
	json_t *doc;

	(void)state;
	assert_int_equal(t->ngpus, 2);
	assert_int_equal(topo_distance(t, "GPU0", "mlx5_0"), TOPO_PXB);
	assert_int_equal(topo_distance(t, "GPU1", "mlx5_0"), TOPO_NODE);
	assert_int_equal(topo_distance(t, "GPU0", "mlx5_1"), TOPO_SYS);
	assert_int_equal(topo_distance(t, "GPU0", "GPU1"), TOPO_NODE);
	assert_int_equal(topo_nearest_nics(t, "GPU1", near, 8, &d), 1);
	assert_int_equal(d, TOPO_NODE);
	assert_int_equal(topo_nic(t, 0)->ports[0].roce_v2_gid, 3);
	assert_int_equal(topo_nic(t, 0)->ports[0].mtu, 1500);
	assert_int_equal(topo_nic(t, 1)->ports[0].roce_v2_gid, -1);
	assert_false(t->peermem);
	doc = report(t);
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	assert_true(has_finding_both(doc, "netdev ens1f0 has MTU 1500 B", "mtu 9000"));
	assert_true(has_finding_part(doc, "mlx5_1 port 1 (RoCE): no RoCE v2 GID"));
	assert_true(has_finding_both(doc, "nvidia_peermem", "modprobe nvidia-peermem"));
	assert_true(has_finding_part(doc, "GPU1 (0000:41:00.0) trained at x8 of x16"));
	assert_true(has_finding_both(doc, "GPU0 (0000:05:00.0) at 2.5 GT/s of 16 GT/s", "idle"));
	assert_true(has_finding_part(doc, "GPU1: nearest HCA mlx5_0 is NODE"));
	assert_true(has_finding_both(doc, "ACS state of", "root"));
	assert_string_equal(rec(doc, "NCCL_NET_GDR_LEVEL"), "PHB");
	assert_string_equal(rec(doc, "NCCL_IB_GID_INDEX"), "3");
	assert_string_equal(rec(doc, "NCCL_IB_HCA"), "=mlx5_0");
	assert_true(has_finding_part(doc, "mlx5_1: NCCL's topology search gives it no GPU"));
	json_decref(doc);
	topo_free(t);
}

static void test_empty_and_bad_root(void **state)
{
	struct topo *t = load("empty");
	char root[300];

	(void)state;
	assert_int_equal(t->ngpus, 0);
	assert_int_equal(t->nnics, 0);
	assert_int_equal(t->ndevs, 2);
	topo_free(t);
	snprintf(root, sizeof(root), "%s/nope", tmpdir);
	fc_log_level = -1;
	assert_int_equal(topo_load(root, &t), -ENOENT);
	fc_log_level = FC_LOG_WARN;
}

/* An 8-GPU NV18 matrix with rows GPU0..GPU(rows-1). */
static void nv18_matrix(char *buf, size_t len, int rows)
{
	size_t n = (size_t)snprintf(buf, len, "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\n");

	for (int r = 0; r < rows; r++) {
		n += (size_t)snprintf(buf + n, len - n, "GPU%d", r);
		for (int c = 0; c < 8; c++)
			n += (size_t)snprintf(buf + n, len - n, "\t%s", r == c ? " X " : "NV18");
		n += (size_t)snprintf(buf + n, len - n, "\n");
	}
}

static void test_overlay(void **state)
{
	char nv[2048];
	struct topo_view *v = calloc(1, sizeof(*v));
	struct topo *t = load("dgx");
	struct nvsmi_topo *m;
	json_t *doc = fc_doc_new();

	(void)state;
	nv18_matrix(nv, sizeof(nv), 4);
	assert_int_equal(nvsmi_topo_parse(nv, strlen(nv), "t", &m), 0);
	topo_view_from_sysfs(v, t, m, doc);
	topo_view_report(v, doc);
	assert_string_equal(v->source, "sysfs+nvidia-smi");
	assert_string_equal(v->gg[0][7], "NV18");
	assert_string_equal(v->gg[7][0], "NV18"); /* from row GPU0 */
	assert_string_equal(v->gg[7][6], "PIX");  /* rows 6, 7 missing: sysfs */
	assert_string_equal(v->gn[0][0], "PIX");
	assert_int_equal(json_array_size(json_object_get(doc, "nvlink_islands")), 1);
	/* GPU4-GPU5 is unknown to the cut matrix: PCIe P2P stays in play. */
	assert_string_equal(rec(doc, "NCCL_P2P_LEVEL"), "PXB");
	json_decref(doc);
	free(m);
	nv18_matrix(nv, sizeof(nv), 8);
	assert_int_equal(nvsmi_topo_parse(nv, strlen(nv), "t", &m), 0);
	doc = fc_doc_new();
	topo_view_from_sysfs(v, t, m, doc);
	topo_view_report(v, doc);
	assert_string_equal(rec(doc, "NCCL_P2P_LEVEL"), "NVL");
	json_decref(doc);
	/* A matrix of another host (2 GPUs) is not laid over 8. */
	m->ngpus = 2;
	m->ncols = 2;
	doc = fc_doc_new();
	topo_view_from_sysfs(v, t, m, doc);
	assert_true(has_finding_part(doc, "nvidia-smi shows 2 GPUs but sysfs has 8"));
	assert_string_equal(v->gg[0][1], "PIX");
	json_decref(doc);
	free(m);
	free(v);
	topo_free(t);
}

static void test_api_helpers(void **state)
{
	uint8_t cfg[4096] = { 0 };
	char bdf[TOPO_BDF_LEN];
	enum topo_dist d;

	(void)state;
	assert_int_equal(topo_bdf_norm("0000:07:00.0", bdf), 0);
	assert_string_equal(bdf, "0000:07:00.0");
	assert_int_equal(topo_bdf_norm("00000000:1B:00.0", bdf), 0);
	assert_string_equal(bdf, "0000:1b:00.0");
	assert_int_equal(topo_bdf_norm("7:00.1", bdf), 0);
	assert_string_equal(bdf, "0000:07:00.1");
	assert_int_equal(topo_bdf_norm("GPU0", bdf), -EINVAL);
	assert_int_equal(topo_bdf_norm("pci0000:00", bdf), -EINVAL);
	assert_int_equal(topo_bdf_norm("0000:07:00.9", bdf), -EINVAL);
	assert_int_equal(topo_dist_parse("NODE", &d), 0);
	assert_int_equal(d, TOPO_NODE);
	assert_int_equal(topo_dist_parse("NV12", &d), -EINVAL);
	assert_string_equal(topo_dist_name(TOPO_PXB), "PXB");
	assert_true(topo_parse_gts("16.0 GT/s PCIe") == 16.0);
	assert_true(topo_parse_gts("2.5 GT/s") == 2.5);
	assert_true(topo_parse_gts("Unknown speed") == 0);
	/* Config space: 64 bytes (non-root), no capability, AER -> ACS chain. */
	assert_int_equal(topo_acs_from_config(cfg, 64), -ENODATA);
	assert_int_equal(topo_acs_from_config(cfg, sizeof(cfg)), -1);
	cfg[0x100] = 0x01;
	cfg[0x102] = 0x01 | 0x80; /* version 1, next 0x148 */
	cfg[0x103] = 0x14;
	cfg[0x148] = 0x0d;
	cfg[0x14a] = 0x01;
	cfg[0x14e] = 0x0c;
	assert_int_equal(topo_acs_from_config(cfg, sizeof(cfg)), TOPO_ACS_RR | TOPO_ACS_CR);
	/* A loop in the chain ends. */
	cfg[0x14b] = 0x10;
	cfg[0x148] = 0x02;
	assert_int_equal(topo_acs_from_config(cfg, sizeof(cfg)), -1);
}

int main(void)
{
	const struct CMUnitTest fixtures[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_nvsmi_details),
		cmocka_unit_test(test_person_rules),
		cmocka_unit_test(test_api_helpers),
	};
	const struct CMUnitTest trees[] = {
		cmocka_unit_test(test_dgx),
		cmocka_unit_test(test_hgx),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_empty_and_bad_root),
		cmocka_unit_test(test_overlay),
	};
	int rc = cmocka_run_group_tests_name("topo parser", fixtures, NULL, NULL);

	return rc | cmocka_run_group_tests_name("topo sysfs", trees, trees_setup, trees_teardown);
}
