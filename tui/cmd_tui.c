/* fabcheck tui: the live dashboard's controller (loop, keys, model refresh). */
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "ctl/child.h"
#include "core/out.h"
#include "core/util.h"
#include "core/summary.h"
#include "tui/tui.h"
#include "src/cmds.h"
#include "matrix/mx_history.h"
#include "matrix/mx_model.h"
#include "matrix/mx_session.h"

const char usage_tui[] =
	"usage: fabcheck tui [NODE... | --hostfile FILE] [--db FILE] [--run ID]\n"
	"                    [--once | --max-iterations N] [matrix options]\n"
	"\n"
	"A live dashboard of a rack's pair matrix: the node-by-node heat map, the\n"
	"cursor pair's detail (bandwidth per size, latency percentiles, counter\n"
	"deltas, its trend over the last 7 matrix runs against its own median: on\n"
	"the rail shown, or its worst rail; its part diagnosis on that rail, as\n"
	"the matrix's suspects carry it), progress and time left, and the\n"
	"suspects. With nodes it runs the matrix itself (as 'fabcheck matrix'\n"
	"would); without, it follows a run that another process writes to the\n"
	"store (the newest matrix run, or --run ID).\n"
	"\n"
	"  --db FILE            result store (default fabcheck.db)\n"
	"  --run ID             the run to follow\n"
	"  --once               draw one frame and exit (for scripts)\n"
	"  --max-iterations N   exit after N refreshes (about 5 a second)\n"
	"  matrix options       --both-directions, --retest, --min-gbps, ...\n"
	"                       (see 'fabcheck matrix --help')\n"
	"\n"
	"keys: q quit, m switch metric (bandwidth of best / of link rate / latency),\n"
	"r rerun the cursor pair, arrows or hjkl move, PgUp/PgDn page, ^L redraw,\n"
	"R next rail (with --rails), s the suspects list (worst first) or back,\n"
	"Enter in the list: show the suspect in the heat map.\n"
	"A pattern run (matrix --pattern) opens on its rounds, as matrix prints\n"
	"them: each receiver's senders (fanout: sender's receivers), the aggregate\n"
	"against the port's ceiling, Jain's index, the named outcomes; p switches\n"
	"to the heat map and back, arrows and PgUp/PgDn scroll the rounds.\n"
	"Above 256 nodes the TUI opens on the suspects list and the heat map shows\n"
	"blocks of nodes, each the worst pair inside it: z zooms into the cursor's\n"
	"block (a cell per pair) and back.\n"
	"\n"
	"Exit: 0 closed, 1 the run it ran has a suspect, 2 usage, 3 could not run.\n";

enum tui_action {
	ACT_NONE,
	ACT_QUIT,
	ACT_METRIC,
	ACT_RERUN,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_REDRAW,
	ACT_RAIL,
	ACT_LIST,
	ACT_ZOOM,
	ACT_SHOW,
	ACT_ROUNDS,
};

static const struct tui_binding bindings[] = {
	{ .key = 'q', .label = "q", .help = "quit", .action = ACT_QUIT },
	{ .key = 'Q', .action = ACT_QUIT },
	{ .key = 'm', .label = "m", .help = "metric", .action = ACT_METRIC },
	{ .key = 'r', .label = "r", .help = "rerun pair", .action = ACT_RERUN },
	{ .key = KEY_LEFT, .label = "arrows/hjkl", .help = "move", .action = ACT_LEFT },
	{ .key = 'h', .action = ACT_LEFT },
	{ .key = KEY_RIGHT, .action = ACT_RIGHT },
	{ .key = 'l', .action = ACT_RIGHT },
	{ .key = KEY_UP, .action = ACT_UP },
	{ .key = 'k', .action = ACT_UP },
	{ .key = KEY_DOWN, .action = ACT_DOWN },
	{ .key = 'j', .action = ACT_DOWN },
	{ .key = KEY_PPAGE, .label = "PgUp/PgDn", .help = "page", .action = ACT_PGUP },
	{ .key = KEY_NPAGE, .action = ACT_PGDN },
	{ .key = 12 /* ^L */, .action = ACT_REDRAW },
	/* Not in the footer (the header names it in a run with rails). */
	{ .key = 'R', .help = "rail", .action = ACT_RAIL },
	/* Nor these (the header names them at rack scale). */
	{ .key = 's', .help = "suspects", .action = ACT_LIST },
	{ .key = 'z', .help = "zoom", .action = ACT_ZOOM },
	{ .key = KEY_ENTER, .help = "show", .action = ACT_SHOW },
	{ .key = '\n', .action = ACT_SHOW },
	{ .key = '\r', .action = ACT_SHOW },
	/* Nor this (the header names it in a pattern run). */
	{ .key = 'p', .help = "rounds", .action = ACT_ROUNDS },
	{ 0 },
};

