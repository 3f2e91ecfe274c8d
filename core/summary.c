/* The summary under the verdict (see summary.h). */
#include "core/summary.h"
#include "core/dgroup.h"
#include "core/holders.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fc_term_cols(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	long v;

	if (!c || !*c)
		return 100;
	v = strtol(c, &end, 10);
	return *end || v < 40 || v > 1000 ? 100 : (int)v;
}

char *fc_fit_words(char *s, int width)
{
	static const char mark[] = " ...";
	size_t keep, w = width > (int)sizeof(mark) ? (size_t)width : sizeof(mark);

	if (strlen(s) <= w)
		return s;
	keep = w - (sizeof(mark) - 1);
	while (keep > 0 && s[keep] != ' ')
		keep--;
	if (!keep) /* one word longer than the line: cut inside it */
		keep = w - (sizeof(mark) - 1);
	while (keep > 0 && (s[keep - 1] == ' ' || s[keep - 1] == ':' || s[keep - 1] == ','))
		keep--;
	memcpy(s + keep, mark, sizeof(mark));
	return s;
}

/* Where a line of at most @room bytes of @s ends: at its last space, else
 * (one word longer than the line) at @room, moved back to the start of a
 * UTF-8 character; with @whole, after that word (a path is not cut). */
static size_t wrap_at(const char *s, size_t room, int whole)
{
	size_t at = room;

	while (at > 0 && s[at] != ' ')
		at--;
	if (at)
		return at;
	if (whole)
		return strcspn(s, " ");
	for (at = room; at > 1 && ((unsigned char)s[at] & 0xc0) == 0x80; at--)
		;
	return at;
}

/* The room a line leaves after @used bytes of @cols, never under 20. */
static size_t wrap_room(int cols, size_t used)
{
	return (size_t)cols > used + 20 ? (size_t)cols - used : 20;
}

/* fc_put_wrapped at @cols (no limit where 0 or less); @lines 0: as many
 * lines as the text takes, a word longer than a line (a path) whole on a
 * line of its own. */
static void put_wrap(FILE *f, const char *lead, int hang, const char *text, int cols, int lines)
{
	const char *p = text ? text : "";
	int whole = lines <= 0;
	size_t room;

	if (cols <= 0)
		cols = FC_SUMMARY_WHOLE;
	room = wrap_room(cols, strlen(lead));
	fputs(lead, f);
	for (int line = 1;; line++) {
		size_t at, end;
		char *cut;

		if (strlen(p) <= room) {
			fprintf(f, "%s\n", p);
			return;
		}
		if (!whole && line >= lines) { /* the rest in --json and the store */
			cut = strndup(p, room + 1);
			fprintf(f, "%s\n", cut ? fc_fit_words(cut, (int)room) : "...");
			free(cut);
			return;
		}
		at = wrap_at(p, room, whole);
		for (end = at; end > 0 && p[end - 1] == ' '; end--)
			;
		if (!p[at]) { /* one word to the end, longer than the line */
			fprintf(f, "%s\n", p);
			return;
		}
		fprintf(f, "%.*s\n%*s", (int)end, p, hang, "");
		for (p += at; *p == ' '; p++)
			;
		room = wrap_room(cols, (size_t)hang);
	}
}

/* The width a text on stdout fits: @cols where given, else as
 * fc_put_wrapped says. */
static int out_cols(int cols)
{
	if (cols <= 0 && !isatty(STDOUT_FILENO) && !getenv("COLUMNS"))
		return FC_SUMMARY_WHOLE; /* no terminal to fit: each text whole */
	return cols <= 0 ? fc_term_cols() : cols;
}

void fc_put_wrapped(FILE *f, const char *lead, int hang, const char *text, int cols, int lines)
{
	put_wrap(f, lead, hang, text, out_cols(cols), lines < 1 ? 1 : lines);
}

int fc_err_cols(void)
{
	if (getenv("COLUMNS") && *getenv("COLUMNS"))
		return fc_term_cols();
	return isatty(STDERR_FILENO) ? 100 : 0;
}

void fc_err_put(const char *text, int hang, int lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	put_wrap(m, "", hang, text, fc_err_cols(), lines);
	if (!fclose(m))
		fc_put_safe(stderr, buf, len);
	free(buf);
}

/* The formatted text wrapped at words to the terminal, every word kept:
 * on stderr through fc_err_put, else as fc_put_wrapped wraps it. */
__attribute__((format(printf, 3, 0))) static void put_vfmt(FILE *f, int hang, const char *fmt,
							  va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		return;
	if (f == stderr)
		fc_err_put(text, hang, 0);
	else
		put_wrap(f, "", hang, text, out_cols(0), 0);
	free(text);
}

