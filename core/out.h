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

typedef void (*fc_render_fn)(FILE *f, const json_t *doc);
/* Prints @doc as JSON (ctx->json) or through @render, then the findings and
 * the verdict line. Checks that stdout was really written. Takes the
 * reference to @doc. Returns the exit code for the verdict, or FC_EXIT_CANT
 * when stdout failed. */
int fc_emit(struct fc_ctx *ctx, json_t *doc, fc_render_fn render);
/* Prints the findings and a "verdict: X" line for a text report. */
void fc_render_findings(FILE *f, const json_t *doc);

/* Aligned text tables: columns sized to their widest cell. */
struct fc_table;
struct fc_table *fc_table_new(int ncols, ...); /* header strings */
void fc_table_add(struct fc_table *t, ...);    /* ncols strings */
void fc_table_addf(struct fc_table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4))); /* one cell of the last row */
void fc_table_row(struct fc_table *t);	       /* starts an empty row */
void fc_table_print(struct fc_table *t, FILE *f, const char *indent);
void fc_table_free(struct fc_table *t);

/* Short helpers for reading documents. */
const char *fc_jstr(const json_t *obj, const char *key, const char *dflt);
double fc_jnum(const json_t *obj, const char *key, double dflt);

#endif