struct tui {
	struct tui_view v;
	struct mx_model m;
	struct fc_store *st;	/* the store read (the session's when running) */
	struct fc_store *own_st; /* opened here when following */
	struct mx_session s;
	int have_session; /* s is open: running the matrix or rerunning pairs */
	int running;	  /* the schedule is still running here */
	int detail_a, detail_b, detail_rail;
	int64_t detail_last;
	int dirty;
	struct mx_cli c;
};

struct hist_ctx {
	struct tui *t;
	const char *a, *b;
};

/* The cursor pair's document of this run among its newest results. */
static int detail_row(const struct fc_store_pair *p, void *arg)
{
	struct hist_ctx *h = arg;
	struct tui *t = h->t;

	if (p->run != t->m.run || strcmp(p->a, h->a) || strcmp(p->b, h->b))
		return 0;
	t->v.detail = json_loads(p->doc, 0, NULL);
	return 1;
}

/* The rail the trend is read on: the rail shown, or each rail (the worst
 * shown) when the heat map shows them together or the overview. */
static int trend_rail(const struct tui *t)
{
	if (!t->m.nrails)
		return -1;
	return t->v.rail >= 1 && t->v.rail <= t->m.nrails ? t->v.rail - 1 : MX_HIST_ANY_RAIL;
}

/* The cursor link a, b against its past: one query of the store. */
static void load_trend(struct tui *t, int a, int b)
{
	const struct fc_hist_opts o = FC_HIST_OPTS_DEFAULT;
	struct tui_trend *tr = &t->v.trend;
	int rail = trend_rail(t);
	struct mx_history h;

	*tr = (struct tui_trend){ .k = o.k, .min_runs = o.min_runs, .drop_max = o.drop_pct };
	if (mx_history_link(&h, t->st, &t->m, a, b, rail, &o)) {
		tr->state = -1;
		return;
	}
	if (h.nlinks) {
		const struct fc_hist_link *l = &h.links[0];

		tr->state = 1;
		tr->rail = l->rail;
		tr->of_rails = rail == MX_HIST_ANY_RAIL ? h.nlinks : 0;
		tr->npoints = h.nruns + 1;
		memcpy(tr->series, l->series, (size_t)tr->npoints * sizeof(*tr->series));
		tr->now = l->now;
		tr->median = l->median;
		tr->drop_pct = l->drop_pct;
		tr->runs = l->runs;
		tr->flagged = l->flagged;
	}
	mx_history_release(&h);
}

/* Reads the cursor pair's document and its trend when the cursor or the
 * rail shown moved or new results came: once per such refresh, never per
 * frame, and only for that link. */
static void load_detail(struct tui *t)
{
	struct hist_ctx h = { .t = t };
	int a = t->v.cur_a, b = t->v.cur_b, mirrored;

	if (a == t->detail_a && b == t->detail_b && t->detail_last == t->m.last_id &&
	    t->detail_rail == t->v.rail)
		return;
	t->detail_a = a;
	t->detail_b = b;
	t->detail_rail = t->v.rail;
	t->detail_last = t->m.last_id;
	json_decref(t->v.detail);
	t->v.detail = NULL;
	t->v.trend = (struct tui_trend){ 0 };
	if (a == b || a < 0 || b < 0 || a >= t->m.n || b >= t->m.n)
		return;
	if (mx_model_show(&t->m, a, b, &mirrored) && mirrored) {
		h.a = t->m.names[b];
		h.b = t->m.names[a];
	} else {
		h.a = t->m.names[a];
		h.b = t->m.names[b];
	}
	fc_store_pair_history(t->st, h.a, h.b, 6, detail_row, &h);
	load_trend(t, a, b);
}