void fc_err_putf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_vfmt(stderr, 2, fmt, ap);
	va_end(ap);
}

void fc_put_paraf(FILE *f, int hang, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_vfmt(f, hang, fmt, ap);
	va_end(ap);
}

void fc_err_progress(const char *line, size_t keep)
{
	int cols = fc_err_cols();
	char *cut;

	if (cols <= 0 || strlen(line) <= (size_t)cols || keep + 4 > (size_t)cols ||
	    !(cut = strdup(line))) {
		/* whole, or wrapped where the figures would not fit a line */
		fc_err_put(line, 4, FC_WRAP_LINES);
		return;
	}
	fc_fit_words(cut, cols);
	fc_put_safe(stderr, cut, strlen(cut));
	fputc('\n', stderr);
	free(cut);
}

void fc_put_step(FILE *f, int indent, const char *label, const char *text)
{
	char lead[256];

	snprintf(lead, sizeof(lead), "%*s%s: ", indent, "", label);
	fc_put_wrapped(f, lead, indent + 2, text, 0, FC_WRAP_LINES);
}

/* The lines of the named problems, each once (a diagnose document holds
 * its set's diagnosis twice: the command's and the set's); @seen: each
 * entry summarised, as "subject part", so that a set's entry the
 * command's list already named (under a merged subject, or more sure over
 * every folder) is not named again. */
struct sum {
	char *lines[64];
	int n;
	int more; /* lines past the 64 kept: counted, never shown */
	char *seen[256];
	int nseen;
};

static void line(struct sum *s, const char *fmt, const char *a, const char *b, const char *c,
		 const char *d)
{
	char *buf = NULL;

	if (s->n >= (int)(sizeof(s->lines) / sizeof(s->lines[0]))) {
		s->more++;
		return;
	}
	if (asprintf(&buf, fmt, a, b, c, d) < 0)
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->lines[i], buf)) {
			free(buf);
			return;
		}
	s->lines[s->n++] = buf;
}

static int seen_key(struct sum *s, const json_t *e, int add)
{
	char *key = NULL;

	if (asprintf(&key, "%s\x1f%s", fc_jstr(e, "subject", ""), fc_jstr(e, "part", "")) < 0)
		return 0;
	for (int i = 0; i < s->nseen; i++)
		if (!strcmp(s->seen[i], key)) {
			free(key);
			return 1;
		}
	if (add && s->nseen < (int)(sizeof(s->seen) / sizeof(s->seen[0])))
		s->seen[s->nseen++] = key;
	else
		free(key);
	return 0;
}

/* 1 when every entry of group @g of @list was summarised already; else
 * marks them all summarised. */
static int group_seen(struct sum *s, const json_t *list, const struct fc_dgroup *g)
{
	const json_t *e;
	size_t i;
	int all = 1;

	json_array_foreach(list, i, e)
		if (fc_dgroup_has(list, g, e) && !seen_key(s, e, 0))
			all = 0;
	if (!all)
		json_array_foreach(list, i, e)
			if (fc_dgroup_has(list, g, e))
				seen_key(s, e, 1);
	return all;
}

/* A diagnosis list: its likely problems, else its possible ones, each
 * once (core/dgroup.h); an entry that names no part ("not determined") is
 * no problem named; a problem named already (group_seen) counts as named
 * without a line of its own. */
static void from_diagnosis(struct sum *s, const json_t *list)
{
	const char *want[] = { "likely", "possible" };
	struct fc_dgroup *g = calloc(json_array_size(list) + 1, sizeof(*g));
	int ng, n = 0;

	if (!g) {
		line(s, "%s%s%s%s", "the diagnosis above (no memory to summarise it)", "", "", "");
		return;
	}
	ng = fc_dgroups(list, g);
	for (int k = 0; k < 2 && !n; k++)
		for (int j = 0; j < ng; j++) {
			const json_t *e = json_array_get(list, g[j].first);

			if (strcmp(fc_jstr(e, "confidence", ""), want[k]) ||
			    strstr(fc_jstr(e, "part", ""), "not determined"))
				continue;
			n++;
			if (!group_seen(s, list, &g[j]))
				line(s, "%s: %s (%s); next: %s", g[j].subject, fc_jstr(e, "part", "?"),
				     want[k], fc_jstr(e, "next", "?"));
		}
	free(g);
}

/* A matrix suspect: where, its level, whether a retest confirmed it, and
 * what its worst pair's diagnosis names (matrix/mx_diag.c: the part, how
 * sure, the next step), else the reason's last clause (the candidates its
 * level leaves: "that node's HCA, cable or switch port", no step). */
