/*
 * The TUI at rack scale: the heat map aggregated into blocks (a cell per
 * group of nodes, the worst pair inside it), the zoom into one block, and
 * the worst-first list of suspects with their evidence.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/tui.h"
#include "tui/view_int.h"

/* ---- blocks -------------------------------------------------------------- */

/* The block's worst pair, and its share under the metric (NAN: none). */
static double block_scan(const struct tui_view *v, const struct mx_model *m, int a0, int b0,
			 int g, struct mx_block *k)
{
	mx_model_block(m, tui_view_an(v, m), a0, b0, g, k);
	return k->worst ? tui_cell_share(v, m, k->worst, k->wa, k->wb) : NAN;
}

static void draw_block(const struct tui_view *v, const struct mx_model *m, const struct layout *l,
		       int a0, int b0, int y, int x)
{
	struct mx_block k;
	double share = block_scan(v, m, a0, b0, l->g, &k);
	char txt[8];
	int attr = 0, pair, pct;

	if (k.wa < 0) {
		snprintf(txt, sizeof(txt), "%2s%c", k.errors ? "er" : ".", ' ');
		pair = k.errors ? C_ERROR : 0;
	} else {
		pct = isfinite(share) ? (int)lround(share * 100) : -1;
		if (pct > 99)
			pct = 99;
		if (pct < 0)
			snprintf(txt, sizeof(txt), " ?%c", k.bad ? '!' : ' ');
		else
			snprintf(txt, sizeof(txt), "%2d%c", pct, k.bad ? '!' : k.errors ? 'x' : ' ');
		pair = k.bad ? C_BAD : isfinite(share) && share >= 0.9 ? C_GOOD : C_MID;
	}
	if (v->colors && pair)
		attr |= COLOR_PAIR(pair);
	if (!v->colors && k.bad)
		attr |= A_BOLD;
	if (v->cur_a / l->g == a0 / l->g && v->cur_b / l->g == b0 / l->g)
		attr |= A_REVERSE;
	attron(attr);
	mvaddnstr(y, x, txt, 3);
	attroff(attr);
}

/* A block's row or column holds a suspect node of the shown analysis. */
static int block_suspect(const struct tui_view *v, const struct mx_model *m, int a0, int g)
{
	const struct fc_mx_analysis *an = tui_view_an(v, m);

	for (int i = a0; i < a0 + g && i < m->n; i++)
		if (an->nodes[i].state == FC_MX_NODE_SUSPECT)
			return 1;
	return 0;
}

void tui_draw_blocks(const struct tui_view *v, const struct mx_model *m, const struct layout *l)
{
	char buf[64];
	int y = l->y0, top = v->top / l->g, left = v->left / l->g;
	int nb = (m->n + l->g - 1) / l->g;

	move(y, 0);
	clrtoeol();
	mvaddnstr(y, 0, "\\", 1);
	/* Column headers: the block number, every block (two digits). */
	for (int j = left; j < left + l->vc && j < nb; j++)
		mvprintw(y, l->lw + (j - left) * 3, "%2d", j % 100);
	for (int i = top; i < top + l->rows && i < nb; i++) {
		int susp = block_suspect(v, m, i * l->g, l->g);

		y = l->y0 + 1 + (i - top);
		move(y, 0);
		clrtoeol();
		attron(susp ? A_BOLD : 0);
		mvprintw(y, 0, "%c%-*s", susp ? '*' : ' ', l->lw - 1,
			 tui_label(m, i * l->g, l->prefix, l->lw - 2, buf, sizeof(buf)));
		attroff(susp ? A_BOLD : 0);
		for (int j = left; j < left + l->vc && j < nb; j++)
			draw_block(v, m, l, i * l->g, j * l->g, y, l->lw + (j - left) * 3);
	}
}

/* The cursor onto the worst pair of its block. */
static void snap_worst(struct tui_view *v, const struct mx_model *m, int g)
{
	struct mx_block k;

	block_scan(v, m, v->cur_a / g * g, v->cur_b / g * g, g, &k);
	if (k.wa >= 0) {
		v->cur_a = k.wa;
		v->cur_b = k.wb;
	}
}

