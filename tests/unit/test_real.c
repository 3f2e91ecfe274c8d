/*
 * The parsers on what real machines printed: every capture of tests/real/
 * (sources in tests/real/SOURCES.tsv) against its <name>.expect.json, written
 * from the capture itself. Counts the facts right per kind, prints each miss,
 * and asserts the count a kind has reached (a kind never goes back).
 *   topo/     nvidia-smi topo -m   -> nvsmi_topo_parse (topo/)
 *   nccl/     NCCL_DEBUG=INFO logs -> the NCCL log parser (checks/nccl/log)
 *   ethtool/  ethtool -S           -> qos_parse_ethtool_s (verbs/qos.c)
 *   mlnx_qos/ mlnx_qos -i DEV      -> qos_parse_mlnx_qos (verbs/qos.c)
 *   ethtool_m/ ethtool -m          -> diag_parse_module, diag_module_judge,
 *                                     diag_module_verdict (diag/)
 *   ethtool_link/ ethtool DEV      -> diag_parse_link (diag/linkmodes.c)
 *   devlink/  devlink dev info, devlink health show
 *                                  -> diag_parse_devlink_info, diag_fw_state
 *                                     (diag/devlink.c), diag_parse_devlink
 * (lspci/, ibv/, lldp/, ip/: test_real_host.c; the helpers: real_util.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "diag/diag.h"
#include "tests/unit/nccllog_util.h"
#include "tests/unit/real_util.h"
#include "topo/nvsmi_topo.h"
#include "topo/topo_report.h"
#include "verbs/qos.h"

/* ---- nvidia-smi topo -m ---- */

static void topo_map(struct tally *t, const char *file, const json_t *want, const json_t *got,
		     const char *key)
{
	const char *k;
	json_t *v;
	char what[128];

	json_object_foreach((json_t *)want, k, v) {
		snprintf(what, sizeof(what), "%s %s", key, k);
		fact(t, file, what, json_string_value(v),
		     json_string_value(json_object_get(json_object_get(got, key), k)));
	}
}

static void topo_cells(struct tally *t, const char *file, const json_t *want,
		       const struct nvsmi_topo *m)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)want, k, v) {
		char a[NVSMI_LABEL_LEN], what[128];
		const char *comma = strchr(k, ',');
		size_t al = comma ? (size_t)(comma - k) : 0;

		if (!comma || al >= sizeof(a))
			fail_msg("%s: cell key '%s' is not 'A,B'", file, k);
		memcpy(a, k, al);
		a[al] = '\0';
		snprintf(what, sizeof(what), "cell %s", k);
		fact(t, file, what, json_string_value(v),
		     nvsmi_topo_cell(m, nvsmi_topo_col(m, a), nvsmi_topo_col(m, comma + 1)));
	}
}

/* "nccl_nics": per GPU, the NICs NCCL ranks first as read off the capture
 * (joined by ','; null: the table cannot say), against topo_view_nccl_nics
 * on the table alone, as `fabcheck topo -t FILE` reads it. */
static void topo_nccl(struct tally *t, const char *file, const json_t *want,
		      const struct nvsmi_topo *m)
{
	struct topo_view *v = calloc(1, sizeof(*v));
	const char *k;
	json_t *w;

	assert_non_null(v);
	topo_view_from_nvsmi(v, m);
	json_object_foreach((json_t *)want, k, w) {
		char got[512] = "", what[64];
		int nn[TV_MAX], g = 0, n;
		size_t len = 0;

		while (g < v->ngpus && strcmp(v->gpu[g].label, k))
			g++;
		n = g < v->ngpus ? topo_view_nccl_nics(v, g, nn, TV_MAX) : 0;
		for (int i = 0; i < n && len < sizeof(got); i++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", i ? "," : "",
						v->nic[nn[i]].name);
		snprintf(what, sizeof(what), "nccl_nics %s", k);
		fact(t, file, what, json_is_null(w) ? "unknown" : json_string_value(w),
		     n < 0 ? "unknown" : got);
	}
	free(v);
}

