/*
 * A port's reading (before/, during/, after/ of an evidence folder) as a
 * node capture (core/bundle.h, doc/capture.md): manifest.json, node.json,
 * and each snapshot file where `fabcheck capture` keeps the same input
 * (the port's sysfs files under sys/class/infiniband/DEV/ports/P/, the
 * net device's under sys/class/net/IF/, ethtool -S/-m under cmd/), the
 * rest under evidence/ by its snapshot name; a FILE.why is the manifest's
 * "not_read" entry of FILE. Read back through the bundle reader, so one
 * set of checks (links, sizes, CRC32C) serves captures and evidence.
 */
#include "diag/diag.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/bundle.h"
#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/names.h"
#include "core/util.h"

/* The snapshot's files that `fabcheck capture` records too (doc/diagnose.md
 * against doc/capture.md); where: 'p' the port's sysfs folder, 'n' the net
 * device's, 'S'/'m' ethtool -S / -m of the net device. A name ending in '/'
 * is a folder of such files. */
static const struct {
	const char *name;
	char where;
} cap_files[] = {
	{ "counters/", 'p' }, { "hw_counters/", 'p' }, { "rate", 'p' }, { "state", 'p' },
	{ "phys_state", 'p' }, { "link_layer", 'p' }, { "mtu", 'n' },
	{ "carrier_changes", 'n' }, { "ethtool-S.txt", 'S' }, { "ethtool-m.txt", 'm' },
};

static int cap_match(const char *rel, const char *name)
{
	size_t n = strlen(name);

	return name[n - 1] == '/' ? !strncmp(rel, name, n) && rel[n] : !strcmp(rel, name);
}

/* The bundle path of snapshot file @rel of port @dev/@port (net device
 * @netdev, "" when not known), and what it is a copy of (@from). */
static void cap_path(const char *rel, const char *dev, int port, const char *netdev,
		     char *path, size_t len, char *from, size_t flen)
{
	char where = 0;

	for (size_t i = 0; i < FC_ARRAY_SIZE(cap_files) && !where; i++)
		if (cap_match(rel, cap_files[i].name))
			where = cap_files[i].where;
	if (where != 'p' && !*netdev)
		where = 0;
	if (where == 'p')
		snprintf(path, len, "sys/class/infiniband/%s/ports/%d/%s", dev, port, rel);
	else if (where == 'n')
		snprintf(path, len, "sys/class/net/%s/%s", netdev, rel);
	else if (where)
		snprintf(path, len, "cmd/ethtool_-%c_%s", where, netdev);
	else
		snprintf(path, len, "evidence/%s", rel);
	if (where == 'S' || where == 'm')
		snprintf(from, flen, "ethtool -%c %s", where, netdev);
	else if (where)
		snprintf(from, flen, "/%s", path);
	else
		snprintf(from, flen, "the worker's reading '%s' (doc/diagnose.md)", rel);
}

/* The snapshot name of bundle path @path (cap_path reversed), or NULL. */
static const char *snap_name(const char *path)
{
	const char *p;

	if (!strncmp(path, "evidence/", 9))
		return path + 9;
	if (!strncmp(path, "cmd/ethtool_-S_", 15) || !strncmp(path, "cmd/ethtool_-m_", 15))
		return path[13] == 'S' ? "ethtool-S.txt" : "ethtool-m.txt";
	if (!strncmp(path, "sys/class/net/", 14) && (p = strchr(path + 14, '/')))
		return p + 1;
	if (!strncmp(path, "sys/class/infiniband/", 21) && (p = strstr(path + 21, "/ports/")) &&
	    (p = strchr(p + 7, '/')))
		return p + 1;
	return NULL;
}

/* The net device the reading names (its "netdev" file), "" when none or
 * not a net device name (then ethtool's and the net files stay under
 * evidence/). */
static void reading_netdev(const json_t *snap, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(snap, "netdev"));
	size_t n = v ? strcspn(v, "\n") : 0;

	snprintf(buf, len, "%.*s", (int)n, v ? v : "");
	if (!fc_name_ok(FC_NAME_NETDEV, buf))
		*buf = 0;
}

