/*
 * `make bench-screen`: the screen on simulated racks of 64 to 4,096 nodes
 * with 8 rails, 1% bad ports and 5% noise (share of healthy results that
 * dip below the threshold), then the same racks with a bad host, a slow
 * rail switch and flaky ports besides. Prints rounds, precision, recall and
 * a wall-time estimate at 5 s a round. Not a test.
 *   bench_screen [N...]        the sizes (default 64 512 1024 4096)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "tests/bench/screen_sim.h"

static int log2_ceil(int n)
{
	int k = 0;

	while ((1 << k) < n)
		k++;
	return k;
}

static void row(const struct sim_cfg *c, const struct sim_out *o, double t)
{
	printf("%6d %5d %7d %9d %6d %5d %5d %9.4f %7.4f %8.0f s %9.1f %s\n", c->n, c->rails,
	       o->truth, o->rounds, log2_ceil(c->n) + 2, o->fp, o->fn, o->precision, o->recall,
	       o->wall_s, t, o->stop == 1 ? "done" : o->stop == 2 ? "limit" : "stuck");
}

static int table(const char *title, int mixed, const int *sizes, int nsizes)
{
	printf("\n%s\n%6s %5s %7s %9s %6s %5s %5s %9s %7s %10s %9s %s\n", title, "nodes",
	       "rails", "faulty", "rounds", "limit", "fp", "fn", "precision", "recall",
	       "wall", "cpu s", "stop");
	for (int i = 0; i < nsizes; i++) {
		struct sim_cfg c = SIM_CFG_DEFAULT;
		struct sim_out o;
		double t0 = fc_now();

		c.n = sizes[i];
		c.verbose = getenv("SCREEN_VERBOSE") != NULL;
		if (mixed) {
			c.bad_hosts = c.n >= 512 ? 2 : 1;
			c.bad_rail = 3;
			c.flaky = 0.005;
		}
		if (sim_run(&c, &o)) {
			fprintf(stderr, "bench_screen: simulation of %d nodes failed\n", c.n);
			return 3;
		}
		row(&c, &o, fc_now() - t0);
		if (mixed)
			printf("%6s hosts named at node level: %d of %d; slow rail named: %s; "
			       "flaky ports named: %d of %d; link findings: %d\n", "",
			       o.hosts_named, c.bad_hosts, o.rail_named ? "yes" : "no",
			       o.flaky_named, o.flaky, o.links_named);
		else if (o.links_named)
			printf("%6s link findings (noise): %d\n", "", o.links_named);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int sizes[16] = { 64, 512, 1024, 4096 }, nsizes = 4;

	if (argc > 1) {
		nsizes = 0;
		for (int i = 1; i < argc && nsizes < 16; i++) {
			sizes[nsizes] = atoi(argv[i]);
			if (sizes[nsizes] < 2 || sizes[nsizes] > 4096) {
				fprintf(stderr, "bench_screen: nodes must be 2..4096, not '%s'\n",
					argv[i]);
				return 2;
			}
			nsizes++;
		}
	}
	printf("screen: seed matchings then retests against cleared peers; 5 s a round;\n"
	       "faulty = (node, rail) with a hard fault (ports at 25-75%% of the rate, hosts' rails)\n");
	if (table("1% bad ports, 5% noise:", 0, sizes, nsizes))
		return 3;
	return table("1% bad ports, 5% noise, bad host(s), rail 3 slow (70%), 0.5% flaky ports "
		     "(bad in 30% of tests):", 1, sizes, nsizes);
}
