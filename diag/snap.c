/* Snapshots: relative path -> file text, from and to an evidence folder. */
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
#include "core/safefile.h"
#include "core/util.h"

#define SNAP_FILE_MAX DIAG_SNAP_FILE_MAX
#define SNAP_TOTAL_MAX DIAG_SNAP_TOTAL_MAX
#define SNAP_DEPTH 3		   /* pcie/hca-0000:17:00.0/current_link_speed */

/* Names as a snapshot may hold them: no "..", no leading '/', printable. */
static int snap_path_ok(const char *rel)
{
	if (!*rel || *rel == '/' || strstr(rel, "..") || strlen(rel) > 200)
		return 0;
	for (const char *c = rel; *c; c++)
		if (*c < 0x21 || *c > 0x7e || *c == '\\')
			return 0;
	return 1;
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
		json_t *js;
		size_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (lstat(path, &st) || !snap_path_ok(sub))
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
		*total += len;
		if (*total > SNAP_TOTAL_MAX) {
			fc_err("evidence: '%s' holds over 16 MiB: not an evidence folder (see doc/diagnose.md)",
			       dir);
			free(text);
			err = -EFBIG;
			break;
		}
		js = json_string(text); /* NULL for bytes that are not UTF-8 */
		json_object_set_new(snap, sub, js ? js : json_string("(not text)"));
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

/* Creates each folder of @rel (a snapshot's name, snap_path_ok) under
 * @dfd and writes the file at its end, all relative to folder fds. */
static int write_rel(int dfd, const char *rel, const char *text, const char *shown)
{
	char buf[256], where[1024], *part, *next;
	int fd = dfd, err = 0;

	snprintf(buf, sizeof(buf), "%s", rel); /* snap_path_ok: at most 200 bytes */
	snprintf(where, sizeof(where), "%s", shown);
	for (part = buf; (next = strchr(part, '/')); part = next + 1) {
		int sub;

		*next = '\0';
		if (!*part || *part == '.') { /* "a//b", "./a", ".hidden/a" */
			err = -EINVAL;
			break;
		}
		sub = fc_subdir_at(fd, part, where);
		if (fd != dfd)
			close(fd);
		if (sub < 0)
			return sub;
		fd = sub;
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "/%s", part);
	}
	if (!err && (!*part || *part == '.'))
		err = -EINVAL;
	if (err)
		fc_err("evidence: '%s' is not a snapshot file name; not written", rel);
	else
		err = fc_write_new_at(fd, part, text, strlen(text), where);
	if (fd != dfd)
		close(fd);
	return err;
}

int diag_snap_write_at(int dfd, const json_t *snap, const char *shown)
{
	const char *rel;
	json_t *v;
	int err = 0;

	json_object_foreach((json_t *)snap, rel, v) {
		if (!snap_path_ok(rel) || !json_is_string(v))
			continue;
		if ((err = write_rel(dfd, rel, json_string_value(v), shown)))
			break;
	}
	return err;
}
