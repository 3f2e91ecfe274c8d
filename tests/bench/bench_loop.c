/*
 * The bandwidth loop's own cost per work request (make bench-loop): the
 * real loop of verbs/bw.c on the fake HCA without a peer (tests/fake:
 * nothing copied, each request "done" when posted), 64-byte writes, post
 * lists 1, 16 and 32, 1, 2 and 4 threads (a QP each). Each case runs
 * BENCH_RUNS times (default 10); it prints ns per WR posted and completed
 * per thread, by the wall clock (what the run saw: on a shared host it
 * counts the time other processes had the CPU) and by the CPU time the
 * process spent (the loop's own cost), and the WRs per second a thread
 * sustains by CPU time, each with the 95% interval of the mean over the
 * runs (Student's t). The fake's own work is counted in, so the figures
 * are an upper bound on the loop's cost.
 *
 * The loop must never be a 400G HCA's bottleneck: at 64 B, post list 32,
 * one thread it must sustain 40 M WRs/s (the floor issue 26 sets); the
 * exit status is 1 when the interval's upper end of CPU ns/WR is above 25.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "tests/fake/fake_hca.h"

#define WRS_PER_QP 2000000ULL

/* Student's t at 95% (two-sided) for n - 1 degrees of freedom. */
static double t95(int n)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				    2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				    2.120, 2.110, 2.101, 2.093, 2.086 };

	return n - 1 < (int)(sizeof(t) / sizeof(t[0])) ? t[n - 1] : 1.96;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One run: wall and CPU ns per WR per thread; 0, or -1 on failure. */
static int one_run(int post_list, int threads, double *wall_p, double *cpu_p)
{
	struct fk_cfg c = { .nqps = threads, .tx_depth = 128, .threads = threads,
			    .max_size = 64, .timeout = 10, .max_inline = 236 };
	struct fk_side s;
	struct vb_test t = { .op = VB_WRITE, .size = 64, .iters = WRS_PER_QP, .active = 1,
			     .interval = 0.1, .method = VB_METHOD_FABCHECK, .warmup = 0,
			     .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			     .cycle = VB_CYCLE_DEFAULT, .post_list = post_list, .threads = threads };
	struct vb_result res;
	double c0;
	int rc = -1;

	if (fk_side_init(&s, &c))
		return -1;
	c0 = cpu_now();
	if (!vb_test_resolve(&s.r, &t) && !vb_test_prepare(&s.r, &t) &&
	    !vb_test_run(&s.r, &t, &res) && res.msgs == WRS_PER_QP * (uint64_t)threads) {
		/* each thread drives WRS_PER_QP requests over res.seconds */
		*wall_p = res.seconds * 1e9 / (double)WRS_PER_QP;
		*cpu_p = (cpu_now() - c0) * 1e9 / (double)WRS_PER_QP / threads;
		vb_result_release(&res);
		rc = 0;
	}
	fk_side_free(&s);
	return rc;
}

struct ci {
	double sum, sq;
	int n;
};

static void ci_add(struct ci *c, double v)
{
	c->sum += v;
	c->sq += v * v;
	c->n++;
}

/* The mean and the half width of its 95% interval. */
static double ci_mean(const struct ci *c, double *half)
{
	double mean = c->sum / c->n;
	double sd = sqrt(fmax(0, (c->sq - c->sum * c->sum / c->n) / (c->n - 1)));

	*half = t95(c->n) * sd / sqrt(c->n);
	return mean;
}

int main(void)
{
	static const int lists[] = { 1, 16, 32 }, thrs[] = { 1, 2, 4 };
	const char *e = getenv("BENCH_RUNS");
	int runs = e && atoi(e) >= 2 ? atoi(e) : 10, rc = 0;

	printf("bench-loop: verbs/bw.c on the fake HCA, 64 B writes, %llu WRs per thread, %d runs a case, mean +- 95%% interval\n",
	       WRS_PER_QP, runs);
	printf("%-8s %-7s %-18s %-18s %s\n", "POSTLIST", "THREADS", "WALL NS/WR", "CPU NS/WR",
	       "M WR/S A THREAD (CPU)");
	for (size_t li = 0; li < sizeof(lists) / sizeof(lists[0]); li++)
		for (size_t ti = 0; ti < sizeof(thrs) / sizeof(thrs[0]); ti++) {
			struct ci wall = { 0 }, cpu = { 0 };
			double wh, ch, wm, cm;

			for (int k = 0; k < runs; k++) {
				double w, c;

				if (one_run(lists[li], thrs[ti], &w, &c)) {
					fprintf(stderr, "bench-loop: post list %d, %d threads: the run failed\n",
						lists[li], thrs[ti]);
					return 1;
				}
				ci_add(&wall, w);
				ci_add(&cpu, c);
			}
			wm = ci_mean(&wall, &wh);
			cm = ci_mean(&cpu, &ch);
			printf("%-8d %-7d %7.2f +- %-7.2f %7.2f +- %-7.2f %6.1f (%.1f..%.1f)\n", lists[li],
			       thrs[ti], wm, wh, cm, ch, 1e3 / cm, 1e3 / (cm + ch),
			       cm > ch ? 1e3 / (cm - ch) : INFINITY);
			if (lists[li] == 32 && thrs[ti] == 1 && cm + ch > 25) {
				printf("bench-loop: FAIL: post list 32, one thread: %.2f CPU ns/WR (upper end %.2f): below 40 M WR/s\n",
				       cm, cm + ch);
				rc = 1;
			}
		}
	return rc;
}
