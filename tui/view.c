/* The TUI's view: header, heat map, cursor detail, findings, key footer. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/names.h"
#include "core/out.h"
#include "core/sched.h"
#include "core/util.h"
#include "tui/tui.h"
#include "tui/view_int.h"

#define MIN_COLS 80
#define MIN_LINES 24
#define LABEL_MAX 14

static int started;

/* Modes and colours of a started screen. */
static void tui_setup(struct tui_view *v)
{
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	v->colors = has_colors() && start_color() == OK;
	if (v->colors) {
		use_default_colors();
		init_pair(C_GOOD, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_MID, COLOR_BLACK, COLOR_YELLOW);
		init_pair(C_BAD, COLOR_WHITE, COLOR_RED);
		init_pair(C_ERROR, COLOR_WHITE, COLOR_MAGENTA);
		init_pair(C_SUSPECT, COLOR_RED, -1);
		init_pair(C_TITLE, COLOR_CYAN, -1);
	}
}

int tui_start(struct tui_view *v)
{
	if (!initscr())
		return -1;
	started = 1;
	atexit(tui_stop);
	tui_setup(v);
	return 0;
}

int tui_start_on(struct tui_view *v, const char *term, FILE *out, FILE *in)
{
	if (!newterm(term, out, in))
		return -1;
	started = 1;
	tui_setup(v);
	return 0;
}

void tui_stop(void)
{
	if (!started)
		return;
	started = 0;
	curs_set(1);
	endwin();
}

double tui_node_rate(const struct mx_model *m, int node)
{
	return node >= 0 && node < m->n ? m->rate_gbps[node] : NAN;
}

/* Length of the prefix all names share (kept short names readable). */
static size_t common_prefix(const struct mx_model *m)
{
	size_t len;

	if (m->n < 2)
		return 0;
	len = strlen(m->names[0]);
	for (int i = 1; i < m->n; i++) {
		size_t k = 0;

		while (k < len && m->names[i][k] == m->names[0][k])
			k++;
		len = k;
	}
	/* Leave each label at least one character. */
	for (int i = 0; i < m->n; i++)
		if (strlen(m->names[i]) <= len)
			len = strlen(m->names[i]) ? strlen(m->names[i]) - 1 : 0;
	return len;
}

/* @name in at most @w characters: a control character shown escaped, a
 * longer name its tail behind "~" (node0127 -> ~0127), the marker that the
 * name was cut. */
const char *tui_fit_name(const char *s, int w, char *buf, size_t len)
{
	char shown[512];
	size_t l;

	for (const char *c = s; *c; c++) /* a control character: shown escaped */
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			s = fc_name_show(s, shown, sizeof(shown));
			break;
		}
	l = strlen(s);
	if ((int)l <= w)
		return s == shown ? (snprintf(buf, len, "%s", s), buf) : s;
	if (w <= 1) /* one character per column: the last one of the name */
		snprintf(buf, len, "%s", s + l - 1);
	else
		snprintf(buf, len, "~%s", s + l - (size_t)(w - 1));
	return buf;
}

/* A label of at most @w characters: the common prefix dropped, then the
 * tail kept (node0127 -> 127). */
const char *tui_label(const struct mx_model *m, int i, size_t prefix, int w, char *buf,
		      size_t len)
{
	return tui_fit_name(m->names[i] + prefix, w, buf, len);
}

/* Blocks: above TUI_BLOCK_NODES nodes, unless zoomed into one or on the
 * nodes x rails overview. */
static int blocks(const struct tui_view *v, const struct mx_model *m)
{
	return m->n > TUI_BLOCK_NODES && !v->zoomed && !(m->nrails && v->rail == m->nrails + 1);
}

static int min_i(int a, int b)
{
	return a < b ? a : b;
}

