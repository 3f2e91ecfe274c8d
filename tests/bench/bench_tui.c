/*
 * `make bench-tui`: the TUI and the HTML report at rack scale. Builds the
 * model the TUI draws (matrix/mx_model.h) of a generated run, N nodes x R
 * rails (default 1,024 x 8), every pair measured once (the full matrix,
 * or only the first ROUNDS rounds of the schedule, as a screen leaves
 * it), 1% of the (node, rail) ports at half rate and 3% noise elsewhere;
 * analyses it with the model's own code; then times a full redraw
 * (clearok: every character sent again) of each view (above 256 nodes the
 * suspects list, a zoomed block, and the heat map in blocks) onto an xterm whose
 * output goes to /dev/null, and writes the HTML report (to HTML_FILE, or a
 * temporary file; "none": not at all), printing its size.
 *
 *   bench_tui [NODES [RAILS [COLSxLINES [ROUNDS [HTML_FILE | none]]]]]
 *
 * Not a test. The store is not involved: reading a run back is
 * mx_model_load's business, timed by nothing here.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "report/report.h"
#include "tui/tui.h"

#define DRAWS 21

/* libc's generator, seeded in main: the same rack every run. */
static double uni(void)
{
	return drand48();
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fprintf(stderr, "bench_tui: out of memory\n");
		exit(3);
	}
	return p;
}

static void gen_nodes(struct mx_model *m, int n, int nrails)
{
	char buf[64];

	m->n = n;
	m->names = xcalloc((size_t)n, sizeof(*m->names));
	m->rate_gbps = xcalloc((size_t)n, sizeof(*m->rate_gbps));
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "gpu-node%04d", i);
		m->names[i] = strdup(buf);
		m->rate_gbps[i] = 400.0 * nrails;
	}
	m->nrails = nrails;
	m->rails = xcalloc((size_t)nrails, sizeof(*m->rails));
	for (int r = 0; r < nrails; r++) {
		m->rails[r].index = r;
		snprintf(m->rails[r].name, sizeof(m->rails[r].name), "mlx5_%d", r);
		snprintf(m->rails[r].subnet, sizeof(m->rails[r].subnet), "10.%d.0.0/16", r);
	}
}

/* The pairs of the schedule's first @rounds rounds (all when 0). */
static void gen_results(struct mx_model *m, int rounds, const unsigned char *bad)
{
	int n = m->n, nr = m->nrails, all = fc_sched_rounds(n, 0);
	struct fc_pair_idx *p = xcalloc((size_t)fc_sched_round_max(n), sizeof(*p));
	size_t cap = (size_t)n * (size_t)(n - 1) / 2;

	if (!rounds || rounds > all)
		rounds = all;
	m->res = xcalloc(cap, sizeof(*m->res));
	m->res_id = xcalloc(cap, sizeof(*m->res_id));
	m->res_err = xcalloc(cap, sizeof(*m->res_err));
	m->rcells = xcalloc(cap * (size_t)nr, sizeof(*m->rcells));
	m->cap = cap;
	m->rcap = cap * (size_t)nr;
	for (int r = 0; r < rounds; r++) {
		int k = fc_sched_round(n, 0, r, p);

		for (int i = 0; i < k; i++) {
			struct fc_mx_result *res = &m->res[m->nres];
			double sum = 0;

			for (int q = 0; q < nr; q++) {
				double g = 390 * (1 + 0.03 * (uni() - 0.5) * 2);

				if (bad[p[i].a * nr + q] || bad[p[i].b * nr + q])
					g *= 0.5;
				sum += g;
				m->rcells[m->nrcells++] = (struct fc_mxl_cell){
					.a = p[i].a, .b = p[i].b, .rail = q, .gbps = g,
					.lat_us = 3 + uni(), .state = FC_MX_OK };
			}
			*res = (struct fc_mx_result){ .a = p[i].a, .b = p[i].b, .gbps = sum,
						      .lat_us = 3 + uni(), .state = FC_MX_OK };
			m->res_id[m->nres] = (int64_t)m->nres + 1;
			m->nres++;
		}
	}
	m->last_id = (int64_t)m->nres;
	free(p);
}

