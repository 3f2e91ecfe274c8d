/* fabcheck pair: the controller side. */
#ifndef FC_CTL_PAIR_H
#define FC_CTL_PAIR_H

#include <jansson.h>
#include <stdint.h>

#include "core/fc.h"
#include "core/opts.h"
#include "core/pairv.h"
#include "core/rail.h"
#include "gdr/gdr.h"
#include "ctl/chan.h"
#include "verbs/test.h"

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
	uint64_t iters;	     /* 0: PAIR_LAT_ITERS rounds, bandwidth by duration */
	double duration;
	int method;	     /* enum vb_method: --perftest */
	int report_gbits;    /* --report-gbits: --perftest's text in Gb/s, not MiB/s */
	int warmup;	     /* --warm-up: -1 the method's default, else requests or rounds */
	int qps, bidir, reverse, tx_depth;
	int cm;
	int tclass;	     /* --tclass: GRH traffic class, -1 = default */
	int sl;		     /* --sl: InfiniBand service level, -1 = default */
	double timeout;
	double deadline; /* seconds for the whole run, 0: none */
	double interval;
	struct fc_launch launch;
	struct fc_pair_limits lim;
	const char *db;
	int no_db;
	const char *baseline; /* --baseline FILE: the fleet's (core/baseline.h) */
	const char *evidence_dir; /* --save-evidence, or NULL */
	/* data path knobs (verbs/test.h): --cq-mod (0: the method's),
	 * --inline (-2: the method's), --post-list, --threads, --lat-mode
	 * (-1: the memory's default) */
	int cq_mod, inline_max, post_list, threads, lat_mode;
	struct gdr_opts mem; /* --use-cuda, --gdr, --validate */
	int gdr_given;
	int dev_given;	     /* -d given */
	/* Rails (pair/pair_rails.c). */
	const char *rails;   /* --rails all|LIST, NULL: one port (-d, --rails first) */
	int rails_default;   /* every rail, not asked for: one rail found runs as one port */
	json_t *rail_notes;  /* the matching's findings for that one port's report */
	const char *exclude_dev; /* --exclude-dev LIST */
	double min_loaded_pct; /* fail a rail loaded below this share of alone */
	int loaded_only;     /* --loaded-only: every rail at once, not each alone */
	int sync_fd;	     /* --sync-fd: start each test with the other rails, -1 */
	json_t *child_args;  /* the options each rail's pair gets */
};

/* Runs the test and prints the report; returns the exit code. */
int pair_run(struct fc_ctx *ctx, struct pair_cfg *cfg);
/* One node's ports, as `fabcheck devices --json` on it lists them. */
#define PAIR_PORTS_MAX 64
struct pair_ports {
	struct fc_rail_port p[PAIR_PORTS_MAX];
	int n;		/* -1: could not be read (why) */
	char why[512];
};
/* Lists the ports of @n nodes at once through @l; returns how many could
 * not be read (their ->why says why), or -ENOMEM. */
int pair_ports_list(const struct fc_launch *l, const char *const *nodes, int n, double timeout,
		    struct pair_ports *out);

/* --rails: each rail alone, then every rail at once; returns the exit code. */
int pair_rails_run(struct fc_ctx *ctx, struct pair_cfg *cfg);
/*
 * --rails with GPU memory (pair/pair_railgpu.c): on each node of @rails (the
 * report's "rails" list, sides "a" and "b" with "gpu", "gpu_count"), two
 * rails that had their buffers on one GPU: a warning where the node has as
 * many GPUs as rails, a note where it has fewer.
 */
void pair_rail_gpus_check(json_t *doc, const json_t *rails, const char *node_a,
			  const char *node_b);
