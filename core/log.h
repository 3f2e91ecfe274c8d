/* Levelled logging to stderr. Messages are lowercase and name the object. */
#ifndef FC_LOG_H
#define FC_LOG_H

#include <stddef.h>
#include <stdio.h>

enum fc_log_level { FC_LOG_ERR, FC_LOG_WARN, FC_LOG_INFO, FC_LOG_DEBUG };

/* Messages above this level are dropped (default FC_LOG_WARN; -v raises it). */
extern int fc_log_level;
/* Prefix put before every message ("fabcheck" or "fabcheck worker@nodeA"). */
extern const char *fc_log_prefix;

/* When set, also receives each message that passes the level (the worker
 * forwards its errors to the controller through it). */
extern void (*fc_log_hook)(enum fc_log_level lvl, const char *msg);

/* When set, writes each message that passes the level, with its prefix
 * and level, in place of the one line fc_log writes: src/main.c sets it to
 * core/summary.h's fc_err_put (the line wrapped at words to the terminal,
 * nothing cut: issue 39 item 3) where stderr is a terminal and the command
 * is not a worker: a process whose stderr a fabcheck reads (a worker, a
 * matrix's pair) keeps each message whole on its line. */
extern void (*fc_log_fit)(const char *text, int hang, int lines);

/* The error messages logged so far, oldest first: the first FC_LOG_KEEP of
 * them into @msgs (without the prefix). Returns how many were logged in all. */
#define FC_LOG_KEEP 8
int fc_log_errors(const char **msgs, int max);

/* @n bytes of @s to @f with every byte outside printable ASCII but '\n' and
 * '\t' as \xHH (the escaping of core/names.h's fc_name_show): text from a
 * worker or a store (names, a worker's stderr) reaches the terminal with no
 * escape sequence. fc_log writes every message through it. */
void fc_put_safe(FILE *f, const char *s, size_t n);

void fc_log(enum fc_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define fc_err(...) fc_log(FC_LOG_ERR, __VA_ARGS__)
#define fc_warn(...) fc_log(FC_LOG_WARN, __VA_ARGS__)
#define fc_info(...) fc_log(FC_LOG_INFO, __VA_ARGS__)
#define fc_dbg(...) fc_log(FC_LOG_DEBUG, __VA_ARGS__)

#endif
