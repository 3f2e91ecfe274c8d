/*
 * One output path for text and JSON: a command builds one jansson document
 * (the contract in architecture.md); --json prints it as is, otherwise a
 * renderer turns the same document into aligned tables and finding lines.
 */
#ifndef FC_OUT_H
#define FC_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "core/fc.h"

enum fc_verdict { FC_PASS, FC_WARN, FC_FAIL };

/* A new document with "verdict": "pass" and an empty "findings" list. */
json_t *fc_doc_new(void);
/* Appends a finding (one line: what is wrong and what to do) and raises the
 * verdict to at least @level. */
void fc_finding(json_t *doc, enum fc_verdict level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
enum fc_verdict fc_doc_verdict(const json_t *doc);
const char *fc_verdict_name(enum fc_verdict v);
/* Exit code of a finished document: 0 pass/warn, 1 fail. */
int fc_doc_exit(const json_t *doc);

/* Set by main where the run's document is judged once more before it is
 * written (lab/starve.h: a starved virtual rack): the hook may rewrite
 * @doc; it returns 1 when the run judged nothing (exit FC_EXIT_CANT). */
extern int (*fc_emit_hook)(json_t *doc);

typedef void (*fc_render_fn)(FILE *f, const json_t *doc);
/* Prints @doc through @render, then the findings and the verdict line, and
 * checks that stdout was really written; with --json (ctx->json) it holds
 * @doc for fc_out_finish instead. Takes the reference to @doc. Returns the
 * exit code for the verdict, or FC_EXIT_CANT when stdout failed. */
int fc_emit(struct fc_ctx *ctx, json_t *doc, fc_render_fn render);
/* fc_emit for a listing that judges nothing (report --list, --slurm):
 * the text is @render's alone, through the same escaping, with no
 * findings or verdict line; with --json the same document. */
int fc_emit_listing(struct fc_ctx *ctx, json_t *doc, fc_render_fn render);
/* Text for stdout (help, usage); with --json it becomes the document's
 * "usage" (nothing judged). */
void fc_out_text(struct fc_ctx *ctx, const char *text);
/*
 * With --json, writes the one document of this exit: the one fc_emit held,
 * or a new one, with "verdict" ("error" where nothing was judged),
 * "findings" and "error": null for exit 0 and a judged fail, otherwise
 * { "code": "usage" | "cant_run" | "fail", "exit_code", "message": the
 * first error logged, "input": the file, option or value that message
 * names (its first quoted word, or the word before its first colon), or
 * null }. Where nothing was judged, the errors logged are the findings.
 * Without --json it does nothing. Returns @rc, or FC_EXIT_CANT when stdout
 * could not be written.
 */
int fc_out_finish(struct fc_ctx *ctx, int rc);
/*
 * SIGINT, SIGTERM and SIGHUP end the process with its last words: @cleanup
 * (system calls only: it runs in the signal handler), with --json the one
 * document (verdict "error", "error": {"code": "interrupted", "exit_code":
 * 128 + the signal, ...}) unless fc_out_finish is writing one, a line on
 * stderr, then the signal's own end. A command that stops on a signal by
 * itself (ctl/child.h fc_stop_on_signals) puts its handler in place of it.
 */
void fc_out_on_signals(const struct fc_ctx *ctx, void (*cleanup)(void));
/* "SIGINT", "SIGTERM" or "SIGHUP" for @sig. A command that stops on a
 * signal by itself and keeps what it measured sets ctx->stop_sig: then
 * fc_out_finish writes its document with verdict "error" and "error":
 * {"code": "interrupted", "exit_code": 128 + the signal, "message":
 * "interrupted by SIGTERM"}, and ends the process as by the signal. */
const char *fc_stop_name(int sig);
/* A JSON string of @s, any byte that is not UTF-8 shown as '?'. */
json_t *fc_json_text(const char *s);
/* Prints the findings and a "verdict: X" line for a text report. */
void fc_render_findings(FILE *f, const json_t *doc);
/* Prints the findings of @list one "  - " line each, the same sentence of
 * several nodes or ports one line naming them all, "all N nodes" where
 * they are every node of @doc's "nodes" (core/holders.h: each fact once);
 * --json keeps each finding. */
void fc_render_finding_list(FILE *f, const json_t *doc, const json_t *list);
/* The lines fc_render_finding_list prints for @list, whole (a new array of
 * strings): a --json document's "findings_text", which burnin-rack's
 * summary lists. */
json_t *fc_findings_lines(const json_t *doc, const json_t *list);

/* Reads the line @line (@len bytes, not NUL-ended) as a counter: its name
 * into @name (@nlen bytes) and its value; 1 when the line holds one. */
typedef int fc_counter_line_fn(const char *line, size_t len, char *name, size_t nlen,
			       unsigned long long *v_p);
/* The counters that @fn reads in the lines of @text, as a JSON object of
 * integers; NULL when there is none (or @text is NULL). */
json_t *fc_json_counters(const char *text, fc_counter_line_fn *fn);

/* Aligned text tables: columns sized to their widest cell. */
struct fc_table;
struct fc_table *fc_table_new(int ncols, ...); /* header strings */
/* The same with the @ncols header strings in @heads (at most 64 columns). */
struct fc_table *fc_table_newv(int ncols, const char *const *heads);
void fc_table_add(struct fc_table *t, ...);    /* ncols strings */
void fc_table_addf(struct fc_table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))); /* one cell of the last row */
/* One cell: the integer @obj holds at @key, or "-" where it holds none. */
void fc_table_addint(struct fc_table *t, int col, const json_t *obj, const char *key);
/* Two cells of a port object @obj: its "gid_index" at @col, and "GID (TYPE)"
 * from "gid" and "gid_type" at @col + 1, or @none where it holds no index. */
