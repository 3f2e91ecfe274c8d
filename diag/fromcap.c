/*
 * diagnose --from CAPTURE [CAPTURE]: the ports of a node's captures
 * (`fabcheck capture`, doc/capture.md) judged as an evidence folder's
 * readings: one capture is the reading after (as a folder with only
 * before/), two of one node are before and after. Each port's files are
 * those a reading holds (diag/snapcap.c cap_files) where capture keeps them;
 * a reading that --save-evidence wrote is a capture too and is read whole.
 */
#include "diag/diag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle.h"
#include "core/log.h"
#include "core/names.h"
#include "core/out.h"

/* The most ports of one capture judged (a node has a few dozen at most). */
#define FROMCAP_PORTS_MAX 256

struct cport {
	char dev[64];
	int port;
};

static int cport_cmp(const void *x, const void *y)
{
	const struct cport *a = x, *b = y;
	int c = strcmp(a->dev, b->dev);

	return c ? c : a->port - b->port;
}

/* The ports of @b: each sys/class/infiniband/DEV/ports/P/state, sorted (the
 * order diagnose DIR reads a node's DEV-PORT folders in). */
static int ports_of(const struct fc_bundle *b, struct cport *out, int max)
{
	size_t i;
	json_t *f;
	int n = 0;

	json_array_foreach(json_object_get(b->man, "files"), i, f) {
		struct cport c;
		char rest[16];
		int used = 0;

		if (n < max &&
		    sscanf(fc_jstr(f, "path", ""), "sys/class/infiniband/%63[^/]/ports/%d/%15s%n",
			   c.dev, &c.port, rest, &used) == 3 &&
		    !strcmp(rest, "state") && fc_jstr(f, "path", "")[used] == 0 &&
		    fc_name_ok(FC_NAME_DEV, c.dev) && c.port >= 1 && c.port <= 255)
			out[n++] = c;
	}
	qsort(out, n, sizeof(*out), cport_cmp);
	return n;
}

/* The net device of port @c in @b (its first GID's, as sysfs names it), ""
 * when none or not a net device name. */
static void netdev_of(const struct fc_bundle *b, const struct cport *c, char *buf, size_t len)
{
	char rel[160], why[128];
	size_t n = 0;
	int code;
	char *t;

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", c->dev,
		 c->port);
	t = fc_bundle_read(b, rel, &n, &code, why, sizeof(why));
	snprintf(buf, len, "%.*s", t ? (int)strcspn(t, "\n") : 0, t ? t : "");
	free(t);
	if (!fc_name_ok(FC_NAME_NETDEV, buf))
		*buf = 0;
}

/* Port @c of @b as a snapshot: a reading whole, a node's capture its port's
 * files. NULL: none there (*@err 0) or not readable (*@err set, logged). */
static json_t *snap_of(const struct fc_bundle *b, const struct cport *c, int *err)
{
	const json_t *r = json_object_get(b->man, "reading");
	char netdev[64];
	json_t *snap;

	if (r) {
		if (strcmp(fc_jstr(r, "device", ""), c->dev) || (int)fc_jnum(r, "port", 0) != c->port)
			return NULL;
		snap = diag_snap_of_port(b, NULL, 0, "");
	} else {
		netdev_of(b, c, netdev, sizeof(netdev));
		snap = diag_snap_of_port(b, c->dev, c->port, netdev);
	}
	if (!snap)
		*err = -EIO;
	else if (!json_object_size(snap))
		json_decref(snap), snap = NULL;
	return snap;
}

/* A reading names its port in the manifest; a node's capture by its files. */
static int ports_named(const struct fc_bundle *b, struct cport *out, int max)
{
	const json_t *r = json_object_get(b->man, "reading");

	if (!r)
		return ports_of(b, out, max);
	snprintf(out[0].dev, sizeof(out[0].dev), "%s", fc_jstr(r, "device", ""));
	out[0].port = (int)fc_jnum(r, "port", 0);
	return fc_name_ok(FC_NAME_DEV, out[0].dev) && out[0].port >= 1 ? 1 : 0;
}

/* The two captures are of one node, the first taken first. */
static int same_node(struct fc_bundle *const *b, int n)
{
	const char *h0 = fc_jstr(b[0]->man, "host", ""), *h1 = fc_jstr(b[n - 1]->man, "host", "");
	const char *t0 = fc_jstr(b[0]->man, "time", ""), *t1 = fc_jstr(b[n - 1]->man, "time", "");

	if (!fc_name_ok(FC_NAME_NODE, h0) || !fc_name_ok(FC_NAME_NODE, h1)) {
		fc_err("diagnose --from %s: manifest.json: no \"host\" that is a node name; capture "
		       "the node again", fc_name_ok(FC_NAME_NODE, h0) ? b[n - 1]->shown : b[0]->shown);
		return -EINVAL;
	}
	if (strcmp(h0, h1)) {
		fc_err("diagnose --from: %s is a capture of %s, %s of %s: give two captures of one "
		       "node (before, then after)", b[0]->shown, h0, b[n - 1]->shown, h1);
		return -EINVAL;
	}
	if (strcmp(t0, t1) > 0) {
		fc_err("diagnose --from: %s (%s) was taken after %s (%s): give the earlier capture "
		       "first", b[0]->shown, t0, b[n - 1]->shown, t1);
		return -EINVAL;
	}
	return 0;
}

static int add_ports(struct fc_bundle *const *b, int n, struct diag_set *s)
{
	struct cport *ports = calloc(FROMCAP_PORTS_MAX, sizeof(*ports));
	const char *host = fc_jstr(b[n - 1]->man, "host", "");
	int np = ports ? ports_named(b[n - 1], ports, FROMCAP_PORTS_MAX) : 0, err = 0;

	for (int i = 0; i < np && !err; i++) {
		json_t *after = snap_of(b[n - 1], &ports[i], &err);
		json_t *before = n > 1 && !err ? snap_of(b[0], &ports[i], &err) : NULL;

		if (after && !err)
			diag_set_add(s, host, ports[i].dev, ports[i].port, before, after);
		json_decref(before);
		json_decref(after);
	}
	if (!err && !s->nports) {
		fc_err("diagnose --from %s: no RDMA port in the capture (no "
		       "sys/class/infiniband/DEV/ports/N/state): capture a node with its HCAs",
		       b[n - 1]->shown);
		err = -EINVAL;
	}
	free(ports);
	return err;
}

int diag_set_from_captures(char *const *paths, int n, struct diag_set *s)
{
	struct fc_bundle *b[2] = { NULL, NULL };
	char why[1200];
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (n < 1 || n > 2) {
		fc_err("diagnose --from: give one capture of a node, or two (before, then after)");
		return -EINVAL;
	}
	for (int i = 0; i < n && !err; i++)
		if (!(b[i] = fc_bundle_open(paths[i], why, sizeof(why)))) {
			fc_err("diagnose --from %s", why);
			err = -EIO;
		}
	if (!err)
		err = same_node(b, n);
	if (!err)
		err = add_ports(b, n, s);
	for (int i = 0; i < n; i++)
		if (b[i])
			fc_bundle_close(b[i]);
	if (err)
		diag_set_release(s);
	return err;
}