static void update_active(struct tui *t)
{
	struct mx_job jobs[64];
	size_t off = 0;
	int n = t->have_session ? mx_run_active(&t->s.r, jobs, 64) : 0;

	t->v.active[0] = 0;
	for (int i = 0; i < n && off < sizeof(t->v.active); i++) {
		int w = snprintf(t->v.active + off, sizeof(t->v.active) - off, " %s-%s ",
				 t->s.names[jobs[i].a], t->s.names[jobs[i].b]);

		if (w > 0)
			off += (size_t)w;
	}
}

/* Opens a session on the followed run, only to rerun pairs. */
static int attach_for_rerun(struct tui *t)
{
	/* The stored pair options are checked as on resume: the launch
	 * options count only when this command line repeats them. */
	struct mx_cli c = { .db = t->c.db, .resume = t->m.run, .pair_args = t->c.pair_args };

	if (t->have_session)
		return 0;
	if (mx_session_open(&t->s, &c, &fc_stop)) {
		snprintf(t->v.message, sizeof(t->v.message),
			 "rerun refused: 'matrix --resume %lld' says why", (long long)t->m.run);
		return -1;
	}
	t->s.r.rounds = 0; /* the writer runs the schedule; only reruns here */
	t->have_session = 1;
	return 0;
}

static void rerun(struct tui *t)
{
	int a = t->v.cur_a, b = t->v.cur_b, mirrored, ia, ib;

	if (a == b)
		return;
	if (mx_model_show(&t->m, a, b, &mirrored) && mirrored) {
		int x = a;

		a = b;
		b = x;
	}
	if (attach_for_rerun(t))
		return;
	ia = -1;
	ib = -1;
	for (int i = 0; i < t->s.n; i++) {
		if (!strcmp(t->s.names[i], t->m.names[a]))
			ia = i;
		if (!strcmp(t->s.names[i], t->m.names[b]))
			ib = i;
	}
	if (ia < 0 || ib < 0 || mx_run_add(&t->s.r, ia, ib, 1)) {
		snprintf(t->v.message, sizeof(t->v.message), "cannot rerun %s -> %s",
			 t->m.names[a], t->m.names[b]);
		return;
	}
	snprintf(t->v.message, sizeof(t->v.message), "rerun of %s -> %s queued", t->m.names[a],
		 t->m.names[b]);
}

/* The moves over a pattern's rounds: they scroll its text (kept within it
 * when drawn). 1 when @act was one. */
static int scroll_rounds(struct tui *t, int act)
{
	int page = LINES / 2, d;

	switch (act) {
	case ACT_UP: d = -1; break;
	case ACT_DOWN: d = 1; break;
	case ACT_PGUP: d = -page; break;
	case ACT_PGDN: d = page; break;
	default: return 0;
	}
	t->v.rounds_top = t->v.rounds_top + d < 0 ? 0 : t->v.rounds_top + d;
	t->dirty = 1;
	return 1;
}