static void topo_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	struct nvsmi_topo *m = NULL;
	size_t len = 0;
	char *text = slurp(path, &len), buf[32];
	json_t *got = NULL, *v;
	const char *key;

	if (!text)
		fail_msg("cannot read %s", path);
	if (nvsmi_topo_parse(text, len, name, &m) == 0)
		got = nvsmi_topo_summary(m);
	free(text);
	json_object_foreach((json_t *)want, key, v) {
		if (!strcmp(key, "note"))
			continue;
		if (!strcmp(key, "gpus") || !strcmp(key, "nics"))
			fact(t, name, key, jstr(v, buf, sizeof(buf)),
			     got ? jstr(json_object_get(got, key), buf + 16, 16) : NULL);
		else if (!strcmp(key, "cells") && m)
			topo_cells(t, name, v, m);
		else if (!strcmp(key, "nccl_nics") && m)
			topo_nccl(t, name, v, m);
		else if (!strcmp(key, "cells") || !strcmp(key, "nccl_nics"))
			t->total += (int)json_object_size(v);
		else if (!strcmp(key, "nic_legend") || !strcmp(key, "cpu_affinity") ||
			 !strcmp(key, "numa_affinity") || !strcmp(key, "gpu_numa_id"))
			topo_map(t, name, v, got, key);
		else
			fail_msg("%s: expectation key '%s' has no comparison here; add one", name,
				 key);
	}
	if (!m)
		print_message("  miss topo/%s: the table was refused\n", name);
	json_decref(got);
	free(m);
}

/* The facts right so far: every one since the parser takes escapes, rules,
 * fused and empty affinity cells and NUMA lists (716 of the first 1132 facts
 * on the parser of 3e72c8b). */
#define TOPO_FLOOR 1585

static void test_topo(void **state)
{
	struct tally t = { "topo", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", topo_one);
	report(&t, TOPO_FLOOR);
}

/* ---- NCCL logs ---- */

static json_t *hca_field(const json_t *doc, const char *field)
{
	json_t *a = json_array(), *h;
	size_t i;

	json_array_foreach(json_object_get(doc, "hcas"), i, h)
		json_array_append(a, json_object_get(h, field));
	return a;
}

static void nccl_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	json_t *doc = report_file(path, NULL), *v;
	const char *key;
	char b1[64], b2[64];

	json_object_foreach((json_t *)want, key, v) {
		json_t *have;

		if (!strcmp(key, "why"))
			continue;
		if (!strcmp(key, "hcas") || !strcmp(key, "hca_links")) {
			char *w = json_dumps(v, JSON_COMPACT), *g;

			have = hca_field(doc, strcmp(key, "hcas") ? "link" : "name");
			g = json_dumps(have, JSON_COMPACT);
			fact(t, name, key, w, g);
			free(w);
			free(g);
			json_decref(have);
			continue;
		}
		if (strcmp(key, "nccl_version") && strcmp(key, "network") && strcmp(key, "has_warn") &&
		    strcmp(key, "init_complete"))
			fail_msg("%s: expectation key '%s' has no comparison here; add one", name,
				 key);
		have = json_object_get(doc, key);
		fact(t, name, key, jstr(v, b1, sizeof(b1)),
		     jstr(have ? have : json_null(), b2, sizeof(b2)));
	}
	json_decref(doc);
}

#define NCCL_FLOOR 32

static void test_nccl(void **state)
{
	struct tally t = { "nccl", 0, 0, 0 };

	(void)state;
	walk(&t, ".log", nccl_one);
	report(&t, NCCL_FLOOR);
}

/* ---- ethtool -S ---- */

static void ethtool_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len = 0;
	char *text = slurp(path, &len), b1[32], b2[32];
	json_t *got, *v;
	const char *k;

	if (!text)
		fail_msg("cannot read %s", path);
	got = qos_parse_ethtool_s(text);
	free(text);
	json_object_foreach(json_object_get(want, "counters"), k, v) {
		json_t *g = got ? json_object_get(got, k) : NULL;

		fact(t, name, k, jstr(v, b1, sizeof(b1)), g ? jstr(g, b2, sizeof(b2)) : NULL);
	}
	json_decref(got);
}

#define ETHTOOL_FLOOR 345

