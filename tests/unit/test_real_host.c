/*
 * The host-side readers on what real machines printed (as test_real.c; the
 * helpers in real_util.h):
 *   lspci/    lspci -vvv           -> diag_parse_lspci_link (diag/lspci.c)
 *   ibv/      ibstat, ibv_devinfo  -> vb_devices_from_text (verbs/devtext.c)
 *   lldp/     lldpctl -f json, lldpcli -f json0
 *                                  -> fc_lldp_neighbour (core/lldp.c)
 *   ip/       ip -j link, ip -j addr -> fc_ip_link (core/iplink.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>

#include "core/fc.h"
#include "core/iplink.h"
#include "core/lldp.h"
#include "diag/diag.h"
#include "tests/unit/nccllog_util.h"
#include "tests/unit/real_util.h"
#include "verbs/devtext.h"

/* ---- lspci -vvv ---- */

/* LnkCap/LnkSta and DevCtl's MaxPayload by diag_parse_lspci_link, the reader
 * a capture's PCIe link is judged from when it holds no sysfs link files
 * (checks/preflight/pf_probe.c); "downgraded" as that judgment decides it
 * (trained below the capability: pf_port.c check_pcie_ceiling). */
static void lspci_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len;
	char *text = slurp(path, &len), b1[32], b2[32];
	struct diag_pcie d;
	int rc = diag_parse_lspci_link(text, &d);

	fact(t, name, "LnkSta read", "yes", rc ? "no" : "yes");
	fact(t, name, "bdf", jstr(json_object_get(want, "bdf"), b1, sizeof(b1)), d.bdf);
	fact(t, name, "lnkcap_gts", want_num(json_object_get(want, "lnkcap_gts"), b1, sizeof(b1)),
	     num(d.max_gts, d.max_gts <= 0, b2, sizeof(b2)));
	fact(t, name, "lnkcap_width",
	     want_num(json_object_get(want, "lnkcap_width"), b1, sizeof(b1)),
	     num(d.max_width, d.max_width <= 0, b2, sizeof(b2)));
	fact(t, name, "lnksta_gts", want_num(json_object_get(want, "lnksta_gts"), b1, sizeof(b1)),
	     num(d.cur_gts, d.cur_gts <= 0, b2, sizeof(b2)));
	fact(t, name, "lnksta_width",
	     want_num(json_object_get(want, "lnksta_width"), b1, sizeof(b1)),
	     num(d.cur_width, d.cur_width <= 0, b2, sizeof(b2)));
	fact(t, name, "devctl_max_payload",
	     want_num(json_object_get(want, "devctl_max_payload"), b1, sizeof(b1)),
	     num(d.mps, d.mps <= 0, b2, sizeof(b2)));
	fact(t, name, "speed_downgraded", jstr(json_object_get(want, "speed_downgraded"), b1,
					       sizeof(b1)),
	     rc ? NULL : d.cur_gts < d.max_gts ? "true" : "false");
	fact(t, name, "width_downgraded", jstr(json_object_get(want, "width_downgraded"), b1,
					       sizeof(b1)),
	     rc ? NULL : d.cur_width < d.max_width ? "true" : "false");
	free(text);
}

#define LSPCI_FLOOR 81

