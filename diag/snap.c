/* Snapshots: relative path -> file text, from a folder of files (the
 * evidence format before readings were captures, and what a person puts
 * together by hand: doc/diagnose.md). */
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
#include "core/util.h"

#define SNAP_FILE_MAX DIAG_SNAP_FILE_MAX
#define SNAP_TOTAL_MAX DIAG_SNAP_TOTAL_MAX
#define SNAP_DEPTH 3		   /* pcie/hca-0000:17:00.0/current_link_speed */

/* Names as a snapshot may hold them: no "..", no leading '/', printable. */
int diag_snap_path_ok(const char *rel)
{
	if (!*rel || *rel == '/' || strstr(rel, "..") || strlen(rel) > 200)
		return 0;
	for (const char *c = rel; *c; c++)
		if (*c < 0x21 || *c > 0x7e || *c == '\\')
			return 0;
	return 1;
}

int diag_snap_take(json_t *snap, const char *rel, const char *text, size_t len, size_t *total,
		   const char *where, int strict)
{
	json_t *js;

	*total += len;
	if (len > SNAP_FILE_MAX || *total > SNAP_TOTAL_MAX) {
		fc_err("evidence: %s: %s: not an evidence reading (see doc/diagnose.md)", where,
		       len > SNAP_FILE_MAX ? "over 1 MiB, a snapshot file's bound" :
					     "the reading holds over 16 MiB");
		return -EFBIG;
	}
	js = strict ? json_stringn(text, len) : json_string(text); /* NULL: not UTF-8 */
	if (strict && (!js || memchr(text, 0, len))) {
		json_decref(js);
		fc_err("evidence: %s: not text (a NUL byte, or bytes that are not UTF-8): refused; "
		       "fabcheck writes text only: run the test again to write the reading anew",
		       where);
		return -EINVAL;
	}
	json_object_set_new(snap, rel, js ? js : json_string("(not text)"));
	return 0;
}

static int walk(json_t *snap, const char *dir, const char *rel, int depth, size_t *total)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d) {
		fc_err("evidence: cannot open folder '%s': %s", dir, strerror(errno));
		return -errno;
	}
	while (!err && (e = readdir(d))) {
		char path[1024], sub[512];
		struct stat st;
		char *text = NULL;
		size_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (lstat(path, &st) || !diag_snap_path_ok(sub))
			continue;
		if (S_ISLNK(st.st_mode)) {
			fc_warn("evidence: '%s' is a symbolic link: left out (fabcheck follows no "
				"link inside evidence)", path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth < SNAP_DEPTH)
				err = walk(snap, path, sub, depth + 1, total);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		text = fc_read_regular("evidence", path, SNAP_FILE_MAX, FC_READ_NOFOLLOW, &len);
		if (!text) {
			err = -errno;
			break;
		}
		err = diag_snap_take(snap, sub, text, len, total, path, 0);
		free(text);
	}
	closedir(d);
	return err;
}

json_t *diag_snap_read_dir(const char *dir)
{
	json_t *snap = json_object();
	size_t total = 0;

	if (walk(snap, dir, "", 1, &total)) {
		json_decref(snap);
		return NULL;
	}
	return snap;
}
