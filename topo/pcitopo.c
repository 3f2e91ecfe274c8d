/*
 * Loading the PCIe topology from sysfs (or a recorded tree of the same shape).
 *
 * What is read, relative to the root (default /sys):
 *   bus/pci/devices/BDF -> symlink into devices/pciDDDD:BB/.../BDF: the chain
 *       of bridges from the host bridge down to the device
 *   BDF/{vendor,device,class,numa_node}; a GPU's device id tells C2C
 *       (topo_gpu_c2c_id)
 *   BDF/{current,max}_link_{speed,width}
 *   BDF/config: config space; the ACS extended capability (id 0x000d at
 *       0x100 and up) gives the ACS control bits, as `lspci -vvv` shows them.
 *       Only root reads past the first 64 bytes; then ACS is "unknown". A
 *       recorded tree stores the 4096 bytes of `config` (or just enough to
 *       hold the capability chain), as `cat config > file` as root writes it.
 *   class/infiniband/DEV/device -> the HCA's PCI function; ports/P/...
 *   class/net/NETDEV/mtu
 *   module/nvidia_peermem, kernel/mm/memory_peers/{nv_mem,nv_mem_nc,
 *       nvidia-peermem}/version, module/nv_peer_mem: peer-memory modules.
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

#include "core/fc.h"
#include "core/gid.h"
#include "core/log.h"
#include "core/util.h"
#include "topo/pcitopo.h"

#define TOPO_MAX_DEVS 4096

/* @a/@b into @out; -ENAMETOOLONG when it does not fit. */
static int pjoin(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int rd_str(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];

	if (pjoin(path, sizeof(path), dir, attr))
		return -ENAMETOOLONG;
	return fc_read_file(path, buf, len);
}

static long rd_long(const char *dir, const char *attr, int base, long dflt)
{
	char buf[64], *end;
	long v;

	if (rd_str(dir, attr, buf, sizeof(buf)) <= 0)
		return dflt;
	v = strtol(buf, &end, base);
	return end == buf ? dflt : v;
}

static int path_exists(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) == 0;
}

/*
 * Splits the target of bus/pci/devices/@name into the host bridge and the
 * bridges above the device. Relative links are resolved against
 * bus/pci/devices; absolute ones that start with /sys are taken as relative
 * to the root (a recorded tree).
 */
static int dev_chain(const char *root, const char *name, struct topo_dev *d)
{
	char link[PATH_MAX], path[PATH_MAX * 2];
	char *comp[128], *save = NULL, *tok;
	int n = 0, r;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root, name);
	r = (int)readlink(path, link, sizeof(link) - 1);
	if (r < 0)
		return -errno;
	link[r] = '\0';
	if (link[0] == '/')
		snprintf(path, sizeof(path), "%s", !strncmp(link, "/sys/", 5) ? link + 5 : link);
	else
		snprintf(path, sizeof(path), "bus/pci/devices/%s", link);
	for (tok = strtok_r(path, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			n -= n > 0;
			continue;
		}
		if (n == (int)FC_ARRAY_SIZE(comp))
			return -ELOOP;
		comp[n++] = tok;
	}
	/* The host bridge: the last "pciDDDD:BB" component. */
	for (int i = n - 2; i >= 0; i--) {
		char bdf[TOPO_BDF_LEN];

		if (strncmp(comp[i], "pci", 3) || topo_bdf_norm(comp[i], bdf) == 0)
			continue;
		if (n - 2 - i > TOPO_MAX_DEPTH)
			return -E2BIG;
		snprintf(d->root, sizeof(d->root), "%s", comp[i]);
		d->depth = 0;
		for (int k = i + 1; k < n - 1; k++) {
			if (topo_bdf_norm(comp[k], d->chain[d->depth]))
				return -EINVAL;
			d->depth++;
		}
		return 0;
	}
	return -EINVAL;
}