static void test_ethtool(void **state)
{
	struct tally t = { "ethtool", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", ethtool_one);
	report(&t, ETHTOOL_FLOOR);
}

/* ---- mlnx_qos -i ---- */

/* @n ints joined by ',' into @buf, or "null" when @known is 0. */
static const char *ints(const int *v, int n, int known, char *buf, size_t len)
{
	size_t used = 0;

	if (!known)
		return "null";
	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", v[i]);
	return buf;
}

/* The expectation's list @key joined the same way ("null" for null). */
static const char *want_ints(const json_t *want, const char *key, char *buf, size_t len)
{
	const json_t *a = json_object_get(want, key);
	int v[64], n = 0;
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (n < 64)
			v[n++] = (int)json_integer_value(e);
	return ints(v, n, json_is_array(a), buf, len);
}

/* "verdicts": traffic class -> the verdict qos_dcb_findings gives the port
 * for RoCE traffic of that class (as preflight judges a node's mlnx_qos). */
static void mlnx_qos_verdicts(struct tally *t, const char *name, const struct qos_dcb *dcb,
			      const json_t *verdicts)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)verdicts, k, v) {
		json_t *doc = fc_doc_new();
		char what[48];

		snprintf(what, sizeof(what), "verdict at traffic class %s", k);
		if (dcb)
			qos_dcb_findings(doc, "node", "port", dcb, atoi(k));
		fact(t, name, what, json_string_value(v),
		     dcb ? fc_verdict_name(fc_doc_verdict(doc)) : NULL);
		json_decref(doc);
	}
}

/* Trust state, PFC per priority and the DSCP -> priority map, as
 * qos_parse_mlnx_qos reads them and qos_dcb_findings judges them. */
static void mlnx_qos_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len = 0;
	char *text = slurp(path, &len), w[256], g[256];
	struct qos_dcb dcb;
	int rc;

	if (!text)
		fail_msg("cannot read %s", path);
	rc = qos_parse_mlnx_qos(text, &dcb);
	free(text);
	fact(t, name, "trust", json_string_value(json_object_get(want, "trust")),
	     rc ? NULL : dcb.trust);
	fact(t, name, "pfc_enabled", want_ints(want, "pfc_enabled", w, sizeof(w)),
	     ints(dcb.pfc_enabled, 8, !rc && dcb.pfc_known, g, sizeof(g)));
	fact(t, name, "dscp2prio", want_ints(want, "dscp2prio", w, sizeof(w)),
	     ints(dcb.dscp2prio, 64, !rc && dcb.dscp_known, g, sizeof(g)));
	mlnx_qos_verdicts(t, name, rc ? NULL : &dcb, json_object_get(want, "verdicts"));
}

#define MLNX_QOS_FLOOR 22

static void test_mlnx_qos(void **state)
{
	struct tally t = { "mlnx_qos", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", mlnx_qos_one);
	report(&t, MLNX_QOS_FLOOR);
}

/* ---- ethtool -m ---- */

static void module_scalars(struct tally *t, const char *name, const json_t *want,
			   const struct diag_module *m)
{
	static const struct {
		const char *key;
		size_t off;
		double none;
	} f[] = {
		{ "temp_c", offsetof(struct diag_module, temp_c), 0 },
		{ "volt", offsetof(struct diag_module, volt), 0 },
		{ "temp_alarm_c", offsetof(struct diag_module, temp_alarm_c), 0 },
		{ "temp_warn_c", offsetof(struct diag_module, temp_warn_c), 0 },
		{ "volt_hi_alarm", offsetof(struct diag_module, volt_hi_alarm), 0 },
		{ "volt_lo_alarm", offsetof(struct diag_module, volt_lo_alarm), 0 },
		{ "rx_lo_alarm_dbm", offsetof(struct diag_module, rx_lo_alarm_dbm), 99 },
	};
	char b1[32], b2[32];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		double v = *(const double *)((const char *)m + f[i].off);

		fact(t, name, f[i].key, want_num(json_object_get(want, f[i].key), b1, sizeof(b1)),
		     num(v, !m->known || v == f[i].none, b2, sizeof(b2)));
	}
}

