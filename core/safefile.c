/* Evidence folders and replaced outputs that no planted link redirects (safefile.h). */
#include "core/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Whether a link (its status @ln) in a folder (its status @dst) may be followed:
 * the rule of the kernel's fs.protected_symlinks (fs/namei.c
 * may_follow_link; Documentation/admin-guide/sysctl/fs.rst), kept by
 * fabcheck itself where the host turned it off: a link inside a sticky
 * folder that others can write (/tmp) is followed only when it is the
 * follower's or the folder owner's. 1 to follow, 0 when refused (logged).
 */
static int may_follow(const struct stat *ln, const struct stat *dst, const char *shown)
{
	if (!((dst->st_mode & S_ISVTX) && (dst->st_mode & S_IWOTH)) || ln->st_uid == geteuid() ||
	    ln->st_uid == dst->st_uid)
		return 1;
	fc_err("evidence: '%s' is a symbolic link of user %u in a folder others can write; "
	       "fabcheck follows no other user's link there: remove it or give another folder",
	       shown, (unsigned)ln->st_uid);
	return 0;
}

/*
 * mkdir -p of the folders above @path, each opened relative to the one
 * above it, so that no link planted in a parent (a shared /tmp) sends the
 * evidence elsewhere (may_follow); the last name of @path in *@last_p. An
 * fd of the folder that holds it, or a negative errno (logged).
 */
static int open_parents(const char *path, char *buf, size_t len, const char **last_p)
{
	int dfd, fd, said = 0;
	char *p, *name, *slash;
	struct stat dst, lst;

	if (snprintf(buf, len, "%s", path) >= (int)len) {
		fc_err("evidence: '%.64s...' is longer than %d bytes; give a shorter folder",
		       path, PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	while (strlen(buf) > 1 && buf[strlen(buf) - 1] == '/')
		buf[strlen(buf) - 1] = '\0';
	dfd = open(*buf == '/' ? "/" : ".", DIR_FLAGS);
	if (dfd < 0) {
		fc_err("evidence: cannot open the folder above '%s': %m", path);
		return -errno;
	}
	for (name = buf + (*buf == '/'); (slash = strchr(name, '/')); name = p) {
		*slash = '\0';
		p = slash + 1;
		while (*p == '/')
			p++;
		if (!*name || !strcmp(name, ".")) {
			*slash = '/';
			continue;
		}
		if (mkdirat(dfd, name, 0755) && errno != EEXIST) {
			fc_err("evidence: cannot create folder '%s': %m", buf);
			close(dfd);
			return -errno;
		}
		fd = openat(dfd, name, DIR_FLAGS);
		/* a link: ELOOP, or ENOTDIR with O_DIRECTORY */
		if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && !fstat(dfd, &dst) &&
		    !fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) && S_ISLNK(lst.st_mode)) {
			if (may_follow(&lst, &dst, buf))
				fd = openat(dfd, name, (DIR_FLAGS) & ~O_NOFOLLOW);
			else
				errno = EPERM, said = 1;
		}
		if (fd < 0) {
			int err = errno;

			if (!said)
				fc_err("evidence: cannot open folder '%s': %s", buf, strerror(err));
			close(dfd);
			return -err;
		}
		*slash = '/';
		close(dfd);
		dfd = fd;
	}
	*last_p = name;
	return dfd;
}

/* An fd of folder @name in @dfd, refused when it is a link, not a folder or
 * another user's. */
