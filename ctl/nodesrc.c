/*
 * The node's inputs, live, recorded or replayed (ctl/nodesrc.h), and the
 * .tar.gz form of a capture.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h"
#include "ctl/nodesrc.h"
#include "verbs/dev.h"
#include "verbs/devtext.h"

void fc_src_live(struct fc_src *s, struct fc_bundle_w *rec)
{
	memset(s, 0, sizeof(*s));
	s->sys = fc_sysfs_root();
	s->rec = rec;
}

void fc_src_replay(struct fc_src *s, struct fc_bundle *b)
{
	memset(s, 0, sizeof(*s));
	s->from = b;
	s->sys = fc_bundle_path(b, "sys", s->sysbuf, sizeof(s->sysbuf));
}

static void cmd_line(const char *const *argv, char *buf, size_t len)
{
	size_t o = 0;

	*buf = 0;
	for (int i = 0; argv[i]; i++)
		if (fc_sh_append(buf, len, &o, argv[i]))
			break;
}

static void record(struct fc_src *s, const char *rel, const char *line, const char *out,
		   int code, const char *why)
{
	json_t *e;

	if (!out) {
		fc_bw_skip(s->rec, line, rel, why);
		return;
	}
	if (fc_bw_put(s->rec, rel, out, strlen(out), line, code))
		return;
	e = json_array_get(s->rec->files, json_array_size(s->rec->files) - 1);
	if (*why)
		json_object_set_new(e, "stderr", json_string(why));
	if (code == 127)
		fc_bw_skip(s->rec, line, NULL, "the tool is not installed (exit 127)");
	else if (code == 126)
		fc_bw_skip(s->rec, line, NULL, "no permission to run the tool (exit 126)");
}

char *fc_src_cmd(struct fc_src *s, const char *const *argv, double timeout, int *exit_p,
		 char *why, size_t whylen)
{
	char name[200], rel[256], line[1024];
	size_t len;
	char *out;

	fc_bundle_cmd_name(argv, name, sizeof(name));
	snprintf(rel, sizeof(rel), "cmd/%s", name);
	if (s->from)
		return fc_bundle_read(s->from, rel, &len, exit_p, why, whylen);
	out = fc_capture(argv, timeout, exit_p, why, whylen);
	if (s->rec) {
		cmd_line(argv, line, sizeof(line));
		record(s, rel, line, out, *exit_p, why);
	}
	return out;
}

void fc_src_skip(struct fc_src *s, const char *const *argv, const char *why)
{
	char name[200], rel[256], line[1024];

	if (!s->rec)
		return;
	fc_bundle_cmd_name(argv, name, sizeof(name));
	snprintf(rel, sizeof(rel), "cmd/%s", name);
	cmd_line(argv, line, sizeof(line));
	fc_bw_skip(s->rec, line, rel, why);
}

/*
 * A capture without verbs/devices.json (libibverbs listed nothing when it
 * was taken, or a bundle put together from another tool's record) that holds
 * the recorded `ibv_devinfo -v` or `ibstat`: the devices and ports as those
 * print them (verbs/devtext.c), each device's "from" naming the tool. They
 * give no netdev and no GID: the judgments that need them say so as for a
 * port with none. NULL when neither was recorded with exit 0.
 */
static json_t *devices_from_tools(struct fc_src *s)
{
	static const char *const tools[][3] = { { "ibv_devinfo", "-v" }, { "ibstat" } };
	char why[256];
	json_t *devs = NULL, *d;
	size_t i;

	for (size_t t = 0; t < FC_ARRAY_SIZE(tools) && !devs; t++) {
		int code = -1;
		char *out = fc_src_cmd(s, tools[t], 0, &code, why, sizeof(why));

		if (out && !code)
			devs = vb_devices_from_text(out);
		free(out);
		json_array_foreach(devs, i, d)
			json_object_set_new(d, "from", json_sprintf("%s%s%s (recorded)", tools[t][0],
								    tools[t][1] ? " " : "",
								    tools[t][1] ? tools[t][1] : ""));
	}
	return devs;
}