int diag_snap_write_bundle(int dfd, const char *phase, const char *shown, const json_t *snap,
			   const char *node, const char *dev, int port)
{
	struct fc_bundle_w w;
	char netdev[64], path[512], from[600], now[40], host[256];
	const char *rel;
	time_t t = time(NULL);
	json_t *v, *node_doc;
	int err;

	if ((err = fc_bw_open_at(&w, dfd, phase, shown)))
		return err;
	reading_netdev(snap, netdev, sizeof(netdev));
	snprintf(host, sizeof(host), "%.*s", (int)strcspn(node, "#"), node); /* "a#2": a */
	node_doc = json_pack("{s:s}", "host", host);
	char *text = json_dumps(node_doc, JSON_INDENT(1));

	json_decref(node_doc);
	err = text ? fc_bw_put(&w, "node.json", text, strlen(text), "gethostname", -1) : -ENOMEM;
	free(text);
	json_object_foreach((json_t *)snap, rel, v) {
		size_t n = strlen(rel);
		int why = n > 4 && !strcmp(rel + n - 4, ".why");
		char base[256];

		if (err || !diag_snap_path_ok(rel) || !json_is_string(v))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(why ? n - 4 : n), rel);
		cap_path(base, dev, port, netdev, path, sizeof(path), from, sizeof(from));
		if (why)
			fc_bw_skip(&w, from, path, json_string_value(v));
		else
			err = fc_bw_put(&w, path, json_string_value(v), json_string_length(v), from, -1);
	}
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_t *head = json_pack("{s:i, s:s, s:s, s:s, s:{s:s, s:s, s:i, s:s}}", "capture",
				 FC_BUNDLE_FORMAT, "fabcheck", FC_VERSION, "time", now, "host", host,
				 "reading", "phase", phase, "device", dev, "port", port, "netdev",
				 netdev);

	if (err) { /* no manifest: diagnose refuses the reading, never judges a part of it */
		json_decref(head);
		fc_bw_abort(&w);
		return err;
	}
	return fc_bw_close(&w, head);
}

/* 1 when bundle path @path is port @dev/@port's (net device @netdev, ""
 * none): a file of cap_files at the place `fabcheck capture` keeps it. A
 * whole node's capture holds every port; a reading (@dev NULL) is one. */
static int port_file(const char *path, const char *dev, int port, const char *netdev)
{
	char pre[256];
	size_t n;

	if (!dev)
		return 1;
	for (size_t i = 0; i < FC_ARRAY_SIZE(cap_files); i++) {
		char w = cap_files[i].where;

		if (w == 'S' || w == 'm') {
			snprintf(pre, sizeof(pre), "cmd/ethtool_-%c_%s", w, netdev);
			if (*netdev && !strcmp(path, pre))
				return 1;
			continue;
		}
		if (w == 'p')
			snprintf(pre, sizeof(pre), "sys/class/infiniband/%s/ports/%d/", dev, port);
		else if (*netdev)
			snprintf(pre, sizeof(pre), "sys/class/net/%s/", netdev);
		else
			continue;
		n = strlen(pre);
		if (!strncmp(path, pre, n) && cap_match(path + n, cap_files[i].name))
			return 1;
	}
	return 0;
}

/* Each file the manifest lists (of port @dev/@port, see port_file), back
 * under its snapshot name. */
static int take_files(const struct fc_bundle *b, json_t *snap, size_t *total, const char *dev,
		      int port, const char *netdev)
{
	char why[256], where[PATH_MAX + 600];
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(b->man, "files"), i, f) {
		const char *path = fc_jstr(f, "path", ""), *rel = snap_name(path);
		size_t len = 0;
		int code, err;
		char *text;

		if (!rel || !port_file(path, dev, port, netdev))
			continue; /* node.json, another port's */
		snprintf(where, sizeof(where), "%s: %s", b->shown, path);
		if (!diag_snap_path_ok(rel)) {
			fc_err("evidence: %s: not a name a reading holds (doc/diagnose.md): refused; "
			       "run the test again to write the reading anew", where);
			return -EINVAL;
		}
		text = fc_bundle_read(b, path, &len, &code, why, sizeof(why));
		if (!text) {
			fc_err("evidence: %s: %s: cannot be read: %s", b->shown, path, why);
			return -EIO;
		}
		err = diag_snap_take(snap, rel, text, len, total, where, 1);
		free(text);
		if (err)
			return err;
	}
	return 0;
}

/* Each input noted as not read, back as FILE.why. */
static void take_not_read(const struct fc_bundle *b, json_t *snap, const char *dev, int port,
			  const char *netdev)
{
	char key[300];
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(b->man, "not_read"), i, f) {
		const char *rel = snap_name(fc_jstr(f, "path", ""));

		if (rel && port_file(fc_jstr(f, "path", ""), dev, port, netdev) && snprintf(key, sizeof(key), "%s.why", rel) < (int)sizeof(key) &&
		    diag_snap_path_ok(key) && json_is_string(json_object_get(f, "why")))
			json_object_set(snap, key, json_object_get(f, "why"));
	}
}

json_t *diag_snap_read_bundle(const char *dir)
{
	char err[1200];
	struct fc_bundle *b = fc_bundle_open(dir, err, sizeof(err));
	json_t *snap;

	if (!b) {
		fc_err("evidence: %s (a reading --save-evidence wrote: run the test again to "
		       "write it anew)", err);
		return NULL;
	}
	snap = diag_snap_of_port(b, NULL, 0, "");
	fc_bundle_close(b);
	return snap;
}

json_t *diag_snap_of_port(const struct fc_bundle *b, const char *dev, int port, const char *netdev)
{
	size_t total = 0;
	json_t *snap = json_object();

	if (take_files(b, snap, &total, dev, port, netdev)) {
		json_decref(snap);
		return NULL;
	}
	take_not_read(b, snap, dev, port, netdev);
	if (dev && *netdev)
		json_object_set_new(snap, "netdev", json_string(netdev));
	return snap;
}
