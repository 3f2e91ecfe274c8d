/*
 * An evidence folder (doc/diagnose.md): test.json, then NODE/DEV-PORT/
 * before/ and after/ snapshots. Also the JSON form of one port.
 */
#include "diag/diag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/readfile.h"
#include "core/names.h"
#include "core/util.h"

#define SET_MAX_PORTS 512

struct diag_port *diag_set_add(struct diag_set *s, const char *node, const char *dev, int port,
			       const json_t *before, const json_t *after)
{
	struct diag_port *p, *np;
	json_t *empty = json_object();

	if (s->nports == SET_MAX_PORTS) {
		fc_warn("evidence: more than %d ports; the rest are left out", SET_MAX_PORTS);
		json_decref(empty);
		return NULL;
	}
	np = realloc(s->ports, sizeof(*np) * (size_t)(s->nports + 1));
	if (!np) {
		json_decref(empty);
		return NULL;
	}
	s->ports = np;
	p = &s->ports[s->nports++];
	memset(p, 0, sizeof(*p));
	snprintf(p->node, sizeof(p->node), "%s", node);
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	diag_port_from_snaps(p, before ? before : empty, after ? after : empty);
	json_decref(empty);
	return p;
}

json_t *diag_snap_with_during(const json_t *after, const json_t *during)
{
	json_t *out = after ? json_copy((json_t *)after) : json_object(), *v;
	const char *rel;
	char key[256];

	json_object_foreach((json_t *)during, rel, v) {
		snprintf(key, sizeof(key), "during/%s", rel);
		json_object_set(out, key, v);
	}
	return out;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode); /* never through a link */
}

static json_t *read_side(const char *portdir, const char *side, int *err)
{
	char path[1024];

	char man[1100];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", portdir, side);
	if (!is_dir(path))
		return NULL;
	snprintf(man, sizeof(man), "%s/manifest.json", path);
	/* a capture (what --save-evidence writes), else the folder of files
	 * an older fabcheck wrote or a person put together (doc/diagnose.md) */
	json_t *snap = !lstat(man, &st) ? diag_snap_read_bundle(path) : diag_snap_read_dir(path);

	if (!snap)
		*err = -EIO;
	return snap;
}

int diag_entry_check(int kind, const char *path, const char *name,
		     const char *what)
{
	const char *why = fc_name_why((enum fc_name_kind)kind, name);
	char sp[512], sn[160];

	if (!why)
		return 0;
	fc_err("evidence: folder '%s': '%s' is not a valid %s name (%s); a name in an "
	       "evidence folder is used only once checked: rename the folder or remove it",
	       fc_name_show(path, sp, sizeof(sp)), fc_name_show(name, sn, sizeof(sn)), what, why);
	return -EINVAL;
}

/* NODE/DEV-PORT: the port number after the last '-'. */
static int read_port(struct diag_set *s, const char *node, const char *portdir, const char *name)
{
	const char *dash = strrchr(name, '-');
	char dev[64], *end;
	long port = dash ? strtol(dash + 1, &end, 10) : 0;
	json_t *before, *after, *during;
	int err = 0;

	char shown[256];

	if (!dash || dash == name || *end || port < 1 || port > 255 ||
	    (size_t)(dash - name) >= sizeof(dev)) {
		fc_warn("evidence: '%s' is not a DEV-PORT folder (e.g. mlx5_0-1): skipped",
			fc_name_show(portdir, shown, sizeof(shown)));
		return 0;
	}
	snprintf(dev, sizeof(dev), "%.*s", (int)(dash - name), name);
	if (diag_entry_check(FC_NAME_DEV, portdir, dev, "RDMA device"))
		return -EINVAL;
	before = read_side(portdir, "before", &err);
	after = read_side(portdir, "after", &err);
	during = read_side(portdir, "during", &err);
	if (during && after) { /* the reading under load travels with after/ */
		json_t *both = diag_snap_with_during(after, during);

		json_decref(after);
		after = both;
	}
	json_decref(during);
	if (!err && !before && !after) {
		fc_warn("evidence: '%s' has neither before/ nor after/: skipped",
			fc_name_show(portdir, shown, sizeof(shown)));
	} else if (!err) {
		if (!after) { /* one reading only: judge it as the latest */
			after = before;
			before = NULL;
		}
		diag_set_add(s, node, dev, (int)port, before, after);
	}
	json_decref(before);
	json_decref(after);
	return err;
}

