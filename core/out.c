/* The one output path for text and JSON (see out.h). */
#include "core/out.h"
#include "core/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[FC_PASS] = "pass",
	[FC_WARN] = "warn",
	[FC_FAIL] = "fail",
};

json_t *fc_doc_new(void)
{
	return json_pack("{s:s, s:[]}", "verdict", "pass", "findings");
}

const char *fc_verdict_name(enum fc_verdict v)
{
	return verdict_names[v];
}

enum fc_verdict fc_doc_verdict(const json_t *doc)
{
	const char *v = fc_jstr(doc, "verdict", "pass");

	if (!strcmp(v, "fail"))
		return FC_FAIL;
	if (!strcmp(v, "warn"))
		return FC_WARN;
	return FC_PASS;
}

void fc_finding(json_t *doc, enum fc_verdict level, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	json_t *list = json_object_get(doc, "findings");

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!list) {
		list = json_array();
		json_object_set_new(doc, "findings", list);
	}
	if (msg) {
		json_array_append_new(list, json_string(msg));
		free(msg);
	}
	if (level > fc_doc_verdict(doc))
		json_object_set_new(doc, "verdict", json_string(verdict_names[level]));
}

int fc_doc_exit(const json_t *doc)
{
	return fc_doc_verdict(doc) == FC_FAIL ? FC_EXIT_FAIL : FC_EXIT_PASS;
}

void fc_render_findings(FILE *f, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "findings");
	size_t i;
	json_t *v;

	if (json_array_size(list)) {
		fprintf(f, "\nfindings:\n");
		json_array_foreach(list, i, v)
			fprintf(f, "  - %s\n", json_string_value(v));
	}
	fprintf(f, "\nverdict: %s\n", fc_jstr(doc, "verdict", "pass"));
}

int fc_emit(struct fc_ctx *ctx, json_t *doc, fc_render_fn render)
{
	int rc = fc_doc_exit(doc);

	if (ctx->json) {
		if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0)
			fputc('\n', stdout);
	} else {
		if (render)
			render(stdout, doc);
		fc_render_findings(stdout, doc);
	}
	json_decref(doc);
	if (fflush(stdout) || ferror(stdout)) {
		fc_err("could not write the report to stdout: %s", strerror(errno));
		return FC_EXIT_CANT;
	}
	return rc;
}

const char *fc_jstr(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : dflt;
}

double fc_jnum(const json_t *obj, const char *key, double dflt)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* ---- tables ---- */

struct fc_table {
	int ncols;
	int nrows; /* including the header row */
	int cap;
	char **cells; /* nrows * ncols */
};

static int table_grow(struct fc_table *t)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, sizeof(*c) * (size_t)cap * (size_t)t->ncols);

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	memset(&t->cells[t->nrows * t->ncols], 0, sizeof(char *) * (size_t)t->ncols);
	t->nrows++;
	return 0;
}

struct fc_table *fc_table_new(int ncols, ...)
{
	struct fc_table *t = calloc(1, sizeof(*t));
	va_list ap;

	if (!t)
		abort();
	t->ncols = ncols;
	if (table_grow(t))
		abort();
	va_start(ap, ncols);
	for (int i = 0; i < ncols; i++)
		t->cells[i] = strdup(va_arg(ap, const char *));
	va_end(ap);
	return t;
}

void fc_table_row(struct fc_table *t)
{
	if (table_grow(t))
		abort();
}

void fc_table_add(struct fc_table *t, ...)
{
	va_list ap;
	char **row;

	fc_table_row(t);
	row = &t->cells[(t->nrows - 1) * t->ncols];
	va_start(ap, t);
	for (int i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);

		row[i] = strdup(s ? s : "");
	}
	va_end(ap);
}

void fc_table_addf(struct fc_table *t, int col, const char *fmt, ...)
{
	va_list ap;
	char **cell = &t->cells[(t->nrows - 1) * t->ncols + col];

	free(*cell);
	va_start(ap, fmt);
	if (vasprintf(cell, fmt, ap) < 0)
		*cell = NULL;
	va_end(ap);
}

void fc_table_print(struct fc_table *t, FILE *f, const char *indent)
{
	int w[64] = { 0 };
	int n = t->ncols < 64 ? t->ncols : 64;

	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < n; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int len = s ? (int)strlen(s) : 0;

			if (len > w[c])
				w[c] = len;
		}
	for (int r = 0; r < t->nrows; r++) {
		fputs(indent ? indent : "", f);
		for (int c = 0; c < n; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (c == n - 1)
				fprintf(f, "%s", s ? s : "");
			else
				fprintf(f, "%-*s  ", w[c], s ? s : "");
		}
		fputc('\n', f);
	}
}

void fc_table_free(struct fc_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}