static void dev_link(const char *dir, struct topo_dev *d)
{
	char buf[64];

	if (rd_str(dir, "current_link_speed", buf, sizeof(buf)) > 0)
		d->link.cur_gts = topo_parse_gts(buf);
	if (rd_str(dir, "max_link_speed", buf, sizeof(buf)) > 0)
		d->link.max_gts = topo_parse_gts(buf);
	d->link.cur_width = (int)rd_long(dir, "current_link_width", 10, 0);
	d->link.max_width = (int)rd_long(dir, "max_link_width", 10, 0);
	if (d->link.cur_width < 0 || d->link.cur_width > 64)
		d->link.cur_width = 0;
	if (d->link.max_width < 0 || d->link.max_width > 64)
		d->link.max_width = 0;
}

static void dev_acs(const char *dir, struct topo_dev *d)
{
	char path[PATH_MAX];
	uint8_t cfg[4096];
	ssize_t n;
	int fd, acs;

	d->acs_ctl = -1;
	if (pjoin(path, sizeof(path), dir, "config"))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, cfg, sizeof(cfg));
	close(fd);
	if (n <= 0)
		return;
	acs = topo_acs_from_config(cfg, (size_t)n);
	if (acs == -ENODATA)
		return;
	d->acs_known = 1;
	d->acs_ctl = acs;
}

static int dev_read(const char *root, const char *name, struct topo_dev *d)
{
	char dir[PATH_MAX];
	int err;

	memset(d, 0, sizeof(*d));
	d->index = -1;
	d->acs_ctl = -1;
	if (topo_bdf_norm(name, d->bdf))
		return -EINVAL;
	snprintf(d->name, sizeof(d->name), "%s", d->bdf);
	err = dev_chain(root, name, d);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, name);
	d->vendor = (unsigned)rd_long(dir, "vendor", 16, 0);
	d->device = (unsigned)rd_long(dir, "device", 16, 0);
	d->class_code = (unsigned)rd_long(dir, "class", 16, 0);
	d->subsys_vendor = (unsigned)rd_long(dir, "subsystem_vendor", 16, 0);
	d->subsys_device = (unsigned)rd_long(dir, "subsystem_device", 16, 0);
	d->numa = (int)rd_long(dir, "numa_node", 10, -1);
	if (d->numa < -1 || d->numa > 4095)
		d->numa = -1;
	dev_link(dir, d);
	if ((d->class_code >> 8) == 0x0604)
		d->kind = TOPO_KIND_BRIDGE;
	else if (d->vendor == 0x10de && (d->class_code >> 16) == 0x03)
		d->kind = TOPO_KIND_GPU;
	else if (d->vendor == 0x15b3 && d->device == 0x2100)
		d->data_direct = 1; /* data_direct.c mlx5_data_direct_pci_table */
	else if (d->vendor == 0x15b3 &&
		 ((d->class_code >> 8) == 0x0207 || (d->class_code >> 8) == 0x0200))
		d->kind = TOPO_KIND_NIC;
	if (d->kind == TOPO_KIND_BRIDGE)
		dev_acs(dir, d);
	d->c2c = d->kind == TOPO_KIND_GPU && topo_gpu_c2c_id(d->vendor, d->device);
	return 0;
}

static int cmp_bdf(const void *a, const void *b)
{
	return strcmp(((const struct topo_dev *)a)->bdf, ((const struct topo_dev *)b)->bdf);
}

static int load_pci(struct topo *t)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int err = 0, cap = 0;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", t->sysfs_root);
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		fc_err("sysfs: cannot read %s: %s; give --sysfs a sysfs tree (a folder holding bus/pci/devices)",
		       path, strerror(-err));
		return err;
	}
	while ((de = readdir(dir)) && t->ndevs < TOPO_MAX_DEVS) {
		struct topo_dev d;
		int r;

		if (de->d_name[0] == '.')
			continue;
		r = dev_read(t->sysfs_root, de->d_name, &d);
		if (r) {
			fc_dbg("sysfs: skipping pci device %s: %s", de->d_name, strerror(-r));
			continue;
		}
		if (t->ndevs == cap) {
			struct topo_dev *nd;

			cap = cap ? cap * 2 : 64;
			nd = realloc(t->devs, sizeof(*nd) * (size_t)cap);
			if (!nd) {
				err = -ENOMEM;
				break;
			}
			t->devs = nd;
		}
		t->devs[t->ndevs++] = d;
	}
	closedir(dir);
	if (!err && t->ndevs)
		qsort(t->devs, (size_t)t->ndevs, sizeof(*t->devs), cmp_bdf);
	return err;
}

