/*
 * The worker's evidence (diag/diag.h): its port's sysfs counters and
 * state, the netdev's `ethtool -S` and `ethtool -m`, the PCIe link and AER
 * files of the HCA, the bridges above it and (GPU memory) the GPU, and on
 * InfiniBand `perfquery` of both ends of the cable, each as read. Sent to
 * the controller in "evidence" messages small enough for the wire.
 */
#include "ctl/worker_ev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/util.h"
#include "ctl/child.h"
#include "ctl/worker_qos.h"
#include "diag/diag.h"

#define EV_TOOL_DEADLINE_S 5.0
#define EV_CHUNK (16u * 1024) /* bytes of file text per message */

static void put(json_t *snap, const char *rel, const char *text)
{
	json_t *s = json_string(text);

	json_object_set_new(snap, rel, s ? s : json_string("(not text)"));
}

static void put_file(json_t *snap, const char *rel, const char *path)
{
	char buf[4096];

	if (fc_read_file(path, buf, sizeof(buf)) >= 0)
		put(snap, rel, buf);
}

static void put_dir(json_t *snap, const char *prefix, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[768], rel[320];

		if (e->d_name[0] == '.' || e->d_type == DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(rel, sizeof(rel), "%s/%s", prefix, e->d_name);
		put_file(snap, rel, path);
	}
	closedir(d);
}

/* Runs TOOL ARGS... (found as ethtool is) and keeps its output in @rel, or
 * why not in @rel.why. Returns the output kept (in @snap), or NULL. */
static const char *put_tool(json_t *snap, const char *rel, const char *tool, const char *const *args)
{
	const char *argv[12];
	char exe[4096], why[512], whyrel[96];
	char *out;
	int code, n = 0;

	snprintf(whyrel, sizeof(whyrel), "%s.why", rel);
	if (wk_find_tool(tool, exe, sizeof(exe))) {
		snprintf(why, sizeof(why), "%s is not installed (looked in $PATH, /usr/sbin, /sbin)", tool);
		put(snap, whyrel, why);
		return NULL;
	}
	argv[n++] = exe;
	while (*args && n < 11)
		argv[n++] = *args++;
	argv[n] = NULL;
	out = fc_capture(argv, EV_TOOL_DEADLINE_S, &code, why, sizeof(why));
	if (out && code == 0 && *out) {
		put(snap, rel, out);
		free(out);
		return json_string_value(json_object_get(snap, rel));
	}
	if (out && code != 0) {
		char msg[700];

		snprintf(msg, sizeof(msg), "'%s %s' failed (exit %d)%s%s", tool, argv[1], code,
			 *why ? ": " : "", *why ? why : (*out ? out : ""));
		msg[strcspn(msg, "\n")] = '\0';
		put(snap, whyrel, msg);
	} else if (!out) {
		put(snap, whyrel, why);
	}
	free(out);
	return NULL;
}

/* Trust and PFC of the netdev: mlnx_qos -i holds both; else `dcb pfc show
 * dev` and MLNX_OFED's sysfs qos/ files. */
static void qos(json_t *snap, const struct wk_ev_src *s)
{
	char path[512];
	const char *qos;

	qos = put_tool(snap, "trust", "mlnx_qos", (const char *[]){ "-i", s->netdev, NULL });
	if (qos) {
		put(snap, "pfc", qos);
	} else {
		snprintf(path, sizeof(path), "/sys/class/net/%s/qos/trust", s->netdev);
		put_file(snap, "trust", path);
		if (!put_tool(snap, "pfc", "dcb", (const char *[]){ "pfc", "show", "dev", s->netdev, NULL })) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/qos/pfc", s->netdev);
			put_file(snap, "pfc", path);
		}
	}
}

/* The health reporters of the HCA's PCI function (devlink health show) and
 * its firmware state (devlink dev info: running and stored versions, PSID;
 * diag/devlink.c). */
static void health(json_t *snap, const struct wk_ev_src *s)
{
	char path[512], real[PATH_MAX], handle[40];
	const char *bdf;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", s->dev);
	if (!realpath(path, real) || !(bdf = strrchr(real, '/')) || strlen(bdf + 1) != 12 ||
	    strspn(bdf + 1, "0123456789abcdef:.") != 12) {
		put(snap, "devlink-health.txt.why", "the device has no PCI function (a software device)");
		return;
	}
	snprintf(handle, sizeof(handle), "pci/%s", bdf + 1);
	put_tool(snap, "devlink-health.txt", "devlink", (const char *[]){ "health", "show", handle, NULL });
	put_tool(snap, "devlink-info.txt", "devlink", (const char *[]){ "dev", "info", handle, NULL });
}

