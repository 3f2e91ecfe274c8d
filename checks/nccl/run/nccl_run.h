/* fabcheck nccl run: the controller. */
#ifndef FC_CTL_NCCL_RUN_H
#define FC_CTL_NCCL_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "checks/nccl/run/ncclrt.h"
#include "core/fc.h"
#include "ctl/chan.h"

struct ncr_cfg {
	char **nodes;
	int nnodes;
	int gpus_per_node;
	struct ncr_params p; /* template: sizes, iters, op, timeout */
	struct fc_launch launch;
	const char *expect_net;
	int expect_gdr;
	const char *log_dir;
	double rail_gbps;	/* --rail-gbps: each rail's link rate; 0: from the log */
	const char *nccl_algo;	/* NCCL_ALGO of this environment, passed to every rank */
	const char *rails;	/* --rails all|first|LIST (NULL: all) */
	const char *exclude_dev; /* --exclude-dev LIST */
	const char *ib_hca;	/* NCCL_IB_HCA chosen from the rails, NULL: none */
	json_t *rail_notes;	/* the rail matching's notes (ports left out with
				 * their rule, rails assumed) when it chose NCCL_IB_HCA */
	const char *rails_assumed; /* how rails were assumed, NULL: not assumed */
	json_t *rail_findings;	/* its warnings and failures (a port on no rail, a
				 * miswire): [{severity, text}], judged as matrix does */
	const char *port_down;	/* nodes with a port down that their peers have up,
				 * a failure (ncr_choose_rails), NULL: none */
	const char *db;		/* --db: the store the run is recorded in */
};

struct ncr_rank {
	struct fc_chan ch;
	char label[160];
	const char *node;
	int gpu;
	int failed;
	char fail_what[1200]; /* the failure without the rank's label */
	char fail_msg[1400];  /* as reported */
	json_t *setup;
	struct ncr_rank_result res;
	char *log;
	size_t loglen;
};

struct ncr_state {
	const struct ncr_cfg *cfg;
	int n;
	struct ncr_rank *r;
	struct fc_chan **chans;
	json_t *doc;
	json_t *seen; /* "node\nmsg" of findings already made */
	int exit;
};

/* Every rail by default (nccl_run_hca.c): NCCL_IB_HCA set to the rails'
 * devices where a port was left out or --rails chose some; not where
 * NCCL_IB_HCA is set or --rails first. Returns 0, or -1 (a usage error, logged). */
int ncr_choose_rails(struct ncr_cfg *cfg);
/* Runs the test and prints the report; returns the exit code. */
int ncr_run(struct fc_ctx *ctx, const struct ncr_cfg *cfg);
/* Text rendering of a run document. */
void ncr_render(FILE *f, const json_t *doc);
/* The report of a run that went through: ranks, results, the log. */
void ncr_report(struct ncr_state *s);
/* busbw against what the rails can carry (nccl_run_rails.c): "rails" and
 * its finding into the document; its text line. */
void ncr_rails_report(struct ncr_state *s);
/* --db: the run as a run of kind "nccl" ({"nodes", "gpus_per_node",
 * "peak_busbw_gbytes_s", "rails"}), what plan --db reads. */
void ncr_store_record(struct ncr_state *s);
void ncr_rails_render(FILE *f, const json_t *doc);

#endif
