/*
 * What the TUI's view files share (tui/view.c, view_big.c, view_pane.c): the
 * layout of a frame and the helpers that read the shown analysis.
 */
#ifndef FC_TUI_VIEW_INT_H
#define FC_TUI_VIEW_INT_H

#include <stddef.h>

#include "tui/tui.h"

enum { C_GOOD = 1, C_MID, C_BAD, C_ERROR, C_SUSPECT, C_TITLE };

#define DETAIL_LINES 6 /* the cursor pair's detail pane */

struct layout {
	int lw, cw;	  /* label and cell widths */
	int y0, rows;	  /* first matrix line (the column header), rows of cells */
	int vc;		  /* columns of cells visible */
	int detail_y, find_y, find_h;
	size_t prefix;
	int g;		  /* nodes a block's side: 1 one cell per pair */
	int a0, a1, b0, b1; /* the nodes shown: rows a0..a1-1, columns b0..b1-1 */
};

void tui_layout(const struct tui_view *v, const struct mx_model *m, struct layout *l);
const struct fc_mx_analysis *tui_view_an(const struct tui_view *v, const struct mx_model *m);
const struct fc_mx_cell *tui_show(const struct tui_view *v, const struct mx_model *m, int a,
				  int b, int *mirrored_p);
double tui_cell_share(const struct tui_view *v, const struct mx_model *m,
		      const struct fc_mx_cell *c, int a, int b);
/* @s in at most @w characters: a control character escaped, a longer
 * name its tail behind the marker "~" (node0127 -> ~0127); @s itself or
 * @buf. */
const char *tui_fit_name(const char *s, int w, char *buf, size_t len);
const char *tui_label(const struct mx_model *m, int i, size_t prefix, int w, char *buf,
		      size_t len);

/* The bottom panes (tui/view_pane.c): the cursor pair's detail on the
 * DETAIL_LINES lines from @y; the findings (the rail plan's notes first) on @h
 * lines from @y. */
/* @text on row @y, cut to the screen at a word with " ...". */
void tui_put_cut(int y, const char *text);
void tui_draw_detail(const struct tui_view *v, const struct mx_model *m, int y);
void tui_draw_findings(const struct tui_view *v, const struct mx_model *m, int y, int h);

/* A pattern run's rounds (tui/view_pattern.c) on @h lines from @y, from
 * line v->rounds_top of their text (kept within it). */
void tui_draw_pattern(struct tui_view *v, int y, int h);

/* One entry of the suspects list. */
#define TUI_LIST_MAX 512
struct tui_suspect {
	double score;	   /* its figure as a share of what it is held to; -1 unreachable */
	int order;	   /* index in its analysis (ran.suspects), for the text */
	int finding;	   /* without rails: index in an.findings */
	int node, peer;	   /* where the cursor goes; -1 none */
	int rail;	   /* -1 every rail */
	int bad, peers;	   /* the evidence: bad pairs of its measured peers */
	const char *level; /* "port", "node", "link", "rail" */
};
/* The suspects, worst first, into @out (room for @max); the count. */
int tui_suspects(const struct mx_model *m, struct tui_suspect *out, int max);
/* The cursor link's trend as one line (tui/view_trend.c). */
void tui_trend_text(const struct tui_trend *tr, const struct mx_model *m, char *buf, size_t len);
/* The cursor pair's part diagnosis on the rail shown (tui/view_diag.c). */
void tui_diag_text(const struct tui_view *v, const struct mx_model *m, char *buf, size_t len);
void tui_draw_blocks(const struct tui_view *v, const struct mx_model *m, const struct layout *l);
void tui_draw_list(const struct tui_view *v, const struct mx_model *m, int y, int h);

#endif