static void pcie(json_t *snap, const struct wk_ev_src *s)
{
	char link[512], why[400];
	json_t *seen = json_object();
	int n;

	snprintf(link, sizeof(link), "/sys/class/infiniband/%s/device", s->dev);
	n = diag_snap_pcie(snap, link, "hca", seen);
	if (!n && s->netdev[0]) { /* a software device (rxe): its netdev's function */
		snprintf(link, sizeof(link), "/sys/class/net/%s/device", s->netdev);
		n = diag_snap_pcie(snap, link, "hca", seen);
	}
	if (s->gpu_bdf && *s->gpu_bdf) {
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", s->gpu_bdf);
		diag_snap_pcie(snap, link, "gpu", seen);
	}
	json_decref(seen);
	if (!n)
		snprintf(why, sizeof(why), "%s has no PCI function in sysfs (a software device)", s->dev);
	else
		snprintf(why, sizeof(why), "%s's PCI function has no current_link_speed (not a PCIe link: a virtual or conventional PCI function)",
			 s->dev);
	put(snap, "pcie.why", why);
}

static int line_int(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	if (!p)
		return -1;
	p += strlen(key);
	while (*p == '.' || *p == ':')
		p++;
	return atoi(p);
}

/* The switch port at the other end of an InfiniBand cable: its number from
 * NodeInfo over the direct route 0,PORT, its LID from PortInfo, then its
 * PortCounters. */
static void far_end(json_t *snap, const struct wk_ev_src *s)
{
	char port[16], route[24], lidp[16], lid[16], rp[16];
	const char *ni, *pi;
	int local, is_sw;

	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(route, sizeof(route), "0,%d", s->port);
	ni = put_tool(snap, "smpquery-nodeinfo.txt", "smpquery",
		      (const char *[]){ "-C", s->dev, "-P", port, "-D", "nodeinfo", route, NULL });
	local = line_int(ni, "LocalPort");
	if (local < 0) {
		put(snap, "perfquery-far.why",
		    "the subnet could not be queried from this host (smpquery nodeinfo over the direct route failed; see smpquery-nodeinfo.txt.why: ib_umad access, root)");
		return;
	}
	is_sw = strstr(ni, "Switch") != NULL;
	snprintf(lidp, sizeof(lidp), "%d", is_sw ? 0 : local);
	pi = put_tool(snap, "smpquery-portinfo.txt", "smpquery",
		      (const char *[]){ "-C", s->dev, "-P", port, "-D", "portinfo", route, lidp,
					NULL });
	if (line_int(pi, "Lid") <= 0) {
		put(snap, "perfquery-far.why", "the far end's LID could not be read (smpquery portinfo)");
		return;
	}
	snprintf(lid, sizeof(lid), "%d", line_int(pi, "Lid"));
	snprintf(rp, sizeof(rp), "%d", local);
	if (!put_tool(snap, "perfquery-far.txt", "perfquery",
		      (const char *[]){ "-x", "-C", s->dev, "-P", port, lid, rp, NULL }))
		put_tool(snap, "perfquery-far.txt", "perfquery",
			 (const char *[]){ "-C", s->dev, "-P", port, lid, rp, NULL });
}

json_t *wk_ev_read_pcie(const struct wk_ev_src *s)
{
	json_t *snap = json_object();
	struct timeval tv;
	char now[64];

	gettimeofday(&tv, NULL);
	snprintf(now, sizeof(now), "%.6f\n", (double)tv.tv_sec + tv.tv_usec / 1e6);
	put(snap, "time", now);
	pcie(snap, s);
	return snap;
}