static int read_node(struct diag_set *s, const char *dir, const char *node)
{
	char path[768];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, node);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (e = readdir(d))) {
		char sub[1024];

		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (e->d_name[0] != '.' && is_dir(sub))
			err = read_port(s, node, sub, e->d_name);
	}
	closedir(d);
	return err;
}

static int read_test(struct diag_set *s, const char *dir)
{
	char path[768], *text;
	json_error_t je;
	size_t len;

	snprintf(path, sizeof(path), "%s/test.json", dir);
	if (access(path, F_OK))
		return 0;
	text = fc_read_regular("evidence", path, DIAG_TEST_MAX, FC_READ_NOFOLLOW, &len);
	if (!text)
		return -EINVAL;
	s->test = json_loadb(text, len, 0, &je);
	free(text);
	if (!s->test || !json_is_object(s->test)) {
		char at[32] = ""; /* decoded (not an object): jansson's line is -1 */

		if (!s->test)
			snprintf(at, sizeof(at), " line %d", je.line);
		fc_err("evidence: '%s'%s: %s: it must be one JSON object (a fabcheck --json document); remove it to diagnose the counters alone",
		       path, at, s->test ? "not an object" : je.text);
		json_decref(s->test);
		s->test = NULL;
		return -EINVAL;
	}
	return 0;
}

/* The ports in the order the test names them (a, then b), then by name:
 * the order a live run adds them in, so both give the same diagnosis. */
static const json_t *sort_test;

static int port_rank(const struct diag_port *p)
{
	if (!strcmp(p->node, json_string_value(json_object_get(json_object_get(sort_test, "a"), "node")) ?: ""))
		return 0;
	if (!strcmp(p->node, json_string_value(json_object_get(json_object_get(sort_test, "b"), "node")) ?: ""))
		return 1;
	return 2;
}

static int port_cmp(const void *x, const void *y)
{
	const struct diag_port *a = x, *b = y;
	int d = port_rank(a) - port_rank(b);

	if (!d)
		d = strcmp(a->node, b->node);
	if (!d)
		d = strcmp(a->dev, b->dev);
	return d ? d : a->port - b->port;
}

int diag_set_read(const char *dir, struct diag_set *s)
{
	struct dirent *e;
	DIR *d;
	int err;

	memset(s, 0, sizeof(*s));
	d = opendir(dir);
	if (!d) {
		fc_err("evidence: cannot open '%s': %s (give the folder --save-evidence wrote, see doc/diagnose.md)",
		       dir, strerror(errno));
		return -errno;
	}
	err = read_test(s, dir);
	while (!err && (e = readdir(d))) {
		char sub[1024];

		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && is_dir(sub))
			err = diag_entry_check(FC_NAME_NODE, sub, e->d_name, "node") ?:
				read_node(s, dir, e->d_name);
	}
	closedir(d);
	sort_test = s->test;
	if (s->nports > 1)
		qsort(s->ports, (size_t)s->nports, sizeof(*s->ports), port_cmp);
	sort_test = NULL;
	if (!err && !s->nports && !s->test) {
		fc_err("evidence: '%s' holds no NODE/DEV-PORT/before|after folders and no test.json: not an evidence folder (see doc/diagnose.md)",
		       dir);
		err = -ENOENT;
	}
	if (err)
		diag_set_release(s);
	return err;
}

void diag_set_release(struct diag_set *s)
{
	for (int i = 0; i < s->nports; i++)
		diag_port_release(&s->ports[i]);
	free(s->ports);
	json_decref(s->test);
	memset(s, 0, sizeof(*s));
}
