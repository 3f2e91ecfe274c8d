/*
 * The sysfs part of a capture: the files fabcheck's readers read, copied
 * under sys/ with the paths and the relative links they have under /sys, so
 * that a reader given the bundle's sys/ as its root reads what it read live.
 * Copied: every PCI function's link and attributes (the PCIe tree), each
 * RDMA device's folder whole (ports, GIDs, counters, hw_counters), each net
 * device's attributes and statistics, the modules' versions, the peer-memory
 * clients and the NUMA nodes. Links are followed only where a reader follows
 * them; the others (subsystem, iommu_group, ...) are left out, so no link
 * in a capture leads nowhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/preflight/capture.h"
#include "core/fc.h"
#include "core/util.h"

/* The attributes of a PCI function the readers read (topo/pcitopo.c,
 * gdr/numa.c, diag/live.c), and those a person judging the node asks for. */
static const char *const pci_attrs[] = {
	"class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision",
	"numa_node", "local_cpulist", "current_link_speed", "current_link_width",
	"max_link_speed", "max_link_width", "config", "aer_dev_correctable", "aer_dev_fatal",
	"aer_dev_nonfatal", "aer_rootport_total_err_cor", "aer_rootport_total_err_fatal",
	"aer_rootport_total_err_nonfatal", "sriov_numvfs", "sriov_totalvfs",
};

/* The most of one sysfs file kept (config space is 4 KiB). */

struct sys_copy {
	struct fc_bundle_w *w;
	const char *root;
	double deadline;
	int files, skipped;
	json_t *done; /* the targets copied (a set of paths) */
};

static int cap_late(const struct sys_copy *c)
{
	return fc_now() > c->deadline;
}

/* One file @rel of sysfs into sys/@rel (a file that cannot be read, as
 * write-only ones or those a driver refuses, is skipped and counted). */
static void copy_file(struct sys_copy *c, const char *rel)
{
	char path[PATH_MAX], brel[PATH_MAX + 8], from[PATH_MAX + 8];
	size_t len = 0;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	buf = fd >= 0 ? fc_read_fd(fd, CAP_SYS_FILE_MAX, &len) : NULL;
	if (fd >= 0)
		close(fd);
	if (!buf) {
		c->skipped++;
		return;
	}
	snprintf(brel, sizeof(brel), "sys/%s", rel);
	snprintf(from, sizeof(from), "/sys/%s", rel);
	if (!fc_bw_put(c->w, brel, buf, len, from, -1))
		c->files++;
	free(buf);
}

/* Where the link @rel points, as a path under the root ("" when it leaves
 * the root or is absolute); its text in @tgt. */
static int link_target(struct sys_copy *c, const char *rel, char *tgt, size_t tlen, char *out,
		       size_t olen)
{
	char path[PATH_MAX], buf[PATH_MAX * 2], *comp[256], *save = NULL, *tok;
	int n = 0, o = 0;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	r = readlink(path, tgt, tlen - 1);
	if (r <= 0 || tgt[0] == '/')
		return -1;
	tgt[r] = 0;
	snprintf(buf, sizeof(buf), "%s/../%s", rel, tgt);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!n)
				return -1;
			n--;
		} else if (n < 256) {
			comp[n++] = tok;
		}
	}
	*out = 0;
	for (int i = 0; i < n && o < (int)olen; i++)
		o += snprintf(out + o, olen - o, "%s%s", i ? "/" : "", comp[i]);
	return n ? 0 : -1;
}

static void copy_dir(struct sys_copy *c, const char *rel, int depth);

/* The link @rel, and what it points to, copied by @how. */
static void copy_link(struct sys_copy *c, const char *rel, int depth,
		      void (*how)(struct sys_copy *c, const char *rel, int depth))
{
	char tgt[PATH_MAX], dest[PATH_MAX], brel[PATH_MAX + 8], bdest[PATH_MAX + 8];
	struct stat st;

	snprintf(tgt, sizeof(tgt), "%s/%s", c->root, rel);
	if (lstat(tgt, &st) == 0 && S_ISDIR(st.st_mode)) { /* a recorded tree's folder */
		if (!json_object_get(c->done, rel)) {
			json_object_set_new(c->done, rel, json_true());
			how(c, rel, depth);
		}
		return;
	}
	if (link_target(c, rel, tgt, sizeof(tgt), dest, sizeof(dest)))
		return;
	snprintf(bdest, sizeof(bdest), "%s/sys/%s", c->w->root, dest);
	if (!json_object_get(c->done, dest)) { /* each target once */
		json_object_set_new(c->done, dest, json_true());
		how(c, dest, depth);
	}
	snprintf(brel, sizeof(brel), "sys/%s", rel);
	if (lstat(bdest, &st) == 0)
		fc_bw_link(c->w, brel, tgt);
}