static void test_lspci(void **state)
{
	struct tally t = { "lspci", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", lspci_one);
	report(&t, LSPCI_FLOOR);
}

/* ---- ibstat, ibv_devinfo ---- */

/* The tool's state word as verbs names it: "Active", "PORT_ACTIVE" ->
 * "ACTIVE" (ibstat.c port_state_str, devinfo.c port_state_str). */
static const char *verbs_state(const char *w, char *buf, size_t len)
{
	size_t i;

	if (!w)
		return NULL;
	if (!strncmp(w, "PORT_", 5))
		w += 5;
	for (i = 0; w[i] && i + 1 < len; i++)
		buf[i] = (char)toupper((unsigned char)w[i]);
	buf[i] = 0;
	return buf;
}

static void ibv_port(struct tally *t, const char *name, const char *ca, const json_t *wp,
		     const json_t *gp)
{
	char what[96], b1[32], b2[32];
	const json_t *v;

	snprintf(what, sizeof(what), "%s port %s state", ca,
		 jstr(json_object_get(wp, "port"), b1, sizeof(b1)));
	fact(t, name, what, verbs_state(json_string_value(json_object_get(wp, "state")), b1,
					sizeof(b1)),
	     json_string_value(json_object_get(gp, "state")));
	snprintf(what, sizeof(what), "%s port %lld link_layer", ca,
		 (long long)json_integer_value(json_object_get(wp, "port")));
	fact(t, name, what, jstr(json_object_get(wp, "link_layer"), b1, sizeof(b1)),
	     json_string_value(json_object_get(gp, "link_layer")));
	if ((v = json_object_get(wp, "phys_state"))) {
		snprintf(what, sizeof(what), "%s port %lld phys_state", ca,
			 (long long)json_integer_value(json_object_get(wp, "port")));
		fact(t, name, what, jstr(v, b1, sizeof(b1)),
		     json_string_value(json_object_get(gp, "phys_state")));
	}
	if ((v = json_object_get(wp, "active_mtu"))) {
		snprintf(what, sizeof(what), "%s port %lld active_mtu", ca,
			 (long long)json_integer_value(json_object_get(wp, "port")));
		fact(t, name, what, jstr(v, b1, sizeof(b1)),
		     gp ? jstr(json_object_get(gp, "active_mtu"), b2, sizeof(b2)) : NULL);
	}
	if ((v = json_object_get(wp, "rate"))) {
		snprintf(what, sizeof(what), "%s port %lld rate", ca,
			 (long long)json_integer_value(json_object_get(wp, "port")));
		fact(t, name, what, want_num(v, b1, sizeof(b1)),
		     num(json_number_value(json_object_get(gp, "rate_gbps")), !gp, b2, sizeof(b2)));
	}
}

/* vb_devices_from_text (verbs/devtext.c): the device list a replay judges
 * when a capture holds the recorded ibv_devinfo -v or ibstat but no
 * verbs/devices.json (ctl/nodesrc.c). */
static void ibv_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	size_t len, i, j;
	char *text = slurp(path, &len), b1[32], what[96];
	json_t *got = vb_devices_from_text(text);
	const json_t *wc;

	snprintf(b1, sizeof(b1), "%zu", json_array_size(json_object_get(want, "cas")));
	snprintf(what, sizeof(what), "%zu", json_array_size(got));
	fact(t, name, "devices", b1, what);
	json_array_foreach(json_object_get(want, "cas"), i, wc) {
		const char *ca = json_string_value(json_object_get(wc, "ca"));
		const json_t *gc = NULL, *g, *wp;

		json_array_foreach(got, j, g)
			if (ca && !strcmp(ca, json_string_value(json_object_get(g, "name"))))
				gc = g;
		snprintf(what, sizeof(what), "%s found", ca);
		fact(t, name, what, "yes", gc ? "yes" : "no");
		snprintf(what, sizeof(what), "%s fw", ca);
		fact(t, name, what, jstr(json_object_get(wc, "fw"), b1, sizeof(b1)),
		     json_string_value(json_object_get(gc, "fw_ver")));
		json_array_foreach(json_object_get(wc, "ports"), j, wp) {
			const json_t *gp = NULL, *q;
			size_t k;

			json_array_foreach(json_object_get(gc, "ports"), k, q)
				if (json_equal(json_object_get(q, "port"), json_object_get(wp, "port")))
					gp = q;
			ibv_port(t, name, ca, wp, gp);
		}
	}
	json_decref(got);
	free(text);
}

#define IBV_FLOOR 139

static void test_ibv(void **state)
{
	struct tally t = { "ibv", 0, 0, 0 };

	(void)state;
	walk(&t, ".txt", ibv_one);
	report(&t, IBV_FLOOR);
}

/* ---- lldpctl -f json, lldpcli -f json0 ---- */

