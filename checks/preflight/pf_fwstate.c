/*
 * Preflight: each HCA's firmware state and health reporters, from the
 * probe's "devlink" of the HCA (pf_probe.c probe_devlink), judged on the
 * node and compared with the same HCA on the rack's other nodes.
 *
 * On the node:
 *  - another firmware stored in flash than the one running: a flash update
 *    that is not active yet; it becomes active at the HCA's next reset
 *    (devlink-info.rst "stored ... even if a reboot has not yet occurred";
 *    mlx5 fw.c mlx5_fw_version_query: the stored version is the pending
 *    image's; mstflint's burn: "To load new FW run mlxfwreset or reboot
 *    machine"). A warning naming the HCA and the reset.
 *  - a version the driver could not read (0 or U32_MAX, mlx5 fw.c since
 *    commit 10dc35f6a443): the pending image could not be queried, as after
 *    a flash that failed. A warning.
 *  - a health reporter in state "error": the driver reported an error that
 *    its recovery did not clear (net/devlink/health.c: the state goes back
 *    to "healthy" only when the reporter's recover op succeeds; mlx5's fw,
 *    fw_fatal, tx and rx reporters, Documentation/networking/devlink/
 *    mlx5.rst). A failure of a rail HCA (a warning for any other), naming
 *    the reporter.
 * Across the nodes (core/util.h fc_majority, by pf_agree_on), each HCA
 * against the HCA with a port on the same rail where the rails place one
 * (device names differ between server models), else the same name: the board's
 * PSID (a board type or configuration other than its peers'), the firmware
 * stored in flash (what each HCA will run after its next reset; a node
 * whose own update is pending is named once, by the rule above) and each
 * healthy reporter's error count (errors it recovered from, where the
 * same HCA on most nodes has another count).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

/* The HCA @dev of node @i's probe, or NULL. */
static const json_t *hca_of(const json_t *probe, const char *dev)
{
	return probe ? fc_jnamed(json_object_get(probe, "hcas"), dev) : NULL;
}

int pf_hca_on_rail(const json_t *sum, const char *dev)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(sum, "ports"), i, p)
		if (!strcmp(fc_jstr(p, "device", ""), dev) && !json_object_get(p, "left_out"))
			return 1;
	return 0;
}

static void fw_state(json_t *doc, const char *node, const char *dev, const json_t *dl)
{
	const char *run = fc_jstr(dl, "running", NULL), *st = fc_jstr(dl, "stored", NULL);
	const char *handle = fc_jstr(dl, "handle", "pci/BDF");

	switch (diag_fw_state(run, st)) {
	case DIAG_FW_PENDING:
		fc_finding(doc, FC_WARN,
			   "%s: %s (%s) runs firmware %s but %s is stored in its flash (devlink dev info): the update is not active until the HCA is reset: run 'mlxfwreset -d %s reset' (or reboot the node), then re-run",
			   node, dev, handle, run, st, handle + 4);
		break;
	case DIAG_FW_UNREADABLE:
		fc_finding(doc, FC_WARN,
			   "%s: %s (%s) runs firmware %s, stored %s: the driver could not read a firmware version (devlink dev info), as after a flash that failed: read 'dmesg | grep -i mlxfw' and 'flint -d %s query', flash again and reset the HCA",
			   node, dev, handle, run, st, handle + 4);
		break;
	default:
		break;
	}
}

static void reporters(json_t *doc, const char *node, const char *dev, const json_t *dl, int rail)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(dl, "health"), i, r) {
		const char *h = fc_jstr(r, "handle", "?"), *name = fc_jstr(r, "reporter", "?");

		if (strcmp(fc_jstr(r, "state", ""), "error"))
			continue;
		fc_finding(doc, rail ? FC_FAIL : FC_WARN,
			   "%s: %s health reporter %s of %s is in error (%.0f errors, devlink health show): read 'devlink health diagnose %s reporter %s' and the kernel log (dmesg | grep mlx5); recover it ('devlink health recover %s reporter %s') or reset the HCA; replace the card if it returns%s",
			   node, dev, name, h, fc_jnum(r, "error", 0), h, name, h, name,
			   rail ? "" : " (not a rail HCA: not judged for a drain)");
		if (rail)
			pf_blame(doc, node, "HCA health", dev);
	}
}

