/* The one output path for text and JSON (see out.h). */
#include "core/out.h"
#include "core/holders.h"
#include "core/log.h"
#include "core/names.h"
#include "core/safefile.h"
#include "core/summary.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
		json_array_append_new(list, fc_json_text(msg));
		free(msg);
	}
	if (level > fc_doc_verdict(doc))
		json_object_set_new(doc, "verdict", json_string(verdict_names[level]));
}

int fc_doc_exit(const json_t *doc)
{
	return fc_doc_verdict(doc) == FC_FAIL ? FC_EXIT_FAIL : FC_EXIT_PASS;
}

/* 1 when @s holds a control character (C0 or DEL): a name from a store or
 * a worker with an escape sequence, which must not reach the terminal. */
static int has_ctrl(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* @s as a finding's line prints it: through fc_name_show (core/names.h,
 * the one escaping of names) when it holds a control character, else as it
 * is; one line that fits the terminal, cut at a word with " ..."
 * (fc_put_wrapped: the whole text in --json and the store). */
static void put_finding(FILE *f, const char *s)
{
	char shown[1024];

	fc_put_wrapped(f, "  - ", 4, has_ctrl(s) ? fc_name_show(s, shown, sizeof(shown)) : s, 0, FC_WRAP_LINES);
}

/* A table cell holding a control character (a name with escapes) is
 * kept as fc_name_show shows it. */
static void cell_safe(char **cell)
{
	char shown[1024];

	if (!has_ctrl(*cell))
		return;
	fc_name_show(*cell, shown, sizeof(shown));
	free(*cell);
	*cell = strdup(shown);
}

/* @render's text of @doc to @f through fc_put_safe: whatever a worker, a
 * store or an evidence folder put in @doc (a note, a counter's name, an
 * NCCL version, a node's name in the summary) reaches the terminal with no
 * escape sequence. */
static int render_safe(FILE *f, fc_render_fn render, const json_t *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int err = -1;

	if (!m) {
		fc_err("out of memory rendering the report");
		return err;
	}
	render(m, doc);
	if (fclose(m) == 0) {
		fc_put_safe(f, text, len);
		err = 0;
	}
	free(text);
	return err;
}

/* The words a finding's leading name has at most ("nodeA rxe0 port 1"),
 * and the bytes the names of a grouped finding take before they are
 * counted instead ("nodeA and 9 others"). */
#define FINDING_LEAD_WORDS 4
#define FINDING_NAMES_MAX 160

json_t *fc_findings_lines(const json_t *doc, const json_t *list)
{
	json_t *groups = fc_holders_by_lead(list, FINDING_LEAD_WORDS), *g, *lines,
	       *nodes = fc_holders_doc_nodes(doc);
	size_t i;

	if (!groups) { /* no memory to group them: each as it is */
		json_decref(nodes);
		return json_copy((json_t *)list);
	}
	lines = json_array();
	json_array_foreach(groups, i, g) {
		char *line = fc_holders_line(g, nodes, FINDING_NAMES_MAX);

		json_array_append_new(lines, fc_json_text(line ? line : fc_jstr(g, "text", "?")));
		free(line);
	}
	json_decref(nodes);
	json_decref(groups);
	return lines;
}

void fc_render_finding_list(FILE *f, const json_t *doc, const json_t *list)
{
	json_t *lines = fc_findings_lines(doc, list), *v;
	size_t i;

	json_array_foreach(lines, i, v)
		put_finding(f, json_string_value(v));
	json_decref(lines);
}

void fc_render_findings(FILE *f, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "findings");

	if (json_array_size(list)) {
		fprintf(f, "\nfindings:\n");
		fc_render_finding_list(f, doc, list);
	}
	fputc('\n', f);
	/* "verdict: X, ..." and what it names; the verdict alone without memory */
	if (render_safe(f, fc_summary_render, doc))
		fprintf(f, "verdict: %s\n", fc_jstr(doc, "verdict", "pass"));
}

/* fc_emit, and with @listing only @render's text (fc_emit_listing). */
int (*fc_emit_hook)(json_t *doc);