void tui_layout(const struct tui_view *v, const struct mx_model *m, struct layout *l)
{
	int maxlab = 1, span;

	l->prefix = common_prefix(m);
	for (int i = 0; i < m->n; i++) {
		int len = (int)(strlen(m->names[i]) - l->prefix);

		if (len > maxlab)
			maxlab = len;
	}
	l->lw = (maxlab < LABEL_MAX ? maxlab : LABEL_MAX) + 2;
	l->g = 1;
	l->a0 = l->b0 = 0;
	l->a1 = l->b1 = m->n;
	if (v->zoomed) {
		l->a0 = v->zoom_a;
		l->b0 = v->zoom_b;
		l->a1 = min_i(m->n, v->zoom_a + v->zoom_g);
		l->b1 = min_i(m->n, v->zoom_b + v->zoom_g);
	}
	span = l->a1 - l->a0 > l->b1 - l->b0 ? l->a1 - l->a0 : l->b1 - l->b0;
	if (blocks(v, m)) {
		/* A block "99!" of three columns; as many as the width holds. */
		int fit = (COLS - l->lw) / 3;

		l->g = (m->n + (fit > 0 ? fit : 1) - 1) / (fit > 0 ? fit : 1);
		span = (m->n + l->g - 1) / l->g;
		l->cw = 3;
	} else {
		/* 5: " 100!" with a space between cells; 3: "99!" (99 = 99-100%); 1: a
		 * glyph per pair, for racks wider than the terminal. */
		l->cw = l->lw + span * 5 <= COLS ? 5 : l->lw + span * 3 <= COLS ? 3 : 1;
	}
	l->vc = min_i((COLS - l->lw) / l->cw, span);
	l->y0 = 2;
	l->find_h = 3;
	l->rows = min_i(LINES - l->y0 - 1 - DETAIL_LINES - l->find_h - 1, span);
	/* Room left over goes to the findings. */
	l->detail_y = l->y0 + 1 + l->rows;
	l->find_y = l->detail_y + DETAIL_LINES;
	l->find_h = LINES - 1 - l->find_y;
}

/* Keeps @cur in lo..hi-1 and the window of @vis units of @g from *first. */
static void clamp_axis(int *cur, int *first, int lo, int hi, int g, int vis)
{
	int u, fu;

	if (*cur >= hi)
		*cur = hi - 1;
	if (*cur < lo)
		*cur = lo;
	if (vis <= 0)
		return;
	u = (*cur - lo) / g;
	fu = *first >= lo ? (*first - lo) / g : 0;
	if (u < fu)
		fu = u;
	if (u >= fu + vis)
		fu = u - vis + 1;
	*first = lo + fu * g;
}

void tui_clamp(struct tui_view *v, const struct mx_model *m)
{
	struct layout l;

	if (m->n < 1)
		return;
	tui_layout(v, m, &l);
	clamp_axis(&v->cur_a, &v->top, l.a0, l.a1, l.g, l.rows);
	clamp_axis(&v->cur_b, &v->left, l.b0, l.b1, l.g, l.vc);
}

static const char *const metric_names[] = {
	[TUI_BW_BEST] = "bandwidth, % of the best pair",
	[TUI_BW_LINK] = "bandwidth, % of link rate",
	[TUI_LAT] = "latency p50, us",
};

/* The analysis the heat map shows: one rail's, or every rail together. */
const struct fc_mx_analysis *tui_view_an(const struct tui_view *v, const struct mx_model *m)
{
	return v->rail >= 1 && v->rail <= m->nrails ? &m->ran.rails[v->rail - 1] : &m->an;
}

static int overview(const struct tui_view *v, const struct mx_model *m)
{
	return m->nrails && v->rail == m->nrails + 1;
}

/* mx_model_show on the shown analysis. */
const struct fc_mx_cell *tui_show(const struct tui_view *v, const struct mx_model *m, int a,
				  int b, int *mirrored_p)
{
	return mx_model_show_in(m, tui_view_an(v, m), a, b, mirrored_p);
}

/* The share (0..1, higher is better) a cell shows under the metric. */
double tui_cell_share(const struct tui_view *v, const struct mx_model *m,
		      const struct fc_mx_cell *c, int a, int b)
{
	double rate;

	switch (v->metric) {
	case TUI_BW_LINK:
		rate = fmin(tui_node_rate(m, a), tui_node_rate(m, b));
		if (isfinite(rate) && rate > 0 && isfinite(c->gbps))
			return fmin(1, c->gbps / rate);
		return mx_model_share_in(tui_view_an(v, m), c);
	case TUI_LAT:
		if (!isfinite(c->lat_us) || c->lat_us <= 0 || !isfinite(m->an.rack_median_lat_us))
			return NAN;
		return fmin(1, m->an.rack_median_lat_us / c->lat_us);
	default:
		return mx_model_share_in(tui_view_an(v, m), c);
	}
}