static void suspect_line(struct sum *s, const json_t *e)
{
	const char *reason = fc_jstr(e, "reason", "?"), *last = strrchr(reason, ':');
	const json_t *link = json_object_get(e, "link"), *d = json_object_get(e, "diagnosis");
	const char *part = fc_jstr(d, "part", ""), *sure = fc_jstr(d, "confidence", "");
	char where[300], what[600];

	snprintf(where, sizeof(where), "%s%s%s", fc_jstr(e, "node", ""),
		 json_is_string(json_object_get(e, "node")) &&
				 json_is_string(json_object_get(e, "device")) ? " " : "",
		 fc_jstr(e, "device", ""));
	if (json_is_integer(json_object_get(e, "rail")))
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "%srail %lld",
			 where[0] ? " on " : "",
			 (long long)json_integer_value(json_object_get(e, "rail")));
	if (json_array_size(link) == 2)
		snprintf(where, sizeof(where), "%s - %s", json_string_value(json_array_get(link, 0)),
			 json_string_value(json_array_get(link, 1)));
	if (*part && !strstr(part, "not determined") && *fc_jstr(d, "next", "") &&
	    (!strcmp(sure, "likely") || !strcmp(sure, "possible")))
		snprintf(what, sizeof(what), "%s %s; next: %s", sure, part, fc_jstr(d, "next", ""));
	else
		snprintf(what, sizeof(what), "%s", last ? last + 2 : reason);
	line(s, "%s: %s level (%s); %s", where[0] ? where : "?", fc_jstr(e, "level", "?"),
	     strstr(reason, "retest") ? "still bad on retest" : "measured once, not retested", what);
}

/* A matrix whose every pair is below --min-gbps (its "floor"): one
 * problem, the floor or the whole fabric, not a node. */
static void floor_line(struct sum *s, const json_t *fl)
{
	char where[128], what[160];
	int pairs = (int)fc_jnum(fl, "pairs", 0), nodes = (int)fc_jnum(fl, "nodes", 0),
	    rails = (int)fc_jnum(fl, "rails", 1);

	if (!json_is_object(fl))
		return;
	/* "all 6 pairs of 4 nodes", as the finding above it counts them
	 * (matrix/mxan_text.c): pairs beside nodes, not "every pair (6 of 4
	 * nodes)", a count of pairs out of a count of nodes */
	if (rails > 1)
		snprintf(where, sizeof(where), "%s %d pair%s of %d nodes on %d rails",
			 pairs == 1 ? "the" : "all", pairs, fc_s(pairs), nodes, rails);
	else
		snprintf(where, sizeof(where), "%s %d pair%s of %d nodes", pairs == 1 ? "the" : "all",
			 pairs, fc_s(pairs), nodes);
	snprintf(what, sizeof(what), "--min-gbps %g is over the best pair's %.3g Gb/s",
		 fc_jnum(fl, "min_gbps", 0), fc_jnum(fl, "best_gbps", 0));
	line(s, "%s: %s (%s); next: %s", where, what, "certain",
	     "give a floor the fabric should carry; if it should carry this one, check the switch and the ports' rate");
}

/* The words a finding's leading name has at most, and the bytes its names
 * take on a problem's line before they are counted ("nodeA and 5
 * others"): the line has room for the problem. */
#define SUM_LEAD_WORDS 4
#define SUM_NAMES_MAX 40

/*
 * A document with no diagnosis and no suspects (preflight, health, topo,
 * nccl env and check-log, rails, baseline): each finding is a problem it
 * names in its own words (where, what, the step to take), and one line
 * each says it under the verdict. The same sentence of several nodes or
 * devices ("nodeA: X", "nodeB: X") is one problem, named as the findings
 * above name it (core/holders.h: "all 4 nodes: X", "nodeA, nodeC: X").
 */
static void from_findings(struct sum *s, const json_t *doc, const json_t *list)
{
	json_t *groups = fc_holders_by_lead(list, SUM_LEAD_WORDS), *g,
	       *nodes = fc_holders_doc_nodes(doc);
	size_t i;

	if (!groups)
		line(s, "%s%s%s%s", "the findings above (no memory to summarise them)", "", "", "");
	json_array_foreach(groups, i, g) {
		char *l = fc_holders_line(g, nodes, SUM_NAMES_MAX);

		line(s, "%s%s%s%s", l ? l : fc_jstr(g, "text", "?"), "", "", "");
		free(l);
	}
	json_decref(nodes);
	json_decref(groups);
}

/* The least of the next step a problem's line shows; a line that would
 * show less says the step on a line of its own under it. */
#define NEXT_MIN 30

