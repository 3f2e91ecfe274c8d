/*
 * Files written so that no planted link, no other user's folder and no cut
 * path can redirect a write: evidence folders fabcheck makes itself, with
 * each file created relative to its folder's fd (O_CREAT | O_EXCL |
 * O_NOFOLLOW), and outputs replaced through a mkstemp file renamed over a
 * regular file only.
 */
#ifndef FC_SAFEFILE_H
#define FC_SAFEFILE_H

#include <stddef.h>
#include <stdio.h>

/* The file that marks a folder as fabcheck's evidence folder. */
#define FC_EVDIR_MARK ".fabcheck-evidence"

/*
 * Opens @path as an evidence folder: made (with its parents) when missing
 * and marked; an existing one is used only when it is a folder (not a
 * link) of this user's that is empty (then marked) or already marked.
 * Anything else is refused, logged naming @path and the fix. Returns an
 * O_DIRECTORY fd, or a negative errno.
 */
int fc_evdir_open(const char *path);
/* The folder @name (one path component) in folder @dfd: made, or an
 * existing folder of this user's opened, never through a link. An fd or a
 * negative errno, logged naming @shown/@name. */
int fc_subdir_at(int dfd, const char *name, const char *shown);
/* @len bytes of @buf as the new file @name of @dfd (O_CREAT | O_EXCL |
 * O_NOFOLLOW); what was at @name before (a file, a link) is removed first,
 * never what a link points to. 0, or a negative errno logged with @shown. */
int fc_write_new_at(int dfd, const char *name, const char *buf, size_t len,
		    const char *shown);

/*
 * Replaces @path with what @fill writes (0 on success): into a mkstemp file
 * in @path's folder, renamed over @path when that is missing or a regular
 * file; a FIFO or character device (/dev/null) is written in place, with
 * fc_fifo_idle_ms as the deadline of each wait for its reader; a
 * symbolic link or anything else is refused. 0, or -1 after logging naming
 * @what (e.g. "--html") and @path.
 */
/* The longest a FIFO's or device's reader may take no data while
 * fc_replace_file writes to it (ms): then the write fails. Not a
 * hardware figure: a reader that takes nothing for 10 s is stuck, and
 * every wait has a deadline. Tests shorten it. */
#define FC_FIFO_IDLE_MS 10000
extern int fc_fifo_idle_ms;

int fc_replace_file(const char *what, const char *path, int (*fill)(FILE *f, void *arg),
		    void *arg);
/* Removes the hidden temporary file fc_replace_file is filling, if any:
 * system calls only, for a signal's last words (core/out.h
 * fc_out_on_signals), so that no ".NAME.XXXXXX" is left behind. */
void fc_replace_abandon(void);

#endif
