/*
 * The TUI's view: draws a matrix model (matrix/mx_model.h) with ncurses. It
 * holds no data of its own beyond what the screen needs: the model comes
 * from the store, the controller (matrix/cmd_tui.c) owns the loop and keys.
 */
#ifndef FC_TUI_H
#define FC_TUI_H

#include <jansson.h>
#include <stdio.h>

#include "matrix/history.h"
#include "matrix/mx_model.h"

/* The cursor link's trend over the last k matrix runs of the store
 * (matrix/mx_history.h): read by the controller when the cursor, the rail
 * shown or the results change, drawn from here. */
struct tui_trend {
	int state;	  /* 0 no link (diagonal, no result yet), 1 shown, -1 unreadable */
	int rail;	  /* the model's rail, -1 without rails */
	int of_rails;	  /* every rail shown: the worst of this many */
	int npoints;	  /* series[0 .. npoints - 1]: [0] this run, [i] i runs before */
	double series[FC_HIST_K_MAX + 1];
	double now, median, drop_pct; /* NAN when none */
	int runs, flagged, k, min_runs;
	double drop_max; /* flagged above this drop, % */
};

enum tui_metric {
	TUI_BW_BEST, /* bandwidth as a share of the best pair */
	TUI_BW_LINK, /* bandwidth as a share of the slower port's link rate */
	TUI_LAT,     /* latency p50, as the rack median over the pair's */
	TUI_NMETRICS,
};

struct tui_view {
	int cur_a, cur_b;  /* the cursor: row (from), column (to) */
	int top, left;	   /* first row and column shown */
	enum tui_metric metric;
	int rail;	   /* matrix --rails: 0 every rail together, R+1 rail R alone,
			    * nrails+1 the nodes x rails overview (key R) */
	int colors;	   /* has_colors() and started */
	int running;	   /* this process runs the matrix */
	char active[256];  /* pairs running now, for the status line */
	char message[256]; /* the last action's result */
	json_t *detail;	   /* the cursor pair's newest document in the run */
	struct tui_trend trend;
	/* Rack scale (tui/view_big.c): above TUI_BLOCK_NODES nodes the heat map
	 * shows blocks of nodes, and the TUI opens on the suspects list. */
	int list;	   /* the suspects list instead of the heat map */
	int sel;	   /* the list's selected row */
	int zoomed;	   /* one block at one cell per pair */
	int zoom_g, zoom_a, zoom_b; /* that block: side, first row, first column */
	/* A pattern run (matrix --pattern, tui/view_pattern.c): the document
	 * its rounds are judged in, read again as results come; the TUI opens
	 * on its rounds instead of the heat map (key p switches). */
	json_t *pattern;   /* NULL: a run of pairs */
	int rounds_view;   /* the rounds are shown */
	int rounds_top;	   /* their first line shown */
};

#define TUI_BLOCK_NODES 256

/* One key binding: the key table the footer and the loop both read. */
struct tui_binding {
	int key;
	const char *label; /* "q"; NULL: not in the footer (another key of an action) */
	const char *help;  /* "quit" */
	int action;
};

/* Starts ncurses (colours when the terminal has them) and hooks the
 * terminal's restoration to exit. */
int tui_start(struct tui_view *v);
/* The same on terminal type @term writing to @out, reading @in (a bench
 * draws to /dev/null); no exit hook. */
int tui_start_on(struct tui_view *v, const char *term, FILE *out, FILE *in);
/* Restores the terminal; safe to call twice, and from atexit. */
void tui_stop(void);
/* Draws the whole screen from @m. */
void tui_draw(struct tui_view *v, const struct mx_model *m, const struct tui_binding *keys);
/* Keeps the cursor on the matrix and in view. */
void tui_clamp(struct tui_view *v, const struct mx_model *m);
/* Moves the cursor @da rows and @db columns (blocks in the block map, and
 * onto the worst pair of the block reached; the selection in the list). */
void tui_move(struct tui_view *v, const struct mx_model *m, int da, int db);
/* Zooms into the cursor's block, or back out. */
void tui_zoom(struct tui_view *v, const struct mx_model *m);
/* Opens the suspects list, or closes it (@show: onto the selected suspect,
 * its block zoomed into). */
void tui_list(struct tui_view *v, const struct mx_model *m, int show);
/* Reads run @m's pattern judgments from @st into v->pattern (nothing for a
 * run of pairs; the last reading stays when the flows cannot be read). */
void tui_pattern_load(struct tui_view *v, struct fc_store *st, const struct mx_model *m);
/* Link rate of a node from its pair documents (Gb/s; NAN unknown). */
double tui_node_rate(const struct mx_model *m, int node);

#endif