static void module_lanes(struct tally *t, const char *name, const json_t *want, const char *key,
			 const double *got, int n)
{
	json_t *g = json_array();
	char *w = json_dumps(json_object_get(want, key), JSON_COMPACT), *s, b[32];

	for (int i = 0; i < n; i++)
		json_array_append_new(g, json_string(num(got[i], got[i] < 0, b, sizeof(b))));
	s = json_dumps(g, JSON_COMPACT);
	json_decref(g);
	g = json_array();
	for (size_t i = 0; i < json_array_size(json_object_get(want, key)); i++)
		json_array_append_new(g, json_string(want_num(json_array_get(json_object_get(want, key), i),
							      b, sizeof(b))));
	free(w);
	w = json_dumps(g, JSON_COMPACT);
	fact(t, name, key, w, s);
	json_decref(g);
	free(w);
	free(s);
}

/* What the module says of the lanes the link uses, against its own flags
 * and thresholds (diag_module_verdict, which the rule r_module_alarm and
 * preflight's module check ask): "alarm", "warning", "none", or "unknown"
 * when the module gives no diagnostics. */
static void module_verdict(struct tally *t, const char *name, const json_t *want,
			   const struct diag_module *m)
{
	char why[512];
	int v = diag_module_verdict(m, why, sizeof(why));

	fact(t, name, "verdict", json_string_value(json_object_get(want, "verdict")),
	     !m->known ? "unknown" : v == 1 ? "alarm" : v == 0 ? "warning" : "none");
}

#define M_KEYS                                                                                    \
	" why diagnostics temp_c volt temp_alarm_c temp_warn_c volt_hi_alarm volt_lo_alarm "      \
	"rx_lo_alarm_dbm lanes rx_mw tx_mw bias_ma flags_on dark_lanes verdict "

static void ethtool_m_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len = 0;
	char *text = slurp(path, &len), b1[32], b2[32], *w, *g;
	const char *key;
	struct diag_module m;
	json_t *dark = json_array(), *v;

	if (!text)
		fail_msg("cannot read %s", path);
	diag_parse_module(text, &m);
	free(text);
	diag_module_judge(&m, m.nlanes);
	fact(t, name, "diagnostics", jstr(json_object_get(want, "diagnostics"), b1, sizeof(b1)),
	     m.known ? "true" : "false");
	module_scalars(t, name, want, &m);
	snprintf(b2, sizeof(b2), "%d", m.nlanes);
	fact(t, name, "lanes", jstr(json_object_get(want, "lanes"), b1, sizeof(b1)), b2);
	module_lanes(t, name, want, "rx_mw", m.lane_rx_mw, m.nlanes);
	module_lanes(t, name, want, "tx_mw", m.lane_tx_mw, m.nlanes);
	module_lanes(t, name, want, "bias_ma", m.lane_bias_ma, m.nlanes);
	fact(t, name, "flags_on", json_string_value(json_object_get(want, "flags_on")), m.alarms);
	for (int l = 0; l < m.nlanes; l++)
		if (m.dark & (1u << l))
			json_array_append_new(dark, json_integer(l + 1));
	module_verdict(t, name, want, &m);
	w = json_dumps(json_object_get(want, "dark_lanes"), JSON_COMPACT);
	g = json_dumps(dark, JSON_COMPACT);
	fact(t, name, "dark_lanes", w, g);
	free(w);
	free(g);
	json_decref(dark);
	json_object_foreach((json_t *)want, key, v)
		if (!strstr(M_KEYS, key))
			fail_msg("%s: expectation key '%s' has no comparison here; add one", name, key);
}

#define ETHTOOL_M_FLOOR 135