static int running_pair(const struct tui_view *v, const struct mx_model *m, int a, int b)
{
	char key[512];

	if (!v->active[0])
		return 0;
	snprintf(key, sizeof(key), " %s-%s ", m->names[a], m->names[b]);
	return strstr(v->active, key) != NULL;
}

static void draw_cell(const struct tui_view *v, const struct mx_model *m, const struct layout *l,
		      int a, int b, int y, int x)
{
	int mirrored, pair = 0, attr = 0;
	const struct fc_mx_cell *c = tui_show(v, m, a, b, &mirrored);
	char txt[16] = "", mark = ' ';
	double share;

	if (a == b) {
		if (l->cw == 1)
			snprintf(txt, sizeof(txt), "\\");
		else
			snprintf(txt, sizeof(txt), "%*s ", l->cw - 1, "-");
		mvaddnstr(y, x, txt, l->cw);
		return;
	}
	if (running_pair(v, m, a, b) || running_pair(v, m, b, a))
		mark = '*';
	if (!c) {
		if (l->cw == 1)
			snprintf(txt, sizeof(txt), "%c", mark == '*' ? '*' : '.');
		else
			snprintf(txt, sizeof(txt), "%*s%c", l->cw - 1, ".", mark);
	} else if (c->state == FC_MX_ERROR) {
		pair = C_ERROR;
		if (l->cw == 1)
			snprintf(txt, sizeof(txt), "x");
		else
			snprintf(txt, sizeof(txt), "%*s ", l->cw - 1, l->cw == 5 ? "err" : "er");
	} else {
		share = tui_cell_share(v, m, c, a, b);
		if (c->bad)
			mark = '!';
		else if (c->retest && mark == ' ')
			mark = 'r';
		pair = c->bad ? C_BAD : isfinite(share) && share >= 0.9 ? C_GOOD : C_MID;
		if (l->cw == 1) {
			txt[0] = c->bad ? '!' : isfinite(share) && share >= 0.9 ? '#' : '+';
			txt[1] = 0;
		} else if (v->metric == TUI_LAT) {
			if (!isfinite(c->lat_us))
				snprintf(txt, sizeof(txt), "%*s%c", l->cw - 1, "?", mark);
			else if (c->lat_us < (l->cw == 5 ? 999.5 : 99.5))
				snprintf(txt, sizeof(txt), "%*.0f%c", l->cw - 1, c->lat_us, mark);
			else
				snprintf(txt, sizeof(txt), "%*.0fk%c", l->cw - 2, c->lat_us / 1000,
					 mark);
		} else {
			int pct = isfinite(share) ? (int)lround(share * 100) : -1;

			if (l->cw == 3 && pct > 99)
				pct = 99;
			if (pct < 0)
				snprintf(txt, sizeof(txt), "%*s%c", l->cw - 1, "?", mark);
			else
				snprintf(txt, sizeof(txt), "%*d%c", l->cw - 1, pct, mark);
		}
	}
	if (v->colors && pair)
		attr |= COLOR_PAIR(pair);
	if (!v->colors && c && c->bad)
		attr |= A_BOLD;
	if (a == v->cur_a && b == v->cur_b)
		attr |= A_REVERSE;
	attron(attr);
	mvaddnstr(y, x, txt, l->cw);
	attroff(attr);
}

static int node_attr(const struct tui_view *v, const struct mx_model *m, int i)
{
	if (tui_view_an(v, m)->nodes[i].state != FC_MX_NODE_SUSPECT)
		return 0;
	return A_BOLD | (v->colors ? COLOR_PAIR(C_SUSPECT) : A_UNDERLINE);
}

static void draw_matrix(const struct tui_view *v, const struct mx_model *m, const struct layout *l)
{
	char buf[64];
	int y = l->y0, a, b;

	move(y, 0);
	clrtoeol();
	mvaddnstr(y, 0, l->lw > 8 ? "from\\to" : "\\", l->lw - 1);
	for (b = v->left; b < v->left + l->vc && b < l->b1; b++) {
		int w = l->cw == 1 ? 1 : l->cw - 1;
		int attr = node_attr(v, m, b) | (b == v->cur_b ? A_REVERSE : 0);

		attron(attr);
		mvprintw(y, l->lw + (b - v->left) * l->cw, "%*s", w,
			 tui_label(m, b, l->prefix, w, buf, sizeof(buf)));
		attroff(attr);
	}
	for (a = v->top; a < v->top + l->rows && a < l->a1; a++) {
		int attr = node_attr(v, m, a) | (a == v->cur_a ? A_REVERSE : 0);

		y = l->y0 + 1 + (a - v->top);
		move(y, 0);
		clrtoeol();
		attron(attr);
		mvprintw(y, 0, "%c%-*s", tui_view_an(v, m)->nodes[a].state == FC_MX_NODE_SUSPECT ? '*' : ' ',
			 l->lw - 1, tui_label(m, a, l->prefix, l->lw - 2, buf, sizeof(buf)));
		attroff(attr);
		for (b = v->left; b < v->left + l->vc && b < l->b1; b++)
			draw_cell(v, m, l, a, b, y, l->lw + (b - v->left) * l->cw);
	}
}