/* Best RoCE v2 GID, netdev and MTU of one Ethernet port. */
static void port_roce(const struct topo *t, const char *pdir, struct topo_port *p)
{
	struct fc_gid gids[256];
	char buf[128], attr[64], dirp[PATH_MAX];
	int n = 0, best;

	p->roce_v2_gid = -1;
	for (int i = 0; i < 256; i++) {
		struct fc_gid *g = &gids[n];

		memset(g, 0, sizeof(*g));
		snprintf(attr, sizeof(attr), "gids/%d", i);
		if (rd_str(pdir, attr, buf, sizeof(buf)) == -ENOENT)
			break;
		if (fc_gid_parse(buf, g->raw) || fc_gid_is_zero(g->raw))
			continue;
		snprintf(attr, sizeof(attr), "gid_attrs/types/%d", i);
		if (rd_str(pdir, attr, buf, sizeof(buf)) <= 0 || fc_gid_type_parse(buf, &g->type))
			continue;
		snprintf(attr, sizeof(attr), "gid_attrs/ndevs/%d", i);
		if (rd_str(pdir, attr, g->netdev, sizeof(g->netdev)) < 0)
			g->netdev[0] = '\0';
		g->index = i;
		if (!p->netdev[0] && g->netdev[0])
			snprintf(p->netdev, sizeof(p->netdev), "%s", g->netdev);
		n++;
	}
	best = fc_gid_choose(gids, n, 1, p->netdev[0] ? p->netdev : NULL);
	if (best >= 0 && gids[best].type == FC_GID_ROCE_V2) {
		p->roce_v2_gid = gids[best].index;
		p->roce_v2_ipv4 = fc_gid_is_ipv4_mapped(gids[best].raw);
	}
	if (p->netdev[0]) {
		snprintf(dirp, sizeof(dirp), "%s/class/net/%s", t->sysfs_root, p->netdev);
		p->mtu = (int)rd_long(dirp, "mtu", 10, 0);
	}
}

/* ports/P/rate as the kernel writes it (drivers/infiniband/core/sysfs.c
 * rate_show: "%d%s Gb/sec (%dX%s)", e.g. "400 Gb/sec (4X NDR)",
 * "2.5 Gb/sec (1X SDR)") in Mb/s; 0 when absent or not a rate. */
static int port_rate(const char *pdir)
{
	char buf[64], *end;
	double gb;

	if (rd_str(pdir, "rate", buf, sizeof(buf)) <= 0)
		return 0;
	gb = strtod(buf, &end);
	if (end == buf || gb <= 0 || gb > 100000 || strncmp(end, " Gb/sec", 7))
		return 0;
	return (int)(gb * 1000 + 0.5);
}

static void nic_ports(const struct topo *t, const char *ibdir, struct topo_dev *d)
{
	char path[PATH_MAX], pdir[PATH_MAX + 256];
	struct dirent *de;
	DIR *dir;

	if (pjoin(path, sizeof(path), ibdir, "ports"))
		return;
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && d->nports < TOPO_MAX_PORTS) {
		struct topo_port *p = &d->ports[d->nports];
		int num = atoi(de->d_name);

		if (num <= 0)
			continue;
		memset(p, 0, sizeof(*p));
		p->port = num;
		p->roce_v2_gid = -1;
		if (pjoin(pdir, sizeof(pdir), path, de->d_name))
			continue;
		rd_str(pdir, "link_layer", p->link_layer, sizeof(p->link_layer));
		rd_str(pdir, "state", p->state, sizeof(p->state));
		p->rate_mbps = port_rate(pdir);
		if (!strcmp(p->link_layer, "Ethernet"))
			port_roce(t, pdir, p);
		d->nports++;
	}
	closedir(dir);
}