/* Keeps a finished pair document in the store (--db, unless --no-db). */
void pair_store_run(const struct pair_cfg *cfg, json_t *doc);
/* --baseline: the results of @doc against the fleet's baseline. */
void pair_judge_baseline(const struct pair_cfg *cfg, json_t *doc);
/* Text rendering of a pair document. */
void pair_render(FILE *f, const json_t *doc);
/* Its bandwidth table (fabcheck's figures, or perftest's with @gbits for
 * --report-gbits) and its latency table, each with its notes under it
 * (pair/pair_figs.c). */
void pair_render_bw(FILE *f, const json_t *results);
void pair_render_bw_pt(FILE *f, const json_t *results, int gbits);
void pair_render_lat(FILE *f, const json_t *results);
/* pair --rails: the table of each rail alone and loaded (pair_render's,
 * above the diagnosis). */
void pair_rails_table(FILE *f, const json_t *doc);
/* A rail of pair --rails (its "a", "b", "alone_gbps", "loaded_gbps") that
 * passed alone (@alone_verdict) and moved less than @min_pct % of it with
 * all @nrails loaded (pair/pair_loaded.c): on hardware HCAs the host's
 * fault (a finding in @doc, the rail "host_limited" and failed); on
 * software devices the node's CPU they share ("cpu_limited", no finding). */
enum { PAIR_LOADED_OK, PAIR_LOADED_HOST, PAIR_LOADED_CPU };
int pair_loaded_judge(json_t *doc, json_t *rail, const char *alone_verdict, double min_pct,
		      int nrails);
/* The rails of @doc that were "cpu_limited", said once as a note. */
void pair_loaded_note(json_t *doc);
/* Why a software device's rails slow each other when loaded together: the
 * note's reason (pair_loaded_note) and the rails table's "(CPU)" key. */
#define PAIR_CPU_SHARED "rxe and siw do the HCA's work on the node's CPU, which the rails share"
/* QoS (pair/pair_qos.c): the options' record, each side's traffic class and
 * SL as its QP carries them (from the "connected" reply), the notes, and
 * the congestion counter findings once both sides finished. */
