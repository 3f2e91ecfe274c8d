/*
 * Node captures: the writer (files made under one folder, never through a
 * link, within the bounds) and the reader (the whole bundle checked before
 * any judge reads a file of it). See core/bundle.h and doc/capture.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bundle.h"
#include "core/crc32c.h"
#include "core/log.h"
#include "core/out.h"
#include "core/safefile.h"
#include "core/util.h"

int (*fc_bundle_unpack)(const char *tgz, const char *dir, char *err, size_t errlen);

/* ---- writing ---- */

int fc_bw_open(struct fc_bundle_w *w, const char *dir)
{
	struct stat st;

	memset(w, 0, sizeof(*w));
	w->rootfd = -1;
	if (snprintf(w->root, sizeof(w->root), "%s", dir) >= (int)sizeof(w->root))
		return -ENAMETOOLONG;
	if (lstat(dir, &st) == 0) {
		DIR *d;
		struct dirent *e;
		int n = 0;

		if (!S_ISDIR(st.st_mode)) {
			fc_err("capture: '%s' exists and is no folder; name a new folder or FILE.tar.gz",
			       dir);
			return -EEXIST;
		}
		d = opendir(dir);
		while (d && (e = readdir(d)))
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		if (n) {
			fc_err("capture: folder '%s' is not empty; name a new or empty folder", dir);
			return -EEXIST;
		}
	} else if (mkdir(dir, 0755)) {
		fc_err("capture: cannot make folder '%s': %s", dir, strerror(errno));
		return -errno;
	}
	if ((w->rootfd = open(dir, O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		fc_err("capture: cannot open folder '%s': %s", dir, strerror(errno));
		return -errno;
	}
	w->files = json_array();
	w->not_read = json_array();
	return 0;
}

int fc_bw_open_at(struct fc_bundle_w *w, int dfd, const char *name, const char *shown)
{
	memset(w, 0, sizeof(*w));
	if (snprintf(w->root, sizeof(w->root), "%s/%s", shown, name) >= (int)sizeof(w->root))
		return -ENAMETOOLONG;
	if ((w->rootfd = fc_subdir_at(dfd, name, shown)) < 0)
		return w->rootfd;
	/* an earlier bundle's manifest goes first: a write that fails leaves none */
	if (unlinkat(w->rootfd, "manifest.json", 0) && errno != ENOENT) {
		int err = -errno;

		fc_err("capture: cannot remove '%s/manifest.json': %s", w->root, strerror(-err));
		close(w->rootfd);
		w->rootfd = -1;
		return err;
	}
	w->files = json_array();
	w->not_read = json_array();
	return 0;
}

/* The folder of @rel (made), as an fd; the last component in *@base_p. */
static int bw_parent(struct fc_bundle_w *w, const char *rel, const char **base_p)
{
	char part[PATH_MAX];
	const char *p = rel, *slash;
	int dfd = dup(w->rootfd);

	while (dfd >= 0 && (slash = strchr(p, '/'))) {
		int nfd;

		snprintf(part, sizeof(part), "%.*s", (int)(slash - p), p);
		nfd = *part ? fc_subdir_at(dfd, part, w->root) : dup(dfd);
		close(dfd);
		dfd = nfd;
		p = slash + 1;
	}
	*base_p = p;
	return dfd < 0 ? (dfd == -1 ? -errno : dfd) : dfd;
}

static int bw_bound(struct fc_bundle_w *w, const char *rel, const char *from, size_t len)
{
	char why[160], a[32], b[32];

	if (len > FC_BUNDLE_FILE_MAX) {
		snprintf(why, sizeof(why), "its %s are more than one file's bound of %s",
			 fc_fmt_size(len, a, sizeof(a)), fc_fmt_size(FC_BUNDLE_FILE_MAX, b, sizeof(b)));
		fc_bw_skip(w, from, rel, why);
		return -EFBIG;
	}
	if (w->full || w->total + len > FC_BUNDLE_TOTAL_MAX ||
	    w->nentries + 1 > FC_BUNDLE_ENTRIES_MAX) {
		if (!w->full)
			fc_warn("capture: the bundle reached its bound (%s, %d files): the inputs "
				"after it are listed as not read",
				fc_fmt_size(FC_BUNDLE_TOTAL_MAX, a, sizeof(a)), FC_BUNDLE_ENTRIES_MAX);
		w->full = 1;
		fc_bw_skip(w, from, rel, "the bundle reached its size bound");
		return -EFBIG;
	}
	return 0;
}

int fc_bw_put(struct fc_bundle_w *w, const char *rel, const void *buf, size_t len,
	      const char *from, int exit)
{
	const char *base;
	char crc[16];
	json_t *e;
	int dfd, rc;

	if ((rc = bw_bound(w, rel, from, len)))
		return rc;
	dfd = bw_parent(w, rel, &base);
	if (dfd < 0) {
		fc_bw_skip(w, from, rel, strerror(-dfd));
		return dfd;
	}
	rc = fc_write_new_at(dfd, base, buf, len, rel);
	close(dfd);
	if (rc) {
		fc_bw_skip(w, from, rel, strerror(-rc));
		return rc;
	}
	snprintf(crc, sizeof(crc), "%08x", fc_crc32c(0, buf, len));
	e = json_pack("{s:s, s:I, s:s, s:s}", "path", rel, "bytes", (json_int_t)len, "crc32c", crc,
		      "from", from);
	if (exit >= 0)
		json_object_set_new(e, "exit", json_integer(exit));
	json_array_append_new(w->files, e);
	w->total += len;
	w->nentries++;
	return 0;
}

int fc_bw_link(struct fc_bundle_w *w, const char *rel, const char *target)
{
	const char *base;
	int dfd, rc = 0;

	if (w->full || w->nentries + 1 > FC_BUNDLE_ENTRIES_MAX)
		return -EFBIG;
	dfd = bw_parent(w, rel, &base);
	if (dfd < 0)
		return dfd;
	if (symlinkat(target, dfd, base) && errno != EEXIST)
		rc = -errno;
	close(dfd);
	w->nentries++;
	return rc;
}

int fc_bw_mkdir(struct fc_bundle_w *w, const char *rel)
{
	char sub[PATH_MAX];
	const char *base;
	int dfd;

	if (snprintf(sub, sizeof(sub), "%s/x", rel) >= (int)sizeof(sub))
		return -ENAMETOOLONG;
	dfd = bw_parent(w, sub, &base);
	if (dfd < 0)
		return dfd;
	close(dfd);
	return 0;
}

void fc_bw_skip(struct fc_bundle_w *w, const char *what, const char *rel, const char *why)
{
	json_t *e = json_pack("{s:s, s:s}", "input", what, "why", why);

	if (rel)
		json_object_set_new(e, "path", json_string(rel));
	json_array_append_new(w->not_read, e);
}

int fc_bw_close(struct fc_bundle_w *w, json_t *head)
{
	char *text;
	int dfd, rc;

	json_object_set_new(head, "files", w->files);
	json_object_set_new(head, "not_read", w->not_read);
	w->files = w->not_read = NULL;
	text = json_dumps(head, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(head);
	dfd = w->rootfd;
	w->rootfd = -1;
	if (!text || dfd < 0) {
		free(text);
		if (dfd >= 0)
			close(dfd);
		return -ENOMEM;
	}
	rc = fc_write_new_at(dfd, "manifest.json", text, strlen(text), w->root);
	close(dfd);
	free(text);
	return rc;
}

void fc_bw_abort(struct fc_bundle_w *w)
{
	json_decref(w->files);
	json_decref(w->not_read);
	w->files = w->not_read = NULL;
	if (w->rootfd >= 0)
		close(w->rootfd);
	w->rootfd = -1;
}

void fc_bundle_cmd_name(const char *const *argv, char *buf, size_t len)
{
	size_t o = 0;

	for (int i = 0; argv[i] && o + 1 < len; i++) {
		if (i && o + 1 < len)
			buf[o++] = '_';
		for (const char *p = argv[i]; *p && o + 1 < len; p++) {
			int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || strchr(".+-", *p);

			buf[o++] = ok ? *p : '-';
		}
	}
	buf[o] = 0;
}

/* ---- reading ---- */

/* nftw has no argument for its callback: the walk in progress. */
static struct {
	const char *root;
	size_t rootlen, total;
	long n;
	char *err;
	size_t errlen;
	const char *shown;
} walk;

static int inside(const char *real)
{
	return !strncmp(real, walk.root, walk.rootlen) &&
	       (real[walk.rootlen] == '/' || !real[walk.rootlen]);
}

static int walk_one(const char *fpath, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = fpath + walk.rootlen + (fpath[walk.rootlen] == '/');
	char real[PATH_MAX], tgt[PATH_MAX], sz[32], bound[32];
	ssize_t n;

	(void)ftw;
	if (++walk.n > FC_BUNDLE_ENTRIES_MAX) {
		snprintf(walk.err, walk.errlen, "%s: more than %d files: no capture fabcheck writes",
			 walk.shown, FC_BUNDLE_ENTRIES_MAX);
		return 1;
	}
	if (type == FTW_SL || type == FTW_SLN) {
		n = readlink(fpath, tgt, sizeof(tgt) - 1);
		tgt[n > 0 ? n : 0] = 0;
		if (!realpath(fpath, real) || !inside(real)) {
			int none = type == FTW_SLN || !realpath(fpath, real);

			snprintf(walk.err, walk.errlen,
				 "%s: %s: a link to '%s', %s: refused (a capture's links stay inside "
				 "it); capture the node again with 'fabcheck capture'",
				 walk.shown, rel, tgt, none ? "which leads nowhere" : "outside the bundle");
			return 1;
		}
		return 0;
	}
	if (type == FTW_D || type == FTW_DP)
		return 0;
	if (type != FTW_F || !S_ISREG(st->st_mode)) {
		snprintf(walk.err, walk.errlen, "%s: %s: %s", walk.shown, rel,
			 type == FTW_DNR ? "a folder that cannot be read" :
					   "neither a file nor a folder: refused");
		return 1;
	}
	if ((size_t)st->st_size > FC_BUNDLE_FILE_MAX) {
		snprintf(walk.err, walk.errlen,
			 "%s: %s: %s, more than a captured file's bound of %s: refused",
			 walk.shown, rel, fc_fmt_size((uint64_t)st->st_size, sz, sizeof(sz)),
			 fc_fmt_size(FC_BUNDLE_FILE_MAX, bound, sizeof(bound)));
		return 1;
	}
	walk.total += (size_t)st->st_size;
	if (walk.total > FC_BUNDLE_TOTAL_MAX) {
		snprintf(walk.err, walk.errlen, "%s: more than %s in all (at %s): refused",
			 walk.shown, "256 MiB", rel);
		return 1;
	}
	return 0;
}

/* A name from the manifest: relative, no "..", no empty part. */
static int safe_rel(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return 0;
	while (*p) {
		const char *s = strchr(p, '/');
		size_t l = s ? (size_t)(s - p) : strlen(p);

		if (!l || (l == 2 && !strncmp(p, "..", 2)) || (l == 1 && *p == '.'))
			return 0;
		p += l + !!s;
	}
	return 1;
}

/* Reads a file of the bundle whose path was checked: at most the bound. */
static char *slurp(const struct fc_bundle *b, const char *rel, size_t *len_p)
{
	char path[PATH_MAX];
	char *buf;
	int fd;

	fc_bundle_path(b, rel, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	buf = fc_read_fd(fd, FC_BUNDLE_FILE_MAX * 2, len_p);
	close(fd);
	return buf;
}

static int check_entry(struct fc_bundle *b, const json_t *f, char *err, size_t errlen)
{
	const char *rel = fc_jstr(f, "path", ""), *crc = fc_jstr(f, "crc32c", "");
	char path[PATH_MAX], real[PATH_MAX], got[16];
	json_int_t want = json_integer_value(json_object_get(f, "bytes"));
	size_t len = 0;
	char *buf;

	if (!safe_rel(rel) || !json_is_integer(json_object_get(f, "bytes")) || !*crc) {
		snprintf(err, errlen, "%s: manifest.json: an entry of \"files\" without a plain "
			 "relative \"path\", \"bytes\" and \"crc32c\" ('%.80s'): refused", b->shown, rel);
		return -1;
	}
	fc_bundle_path(b, rel, path, sizeof(path));
	if (!realpath(path, real) || (walk.root = b->root, walk.rootlen = strlen(b->root),
				      !inside(real))) {
		snprintf(err, errlen, "%s: %s: missing (the manifest lists it); capture the node "
			 "again with 'fabcheck capture'", b->shown, rel);
		return -1;
	}
	buf = slurp(b, rel, &len);
	if (!buf) {
		snprintf(err, errlen, "%s: %s: cannot be read: %s", b->shown, rel, strerror(errno));
		return -1;
	}
	snprintf(got, sizeof(got), "%08x", fc_crc32c(0, buf, len));
	free(buf);
	if ((json_int_t)len != want) {
		snprintf(err, errlen, "%s: %s: %zu bytes where the manifest says %lld (%s); capture "
			 "the node again", b->shown, rel, len, (long long)want,
			 (json_int_t)len < want ? "cut short" : "changed");
		return -1;
	}
	if (strcmp(got, crc)) {
		snprintf(err, errlen, "%s: %s: its content is not what was captured (CRC32C %s, "
			 "the manifest says %s); capture the node again", b->shown, rel, got, crc);
		return -1;
	}
	return 0;
}

static int check_manifest(struct fc_bundle *b, char *err, size_t errlen)
{
	json_error_t je;
	size_t len, i;
	json_t *f;
	char *text = slurp(b, "manifest.json", &len);

	if (!text) {
		snprintf(err, errlen, "%s: manifest.json: %s; a capture holds one (fabcheck capture "
			 "writes it)", b->shown, strerror(errno));
		return -1;
	}
	b->man = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!b->man) {
		snprintf(err, errlen, "%s: manifest.json: not a JSON object (%s at line %d); "
			 "capture the node again", b->shown, je.text, je.line);
		return -1;
	}
	if (!json_is_object(b->man)) { /* decoded: jansson's line is -1, none to name */
		snprintf(err, errlen, "%s: manifest.json: not a JSON object (another value); "
			 "capture the node again", b->shown);
		return -1;
	}
	if (json_integer_value(json_object_get(b->man, "capture")) != FC_BUNDLE_FORMAT ||
	    !json_is_array(json_object_get(b->man, "files"))) {
		snprintf(err, errlen, "%s: manifest.json: not a fabcheck capture of format %d "
			 "(\"capture\": %d and a \"files\" list)", b->shown, FC_BUNDLE_FORMAT,
			 FC_BUNDLE_FORMAT);
		return -1;
	}
	json_array_foreach(json_object_get(b->man, "files"), i, f)
		if (check_entry(b, f, err, errlen))
			return -1;
	return 0;
}

/* node.json names the node every judgment speaks of: a JSON object whose
 * "host" is a node name (a capture that lacks it, or holds other bytes
 * there with a manifest made to match, is refused, not judged as "?"). */
static int check_node(struct fc_bundle *b, char *err, size_t errlen)
{
	char why[256];
	size_t len = 0;
	int code;
	char *text = fc_bundle_read(b, "node.json", &len, &code, why, sizeof(why));
	json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
	const char *host = json_string_value(json_object_get(doc, "host"));
	int bad = !host || !fc_valid_node_name(host);

	if (bad)
		snprintf(err, errlen, "%s: node.json: %s; capture the node again with 'fabcheck capture'",
			 b->shown, !text ? why : !json_is_object(doc) ? "not a JSON object" :
						"no \"host\" that is a node name");
	json_decref(doc);
	free(text);
	return bad ? -1 : 0;
}

static int bundle_dir(struct fc_bundle *b, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || !realpath(dir, b->root)) {
		snprintf(err, errlen, "%s: %s; give a folder or FILE.tar.gz that 'fabcheck capture' "
			 "wrote", b->shown, errno ? strerror(errno) : "not a folder");
		return -1;
	}
	walk.root = b->root;
	walk.rootlen = strlen(b->root);
	walk.total = 0;
	walk.n = 0;
	walk.err = err;
	walk.errlen = errlen;
	walk.shown = b->shown;
	*err = 0;
	if (nftw(b->root, walk_one, 16, FTW_PHYS) != 0) {
		if (!*err)
			snprintf(err, errlen, "%s: cannot be read: %s", b->shown, strerror(errno));
		return -1;
	}
	return check_manifest(b, err, errlen) || check_node(b, err, errlen);
}

static int is_tgz(const char *p)
{
	size_t n = strlen(p);

	return (n > 7 && !strcmp(p + n - 7, ".tar.gz")) || (n > 4 && !strcmp(p + n - 4, ".tgz"));
}

struct fc_bundle *fc_bundle_open(const char *path, char *err, size_t errlen)
{
	struct fc_bundle *b = calloc(1, sizeof(*b));
	const char *dir = path;

	if (!b) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(b->shown, sizeof(b->shown), "%s", path);
	if (is_tgz(path)) {
		const char *t = getenv("TMPDIR");

		snprintf(b->tmp, sizeof(b->tmp), "%s/fabcheck-bundle.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(b->tmp)) {
			snprintf(err, errlen, "%s: cannot make a folder to unpack it: %s", path,
				 strerror(errno));
			*b->tmp = 0;
			goto fail;
		}
		if (!fc_bundle_unpack || fc_bundle_unpack(path, b->tmp, err, errlen))
			goto fail;
		dir = b->tmp;
	}
	errno = 0;
	if (bundle_dir(b, dir, err, errlen))
		goto fail;
	return b;
fail:
	fc_bundle_close(b);
	return NULL;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st, (void)type, (void)f;
	remove(p);
	return 0;
}

void fc_bundle_close(struct fc_bundle *b)
{
	if (!b)
		return;
	if (*b->tmp)
		nftw(b->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	json_decref(b->man);
	free(b);
}

const char *fc_bundle_path(const struct fc_bundle *b, const char *rel, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s/%s", b->root, rel) >= (int)len)
		buf[0] = 0; /* too long: names nothing */
	return buf;
}

const char *fc_bundle_str(const struct fc_bundle *b, const char *key, const char *def)
{
	return fc_jstr(b->man, key, def);
}

char *fc_bundle_read(const struct fc_bundle *b, const char *rel, size_t *len_p, int *exit_p,
		     char *why, size_t whylen)
{
	size_t i;
	json_t *f;

	*exit_p = -1;
	json_array_foreach(json_object_get(b->man, "files"), i, f) {
		if (strcmp(fc_jstr(f, "path", ""), rel))
			continue;
		if (json_is_integer(json_object_get(f, "exit")))
			*exit_p = (int)json_integer_value(json_object_get(f, "exit"));
		snprintf(why, whylen, "%s", fc_jstr(f, "stderr", ""));
		return slurp(b, rel, len_p);
	}
	json_array_foreach(json_object_get(b->man, "not_read"), i, f) {
		if (!strcmp(fc_jstr(f, "input", ""), rel) || !strcmp(fc_jstr(f, "path", ""), rel)) {
			snprintf(why, whylen, "%s", fc_jstr(f, "why", "not read at capture"));
			return NULL;
		}
	}
	snprintf(why, whylen, "not in the capture");
	return NULL;
}