json_t *fc_src_devices(struct fc_src *s, const char **why_p)
{
	const char *rel = "verbs/devices.json", *from = "libibverbs (as 'fabcheck devices --json')";
	json_t *devs;
	size_t len;
	char *text;
	int code;

	if (s->from) {
		text = fc_bundle_read(s->from, rel, &len, &code, s->why, sizeof(s->why));
		if (!text && (devs = devices_from_tools(s))) {
			*why_p = s->why;
			return devs;
		}
		devs = text ? json_loadb(text, len, 0, NULL) : NULL;
		free(text);
		if (text && !json_is_array(devs)) {
			json_decref(devs);
			snprintf(s->why, sizeof(s->why), "%s: not a JSON list", rel);
			devs = NULL;
		}
		*why_p = s->why;
		return devs;
	}
	devs = vb_devices_json(why_p);
	if (s->rec && devs) {
		text = json_dumps(devs, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		if (text)
			fc_bw_put(s->rec, rel, text, strlen(text), from, -1);
		free(text);
	} else if (s->rec) {
		fc_bw_skip(s->rec, from, rel, *why_p);
	}
	return devs;
}

json_t *fc_bundle_devices(struct fc_bundle *b, char *why, size_t whylen)
{
	const char *w = "?";
	struct fc_src s;
	json_t *devs;

	fc_src_replay(&s, b);
	devs = fc_src_devices(&s, &w);
	snprintf(why, whylen, "%s", devs ? "" : w);
	return devs;
}

int fc_bundle_pack(const char *parent, const char *name, const char *out, char *err,
		   size_t errlen)
{
	const char *argv[] = { "tar", "--numeric-owner", "-czf", out, "-C", parent, name, NULL };
	char why[512];
	char *o;
	int code;

	o = fc_capture(argv, FC_BUNDLE_TAR_S, &code, why, sizeof(why));
	free(o);
	if (o && code == 0)
		return 0;
	snprintf(err, errlen, "%s: tar could not write it: %s", out,
		 *why ? why : "tar failed");
	return -1;
}

/* 1 when the member's name (the sixth field, up to a link's " -> ") is
 * absolute or has a ".." part: tar would write outside the folder. (Where
 * a link points is checked once unpacked, as in a folder.) */
static int name_leaves(const char *l)
{
	const char *p = l, *end;

	for (int f = 0; f < 5 && p; f++)
		p = strchr(p, ' '), p = p ? p + strspn(p, " ") : NULL;
	if (!p)
		return 0;
	end = *l == 'l' && strstr(p, " -> ") ? strstr(p, " -> ") : p + strlen(p);
	if (*p == '/')
		return 1;
	for (const char *q = p; (q = strstr(q, "..")) && q < end; q += 2)
		if ((q == p || q[-1] == '/') && (q + 2 == end || q[2] == '/'))
			return 1;
	return 0;
}

/* One line of `tar -tvz --numeric-owner`: "-rw-r--r-- 0/0 1234 DATE TIME NAME". */
static int list_line(const char *tgz, char *l, size_t *total, char *err, size_t errlen)
{
	char type = *l, *p = l;
	unsigned long long size = 0;

	for (int f = 0; f < 2 && p; f++)
		p = strchr(p, ' '), p = p ? p + strspn(p, " ") : NULL;
	if (p)
		size = strtoull(p, NULL, 10);
	if (!strchr("-dl", type) || !p) {
		snprintf(err, errlen, "%s: '%.200s': %s: refused (a capture holds files, folders "
			 "and links)", tgz, l, type == 'h' ? "a hard link" : "no file or folder");
		return -1;
	}
	if (name_leaves(l)) {
		snprintf(err, errlen, "%s: '%.200s': a member whose name leaves the bundle's folder "
			 "('..' or '/'): refused", tgz, l);
		return -1;
	}
	if (size > FC_BUNDLE_FILE_MAX || (*total += size) > FC_BUNDLE_TOTAL_MAX) {
		char one[32], all[32];

		snprintf(err, errlen, "%s: '%.200s': %llu bytes%s: more than a capture's bound "
			 "(%s a file, %s in all): refused", tgz, l, size,
			 size > FC_BUNDLE_FILE_MAX ? "" : " (and the members before it)",
			 fc_fmt_size(FC_BUNDLE_FILE_MAX, one, sizeof(one)),
			 fc_fmt_size(FC_BUNDLE_TOTAL_MAX, all, sizeof(all)));
		return -1;
	}
	return 0;
}

int fc_bundle_untar(const char *tgz, const char *dir, char *err, size_t errlen)
{
	const char *list[] = { "tar", "--numeric-owner", "-tvzf", tgz, NULL };
	const char *xargv[] = { "tar", "--no-same-owner", "--no-same-permissions", "-xzf", tgz,
				"-C", dir, "--strip-components=1", NULL };
	char why[512], *out, *line, *save = NULL;
	size_t total = 0;
	int code;

	out = fc_capture(list, FC_BUNDLE_TAR_S, &code, why, sizeof(why));
	if (!out || code) {
		snprintf(err, errlen, "%s: not a readable .tar.gz: %s", tgz,
			 out ? (*why ? why : "tar failed") : why);
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (list_line(tgz, line, &total, err, errlen)) {
			free(out);
			return -1;
		}
	free(out);
	out = fc_capture(xargv, FC_BUNDLE_TAR_S, &code, why, sizeof(why));
	free(out);
	if (!out || code) {
		snprintf(err, errlen, "%s: tar could not unpack it: %s", tgz,
			 *why ? why : "tar failed");
		return -1;
	}
	return 0;
}