/* Nodes x rails: each cell the worst of the node's pairs on that rail, as a
 * share of that rail's best pair ("!" when the node is a suspect there). */
static void draw_overview(const struct tui_view *v, const struct mx_model *m, const struct layout *l)
{
	char buf[64];
	int y = l->y0, fit, shown;

	move(y, 0);
	clrtoeol();
	mvaddnstr(y, 0, "node\\rail", l->lw - 1);
	/* a column of 8 per rail, as many as the screen holds; more rails: the
	 * last column says how many are left out (R shows each rail alone) */
	fit = (COLS - l->lw) / 8;
	shown = m->nrails <= fit ? m->nrails : fit - 1;
	for (int r = 0; r < shown; r++)
		mvprintw(y, l->lw + r * 8, "%7s", tui_fit_name(m->rails[r].name, 7, buf, sizeof(buf)));
	if (shown < m->nrails) {
		snprintf(buf, sizeof(buf), "+%d more", m->nrails - shown);
		mvaddnstr(y, l->lw + shown * 8, buf, 8);
	}
	for (int a = v->top; a < v->top + l->rows && a < m->n; a++) {
		y = l->y0 + 1 + (a - v->top);
		move(y, 0);
		clrtoeol();
		mvprintw(y, 0, " %-*s", l->lw - 1, tui_label(m, a, l->prefix, l->lw - 2, buf, sizeof(buf)));
		for (int r = 0; r < shown; r++) {
			const struct fc_mx_analysis *an = &m->ran.rails[r];
			int susp = an->nodes[a].state == FC_MX_NODE_SUSPECT, attr = 0;
			double sh = mx_model_share_in(an, mx_model_worst(an, a));
			if (v->colors)
				attr = COLOR_PAIR(susp ? C_BAD : isfinite(sh) && sh >= 0.9 ? C_GOOD : C_MID);
			attron(attr | (susp && !v->colors ? A_BOLD : 0));
			if (isfinite(sh))
				mvprintw(y, l->lw + r * 8, "%6d%c", (int)lround(sh * 100), susp ? '!' : ' ');
			else
				mvprintw(y, l->lw + r * 8, "%6s%c", ".", susp ? '!' : ' ');
			attroff(attr | (susp && !v->colors ? A_BOLD : 0));
		}
	}
}

static void fmt_dur(double s, char *buf, size_t len)
{
	long t = isfinite(s) && s > 0 ? lround(s) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
}

/* What the frame shows at rack scale: the list, blocks, one block; added
 * to @buf (@len bytes, @off used). */
static void header_scale(const struct tui_view *v, const struct layout *l, char *buf, size_t len,
			 size_t off)
{
	if (off >= len)
		return;
	if (v->list)
		snprintf(buf + off, len - off, "  suspects (s: heat map, Enter: show in it)");
	else if (v->zoomed)
		snprintf(buf + off, len - off, "  nodes %d-%d x %d-%d (z: back)", l->a0, l->a1 - 1,
			 l->b0, l->b1 - 1);
	else if (l->g > 1)
		snprintf(buf + off, len - off, "  blocks of %d nodes, the worst pair (z: zoom, s: suspects)",
			 l->g);
}

