/*
 * What `fabcheck capture` records besides sysfs: the preflight probe's
 * inputs (recorded while the probe reads them, so a replay reads the same),
 * the addresses, routes and links, each fabric port's ethtool views, LLDP,
 * the switch behind each InfiniBand port and its counters, lspci of the
 * HCAs, GPUs and the bridges between them, nvidia-smi, the NCCL settings
 * files and NCCL_* variables, the kernel's mlx5 and AER lines. Every child
 * has a deadline (ctl/child.h); doc/capture.md lists every file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/preflight/capture.h"
#include "checks/preflight/preflight.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h"
#include "ctl/nodesrc.h"

extern char **environ;

struct cap {
	struct fc_src src;
	struct fc_bundle_w w;
	double deadline;
};

/* The bundle holds @argv's output already (the probe recorded it). */
static int cap_has(const struct cap *c, const char *const *argv)
{
	char name[200], rel[256];
	const json_t *f;
	size_t i;

	fc_bundle_cmd_name(argv, name, sizeof(name));
	snprintf(rel, sizeof(rel), "cmd/%s", name);
	json_array_foreach(c->w.files, i, f)
		if (!strcmp(fc_jstr(f, "path", ""), rel))
			return 1;
	return 0;
}

/* One command recorded (skipped, said why, once the capture's time is up),
 * unless the probe recorded it. */
static void cap_cmd(struct cap *c, const char *const *argv)
{
	char why[512];
	int code;

	if (cap_has(c, argv))
		return;

	if (fc_now() > c->deadline) {
		fc_bw_skip(&c->w, argv[0], NULL, "the capture's deadline passed before it ran");
		return;
	}
	free(fc_src_cmd(&c->src, argv, CAP_CMD_S, &code, why, sizeof(why)));
}

/* Each fabric netdev (of an RDMA port): the ethtool views (`ethtool -m`:
 * recorded by the probe, pf_probe.c probe_module, which reads it, and
 * `ethtool IF` too where it read the module). */
static void cap_netdevs(struct cap *c, const json_t *probe)
{
	static const char *const opts[] = { NULL, "-S", "-i" };
	const char *nd;
	json_t *v;

	json_object_foreach(json_object_get(probe, "netdevs"), nd, v) {
		for (size_t i = 0; i < FC_ARRAY_SIZE(opts); i++) {
			const char *argv[] = { "ethtool", opts[i] ? opts[i] : nd, opts[i] ? nd : NULL,
					       NULL };

			cap_cmd(c, argv);
		}
	}
}

/* Each ACTIVE InfiniBand port: the neighbour's port counters (perfquery -x
 * over the direct route, at the port the neighbour's NodeInfo names: the
 * probe asked it, recorded, ctl/ibpeer.c). */