void pair_qos_options(const struct pair_cfg *cfg, json_t *opts);
void pair_qos_side(json_t *doc, const struct pair_cfg *cfg, int side, const json_t *reply);
void pair_qos_note(json_t *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every rail by default, one found (pair_qos.c): @from's "notes", "findings"
 * (warnings), "fail" and "rails_matched" into the one port's report @doc. */
void pair_rail_notes(json_t *doc, const json_t *from);
void pair_qos_finish(json_t *doc, const struct pair_cfg *cfg);
void pair_qos_render(FILE *f, const json_t *doc);

/* Evidence (pair/pair_ev.c): "evidence" messages of a worker kept in
 * @ev[side] ({"before": snapshot, "after": snapshot}) by pair_ev_absorb,
 * the pieces of a file kept apart until pair_ev_read joins them (linear
 * time): at most DIAG_SNAP_FILE_MAX a file and PAIR_EV_MAX a side, counted
 * in *@used (names included, and each message as PAIR_EV_MSG_MIN bytes at
 * least, so that empty ones cannot go on forever). Returns 0, or -E2BIG
 * with the reason in @why (@len bytes) for a worker that sends more, which
 * is refused. pair_ev_read parses
 * each side's port once into @s (@idx[side]: its index, -1 without
 * evidence); pair_ev_ceilings puts each side's smallest PCIe ceiling in
 * as "pcie_ceiling", for the verdict's floor (core/pairv.h); once the
 * verdict is in, pair_ev_finish adds the diagnosis, releases @s and, with
 * --save-evidence, writes the folder. */
struct diag_set;
#define PAIR_EV_MSG_MIN 1024
#define PAIR_EV_MAX (2 * DIAG_SNAP_TOTAL_MAX) /* a snapshot before, one after */
int pair_ev_absorb(json_t *ev, size_t *used, const json_t *msg, char *why, size_t len);
/* 0 when the names of a worker's setup reply (device, netdev, host) are
 * names (core/names.h); else -EINVAL, logged. */
int pair_setup_names(const json_t *setup);
void pair_ev_read(struct diag_set *s, const json_t *doc, json_t *const ev[2], int idx[2]);
void pair_ev_ceilings(json_t *doc, const struct diag_set *s, const int idx[2]);
void pair_ev_finish(json_t *doc, struct diag_set *s, json_t *const ev[2],
		    const struct pair_cfg *cfg);
/* pair --rails: each rail's diagnosis (from its pair documents @alone and
 * @loaded, NULL where not run), named by rail, and the rows over all rails. */
void pair_ev_rails(json_t *doc, json_t *const *alone, json_t *const *loaded, int nrails);
/* Latency rounds by default: enough for p99.9 (10 / (1 - 0.999)). */
#define PAIR_LAT_ITERS 10000
/* Bandwidth without -n or -D: this many seconds per size. */
#define PAIR_BW_SECONDS 2.0
/* --perftest without -n or -D: perftest's DEF_ITERS (latency rounds, read
 * and send bandwidth messages per QP) and DEF_ITERS_WB (write bandwidth),
 * src/perftest_parameters.h (init_perftest_params). */
#define PAIR_PT_ITERS 1000
#define PAIR_PT_WRITE_BW_ITERS 5000
/* Bandwidth size without -s: 1 MiB; with --perftest perftest's DEF_SIZE_BW,
 * 64 KiB (src/perftest_parameters.h; init_perftest_params in
 * perftest_parameters.c). Latency: 2 B in both (DEF_SIZE_LAT). */
#define PAIR_BW_SIZE (1u << 20)
#define PAIR_PT_BW_SIZE 65536u
#define PAIR_LAT_SIZE 2u
/* --perftest: perftest's receives per QP for sends, DEF_RX_SEND (512),
 * cut to the iterations and made even (force_dependecies: "rx_depth >
 * iters", "WA for a bug when rx_depth is odd in SEND"); 0: the method's
 * own (twice the tx depth, verbs/res.c), and without a send test. */
#define PAIR_PT_RX_DEPTH 512
int pair_rx_depth(const struct pair_cfg *cfg);

/* How long a test runs: rounds or messages per QP, else seconds. */
void pair_test_length(const struct pair_cfg *cfg, enum vb_op op, int lat, uint64_t *iters_p,
		      double *duration_p);
/* What a test cut by a deadline had moved, for its finding: "@done of
 * @planned @unit in @secs s" for a test of a count (@planned, all its
 * active sides together), "@done @unit in @secs s of a @duration s test"
 * for a timed one (@planned 0): never a count against a total of 0. */
void pair_moved_text(char *buf, size_t len, double done, double planned, double duration,
		     const char *unit, double secs);
/* The rate of that test, for its finding: "@gbps Gb/s" (all its sides
 * together), or for a latency test the mean of its @done round trips in
 * @secs s ("N us a round trip"; "not one round trip" for none). */
void pair_rate_text(char *buf, size_t len, int lat, double done, double secs, double gbps);
/* Floors of the test's own deadline (pair_test_budget): far below any RDMA
 * link, so that no real test is cut: 1 Mbit/s is 2500 times below the
 * slowest InfiniBand link, 1X SDR at 2.5 Gb/s (IBTA spec. vol. 1, 5.2), and
 * 1 ms a message some 500 times RoCE's and InfiniBand's few-microsecond
 * round trips (perftest ib_write_lat). They bound only a worker that sends
 * "progress" forever. */
#define PAIR_FLOOR_BPS 1e6
#define PAIR_FLOOR_MSG_S 1e-3
/* The seconds after its go that a test of @iters messages per QP (or
 * @duration seconds) of @size bytes may last at the floors, its warm-up and
 * queues included, plus --timeout for the result's way back: the test's own
 * deadline, up to which its "progress" extends the wait for its result. */
double pair_test_budget(const struct pair_cfg *cfg, int lat, uint64_t iters, double duration,
			uint64_t size);
#define PAIR_GBPS_MAX FC_GBPS_MAX /* core/fc.h */
/* 0 when every number of a worker's "result" @res (but its "method", the
 * knobs it ran with) is a figure: finite, not
 * negative, and no "...gbps" one above PAIR_GBPS_MAX; else -EINVAL with
 * what is wrong in @why (@len bytes). Such a result is refused, never kept
 * (pair/pair_bw.c). */
int pair_result_check(const json_t *res, char *why, size_t len);
/* --validate, bandwidth: what the checking side of @res confirms at most
 * into @e (validate_ceiling_gbps, the lower of the sides checking; with
 * validate_ceiling_from "crc" or "copy", the lower of its two parts, and
 * both parts' figures), for the verdict (core/pairv.c). */
void pair_val_ceiling(json_t *e, const json_t *res);
/* The bandwidth result from both sides' reports (pair/pair_bw.c); both
 * ways, over the window both ran in, each side's clock at @offset (seconds
 * its clock is ahead of the controller's) within @clock_err. */
void pair_bw_entry(json_t *doc, const struct pair_cfg *cfg, json_t *e, enum vb_op op,
		   json_t **res, const int *active, const double *offset, double clock_err);
/* A test started together with other pairs' (--sync-fd): each sending
 * side's byte curve on our clock (@offset: its clock ahead of ours), as
 * "curves": {"a_to_b": [[seconds, bytes], ...]}, so that a matrix pattern
 * can cut the window in which all of a round's flows ran (matrix/mx_pattern.c). */
void pair_bw_curves(json_t *e, enum vb_op op, json_t **res, const int *active,
		    const double *offset);

/* Before any traffic (pair/pair_link.c): 0 when the two setup reports'
 * GIDs are of one type and address family, else -1 with @why set. */
int pair_gid_check(char *why, size_t len, const json_t *s0, const json_t *s1);
/* Each side's payload ceiling at @path_mtu into doc's "a" and "b"
 * ("payload_gbps", "payload"); RoCE at 1024 B or less is a finding. */
void pair_link_ceiling(json_t *doc, int path_mtu);
/* The options of `pair` that choose what runs on the nodes, or which file
 * or descriptor it uses (pointers into the checked arguments; NULL when not
 * given): a store's copy is used only when the command line repeats it. */
struct pair_launch_opts {
	const char *worker_cmd, *launcher, *ssh_config, *evidence_dir, *sync_fd;
};
/*
 * Checks @n arguments of `fabcheck pair` (options only, no nodes) by the
 * command line's own rules, refusing the ones the matrix sets (--db,
 * --no-db, --json); @what names them in the errors (logged). Returns 0
 * with the launch options found in @l, or -EINVAL.
 */
int pair_opts_check(const char *what, const char *const *args, int n,
		    struct pair_launch_opts *l);

/* The options of `fabcheck pair` (pair/pair_opts.c), and their defaults. */
extern const struct fc_opts pair_spec;
void pair_cfg_defaults(struct pair_cfg *cfg);

/* The sizes a metric runs at; returns how many. */
int pair_sizes(const struct pair_cfg *cfg, int lat, uint64_t *sizes);
/* The largest size of the run (the workers' buffers are laid out for it). */
uint64_t pair_largest_size(const struct pair_cfg *cfg);
/* pair/pair_out.c: the document a pair run fills (nodes, options, no results). */
json_t *pair_new_doc(const struct pair_cfg *cfg);
/* The bandwidth knobs checked together (pair/pair_knobs.c): -EINVAL, logged,
 * for a combination that would stall; pair_knobs_notes adds what the rule
 * changes to @doc's notes and --validate to its options. */
int pair_knobs_check(const struct pair_cfg *cfg);
void pair_knobs_notes(const struct pair_cfg *cfg, json_t *doc);

#endif