static int handle_key(struct tui *t, int ch)
{
	const struct tui_binding *k;
	int page = LINES / 2;

	if (ch == KEY_RESIZE) {
		t->dirty = 1;
		return 0;
	}
	for (k = bindings; k->key && k->key != ch; k++)
		;
	if (t->v.pattern && t->v.rounds_view && scroll_rounds(t, k->key ? k->action : ACT_NONE))
		return 0;
	switch (k->key ? k->action : ACT_NONE) {
	case ACT_QUIT: return 1;
	case ACT_METRIC: t->v.metric = (t->v.metric + 1) % TUI_NMETRICS; break;
	case ACT_RERUN: rerun(t); break;
	case ACT_LEFT: tui_move(&t->v, &t->m, 0, -1); break;
	case ACT_RIGHT: tui_move(&t->v, &t->m, 0, 1); break;
	case ACT_UP: tui_move(&t->v, &t->m, -1, 0); break;
	case ACT_DOWN: tui_move(&t->v, &t->m, 1, 0); break;
	case ACT_PGUP: tui_move(&t->v, &t->m, -page, 0); break;
	case ACT_PGDN: tui_move(&t->v, &t->m, page, 0); break;
	case ACT_LIST: tui_list(&t->v, &t->m, 0); break;
	case ACT_ZOOM: tui_zoom(&t->v, &t->m); break;
	case ACT_ROUNDS: t->v.rounds_view = t->v.pattern && !t->v.rounds_view; break;
	case ACT_SHOW:
		if (t->v.list)
			tui_list(&t->v, &t->m, 1);
		break;
	case ACT_REDRAW: clearok(stdscr, TRUE); break;
	case ACT_RAIL: /* together, each rail, the overview, together again */
		t->v.rail = t->m.nrails ? (t->v.rail + 1) % (t->m.nrails + 2) : 0;
		break;
	default: return 0;
	}
	tui_clamp(&t->v, &t->m);
	t->dirty = 1;
	return 0;
}

/* Runs the matrix a step when this process runs it. */
static void step_runner(struct tui *t)
{
	int rc;

	if (!t->have_session)
		return;
	rc = mx_run_poll(&t->s.r, 100);
	if (rc > 0 || rc == -EINTR)
		return;
	if (rc < 0) {
		snprintf(t->v.message, sizeof(t->v.message), "the run stopped: %s", strerror(-rc));
		t->running = 0;
		return;
	}
	if (!t->running)
		return;
	/* The schedule is done: the retest, then the verdict. */
	mx_model_refresh(&t->m, t->st);
	if (!mx_model_analyze(&t->m) && mx_session_retest(&t->s, &t->m) > 0)
		return;
	t->running = 0;
	{
		json_t *doc = mx_model_doc_brief(&t->m);

		fc_store_run_end(t->st, t->m.run, fc_jstr(doc, "verdict", "fail"));
		json_decref(doc);
	}
	snprintf(t->v.message, sizeof(t->v.message), "matrix done");
	t->dirty = 1;
}

static int tui_loop(struct tui *t)
{
	int iter = 0, ch, saved_level;

	if (tui_start(&t->v)) {
		fc_err("tui: cannot start the terminal; is TERM set (TERM=%s)?",
		       getenv("TERM") ? getenv("TERM") : "");
		return FC_EXIT_CANT;
	}
	/* Log lines would scribble on the screen: quiet while it is drawn
	 * (what goes wrong shows in the message line and the store). */
	saved_level = fc_log_level;
	fc_log_level = -1;
	timeout(t->have_session ? 50 : 200);
	t->dirty = 1;
	t->detail_a = -1;
	for (;;) {
		step_runner(t);
		if (mx_model_refresh(&t->m, t->st) > 0 || !t->m.analyzed) {
			mx_model_analyze(&t->m);
			tui_pattern_load(&t->v, t->st, &t->m);
			t->dirty = 1;
		}
		update_active(t);
		load_detail(t);
		/* Redraw on a change, and each second for the clock. */
		if (t->dirty || iter % 5 == 0)
			tui_draw(&t->v, &t->m, bindings);
		t->dirty = 0;
		if (t->c.once || fc_stop || (t->c.max_iter && ++iter >= t->c.max_iter))
			break;
		if (!t->c.max_iter)
			iter++;
		ch = getch();
		if (ch != ERR && handle_key(t, ch))
			break;
		if (ch != ERR)
			load_detail(t);
	}
	tui_stop();
	fc_log_level = saved_level;
	return 0;
}

/* --json: no screen (curses would write on stdout); --once gives the
 * document of the frame it would draw: the run's brief. */
static int tui_json(struct fc_ctx *ctx, struct tui *t)
{
	if (!t->c.once) {
		fc_err("tui --json: a live screen has no one document; add --once for the one of "
		       "its first frame, or use 'fabcheck report' or 'matrix --json'");
		return FC_EXIT_USAGE;
	}
	step_runner(t);
	mx_model_refresh(&t->m, t->st);
	mx_model_analyze(&t->m);
	return fc_emit(ctx, mx_model_doc_brief(&t->m), NULL);
}