static void cap_ib_far(struct cap *c, const json_t *probe)
{
	size_t i, j;
	json_t *d, *p;

	json_array_foreach(json_object_get(probe, "devices"), i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			char port[16], route[24], lp[16], msg[700];
			const char *dev = fc_jstr(d, "name", "?");
			const char *pq[] = { "perfquery", "-x", "-C", dev, "-P", port, "-D", route,
					     lp, NULL };

			if (strcmp(fc_jstr(p, "link_layer", ""), "InfiniBand") ||
			    strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				continue;
			snprintf(port, sizeof(port), "%d", (int)fc_jnum(p, "port", 1));
			snprintf(route, sizeof(route), "0,%s", port);
			snprintf(lp, sizeof(lp), "%d", (int)fc_jnum(p, "peer_port", -1));
			if (!json_object_get(p, "peer_port")) {
				snprintf(msg, sizeof(msg), "its port is not known: %s",
					 fc_jstr(p, "switch_error",
						 "smpquery nodeinfo named none"));
				fc_bw_skip(&c->w, "perfquery -x (the neighbour's port)", NULL, msg);
				continue;
			}
			cap_cmd(c, pq);
		}
}

/* lspci -vvv of every HCA and GPU and of the bridges above them. */
static void cap_lspci(struct cap *c)
{
	char path[PATH_MAX], link[PATH_MAX], cls[32], ven[32], *save, *tok;
	json_t *seen = json_object(), *v;
	const char *bdf;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", c->src.sys);
	d = opendir(path);
	while (d && (e = readdir(d)) && json_object_size(seen) < 128) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/class", c->src.sys, e->d_name);
		if (fc_read_file(path, cls, sizeof(cls)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/vendor", c->src.sys, e->d_name);
		if (fc_read_file(path, ven, sizeof(ven)) < 0)
			continue;
		/* 0x0207xx InfiniBand, 0x0200xx Ethernet of an RDMA vendor, 0x03xxxx display */
		if (!(strncmp(cls, "0x0207", 6) == 0 || strncmp(cls, "0x03", 4) == 0 ||
		      (strncmp(cls, "0x0200", 6) == 0 && !strcmp(ven, "0x15b3"))))
			continue;
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", c->src.sys, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		save = NULL;
		for (tok = strtok_r(link, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
			if (strlen(tok) == 12 && tok[4] == ':' && tok[7] == ':' && tok[10] == '.')
				json_object_set_new(seen, tok, json_true());
	}
	if (d)
		closedir(d);
	json_object_foreach(seen, bdf, v) {
		const char *argv[] = { "lspci", "-vvv", "-s", bdf, NULL };

		cap_cmd(c, argv);
	}
	json_decref(seen);
}

/* A settings file copied (absent: noted). */
static void cap_file(struct cap *c, const char *path, const char *rel)
{
	char why[300];
	size_t len = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	buf = fd >= 0 ? fc_read_fd(fd, CAP_SETTINGS_MAX, &len) : NULL;
	if (!buf) {
		snprintf(why, sizeof(why), "%s", errno == ENOENT ? "no such file" :
					  errno == EACCES ? "no permission" : strerror(errno));
		fc_bw_skip(&c->w, path, rel, why);
	} else {
		fc_bw_put(&c->w, rel, buf, len, path, -1);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* The NCCL settings: the files NCCL reads and the NCCL_* variables (no
 * other variable: they may hold secrets). */
static void cap_nccl(struct cap *c)
{
	const char *home = getenv("HOME");
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cap_file(c, "/etc/nccl.conf", "files/etc/nccl.conf");
	if (home && *home && snprintf(path, sizeof(path), "%s/.nccl.conf", home) < (int)sizeof(path))
		cap_file(c, path, "files/home/.nccl.conf");
	for (char **e = environ; f && *e; e++)
		if (!strncmp(*e, "NCCL_", 5))
			fprintf(f, "%s\n", *e);
	if (f && !fclose(f))
		fc_bw_put(&c->w, "env/nccl.env", text, len, "the NCCL_* environment variables", -1);
	free(text);
}

/* The kernel's lines naming mlx5, AER or PCIe errors, the last ones. */
static int klog_line(const char *l)
{
	return strstr(l, "mlx5") || strstr(l, "AER") || strstr(l, "pcieport") ||
	       strstr(l, "PCIe Bus Error") || strstr(l, "NVRM: Xid") || strstr(l, "peermem");
}

static void cap_klog(struct cap *c)
{
	const char *argv[] = { "dmesg", NULL };
	char why[512], *out, *l, *save = NULL, **keep;
	size_t n = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int code;

	if (fc_now() > c->deadline) {
		fc_bw_skip(&c->w, "dmesg", "cmd/dmesg-mlx5-aer",
			   "the capture's deadline passed before it ran");
		return;
	}
	out = fc_capture(argv, CAP_CMD_S, &code, why, sizeof(why));
	if (!out || code) {
		fc_bw_skip(&c->w, "dmesg", "cmd/dmesg-mlx5-aer",
			   out ? (*why ? why : "dmesg failed (kernel.dmesg_restrict: needs root)") : why);
		free(out);
		return;
	}
	keep = calloc(CAP_KLOG_LINES, sizeof(*keep));
	for (l = strtok_r(out, "\n", &save); keep && l; l = strtok_r(NULL, "\n", &save))
		if (klog_line(l))
			keep[n++ % CAP_KLOG_LINES] = l;
	f = open_memstream(&text, &len);
	for (size_t i = n > CAP_KLOG_LINES ? n - CAP_KLOG_LINES : 0; f && keep && i < n; i++)
		fprintf(f, "%s\n", keep[i % CAP_KLOG_LINES]);
	if (f && !fclose(f))
		fc_bw_put(&c->w, "cmd/dmesg-mlx5-aer", text, len,
			  "dmesg: the last 2000 lines naming mlx5, AER, pcieport, Xid or peermem", code);
	free(text);
	free(keep);
	free(out);
}

static void cap_tools(struct cap *c, const json_t *probe)
{
	static const char *const cmds[][6] = {
		{ "ip", "-j", "addr" }, { "ip", "-j", "route" }, { "ip", "-j", "-6", "route" },
		{ "ip", "-j", "link" }, { "lldpctl", "-f", "json" },
		{ "nvidia-smi", "topo", "-m" }, { "nvidia-smi", "-L" },
		{ "nvidia-smi", "--query-gpu=index,name,pci.bus_id,driver_version,vbios_version",
		  "--format=csv" },
		{ "ibv_devinfo", "-v" }, { "ibstat" },
	};

	for (size_t i = 0; i < FC_ARRAY_SIZE(cmds); i++)
		cap_cmd(c, cmds[i]);
	cap_netdevs(c, probe);
	cap_ib_far(c, probe);
	cap_lspci(c);
	cap_nccl(c);
	cap_klog(c);
}

/* Every bound the capture keeps (doc/capture.md "Bounds"), for the manifest. */
static json_t *cap_bounds(void)
{
	return json_pack("{s:I, s:I, s:I, s:f, s:I, s:f, s:f, s:I, s:I, s:I}", "file_bytes",
			 (json_int_t)FC_BUNDLE_FILE_MAX, "total_bytes",
			 (json_int_t)FC_BUNDLE_TOTAL_MAX, "files", (json_int_t)FC_BUNDLE_ENTRIES_MAX,
			 "command_s", CAP_CMD_S, "command_bytes", (json_int_t)FC_CHILD_OUT_MAX,
			 "sysfs_s", CAP_SYSFS_S, "total_s", CAP_TOTAL_S, "sysfs_file_bytes",
			 (json_int_t)CAP_SYS_FILE_MAX, "settings_file_bytes",
			 (json_int_t)CAP_SETTINGS_MAX, "kernel_log_lines", (json_int_t)CAP_KLOG_LINES);
}

int cap_node(const char *dir, const char *sysroot)
{
	struct cap c = { 0 };
	char now[40];
	time_t t = time(NULL);
	json_t *probe, *head;
	int files;

	c.deadline = fc_now() + CAP_TOTAL_S;
	if (fc_bw_open(&c.w, dir))
		return -1;
	fc_src_live(&c.src, &c.w);
	if (sysroot)
		c.src.sys = sysroot;
	files = cap_sysfs(&c.w, c.src.sys, fc_now() + CAP_SYSFS_S);
	/* the probe's own inputs, recorded as it reads them (no topo child:
	 * its inputs are sysfs and nvidia-smi topo -m, recorded here) */
	probe = pf_probe_doc_src(&c.src, CAP_CMD_S, 1);
	cap_tools(&c, probe);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	head = json_pack("{s:i, s:s, s:s, s:O, s:i, s:o}", "capture", FC_BUNDLE_FORMAT,
			 "fabcheck", FC_VERSION, "time", now, "host",
			 json_object_get(probe, "host"), "sysfs_files", files, "bounds", cap_bounds());
	json_decref(probe);
	return fc_bw_close(&c.w, head) ? -1 : 0;
}
