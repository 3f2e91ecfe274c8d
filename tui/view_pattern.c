/*
 * The TUI's view of a pattern run (matrix --pattern): its rounds, as
 * `matrix` prints them (matrix/mx_pattern_text.c, one copy of the text):
 * per incast receiver (fanout sender) each flow's share, the aggregate
 * against the port's ceiling, Jain's index and the named outcomes with
 * their evidence; per alltoall group each node in and out; per bisection
 * round the total against the senders' ports.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mx_pattern.h"
#include "tui/view_int.h"

void tui_pattern_load(struct tui_view *v, struct fc_store *st, const struct mx_model *m)
{
	json_t *doc;

	if (!json_object_get(m->info.params, "pattern"))
		return;
	doc = json_object();
	/* Unreadable flows: the last reading stays (the findings pane and
	 * `matrix --json` say why). */
	if (!doc || mx_pattern_doc(st, m->run, doc) || !json_object_get(doc, "pattern")) {
		json_decref(doc);
		return;
	}
	json_decref(v->pattern);
	v->pattern = doc;
}

/* The colour of a line of the text: its outcome's level, else none. */
static int line_attr(const struct tui_view *v, const char *line)
{
	while (*line == ' ')
		line++;
	if (!v->colors)
		return !strncmp(line, "fail:", 5) ? A_BOLD : 0;
	if (!strncmp(line, "fail:", 5))
		return A_BOLD | COLOR_PAIR(C_BAD);
	if (!strncmp(line, "warn:", 5))
		return COLOR_PAIR(C_MID);
	if (!strncmp(line, "round ", 6))
		return A_BOLD;
	return 0;
}

/* A row of the rounds' text on the screen: a line, or the part of one
 * that did not fit the row before, indented under the line's text. */
struct row {
	const char *s;
	int len, indent, attr;
};

/* Appends @line to @rows (room @cap, grown), cut at words into rows of
 * @w columns at most; the count, -1 without memory. */
static int add_line(const struct tui_view *v, struct row **rows, int n, int *cap,
		    const char *line, int w)
{
	int attr = line_attr(v, line), lead = (int)strspn(line, " "), indent = 0;
	const char *p = line;

	do {
		int room = w - indent, len = (int)strlen(p), cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && p[cut] != ' '; cut--)
				;
			if (cut <= 0)
				cut = room; /* a word wider than the row */
		}
		if (n == *cap) {
			struct row *more = realloc(*rows, (size_t)(*cap *= 2) * sizeof(**rows));

			if (!more)
				return -1;
			*rows = more;
		}
		(*rows)[n++] = (struct row){ .s = p, .len = cut, .indent = indent, .attr = attr };
		p += cut;
		p += strspn(p, " ");
		indent = lead + 4 < w / 2 ? lead + 4 : 0;
	} while (*p);
	return n;
}

/* The text of the rounds (skipping its blank first line) as rows of the
 * screen's width into *@rows; the count, -1 without memory. */
static int pattern_rows(const struct tui_view *v, char **buf, struct row **rows)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	int n = 0, cap = 32;
	char *save = NULL, *l;

	*rows = NULL;
	if (!f)
		return -1;
	mx_pattern_render(f, v->pattern);
	fclose(f);
	*rows = malloc((size_t)cap * sizeof(**rows));
	for (l = strtok_r(*buf, "\n", &save); *rows && n >= 0 && l;
	     l = strtok_r(NULL, "\n", &save))
		n = add_line(v, rows, n, &cap, l, COLS > 8 ? COLS : 8);
	return *rows ? n : -1;
}

void tui_draw_pattern(struct tui_view *v, int y, int h)
{
	char *buf = NULL;
	struct row *rows;
	int n = pattern_rows(v, &buf, &rows);

	if (n < 0) {
		mvaddnstr(y, 0, "the pattern's rounds: no memory to draw them", COLS);
		free(rows);
		free(buf);
		return;
	}
	/* Scrolled no further than the last screenful. */
	if (v->rounds_top > n - h)
		v->rounds_top = n - h;
	if (v->rounds_top < 0)
		v->rounds_top = 0;
	for (int k = 0; k < h && v->rounds_top + k < n; k++) {
		const struct row *r = &rows[v->rounds_top + k];

		if (k == h - 1 && v->rounds_top + k < n - 1) {
			char more[96];

			snprintf(more, sizeof(more), "... %d more lines (arrows, PgDn)",
				 n - v->rounds_top - k);
			mvaddnstr(y + k, 0, more, COLS);
			break;
		}
		attron(r->attr);
		mvaddnstr(y + k, r->indent, r->s, r->len);
		attroff(r->attr);
	}
	free(rows);
	free(buf);
}
