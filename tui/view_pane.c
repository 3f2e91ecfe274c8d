/* The TUI's bottom panes: the cursor pair's detail and the findings. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "tui/tui.h"
#include "tui/view_int.h"

/* Appends "label size value unit" items of the cursor pair's results. */
static void detail_results(const struct tui_view *v, const char *metric, char *buf, size_t len)
{
	const json_t *results = json_object_get(v->detail, "results");
	size_t off = 0, i;
	json_t *r;
	char sz[32], f[4][32];
	int w;

	json_array_foreach(results, i, r) {
		if (strcmp(fc_jstr(r, "metric", ""), metric) || off >= len)
			continue;
		fc_fmt_size((uint64_t)fc_jnum(r, "size_bytes", 0), sz, sizeof(sz));
		if (!strcmp(metric, "bw"))
			w = snprintf(buf + off, len - off, "%s %s %s  ", fc_jstr(r, "test", "?"),
				     sz, fc_fmt_figure(fc_jnum(r, "gbps", NAN), "%.3g", "Gb/s",
						       f[0], sizeof(f[0])));
		else
			w = snprintf(buf + off, len - off, "%s %s p50 %s p99 %s p99.9 %s max %s  ",
				     fc_jstr(r, "test", "?"), sz,
				     fc_fmt_figure(fc_jnum(r, "p50_us", NAN), "%.3g", NULL, f[0], sizeof(f[0])),
				     fc_fmt_figure(fc_jnum(r, "p99_us", NAN), "%.3g", NULL, f[1], sizeof(f[1])),
				     fc_fmt_figure(fc_jnum(r, "p999_us", NAN), "%.3g", NULL, f[2], sizeof(f[2])),
				     fc_fmt_figure(fc_jnum(r, "max_us", NAN), "%.3g", "us", f[3], sizeof(f[3])));
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (!off)
		snprintf(buf, len, "none");
}

static void detail_counters(const struct tui_view *v, char *buf, size_t len)
{
	const json_t *ctr = json_object_get(v->detail, "counters"), *vals;
	const char *node, *name;
	size_t off = 0;
	json_t *val;
	int w;

	buf[0] = 0;
	json_object_foreach((json_t *)ctr, node, vals) {
		json_object_foreach((json_t *)vals, name, val) {
			if (!json_is_number(val) || json_number_value(val) == 0 || off >= len)
				continue;
			w = snprintf(buf + off, len - off, "%s %s %+.0f  ", node, name,
				     json_number_value(val));
			if (w > 0)
				off += (size_t)w;
		}
	}
	if (!off)
		snprintf(buf, len, "no change");
}

/* @text on row @y, cut to the screen's width at a word with " ..."
 * (fc_fit_words, as every text line is; a word longer than the screen is
 * cut where the screen ends). */
void tui_put_cut(int y, const char *text)
{
	char buf[1024];
	int room = COLS > 0 ? COLS : 0;

	snprintf(buf, sizeof(buf), "%s", text);
	if (room < (int)sizeof(buf) && (int)strlen(buf) > room)
		fc_fit_words(buf, room);
	mvaddnstr(y, 0, buf, room);
}

void tui_draw_detail(const struct tui_view *v, const struct mx_model *m, int y)
{
	/* The analysis shown: on a rail alone, that rail's cell and reasons,
	 * not the pair's worst rail. */
	const struct fc_mx_analysis *an = tui_view_an(v, m);
	int mirrored, a = v->cur_a, b = v->cur_b, on_rail = an != &m->an, nw;
	const struct fc_mx_cell *c = mx_model_show_in(m, an, a, b, &mirrored);
	char line[1024], why[256] = "", rail[96] = "", na[160], nb[160];

	for (int k = 0; k < DETAIL_LINES; k++) {
		move(y + k, 0);
		clrtoeol();
	}
	if (a == b || m->n < 2) {
		mvaddnstr(y, 0, "(the diagonal: move the cursor onto a pair)", COLS);
		return;
	}
	if (mirrored) {
		int t = a;

		a = b;
		b = t;
	}
	if (c && c->bad)
		fc_mx_bad_text(an, c, why, sizeof(why));
	if (on_rail)
		snprintf(rail, sizeof(rail), " on rail %d (%s)", m->rails[v->rail - 1].index,
			 m->rails[v->rail - 1].name);
	/* names shown escaped; each cut with "~" where the two would leave
	 * the verdict no room on the line (issue 39 item 3) */
	nw = COLS > 60 ? (COLS - 40) / 2 : 10;
	snprintf(line, sizeof(line), "%s -> %s%s: %s%s%s%s",
		 tui_fit_name(m->names[a], nw, na, sizeof(na)),
		 tui_fit_name(m->names[b], nw, nb, sizeof(nb)), rail,
		 !c ? "not measured yet" : c->state == FC_MX_ERROR ? "could not run" :
		 c->bad ? "BAD" : "pass", why[0] ? " (" : "", why, why[0] ? ")" : "");
	if (c && c->state == FC_MX_ERROR)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ": %s",
			 fc_jstr(v->detail, "error", "?"));
	attron(A_BOLD);
	tui_put_cut(y, line);
	attroff(A_BOLD);
	snprintf(line, sizeof(line), "  bandwidth: ");
	detail_results(v, "bw", line + strlen(line), sizeof(line) - strlen(line));
	tui_put_cut(y + 1, line);
	snprintf(line, sizeof(line), "  latency:   ");
	detail_results(v, "lat", line + strlen(line), sizeof(line) - strlen(line));
	tui_put_cut(y + 2, line);
	snprintf(line, sizeof(line), "  counters:  ");
	detail_counters(v, line + strlen(line), sizeof(line) - strlen(line));
	tui_put_cut(y + 3, line);
	snprintf(line, sizeof(line), "  trend:     ");
	tui_trend_text(&v->trend, m, line + strlen(line), sizeof(line) - strlen(line));
	attron(v->trend.flagged ? A_BOLD | (v->colors ? COLOR_PAIR(C_SUSPECT) : 0) : 0);
	tui_put_cut(y + 4, line);
	attroff(v->trend.flagged ? A_BOLD | (v->colors ? COLOR_PAIR(C_SUSPECT) : 0) : 0);
	snprintf(line, sizeof(line), "  part:      ");
	tui_diag_text(v, m, line + strlen(line), sizeof(line) - strlen(line));
	tui_put_cut(y + 5, line);
}

