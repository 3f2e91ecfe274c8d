/*
 * `make bench-report`: `fabcheck report` on a generated run of N nodes x R
 * rails (default 1,024 x 8, the full matrix; gen_store.h). Writes the store
 * into DIR (default build/bench-report), then runs the fabcheck binary
 * given (default ./fabcheck) once per output (--html, --csv, --prom) and
 * once with all three, and prints each run's peak memory (the child's
 * maximum resident set, from wait4), wall time and the size of what it
 * wrote. The files stay in DIR (report.html: open it in a browser).
 *
 *   bench_report [NODES [RAILS [ROUNDS [DIR [FABCHECK]]]]]
 *
 * Not a test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sched.h"
#include "core/util.h"
#include "matrix/mxlevel.h"
#include "tests/bench/gen_store.h"

static const char *const outs[][2] = {
	{ "--html", "report.html" }, { "--csv", "report.csv" }, { "--prom", "report.prom" },
};
#define NOUTS 3

static double file_mb(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : (double)sb.st_size / 1e6;
}

/* Runs @fc report on @db, writing output @only (all when < 0) into @dir. */
static int run_report(const char *fc, const char *db, const char *dir, int only)
{
	char paths[NOUTS][4096];
	const char *argv[4 + 2 * NOUTS + 1] = { fc, "report", "--db", db };
	int argc = 4, status;
	struct rusage ru;
	double t0 = fc_now(), wall;
	pid_t pid;

	for (int k = 0; k < NOUTS; k++) {
		snprintf(paths[k], sizeof(paths[k]), "%s/%s", dir, outs[k][1]);
		if (only < 0 || only == k) {
			argv[argc++] = outs[k][0];
			argv[argc++] = paths[k];
		}
	}
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(fc, (char *const *)argv);
		fprintf(stderr, "bench_report: cannot run %s: %s\n", fc, strerror(errno));
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
		fprintf(stderr, "bench_report: cannot start %s: %s\n", fc, strerror(errno));
		return -1;
	}
	wall = fc_now() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_report: %s report failed (status %d)\n", fc, status);
		return -1;
	}
	printf("  report %-22s peak %7.1f MB  wall %6.2f s ", only < 0 ? "--html --csv --prom" :
	       outs[only][0], (double)ru.ru_maxrss / 1024, wall);
	for (int k = 0; k < NOUTS; k++)
		if (only < 0 || only == k)
			printf(" %s %.2f MB", outs[k][1], file_mb(paths[k]));
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct gen_rack r = GEN_RACK_DEFAULT;
	const char *dir = argc > 4 ? argv[4] : "build/bench-report";
	const char *fc = argc > 5 ? argv[5] : "./fabcheck";
	char db[4096];
	double t0;
	int64_t run;

	r.nodes = argc > 1 ? atoi(argv[1]) : r.nodes;
	r.rails = argc > 2 ? atoi(argv[2]) : r.rails;
	r.rounds = argc > 3 ? atoi(argv[3]) : 0;
	if (r.nodes < 2 || r.nodes > FC_SCHED_MAX_NODES || r.rails < 1 ||
	    r.rails > FC_MXL_RAILS_MAX || r.rounds < 0) {
		fprintf(stderr, "usage: bench_report [NODES (2..%d) [RAILS (1..%d) [ROUNDS [DIR "
				"[FABCHECK]]]]]\n", FC_SCHED_MAX_NODES, FC_MXL_RAILS_MAX);
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "bench_report: cannot make %s: %s\n", dir, strerror(errno));
		return 3;
	}
	snprintf(db, sizeof(db), "%s/store.db", dir);
	t0 = fc_now();
	run = gen_store(db, &r);
	if (run <= 0) {
		fprintf(stderr, "bench_report: cannot write the store %s\n", db);
		return 3;
	}
	printf("store: %d nodes x %d rails, %s, %.0f MB, generated in %.1f s (%s)\n", r.nodes,
	       r.rails, r.rounds ? "the schedule's first rounds" : "every pair", file_mb(db),
	       fc_now() - t0, db);
	for (int k = 0; k <= NOUTS; k++)
		if (run_report(fc, db, dir, k < NOUTS ? k : -1))
			return 3;
	return 0;
}
