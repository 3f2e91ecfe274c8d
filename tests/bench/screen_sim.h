/*
 * A synthetic rack for the screen: N nodes x R rails with injected faults
 * (bad ports, bad hosts with every rail slow, a bad rail switch, flaky
 * ports) and noise on healthy pairs. Runs the real screening schedule and
 * analysis (matrix/screen.h) on simulated pair results, never a device.
 * Used by `make bench-screen` and the screen's unit tests.
 */
#ifndef FC_SCREEN_SIM_H
#define FC_SCREEN_SIM_H

#include <stdint.h>

struct sim_cfg {
	int n, rails;
	double bad_ports; /* share of (node, rail) with a hard fault */
	int bad_hosts;	  /* nodes with every rail slow */
	int bad_rail;	  /* rail with a slow switch, -1 for none */
	double flaky;	  /* share of (node, rail) bad in some tests */
	double flaky_p;	  /* chance a flaky port is bad in one test */
	double noise;	  /* share of healthy results that dip below 90% */
	double jitter;	  /* relative standard deviation of healthy results */
	double round_s;	  /* seconds a round takes, for the wall-time estimate */
	int max_rounds;	  /* 0: the screen's default */
	uint64_t seed;
	int verbose; /* a line per round on stderr */
};
#define SIM_CFG_DEFAULT                                                                    \
	{ .n = 64, .rails = 8, .bad_ports = 0.01, .bad_rail = -1, .flaky_p = 0.3,           \
	  .noise = 0.05, .jitter = 0.02, .round_s = 5, .seed = 1 }

struct sim_out {
	int rounds, max_rounds, stop;  /* stop: enum fc_scr_stop */
	int truth, tp, fp, fn;	       /* (node, rail) items: hard faults and bad hosts' rails */
	double precision, recall;      /* 1 when there is nothing to find / nothing named */
	int flaky, flaky_named;	       /* flaky ports, and of those named */
	int hosts_named, rail_named;   /* at the node / rail level */
	int links_named;	       /* link findings (none injected: each is noise) */
	int in_doubt;		       /* culprits of the analysis the screen does not hold */
	long pairs;		       /* node pairs run (each measures every rail) */
	double wall_s;		       /* rounds x round_s */
	char why[256];		       /* the screen's stop reason */
};

/* Runs one simulated screen. 0 or a negative errno. */
int sim_run(const struct sim_cfg *c, struct sim_out *o);

#endif
