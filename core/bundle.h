/*
 * A node capture ("bundle", doc/capture.md): a folder (or a .tar.gz of one)
 * holding every input fabcheck reads to judge a node: `sys/` (the sysfs files,
 * their paths as under /sys), `cmd/` (each command's output), `verbs/`,
 * `files/`, and `manifest.json` (the fabcheck version, the time, the host,
 * each file with what made it, its size and CRC32C, and each input that
 * could not be read and why). The writer keeps every file within the bounds
 * below; the reader checks a whole bundle before anything reads it: every
 * link stays inside it, every file is a plain file within the bounds, every
 * file the manifest names is there with its size and CRC32C. Pure code.
 */
#ifndef FC_CORE_BUNDLE_H
#define FC_CORE_BUNDLE_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

/* The bounds (doc/capture.md): one file, the whole bundle, its entries. A
 * command's output past FC_BUNDLE_FILE_MAX is not kept (noted as not read). */
#define FC_BUNDLE_FILE_MAX (16u << 20)
#define FC_BUNDLE_TOTAL_MAX (256u << 20)
#define FC_BUNDLE_ENTRIES_MAX 200000
/* The manifest's format; a reader refuses a later one. */
#define FC_BUNDLE_FORMAT 1

/* ---- writing ---- */
struct fc_bundle_w {
	char root[PATH_MAX];	/* as shown in messages */
	int rootfd;		/* the root, held open: files are made below it */
	json_t *files, *not_read;
	size_t total;
	int nentries;
	int full; /* a bound was reached: later files are noted as not read */
};

/* Makes @dir (missing, or an empty folder) the bundle's root. 0 or -errno
 * (logged naming @dir). */
int fc_bw_open(struct fc_bundle_w *w, const char *dir);
/* The same with the root the folder @name of the folder @dfd (made, or
 * taken when it is already one of ours: core/safefile.h fc_subdir_at, never
 * through a link), @shown naming it. Its manifest.json, if any, is removed
 * first; the new one lists what this writer puts, nothing else the folder
 * holds. 0 or -errno (logged). */
int fc_bw_open_at(struct fc_bundle_w *w, int dfd, const char *name, const char *shown);
/* Adds @len bytes of @buf as the file @rel (made with its folders, never
 * through a link), recorded with @from (the command or the path read) and,
 * for a command (@exit >= 0), its exit code. 0, or -errno after noting the
 * input as not read. */
int fc_bw_put(struct fc_bundle_w *w, const char *rel, const void *buf, size_t len,
	      const char *from, int exit);
/* A symbolic link @rel -> @target (relative, as sysfs has them). */
int fc_bw_link(struct fc_bundle_w *w, const char *rel, const char *target);
/* The folder @rel (made with its parents, never through a link). */
int fc_bw_mkdir(struct fc_bundle_w *w, const char *rel);
/* Notes the input @what (a command or a path) as not read, and why; @rel:
 * the file it would have been (NULL: none). */
void fc_bw_skip(struct fc_bundle_w *w, const char *what, const char *rel, const char *why);
/* Writes manifest.json: @head's members (host, time, ...) with "files" and
 * "not_read"; frees what @w holds and takes @head. 0 or -errno. */
int fc_bw_close(struct fc_bundle_w *w, json_t *head);
/* Drops the bundle being written without a manifest (so no reader takes
 * what was put for whole), freeing what @w holds. */
void fc_bw_abort(struct fc_bundle_w *w);
/* The file name under cmd/ for a command line: its words joined by '_', each
 * byte outside [A-Za-z0-9.+-] as '-' ("ethtool -S eth0" -> "ethtool_-S_eth0"). */
void fc_bundle_cmd_name(const char *const *argv, char *buf, size_t len);

/* ---- reading ---- */
struct fc_bundle {
	char shown[PATH_MAX];	/* as the user named it */
	char root[PATH_MAX];	/* the checked folder (real path) */
	char tmp[PATH_MAX];	/* a folder of ours to remove at close, or "" */
	json_t *man;
};

/*
 * Opens and checks the bundle @path (a folder or a .tar.gz, unpacked by
 * fc_bundle_unpack into a folder of ours). NULL after writing into @err
 * what is wrong, naming the file ("BUNDLE: sys/x: ...") and the fix.
 */
struct fc_bundle *fc_bundle_open(const char *path, char *err, size_t errlen);
void fc_bundle_close(struct fc_bundle *b);
/* @rel's path in the bundle (into @buf). */
const char *fc_bundle_path(const struct fc_bundle *b, const char *rel, char *buf, size_t len);
/*
 * The recorded file @rel (malloc'd, NUL-ended, its length in *@len_p), in
 * *@exit_p the exit code recorded with it (-1: none) and in @why the last
 * line of the command's stderr ("" when none). NULL when the
 * capture holds no such file: @why gets the reason the manifest gives, or
 * "not in the capture".
 */
char *fc_bundle_read(const struct fc_bundle *b, const char *rel, size_t *len_p, int *exit_p,
		     char *why, size_t whylen);
/* The manifest's string member @key, or @def. */
const char *fc_bundle_str(const struct fc_bundle *b, const char *key, const char *def);

/* Unpacks @tgz into the empty folder @dir after checking its listing (names,
 * types, sizes within the bounds); set by src/main.c (ctl/bundle_tar.c). 0,
 * or -1 with @err naming the member and what is wrong. */
extern int (*fc_bundle_unpack)(const char *tgz, const char *dir, char *err, size_t errlen);

#endif
