/*
 * Live readings for a snapshot that more than one command takes: the PCIe
 * link and AER files of the functions on a device's sysfs path.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "diag/diag.h"

static const char *const pcie_files[] = {
	"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
	"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
};

static void put_file(json_t *snap, const char *rel, const char *path)
{
	char buf[4096];

	if (fc_read_file(path, buf, sizeof(buf)) >= 0)
		json_object_set_new(snap, rel, json_string(buf));
}

static void pcie_dev(const char *root, json_t *snap, const char *role, const char *bdf)
{
	char dir[512], rel[700], path[700];
	uint8_t cfg[256];
	int fd, mps;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bdf);
	for (size_t i = 0; i < sizeof(pcie_files) / sizeof(pcie_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pcie_files[i]);
		snprintf(rel, sizeof(rel), "pcie/%s-%s/%s", role, bdf, pcie_files[i]);
		put_file(snap, rel, path);
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, cfg, sizeof(cfg)) : -1;
	if (fd >= 0)
		close(fd);
	mps = n > 0 ? diag_pcie_mps_from_config(cfg, (size_t)n) : 0;
	if (mps > 0) {
		char v[16];

		snprintf(rel, sizeof(rel), "pcie/%s-%s/max_payload", role, bdf);
		snprintf(v, sizeof(v), "%d\n", mps);
		json_object_set_new(snap, rel, json_string(v));
	}
}

static int is_bdf(const char *s)
{
	unsigned a, b, c, d;
	char tail;

	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &d, &tail) == 4;
}

static int snap_pcie_at(const char *root, json_t *snap, const char *link, const char *last_role,
		       json_t *seen)
{
	char real[PATH_MAX], *save = NULL, *tok, bdfs[24][16];
	int n = 0;

	if (!realpath(link, real))
		return 0;
	for (tok = strtok_r(real, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		if (is_bdf(tok) && n < 24)
			snprintf(bdfs[n++], sizeof(bdfs[0]), "%s", tok);
	for (int i = 0; i < n; i++) {
		if (json_object_get(seen, bdfs[i]))
			continue;
		json_object_set_new(seen, bdfs[i], json_true());
		pcie_dev(root, snap, i == n - 1 ? last_role : "bridge", bdfs[i]);
	}
	return n;
}

int diag_snap_pcie(json_t *snap, const char *link, const char *last_role, json_t *seen)
{
	return snap_pcie_at("/sys", snap, link, last_role, seen);
}


json_t *diag_pcie_json(const struct diag_pcie *d)
{
	return json_pack("{s:s, s:f, s:i, s:f, s:i, s:i, s:f}", "bdf", d->bdf, "gts", d->cur_gts,
			 "width", d->cur_width, "max_gts", d->max_gts, "max_width", d->max_width,
			 "max_payload_bytes", d->mps, "ceiling_gbps", d->ceiling_gbps);
}

json_t *diag_hca_pcie_json(const char *root, const char *ibdev)
{
	json_t *snap = json_object(), *seen = json_object(), *out = NULL;
	struct diag_set s = { 0 };
	char link[512];

	snprintf(link, sizeof(link), "%s/class/infiniband/%s/device", root, ibdev);
	if (snap_pcie_at(root, snap, link, "hca", seen)) {
		const struct diag_port *p = diag_set_add(&s, "", ibdev, 1, NULL, snap);

		for (int i = 0; p && i < p->npcie && !out; i++) {
			const struct diag_pcie *d = &p->pcie[i];

			if (!strcmp(d->role, "hca") && d->cur_gts > 0)
				out = diag_pcie_json(d);
		}
	}
	diag_set_release(&s);
	json_decref(snap);
	json_decref(seen);
	return out ? out : json_null();
}