/* A PCI function: its attributes and its driver's module. */
static void copy_pci(struct sys_copy *c, const char *rel, int depth)
{
	char p[PATH_MAX], brel[PATH_MAX + 8];

	(void)depth;
	for (size_t i = 0; i < FC_ARRAY_SIZE(pci_attrs); i++) {
		snprintf(p, sizeof(p), "%s/%s", rel, pci_attrs[i]);
		copy_file(c, p);
	}
	snprintf(brel, sizeof(brel), "sys/%s", rel);
	fc_bw_mkdir(c->w, brel); /* the folder, even with no attribute read */
	snprintf(p, sizeof(p), "%s/driver", rel);
	copy_link(c, p, 0, copy_dir);
}

/* A folder whole (an RDMA device, a driver's), to @depth levels; its links
 * only where readers follow them ("device", "module"). */
static void copy_dir(struct sys_copy *c, const char *rel, int depth)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	d = opendir(path);
	while (d && (e = readdir(d)) && !cap_late(c)) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "power") ||
		    !strcmp(e->d_name, "subsystem") || !strcmp(e->d_name, "uevent"))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >= (int)sizeof(sub) ||
		    snprintf(path, sizeof(path), "%s/%s", c->root, sub) >= (int)sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			if (!strcmp(e->d_name, "device"))
				copy_link(c, sub, 0, copy_pci);
			else if (!strcmp(e->d_name, "module"))
				copy_link(c, sub, 1, copy_dir);
		} else if (S_ISDIR(st.st_mode)) {
			if (depth > 0 && strcmp(e->d_name, "drivers") && strcmp(e->d_name, "holders") &&
			    strcmp(e->d_name, "sections") && strcmp(e->d_name, "notes"))
				copy_dir(c, sub, depth - 1);
		} else if (S_ISREG(st.st_mode) && (st.st_mode & 0444)) {
			copy_file(c, sub);
		}
	}
	if (d)
		closedir(d);
}

/* Each entry of the class or bus folder @rel: its link and its target. */
static void copy_class(struct sys_copy *c, const char *rel, int depth,
		       void (*how)(struct sys_copy *c, const char *rel, int depth),
		       const char *skip)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	d = opendir(path);
	while (d && (e = readdir(d)) && !cap_late(c)) {
		if (e->d_name[0] == '.' || (skip && !strcmp(e->d_name, skip)))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name);
		copy_link(c, sub, depth, how);
	}
	if (d)
		closedir(d);
}

/* Optional files (module versions, peer-memory clients, NUMA nodes). */
static void copy_extras(struct sys_copy *c)
{
	static const char *const mods[] = {
		"ib_core", "ib_uverbs", "mlx5_core", "mlx5_ib", "rdma_rxe", "nvidia",
		"nvidia_peermem", "nv_peer_mem", "irdma", "bnxt_re", "siw",
	};
	char rel[PATH_MAX], path[PATH_MAX], brel[PATH_MAX + 8];
	struct dirent *e;
	DIR *d;

	for (size_t i = 0; i < FC_ARRAY_SIZE(mods); i++) {
		snprintf(rel, sizeof(rel), "module/%s", mods[i]);
		if (snprintf(path, sizeof(path), "%s/%s", c->root, rel) >= (int)sizeof(path) ||
		    access(path, F_OK))
			continue;
		snprintf(brel, sizeof(brel), "sys/%s", rel);
		fc_bw_mkdir(c->w, brel);
		snprintf(rel, sizeof(rel), "module/%s/version", mods[i]);
		copy_file(c, rel);
	}
	copy_file(c, "kernel/mm/memory_peers/nv_mem/version");
	copy_file(c, "kernel/mm/memory_peers/nv_mem_nc/version");
	snprintf(path, sizeof(path), "%s/devices/system/node", c->root);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
			snprintf(rel, sizeof(rel), "devices/system/node/%s/cpulist", e->d_name);
			copy_file(c, rel);
			snprintf(rel, sizeof(rel), "devices/system/node/%s/distance", e->d_name);
			copy_file(c, rel);
		}
	if (d)
		closedir(d);
}

/* A net device: its attributes, statistics and PCI function. */
static void copy_net(struct sys_copy *c, const char *rel, int depth)
{
	(void)depth;
	copy_dir(c, rel, 1);
}

int cap_sysfs(struct fc_bundle_w *w, const char *root, double deadline)
{
	struct sys_copy c = { .w = w, .root = root, .deadline = deadline, .done = json_object() };
	char why[128];

	copy_class(&c, "bus/pci/devices", 0, copy_pci, NULL);
	copy_class(&c, "class/infiniband", 6, copy_dir, NULL);
	copy_class(&c, "class/net", 0, copy_net, NULL);
	copy_extras(&c);
	if (cap_late(&c)) {
		snprintf(why, sizeof(why), "the capture's deadline passed while sysfs was copied, "
			 "after %d file%s: the rest is missing", c.files, fc_s(c.files));
		fc_bw_skip(w, "/sys", NULL, why);
	}
	json_decref(c.done);
	return c.files;
}