static int open_model(struct tui *t)
{
	int64_t run = t->c.follow;

	if (t->c.n) {
		if (mx_session_open(&t->s, &t->c, &fc_stop))
			return FC_EXIT_CANT;
		t->have_session = t->running = 1;
		t->st = t->s.st;
		run = t->s.run;
	} else {
		t->own_st = fc_store_open_ro(t->c.db);
		if (!t->own_st)
			return FC_EXIT_CANT;
		t->st = t->own_st;
		if (!run)
			run = fc_store_run_latest(t->st, "matrix");
		if (run <= 0) {
			fc_err("tui: no matrix run in %s; give nodes to run one "
			       "('fabcheck tui nodeA nodeB ...') or --db FILE", fc_store_path(t->st));
			return FC_EXIT_CANT;
		}
	}
	if (mx_model_load(&t->m, t->st, run))
		return FC_EXIT_CANT;
	/* The cursor starts on the first suspect's first bad pair, if any. */
	t->v.cur_a = 0;
	t->v.cur_b = 1;
	if (!mx_model_analyze(&t->m)) {
		for (int i = 0; i < t->m.an.nfindings; i++) {
			const struct fc_mx_finding *f = &t->m.an.findings[i];

			if (f->kind == FC_MX_SUSPECT_NODE || f->kind == FC_MX_SUSPECT_LINK) {
				t->v.cur_a = f->a;
				t->v.cur_b = f->b >= 0 ? f->b : f->a ? 0 : 1;
				break;
			}
		}
	}
	/* A pattern run opens on its rounds. */
	tui_pattern_load(&t->v, t->st, &t->m);
	t->v.rounds_view = t->v.pattern != NULL;
	/* A rack too large for a cell per pair opens on its suspects. */
	if (t->m.n > TUI_BLOCK_NODES)
		tui_list(&t->v, &t->m, 0);
	return 0;
}

int cmd_tui(struct fc_ctx *ctx, int argc, char **argv)
{
	struct tui t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = mx_cli_parse(ctx, &t.c, argc, argv, MX_CLI_TUI, usage_tui);
	if (rc)
		goto out_cli;
	if (t.c.n && t.c.follow) {
		fc_err("tui: give nodes to run a matrix, or --run ID to follow one, not both");
		rc = FC_EXIT_USAGE;
		goto out_cli;
	}
	if (t.c.n == 1) {
		fc_err("tui: a matrix needs at least two nodes");
		rc = FC_EXIT_USAGE;
		goto out_cli;
	}
	fc_stop = 0;
	rc = open_model(&t);
	if (rc)
		goto out_close;
	fc_stop_on_signals();
	rc = ctx->json ? tui_json(ctx, &t) : tui_loop(&t);
	if (t.running) {
		/* Quit or a signal before the end: end the pairs, keep the rest. */
		fc_stop = 1;
		mx_run_poll(&t.s.r, 0);
		fc_store_run_end(t.st, t.m.run, "interrupted");
		fc_err_putf("fabcheck: run %lld stopped; its finished pairs are kept in %s; "
				"finish with 'fabcheck matrix --resume %lld --db %s'",
			(long long)t.m.run, fc_store_path(t.st), (long long)t.m.run,
			fc_store_path(t.st));
		rc = FC_EXIT_CANT;
	} else if (t.have_session && t.c.n && !rc) {
		mx_model_refresh(&t.m, t.st);
		if (!mx_model_analyze(&t.m) && fc_mx_failed(&t.m.an))
			rc = FC_EXIT_FAIL;
	}
	if (t.have_session && t.s.r.nkids) {
		fc_stop = 1;
		mx_run_poll(&t.s.r, 0);
	}
out_close:
	json_decref(t.v.detail);
	json_decref(t.v.pattern);
	mx_model_release(&t.m);
	if (t.have_session || t.c.n)
		mx_session_close(&t.s);
	fc_store_close(t.own_st);
out_cli:
	mx_cli_release(&t.c);
	return rc;
}