/* fc_lldp_neighbour (core/lldp.c): the switch (system name, else chassis
 * id) and port (id, else description) each interface sees, as the probe's
 * "lldp" of each port (ctl/lldp.c) reads them. */
static void lldp_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	json_t *doc = json_load_file(path, 0, NULL), *wi;
	char ch[128], pt[128], what[96];
	size_t i;

	fact(t, name, "parses", "yes", doc ? "yes" : "no");
	json_array_foreach(json_object_get(want, "interfaces"), i, wi) {
		const char *ifn = json_string_value(json_object_get(wi, "ifname"));
		int rc = fc_lldp_neighbour(doc, ifn ? ifn : "", ch, sizeof(ch), pt, sizeof(pt));

		snprintf(what, sizeof(what), "%s chassis", ifn);
		fact(t, name, what, json_string_value(json_object_get(wi, "chassis")), rc ? NULL : ch);
		snprintf(what, sizeof(what), "%s port", ifn);
		fact(t, name, what, json_string_value(json_object_get(wi, "port")), rc ? NULL : pt);
	}
	/* an interface the capture does not name has no neighbour */
	fact(t, name, "lo: no neighbour", "none",
	     fc_lldp_neighbour(doc, "lo", ch, sizeof(ch), pt, sizeof(pt)) ? "none" : ch);
	json_decref(doc);
}

#define LLDP_FLOOR 20

static void test_lldp(void **state)
{
	struct tally t = { "lldp", 0, 0, 0 };

	(void)state;
	walk(&t, ".json", lldp_one);
	report(&t, LLDP_FLOOR);
}

/* ---- ip -j link, ip -j addr ---- */

/* fc_ip_link (core/iplink.c): each interface's MTU, state (lower case, as
 * sysfs prints it), link type and address, as a replay reads them where a
 * capture holds no sys/class/net files (checks/preflight/pf_probe.c). */
static void ip_one(struct tally *t, const char *name, const char *path, const json_t *want)
{
	static const char *const keys[] = { "mtu", "operstate", "link_type", "address" };
	size_t len, i;
	char *text = slurp(path, &len), b1[64], b2[64], low[32], what[96];
	const json_t *wi;

	json_array_foreach(json_object_get(want, "interfaces"), i, wi) {
		const char *ifn = json_string_value(json_object_get(wi, "ifname"));
		json_t *got = fc_ip_link(text, ifn ? ifn : "");

		for (size_t k = 0; k < FC_ARRAY_SIZE(keys); k++) {
			const char *w = jstr(json_object_get(wi, keys[k]), b1, sizeof(b1));

			if (w && !strcmp(keys[k], "operstate")) { /* ip's "UP" is sysfs's "up" */
				size_t c;

				for (c = 0; w[c] && c + 1 < sizeof(low); c++)
					low[c] = (char)tolower((unsigned char)w[c]);
				low[c] = 0;
				w = low;
			}
			snprintf(what, sizeof(what), "%s %s", ifn, keys[k]);
			fact(t, name, what, w, jstr(json_object_get(got, keys[k]), b2, sizeof(b2)));
		}
		json_decref(got);
	}
	json_array_foreach(json_object_get(want, "not_listed"), i, wi) {
		const char *ifn = json_string_value(wi);
		json_t *got = fc_ip_link(text, ifn ? ifn : "");

		snprintf(what, sizeof(what), "%s: not listed", ifn ? ifn : "?");
		fact(t, name, what, "none", got ? "listed" : "none");
		json_decref(got);
	}
	free(text);
}

#define IP_FLOOR 99

static void test_ip(void **state)
{
	struct tally t = { "ip", 0, 0, 0 };

	(void)state;
	walk(&t, ".json", ip_one);
	report(&t, IP_FLOOR);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lspci),
		cmocka_unit_test(test_ibv),
		cmocka_unit_test(test_lldp),
		cmocka_unit_test(test_ip),
	};

	return cmocka_run_group_tests_name("real captures (host readers)", tests, NULL, NULL);
}
