/*
 * perftest's "BW peak" (perftest_parameters.c, print_report_bw): the
 * shortest time per message over any stretch from a post to a completion.
 * run_iter_bw (perftest_resources.c) stamps tposted[i] at each post of a
 * list, i the list's first request in posting order over all QPs, and
 * tcompleted[j - 1] at each completion, j the requests completed so far;
 * print_report_bw then takes, for i in steps of the post list and j at the
 * signalled requests (every cq_mod-th, and the last), the least
 * (tcompleted[j] - tposted[i]) / (j - i + 1), starting from the whole
 * run's time, and the peak is the size over that. It is measured only for
 * a run of iterations (not -D) of at most PT_PEAK_MAX a QP
 * (force_dependecies: "BW peak won't be measured in this run").
 */
#include "verbs/test.h"

double vb_pt_peak_delta(const double *tposted, const double *tcompleted, uint64_t n,
			int post_list, int cq_mod, double whole)
{
	double best = whole;
	uint64_t l = post_list > 1 ? (uint64_t)post_list : 1, c = cq_mod > 1 ? (uint64_t)cq_mod : 1;

	for (uint64_t i = 0; i < n; i += l) {
		for (uint64_t j = (i + 1 + c - 1) / c * c - 1; j < n; j += c) {
			/* a stamp never taken (a list cut short): perftest's
			 * unsigned difference is huge there, never the least */
			double t = (tcompleted[j] - tposted[i]) / (double)(j - i + 1);

			if (tcompleted[j] > tposted[i] && t < best)
				best = t;
		}
		if (n % c && tcompleted[n - 1] > tposted[i]) {
			double t = (tcompleted[n - 1] - tposted[i]) / (double)(n - i);

			if (t < best)
				best = t;
		}
	}
	return best;
}