static void test_ethtool_m(void **state)
{
	struct tally t = { "ethtool_m", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", ethtool_m_one);
	report(&t, ETHTOOL_M_FLOOR);
}

/* ---- ethtool DEV: link modes ---- */

static void ethtool_link_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len = 0;
	char *text = slurp(path, &len), b1[32], b2[32];
	struct diag_link l;
	static const char *const keys[] = { "sup_mbps", "sup_lanes", "adv_mbps",   "adv_lanes",
					    "lp_mbps",	"lp_lanes",  "speed_mbps", "lanes" };
	long vals[8];

	if (!text)
		fail_msg("cannot read %s", path);
	diag_parse_link(text, &l);
	free(text);
	vals[0] = l.sup_mbps, vals[1] = l.sup_lanes, vals[2] = l.adv_mbps, vals[3] = l.adv_lanes;
	vals[4] = l.lp_mbps, vals[5] = l.lp_lanes, vals[6] = l.speed_mbps, vals[7] = l.lanes;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(b2, sizeof(b2), "%ld", vals[i]);
		fact(t, name, keys[i], jstr(json_object_get(want, keys[i]), b1, sizeof(b1)), b2);
	}
}

#define ETHTOOL_LINK_FLOOR 16

static void test_ethtool_link(void **state)
{
	struct tally t = { "ethtool_link", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", ethtool_link_one);
	report(&t, ETHTOOL_LINK_FLOOR);
}

/* ---- devlink dev info and devlink health show ---- */

static void devlink_info_facts(struct tally *t, const char *name, const char *text,
			       const json_t *want)
{
	json_t *got = diag_parse_devlink_info(text);
	const json_t *h;
	size_t i;
	char b1[32], what[160];

	json_array_foreach(json_object_get(want, "handles"), i, h) {
		const json_t *g = json_array_get(got, i), *w = json_object_get(want, json_string_value(h));

		snprintf(what, sizeof(what), "handle %zu", i);
		fact(t, name, what, json_string_value(h), json_string_value(json_object_get(g, "handle")));
		if (!w)
			continue;
		for (const char *const *k = (const char *const[]){ "psid", "running", "stored", NULL }; *k;
		     k++) {
			snprintf(what, sizeof(what), "%s %s", json_string_value(h), *k);
			fact(t, name, what, jstr(json_object_get(w, *k), b1, sizeof(b1)),
			     json_string_value(json_object_get(g, *k)));
		}
		snprintf(what, sizeof(what), "%s firmware state", json_string_value(h));
		fact(t, name, what, json_string_value(json_object_get(w, "state")),
		     diag_fw_state_name(diag_fw_state(json_string_value(json_object_get(g, "running")),
						 json_string_value(json_object_get(g, "stored")))));
	}
	json_decref(got);
}

static void devlink_health_facts(struct tally *t, const char *name, const char *text,
				 const json_t *want)
{
	json_t *got = diag_parse_devlink(text);
	const json_t *w;
	size_t i;
	char b1[32], b2[32], what[160];

	json_array_foreach(json_object_get(want, "reporters"), i, w) {
		const json_t *g = json_array_get(got, i);

		for (const char *const *k = (const char *const[]){ "handle", "reporter", "state", "error",
								    NULL };
		     *k; k++) {
			snprintf(what, sizeof(what), "reporter %zu %s", i, *k);
			fact(t, name, what, jstr(json_object_get(w, *k), b1, sizeof(b1)),
			     jstr(json_object_get(g, *k), b2, sizeof(b2)));
		}
	}
	snprintf(b1, sizeof(b1), "%zu", json_array_size(json_object_get(want, "reporters")));
	snprintf(b2, sizeof(b2), "%zu", json_array_size(got));
	if (json_object_get(want, "reporters"))
		fact(t, name, "reporters", b1, b2);
	json_decref(got);
}

static void devlink_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len = 0;
	char *text = slurp(path, &len);

	if (!text)
		fail_msg("cannot read %s", path);
	devlink_info_facts(t, name, text, want);
	devlink_health_facts(t, name, text, want);
	free(text);
}

#define DEVLINK_FLOOR 31

static void test_devlink(void **state)
{
	struct tally t = { "devlink", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", devlink_one);
	report(&t, DEVLINK_FLOOR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_nccl),
		cmocka_unit_test(test_ethtool),
		cmocka_unit_test(test_mlnx_qos),
		cmocka_unit_test(test_ethtool_m),
		cmocka_unit_test(test_ethtool_link),
		cmocka_unit_test(test_devlink),
	};

	return cmocka_run_group_tests_name("real captures", tests, NULL, NULL);
}