/* ---- the suspects list ---------------------------------------------------- */

/* Worst first: unreachable, then the lowest share of what it is held to. */
static int cmp_suspect(const void *x, const void *y)
{
	const struct tui_suspect *a = x, *b = y;

	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return a->order - b->order;
}

static double ratio(double v, double ref)
{
	return isfinite(v) && isfinite(ref) && ref > 0 ? v / ref : 2;
}

/* The peer of @node worst on @an (its slowest pair), -1 when none. */
static int worst_peer(const struct fc_mx_analysis *an, int node)
{
	const struct fc_mx_cell *w = mx_model_worst(an, node);

	for (int j = 0; w && j < an->n; j++)
		if (j != node && (fc_mx_cell(an, node, j) == w || fc_mx_cell(an, j, node) == w))
			return j;
	return -1;
}

static int rail_suspects(const struct mx_model *m, struct tui_suspect *out, int max)
{
	int n = 0;

	for (int i = 0; i < m->ran.nsuspects && n < max; i++) {
		const struct fc_mxl_suspect *s = &m->ran.suspects[i];
		struct tui_suspect *t = &out[n];

		*t = (struct tui_suspect){ .order = n, .node = s->node, .peer = s->peer,
					   .rail = s->rail, .level = fc_mxl_level_name(s->level) };
		t->score = !isfinite(s->gbps) ? -1 : ratio(s->gbps, s->ref_gbps); /* no figure */
		if (s->rail >= 0 && s->node >= 0) {
			const struct fc_mx_node *nd = &m->ran.rails[s->rail].nodes[s->node];

			t->bad = nd->bad;
			t->peers = nd->peers;
			if (t->peer < 0)
				t->peer = worst_peer(&m->ran.rails[s->rail], s->node);
		} else if (s->node >= 0) {
			t->bad = m->an.nodes[s->node].bad;
			t->peers = m->an.nodes[s->node].peers;
		}
		n++;
	}
	return n;
}

static int node_suspects(const struct mx_model *m, struct tui_suspect *out, int max)
{
	const struct fc_mx_analysis *an = &m->an;
	int n = 0;

	for (int i = 0; i < an->nfindings && n < max; i++) {
		const struct fc_mx_finding *f = &an->findings[i];
		struct tui_suspect *t = &out[n];

		if (f->kind != FC_MX_SUSPECT_NODE && f->kind != FC_MX_SUSPECT_LINK &&
		    f->kind != FC_MX_UNREACHABLE)
			continue;
		*t = (struct tui_suspect){ .order = n, .node = f->a, .peer = f->b, .rail = -1,
					   .finding = i, .bad = an->nodes[f->a].bad,
					   .peers = an->nodes[f->a].peers };
		/* a node's own device on a port its worker named: that port's,
		 * as matrix's document says (mx_doc.c node_suspect) */
		t->level = f->kind == FC_MX_SUSPECT_LINK ? "link" :
			   f->kind == FC_MX_SUSPECT_NODE && (f->why & FC_MX_BAD_OWN) &&
					   mx_model_fault_dev(m, f->a, &(int){ 0 }) ? "port" : "node";
		t->score = f->kind == FC_MX_UNREACHABLE ? -1 : ratio(f->v1, an->rack_median_gbps);
		if (t->peer < 0)
			t->peer = worst_peer(an, f->a);
		n++;
	}
	return n;
}

int tui_suspects(const struct mx_model *m, struct tui_suspect *out, int max)
{
	int n = m->nrails ? rail_suspects(m, out, max) : node_suspects(m, out, max);

	qsort(out, (size_t)n, sizeof(*out), cmp_suspect);
	return n;
}

static void suspect_text(const struct mx_model *m, const struct tui_suspect *t, char *buf,
			 size_t len)
{
	const char *rn[FC_MXL_RAILS_MAX];

	for (int r = 0; r < m->nrails && r < FC_MXL_RAILS_MAX; r++)
		rn[r] = m->rails[r].name;
	if (m->nrails)
		fc_mxl_suspect_text(&m->ran, &m->ran.suspects[t->order], (const char *const *)m->names,
				    rn, buf, len);
	else
		mx_model_finding_text(m, &m->an.findings[t->finding], buf, len);
}