void fc_table_addgid(struct fc_table *t, int col, const json_t *obj, const char *none);
void fc_table_row(struct fc_table *t);	       /* starts an empty row */
/* Prints @t, each line fitted to fc_term_cols(): the widest columns give
 * way first, their cells cut at a word with " ..." (the whole text stays in
 * --json and the store), none below 13 bytes (a figure with its unit);
 * where they still do not fit, the columns fold as fc_table_whole's do. */
void fc_table_print(struct fc_table *t, FILE *f, const char *indent);
/* @t's cells are figures, names and GIDs that are never cut: where its
 * line does not fit fc_term_cols(), fc_table_print folds its columns into
 * bands, each row's later columns on the next lines (4 spaces further in)
 * under their own header line, every cell whole. */
void fc_table_whole(struct fc_table *t);
void fc_table_free(struct fc_table *t);

/* "@v @unit" printed with @fmt ("%.3g"), or "-" when @v was not measured
 * (NAN, infinite): a figure not measured is never printed as a number. */
const char *fc_fmt_figure(double v, const char *fmt, const char *unit, char *buf, size_t len);
/* Unix time @t as local time by strftime @fmt into @buf; "?" for a time
 * no calendar holds (not finite, beyond year 9999, before 1970: a store's
 * number, never a crash in localtime). Returns @buf. */
/* The latest time fabcheck formats, 9999-12-31 23:59:59 UTC: a stored or
 * received time past it (or not finite) is no time, not a time_t overflow. */
#define FC_TIME_MAX 253402300799.0
const char *fc_fmt_time(double t, const char *fmt, char *buf, size_t len);

/* Short helpers for reading documents. */
const char *fc_jstr(const json_t *obj, const char *key, const char *dflt);
double fc_jnum(const json_t *obj, const char *key, double dflt);
/* The element of the array @arr whose "name" is @name, or NULL. */
const json_t *fc_jnamed(const json_t *arr, const char *name);
/* True when the array @arr holds the string @s. */
int fc_jhas_str(const json_t *arr, const char *s);

#endif