/* The HCAs compared, one per node (NULL: none), each named by its own
 * device, and what the comparison calls them. */
struct hca_column {
	const json_t **hca;
	const char **dev;
	char (*name)[64];
	char label[128];
};

/* Key @key of each HCA's devlink entry into @vals. */
static void column(const struct hca_column *h, int n, const char *key, const char **vals)
{
	for (int i = 0; i < n; i++)
		vals[i] = fc_jstr(json_object_get(h->hca[i], "devlink"), key, NULL);
}

/* Each reporter's error count where it is healthy, per node. */
static void error_counts(json_t *doc, const char *const *names, const struct hca_column *h, int n,
			 const char **vals, char (*text)[24])
{
	const json_t *dl0 = NULL, *r0;
	size_t k;

	for (int i = 0; i < n && !dl0; i++)
		dl0 = json_object_get(json_object_get(h->hca[i], "devlink"), "health");
	json_array_foreach(dl0, k, r0) {
		const char *name = fc_jstr(r0, "reporter", "?");
		char what[256];

		for (int i = 0; i < n; i++) {
			const json_t *rs = json_object_get(json_object_get(h->hca[i], "devlink"),
							   "health");
			const json_t *r;
			size_t j;

			vals[i] = NULL;
			json_array_foreach(rs, j, r)
				if (!strcmp(fc_jstr(r, "reporter", ""), name) &&
				    !strcmp(fc_jstr(r, "state", ""), "healthy") &&
				    fc_jnum(r, "error", -1) >= 0) {
					snprintf(text[i], sizeof(text[i]), "%.0f", fc_jnum(r, "error", 0));
					vals[i] = text[i];
				}
		}
		snprintf(what, sizeof(what), "%s health reporter %s's error count (devlink health show)",
			 h->label, name);
		pf_agree_on(doc, FC_WARN, what, "HCA health", NULL, h->dev, vals, names, n,
			    "the HCA recovered from errors its peers did not have: read 'devlink health diagnose' of the reporter and the kernel log (dmesg | grep mlx5)");
	}
}

/* The firmware stored in flash (what the HCA runs after its next reset)
 * against the value most nodes have; a node whose own update is pending
 * was named by fw_state, not again here. */
static void stored_odd(json_t *doc, const char *const *names, const struct hca_column *h, int n,
		       const char **vals)
{
	int m = fc_majority(vals, n), agree = 0;

	if (m < 0)
		return;
	for (int i = 0; i < n; i++)
		agree += vals[i] && !strcmp(vals[i], vals[m]);
	for (int i = 0; i < n; i++) {
		const json_t *dl = json_object_get(h->hca[i], "devlink");

		if (!vals[i] || !strcmp(vals[i], vals[m]) ||
		    diag_fw_state(fc_jstr(dl, "running", NULL), vals[i]) != DIAG_FW_ACTIVE)
			continue;
		fc_finding(doc, FC_WARN,
			   "%s: %s has firmware %s stored in its flash where %d other nodes have %s (devlink dev info): after their next reset the HCAs run different firmware: flash the same image on every HCA (mlxfwmanager) and reset them",
			   names[i], h->dev[i], vals[i], agree, vals[m]);
	}
}

/* The rail of a port of @dev on @node in the rail set @set, or -1. */
static int dev_rail(const json_t *set, const char *node, const char *dev)
{
	const char *key;
	const json_t *r;
	size_t len = strlen(dev);

	json_object_foreach(json_object_get(json_object_get(set, "rail_of"), node), key, r)
		if (!strncmp(key, dev, len) && key[len] == ':' && json_is_integer(r))
			return (int)json_integer_value(r);
	return -1;
}

/* The device of @node's port on rail @rail into @buf ("" none). */
static void rail_dev(const json_t *set, const char *node, int rail, char *buf, size_t len)
{
	const char *key;
	const json_t *r;

	*buf = 0;
	json_object_foreach(json_object_get(json_object_get(set, "rail_of"), node), key, r)
		if (json_is_integer(r) && json_integer_value(r) == rail) {
			snprintf(buf, len, "%.*s", (int)strcspn(key, ":"), key);
			return;
		}
}