/* What the run left out and assumed (its rail plan's findings: ports left
 * out with their rule, rails matched by position, and a port on no rail
 * (no address, no gateway) or a miswire, which matrix judges among its
 * findings: the TUI's findings are its analysis's, so said here), as
 * matrix prints its notes ("rails: NOTE"), one line each from @y; the
 * lines used. */
static int draw_rail_notes(const struct mx_model *m, int y, int h)
{
	const json_t *rp = json_object_get(m->info.params, "rails"), *f;
	char text[768];
	int used = 0;
	size_t i;

	json_array_foreach(json_object_get(rp, "findings"), i, f) {
		if (used >= h - 1)
			continue;
		snprintf(text, sizeof(text), "rails: %s", fc_jstr(f, "text", "?"));
		tui_put_cut(y + used++, text);
	}
	return used;
}

void tui_draw_findings(const struct tui_view *v, const struct mx_model *m, int y, int h)
{
	char text[768];
	int shown = 0, notes;

	for (int k = 0; k < h; k++) {
		move(y + k, 0);
		clrtoeol();
	}
	if (h <= 0)
		return;
	notes = draw_rail_notes(m, y, h);
	y += notes;
	h -= notes;
	if (!m->an.nfindings) {
		mvaddnstr(y, 0, m->nres ? "no findings so far: every measured pair is within the "
					  "thresholds" : "waiting for the first result...", COLS);
		return;
	}
	for (int i = 0; i < m->an.nfindings && shown < h; i++, shown++) {
		const struct fc_mx_finding *f = &m->an.findings[i];
		int attr = f->kind == FC_MX_SUSPECT_NODE || f->kind == FC_MX_SUSPECT_LINK ?
			A_BOLD | (v->colors ? COLOR_PAIR(C_SUSPECT) : 0) : 0;

		if (shown == h - 1 && i < m->an.nfindings - 1) {
			snprintf(text, sizeof(text), "... %d more findings: 'fabcheck report'",
				 m->an.nfindings - i);
			mvaddnstr(y + shown, 0, text, COLS);
			break;
		}
		mx_model_finding_text(m, f, text, sizeof(text));
		attron(attr);
		tui_put_cut(y + shown, text);
		attroff(attr);
	}
}