json_t *wk_ev_read(const struct wk_ev_src *s)
{
	const char *root = getenv("FABCHECK_SYSFS_IB");
	json_t *snap = json_object();
	char dir[512], path[600], now[64];
	struct timeval tv;

	if (!root)
		root = "/sys/class/infiniband";
	gettimeofday(&tv, NULL);
	snprintf(now, sizeof(now), "%.6f\n", (double)tv.tv_sec + tv.tv_usec / 1e6);
	put(snap, "time", now);
	/* the HCA's firmware, compared with the same port on the rack's other
	 * nodes (diag/expect.c port_config_peers) */
	put_file(snap, "fw_ver", (snprintf(path, sizeof(path), "%s/%s/fw_ver", root, s->dev), path));
	snprintf(dir, sizeof(dir), "%s/%s/ports/%d", root, s->dev, s->port);
	put_dir(snap, "counters", (snprintf(path, sizeof(path), "%s/counters", dir), path));
	put_dir(snap, "hw_counters", (snprintf(path, sizeof(path), "%s/hw_counters", dir), path));
	put_file(snap, "rate", (snprintf(path, sizeof(path), "%s/rate", dir), path));
	put_file(snap, "state", (snprintf(path, sizeof(path), "%s/state", dir), path));
	put_file(snap, "phys_state", (snprintf(path, sizeof(path), "%s/phys_state", dir), path));
	put_file(snap, "link_layer", (snprintf(path, sizeof(path), "%s/link_layer", dir), path));
	if (s->gid_index >= 0) /* "RoCE v2" or "IB/RoCE v1" (kernel ib core cache.c) */
		put_file(snap, "gid_type", (snprintf(path, sizeof(path), "%s/gid_attrs/types/%d", dir,
						     s->gid_index), path));
	if (s->netdev[0] && s->netdev[0] != '-' && !strchr(s->netdev, '/')) {
		put(snap, "netdev", s->netdev);
		snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", s->netdev);
		put_file(snap, "carrier_changes", path);
		snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", s->netdev);
		put_file(snap, "mtu", path);
		put_tool(snap, "ethtool-S.txt", "ethtool", (const char *[]){ "-S", s->netdev, NULL });
		put_tool(snap, "ethtool-m.txt", "ethtool", (const char *[]){ "-m", s->netdev, NULL });
		/* link modes of both ends (diag/linkmodes.c) */
		put_tool(snap, "ethtool.txt", "ethtool", (const char *[]){ s->netdev, NULL });
		qos(snap, s);
	} else {
		put(snap, "ethtool-m.txt.why", "the port has no network interface");
		put(snap, "ethtool-S.txt.why", "the port has no network interface");
	}
	pcie(snap, s);
	health(snap, s);
	if (s->ib) {
		char port[16];

		snprintf(port, sizeof(port), "%d", s->port);
		put_tool(snap, "perfquery.txt", "perfquery",
			 (const char *[]){ "-x", "-C", s->dev, "-P", port, NULL });
		far_end(snap, s);
	}
	return snap;
}

/* Pieces of @text of at most EV_CHUNK bytes, cut after a newline. */
static size_t piece(const char *text, size_t off, size_t len)
{
	size_t n = len - off < EV_CHUNK ? len - off : EV_CHUNK;

	if (off + n < len) {
		size_t k = n;

		while (k > 1 && text[off + k - 1] != '\n')
			k--;
		if (k > 1)
			n = k;
	}
	return n;
}

struct ev_out {
	json_t *files;
	size_t used;
	const char *phase;
	int (*send)(void *arg, json_t *body);
	void *arg;
	int err;
};

static void flush(struct ev_out *o)
{
	if (!o->err && json_object_size(o->files))
		o->err = o->send(o->arg, json_pack("{s:s, s:O}", "phase", o->phase, "files", o->files));
	json_object_clear(o->files);
	o->used = 0;
}

int wk_ev_send(json_t *snap, const char *phase, int (*send)(void *arg, json_t *body), void *arg)
{
	struct ev_out o = { .files = json_object(), .phase = phase, .send = send, .arg = arg };
	const char *rel;
	json_t *v;

	json_object_foreach(snap, rel, v) {
		const char *text = json_string_value(v);
		size_t len = strlen(text), off = 0;

		do {
			size_t n = piece(text, off, len);

			/* a message holds one piece of a file at most */
			if ((o.used && o.used + n > EV_CHUNK) || json_object_get(o.files, rel))
				flush(&o);
			json_object_set_new(o.files, rel, json_stringn(text + off, n));
			o.used += n + strlen(rel);
			off += n;
		} while (off < len && !o.err);
	}
	flush(&o);
	json_decref(o.files);
	return o.err;
}
