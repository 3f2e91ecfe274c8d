/*
 * The answer first: the few lines every judging command ends its text with
 * (fc_render_findings): "verdict: X, N problems named:" (the verdict said
 * once), then one line per named problem with where (node, device, rail),
 * what (the part), how sure, and the next step. The detail stays above it and in --json. One printer
 * for every command, fed by what its document names:
 *   "diagnosis"  [{subject, part, confidence, next}] (pair, diagnose);
 *   "suspects"   [{level, node, device, rail, reason}] (matrix);
 *   "floor"      the --min-gbps above every pair (matrix);
 *   otherwise, with a verdict of warn or fail, the findings (preflight,
 *   health, topo, nccl env and check-log, rails: each finding is a problem
 *   in its own words), one line each, the same sentence on several nodes
 *   one line named as the findings name it (core/holders.h); a pass's
 *   findings (notes) counted, the first one quoted.
 */
#ifndef FC_SUMMARY_H
#define FC_SUMMARY_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The problems a summary names at most; more are counted in one line. */
#define FC_SUMMARY_MAX 6

/* The terminal's width: $COLUMNS when it is a number from 40 to 1000,
 * else 100. */
int fc_term_cols(void);
/* Cuts @s (in place) to at most @width bytes at a word, ending it with
 * " ..." when cut; returns @s. The whole text stays in --json and the store. */
char *fc_fit_words(char *s, int width);
/* The lines an evidence or a next step takes at most in a text report
 * (fc_put_step): a longer text is cut at a word with " ..." on its last
 * line; the whole text stays in --json and the store. */
#define FC_WRAP_LINES 3
/* Prints @lead, then @text wrapped at words so that no line passes @cols
 * bytes (where @cols is 0: fc_term_cols() when stdout is a terminal or
 * COLUMNS is set, else no limit: a text piped to grep or a file stays on
 * one line, as fabcheck printed it before); its next lines start with @hang
 * spaces, at most @lines of them in all, the last cut at a word with " ..."
 * when more is left (issue 39 item 3: lines that fit the terminal). With
 * @lines 1: one line, cut as a table cell is (a finding or a note of a
 * list, one line each; the whole in --json and the store). */
void fc_put_wrapped(FILE *f, const char *lead, int hang, const char *text, int cols, int lines);
/* A line of prose on stdout (a heading, a reason, a note): the formatted
 * text wrapped at words as fc_put_wrapped wraps it, its next lines @hang
 * spaces in, every word kept (a word longer than a line, a path, whole on a
 * line of its own); piped without COLUMNS, whole on one line. */
void fc_put_paraf(FILE *f, int hang, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The width a line on stderr fits: $COLUMNS (as fc_term_cols), else 100
 * where stderr is a terminal; 0 where it is neither: piped to a file or a
 * grep, each line stays whole. */
int fc_err_cols(void);
/* Prints @text on stderr (through fc_put_safe: no escape sequence from a
 * name or a store) wrapped at words to fc_err_cols(), its next lines
 * indented @hang spaces; with @lines 0 as many lines as it takes, a word
 * longer than a line (a path) whole on a line of its own, else at most
 * @lines, the last cut at a word with " ..." (the whole in --json and the
 * store). Issue 39 item 3: progress and info lines fit the terminal. */
void fc_err_put(const char *text, int hang, int lines);
/* An info line on stderr ("matrix run 3 in PATH: ..."): fc_err_put of the
 * formatted text, indented 2 spaces under its first line, nothing cut. */
void fc_err_putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress line on stderr: whole where it fits, else cut at a word with
 * " ..." when its first @keep bytes (the figures) still fit, else wrapped
 * to at most FC_WRAP_LINES lines (long names: the figures on the next
 * line, never cut away). */
void fc_err_progress(const char *line, size_t keep);
/* Prints @indent spaces and "@label: @text", wrapped as fc_put_wrapped
 * does to at most FC_WRAP_LINES lines, its next lines 2 spaces further in
 * ("evidence: ...", "next: ..."). */
void fc_put_step(FILE *f, int indent, const char *label, const char *text);
/* Prints @doc's summary to @f, each line fitted to fc_term_cols(). */
void fc_summary_render(FILE *f, const json_t *doc);
/* The same lines whole, their indent left out, for a --json document's
 * "summary" (["verdict: fail, 1 problem named:", "nodeC rxe1 on rail 1:
 * ..."]): burnin-rack's summary ends with its steps' (one printer). */
#define FC_SUMMARY_WHOLE 100000
json_t *fc_summary_json(const json_t *doc);
/* The same lines for a page that begins with them (report --html): the
 * detail they point to is @where ("below"; fc_summary_json: "above"). */
json_t *fc_summary_lines(const json_t *doc, const char *where);

#endif
