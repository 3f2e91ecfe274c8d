/*
 * `make bench-tui`: the TUI and the HTML report at rack scale, from a
 * store. Writes a generated `matrix --rails` run of N nodes x R rails
 * (default 1,024 x 8; tests/bench/gen_store.h: the rows `matrix` writes,
 * every pair of the full matrix, or only the first ROUNDS rounds of the
 * schedule, as a screen leaves it) into a store in a temporary folder (in
 * a child process, so that its memory is not this one's); then does what
 * `fabcheck tui --db` does on it, timing each step: opens the store read
 * only, loads the run (mx_model_load) and analyses it (mx_model_analyze),
 * once; analyses it again as a refresh with new rows does; times a full
 * redraw (clearok: every character sent again) of each view (above 256
 * nodes the suspects list, a zoomed block, and the heat map in blocks) onto
 * an xterm whose output goes to /dev/null; writes the HTML report (to
 * HTML_FILE, or a temporary file; "none": not at all), printing its size;
 * and prints this process's peak memory. The store is removed at the end.
 *
 *   bench_tui [NODES [RAILS [COLSxLINES [ROUNDS [HTML_FILE | none]]]]]
 *
 * TMPDIR chooses where the store goes (a full 1,024 x 8 matrix takes some
 * gigabytes). BENCH_TUI_STORE=FILE keeps it: written there when missing
 * (with these arguments), read as it is when there, never removed. Not a
 * test.
 */
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "report/report.h"
#include "store/store.h"
#include "tests/bench/gen_store.h"
#include "tui/tui.h"

#define DRAWS 21

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

static double file_mb(const char *path, const char *suffix)
{
	char p[4200];
	struct stat sb;

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return stat(p, &sb) ? 0 : (double)sb.st_size / 1e6;
}

static char store_dir[4096], store_path[4200];

/* At exit, whatever the way out: the store can take gigabytes. */
static void remove_store(void)
{
	const char *dir = store_dir, *path = store_path;
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char p[4200];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
	rmdir(dir);
}

/* The store, written by a child: its memory and its time are its own. */
static void write_store(const char *path, int n, int nrails, int rounds)
{
	double t0 = fc_now();
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct gen_rack r = GEN_RACK_DEFAULT;
		double mb;
		int64_t run;

		r.nodes = n;
		r.rails = nrails;
		r.rounds = rounds;
		run = gen_store(path, &r);
		if (run <= 0)
			_exit(3);
		mb = file_mb(path, "") + file_mb(path, "-wal");
		printf("store: written in %.1f s: %.1f MB\n", fc_now() - t0, mb);
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench_tui: cannot write the store %s\n", path);
		exit(3);
	}
}

/* CPU seconds of this process, every thread: on a loaded host the wall
 * time says how long it took, this what it cost. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* What `tui --db` does before it draws: open, load, analyse. */
static void load_store(struct mx_model *m, const char *path)
{
	struct fc_store *st;
	double t0 = fc_now(), c0 = cpu_s(), t1, c1;
	int64_t run;

	st = fc_store_open_ro(path);
	run = st ? fc_store_run_latest(st, "matrix") : 0;
	if (run <= 0 || mx_model_load(m, st, run)) {
		fprintf(stderr, "bench_tui: cannot load the run from %s\n", path);
		exit(3);
	}
	t1 = fc_now();
	c1 = cpu_s();
	printf("load (open read-only, mx_model_load): %.0f ms (cpu %.0f ms); %d nodes x %d "
	       "rails, %zu pairs, %zu cells\n", (t1 - t0) * 1000, (c1 - c0) * 1000, m->n,
	       m->nrails, m->nres, m->nrcells);
	if (mx_model_analyze(m))
		exit(3);
	printf("analysis (mx_model_analyze, once): %.0f ms (cpu %.0f ms); %d suspects over "
	       "the rails\n", (fc_now() - t1) * 1000, (cpu_s() - c1) * 1000, m->ran.nsuspects);
	t1 = fc_now();
	c1 = cpu_s();
	m->analyzed = 0;
	if (mx_model_analyze(m))
		exit(3);
	printf("analysis again (a refresh with new rows): %.0f ms (cpu %.0f ms)\n",
	       (fc_now() - t1) * 1000, (cpu_s() - c1) * 1000);
	printf("peak memory after the load and the analysis: %ld MB\n", peak_mb());
	fc_store_close(st);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024, nrails = argc > 2 ? atoi(argv[2]) : 8;
	int cols = 200, lines = 60, rounds = argc > 4 ? atoi(argv[4]) : 0;
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *keep = getenv("BENCH_TUI_STORE") && *getenv("BENCH_TUI_STORE") ?
				   getenv("BENCH_TUI_STORE") : NULL;
	char *dir = store_dir, *path = store_path;
	struct mx_model m;

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
	if (keep) {
		snprintf(store_path, sizeof(store_path), "%s", keep);
	} else {
		snprintf(store_dir, sizeof(store_dir), "%s/fc-bench-tui-XXXXXX", tmp);
		if (!mkdtemp(dir)) {
			fprintf(stderr, "bench_tui: cannot make a folder in %s: %s (set TMPDIR)\n",
				tmp, strerror(errno));
			return 3;
		}
		snprintf(store_path, sizeof(store_path), "%s/bench.db", dir);
		atexit(remove_store);
	}
	printf("bench-tui: %d nodes x %d rails, %s, store %s\n", n, nrails,
	       rounds ? "the first rounds of the schedule" : "the full matrix", path);
	if (rounds)
		printf("  (%d rounds)\n", rounds);
	if (!keep || access(keep, F_OK))
		write_store(path, n, nrails, rounds);
	load_store(&m, path);
	bench_views(&m, cols, lines);
	if (argc <= 5 || strcmp(argv[5], "none"))
		bench_html(&m, argc > 5 ? argv[5] : NULL);
	printf("peak memory: %ld MB\n", peak_mb());
	mx_model_release(&m);
	return 0;
}