static int emit(struct fc_ctx *ctx, json_t *doc, fc_render_fn render, int listing)
{
	int rc = fc_emit_hook && !listing && fc_emit_hook(doc) ? FC_EXIT_CANT : fc_doc_exit(doc);

	if (ctx->json) {
		if (!listing) { /* the summary the text ends with, its lines whole */
			json_object_set_new(doc, "summary", fc_summary_json(doc));
			/* the findings as the text says them, each fact once */
			json_object_set_new(doc, "findings_text",
					    fc_findings_lines(doc, json_object_get(doc, "findings")));
		}
		/* Written by fc_out_finish once the exit code is known. */
		json_decref((json_t *)ctx->out_doc);
		ctx->out_doc = (struct json_t *)doc;
		ctx->out_judged = 1;
		return rc;
	}
	if (render)
		render_safe(stdout, render, doc);
	if (!listing)
		fc_render_findings(stdout, doc);
	json_decref(doc);
	if (fflush(stdout) || ferror(stdout)) {
		fc_err("could not write the report to stdout: %s", strerror(errno));
		return FC_EXIT_CANT;
	}
	return rc;
}

int fc_emit(struct fc_ctx *ctx, json_t *doc, fc_render_fn render)
{
	return emit(ctx, doc, render, 0);
}

int fc_emit_listing(struct fc_ctx *ctx, json_t *doc, fc_render_fn render)
{
	return emit(ctx, doc, render, 1);
}

void fc_out_text(struct fc_ctx *ctx, const char *text)
{
	json_t *doc;

	if (!ctx->json) {
		fputs(text, stdout);
		return;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "usage", fc_json_text(text));
	json_decref((json_t *)ctx->out_doc);
	ctx->out_doc = (struct json_t *)doc;
	ctx->out_judged = 0;
}

json_t *fc_json_text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	/* Not UTF-8 (a file name, a device's answer): each byte above 0x7f
	 * becomes '?', so the text is kept and says where it was odd. */
	copy = strdup(s);
	if (!copy)
		return json_null();
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p > 0x7f)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static const char *const exit_code_names[] = {
	[FC_EXIT_PASS] = "pass",
	[FC_EXIT_FAIL] = "fail",
	[FC_EXIT_USAGE] = "usage",
	[FC_EXIT_CANT] = "cant_run",
};

/*
 * The input an error message names: its first 'quoted' word, else the
 * last word before its first ": " when that is one or two words and not
 * the command ("/data/job.log: cannot open", "store x.db: not SQLite").
 */
static json_t *message_input(const char *msg, const char *cmd)
{
	const char *q = msg, *e, *colon, *w;

	/* An opening quote follows a space, a colon or a bracket (not "port's"). */
	while ((q = strchr(q, '\'')) && q > msg && !strchr(" :(", q[-1]))
		q++;
	if (q && (e = strchr(q + 1, '\'')) && e > q + 2)
		return json_stringn(q + 1, (size_t)(e - q - 1));
	colon = strstr(msg, ": ");
	if (!colon || colon == msg)
		return json_null();
	w = colon;
	while (w > msg && w[-1] != ' ')
		w--;
	if (w > msg && memchr(msg, ' ', (size_t)(w - 1 - msg)))
		return json_null(); /* more than two words: a sentence */
	if (cmd && (size_t)(colon - w) == strlen(cmd) && !strncmp(w, cmd, strlen(cmd)))
		return json_null();
	return json_stringn(w, (size_t)(colon - w));
}

/* The "error" object of an exit other than pass or a judged fail. */
static json_t *error_json(const struct fc_ctx *ctx, int rc, json_t *findings, int judged)
{
	const char *msgs[FC_LOG_KEEP], *cmd = ctx->cmd_path ? strrchr(ctx->cmd_path, ' ') : NULL;
	int n = fc_log_errors(msgs, FC_LOG_KEEP);
	char fallback[400];
	const char *msg;
	json_t *err;

	cmd = cmd ? cmd + 1 : NULL;
	if (n > 0) {
		msg = msgs[0];
	} else if (rc == FC_EXIT_USAGE) {
		snprintf(fallback, sizeof(fallback), "usage error: run '%s --help' for the options",
			 ctx->cmd_path ? ctx->cmd_path : "fabcheck");
		msg = fallback;
	} else {
		snprintf(fallback, sizeof(fallback), "%s exited %d without saying why",
			 ctx->cmd_path ? ctx->cmd_path : "fabcheck", rc);
		msg = fallback;
	}
	if (!judged) {
		for (int i = 0; i < n && i < FC_LOG_KEEP; i++)
			json_array_append_new(findings, fc_json_text(msgs[i]));
		if (n > FC_LOG_KEEP)
			json_array_append_new(findings, json_sprintf("... and %d more error%s (see stderr)",
								     n - FC_LOG_KEEP,
								     fc_s(n - FC_LOG_KEEP)));
		if (!n)
			json_array_append_new(findings, fc_json_text(msg));
	}
	err = json_pack("{s:s, s:i, s:o}", "code",
			rc >= 0 && rc < (int)FC_ARRAY_SIZE(exit_code_names) ? exit_code_names[rc] :
									      "unknown",
			"exit_code", rc, "message", fc_json_text(msg));
	json_object_set_new(err, "input", message_input(msg, cmd));
	return err;
}