static int open_own_dir(int dfd, const char *name, const char *shown)
{
	int fd = openat(dfd, name, DIR_FLAGS), err;
	struct stat st;

	if (fd < 0) {
		err = errno;
		if (err == ELOOP || err == ENOTDIR)
			fc_err("evidence: '%s' is %s; fabcheck writes evidence only into folders it "
			       "made: remove it or give another folder", shown,
			       !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode) ?
				       "a symbolic link" : "not a folder");
		else
			fc_err("evidence: cannot open folder '%s': %s", shown, strerror(err));
		return -err;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		fc_err("evidence: folder '%s' belongs to user %u, not to you (%u); fabcheck writes "
		       "evidence only into a folder of yours: give a new folder",
		       shown, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* 1 when folder @dfd holds nothing, 0 when it holds something, -errno. */
static int is_empty(int dfd)
{
	int fd = openat(dfd, ".", DIR_FLAGS), n = 0;
	struct dirent *e;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return !n;
}

static int has_mark(int dfd)
{
	struct stat st;

	return !fstatat(dfd, FC_EVDIR_MARK, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

int fc_evdir_open(const char *path)
{
	static const char mark[] = "fabcheck evidence folder ('fabcheck diagnose' reads it)\n";
	char buf[PATH_MAX];
	const char *last = "";
	int made, fd, empty, err, pfd;

	if (!*path) {
		fc_err("evidence: the folder name is empty; give --save-evidence DIR");
		return -EINVAL;
	}
	if ((pfd = open_parents(path, buf, sizeof(buf), &last)) < 0)
		return pfd;
	made = !mkdirat(pfd, last, 0755);
	if (!made && errno != EEXIST) {
		err = -errno;
		fc_err("evidence: cannot create folder '%s': %m", path);
		close(pfd);
		return err;
	}
	fd = open_own_dir(pfd, last, path);
	close(pfd);
	if (fd < 0 || (!made && has_mark(fd)))
		return fd;
	empty = made ? 1 : is_empty(fd);
	if (empty <= 0) {
		if (empty < 0)
			fc_err("evidence: cannot list folder '%s': %s", path, strerror(-empty));
		else
			fc_err("evidence: folder '%s' already holds files and is not a fabcheck "
			       "evidence folder (no %s in it); give a new or empty folder",
			       path, FC_EVDIR_MARK);
		close(fd);
		return empty < 0 ? empty : -EEXIST;
	}
	err = fc_write_new_at(fd, FC_EVDIR_MARK, mark, sizeof(mark) - 1, path);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int fc_subdir_at(int dfd, const char *name, const char *shown)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s/%s", shown, name);
	if (!*name || strchr(name, '/')) {
		fc_err("evidence: '%s' is not one folder name", full);
		return -EINVAL;
	}
	if (mkdirat(dfd, name, 0755) && errno != EEXIST) {
		fc_err("evidence: cannot create folder '%s': %m", full);
		return -errno;
	}
	return open_own_dir(dfd, name, full);
}

static int write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

int fc_write_new_at(int dfd, const char *name, const char *buf, size_t len, const char *shown)
{
	int fd, err;

	if (!*name || strchr(name, '/')) {
		fc_err("evidence: '%s/%s' is not one file name", shown, name);
		return -EINVAL;
	}
	if (unlinkat(dfd, name, 0) && errno != ENOENT) {
		err = -errno;
		goto fail;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	err = write_all(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err)
		return 0;
fail:
	fc_err("evidence: cannot write '%s/%s': %s", shown, name, strerror(-err));
	return err;
}

int fc_fifo_idle_ms = FC_FIFO_IDLE_MS;

/* @len bytes of @buf to the non-blocking @fd, waiting at most
 * fc_fifo_idle_ms each time its reader takes nothing. 0, or -errno
 * (-ETIMEDOUT: the reader took nothing for that long). */
static int write_deadline(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n = write(fd, buf + off, len - off);
		int rc;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = poll(&p, 1, fc_fifo_idle_ms);
		if (rc == 0)
			return -ETIMEDOUT;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/* A FIFO or character device named by the user: written as it is, what
 * @fill writes first kept in memory, then written with a deadline (a
 * FIFO whose reader stops reading does not hold fabcheck). */
static int fill_in_place(const char *what, const char *path, int (*fill)(FILE *, void *),
			 void *arg)
{
	/* O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO), never waits */
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), rc;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    !(f = open_memstream(&text, &len))) {
		fc_err("%s: cannot write %s: %s", what, path,
		       fd < 0 && errno == ENXIO ? "nothing reads the FIFO" :
		       fd < 0 ? strerror(errno) : "it is no longer a FIFO or device");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = fill(f, arg);
	if (fclose(f) || rc)
		rc = -errno ?: -EIO;
	else
		rc = write_deadline(fd, text, len);
	free(text);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc) {
		if (rc == -ETIMEDOUT)
			fc_err("%s: cannot write %s: its reader took nothing for %g s; fabcheck "
			       "stopped (read the FIFO while fabcheck writes, or give a file)", what,
			       path, fc_fifo_idle_ms / 1000.0);
		else
			fc_err("%s: cannot write %s: %s", what, path, strerror(-rc));
		return -1;
	}
	return 0;
}

/* The hidden temporary fc_replace_file is filling, for fc_replace_abandon:
 * set once it exists, cleared once it is renamed or removed. */
static char replacing[PATH_MAX];
static volatile sig_atomic_t replacing_set;

void fc_replace_abandon(void)
{
	if (replacing_set) {
		unlink(replacing);
		replacing_set = 0;
	}
}

/* Removes the temporary @tmp, and forgets it. */
static void tmp_drop(const char *tmp)
{
	unlink(tmp);
	replacing_set = 0;
}

int fc_replace_file(const char *what, const char *path, int (*fill)(FILE *f, void *arg),
		    void *arg)
{
	const char *slash = strrchr(path, '/');
	mode_t mode = 0644;
	char tmp[PATH_MAX];
	struct stat st;
	int fd, rc;
	FILE *f;

	if (!lstat(path, &st)) {
		if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
			return fill_in_place(what, path, fill, arg);
		if (!S_ISREG(st.st_mode)) {
			fc_err("%s: cannot write %s: it is %s; fabcheck replaces regular files only "
			       "(and never writes through a link): give the file itself or a new name",
			       what, path, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
			return -1;
		}
		mode = st.st_mode & 0777;
	} else if (errno != ENOENT) {
		fc_err("%s: cannot write %s: %m; check that the folder exists and is readable",
		       what, path);
		return -1;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	/* the hidden temporary next to the target, so the rename stays in its file system */
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) >= (int)sizeof(tmp)) {
		fc_err("%s: cannot write %s: the path is too long", what, path);
		return -1;
	}
	replacing_set = 0;
	memcpy(replacing, tmp, sizeof(replacing));
	fd = mkstemp(replacing);
	if (fd >= 0) { /* from here a signal's last words remove it */
		memcpy(tmp, replacing, sizeof(tmp));
		replacing_set = 1;
	}
	if (fd < 0 || fchmod(fd, mode) || !(f = fdopen(fd, "w"))) {
		fc_err("%s: cannot write %s: %m; check that the folder exists and is writable",
		       what, path);
		if (fd >= 0) {
			close(fd);
			tmp_drop(tmp);
		}
		return -1;
	}
	rc = fill(f, arg);
	if (fclose(f) || rc) {
		fc_err("%s: cannot write %s: %m; is the disk full?", what, path);
		tmp_drop(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fc_err("%s: cannot write %s: %m", what, path);
		tmp_drop(tmp);
		return -1;
	}
	replacing_set = 0;
	return 0;
}