/* The title line: the run, its metric, what the frame shows. */
static void header_title(const struct tui_view *v, const struct mx_model *m,
			 const struct layout *l, char *buf, size_t len)
{
	/* (the rounds of a pattern have no metric to switch) */
	int n = snprintf(buf, len, "fabcheck tui  run %lld (%s)  %d nodes  %s", (long long)m->run,
			 m->info.kind, m->n,
			 v->pattern && v->rounds_view ? "" : metric_names[v->metric]);

	if (n < 0 || (size_t)n >= len)
		return;
	if (m->nrails && overview(v, m))
		n += snprintf(buf + n, len - (size_t)n, "  nodes x %d rails, each node's worst pair (R: next)",
			      m->nrails);
	else if (m->nrails && v->rail)
		n += snprintf(buf + n, len - (size_t)n, "  rail %d (%s) (R: next)",
			      m->rails[v->rail - 1].index, m->rails[v->rail - 1].name);
	else if (m->nrails)
		n += snprintf(buf + n, len - (size_t)n, "  every rail together (R: one rail)");
	if (n < 0 || (size_t)n >= len)
		return;
	header_scale(v, l, buf, len, (size_t)n);
	n = (int)strlen(buf);
	if (v->pattern)
		snprintf(buf + n, len - (size_t)n,
			 v->rounds_view ? "  %s rounds (p: heat map)" : "  (p: %s rounds)",
			 fc_jstr(json_object_get(v->pattern, "pattern"), "name", "pattern"));
}

static void draw_header(const struct tui_view *v, const struct mx_model *m,
			const struct layout *l)
{
	struct mx_progress p;
	char el[32], left[32], line[512];
	const char *state;

	mx_model_progress(m, (double)time(NULL), &p);
	move(0, 0);
	clrtoeol();
	attron(A_BOLD | (v->colors ? COLOR_PAIR(C_TITLE) : 0));
	header_title(v, m, l, line, sizeof(line));
	tui_put_cut(0, line);
	attroff(A_BOLD | (v->colors ? COLOR_PAIR(C_TITLE) : 0));
	fmt_dur(p.elapsed_s, el, sizeof(el));
	if (isfinite(p.left_s))
		fmt_dur(p.left_s, left, sizeof(left));
	else
		snprintf(left, sizeof(left), "?");
	if (m->info.verdict[0])
		state = m->info.verdict;
	else
		state = v->running || m->info.ended == 0 ? "running" : "stopped";
	/* A pattern's schedule is its flows (mx_model_progress). */
	snprintf(line, sizeof(line), "round %d/%d  %s %d/%d  %s elapsed  %s left  %s%s%s",
		 p.round < p.rounds ? p.round + 1 : p.rounds, p.rounds,
		 json_object_get(m->info.params, "pattern") ? "flows" : "pairs", p.done, p.total, el,
		 p.done >= p.total ? "0m00s" : left, state, v->active[0] ? "  now:" : "",
		 v->active);
	move(1, 0);
	clrtoeol();
	tui_put_cut(1, line);
}

static void draw_footer(const struct tui_view *v, const struct tui_binding *keys)
{
	char line[512];
	size_t off = 0;

	for (const struct tui_binding *k = keys; k->key && off < sizeof(line); k++) {
		int w;

		if (!k->label)
			continue; /* a second key for an action already listed */
		w = snprintf(line + off, sizeof(line) - off, "%s %s  ", k->label, k->help);
		if (w > 0)
			off += (size_t)w;
	}
	if (v->message[0] && off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, "| %s", v->message);
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_REVERSE);
	tui_put_cut(LINES - 1, line);
	attroff(A_REVERSE);
}

void tui_draw(struct tui_view *v, const struct mx_model *m, const struct tui_binding *keys)
{
	struct layout l;

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		mvprintw(0, 0, "fabcheck tui needs %dx%d; this terminal is %dx%d: enlarge it "
			       "(q quits)", MIN_COLS, MIN_LINES, COLS, LINES);
		refresh();
		return;
	}
	tui_clamp(v, m);
	tui_layout(v, m, &l);
	draw_header(v, m, &l);
	if (v->pattern && v->rounds_view) {
		tui_draw_pattern(v, l.y0, LINES - 1 - l.y0);
	} else if (v->list) {
		int h = LINES - 1 - DETAIL_LINES - l.y0;

		tui_draw_list(v, m, l.y0, h);
		tui_draw_detail(v, m, l.y0 + h);
	} else {
		if (overview(v, m))
			draw_overview(v, m, &l);
		else if (l.g > 1)
			tui_draw_blocks(v, m, &l);
		else
			draw_matrix(v, m, &l);
		tui_draw_detail(v, m, l.detail_y);
		tui_draw_findings(v, m, l.find_y, l.find_h);
	}
	draw_footer(v, keys);
	refresh();
}