/* The last words of a process ended by a signal (fc_out_on_signals). */
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static const char *const stop_names[] = { "SIGINT", "SIGTERM", "SIGHUP" };
static char sig_doc[3][400], sig_line[3][96];
static volatile sig_atomic_t sig_json, sig_done;
static void (*sig_cleanup)(void);

static void write_all(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* System calls only: the cleanup, the document, the line, then the
 * signal's own end (so the parent sees it). */
static void on_stop_signal(int sig)
{
	int k = sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2;

	if (sig_cleanup)
		sig_cleanup();
	fc_replace_abandon(); /* no hidden half-written output is left */
	if (sig_json && !sig_done) {
		sig_done = 1;
		write_all(STDOUT_FILENO, sig_doc[k]);
	}
	write_all(STDERR_FILENO, sig_line[k]);
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when this returns */
}

const char *fc_stop_name(int sig)
{
	return stop_names[sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2];
}

/* A command stopped by a signal (ctx->stop_sig) ends as by it, its
 * document written: the parent sees the signal. Else returns @rc. */
static int stop_end(const struct fc_ctx *ctx, int rc)
{
	sigset_t one;

	if (!ctx->stop_sig)
		return rc;
	fflush(stdout);
	fflush(stderr);
	signal(ctx->stop_sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, ctx->stop_sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(ctx->stop_sig);
	return 128 + ctx->stop_sig; /* not reached */
}

void fc_out_on_signals(const struct fc_ctx *ctx, void (*cleanup)(void))
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sig_json = ctx->json;
	sig_cleanup = cleanup;
	sigemptyset(&sa.sa_mask);
	for (int k = 0; k < 3; k++) {
		sigaddset(&sa.sa_mask, stop_sigs[k]);
		snprintf(sig_line[k], sizeof(sig_line[k]),
			 "fabcheck: error: interrupted by %s; nothing was judged\n", stop_names[k]);
		snprintf(sig_doc[k], sizeof(sig_doc[k]),
			 "{\n  \"verdict\": \"error\",\n  \"findings\": [\n    \"interrupted by %s "
			 "before the command finished\"\n  ],\n  \"error\": {\n    \"code\": "
			 "\"interrupted\",\n    \"exit_code\": %d,\n    \"message\": \"interrupted by "
			 "%s\",\n    \"input\": null\n  }\n}\n", stop_names[k], 128 + stop_sigs[k],
			 stop_names[k]);
	}
	for (int k = 0; k < 3; k++)
		sigaction(stop_sigs[k], &sa, NULL);
}

int fc_out_finish(struct fc_ctx *ctx, int rc)
{
	json_t *doc = (json_t *)ctx->out_doc, *findings;
	int judged = ctx->out_judged;
	sigset_t stop, old;

	if (!ctx->json)
		return stop_end(ctx, rc);
	/* From here this exit's document is written: a signal waits for it. */
	sigemptyset(&stop);
	for (int k = 0; k < 3; k++)
		sigaddset(&stop, stop_sigs[k]);
	sigprocmask(SIG_BLOCK, &stop, &old);
	sig_done = 1;
	ctx->out_doc = NULL;
	if (!doc)
		doc = fc_doc_new();
	findings = json_object_get(doc, "findings");
	if (!json_is_array(findings)) {
		findings = json_array();
		json_object_set_new(doc, "findings", findings);
	}
	if (!json_is_string(json_object_get(doc, "verdict")))
		json_object_set_new(doc, "verdict", json_string("pass"));
	if (ctx->stop_sig) { /* what was measured is in @doc; the run did not finish */
		json_object_set_new(doc, "verdict", json_string("error"));
		json_object_set_new(doc, "error", json_pack("{s:s, s:i, s:s+, s:n}", "code",
							    "interrupted", "exit_code",
							    128 + ctx->stop_sig, "message",
							    "interrupted by ",
							    fc_stop_name(ctx->stop_sig), "input"));
	} else if (rc == FC_EXIT_PASS || (rc == FC_EXIT_FAIL && judged)) {
		json_object_set_new(doc, "error", json_null());
	} else {
		if (!judged)
			json_object_set_new(doc, "verdict", json_string("error"));
		json_object_set_new(doc, "error", error_json(ctx, rc, findings, judged));
	}
	if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0)
		fputc('\n', stdout);
	json_decref(doc);
	if (fflush(stdout) || ferror(stdout)) {
		fc_err("could not write the report to stdout: %s", strerror(errno));
		rc = FC_EXIT_CANT;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return stop_end(ctx, rc);
}

const char *fc_fmt_figure(double v, const char *fmt, const char *unit, char *buf, size_t len)
{
	int n;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	n = snprintf(buf, len, fmt, v);
	if (n >= 0 && (size_t)n < len && unit && *unit)
		snprintf(buf + n, len - (size_t)n, " %s", unit);
	return buf;
}

const char *fc_fmt_time(double t, const char *fmt, char *buf, size_t len)
{
	time_t s;
	struct tm tm;

	if (!(t >= 0 && t <= FC_TIME_MAX) || (s = (time_t)t, !localtime_r(&s, &tm)) ||
	    !strftime(buf, len, fmt, &tm))
		snprintf(buf, len, "?");
	return buf;
}

const char *fc_jstr(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : dflt;
}

const json_t *fc_jnamed(const json_t *arr, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach((json_t *)arr, i, e)
		if (!strcmp(fc_jstr(e, "name", ""), name))
			return e;
	return NULL;
}

int fc_jhas_str(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

double fc_jnum(const json_t *obj, const char *key, double dflt)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* ---- tables ---- */

json_t *fc_json_counters(const char *text, fc_counter_line_fn *fn)
{
	json_t *o = json_object();

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char name[256];
		unsigned long long v;

		if (fn(line, len, name, sizeof(name), &v))
			json_object_set_new(o, name, json_integer((json_int_t)v));
		line = nl ? nl + 1 : NULL;
	}
	if (!json_object_size(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The columns a table may have (a program's tables have a dozen). */
#define FC_TABLE_MAX_COLS 64

struct fc_table {
	int ncols;
	int nrows; /* including the header row */
	int cap;
	int whole;    /* fc_table_whole: no cell cut, columns folded */
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

struct fc_table *fc_table_newv(int ncols, const char *const *heads)
{
	struct fc_table *t = calloc(1, sizeof(*t));

	if (!t || ncols > FC_TABLE_MAX_COLS)
		abort();
	t->ncols = ncols;
	if (table_grow(t))
		abort();
	for (int i = 0; i < ncols; i++)
		t->cells[i] = strdup(heads[i]);
	return t;
}

struct fc_table *fc_table_new(int ncols, ...)
{
	const char *heads[FC_TABLE_MAX_COLS];
	va_list ap;

	if (ncols > FC_TABLE_MAX_COLS)
		abort();
	va_start(ap, ncols);
	for (int i = 0; i < ncols; i++)
		heads[i] = va_arg(ap, const char *);
	va_end(ap);
	return fc_table_newv(ncols, heads);
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
	for (int i = 0; i < t->ncols; i++)
		cell_safe(&row[i]);
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
	cell_safe(cell);
}

void fc_table_addint(struct fc_table *t, int col, const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (json_is_integer(v))
		fc_table_addf(t, col, "%lld", (long long)json_integer_value(v));
	else
		fc_table_addf(t, col, "-");
}

void fc_table_addgid(struct fc_table *t, int col, const json_t *obj, const char *none)
{
	fc_table_addint(t, col, obj, "gid_index");
	if (json_is_integer(json_object_get(obj, "gid_index")))
		fc_table_addf(t, col + 1, "%s (%s)", fc_jstr(obj, "gid", "?"),
			      fc_jstr(obj, "gid_type", "?"));
	else
		fc_table_addf(t, col + 1, "%s", none);
}

/* A column is not narrowed below this many bytes to fit the terminal: a
 * figure with its unit ("1234.567 Gb/s" is 13) is never cut, only text
 * (a GID, a reason, a note) wider than it. */
#define FC_TABLE_MIN_COL 13

/* Narrows the widest columns of @w (@n of them) until a line of @indent
 * plus the columns fits @cols, none below FC_TABLE_MIN_COL (issue 39 item
 * 3: lines that fit COLUMNS, else 100, as htop's screen fits the terminal).
 * The widest first: a GID, a note or a reason gives way before a figure. */
static void table_fit(int *w, int n, int indent, int cols)
{
	for (;;) {
		int total = indent + 2 * (n - 1), wide = -1;

		for (int c = 0; c < n; c++) {
			total += w[c];
			if (w[c] > FC_TABLE_MIN_COL && (wide < 0 || w[c] > w[wide]))
				wide = c;
		}
		if (total <= cols || wide < 0)
			return;
		w[wide]--;
	}
}

/* @s fitted to @width: cut at a word with " ..." (fc_fit_words) into
 * @buf; the whole text stays in --json and the store. */
static const char *table_cell(const char *s, int width, char *buf, size_t size)
{
	if (!s)
		return "";
	if ((int)strlen(s) <= width || (size_t)width >= size)
		return s;
	memcpy(buf, s, (size_t)width + 1);
	buf[width + 1] = '\0';
	return fc_fit_words(buf, width);
}

static const char *cell_or_empty(const char *s)
{
	return s ? s : "";
}

/* The columns of one band of a folded table: from @c0, as many as fit
 * @room (at least one); returns the column after the band. */
static int table_band(const int *w, int n, int c0, int room)
{
	int c = c0, used = w[c0];

	while (++c < n && used + 2 + w[c] <= room)
		used += 2 + w[c];
	return c;
}

/* Row @r's cells @c0..@c1 - 1 on one line after @lead, @w wide each (the
 * last one unpadded, empty ones at the end left out), cut to @w where the
 * table is not whole; nothing for a folded band (@c0 > 0) with no cell. */
static void table_line(struct fc_table *t, FILE *f, int r, const int *w, int c0, int c1,
		       const char *lead)
{
	char buf[1024];

	while (c1 > c0 + 1 && !*cell_or_empty(t->cells[r * t->ncols + c1 - 1]))
		c1--;
	if (c0 && !*cell_or_empty(t->cells[r * t->ncols + c0]) && c1 == c0 + 1)
		return;
	fputs(lead, f);
	for (int c = c0; c < c1; c++) {
		const char *s = t->cells[r * t->ncols + c];

		if (!t->whole)
			s = table_cell(s, w[c], buf, sizeof(buf));
		if (c == c1 - 1)
			fputs(s ? s : "", f);
		else
			fprintf(f, "%-*s  ", w[c], s ? s : "");
	}
	fputc('\n', f);
}

/* A FC_TABLE_FOLD_INDENT deeper indent marks the next band of a row. */
#define FC_TABLE_FOLD_INDENT "    "

void fc_table_print(struct fc_table *t, FILE *f, const char *indent)
{
	int w[FC_TABLE_MAX_COLS] = { 0 }, band[FC_TABLE_MAX_COLS + 1] = { 0 };
	int n = t->ncols, nb = 0, cols = fc_term_cols();
	char deeper[256];

	indent = indent ? indent : "";
	snprintf(deeper, sizeof(deeper), "%s%s", indent, FC_TABLE_FOLD_INDENT);
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < n; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int len = s ? (int)strlen(s) : 0;

			if (len > w[c])
				w[c] = len;
		}
	if (!t->whole)
		table_fit(w, n, (int)strlen(indent), cols);
	/* bands: the table on one line where it fits, else its columns
	 * folded as iproute2's ip -d folds a long line, each band under the
	 * one before (a table whose narrowed columns still do not fit: a dozen
	 * columns at 80) */
	while (band[nb] < n) {
		int room = cols - (int)strlen(nb ? deeper : indent);

		band[nb + 1] = table_band(w, n, band[nb], room);
		nb++;
	}
	for (int r = 0; r < t->nrows; r++)
		for (int b = 0; b < nb; b++)
			table_line(t, f, r, w, band[b], band[b + 1], b ? deeper : indent);
}

void fc_table_whole(struct fc_table *t)
{
	t->whole = 1;
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