/* The list's rows, y .. y + h - 1: "share  level  bad/peers  text". */
void tui_draw_list(const struct tui_view *v, const struct mx_model *m, int y, int h)
{
	struct tui_suspect s[TUI_LIST_MAX];
	int n = tui_suspects(m, s, TUI_LIST_MAX), first = v->sel >= h - 1 ? v->sel - h + 2 : 0;
	char line[1024], text[768], pct[8];

	for (int k = 0; k < h; k++) {
		move(y + k, 0);
		clrtoeol();
	}
	if (h < 2)
		return;
	snprintf(line, sizeof(line), "%d suspect%s, worst first%s (share of what each is held to, "
		 "bad pairs of its measured peers):", n, fc_s(n), n == TUI_LIST_MAX ? " (the first)" : "");
	attron(A_BOLD);
	tui_put_cut(y, n ? line : "no suspects so far: every measured pair is within the "
			   "thresholds");
	attroff(A_BOLD);
	for (int i = first; i < n && i - first < h - 1; i++) {
		int attr = i == v->sel ? A_REVERSE : 0;

		suspect_text(m, &s[i], text, sizeof(text));
		if (s[i].score < 0)
			snprintf(pct, sizeof(pct), "down");
		else if (s[i].score <= 1)
			snprintf(pct, sizeof(pct), "%3.0f%%", s[i].score * 100);
		else
			snprintf(pct, sizeof(pct), "   ?");
		snprintf(line, sizeof(line), "%4s  %-4s  %3d/%-3d  %s", pct, s[i].level, s[i].bad,
			 s[i].peers, text);
		attron(attr);
		tui_put_cut(y + 1 + i - first, line); /* at a word, " ..." (issue 39 item 3) */
		attroff(attr);
	}
}

/* ---- keys ------------------------------------------------------------------ */

/* The cursor onto the list's selected suspect, its rail shown. */
static void select_suspect(struct tui_view *v, const struct mx_model *m)
{
	struct tui_suspect s[TUI_LIST_MAX];
	int n = tui_suspects(m, s, TUI_LIST_MAX);

	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < 0)
		v->sel = 0;
	if (!n)
		return;
	if (s[v->sel].node >= 0) {
		v->cur_a = s[v->sel].node;
		v->cur_b = s[v->sel].peer >= 0 ? s[v->sel].peer : s[v->sel].node ? 0 : 1;
	}
	if (m->nrails)
		v->rail = s[v->sel].rail >= 0 ? s[v->sel].rail + 1 : 0;
}

void tui_move(struct tui_view *v, const struct mx_model *m, int da, int db)
{
	struct layout l;

	if (v->list) {
		v->sel += da;
		select_suspect(v, m);
		return;
	}
	tui_layout(v, m, &l);
	v->cur_a += da * l.g;
	v->cur_b += db * l.g;
	tui_clamp(v, m);
	if (l.g > 1)
		snap_worst(v, m, l.g);
}

void tui_zoom(struct tui_view *v, const struct mx_model *m)
{
	struct layout l;

	if (v->zoomed) {
		v->zoomed = 0;
		tui_clamp(v, m);
		return;
	}
	tui_layout(v, m, &l);
	if (l.g <= 1) {
		snprintf(v->message, sizeof(v->message), "z: one cell per pair already");
		return;
	}
	v->list = 0;
	v->zoomed = 1;
	v->zoom_g = l.g;
	v->zoom_a = v->cur_a / l.g * l.g;
	v->zoom_b = v->cur_b / l.g * l.g;
	v->top = v->zoom_a;
	v->left = v->zoom_b;
	tui_clamp(v, m);
}

void tui_list(struct tui_view *v, const struct mx_model *m, int show)
{
	if (!v->list) {
		v->list = 1;
		select_suspect(v, m);
		return;
	}
	v->list = 0;
	v->zoomed = 0;
	tui_clamp(v, m);
	if (show) /* onto the selected suspect: its block, zoomed */
		tui_zoom(v, m);
}
