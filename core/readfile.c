/* The one bounded reader of files another hand wrote (readfile.h). */
#include "core/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/safefile.h"
#include "core/util.h"

int fc_open_regular(const char *path, int flags)
{
	/* O_NONBLOCK: a FIFO opens at once and is refused below, never waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				    (flags & FC_READ_NOFOLLOW ? O_NOFOLLOW : 0));
	struct stat st;

	if (fd < 0)
		return -errno;
	errno = 0;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) ||
				(S_ISFIFO(st.st_mode) && !(flags & FC_READ_NOFOLLOW)))) {
		int err = errno;

		close(fd);
		return err ? -err : -EINVAL;
	}
	return fd;
}

static const char *why_not(int err, size_t max, char *buf, size_t len)
{
	if (err == -EINVAL)
		return "not a regular file (a device, a folder, or a FIFO where only files are read)";
	if (err == -ETIMEDOUT) {
		snprintf(buf, len, "its writer sent nothing for %g s", fc_fifo_idle_ms / 1000.0);
		return buf;
	}
	if (err == -ELOOP)
		return "a symbolic link, which fabcheck does not follow here";
	if (err == -EFBIG) {
		snprintf(buf, len, "over %zu MiB, more than such a file ever holds", max >> 20);
		return buf;
	}
	return strerror(-err);
}

/* @path's text, or NULL with the negative errno in *@err_p. */
static char *read_text(const char *path, size_t max, int flags, size_t *len_p, int *err_p)
{
	int fd = fc_open_regular(path, flags);
	char *text;

	if (fd < 0) {
		*err_p = fd;
		return NULL;
	}
	text = fc_read_fd(fd, max, len_p);
	*err_p = text ? 0 : -errno;
	close(fd);
	return text;
}

char *fc_read_regular(const char *what, const char *path, size_t max, int flags,
		      size_t *len_p)
{
	char why[96];
	int err;
	char *text = read_text(path, max, flags, len_p, &err);

	if (text)
		return text;
	fc_err("%s: cannot read '%s': %s; give a regular file", what, path,
	       why_not(err, max, why, sizeof(why)));
	errno = -err;
	return NULL;
}

json_t *fc_load_json(const char *path, int flags, size_t jflags, json_error_t *jerr)
{
	size_t len = 0;
	char why[96];
	int err;
	char *text = read_text(path, FC_DOC_MAX, flags, &len, &err);
	json_t *doc;

	if (!text) {
		snprintf(jerr->text, sizeof(jerr->text), "cannot read it: %s",
			 why_not(err, FC_DOC_MAX, why, sizeof(why)));
		jerr->line = jerr->column = -1;
		return NULL;
	}
	doc = json_loadb(text, len, jflags, jerr);
	free(text);
	return doc;
}

const char *fc_json_err_line(const json_error_t *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (e->line > 0)
		snprintf(buf, len, " (line %d)", e->line);
	return buf;
}
