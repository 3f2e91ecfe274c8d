/*
 * Files fabcheck reads that another hand wrote (a --reference document, a
 * state file, a DeepSpeed config, an evidence folder's files): the one
 * reader of such a file. It opens the path without waiting, takes a
 * regular file or a pipe (--topo <(...)) read with a deadline
 * (fc_read_fd), no device or folder; with FC_READ_NOFOLLOW (inside an
 * evidence folder) a regular file only, never through a symbolic link.
 * It reads at most a stated number of bytes, so that no file holds
 * fabcheck or fills its memory.
 */
#ifndef FC_READFILE_H
#define FC_READFILE_H

#include <jansson.h>
#include <stddef.h>

/* The most a JSON document fabcheck reads may hold: a preflight document
 * of a 4,096-node rack is a few MiB; nothing fabcheck reads comes near. */
#define FC_DOC_MAX (64u << 20)

enum { FC_READ_NOFOLLOW = 1 };

/* Opens @path (O_NONBLOCK) for reading when it is a regular file or a
 * pipe (@flags: FC_READ_NOFOLLOW takes a regular file only, never
 * through a link). An fd, or a negative errno (-EINVAL: neither; -ELOOP:
 * a link); logs nothing. */
int fc_open_regular(const char *path, int flags);
/* The whole regular file @path, at most @max bytes (a power of two), NUL
 * ended, its length in *@len_p; NULL after logging "@what: cannot read
 * 'PATH': WHY; give a regular file ..." (errno set). */
char *fc_read_regular(const char *what, const char *path, size_t max, int flags,
		      size_t *len_p);
/* The JSON document in the regular file @path (at most FC_DOC_MAX bytes;
 * @flags as fc_open_regular's), decoded with jansson's @jflags, or NULL with @jerr->text saying why
 * ("cannot read it: not a regular file ...", or jansson's reason with its
 * line); logs nothing: the caller names what it expected. */
json_t *fc_load_json(const char *path, int flags, size_t jflags, json_error_t *jerr);
/* " (line N)" for a jansson error @e that names its line, else "" (a file
 * fc_load_json could not read, or a document of the wrong kind, has none:
 * its line is -1); in @buf. */
const char *fc_json_err_line(const json_error_t *e, char *buf, size_t len);

#endif
