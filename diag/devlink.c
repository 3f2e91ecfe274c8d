/*
 * The HCA's firmware state from `devlink dev info`: the board's PSID, the
 * firmware it runs and the firmware stored in its flash.
 *
 * Sources:
 *  - Documentation/networking/devlink/devlink-info.rst: "running" is the
 *    version of the component now running ("these versions generally only
 *    update after a reboot"); "stored" the version in flash, updated by a
 *    flash update "even if a reboot has not yet occurred"; "fixed" versions
 *    (fw.psid) identify the board and never change.
 *  - Documentation/networking/devlink/mlx5.rst: mlx5 reports fw.psid (the
 *    HCA board type ID) fixed, and fw.version running and stored.
 *  - drivers/net/ethernet/mellanox/mlx5/core/devlink.c mlx5_devlink_info_get
 *    and fw.c mlx5_fw_version_query: "stored" is the pending image's version
 *    (MCQI_FW_STORED_VERSION) when the MCQS component status says an image is
 *    pending, else the running version again; since upstream commit
 *    10dc35f6a443 ("net/mlx5: Avoid "No data available" when FW version
 *    queries fail") a version the firmware could not report is printed as
 *    0 or U32_MAX: "255.255.65535" in the driver's "%d.%d.%04d".
 *  - iproute2 devlink/devlink.c pr_out_info / pr_out_versions: the text
 *    layout ("HANDLE:", "  versions:", "      fixed:" / "running:" /
 *    "stored:", "        NAME VALUE").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "diag/diag.h"
#include "diag/rules.h"

/* The text of line @p (@len bytes) without trailing blanks. */
static size_t trimmed(const char *p, size_t len)
{
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\r' || p[len - 1] == '\t'))
		len--;
	return len;
}

/* "NAME VALUE" of section @sec into @cur: fw.psid (fixed), fw.version (or
 * "fw" when no fw.version is given) running and stored. */
static void info_version(json_t *cur, const char *sec, const char *p, size_t len)
{
	char name[64], val[64];
	const char *key = NULL;

	if (len >= 120 || sscanf(p, "%63s %63s", name, val) != 2)
		return;
	if (!strcmp(sec, "fixed") && !strcmp(name, "fw.psid"))
		key = "psid";
	else if (strcmp(sec, "running") && strcmp(sec, "stored"))
		return;
	else if (!strcmp(name, "fw.version"))
		key = sec;
	else if (!strcmp(name, "fw") && !json_object_get(cur, sec))
		key = sec; /* "fw" alone: the overall version (devlink-info.rst) */
	if (key)
		json_object_set_new(cur, key, json_string(val));
}

json_t *diag_parse_devlink_info(const char *text)
{
	json_t *out = json_array(), *cur = NULL;
	char sec[16] = "";

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *p = line + strspn(line, " \t");
		size_t len = trimmed(line, nl ? (size_t)(nl - line) : strlen(line));
		size_t plen = len > (size_t)(p - line) ? len - (size_t)(p - line) : 0;

		if (p == line && plen > 1 && plen < 64 && p[plen - 1] == ':' &&
		    (!strncmp(p, "pci/", 4) || !strncmp(p, "auxiliary/", 10))) {
			cur = json_pack("{s:s%}", "handle", p, plen - 1);
			json_array_append_new(out, cur);
			sec[0] = 0;
		} else if (cur && plen > 1 && plen < sizeof(sec) && p[plen - 1] == ':') {
			snprintf(sec, sizeof(sec), "%.*s", (int)plen - 1, p);
		} else if (cur && *sec && plen) {
			info_version(cur, sec, p, plen);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!json_array_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* A version the firmware could not report (mlx5 fw.c: 0 or U32_MAX). */
static int unreadable(const char *v)
{
	return !strcmp(v, "255.255.65535") || !strcmp(v, "0.0.0000") || !strcmp(v, "0.0.0");
}

enum diag_fw_state diag_fw_state(const char *running, const char *stored)
{
	if (!running || !stored || !*running || !*stored)
		return DIAG_FW_UNKNOWN;
	if (unreadable(stored) || unreadable(running))
		return DIAG_FW_UNREADABLE;
	return strcmp(running, stored) ? DIAG_FW_PENDING : DIAG_FW_ACTIVE;
}

const char *diag_fw_state_name(enum diag_fw_state st)
{
	static const char *const names[] = { "unknown", "active", "pending", "unreadable" };

	return names[st];
}

const json_t *diag_devlink_find(const json_t *list, const char *bdf)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *h = json_string_value(json_object_get(e, "handle"));

		if (h && bdf && !strncmp(h, "pci/", 4) && !strcmp(h + 4, bdf))
			return e;
	}
	return NULL;
}

void diag_port_fw(struct diag_port *p, const char *text)
{
	json_t *list = diag_parse_devlink_info(text);
	const json_t *e = json_array_get(list, 0);

	snprintf(p->fw_running, sizeof(p->fw_running), "%s", fc_jstr(e, "running", ""));
	snprintf(p->fw_stored, sizeof(p->fw_stored), "%s", fc_jstr(e, "stored", ""));
	snprintf(p->fw_psid, sizeof(p->fw_psid), "%s", fc_jstr(e, "psid", ""));
	json_decref(list);
}

/* The HCA's firmware not in the state it should be (devlink dev info),
 * once per card (its first port in the evidence): another firmware stored
 * than the one running (active only after a reset), or a version the
 * driver could not read. "possible": the state says what the HCA will run
 * after a reset, not that it caused this test's loss. */
void diag_r_hca_fw(struct diag_ctx *c, const struct diag_port *p)
{
	enum diag_fw_state st = diag_fw_state(p->fw_running, p->fw_stored);
	const char *bdf = *p->hca_bdf ? p->hca_bdf : "BDF";
	char subj[256], next[400];

	if (st != DIAG_FW_PENDING && st != DIAG_FW_UNREADABLE)
		return;
	for (const struct diag_port *q = c->set->ports; q < p; q++)
		if (!strcmp(q->node, p->node) &&
		    (!strcmp(q->dev, p->dev) || (*p->hca_bdf && !strcmp(q->hca_bdf, p->hca_bdf))))
			return;
	snprintf(subj, sizeof(subj), "%s %s", p->node, p->dev);
	snprintf(next, sizeof(next),
		 st == DIAG_FW_PENDING
			 ? "reset the HCA ('mlxfwreset -d %s reset') or reboot the node so that it runs the firmware in its flash, then re-run"
			 : "read 'dmesg | grep -i mlxfw' and 'flint -d %s query'; flash the firmware again and reset the HCA, then re-run",
		 bdf);
	diag_emit_f(c, "hca_fw", subj,
		    st == DIAG_FW_PENDING ? "HCA (firmware not active)" : "HCA (firmware)", 0, next,
		    st == DIAG_FW_PENDING
			    ? "the HCA runs firmware %s but %s is stored in its flash (devlink dev info): an update not active until the HCA is reset"
			    : "the driver could not read a firmware version of the HCA (devlink dev info: running %s, stored %s), as after a flash that failed",
		    p->fw_running, p->fw_stored);
}