static void gen_model(struct mx_model *m, int n, int nrails, int rounds)
{
	unsigned char *bad = xcalloc((size_t)n * (size_t)nrails, 1);
	double now = (double)time(NULL);

	memset(m, 0, sizeof(*m));
	m->run = 1;
	snprintf(m->info.kind, sizeof(m->info.kind), "matrix");
	snprintf(m->info.verdict, sizeof(m->info.verdict), "fail");
	m->info.started = now - 3600;
	m->info.ended = now;
	m->opts = (struct fc_mx_opts)FC_MX_OPTS_DEFAULT;
	gen_nodes(m, n, nrails);
	/* 1% of the ports, at least one. */
	for (int k = 0; k < (n * nrails + 99) / 100; k++)
		bad[(size_t)(uni() * n * nrails) % ((size_t)n * nrails)] = 1;
	gen_results(m, rounds, bad);
	m->last_time = now;
	free(bad);
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Median and worst of DRAWS full redraws of the view @v is set to (ms). */
static void time_draws(struct tui_view *v, const struct mx_model *m,
		       const struct tui_binding *keys, const char *what)
{
	double t[DRAWS];

	for (int i = 0; i < DRAWS; i++) {
		double t0 = fc_now();

		clearok(stdscr, TRUE);
		tui_draw(v, m, keys);
		t[i] = (fc_now() - t0) * 1000;
	}
	qsort(t, DRAWS, sizeof(t[0]), cmp);
	printf("  redraw %-34s median %7.2f ms  max %7.2f ms\n", what, t[DRAWS / 2],
	       t[DRAWS - 1]);
}

static void bench_views(struct mx_model *m, int cols, int lines)
{
	static const struct tui_binding keys[] = {
		{ .key = 'q', .label = "q", .help = "quit", .action = 1 },
		{ 0 },
	};
	struct tui_view v = { .cur_a = 0, .cur_b = 1 };
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	char sz[32];

	snprintf(sz, sizeof(sz), "%d", cols);
	setenv("COLUMNS", sz, 1);
	snprintf(sz, sizeof(sz), "%d", lines);
	setenv("LINES", sz, 1);
	if (!out || !in || tui_start_on(&v, "xterm-256color", out, in)) {
		fprintf(stderr, "bench_tui: cannot start a terminal (terminfo xterm-256color?)\n");
		exit(3);
	}
	v.history = json_array();
	printf("tui %dx%d, colours %s:\n", COLS, LINES, v.colors ? "on" : "off");
	if (m->n > TUI_BLOCK_NODES) {
		tui_list(&v, m, 0);
		time_draws(&v, m, keys, "suspects list (the first view)");
		tui_list(&v, m, 1);
		time_draws(&v, m, keys, "the first suspect's block, zoomed");
		tui_zoom(&v, m);
	}
	v.rail = 0;
	time_draws(&v, m, keys, "heat map, every rail together");
	v.rail = 1;
	time_draws(&v, m, keys, "heat map, rail 0");
	v.rail = m->nrails + 1;
	time_draws(&v, m, keys, "nodes x rails overview");
	tui_stop();
	json_decref(v.history);
	fclose(out);
	fclose(in);
}

static void bench_html(const struct mx_model *m, const char *path)
{
	FILE *f = path ? fopen(path, "w") : tmpfile();
	json_t *doc = mx_model_doc(m);
	double t0 = fc_now(), ms;
	struct stat sb;

	if (!f || !doc || rp_write_html(f, m, doc) || fflush(f)) {
		fprintf(stderr, "bench_tui: cannot write the HTML report%s%s\n", path ? " to " : "",
			path ? path : "");
		exit(3);
	}
	ms = (fc_now() - t0) * 1000;
	fstat(fileno(f), &sb);
	printf("html report: %.2f MB (%lld bytes), written in %.0f ms%s%s\n",
	       (double)sb.st_size / 1e6, (long long)sb.st_size, ms, path ? " to " : "",
	       path ? path : "");
	json_decref(doc);
	fclose(f);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024, nrails = argc > 2 ? atoi(argv[2]) : 8;
	int cols = 200, lines = 60, rounds = argc > 4 ? atoi(argv[4]) : 0;
	struct mx_model m;
	double t0;

	if (argc > 3 && sscanf(argv[3], "%dx%d", &cols, &lines) != 2) {
		fprintf(stderr, "bench_tui: a size is COLSxLINES, such as 200x60\n");
		return 2;
	}
	if (n < 2 || n > FC_SCHED_MAX_NODES || nrails < 1 || nrails > FC_MXL_RAILS_MAX ||
	    rounds < 0) {
		fprintf(stderr, "usage: bench_tui [NODES (2..%d) [RAILS (1..%d) [COLSxLINES "
				"[ROUNDS [HTML_FILE | none]]]]]\n", FC_SCHED_MAX_NODES, FC_MXL_RAILS_MAX);
		return 2;
	}
	srand48(18);
	t0 = fc_now();
	gen_model(&m, n, nrails, rounds);
	printf("model: %d nodes x %d rails, %zu pairs, %zu cells, generated in %.0f ms\n", n,
	       nrails, m.nres, m.nrcells, (fc_now() - t0) * 1000);
	t0 = fc_now();
	if (mx_model_analyze(&m))
		return 3;
	printf("analysis (mx_model_analyze, on new results): %.0f ms; %d suspects over the "
	       "rails\n", (fc_now() - t0) * 1000, m.ran.nsuspects);
	bench_views(&m, cols, lines);
	if (argc <= 5 || strcmp(argv[5], "none"))
		bench_html(&m, argc > 5 ? argv[5] : NULL);
	mx_model_release(&m);
	return 0;
}