/* The HCA of each node that HCA @dev of node @i is compared with: the one
 * with a port on the same rail where the rail set places a port of @dev
 * (device names differ between server models), else the HCA of the same
 * name. Labelled by its name where every node's has it, else by its rail.
 * Returns the rail (-1: matched by name). */
static int peer_hcas(const json_t *set, const char *const *names, const json_t *const *probes,
		     int n, int i, const char *dev, struct hca_column *h)
{
	int rail = dev_rail(set, names[i], dev), same = 1;

	for (int j = 0; j < n; j++) {
		if (rail >= 0)
			rail_dev(set, names[j], rail, h->name[j], sizeof(h->name[j]));
		else
			snprintf(h->name[j], sizeof(h->name[j]), "%s", dev);
		h->dev[j] = *h->name[j] ? h->name[j] : NULL;
		h->hca[j] = h->dev[j] ? hca_of(probes[j], h->dev[j]) : NULL;
		same &= !h->hca[j] || !strcmp(h->dev[j], dev);
	}
	if (same)
		snprintf(h->label, sizeof(h->label), "%s", dev);
	else {
		const char *rn = json_string_value(
			json_array_get(json_object_get(set, "names"), (size_t)rail));

		snprintf(h->label, sizeof(h->label), "its HCA on rail %d (%s, the rail's name)", rail,
			 rn ? rn : "?");
	}
	return rail;
}

static void across(json_t *doc, const char *const *names, const struct hca_column *h, int n)
{
	const char **vals = calloc((size_t)n + 1, sizeof(*vals));
	char (*text)[24] = calloc((size_t)n + 1, sizeof(*text));
	char what[256];

	if (vals && text) {
		column(h, n, "psid", vals);
		snprintf(what, sizeof(what), "%s board (PSID, devlink dev info)", h->label);
		pf_agree_on(doc, FC_WARN, what, "HCA board", NULL, h->dev, vals, names, n,
			    "the HCA is another board type or configuration than its peers': check its part number (lspci -vv [PN]) and fit the one the other nodes have");
		column(h, n, "stored", vals);
		stored_odd(doc, names, h, n, vals);
		error_counts(doc, names, h, n, vals, text);
	}
	free(vals);
	free(text);
}

/* HCA @dev of node @i against the same HCA of the other nodes, once per
 * rail (or name) in @seen. */
static void compare(json_t *doc, const char *const *names, const json_t *const *probes, int n,
		    int i, const char *dev, const json_t *set, json_t *seen)
{
	struct hca_column h = { calloc((size_t)n + 1, sizeof(*h.hca)),
				calloc((size_t)n + 1, sizeof(*h.dev)),
				calloc((size_t)n + 1, sizeof(*h.name)), "" };
	char key[96];
	int rail;

	if (h.hca && h.dev && h.name) {
		rail = peer_hcas(set, names, probes, n, i, dev, &h);
		if (rail >= 0)
			snprintf(key, sizeof(key), "rail %d", rail);
		else
			snprintf(key, sizeof(key), "name %s", dev);
		if (!json_object_get(seen, key)) {
			json_object_set_new(seen, key, json_true());
			across(doc, names, &h, n);
		}
	}
	free(h.hca);
	free(h.dev);
	free(h.name);
}

void pf_check_fw_state(json_t *doc, const char *const *names, const json_t *const *probes,
		       const json_t *const *sums, int n, const json_t *set)
{
	json_t *seen = json_object();

	for (int i = 0; i < n; i++) {
		const json_t *h;
		size_t k;

		json_array_foreach(probes[i] ? json_object_get(probes[i], "hcas") : NULL, k, h) {
			const char *dev = fc_jstr(h, "name", "?");
			const json_t *dl = json_object_get(h, "devlink");

			if (!dl)
				continue;
			fw_state(doc, names[i], dev, dl);
			reporters(doc, names[i], dev, dl, pf_hca_on_rail(sums[i], dev));
			compare(doc, names, probes, n, i, dev, set, seen);
		}
	}
	json_decref(seen);
}
