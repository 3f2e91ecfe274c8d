/* fabcheck pair: the controller side. */
#ifndef FC_CTL_PAIR_H
#define FC_CTL_PAIR_H

#include <jansson.h>
#include <stdint.h>

#include "core/fc.h"
#include "core/pairv.h"
#include "gdr/gdr.h"
#include "ctl/chan.h"

#define PAIR_MAX_SIZES 32

struct pair_cfg {
	const char *node[2];
	char label[2][140];  /* node names as reported (distinct) */
	char dev[2][64];     /* "" = first active */
	int port[2];	     /* 0 = first active */
	int gid[2];	     /* -1 = scored choice */
	unsigned ops;	     /* bit (1 << enum vb_op) */
	int bw, lat;
	uint64_t size;	     /* 0: 1 MiB for bandwidth, 2 B for latency */
	int all_sizes;
	uint64_t max_size;   /* with -a */
	uint64_t iters;
	double duration;
	int qps, bidir, reverse, tx_depth;
	int cm;
	int tclass;	     /* --tclass: GRH traffic class, -1 = default */
	int sl;		     /* --sl: InfiniBand service level, -1 = default */
	double timeout;
	double interval;
	struct fc_launch launch;
	struct fc_pair_limits lim;
	const char *db;
	int no_db;
	const char *evidence_dir; /* --save-evidence, or NULL */
	/* data path knobs (verbs/test.h): --cq-mod (0: the method's),
	 * --inline (-2: the method's), --post-list, --threads, --lat-mode
	 * (-1: the memory's default) */
	int cq_mod, inline_max, post_list, threads, lat_mode;
	struct gdr_opts mem; /* --use-cuda, --gdr, --validate */
	int gdr_given;
};

/* Runs the test and prints the report; returns the exit code. */
int pair_run(struct fc_ctx *ctx, struct pair_cfg *cfg);
/* Text rendering of a pair document. */
void pair_render(FILE *f, const json_t *doc);
/* QoS (pair/pair_qos.c): the options' record, each side's traffic class and
 * SL as its QP carries them (from the "connected" reply), the notes, and
 * the congestion counter findings once both sides finished. */
void pair_qos_options(const struct pair_cfg *cfg, json_t *opts);
void pair_qos_side(json_t *doc, const struct pair_cfg *cfg, int side, const json_t *reply);
void pair_qos_note(json_t *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pair_qos_finish(json_t *doc, const struct pair_cfg *cfg);
void pair_qos_render(FILE *f, const json_t *doc);

/* Evidence (pair/pair_ev.c): "evidence" messages of a worker kept in
 * @ev[side] ({"before": snapshot, "after": snapshot}); once the verdict is
 * in, the diagnosis on top and, with --save-evidence, the folder. */
void pair_ev_absorb(json_t *ev, const json_t *msg);
void pair_ev_finish(json_t *doc, json_t *const ev[2], const struct pair_cfg *cfg);

/* The sizes a metric runs at; returns how many. */
int pair_sizes(const struct pair_cfg *cfg, int lat, uint64_t *sizes);

#endif