/* A problem's line, fitted to @cols: where, what, how sure, the next step;
 * where a long place leaves too little of the step, the step under it. A
 * problem in a finding's own words (no "next:": its step at its end) takes
 * a second line where one does not hold it, the rest cut at a word: one
 * line cut at the width dropped the step ("GPU6: nearest HCA NIC0 is PHB
 * (through the CPU root complex): at NCCL's default ..."). */
static void put_problem(FILE *f, char *l, int cols)
{
	static const char mark[] = "; next: ";
	char *next = strstr(l, mark);

	if (!next) {
		put_wrap(f, "  ", 4, l, cols, 2);
		return;
	}
	if (strlen(l) + 2 <= (size_t)cols ||
	    (size_t)(next - l) + 2 + sizeof(mark) - 1 + NEXT_MIN <= (size_t)cols) {
		fprintf(f, "  %s\n", fc_fit_words(l, cols - 2));
		return;
	}
	*next = 0;
	fprintf(f, "  %s\n", fc_fit_words(l, cols - 2));
	next += 2; /* "next: ..." */
	fprintf(f, "    %s\n", fc_fit_words(next, cols - 4));
}

/* @where: where the detail is, as the "... and N more" and "N findings"
 * lines say it: "above" (a text report, which ends with the summary) or
 * "below" (an HTML page, which begins with it). */
static void render_cols(FILE *f, const json_t *doc, int cols, const char *where)
{
	int above = !strcmp(where, "above");

	struct sum s = { .n = 0 };
	const json_t *list = json_object_get(doc, "findings"), *e;
	const char *v = fc_jstr(doc, "verdict", "pass");
	char first[2048];
	size_t i;

	if (json_is_true(json_object_get(json_object_get(doc, "lab"), "starved"))) {
		/* a starved virtual rack (lab/starve.h): no part is named */
		snprintf(first, sizeof(first), "verdict: %s; %s", v,
			 fc_jstr(json_object_get(doc, "lab"), "why", "?"));
		fprintf(f, "%s\n", fc_fit_words(first, cols));
		return;
	}
	from_diagnosis(&s, json_object_get(doc, "diagnosis"));
	json_array_foreach(json_object_get(doc, "sets"), i, e)
		from_diagnosis(&s, json_object_get(e, "diagnosis"));
	json_array_foreach(json_object_get(doc, "suspects"), i, e)
		suspect_line(&s, e);
	floor_line(&s, json_object_get(doc, "floor"));
	if (!s.n && strcmp(v, "pass") && !json_array_size(json_object_get(doc, "diagnosis")) &&
	    !json_array_size(json_object_get(doc, "suspects")) &&
	    !json_array_size(json_object_get(doc, "sets")))
		from_findings(&s, doc, list);
	for (int k = 0; k < s.nseen; k++)
		free(s.seen[k]);
	if (s.n) {
		int all = s.n + s.more;

		fprintf(f, "verdict: %s, %d problem%s named:\n", v, all, all > 1 ? "s" : "");
		for (int k = 0; k < s.n; k++) {
			if (k < FC_SUMMARY_MAX)
				put_problem(f, s.lines[k], cols);
			free(s.lines[k]);
		}
		if (all > FC_SUMMARY_MAX)
			fprintf(f, "  ... and %d more (%s%s)\n", all - FC_SUMMARY_MAX, where,
				above ? ", and in --json" : "");
		return;
	}
	if (!json_array_size(list)) {
		fprintf(f, "verdict: %s, nothing named\n", v);
		return;
	}
	snprintf(first, sizeof(first), "verdict: %s, %zu finding%s %s, no part named; the first: %s",
		 v, json_array_size(list), json_array_size(list) > 1 ? "s" : "", where,
		 json_string_value(json_array_get(list, 0)) ?
			 json_string_value(json_array_get(list, 0)) : "?");
	fprintf(f, "%s\n", fc_fit_words(first, cols));
}

void fc_summary_render(FILE *f, const json_t *doc)
{
	render_cols(f, doc, fc_term_cols(), "above");
}

json_t *fc_summary_json(const json_t *doc)
{
	return fc_summary_lines(doc, "above");
}

json_t *fc_summary_lines(const json_t *doc, const char *where)
{
	json_t *lines = json_array();
	char *text = NULL, *p, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return lines;
	render_cols(m, doc, FC_SUMMARY_WHOLE, where);
	if (fclose(m) == 0)
		for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
			size_t ind = strspn(p, " ");

			nl = strchr(p, '\n');
			json_array_append_new(lines, json_stringn(p + ind, (nl ? (size_t)(nl - p) :
										   strlen(p)) - ind));
		}
	free(text);
	return lines;
}