/* Names the PCI functions that have an RDMA device. */
static void load_ib(struct topo *t)
{
	char path[PATH_MAX], link[PATH_MAX], ibdir[PATH_MAX + 256];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband", t->sysfs_root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char bdf[TOPO_BDF_LEN], devlink[PATH_MAX + 16];
		struct topo_dev *d;
		const char *base;
		int r;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(d->name))
			continue;
		if (pjoin(ibdir, sizeof(ibdir), path, de->d_name) ||
		    pjoin(devlink, sizeof(devlink), ibdir, "device"))
			continue;
		r = (int)readlink(devlink, link, sizeof(link) - 1);
		if (r <= 0)
			continue; /* software device (rxe, siw): not on PCI */
		link[r] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (topo_bdf_norm(base, bdf))
			continue;
		d = (struct topo_dev *)topo_find(t, bdf);
		if (!d || (d->kind == TOPO_KIND_NIC && strcmp(d->name, d->bdf)))
			continue; /* not listed, or a second name for one function */
		d->kind = TOPO_KIND_NIC;
		memcpy(d->name, de->d_name, strlen(de->d_name) + 1);
		nic_ports(t, ibdir, d);
	}
	closedir(dir);
}

static int cmp_nic(const void *a, const void *b, void *arg)
{
	const struct topo *t = arg;

	return strverscmp(t->devs[*(const int *)a].name, t->devs[*(const int *)b].name);
}

static int index_devs(struct topo *t)
{
	t->gpus = calloc((size_t)t->ndevs + 1, sizeof(int));
	t->nics = calloc((size_t)t->ndevs + 1, sizeof(int));
	if (!t->gpus || !t->nics)
		return -ENOMEM;
	for (int i = 0; i < t->ndevs; i++) {
		struct topo_dev *d = &t->devs[i];

		if (d->kind == TOPO_KIND_GPU) {
			d->index = t->ngpus;
			snprintf(d->name, sizeof(d->name), "GPU%d", t->ngpus);
			t->gpus[t->ngpus++] = i;
		} else if (d->kind == TOPO_KIND_NIC) {
			t->nics[t->nnics++] = i;
		}
	}
	qsort_r(t->nics, (size_t)t->nnics, sizeof(int), cmp_nic, t);
	for (int i = 0; i < t->nnics; i++)
		t->devs[t->nics[i]].index = i;
	return 0;
}

int topo_peermem_probe(const char *sysfs_root, char *how, size_t len)
{
	/* The files NCCL checks across its versions (nccl-rules.md 3). */
	static const char *const files[] = {
		"module/nvidia_peermem",
		"kernel/mm/memory_peers/nv_mem/version",
		"kernel/mm/memory_peers/nv_mem_nc/version",
		"kernel/mm/memory_peers/nvidia-peermem/version",
		"module/nv_peer_mem",
	};

	for (int i = 0; i < (int)FC_ARRAY_SIZE(files); i++)
		if (path_exists(sysfs_root, files[i])) {
			if (how)
				snprintf(how, len, "%s", files[i]);
			return 1;
		}
	return 0;
}

static void load_peermem(struct topo *t)
{
	t->peermem = topo_peermem_probe(t->sysfs_root, t->peermem_how, sizeof(t->peermem_how));
}

int (*topo_live_probe)(struct topo *t);

int topo_load(const char *sysfs_root, struct topo **out_p)
{
	struct topo *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	if (!sysfs_root)
		sysfs_root = fc_sysfs_root();
	if (strlen(sysfs_root) >= sizeof(t->sysfs_root) - 64) {
		fc_err("sysfs: path '%s' is too long", sysfs_root);
		err = -ENAMETOOLONG;
		goto out_free;
	}
	snprintf(t->sysfs_root, sizeof(t->sysfs_root), "%s", sysfs_root);
	err = load_pci(t);
	if (err)
		goto out_free;
	load_ib(t);
	err = index_devs(t);
	if (err)
		goto out_free;
	load_peermem(t);
	if (topo_live_probe && !strcmp(t->sysfs_root, "/sys"))
		topo_live_probe(t);
	*out_p = t;
	return 0;
out_free:
	topo_free(t);
	return err;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	free(t->devs);
	free(t->gpus);
	free(t->nics);
	free(t);
}
